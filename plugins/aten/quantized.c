/* Quantized tensors (torch.quint8 / qint8 / qint32) and the integer kernels
 * of statically quantized models.
 *
 * ONNX has no quantized element type: a quantized tensor is its integer
 * representation (uint8, int8, int32), and whoever reads it is told its
 * scale and zero point.  The recording convention carries them explicitly:
 * aten::dequantize and the quantized:: kernels take each quantized input's
 * scale and zero point as arguments, and the output's as the kernel's own
 * (PyTorch's quantized modules hold them as module state).
 *
 *   aten::quantize_per_tensor / _per_channel  -> QuantizeLinear
 *   aten::dequantize                          -> DequantizeLinear
 *   quantized::conv1d/2d/3d(_relu)            -> QLinearConv
 *   quantized::linear(_relu)                  -> QLinearMatMul without a bias;
 *       with one, MatMulInteger + the int32 bias, then the float requantization
 *       (QLinearMatMul has no bias input; adding it after requantization would
 *       round twice)
 *
 * The fused ReLU of *_relu is a clamp of the quantized output at its zero
 * point, which is exactly ReLU on the dequantized value.  Every other operator
 * on a quantized tensor the host records as DequantizeLinear, the float
 * operator and QuantizeLinear (the QDQ form ONNX runtimes fuse). */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* ================================================================ quantize / dequantize */

static int quantized_type(ox_dtype t)
{
    return t == OX_UINT8 || t == OX_INT8;
}

/* QuantizeLinear writes uint8 or int8 (int32 is the bias type of the integer
 * kernels, never a quantization target in ONNX). */
static int check_quantize(ox_sym *g, const ox_api *api)
{
    ox_dtype t = (ox_dtype)api->arg_int(g, "dtype", OX_UINT8);
    if (!quantized_type(t))
        return api->limit(g, 0, "dtype is %s; QuantizeLinear produces uint8 (torch.quint8) or "
                                "int8 (torch.qint8) only",
                          t == OX_INT32 ? "torch.qint32" : "not a quantized type");
    ox_vid zp = api->arg_tensor(g, "zero_point");
    if (!zp)
        zp = api->arg_tensor(g, "zero_points");
    if (zp && oxu_is_floating(api->dtype(g, zp)))
        return api->limit(g, 0, "the zero point is a floating tensor; ONNX's zero point is an "
                                "integer of the quantized type");
    return 0;
}

/* A scale (type OX_FLOAT) or zero-point (the quantized type) argument, recorded
 * as a number or a tensor, as type t; rank 0 when per tensor (PyTorch often keeps
 * a per-tensor qparam as a 1-element tensor; QuantizeLinear-10 wants a scalar). */
static ox_vid qparam_arg(ox_sym *g, const ox_api *api, const char *name, ox_dtype t,
                         int per_tensor)
{
    if (oxu_arg_is_number(g, api, name))
        return oxu_scalar(g, api, t,
                          t == OX_FLOAT ? api->arg_float(g, name, 1.0)
                                        : (double)api->arg_int(g, name, 0));
    ox_vid v = api->arg_tensor(g, name);
    if (!v) {
        api->fail(g, "argument '%s' is missing", name);
        return 0;
    }
    v = oxu_cast_to(g, api, v, t);
    return per_tensor ? oxu_reshape(g, api, v, NULL, 0) : v;
}

static ox_vid scale_arg(ox_sym *g, const ox_api *api, const char *name, int per_tensor)
{
    return qparam_arg(g, api, name, OX_FLOAT, per_tensor);
}

static ox_vid zero_point_arg(ox_sym *g, const ox_api *api, const char *name, ox_dtype qt,
                             int per_tensor)
{
    return qparam_arg(g, api, name, qt, per_tensor);
}

/* x (float) -> QuantizeLinear(x, scale, zp) of type qt; axis < 0: per tensor. */
static ox_vid quantize_linear(ox_sym *g, const ox_api *api, ox_vid x, ox_vid scale, ox_vid zp,
                              int64_t axis)
{
    if (!x || !scale || !zp)
        return 0;
    ox_vid in[3] = {oxu_cast_to(g, api, x, OX_FLOAT), scale, zp};
    ox_onode *n = api->op(g, "QuantizeLinear", 3, in, 1);
    if (n && axis >= 0)
        api->attr_int(n, "axis", axis);
    return oxu_out(g, api, n, "QuantizeLinear");
}

static ox_vid dequantize_linear(ox_sym *g, const ox_api *api, ox_vid q, ox_vid scale,
                                ox_vid zp, int64_t axis)
{
    if (!q || !scale || !zp)
        return 0;
    ox_vid in[3] = {q, scale, zp};
    ox_onode *n = api->op(g, "DequantizeLinear", 3, in, 1);
    if (n && axis >= 0)
        api->attr_int(n, "axis", axis);
    return oxu_out(g, api, n, "DequantizeLinear");
}

static int sym_quantize_per_tensor(ox_sym *g, const ox_api *api)
{
    ox_dtype qt = (ox_dtype)api->arg_int(g, "dtype", OX_UINT8);
    ox_vid q = quantize_linear(g, api, api->arg_tensor(g, "self"), scale_arg(g, api, "scale", 1),
                               zero_point_arg(g, api, "zero_point", qt, 1), -1);
    return oxu_set_result(g, api, 0, q);
}

/* A channel axis of x's rank, made non-negative (PyTorch accepts -1). */
static int channel_axis(ox_sym *g, const ox_api *api, ox_vid x, int64_t *axis)
{
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "the rank of the quantized tensor is unknown");
    if (*axis < 0)
        *axis += rank;
    if (*axis < 0 || *axis >= rank)
        return api->fail(g, "axis %lld is outside the rank-%d tensor", (long long)*axis, rank);
    return 0;
}

static int sym_quantize_per_channel(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype qt = (ox_dtype)api->arg_int(g, "dtype", OX_UINT8);
    int64_t axis = api->arg_int(g, "axis", 0);
    if (channel_axis(g, api, x, &axis))
        return 1;
    ox_vid q = quantize_linear(g, api, x, scale_arg(g, api, "scales", 0),
                               zero_point_arg(g, api, "zero_points", qt, 0), axis);
    return oxu_set_result(g, api, 0, q);
}

/* Per-axis DequantizeLinear is opset 13's. */
static int check_dequantize(ox_sym *g, const ox_api *api)
{
    ox_dtype t = api->dtype(g, api->arg_tensor(g, "self"));
    if (t != OX_UINT8 && t != OX_INT8 && t != OX_INT32 && t != OX_UNDEFINED)
        return api->limit(g, 0, "self is not the integer form of a quantized tensor (uint8, int8 "
                                "or int32)");
    if (api->arg_int(g, "axis", -1) >= 0 && api->opset(g) < 13)
        return api->limit(g, 13, "a per-channel quantized tensor needs DequantizeLinear's axis");
    return 0;
}

static int sym_dequantize(ox_sym *g, const ox_api *api)
{
    ox_vid q = api->arg_tensor(g, "self");
    int64_t axis = api->arg_int(g, "axis", -1);
    int per_tensor = axis < 0;
    if (!per_tensor && channel_axis(g, api, q, &axis))
        return 1;
    ox_vid y = dequantize_linear(g, api, q, scale_arg(g, api, "scale", per_tensor),
                                 zero_point_arg(g, api, "zero_point", api->dtype(g, q), per_tensor),
                                 per_tensor ? -1 : axis);
    return oxu_set_result(g, api, 0, y);
}

/* ================================================================ integer kernels */

/* What QLinearConv / QLinearMatMul / MatMulInteger take: a uint8 or int8
 * activation and weight, and an int32 bias. */
static int check_kernel(ox_sym *g, const ox_api *api)
{
    ox_dtype x = api->dtype(g, api->arg_tensor(g, "input"));
    ox_dtype w = api->dtype(g, api->arg_tensor(g, "weight"));
    if (!quantized_type(x) || !quantized_type(w))
        return api->limit(g, 0, "the input and weight must be the uint8/int8 forms of "
                                "torch.quint8/qint8 tensors");
    ox_vid b = api->arg_tensor(g, "bias");
    if (b && api->dtype(g, b) != OX_INT32)
        return api->limit(g, 0, "the bias must be recorded quantized to int32 with scale "
                                "input_scale * weight_scale");
    return 0;
}

/* The output's scale and zero point (of the recorded output type). */
static int output_qparams(ox_sym *g, const ox_api *api, ox_vid *ys, ox_vid *yz)
{
    ox_dtype yt = api->output_dtype(g, 0);
    if (!quantized_type(yt))
        yt = OX_UINT8;
    *ys = oxu_scalar(g, api, OX_FLOAT, api->arg_float(g, "output_scale", 1.0));
    *yz = oxu_scalar(g, api, yt, (double)api->arg_int(g, "output_zero_point", 0));
    return *ys && *yz ? 0 : 1;
}

/* The weight's scale (rank 0 or 1-D per output channel) and zero point. */
static int weight_qparams(ox_sym *g, const ox_api *api, ox_vid w, ox_vid *ws, ox_vid *wz)
{
    ox_vid s = api->arg_tensor(g, "weight_scale"), z = api->arg_tensor(g, "weight_zero_point");
    if (!s || !z)
        return api->fail(g, "the weight's scale and zero point must be recorded as tensors");
    int per_tensor = api->rank(g, s) == 0 || api->size(g, s, 0) == 1;
    *ws = oxu_cast_to(g, api, s, OX_FLOAT);
    *wz = oxu_cast_to(g, api, z, api->dtype(g, w));
    if (per_tensor) {
        *ws = oxu_reshape(g, api, *ws, NULL, 0);
        *wz = oxu_reshape(g, api, *wz, NULL, 0);
    }
    return *ws && *wz ? 0 : 1;
}

/* The fused ReLU: the quantized output clamped at its zero point. */
static int set_kernel_result(ox_sym *g, const ox_api *api, ox_vid y, int relu)
{
    if (y && relu) {
        double zp = (double)api->arg_int(g, "output_zero_point", 0);
        y = oxu_clip(g, api, y, &zp, NULL);
    }
    return oxu_set_result(g, api, 0, y);
}

static int lower_qconv(ox_sym *g, const ox_api *api, int relu)
{
    ox_vid x = api->arg_tensor(g, "input"), w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    size_t nsp = 0;
    int64_t kernel[AT_MAX_RANK], stride[AT_MAX_RANK], dilation[AT_MAX_RANK], pad[AT_MAX_RANK],
        pads[2 * AT_MAX_RANK];
    if (at_conv_kernel(g, api, w, &nsp, kernel))
        return 1;
    if (at_ints_n(g, api, "stride", nsp, 1, stride) ||
        at_ints_n(g, api, "dilation", nsp, 1, dilation) ||
        at_ints_n(g, api, "padding", nsp, 0, pad))
        return 1;
    for (size_t i = 0; i < nsp; i++)
        pads[i] = pads[nsp + i] = pad[i];

    ox_vid ws, wz, ys, yz;
    if (weight_qparams(g, api, w, &ws, &wz) || output_qparams(g, api, &ys, &yz))
        return 1;
    ox_vid in[9] = {x,
                    scale_arg(g, api, "input_scale", 1),
                    zero_point_arg(g, api, "input_zero_point", api->dtype(g, x), 1),
                    w, ws, wz, ys, yz, b};
    ox_onode *n = api->op(g, "QLinearConv", b ? 9 : 8, in, 1);
    if (n)
        at_conv_attrs(g, api, n, nsp, kernel, stride, pads, dilation);
    return set_kernel_result(g, api, oxu_out(g, api, n, "QLinearConv"), relu);
}

static int sym_qconv(ox_sym *g, const ox_api *api)
{
    return lower_qconv(g, api, 0);
}

static int sym_qconv_relu(ox_sym *g, const ox_api *api)
{
    return lower_qconv(g, api, 1);
}

static int lower_qlinear(ox_sym *g, const ox_api *api, int relu)
{
    ox_vid x = api->arg_tensor(g, "input"), w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    if (api->rank(g, w) != 2)
        return api->fail(g, "the weight must be 2-D (out_features, in_features)");
    static const int64_t swap[2] = {1, 0};
    ox_vid wt = oxu_transpose(g, api, w, swap, 2);
    ox_vid ws, wz, ys, yz;
    if (weight_qparams(g, api, w, &ws, &wz) || output_qparams(g, api, &ys, &yz))
        return 1;
    ox_vid xs = scale_arg(g, api, "input_scale", 1);
    ox_vid xz = zero_point_arg(g, api, "input_zero_point", api->dtype(g, x), 1);
    if (!b) {
        ox_vid in[8] = {x, xs, xz, wt, ws, wz, ys, yz};
        return set_kernel_result(g, api, oxu_opn(g, api, "QLinearMatMul", 8, in), relu);
    }
    /* acc = (x - xz)(W - wz)^T + bias, in int32; y = round(acc * xs * ws / ys) + yz */
    ox_vid mi[4] = {x, wt, xz, wz};
    ox_vid acc = oxu_op2(g, api, "Add", oxu_opn(g, api, "MatMulInteger", 4, mi), b);
    ox_vid real = oxu_op2(g, api, "Mul", oxu_cast(g, api, acc, OX_FLOAT),
                          oxu_op2(g, api, "Mul", xs, ws));
    return set_kernel_result(g, api, quantize_linear(g, api, real, ys, yz, -1), relu);
}

static int sym_qlinear(ox_sym *g, const ox_api *api)
{
    return lower_qlinear(g, api, 0);
}

static int sym_qlinear_relu(ox_sym *g, const ox_api *api)
{
    return lower_qlinear(g, api, 1);
}

/* ================================================================ declarations */

static const ox_param_decl p_quantize_per_tensor[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("scale", OX_ARG_TENSOR_OR_SCALAR),
    OX_PARAM("zero_point", OX_ARG_TENSOR_OR_SCALAR), OX_PARAM("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_quantize_per_channel[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("scales", OX_ARG_TENSOR),
    OX_PARAM("zero_points", OX_ARG_TENSOR), OX_PARAM("axis", OX_ARG_INT),
    OX_PARAM("dtype", OX_ARG_DTYPE)};
/* The host adds the quantized tensor's scale, zero point and (per channel)
 * axis to aten::dequantize(Tensor self): ONNX values carry no qparams. */
static const ox_param_decl p_dequantize[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("scale", OX_ARG_TENSOR_OR_SCALAR),
    OX_PARAM("zero_point", OX_ARG_TENSOR_OR_SCALAR), OX_PARAM_INT("axis", OX_ARG_INT, -1)};
/* quantized::conv*(input, packed_weight, output_scale, output_zero_point),
 * with the packed weight unpacked by the host: the int8 weight, its scale and
 * zero point (per tensor: rank 0; per output channel: 1-D), the bias already
 * quantized to int32 with scale input_scale * weight_scale, and the packed
 * stride/padding/dilation/groups. */
static const int64_t one[] = {1};
static const int64_t zero[] = {0};
static const ox_param_decl p_qconv[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("input_scale", OX_ARG_FLOAT),
    OX_PARAM("input_zero_point", OX_ARG_INT),
    OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("weight_scale", OX_ARG_TENSOR),
    OX_PARAM("weight_zero_point", OX_ARG_TENSOR),
    OX_PARAM_NULL("bias", OX_ARG_TENSOR),
    OX_PARAM_INTS("stride", one),
    OX_PARAM_INTS("padding", zero),
    OX_PARAM_INTS("dilation", one),
    OX_PARAM_INT("groups", OX_ARG_INT, 1),
    OX_PARAM("output_scale", OX_ARG_FLOAT),
    OX_PARAM("output_zero_point", OX_ARG_INT)};
static const ox_param_decl p_qlinear[] = {
    OX_PARAM("input", OX_ARG_TENSOR),
    OX_PARAM("input_scale", OX_ARG_FLOAT),
    OX_PARAM("input_zero_point", OX_ARG_INT),
    OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("weight_scale", OX_ARG_TENSOR),
    OX_PARAM("weight_zero_point", OX_ARG_TENSOR),
    OX_PARAM_NULL("bias", OX_ARG_TENSOR),
    OX_PARAM("output_scale", OX_ARG_FLOAT),
    OX_PARAM("output_zero_point", OX_ARG_INT)};

const ox_op_decl at_ops_quantized[] = {
    OX_OP_EX("aten::quantize_per_tensor", 10, p_quantize_per_tensor, 1, sym_quantize_per_tensor,
             0, check_quantize),
    /* per-axis QuantizeLinear is opset 13's */
    OX_OP_EX("aten::quantize_per_channel", 13, p_quantize_per_channel, 1,
             sym_quantize_per_channel, 0, check_quantize),
    OX_OP_EX("aten::dequantize", 10, p_dequantize, 1, sym_dequantize, 0, check_dequantize),
    OX_OP_EX("quantized::conv1d", 10, p_qconv, 1, sym_qconv, 0, check_kernel),
    OX_OP_EX("quantized::conv2d", 10, p_qconv, 1, sym_qconv, 0, check_kernel),
    OX_OP_EX("quantized::conv3d", 10, p_qconv, 1, sym_qconv, 0, check_kernel),
    OX_OP_EX("quantized::conv1d_relu", 10, p_qconv, 1, sym_qconv_relu, 0, check_kernel),
    OX_OP_EX("quantized::conv2d_relu", 10, p_qconv, 1, sym_qconv_relu, 0, check_kernel),
    OX_OP_EX("quantized::conv3d_relu", 10, p_qconv, 1, sym_qconv_relu, 0, check_kernel),
    OX_OP_EX("quantized::linear", 10, p_qlinear, 1, sym_qlinear, 0, check_kernel),
    OX_OP_EX("quantized::linear_relu", 10, p_qlinear, 1, sym_qlinear_relu, 0, check_kernel),
};
AT_FAMILY_SIZE(at_ops_quantized);
