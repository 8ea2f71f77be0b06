/* Fake quantization (quantization-aware training's observers, kept in an
 * exported model) -> QuantizeLinear then DequantizeLinear, the pair ONNX
 * runtimes fuse into integer kernels.
 *
 * ONNX's quantized element types are uint8 and int8 only, so the integer
 * range [quant_min, quant_max] picks the type: 0..255 -> uint8, -128..127 ->
 * int8, and 0..127 (PyTorch's reduced-range activations) -> uint8 with the
 * quantized values clipped to 127.  QuantizeLinear takes float32 input and a
 * float32 scale; other float inputs make a cast round trip. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Whether [qmin, qmax] is one of the three ranges above. */
static int quant_range_known(int64_t qmin, int64_t qmax)
{
    return (qmin == 0 && qmax == 255) || (qmin == -128 && qmax == 127) ||
           (qmin == 0 && qmax == 127);
}

/* What every opset refuses, and the opset the reduced range needs (its Clip
 * on uint8 is Clip-12's).  A floating zero point is torch's learnable fake
 * quantization, where the zero point is added unrounded: ONNX's integer zero
 * point cannot express it. */
static int check_quant_args(ox_sym *g, const ox_api *api, int reduced_range_opset)
{
    int64_t qmin = api->arg_int(g, "quant_min", 0), qmax = api->arg_int(g, "quant_max", 0);
    if (!quant_range_known(qmin, qmax))
        return api->limit(g, 0, "(quant_min, quant_max) is (%lld, %lld); ONNX quantizes to uint8 "
                                "(0, 255), int8 (-128, 127) or reduced-range uint8 (0, 127) only",
                          (long long)qmin, (long long)qmax);
    if (qmin == 0 && qmax == 127 && api->opset(g) < reduced_range_opset)
        return api->limit(g, reduced_range_opset,
                          "the reduced range (0, 127) clips the quantized uint8 values with Clip");
    ox_vid zp = api->arg_tensor(g, "zero_point");
    if (zp && oxu_is_floating(api->dtype(g, zp)))
        return api->limit(g, 0, "zero_point is a floating tensor (learnable fake quantization); "
                                "ONNX's zero point is an integer");
    return 0;
}

static int check_fake_quantize_per_tensor(ox_sym *g, const ox_api *api)
{
    return check_quant_args(g, api, 12);
}

static int check_fake_quantize_per_channel(ox_sym *g, const ox_api *api)
{
    return check_quant_args(g, api, 13);
}

/* scale as float32 (rank 0 when per_tensor: a 1-element tensor is PyTorch's
 * usual form for a per-tensor scale, and QuantizeLinear-10 wants a scalar). */
static ox_vid quant_scale(ox_sym *g, const ox_api *api, int per_tensor)
{
    if (oxu_arg_is_number(g, api, "scale"))
        return oxu_scalar(g, api, OX_FLOAT, api->arg_float(g, "scale", 1.0));
    ox_vid s = oxu_cast_to(g, api, api->arg_tensor(g, "scale"), OX_FLOAT);
    return per_tensor ? oxu_reshape(g, api, s, NULL, 0) : s;
}

/* zero_point as the quantized type qt, shaped like the scale. */
static ox_vid quant_zero_point(ox_sym *g, const ox_api *api, ox_dtype qt, int per_tensor)
{
    if (oxu_arg_is_number(g, api, "zero_point"))
        return oxu_scalar(g, api, qt, (double)api->arg_int(g, "zero_point", 0));
    ox_vid z = oxu_cast(g, api, api->arg_tensor(g, "zero_point"), qt);
    return per_tensor ? oxu_reshape(g, api, z, NULL, 0) : z;
}

/* Quantize and dequantize self; axis < 0: per tensor. */
static int fake_quantize(ox_sym *g, const ox_api *api, int64_t axis)
{
    ox_vid x = api->arg_tensor(g, "self");
    int per_tensor = axis < 0;
    int64_t qmin = api->arg_int(g, "quant_min", 0), qmax = api->arg_int(g, "quant_max", 0);
    ox_dtype qt = qmin < 0 ? OX_INT8 : OX_UINT8;
    ox_vid scale = quant_scale(g, api, per_tensor);
    ox_vid zp = quant_zero_point(g, api, qt, per_tensor);
    if (!scale || !zp)
        return 1;
    ox_vid qin[3] = {oxu_cast_to(g, api, x, OX_FLOAT), scale, zp};
    ox_onode *qn = api->op(g, "QuantizeLinear", 3, qin, 1);
    if (qn && !per_tensor)
        api->attr_int(qn, "axis", axis);
    ox_vid q = oxu_out(g, api, qn, "QuantizeLinear");
    if (qmax == 127 && qt == OX_UINT8) {
        double hi = 127;
        q = oxu_clip(g, api, q, NULL, &hi);
    }
    ox_vid din[3] = {q, scale, zp};
    ox_onode *dn = q ? api->op(g, "DequantizeLinear", 3, din, 1) : NULL;
    if (dn && !per_tensor)
        api->attr_int(dn, "axis", axis);
    ox_vid y = oxu_out(g, api, dn, "DequantizeLinear");
    return oxu_set_result(g, api, 0, oxu_cast_to(g, api, y, api->dtype(g, x)));
}

static int sym_fake_quantize_per_tensor(ox_sym *g, const ox_api *api)
{
    return fake_quantize(g, api, -1);
}

static int sym_fake_quantize_per_channel(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis = api->arg_int(g, "axis", 0);
    int rank = api->rank(g, x);
    if (rank >= 0 && (axis < 0 || axis >= rank))
        return api->fail(g, "fake_quantize_per_channel_affine: axis %lld is outside [0, %d) of "
                            "the rank-%d input",
                         (long long)axis, rank, rank);
    return fake_quantize(g, api, axis);
}

/* The scalar overload records scale as a float and zero_point as an int;
 * .tensor_qparams records both as tensors. */
static const ox_param_decl p_fake_quantize_per_tensor[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("scale", OX_ARG_TENSOR_OR_SCALAR),
    OX_PARAM("zero_point", OX_ARG_TENSOR_OR_SCALAR), OX_PARAM("quant_min", OX_ARG_INT),
    OX_PARAM("quant_max", OX_ARG_INT)};
static const ox_param_decl p_fake_quantize_per_channel[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("scale", OX_ARG_TENSOR),
    OX_PARAM("zero_point", OX_ARG_TENSOR), OX_PARAM("axis", OX_ARG_INT),
    OX_PARAM("quant_min", OX_ARG_INT), OX_PARAM("quant_max", OX_ARG_INT)};

const ox_op_decl at_ops_quantize[] = {
    OX_OP_EX("aten::fake_quantize_per_tensor_affine", 10, p_fake_quantize_per_tensor, 1,
             sym_fake_quantize_per_tensor, 0, check_fake_quantize_per_tensor),
    /* per-axis QuantizeLinear is opset 13's */
    OX_OP_EX("aten::fake_quantize_per_channel_affine", 13, p_fake_quantize_per_channel, 1,
             sym_fake_quantize_per_channel, 0, check_fake_quantize_per_channel),
};
AT_FAMILY_SIZE(at_ops_quantize);
