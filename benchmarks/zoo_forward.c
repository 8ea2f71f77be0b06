/*
 * Forward-pass timings of the C reference host's zoo: without tracing, with
 * tracing (the recording overhead a framework pays), and the export
 * (convert + write) of the traced graph.
 *
 *   zoo_forward [--repeat N] [--batch N] [--no-export] [MODEL...]
 *
 * Run against the build tree with `meson devenv -C build benchmarks/zoo_forward`
 * (or set OXPORT_PLUGIN_PATH / OXPORT_OPSET_DIR).  Times are the best of N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <oxport/oxport.h>

#include "gemm.h"
#include "zoo/zoo.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct result {
    double build, plain, traced, export_s;
    size_t nodes;
    double file_mb;
    int export_rc;
} result;

/* One traced forward; on success *out owns the traced graph. */
static int traced_forward(ox_context *ctx, const hc_zoo_model *z, hc_model *m, long batch,
                          ox_graph **out)
{
    ox_trace *t;
    if (ox_trace_begin(ctx, z->trace_name, &t) != OX_OK)
        return -1;
    hc_rt rt;
    hc_rt_init(&rt, ctx, t);
    hc_tensor *in[HC_ZOO_MAX_IO], *o[HC_ZOO_MAX_IO];
    int rc = hc_zoo_run(z, m, &rt, batch, in, o);
    if (rc != 0 || rt.status != OX_OK) {
        fprintf(stderr, "zoo_forward: %s: %s\n", z->name, rt.errmsg);
        ox_trace_abort(t);
        hc_rt_release(&rt);
        return -1;
    }
    rc = ox_trace_finish(t, out) == OX_OK ? 0 : -1;
    hc_rt_release(&rt);
    return rc;
}

static int bench(ox_context *ctx, const hc_zoo_model *z, int repeat, long batch, int do_export,
                 result *r)
{
    memset(r, 0, sizeof *r);
    hc_model m;
    double t0 = now();
    if (hc_zoo_build(z, &m, 0, 0) != 0)
        return -1;
    r->build = now() - t0;
    r->plain = r->traced = 1e30;
    ox_graph *g = NULL;
    /* Plain and traced runs alternate so machine noise hits both alike. */
    for (int i = 0; i < repeat; i++) {
        hc_rt rt;
        hc_rt_init(&rt, NULL, NULL);
        hc_tensor *in[HC_ZOO_MAX_IO], *o[HC_ZOO_MAX_IO];
        t0 = now();
        hc_zoo_run(z, &m, &rt, batch, in, o);
        double dt = now() - t0;
        hc_rt_release(&rt);
        if (dt < r->plain)
            r->plain = dt;

        ox_graph_free(g);
        g = NULL;
        t0 = now();
        if (traced_forward(ctx, z, &m, batch, &g) != 0) {
            hc_model_free(&m);
            return -1;
        }
        dt = now() - t0;
        if (dt < r->traced)
            r->traced = dt;
    }
    r->export_rc = -1;
    if (do_export) {
        char dir[] = "/tmp/oxport-bench-XXXXXX", path[64];
        if (mkdtemp(dir)) {
            snprintf(path, sizeof path, "%s/model.onnx", dir);
            ox_export_options opts;
            ox_export_options_init(&opts);
            t0 = now();
            ox_status st = ox_export(ctx, g, path, &opts);
            r->export_s = now() - t0;
            r->export_rc = st;
            if (st != OX_OK)
                fprintf(stderr, "zoo_forward: export %s: %s\n", z->name, ox_errmsg(ctx));
            struct stat sb;
            if (st == OX_OK && stat(path, &sb) == 0)
                r->file_mb = (double)sb.st_size / 1e6;
            unlink(path);
            rmdir(dir);
        }
    }
    r->nodes = ox_graph_node_count(g);
    ox_graph_free(g);
    hc_model_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    int repeat = 3, do_export = 1;
    long batch = 1;
    const char *only[32];
    int n_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch = atol(argv[++i]);
        else if (!strcmp(argv[i], "--no-export"))
            do_export = 0;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: zoo_forward [--repeat N] [--batch N] [--no-export] "
                            "[MODEL...]\n");
            return 2;
        } else if (n_only < 32)
            only[n_only++] = argv[i];
    }
    if (repeat < 1)
        repeat = 1;
    ox_context *ctx;
    if (ox_context_new(0, &ctx) != OX_OK || ox_context_load(ctx) != OX_OK) {
        fprintf(stderr, "zoo_forward: loading the engine failed: %s\n",
                ctx ? ox_errmsg(ctx) : "no context");
        return 1;
    }
    printf("gemm backend: %s, batch %ld, best of %d\n", hc_gemm_backend(), batch, repeat);
    printf("%-20s %9s %8s %9s %9s %8s %9s %6s %9s\n", "model", "params", "build", "forward",
           "+tracing", "trace%", "export", "nodes", "file MB");
    size_t n;
    const hc_zoo_model *const *all = hc_zoo_models(&n);
    for (size_t i = 0; i < n; i++) {
        int want = n_only == 0;
        for (int k = 0; k < n_only; k++)
            want |= !strcmp(only[k], all[i]->name);
        if (!want)
            continue;
        result r;
        hc_model shape;
        size_t params = 0;
        if (hc_zoo_build(all[i], &shape, 0, 1) == 0) {
            params = shape.n_elements;
            hc_model_free(&shape);
        }
        if (bench(ctx, all[i], repeat, batch, do_export, &r) != 0) {
            printf("%-20s failed\n", all[i]->name);
            continue;
        }
        char exp[32] = "-", mb[32] = "-";
        if (r.export_rc == OX_OK) {
            snprintf(exp, sizeof exp, "%.3fs", r.export_s);
            snprintf(mb, sizeof mb, "%.1f", r.file_mb);
        }
        printf("%-20s %8.1fM %7.2fs %8.3fs %8.3fs %7.1f%% %9s %6zu %9s\n", all[i]->name,
               (double)params / 1e6, r.build, r.plain, r.traced,
               100.0 * (r.traced - r.plain) / r.plain, exp, r.nodes, mb);
        fflush(stdout);
    }
    ox_context_free(ctx);
    return 0;
}
