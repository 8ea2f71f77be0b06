/*
 * oxport check FILE.onnx...: read each file and check it against the ONNX
 * structural rules (ox_check), one line per violation prefixed by the file
 * name, then a summary line per file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "oxport/oxport.h"

static void check_usage(FILE *out)
{
    fprintf(out, "usage: oxport check FILE.onnx [FILE.onnx...]\n\n"
                 "Check ONNX files in the spirit of onnx.checker (the structural rules, no\n"
                 "operator schemas): ir_version and opset imports, SSA (each value defined\n"
                 "once), inputs defined before use, unique initializers, typed graph inputs\n"
                 "and outputs, well-formed attributes.  Prints one line per violation,\n"
                 "'FILE: <violation>', then 'FILE: OK' or 'FILE: N violations'.\n\n"
                 "options:\n"
                 "  -h, --help   show this help\n\n"
                 "exit status: 0 all files clean, 1 violations found, 2 usage error or\n"
                 "unreadable file, 3 internal failure\n");
}

/* Prefix every line ox_check wrote with the file name. */
static void emit_prefixed(const char *path, const char *text, size_t len)
{
    size_t start = 0;
    while (start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        printf("%s: %.*s\n", path, (int)(end - start), text + start);
        start = end + 1;
    }
}

static int check_one(ox_context *ctx, const char *path)
{
    ox_graph *g = NULL;
    ox_status rst = ox_read(ctx, path, &g);
    if (rst == OX_ENOMEM) {
        fprintf(stderr, "oxport check: %s\n", ox_errmsg(ctx));
        return OX_EXIT_FAILURE;
    }
    if (rst != OX_OK) {
        /* The reader's message usually starts with the path already. */
        const char *msg = ox_errmsg(ctx);
        size_t plen = strlen(path);
        if (strncmp(msg, path, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
            msg += plen + 2;
        printf("%s: unreadable: %s\n", path, msg);
        return OX_EXIT_USAGE;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        ox_graph_free(g);
        fprintf(stderr, "oxport check: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    size_t n = 0;
    ox_status st = ox_check(ctx, g, mem, &n);
    fclose(mem);
    int rc;
    if (st == OX_OK || st == OX_ECHECK) {
        emit_prefixed(path, text, len);
        if (st == OX_OK && n == 0) {
            printf("%s: OK\n", path);
            rc = OX_EXIT_OK;
        } else {
            printf("%s: %zu violation%s\n", path, n, n == 1 ? "" : "s");
            rc = OX_EXIT_FINDINGS;
        }
    } else {
        fprintf(stderr, "oxport check: %s: %s\n", path, ox_errmsg(ctx));
        rc = OX_EXIT_FAILURE;
    }
    free(text);
    ox_graph_free(g);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    int n_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            check_usage(stdout);
            return OX_EXIT_OK;
        }
        if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "oxport check: unknown option '%s'\n", a);
            check_usage(stderr);
            return OX_EXIT_USAGE;
        }
        n_files++;
    }
    if (n_files == 0) {
        fprintf(stderr, "oxport check: missing FILE.onnx\n");
        check_usage(stderr);
        return OX_EXIT_USAGE;
    }
    ox_context *ctx = NULL;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx) != OX_OK) {
        fprintf(stderr, "oxport check: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    /* The worst outcome wins: unreadable (2) and internal failure (3)
     * outrank violations (1). */
    int rc = OX_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        int r = check_one(ctx, argv[i]);
        if (r > rc)
            rc = r;
    }
    fflush(stdout);
    ox_context_free(ctx);
    return rc;
}
