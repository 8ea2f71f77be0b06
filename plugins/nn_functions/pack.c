/* The nn_functions pack: operators recorded as Function classes with their
 * own forward (PyTorch's autograd Function subclasses), named fn::<Class>. */
#include "oxport/plugin_util.h"

/* fn::ConstantPadNd(input, pad, value): torch's constant padding (the
 * lowering of aten::constant_pad_nd; only the argument names differ). */
static int sym_constant_pad_nd(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    double value = api->arg_float(g, "value", 0.0);
    return oxu_set_result(g, api, 0, oxu_pad_arg(g, api, x, "pad", "constant", value));
}

/* A host records a Function's forward arguments as passed, so value may be
 * left out: 0, as in aten::constant_pad_nd. */
static const ox_param_decl p_constant_pad_nd[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("pad", OX_ARG_INTS),
    OX_PARAM_FLOAT("value", OX_ARG_FLOAT, 0.0),
};

static const ox_op_decl ops[] = {
    OX_OP("fn::ConstantPadNd", 7, p_constant_pad_nd, 1, sym_constant_pad_nd),
};

static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "nn_functions",
    "0.1.0",
    "Function-class operators (fn::*): constant padding",
    ops,
    OX_N_PARAMS(ops),
    NULL,
    NULL,
};

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    return &desc;
}
