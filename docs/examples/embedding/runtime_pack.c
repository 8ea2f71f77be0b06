/*
 * A host that defines an operator at run time: no .so, the pack descriptor
 * lives in the host's memory and is registered with ox_context_add_pack
 * (docs/embedding-c-host.md, "Operators defined at run time").
 *
 *   cc runtime_pack.c $(pkg-config --cflags --libs oxport) -o runtime_pack
 *   ./runtime_pack neg.onnx
 *
 * The descriptor is written with the SDK's initialisers (OX_PARAM, OX_OP):
 * they fill param_size, without which the engine cannot tell the row
 * stride of the parameter table and refuses the pack.
 */
#include <oxport/oxport.h>
#include <oxport/plugin_util.h>

#include <stdio.h>
#include <stdlib.h>

/* mylib::neg(self) -> ONNX Neg */
static int sym_neg(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_op1(g, api, "Neg", api->arg_tensor(g, "self")));
}

static const ox_param_decl params[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_op_decl ops[] = {OX_OP("mylib::neg", 9, params, 1, sym_neg)};
static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER, "mine", "1", "run-time ops", ops, sizeof ops / sizeof ops[0], NULL, NULL,
};

static void die(ox_context *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, ox_errmsg(ctx));
    exit(1);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "neg.onnx";
    ox_context *ctx;
    if (ox_context_new(0, &ctx) != OX_OK)
        return 1;
    if (ox_context_add_pack(ctx, &desc, "myhost:scripts") != OX_OK)
        die(ctx, "ox_context_add_pack");

    int64_t sizes[] = {2, 3};
    ox_trace *t;
    ox_vid vx, vy;
    if (ox_trace_begin(ctx, "Net", &t) != OX_OK ||
        ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &vx) != OX_OK)
        die(ctx, "trace");
    ox_tensor_desc out = {OX_FLOAT, 2, sizes};
    ox_arg args[] = {ox_arg_tensor("self", vx)};
    if (ox_trace_op(t, "mylib::neg", 1, args, 1, &out, &vy) != OX_OK ||
        ox_trace_output(t, vy, "y") != OX_OK)
        die(ctx, "record");
    ox_graph *g;
    if (ox_trace_finish(t, &g) != OX_OK)
        die(ctx, "finish");

    ox_export_options opts;
    ox_export_options_init(&opts);
    if (ox_export(ctx, g, path, &opts) != OX_OK)
        die(ctx, "export");
    printf("%s written\n", path);
    ox_graph_free(g);
    ox_context_free(ctx);
    return 0;
}
