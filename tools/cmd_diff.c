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

#include <oxport/oxport.h>

#include "commands.h"
#include "ort_run.h"

static void diff_usage(FILE *out)
{
    fprintf(out,
            "usage: oxport diff A.onnx B.onnx [--run] [--seed N] [--rtol R]\n\n"
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

/* Compare one output pair; prints one line.  True when they agree. */
static bool compare_output(size_t k, const ox_ort_tensor *x, const ox_ort_tensor *y, double rtol)
{
    char shape_a[256] = "", shape_b[256] = "";
    for (int i = 0, n = 0; i < x->rank; i++)
        n += snprintf(shape_a + n, sizeof shape_a - (size_t)n, "%s%lld", i ? ", " : "", (long long)x->dims[i]);
    for (int i = 0, n = 0; i < y->rank; i++)
        n += snprintf(shape_b + n, sizeof shape_b - (size_t)n, "%s%lld", i ? ", " : "", (long long)y->dims[i]);
    if (x->dtype != y->dtype || strcmp(shape_a, shape_b) != 0 || x->nbytes != y->nbytes) {
        printf("  ! output #%zu: A %s %s[%s], B %s %s[%s]\n", k, x->name, ox_dtype_name(x->dtype),
               shape_a, y->name, ox_dtype_name(y->dtype), shape_b);
        return false;
    }
    size_t es = ox_dtype_size(x->dtype);
    size_t count = es ? x->nbytes / es : 0;
    if (!is_float(x->dtype)) {
        size_t differ_at = count;
        for (size_t i = 0; i < count && differ_at == count; i++)
            if (memcmp(x->data + i * es, y->data + i * es, es) != 0)
                differ_at = i;
        if (differ_at < count) {
            printf("  ! output #%zu %s: %s[%s], elements differ (first at flat index %zu)\n", k,
                   x->name, ox_dtype_name(x->dtype), shape_a, differ_at);
            return false;
        }
        printf("  = output #%zu %s: %s[%s], equal\n", k, x->name, ox_dtype_name(x->dtype), shape_a);
        return true;
    }
    double max_diff = 0, scale = 0;
    size_t nan_mismatch = 0;
    for (size_t i = 0; i < count; i++) {
        double u = element(x, i), v = element(y, i);
        if (isnan(u) || isnan(v)) {
            nan_mismatch += isnan(u) != isnan(v);
            continue;
        }
        if (fabs(u) > scale && !isinf(u))
            scale = fabs(u);
        double dd = fabs(u - v);
        if (isinf(u) || isinf(v))
            dd = u == v ? 0 : INFINITY;
        if (dd > max_diff)
            max_diff = dd;
    }
    double bound = rtol * scale;
    bool ok = !nan_mismatch && max_diff <= bound;
    printf("  %c output #%zu %s: %s[%s], max |A - B| = %.3g, max |A| = %.3g, bound %.3g%s\n",
           ok ? '=' : '!', k, x->name, ox_dtype_name(x->dtype), shape_a, max_diff, scale, bound,
           nan_mismatch ? " (NaN in one file only)" : "");
    return ok;
}

/* Graph input i's name ("?" when it has none). */
static const char *input_name(const ox_graph *g, size_t i)
{
    ox_value_info v;
    return ox_graph_input_info(g, i, &v) == OX_OK && v.name[0] ? v.name : "?";
}

static int run_both(const char *pa, const ox_graph *a, const char *pb, const ox_graph *b,
                    uint64_t seed, double rtol, bool *agree)
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
    printf("outputs in ONNX Runtime (seed %llu, rtol %g):\n", (unsigned long long)seed, rtol);
    *agree = out_a.n == out_b.n;
    if (out_a.n != out_b.n)
        printf("  ! %zu outputs in A, %zu in B\n", out_a.n, out_b.n);
    for (size_t k = 0; k < out_a.n && k < out_b.n; k++)
        *agree = compare_output(k, &out_a.t[k], &out_b.t[k], rtol) && *agree;
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            diff_usage(stdout);
            return OX_EXIT_OK;
        } else if (!strcmp(a, "--run")) {
            run = true;
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
    ox_status st = ox_graph_diff(a, paths[0], b, paths[1], stdout, &n_diff);
    if (st == OX_ENOMEM) {
        fprintf(stderr, "oxport diff: out of memory aligning the nodes\n");
        rc = OX_EXIT_FAILURE;
    }
    if (rc == OX_EXIT_OK) {
        printf("structure: %s", n_diff ? "" : "same\n");
        if (n_diff)
            printf("%zu difference%s\n", n_diff, n_diff == 1 ? "" : "s");
        rc = n_diff ? OX_EXIT_FINDINGS : OX_EXIT_OK;
    }
    if (rc != OX_EXIT_FAILURE && run) {
        fflush(stdout);
        bool agree = false;
        int r = run_both(paths[0], a, paths[1], b, seed, rtol, &agree);
        if (r != OX_EXIT_OK)
            rc = r;
        else {
            printf("outputs: %s\n", agree ? "agree" : "differ");
            rc = agree ? OX_EXIT_OK : OX_EXIT_FINDINGS;
        }
    }
    if (fflush(stdout) != 0 && rc != OX_EXIT_FAILURE)
        rc = OX_EXIT_FAILURE;
    ox_graph_free(g[0]);
    ox_graph_free(g[1]);
    ox_context_free(ctx);
    return rc;
}
