/*
 * Replays recorded traces (tests/ops/capture.py's format) through the public
 * tracer API, as a C host would record them, and exports each at its opset:
 * the operator table's C route.  The packs then see exactly the calls the
 * PyTorch host makes, without the Python host in between.
 *
 *   replay_trace [--plugin-path DIR]... JOBS RESULTS
 *
 * JOBS: one job per line, "TRACE BYTES OPSET OUT.onnx".  RESULTS gets one
 * line per job, in order: "ok", or "refused MESSAGE" (the engine's message,
 * its newlines written as " | "), or "bad-trace MESSAGE" (the trace file
 * itself is malformed: a bug of the capture, never of the packs).  Exit
 * status: 0 when every job ran, 2 for a usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"

#define MAX_WORDS 4096
#define MAX_IDS 65536
#define MAX_ARGS 64

typedef struct replay {
    ox_context *ctx;
    ox_trace *t;
    FILE *in;
    const char *path;
    unsigned char *bytes;
    size_t n_bytes;
    int line_no;
    char line[1 << 16];
    char *words[MAX_WORDS];
    int n_words;
    ox_vid ids[MAX_IDS]; /* capture id -> engine vid */
    char err[1024];
    int refused; /* err is the engine refusing a call, not a malformed file */
} replay;

static int bad(replay *r, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->err, sizeof r->err, "%s:%d: ", r->path, r->line_no);
    va_start(ap, fmt);
    vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads the next line into words; 0 at end of file. */
static int next_line(replay *r)
{
    if (!fgets(r->line, sizeof r->line, r->in))
        return 0;
    r->line_no++;
    r->line[strcspn(r->line, "\n")] = '\0';
    r->n_words = 0;
    for (char *p = strtok(r->line, " "); p && r->n_words < MAX_WORDS; p = strtok(NULL, " "))
        r->words[r->n_words++] = p;
    return 1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "=name" (with %XX escapes) decoded in place, "-" -> NULL. */
static int decode_name(replay *r, char *w, char **out)
{
    if (strcmp(w, "-") == 0) {
        *out = NULL;
        return 0;
    }
    if (w[0] != '=')
        return bad(r, "a name is written '=name' or '-', not '%s'", w);
    char *o = w;
    for (const char *p = w + 1; *p; p++) {
        if (*p == '%') {
            int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
            if (lo < 0)
                return bad(r, "bad %%XX escape in '%s'", w);
            *o++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    *out = w;
    return 0;
}

static int word_i64(replay *r, int i, int64_t *v)
{
    if (i >= r->n_words)
        return bad(r, "missing field %d", i);
    char *end;
    errno = 0;
    long long x = strtoll(r->words[i], &end, 10);
    if (errno || *end)
        return bad(r, "field %d: '%s' is not an integer", i, r->words[i]);
    *v = x;
    return 0;
}

static int word_f64(replay *r, int i, double *v)
{
    if (i >= r->n_words)
        return bad(r, "missing field %d", i);
    char *end;
    *v = strtod(r->words[i], &end);
    if (*end)
        return bad(r, "field %d: '%s' is not a number", i, r->words[i]);
    return 0;
}

/* A capture id at field i, mapped to its engine vid (0 stays None). */
static int word_id(replay *r, int i, ox_vid *v)
{
    int64_t id;
    if (word_i64(r, i, &id))
        return -1;
    if (id < 0 || id >= MAX_IDS || (id && !r->ids[id]))
        return bad(r, "value id %lld was never defined", (long long)id);
    *v = r->ids[id];
    return 0;
}

static int new_id(replay *r, int i, int64_t *id)
{
    if (word_i64(r, i, id))
        return -1;
    if (*id <= 0 || *id >= MAX_IDS || r->ids[*id])
        return bad(r, "value id %lld is out of range or defined twice", (long long)*id);
    return 0;
}

/* "DTYPE RANK DIMS..." from field i; *next is the field after the dims. */
static int word_type(replay *r, int i, int64_t *dtype, uint32_t *rank, int64_t *dims, int *next)
{
    int64_t rk;
    if (word_i64(r, i, dtype) || word_i64(r, i + 1, &rk))
        return -1;
    if (rk < 0 || rk > 64)
        return bad(r, "rank %lld", (long long)rk);
    for (int d = 0; d < rk; d++)
        if (word_i64(r, i + 2 + d, &dims[d]))
            return -1;
    *rank = (uint32_t)rk;
    *next = i + 2 + (int)rk;
    return 0;
}

static int engine(replay *r, ox_status st, const char *call)
{
    if (st == OX_OK)
        return 0;
    r->refused = 1;
    return bad(r, "%s: %s", call, ox_errmsg(r->ctx));
}

/* The tensor bytes at "OFFSET NBYTES" from field i. */
static int word_bytes(replay *r, int i, const void **data)
{
    int64_t off, n;
    if (word_i64(r, i, &off) || word_i64(r, i + 1, &n))
        return -1;
    if (off < 0 || n < 0 || (size_t)(off + n) > r->n_bytes)
        return bad(r, "bytes %lld+%lld are past the end of the bytes file (%zu)", (long long)off,
                   (long long)n, r->n_bytes);
    *data = r->bytes + off;
    return 0;
}

/* One "op" line and the out/arg lines after it. */
static int replay_op(replay *r)
{
    int64_t n_args, n_out;
    char *kind;
    if (decode_name(r, r->words[1], &kind) || !kind || word_i64(r, 2, &n_args) ||
        word_i64(r, 3, &n_out))
        return -1;
    if (n_args < 0 || n_args > MAX_ARGS || n_out < 0 || n_out > MAX_ARGS)
        return bad(r, "op with %lld arguments and %lld outputs", (long long)n_args, (long long)n_out);
    char kind_buf[256];
    snprintf(kind_buf, sizeof kind_buf, "%s", kind);

    ox_tensor_desc descs[MAX_ARGS];
    int64_t out_ids[MAX_ARGS], dims[MAX_ARGS][64], dtype;
    for (int o = 0; o < n_out; o++) {
        int next;
        if (!next_line(r) || r->n_words < 1 || strcmp(r->words[0], "out") != 0)
            return bad(r, "%s: expected %lld 'out' lines", kind_buf, (long long)n_out);
        if (new_id(r, 1, &out_ids[o]) || word_type(r, 2, &dtype, &descs[o].rank, dims[o], &next))
            return -1;
        descs[o].dtype = (ox_dtype)dtype;
        descs[o].sizes = dims[o];
    }

    /* Argument storage lives until ox_trace_op returns. */
    ox_arg args[MAX_ARGS];
    char names[MAX_ARGS][128], strings[MAX_ARGS][256];
    int64_t *ints[MAX_ARGS] = {0};
    double *floats[MAX_ARGS] = {0};
    ox_vid *vids[MAX_ARGS] = {0};
    int rc = 0;
    for (int a = 0; a < n_args && rc == 0; a++) {
        char *nm, *kw;
        if (!next_line(r) || r->n_words < 3 || strcmp(r->words[0], "arg") != 0) {
            rc = bad(r, "%s: expected %lld 'arg' lines", kind_buf, (long long)n_args);
            break;
        }
        if (decode_name(r, r->words[1], &nm) || !nm) {
            rc = -1;
            break;
        }
        snprintf(names[a], sizeof names[a], "%s", nm);
        kw = r->words[2];
        int64_t v = 0, n = 0;
        double f = 0;
        ox_vid id = 0;
        if (strcmp(kw, "none") == 0) {
            args[a] = ox_arg_none(names[a]);
        } else if (strcmp(kw, "tensor") == 0) {
            rc = word_id(r, 3, &id);
            args[a] = ox_arg_tensor(names[a], id);
        } else if (strcmp(kw, "int") == 0 || strcmp(kw, "bool") == 0 || strcmp(kw, "dtype") == 0) {
            rc = word_i64(r, 3, &v);
            args[a] = kw[0] == 'i' ? ox_arg_int(names[a], v)
                      : kw[0] == 'b' ? ox_arg_bool(names[a], (int)v)
                                     : ox_arg_dtype(names[a], (ox_dtype)v);
        } else if (strcmp(kw, "float") == 0) {
            rc = word_f64(r, 3, &f);
            args[a] = ox_arg_float(names[a], f);
        } else if (strcmp(kw, "string") == 0) {
            char *s = NULL;
            rc = r->n_words > 3 ? decode_name(r, r->words[3], &s) : bad(r, "string argument without a value");
            if (rc == 0 && !s)
                rc = bad(r, "a string argument cannot be '-'");
            if (rc == 0) {
                snprintf(strings[a], sizeof strings[a], "%s", s);
                args[a] = ox_arg_string(names[a], strings[a]);
            }
        } else if (strcmp(kw, "ints") == 0 || strcmp(kw, "floats") == 0 || strcmp(kw, "tensors") == 0) {
            rc = word_i64(r, 3, &n);
            if (rc == 0 && (n < 0 || n > MAX_WORDS - 4))
                rc = bad(r, "list of %lld", (long long)n);
            size_t cnt = rc == 0 ? (size_t)n : 0;
            if (kw[0] == 'i') {
                ints[a] = calloc(cnt + 1, sizeof *ints[a]);
                for (size_t k = 0; rc == 0 && k < cnt; k++)
                    rc = word_i64(r, 4 + (int)k, &ints[a][k]);
                args[a] = ox_arg_ints(names[a], ints[a], cnt);
            } else if (kw[0] == 'f') {
                floats[a] = calloc(cnt + 1, sizeof *floats[a]);
                for (size_t k = 0; rc == 0 && k < cnt; k++)
                    rc = word_f64(r, 4 + (int)k, &floats[a][k]);
                args[a] = ox_arg_floats(names[a], floats[a], cnt);
            } else {
                vids[a] = calloc(cnt + 1, sizeof *vids[a]);
                for (size_t k = 0; rc == 0 && k < cnt; k++)
                    rc = word_id(r, 4 + (int)k, &vids[a][k]);
                args[a] = ox_arg_tensors(names[a], vids[a], cnt);
            }
        } else {
            rc = bad(r, "unknown argument kind '%s'", kw);
        }
    }
    ox_vid got[MAX_ARGS];
    if (rc == 0)
        rc = engine(r, ox_trace_op(r->t, kind_buf, (size_t)n_args, args, (size_t)n_out, descs, got),
                    kind_buf);
    for (int o = 0; rc == 0 && o < n_out; o++)
        r->ids[out_ids[o]] = got[o];
    for (int a = 0; a < n_args; a++) {
        free(ints[a]);
        free(floats[a]);
        free(vids[a]);
    }
    return rc;
}

typedef struct dim_param {
    ox_vid v;
    uint32_t axis;
    char name[128];
} dim_param;

/* Records the whole trace file; the dynamic axes go to dims (applied to the
 * finished graph). */
static int replay_trace(replay *r, dim_param *dims, size_t *n_dims, size_t max_dims)
{
    if (!next_line(r) || r->n_words != 2 || strcmp(r->words[0], "oxtrace") != 0 ||
        strcmp(r->words[1], "1") != 0)
        return bad(r, "not an 'oxtrace 1' file");
    while (next_line(r)) {
        const char *w = r->n_words ? r->words[0] : "";
        int64_t id, dtype, sizes[64];
        uint32_t rank;
        int next;
        char *nm;
        const void *data;
        ox_vid v;
        if (strcmp(w, "begin") == 0) {
            if (r->t)
                return bad(r, "a second 'begin'");
            if (r->n_words < 2 || decode_name(r, r->words[1], &nm) ||
                engine(r, ox_trace_begin(r->ctx, nm ? nm : "model", &r->t), "ox_trace_begin"))
                return -1;
            continue;
        }
        if (!r->t)
            return bad(r, "'%s' before 'begin'", w);
        if (strcmp(w, "input") == 0) {
            if (new_id(r, 1, &id) || word_type(r, 2, &dtype, &rank, sizes, &next) ||
                next >= r->n_words || decode_name(r, r->words[next], &nm) ||
                engine(r, ox_trace_input(r->t, nm, (ox_dtype)dtype, rank, sizes, &v), "ox_trace_input"))
                return -1;
            r->ids[id] = v;
        } else if (strcmp(w, "param") == 0) {
            if (new_id(r, 1, &id) || word_type(r, 2, &dtype, &rank, sizes, &next) ||
                word_bytes(r, next, &data) || next + 2 >= r->n_words ||
                decode_name(r, r->words[next + 2], &nm) || !nm ||
                engine(r, ox_trace_param(r->t, nm, (ox_dtype)dtype, rank, sizes, data, OX_BORROW, &v),
                       "ox_trace_param"))
                return -1;
            r->ids[id] = v;
        } else if (strcmp(w, "const") == 0) {
            if (new_id(r, 1, &id) || word_type(r, 2, &dtype, &rank, sizes, &next) ||
                word_bytes(r, next, &data) ||
                engine(r, ox_trace_const(r->t, (ox_dtype)dtype, rank, sizes, data, OX_BORROW, &v),
                       "ox_trace_const"))
                return -1;
            r->ids[id] = v;
        } else if (strcmp(w, "op") == 0) {
            if (r->n_words != 4 || replay_op(r))
                return r->err[0] ? -1 : bad(r, "op KIND N_ARGS N_OUTPUTS");
        } else if (strcmp(w, "push") == 0) {
            if (r->n_words < 2 || decode_name(r, r->words[1], &nm) || !nm ||
                engine(r, ox_trace_push_scope(r->t, nm), "ox_trace_push_scope"))
                return -1;
        } else if (strcmp(w, "pop") == 0) {
            if (engine(r, ox_trace_pop_scope(r->t), "ox_trace_pop_scope"))
                return -1;
        } else if (strcmp(w, "output") == 0) {
            if (word_id(r, 1, &v) || r->n_words < 3 || decode_name(r, r->words[2], &nm) ||
                engine(r, ox_trace_output(r->t, v, nm), "ox_trace_output"))
                return -1;
        } else if (strcmp(w, "dim") == 0) {
            int64_t axis;
            if (*n_dims == max_dims)
                return bad(r, "more than %zu dynamic axes", max_dims);
            if (word_id(r, 1, &v) || word_i64(r, 2, &axis) || r->n_words < 4 ||
                decode_name(r, r->words[3], &nm) || !nm)
                return -1;
            dims[*n_dims].v = v;
            dims[*n_dims].axis = (uint32_t)axis;
            snprintf(dims[*n_dims].name, sizeof dims[*n_dims].name, "%s", nm);
            (*n_dims)++;
        } else {
            return bad(r, "unknown line '%s'", w);
        }
    }
    return r->t ? 0 : bad(r, "no 'begin'");
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0, got;
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got);
    fclose(f);
    *n = len;
    return buf;
}

/* The engine's message on one line: its reports span several. */
static void put_one_line(FILE *out, const char *tag, const char *msg)
{
    fprintf(out, "%s ", tag);
    for (const char *p = msg; *p; p++) {
        if (*p == '\n') {
            if (p[1])
                fputs(" | ", out);
        } else {
            fputc(*p, out);
        }
    }
    fputc('\n', out);
}

/* One job: replay, export; the result line goes to out. */
static void run_job(ox_context *ctx, const char *trace, const char *bytes, int opset,
                    const char *onnx, FILE *out)
{
    static replay r;
    static dim_param dims[256];
    size_t n_dims = 0;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.path = trace;
    r.in = fopen(trace, "r");
    r.bytes = slurp(bytes, &r.n_bytes);
    if (!r.in || !r.bytes) {
        fprintf(out, "bad-trace cannot read %s: %s\n", r.in ? bytes : trace, strerror(errno));
        if (r.in)
            fclose(r.in);
        free(r.bytes);
        return;
    }
    int rc = replay_trace(&r, dims, &n_dims, sizeof dims / sizeof dims[0]);
    fclose(r.in);
    ox_graph *g = NULL;
    if (rc == 0) {
        ox_trace *t = r.t;
        r.t = NULL;
        if (ox_trace_finish(t, &g) != OX_OK) {
            put_one_line(out, "refused", ox_errmsg(ctx));
            free(r.bytes);
            return;
        }
    } else if (r.t) {
        ox_trace_abort(r.t);
    }
    if (rc != 0) {
        /* The engine refusing a recorded call is a result; a malformed file is not. */
        put_one_line(out, r.refused ? "refused" : "bad-trace", r.err);
        free(r.bytes);
        return;
    }
    for (size_t i = 0; i < n_dims; i++)
        if (ox_graph_set_dim_param(g, dims[i].v, dims[i].axis, dims[i].name) != OX_OK) {
            put_one_line(out, "refused", ox_errmsg(ctx));
            ox_graph_free(g);
            free(r.bytes);
            return;
        }
    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.opset = opset;
    if (ox_export(ctx, g, onnx, &opts) == OX_OK)
        fputs("ok\n", out);
    else
        put_one_line(out, "refused", ox_errmsg(ctx));
    ox_graph_free(g);
    free(r.bytes); /* borrowed by the graph until the export returned */
}

int main(int argc, char **argv)
{
    ox_context *ctx = NULL;
    int i = 1;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx) != OX_OK) {
        fprintf(stderr, "replay_trace: cannot create a context\n");
        return 2;
    }
    for (; i + 1 < argc && strcmp(argv[i], "--plugin-path") == 0; i += 2)
        if (ox_context_add_plugin_path(ctx, argv[i + 1]) != OX_OK) {
            fprintf(stderr, "replay_trace: %s\n", ox_errmsg(ctx));
            return 2;
        }
    if (argc - i != 2) {
        fprintf(stderr, "usage: replay_trace [--plugin-path DIR]... JOBS RESULTS\n");
        ox_context_free(ctx);
        return 2;
    }
    if (ox_context_load(ctx) != OX_OK) {
        fprintf(stderr, "replay_trace: %s\n", ox_errmsg(ctx));
        ox_context_free(ctx);
        return 2;
    }
    FILE *jobs = fopen(argv[i], "r"), *out = fopen(argv[i + 1], "w");
    if (!jobs || !out) {
        fprintf(stderr, "replay_trace: cannot open %s: %s\n", jobs ? argv[i + 1] : argv[i],
                strerror(errno));
        return 2;
    }
    char line[8192], trace[2048], bytes[2048], onnx[2048];
    int opset, n = 0;
    while (fgets(line, sizeof line, jobs)) {
        n++;
        if (sscanf(line, "%2047s %2047s %d %2047s", trace, bytes, &opset, onnx) != 4) {
            fprintf(stderr, "replay_trace: %s:%d: expected TRACE BYTES OPSET OUT.onnx\n", argv[i], n);
            return 2;
        }
        run_job(ctx, trace, bytes, opset, onnx, out);
        fflush(out); /* a crash in a later job leaves this one's result (the runner names the job) */
    }
    fclose(jobs);
    fclose(out);
    ox_context_free(ctx);
    return 0;
}
