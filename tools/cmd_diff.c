/*
 * oxport diff A.onnx B.onnx [--run]: compare two ONNX files, e.g. oxport's
 * and torch.onnx's export of one model, or one model at two opsets.
 *
 * The structural part is the engine's (ox_graph_diff).  --run feeds both
 * files the same seeded random inputs in ONNX Runtime and compares the
 * outputs, within a tolerance relative to each output's own scale.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <oxport/json.h>
#include <oxport/oxport.h>

#include "commands.h"
#include "ort_run.h"

static void diff_usage(FILE *out)
{
    fprintf(out,
            "usage: oxport diff A.onnx B.onnx [--run] [--seed N] [--rtol R] [--format text|json]\n\n"
            "Compare two ONNX files: graph inputs and outputs (names, element types,\n"
            "shapes), initializers (names, types), the op histogram, and the nodes\n"
            "aligned by topological position and op type (attributes of aligned nodes\n"
            "compared).  With --run, both files run in ONNX Runtime on the same random\n"
            "inputs and each output is compared.\n\n"
            "options:\n"
            "  --run       also run both in ONNX Runtime (node and tools/ort; the runner\n"
            "              is $OXPORT_ORT_RUNNER, preset when oxport runs from its build\n"
            "              directory)\n"
            "  --seed N    seed of the random inputs (default 0): floats uniform in\n"
            "              [-1, 1), integers in [0, 10), an unknown dimension is 1\n"
            "  --rtol R    outputs agree when max |A - B| <= R * max |A| (default 1e-4);\n"
            "              integer and bool outputs must be equal\n"
            "  --format F  text (default) or json: one document with every difference\n"
            "              and each output's figures (docs/json-output.md)\n"
            "  -h, --help  show this help\n\n"
            "exit status: 0 the same (with --run: the outputs agree), 1 they differ,\n"
            "2 usage error or unreadable file, 3 ONNX Runtime could not run a file\n");
}

/* ------------------------------------------------------------- numbers */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static double element(const ox_ort_tensor *t, size_t i)
{
    const unsigned char *p = t->data + i * ox_dtype_size(t->dtype);
    switch (t->dtype) {
    case OX_FLOAT: { float f; memcpy(&f, p, 4); return f; }
    case OX_DOUBLE: { double f; memcpy(&f, p, 8); return f; }
    default: return 0;
    }
}

static bool is_float(ox_dtype t)
{
    return t == OX_FLOAT || t == OX_DOUBLE;
}

/* How one output pair compares. */
typedef struct output_cmp {
    char shape_a[256], shape_b[256];
    bool same_layout;     /* dtype, shape and byte count agree */
    bool floating;        /* compared by max |A - B| against the bound */
    size_t differ_at;     /* integers: first differing flat index, or count */
    double max_diff, scale, bound;
    size_t nan_mismatch;
    bool agree;
} output_cmp;

static void shape_text(const ox_ort_tensor *t, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0, n = 0; i < t->rank && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
}

static void compare_output(const ox_ort_tensor *x, const ox_ort_tensor *y, double rtol, output_cmp *c)
{
    memset(c, 0, sizeof *c);
    shape_text(x, c->shape_a, sizeof c->shape_a);
    shape_text(y, c->shape_b, sizeof c->shape_b);
    c->same_layout = x->dtype == y->dtype && strcmp(c->shape_a, c->shape_b) == 0 && x->nbytes == y->nbytes;
    if (!c->same_layout)
        return;
    size_t es = ox_dtype_size(x->dtype);
    size_t count = es ? x->nbytes / es : 0;
    if (!is_float(x->dtype)) {
        c->differ_at = count;
        for (size_t i = 0; i < count && c->differ_at == count; i++)
            if (memcmp(x->data + i * es, y->data + i * es, es) != 0)
                c->differ_at = i;
        c->agree = c->differ_at == count;
        return;
    }
    c->floating = true;
    for (size_t i = 0; i < count; i++) {
        double u = element(x, i), v = element(y, i);
        if (isnan(u) || isnan(v)) {
            c->nan_mismatch += isnan(u) != isnan(v);
            continue;
        }
        if (fabs(u) > c->scale && !isinf(u))
            c->scale = fabs(u);
        double dd = fabs(u - v);
        if (isinf(u) || isinf(v))
            dd = u == v ? 0 : INFINITY;
        if (dd > c->max_diff)
            c->max_diff = dd;
    }
    c->bound = rtol * c->scale;
    c->agree = !c->nan_mismatch && c->max_diff <= c->bound;
}

/* The text form: one line per output pair. */
static void print_output(size_t k, const ox_ort_tensor *x, const ox_ort_tensor *y, const output_cmp *c)
{
    if (!c->same_layout)
        printf("  ! output #%zu: A %s %s[%s], B %s %s[%s]\n", k, x->name, ox_dtype_name(x->dtype),
               c->shape_a, y->name, ox_dtype_name(y->dtype), c->shape_b);
    else if (!c->floating && !c->agree)
        printf("  ! output #%zu %s: %s[%s], elements differ (first at flat index %zu)\n", k, x->name,
               ox_dtype_name(x->dtype), c->shape_a, c->differ_at);
    else if (!c->floating)
        printf("  = output #%zu %s: %s[%s], equal\n", k, x->name, ox_dtype_name(x->dtype), c->shape_a);
    else
        printf("  %c output #%zu %s: %s[%s], max |A - B| = %.3g, max |A| = %.3g, bound %.3g%s\n",
               c->agree ? '=' : '!', k, x->name, ox_dtype_name(x->dtype), c->shape_a, c->max_diff,
               c->scale, c->bound, c->nan_mismatch ? " (NaN in one file only)" : "");
}

static void json_side(ox_json *j, const char *key, const ox_ort_tensor *t)
{
    ox_json_key(j, key);
    ox_json_object(j);
    ox_json_key(j, "name");
    ox_json_string(j, t->name);
    ox_json_key(j, "dtype");
    ox_json_string(j, ox_dtype_name(t->dtype));
    ox_json_key(j, "shape");
    ox_json_array(j);
    for (int i = 0; i < t->rank; i++)
        ox_json_int(j, t->dims[i]);
    ox_json_array_end(j);
    ox_json_object_end(j);
}

/* The JSON form: one object per output pair. */
static void json_output(ox_json *j, size_t k, const ox_ort_tensor *x, const ox_ort_tensor *y,
                        const output_cmp *c)
{
    ox_json_object(j);
    ox_json_key(j, "index");
    ox_json_uint(j, k);
    json_side(j, "a", x);
    json_side(j, "b", y);
    ox_json_key(j, "agree");
    ox_json_bool(j, c->agree);
    ox_json_key(j, "comparison");
    ox_json_string(j, !c->same_layout ? "layout" : c->floating ? "scaled" : "exact");
    ox_json_key(j, "max_abs_diff");
    if (c->floating)
        ox_json_double(j, c->max_diff);
    else
        ox_json_null(j);
    ox_json_key(j, "max_abs_a");
    if (c->floating)
        ox_json_double(j, c->scale);
    else
        ox_json_null(j);
    ox_json_key(j, "bound");
    if (c->floating)
        ox_json_double(j, c->bound);
    else
        ox_json_null(j);
    ox_json_key(j, "nan_mismatches");
    ox_json_uint(j, c->nan_mismatch);
    ox_json_key(j, "first_difference");
    if (c->same_layout && !c->floating && !c->agree)
        ox_json_uint(j, c->differ_at);
    else
        ox_json_null(j);
    ox_json_object_end(j);
}

/* Graph input i's name ("?" when it has none). */
static const char *input_name(const ox_graph *g, size_t i)
{
    ox_value_info v;
    return ox_graph_input_info(g, i, &v) == OX_OK && v.name[0] ? v.name : "?";
}

static int run_both(const char *pa, const ox_graph *a, const char *pb, const ox_graph *b,
                    uint64_t seed, double rtol, ox_json *j, bool *agree)
{
    const char *runner = ox_ort_runner();
    if (!runner) {
        fprintf(stderr, "oxport diff: --run needs the ONNX Runtime runner: set OXPORT_ORT_RUNNER "
                        "to tools/ort/run.js of an oxport source tree (with onnxruntime-node "
                        "installed by tools/install-deps)\n");
        return OX_EXIT_FAILURE;
    }
    char err[2048];
    size_t n_inputs = ox_graph_input_count(a);
    if (n_inputs != ox_graph_input_count(b)) {
        fprintf(stderr, "oxport diff: --run: A has %zu inputs and B %zu; cannot feed both the "
                        "same inputs\n", n_inputs, ox_graph_input_count(b));
        return OX_EXIT_FINDINGS;
    }
    ox_ort_tensors in = {0}, out_a = {0}, out_b = {0};
    if (ox_ort_random_inputs(a, seed, &in, err, sizeof err) != 0) {
        fprintf(stderr, "oxport diff: --run: %s: %s\n", pa, err);
        return OX_EXIT_FAILURE;
    }
    for (size_t i = 0; i < n_inputs; i++) {
        ox_value_info v;
        if (ox_graph_input_info(b, i, &v) != OX_OK || v.dtype != in.t[i].dtype ||
            v.rank != in.t[i].rank) {
            fprintf(stderr, "oxport diff: --run: input #%zu of B (%s) does not take A's input "
                            "%s\n", i, input_name(b, i), in.t[i].name);
            ox_ort_tensors_free(&in);
            return OX_EXIT_FINDINGS;
        }
    }
    const char **names_a = calloc(in.n + 1, sizeof *names_a);
    const char **names_b = calloc(in.n + 1, sizeof *names_b);
    char tmpl[] = "/tmp/oxport-diff-XXXXXX";
    char *dir = mkdtemp(tmpl);
    int rc = OX_EXIT_FAILURE;
    if (!names_a || !names_b || !dir) {
        fprintf(stderr, "oxport diff: --run: cannot create a scratch directory: %s\n",
                strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < in.n; i++) {
        names_a[i] = input_name(a, i);
        names_b[i] = input_name(b, i);
    }
    char da[4200], db[4200];
    snprintf(da, sizeof da, "%s/a", dir);
    snprintf(db, sizeof db, "%s/b", dir);
    if (ox_ort_run(runner, pa, &in, names_a, da, &out_a, err, sizeof err) != 0) {
        fprintf(stderr, "oxport diff: --run: %s: %s\n", pa, err);
        goto out;
    }
    if (ox_ort_run(runner, pb, &in, names_b, db, &out_b, err, sizeof err) != 0) {
        fprintf(stderr, "oxport diff: --run: %s: %s\n", pb, err);
        goto out;
    }
    *agree = out_a.n == out_b.n;
    if (j) {
        ox_json_key(j, "run");
        ox_json_object(j);
        ox_json_key(j, "seed");
        ox_json_uint(j, seed);
        ox_json_key(j, "rtol");
        ox_json_double(j, rtol);
        ox_json_key(j, "outputs_a");
        ox_json_uint(j, out_a.n);
        ox_json_key(j, "outputs_b");
        ox_json_uint(j, out_b.n);
        ox_json_key(j, "outputs");
        ox_json_array(j);
    } else {
        printf("outputs in ONNX Runtime (seed %llu, rtol %g):\n", (unsigned long long)seed, rtol);
        if (out_a.n != out_b.n)
            printf("  ! %zu outputs in A, %zu in B\n", out_a.n, out_b.n);
    }
    for (size_t k = 0; k < out_a.n && k < out_b.n; k++) {
        output_cmp c;
        compare_output(&out_a.t[k], &out_b.t[k], rtol, &c);
        if (j)
            json_output(j, k, &out_a.t[k], &out_b.t[k], &c);
        else
            print_output(k, &out_a.t[k], &out_b.t[k], &c);
        *agree = c.agree && *agree;
    }
    if (j) {
        ox_json_array_end(j);
        ox_json_key(j, "agree");
        ox_json_bool(j, *agree);
        ox_json_object_end(j);
    }
    rc = OX_EXIT_OK;
out:
    if (dir)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(names_a);
    free(names_b);
    ox_ort_tensors_free(&in);
    ox_ort_tensors_free(&out_a);
    ox_ort_tensors_free(&out_b);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int n_paths = 0;
    bool run = false;
    unsigned long long seed = 0;
    double rtol = 1e-4;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            diff_usage(stdout);
            return OX_EXIT_OK;
        } else if (!strcmp(a, "--run")) {
            run = true;
        } else if (!strcmp(a, "--format")) {
            const char *f = i + 1 < argc ? argv[++i] : NULL;
            if (!f || (strcmp(f, "json") && strcmp(f, "text"))) {
                if (f)
                    fprintf(stderr, "oxport diff: --format expects text or json, got '%s'\n", f);
                else
                    fprintf(stderr, "oxport diff: --format needs a value\n");
                return OX_EXIT_USAGE;
            }
            json = strcmp(f, "json") == 0;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--rtol")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "oxport diff: %s needs a value\n", a);
                return OX_EXIT_USAGE;
            }
            const char *v = argv[++i];
            char *end;
            errno = 0;
            if (!strcmp(a, "--seed")) {
                seed = strtoull(v, &end, 10);
                if (errno || end == v || *end || v[0] == '-') {
                    fprintf(stderr, "oxport diff: --seed expects a non-negative integer, got "
                                    "'%s'\n", v);
                    return OX_EXIT_USAGE;
                }
            } else {
                rtol = strtod(v, &end);
                if (errno || end == v || *end || !(rtol >= 0) || isinf(rtol)) {
                    fprintf(stderr, "oxport diff: --rtol expects a non-negative number, got "
                                    "'%s'\n", v);
                    return OX_EXIT_USAGE;
                }
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "oxport diff: unknown option '%s'\n", a);
            diff_usage(stderr);
            return OX_EXIT_USAGE;
        } else if (n_paths == 2) {
            fprintf(stderr, "oxport diff: two files only ('%s' is a third)\n", a);
            return OX_EXIT_USAGE;
        } else {
            paths[n_paths++] = a;
        }
    }
    if (n_paths != 2) {
        fprintf(stderr, "oxport diff: give two files: A.onnx B.onnx\n");
        diff_usage(stderr);
        return OX_EXIT_USAGE;
    }
    ox_context *ctx = NULL;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS, &ctx) != OX_OK) {
        fprintf(stderr, "oxport diff: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    ox_graph *g[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (ox_read(ctx, paths[k], &g[k]) != OX_OK) {
            fprintf(stderr, "oxport diff: %s\n", ox_errmsg(ctx));
            ox_graph_free(g[0]);
            ox_context_free(ctx);
            return OX_EXIT_USAGE;
        }
    }
    const ox_graph *a = g[0], *b = g[1];
    size_t n_diff = 0;
    int rc = OX_EXIT_OK;
    ox_json *j = NULL;
    if (json && !(j = ox_json_new(stdout))) {
        fprintf(stderr, "oxport diff: out of memory\n");
        rc = OX_EXIT_FAILURE;
    }
    ox_status st = OX_OK;
    if (rc == OX_EXIT_OK && j) {
        ox_json_document(j, "diff");
        ox_json_key(j, "structure");
        ox_json_object(j);
        st = ox_graph_diff_json(a, paths[0], b, paths[1], j, &n_diff);
        ox_json_object_end(j);
    } else if (rc == OX_EXIT_OK) {
        st = ox_graph_diff(a, paths[0], b, paths[1], stdout, &n_diff);
    }
    if (st == OX_ENOMEM) {
        fprintf(stderr, "oxport diff: out of memory aligning the nodes\n");
        rc = OX_EXIT_FAILURE;
    }
    if (rc == OX_EXIT_OK) {
        if (!j) {
            printf("structure: %s", n_diff ? "" : "same\n");
            if (n_diff)
                printf("%zu difference%s\n", n_diff, n_diff == 1 ? "" : "s");
        }
        rc = n_diff ? OX_EXIT_FINDINGS : OX_EXIT_OK;
    }
    bool ran = false, agree = false;
    if (rc != OX_EXIT_FAILURE && run) {
        fflush(stdout);
        int r = run_both(paths[0], a, paths[1], b, seed, rtol, j, &agree);
        if (r != OX_EXIT_OK)
            rc = r;
        else {
            ran = true;
            if (!j)
                printf("outputs: %s\n", agree ? "agree" : "differ");
            rc = agree ? OX_EXIT_OK : OX_EXIT_FINDINGS;
        }
    }
    if (j) {
        /* The document is whole whatever happened after it began: a --run
         * that could not run has "run": null and "same": null (its message
         * is on stderr, the exit status says which). */
        if (!ran) {
            ox_json_key(j, "run");
            ox_json_null(j);
        }
        ox_json_key(j, "same");
        if (rc == OX_EXIT_OK || rc == OX_EXIT_FINDINGS)
            ox_json_bool(j, rc == OX_EXIT_OK);
        else
            ox_json_null(j);
        if (!ox_json_finish(j) && rc != OX_EXIT_FAILURE)
            rc = OX_EXIT_FAILURE;
        ox_json_free(j);
    }
    if (fflush(stdout) != 0 && rc != OX_EXIT_FAILURE)
        rc = OX_EXIT_FAILURE;
    ox_graph_free(g[0]);
    ox_graph_free(g[1]);
    ox_context_free(ctx);
    return rc;
}
