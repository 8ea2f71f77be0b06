/* Pooling: max_pool2d -> MaxPool, avg_pool2d -> AveragePool,
 * adaptive_avg_pool2d -> GlobalAveragePool or AveragePool. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

typedef struct pool_args {
    int64_t kernel[2], stride[2], pads[4], dilation[2];
    int ceil_mode;
} pool_args;

static int read_pool(ox_sym *g, const ox_api *api, int with_dilation, pool_args *p)
{
    const int64_t *s = NULL;
    if (at_ints_n(g, api, "kernel_size", 2, 1, p->kernel))
        return 1;
    if (api->arg_ints(g, "kernel_size", &s) == 0)
        return api->fail(g, "argument 'kernel_size' is missing or empty");
    /* torch: an empty stride means stride = kernel_size. */
    if (api->arg_ints(g, "stride", &s) == 0) {
        p->stride[0] = p->kernel[0];
        p->stride[1] = p->kernel[1];
    } else if (at_ints_n(g, api, "stride", 2, 1, p->stride)) {
        return 1;
    }
    int64_t pad[2];
    if (at_ints_n(g, api, "padding", 2, 0, pad))
        return 1;
    p->pads[0] = p->pads[2] = pad[0];
    p->pads[1] = p->pads[3] = pad[1];
    p->dilation[0] = p->dilation[1] = 1;
    if (with_dilation && at_ints_n(g, api, "dilation", 2, 1, p->dilation))
        return 1;
    p->ceil_mode = api->arg_int(g, "ceil_mode", 0) != 0;
    return 0;
}

/* One form at every opset: what MaxPool lacks before opset 10 (ceil_mode,
 * dilations) is a limitation in opset_9.yaml, so the pre-scan refuses such a
 * node before this runs. */
static int sym_max_pool2d(ox_sym *g, const ox_api *api)
{
    pool_args p;
    if (read_pool(g, api, 1, &p))
        return 1;
    int dilated = p.dilation[0] != 1 || p.dilation[1] != 1;
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "MaxPool", 1, &x, 1);
    if (n) {
        api->attr_ints(n, "kernel_shape", p.kernel, 2);
        api->attr_ints(n, "strides", p.stride, 2);
        api->attr_ints(n, "pads", p.pads, 4);
        if (dilated)
            api->attr_ints(n, "dilations", p.dilation, 2);
        if (p.ceil_mode)
            api->attr_int(n, "ceil_mode", 1);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "MaxPool"));
}

/* Likewise AveragePool's ceil_mode (opset 10) and divisor_override (no opset). */
static int sym_avg_pool2d(ox_sym *g, const ox_api *api)
{
    pool_args p;
    if (read_pool(g, api, 0, &p))
        return 1;
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "AveragePool", 1, &x, 1);
    if (n) {
        api->attr_ints(n, "kernel_shape", p.kernel, 2);
        api->attr_ints(n, "strides", p.stride, 2);
        api->attr_ints(n, "pads", p.pads, 4);
        api->attr_int(n, "count_include_pad", api->arg_int(g, "count_include_pad", 1) != 0);
        if (p.ceil_mode)
            api->attr_int(n, "ceil_mode", 1);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "AveragePool"));
}

/* ONNX has no adaptive pooling: a non-global output size exports only as an
 * AveragePool whose kernel tiles the input exactly, which the recorded sizes
 * decide before conversion. */
static int check_adaptive_avg_pool2d(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *out = NULL;
    size_t n = api->arg_ints(g, "output_size", &out);
    if (n != 2 || (out[0] == 1 && out[1] == 1))
        return 0; /* a bad size, or global pooling: the symbolic's to say */
    int64_t h = api->size(g, x, -2), w = api->size(g, x, -1);
    if (h < 0 || w < 0)
        return 0; /* unknown until run time: the symbolic says so */
    if (out[0] <= 0 || out[1] <= 0 || h % out[0] != 0 || w % out[1] != 0)
        return api->limit(g, 0,
                          "adaptive_avg_pool2d from %lldx%lld to %lldx%lld: ONNX has no "
                          "adaptive pooling, and the input size is not a multiple of the "
                          "output size",
                          (long long)h, (long long)w, (long long)out[0], (long long)out[1]);
    return 0;
}

static int sym_adaptive_avg_pool2d(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t out[2];
    if (at_ints_n(g, api, "output_size", 2, 1, out))
        return 1;
    ox_vid y;
    if (out[0] == 1 && out[1] == 1) {
        y = at_op1(g, api, "GlobalAveragePool", x);
    } else {
        int64_t h = api->size(g, x, -2), w = api->size(g, x, -1);
        if (h < 0 || w < 0)
            return api->fail(g, "adaptive_avg_pool2d to %lldx%lld needs the input's spatial "
                                "sizes, which are unknown; record them",
                             (long long)out[0], (long long)out[1]);
        int64_t k[2] = {h / out[0], w / out[1]}, pads[4] = {0, 0, 0, 0};
        ox_onode *n = api->op(g, "AveragePool", 1, &x, 1);
        if (n) {
            api->attr_ints(n, "kernel_shape", k, 2);
            api->attr_ints(n, "strides", k, 2);
            api->attr_ints(n, "pads", pads, 4);
        }
        y = at_out(g, api, n, "AveragePool");
    }
    return oxu_set_result(g, api, 0, y);
}

static const int64_t one[] = {1}, zero[] = {0};
static const ox_param_decl p_max_pool2d[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),
    OX_PARAM_EMPTY_INTS("stride"), /* empty: the kernel size */
    OX_PARAM_INTS("padding", zero), OX_PARAM_INTS("dilation", one),
    OX_PARAM_BOOL("ceil_mode", 0)};
static const ox_param_decl p_avg_pool2d[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),
    OX_PARAM_EMPTY_INTS("stride"), OX_PARAM_INTS("padding", zero),
    OX_PARAM_BOOL("ceil_mode", 0), OX_PARAM_BOOL("count_include_pad", 1),
    OX_PARAM_NULL("divisor_override", OX_ARG_INT)};
static const ox_param_decl p_adaptive_avg_pool2d[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                      OX_PARAM("output_size", OX_ARG_INTS)};

const ox_op_decl at_ops_pool[] = {
    OX_OP("aten::max_pool2d", 7, p_max_pool2d, 1, sym_max_pool2d),
    OX_OP("aten::avg_pool2d", 7, p_avg_pool2d, 1, sym_avg_pool2d),
    OX_OP_EX("aten::adaptive_avg_pool2d", 7, p_adaptive_avg_pool2d, 1, sym_adaptive_avg_pool2d, 0,
             check_adaptive_avg_pool2d),
};
AT_FAMILY_SIZE(at_ops_pool);
