/*
 * A complete minimal host: it "runs" a two-layer network on the CPU, records
 * each operator through the tracer API, and exports the trace to ONNX.
 *
 *   cc minimal_host.c $(pkg-config --cflags --libs oxport) -o minimal_host
 *   ./minimal_host tiny.onnx        # prints the host's own output values
 */
#include <oxport/oxport.h>

#include <stdio.h>
#include <stdlib.h>

#define IN 4
#define HIDDEN 3

static void die(ox_context *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, ox_errmsg(ctx));
    exit(1);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tiny.onnx";
    /* The host's own tensors: weights stay here; the engine borrows them. */
    float x[IN] = {1.0f, -2.0f, 0.5f, 3.0f};
    float w[HIDDEN * IN] = {0.1f, 0.2f, 0.3f, 0.4f, -0.5f, 0.6f, -0.7f, 0.8f, 0.9f, -1.0f, 1.1f, -1.2f};
    float b[HIDDEN] = {0.01f, -0.02f, 0.03f};

    ox_context *ctx;
    if (ox_context_new(0, &ctx) != OX_OK)
        return 1;
    ox_trace *t;
    if (ox_trace_begin(ctx, "TinyNet", &t) != OX_OK)
        die(ctx, "trace");

    int64_t x_shape[] = {1, IN}, w_shape[] = {HIDDEN, IN}, b_shape[] = {HIDDEN}, y_shape[] = {1, HIDDEN};
    ox_vid vx, vw, vb, vh, vy;
    if (ox_trace_input(t, "x", OX_FLOAT, 2, x_shape, &vx) != OX_OK ||
        ox_trace_param(t, "fc.weight", OX_FLOAT, 2, w_shape, w, OX_BORROW, &vw) != OX_OK ||
        ox_trace_param(t, "fc.bias", OX_FLOAT, 1, b_shape, b, OX_BORROW, &vb) != OX_OK)
        die(ctx, "declare");

    /* Run linear, then record it with the ATen schema's argument names. */
    float h[HIDDEN], y[HIDDEN];
    for (int o = 0; o < HIDDEN; o++) {
        h[o] = b[o];
        for (int i = 0; i < IN; i++)
            h[o] += w[o * IN + i] * x[i];
    }
    ox_tensor_desc out = {OX_FLOAT, 2, y_shape};
    ox_trace_push_scope(t, "Linear[fc]");
    ox_arg linear[] = {ox_arg_tensor("input", vx), ox_arg_tensor("weight", vw), ox_arg_tensor("bias", vb)};
    if (ox_trace_op(t, "aten::linear", 3, linear, 1, &out, &vh) != OX_OK)
        die(ctx, "linear");
    ox_trace_pop_scope(t);

    for (int o = 0; o < HIDDEN; o++)
        y[o] = h[o] > 0 ? h[o] : 0;
    ox_trace_push_scope(t, "ReLU[act]");
    ox_arg relu[] = {ox_arg_tensor("self", vh)};
    if (ox_trace_op(t, "aten::relu", 1, relu, 1, &out, &vy) != OX_OK)
        die(ctx, "relu");
    ox_trace_pop_scope(t);

    ox_graph *g;
    if (ox_trace_output(t, vy, "y") != OX_OK || ox_trace_finish(t, &g) != OX_OK)
        die(ctx, "finish");

    ox_export_options opts;
    ox_export_options_init(&opts);
    opts.opset = 13;
    opts.verbose = stderr; /* the seed's graph listing */
    if (ox_export(ctx, g, path, &opts) != OX_OK)
        die(ctx, "export");

    for (int o = 0; o < HIDDEN; o++)
        printf("%.9g\n", y[o]);
    ox_graph_free(g); /* after the export: the weights were borrowed until then */
    ox_context_free(ctx);
    return 0;
}
