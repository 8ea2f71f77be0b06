/* aten::dropout / aten::feature_dropout and their alpha variants, and
 * aten::native_dropout: the identity at inference time; the identity pass
 * removes the node.  Training mode (train=True) is a limitation in
 * opset_9.yaml (native_dropout's, whose train may be None, a check hook): the
 * pre-scan refuses it before this runs. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_dropout(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", api->arg_tensor(g, "input")));
}

/* native_dropout's second output is the keep mask: all true at inference. */
static int sym_native_dropout(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int rc = oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    if (rc)
        return rc;
    return oxu_set_result(g, api, 1, oxu_full(g, api, oxu_shape(g, api, x), 1.0, OX_BOOL));
}

/* train=None means training to ATen's native_dropout. */
static int check_native_dropout(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "train") != OX_ARG_BOOL || api->arg_int(g, "train", 1))
        return api->limit(g, 0, "native_dropout in training mode (train=True or None) is not "
                                "exported; put the model in eval mode");
    return 0;
}

static const ox_param_decl p_dropout[] = {OX_PARAM("input", OX_ARG_TENSOR),
                                          OX_PARAM("p", OX_ARG_FLOAT),
                                          OX_PARAM("train", OX_ARG_BOOL)};

/* native_dropout(Tensor input, float p, bool? train) */
static const ox_param_decl p_native_dropout[] = {OX_PARAM("input", OX_ARG_TENSOR),
                                                 OX_PARAM("p", OX_ARG_FLOAT),
                                                 OX_PARAM_NULL("train", OX_ARG_BOOL)};

const ox_op_decl at_ops_dropout[] = {
    OX_OP("aten::dropout", 7, p_dropout, 1, sym_dropout),
    OX_OP("aten::feature_dropout", 7, p_dropout, 1, sym_dropout),
    OX_OP("aten::alpha_dropout", 9, p_dropout, 1, sym_dropout),
    OX_OP("aten::feature_alpha_dropout", 9, p_dropout, 1, sym_dropout),
    OX_OP_EX("aten::native_dropout", 9, p_native_dropout, 2, sym_native_dropout, 0u,
             check_native_dropout),
};
AT_FAMILY_SIZE(at_ops_dropout);
