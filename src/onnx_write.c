/*
 * The ONNX serializer.  It writes a graph whose layout io_layout.c decided
 * (which values are graph inputs and which initializers, the name of every
 * value and node) and decides none of it; the one choice left here is which
 * initializers' bytes go to the external-data file.
 *
 * The model is never serialized in memory as a whole.  ModelProto and
 * GraphProto framing is encoded here; each graph item (node, initializer,
 * value info) is built as a small protobuf-c message in a scratch arena,
 * packed straight into a file buffer and dropped.  Bytes fields are appended
 * by protobuf-c with the pointer they hold, so initializer data goes from the
 * host's memory to write(2) without a copy.  A first pass measures the graph
 * (its length prefix comes before its items), the second writes it; both run
 * the same code so they cannot disagree.
 */
#include "onnx_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "context.h"
#include "ir.h"
#include "hash64.h"
#include "onnx.pb-c.h"
#include "onnx_encode.h"
#include "onnx_locations.h"
#include "io_layout.h"
#include "param_source.h"
#include "static_shapes.h"
#include "varying_dims.h"
#include "file_out.h"
#include "write_files.h"

#define WBUF_CAP ((size_t)1 << 20)

/* ------------------------------------------------------------ file output */

struct wctx;

typedef struct wbuf {
    ProtobufCBuffer base;
    ox_file_out *file;
    unsigned char *buf;
    size_t len;
    uint64_t total; /* bytes appended so far */
    int err;        /* first errno seen; later appends are dropped */
    /* The initializer being packed whose bytes are read on demand: its
     * raw_data field holds the address of its source in place of a data
     * pointer (build_tensor), and the append that receives that address
     * reads the bytes in chunks instead (wbuf_stream). */
    struct wctx *wc;
    const ox_value *streaming;
    const char *streaming_name;
} wbuf;

static void wbuf_stream(wbuf *w);

static void wbuf_flush(wbuf *w)
{
    if (w->len && !w->err)
        w->err = ox_file_out_write(w->file, w->buf, w->len);
    w->len = 0;
}

static void wbuf_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    wbuf *w = (wbuf *)b;
    w->total += len;
    if (w->err || len == 0) /* an empty tensor may come with a NULL pointer */
        return;
    if (w->streaming && data == (const uint8_t *)w->streaming->source &&
        len == w->streaming->tensor.nbytes) {
        wbuf_stream(w);
        return;
    }
    if (len >= WBUF_CAP / 4) {
        /* big bytes (weights): straight from the caller's memory */
        wbuf_flush(w);
        if (!w->err)
            w->err = ox_file_out_write(w->file, data, len);
        return;
    }
    if (w->len + len > WBUF_CAP)
        wbuf_flush(w);
    memcpy(w->buf + w->len, data, len);
    w->len += len;
}

static void wbuf_raw(wbuf *w, const void *data, size_t len)
{
    wbuf_append(&w->base, len, data);
}

/* --------------------------------------------------------------- varints */

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* ------------------------------------------------------------ write state */

typedef struct ext_entry {
    uint64_t offset, length;
} ext_entry;

typedef struct wctx {
    ox_context *ctx;
    ox_export_options o;
    ox_arena keep;      /* lives for the whole write */
    ox_arena scratch;   /* one graph item at a time */
    const ox_io_layout *layout; /* decided before the write (io_layout.c) */
    const ox_io_plan *main;
    int64_t ir_version;
    bool measuring;
    uint64_t size;      /* measured bytes of the current framing level */
    wbuf *out;
    uint8_t stage[OX_PB_STAGE]; /* the hand encoder's (onnx_encode.h) */
    ox_pb_type_memo type_memo;  /* the value infos' last type (onnx_encode.h) */
    /* The main graph's hand-encoded NodeProto sizes, in node order: counted
     * by the measuring pass, read back by the writing pass, so each node
     * is encoded once per pass (docs/performance.md). */
    uint64_t *node_sizes;
    size_t n_node_sizes, cap_node_sizes, next_node_size;
    /* external data */
    bool external;
    uint64_t threshold;
    char *location;     /* side file name, relative to the model's directory */
    ext_entry *ext;     /* per initializer index of the main graph */
    uint64_t ext_total;
    uint64_t total;     /* the model file's measured size */
    bool fell_back;     /* direct I/O was asked for and refused (file_out.h) */
    unsigned char *chunk; /* OX_PARAM_CHUNK bytes when a parameter is read on demand */
    /* Which values the main graph's items leave unsized or out of
     * value_info (graph_facts): the same for the measuring and the writing
     * pass, so worked out once; it is a sweep over every node. */
    bool facts_ready;
    bool symbolic_inputs;
    ox_static_shapes shapes;    /* fixed and data-sized values (static_shapes.h), when made here */
    const ox_static_shapes *sh; /* that, or the layout's */
    /* per value, the dims another run may change (varying_dims.h); worked
     * out only when a graph output's shape is not fixed */
    ox_varying_dims varying;
    /* first error */
    ox_status st;
} wctx;

static ox_status werr(wctx *w, ox_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static ox_status werr(wctx *w, ox_status st, const char *fmt, ...)
{
    if (w->st != OX_OK)
        return w->st;
    /* Sized to the message, not a fixed buffer: a path near PATH_MAX would
     * otherwise cut off the reason and the advice that follow it. */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (msg) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return w->st = ox_fail_take(w->ctx, st, msg);
}

static ox_status oom(wctx *w)
{
    return werr(w, OX_ENOMEM, "ox_write: out of memory");
}

/* A failure param_source.c already described on the context. */
static ox_status wsrc(wctx *w, ox_status st)
{
    if (st != OX_OK && w->st == OX_OK)
        w->st = st;
    return st;
}

/* The side file's hash covers SIDE_CHUNK pieces at multiples of SIDE_CHUNK;
 * a read chunk holds whole pieces, so the tag does not depend on how the
 * bytes arrived. */
#define SIDE_CHUNK ((size_t)1 << 20)
_Static_assert(OX_PARAM_CHUNK % SIDE_CHUNK == 0, "read chunks hold whole hash pieces");

/* Copy an on-demand parameter's bytes to `fd` chunk by chunk, mixing each
 * SIDE_CHUNK piece into *hash when hash is not NULL.  Returns 0, or an errno
 * of the write (a read failure is w->st with its message). */
static int copy_source(wctx *w, const ox_value *v, const char *name, ox_file_out *out,
                       uint64_t *hash)
{
    ox_source_cursor c;
    int e = 0;
    if (wsrc(w, ox_source_open(w->ctx, &c, v->source, name, v->tensor.nbytes)) == OX_OK) {
        while (!e && c.done < c.nbytes) {
            uint64_t at = c.done;
            size_t got;
            if (wsrc(w, ox_source_next(w->ctx, &c, w->chunk, OX_PARAM_CHUNK, &got)) != OX_OK)
                break;
            for (size_t k = 0; hash && k < got; k += SIDE_CHUNK) {
                size_t n = got - k < SIDE_CHUNK ? got - k : SIDE_CHUNK;
                *hash = ox_hash64_mix(*hash, ox_hash64(w->chunk + k, n, at + k));
            }
            e = ox_file_out_write(out, w->chunk, got);
        }
    }
    ox_source_close(&c);
    return e;
}

static void wbuf_stream(wbuf *b)
{
    wbuf_flush(b);
    if (!b->err && b->wc->st == OX_OK)
        b->err = copy_source(b->wc, b->streaming, b->streaming_name, b->file, NULL);
}

/* ------------------------------------------------------- message builders */

#define NEW(w, T, init) ((T *)new_msg((w), sizeof(T), (void (*)(void *))(init)))

static void *new_msg(wctx *w, size_t size, void (*init)(void *))
{
    void *m = ox_arena_alloc(&w->scratch, size);
    if (m)
        init(m);
    return m;
}

static void init_tensor(void *m) { onnx__tensor_proto__init(m); }
static void init_attr(void *m) { onnx__attribute_proto__init(m); }
static void init_node(void *m) { onnx__node_proto__init(m); }
static void init_vi(void *m) { onnx__value_info_proto__init(m); }
static void init_type(void *m) { onnx__type_proto__init(m); }
static void init_type_tensor(void *m) { onnx__type_proto__tensor__init(m); }
static void init_shape(void *m) { onnx__tensor_shape_proto__init(m); }
static void init_dim(void *m) { onnx__tensor_shape_proto__dimension__init(m); }
static void init_graph(void *m) { onnx__graph_proto__init(m); }
static void init_ssentry(void *m) { onnx__string_string_entry_proto__init(m); }

static char *cs(const char *s)
{
    /* protobuf-c's structs take char *; it never writes through them */
    union { const char *c; char *m; } u;
    u.c = s;
    return u.m;
}

static uint8_t *cb(const void *p)
{
    union { const void *c; uint8_t *m; } u;
    u.c = p;
    return u.m;
}

static int64_t *ci64(const int64_t *p)
{
    union { const int64_t *c; int64_t *m; } u;
    u.c = p;
    return u.m;
}

/* A tensor's bytes must match its type and shape exactly. */
static ox_status tensor_shape_ok(wctx *w, const char *what, const char *name, ox_dtype dt,
                                 int64_t rank, const int64_t *dims, const ox_tensor_data *d,
                                 const ox_tensor_source *src)
{
    if (dt == OX_STRING || !ox_dtype_valid((int)dt) || ox_dtype_size(dt) == 0)
        return werr(w, OX_EINVAL, "ox_write: %s '%s' has element type %s, which oxport cannot "
                    "write as tensor data; use a numeric or bool type", what, name,
                    ox_dtype_name(dt));
    if (rank < 0)
        return werr(w, OX_EINVAL, "ox_write: %s '%s' has no known shape; a tensor with data "
                    "needs its full sizes", what, name);
    uint64_t count = 1;
    for (int64_t i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return werr(w, OX_EINVAL, "ox_write: %s '%s' has an unknown size on axis %lld; a "
                        "tensor with data needs its full sizes", what, name, (long long)i);
        if (dims[i] && count > UINT64_MAX / (uint64_t)dims[i])
            return werr(w, OX_EINVAL, "ox_write: %s '%s': shape overflows", what, name);
        count *= (uint64_t)dims[i];
    }
    size_t es = ox_dtype_size(dt);
    if (count > UINT64_MAX / es || count * es != d->nbytes)
        return werr(w, OX_EINVAL, "ox_write: %s '%s': %llu bytes of data but its shape and type "
                    "(%llu elements of %s) need %llu; record the tensor with matching sizes",
                    what, name, (unsigned long long)d->nbytes, (unsigned long long)count,
                    ox_dtype_name(dt), (unsigned long long)(count * es));
    if (d->nbytes && !d->data && !src)
        return werr(w, OX_EINVAL, "ox_write: %s '%s' has %llu bytes but no data pointer", what,
                    name, (unsigned long long)d->nbytes);
    return OX_OK;
}

static Onnx__TensorProto *build_tensor(wctx *w, const char *name, ox_dtype dt, int64_t rank,
                                       const int64_t *dims, const ox_tensor_data *d,
                                       const ox_tensor_source *src, const ext_entry *ext)
{
    Onnx__TensorProto *t = NEW(w, Onnx__TensorProto, init_tensor);
    if (!t)
        return NULL;
    t->name = name ? cs(name) : NULL;
    t->has_data_type = 1;
    t->data_type = (int32_t)dt;
    t->n_dims = (size_t)rank;
    t->dims = ci64(dims);
    if (ext) {
        Onnx__StringStringEntryProto **e = ox_arena_alloc(&w->scratch, 3 * sizeof(*e));
        if (!e)
            return NULL;
        const char *keys[3] = {"location", "offset", "length"};
        for (int i = 0; i < 3; i++) {
            e[i] = NEW(w, Onnx__StringStringEntryProto, init_ssentry);
            if (!e[i])
                return NULL;
            e[i]->key = cs(keys[i]);
        }
        e[0]->value = cs(w->location);
        e[1]->value = ox_arena_printf(&w->scratch, "%llu", (unsigned long long)ext->offset);
        e[2]->value = ox_arena_printf(&w->scratch, "%llu", (unsigned long long)ext->length);
        if (!e[1]->value || !e[2]->value)
            return NULL;
        t->n_external_data = 3;
        t->external_data = e;
        t->has_data_location = 1;
        t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    } else {
        t->has_raw_data = 1;
        t->raw_data.len = (size_t)d->nbytes;
        /* bytes read on demand: the source's address marks the field for
         * wbuf_append, which reads them in chunks (nothing dereferences it) */
        t->raw_data.data = src ? cb(src) : cb(d->data);
    }
    return t;
}

static Onnx__TypeProto *build_type(wctx *w, const ox_type *ty)
{
    Onnx__TypeProto *tp = NEW(w, Onnx__TypeProto, init_type);
    Onnx__TypeProto__Tensor *tt = NEW(w, Onnx__TypeProto__Tensor, init_type_tensor);
    if (!tp || !tt)
        return NULL;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    if (ty->dtype != OX_UNDEFINED) {
        tt->has_elem_type = 1;
        tt->elem_type = (int32_t)ty->dtype;
    }
    if (ty->rank >= 0) {
        Onnx__TensorShapeProto *sh = NEW(w, Onnx__TensorShapeProto, init_shape);
        if (!sh)
            return NULL;
        tt->shape = sh;
        if (ty->rank > 0) {
            sh->dim = ox_arena_alloc(&w->scratch, (size_t)ty->rank * sizeof(*sh->dim));
            if (!sh->dim)
                return NULL;
            sh->n_dim = (size_t)ty->rank;
            for (int32_t i = 0; i < ty->rank; i++) {
                Onnx__TensorShapeProto__Dimension *d =
                    NEW(w, Onnx__TensorShapeProto__Dimension, init_dim);
                if (!d)
                    return NULL;
                if (ty->dim_params && ty->dim_params[i] && ty->dim_params[i][0]) {
                    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                    d->dim_param = cs(ty->dim_params[i]);
                } else if (ty->dims && ty->dims[i] >= 0) {
                    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                    d->dim_value = ty->dims[i];
                }
                sh->dim[i] = d;
            }
        }
    }
    return tp;
}

static Onnx__ValueInfoProto *build_vi(wctx *w, const ox_io_plan *p, ox_vid id)
{
    const ox_value *v = p->g->values[id];
    Onnx__ValueInfoProto *vi = NEW(w, Onnx__ValueInfoProto, init_vi);
    if (!vi)
        return NULL;
    vi->name = cs(p->names[id]);
    if (v->type.nontensor) {
        werr(w, OX_EUNSUPPORTED, "ox_write: value '%s' has type %s; oxport reads such types "
             "but writes tensors only", p->names[id] ? p->names[id] : "", v->type.nontensor);
        return NULL;
    }
    vi->type = build_type(w, &v->type);
    if (!vi->type)
        return NULL;
    if (v->doc && v->doc[0])
        vi->doc_string = cs(v->doc);
    return vi;
}

static Onnx__GraphProto *build_subgraph(wctx *w, const ox_graph *g);

/* An attribute's tensor must be there, its bytes matching its type and shape. */
static ox_status attr_tensor_ok(wctx *w, const ox_attr_tensor *at, const char *node,
                                const char *attr)
{
    if (!at)
        return werr(w, OX_EINVAL, "ox_write: node '%s' attribute '%s' has no tensor; set the "
                    "tensor or remove the attribute", node, attr);
    char label[512];
    snprintf(label, sizeof label, "%s.%s", node, attr);
    return tensor_shape_ok(w, "attribute tensor", label, at->dtype, at->rank, at->dims,
                           &at->data, NULL);
}

static Onnx__TensorProto *build_attr_tensor(wctx *w, const ox_attr_tensor *at, const char *node,
                                            const char *attr)
{
    if (attr_tensor_ok(w, at, node, attr) != OX_OK)
        return NULL;
    return build_tensor(w, at->name, at->dtype, at->rank, at->dims, &at->data, NULL, NULL);
}

static Onnx__AttributeProto *build_attr(wctx *w, const ox_attr *a, const char *node)
{
    Onnx__AttributeProto *ap = NEW(w, Onnx__AttributeProto, init_attr);
    if (!ap) {
        oom(w);
        return NULL;
    }
    const char *aname = a->name ? a->name : "";
    ap->name = cs(aname);
    ap->has_type = 1;
    ap->type = (Onnx__AttributeProto__AttributeType)a->kind;
    if (a->ref) {
        ap->ref_attr_name = cs(a->ref);
        return ap;
    }
    switch (a->kind) {
    case OX_ATTR_FLOAT:
        ap->has_f = 1;
        ap->f = (float)a->u.f;
        break;
    case OX_ATTR_INT:
        ap->has_i = 1;
        ap->i = a->u.i;
        break;
    case OX_ATTR_STRING:
        ap->has_s = 1;
        ap->s.len = a->u.s.p ? a->u.s.len : 0;
        ap->s.data = cb(a->u.s.p);
        break;
    case OX_ATTR_TENSOR:
        if (!(ap->t = build_attr_tensor(w, a->u.t, node, aname)))
            return NULL;
        break;
    case OX_ATTR_GRAPH:
        if (!a->u.g) {
            werr(w, OX_EINVAL, "ox_write: node '%s' attribute '%s' is a GRAPH with no body",
                 node, aname);
            return NULL;
        }
        if (!(ap->g = build_subgraph(w, a->u.g)))
            return NULL;
        break;
    case OX_ATTR_FLOATS:
        if (a->u.floats.n) {
            if (!a->u.floats.p)
                goto noval;
            ap->floats = ox_arena_alloc(&w->scratch, a->u.floats.n * sizeof(float));
            if (!ap->floats)
                goto nomem;
            for (size_t i = 0; i < a->u.floats.n; i++)
                ap->floats[i] = (float)a->u.floats.p[i];
            ap->n_floats = a->u.floats.n;
        }
        break;
    case OX_ATTR_INTS:
        if (a->u.ints.n && !a->u.ints.p)
            goto noval;
        ap->n_ints = a->u.ints.n;
        ap->ints = ci64(a->u.ints.p);
        break;
    case OX_ATTR_STRINGS:
        if (a->u.strings.n) {
            if (!a->u.strings.p)
                goto noval;
            ap->strings = ox_arena_alloc(&w->scratch, a->u.strings.n * sizeof(*ap->strings));
            if (!ap->strings)
                goto nomem;
            for (size_t i = 0; i < a->u.strings.n; i++) {
                const char *s = a->u.strings.p[i] ? a->u.strings.p[i] : "";
                ap->strings[i].len = strlen(s);
                ap->strings[i].data = cb(s);
            }
            ap->n_strings = a->u.strings.n;
        }
        break;
    case OX_ATTR_TENSORS:
        if (a->u.tensors.n) {
            if (!a->u.tensors.p)
                goto noval;
            ap->tensors = ox_arena_alloc(&w->scratch, a->u.tensors.n * sizeof(*ap->tensors));
            if (!ap->tensors)
                goto nomem;
            for (size_t i = 0; i < a->u.tensors.n; i++)
                if (!(ap->tensors[i] = build_attr_tensor(w, a->u.tensors.p[i], node, aname)))
                    return NULL;
            ap->n_tensors = a->u.tensors.n;
        }
        break;
    case OX_ATTR_GRAPHS:
    case OX_ATTR_SPARSE_TENSOR:
    case OX_ATTR_SPARSE_TENSORS:
    case OX_ATTR_TYPE_PROTO:
    case OX_ATTR_TYPE_PROTOS:
        /* the reader keeps these as text or read-only subgraphs */
        werr(w, OX_EUNSUPPORTED, "ox_write: node '%s' attribute '%s' is of ONNX type %d, which "
             "oxport reads but does not write", node, aname, (int)a->kind);
        return NULL;
    default:
        werr(w, OX_EINVAL, "ox_write: node '%s' attribute '%s' has kind %d, which is not an ONNX "
             "attribute type (1-9)", node, aname, (int)a->kind);
        return NULL;
    }
    return ap;
noval:
    werr(w, OX_EINVAL, "ox_write: node '%s' attribute '%s' says it holds values but has no "
         "array; set the values or make the list empty", node, aname);
    return NULL;
nomem:
    oom(w);
    return NULL;
}

static Onnx__NodeProto *build_node(wctx *w, const ox_io_plan *p, const ox_node *n)
{
    Onnx__NodeProto *np = NEW(w, Onnx__NodeProto, init_node);
    if (!np) {
        oom(w);
        return NULL;
    }
    const char *name = p->node_names[n->id];
    np->name = cs(name);
    np->op_type = cs(n->op_type ? n->op_type : "");
    np->domain = cs(n->domain ? n->domain : "");
    if (n->scope && n->scope[0])
        np->doc_string = cs(n->scope);
    else if (n->doc && n->doc[0])
        np->doc_string = cs(n->doc);
    if (n->n_inputs) {
        np->input = ox_arena_alloc(&w->scratch, n->n_inputs * sizeof(char *));
        if (!np->input)
            goto nomem;
        for (uint32_t i = 0; i < n->n_inputs; i++)
            np->input[i] = cs(n->inputs[i] ? p->names[n->inputs[i]] : "");
        np->n_input = n->n_inputs;
    }
    if (n->n_outputs) {
        np->output = ox_arena_alloc(&w->scratch, n->n_outputs * sizeof(char *));
        if (!np->output)
            goto nomem;
        for (uint32_t i = 0; i < n->n_outputs; i++)
            np->output[i] = cs(n->outputs[i] ? p->names[n->outputs[i]] : ""); /* absent optional */
        np->n_output = n->n_outputs;
    }
    if (n->n_attrs) {
        np->attribute = ox_arena_alloc(&w->scratch, n->n_attrs * sizeof(*np->attribute));
        if (!np->attribute)
            goto nomem;
        for (uint32_t i = 0; i < n->n_attrs; i++)
            if (!(np->attribute[i] = build_attr(w, &n->attrs[i], name)))
                return NULL;
        np->n_attribute = n->n_attrs;
    }
    return np;
nomem:
    oom(w);
    return NULL;
}

static ox_status check_init(wctx *w, const ox_io_plan *p, ox_vid id)
{
    const ox_value *v = p->g->values[id];
    if (tensor_shape_ok(w, "initializer", p->names[id], v->type.dtype, v->type.rank,
                        v->type.dims, &v->tensor, v->source) != OX_OK)
        return w->st;
    if (!v->source)
        return OX_OK;
    /* a file changed since the trace fails here, before any file is made */
    if (wsrc(w, ox_source_check(w->ctx, "ox_write", p->names[id], v->source,
                                v->tensor.nbytes)) != OX_OK)
        return w->st;
    if (!w->chunk && !(w->chunk = malloc(OX_PARAM_CHUNK)))
        return oom(w);
    return OX_OK;
}

/* A subgraph (GRAPH attribute) is small: built whole, weights inline. */
/* Nesting is bounded by the layout (OX_IO_MAX_SUBGRAPH_DEPTH). */
static Onnx__GraphProto *build_subgraph(wctx *w, const ox_graph *g)
{
    const ox_io_plan *pp = ox_io_layout_sub(w->layout, g);
    if (!pp) {
        werr(w, OX_EINVAL, "ox_write: internal error: subgraph '%s' was not laid out",
             g->name ? g->name : "");
        return NULL;
    }
    const ox_io_plan p = *pp;
    Onnx__GraphProto *gp = NEW(w, Onnx__GraphProto, init_graph);
    if (!gp)
        goto nomem;
    gp->name = cs(g->name ? g->name : "");
    if (g->doc && g->doc[0])
        gp->doc_string = cs(g->doc);
    gp->node = ox_arena_alloc(&w->scratch, (g->n_nodes + 1) * sizeof(*gp->node));
    gp->initializer = ox_arena_alloc(&w->scratch, (p.n_inits + 1) * sizeof(*gp->initializer));
    gp->input = ox_arena_alloc(&w->scratch, (p.n_ins + 1) * sizeof(*gp->input));
    gp->output = ox_arena_alloc(&w->scratch, (g->n_outputs + 1) * sizeof(*gp->output));
    if (!gp->node || !gp->initializer || !gp->input || !gp->output)
        goto nomem;
    uint32_t idx = 0;
    for (const ox_node *n = g->first; n; n = n->next, idx++) {
        if (idx >= g->n_nodes + 1)
            break;
        if (!(gp->node[idx] = build_node(w, &p, n)))
            return NULL;
        gp->n_node = idx + 1;
    }
    for (size_t i = 0; i < p.n_inits; i++) {
        ox_vid id = p.inits[i];
        const ox_value *v = g->values[id];
        if (check_init(w, &p, id) != OX_OK)
            return NULL;
        if (v->source) {
            werr(w, OX_EINVAL, "ox_write: initializer '%s' of subgraph '%s' is read on demand; "
                 "only the main graph's parameters can be", p.names[id], g->name ? g->name : "");
            return NULL;
        }
        if (!(gp->initializer[i] = build_tensor(w, p.names[id], v->type.dtype, v->type.rank,
                                                v->type.dims, &v->tensor, NULL, NULL)))
            goto nomem;
    }
    gp->n_initializer = p.n_inits;
    for (size_t i = 0; i < p.n_ins; i++)
        if (!(gp->input[i] = build_vi(w, &p, p.ins[i])))
            goto nomem;
    gp->n_input = p.n_ins;
    for (uint32_t i = 0; i < g->n_outputs; i++)
        if (!(gp->output[i] = build_vi(w, &p, g->outputs[i])))
            goto nomem;
    gp->n_output = g->n_outputs;
    return gp;
nomem:
    oom(w);
    return NULL;
}

/* ----------------------------------------------------------- graph items */

/* Measure or write one length-delimited field holding message m. */
static void emit_msg(wctx *w, uint32_t field, const ProtobufCMessage *m)
{
    size_t sz = protobuf_c_message_get_packed_size(m);
    uint64_t key = ((uint64_t)field << 3) | 2u;
    if (w->measuring) {
        w->size += varint_len(key) + varint_len(sz) + sz;
        return;
    }
    uint8_t hdr[20];
    size_t h = varint_put(hdr, key);
    h += varint_put(hdr + h, sz);
    wbuf_raw(w->out, hdr, h);
    uint64_t before = w->out->total;
    protobuf_c_message_pack_to_buffer(m, &w->out->base);
    if (w->out->total - before != sz && w->st == OX_OK)
        werr(w, OX_EINVAL, "ox_write: internal error: message size changed while packing");
}

static void scratch_reset(wctx *w)
{
    ox_arena_free(&w->scratch);
    ox_arena_init(&w->scratch);
}

/* Graph output `id` with the dims in `open` declared unknown (protobuf-c
 * path).  Sizes that depend on the input's values open every dim and drop
 * the host's names too: the traced sizes would let a runtime that trusts
 * declared shapes fold Shape() of the value into the example's count.  A
 * traced graph's dims a dynamic axis reaches (varying_dims.h) open those
 * only, keeping the names the host gave. */
static void emit_output_open(wctx *w, const ox_io_plan *p, ox_vid id, uint64_t open,
                             bool keep_names)
{
    const ox_value *v = p->g->values[id];
    ox_type ty = v->type;
    if (!keep_names)
        ty.dim_params = NULL;
    int64_t *dims = ty.rank > 0 && ty.dims
                        ? ox_arena_memdup(&w->scratch, ty.dims, (size_t)ty.rank * sizeof(int64_t))
                        : NULL;
    Onnx__ValueInfoProto *vi = ty.rank > 0 && ty.dims && !dims ? NULL : build_vi(w, p, id);
    for (int32_t i = 0; dims && i < ty.rank; i++)
        if (i >= 64 || (open >> i) & 1)
            dims[i] = -1;
    ty.dims = dims;
    if (vi && !v->type.nontensor && !(vi->type = build_type(w, &ty)))
        vi = NULL;
    if (!vi)
        oom(w);
    else
        emit_msg(w, 12, &vi->base);
    scratch_reset(w);
}

bool ox_write_items_via_protobuf_c;

/* A node of the main graph as field 1 of the GraphProto: by the hand
 * encoder when it covers the node, else as a protobuf-c message. */
static void emit_node(wctx *w, const ox_io_plan *p, const ox_node *n)
{
    if (ox_write_items_via_protobuf_c || !ox_pb_node_encodable(n)) {
        Onnx__NodeProto *np = build_node(w, p, n);
        if (np)
            emit_msg(w, 1, &np->base);
        scratch_reset(w);
        return;
    }
    const char *name = p->node_names[n->id];
    for (uint32_t i = 0; i < n->n_attrs; i++) {
        const ox_attr *a = &n->attrs[i];
        if (!a->ref && a->kind == OX_ATTR_TENSOR &&
            attr_tensor_ok(w, a->u.t, name, a->name ? a->name : "") != OX_OK)
            return;
    }
    ox_pb_node_names names = {p->names, name};
    if (w->measuring) {
        uint64_t size = ox_pb_node_size(n, &names);
        if (w->n_node_sizes == w->cap_node_sizes) {
            size_t cap = w->cap_node_sizes ? 2 * w->cap_node_sizes : 1024;
            uint64_t *grown = realloc(w->node_sizes, cap * sizeof(*grown));
            if (!grown) {
                oom(w);
                return;
            }
            w->node_sizes = grown;
            w->cap_node_sizes = cap;
        }
        w->node_sizes[w->n_node_sizes++] = size;
        w->size += ox_pb_field_head_len(1, size) + size;
        return;
    }
    if (w->next_node_size >= w->n_node_sizes) {
        werr(w, OX_EINVAL, "ox_write: internal error: the graph has more nodes than were measured");
        return;
    }
    ox_pb_out o;
    ox_pb_out_init(&o, &w->out->base, w->stage);
    bool filled = ox_pb_put_node(&o, 1, n, &names, w->node_sizes[w->next_node_size++]);
    ox_pb_out_flush(&o);
    if (!filled)
        werr(w, OX_EINVAL, "ox_write: internal error: node '%s' (%s) wrote %llu bytes, not the "
             "length it measured", name ? name : "", n->op_type ? n->op_type : "",
             (unsigned long long)o.n);
}

/* A value's ValueInfoProto as `field` of the GraphProto (input 11, output
 * 12, value_info 13), the same way. */
static void emit_value_info(wctx *w, uint32_t field, const ox_io_plan *p, ox_vid id)
{
    const ox_value *v = p->g->values[id];
    if (ox_write_items_via_protobuf_c || !ox_pb_value_info_encodable(v)) {
        Onnx__ValueInfoProto *vi = build_vi(w, p, id);
        if (!vi)
            oom(w);
        else
            emit_msg(w, field, &vi->base);
        scratch_reset(w);
        return;
    }
    if (w->measuring) {
        uint64_t size = ox_pb_value_info_size(&w->type_memo, v, p->names[id]);
        w->size += ox_pb_field_head_len(field, size) + size;
        return;
    }
    ox_pb_out o;
    ox_pb_out_init(&o, &w->out->base, w->stage);
    bool filled = ox_pb_put_value_info(&o, &w->type_memo, field, v, p->names[id]);
    ox_pb_out_flush(&o);
    if (!filled)
        werr(w, OX_EINVAL, "ox_write: internal error: value info '%s' wrote %llu bytes, not the "
             "length it computed", p->names[id] ? p->names[id] : "", (unsigned long long)o.n);
}

/* What the main graph's items need to know about its values, worked out on
 * the first call.  Intermediate values' sizes are the ones the host saw;
 * with a symbolic input dim they would pin that dim for runtimes that trust
 * value_info, so value_info is left out then.  So is a value whose shape the
 * inputs' shapes do not fix (after NonZero, Compress ...): ONNX Runtime
 * would take its traced size as a fact and fold a Shape of it
 * (static_shapes.h says which shapes are fixed). */
static ox_status graph_facts(wctx *w)
{
    if (w->facts_ready)
        return OX_OK;
    const ox_graph *g = w->main->g;
    w->symbolic_inputs = false;
    for (uint32_t i = 0; i < g->n_inputs && !w->symbolic_inputs; i++) {
        const ox_type *ty = &g->values[g->inputs[i]]->type;
        for (int32_t d = 0; ty->dim_params && d < ty->rank; d++)
            if (ty->dim_params[d])
                w->symbolic_inputs = true;
    }
    if (!(w->sh = ox_static_shapes_of(g, w->layout->shapes, &w->shapes)))
        return oom(w);
    bool open_output = false;
    for (uint32_t i = 0; i < g->n_outputs && !open_output; i++)
        open_output = !ox_static_shapes_is_fixed(w->sh, g->outputs[i]) &&
                      !ox_static_shapes_is_data_sized(w->sh, g->outputs[i]);
    if (open_output && w->layout->traced_sizes &&
        ox_varying_dims_compute(g, w->sh, &w->varying) != 0)
        return oom(w);
    w->facts_ready = true;
    return OX_OK;
}

/* The value_info of n's outputs (field 13): typed intermediate values
 * (graph_facts says which are left out, and why). */
static void emit_value_infos_of(wctx *w, const ox_io_plan *p, const ox_node *n)
{
    const ox_graph *g = p->g;
    const ox_static_shapes *shapes = w->sh;
    for (uint32_t i = 0; i < n->n_outputs && w->st == OX_OK; i++) {
        if (!n->outputs[i])
            continue;
        const ox_value *v = g->values[n->outputs[i]];
        if (v->is_output || v->type.dtype == OX_UNDEFINED || p->is_input[v->id] ||
            p->is_init[v->id] || ox_static_shapes_is_data_sized(shapes, v->id))
            continue;
        if (v->type.rank >= 0 && !ox_static_shapes_is_fixed(shapes, v->id))
            continue;
        emit_value_info(w, 13, p, v->id);
    }
}

/* Every field of the main GraphProto, in file order. */
static ox_status graph_items(wctx *w)
{
    const ox_io_plan *p = w->main;
    const ox_graph *g = p->g;
    w->size = 0;
    if (w->measuring)
        w->n_node_sizes = 0;
    w->next_node_size = 0;

    /* name and doc_string: a small message of its own, packed as bare fields */
    {
        Onnx__GraphProto head = ONNX__GRAPH_PROTO__INIT;
        head.name = cs(g->name && g->name[0] ? g->name : "main_graph");
        if (g->doc && g->doc[0])
            head.doc_string = cs(g->doc);
        size_t sz = protobuf_c_message_get_packed_size(&head.base);
        if (w->measuring) {
            w->size += sz;
        } else {
            protobuf_c_message_pack_to_buffer(&head.base, &w->out->base);
        }
    }
    if (graph_facts(w) != OX_OK)
        return w->st;
    /* Measuring, a node's value_info is counted with the node: sizes add up
     * in any order, and one walk of a graph past the cache is one fewer.
     * Writing, value_info follows every node, as the field numbers go. */
    const bool symbolic_inputs = w->symbolic_inputs;
    for (const ox_node *n = g->first; n && w->st == OX_OK; n = n->next) {
        emit_node(w, p, n);
        if (w->measuring && !symbolic_inputs)
            emit_value_infos_of(w, p, n);
    }
    for (size_t i = 0; i < p->n_inits && w->st == OX_OK; i++) {
        ox_vid id = p->inits[i];
        const ox_value *v = g->values[id];
        const ext_entry *e = w->external && w->ext[i].length ? &w->ext[i] : NULL;
        Onnx__TensorProto *t = build_tensor(w, p->names[id], v->type.dtype, v->type.rank,
                                            v->type.dims, &v->tensor, v->source, e);
        if (!t) {
            oom(w);
        } else if (!w->measuring && !e && v->source) {
            w->out->streaming = v;
            w->out->streaming_name = p->names[id];
            emit_msg(w, 5, &t->base);
            w->out->streaming = NULL;
        } else {
            emit_msg(w, 5, &t->base);
        }
        scratch_reset(w);
    }
    for (size_t i = 0; i < p->n_ins && w->st == OX_OK; i++)
        emit_value_info(w, 11, p, p->ins[i]);
    const ox_static_shapes *shapes = w->sh;
    for (uint32_t i = 0; i < g->n_outputs && w->st == OX_OK; i++) {
        ox_vid id = g->outputs[i];
        uint64_t varying = w->varying.mask && !ox_static_shapes_is_fixed(shapes, id)
                               ? ox_varying_dims_of(&w->varying, id)
                               : 0;
        if (ox_static_shapes_is_data_sized(shapes, id))
            emit_output_open(w, p, id, ~(uint64_t)0, false);
        else if (varying)
            emit_output_open(w, p, id, varying, true);
        else
            emit_value_info(w, 12, p, id);
    }
    /* value_info: typed intermediate values, in node order (counted above
     * when measuring) */
    for (const ox_node *n = g->first; n && w->st == OX_OK && !symbolic_inputs && !w->measuring;
         n = n->next)
        emit_value_infos_of(w, p, n);
    scratch_reset(w);
    return w->st;
}

static void init_opset(void *m) { onnx__operator_set_id_proto__init(m); }
static void init_function(void *m) { onnx__function_proto__init(m); }

static Onnx__OperatorSetIdProto **build_opsets(wctx *w, const ox_graph *g)
{
    Onnx__OperatorSetIdProto **ops = ox_arena_alloc(&w->scratch, (g->n_opsets + 1) * sizeof(*ops));
    if (!ops)
        return NULL;
    for (uint32_t i = 0; i < g->n_opsets; i++) {
        ops[i] = NEW(w, Onnx__OperatorSetIdProto, init_opset);
        if (!ops[i])
            return NULL;
        ops[i]->domain = cs(g->opsets[i].domain ? g->opsets[i].domain : "");
        ops[i]->has_version = 1;
        ops[i]->version = g->opsets[i].version;
    }
    return ops;
}

/* A model-local function (ModelProto field 25): small, built whole.  Its
 * body's inputs and outputs are the function's, by the layout's names. */
static Onnx__FunctionProto *build_function(wctx *w, const ox_function *f)
{
    const ox_graph *b = f->body;
    const ox_io_plan *p = ox_io_layout_sub(w->layout, b);
    if (!p) {
        werr(w, OX_EINVAL, "ox_write: internal error: function '%s' was not laid out", f->name);
        return NULL;
    }
    if (p->n_inits) {
        werr(w, OX_EINVAL, "ox_write: function '%s' (domain '%s') holds %zu initializer(s) such "
             "as '%s', but an ONNX function has none; pass them as inputs or make them Constant "
             "nodes", f->name, f->domain, p->n_inits, p->names[p->inits[0]]);
        return NULL;
    }
    Onnx__FunctionProto *fp = NEW(w, Onnx__FunctionProto, init_function);
    if (!fp)
        goto nomem;
    fp->name = cs(f->name);
    fp->domain = cs(f->domain);
    if (f->doc && f->doc[0])
        fp->doc_string = cs(f->doc);
    fp->input = ox_arena_alloc(&w->scratch, (b->n_inputs + 1) * sizeof(char *));
    fp->output = ox_arena_alloc(&w->scratch, (b->n_outputs + 1) * sizeof(char *));
    fp->attribute = ox_arena_alloc(&w->scratch, (f->n_attributes + 1) * sizeof(char *));
    fp->node = ox_arena_alloc(&w->scratch, (b->n_nodes + 1) * sizeof(*fp->node));
    if (!fp->input || !fp->output || !fp->attribute || !fp->node ||
        !(fp->opset_import = build_opsets(w, b)))
        goto nomem;
    fp->n_opset_import = b->n_opsets;
    for (uint32_t i = 0; i < b->n_inputs; i++)
        fp->input[i] = cs(p->names[b->inputs[i]]);
    fp->n_input = b->n_inputs;
    for (uint32_t i = 0; i < b->n_outputs; i++)
        fp->output[i] = cs(p->names[b->outputs[i]]);
    fp->n_output = b->n_outputs;
    for (uint32_t i = 0; i < f->n_attributes; i++)
        fp->attribute[i] = cs(f->attributes[i]);
    fp->n_attribute = f->n_attributes;
    uint32_t idx = 0;
    for (const ox_node *n = b->first; n && idx < b->n_nodes; n = n->next, idx++)
        if (!(fp->node[idx] = build_node(w, p, n)))
            return NULL;
    fp->n_node = idx;
    return fp;
nomem:
    oom(w);
    return NULL;
}

/* ModelProto fields other than the graph. */
static ox_status model_head(wctx *w, const ox_graph *g, uint64_t *size_out, bool emit)
{
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1;
    m.ir_version = w->ir_version;
    m.producer_name = cs(w->o.producer_name ? w->o.producer_name : "oxport");
    m.producer_version = cs(w->o.producer_version ? w->o.producer_version : ox_version());
    Onnx__OperatorSetIdProto **ops = NULL;
    if (g->n_opsets) {
        ops = ox_arena_alloc(&w->scratch, g->n_opsets * sizeof(*ops));
        if (!ops)
            return oom(w);
        for (uint32_t i = 0; i < g->n_opsets; i++) {
            ops[i] = NEW(w, Onnx__OperatorSetIdProto, init_opset);
            if (!ops[i])
                return oom(w);
            ops[i]->domain = cs(g->opsets[i].domain ? g->opsets[i].domain : "");
            ops[i]->has_version = 1;
            ops[i]->version = g->opsets[i].version;
        }
        m.n_opset_import = g->n_opsets;
        m.opset_import = ops;
    }
    if (g->n_functions) {
        m.functions = ox_arena_alloc(&w->scratch, g->n_functions * sizeof(*m.functions));
        if (!m.functions)
            return oom(w);
        for (uint32_t i = 0; i < g->n_functions; i++)
            if (!(m.functions[i] = build_function(w, &g->functions[i])))
                return w->st;
        m.n_functions = g->n_functions;
    }
    *size_out = protobuf_c_message_get_packed_size(&m.base);
    if (emit)
        protobuf_c_message_pack_to_buffer(&m.base, &w->out->base);
    scratch_reset(w);
    return OX_OK;
}

/* Total file size of the model (without the side file). */
static ox_status measure(wctx *w, uint64_t *total)
{
    uint64_t head;
    if (model_head(w, w->main->g, &head, false) != OX_OK)
        return w->st;
    w->measuring = true;
    if (graph_items(w) != OX_OK)
        return w->st;
    *total = head + varint_len((7u << 3) | 2u) + varint_len(w->size) + w->size;
    return OX_OK;
}

/* Assign side-file offsets; returns true when at least one tensor goes there. */
static bool plan_external(wctx *w)
{
    const ox_io_plan *p = w->main;
    uint64_t off = 0;
    bool any = false;
    for (size_t i = 0; i < p->n_inits; i++) {
        const ox_value *v = p->g->values[p->inits[i]];
        w->ext[i].offset = 0;
        w->ext[i].length = 0;
        if (v->tensor.nbytes == 0 || v->tensor.nbytes < w->threshold)
            continue;
        off = (off + OX_EXTERNAL_ALIGN - 1) / OX_EXTERNAL_ALIGN * OX_EXTERNAL_ALIGN;
        w->ext[i].offset = off;
        w->ext[i].length = v->tensor.nbytes;
        off += v->tensor.nbytes;
        any = true;
    }
    w->ext_total = off;
    return any;
}

/* ------------------------------------------------------------ file system */

/* How messages name the two files. */
#define WHAT_MODEL "ONNX model to"
#define WHAT_SIDE "external data file"

/* How to get past a failed write, by errno. */
static const char *write_error_hint(int e)
{
    if (e == ENOSPC || e == EDQUOT)
        return "free space on the device or write elsewhere";
    if (e == EFBIG)
        return "raise the file size limit (ulimit -f) or write elsewhere";
    return "check the path and the device";
}

static ox_status io_error(wctx *w, const char *what, const char *target, int e)
{
    if (e == ENOMEM)
        return oom(w);
    return werr(w, OX_EIO, "cannot write %s '%s': %s; %s", what, target, strerror(e),
                write_error_hint(e));
}

static ox_status open_temp(wctx *w, const char *what, const char *target, ox_temp *t)
{
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
        return werr(w, OX_EIO, "cannot write %s '%s': it is a directory; give a file "
                    "path such as '%s/model.onnx'", what, target, target);
    int e = ox_temp_open(target, t);
    if (e == 0)
        return OX_OK;
    if (e == ENOMEM)
        return oom(w);
    char *dir = ox_dir_of(target);
    if (!dir)
        return oom(w);
    /* ENOENT with the directory there: a file system that makes no files
     * (/proc, /sys) */
    bool dir_there = e == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    ox_status s = werr(w, OX_EIO, "cannot write %s '%s': cannot create a file in "
                       "directory '%s': %s; %s", what, target, dir, strerror(e),
                       dir_there ? "its file system does not make new files; write elsewhere"
                       : e == ENOENT ? "create the directory first"
                       : e == EACCES || e == EPERM || e == EROFS
                           ? "choose a directory you can write to"
                       : e == ENOTDIR ? "check the path" : write_error_hint(e));
    free(dir);
    return s;
}

/* A target that exists and is not a regular file (a character device such as
 * /dev/null or /dev/full, a FIFO, a socket) cannot take the temp + rename
 * route: renaming would replace the device node with a regular file.  It is
 * written in place instead; there is no partial file to leave behind. */
static ox_status open_in_place(wctx *w, const char *target, ox_temp *t, bool *in_place)
{
    struct stat st;
    *in_place = false;
    if (stat(target, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return OX_OK;
    *in_place = true;
    t->path = NULL;
    t->fd = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (t->fd < 0) {
        int e = errno;
        return werr(w, OX_EIO, "cannot write ONNX model to '%s': %s; %s", target, strerror(e),
                    e == EACCES || e == EPERM ? "choose a file you can write to"
                                              : "give a regular file path");
    }
    return OX_OK;
}

/* ---------------------------------------------------- external data name */

#define TAG_LEN 16 /* hex digits of the content hash */

/* The side file's name: the requested one (default "<model>.data") with the
 * content tag before its extension, "m.onnx.<tag>.data".  A new model thus
 * never names the file an older model reads.  The tag is a placeholder until
 * the data is written; `tag_at` is where it goes.  The last component is cut
 * (at a UTF-8 boundary) to fit NAME_MAX. */
static char *tagged_location(wctx *w, const char *requested, size_t *tag_at)
{
    const char *base = ox_base_of(requested);
    size_t dir_len = (size_t)(base - requested);
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || strlen(dot) > 32)
        dot = base + strlen(base); /* no usable extension: the tag goes last */
    size_t stem = (size_t)(dot - base), ext = strlen(dot);
    size_t room = NAME_MAX - 1 - TAG_LEN - ext;
    if (stem > room) {
        stem = room;
        while (stem > 0 && ((unsigned char)base[stem] & 0xC0) == 0x80)
            stem--;
    }
    char *loc = ox_arena_printf(&w->keep, "%.*s%.*s.%0*d%s", (int)dir_len, requested, (int)stem,
                                base, TAG_LEN, 0, dot);
    *tag_at = dir_len + stem + 1;
    return loc;
}

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", s[i]) || !s[i])
            return false;
    return true;
}

/* Whether `old`, a data file the replaced model names, is one this write's
 * request produced before: the same name with another tag, or the untagged
 * name earlier oxport versions used.  Only those are removed after the new
 * model is in place; a file another model might share is never touched. */
static bool earlier_side_file(const wctx *w, const char *old, const char *requested,
                              size_t tag_at)
{
    if (old[0] == '/' || strstr(old, "..") || strcmp(old, w->location) == 0)
        return false;
    if (strcmp(old, requested) == 0)
        return true;
    size_t n = strlen(w->location);
    return strlen(old) == n && memcmp(old, w->location, tag_at) == 0 &&
           is_hex(old + tag_at, TAG_LEN) &&
           strcmp(old + tag_at + TAG_LEN, w->location + tag_at + TAG_LEN) == 0;
}

/* ------------------------------------------------------------ the files */

/* The side file, hashing what it holds into the tag. */
static ox_status write_side(wctx *w, ox_temp *t, const char *side_path, uint64_t *tag)
{
    static const unsigned char zeros[OX_EXTERNAL_ALIGN];
    const ox_io_plan *p = w->main;
    uint64_t pos = 0, h = 0;
    int e = 0;
    ox_file_out out;
    ox_file_out_open(&out, t->fd, w->o.direct_io > 0, w->ext_total);
    for (size_t i = 0; i < p->n_inits && !e && w->st == OX_OK; i++) {
        if (!w->ext[i].length)
            continue;
        const ox_value *v = p->g->values[p->inits[i]];
        if (w->ext[i].offset > pos)
            e = ox_file_out_write(&out, zeros, (size_t)(w->ext[i].offset - pos));
        h = ox_hash64_mix(h, w->ext[i].offset);
        h = ox_hash64_mix(h, w->ext[i].length);
        if (v->source) {
            if (!e)
                e = copy_source(w, v, p->names[p->inits[i]], &out, &h);
            pos = w->ext[i].offset + w->ext[i].length;
            continue;
        }
        /* hash a chunk, then write it while it is still in cache */
        const unsigned char *data = v->tensor.data;
        for (uint64_t done = 0; done < v->tensor.nbytes && !e;) {
            size_t n = (size_t)(v->tensor.nbytes - done < SIDE_CHUNK ? v->tensor.nbytes - done
                                                                      : SIDE_CHUNK);
            h = ox_hash64_mix(h, ox_hash64(data + done, n, done));
            e = ox_file_out_write(&out, data + done, n);
            done += n;
        }
        pos = w->ext[i].offset + w->ext[i].length;
    }
    int closed = ox_file_out_close(&out);
    if (!e)
        e = closed;
    w->fell_back |= out.fell_back;
    if (w->st != OX_OK)
        return w->st;
    *tag = h;
    if (e)
        return io_error(w, WHAT_SIDE, side_path, e);
    return OX_OK;
}

static ox_status write_model(wctx *w, ox_temp *t, const char *path, bool direct)
{
    wbuf out;
    memset(&out, 0, sizeof out);
    out.base.append = wbuf_append;
    out.wc = w;
    out.buf = malloc(WBUF_CAP);
    if (!out.buf)
        return oom(w);
    ox_file_out file;
    ox_file_out_open(&file, t->fd, direct && w->o.direct_io > 0, w->total);
    out.file = &file;
    w->out = &out;
    uint64_t head;
    ox_status st = model_head(w, w->main->g, &head, true);
    if (st == OX_OK) {
        uint8_t hdr[20];
        size_t h = varint_put(hdr, (7u << 3) | 2u);
        h += varint_put(hdr + h, w->size);
        wbuf_raw(&out, hdr, h);
        w->measuring = false;
        uint64_t measured = w->size, start = out.total;
        st = graph_items(w);
        /* the length prefix above is the measuring pass's: the items must fill it */
        if (st == OX_OK && !out.err && out.total - start != measured)
            st = werr(w, OX_EINVAL, "ox_write: internal error: the graph measured %llu bytes "
                      "but %llu were written", (unsigned long long)measured,
                      (unsigned long long)(out.total - start));
    }
    wbuf_flush(&out);
    int closed = ox_file_out_close(&file);
    if (!out.err)
        out.err = closed;
    w->fell_back |= file.fell_back;
    free(out.buf);
    w->out = NULL;
    if (st != OX_OK)
        return st;
    if (out.err)
        return io_error(w, WHAT_MODEL, path, out.err);
    return OX_OK;
}

static void resolve_options(wctx *w, const ox_export_options *opts)
{
    ox_export_options_init(&w->o);
    if (opts) {
        size_t n = opts->struct_size;
        if (n == 0 || n > sizeof(*opts))
            n = sizeof(*opts);
        memcpy(&w->o, opts, n);
        w->o.struct_size = (uint32_t)sizeof(w->o);
    }
    if (w->o.sync == 0)
        w->o.sync = w->ctx && w->ctx->config ? w->ctx->config->sync : 0;
    /* Unsaid, direct I/O goes with sync: when the bytes must reach the device
     * before the call returns anyway, they go there without the page cache
     * (docs/onnx-writer.md, "Direct I/O"). */
    if (w->o.direct_io == 0)
        w->o.direct_io = w->ctx && w->ctx->config ? w->ctx->config->direct_io : 0;
    if (w->o.direct_io == 0)
        w->o.direct_io = w->o.sync > 0 ? 1 : -1;
    w->threshold = w->o.external_data_threshold ? w->o.external_data_threshold
                                                : OX_EXTERNAL_DEFAULT_THRESHOLD;
}

/* The commit, in the order that keeps every pair a reader can open
 * consistent (docs/onnx-writer.md, "Atomic writes"):
 *   1. the side file under its content-tagged name, a name no older model
 *      refers to (or, same tag, the same bytes);
 *   2. the model, renamed over the old one: readers switch from the old pair
 *      to the new pair in one step;
 *   3. only then the old model's own side file is removed. */
typedef struct commit {
    ox_temp model, side;
    char *dest;        /* the file the model replaces (path, or its link's end) */
    char *dir;         /* dest's directory */
    char *side_path;   /* dir/location */
    bool side_placed;  /* the new side file is at side_path */
    bool side_existed; /* ... and was there before (same content tag) */
} commit;

static ox_status place_side_file(wctx *w, commit *c, const char *requested, size_t tag_at)
{
    /* messages name the requested file until its tag is known */
    size_t dl = strlen(c->dir);
    char *shown = malloc(dl + strlen(requested) + 2);
    c->side_path = malloc(dl + strlen(w->location) + 2);
    if (!shown || !c->side_path) {
        free(shown);
        return oom(w);
    }
    sprintf(shown, "%s/%s", c->dir, requested);
    sprintf(c->side_path, "%s/%s", c->dir, w->location);
    uint64_t tag = 0;
    int e = 0;
    if (open_temp(w, WHAT_SIDE, shown, &c->side) == OX_OK &&
        write_side(w, &c->side, shown, &tag) == OX_OK &&
        (e = ox_temp_close(&c->side, w->o.sync > 0)) != 0)
        io_error(w, WHAT_SIDE, shown, e);
    free(shown);
    if (w->st != OX_OK)
        return w->st;
    char hex[TAG_LEN + 1];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)tag);
    memcpy(w->location + tag_at, hex, TAG_LEN);
    memcpy(c->side_path + dl + 1 + tag_at, hex, TAG_LEN);
    struct stat st;
    c->side_existed = lstat(c->side_path, &st) == 0;
    if (ox_write_fs.rename(c->side.path, c->side_path) != 0) {
        e = errno;
        return werr(w, OX_EIO, "cannot write external data file '%s': rename from '%s' "
                    "failed: %s", c->side_path, c->side.path, strerror(e));
    }
    ox_temp_committed(&c->side);
    c->side_placed = true;
    return OX_OK;
}

/* After the model is in place: the replaced model's side files that this
 * write's naming produced (an inline model replacing an external one included). */
static void remove_earlier_side_files(wctx *w, commit *c, char *old[], size_t n_old,
                                      const char *requested, size_t tag_at)
{
    for (size_t i = 0; i < n_old; i++) {
        if (!earlier_side_file(w, old[i], requested, tag_at))
            continue;
        size_t n = strlen(c->dir) + strlen(old[i]) + 2;
        char *p = malloc(n);
        if (!p)
            continue; /* an orphaned data file, not an inconsistency */
        snprintf(p, n, "%s/%s", c->dir, old[i]);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
            unlink(p);
        free(p);
    }
}

/* Direct I/O was asked for and the file system refused it: the bytes are
 * the same, so this is a note of the export (ox_context_notes), not an error. */
static void note_buffered(ox_context *ctx, const char *path)
{
    const char *old = ctx->notes ? ctx->notes : "";
    char *s = NULL;
    if (asprintf(&s, "%s%sdirect I/O: the file system of '%s' refused O_DIRECT; the files were "
                 "written through the page cache", old, *old ? "\n" : "", path) < 0)
        return; /* out of memory: the note is lost, the export stands */
    free(ctx->notes);
    ctx->notes = s;
}

ox_status ox_onnx_write(ox_context *ctx, const ox_io_layout *layout, const char *path,
                        const ox_export_options *opts)
{
    return ox_onnx_write_gated(ctx, layout, path, opts, NULL, NULL);
}

ox_status ox_onnx_write_gated(ox_context *ctx, const ox_io_layout *layout, const char *path,
                              const ox_export_options *opts, ox_write_gate_fn gate, void *user)
{
    wctx w;
    memset(&w, 0, sizeof w);
    w.ctx = ctx;
    ox_arena_init(&w.keep);
    ox_arena_init(&w.scratch);
    commit c;
    memset(&c, 0, sizeof c);
    c.model = (ox_temp)OX_TEMP_NONE;
    c.side = (ox_temp)OX_TEMP_NONE;
    char *old_locations[OX_LOCATIONS_MAX];
    size_t n_old = 0;
    bool in_place = false, committed = false;
    const char *requested = NULL;
    size_t tag_at = 0;

    resolve_options(&w, opts);
    w.layout = layout;
    w.main = &layout->main;
    w.ir_version = layout->ir_version;
    for (size_t i = 0; i < w.main->n_inits; i++)
        if (check_init(&w, w.main, w.main->inits[i]) != OX_OK)
            goto done;
    w.ext = ox_arena_alloc(&w.keep, (w.main->n_inits + 1) * sizeof(*w.ext));
    if (!w.ext) {
        oom(&w);
        goto done;
    }

    /* Where the model and the side file go. */
    c.dest = ox_link_destination(path);
    if (!c.dest) {
        if (errno == ELOOP)
            werr(&w, OX_EIO, "cannot write ONNX model to '%s': too many levels of symbolic "
                 "links; fix the link or give another path", path);
        else
            oom(&w);
        goto done;
    }
    c.dir = ox_dir_of(c.dest);
    if (!c.dir) {
        oom(&w);
        goto done;
    }
    if (w.o.external_data_location && w.o.external_data_location[0]) {
        const char *loc = w.o.external_data_location;
        if (loc[0] == '/' || strstr(loc, "..")) {
            werr(&w, OX_EINVAL, "ox_write: external_data_location '%s' must be a relative path "
                 "inside the model's directory (ONNX resolves it against the model file)", loc);
            goto done;
        }
        requested = loc;
    } else {
        requested = ox_arena_printf(&w.keep, "%s.data", ox_base_of(path));
    }
    w.location = requested ? tagged_location(&w, requested, &tag_at) : NULL;
    if (!w.location) {
        oom(&w);
        goto done;
    }

    uint64_t total = 0;
    w.external = w.o.external_data > 0 && plan_external(&w);
    if (measure(&w, &total) != OX_OK)
        goto done;
    if (!w.external && total > OX_PROTOBUF_LIMIT && w.o.external_data == 0) {
        w.external = plan_external(&w);
        if (w.external && measure(&w, &total) != OX_OK)
            goto done;
    }
    w.total = total;
    if (total > OX_PROTOBUF_LIMIT) {
        werr(&w, OX_EINVAL, "cannot write ONNX model to '%s': it would be %llu bytes, past "
             "protobuf's 2 GiB limit%s", path, (unsigned long long)total,
             w.o.external_data < 0 ? "; allow external data (external_data = 0 or 1)"
             : "; lower external_data_threshold so more tensors go to the side file");
        goto done;
    }

    if (open_in_place(&w, c.dest, &c.model, &in_place) != OX_OK)
        goto done;
    if (in_place && w.external) {
        werr(&w, OX_EINVAL, "cannot write ONNX model to '%s': it is not a regular file, and "
             "external data needs a side file next to the model; give a regular file path",
             path);
        goto done;
    }
    if (in_place) {
        if (write_model(&w, &c.model, path, false) == OX_OK) {
            int e = close(c.model.fd);
            c.model.fd = -1;
            if (e != 0)
                io_error(&w, WHAT_MODEL, path, errno);
        }
        goto done;
    }
    if (w.external && strcmp(c.dest, path) != 0) {
        char *link_dir = ox_dir_of(path);
        bool same = link_dir && ox_same_dir(link_dir, c.dir);
        free(link_dir);
        if (!same) {
            werr(&w, OX_EINVAL, "cannot write ONNX model to '%s': it is a symbolic link to '%s' "
                 "in another directory, and external data is found next to the path a model "
                 "is opened by; write to '%s' directly, or without external data",
                 path, c.dest, c.dest);
            goto done;
        }
    }
    ox_temp_clean_stale(c.dir);

    if (w.external && place_side_file(&w, &c, requested, tag_at) != OX_OK)
        goto done;
    if (open_temp(&w, WHAT_MODEL, c.dest, &c.model) != OX_OK ||
        write_model(&w, &c.model, path, true) != OX_OK)
        goto done;
    int e = ox_temp_close(&c.model, w.o.sync > 0);
    if (e) {
        io_error(&w, WHAT_MODEL, path, e);
        goto done;
    }
    if (gate) {
        ox_status gst = gate(user);
        if (gst != OX_OK) {
            w.st = gst; /* the gate's message stays on the context */
            goto done;
        }
    }
    n_old = ox_external_locations(c.dest, old_locations);
    if (ox_write_fs.rename(c.model.path, c.dest) != 0) {
        e = errno;
        werr(&w, OX_EIO, "cannot write ONNX model to '%s': %s; %s", path, strerror(e),
             e == EISDIR ? "the path is a directory: give a file path"
                         : "check the path and permissions");
        goto done;
    }
    ox_temp_committed(&c.model);
    committed = true;
    if (w.fell_back && ctx)
        note_buffered(ctx, path);
    remove_earlier_side_files(&w, &c, old_locations, n_old, requested, tag_at);
    if (w.o.sync > 0) {
        e = ox_sync_dir(c.dir);
        if (e == 0 && w.external) {
            char *side_dir = ox_dir_of(c.side_path);
            if (side_dir && strcmp(side_dir, c.dir) != 0)
                e = ox_sync_dir(side_dir);
            free(side_dir);
        }
        if (e)
            io_error(&w, WHAT_MODEL, path, e);
    }

done:
    if (!committed && c.side_placed && !c.side_existed)
        unlink(c.side_path); /* the new data no model refers to */
    ox_temp_discard(&c.side);
    ox_temp_discard(&c.model);
    for (size_t i = 0; i < n_old; i++)
        free(old_locations[i]);
    free(c.side_path);
    free(c.dir);
    free(c.dest);
    free(w.chunk);
    free(w.node_sizes);
    ox_static_shapes_free(&w.shapes);
    ox_varying_dims_free(&w.varying);
    ox_arena_free(&w.scratch);
    ox_arena_free(&w.keep);
    return w.st;
}
