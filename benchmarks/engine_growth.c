/*
 * How export cost grows: start-up (context, packs, YAML), then time and peak
 * RSS of trace -> ox_export (pre-scan, convert, passes, write) against node
 * count, and against weight bytes.  Each size runs in a fresh child process so
 * its peak RSS (VmHWM) is its own.  Public API only, like any host.
 *
 *   engine_growth [--nodes-max N] [--bytes-max-mib M] [--dir DIR] [--in-process K]
 *
 * --in-process K runs each size K times in its child, one export after
 * another: the first pays for the process's first touch of fresh memory
 * (the "page faults" column), the later ones reuse what it freed.
 * Defaults: nodes 1k..1M, weights 1 MiB..1 GiB, DIR /var/tmp.  The synthetic
 * trace is a chain of aten::relu / aten::add on a [1, 16] float tensor (one
 * ONNX node each); the weight sweep is 16 float parameters summed into the
 * output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oxport/oxport.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long vm_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':')
            v = atol(line + kl + 1);
    if (f)
        fclose(f);
    return v;
}

static long minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static int die(ox_context *ctx, const char *what)
{
    fprintf(stderr, "engine_growth: %s failed: %s\n", what, ctx ? ox_errmsg(ctx) : "?");
    exit(1);
}

static ox_context *loaded_context(void)
{
    ox_context *ctx = NULL;
    if (ox_context_new(0, &ctx) != OX_OK || ox_context_load(ctx) != OX_OK)
        die(ctx, "loading the context");
    return ctx;
}

/* One measured export; prints a row.  `nodes` ops in a chain, `param_bytes`
 * of weights split over 16 parameters. */
static void run_one(const char *dir, size_t nodes, size_t param_bytes)
{
    double t0 = now();
    ox_context *ctx = loaded_context();
    double t_ctx = now();
    ox_trace *t;
    if (ox_trace_begin(ctx, "Growth", &t) != OX_OK)
        die(ctx, "ox_trace_begin");
    int64_t shape[2] = {1, 16};
    ox_vid x;
    if (ox_trace_input(t, "x", OX_FLOAT, 2, shape, &x) != OX_OK)
        die(ctx, "ox_trace_input");
    ox_tensor_desc d = {OX_FLOAT, 2, shape};
    float *weights = NULL;
    int64_t per = (int64_t)(param_bytes / 16 / sizeof(float));
    if (param_bytes) {
        weights = malloc((size_t)per * 16 * sizeof(float));
        if (!weights)
            die(NULL, "malloc");
        for (int64_t i = 0; i < per * 16; i++)
            weights[i] = (float)(i % 97) * 0.01f;
    }
    ox_vid cur = x;
    for (int p = 0; param_bytes && p < 16; p++) {
        char name[32];
        snprintf(name, sizeof name, "w%d", p);
        int64_t ws[1] = {per};
        ox_vid w, s;
        if (ox_trace_param(t, name, OX_FLOAT, 1, ws, weights + (size_t)p * (size_t)per, OX_BORROW, &w) != OX_OK)
            die(ctx, "ox_trace_param");
        ox_arg sum[] = {ox_arg_tensor("self", w)};
        ox_tensor_desc sd = {OX_FLOAT, 0, NULL};
        if (ox_trace_op(t, "aten::sum", 1, sum, 1, &sd, &s) != OX_OK)
            die(ctx, "ox_trace_op(sum)");
        ox_arg add[] = {ox_arg_tensor("self", cur), ox_arg_tensor("other", s), ox_arg_int("alpha", 1)};
        if (ox_trace_op(t, "aten::add", 3, add, 1, &d, &cur) != OX_OK)
            die(ctx, "ox_trace_op(add)");
    }
    for (size_t i = 0; i < nodes; i++) {
        if (i % 2 == 0) {
            ox_arg a[] = {ox_arg_tensor("self", cur)};
            if (ox_trace_op(t, "aten::relu", 1, a, 1, &d, &cur) != OX_OK)
                die(ctx, "ox_trace_op(relu)");
        } else {
            ox_arg a[] = {ox_arg_tensor("self", cur), ox_arg_tensor("other", cur), ox_arg_int("alpha", 1)};
            if (ox_trace_op(t, "aten::add", 3, a, 1, &d, &cur) != OX_OK)
                die(ctx, "ox_trace_op(add)");
        }
    }
    if (ox_trace_output(t, cur, "y") != OX_OK)
        die(ctx, "ox_trace_output");
    ox_graph *g;
    if (ox_trace_finish(t, &g) != OX_OK)
        die(ctx, "ox_trace_finish");
    double t_trace = now();
    long rss_before = vm_kib("VmRSS");
    char path[4096];
    snprintf(path, sizeof path, "%s/oxport-growth-%ld.onnx", dir, (long)getpid());
    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.opset = 13;
    opts.external_data = param_bytes >= ((size_t)1 << 30);
    long faults_before = minor_faults();
    if (ox_export(ctx, g, path, &opts) != OX_OK)
        die(ctx, "ox_export");
    double t_export = now();
    long faults = minor_faults() - faults_before;
    long hwm = vm_kib("VmHWM");
    unlink(path);
    char data[4200];
    snprintf(data, sizeof data, "%s.data", path);
    unlink(data);
    double exp_s = t_export - t_trace;
    printf("| %zu | %.1f MiB | %.2f ms | %.3f s | %.3f s | %.2f M nodes/s | %.0f MiB/s | %ld MiB | %ld MiB | %ld |\n",
           nodes, (double)param_bytes / 1048576.0, (t_ctx - t0) * 1e3, t_trace - t_ctx, exp_s,
           (double)nodes / exp_s / 1e6, (double)param_bytes / 1048576.0 / exp_s, hwm / 1024,
           (hwm - rss_before) / 1024, faults);
    fflush(stdout);
    ox_graph_free(g);
    ox_context_free(ctx);
    free(weights);
}

static void in_child(const char *dir, size_t nodes, size_t bytes, int in_process)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (int k = 0; k < in_process; k++)
            run_one(dir, nodes, bytes);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        exit(1);
}

int main(int argc, char **argv)
{
    size_t nodes_max = 1000000, mib_max = 1024;
    const char *dir = "/var/tmp";
    int in_process = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nodes-max") == 0 && i + 1 < argc)
            nodes_max = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--bytes-max-mib") == 0 && i + 1 < argc)
            mib_max = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--in-process") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            in_process = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: engine_growth [--nodes-max N] [--bytes-max-mib M] [--dir DIR] "
                            "[--in-process K]\n");
            return 2;
        }
    }
    /* Start-up: the median of 21 context loads. */
    double ts[21];
    for (int i = 0; i < 21; i++) {
        double a = now();
        ox_context *ctx = loaded_context();
        ts[i] = now() - a;
        ox_context_free(ctx);
    }
    for (int i = 0; i < 21; i++)
        for (int j = i + 1; j < 21; j++)
            if (ts[j] < ts[i]) {
                double tmp = ts[i];
                ts[i] = ts[j];
                ts[j] = tmp;
            }
    printf("start-up (ox_context_new + ox_context_load: packs and YAML), median of 21: %.2f ms "
           "(min %.2f, max %.2f)\n\n", ts[10] * 1e3, ts[0] * 1e3, ts[20] * 1e3);
    printf("%ld cores; files in %s\n\n", sysconf(_SC_NPROCESSORS_ONLN), dir);
    printf("| nodes | weights | context | trace | export (prescan+convert+passes+write) | nodes/s | "
           "weights/s | peak RSS | RSS growth in export | page faults in export |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t n = 1000; n <= nodes_max; n *= 10)
        in_child(dir, n, 0, in_process);
    for (size_t m = 1; m <= mib_max; m *= 4)
        in_child(dir, 10, m << 20, in_process);
    return 0;
}
