/*
 * oxport dump FILE.onnx [--no-header]: read any ONNX file and print it in
 * the verbose graph format, under a one-line model summary.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "ir.h"
#include "print.h"

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: oxport dump FILE.onnx [--no-header]\n\n"
                 "Print an ONNX file (from oxport or any other exporter) in the verbose\n"
                 "graph format of torch.onnx, after a summary line:\n"
                 "  ir_version=7 opsets=[ai.onnx:13] producer=... graph=... nodes=N\n"
                 "  initializers=N inputs=N outputs=N\n\n"
                 "options:\n"
                 "  --no-header  omit the summary line\n"
                 "  -h, --help   show this help\n\n"
                 "exit status: 0 printed, 2 usage error or unreadable file, 3 write error\n");
}

int cmd_dump(int argc, char **argv)
{
    const char *path = NULL;
    int header = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            dump_usage(stdout);
            return OX_EXIT_OK;
        } else if (strcmp(a, "--no-header") == 0) {
            header = 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "oxport dump: unknown option '%s'\n", a);
            dump_usage(stderr);
            return OX_EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "oxport dump: one file at a time ('%s' and '%s' given)\n", path, a);
            return OX_EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, "oxport dump: missing FILE.onnx\n");
        dump_usage(stderr);
        return OX_EXIT_USAGE;
    }

    ox_context *ctx = NULL;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS, &ctx) != OX_OK) {
        fprintf(stderr, "oxport dump: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    ox_graph *g = NULL;
    ox_status rst = ox_read(ctx, path, &g);
    if (rst != OX_OK) {
        fprintf(stderr, "oxport dump: %s\n", ox_errmsg(ctx));
        ox_context_free(ctx);
        return rst == OX_ENOMEM ? OX_EXIT_FAILURE : OX_EXIT_USAGE;
    }
    ox_status st = OX_OK;
    if (header)
        st = ox_print_header(g, stdout);
    if (st == OX_OK)
        st = ox_graph_print(g, stdout);
    if (st == OX_OK && fflush(stdout) != 0)
        st = OX_EIO;
    int rc = OX_EXIT_OK;
    if (st != OX_OK) {
        fprintf(stderr, "oxport dump: %s: could not print the graph (%s)\n", path,
                ox_strerror(st));
        rc = OX_EXIT_FAILURE;
    }
    ox_graph_free(g);
    ox_context_free(ctx);
    return rc;
}
