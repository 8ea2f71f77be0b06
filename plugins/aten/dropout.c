/* aten::dropout / aten::feature_dropout and their alpha variants, and
 * aten::native_dropout: the identity at inference time; the identity pass
 * removes the node.
 *
 * Training mode (train=True): from opset 12 dropout and native_dropout become
 * Dropout with ratio and training_mode as inputs, and the file draws its own
 * random masks when it runs (ONNX Runtime's generator, not torch's: the two
 * agree in distribution, never element by element).  Dropout before opset 12
 * has no training switch and is the identity, so training mode there is a
 * limitation (opset_7.yaml for dropout, the check hook for native_dropout);
 * channel and alpha dropout have no ONNX operator at any opset (the YAML's). */
#include <stdbool.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Dropout-12 in training mode: ratio (a float scalar, as torch.onnx writes
 * it) and training_mode=true as inputs; outputs the dropped tensor and the
 * keep mask. */
static ox_onode *training_dropout(ox_sym *g, const ox_api *api, ox_vid x)
{
    float ratio = (float)api->arg_float(g, "p", 0.5);
    bool on = true;
    ox_vid in[3] = {x, api->constant(g, OX_FLOAT, 0, NULL, &ratio),
                    api->constant(g, OX_BOOL, 0, NULL, &on)};
    if (!in[1] || !in[2]) {
        api->fail(g, "could not create Dropout's ratio and training_mode constants");
        return NULL;
    }
    return api->op(g, "Dropout", 3, in, 2);
}

static int sym_dropout(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    if (!api->arg_int(g, "train", 0))
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    return oxu_set_result(g, api, 0, at_out(g, api, training_dropout(g, api, x), "Dropout"));
}

/* train=None means training to ATen's native_dropout. */
static bool native_training(ox_sym *g, const ox_api *api)
{
    return api->arg_kind(g, "train") != OX_ARG_BOOL || api->arg_int(g, "train", 1);
}

/* native_dropout's second output is the keep mask: all true at inference,
 * Dropout's own mask in training mode. */
static int sym_native_dropout(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    if (native_training(g, api)) {
        ox_onode *n = training_dropout(g, api, x);
        int rc = oxu_set_result(g, api, 0, at_out(g, api, n, "Dropout"));
        return rc ? rc : oxu_set_result(g, api, 1, n ? api->node_output(n, 1) : 0);
    }
    int rc = oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    if (rc)
        return rc;
    return oxu_set_result(g, api, 1, oxu_full(g, api, oxu_shape(g, api, x), 1.0, OX_BOOL));
}

static int check_native_dropout(ox_sym *g, const ox_api *api)
{
    if (native_training(g, api) && api->opset(g) < 12)
        return api->limit(g, 12, "native_dropout in training mode (train=True or None) needs "
                                 "Dropout's training_mode input (opset 12); before it Dropout is "
                                 "the identity");
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
