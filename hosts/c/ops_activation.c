/*
 * Pointwise activations and (log-)softmax.
 */
#include "ops.h"

#include <math.h>

/* In-place ops write into x; the trace still gives the result a new value. */
static hc_tensor *target(hc_rt *rt, hc_tensor *x, int inplace)
{
    return inplace ? x : hc_new(rt, x->dtype, x->rank, x->sizes);
}

hc_tensor *hc_relu(hc_rt *rt, hc_tensor *x, int inplace)
{
    if (!x)
        return NULL;
    hc_tensor *y = target(rt, x, inplace);
    if (!y)
        return NULL;
    int64_t n = hc_numel(x);
    const float *s = hc_f32(x);
    float *d = hc_f32(y);
    for (int64_t i = 0; i < n; i++)
        d[i] = s[i] > 0.0f ? s[i] : 0.0f;
    ox_arg args[1] = {ox_arg_tensor("self", x->vid)};
    hc_record(rt, inplace ? "aten::relu_" : "aten::relu", 1, args, 1, &y);
    return y;
}

hc_tensor *hc_leaky_relu(hc_rt *rt, hc_tensor *x, double negative_slope, int inplace)
{
    if (!x)
        return NULL;
    hc_tensor *y = target(rt, x, inplace);
    if (!y)
        return NULL;
    int64_t n = hc_numel(x);
    float a = (float)negative_slope;
    const float *s = hc_f32(x);
    float *d = hc_f32(y);
    for (int64_t i = 0; i < n; i++)
        d[i] = s[i] > 0.0f ? s[i] : s[i] * a;
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_float("negative_slope", negative_slope)};
    hc_record(rt, inplace ? "aten::leaky_relu_" : "aten::leaky_relu", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_tanh(hc_rt *rt, hc_tensor *x)
{
    if (!x)
        return NULL;
    hc_tensor *y = hc_new(rt, OX_FLOAT, x->rank, x->sizes);
    if (!y)
        return NULL;
    int64_t n = hc_numel(x);
    for (int64_t i = 0; i < n; i++)
        hc_f32(y)[i] = tanhf(hc_f32(x)[i]);
    ox_arg args[1] = {ox_arg_tensor("self", x->vid)};
    hc_record(rt, "aten::tanh", 1, args, 1, &y);
    return y;
}

static float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }

hc_tensor *hc_sigmoid(hc_rt *rt, hc_tensor *x)
{
    if (!x)
        return NULL;
    hc_tensor *y = hc_new(rt, OX_FLOAT, x->rank, x->sizes);
    if (!y)
        return NULL;
    int64_t n = hc_numel(x);
    for (int64_t i = 0; i < n; i++)
        hc_f32(y)[i] = sigmoidf(hc_f32(x)[i]);
    ox_arg args[1] = {ox_arg_tensor("self", x->vid)};
    hc_record(rt, "aten::sigmoid", 1, args, 1, &y);
    return y;
}

static hc_tensor *softmax_common(hc_rt *rt, hc_tensor *x, int64_t dim, int log_form)
{
    if (!x)
        return NULL;
    int64_t d = dim < 0 ? dim + x->rank : dim;
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, x->sizes);
    if (!y)
        return NULL;
    int64_t outer = 1, len = x->sizes[d], inner = 1;
    if (rt->shape_only)
        outer = 0; /* the type only */
    for (int64_t i = 0; i < d; i++)
        outer *= x->sizes[i];
    for (uint32_t i = (uint32_t)d + 1; i < x->rank; i++)
        inner *= x->sizes[i];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const float *s = hc_f32(x) + o * len * inner + in;
            float *q = hc_f32(y) + o * len * inner + in;
            float mx = -INFINITY;
            for (int64_t k = 0; k < len; k++)
                if (s[k * inner] > mx)
                    mx = s[k * inner];
            double sum = 0.0;
            for (int64_t k = 0; k < len; k++)
                sum += exp((double)(s[k * inner] - mx));
            double lse = log(sum);
            for (int64_t k = 0; k < len; k++) {
                double v = (double)(s[k * inner] - mx);
                q[k * inner] = (float)(log_form ? v - lse : exp(v - lse));
            }
        }
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_int("dim", dim)};
    hc_record(rt, log_form ? "aten::log_softmax" : "aten::softmax", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_softmax(hc_rt *rt, hc_tensor *x, int64_t dim) { return softmax_common(rt, x, dim, 0); }

hc_tensor *hc_log_softmax(hc_rt *rt, hc_tensor *x, int64_t dim)
{
    return softmax_common(rt, x, dim, 1);
}
