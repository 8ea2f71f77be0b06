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

static int sym_elu(ox_sym *g, const ox_api *api)
{
    /* An argument the host did not record reads as its declared default
     * (below); arg_float's last argument repeats it for engines that do not
     * apply declared defaults. */
    double alpha = api->arg_float(g, "alpha", 1.0);
    double scale = api->arg_float(g, "scale", 1.0);
    double input_scale = api->arg_float(g, "input_scale", 1.0);
    if (scale != 1.0 || input_scale != 1.0)
        return api->fail(g, "ONNX Elu has no scale/input_scale (got scale=%g, input_scale=%g)",
                         scale, input_scale);

    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Elu", 1, &x, 1);
    if (n)
        api->attr_float(n, "alpha", alpha);
    return oxu_set_result(g, api, 0, oxu_out(g, api, n, "Elu"));
}

/* The operator's one schema: names exactly as hosts record them
 * (docs/recording-conventions.md), kinds, defaults. */
static const ox_param_decl elu_params[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    OX_PARAM_FLOAT("alpha", OX_ARG_SCALAR, 1.0),
    OX_PARAM_FLOAT("scale", OX_ARG_SCALAR, 1.0),
    OX_PARAM_FLOAT("input_scale", OX_ARG_SCALAR, 1.0),
};

static const ox_op_decl ops[] = {
    /* name, since_opset, params, n_outputs, symbolic */
    OX_OP("aten::elu", 9, elu_params, 1, sym_elu),
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
