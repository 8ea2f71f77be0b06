/*
 * Shape operators: dropout (eval), cat, flatten, view, squeeze,
 * pixel_shuffle and constant padding.  Contiguous reshapes are views.
 */
#include "ops.h"

#include <string.h>

hc_tensor *hc_dropout(hc_rt *rt, hc_tensor *x, double p)
{
    if (!x)
        return NULL;
    hc_tensor *y = hc_alias(rt, x, x->rank, x->sizes);
    if (!y)
        return NULL;
    ox_arg args[3] = {ox_arg_tensor("input", x->vid), ox_arg_float("p", p),
                      ox_arg_bool("train", 0)};
    hc_record(rt, "aten::dropout", 3, args, 1, &y);
    return y;
}

hc_tensor *hc_cat(hc_rt *rt, hc_tensor *const *xs, size_t n, int64_t dim)
{
    if (n == 0 || n > 1024)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!xs[i])
            return NULL;
    const hc_tensor *x0 = xs[0];
    int64_t d = dim < 0 ? dim + x0->rank : dim;
    int64_t osz[HC_MAX_RANK];
    memcpy(osz, x0->sizes, sizeof osz);
    osz[d] = 0;
    for (size_t i = 0; i < n; i++)
        osz[d] += xs[i]->sizes[d];
    hc_tensor *y = hc_new(rt, x0->dtype, x0->rank, osz);
    if (!y)
        return NULL;
    size_t es = hc_dtype_size(x0->dtype);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; i++)
        outer *= osz[i];
    if (rt->shape_only)
        outer = 0; /* the type only */
    for (uint32_t i = (uint32_t)d + 1; i < x0->rank; i++)
        inner *= osz[i];
    char *dst = y->data;
    for (int64_t o = 0; o < outer; o++)
        for (size_t i = 0; i < n; i++) {
            size_t chunk = (size_t)(xs[i]->sizes[d] * inner) * es;
            memcpy(dst, (const char *)xs[i]->data + (size_t)o * chunk, chunk);
            dst += chunk;
        }
    ox_vid ids[1024];
    for (size_t i = 0; i < n; i++)
        ids[i] = xs[i]->vid;
    ox_arg args[2] = {ox_arg_tensors("tensors", ids, n), ox_arg_int("dim", dim)};
    hc_record(rt, "aten::cat", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_flatten(hc_rt *rt, hc_tensor *x, int64_t start_dim, int64_t end_dim)
{
    if (!x)
        return NULL;
    int64_t s = start_dim < 0 ? start_dim + x->rank : start_dim;
    int64_t e = end_dim < 0 ? end_dim + x->rank : end_dim;
    int64_t osz[HC_MAX_RANK];
    uint32_t r = 0;
    for (int64_t i = 0; i < s; i++)
        osz[r++] = x->sizes[i];
    int64_t prod = 1;
    for (int64_t i = s; i <= e; i++)
        prod *= x->sizes[i];
    osz[r++] = prod;
    for (int64_t i = e + 1; i < (int64_t)x->rank; i++)
        osz[r++] = x->sizes[i];
    hc_tensor *y = hc_alias(rt, x, r, osz);
    if (!y)
        return NULL;
    ox_arg args[3] = {ox_arg_tensor("self", x->vid), ox_arg_int("start_dim", start_dim),
                      ox_arg_int("end_dim", end_dim)};
    hc_record(rt, "aten::flatten", 3, args, 1, &y);
    return y;
}

hc_tensor *hc_view(hc_rt *rt, hc_tensor *x, const int64_t *size, size_t n)
{
    if (!x || n > HC_MAX_RANK)
        return NULL;
    int64_t osz[HC_MAX_RANK], known = 1;
    int infer = -1;
    for (size_t i = 0; i < n; i++) {
        osz[i] = size[i];
        if (size[i] == -1)
            infer = (int)i;
        else
            known *= size[i];
    }
    if (infer >= 0)
        osz[infer] = known ? hc_numel(x) / known : 0;
    hc_tensor *y = hc_alias(rt, x, (uint32_t)n, osz);
    if (!y)
        return NULL;
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_ints("size", size, n)};
    hc_record(rt, "aten::view", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_squeeze(hc_rt *rt, hc_tensor *x, int64_t dim)
{
    if (!x)
        return NULL;
    int64_t d = dim < 0 ? dim + x->rank : dim;
    int64_t osz[HC_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t i = 0; i < x->rank; i++)
        if (!((int64_t)i == d && x->sizes[i] == 1))
            osz[r++] = x->sizes[i];
    hc_tensor *y = hc_alias(rt, x, r, osz);
    if (!y)
        return NULL;
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_int("dim", dim)};
    hc_record(rt, "aten::squeeze", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_pixel_shuffle(hc_rt *rt, hc_tensor *x, int64_t r)
{
    if (!x)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1] / (r * r), h = x->sizes[2], w = x->sizes[3];
    int64_t osz[4] = {n, c, h * r, w * r};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 4, osz);
    if (!y)
        return NULL;
    const float *s = hc_f32(x);
    float *q = hc_f32(y);
    for (int64_t b = 0; b < n; b++)
        for (int64_t ci = 0; ci < c; ci++)
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < r; j++) {
                    const float *plane = s + ((b * c + ci) * r * r + i * r + j) * h * w;
                    float *out = q + (b * c + ci) * h * r * w * r;
                    for (int64_t yy = 0; yy < h; yy++)
                        for (int64_t xx = 0; xx < w; xx++)
                            out[(yy * r + i) * w * r + xx * r + j] = plane[yy * w + xx];
                }
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_int("upscale_factor", r)};
    hc_record(rt, "aten::pixel_shuffle", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_constant_pad(hc_rt *rt, hc_tensor *x, const int64_t *pad, size_t n_pad,
                           double value, int as_function)
{
    if (!x || n_pad % 2 || n_pad / 2 > x->rank)
        return NULL;
    int64_t before[HC_MAX_RANK] = {0}, osz[HC_MAX_RANK];
    for (uint32_t i = 0; i < x->rank; i++)
        osz[i] = x->sizes[i];
    for (size_t k = 0; k < n_pad / 2; k++) {
        uint32_t d = x->rank - 1 - (uint32_t)k;
        before[d] = pad[2 * k];
        osz[d] += pad[2 * k] + pad[2 * k + 1];
    }
    hc_tensor *y = hc_new(rt, OX_FLOAT, x->rank, osz);
    if (!y)
        return NULL;
    int64_t total = hc_numel(y);
    float *q = hc_f32(y);
    const float *s = hc_f32(x);
    for (int64_t o = 0; o < total; o++) {
        int64_t rem = o, src = 0, stride = 1;
        int inside = 1;
        for (int d = (int)x->rank - 1; d >= 0; d--) {
            int64_t idx = rem % osz[d] - before[d];
            rem /= osz[d];
            if (idx < 0 || idx >= x->sizes[d])
                inside = 0;
            src += idx * stride;
            stride *= x->sizes[d];
        }
        q[o] = inside ? s[src] : (float)value;
    }
    if (as_function) {
        ox_arg args[3] = {ox_arg_tensor("input", x->vid), ox_arg_ints("pad", pad, n_pad),
                          ox_arg_float("value", value)};
        hc_record(rt, "fn::ConstantPadNd", 3, args, 1, &y);
    } else {
        ox_arg args[3] = {ox_arg_tensor("self", x->vid), ox_arg_ints("pad", pad, n_pad),
                          ox_arg_float("value", value)};
        hc_record(rt, "aten::constant_pad_nd", 3, args, 1, &y);
    }
    return y;
}
