/* Normalizations: batch_norm -> BatchNormalization (inference with the
 * running statistics, or training mode with the batch's); those using the statistics of the input itself:
 * layer_norm, group_norm, instance_norm.  ONNX has LayerNormalization from
 * opset 17 only; below that, and for group_norm at every opset, the statistics
 * are spelled out as (x - mean) / sqrt(var + eps) over the normalized axes. */
#include <stdbool.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* A 1-D constant of `c` copies of v, typed like the input (float or double). */
static ox_vid filled(ox_sym *g, const ox_api *api, ox_dtype dt, int64_t c, double v)
{
    size_t n = (size_t)c;
    ox_vid out = 0;
    if (dt == OX_DOUBLE) {
        double *d = malloc(n * sizeof *d);
        if (d) {
            for (size_t i = 0; i < n; i++)
                d[i] = v;
            out = api->constant(g, OX_DOUBLE, 1, &c, d);
        }
        free(d);
    } else {
        float *f = malloc(n * sizeof *f);
        if (f) {
            for (size_t i = 0; i < n; i++)
                f[i] = (float)v;
            out = api->constant(g, OX_FLOAT, 1, &c, f);
        }
        free(f);
    }
    if (!out)
        api->fail(g, "could not create a %lld-element constant", (long long)c);
    return out;
}

/* Without running statistics (track_running_stats=False) torch normalises
 * with the batch's own and records training=True, which the training-mode
 * lowering below does.  A recording without them in inference mode (only a C
 * host can make one) has nothing to normalise with. */
static int check_batch_norm(ox_sym *g, const ox_api *api)
{
    if (!api->arg_int(g, "training", 0) &&
        (!api->arg_tensor(g, "running_mean") || !api->arg_tensor(g, "running_var")))
        return api->limit(g, 0, "batch_norm in inference mode (training=False) without "
                                "running_mean/running_var has no statistics to normalise with");
    return 0;
}

/* Training mode normalises with the batch's statistics and updates the
 * running ones.  ONNX spells it with the node's extra outputs: from opset 14
 * training_mode=1 and the updated running mean and variance; opsets 7-13 have
 * no attribute, and the optional outputs (running mean and variance, saved
 * mean and variance) themselves select training mode, as torch.onnx writes
 * it.  The graph's output is still the normalised tensor: the running
 * statistics are computed and left unused, since a trace returns only what
 * the forward returns (the host's buffers are not graph outputs). */
static int batch_norm_outputs(const ox_api *api, ox_sym *g, bool training)
{
    if (!training)
        return 1;
    return api->opset(g) >= 14 ? 3 : 5;
}


/* BatchNormalization's scale and bias, which it requires: an absent one
 * becomes ones / zeros of the c channels, in x's element type.  0, or the
 * api's failure. */
static int bn_affine_defaults(ox_sym *g, const ox_api *api, ox_vid x, int64_t c, ox_vid *scale,
                              ox_vid *bias)
{
    ox_dtype dt = api->dtype(g, x);
    if (!*scale && !(*scale = filled(g, api, dt, c, 1.0)))
        return 1;
    if (!*bias && !(*bias = filled(g, api, dt, c, 0.0)))
        return 1;
    return 0;
}
/* The batch's per-channel mean and biased variance ([C] each), over every
 * axis but 1: the statistics a batch_norm without running ones normalises
 * with.  Given as BatchNormalization's mean and var they make the node right
 * whatever mode a runtime's kernel takes, as torch.onnx does: measured with
 * constant zero/one statistics instead, ONNX Runtime's result for a
 * training-mode node was the inference-mode one (off by 0.066 on N(0, 1)
 * input, where the batch's statistics give 5e-7). */
static int batch_statistics(ox_sym *g, const ox_api *api, ox_vid x, ox_vid *mean, ox_vid *var)
{
    int rank = api->rank(g, x);
    if (rank < 2 || rank > OXU_MAX_RANK)
        return api->fail(g, "batch_norm without running statistics needs the input's rank (2 to "
                            "%d), but it is %s", OXU_MAX_RANK, rank < 0 ? "unknown" : "out of range");
    int64_t axes[OXU_MAX_RANK];
    size_t n = 0;
    for (int d = 0; d < rank; d++)
        if (d != 1)
            axes[n++] = d;
    ox_vid d = at_op2(g, api, "Sub", x, oxu_reduce(g, api, "ReduceMean", x, axes, n, 1));
    *mean = oxu_reduce(g, api, "ReduceMean", x, axes, n, 0);
    *var = oxu_reduce(g, api, "ReduceMean", at_op2(g, api, "Mul", d, d), axes, n, 0);
    return *mean && *var ? 0 : 1;
}

static int sym_batch_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid scale = api->arg_tensor(g, "weight");
    ox_vid bias = api->arg_tensor(g, "bias");
    ox_vid mean = api->arg_tensor(g, "running_mean");
    ox_vid var = api->arg_tensor(g, "running_var");
    bool training = api->arg_int(g, "training", 0) != 0;
    /* An inference-mode node without running statistics is the check
     * hook's refusal; in training mode the batch's stand in. */
    if ((!mean || !var) && batch_statistics(g, api, x, &mean, &var))
        return 1;
    if (!scale || !bias) {
        int64_t c = api->size(g, x, 1);
        if (c < 0)
            c = api->size(g, api->arg_tensor(g, "running_mean"), 0);
        if (c < 0)
            return api->fail(g, "batch_norm without weight/bias needs the channel count, but "
                                "the input's dim 1 is unknown");
        if (bn_affine_defaults(g, api, x, c, &scale, &bias))
            return 1;
    }
    ox_vid in[5] = {x, scale, bias, mean, var};
    ox_onode *n = api->op(g, "BatchNormalization", 5, in, batch_norm_outputs(api, g, training));
    if (n) {
        api->attr_float(n, "epsilon", api->arg_float(g, "eps", 1e-5));
        /* ONNX weighs the running value by momentum; torch weighs the batch's. */
        api->attr_float(n, "momentum", 1.0 - api->arg_float(g, "momentum", 0.1));
        if (training && api->opset(g) >= 14)
            api->attr_int(n, "training_mode", 1);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "BatchNormalization"));
}

/* axes as an attribute, or an input from opset 18 (oxu_reduce) */
static ox_vid reduce_mean(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes, size_t n)
{
    return oxu_reduce(g, api, "ReduceMean", x, axes, n, 1);
}

/* (x - E[x]) / sqrt(Var[x] + eps) over axes (non-negative), biased variance
 * as torch computes it.  `like` types the eps constant. */
static ox_vid standardize(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes, size_t n,
                          double eps, ox_vid like)
{
    ox_vid d = at_op2(g, api, "Sub", x, reduce_mean(g, api, x, axes, n));
    ox_vid var = reduce_mean(g, api, at_op2(g, api, "Mul", d, d), axes, n);
    ox_vid e = api->scalar_like(g, eps, like);
    if (!e) {
        api->fail(g, "could not create the constant eps");
        return 0;
    }
    return at_op2(g, api, "Div", d, at_op1(g, api, "Sqrt", at_op2(g, api, "Add", var, e)));
}

static ox_vid affine(ox_sym *g, const ox_api *api, ox_vid y, ox_vid w, ox_vid b)
{
    if (y && w)
        y = at_op2(g, api, "Mul", y, w);
    if (y && b)
        y = at_op2(g, api, "Add", y, b);
    return y;
}

static int layer_norm_axes(ox_sym *g, const ox_api *api, ox_vid x, int64_t *axes, size_t *n)
{
    const int64_t *shape = NULL;
    size_t k = api->arg_ints(g, "normalized_shape", &shape);
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "layer_norm needs the rank of 'input', which is unknown; record the "
                            "input's sizes");
    if (k == 0 || k > (size_t)rank || rank > AT_MAX_RANK)
        return api->fail(g, "argument 'normalized_shape' has %zu sizes; expected 1 to %d for a "
                            "rank-%d input",
                         k, rank < AT_MAX_RANK ? rank : AT_MAX_RANK, rank);
    for (size_t i = 0; i < k; i++) {
        int axis = rank - (int)k + (int)i;
        int64_t s = api->size(g, x, axis);
        if (s >= 0 && s != shape[i])
            return api->fail(g, "argument 'normalized_shape'[%zu] is %lld but input dim %d is %lld",
                             i, (long long)shape[i], axis, (long long)s);
        axes[i] = axis;
    }
    *n = k;
    return 0;
}

static int sym_layer_norm_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int64_t axes[AT_MAX_RANK];
    size_t n;
    if (layer_norm_axes(g, api, x, axes, &n))
        return 1;
    ox_vid y = standardize(g, api, x, axes, n, api->arg_float(g, "eps", 1e-5), x);
    return oxu_set_result(g, api, 0, affine(g, api, y, api->arg_tensor(g, "weight"), api->arg_tensor(g, "bias")));
}

/* Opset 17's LayerNormalization needs a scale; torch's weight may be None. */
static int sym_layer_norm_17(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int64_t axes[AT_MAX_RANK];
    size_t n;
    if (layer_norm_axes(g, api, x, axes, &n))
        return 1;
    ox_vid w = api->arg_tensor(g, "weight"), b = api->arg_tensor(g, "bias");
    if (!w)
        return sym_layer_norm_9(g, api);
    ox_vid in[3] = {x, w, b};
    ox_onode *ln = api->op(g, "LayerNormalization", b ? 3 : 2, in, 1);
    if (ln) {
        api->attr_int(ln, "axis", axes[0]);
        api->attr_float(ln, "epsilon", api->arg_float(g, "eps", 1e-5));
    }
    return oxu_set_result(g, api, 0, at_out(g, api, ln, "LayerNormalization"));
}

/* native_layer_norm: layer_norm's output and its statistics, the mean and
 * 1 / sqrt(var + eps) over the normalized axes (kept as size-1 dims, as
 * torch returns them). */
static int sym_native_layer_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int64_t axes[AT_MAX_RANK];
    size_t n;
    if (layer_norm_axes(g, api, x, axes, &n))
        return 1;
    ox_vid mean = reduce_mean(g, api, x, axes, n);
    ox_vid d = at_op2(g, api, "Sub", x, mean);
    ox_vid var = reduce_mean(g, api, at_op2(g, api, "Mul", d, d), axes, n);
    ox_vid e = oxu_scalar_like(g, api, api->arg_float(g, "eps", 1e-5), x);
    ox_vid rstd = at_op1(g, api, "Reciprocal", at_op1(g, api, "Sqrt", at_op2(g, api, "Add", var, e)));
    ox_vid y = affine(g, api, at_op2(g, api, "Mul", d, rstd), api->arg_tensor(g, "weight"),
                      api->arg_tensor(g, "bias"));
    if (oxu_set_result(g, api, 0, y) || oxu_set_result(g, api, 1, mean))
        return 1;
    return oxu_set_result(g, api, 2, rstd);
}

/* _weight_norm (nn.utils.weight_norm): v * g / ||v||, the 2-norm over every
 * axis but `dim`; dim -1 (weight_norm's dim=None) is the whole tensor's. */
static int sym_weight_norm(ox_sym *g, const ox_api *api)
{
    ox_vid v = api->arg_tensor(g, "v"), gain = api->arg_tensor(g, "g");
    int rank = api->rank(g, v);
    int64_t dim = api->arg_int(g, "dim", 0);
    if (rank < 1 || rank > AT_MAX_RANK)
        return api->fail(g, "_weight_norm needs v of known rank 1 to %d, got %d", AT_MAX_RANK,
                         rank);
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (dim != -1 && oxu_axis(g, api, "dim", dim, rank, &dim))
        return 1;
    for (int64_t i = 0; i < rank; i++)
        if (dim == -1 || i != dim)
            axes[n++] = i;
    ox_vid norm = n ? oxu_reduce(g, api, "ReduceL2", v, axes, n, 1)
                    : at_op1(g, api, "Abs", v); /* rank 1, dim 0: each element alone */
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", v, at_op2(g, api, "Div", gain, norm)));
}

/* Per-channel weight/bias of shape [C] broadcast against [N, C, *]. */
static ox_vid channel_param(ox_sym *g, const ox_api *api, ox_vid p, int rank)
{
    if (!p)
        return 0;
    int64_t shape[AT_MAX_RANK];
    shape[0] = -1;
    for (int i = 1; i < rank - 1; i++)
        shape[i] = 1;
    return at_reshape(g, api, p, shape, (size_t)(rank - 1));
}

/* group_norm: [N, C, *] -> [N, G, C/G * prod(*)], standardize the last axis,
 * back to the input's shape, then the per-channel affine. */
static int sym_group_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int rank = api->rank(g, x);
    int64_t groups = api->arg_int(g, "num_groups", 1);
    int64_t c = api->size(g, x, 1);
    if (rank < 2 || rank > AT_MAX_RANK)
        return api->fail(g, "group_norm needs an input of rank 2 to %d, got rank %d", AT_MAX_RANK,
                         rank);
    if (groups < 1 || (c > 0 && c % groups != 0))
        return api->fail(g, "argument 'num_groups' is %lld; it must divide the %lld channels",
                         (long long)groups, (long long)c);
    int64_t grouped[3] = {0, groups, -1};
    int64_t last = 2;
    ox_vid y = standardize(g, api, at_reshape(g, api, x, grouped, 3), &last, 1,
                           api->arg_float(g, "eps", 1e-5), x);
    ox_vid shape = at_op1(g, api, "Shape", x);
    y = at_op2(g, api, "Reshape", y, shape);
    ox_vid w = api->arg_tensor(g, "weight"), b = api->arg_tensor(g, "bias");
    if (rank == 2)
        return oxu_set_result(g, api, 0, affine(g, api, y, w, b));
    return oxu_set_result(g, api, 0, affine(g, api, y, channel_param(g, api, w, rank),
                               channel_param(g, api, b, rank)));
}

/* From opset 21 ONNX's GroupNormalization has torch's meaning (scale and
 * bias per channel; GroupNormalization-18, per group, is deprecated and not
 * used).  It takes both scale and bias: without them, or for a type other
 * than float32, the formula above. */
static int sym_group_norm_21(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid in[3] = {x, api->arg_tensor(g, "weight"), api->arg_tensor(g, "bias")};
    int64_t groups = api->arg_int(g, "num_groups", 1), c = x ? api->size(g, x, 1) : -1;
    if (!x || !in[1] || !in[2] || api->dtype(g, x) != OX_FLOAT || api->rank(g, x) < 3 ||
        api->dtype(g, in[1]) != OX_FLOAT || api->dtype(g, in[2]) != OX_FLOAT || groups < 1 ||
        (c > 0 && c % groups != 0))
        return sym_group_norm(g, api);
    ox_onode *n = api->op(g, "GroupNormalization", 3, in, 1);
    if (n) {
        api->attr_float(n, "epsilon", api->arg_float(g, "eps", 1e-5));
        api->attr_int(n, "num_groups", groups);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "GroupNormalization"));
}

/* With running statistics (use_input_stats=False) the lowering is
 * BatchNormalization, which needs them. */
static int check_instance_norm(ox_sym *g, const ox_api *api)
{
    if (!api->arg_int(g, "use_input_stats", 1) &&
        (!api->arg_tensor(g, "running_mean") || !api->arg_tensor(g, "running_var")))
        return api->limit(g, 0, "instance_norm with use_input_stats=False needs "
                                "running_mean and running_var to normalise with");
    return 0;
}

/* instance_norm with running statistics (an InstanceNorm*d with
 * track_running_stats, in eval): every instance is normalised with the
 * channel's running mean and variance, the same for every sample, which is
 * BatchNormalization in inference mode.  Absent weight/bias are ones/zeros of
 * the statistics' length (a buffer's, known even where the input's channel
 * dim is not). */
static int running_stats_instance_norm(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_vid mean = api->arg_tensor(g, "running_mean"), var = api->arg_tensor(g, "running_var");
    ox_vid scale = api->arg_tensor(g, "weight"), bias = api->arg_tensor(g, "bias");
    if (!mean || !var) /* the check hook states it */
        return api->fail(g, "instance_norm with use_input_stats=False needs running statistics");
    if (!scale || !bias) {
        int64_t c = api->size(g, mean, 0);
        if (c < 0)
            return api->fail(g, "instance_norm without weight/bias needs the running statistics' "
                                "length, which is unknown");
        if (bn_affine_defaults(g, api, x, c, &scale, &bias))
            return 1;
    }
    ox_vid in[5] = {x, scale, bias, mean, var};
    ox_onode *n = api->op(g, "BatchNormalization", 5, in, 1);
    if (n)
        api->attr_float(n, "epsilon", api->arg_float(g, "eps", 1e-5));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "BatchNormalization"));
}

/* instance_norm with the input's own statistics (use_input_stats, the
 * default of InstanceNorm*d): InstanceNormalization, whose scale and bias are
 * required, so absent ones become ones/zeros of the channel count.  Another
 * element type than float32 is standardized over the spatial axes by formula
 * instead: ONNX Runtime runs InstanceNormalization in float32 only, and the
 * formula needs no float32 constants for absent weight and bias. */
static int sym_instance_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    int rank = api->rank(g, x);
    int64_t c = api->size(g, x, 1);
    if (rank < 3 || rank > AT_MAX_RANK)
        return api->fail(g, "instance_norm needs an input of rank 3 to %d, got rank %d",
                         AT_MAX_RANK, rank);
    if (!api->arg_int(g, "use_input_stats", 1))
        return running_stats_instance_norm(g, api, x);
    ox_vid w = api->arg_tensor(g, "weight"), b = api->arg_tensor(g, "bias");
    ox_dtype dt = api->dtype(g, x);
    if (dt != OX_FLOAT && dt != OX_UNDEFINED) {
        int64_t axes[AT_MAX_RANK];
        for (int i = 2; i < rank; i++)
            axes[i - 2] = i;
        ox_vid y = standardize(g, api, x, axes, (size_t)(rank - 2),
                               api->arg_float(g, "eps", 1e-5), x);
        return oxu_set_result(g, api, 0, affine(g, api, y, channel_param(g, api, w, rank),
                                                channel_param(g, api, b, rank)));
    }
    if ((!w || !b) && c < 0)
        return api->fail(g, "instance_norm without weight/bias needs the channel count, which is "
                            "unknown; record the input's sizes");
    if (!w || !b) {
        /* float32, or an unknown type, which is built as float32 */
        float *buf = calloc((size_t)c, sizeof *buf);
        if (!buf)
            return api->fail(g, "out of memory");
        if (!b)
            b = api->constant(g, OX_FLOAT, 1, &c, buf);
        for (int64_t i = 0; i < c; i++)
            buf[i] = 1.0f;
        if (!w)
            w = api->constant(g, OX_FLOAT, 1, &c, buf);
        free(buf);
        if (!w || !b)
            return api->fail(g, "could not create the default scale/bias constants");
    }
    ox_vid in[3] = {x, w, b};
    ox_onode *n = api->op(g, "InstanceNormalization", 3, in, 1);
    if (n)
        api->attr_float(n, "epsilon", api->arg_float(g, "eps", 1e-5));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "InstanceNormalization"));
}

static const ox_param_decl p_batch_norm[] = {
    OX_PARAM("input", OX_ARG_TENSOR),          OX_PARAM("weight", OX_ARG_OPT_TENSOR),
    OX_PARAM("bias", OX_ARG_OPT_TENSOR),       OX_PARAM("running_mean", OX_ARG_OPT_TENSOR),
    OX_PARAM("running_var", OX_ARG_OPT_TENSOR), OX_PARAM("training", OX_ARG_BOOL),
    OX_PARAM("momentum", OX_ARG_FLOAT),        OX_PARAM("eps", OX_ARG_FLOAT),
    OX_PARAM("cudnn_enabled", OX_ARG_BOOL)};
static const ox_param_decl p_layer_norm[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("normalized_shape", OX_ARG_INTS),
    OX_PARAM_NULL("weight", OX_ARG_OPT_TENSOR), OX_PARAM_NULL("bias", OX_ARG_OPT_TENSOR),
    OX_PARAM_FLOAT("eps", OX_ARG_FLOAT, 1e-5), OX_PARAM_BOOL("cudnn_enable", 1)};
static const ox_param_decl p_native_layer_norm[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("normalized_shape", OX_ARG_INTS),
    OX_PARAM("weight", OX_ARG_OPT_TENSOR), OX_PARAM("bias", OX_ARG_OPT_TENSOR),
    OX_PARAM("eps", OX_ARG_FLOAT)};
static const ox_param_decl p_weight_norm[] = {OX_PARAM("v", OX_ARG_TENSOR),
                                              OX_PARAM("g", OX_ARG_TENSOR),
                                              OX_PARAM_INT("dim", OX_ARG_INT, 0)};
static const ox_param_decl p_group_norm[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("num_groups", OX_ARG_INT),
    OX_PARAM_NULL("weight", OX_ARG_OPT_TENSOR), OX_PARAM_NULL("bias", OX_ARG_OPT_TENSOR),
    OX_PARAM_FLOAT("eps", OX_ARG_FLOAT, 1e-5), OX_PARAM_BOOL("cudnn_enabled", 1)};
/* torch's schema has no defaults here; these are F.instance_norm's (and
 * group_norm's cudnn_enabled), which is what a host that leaves them out means. */
static const ox_param_decl p_instance_norm[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("weight", OX_ARG_OPT_TENSOR),
    OX_PARAM("bias", OX_ARG_OPT_TENSOR),
    OX_PARAM("running_mean", OX_ARG_OPT_TENSOR),
    OX_PARAM("running_var", OX_ARG_OPT_TENSOR),
    OX_PARAM("use_input_stats", OX_ARG_BOOL),
    OX_PARAM_FLOAT("momentum", OX_ARG_FLOAT, 0.1),
    OX_PARAM_FLOAT("eps", OX_ARG_FLOAT, 1e-5),
    OX_PARAM_BOOL("cudnn_enabled", 1)};

const ox_op_decl at_ops_normalization[] = {
    OX_OP_EX("aten::batch_norm", 7, p_batch_norm, 1, sym_batch_norm, 0, check_batch_norm),
    OX_OP("aten::layer_norm", 7, p_layer_norm, 1, sym_layer_norm_9),
    OX_OP("aten::layer_norm", 17, p_layer_norm, 1, sym_layer_norm_17),
    OX_OP("aten::native_layer_norm", 9, p_native_layer_norm, 3, sym_native_layer_norm),
    OX_OP("aten::_weight_norm", 9, p_weight_norm, 1, sym_weight_norm),
    OX_OP("aten::group_norm", 7, p_group_norm, 1, sym_group_norm),
    OX_OP("aten::group_norm", 21, p_group_norm, 1, sym_group_norm_21),
    OX_OP_EX("aten::instance_norm", 7, p_instance_norm, 1, sym_instance_norm, 0,
             check_instance_norm),
};
AT_FAMILY_SIZE(at_ops_normalization);
