/*
 * Modules: parameter registration under state_dict names and scoped forwards.
 */
#include "nn.h"

#include <math.h>
#include <stdio.h>

hc_conv_spec hc_conv_sq(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int bias)
{
    hc_conv_spec s = {in, out, {k, k}, {stride, stride}, {pad, pad}, bias, 0};
    return s;
}

void hc_conv_make(hc_model *m, hc_conv *c, const char *prefix, hc_conv_spec s)
{
    int64_t k = s.kernel[0] * s.kernel[1];
    /* PyTorch's fan_in: weight.size(1) * receptive field, for both kinds. */
    int64_t fan_in = (s.transposed ? s.out : s.in) * k;
    float wb = sqrtf(6.0f / (float)fan_in), bb = 1.0f / sqrtf((float)fan_in);
    int64_t wsz[4] = {s.transposed ? s.in : s.out, s.transposed ? s.out : s.in, s.kernel[0],
                      s.kernel[1]};
    int64_t bsz[1] = {s.out};
    c->weight = hc_param_uniform(m, 4, wsz, -wb, wb, "%s.weight", prefix);
    c->bias = s.bias ? hc_param_uniform(m, 1, bsz, -bb, bb, "%s.bias", prefix) : NULL;
    for (int i = 0; i < 2; i++) {
        c->stride[i] = s.stride[i];
        c->padding[i] = s.padding[i];
        c->dilation[i] = 1;
        c->output_padding[i] = 0;
    }
    c->groups = 1;
    c->transposed = s.transposed;
}

void hc_bn_make(hc_model *m, hc_bn *b, const char *prefix, int64_t channels, double eps)
{
    hc_bn_make_gamma(m, b, prefix, channels, eps, 0.8f, 1.2f);
}

void hc_bn_make_gamma(hc_model *m, hc_bn *b, const char *prefix, int64_t channels, double eps,
                      float lo, float hi)
{
    int64_t sz[1] = {channels};
    /* Non-trivial statistics so the exported BatchNormalization is tested. */
    b->weight = hc_param_uniform(m, 1, sz, lo, hi, "%s.weight", prefix);
    b->bias = hc_param_uniform(m, 1, sz, -0.1f, 0.1f, "%s.bias", prefix);
    b->running_mean = hc_param_uniform(m, 1, sz, -0.1f, 0.1f, "%s.running_mean", prefix);
    b->running_var = hc_param_uniform(m, 1, sz, 0.8f, 1.25f, "%s.running_var", prefix);
    b->eps = eps;
    b->momentum = 0.1;
}

void hc_fc_make(hc_model *m, hc_fc *f, const char *prefix, int64_t in, int64_t out, int bias)
{
    float wb = sqrtf(6.0f / (float)in), bb = 1.0f / sqrtf((float)in);
    int64_t wsz[2] = {out, in}, bsz[1] = {out};
    f->weight = hc_param_uniform(m, 2, wsz, -wb, wb, "%s.weight", prefix);
    f->bias = bias ? hc_param_uniform(m, 1, bsz, -bb, bb, "%s.bias", prefix) : NULL;
}

hc_tensor *hc_conv_fwd(hc_rt *rt, const hc_conv *c, const char *attr, hc_tensor *x)
{
    if (attr)
        hc_scope_push(rt, c->transposed ? "ConvTranspose2d[%s]" : "Conv2d[%s]", attr);
    hc_tensor *y = c->transposed
        ? hc_conv_transpose2d(rt, x, c->weight, c->bias, c->stride, c->padding,
                              c->output_padding, c->groups, c->dilation)
        : hc_conv2d(rt, x, c->weight, c->bias, c->stride, c->padding, c->dilation, c->groups);
    if (attr)
        hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_bn_fwd(hc_rt *rt, const hc_bn *b, const char *attr, hc_tensor *x)
{
    if (attr)
        hc_scope_push(rt, "BatchNorm2d[%s]", attr);
    hc_tensor *y = hc_batch_norm(rt, x, b->weight, b->bias, b->running_mean, b->running_var,
                                 b->momentum, b->eps);
    if (attr)
        hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_fc_fwd(hc_rt *rt, const hc_fc *f, const char *attr, hc_tensor *x)
{
    if (attr)
        hc_scope_push(rt, "Linear[%s]", attr);
    hc_tensor *y = hc_linear(rt, x, f->weight, f->bias);
    if (attr)
        hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_relu_mod(hc_rt *rt, const char *attr, hc_tensor *x, int inplace)
{
    hc_scope_push(rt, "ReLU[%s]", attr);
    hc_tensor *y = hc_relu(rt, x, inplace);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_leaky_relu_mod(hc_rt *rt, const char *attr, hc_tensor *x, double slope, int inplace)
{
    hc_scope_push(rt, "LeakyReLU[%s]", attr);
    hc_tensor *y = hc_leaky_relu(rt, x, slope, inplace);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_tanh_mod(hc_rt *rt, const char *attr, hc_tensor *x)
{
    hc_scope_push(rt, "Tanh[%s]", attr);
    hc_tensor *y = hc_tanh(rt, x);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_sigmoid_mod(hc_rt *rt, const char *attr, hc_tensor *x)
{
    hc_scope_push(rt, "Sigmoid[%s]", attr);
    hc_tensor *y = hc_sigmoid(rt, x);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_dropout_mod(hc_rt *rt, const char *attr, hc_tensor *x, double p)
{
    hc_scope_push(rt, "Dropout[%s]", attr);
    hc_tensor *y = hc_dropout(rt, x, p);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_max_pool_f(hc_rt *rt, hc_tensor *x, int64_t k, int64_t s, int64_t p)
{
    int64_t kk[2] = {k, k}, ss[2] = {s, s}, pp[2] = {p, p}, dd[2] = {1, 1};
    return hc_max_pool2d(rt, x, kk, ss, pp, dd, 0);
}

hc_tensor *hc_avg_pool_f(hc_rt *rt, hc_tensor *x, int64_t k, int64_t s, int64_t p)
{
    int64_t kk[2] = {k, k}, ss[2] = {s, s}, pp[2] = {p, p};
    return hc_avg_pool2d(rt, x, kk, ss, pp, 0, 1);
}

hc_tensor *hc_maxpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t k, int64_t s,
                          int64_t p, int ceil_mode)
{
    int64_t kk[2] = {k, k}, ss[2] = {s, s}, pp[2] = {p, p}, dd[2] = {1, 1};
    hc_scope_push(rt, "MaxPool2d[%s]", attr);
    hc_tensor *y = hc_max_pool2d(rt, x, kk, ss, pp, dd, ceil_mode);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_avgpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t k, int64_t s,
                          int64_t p)
{
    hc_scope_push(rt, "AvgPool2d[%s]", attr);
    hc_tensor *y = hc_avg_pool_f(rt, x, k, s, p);
    hc_scope_pop(rt);
    return y;
}

hc_tensor *hc_adaptive_avgpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t oh,
                                   int64_t ow)
{
    hc_scope_push(rt, "AdaptiveAvgPool2d[%s]", attr);
    hc_tensor *y = hc_adaptive_avg_pool2d(rt, x, oh, ow);
    hc_scope_pop(rt);
    return y;
}
