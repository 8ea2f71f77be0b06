/*
 * Convolution and transposed convolution: im2col/col2im around one GEMM per
 * (image, group).
 */
#include "ops.h"

#include <string.h>

#include "gemm.h"

static void im2col(const float *x, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw,
                   const int64_t s[2], const int64_t p[2], const int64_t d[2], int64_t oh,
                   int64_t ow, float *col)
{
    for (int64_t ci = 0; ci < c; ci++)
        for (int64_t i = 0; i < kh; i++)
            for (int64_t j = 0; j < kw; j++) {
                float *row = col + ((ci * kh + i) * kw + j) * oh * ow;
                for (int64_t y = 0; y < oh; y++) {
                    int64_t iy = y * s[0] - p[0] + i * d[0];
                    float *r = row + y * ow;
                    if (iy < 0 || iy >= h) {
                        memset(r, 0, (size_t)ow * sizeof *r);
                        continue;
                    }
                    const float *src = x + (ci * h + iy) * w;
                    for (int64_t xo = 0; xo < ow; xo++) {
                        int64_t ix = xo * s[1] - p[1] + j * d[1];
                        r[xo] = (ix >= 0 && ix < w) ? src[ix] : 0.0f;
                    }
                }
            }
}

static void col2im_add(const float *col, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw,
                       const int64_t s[2], const int64_t p[2], const int64_t d[2], int64_t oh,
                       int64_t ow, float *out)
{
    /* h, w: the (smaller) input grid the columns were computed on; oh, ow: output. */
    for (int64_t ci = 0; ci < c; ci++)
        for (int64_t i = 0; i < kh; i++)
            for (int64_t j = 0; j < kw; j++) {
                const float *row = col + ((ci * kh + i) * kw + j) * h * w;
                for (int64_t y = 0; y < h; y++) {
                    int64_t oy = y * s[0] - p[0] + i * d[0];
                    if (oy < 0 || oy >= oh)
                        continue;
                    float *dst = out + (ci * oh + oy) * ow;
                    for (int64_t xi = 0; xi < w; xi++) {
                        int64_t ox = xi * s[1] - p[1] + j * d[1];
                        if (ox >= 0 && ox < ow)
                            dst[ox] += row[y * w + xi];
                    }
                }
            }
}

static void add_channel_bias(float *y, const float *b, int64_t n, int64_t c, int64_t hw)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t ci = 0; ci < c; ci++) {
            float *p = y + (i * c + ci) * hw;
            for (int64_t k = 0; k < hw; k++)
                p[k] += b[ci];
        }
}

hc_tensor *hc_conv2d(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b, const int64_t stride[2],
                     const int64_t padding[2], const int64_t dilation[2], int64_t groups)
{
    if (!x || !w)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], h = x->sizes[2], wd = x->sizes[3];
    int64_t co = w->sizes[0], kh = w->sizes[2], kw = w->sizes[3];
    int64_t cg = c / groups, og = co / groups;
    int64_t oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
    int64_t ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
    int64_t osz[4] = {n, co, oh, ow};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    int direct = kh == 1 && kw == 1 && stride[0] == 1 && stride[1] == 1 && padding[0] == 0 &&
                 padding[1] == 0;
    int64_t kk = cg * kh * kw, ohw = oh * ow;
    float *col = NULL;
    if (!direct) {
        col = hc_scratch(rt, (size_t)(kk * ohw) * sizeof *col);
        if (!col)
            return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t g = 0; g < groups; g++) {
            const float *xg = hc_f32(x) + (i * c + g * cg) * h * wd;
            const float *src = xg;
            if (!direct) {
                im2col(xg, cg, h, wd, kh, kw, stride, padding, dilation, oh, ow, col);
                src = col;
            }
            hc_sgemm(0, 0, (size_t)og, (size_t)ohw, (size_t)kk, 1.0f, hc_f32(w) + g * og * kk,
                     (size_t)kk, src, (size_t)ohw, 0.0f, hc_f32(y) + (i * co + g * og) * ohw,
                     (size_t)ohw);
        }
    if (b)
        add_channel_bias(hc_f32(y), hc_f32(b), n, co, ohw);

    ox_arg args[7] = {
        ox_arg_tensor("input", x->vid),
        ox_arg_tensor("weight", w->vid),
        b ? ox_arg_tensor("bias", b->vid) : ox_arg_none("bias"),
        ox_arg_ints("stride", stride, 2),
        ox_arg_ints("padding", padding, 2),
        ox_arg_ints("dilation", dilation, 2),
        ox_arg_int("groups", groups),
    };
    hc_record(rt, "aten::conv2d", 7, args, 1, &y);
    return y;
}

hc_tensor *hc_conv_transpose2d(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b,
                               const int64_t stride[2], const int64_t padding[2],
                               const int64_t output_padding[2], int64_t groups,
                               const int64_t dilation[2])
{
    if (!x || !w)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], h = x->sizes[2], wd = x->sizes[3];
    int64_t og = w->sizes[1], kh = w->sizes[2], kw = w->sizes[3];
    int64_t cg = c / groups, co = og * groups;
    int64_t oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) +
                 output_padding[0] + 1;
    int64_t ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) +
                 output_padding[1] + 1;
    int64_t osz[4] = {n, co, oh, ow};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    int64_t kk = og * kh * kw, hw = h * wd;
    float *col = hc_scratch(rt, (size_t)(kk * hw) * sizeof *col);
    if (!col)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        for (int64_t g = 0; g < groups; g++) {
            const float *xg = hc_f32(x) + (i * c + g * cg) * hw;
            /* col = W_g^T x_g, W_g viewed as [cg, og*kh*kw]. */
            hc_sgemm(1, 0, (size_t)kk, (size_t)hw, (size_t)cg, 1.0f, hc_f32(w) + g * cg * kk,
                     (size_t)kk, xg, (size_t)hw, 0.0f, col, (size_t)hw);
            col2im_add(col, og, h, wd, kh, kw, stride, padding, dilation, oh, ow,
                       hc_f32(y) + (i * co + g * og) * oh * ow);
        }
    if (b)
        add_channel_bias(hc_f32(y), hc_f32(b), n, co, oh * ow);

    ox_arg args[8] = {
        ox_arg_tensor("input", x->vid),
        ox_arg_tensor("weight", w->vid),
        b ? ox_arg_tensor("bias", b->vid) : ox_arg_none("bias"),
        ox_arg_ints("stride", stride, 2),
        ox_arg_ints("padding", padding, 2),
        ox_arg_ints("output_padding", output_padding, 2),
        ox_arg_int("groups", groups),
        ox_arg_ints("dilation", dilation, 2),
    };
    hc_record(rt, "aten::conv_transpose2d", 8, args, 1, &y);
    return y;
}
