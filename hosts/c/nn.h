/*
 * Module-like building blocks over the host's ops: each owns its parameters
 * (registered under a state_dict prefix) and its forward pushes the module's
 * scope segment "ClassName[attribute]", as torch.nn modules do in a trace.
 *
 * Initialisation: weights are Kaiming-uniform with the ReLU gain,
 * U(-sqrt(6/fan_in), +sqrt(6/fan_in)), biases U(-1/sqrt(fan_in), +..) as
 * PyTorch's default.  PyTorch's default weight gain (a=sqrt(5)) shrinks
 * activations ~2.4x per layer, so a 50-layer network would output numbers
 * near 1e-9 and an exported-vs-host comparison would pass vacuously; the ReLU
 * gain keeps activations O(1) so the zoo tests compare real numbers.
 */
#ifndef HC_NN_H
#define HC_NN_H

#include "model.h"
#include "ops.h"

typedef struct hc_conv {
    hc_tensor *weight, *bias;
    int64_t stride[2], padding[2], dilation[2], groups;
    int transposed;
    int64_t output_padding[2];
} hc_conv;

typedef struct hc_conv_spec {
    int64_t in, out;
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
    int bias;
    int transposed;
} hc_conv_spec;

typedef struct hc_bn {
    hc_tensor *weight, *bias, *running_mean, *running_var;
    double eps, momentum;
} hc_bn;

typedef struct hc_fc {
    hc_tensor *weight, *bias;
} hc_fc;

/* Convenience spec builders: square kernel, stride, padding. */
hc_conv_spec hc_conv_sq(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int bias);

void hc_conv_make(hc_model *m, hc_conv *c, const char *prefix, hc_conv_spec s);
void hc_bn_make(hc_model *m, hc_bn *b, const char *prefix, int64_t channels, double eps);
/* Same with gamma drawn from U(lo, hi): residual branches use a small gamma
 * (like torchvision's zero_init_residual, but not zero) so 16 residual adds do
 * not grow activations into the hundreds. */
void hc_bn_make_gamma(hc_model *m, hc_bn *b, const char *prefix, int64_t channels, double eps,
                      float lo, float hi);
void hc_fc_make(hc_model *m, hc_fc *f, const char *prefix, int64_t in, int64_t out, int bias);

/* Forwards: `attr` is the module's attribute name in its parent ("0",
 * "conv1"); NULL means no scope segment (a functional call). */
hc_tensor *hc_conv_fwd(hc_rt *rt, const hc_conv *c, const char *attr, hc_tensor *x);
hc_tensor *hc_bn_fwd(hc_rt *rt, const hc_bn *b, const char *attr, hc_tensor *x);
hc_tensor *hc_fc_fwd(hc_rt *rt, const hc_fc *f, const char *attr, hc_tensor *x);

/* Parameterless modules. */
hc_tensor *hc_relu_mod(hc_rt *rt, const char *attr, hc_tensor *x, int inplace);
hc_tensor *hc_leaky_relu_mod(hc_rt *rt, const char *attr, hc_tensor *x, double slope, int inplace);
hc_tensor *hc_tanh_mod(hc_rt *rt, const char *attr, hc_tensor *x);
hc_tensor *hc_sigmoid_mod(hc_rt *rt, const char *attr, hc_tensor *x);
hc_tensor *hc_dropout_mod(hc_rt *rt, const char *attr, hc_tensor *x, double p);
hc_tensor *hc_maxpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t k, int64_t s,
                          int64_t p, int ceil_mode);
hc_tensor *hc_avgpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t k, int64_t s,
                          int64_t p);
hc_tensor *hc_adaptive_avgpool_mod(hc_rt *rt, const char *attr, hc_tensor *x, int64_t oh,
                                   int64_t ow);

/* Max/avg pool as functional calls (F.max_pool2d, F.avg_pool2d): no scope. */
hc_tensor *hc_max_pool_f(hc_rt *rt, hc_tensor *x, int64_t k, int64_t s, int64_t p);
hc_tensor *hc_avg_pool_f(hc_rt *rt, hc_tensor *x, int64_t k, int64_t s, int64_t p);

#endif /* HC_NN_H */
