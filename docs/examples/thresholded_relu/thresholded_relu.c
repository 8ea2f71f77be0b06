/*
 * An out-of-tree symbolic pack with one operator: a custom operator of a
 * library of the user's own, mylib::thresholded_relu -> ONNX ThresholdedRelu.
 *
 *   mylib::thresholded_relu(self: T, alpha: float = 1.0)
 *
 * ONNX ThresholdedRelu (opset 10 onwards) computes x > alpha ? x : 0, for
 * floating tensors only.  Build with the Makefile next to this file; see
 * docs/writing-a-plugin.md.
 */
#include <oxport/plugin_util.h>

/* What no opset of ONNX ThresholdedRelu can express, reported by the pre-scan
 * before any node is built (and listed by `oxport ops`): api->limit's 0 says
 * no opset lifts it. */
static int check_thresholded_relu(ox_sym *g, const ox_api *api)
{
    ox_dtype t = api->dtype(g, api->arg_tensor(g, "self"));
    if (!oxu_is_floating(t))
        return api->limit(g, 0, "ONNX ThresholdedRelu takes floating tensors only (got element "
                                "type %d)",
                          (int)t);
    return 0;
}

static int sym_thresholded_relu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "ThresholdedRelu", 1, &x, 1);
    /* an unrecorded alpha reads as the declared default below */
    if (n)
        api->attr_float(n, "alpha", api->arg_float(g, "alpha", 1.0));
    return oxu_set_result(g, api, 0, oxu_out(g, api, n, "ThresholdedRelu"));
}

/* The operator's one schema: names exactly as hosts record them (the
 * PyTorch host records a custom operator's arguments by its schema's names),
 * kinds, and the defaults the schema declares (plugin ABI 1.1). */
static const ox_param_decl thresholded_relu_params[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    OX_PARAM_FLOAT("alpha", OX_ARG_FLOAT, 1.0),
};

static const ox_op_decl ops[] = {
    /* name, since_opset, params, n_outputs, symbolic, flags, check hook */
    OX_OP_EX("mylib::thresholded_relu", 10, thresholded_relu_params, 1, sym_thresholded_relu, 0,
             check_thresholded_relu),
};

static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "thresholded_relu",                                  /* name */
    "1.0",                                               /* version */
    "mylib::thresholded_relu as ONNX ThresholdedRelu",   /* description */
    ops,
    sizeof ops / sizeof ops[0],
    NULL,                                                /* init: nothing to set up */
    NULL,                                                /* fini */
};

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    return &desc;
}
