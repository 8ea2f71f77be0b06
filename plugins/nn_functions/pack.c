/* The nn_functions pack: operators recorded as Function classes with their
 * own forward (PyTorch's autograd Function subclasses), named fn::<Class>. */
#include "../aten/aten_util.h"

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

/* fn::ConstantPadNd(input, pad, value): the same lowering as
 * aten::constant_pad_nd, only the argument names differ. */
static int sym_constant_pad_nd(ox_sym *g, const ox_api *api)
{
    return at_constant_pad(g, api, "input", "value");
}

static const ox_param_decl p_constant_pad_nd[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("pad", OX_ARG_INTS), OX_PARAM("value", OX_ARG_FLOAT)};

static const ox_op_decl ops[] = {
    OX_OP("fn::ConstantPadNd", 9, p_constant_pad_nd, 1, sym_constant_pad_nd),
};

static const ox_plugin_desc desc = {
    OX_PLUGIN_HEADER,
    "nn_functions",
    "0.1.0",
    "Function-class operators (fn::*): constant padding",
    ops,
    N(ops),
    NULL,
    NULL,
};

OX_PLUGIN_EXPORT const ox_plugin_desc *ox_plugin_entry(void)
{
    return &desc;
}
