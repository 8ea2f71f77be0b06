/*
 * The smallest complete embedding of oxport in a C framework: run one zoo
 * model with tracing on and write it as ONNX.  Built out of tree against the
 * installed engine with the one-line command in docs/embedding-c-host.md,
 * then: ./export-example superresolution sr.onnx
 */
#include <stdio.h>

#include <oxport/oxport.h>

#include "zoo/zoo.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MODEL OUT.onnx\n", argv[0]);
        return 2;
    }
    const hc_zoo_model *z = hc_zoo_find(argv[1]);
    if (!z) {
        fprintf(stderr, "unknown model %s\n", argv[1]);
        return 2;
    }
    ox_context *ctx;
    if (ox_context_new(0, &ctx) != OX_OK)
        return 3;
    int rc = 3;
    hc_model m;
    if (hc_zoo_build(z, &m, 0, 0) != 0)
        goto out_ctx;

    /* 1. Begin a trace named after the root module. */
    ox_trace *trace;
    if (ox_trace_begin(ctx, z->trace_name, &trace) != OX_OK)
        goto out_model;
    /* 2. Run the forward with recording on: inputs, parameters, every op. */
    hc_rt rt;
    hc_rt_init(&rt, ctx, trace);
    hc_tensor *in[HC_ZOO_MAX_IO], *out[HC_ZOO_MAX_IO];
    if (hc_zoo_run(z, &m, &rt, 1, in, out) != 0 || rt.status != OX_OK) {
        fprintf(stderr, "tracing failed: %s\n", rt.errmsg);
        ox_trace_abort(trace);
        goto out_rt;
    }
    /* 3. Finish the trace and export; the weights are still the host's. */
    ox_graph *graph;
    if (ox_trace_finish(trace, &graph) != OX_OK) {
        fprintf(stderr, "%s\n", ox_errmsg(ctx));
        goto out_rt;
    }
    ox_export_options opts;
    ox_export_options_init(&opts);
    ox_status st = ox_export(ctx, graph, argv[2], &opts);
    if (st != OX_OK)
        fprintf(stderr, "export failed: %s\n", ox_errmsg(ctx));
    else
        printf("wrote %s: %zu traced ops\n", argv[2], ox_graph_node_count(graph));
    rc = st == OX_OK ? 0 : st == OX_EUNSUPPORTED ? 1 : 3;
    ox_graph_free(graph);
out_rt:
    hc_rt_release(&rt);
out_model:
    hc_model_free(&m);
out_ctx:
    ox_context_free(ctx);
    return rc;
}
