/*
 * Writer benchmark: 1 GiB of float weights held by the "host", written as an
 * ONNX model with external data off (one 1 GiB protobuf) and on (a side
 * file), side by side with a plain write(2) of the same bytes, in both
 * durability modes: without fsync (ox_write's default, like torch.save) and
 * with it (ox_write with sync = 1 against a plain write + fsync); then with
 * direct I/O and no fsync (ox_write with direct_io = 1 against a plain
 * O_DIRECT write from page-aligned memory, its tail buffered).  Peak RSS is the kernel's high-water
 * mark (VmHWM, reset before each run through /proc/self/clear_refs) minus the
 * resident size before the run, which already holds the weights.
 *
 *   write_1gib [MiB (default 1024)] [output dir (default /var/tmp)] [pause seconds (default 0)]
 *
 * With a pause, each run starts that long after the file before it was
 * removed: on a VM whose free memory goes back to its host, a buffered write
 * then has to get fresh pages for its page cache, as a model written once in
 * a while does; without one, it reuses the pages the last run just freed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir.h"
#include "oxport/oxport.h"

#define N_PARAMS 16

static long status_kib(const char *key)
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

static void reset_peak(void)
{
    /* "5" resets VmHWM to the current RSS (Linux >= 4.0) */
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd >= 0) {
        if (write(fd, "5", 1) != 1)
            perror("clear_refs");
        close(fd);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct result {
    double seconds;
    long extra_kib;
    unsigned long long bytes;
} result;

static unsigned long long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n < 0 ? 0 : (unsigned long long)n;
}

static int plain_write(const char *path, const unsigned char *data, size_t n, bool sync,
                       bool direct, result *r)
{
    reset_peak();
    long base = status_kib("VmRSS");
    double t0 = now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | (direct ? O_DIRECT : 0), 0644);
    if (fd < 0)
        return -1;
    size_t done = 0, whole = direct ? n / 4096 * 4096 : n;
    while (done < n) {
        if (done == whole) /* the tail, shorter than a block: through the page cache */
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT);
        size_t upto = done < whole ? whole : n;
        ssize_t k = write(fd, data + done, upto - done > (1u << 30) ? (1u << 30) : upto - done);
        if (k <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)k;
    }
    if (sync)
        fsync(fd);
    close(fd);
    r->seconds = now() - t0;
    r->extra_kib = status_kib("VmHWM") - base;
    r->bytes = n;
    return 0;
}

/* The side file ox_write wrote next to `model` ("<model>.<tag>.data"), as a
 * path in `out`; false when there is none. */
static bool side_file(const char *dir, const char *model, char *out, size_t cap)
{
    const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
    size_t bl = strlen(base);
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > bl + 5 && strncmp(e->d_name, base, bl) == 0 && e->d_name[bl] == '.' &&
            strcmp(e->d_name + n - 5, ".data") == 0) {
            snprintf(out, cap, "%s/%s", dir, e->d_name);
            found = true;
        }
    }
    if (d)
        closedir(d);
    return found;
}

static int onnx_write(ox_context *ctx, const ox_graph *g, const char *dir, const char *path,
                      int external, bool sync, bool direct, result *r)
{
    ox_export_options o;
    ox_export_options_init(&o);
    o.external_data = external ? 1 : -1;
    o.sync = sync ? 1 : -1;
    o.direct_io = direct ? 1 : -1;
    reset_peak();
    long base = status_kib("VmRSS");
    double t0 = now();
    if (ox_write(ctx, g, path, &o) != OX_OK) {
        fprintf(stderr, "ox_write: %s\n", ox_errmsg(ctx));
        return -1;
    }
    r->seconds = now() - t0;
    r->extra_kib = status_kib("VmHWM") - base;
    char side[1100];
    r->bytes = file_size(path);
    if (side_file(dir, path, side, sizeof side)) {
        r->bytes += file_size(side);
        unlink(side);
    }
    unlink(path);
    return 0;
}

static unsigned pause_s; /* between runs, after the file is removed */

static void print_row(const char *what, const result *r)
{
    if (pause_s)
        sleep(pause_s);
    double mb = (double)r->bytes / 1e6;
    printf("%-36s %10.3f s %10.1f MB/s %12.1f MiB  (%llu bytes)\n", what, r->seconds,
           mb / r->seconds, (double)r->extra_kib / 1024.0, r->bytes);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
    const char *dir = argc > 2 ? argv[2] : "/var/tmp";
    pause_s = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    size_t total = mib << 20;
    size_t each = total / N_PARAMS / sizeof(float) * sizeof(float);
    total = each * N_PARAMS;

    /* the host's weights: one allocation, touched so they are resident; page-aligned so
     * the plain O_DIRECT write can send them as they are */
    unsigned char *weights = aligned_alloc(4096, (total + 4095) / 4096 * 4096);
    if (!weights) {
        fprintf(stderr, "cannot allocate %zu bytes\n", total);
        return 1;
    }
    for (size_t i = 0; i < total / sizeof(float); i++)
        ((float *)weights)[i] = (float)(i % 1000) * 0.001f;

    ox_context *ctx;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS, &ctx))
        return 1;
    ox_graph *g = ox_graph_new("Bench");
    int64_t n = (int64_t)(each / sizeof(float));
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 1, &n);
    x->name = "x";
    ox_graph_add_input(g, x->id);
    ox_vid cur = x->id;
    for (int i = 0; i < N_PARAMS; i++) {
        ox_value *w = ox_graph_add_value(g, OX_VAL_PARAM, OX_FLOAT, 1, &n);
        w->name = ox_arena_printf(&g->arena, "layer%d.weight", i);
        w->tensor = (ox_tensor_data){weights + (size_t)i * each, each, false};
        ox_graph_add_param(g, w->id);
        ox_vid in[2] = {cur, w->id};
        ox_node *add = ox_graph_add_node(g, "onnx::Add", 2, in, 1);
        cur = add->outputs[0];
        ox_value_set_type(g, ox_graph_value(g, cur), OX_FLOAT, 1, &n);
    }
    ox_graph_value(g, cur)->name = "y";
    ox_graph_add_output(g, cur);
    ox_graph_set_opset(g, "", 13);

    char plain[1024], model[1024];
    snprintf(plain, sizeof plain, "%s/oxport-bench-plain.bin", dir);
    snprintf(model, sizeof model, "%s/oxport-bench.onnx", dir);
    printf("weights: %zu MiB in %d tensors; output dir %s; weights resident: %ld MiB; "
           "%u s between runs\n", mib, N_PARAMS, dir, status_kib("VmRSS") / 1024, pause_s);
    printf("%-36s %12s %15s %17s\n", "run", "time", "throughput", "peak RSS extra");
    for (int mode = 0; mode < 3; mode++) {
        bool sync = mode == 1, direct = mode == 2;
        const char *how = sync ? "fsync" : direct ? "direct I/O" : "no fsync";
        char label[64];
        result rp, re, rx, rp2;
        if (plain_write(plain, weights, total, sync, direct, &rp) != 0) {
            perror(plain);
            return 1;
        }
        unlink(plain);
        snprintf(label, sizeof label, "plain write(2), %s", how);
        print_row(label, &rp);
        const char *opt = sync ? "sync=1" : direct ? "direct_io=1" : "default";
        if (onnx_write(ctx, g, dir, model, 0, sync, direct, &re) != 0)
            return 1;
        snprintf(label, sizeof label, "ox_write embedded, %s", opt);
        print_row(label, &re);
        if (onnx_write(ctx, g, dir, model, 1, sync, direct, &rx) != 0)
            return 1;
        snprintf(label, sizeof label, "ox_write external, %s", opt);
        print_row(label, &rx);
        /* again at the end: the disk's writeback state differs between the
         * first and later runs, so the baseline brackets the measured writes */
        if (plain_write(plain, weights, total, sync, direct, &rp2) != 0) {
            perror(plain);
            return 1;
        }
        unlink(plain);
        snprintf(label, sizeof label, "plain write(2), %s, again", how);
        print_row(label, &rp2);
        double base = rp.seconds < rp2.seconds ? rp.seconds : rp2.seconds;
        /* the target (issue 15): ox_write at >= 80% of the plain write's throughput */
        printf("  %s: ox_write time / best plain time: embedded %.2fx, external %.2fx "
               "(throughput %.0f%% and %.0f%% of the plain write's; target >= 80%%)\n", how,
               re.seconds / base, rx.seconds / base, 100.0 * base / re.seconds,
               100.0 * base / rx.seconds);
    }
    ox_graph_free(g);
    ox_context_free(ctx);
    free(weights);
    return 0;
}
