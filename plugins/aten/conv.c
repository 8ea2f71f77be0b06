/* Convolutions: aten::conv1d/2d/3d, aten::convolution and _convolution,
 * aten::conv_transpose1d/2d/3d -> Conv / ConvTranspose; aten::conv_tbc (time,
 * batch, channel layout) -> Conv between Transposes. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Explicit ONNX pads (all begins, then all ends) from torch's padding
 * argument, which is an int list or the strings "same" / "valid". */
static int conv_pads(ox_sym *g, const ox_api *api, size_t nsp, const int64_t *kernel,
                     const int64_t *dilation, int64_t *pads)
{
    if (api->arg_kind(g, "padding") == OX_ARG_STRING) {
        const char *mode = api->arg_string(g, "padding", "valid");
        if (strcmp(mode, "valid") == 0) {
            memset(pads, 0, 2 * nsp * sizeof *pads);
            return 0;
        }
        if (strcmp(mode, "same") != 0)
            return api->fail(g, "argument 'padding' is \"%s\"; expected \"same\", \"valid\" or "
                                "a list of ints",
                             mode);
        /* torch puts the odd extra element at the end. */
        for (size_t i = 0; i < nsp; i++) {
            int64_t total = dilation[i] * (kernel[i] - 1);
            pads[i] = total / 2;
            pads[nsp + i] = total - total / 2;
        }
        return 0;
    }
    int64_t p[AT_MAX_RANK];
    if (at_ints_n(g, api, "padding", nsp, 0, p))
        return 1;
    for (size_t i = 0; i < nsp; i++)
        pads[i] = pads[nsp + i] = p[i];
    return 0;
}

static int lower_conv(ox_sym *g, const ox_api *api, int transposed)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    size_t nsp = 0;
    int64_t kernel[AT_MAX_RANK], stride[AT_MAX_RANK], dilation[AT_MAX_RANK],
        pads[2 * AT_MAX_RANK], outpad[AT_MAX_RANK];
    if (at_conv_kernel(g, api, w, &nsp, kernel))
        return 1;
    if (at_ints_n(g, api, "stride", nsp, 1, stride) ||
        at_ints_n(g, api, "dilation", nsp, 1, dilation) ||
        conv_pads(g, api, nsp, kernel, dilation, pads))
        return 1;
    if (transposed && at_ints_n(g, api, "output_padding", nsp, 0, outpad))
        return 1;

    ox_vid in[3] = {at_float64_as_float(g, api, x), at_float64_as_float(g, api, w),
                    at_float64_as_float(g, api, b)};
    const char *type = transposed ? "ConvTranspose" : "Conv";
    ox_onode *n = api->op(g, type, b ? 3 : 2, in, 1);
    if (n) {
        at_conv_attrs(g, api, n, nsp, kernel, stride, pads, dilation);
        if (transposed) {
            int any = 0;
            for (size_t i = 0; i < nsp; i++)
                any |= outpad[i] != 0;
            if (any)
                api->attr_ints(n, "output_padding", outpad, nsp);
        }
    }
    return oxu_set_result_recorded(g, api, 0, at_out(g, api, n, type));
}

static int sym_conv(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, 0);
}

static int sym_convolution(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, api->arg_int(g, "transposed", 0) != 0);
}

static int sym_conv_transpose(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, 1);
}

/* conv_tbc: input (T, B, C_in), weight (K, C_in, C_out), bias (C_out) ->
 * (T', B, C_out), a 1-D convolution over T padded by `pad` on both sides:
 * Conv in ONNX's (B, C, T) layout with the weight as (C_out, C_in, K). */
static int sym_conv_tbc(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    if (api->rank(g, x) != 3 || api->rank(g, w) != 3)
        return api->fail(g, "conv_tbc takes a rank-3 input and weight; got ranks %d and %d",
                         api->rank(g, x), api->rank(g, w));
    int64_t k = oxu_fixed_size(g, api, w, 0); /* kernel_shape: reported if a dynamic axis reaches it */
    if (k < 0)
        return api->fail(g, "the weight's kernel size (axis 0) is unknown; record the weight's "
                            "sizes");
    int64_t pad = api->arg_int(g, "pad", 0);
    static const int64_t to_bct[] = {1, 2, 0}, to_oik[] = {2, 1, 0}, to_tbc[] = {2, 0, 1};
    int64_t one = 1, pads[2] = {pad, pad};
    ox_vid in[3] = {oxu_transpose(g, api, at_float64_as_float(g, api, x), to_bct, 3),
                    oxu_transpose(g, api, at_float64_as_float(g, api, w), to_oik, 3),
                    at_float64_as_float(g, api, b)};
    if (!in[0] || !in[1] || !in[2])
        return 1;
    ox_onode *n = api->op(g, "Conv", 3, in, 1);
    if (n) {
        api->attr_ints(n, "kernel_shape", &k, 1);
        api->attr_ints(n, "strides", &one, 1);
        api->attr_ints(n, "pads", pads, 2);
        api->attr_ints(n, "dilations", &one, 1);
    }
    ox_vid y = at_out(g, api, n, "Conv");
    return oxu_set_result_recorded(g, api, 0, oxu_transpose(g, api, y, to_tbc, 3));
}

static const int64_t one[] = {1}, zero[] = {0};
/* conv1d/2d/3d; padding is an int list or the string "same" / "valid". */
static const ox_param_decl p_conv[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM_NULL("bias", OX_ARG_OPT_TENSOR), OX_PARAM_INTS("stride", one),
    {.name = "padding", .kind = OX_ARG_INTS, .alt_kinds = OX_KIND_BIT(OX_ARG_STRING),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INTS, .count = 1, .v = {.ints = zero}}},
    OX_PARAM_INTS("dilation", one), OX_PARAM_INT("groups", OX_ARG_INT, 1)};
static const ox_param_decl p_convolution[] = {
    OX_PARAM("input", OX_ARG_TENSOR),  OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("bias", OX_ARG_OPT_TENSOR), OX_PARAM("stride", OX_ARG_INTS),
    OX_PARAM("padding", OX_ARG_INTS),  OX_PARAM("dilation", OX_ARG_INTS),
    OX_PARAM("transposed", OX_ARG_BOOL), OX_PARAM("output_padding", OX_ARG_INTS),
    OX_PARAM("groups", OX_ARG_INT)};
/* The generic form of older traces; the .deprecated overload has no
 * allow_tf32 (none of the four flags changes the lowering). */
static const ox_param_decl p_convolution_old[] = {
    OX_PARAM("input", OX_ARG_TENSOR),  OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("bias", OX_ARG_OPT_TENSOR), OX_PARAM("stride", OX_ARG_INTS),
    OX_PARAM("padding", OX_ARG_INTS),  OX_PARAM("dilation", OX_ARG_INTS),
    OX_PARAM("transposed", OX_ARG_BOOL), OX_PARAM("output_padding", OX_ARG_INTS),
    OX_PARAM("groups", OX_ARG_INT), OX_PARAM("benchmark", OX_ARG_BOOL),
    OX_PARAM("deterministic", OX_ARG_BOOL), OX_PARAM("cudnn_enabled", OX_ARG_BOOL),
    OX_PARAM_BOOL("allow_tf32", 1)};
static const ox_param_decl p_conv_tbc[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM("bias", OX_ARG_TENSOR), OX_PARAM_INT("pad", OX_ARG_INT, 0)};
static const ox_param_decl p_conv_transpose[] = {
    OX_PARAM("input", OX_ARG_TENSOR), OX_PARAM("weight", OX_ARG_TENSOR),
    OX_PARAM_NULL("bias", OX_ARG_OPT_TENSOR), OX_PARAM_INTS("stride", one),
    OX_PARAM_INTS("padding", zero), OX_PARAM_INTS("output_padding", zero),
    OX_PARAM_INT("groups", OX_ARG_INT, 1), OX_PARAM_INTS("dilation", one)};

const ox_op_decl at_ops_conv[] = {
    OX_OP("aten::conv1d", 7, p_conv, 1, sym_conv),
    OX_OP("aten::conv2d", 7, p_conv, 1, sym_conv),
    OX_OP("aten::conv3d", 7, p_conv, 1, sym_conv),
    OX_OP("aten::convolution", 7, p_convolution, 1, sym_convolution),
    OX_OP("aten::_convolution", 9, p_convolution_old, 1, sym_convolution),
    OX_OP("aten::conv_transpose1d", 9, p_conv_transpose, 1, sym_conv_transpose),
    OX_OP("aten::conv_transpose2d", 7, p_conv_transpose, 1, sym_conv_transpose),
    OX_OP("aten::conv_transpose3d", 9, p_conv_transpose, 1, sym_conv_transpose),
    OX_OP("aten::conv_tbc", 9, p_conv_tbc, 1, sym_conv_tbc),
};
AT_FAMILY_SIZE(at_ops_conv);
