/*
 * Writing and binding safetensors-layout weights files (weights_file.h).
 * The JSON reader understands exactly the header this layout has: one
 * object of tensor entries (string keys, objects of dtype / shape /
 * data_offsets) and an optional "__metadata__" object of strings.
 */
#include "weights_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILL_CHUNK ((int64_t)1 << 20) /* elements generated at a time */
#define MAX_HEADER ((uint64_t)256 << 20)

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

uint16_t hc_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));
    if (mag >= 0x477ff000u) /* rounds past 65504 */
        return (uint16_t)(sign | 0x7c00u);
    if (mag < 0x38800000u) { /* below the smallest normal half: subnormal or 0 */
        if (mag < 0x33000000u)
            return sign;
        uint32_t e = mag >> 23, m = (mag & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - e; /* 14..24 */
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((mag >> 13) - (112u << 10));
    uint32_t rem = mag & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

static const char *dtype_tag(ox_dtype dt)
{
    return dt == OX_FLOAT16 ? "F16" : dt == OX_FLOAT ? "F32" : NULL;
}

/* ------------------------------------------------------------------- save */

static int write_header(FILE *f, const hc_model *m, size_t es)
{
    /* measured, then written: the length comes first */
    size_t cap = 256 + m->n_params * 160, len = 0;
    for (size_t i = 0; i < m->n_params; i++)
        cap += strlen(m->params[i]->name);
    char *h = malloc(cap);
    if (!h)
        return -1;
    uint64_t off = 0;
    len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (size_t i = 0; i < m->n_params && len < cap; i++) {
        const hc_param *p = m->params[i];
        uint64_t nb = (uint64_t)hc_numel(&p->t) * es;
        len += (size_t)snprintf(h + len, cap - len, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[",
                                p->name, es == 2 ? "F16" : "F32");
        for (uint32_t d = 0; d < p->t.rank && len < cap; d++)
            len += (size_t)snprintf(h + len, cap - len, "%s%lld", d ? "," : "",
                                    (long long)p->t.sizes[d]);
        if (len < cap)
            len += (size_t)snprintf(h + len, cap - len, "],\"data_offsets\":[%llu,%llu]}",
                                    (unsigned long long)off, (unsigned long long)(off + nb));
        off += nb;
    }
    if (len + 1 >= cap) {
        free(h);
        return -1;
    }
    h[len++] = '}';
    while (len % 8) /* the data starts 8-aligned, as safetensors pads it */
        h[len++] = ' ';
    unsigned char n8[8];
    for (int i = 0; i < 8; i++)
        n8[i] = (unsigned char)((uint64_t)len >> (8 * i));
    int rc = fwrite(n8, 1, 8, f) == 8 && fwrite(h, 1, len, f) == len ? 0 : -1;
    free(h);
    return rc;
}

int hc_weights_save(const hc_model *m, const char *path, ox_dtype dtype, char *err, size_t n_err)
{
    if (!dtype_tag(dtype)) {
        say(err, n_err, "weights file: dtype must be float32 or float16");
        return -1;
    }
    size_t es = dtype == OX_FLOAT16 ? 2 : 4;
    FILE *f = fopen(path, "wb");
    if (!f) {
        say(err, n_err, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    float *vals = malloc((size_t)FILL_CHUNK * sizeof *vals);
    uint16_t *half = malloc((size_t)FILL_CHUNK * sizeof *half);
    int ok = vals && half && write_header(f, m, es) == 0;
    for (size_t i = 0; ok && i < m->n_params; i++) {
        const hc_param *p = m->params[i];
        int64_t n = hc_numel(&p->t);
        for (int64_t at = 0; ok && at < n; at += FILL_CHUNK) {
            int64_t k = n - at < FILL_CHUNK ? n - at : FILL_CHUNK;
            hc_param_fill(m, p, at, k, vals);
            if (es == 2) {
                for (int64_t j = 0; j < k; j++)
                    half[j] = hc_f32_to_f16(vals[j]);
                ok = fwrite(half, 2, (size_t)k, f) == (size_t)k;
            } else {
                ok = fwrite(vals, 4, (size_t)k, f) == (size_t)k;
            }
        }
    }
    int e = errno;
    free(vals);
    free(half);
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        say(err, n_err, "cannot write %s: %s", path, strerror(e ? e : ENOMEM));
        unlink(path);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------- bind */

typedef struct entry {
    char name[256];
    char dtype[8];
    int64_t shape[HC_MAX_RANK];
    int rank;
    int64_t offsets[2];
    int n_offsets;
    int used;
} entry;

typedef struct reader {
    const char *s, *end;
    const char *why; /* first syntax problem */
} reader;

static void ws(reader *r)
{
    while (r->s < r->end && (*r->s == ' ' || *r->s == '\n' || *r->s == '\t' || *r->s == '\r'))
        r->s++;
}

static int expect(reader *r, char c)
{
    ws(r);
    if (r->s < r->end && *r->s == c) {
        r->s++;
        return 0;
    }
    if (!r->why)
        r->why = "unexpected character";
    return -1;
}

static int peek(reader *r, char c)
{
    ws(r);
    return r->s < r->end && *r->s == c;
}

/* A string without escapes other than \" and \\ (names never need more). */
static int string(reader *r, char *out, size_t cap)
{
    if (expect(r, '"'))
        return -1;
    size_t n = 0;
    while (r->s < r->end && *r->s != '"') {
        char c = *r->s++;
        if (c == '\\') {
            if (r->s >= r->end || (*r->s != '"' && *r->s != '\\' && *r->s != '/')) {
                r->why = "unsupported escape in a string";
                return -1;
            }
            c = *r->s++;
        }
        if (n + 1 >= cap) {
            r->why = "string too long";
            return -1;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return expect(r, '"');
}

static int integers(reader *r, int64_t *out, int max, int *n)
{
    *n = 0;
    if (expect(r, '['))
        return -1;
    if (peek(r, ']'))
        return expect(r, ']');
    do {
        ws(r);
        char *end;
        errno = 0;
        long long v = strtoll(r->s, &end, 10);
        if (end == r->s || errno || v < 0 || *n >= max) {
            r->why = "bad integer list";
            return -1;
        }
        r->s = end;
        out[(*n)++] = v;
    } while (peek(r, ',') && !expect(r, ','));
    return expect(r, ']');
}

/* "__metadata__": an object of strings. */
static int skip_metadata(reader *r)
{
    char buf[4096];
    if (expect(r, '{'))
        return -1;
    if (peek(r, '}'))
        return expect(r, '}');
    do {
        if (string(r, buf, sizeof buf) || expect(r, ':') || string(r, buf, sizeof buf))
            return -1;
    } while (peek(r, ',') && !expect(r, ','));
    return expect(r, '}');
}

static int read_entry(reader *r, entry *e)
{
    char key[64];
    if (expect(r, '{'))
        return -1;
    do {
        if (string(r, key, sizeof key) || expect(r, ':'))
            return -1;
        if (!strcmp(key, "dtype")) {
            if (string(r, e->dtype, sizeof e->dtype))
                return -1;
        } else if (!strcmp(key, "shape")) {
            if (integers(r, e->shape, HC_MAX_RANK, &e->rank))
                return -1;
        } else if (!strcmp(key, "data_offsets")) {
            if (integers(r, e->offsets, 2, &e->n_offsets))
                return -1;
        } else {
            r->why = "unknown key in a tensor entry";
            return -1;
        }
    } while (peek(r, ',') && !expect(r, ','));
    if (e->n_offsets != 2 || !e->dtype[0]) {
        r->why = "a tensor entry lacks dtype or data_offsets";
        return -1;
    }
    return expect(r, '}');
}

static entry *read_entries(reader *r, size_t *n_out)
{
    size_t n = 0, cap = 64;
    entry *es = calloc(cap, sizeof *es);
    char name[256];
    if (!es || expect(r, '{'))
        goto fail;
    if (peek(r, '}'))
        goto done;
    do {
        if (string(r, name, sizeof name) || expect(r, ':'))
            goto fail;
        if (!strcmp(name, "__metadata__")) {
            if (skip_metadata(r))
                goto fail;
            continue;
        }
        if (n == cap) {
            entry *more = realloc(es, 2 * cap * sizeof *es);
            if (!more)
                goto fail;
            es = more;
            memset(es + cap, 0, cap * sizeof *es);
            cap *= 2;
        }
        strcpy(es[n].name, name);
        if (read_entry(r, &es[n]))
            goto fail;
        n++;
    } while (peek(r, ',') && !expect(r, ','));
done:
    if (expect(r, '}'))
        goto fail;
    *n_out = n;
    return es;
fail:
    free(es);
    return NULL;
}

int hc_weights_bind(hc_model *m, const char *path, char *err, size_t n_err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(err, n_err, "cannot open weights file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat fst;
    if (fstat(fileno(f), &fst) == 0 && !S_ISREG(fst.st_mode)) {
        say(err, n_err, "%s: not a regular file; give a weights file (--save-weights makes one)",
            path);
        fclose(f);
        return -1;
    }
    unsigned char n8[8];
    uint64_t hlen = 0;
    int rc = -1;
    char *h = NULL;
    entry *es = NULL;
    size_t n_es = 0;
    if (fread(n8, 1, 8, f) != 8) {
        say(err, n_err, "%s: too short for a weights file (no header length)", path);
        goto out;
    }
    for (int i = 0; i < 8; i++)
        hlen |= (uint64_t)n8[i] << (8 * i);
    if (hlen == 0 || hlen > MAX_HEADER) {
        say(err, n_err, "%s: header length %llu is not that of a weights file", path,
            (unsigned long long)hlen);
        goto out;
    }
    h = malloc((size_t)hlen);
    if (!h || fread(h, 1, (size_t)hlen, f) != hlen) {
        say(err, n_err, "%s: cannot read its %llu-byte header", path, (unsigned long long)hlen);
        goto out;
    }
    reader r = {h, h + hlen, NULL};
    es = read_entries(&r, &n_es);
    if (!es) {
        say(err, n_err, "%s: malformed header near byte %zu: %s", path,
            (size_t)(r.s - h) + 8, r.why ? r.why : "out of memory");
        goto out;
    }
    free(m->weights_file);
    if (!(m->weights_file = strdup(path)))
        goto out;
    for (size_t i = 0; i < m->n_params; i++) {
        hc_param *p = m->params[i];
        entry *e = NULL;
        for (size_t k = 0; k < n_es && !e; k++)
            if (!es[k].used && !strcmp(es[k].name, p->name))
                e = &es[k];
        if (!e) {
            say(err, n_err, "%s holds no tensor '%s', which the model has", path, p->name);
            goto out;
        }
        e->used = 1;
        ox_dtype dt = !strcmp(e->dtype, "F16") ? OX_FLOAT16 : !strcmp(e->dtype, "F32") ? OX_FLOAT
                                                                                       : OX_UNDEFINED;
        if (dt == OX_UNDEFINED) {
            say(err, n_err, "%s: tensor '%s' has dtype %s; the host reads F32 and F16", path,
                p->name, e->dtype);
            goto out;
        }
        int same = (uint32_t)e->rank == p->t.rank;
        for (int d = 0; same && d < e->rank; d++)
            same = e->shape[d] == p->t.sizes[d];
        if (!same) {
            say(err, n_err, "%s: tensor '%s' has another shape than the model's (rank %d vs %u); "
                "was the file made for another configuration?", path, p->name, e->rank,
                p->t.rank);
            goto out;
        }
        uint64_t want = (uint64_t)hc_numel(&p->t) * (dt == OX_FLOAT16 ? 2 : 4);
        if (e->offsets[1] < e->offsets[0] || (uint64_t)(e->offsets[1] - e->offsets[0]) != want) {
            say(err, n_err, "%s: tensor '%s' spans bytes %lld..%lld but its shape needs %llu",
                path, p->name, (long long)e->offsets[0], (long long)e->offsets[1],
                (unsigned long long)want);
            goto out;
        }
        p->t.dtype = dt;
        p->file = m->weights_file;
        p->file_offset = 8 + hlen + (uint64_t)e->offsets[0];
    }
    for (size_t k = 0; k < n_es; k++)
        if (!es[k].used) {
            say(err, n_err, "%s holds tensor '%s', which the model does not have", path,
                es[k].name);
            goto out;
        }
    rc = 0;
out:
    if (rc != 0)
        for (size_t i = 0; i < m->n_params; i++)
            m->params[i]->file = NULL;
    free(es);
    free(h);
    fclose(f);
    return rc;
}
