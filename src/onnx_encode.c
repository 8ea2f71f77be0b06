/*
 * Hand encoding of NodeProto and ValueInfoProto (onnx_encode.h).  Field
 * numbers are onnx.proto's; each message writes its fields in number order,
 * as protobuf-c does.
 */
#include "onnx_encode.h"

#include <string.h>

/* ------------------------------------------------------------ wire format */

enum { WIRE_VARINT = 0, WIRE_FIXED32 = 5, WIRE_LEN = 2 };

void ox_pb_out_init(ox_pb_out *o, ProtobufCBuffer *sink, uint8_t *stage)
{
    o->sink = sink;
    o->stage = stage;
    o->staged = 0;
    o->n = 0;
}

void ox_pb_out_flush(ox_pb_out *o)
{
    if (o->sink && o->staged)
        o->sink->append(o->sink, o->staged, o->stage);
    o->staged = 0;
}

size_t ox_pb_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t ox_pb_field_head_len(uint32_t field, uint64_t len)
{
    return ox_pb_varint_len((uint64_t)field << 3 | WIRE_LEN) + ox_pb_varint_len(len);
}

static void put_raw_slow(ox_pb_out *o, const void *p, size_t n)
{
    ox_pb_out_flush(o);
    if (n > OX_PB_STAGE) {
        o->sink->append(o->sink, n, p); /* large bytes (a tensor) go as they are */
        return;
    }
    memcpy(o->stage, p, n);
    o->staged = n;
}

static inline void put_raw(ox_pb_out *o, const void *p, size_t n)
{
    o->n += n;
    if (!o->sink || n == 0)
        return;
    if (o->staged + n > OX_PB_STAGE) {
        put_raw_slow(o, p, n);
        return;
    }
    memcpy(o->stage + o->staged, p, n);
    o->staged += n;
}

static inline void put_varint(ox_pb_out *o, uint64_t v)
{
    if (!o->sink) {
        o->n += ox_pb_varint_len(v);
        return;
    }
    if (o->staged + 10 > OX_PB_STAGE)
        ox_pb_out_flush(o);
    uint8_t *b = o->stage + o->staged;
    size_t k = 0;
    while (v >= 0x80) {
        b[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[k++] = (uint8_t)v;
    o->staged += k;
    o->n += k;
}

static inline void put_key(ox_pb_out *o, uint32_t field, unsigned wire)
{
    put_varint(o, (uint64_t)field << 3 | wire);
}

static inline void put_bytes(ox_pb_out *o, uint32_t field, const void *p, size_t n)
{
    put_key(o, field, WIRE_LEN);
    put_varint(o, n);
    put_raw(o, p, n);
}

static inline void put_string(ox_pb_out *o, uint32_t field, const char *s)
{
    put_bytes(o, field, s, strlen(s));
}

/* int32 and enums: a negative value as its 64-bit two's complement (ten
 * bytes), as protobuf specifies. */
static inline void put_int32(ox_pb_out *o, uint32_t field, int32_t v)
{
    put_key(o, field, WIRE_VARINT);
    put_varint(o, (uint64_t)(int64_t)v);
}

static inline void put_int64(ox_pb_out *o, uint32_t field, int64_t v)
{
    put_key(o, field, WIRE_VARINT);
    put_varint(o, (uint64_t)v);
}

static inline void put_float(ox_pb_out *o, uint32_t field, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint8_t b[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                    (uint8_t)(bits >> 24)};
    put_key(o, field, WIRE_FIXED32);
    put_raw(o, b, sizeof b);
}

/* Writing into the stage at a cursor, for a message whose length is known
 * and fits: the bytes are committed once, at the end, instead of each field
 * checking the stage and counting itself (those checks were most of writing
 * a value info).  Each item still checks its room, so a length that
 * disagrees with the fields cannot write past the stage: the cursor stops,
 * nothing is committed, and the caller writes the message the general way. */
typedef struct cursor {
    uint8_t *b, *limit;
    bool ok;
} cursor;

/* The longest key + length head, and the longest varint field. */
enum { RAW_HEAD_MAX = 15, RAW_VARINT_FIELD_MAX = 15 };

static inline bool room(cursor *c, uint64_t need)
{
    if (c->ok && (uint64_t)(c->limit - c->b) >= need)
        return true;
    c->ok = false;
    return false;
}

static inline void raw_varint(cursor *c, uint64_t v)
{
    uint8_t *b = c->b;
    while (v >= 0x80) {
        *b++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *b++ = (uint8_t)v;
    c->b = b;
}

static inline void raw_len_head(cursor *c, uint32_t field, uint64_t len)
{
    if (!room(c, RAW_HEAD_MAX))
        return;
    raw_varint(c, (uint64_t)field << 3 | WIRE_LEN);
    raw_varint(c, len);
}

static inline void raw_varint_field(cursor *c, uint32_t field, uint64_t v)
{
    if (!room(c, RAW_VARINT_FIELD_MAX))
        return;
    raw_varint(c, (uint64_t)field << 3 | WIRE_VARINT);
    raw_varint(c, v);
}

static inline void raw_string(cursor *c, uint32_t field, const char *s)
{
    /* A short string (the names of a node) is copied in one pass, its
     * length byte filled in behind it, instead of strlen then memcpy: a
     * key of one byte (field < 16) and a length below 128. */
    if (field < 16 && c->ok && c->limit - c->b >= 2 + 127) {
        uint8_t *b = c->b, *p = b + 2;
        size_t i = 0;
        while (i < 127 && s[i]) {
            p[i] = (uint8_t)s[i];
            i++;
        }
        if (!s[i]) {
            b[0] = (uint8_t)(field << 3 | WIRE_LEN);
            b[1] = (uint8_t)i;
            c->b = p + i;
            return;
        }
    }
    size_t len = strlen(s);
    if (!room(c, RAW_HEAD_MAX + (uint64_t)len))
        return;
    raw_len_head(c, field, len);
    memcpy(c->b, s, len);
    c->b += len;
}

/* A cursor on the stage with room for `len` more bytes (flushing what it
 * holds), or one already stopped: counting, or a message too large. */
static cursor stage_cursor(ox_pb_out *o, uint64_t len)
{
    cursor c = {NULL, NULL, false};
    if (!o->sink || len > OX_PB_STAGE)
        return c;
    if (o->staged + len > OX_PB_STAGE)
        ox_pb_out_flush(o);
    c.b = o->stage + o->staged;
    c.limit = o->stage + OX_PB_STAGE;
    c.ok = true;
    return c;
}

/* Commits what the cursor wrote when it wrote exactly `len` bytes; false
 * (nothing committed) otherwise. */
static bool commit(ox_pb_out *o, const cursor *c, uint64_t len)
{
    if (!c->ok || (uint64_t)(c->b - (o->stage + o->staged)) != len)
        return false;
    o->staged += len;
    o->n += len;
    return true;
}

/* A message's fields, written (or counted) into o. */
typedef void (*fields_fn)(ox_pb_out *o, const void *arg);

/* A length-delimited sub-message (an attribute, an attribute's tensor).
 * Writing, its length is counted first: these are small, and a node's own
 * length comes from the writer's measuring pass (ox_pb_put_node). */
static void put_message(ox_pb_out *o, uint32_t field, fields_fn fields, const void *arg)
{
    uint64_t len;
    if (!o->sink) {
        uint64_t before = o->n;
        fields(o, arg);
        len = o->n - before;
        o->n += ox_pb_field_head_len(field, len);
        return;
    }
    ox_pb_out c = {NULL, NULL, 0, 0};
    fields(&c, arg);
    len = c.n;
    put_key(o, field, WIRE_LEN);
    put_varint(o, len);
    fields(o, arg);
}

/* --------------------------------------------------------- TensorProto */

/* A tensor held by an attribute: dims (1), data_type (2), name (8),
 * raw_data (9), always present even when empty. */
static void tensor_fields(ox_pb_out *o, const void *arg)
{
    const ox_attr_tensor *t = arg;
    for (uint32_t i = 0; i < t->rank; i++)
        put_int64(o, 1, t->dims[i]);
    put_int32(o, 2, (int32_t)t->dtype);
    if (t->name)
        put_string(o, 8, t->name);
    put_bytes(o, 9, t->data.data, (size_t)t->data.nbytes);
}

/* ------------------------------------------------------ AttributeProto */

/* name (1), the value's field (2-9), type (20), ref_attr_name (21). */
static void attr_fields(ox_pb_out *o, const void *arg)
{
    const ox_attr *a = arg;
    put_string(o, 1, a->name ? a->name : "");
    if (a->ref) {
        put_int32(o, 20, (int32_t)a->kind);
        put_string(o, 21, a->ref);
        return;
    }
    switch (a->kind) {
    case OX_ATTR_FLOAT:
        put_float(o, 2, (float)a->u.f);
        break;
    case OX_ATTR_INT:
        put_int64(o, 3, a->u.i);
        break;
    case OX_ATTR_STRING:
        put_bytes(o, 4, a->u.s.p, a->u.s.p ? a->u.s.len : 0);
        break;
    case OX_ATTR_TENSOR:
        put_message(o, 5, tensor_fields, a->u.t);
        break;
    case OX_ATTR_FLOATS:
        for (size_t i = 0; i < a->u.floats.n; i++)
            put_float(o, 7, (float)a->u.floats.p[i]);
        break;
    case OX_ATTR_INTS:
        for (size_t i = 0; i < a->u.ints.n; i++)
            put_int64(o, 8, a->u.ints.p[i]);
        break;
    case OX_ATTR_STRINGS:
        for (size_t i = 0; i < a->u.strings.n; i++)
            put_string(o, 9, a->u.strings.p[i] ? a->u.strings.p[i] : "");
        break;
    default:
        break; /* not encodable: ox_pb_node_encodable said so */
    }
    put_int32(o, 20, (int32_t)a->kind);
}

static bool attr_encodable(const ox_attr *a)
{
    if (a->ref)
        return true;
    switch (a->kind) {
    case OX_ATTR_FLOAT:
    case OX_ATTR_INT:
    case OX_ATTR_STRING:
        return true;
    case OX_ATTR_TENSOR:
        return a->u.t != NULL;
    case OX_ATTR_FLOATS:
        return !a->u.floats.n || a->u.floats.p;
    case OX_ATTR_INTS:
        return !a->u.ints.n || a->u.ints.p;
    case OX_ATTR_STRINGS:
        return !a->u.strings.n || a->u.strings.p;
    default:
        return false;
    }
}

/* ----------------------------------------------------------- NodeProto */

typedef struct node_arg {
    const ox_node *n;
    const ox_pb_node_names *names;
} node_arg;

static const char *value_name(const ox_pb_node_names *names, ox_vid id)
{
    const char *s = id ? names->value_names[id] : NULL;
    return s ? s : ""; /* absent optional input or output */
}

/* A node's doc_string: its scope, else the doc read from a file; NULL for
 * none. */
static const char *node_doc(const ox_node *n)
{
    if (n->scope && n->scope[0])
        return n->scope;
    return n->doc && n->doc[0] ? n->doc : NULL;
}

/* input (1), output (2), name (3), op_type (4), attribute (5),
 * doc_string (6: the scope, else the doc read from a file), domain (7). */
static void node_fields(ox_pb_out *o, const void *arg)
{
    const node_arg *na = arg;
    const ox_node *n = na->n;
    for (uint32_t i = 0; i < n->n_inputs; i++)
        put_string(o, 1, value_name(na->names, n->inputs[i]));
    for (uint32_t i = 0; i < n->n_outputs; i++)
        put_string(o, 2, value_name(na->names, n->outputs[i]));
    if (na->names->node_name)
        put_string(o, 3, na->names->node_name);
    put_string(o, 4, n->op_type ? n->op_type : "");
    for (uint32_t i = 0; i < n->n_attrs; i++)
        put_message(o, 5, attr_fields, &n->attrs[i]);
    const char *doc = node_doc(n);
    if (doc)
        put_string(o, 6, doc);
    put_string(o, 7, n->domain ? n->domain : "");
}

bool ox_pb_node_encodable(const ox_node *n)
{
    for (uint32_t i = 0; i < n->n_attrs; i++)
        if (!attr_encodable(&n->attrs[i]))
            return false;
    return true;
}

/* A string field's bytes, for a field below 16 (a one-byte key). */
static inline uint64_t small_field_string_len(const char *s)
{
    size_t len = strlen(s);
    return 1 + ox_pb_varint_len(len) + len;
}

uint64_t ox_pb_node_size(const ox_node *n, const ox_pb_node_names *names)
{
    if (!n->n_attrs) {
        /* node_fields' strings, summed without its counting run */
        uint64_t t = 0;
        for (uint32_t i = 0; i < n->n_inputs; i++)
            t += small_field_string_len(value_name(names, n->inputs[i]));
        for (uint32_t i = 0; i < n->n_outputs; i++)
            t += small_field_string_len(value_name(names, n->outputs[i]));
        if (names->node_name)
            t += small_field_string_len(names->node_name);
        t += small_field_string_len(n->op_type ? n->op_type : "");
        const char *doc = node_doc(n);
        if (doc)
            t += small_field_string_len(doc);
        return t + small_field_string_len(n->domain ? n->domain : "");
    }
    node_arg na = {n, names};
    ox_pb_out c = {NULL, NULL, 0, 0};
    node_fields(&c, &na);
    return c.n;
}

/* A node without attributes whose bytes fit the stage, written at a cursor:
 * the fields of node_fields, in its order.  False, with nothing written,
 * when it takes the general way. */
static bool put_plain_node(ox_pb_out *o, uint32_t field, const ox_node *n,
                           const ox_pb_node_names *names, uint64_t size)
{
    uint64_t total = ox_pb_field_head_len(field, size) + size;
    if (n->n_attrs)
        return false;
    cursor c = stage_cursor(o, total);
    raw_len_head(&c, field, size);
    for (uint32_t i = 0; i < n->n_inputs; i++)
        raw_string(&c, 1, value_name(names, n->inputs[i]));
    for (uint32_t i = 0; i < n->n_outputs; i++)
        raw_string(&c, 2, value_name(names, n->outputs[i]));
    if (names->node_name)
        raw_string(&c, 3, names->node_name);
    raw_string(&c, 4, n->op_type ? n->op_type : "");
    const char *doc = node_doc(n);
    if (doc)
        raw_string(&c, 6, doc);
    raw_string(&c, 7, n->domain ? n->domain : "");
    return commit(o, &c, total);
}

bool ox_pb_put_node(ox_pb_out *o, uint32_t field, const ox_node *n,
                    const ox_pb_node_names *names, uint64_t size)
{
    if (put_plain_node(o, field, n, names, size))
        return true;
    node_arg na = {n, names};
    put_key(o, field, WIRE_LEN);
    put_varint(o, size);
    uint64_t before = o->n;
    node_fields(o, &na);
    return o->n - before == size;
}

/* ------------------------------------------------------ ValueInfoProto */

/* A tensor's ValueInfoProto is five messages deep (ValueInfo > Type >
 * Tensor > Shape > Dimension) and the writer emits one per value, so its
 * lengths are computed directly from the type rather than by counting runs
 * through the generic put_message (that was an eighth of an export's
 * instructions, docs/performance.md).  The put checks the bytes it wrote
 * against those lengths, so they cannot silently disagree with the fields
 * written below them. */

static const char *dim_param(const ox_type *ty, int32_t i)
{
    const char *p = ty->dim_params ? ty->dim_params[i] : NULL;
    return p && p[0] ? p : NULL;
}

static uint64_t varint_field_len(uint32_t field, uint64_t v)
{
    return ox_pb_varint_len((uint64_t)field << 3 | WIRE_VARINT) + ox_pb_varint_len(v);
}

/* Dimension: dim_param (2) when the axis is named, else dim_value (1) when
 * known, else nothing (an empty Dimension). */
static uint64_t dim_len(const ox_type *ty, int32_t i)
{
    const char *p = dim_param(ty, i);
    if (p)
        return ox_pb_field_head_len(2, strlen(p)) + strlen(p);
    if (ty->dims && ty->dims[i] >= 0)
        return varint_field_len(1, (uint64_t)ty->dims[i]);
    return 0;
}

/* TensorShapeProto: dim (1), one per axis. */
static uint64_t shape_len(const ox_type *ty)
{
    uint64_t n = 0;
    for (int32_t i = 0; i < ty->rank; i++) {
        uint64_t d = dim_len(ty, i);
        n += ox_pb_field_head_len(1, d) + d;
    }
    return n;
}

/* TypeProto.Tensor: elem_type (1) when known, shape (2) when the rank is;
 * elem_type is an int32, so written as its 64-bit two's complement. */
static uint64_t tensor_type_len(const ox_type *ty, uint64_t shape)
{
    uint64_t n = 0;
    if (ty->dtype != OX_UNDEFINED)
        n += varint_field_len(1, (uint64_t)(int64_t)(int32_t)ty->dtype);
    if (ty->rank >= 0)
        n += ox_pb_field_head_len(2, shape) + shape;
    return n;
}

static inline void raw_bytes(cursor *c, const uint8_t *p, size_t n)
{
    if (!room(c, n))
        return;
    memcpy(c->b, p, n);
    c->b += n;
}

/* The type field's bytes for ty, from the memo or encoded into it; NULL
 * when ty is not one the memo keeps, or without a memo (then the general
 * code writes it). */
static const ox_pb_type_memo *type_bytes(ox_pb_type_memo *m, const ox_type *ty)
{
    if (!m || ty->nontensor || ty->rank < 0 || ty->rank > OX_PB_TYPE_MEMO_RANK ||
        (ty->rank > 0 && !ty->dims))
        return NULL;
    for (int32_t i = 0; ty->dim_params && i < ty->rank; i++)
        if (ty->dim_params[i])
            return NULL;
    if (m->valid && m->dtype == ty->dtype && m->rank == ty->rank &&
        (ty->rank == 0 || memcmp(m->dims, ty->dims, (size_t)ty->rank * sizeof(int64_t)) == 0))
        return m;
    m->valid = false;
    uint64_t shape = shape_len(ty);
    uint64_t tensor_type = tensor_type_len(ty, shape);
    uint64_t type = ox_pb_field_head_len(1, tensor_type) + tensor_type;
    uint64_t total = ox_pb_field_head_len(2, type) + type;
    if (total > sizeof m->b)
        return NULL;
    cursor c = {m->b, m->b + sizeof m->b, true};
    raw_len_head(&c, 2, type);        /* TypeProto */
    raw_len_head(&c, 1, tensor_type); /* TypeProto.Tensor */
    if (ty->dtype != OX_UNDEFINED)
        raw_varint_field(&c, 1, (uint64_t)(int64_t)(int32_t)ty->dtype);
    raw_len_head(&c, 2, shape); /* TensorShapeProto */
    for (int32_t i = 0; i < ty->rank; i++) {
        raw_len_head(&c, 1, dim_len(ty, i)); /* Dimension */
        if (ty->dims[i] >= 0)
            raw_varint_field(&c, 1, (uint64_t)ty->dims[i]);
    }
    if (!c.ok || (uint64_t)(c.b - m->b) != total)
        return NULL;
    m->dtype = ty->dtype;
    m->rank = ty->rank;
    if (ty->rank > 0)
        memcpy(m->dims, ty->dims, (size_t)ty->rank * sizeof(int64_t));
    m->len = (size_t)total;
    m->valid = true;
    return m;
}

/* The lengths of one value info's nested messages; with `tm`, the type
 * field is its bytes and the three inner lengths are unused. */
typedef struct value_info_lens {
    uint64_t shape, tensor_type, type, value_info;
    const ox_pb_type_memo *tm;
} value_info_lens;

/* ValueInfoProto: name (1), type (2: TypeProto's tensor_type, 1),
 * doc_string (3). */
static value_info_lens value_info_lengths(ox_pb_type_memo *memo, const ox_value *v,
                                          const char *name)
{
    value_info_lens l;
    l.tm = type_bytes(memo, &v->type);
    if (l.tm) {
        l.shape = l.tensor_type = l.type = 0;
        l.value_info = l.tm->len;
    } else {
        l.shape = v->type.rank >= 0 ? shape_len(&v->type) : 0;
        l.tensor_type = tensor_type_len(&v->type, l.shape);
        l.type = ox_pb_field_head_len(1, l.tensor_type) + l.tensor_type;
        l.value_info = ox_pb_field_head_len(2, l.type) + l.type;
    }
    if (name)
        l.value_info += ox_pb_field_head_len(1, strlen(name)) + strlen(name);
    if (v->doc && v->doc[0])
        l.value_info += ox_pb_field_head_len(3, strlen(v->doc)) + strlen(v->doc);
    return l;
}

bool ox_pb_value_info_encodable(const ox_value *v)
{
    return !v->type.nontensor;
}

uint64_t ox_pb_value_info_size(ox_pb_type_memo *memo, const ox_value *v, const char *name)
{
    return value_info_lengths(memo, v, name).value_info;
}

/* The value info at a cursor: the fields of the general writer below, in
 * its order. */
static void raw_value_info(cursor *c, uint32_t field, const ox_value *v, const char *name,
                           const value_info_lens *l)
{
    const ox_type *ty = &v->type;
    raw_len_head(c, field, l->value_info);
    if (name)
        raw_string(c, 1, name);
    if (l->tm) {
        raw_bytes(c, l->tm->b, l->tm->len);
        if (v->doc && v->doc[0])
            raw_string(c, 3, v->doc);
        return;
    }
    raw_len_head(c, 2, l->type);        /* TypeProto */
    raw_len_head(c, 1, l->tensor_type); /* TypeProto.Tensor */
    if (ty->dtype != OX_UNDEFINED)
        raw_varint_field(c, 1, (uint64_t)(int64_t)(int32_t)ty->dtype);
    if (ty->rank >= 0) {
        raw_len_head(c, 2, l->shape); /* TensorShapeProto */
        for (int32_t i = 0; i < ty->rank; i++) {
            raw_len_head(c, 1, dim_len(ty, i)); /* Dimension */
            const char *p = dim_param(ty, i);
            if (p)
                raw_string(c, 2, p);
            else if (ty->dims && ty->dims[i] >= 0)
                raw_varint_field(c, 1, (uint64_t)ty->dims[i]);
        }
    }
    if (v->doc && v->doc[0])
        raw_string(c, 3, v->doc);
}

bool ox_pb_put_value_info(ox_pb_out *o, ox_pb_type_memo *memo, uint32_t field, const ox_value *v,
                          const char *name)
{
    const ox_type *ty = &v->type;
    value_info_lens l = value_info_lengths(memo, v, name);
    uint64_t total = ox_pb_field_head_len(field, l.value_info) + l.value_info;
    cursor c = stage_cursor(o, total);
    raw_value_info(&c, field, v, name, &l);
    if (commit(o, &c, total))
        return true;
    uint64_t start = o->n;
    put_key(o, field, WIRE_LEN);
    put_varint(o, l.value_info);
    if (name)
        put_string(o, 1, name);
    if (l.tm) {
        put_raw(o, l.tm->b, l.tm->len);
        if (v->doc && v->doc[0])
            put_string(o, 3, v->doc);
        return o->n - start == ox_pb_field_head_len(field, l.value_info) + l.value_info;
    }
    put_key(o, 2, WIRE_LEN); /* TypeProto */
    put_varint(o, l.type);
    put_key(o, 1, WIRE_LEN); /* TypeProto.Tensor */
    put_varint(o, l.tensor_type);
    if (ty->dtype != OX_UNDEFINED)
        put_int32(o, 1, (int32_t)ty->dtype);
    if (ty->rank >= 0) {
        put_key(o, 2, WIRE_LEN); /* TensorShapeProto */
        put_varint(o, l.shape);
        for (int32_t i = 0; i < ty->rank; i++) {
            put_key(o, 1, WIRE_LEN); /* Dimension */
            put_varint(o, dim_len(ty, i));
            const char *p = dim_param(ty, i);
            if (p)
                put_string(o, 2, p);
            else if (ty->dims && ty->dims[i] >= 0)
                put_int64(o, 1, ty->dims[i]);
        }
    }
    if (v->doc && v->doc[0])
        put_string(o, 3, v->doc);
    /* the lengths were computed, not counted: the bytes must fill them */
    return o->n - start == ox_pb_field_head_len(field, l.value_info) + l.value_info;
}
