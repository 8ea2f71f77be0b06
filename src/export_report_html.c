/*
 * The export report as one HTML page (export_report.h): no external files,
 * scripts or fonts, so it reads offline and can be attached to a bug.  The
 * graph picture is Graphviz's SVG inlined; a small inline script records
 * whether it is laid out visibly (data-svg-visible on <body>), which the
 * headless-browser test reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "export_report.h"
#include "picture.h"
#include "report.h"

/* Larger graphs are not drawn inline: dot takes minutes on them and the
 * picture is unreadable at page size; the page says how to draw a part. */
#define PICTURE_MAX_NODES 1500

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static void row(FILE *f, const char *key, const char *value)
{
    fputs("<tr><th>", f);
    esc(f, key);
    fputs("</th><td>", f);
    esc(f, value);
    fputs("</td></tr>\n", f);
}

static void problems(FILE *f, const ox_report *r)
{
    ox_report_group *g = NULL;
    size_t n = 0;
    if (r->n && ox_report_group_lines(r, &g, &n) != 0) {
        fputs("<p>(out of memory grouping the problems; see the message above)</p>\n", f);
        return;
    }
    fprintf(f, "<h2>Problems</h2>\n<p id=\"problem-count\">%zu problem%s, %zu distinct.</p>\n",
            r->n, r->n == 1 ? "" : "s", n);
    if (n) {
        fputs("<table class=\"problems\"><tr><th>problem</th><th>count</th><th>scopes</th></tr>\n", f);
        for (size_t i = 0; i < n; i++) {
            fputs("<tr><td>", f);
            esc(f, r->lines[g[i].first]);
            fprintf(f, "</td><td>%zu</td><td>", g[i].count);
            for (size_t k = 0; k < g[i].n_scopes; k++) {
                fputs(k ? "<br>" : "", f);
                esc(f, g[i].scopes[k]);
                fprintf(f, " (%zu)", g[i].scope_counts[k]);
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    ox_report_groups_free(g, n);
}

/* "aten::conv2d ×2, aten::relu" for the nodes of one scope. */
static void kinds_in_scope(FILE *f, const ox_graph *g, const char *scope)
{
    bool any = false;
    for (const ox_node *n = g ? g->first : NULL; n; n = n->next) {
        const char *s = n->scope ? n->scope : "";
        if (strcmp(s, scope) != 0)
            continue;
        bool seen = false;
        for (const ox_node *m = g->first; m != n && !seen; m = m->next)
            seen = strcmp(m->scope ? m->scope : "", scope) == 0 && strcmp(m->kind, n->kind) == 0;
        if (seen)
            continue;
        size_t count = 0;
        for (const ox_node *m = n; m; m = m->next)
            count += strcmp(m->scope ? m->scope : "", scope) == 0 && strcmp(m->kind, n->kind) == 0;
        fputs(any ? ", " : "", f);
        esc(f, n->domain && n->domain[0] ? n->kind : n->op_type);
        if (count > 1)
            fprintf(f, " &times;%zu", count);
        any = true;
    }
    if (!any)
        fputs("&mdash;", f);
}

static bool scope_listed(const ox_graph *g, const ox_node *upto, const char *scope)
{
    for (const ox_node *n = g->first; n && n != upto; n = n->next)
        if (strcmp(n->scope ? n->scope : "", scope) == 0)
            return true;
    return false;
}

/* Recorded operators and the ONNX nodes they became, module by module (a
 * converted node keeps the scope of the operator it came from). */
static void op_mapping(FILE *f, const ox_graph *traced, const ox_graph *written)
{
    fputs("<h2>Recorded operators and the ONNX nodes they became, by module</h2>\n", f);
    if (!traced) {
        fputs("<p>Nothing was recorded.</p>\n", f);
        return;
    }
    fputs("<table class=\"ops\"><tr><th>module (scope)</th><th>recorded</th><th>ONNX</th></tr>\n", f);
    for (int pass = 0; pass < 2; pass++) {
        const ox_graph *g = pass ? written : traced;
        for (const ox_node *n = g ? g->first : NULL; n; n = n->next) {
            const char *scope = n->scope ? n->scope : "";
            if (scope_listed(g, n, scope) || (pass && scope_listed(traced, NULL, scope)))
                continue;
            fputs("<tr><td>", f);
            esc(f, scope[0] ? scope : "(top level)");
            fputs("</td><td>", f);
            kinds_in_scope(f, traced, scope);
            fputs("</td><td>", f);
            if (written)
                kinds_in_scope(f, written, scope);
            else
                fputs("(not written)", f);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

/* Graphviz's SVG, from its <svg> element on (no XML prolog inside HTML). */
static void picture(FILE *f, ox_context *ctx, const ox_graph *written)
{
    fputs("<h2>Graph</h2>\n", f);
    if (!written) {
        fputs("<p>No file was written, so there is no graph to draw.</p>\n", f);
        return;
    }
    if (written->n_nodes > PICTURE_MAX_NODES) {
        fprintf(f, "<p>The graph has %u nodes, too many to draw on one page; draw a module with "
                   "<code>oxport dump FILE.onnx -o part.svg --scope PREFIX --depth N</code>.</p>\n",
                written->n_nodes);
        return;
    }
    char dir[] = "/tmp/oxport-report-XXXXXX";
    char path[sizeof dir + 16];
    if (!mkdtemp(dir)) {
        fprintf(f, "<p>Cannot draw the graph: %s.</p>\n", strerror(errno));
        return;
    }
    snprintf(path, sizeof path, "%s/graph.svg", dir);
    if (ox_picture_render(ctx, written, NULL, path, "svg") != OX_OK) {
        fputs("<p id=\"no-picture\">", f);
        esc(f, ox_errmsg(ctx));
        fputs("</p>\n", f);
    } else {
        FILE *in = fopen(path, "r");
        char buf[65536];
        size_t n;
        bool started = false;
        fputs("<div class=\"graph\">\n", f);
        while (in && (n = fread(buf, 1, sizeof buf - 1, in)) > 0) {
            buf[n] = '\0';
            const char *from = buf;
            if (!started) {
                const char *svg = strstr(buf, "<svg");
                if (!svg)
                    continue; /* the prolog is short: <svg comes in the first block */
                from = svg;
                started = true;
            }
            fwrite(from, 1, n - (size_t)(from - buf), f);
        }
        fputs("</div>\n", f);
        if (in)
            fclose(in);
        unlink(path);
    }
    rmdir(dir);
}

void ox_export_report_html(FILE *f, ox_context *ctx, const ox_export_facts *x,
                           const ox_graph *written, const char *message)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>oxport export "
          "report: ", f);
    esc(f, x->model);
    fputs("</title>\n<style>\n"
          "body{font-family:sans-serif;margin:2em;max-width:110em;color:#222}\n"
          "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
          "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n"
          "th{background:#f2f2f6}\n.ok{color:#070}.failed{color:#a00}\n"
          ".graph svg{max-width:100%;height:auto;border:1px solid #ddd}\n"
          "pre{white-space:pre-wrap;background:#f8f8f8;padding:.5em}\n"
          "</style></head>\n<body>\n<h1>Export report: ", f);
    esc(f, x->model);
    fputs("</h1>\n<table class=\"summary\">\n", f);
    row(f, "model", x->model);
    row(f, "output", x->target);
    char num[64];
    snprintf(num, sizeof num, "%d", x->status == OX_OK || !ctx->problems.n ? x->opset : ctx->problems_opset);
    row(f, "opset", num);
    fprintf(f, "<tr><th>result</th><td id=\"result\" class=\"%s\">%s</td></tr>\n",
            x->status == OX_OK ? "ok" : "failed", x->status == OX_OK ? "written" : "not written");
    if (written) {
        snprintf(num, sizeof num, "%u", written->n_nodes);
        row(f, "ONNX nodes", num);
        snprintf(num, sizeof num, "%u", written->n_params);
        row(f, "initializers", num);
    }
    if (x->traced) {
        snprintf(num, sizeof num, "%u", x->traced->n_nodes);
        row(f, "recorded operators", num);
    }
    fputs("</table>\n", f);
    if (message) {
        fputs("<h2>Message</h2>\n<pre id=\"message\">", f);
        esc(f, message);
        fputs("</pre>\n", f);
    }
    problems(f, &ctx->problems);
    const char *warnings = x->status == OX_OK ? ox_context_warnings(ctx) : "";
    if (warnings[0]) {
        /* one line each: what the file fixes to the example (fixed_counts.h) */
        fputs("<h2>Warnings</h2>\n<pre id=\"warnings\">", f);
        esc(f, warnings);
        fputs("</pre>\n", f);
    }
    fputs("<h2>Time per stage</h2>\n<table class=\"stages\"><tr><th>stage</th><th>seconds</th></tr>\n", f);
    for (size_t i = 0; i < x->n_stages; i++) {
        fputs("<tr><td>", f);
        esc(f, x->stages[i].name);
        fprintf(f, "</td><td>%.3f</td></tr>\n", x->stages[i].seconds);
    }
    fputs("</table>\n", f);
    op_mapping(f, x->traced, written);
    picture(f, ctx, written);
    /* For the headless-browser test: is the picture laid out and visible? */
    fputs("<script>\n(function(){var s=document.querySelector('.graph svg');"
          "var r=s?s.getBoundingClientRect():null;"
          "document.body.setAttribute('data-svg-visible',String(!!r&&r.width>0&&r.height>0&&"
          "getComputedStyle(s).visibility!=='hidden'));})();\n</script>\n</body></html>\n",
          f);
}
