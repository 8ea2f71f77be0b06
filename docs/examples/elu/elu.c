/*
 * An out-of-tree symbolic pack with one operator: aten::elu -> ONNX Elu.
 *
 *   aten::elu(self: T, alpha: scalar = 1, scale: scalar = 1, input_scale: scalar = 1)
 *
 * ONNX Elu (opset 6 onwards) computes x > 0 ? x : alpha * (exp(x) - 1); it
 * has no scale or input_scale, so only the plain ELU (both 1) exports.
 * Build with the Makefile next to this file; see docs/writing-a-plugin.md.
 */
#include <oxport/plugin_util.h>

/* What no opset of ONNX Elu can express, reported by the pre-scan before any
 * node is built (and listed by `oxport ops`): api->limit's 0 says no opset
 * lifts it. */
static int check_elu(ox_sym *g, const ox_api *api)
{
    double scale = api->arg_float(g, "scale", 1.0);
    double input_scale = api->arg_float(g, "input_scale", 1.0);
    if (scale != 1.0 || input_scale != 1.0)
        return api->limit(g, 0, "ONNX Elu has no scale/input_scale (got scale=%g, input_scale=%g)",
                          scale, input_scale);
    return 0;
}

static int sym_elu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Elu", 1, &x, 1);
    /* an unrecorded alpha reads as the declared default below */
    if (n)
        api->attr_float(n, "alpha", api->arg_float(g, "alpha", 1.0));
    return oxu_set_result(g, api, 0, oxu_out(g, api, n, "Elu"));
}

/* The operator's one schema: names exactly as hosts record them
 * (docs/recording-conventions.md), kinds, and the defaults torch's aten::elu
 * declares (plugin ABI 1.1). */
static const ox_param_decl elu_params[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    OX_PARAM_FLOAT("alpha", OX_ARG_SCALAR, 1.0),
    OX_PARAM_FLOAT("scale", OX_ARG_SCALAR, 1.0),
    OX_PARAM_FLOAT("input_scale", OX_ARG_SCALAR, 1.0),
};

static const ox_op_decl ops[] = {
    /* name, since_opset, params, n_outputs, symbolic, flags, check hook */
    OX_OP_EX("aten::elu", 9, elu_params, 1, sym_elu, 0, check_elu),
};

static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "elu",                          /* name */
    "1.0",                          /* version */
    "aten::elu as ONNX Elu",        /* description */
    ops,
    sizeof ops / sizeof ops[0],
    NULL,                           /* init: nothing to set up */
    NULL,                           /* fini */
};

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    return &desc;
}
