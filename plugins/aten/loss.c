/* Loss functions: nll_loss (-> NegativeLogLikelihoodLoss) and
 * cross_entropy_loss (-> SoftmaxCrossEntropyLoss), both from opset 12;
 * binary_cross_entropy_with_logits and kl_div from elementwise ops at
 * every opset.  `reduction` is ATen's enum: 0 none, 1 mean, 2 sum. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static const char *const reduction_names[] = {"none", "mean", "sum"};

static int read_reduction(ox_sym *g, const ox_api *api, int *out)
{
    int64_t r = api->arg_int(g, "reduction", 1);
    if (r < 0 || r > 2)
        return api->fail(g, "argument 'reduction' is %lld; ATen's reductions are 0 (none), "
                            "1 (mean) and 2 (sum)",
                         (long long)r);
    *out = (int)r;
    return 0;
}

/* A loss's elementwise values reduced as `reduction` says. */
static ox_vid reduced(ox_sym *g, const ox_api *api, ox_vid loss, int reduction)
{
    if (reduction == 0)
        return loss;
    return oxu_reduce(g, api, reduction == 1 ? "ReduceMean" : "ReduceSum", loss, NULL, 0, 0);
}

/* ---------------------------------------------------------------- nll, cross entropy */

/* An unbatched input [C] with a rank-0 target: ONNX Runtime runs the loss
 * ops only on a batch it can see the rank of, so this is -w[t] logp[t]
 * by Gather, with 0 for an ignored target (and the weight sum, 0 then,
 * dividing the mean, NaN as in torch).  logp is x, or log_softmax(x) for
 * cross entropy. */
static ox_vid unbatched_loss(ox_sym *g, const ox_api *api, ox_vid logp, int reduction)
{
    ox_vid t = api->arg_tensor(g, "target"), w = api->arg_tensor(g, "weight");
    ox_vid ignored = at_op2(g, api, "Equal", t,
                            oxu_scalar_like(g, api, (double)api->arg_int(g, "ignore_index", -100), t));
    ox_vid in[3] = {ignored, oxu_scalar_like(g, api, 0.0, t), t};
    ox_vid safe = oxu_opn(g, api, "Where", 3, in); /* an index Gather accepts */
    ox_vid wt = w ? oxu_op2(g, api, "Gather", w, safe) : oxu_scalar_like(g, api, 1.0, logp);
    ox_vid zero = oxu_scalar_like(g, api, 0.0, logp);
    ox_vid loss_in[3] = {ignored, zero,
                         at_op1(g, api, "Neg", at_op2(g, api, "Mul", oxu_op2(g, api, "Gather", logp, safe), wt))};
    ox_vid loss = oxu_opn(g, api, "Where", 3, loss_in);
    if (reduction != 1)
        return loss;
    ox_vid w_in[3] = {ignored, zero, wt};
    return at_op2(g, api, "Div", loss, oxu_opn(g, api, "Where", 3, w_in));
}

/* NegativeLogLikelihoodLoss or SoftmaxCrossEntropyLoss of input [N, C, d...]
 * and class indices target [N, d...], with the optional class weights. */
static int class_loss(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid x = api->arg_tensor(g, "self"), t = api->arg_tensor(g, "target");
    ox_vid w = api->arg_tensor(g, "weight");
    int reduction = 1;
    if (read_reduction(g, api, &reduction))
        return 1;
    if (!x || !t)
        return 1;
    if (api->rank(g, x) == 1) {
        int64_t axis = 0;
        ox_vid logp = x;
        if (strcmp(type, "SoftmaxCrossEntropyLoss") == 0)
            logp = at_op2(g, api, "Sub", x, oxu_reduce(g, api, "ReduceLogSumExp", x, &axis, 1, 1));
        return oxu_set_result(g, api, 0, unbatched_loss(g, api, logp, reduction));
    }
    ox_vid in[3] = {x, t, w};
    ox_onode *n = api->op(g, type, w ? 3 : 2, in, 1);
    if (n) {
        api->attr_string(n, "reduction", reduction_names[reduction]);
        api->attr_int(n, "ignore_index", api->arg_int(g, "ignore_index", -100));
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, type));
}

static int sym_nll_loss(ox_sym *g, const ox_api *api)
{
    return class_loss(g, api, "NegativeLogLikelihoodLoss");
}

/* cross entropy against class probabilities (a float target shaped like
 * the input): -sum_c w_c p_c log_softmax(x)_c over dim 1, with label
 * smoothing mixing p with the uniform distribution; mean divides by the
 * count of the other elements, as torch. */
static int prob_cross_entropy(ox_sym *g, const ox_api *api, int reduction)
{
    ox_vid x = api->arg_tensor(g, "self"), p = api->arg_tensor(g, "target");
    ox_vid w = api->arg_tensor(g, "weight");
    int rank = api->rank(g, x);
    int64_t cdim = rank == 1 ? 0 : 1;
    double eps = api->arg_float(g, "label_smoothing", 0.0);
    if (rank < 0)
        return api->fail(g, "cross entropy needs the input's rank, which is unknown; record "
                            "its sizes");
    if (eps != 0.0) {
        ox_vid c = oxu_cast_to(g, api, oxu_size_of(g, api, x, cdim), api->dtype(g, x));
        ox_vid uniform = at_op2(g, api, "Div", oxu_scalar_like(g, api, eps, x), c);
        p = at_op2(g, api, "Add", at_op2(g, api, "Mul", p, oxu_scalar_like(g, api, 1.0 - eps, x)),
                   uniform);
    }
    ox_vid lse = oxu_reduce(g, api, "ReduceLogSumExp", x, &cdim, 1, 1);
    ox_vid term = at_op2(g, api, "Mul", at_op2(g, api, "Sub", x, lse), p);
    if (w && rank > 1) { /* [C] -> [C, 1, ...] to meet dim 1 */
        int64_t shape[AT_MAX_RANK];
        shape[0] = -1;
        for (int i = 1; i < rank - 1 && i < AT_MAX_RANK; i++)
            shape[i] = 1;
        w = at_reshape(g, api, w, shape, (size_t)(rank - 1));
    }
    if (w)
        term = at_op2(g, api, "Mul", term, w);
    ox_vid loss = at_op1(g, api, "Neg", oxu_reduce(g, api, "ReduceSum", term, &cdim, 1, 0));
    return oxu_set_result(g, api, 0, reduced(g, api, loss, reduction));
}

static int cross_entropy_check(ox_sym *g, const ox_api *api)
{
    ox_vid t = api->arg_tensor(g, "target");
    if (t && !oxu_is_floating(api->dtype(g, t)) && api->arg_float(g, "label_smoothing", 0.0) != 0.0)
        return api->limit(g, 0, "argument 'label_smoothing' is %g with class-index targets; "
                                "SoftmaxCrossEntropyLoss has no label smoothing (class "
                                "probabilities as the target are exported with it)",
                          api->arg_float(g, "label_smoothing", 0.0));
    return 0;
}

static int sym_cross_entropy_loss(ox_sym *g, const ox_api *api)
{
    int reduction = 1;
    if (cross_entropy_check(g, api) || read_reduction(g, api, &reduction))
        return 1;
    ox_vid t = api->arg_tensor(g, "target");
    if (t && oxu_is_floating(api->dtype(g, t)))
        return prob_cross_entropy(g, api, reduction);
    return class_loss(g, api, "SoftmaxCrossEntropyLoss");
}

/* ---------------------------------------------------------------- elementwise losses */

/* -[pw y log s(x) + (1 - y) log(1 - s(x))] in the stable form
 * (1 - y) x + (1 + (pw - 1) y) softplus(-x), then times weight. */
static int sym_bce_with_logits(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), y = api->arg_tensor(g, "target");
    ox_vid w = api->arg_tensor(g, "weight"), pw = api->arg_tensor(g, "pos_weight");
    int reduction = 1;
    if (read_reduction(g, api, &reduction))
        return 1;
    ox_vid one = oxu_scalar_like(g, api, 1.0, x);
    /* softplus(-x) = relu(-x) + log(1 + exp(-|x|)): stable for large |x|,
     * and from ops ONNX Runtime runs in float64 too (its Softplus does not) */
    ox_vid sp = at_op2(g, api, "Add", at_op1(g, api, "Relu", at_op1(g, api, "Neg", x)),
                       at_op1(g, api, "Log",
                              at_op2(g, api, "Add", one,
                                     at_op1(g, api, "Exp",
                                            at_op1(g, api, "Neg", at_op1(g, api, "Abs", x))))));
    if (pw)
        sp = at_op2(g, api, "Mul", sp,
                    at_op2(g, api, "Add", one,
                           at_op2(g, api, "Mul", at_op2(g, api, "Sub", pw, one), y)));
    ox_vid loss = at_op2(g, api, "Add", at_op2(g, api, "Mul", at_op2(g, api, "Sub", one, y), x), sp);
    if (w)
        loss = at_op2(g, api, "Mul", loss, w);
    return oxu_set_result(g, api, 0, reduced(g, api, loss, reduction));
}

/* kl_div(input, target): target (log target - input) pointwise, with
 * xlogy's 0 where target is 0; exp(target) (target - input) for a
 * log-space target.  F.kl_div's batchmean is a sum divided afterwards. */
static int sym_kl_div(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), t = api->arg_tensor(g, "target");
    int reduction = 1;
    if (read_reduction(g, api, &reduction) || at_promote2(g, api, &x, &t))
        return 1;
    ox_vid loss;
    if (api->arg_int(g, "log_target", 0)) {
        loss = at_op2(g, api, "Mul", at_op1(g, api, "Exp", t), at_op2(g, api, "Sub", t, x));
    } else {
        /* target == 0 as Not(Cast(target, bool)): Equal takes no floats before opset 11 */
        ox_vid zero_t = at_op1(g, api, "Not", oxu_cast(g, api, t, OX_BOOL));
        ox_vid tlogt = at_op2(g, api, "Mul", t, at_op1(g, api, "Log", t));
        ox_vid in[3] = {zero_t, oxu_scalar_like(g, api, 0.0, t), tlogt};
        ox_vid xlogy = in[0] && in[1] && in[2] ? oxu_opn(g, api, "Where", 3, in) : 0;
        loss = at_op2(g, api, "Sub", xlogy, at_op2(g, api, "Mul", t, x));
    }
    return oxu_set_result(g, api, 0, reduced(g, api, loss, reduction));
}

/* aten::nll_loss, nll_loss2d and nll_loss_nd share one schema. */
static const ox_param_decl p_nll[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("target", OX_ARG_TENSOR),
    OX_PARAM_NULL("weight", OX_ARG_TENSOR), OX_PARAM_INT("reduction", OX_ARG_INT, 1),
    OX_PARAM_INT("ignore_index", OX_ARG_INT, -100)};
static const ox_param_decl p_cross_entropy[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("target", OX_ARG_TENSOR),
    OX_PARAM_NULL("weight", OX_ARG_TENSOR), OX_PARAM_INT("reduction", OX_ARG_INT, 1),
    OX_PARAM_INT("ignore_index", OX_ARG_INT, -100),
    OX_PARAM_FLOAT("label_smoothing", OX_ARG_FLOAT, 0.0)};
static const ox_param_decl p_bce_logits[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("target", OX_ARG_TENSOR),
    OX_PARAM_NULL("weight", OX_ARG_TENSOR), OX_PARAM_NULL("pos_weight", OX_ARG_TENSOR),
    OX_PARAM_INT("reduction", OX_ARG_INT, 1)};
static const ox_param_decl p_kl_div[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("target", OX_ARG_TENSOR),
    OX_PARAM_INT("reduction", OX_ARG_INT, 1), OX_PARAM_BOOL("log_target", 0)};

const ox_op_decl at_ops_loss[] = {
    OX_OP("aten::nll_loss", 12, p_nll, 1, sym_nll_loss),
    OX_OP("aten::nll_loss2d", 12, p_nll, 1, sym_nll_loss),
    OX_OP("aten::nll_loss_nd", 12, p_nll, 1, sym_nll_loss),
    OX_OP_EX("aten::cross_entropy_loss", 12, p_cross_entropy, 1, sym_cross_entropy_loss, 0u,
             cross_entropy_check),
    OX_OP("aten::binary_cross_entropy_with_logits", 9, p_bce_logits, 1, sym_bce_with_logits),
    OX_OP("aten::kl_div", 9, p_kl_div, 1, sym_kl_div),
};
AT_FAMILY_SIZE(at_ops_loss);
