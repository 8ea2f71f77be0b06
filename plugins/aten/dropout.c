/* aten::dropout / aten::feature_dropout: the identity at inference time; the
 * identity pass removes the node.  Training mode (train=True) is a limitation
 * in opset_9.yaml: the pre-scan refuses it before this runs. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_dropout(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", api->arg_tensor(g, "input")));
}

static const ox_param_decl p_dropout[] = {OX_PARAM("input", OX_ARG_TENSOR),
                                          OX_PARAM("p", OX_ARG_FLOAT),
                                          OX_PARAM("train", OX_ARG_BOOL)};

const ox_op_decl at_ops_dropout[] = {
    OX_OP("aten::dropout", 7, p_dropout, 1, sym_dropout),
    OX_OP("aten::feature_dropout", 7, p_dropout, 1, sym_dropout),
};
AT_FAMILY_SIZE(at_ops_dropout);
