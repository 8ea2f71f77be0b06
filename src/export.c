/*
 * The public entry points that run the pipeline (pipeline.h): ox_convert
 * (the stages up to naming), ox_export (every stage, then the verbose
 * listing, the check and the serializer) and ox_write (io-layout and the
 * serializer, for any ONNX graph).  ox_export's graph lives only for the
 * call; its parameters borrow the traced graph's bytes, which borrow the
 * host's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_job.h"
#include "context.h"
#include "fixed_counts.h"
#include "ir.h"
#include "onnx_write.h"
#include "pipeline.h"
#include "report.h"
#include "oxport/oxport.h"

void ox_export_options_init(ox_export_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = (uint32_t)sizeof(*opts);
    opts->opset = 0;
    opts->export_params = 1;
    opts->keep_initializers_as_inputs = -1;
    opts->external_data_threshold = 0; /* the writer's default (1 KiB) */
    opts->external_data = 0;
    opts->do_constant_folding = 1;
    opts->producer_name = "oxport";
    opts->producer_version = ox_version();
    opts->check = 1;
}

/* The smallest struct a host may pass: everything up to producer_version
 * existed in 0.1. */
#define EXPORT_OPTIONS_MIN_0_1 \
    (offsetof(ox_export_options, producer_version) + sizeof(const char *))

/* The export's check, running beside the writer. */
typedef struct export_check {
    ox_context *ctx;
    const ox_graph *g;
    ox_check_job *job;
    ox_status st;
    bool finished;
} export_check;

static ox_status check_gate(void *user)
{
    export_check *ec = user;
    ec->st = ox_check_finish(ec->ctx, ec->g, ec->job);
    ec->finished = true;
    return ec->st;
}

/* The export's warnings, as the context's: the file's sizes fixed to the
 * example that a dynamic axis would change (fixed_counts.h), then what the
 * stages noted (an option that matched nothing). */
static ox_status note_warnings(ox_context *ctx, const ox_pipeline *p)
{
    ox_report r;
    ox_report_init(&r);
    int rc = ox_fixed_counts_warn(p->g, p->layout.shapes, ctx->size_reads, ctx->n_size_reads, &r);
    for (size_t i = 0; rc == 0 && i < p->notes.n; i++)
        ox_report_add(&r, "%s", p->notes.lines[i]);
    if (rc == 0 && (r.oom || p->notes.oom))
        rc = -1;
    if (rc == 0 && r.n && !(ctx->warnings = ox_report_join(&r, NULL)))
        rc = -1;
    ox_report_free(&r);
    return rc ? ox_fail(ctx, OX_ENOMEM, "ox_export: out of memory noting the export's warnings")
              : OX_OK;
}

ox_status ox_export(ox_context *ctx, const ox_graph *traced, const char *path,
                    const ox_export_options *opts)
{
    if (!ctx)
        return OX_EINVAL;
    if (!traced)
        return ox_fail(ctx, OX_EINVAL, "ox_export: graph is NULL");
    if (!path || !*path)
        return ox_fail(ctx, OX_EINVAL, "ox_export: path is NULL or empty");
    ox_export_options o;
    ox_export_options_init(&o);
    if (opts) {
        if (opts->struct_size < EXPORT_OPTIONS_MIN_0_1 || opts->struct_size > sizeof(o))
            return ox_fail(ctx, OX_EINVAL,
                           "ox_export: options struct_size is %u, expected %zu; initialize the "
                           "options with ox_export_options_init",
                           (unsigned)opts->struct_size, sizeof(o));
        memcpy(&o, opts, opts->struct_size);
        o.struct_size = (uint32_t)sizeof(o);
    }
    free(ctx->warnings);
    ctx->warnings = NULL;
    ox_pipeline p;
    ox_pipeline_init(&p, ctx, traced, o.opset, &o);
    ox_status st = ox_pipeline_run(&p);
    if (st != OX_OK) {
        ox_pipeline_free(&p);
        return st;
    }
    if ((st = note_warnings(ctx, &p)) != OX_OK) {
        ox_pipeline_free(&p);
        return st;
    }
    if (o.verbose && (st = ox_graph_print(p.g, o.verbose)) != OX_OK) {
        ox_pipeline_free(&p);
        return ox_fail(ctx, st, "ox_export: printing the graph (verbose) failed: %s",
                       ox_strerror(st));
    }
    /* The file must pass the checker (as torch.onnx runs onnx.checker).  The
     * check reads the graph while the writer writes it (check_job.h), and the
     * writer asks for its outcome before it commits: a failure leaves no
     * file, as when the check ran first. */
    if (!o.check) {
        st = ox_onnx_write(ctx, &p.layout, path, &o);
        ox_pipeline_free(&p);
        return st;
    }
    export_check ec = {ctx, p.g, ox_check_start(p.g), OX_OK, false};
    st = ox_onnx_write_gated(ctx, &p.layout, path, &o, check_gate, &ec);
    if (!ec.finished)
        check_gate(&ec); /* the write stopped early: its error stands, unless the check failed */
    ox_pipeline_free(&p);
    if (ec.st != OX_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", ox_errmsg(ctx));
        return ox_fail(ctx, ec.st, "ox_export: %s; %s was not written (check=0 skips the check)",
                       why, path);
    }
    return st;
}

ox_status ox_convert(ox_context *ctx, const ox_graph *traced, int opset, ox_graph **out)
{
    if (!ctx)
        return OX_EINVAL;
    if (!out)
        return ox_fail(ctx, OX_EINVAL, "ox_convert: out is NULL");
    *out = NULL;
    ox_pipeline p;
    ox_pipeline_init(&p, ctx, traced, opset, NULL);
    ox_status st = ox_pipeline_run(&p);
    if (st == OX_OK)
        *out = ox_pipeline_take_graph(&p);
    ox_pipeline_free(&p);
    return st;
}

/* The first sparse initializer of g or of a subgraph of its nodes (a graph
 * read from a file), NULL when none.  The reader bounds the nesting. */
static const ox_value *first_sparse(const ox_graph *g)
{
    if (g->n_sparse)
        return ox_graph_value(g, g->sparse[0].id);
    for (const ox_node *n = g->first; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_attrs; i++) {
            const ox_attr *a = &n->attrs[i];
            const ox_value *v = NULL;
            if (a->kind == OX_ATTR_GRAPH && a->u.g)
                v = first_sparse(a->u.g);
            for (size_t k = 0; !v && a->kind == OX_ATTR_GRAPHS && k < a->u.graphs.n; k++)
                if (a->u.graphs.p[k])
                    v = first_sparse(a->u.graphs.p[k]);
            if (v)
                return v;
        }
    }
    return NULL;
}

ox_status ox_write(ox_context *ctx, const ox_graph *g, const char *path,
                   const ox_export_options *opts)
{
    if (!g || !path || !path[0])
        return ox_fail(ctx, OX_EINVAL, "ox_write: %s is %s", !g ? "graph" : "path",
                       !g ? "NULL" : path ? "empty" : "NULL");
    if (g->is_trace)
        return ox_fail(ctx, OX_EINVAL,
                       "ox_write: graph %s is a traced graph, whose aten:: nodes are no ONNX "
                       "operators; convert it first (ox_convert), or write it with ox_export",
                       g->name ? g->name : "");
    const ox_value *sparse = first_sparse(g);
    if (sparse)
        return ox_fail(ctx, OX_EUNSUPPORTED,
                       "ox_write: graph %s has a sparse initializer ('%s'), which oxport reads "
                       "but does not write; nothing was written",
                       g->name ? g->name : "", sparse->name ? sparse->name : "");
    ox_io_layout layout;
    ox_status st = ox_io_layout_plan(ctx, g, opts, &layout);
    if (st == OX_OK)
        st = ox_onnx_write(ctx, &layout, path, opts);
    ox_io_layout_free(&layout);
    return st;
}
