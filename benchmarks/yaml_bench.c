/*
 * YAML bounds benchmark: generated hostile and large files, each loaded
 * through the engine's readers (ox_yaml_load + the duplicate-key check, the
 * config loader, the opset descriptor loader), timed; prints the status and
 * the first words of the message.  Times are the process's CPU time.
 *
 *   yaml_bench [dir (default /tmp)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "opset_yaml.h"
#include "yaml_read.h"
#include "yaml_stress.h"

/* Process CPU time: on a shared machine wall time mostly measures the others. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void report(const char *what, const char *path, double t, ox_status st, ox_context *ctx)
{
    const char *msg = st == OX_OK ? "loaded" : ox_errmsg(ctx);
    const char *tail = strstr(msg, ": expected");
    printf("%-34s %8ld bytes %8.3f s  %s\n", what, file_size(path), t,
           st == OX_OK ? "loaded" : tail ? tail + 2 : msg);
}

static ox_status load_and_check(ox_context *ctx, const char *path)
{
    ox_yaml y;
    ox_status st = ox_yaml_load(ctx, path, &y);
    if (st == OX_OK) {
        st = ox_yaml_check_mapping(ctx, &y, ox_yaml_root(&y), "a mapping", NULL);
        ox_yaml_free(&y);
    }
    return st;
}

int main(int argc, char **argv)
{
    const char *base = argc > 1 ? argv[1] : "/tmp";
    char dir[512], path[600], p10[600];
    snprintf(dir, sizeof dir, "%s/oxport-yaml-bench-XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    ox_context *ctx;
    if (ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx) != OX_OK)
        return 1;
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    printf("%-34s %14s %10s  %s\n", "file", "size", "CPU time", "result");

    /* one 5000-entry list aliased 5000 times */
    if (yaml_stress_alias_bomb(path, 5000, "entry_number_") != 0)
        return 1;
    double t = now();
    ox_status st = load_and_check(ctx, path);
    report("5000 aliases of a 5000-list", path, now() - t, st, ctx);
    ox_config *cfg = NULL;
    t = now();
    st = ox_config_load(ctx, path, &cfg);
    report("  same file as a config", path, now() - t, st, ctx);
    ox_config_free(cfg);

    if (yaml_stress_keys(path, 100000) != 0)
        return 1;
    t = now();
    st = load_and_check(ctx, path);
    report("100k keys", path, now() - t, st, ctx);

    FILE *f = fopen(path, "w");
    for (int i = 0; i < 1000000; i++)
        fputc('[', f);
    for (int i = 0; i < 1000000; i++)
        fputc(']', f);
    fclose(f);
    t = now();
    st = load_and_check(ctx, path);
    report("1M-deep nesting", path, now() - t, st, ctx);
    unlink(path);

    snprintf(path, sizeof path, "%s/opset_9.yaml", dir);
    snprintf(p10, sizeof p10, "%s/opset_10.yaml", dir);
    if (yaml_stress_descriptors(path, p10, 100000, 50000) != 0)
        return 1;
    ox_opset_db *db = NULL;
    t = now();
    st = ox_opset_db_load(ctx, dir, &db);
    report("descriptors: 100k ops + 10 on top", path, now() - t, st, ctx);
    ox_opset_db_free(db);
    unlink(path);
    unlink(p10);
    rmdir(dir);
    ox_context_free(ctx);
    return 0;
}
