/*
 * Max, average and adaptive average pooling with PyTorch's output-size and
 * divisor rules (ceil_mode windows must start inside the input or its left
 * padding; count_include_pad counts padding but not the ceil overhang).
 */
#include "ops.h"

#include <math.h>

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int ceil_mode)
{
    int64_t span = in + 2 * p - d * (k - 1) - 1;
    int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (out - 1) * s >= in + p)
        out--;
    return out;
}

hc_tensor *hc_max_pool2d(hc_rt *rt, hc_tensor *x, const int64_t kernel[2], const int64_t stride[2],
                         const int64_t padding[2], const int64_t dilation[2], int ceil_mode)
{
    if (!x)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], h = x->sizes[2], w = x->sizes[3];
    int64_t oh = pool_out(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode);
    int64_t ow = pool_out(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode);
    int64_t osz[4] = {n, c, oh, ow};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    for (int64_t pl = 0; pl < n * c; pl++) {
        const float *s = hc_f32(x) + pl * h * w;
        float *q = hc_f32(y) + pl * oh * ow;
        for (int64_t yo = 0; yo < oh; yo++)
            for (int64_t xo = 0; xo < ow; xo++) {
                float m = -INFINITY;
                for (int64_t i = 0; i < kernel[0]; i++) {
                    int64_t iy = yo * stride[0] - padding[0] + i * dilation[0];
                    if (iy < 0 || iy >= h)
                        continue;
                    for (int64_t j = 0; j < kernel[1]; j++) {
                        int64_t ix = xo * stride[1] - padding[1] + j * dilation[1];
                        if (ix >= 0 && ix < w && s[iy * w + ix] > m)
                            m = s[iy * w + ix];
                    }
                }
                q[yo * ow + xo] = m;
            }
    }
    ox_arg args[6] = {
        ox_arg_tensor("self", x->vid),
        ox_arg_ints("kernel_size", kernel, 2),
        ox_arg_ints("stride", stride, 2),
        ox_arg_ints("padding", padding, 2),
        ox_arg_ints("dilation", dilation, 2),
        ox_arg_bool("ceil_mode", ceil_mode),
    };
    hc_record(rt, "aten::max_pool2d", 6, args, 1, &y);
    return y;
}

hc_tensor *hc_avg_pool2d(hc_rt *rt, hc_tensor *x, const int64_t kernel[2], const int64_t stride[2],
                         const int64_t padding[2], int ceil_mode, int count_include_pad)
{
    if (!x)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], h = x->sizes[2], w = x->sizes[3];
    int64_t oh = pool_out(h, kernel[0], stride[0], padding[0], 1, ceil_mode);
    int64_t ow = pool_out(w, kernel[1], stride[1], padding[1], 1, ceil_mode);
    int64_t osz[4] = {n, c, oh, ow};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    for (int64_t pl = 0; pl < n * c; pl++) {
        const float *s = hc_f32(x) + pl * h * w;
        float *q = hc_f32(y) + pl * oh * ow;
        for (int64_t yo = 0; yo < oh; yo++)
            for (int64_t xo = 0; xo < ow; xo++) {
                int64_t y0 = yo * stride[0] - padding[0], x0 = xo * stride[1] - padding[1];
                int64_t y1 = y0 + kernel[0] < h + padding[0] ? y0 + kernel[0] : h + padding[0];
                int64_t x1 = x0 + kernel[1] < w + padding[1] ? x0 + kernel[1] : w + padding[1];
                int64_t padded = (y1 - y0) * (x1 - x0);
                y0 = y0 < 0 ? 0 : y0;
                x0 = x0 < 0 ? 0 : x0;
                y1 = y1 > h ? h : y1;
                x1 = x1 > w ? w : x1;
                double sum = 0.0;
                for (int64_t iy = y0; iy < y1; iy++)
                    for (int64_t ix = x0; ix < x1; ix++)
                        sum += s[iy * w + ix];
                int64_t div = count_include_pad ? padded : (y1 - y0) * (x1 - x0);
                q[yo * ow + xo] = div > 0 ? (float)(sum / (double)div) : 0.0f;
            }
    }
    ox_arg args[6] = {
        ox_arg_tensor("self", x->vid),
        ox_arg_ints("kernel_size", kernel, 2),
        ox_arg_ints("stride", stride, 2),
        ox_arg_ints("padding", padding, 2),
        ox_arg_bool("ceil_mode", ceil_mode),
        ox_arg_bool("count_include_pad", count_include_pad),
    };
    hc_record(rt, "aten::avg_pool2d", 6, args, 1, &y);
    return y;
}

hc_tensor *hc_adaptive_avg_pool2d(hc_rt *rt, hc_tensor *x, int64_t out_h, int64_t out_w)
{
    if (!x)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], h = x->sizes[2], w = x->sizes[3];
    int64_t osz[4] = {n, c, out_h, out_w};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    for (int64_t pl = 0; pl < n * c; pl++) {
        const float *s = hc_f32(x) + pl * h * w;
        float *q = hc_f32(y) + pl * out_h * out_w;
        for (int64_t yo = 0; yo < out_h; yo++) {
            int64_t y0 = yo * h / out_h, y1 = ((yo + 1) * h + out_h - 1) / out_h;
            for (int64_t xo = 0; xo < out_w; xo++) {
                int64_t x0 = xo * w / out_w, x1 = ((xo + 1) * w + out_w - 1) / out_w;
                double sum = 0.0;
                for (int64_t iy = y0; iy < y1; iy++)
                    for (int64_t ix = x0; ix < x1; ix++)
                        sum += s[iy * w + ix];
                q[yo * out_w + xo] = (float)(sum / (double)((y1 - y0) * (x1 - x0)));
            }
        }
    }
    int64_t os[2] = {out_h, out_w};
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_ints("output_size", os, 2)};
    hc_record(rt, "aten::adaptive_avg_pool2d", 2, args, 1, &y);
    return y;
}
