/*
 * Weights inside an .onnx file, left in the file when it is read
 * (onnx_inline_weights.h).
 *
 * Only the path ModelProto.graph -> GraphProto.initializer -> TensorProto.raw_data
 * is rewritten; every other field is copied as it is.  A message's length
 * prefix changes when bytes leave it, so each rewritten message is measured
 * first (a pass that writes nothing) and then written.  The walk is over
 * metadata: the raw_data bytes themselves are never touched, so their pages
 * of the mapped file are not read either.
 */
#include "onnx_inline_weights.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "wire_varint.h"

/* Where bytes go: p NULL measures only. */
typedef struct sink {
    uint8_t *p;
    size_t n;
} sink;

static void put(sink *s, const uint8_t *b, size_t n)
{
    if (s->p)
        memcpy(s->p + s->n, b, n);
    s->n += n;
}

static void put_varint(sink *s, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    put(s, b, n);
}

/* One field of a message: its key, and where it starts, where a
 * length-delimited one's payload starts, where it ends. */
typedef struct field {
    uint64_t key;
    size_t start, body, end;
} field;

/* 1 a field read into *f, 0 at the end, -1 a malformed one. */
static int next_field(const uint8_t *p, size_t len, size_t *pos, field *f)
{
    if (*pos >= len)
        return 0;
    f->start = *pos;
    uint64_t v;
    if (ox_wire_varint(p, len, pos, &f->key) != 0)
        return -1;
    switch (f->key & 7) {
    case 0:
        if (ox_wire_varint(p, len, pos, &v) != 0)
            return -1;
        break;
    case 1:
        if (len - *pos < 8)
            return -1;
        *pos += 8;
        break;
    case 5:
        if (len - *pos < 4)
            return -1;
        *pos += 4;
        break;
    case 2:
        if (ox_wire_varint(p, len, pos, &v) != 0 || v > len - *pos)
            return -1;
        f->body = *pos;
        *pos += (size_t)v;
        break;
    default:
        return -1;
    }
    f->end = *pos;
    return 1;
}

static bool is_len_field(const field *f, uint32_t id)
{
    return (f->key & 7) == 2 && (f->key >> 3) == id;
}

static uint32_t field_id(const ProtobufCMessageDescriptor *d, const char *name)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, name);
    return f ? f->id : 0;
}

typedef struct ids {
    uint32_t graph, initializer, raw_data;
} ids;

/* A TensorProto at file offset base: copied without its raw_data when that
 * is its only raw_data field and min_bytes or longer (1, with *at and *n
 * set), else as it is (0).  -1 malformed. */
static int strip_tensor(const uint8_t *p, size_t len, size_t base, const ids *id,
                        uint64_t min_bytes, sink *s, uint64_t *at, uint64_t *n)
{
    size_t pos = 0, count = 0;
    field f, raw = {0, 0, 0, 0};
    int r;
    while ((r = next_field(p, len, &pos, &f)) == 1)
        if (is_len_field(&f, id->raw_data)) {
            raw = f;
            count++;
        }
    if (r < 0)
        return -1;
    if (count != 1 || raw.end - raw.body < min_bytes) {
        put(s, p, len);
        return 0;
    }
    put(s, p, raw.start);
    put(s, p + raw.end, len - raw.end);
    *at = base + raw.body;
    *n = raw.end - raw.body;
    return 1;
}

static int record(ox_inline_weights *w, uint64_t at, uint64_t n)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 8;
        uint64_t *o = realloc(w->offset, cap * sizeof *o);
        if (!o)
            return -1;
        w->offset = o;
        uint64_t *l = realloc(w->length, cap * sizeof *l);
        if (!l)
            return -1;
        w->length = l;
        w->cap = cap;
    }
    w->offset[w->n] = at;
    w->length[w->n] = n;
    w->n++;
    return 0;
}

/* A GraphProto at file offset base, its initializers stripped; w (NULL when
 * measuring) records each one.  *stripped counts those left out.  -1
 * malformed or out of memory. */
static int strip_graph(const uint8_t *p, size_t len, size_t base, const ids *id,
                       uint64_t min_bytes, sink *s, ox_inline_weights *w, size_t *stripped)
{
    size_t pos = 0;
    field f;
    int r;
    while ((r = next_field(p, len, &pos, &f)) == 1) {
        if (!is_len_field(&f, id->initializer)) {
            put(s, p + f.start, f.end - f.start);
            continue;
        }
        const uint8_t *t = p + f.body;
        size_t tlen = f.end - f.body;
        uint64_t at = OX_INLINE_KEPT, n = 0;
        sink m = {NULL, 0};
        if (strip_tensor(t, tlen, base + f.body, id, min_bytes, &m, &at, &n) < 0)
            return -1;
        put_varint(s, f.key);
        put_varint(s, m.n);
        int k = strip_tensor(t, tlen, base + f.body, id, min_bytes, s, &at, &n);
        *stripped += (size_t)k;
        if (w && record(w, k ? at : OX_INLINE_KEPT, k ? n : 0) != 0)
            return -1;
    }
    return r;
}

/* The ModelProto, its graph fields stripped. */
static int strip_model(const uint8_t *p, size_t len, const ids *id, uint64_t min_bytes, sink *s,
                       ox_inline_weights *w, size_t *stripped)
{
    size_t pos = 0;
    field f;
    int r;
    while ((r = next_field(p, len, &pos, &f)) == 1) {
        if (!is_len_field(&f, id->graph)) {
            put(s, p + f.start, f.end - f.start);
            continue;
        }
        sink m = {NULL, 0};
        size_t ignored = 0;
        if (strip_graph(p + f.body, f.end - f.body, f.body, id, min_bytes, &m, NULL, &ignored) < 0)
            return -1;
        put_varint(s, f.key);
        put_varint(s, m.n);
        if (strip_graph(p + f.body, f.end - f.body, f.body, id, min_bytes, s, w, stripped) < 0)
            return -1;
    }
    return r;
}

int ox_inline_weights_strip(const uint8_t *p, size_t len, uint64_t min_bytes,
                            ox_inline_weights *out)
{
    memset(out, 0, sizeof *out);
    const ids id = {field_id(&onnx__model_proto__descriptor, "graph"),
                    field_id(&onnx__graph_proto__descriptor, "initializer"),
                    field_id(&onnx__tensor_proto__descriptor, "raw_data")};
    if (!id.graph || !id.initializer || !id.raw_data)
        return -1;
    sink m = {NULL, 0};
    size_t stripped = 0;
    if (strip_model(p, len, &id, min_bytes, &m, NULL, &stripped) < 0)
        return -1;
    if (!stripped)
        return 0;
    sink s = {malloc(m.n ? m.n : 1), 0};
    if (!s.p)
        return -1;
    stripped = 0;
    if (strip_model(p, len, &id, min_bytes, &s, out, &stripped) < 0 || s.n != m.n) {
        free(s.p);
        ox_inline_weights_free(out);
        return -1;
    }
    out->wire = s.p;
    out->wire_len = s.n;
    return 0;
}

void ox_inline_weights_free(ox_inline_weights *w)
{
    free(w->wire);
    free(w->offset);
    free(w->length);
    memset(w, 0, sizeof *w);
}
