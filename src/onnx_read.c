/*
 * ONNX reader.
 *
 * The file is mapped, its wire format is pre-scanned (nesting depth is
 * bounded before protobuf-c recurses), decoded by protobuf-c, and converted
 * to the IR.  Strings and small tensors are copied into the graph's arena;
 * large tensor bytes are taken over from the decoded message (protobuf-c
 * allocates each bytes field separately with our allocator) so a model's
 * weights exist once in memory.  Then the decoded message is freed.
 * Large initializers are not read at all when the model comes from a file:
 * the value keeps their file region, which only a writer reads (raw_data:
 * onnx_inline_weights.h; external data: defer_external).
 */
#include "onnx_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "onnx.pb-c.h"
#include "onnx_inline_weights.h"
#include "param_source.h"
#include "strmap.h"
#include "wire_varint.h"

/* What a read graph keeps besides its arena, freed with it: subgraphs of
 * GRAPH attributes, and the malloc'd bytes (OX_IR_MALLOC_THRESHOLD and up)
 * of tensors no value owns (attribute tensors, sparse initializers). */
typedef struct read_keep {
    ox_graph **subs;
    size_t n_subs, cap_subs;
    void **blocks;
    size_t n_blocks, cap_blocks;
    /* the model file, open while initializers left in it are the graph's
     * (onnx_inline_weights.h): a descriptor, so a file renamed over the
     * model's path meanwhile does not change them; -1 none */
    int model_fd;
} read_keep;

static void keep_free(void *mapping, size_t len)
{
    (void)len;
    read_keep *k = mapping;
    if (!k)
        return;
    for (size_t i = 0; i < k->n_subs; i++)
        ox_graph_free(k->subs[i]);
    free(k->subs);
    for (size_t i = 0; i < k->n_blocks; i++)
        free(k->blocks[i]);
    free(k->blocks);
    if (k->model_fd >= 0)
        close(k->model_fd);
    free(k);
}

bool ox_read_param_is_input(const ox_graph *g, ox_vid v)
{
    const ox_value *x = ox_graph_value(g, v);
    return x && x->listed_as_input;
}

/* ------------------------------------------------------------- allocator */

/* `data`, when set, is a flag raised by a failed allocation: protobuf-c
 * reports it like malformed input (NULL), and out of memory must not read as
 * "not an ONNX file". */
static void *pb_alloc(void *data, size_t size)
{
    void *p = malloc(size);
    if (!p && data)
        *(bool *)data = true;
    return p;
}

static void pb_free(void *data, void *p)
{
    (void)data;
    free(p);
}

/* malloc/free explicitly: large bytes fields are taken over and later
 * released with free() by ox_graph_free. */
static ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, NULL};

/* -------------------------------------------------------------- wire scan */

/* Walk the wire format with the schema, recursing only into known message
 * fields and at most OX_READ_MAX_DEPTH deep.  Returns NULL or a reason. */
static const char *wire_scan(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
                             int depth, size_t base, size_t *bad_at)
{
    size_t pos = 0;
    while (pos < len) {
        uint64_t key, v;
        size_t start = pos;
        *bad_at = base + start;
        if (ox_wire_varint(p, len, &pos, &key) != 0)
            return "truncated or corrupt field header";
        uint64_t field = key >> 3;
        if (field == 0 || field > 536870911u)
            return "invalid field number";
        switch (key & 7) {
        case 0:
            if (ox_wire_varint(p, len, &pos, &v) != 0)
                return "truncated varint";
            break;
        case 1:
            if (len - pos < 8)
                return "truncated 64-bit field";
            pos += 8;
            break;
        case 5:
            if (len - pos < 4)
                return "truncated 32-bit field";
            pos += 4;
            break;
        case 2: {
            if (ox_wire_varint(p, len, &pos, &v) != 0)
                return "truncated length";
            if (v > len - pos)
                return "length runs past the end of the data (truncated file?)";
            const ProtobufCFieldDescriptor *fd =
                desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)field) : NULL;
            if (fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth + 1 > OX_READ_MAX_DEPTH)
                    return "messages nested too deeply";
                const char *why = wire_scan(fd->descriptor, p + pos, (size_t)v, depth + 1,
                                            base + pos, bad_at);
                if (why)
                    return why;
            }
            pos += (size_t)v;
            break;
        }
        default:
            return "unsupported wire type";
        }
    }
    return NULL;
}

/* --------------------------------------------------------------- name map */

/* Value names -> ids while a graph is read (the first definition wins). */
typedef ox_strmap namemap;

static ox_vid namemap_get(const namemap *m, const char *k)
{
    const uint64_t *v = ox_strmap_find(m, k);
    return v ? (ox_vid)*v : 0;
}

static int namemap_put(namemap *m, const char *k, ox_vid v)
{
    return ox_strmap_put(m, k, v) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------- conversion */

typedef struct rctx {
    ox_context *ctx;
    const char *file;     /* for messages */
    const char *base_dir; /* external data; NULL = not allowed */
    read_keep *keep;
    ox_status st;
    /* base_dir with its links resolved, once for all external tensors:
     * real_base_state 0 not yet, 1 in real_base, -1 it does not resolve */
    int real_base_state;
    char real_base[PATH_MAX];
    /* initializers whose raw_data the read left in the model file: where
     * (NULL when none), and the descriptor the graph keeps for them */
    const ox_inline_weights *inline_w;
    int model_fd;
} rctx;

static ox_status rfail(rctx *r, ox_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static ox_status rfail(rctx *r, ox_status st, const char *fmt, ...)
{
    if (r->st != OX_OK)
        return r->st;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r->st = st;
    if (st == OX_EFORMAT)
        ox_fail(r->ctx, st, "%s: not an ONNX model: %s", r->file, buf);
    else
        ox_fail(r->ctx, st, "%s: %s", r->file, buf);
    return st;
}

static ox_status room(rctx *r)
{
    return rfail(r, OX_ENOMEM, "out of memory while reading the model");
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

static char *adup(ox_graph *g, const char *s)
{
    return ox_arena_strdup(&g->arena, nz(s));
}

static const char *type_name(int dt)
{
    return ox_dtype_known(dt) ? ox_dtype_name((ox_dtype)dt) : "unknown";
}

/* Take over a bytes buffer from the decoded message when it is big enough
 * to be malloc'd per ox_graph_free's rule; copy it into the arena otherwise. */
static int take_bytes(ox_graph *g, ProtobufCBinaryData *b, ox_tensor_data *out)
{
    out->nbytes = b->len;
    out->owned = true;
    if (b->len >= OX_IR_MALLOC_THRESHOLD) {
        out->data = b->data;
        b->data = NULL;
        b->len = 0;
        return 0;
    }
    void *p = ox_arena_alloc(&g->arena, b->len ? b->len : 1);
    if (!p)
        return -1;
    if (b->len)
        memcpy(p, b->data, b->len);
    out->data = p;
    return 0;
}

static void *alloc_owned(ox_graph *g, uint64_t n)
{
    if (n >= OX_IR_MALLOC_THRESHOLD)
        return malloc((size_t)n);
    return ox_arena_alloc(&g->arena, n ? (size_t)n : 1);
}

static void free_owned(uint64_t n, void *p)
{
    if (n >= OX_IR_MALLOC_THRESHOLD)
        free(p);
}

/* Whether path, its symbolic links followed, lies outside the model's
 * directory (the location itself has no '..' and is relative, checked
 * before).  A path that does not resolve is not judged here: opening it says
 * why. */
static bool leaves_dir(rctx *r, const char *path)
{
    if (r->real_base_state == 0)
        r->real_base_state = realpath(r->base_dir, r->real_base) ? 1 : -1;
    char real[PATH_MAX];
    if (r->real_base_state < 0 || !realpath(path, real))
        return false;
    const char *base = r->real_base;
    size_t n = strlen(base);
    return strncmp(real, base, n) != 0 ||
           (real[n] != '/' && real[n] != '\0' && !(n == 1 && base[0] == '/'));
}

/* An initializer's bytes left where they are: a region of a file, by path
 * or through the descriptor fd (`path` then names it in messages), which
 * only a writer reads (onnx_write.c); the tensor holds their count, no
 * bytes. */
static ox_status leave_in_file(rctx *r, ox_graph *g, ox_source_kind kind, const char *path, int fd,
                               uint64_t offset, uint64_t nbytes, const ox_tensor_source **defer,
                               ox_tensor_data *out)
{
    ox_tensor_source *src = ox_arena_alloc(&g->arena, sizeof(*src));
    const char *name = ox_arena_strdup(&g->arena, path);
    if (!src || !name)
        return room(r);
    memset(src, 0, sizeof *src);
    src->kind = kind;
    src->path = name;
    src->fd = fd;
    src->offset = offset;
    out->data = NULL;
    out->nbytes = nbytes;
    out->owned = false;
    *defer = src;
    return OX_OK;
}

/* An initializer's external bytes from OX_IR_MALLOC_THRESHOLD up are not
 * read: the value keeps where they are (*defer, a file-region source as
 * ox_trace_param_file makes), so checking, dumping or diffing a model larger
 * than memory costs its metadata, and writing it again streams the bytes.
 * The region is checked now as a read would (the file opens, is regular,
 * holds it); the writer checks it again before copying. */
static ox_status defer_external(rctx *r, ox_graph *g, const char *path, uint64_t offset,
                                uint64_t nbytes, const ox_tensor_source **defer,
                                ox_tensor_data *out)
{
    /* the resolved path: a relative one would follow the host's chdir */
    char *real = realpath(path, NULL);
    ox_status st = leave_in_file(r, g, OX_SOURCE_PATH, real ? real : path, -1, offset, nbytes,
                                 defer, out);
    free(real);
    return st;
}

static ox_status read_external(rctx *r, ox_graph *g, const Onnx__TensorProto *t, const char *what,
                               uint64_t nbytes, const ox_tensor_source **defer, ox_tensor_data *out)
{
    const char *tname = nz(t->name);
    const char *loc = NULL;
    uint64_t offset = 0, length = nbytes;
    bool has_length = false;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const char *k = nz(t->external_data[i]->key), *v = nz(t->external_data[i]->value);
        if (strcmp(k, "location") == 0) {
            loc = v;
        } else if (strcmp(k, "offset") == 0 || strcmp(k, "length") == 0) {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (!v[0] || *end || errno || v[0] == '-')
                return rfail(r, OX_EFORMAT, "%s '%s': external data %s '%s' is not a "
                             "non-negative integer", what, tname, k, v);
            if (k[0] == 'o') {
                offset = x;
            } else {
                length = x;
                has_length = true;
            }
        }
    }
    if (!loc || !loc[0])
        return rfail(r, OX_EFORMAT, "%s '%s' has data_location EXTERNAL but no 'location' entry",
                     what, tname);
    if (loc[0] == '/' || strcmp(loc, "..") == 0 || strncmp(loc, "../", 3) == 0 ||
        strstr(loc, "/../") || (strlen(loc) >= 3 && strcmp(loc + strlen(loc) - 3, "/..") == 0))
        return rfail(r, OX_EFORMAT, "%s '%s': external data location '%s' leaves the model's "
                     "directory; ONNX requires a relative path below it", what, tname, loc);
    if (!r->base_dir)
        return rfail(r, OX_EIO, "%s '%s': external data '%s' cannot be resolved for a model read "
                     "from memory; read it from its file", what, tname, loc);
    if (has_length && length != nbytes)
        return rfail(r, OX_EFORMAT, "%s '%s': external data length %llu but its type and shape "
                     "need %llu bytes", what, tname, (unsigned long long)length,
                     (unsigned long long)nbytes);
    size_t plen = strlen(r->base_dir) + strlen(loc) + 2;
    char *path = malloc(plen);
    if (!path)
        return room(r);
    snprintf(path, plen, "%s/%s", r->base_dir, loc);
    if (leaves_dir(r, path)) {
        rfail(r, OX_EFORMAT, "%s '%s': external data file '%s' is a symbolic link to a file "
              "outside the model's directory; ONNX requires the data below it", what, tname, path);
        free(path);
        return r->st;
    }
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer.  It is
     * refused below, and a regular file reads the same either way. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        rfail(r, OX_EIO, "%s '%s': cannot open external data file '%s': %s; keep the data file "
              "next to the model", what, tname, path, strerror(e));
        free(path);
        return r->st;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        rfail(r, OX_EFORMAT, "%s '%s': external data '%s' is not a regular file", what, tname,
              path);
        free(path);
        return r->st;
    }
    if (offset > (uint64_t)st.st_size || nbytes > (uint64_t)st.st_size - offset) {
        close(fd);
        rfail(r, OX_EFORMAT, "%s '%s': external data offset %llu + length %llu is outside '%s' "
              "(%llu bytes)", what, tname, (unsigned long long)offset,
              (unsigned long long)nbytes, path, (unsigned long long)st.st_size);
        free(path);
        return r->st;
    }
    if (defer && nbytes >= OX_IR_MALLOC_THRESHOLD) {
        close(fd);
        ox_status ds = defer_external(r, g, path, offset, nbytes, defer, out);
        free(path);
        return ds;
    }
    unsigned char *buf = alloc_owned(g, nbytes);
    if (!buf) {
        close(fd);
        free(path);
        return room(r);
    }
    uint64_t done = 0;
    while (done < nbytes) {
        size_t chunk = nbytes - done > ((uint64_t)1 << 30) ? ((size_t)1 << 30)
                                                            : (size_t)(nbytes - done);
        ssize_t k = pread(fd, buf + done, chunk, (off_t)(offset + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : EIO;
            close(fd);
            free_owned(nbytes, buf);
            rfail(r, OX_EIO, "%s '%s': reading external data file '%s' failed: %s", what, tname,
                  path, k < 0 ? strerror(e) : "file shrank while reading");
            free(path);
            return r->st;
        }
        done += (uint64_t)k;
    }
    close(fd);
    free(path);
    out->data = buf;
    out->nbytes = nbytes;
    out->owned = true;
    return OX_OK;
}

/* A string tensor's string_data, kept as NUL-terminated strings back to
 * back (ir.h): enough to print and check it. */
static ox_status read_strings(rctx *r, ox_graph *g, Onnx__TensorProto *t, const char *what,
                              uint64_t count, ox_tensor_data *data)
{
    if (t->n_string_data != count)
        return rfail(r, OX_EFORMAT, "%s '%s': string_data has %zu strings but the shape needs "
                     "%llu", what, nz(t->name), t->n_string_data, (unsigned long long)count);
    uint64_t total = 0;
    for (size_t i = 0; i < t->n_string_data; i++)
        total += t->string_data[i].len + 1;
    unsigned char *buf = alloc_owned(g, total ? total : 1);
    if (!buf)
        return room(r);
    uint64_t at = 0;
    for (size_t i = 0; i < t->n_string_data; i++) {
        const ProtobufCBinaryData *b = &t->string_data[i];
        const void *nul = b->len ? memchr(b->data, 0, b->len) : NULL;
        size_t len = nul ? (size_t)((const unsigned char *)nul - b->data) : b->len;
        if (len)
            memcpy(buf + at, b->data, len);
        at += len;
        buf[at++] = 0;
    }
    data->data = buf;
    data->nbytes = at;
    data->owned = true;
    return OX_OK;
}

/* Decode a TensorProto's type, shape and bytes. */
/* Where an initializer's bytes may stay (read_tensor): `out` gets the
 * source when they do; `inline_at` is where its raw_data sits in the model
 * file when the read left it there, else OX_INLINE_KEPT. */
typedef struct defer_to {
    const ox_tensor_source **out;
    uint64_t inline_at;
} defer_to;

/* `defer`: NULL, or where an initializer's large bytes are left as a source
 * instead of read (leave_in_file). */
static ox_status read_tensor(rctx *r, ox_graph *g, Onnx__TensorProto *t, const char *what,
                             ox_dtype *dt_out, int64_t **dims_out, uint32_t *rank_out,
                             ox_tensor_data *data, const defer_to *defer)
{
    const char *tname = nz(t->name);
    int dt = t->has_data_type ? t->data_type : 0;
    if (!ox_dtype_known(dt))
        return rfail(r, OX_EFORMAT, "%s '%s' has data_type %d, which is %s", what, tname, dt,
                     dt == 0 ? "unset" : "not a supported ONNX tensor type");
    if (t->segment)
        return rfail(r, OX_EUNSUPPORTED, "%s '%s' is a segment of a larger tensor, which oxport "
                     "does not support", what, tname);
    if (t->n_dims > INT32_MAX)
        return rfail(r, OX_EFORMAT, "%s '%s' has %zu dimensions", what, tname, t->n_dims);
    uint64_t count = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0)
            return rfail(r, OX_EFORMAT, "%s '%s' has a negative size (%lld) on axis %zu", what,
                         tname, (long long)t->dims[i], i);
        if (t->dims[i] && count > (UINT64_MAX >> 4) / (uint64_t)t->dims[i])
            return rfail(r, OX_EFORMAT, "%s '%s': its shape has too many elements", what, tname);
        count *= (uint64_t)t->dims[i];
    }
    size_t es = ox_dtype_size((ox_dtype)dt);
    uint64_t nbytes = count * es;
    int64_t *dims = NULL;
    if (t->n_dims) {
        dims = ox_arena_memdup(&g->arena, t->dims, t->n_dims * sizeof(int64_t));
        if (!dims)
            return room(r);
    }
    *dt_out = (ox_dtype)dt;
    *dims_out = dims;
    *rank_out = (uint32_t)t->n_dims;
    memset(data, 0, sizeof(*data));

    /* ONNX allows one place for a tensor's values: with two, which one a
     * reader takes is a guess (onnx.checker refuses such a tensor) */
    bool external = t->has_data_location &&
                    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    const struct {
        bool set;
        const char *name;
    } fields[] = {{t->has_raw_data, "raw_data"},      {external, "external data"},
                  {t->n_float_data, "float_data"},    {t->n_int32_data, "int32_data"},
                  {t->n_int64_data, "int64_data"},    {t->n_double_data, "double_data"},
                  {t->n_uint64_data, "uint64_data"},  {t->n_string_data, "string_data"}};
    const char *first = NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i].set)
            continue;
        if (first)
            return rfail(r, OX_EFORMAT, "%s '%s' holds values in both %s and %s; ONNX allows "
                         "one value field", what, tname, first, fields[i].name);
        first = fields[i].name;
    }
    if (dt == OX_STRING)
        return read_strings(r, g, t, what, count, data);
    if (external)
        return read_external(r, g, t, what, nbytes, defer ? defer->out : NULL, data);
    if (t->has_raw_data) {
        if (t->raw_data.len != nbytes)
            return rfail(r, OX_EFORMAT, "%s '%s': raw_data has %zu bytes but %s with %llu "
                         "elements needs %llu", what, tname, t->raw_data.len, type_name(dt),
                         (unsigned long long)count, (unsigned long long)nbytes);
        if (defer && defer->inline_at != OX_INLINE_KEPT) /* onnx_inline_weights.h */
            return leave_in_file(r, g, OX_SOURCE_FD, r->file, r->model_fd, defer->inline_at,
                                 nbytes, defer->out, data);
        return take_bytes(g, &t->raw_data, data) == 0 ? OX_OK : room(r);
    }
    /* typed fields: which one holds this type, and how many values (a
     * complex element is two: real, imaginary) */
    size_t have;
    const char *field;
    uint64_t want = count;
    switch (dt) {
    case OX_FLOAT: have = t->n_float_data; field = "float_data"; break;
    case OX_INT64: have = t->n_int64_data; field = "int64_data"; break;
    case OX_DOUBLE: have = t->n_double_data; field = "double_data"; break;
    case OX_COMPLEX64: have = t->n_float_data; field = "float_data"; want = 2 * count; break;
    case OX_COMPLEX128: have = t->n_double_data; field = "double_data"; want = 2 * count; break;
    case OX_UINT32: case OX_UINT64: have = t->n_uint64_data; field = "uint64_data"; break;
    default: have = t->n_int32_data; field = "int32_data"; break;
    }
    if (have != want)
        return rfail(r, OX_EFORMAT, "%s '%s': %s has %zu values but %s with the given shape "
                     "needs %llu%s", what, tname, field, have, type_name(dt),
                     (unsigned long long)want,
                     want != count ? " (a real and an imaginary part per element)" : "");
    unsigned char *buf = alloc_owned(g, nbytes);
    if (!buf)
        return room(r);
    for (size_t i = 0; i < count; i++) {
        unsigned char *dst = buf + i * es;
        switch (dt) {
        case OX_FLOAT: memcpy(dst, &t->float_data[i], 4); break;
        case OX_INT64: memcpy(dst, &t->int64_data[i], 8); break;
        case OX_DOUBLE: memcpy(dst, &t->double_data[i], 8); break;
        case OX_COMPLEX64: memcpy(dst, &t->float_data[2 * i], 8); break;
        case OX_COMPLEX128: memcpy(dst, &t->double_data[2 * i], 16); break;
        case OX_UINT64: memcpy(dst, &t->uint64_data[i], 8); break;
        case OX_UINT32: {
            uint32_t v = (uint32_t)t->uint64_data[i];
            memcpy(dst, &v, 4);
            break;
        }
        default: {
            /* int32_data carries the narrower types' bit patterns */
            int32_t v = t->int32_data[i];
            if (es == 4) {
                memcpy(dst, &v, 4);
            } else if (es == 2) {
                uint16_t h = (uint16_t)(uint32_t)v;
                memcpy(dst, &h, 2);
            } else {
                *dst = (unsigned char)(uint32_t)v;
            }
        }
        }
    }
    data->data = buf;
    data->nbytes = nbytes;
    data->owned = true;
    return OX_OK;
}

/* A TypeProto as the printer spells types: "Float(1, *)", "Sequence(Long)",
 * "Optional(Sequence(Float(N)))", "Map(String, Float)", "SparseTensor(Float(3, 4))".
 * Appends to buf[*n..cap); the reader's depth limit bounds the recursion. */
static void shape_text(const Onnx__TensorShapeProto *sh, char *buf, size_t *n, size_t cap)
{
    if (!sh)
        return;
    *n += (size_t)snprintf(buf + *n, *n < cap ? cap - *n : 0, "(");
    for (size_t i = 0; i < sh->n_dim && *n < cap; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        const char *sep = i ? ", " : "";
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
            *n += (size_t)snprintf(buf + *n, cap - *n, "%s%lld", sep, (long long)d->dim_value);
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
                 d->dim_param[0])
            *n += (size_t)snprintf(buf + *n, cap - *n, "%s%s", sep, d->dim_param);
        else
            *n += (size_t)snprintf(buf + *n, cap - *n, "%s*", sep);
    }
    *n += (size_t)snprintf(buf + *n, *n < cap ? cap - *n : 0, ")");
}

static const char *elem_text(bool has, int32_t elem)
{
    return has && ox_dtype_known(elem) ? ox_dtype_torch_name((ox_dtype)elem) : "Tensor";
}

static void type_text(const Onnx__TypeProto *tp, char *buf, size_t *n, size_t cap)
{
    if (*n >= cap)
        return;
    switch (tp ? tp->value_case : ONNX__TYPE_PROTO__VALUE__NOT_SET) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        *n += (size_t)snprintf(buf + *n, cap - *n, "%s",
                               tp->tensor_type ? elem_text(tp->tensor_type->has_elem_type,
                                                           tp->tensor_type->elem_type)
                                               : "Tensor");
        if (tp->tensor_type)
            shape_text(tp->tensor_type->shape, buf, n, cap);
        return;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        *n += (size_t)snprintf(buf + *n, cap - *n, "SparseTensor(%s",
                               tp->sparse_tensor_type
                                   ? elem_text(tp->sparse_tensor_type->has_elem_type,
                                               tp->sparse_tensor_type->elem_type)
                                   : "Tensor");
        if (tp->sparse_tensor_type)
            shape_text(tp->sparse_tensor_type->shape, buf, n, cap);
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        *n += (size_t)snprintf(buf + *n, cap - *n, "Sequence(");
        type_text(tp->sequence_type ? tp->sequence_type->elem_type : NULL, buf, n, cap);
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        *n += (size_t)snprintf(buf + *n, cap - *n, "Optional(");
        type_text(tp->optional_type ? tp->optional_type->elem_type : NULL, buf, n, cap);
        break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        *n += (size_t)snprintf(buf + *n, cap - *n, "Map(%s, ",
                               tp->map_type ? elem_text(tp->map_type->has_key_type,
                                                        tp->map_type->key_type)
                                            : "Tensor");
        type_text(tp->map_type ? tp->map_type->value_type : NULL, buf, n, cap);
        break;
    default:
        *n += (size_t)snprintf(buf + *n, cap - *n, "Unknown");
        return;
    }
    if (*n < cap)
        *n += (size_t)snprintf(buf + *n, cap - *n, ")");
}

/* The type's text in the graph's arena ("..." marks a cut). */
static const char *type_text_dup(rctx *r, ox_graph *g, const Onnx__TypeProto *tp)
{
    char buf[1024];
    size_t n = 0;
    type_text(tp, buf, &n, sizeof buf);
    if (n >= sizeof buf)
        memcpy(buf + sizeof buf - 4, "...", 4);
    const char *s = ox_arena_strdup(&g->arena, buf);
    if (!s)
        room(r);
    return s;
}

static ox_status apply_type(rctx *r, ox_graph *g, ox_value *v, const Onnx__TypeProto *tp)
{
    if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET &&
        tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
        if (ox_value_set_type(g, v, OX_UNDEFINED, -1, NULL) != 0 ||
            !(v->type.nontensor = type_text_dup(r, g, tp)))
            return room(r);
        return OX_OK;
    }
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return OX_OK;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    ox_dtype dt = tt->has_elem_type && ox_dtype_known(tt->elem_type) ? (ox_dtype)tt->elem_type
                                                                    : OX_UNDEFINED;
    const Onnx__TensorShapeProto *sh = tt->shape;
    if (!sh) {
        if (ox_value_set_type(g, v, dt, -1, NULL) != 0)
            return room(r);
        return OX_OK;
    }
    if (sh->n_dim > INT32_MAX)
        return rfail(r, OX_EFORMAT, "value '%s' has %zu dimensions", nz(v->name), sh->n_dim);
    int32_t rank = (int32_t)sh->n_dim;
    int64_t *dims = rank ? ox_arena_alloc(&g->arena, (size_t)rank * sizeof(int64_t)) : NULL;
    if (rank && !dims)
        return room(r);
    for (int32_t i = 0; i < rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                          d->dim_value >= 0
                      ? d->dim_value
                      : -1;
    }
    if (ox_value_set_type(g, v, dt, rank, dims) != 0)
        return room(r);
    for (int32_t i = 0; i < rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
            d->dim_param && d->dim_param[0] &&
            ox_value_set_dim_param(g, v, (uint32_t)i, d->dim_param) != 0)
            return room(r);
    }
    return OX_OK;
}

static ox_graph *convert_graph(rctx *r, Onnx__GraphProto *gp, int depth, bool main_graph);

/* The keep list takes a tensor's malloc'd bytes (read_tensor's rule: owned
 * and OX_IR_MALLOC_THRESHOLD or more), or they are freed and it fails. */
static int keep_bytes(rctx *r, const ox_tensor_data *d)
{
    if (!d->owned || !d->data || d->nbytes < OX_IR_MALLOC_THRESHOLD)
        return 0;
    read_keep *k = r->keep;
    if (k->n_blocks == k->cap_blocks) {
        size_t cap = k->cap_blocks ? k->cap_blocks * 2 : 8;
        void **n = realloc(k->blocks, cap * sizeof(*n));
        if (!n) {
            free((void *)d->data);
            return -1;
        }
        k->blocks = n;
        k->cap_blocks = cap;
    }
    k->blocks[k->n_blocks++] = (void *)d->data;
    return 0;
}

static ox_attr_tensor *read_attr_tensor(rctx *r, ox_graph *g, Onnx__TensorProto *t,
                                        const char *what)
{
    ox_attr_tensor *at = ox_arena_alloc(&g->arena, sizeof(*at));
    if (!at) {
        room(r);
        return NULL;
    }
    memset(at, 0, sizeof *at);
    if (read_tensor(r, g, t, what, &at->dtype, &at->dims, &at->rank, &at->data, NULL))
        return NULL;
    if (keep_bytes(r, &at->data) != 0) {
        room(r);
        return NULL;
    }
    return at;
}

static ox_attr_tensor *attr_tensor(rctx *r, ox_graph *g, Onnx__TensorProto *t)
{
    ox_attr_tensor *at = read_attr_tensor(r, g, t, "attribute tensor");
    if (!at)
        return NULL;
    if (t->name && t->name[0] && !(at->name = adup(g, t->name))) {
        room(r);
        return NULL;
    }
    return at;
}

/* A sparse tensor attribute, summarised: "SparseTensor(Float(3, 4), 2 values)". */
static const char *sparse_text(rctx *r, ox_graph *g, const Onnx__SparseTensorProto *sp)
{
    const Onnx__TensorProto *v = sp ? sp->values : NULL;
    char buf[512];
    size_t n = (size_t)snprintf(buf, sizeof buf, "SparseTensor(%s(",
                                elem_text(v && v->has_data_type, v ? v->data_type : 0));
    for (size_t i = 0; sp && i < sp->n_dims && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", i ? ", " : "", (long long)sp->dims[i]);
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "), %lld values)",
                 (long long)(v && v->n_dims ? v->dims[0] : 0));
    const char *s = ox_arena_strdup(&g->arena, buf);
    if (!s)
        room(r);
    return s;
}

static const char *attr_type_name(int t)
{
    static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                  "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                  "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "unknown";
}

static ox_status convert_attr(rctx *r, ox_graph *g, const char *node, Onnx__AttributeProto *ap,
                              ox_attr *a, int depth)
{
    a->name = adup(g, ap->name);
    if (!a->name)
        return room(r);
    int type = ap->has_type ? (int)ap->type : 0;
    if (type == 0) {
        /* files from before IR 0.0.2 leave the type out: infer it */
        if (ap->has_f) type = OX_ATTR_FLOAT;
        else if (ap->has_i) type = OX_ATTR_INT;
        else if (ap->has_s) type = OX_ATTR_STRING;
        else if (ap->t) type = OX_ATTR_TENSOR;
        else if (ap->g) type = OX_ATTR_GRAPH;
        else if (ap->n_floats) type = OX_ATTR_FLOATS;
        else if (ap->n_ints) type = OX_ATTR_INTS;
        else if (ap->n_strings) type = OX_ATTR_STRINGS;
        else if (ap->n_tensors) type = OX_ATTR_TENSORS;
        else if (ap->n_graphs) type = OX_ATTR_GRAPHS;
        else if (ap->sparse_tensor) type = OX_ATTR_SPARSE_TENSOR;
        else if (ap->n_sparse_tensors) type = OX_ATTR_SPARSE_TENSORS;
        else if (ap->tp) type = OX_ATTR_TYPE_PROTO;
        else if (ap->n_type_protos) type = OX_ATTR_TYPE_PROTOS;
        else
            return rfail(r, OX_EFORMAT, "node '%s' attribute '%s' has neither a type nor a value",
                         node, a->name);
    }
    if (type < OX_ATTR_FLOAT || type > OX_ATTR_TYPE_PROTOS)
        return rfail(r, OX_EFORMAT,
                     "node '%s' attribute '%s' has type %s (%d), which is not an ONNX attribute "
                     "type", node, a->name, attr_type_name(type), type);
    if (ap->ref_attr_name && ap->ref_attr_name[0]) {
        /* a reference to the calling node's attribute: no value of its own */
        a->kind = (ox_attr_kind)type;
        return (a->ref = adup(g, ap->ref_attr_name)) ? OX_OK : room(r);
    }
    /* onnx.checker's rule: the value field present must be the type's, and
     * only one may be (reading by type alone would turn an INTS attribute
     * holding a string into an empty list). */
    const struct { bool set; int type; } fields[] = {
        {ap->has_f, OX_ATTR_FLOAT}, {ap->has_i, OX_ATTR_INT}, {ap->has_s, OX_ATTR_STRING},
        {ap->t != NULL, OX_ATTR_TENSOR}, {ap->g != NULL, OX_ATTR_GRAPH},
        {ap->n_floats > 0, OX_ATTR_FLOATS}, {ap->n_ints > 0, OX_ATTR_INTS},
        {ap->n_strings > 0, OX_ATTR_STRINGS}, {ap->n_tensors > 0, OX_ATTR_TENSORS},
        {ap->n_graphs > 0, OX_ATTR_GRAPHS}, {ap->sparse_tensor != NULL, OX_ATTR_SPARSE_TENSOR},
        {ap->n_sparse_tensors > 0, OX_ATTR_SPARSE_TENSORS}, {ap->tp != NULL, OX_ATTR_TYPE_PROTO},
        {ap->n_type_protos > 0, OX_ATTR_TYPE_PROTOS}};
    int n_fields = 0;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        if (!fields[k].set)
            continue;
        n_fields++;
        if (fields[k].type != type)
            return rfail(r, OX_EFORMAT,
                         "node '%s' attribute '%s' has type %s but holds a %s value", node,
                         a->name, attr_type_name(type), attr_type_name(fields[k].type));
    }
    if (n_fields > 1)
        return rfail(r, OX_EFORMAT, "node '%s' attribute '%s' holds more than one value field",
                     node, a->name);
    a->kind = (ox_attr_kind)type;
    switch (a->kind) {
    case OX_ATTR_FLOAT:
        a->u.f = ap->f;
        break;
    case OX_ATTR_INT:
        a->u.i = ap->i;
        break;
    case OX_ATTR_STRING: {
        char *s = ox_arena_alloc(&g->arena, ap->s.len + 1);
        if (!s)
            return room(r);
        if (ap->s.len)
            memcpy(s, ap->s.data, ap->s.len);
        a->u.s.p = s;
        a->u.s.len = ap->s.len;
        break;
    }
    case OX_ATTR_TENSOR:
        if (ap->t && !(a->u.t = attr_tensor(r, g, ap->t)))
            return r->st;
        break;
    case OX_ATTR_GRAPH:
        if (ap->g) {
            ox_graph *sub = convert_graph(r, ap->g, depth + 1, false);
            if (!sub)
                return r->st;
            a->u.g = sub;
        }
        break;
    case OX_ATTR_FLOATS:
        if (ap->n_floats) {
            a->u.floats.p = ox_arena_alloc(&g->arena, ap->n_floats * sizeof(double));
            if (!a->u.floats.p)
                return room(r);
            for (size_t i = 0; i < ap->n_floats; i++)
                a->u.floats.p[i] = ap->floats[i];
            a->u.floats.n = ap->n_floats;
        }
        break;
    case OX_ATTR_INTS:
        if (ap->n_ints) {
            a->u.ints.p = ox_arena_memdup(&g->arena, ap->ints, ap->n_ints * sizeof(int64_t));
            if (!a->u.ints.p)
                return room(r);
            a->u.ints.n = ap->n_ints;
        }
        break;
    case OX_ATTR_STRINGS:
        if (ap->n_strings) {
            a->u.strings.p = ox_arena_alloc(&g->arena, ap->n_strings * sizeof(char *));
            if (!a->u.strings.p)
                return room(r);
            for (size_t i = 0; i < ap->n_strings; i++) {
                const char *s = ox_arena_strndup(&g->arena, (const char *)ap->strings[i].data,
                                                 ap->strings[i].len);
                if (!s)
                    return room(r);
                a->u.strings.p[i] = s;
            }
            a->u.strings.n = ap->n_strings;
        }
        break;
    case OX_ATTR_TENSORS:
        if (ap->n_tensors) {
            a->u.tensors.p = ox_arena_alloc(&g->arena, ap->n_tensors * sizeof(ox_attr_tensor *));
            if (!a->u.tensors.p)
                return room(r);
            for (size_t i = 0; i < ap->n_tensors; i++)
                if (!(a->u.tensors.p[i] = attr_tensor(r, g, ap->tensors[i])))
                    return r->st;
            a->u.tensors.n = ap->n_tensors;
        }
        break;
    case OX_ATTR_GRAPHS:
        if (ap->n_graphs) {
            a->u.graphs.p = ox_arena_alloc(&g->arena, ap->n_graphs * sizeof(ox_graph *));
            if (!a->u.graphs.p)
                return room(r);
            for (size_t i = 0; i < ap->n_graphs; i++)
                if (!(a->u.graphs.p[i] = convert_graph(r, ap->graphs[i], depth + 1, false)))
                    return r->st;
            a->u.graphs.n = ap->n_graphs;
        }
        break;
    case OX_ATTR_TYPE_PROTO:
    case OX_ATTR_SPARSE_TENSOR: {
        const char *t = a->kind == OX_ATTR_TYPE_PROTO ? type_text_dup(r, g, ap->tp)
                                                      : sparse_text(r, g, ap->sparse_tensor);
        if (!t)
            return r->st;
        a->u.s.p = t;
        a->u.s.len = strlen(t);
        break;
    }
    case OX_ATTR_TYPE_PROTOS:
    case OX_ATTR_SPARSE_TENSORS: {
        size_t n = a->kind == OX_ATTR_TYPE_PROTOS ? ap->n_type_protos : ap->n_sparse_tensors;
        if (!n)
            break;
        a->u.strings.p = ox_arena_alloc(&g->arena, n * sizeof(char *));
        if (!a->u.strings.p)
            return room(r);
        for (size_t i = 0; i < n; i++) {
            const char *t = a->kind == OX_ATTR_TYPE_PROTOS ? type_text_dup(r, g, ap->type_protos[i])
                                                           : sparse_text(r, g, ap->sparse_tensors[i]);
            if (!t)
                return r->st;
            a->u.strings.p[i] = t;
        }
        a->u.strings.n = n;
        break;
    }
    }
    return OX_OK;
}

/* A value referred to by name that nothing defined (yet): kept unresolved so
 * ox_check can report it. */
static ox_vid lookup_or_dangling(rctx *r, ox_graph *g, namemap *m, const char *name)
{
    ox_vid id = namemap_get(m, name);
    if (id)
        return id;
    ox_value *v = ox_graph_add_value(g, OX_VAL_NODE, OX_UNDEFINED, -1, NULL);
    if (!v || !(v->name = adup(g, name)) || namemap_put(m, v->name, v->id) != 0) {
        room(r);
        return 0;
    }
    return v->id;
}

static int push_sub(read_keep *k, ox_graph *sub)
{
    if (k->n_subs == k->cap_subs) {
        size_t cap = k->cap_subs ? k->cap_subs * 2 : 8;
        ox_graph **n = realloc(k->subs, cap * sizeof(*n));
        if (!n)
            return -1;
        k->subs = n;
        k->cap_subs = cap;
    }
    k->subs[k->n_subs++] = sub;
    return 0;
}

/* Nodes into g, in order, resolving input names through m (a name no
 * earlier node or input defined stays dangling for ox_check). */
static ox_status convert_nodes(rctx *r, ox_graph *g, namemap *m, Onnx__NodeProto **nodes,
                               size_t n_nodes, int depth)
{
    ox_vid *ins = NULL;
    size_t cap_ins = 0;
    for (size_t ni = 0; ni < n_nodes; ni++) {
        Onnx__NodeProto *np = nodes[ni];
        if (np->n_input > UINT32_MAX || np->n_output > UINT32_MAX || np->n_attribute > UINT32_MAX) {
            rfail(r, OX_EFORMAT, "node %zu has too many inputs, outputs or attributes", ni);
            goto fail;
        }
        if (np->n_input > cap_ins) {
            free(ins);
            cap_ins = np->n_input;
            ins = malloc(cap_ins * sizeof(*ins));
            if (!ins) {
                cap_ins = 0;
                goto nomem;
            }
        }
        for (size_t i = 0; i < np->n_input; i++) {
            const char *nm = nz(np->input[i]);
            ins[i] = nm[0] ? lookup_or_dangling(r, g, m, nm) : 0;
            if (nm[0] && !ins[i]) {
                goto fail;
            }
        }
        const char *domain = nz(np->domain);
        if (strcmp(domain, "ai.onnx") == 0)
            domain = "";
        const char *op = nz(np->op_type);
        char *kind = ox_arena_printf(&g->arena, "%s::%s", domain[0] ? domain : "onnx", op);
        ox_node *n = kind ? ox_graph_add_node(g, kind, (uint32_t)np->n_input, ins, 0) : NULL;
        if (!n) {
            goto nomem;
        }
        /* set explicitly: a domain or op holding "::" would split wrongly */
        if (ox_node_set_kind(g, n, domain, op) != 0) {
            goto nomem;
        }
        n->name = np->name && np->name[0] ? adup(g, np->name) : NULL;
        if (np->doc_string && np->doc_string[0]) {
            n->doc = adup(g, np->doc_string);
            n->scope = n->doc;
        }
        if ((np->name && np->name[0] && !n->name) ||
            (np->doc_string && np->doc_string[0] && !n->doc)) {
            goto nomem;
        }
        if (np->n_output) {
            if (ox_node_set_outputs(g, n, (uint32_t)np->n_output, NULL) != 0) {
                goto nomem;
            }
            for (size_t i = 0; i < np->n_output; i++) {
                const char *nm = nz(np->output[i]);
                if (!nm[0])
                    continue; /* absent optional output */
                ox_value *v = ox_graph_value(g, namemap_get(m, nm));
                if (!v || v->kind != OX_VAL_NODE || v->producer) {
                    /* new name, or a second definition (kept: ox_check reports it) */
                    v = ox_graph_add_value(g, OX_VAL_NODE, OX_UNDEFINED, -1, NULL);
                    if (!v || !(v->name = adup(g, nm)) || namemap_put(m, v->name, v->id) != 0) {
                        goto nomem;
                    }
                }
                ox_node_set_output(g, n, (uint32_t)i, v->id);
            }
        }
        if (np->n_attribute) {
            n->attrs = ox_arena_alloc(&g->arena, np->n_attribute * sizeof(ox_attr));
            if (!n->attrs) {
                goto nomem;
            }
            n->n_attrs = (uint32_t)np->n_attribute;
            const char *label = n->name ? n->name : n->op_type;
            for (size_t i = 0; i < np->n_attribute; i++)
                if (convert_attr(r, g, label, np->attribute[i], &n->attrs[i], depth) != OX_OK) {
                    goto fail;
                }
        }
    }
    free(ins);
    return OX_OK;
nomem:
    room(r);
fail:
    free(ins);
    return r->st;
}

/* GraphProto.sparse_initializer: each a value named after its values
 * tensor, typed "SparseTensor(Float(3, 4))", and an entry of g->sparse with
 * the tensors as the file holds them.  What a reader needs is required here
 * (a values tensor; tensors it can decode); ONNX's rules on the shapes and
 * the indices are ox_check's. */
static ox_status read_sparse_initializers(rctx *r, ox_graph *g, namemap *m,
                                          Onnx__SparseTensorProto **sps, size_t n)
{
    if (n > UINT32_MAX)
        return rfail(r, OX_EFORMAT, "graph '%s' has %zu sparse initializers", nz(g->name), n);
    g->sparse = ox_arena_alloc(&g->arena, n * sizeof(*g->sparse));
    if (!g->sparse)
        return room(r);
    memset(g->sparse, 0, n * sizeof(*g->sparse));
    for (size_t i = 0; i < n; i++) {
        Onnx__SparseTensorProto *sp = sps[i];
        ox_sparse_param *s = &g->sparse[i];
        if (!sp->values)
            return rfail(r, OX_EFORMAT, "sparse initializer #%zu has no values tensor (its name, "
                         "element type and values)", i);
        const char *name = nz(sp->values->name);
        if (sp->n_dims > INT32_MAX)
            return rfail(r, OX_EFORMAT, "sparse initializer '%s' has %zu dimensions", name,
                         sp->n_dims);
        if (!(s->values = read_attr_tensor(r, g, sp->values, "sparse initializer values")))
            return r->st;
        if (sp->indices &&
            !(s->indices = read_attr_tensor(r, g, sp->indices, "sparse initializer indices")))
            return r->st;
        s->rank = (uint32_t)sp->n_dims;
        if (sp->n_dims && !(s->dims = ox_arena_memdup(&g->arena, sp->dims,
                                                      sp->n_dims * sizeof(int64_t))))
            return room(r);
        /* the value's type, as the reader spells a sparse_tensor_type */
        char buf[512];
        size_t k = (size_t)snprintf(buf, sizeof buf, "SparseTensor(%s(",
                                    ox_dtype_torch_name(s->values->dtype));
        for (size_t d = 0; d < sp->n_dims && k < sizeof buf; d++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", d ? ", " : "",
                                  (long long)sp->dims[d]);
        if (k < sizeof buf)
            snprintf(buf + k, sizeof buf - k, "))");
        if (k >= sizeof buf - 2)
            memcpy(buf + sizeof buf - 4, "...", 4);
        ox_value *v = ox_graph_add_value(g, OX_VAL_PARAM, OX_UNDEFINED, -1, NULL);
        if (!v || !(v->type.nontensor = adup(g, buf)) || !(v->name = adup(g, name)))
            return room(r);
        s->id = v->id;
        g->n_sparse = (uint32_t)i + 1;
        /* a name already defined keeps its first definition (namemap_put);
         * ox_check reports the second */
        if (name[0] && namemap_put(m, v->name, v->id) != 0)
            return room(r);
    }
    return OX_OK;
}

static ox_graph *convert_graph(rctx *r, Onnx__GraphProto *gp, int depth, bool main_graph)
{
    if (depth > OX_READ_MAX_DEPTH) {
        rfail(r, OX_EFORMAT, "subgraphs nested deeper than %d levels", OX_READ_MAX_DEPTH);
        return NULL;
    }
    namemap m = {0};
    ox_graph *g = ox_graph_new(nz(gp->name));
    if (!g) {
        room(r);
        return NULL;
    }
    if (!main_graph && push_sub(r->keep, g) != 0) {
        ox_graph_free(g);
        room(r);
        return NULL;
    }
    g->is_onnx = true;
    if (gp->doc_string && gp->doc_string[0] && !(g->doc = adup(g, gp->doc_string)))
        goto nomem;
    if (ox_strmap_init(&m, gp->n_initializer + gp->n_input + gp->n_node * 2) != 0)
        goto nomem;

    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *t = gp->initializer[i];
        ox_dtype dt;
        int64_t *dims;
        uint32_t rank;
        ox_tensor_data data;
        const ox_tensor_source *source = NULL;
        defer_to defer = {&source, OX_INLINE_KEPT};
        if (main_graph && r->inline_w && i < r->inline_w->n &&
            r->inline_w->offset[i] != OX_INLINE_KEPT) {
            /* decoded without its raw_data: the field as the file has it */
            defer.inline_at = r->inline_w->offset[i];
            t->has_raw_data = 1;
            t->raw_data.len = (size_t)r->inline_w->length[i];
            t->raw_data.data = NULL;
        }
        if (read_tensor(r, g, t, "initializer", &dt, &dims, &rank, &data, &defer) != OX_OK)
            goto fail;
        ox_value *v = ox_graph_add_value(g, OX_VAL_PARAM, dt, (int32_t)rank, dims);
        if (!v) {
            free_owned(data.nbytes, (void *)data.data);
            goto nomem;
        }
        v->tensor = data;
        v->source = source;
        if (!(v->name = adup(g, t->name)) || ox_graph_add_param(g, v->id) != 0 ||
            namemap_put(&m, v->name, v->id) != 0)
            goto nomem;
    }
    if (gp->n_sparse_initializer &&
        read_sparse_initializers(r, g, &m, gp->sparse_initializer, gp->n_sparse_initializer) != OX_OK)
        goto fail;
    for (size_t i = 0; i < gp->n_input; i++) {
        Onnx__ValueInfoProto *vi = gp->input[i];
        ox_vid id = namemap_get(&m, nz(vi->name));
        ox_value *pv = ox_graph_value(g, id);
        if (pv && pv->kind == OX_VAL_PARAM) {
            /* an initializer also listed as input (IR <= 3 layout) */
            if (main_graph)
                pv->listed_as_input = true; /* the main graph's inputs stay the real ones */
            else if (ox_graph_add_input(g, id) != 0)
                goto nomem;
            continue;
        }
        ox_value *v = ox_graph_add_value(g, OX_VAL_INPUT, OX_UNDEFINED, -1, NULL);
        if (!v || !(v->name = adup(g, vi->name)))
            goto nomem;
        if (vi->doc_string && vi->doc_string[0] && !(v->doc = adup(g, vi->doc_string)))
            goto nomem;
        if (apply_type(r, g, v, vi->type) != OX_OK)
            goto fail;
        if (ox_graph_add_input(g, v->id) != 0 || namemap_put(&m, v->name, v->id) != 0)
            goto nomem;
    }

    if (convert_nodes(r, g, &m, gp->node, gp->n_node, depth) != OX_OK)
        goto fail;

    for (size_t i = 0; i < gp->n_output; i++) {
        Onnx__ValueInfoProto *vi = gp->output[i];
        ox_vid id = lookup_or_dangling(r, g, &m, nz(vi->name));
        if (!id)
            goto fail;
        ox_value *v = g->values[id];
        if (v->kind == OX_VAL_NODE && apply_type(r, g, v, vi->type) != OX_OK)
            goto fail;
        if (vi->doc_string && vi->doc_string[0] && !v->doc && !(v->doc = adup(g, vi->doc_string)))
            goto nomem;
        if (ox_graph_add_output(g, id) != 0)
            goto nomem;
    }
    for (size_t i = 0; i < gp->n_value_info; i++) {
        Onnx__ValueInfoProto *vi = gp->value_info[i];
        ox_value *v = ox_graph_value(g, namemap_get(&m, nz(vi->name)));
        if (v && v->kind == OX_VAL_NODE && apply_type(r, g, v, vi->type) != OX_OK)
            goto fail;
    }
    ox_strmap_free(&m);
    return g;

nomem:
    room(r);
fail:
    ox_strmap_free(&m);
    if (main_graph)
        ox_graph_free(g);
    return NULL; /* subgraphs are freed with the keep list */
}

/* A FunctionProto into a function of g: its inputs become the body's graph
 * inputs, its outputs the body's outputs (an output no node produces stays
 * dangling for ox_check); its opset_import is the body's. */
static ox_status convert_function(rctx *r, ox_graph *g, size_t index, Onnx__FunctionProto *fp)
{
    ox_function *f = ox_graph_add_function(g, nz(fp->domain), nz(fp->name));
    if (!f)
        return room(r);
    ox_graph *b = f->body;
    namemap m = {0};
    if (fp->doc_string && fp->doc_string[0] && !(f->doc = adup(g, fp->doc_string)))
        goto nomem;
    if (fp->n_attribute) {
        if (fp->n_attribute > UINT32_MAX) {
            rfail(r, OX_EFORMAT, "function #%zu ('%s') has too many attributes", index,
                  nz(fp->name));
            goto fail;
        }
        f->attributes = ox_arena_alloc(&g->arena, fp->n_attribute * sizeof(char *));
        if (!f->attributes)
            goto nomem;
        for (size_t i = 0; i < fp->n_attribute; i++)
            if (!(f->attributes[i] = adup(g, nz(fp->attribute[i]))))
                goto nomem;
        f->n_attributes = (uint32_t)fp->n_attribute;
    }
    for (size_t i = 0; i < fp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = fp->opset_import[i];
        if (ox_graph_set_opset(b, nz(op->domain), op->has_version ? op->version : 0) != 0)
            goto nomem;
    }
    if (ox_strmap_init(&m, fp->n_input + fp->n_node * 2) != 0)
        goto nomem;
    for (size_t i = 0; i < fp->n_input; i++) {
        ox_value *v = ox_graph_add_value(b, OX_VAL_INPUT, OX_UNDEFINED, -1, NULL);
        if (!v || !(v->name = adup(b, nz(fp->input[i]))) || ox_graph_add_input(b, v->id) != 0 ||
            namemap_put(&m, v->name, v->id) != 0)
            goto nomem;
    }
    if (convert_nodes(r, b, &m, fp->node, fp->n_node, 1) != OX_OK)
        goto fail;
    for (size_t i = 0; i < fp->n_output; i++) {
        ox_vid id = lookup_or_dangling(r, b, &m, nz(fp->output[i]));
        if (!id)
            goto fail;
        if (ox_graph_add_output(b, id) != 0)
            goto nomem;
    }
    ox_strmap_free(&m);
    return OX_OK;
nomem:
    room(r);
fail:
    ox_strmap_free(&m);
    return r->st; /* the body is freed with g */
}

/* The model at data[0..len).  model_fd: the file it was mapped from, or -1
 * (memory, a pipe): from a file, the large raw_data of the initializers
 * stays in it (onnx_inline_weights.h). */
static ox_status read_wire(ox_context *ctx, const void *data, size_t len, const char *name,
                           const char *base_dir, int model_fd, ox_graph **out)
{
    rctx r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.file = name ? name : "(memory)";
    r.base_dir = base_dir;
    r.model_fd = -1;
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_read: out is NULL");
    *out = NULL;
    if (len == 0)
        return rfail(&r, OX_EFORMAT, "the file is empty");
    if (!data)
        return ox_fail(ctx, OX_EINVAL, "ox_read: data is NULL");
    size_t bad_at = 0;
    const char *why = wire_scan(&onnx__model_proto__descriptor, data, len, 0, 0, &bad_at);
    if (why)
        return rfail(&r, OX_EFORMAT, "%s at byte %zu of %zu", why, bad_at, len);
    /* Leaving weights in the file is a saving, never a need: when the strip
     * or the descriptor's copy fails, they are read as from memory. */
    ox_inline_weights iw;
    memset(&iw, 0, sizeof iw);
    if (model_fd >= 0 && ox_inline_weights_strip(data, len, OX_IR_MALLOC_THRESHOLD, &iw) == 0 &&
        iw.wire) {
        r.model_fd = fcntl(model_fd, F_DUPFD_CLOEXEC, 0);
        if (r.model_fd >= 0)
            r.inline_w = &iw;
    }
    if (!r.inline_w)
        ox_inline_weights_free(&iw);
    bool alloc_failed = false;
    ProtobufCAllocator decoding = {pb_alloc, pb_free, &alloc_failed};
    Onnx__ModelProto *mp = r.inline_w ? onnx__model_proto__unpack(&decoding, iw.wire_len, iw.wire)
                                      : onnx__model_proto__unpack(&decoding, len, data);
    ox_graph *g = NULL;
    if (!mp) {
        if (alloc_failed)
            rfail(&r, OX_ENOMEM, "out of memory decoding the model (%zu bytes)", len);
        else
            rfail(&r, OX_EFORMAT, "protobuf decoding failed (wrong field types for ModelProto: "
                  "truncated or not an ONNX file)");
        goto done;
    }
    if (!mp->graph) {
        rfail(&r, OX_EFORMAT, "it has no graph");
        goto done;
    }
    r.keep = calloc(1, sizeof(*r.keep));
    if (!r.keep) {
        room(&r);
        goto done;
    }
    r.keep->model_fd = r.model_fd; /* closed with the graph from here on */
    g = convert_graph(&r, mp->graph, 0, true);
    if (!g) {
        keep_free(r.keep, 0);
        goto done;
    }
    g->mapping = r.keep;
    g->mapping_len = 0;
    g->mapping_free = keep_free;
    g->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    if ((mp->producer_name && !(g->producer_name = adup(g, mp->producer_name))) ||
        (mp->producer_version && !(g->producer_version = adup(g, mp->producer_version))))
        goto nomem;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = mp->opset_import[i];
        if (ox_graph_set_opset(g, nz(op->domain), op->has_version ? op->version : 0) != 0)
            goto nomem;
    }
    for (size_t i = 0; i < mp->n_functions; i++)
        if (convert_function(&r, g, i, mp->functions[i]) != OX_OK)
            goto drop;
    *out = g;
    g = NULL;
    goto done;
nomem:
    room(&r);
drop:
    ox_graph_free(g); /* closes the kept descriptor with the keep */
done:
    if (mp)
        onnx__model_proto__free_unpacked(mp, &pb_allocator);
    if (!r.keep && r.model_fd >= 0)
        close(r.model_fd);
    ox_inline_weights_free(&iw);
    return *out ? OX_OK : r.st;
}

ox_status ox_read_memory(ox_context *ctx, const void *data, size_t len, const char *name,
                         const char *base_dir, ox_graph **out)
{
    return read_wire(ctx, data, len, name, base_dir, -1, out);
}

/* Protobuf's own cap on a message: more from a pipe cannot be a model. */
#define OX_READ_STREAM_MAX ((size_t)2 << 30)

/* Everything a pipe or FIFO delivers (`oxport dump /dev/stdin`, `<(...)`),
 * in a malloc'd buffer; NULL with *err set (0: past OX_READ_STREAM_MAX). */
static void *slurp_stream(int fd, size_t *len, int *err)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    *err = ENOMEM;
    while (buf) {
        if (n == cap) {
            if (cap >= OX_READ_STREAM_MAX) {
                *err = 0;
                break;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got == 0) {
            *len = n;
            return buf;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *err = errno;
            break;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}

ox_status ox_read(ox_context *ctx, const char *path, ox_graph **out)
{
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_read: out is NULL");
    *out = NULL;
    if (!path || !path[0])
        return ox_fail(ctx, OX_EINVAL, "ox_read: path is %s", path ? "empty" : "NULL");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return ox_fail(ctx, OX_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ox_fail(ctx, OX_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return ox_fail(ctx, OX_EIO, "%s: cannot read: it is a directory; give the path of an "
                       ".onnx file", path);
    }
    bool stream = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    if (!S_ISREG(st.st_mode) && !stream) {
        close(fd);
        return ox_fail(ctx, OX_EIO, "%s: cannot read: not a regular file or a pipe; give the path "
                       "of an .onnx file", path);
    }
    char *dir;
    const char *slash = strrchr(path, '/');
    dir = !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
    if (!dir) {
        close(fd);
        return ox_fail(ctx, OX_ENOMEM, "%s: out of memory", path);
    }
    size_t len = (size_t)st.st_size;
    void *map = NULL;
    if (stream) {
        int e;
        void *data = slurp_stream(fd, &len, &e);
        close(fd);
        ox_status s = !data && !e
            ? ox_fail(ctx, OX_EFORMAT, "%s: not an ONNX model: the stream holds more than "
                      "protobuf's 2 GiB limit", path)
            : !data ? ox_fail(ctx, e == ENOMEM ? OX_ENOMEM : OX_EIO, "%s: cannot read: %s",
                              path, strerror(e))
                    : ox_read_memory(ctx, data, len, path, dir, out);
        free(data);
        free(dir);
        return s;
    }
    if (len) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            free(dir);
            return ox_fail(ctx, OX_EIO, "%s: cannot map the file: %s", path, strerror(e));
        }
    }
    ox_status s = read_wire(ctx, map, len, path, dir, fd, out);
    close(fd);
    if (map)
        munmap(map, len);
    free(dir);
    return s;
}
