/*
 * The host's operators.  Each one computes its result on the CPU and, when
 * rt is tracing, records itself with the kind and argument names of
 * docs/recording-conventions.md.  Results are temporaries owned by rt.
 * A function returns NULL only after a failed allocation (rt->status says so);
 * NULL inputs propagate to NULL outputs so model code can stay linear.
 */
#ifndef HC_OPS_H
#define HC_OPS_H

#include "runtime.h"

/* aten::conv2d.  weight [Cout, Cin/groups, kh, kw]; bias may be NULL. */
hc_tensor *hc_conv2d(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b, const int64_t stride[2],
                     const int64_t padding[2], const int64_t dilation[2], int64_t groups);
/* aten::conv_transpose2d.  weight [Cin, Cout/groups, kh, kw]. */
hc_tensor *hc_conv_transpose2d(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b,
                               const int64_t stride[2], const int64_t padding[2],
                               const int64_t output_padding[2], int64_t groups,
                               const int64_t dilation[2]);
/* aten::batch_norm in eval mode (running statistics). */
hc_tensor *hc_batch_norm(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b, hc_tensor *mean,
                         hc_tensor *var, double momentum, double eps);

/* Activations.  inplace != 0 overwrites x and records the `_` kind; x then
 * carries the new value id and is returned. */
hc_tensor *hc_relu(hc_rt *rt, hc_tensor *x, int inplace);
hc_tensor *hc_leaky_relu(hc_rt *rt, hc_tensor *x, double negative_slope, int inplace);
hc_tensor *hc_tanh(hc_rt *rt, hc_tensor *x);
hc_tensor *hc_sigmoid(hc_rt *rt, hc_tensor *x);
hc_tensor *hc_softmax(hc_rt *rt, hc_tensor *x, int64_t dim);
hc_tensor *hc_log_softmax(hc_rt *rt, hc_tensor *x, int64_t dim);

/* Pooling (NCHW). */
hc_tensor *hc_max_pool2d(hc_rt *rt, hc_tensor *x, const int64_t kernel[2], const int64_t stride[2],
                         const int64_t padding[2], const int64_t dilation[2], int ceil_mode);
hc_tensor *hc_avg_pool2d(hc_rt *rt, hc_tensor *x, const int64_t kernel[2], const int64_t stride[2],
                         const int64_t padding[2], int ceil_mode, int count_include_pad);
hc_tensor *hc_adaptive_avg_pool2d(hc_rt *rt, hc_tensor *x, int64_t out_h, int64_t out_w);

/* aten::linear: y = x W^T + b over the last dim of x (any rank >= 1). */
hc_tensor *hc_linear(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b);
/* aten::addmm: beta*self + alpha*(mat1 @ mat2); self broadcasts over rows. */
hc_tensor *hc_addmm(hc_rt *rt, hc_tensor *self, hc_tensor *mat1, hc_tensor *mat2, double beta,
                    double alpha);
/* aten::t of a 2-D tensor (a copy). */
hc_tensor *hc_t(hc_rt *rt, hc_tensor *x);

/* aten::dropout in eval mode: identity (a view). */
hc_tensor *hc_dropout(hc_rt *rt, hc_tensor *x, double p);

/* Shapes. */
hc_tensor *hc_cat(hc_rt *rt, hc_tensor *const *xs, size_t n, int64_t dim);
hc_tensor *hc_flatten(hc_rt *rt, hc_tensor *x, int64_t start_dim, int64_t end_dim);
hc_tensor *hc_view(hc_rt *rt, hc_tensor *x, const int64_t *size, size_t n);
/* aten::squeeze with a dim (removes it when its size is 1). */
hc_tensor *hc_squeeze(hc_rt *rt, hc_tensor *x, int64_t dim);
hc_tensor *hc_pixel_shuffle(hc_rt *rt, hc_tensor *x, int64_t upscale_factor);
/* Constant padding; pad is PyTorch's last-dim-first (begin, end) pairs.
 * as_function != 0 records fn::ConstantPadNd, else aten::constant_pad_nd. */
hc_tensor *hc_constant_pad(hc_rt *rt, hc_tensor *x, const int64_t *pad, size_t n_pad,
                           double value, int as_function);

/* Elementwise with numpy broadcasting.  inplace records add_/mul_ and
 * writes into a (whose shape must be the result shape). */
hc_tensor *hc_add(hc_rt *rt, hc_tensor *a, hc_tensor *b, double alpha, int inplace);
hc_tensor *hc_mul(hc_rt *rt, hc_tensor *a, hc_tensor *b, int inplace);

/* aten::embedding: weight [V, D], int64 indices of any shape -> [..., D]. */
hc_tensor *hc_embedding(hc_rt *rt, hc_tensor *weight, hc_tensor *indices);

/* aten::lstm, unidirectional, seq-first.  params: per layer w_ih [4H, in],
 * w_hh [4H, H], b_ih [4H], b_hh [4H] (PyTorch's gate order i, f, g, o).
 * h0, c0: [num_layers, batch, H].  Outputs: out [seq, batch, H], h_n, c_n. */
int hc_lstm(hc_rt *rt, hc_tensor *input, hc_tensor *h0, hc_tensor *c0, hc_tensor *const *params,
            int64_t num_layers, double dropout, hc_tensor **out, hc_tensor **h_n,
            hc_tensor **c_n);

/* Transformer decoder ops (ops_transformer.c).  These, and linear,
 * embedding, add, mul, softmax, cat and view above, honour rt->shape_only
 * (record the output type, compute nothing); the others need bytes. */
/* aten::matmul of equal-rank batches of matrices [..., m, k] x [..., k, n]. */
hc_tensor *hc_matmul(hc_rt *rt, hc_tensor *a, hc_tensor *b);
hc_tensor *hc_transpose(hc_rt *rt, hc_tensor *x, int64_t dim0, int64_t dim1);
/* aten::slice with step 1: x[..., start:end, ...] on `dim`. */
hc_tensor *hc_slice(hc_rt *rt, hc_tensor *x, int64_t dim, int64_t start, int64_t end);
/* aten::reshape to `shape` (no -1). */
hc_tensor *hc_reshape(hc_rt *rt, hc_tensor *x, const int64_t *shape, size_t n);
/* aten::mean over the last dim, keepdim. */
hc_tensor *hc_mean_last(hc_rt *rt, hc_tensor *x);
hc_tensor *hc_rsqrt(hc_rt *rt, hc_tensor *x);
hc_tensor *hc_neg(hc_rt *rt, hc_tensor *x);
hc_tensor *hc_silu(hc_rt *rt, hc_tensor *x);
/* x ** e, x + s, x * s with a Python number (recorded as a scalar). */
hc_tensor *hc_pow_scalar(hc_rt *rt, hc_tensor *x, double e);
hc_tensor *hc_add_scalar(hc_rt *rt, hc_tensor *x, double s);
hc_tensor *hc_mul_scalar(hc_rt *rt, hc_tensor *x, double s);

#endif /* HC_OPS_H */
