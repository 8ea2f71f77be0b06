#include "export_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "ir.h"
#include "json_out.h"
#include "report.h"
#include "write_files.h"

const char *ox_export_report_format(const char *path)
{
    if (!path)
        return NULL;
    if (strcmp(path, "-") == 0)
        return "json";
    const char *dot = strrchr(path, '.');
    if (dot && !strchr(dot, '/') && strcasecmp(dot, ".json") == 0)
        return "json";
    if (dot && !strchr(dot, '/') && (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0))
        return "html";
    return NULL;
}

static const char *status_name(ox_status st)
{
    static const char *const names[] = {"OX_OK", "OX_EINVAL", "OX_ENOMEM", "OX_EIO",
                                        "OX_EFORMAT", "OX_EUNSUPPORTED", "OX_EPLUGIN",
                                        "OX_ECONFIG", "OX_ESTATE", "OX_ECHECK"};
    return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "unknown";
}

static void json_problems(ox_json *j, const ox_report *r)
{
    ox_report_group *groups = NULL;
    size_t n = 0;
    if (ox_report_group_lines(r, &groups, &n) != 0)
        n = 0; /* out of memory: the message still holds every line */
    ox_json_array(j);
    for (size_t i = 0; i < n; i++) {
        const ox_report_group *g = &groups[i];
        ox_json_object(j);
        ox_json_key(j, "message");
        ox_json_string(j, r->lines[g->first]);
        ox_json_key(j, "count");
        ox_json_uint(j, g->count);
        ox_json_key(j, "scopes");
        ox_json_array(j);
        for (size_t k = 0; k < g->n_scopes; k++) {
            ox_json_object(j);
            ox_json_key(j, "scope");
            ox_json_string(j, g->scopes[k]);
            ox_json_key(j, "count");
            ox_json_uint(j, g->scope_counts[k]);
            ox_json_object_end(j);
        }
        ox_json_array_end(j);
        ox_json_object_end(j);
    }
    ox_json_array_end(j);
    ox_report_groups_free(groups, n);
}

/* What the written file holds: counts and the op histogram. */
static void json_summary(ox_json *j, const ox_graph *g)
{
    if (!g) {
        ox_json_null(j);
        return;
    }
    ox_json_object(j);
    ox_json_key(j, "nodes");
    ox_json_uint(j, g->n_nodes);
    ox_json_key(j, "initializers");
    ox_json_uint(j, g->n_params);
    ox_json_key(j, "inputs");
    ox_json_uint(j, g->n_inputs);
    ox_json_key(j, "outputs");
    ox_json_uint(j, g->n_outputs);
    ox_json_key(j, "ops");
    ox_json_object(j);
    /* first-seen order; quadratic in the number of distinct op types only */
    for (const ox_node *n = g->first; n; n = n->next) {
        bool seen = false;
        for (const ox_node *m = g->first; m != n && !seen; m = m->next)
            seen = strcmp(m->kind, n->kind) == 0;
        if (seen)
            continue;
        size_t count = 0;
        for (const ox_node *m = n; m; m = m->next)
            count += strcmp(m->kind, n->kind) == 0;
        ox_json_key(j, n->domain && n->domain[0] ? n->kind : n->op_type);
        ox_json_uint(j, count);
    }
    ox_json_object_end(j);
    ox_json_object_end(j);
}

/* Newline-separated lines as a JSON array of strings. */
static void json_lines(ox_json *j, const char *lines)
{
    ox_json_array(j);
    while (*lines) {
        const char *end = strchr(lines, '\n');
        size_t len = end ? (size_t)(end - lines) : strlen(lines);
        ox_json_string_n(j, lines, len);
        lines += len + (end ? 1 : 0);
    }
    ox_json_array_end(j);
}

static void write_json(FILE *f, ox_context *ctx, const ox_export_facts *x, const ox_graph *written,
                       const char *message)
{
    ox_json j;
    ox_json_init(&j, f);
    ox_json_document(&j, "export");
    ox_json_key(&j, "model");
    ox_json_string(&j, x->model);
    ox_json_key(&j, "output");
    ox_json_string(&j, x->target);
    ox_json_key(&j, "opset");
    ox_json_int(&j, x->status == OX_OK || !ctx->problems.n ? x->opset : ctx->problems_opset);
    ox_json_key(&j, "ok");
    ox_json_bool(&j, x->status == OX_OK);
    ox_json_key(&j, "status");
    ox_json_string(&j, status_name(x->status));
    ox_json_key(&j, "message");
    ox_json_string(&j, message);
    ox_json_key(&j, "problem_count");
    ox_json_uint(&j, ctx->problems.n);
    ox_json_key(&j, "problems");
    json_problems(&j, &ctx->problems);
    ox_json_key(&j, "warnings");
    json_lines(&j, x->status == OX_OK ? ox_context_warnings(ctx) : "");
    ox_json_key(&j, "stages");
    ox_json_array(&j);
    for (size_t i = 0; i < x->n_stages; i++) {
        ox_json_object(&j);
        ox_json_key(&j, "name");
        ox_json_string(&j, x->stages[i].name);
        ox_json_key(&j, "seconds");
        ox_json_double(&j, x->stages[i].seconds);
        ox_json_object_end(&j);
    }
    ox_json_array_end(&j);
    ox_json_key(&j, "summary");
    json_summary(&j, written);
    ox_json_object_end(&j);
    fputc('\n', f);
}

ox_status ox_export_report_write(ox_context *ctx, const char *path, const ox_export_facts *x)
{
    const char *format = ox_export_report_format(path);
    if (!format)
        return ox_fail(ctx, OX_EINVAL, "report %s: name the file *.json or *.html (or '-' for "
                                       "JSON on standard output)", path);
    bool to_stdout = strcmp(path, "-") == 0;
    bool html = strcmp(format, "html") == 0;
    char *tmp = NULL;
    FILE *f = stdout;
    if (!to_stdout) {
        size_t len = strlen(path) + 16;
        tmp = malloc(len);
        if (!tmp)
            return ox_fail(ctx, OX_ENOMEM, "report %s: out of memory", path);
        snprintf(tmp, len, "%s.tmpXXXXXX", path);
        int fd = mkstemp(tmp);
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            int e = errno;
            if (fd >= 0) {
                close(fd);
                unlink(tmp);
            }
            free(tmp);
            return ox_fail(ctx, OX_EIO, "cannot write the report %s: %s", path, strerror(e));
        }
    }
    /* The message first: reading the file back replaces it. */
    char *message = x->status == OX_OK ? NULL : strdup(ox_errmsg(ctx));
    ox_graph *written = NULL;
    if (x->status == OX_OK && ox_read(ctx, x->target, &written) != OX_OK)
        written = NULL;
    if (html)
        ox_export_report_html(f, ctx, x, written, message);
    else
        write_json(f, ctx, x, written, message);
    ox_graph_free(written);
    free(message);
    bool ok = !ferror(f) && fflush(f) == 0;
    int e = errno;
    if (!to_stdout) {
        ok = fclose(f) == 0 && ok;
        if (ok) {
            mode_t mask = umask(0);
            umask(mask);
            chmod(tmp, 0666 & ~mask);
        }
        if (!ok || (e = ox_put_in_place(tmp, path)) != 0) {
            unlink(tmp);
            free(tmp);
            return ox_fail(ctx, OX_EIO, "cannot write the report %s: %s", path, strerror(e));
        }
        free(tmp);
    } else if (!ok) {
        return ox_fail(ctx, OX_EIO, "cannot write the report to standard output: %s", strerror(e));
    }
    ox_clear_error(ctx);
    return OX_OK;
}

OX_API ox_status ox_export_report(ox_context *ctx, const ox_graph *traced, const char *target,
                                  int opset, ox_status export_status,
                                  const char *const *stage_names, const double *stage_seconds,
                                  size_t n_stages, const char *path)
{
    return ox_export_report_named(ctx, NULL, traced, target, opset, export_status, stage_names,
                                  stage_seconds, n_stages, path);
}

OX_API ox_status ox_export_report_named(ox_context *ctx, const char *model,
                                        const ox_graph *traced, const char *target, int opset,
                                        ox_status export_status,
                                        const char *const *stage_names,
                                        const double *stage_seconds, size_t n_stages,
                                        const char *path)
{
    if (!ctx)
        return OX_EINVAL;
    if (!path || !target)
        return ox_fail(ctx, OX_EINVAL, "ox_export_report: path and target are required");
    ox_export_facts f;
    memset(&f, 0, sizeof f);
    f.model = model ? model : traced && traced->name ? traced->name : "";
    f.target = target;
    f.opset = opset ? opset : ox_context_target_opset(ctx);
    f.status = export_status;
    f.traced = traced;
    for (size_t i = 0; i < n_stages && i < OX_EXPORT_MAX_STAGES; i++) {
        f.stages[i].name = stage_names && stage_names[i] ? stage_names[i] : "";
        f.stages[i].seconds = stage_seconds ? stage_seconds[i] : 0;
        f.n_stages++;
    }
    return ox_export_report_write(ctx, path, &f);
}
