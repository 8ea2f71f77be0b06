/*
 * oxport check FILE.onnx...: read each file and check it against the ONNX
 * rules and operator schemas (ox_check), one line per violation prefixed by the file
 * name, then a summary line per file.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oxport/json.h>
#include <oxport/oxport.h>

#include "commands.h"

static void check_usage(FILE *out)
{
    fprintf(out, "usage: oxport check [--format text|json] FILE.onnx [FILE.onnx...]\n\n"
                 "Check ONNX files in the spirit of onnx.checker: ir_version and opset\n"
                 "imports, SSA (each value defined once), inputs defined before use, unique\n"
                 "initializers, typed graph inputs and outputs, well-formed attributes, and\n"
                 "each node against its operator schema (default domain up to opset 21):\n"
                 "operator, input/output counts, attributes, element types.\n"
                 "Prints one line per violation,\n"
                 "'FILE: <violation>', then 'FILE: OK' or 'FILE: N violations'.\n\n"
                 "options:\n"
                 "  --format FORMAT  text (default) or json (docs/json-output.md)\n"
                 "  -h, --help       show this help\n\n"
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

/* One file's entry in the JSON document: the lines ox_check wrote become
 * the "violations" array. */
static void json_file(ox_json *j, const char *path, const char *error, const char *text,
                      size_t len, bool valid)
{
    ox_json_object(j);
    ox_json_key(j, "file");
    ox_json_string(j, path);
    ox_json_key(j, "readable");
    ox_json_bool(j, error == NULL);
    ox_json_key(j, "error");
    ox_json_string(j, error);
    ox_json_key(j, "valid");
    ox_json_bool(j, valid);
    ox_json_key(j, "violations");
    ox_json_array(j);
    size_t start = 0;
    while (text && start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        ox_json_string_n(j, text + start, end - start);
        start = end + 1;
    }
    ox_json_array_end(j);
    ox_json_object_end(j);
}

static int check_one(ox_context *ctx, const char *path, ox_json *j)
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
        if (j)
            json_file(j, path, msg, NULL, 0, false);
        else
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
        bool valid = st == OX_OK && n == 0;
        rc = valid ? OX_EXIT_OK : OX_EXIT_FINDINGS;
        if (j) {
            json_file(j, path, NULL, text, len, valid);
        } else {
            emit_prefixed(path, text, len);
            if (valid)
                printf("%s: OK\n", path);
            else
                printf("%s: %zu violation%s\n", path, n, n == 1 ? "" : "s");
        }
    } else {
        if (j)
            json_file(j, path, ox_errmsg(ctx), NULL, 0, false);
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
    bool json = false;
    const char **files = calloc((size_t)argc, sizeof *files);
    if (!files) {
        fprintf(stderr, "oxport check: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            check_usage(stdout);
            free(files);
            return OX_EXIT_OK;
        }
        if (strcmp(a, "--format") == 0) {
            const char *f = i + 1 < argc ? argv[++i] : NULL;
            if (!f || (strcmp(f, "json") && strcmp(f, "text"))) {
                if (f)
                    fprintf(stderr, "oxport check: --format expects text or json, got '%s'\n", f);
                else
                    fprintf(stderr, "oxport check: --format needs a value\n");
                free(files);
                return OX_EXIT_USAGE;
            }
            json = strcmp(f, "json") == 0;
            continue;
        }
        if (a[0] == '-' && a[1] != '\0') {
            free(files);
            fprintf(stderr, "oxport check: unknown option '%s'\n", a);
            check_usage(stderr);
            return OX_EXIT_USAGE;
        }
        files[n_files++] = a;
    }
    if (n_files == 0) {
        free(files);
        fprintf(stderr, "oxport check: missing FILE.onnx\n");
        check_usage(stderr);
        return OX_EXIT_USAGE;
    }
    ox_context *ctx = NULL;
    if (ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx) != OX_OK) {
        free(files);
        fprintf(stderr, "oxport check: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    /* The worst outcome wins: unreadable (2) and internal failure (3)
     * outrank violations (1). */
    int rc = OX_EXIT_OK;
    ox_json *j = NULL;
    if (json && !(j = ox_json_new(stdout))) {
        free(files);
        ox_context_free(ctx);
        fprintf(stderr, "oxport check: out of memory\n");
        return OX_EXIT_FAILURE;
    }
    if (j) {
        ox_json_document(j, "check");
        ox_json_key(j, "files");
        ox_json_array(j);
    }
    for (int i = 0; i < n_files; i++) {
        int r = check_one(ctx, files[i], j);
        if (r > rc)
            rc = r;
    }
    if (j) {
        ox_json_array_end(j);
        ox_json_key(j, "exit_status");
        ox_json_int(j, rc);
        if (!ox_json_finish(j) && rc < OX_EXIT_FAILURE)
            rc = OX_EXIT_FAILURE;
        ox_json_free(j);
    }
    if (fflush(stdout) != 0 && rc < OX_EXIT_FAILURE)
        rc = OX_EXIT_FAILURE;
    free(files);
    ox_context_free(ctx);
    return rc;
}
