/*
 * oxport dump FILE.onnx: read any ONNX file and print it in the verbose
 * graph format under a one-line model summary, as JSON, or draw it
 * (Graphviz DOT, SVG, PNG; ox_graph_picture).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oxport/oxport.h>

#include "commands.h"
#include "output_paths.h"

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: oxport dump FILE.onnx [--no-header] [--format text|json]\n"
                 "       oxport dump FILE.onnx --format dot|svg|png [-o PICTURE] [--scope PREFIX]\n"
                 "                   [--depth N]\n\n"
                 "Print an ONNX file (from oxport or any other exporter) in the verbose\n"
                 "graph format of torch.onnx, after a summary line:\n"
                 "  ir_version=7 opsets=[ai.onnx:13] producer=... graph=... nodes=N\n"
                 "  initializers=N inputs=N outputs=N\n"
                 "or as JSON (docs/json-output.md), or draw it: modules as nested boxes,\n"
                 "initializers listed in the node that reads them, tensor types on the edges.\n\n"
                 "options:\n"
                 "  --no-header      omit the summary line (text)\n"
                 "  --format FORMAT  text (default), json, dot (Graphviz text), svg or png\n"
                 "                   (svg and png need Graphviz's 'dot' program)\n"
                 "  -o, --output PICTURE\n"
                 "                   write the picture there (atomically); the format follows\n"
                 "                   a .dot/.svg/.png name when --format is not given.\n"
                 "                   dot without -o goes to standard output\n"
                 "  --scope PREFIX   draw only the module PREFIX (a node scope such as\n"
                 "                   'AlexNet/Sequential[features]') and what is inside it\n"
                 "  --depth N        draw N module levels below the scope as boxes; deeper\n"
                 "                   modules become one box each, with their node count\n"
                 "  -h, --help       show this help\n\n"
                 "exit status: 0 printed, 2 usage error or unreadable file, 3 write error\n"
                 "or Graphviz failure\n");
}

typedef enum dump_format { FMT_TEXT, FMT_JSON, FMT_DOT, FMT_SVG, FMT_PNG } dump_format;

static const char *const format_names[] = {"text", "json", "dot", "svg", "png"};

static int parse_format(const char *s, dump_format *out)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (dump_format)i;
            return 0;
        }
    }
    return -1;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("oxport dump: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return OX_EXIT_USAGE;
}

int cmd_dump(int argc, char **argv)
{
    const char *path = NULL, *output = NULL, *scope = NULL;
    int header = 1, depth = -1, format_given = 0;
    dump_format format = FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool takes = !strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
                     !strcmp(a, "--scope") || !strcmp(a, "--depth");
        if (takes && i + 1 >= argc)
            return usage_error("%s needs a value", a);
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            dump_usage(stdout);
            return OX_EXIT_OK;
        } else if (strcmp(a, "--no-header") == 0) {
            header = 0;
        } else if (strcmp(a, "--format") == 0) {
            const char *f = argv[++i];
            if (parse_format(f, &format) != 0)
                return usage_error("--format expects text, json, dot, svg or png, got '%s'", f);
            format_given = 1;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            output = argv[++i];
        } else if (strcmp(a, "--scope") == 0) {
            scope = argv[++i];
        } else if (strcmp(a, "--depth") == 0) {
            const char *d = argv[++i];
            char *end;
            errno = 0;
            long v = strtol(d, &end, 10);
            if (errno || end == d || *end || v < 0 || v > 1000)
                return usage_error("--depth expects a number of module levels (0 or more), "
                                   "got '%s'", d);
            depth = (int)v;
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
    if (output && !format_given) {
        const char *f = ox_picture_format_of(output);
        if (!f)
            return usage_error("cannot tell the picture format from '%s': name it *.dot, *.svg "
                               "or *.png, or give --format", output);
        parse_format(f, &format);
    }
    bool picture = format == FMT_DOT || format == FMT_SVG || format == FMT_PNG;
    if (!picture && output)
        return usage_error("-o writes pictures (--format dot, svg or png); %s goes to "
                           "standard output", format_names[format]);
    if (!picture && (scope || depth >= 0))
        return usage_error("%s applies to pictures (--format dot, svg or png)",
                           scope ? "--scope" : "--depth");
    if ((format == FMT_SVG || format == FMT_PNG) && !output)
        return usage_error("--format %s writes a file: give -o PICTURE", format_names[format]);
    if (output && ox_cli_same_file(output, path))
        return usage_error("-o '%s' is the model being read; the picture would replace it",
                           output);

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
    int rc = OX_EXIT_OK;
    if (picture && scope && scope[0] && ox_graph_picture_count(g, scope, depth) == 0) {
        /* before drawing, -o or not: the library's message would name the
         * picture, and the scope is a fault of the model's reading */
        fprintf(stderr, "oxport dump: %s: no node of graph '%s' is in scope '%s'\n", path,
                ox_graph_name(g), scope);
        rc = OX_EXIT_USAGE;
    } else if (picture && output) {
        if (ox_graph_picture(ctx, g, output, format_names[format], scope, depth) != OX_OK) {
            fprintf(stderr, "oxport dump: %s\n", ox_errmsg(ctx));
            rc = OX_EXIT_FAILURE;
        }
    } else {
        ox_status st = OX_OK;
        if (picture) {
            st = ox_graph_picture_dot(g, scope, depth, stdout);
        } else if (format == FMT_JSON) {
            st = ox_graph_print_json(g, path, stdout);
        } else {
            if (header)
                st = ox_graph_print_header(g, stdout);
            if (st == OX_OK)
                st = ox_graph_print(g, stdout);
        }
        if (st == OX_OK && fflush(stdout) != 0)
            st = OX_EIO;
        if (st != OX_OK) {
            fprintf(stderr, "oxport dump: %s: could not print the graph (%s)\n", path,
                    ox_strerror(st));
            rc = OX_EXIT_FAILURE;
        }
    }
    ox_graph_free(g);
    ox_context_free(ctx);
    return rc;
}
