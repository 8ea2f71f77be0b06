/*
 * The aten pack's names for the plugin SDK's helpers (oxport/plugin_util.h),
 * kept so the family files read as before; new code calls the oxu_ names
 * directly.  Everything here forwards: the lowerings themselves (axes as
 * attributes or inputs, Slice/Pad/Clip forms per opset, type promotion)
 * live in the SDK, where third-party packs can use them too.
 */
#ifndef OX_ATEN_UTIL_H
#define OX_ATEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "oxport/plugin.h"
#include "oxport/plugin_util.h"

#define AT_MAX_RANK OXU_MAX_RANK

#define at_out oxu_out
#define at_op1 oxu_op1
#define at_op2 oxu_op2
#define at_axis oxu_axis
#define at_ints_n oxu_ints_n
#define at_transpose oxu_transpose
#define at_reshape oxu_reshape
#define at_concat oxu_concat
#define at_unsqueeze oxu_unsqueeze
#define at_squeeze oxu_squeeze
#define at_slice oxu_slice
#define at_cast oxu_cast
#define at_is_floating oxu_is_floating
#define at_is_integer oxu_is_integer

/* sqrt, exp, erf, tanh, sigmoid, 1 / x ... of an integer or bool tensor are
 * floating in torch (torch.sqrt(torch.tensor(64)) in RAFT's correlation,
 * torch.sigmoid(int_tensor) is float32): x in the recorded type first
 * (float32 unless the host says otherwise), as ONNX defines these ops for
 * floating types only. */
static inline ox_vid at_as_floating(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (x && at_is_integer(api->dtype(g, x))) {
        ox_dtype to = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
        x = oxu_cast(g, api, x, at_is_floating(to) ? to : OX_FLOAT);
    }
    return x;
}

/* Cast *a or *b to their torch.result_type (oxu_promote). */
static inline int at_promote2(ox_sym *g, const ox_api *api, ox_vid *a, ox_vid *b)
{
    ox_vid v[2] = {*a, *b};
    int rc = oxu_promote(g, api, 2, v, NULL);
    *a = v[0];
    *b = v[1];
    return rc;
}

/* The recorded "dim" list (reductions, norms) as axes in [0, rank of x):
 * *n of them, at most AT_MAX_RANK.  0, or the api's failure. */
static inline int at_dim_axes(ox_sym *g, const ox_api *api, ox_vid x, int64_t *axes, size_t *n)
{
    const int64_t *dims = NULL;
    size_t k = api->arg_ints(g, "dim", &dims);
    if (k > AT_MAX_RANK)
        return api->fail(g, "argument 'dim' has %zu entries; at most %d are supported", k,
                         AT_MAX_RANK);
    int rank = api->rank(g, x);
    for (size_t i = 0; i < k; i++)
        if (at_axis(g, api, "dim", dims[i], rank, &axes[i]))
            return 1;
    *n = k;
    return 0;
}

/* torch's constant padding, shared by aten::constant_pad_nd and
 * fn::ConstantPadNd (whose argument names differ). */
static inline int at_constant_pad(ox_sym *g, const ox_api *api, const char *input_arg,
                                  const char *value_arg)
{
    ox_vid x = api->arg_tensor(g, input_arg);
    return oxu_set_result(g, api, 0,
                          oxu_pad_arg(g, api, x, "pad", "constant",
                                      api->arg_float(g, value_arg, 0.0)));
}

/* ONNX Runtime has no float64 kernel for several float-only layer ops
 * (Conv, ConvTranspose, AveragePool, GlobalAveragePool, Resize,
 * GridSample), so a file using them on float64 would not load: such an
 * operand is computed in float32 (torch's result to float32 precision) and
 * the result cast back to the recorded float64 by oxu_set_result_recorded.
 * Other types pass unchanged. */
static inline ox_vid at_float64_as_float(ox_sym *g, const ox_api *api, ox_vid v)
{
    return v && api->dtype(g, v) == OX_DOUBLE ? oxu_cast(g, api, v, OX_FLOAT) : v;
}

/* A convolution weight's spatial rank *nsp (its rank less 2, the weight of rank
 * 3 to 5) and its kernel sizes, which must be recorded.  0, or the api's failure.
 * The sizes go into the file (kernel_shape, "same" pads): read as fixed_size,
 * so a weight whose kernel dims a dynamic axis reaches (a weight computed from
 * the input) is reported as fixed to the example. */
static inline int at_conv_kernel(ox_sym *g, const ox_api *api, ox_vid w, size_t *nsp,
                                 int64_t *kernel)
{
    int wrank = api->rank(g, w);
    if (wrank < 3 || wrank > 5)
        return api->fail(g, "the weight must have rank 3 to 5 with known sizes (got rank %d)",
                         wrank);
    *nsp = (size_t)wrank - 2;
    for (size_t i = 0; i < *nsp; i++) {
        kernel[i] = oxu_fixed_size(g, api, w, (int)i + 2);
        if (kernel[i] < 0)
            return api->fail(g, "the weight's kernel size along axis %zu is unknown; record the "
                                "weight's sizes",
                             i + 2);
    }
    return 0;
}

/* Conv / ConvTranspose / QLinearConv's geometry attributes on node n: nsp
 * spatial dims of kernel, stride, dilation, all begin then all end pads, and
 * the recorded groups. */
static inline void at_conv_attrs(ox_sym *g, const ox_api *api, ox_onode *n, size_t nsp,
                                 const int64_t *kernel, const int64_t *stride,
                                 const int64_t *pads, const int64_t *dilation)
{
    api->attr_ints(n, "kernel_shape", kernel, nsp);
    api->attr_ints(n, "strides", stride, nsp);
    api->attr_ints(n, "pads", pads, 2 * nsp);
    api->attr_ints(n, "dilations", dilation, nsp);
    api->attr_int(n, "group", api->arg_int(g, "groups", 1));
}

#endif /* OX_ATEN_UTIL_H */
