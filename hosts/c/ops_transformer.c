/*
 * The operators a LLaMA-style decoder adds to the host: batched matmul,
 * transpose, slice, reshape, the RMSNorm pieces (pow, mean over the last
 * dim, rsqrt), neg, SiLU, and arithmetic with a scalar.  Each honours
 * rt->shape_only: the output type is worked out and recorded, the kernel
 * runs only when the host computes.
 */
#include "ops.h"

#include <math.h>
#include <string.h>

/* Row-major strides of t. */
static void strides_of(const hc_tensor *t, int64_t *st)
{
    int64_t s = 1;
    for (int i = (int)t->rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= t->sizes[i];
    }
}

static int64_t norm_dim(const hc_tensor *x, int64_t d)
{
    return d < 0 ? d + (int64_t)x->rank : d;
}

hc_tensor *hc_matmul(hc_rt *rt, hc_tensor *a, hc_tensor *b)
{
    if (!a || !b)
        return NULL;
    if (a->rank < 2 || a->rank != b->rank) {
        hc_fail(rt, OX_EINVAL, "matmul: the host multiplies equal-rank batches of matrices");
        return NULL;
    }
    uint32_t r = a->rank;
    int64_t m = a->sizes[r - 2], k = a->sizes[r - 1], n = b->sizes[r - 1];
    if (b->sizes[r - 2] != k || memcmp(a->sizes, b->sizes, (r - 2) * sizeof(int64_t)) != 0) {
        hc_fail(rt, OX_EINVAL, "matmul: shapes do not match");
        return NULL;
    }
    int64_t osz[HC_MAX_RANK];
    memcpy(osz, a->sizes, r * sizeof *osz);
    osz[r - 1] = n;
    hc_tensor *y = hc_new(rt, a->dtype, r, osz);
    if (!y)
        return NULL;
    if (!rt->shape_only) {
        int64_t batch = hc_numel(y) / (m * n);
        for (int64_t i = 0; i < batch; i++) {
            const float *as = hc_f32(a) + i * m * k, *bs = hc_f32(b) + i * k * n;
            float *ys = hc_f32(y) + i * m * n;
            for (int64_t p = 0; p < m; p++)
                for (int64_t q = 0; q < n; q++) {
                    double acc = 0;
                    for (int64_t t = 0; t < k; t++)
                        acc += (double)as[p * k + t] * bs[t * n + q];
                    ys[p * n + q] = (float)acc;
                }
        }
    }
    ox_arg args[2] = {ox_arg_tensor("self", a->vid), ox_arg_tensor("other", b->vid)};
    hc_record(rt, "aten::matmul", 2, args, 1, &y);
    return y;
}

/* A copy of x with its axes in order perm (out axis i is x's perm[i]). */
static hc_tensor *permuted(hc_rt *rt, hc_tensor *x, const uint32_t *perm)
{
    int64_t osz[HC_MAX_RANK], xst[HC_MAX_RANK];
    for (uint32_t i = 0; i < x->rank; i++)
        osz[i] = x->sizes[perm[i]];
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, osz);
    if (!y || rt->shape_only)
        return y;
    strides_of(x, xst);
    int64_t n = hc_numel(y);
    for (int64_t o = 0; o < n; o++) {
        int64_t rem = o, src = 0;
        for (int d = (int)x->rank - 1; d >= 0; d--) {
            src += (rem % osz[d]) * xst[perm[d]];
            rem /= osz[d];
        }
        hc_f32(y)[o] = hc_f32(x)[src];
    }
    return y;
}

hc_tensor *hc_transpose(hc_rt *rt, hc_tensor *x, int64_t dim0, int64_t dim1)
{
    if (!x)
        return NULL;
    uint32_t perm[HC_MAX_RANK];
    for (uint32_t i = 0; i < x->rank; i++)
        perm[i] = i;
    int64_t d0 = norm_dim(x, dim0), d1 = norm_dim(x, dim1);
    perm[d0] = (uint32_t)d1;
    perm[d1] = (uint32_t)d0;
    hc_tensor *y = permuted(rt, x, perm);
    if (!y)
        return NULL;
    ox_arg args[3] = {ox_arg_tensor("self", x->vid), ox_arg_int("dim0", dim0),
                      ox_arg_int("dim1", dim1)};
    hc_record(rt, "aten::transpose", 3, args, 1, &y);
    return y;
}

hc_tensor *hc_slice(hc_rt *rt, hc_tensor *x, int64_t dim, int64_t start, int64_t end)
{
    if (!x)
        return NULL;
    int64_t d = norm_dim(x, dim);
    int64_t osz[HC_MAX_RANK];
    memcpy(osz, x->sizes, x->rank * sizeof *osz);
    osz[d] = end - start;
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, osz);
    if (!y)
        return NULL;
    if (!rt->shape_only) {
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < d; i++)
            outer *= x->sizes[i];
        for (uint32_t i = (uint32_t)d + 1; i < x->rank; i++)
            inner *= x->sizes[i];
        for (int64_t o = 0; o < outer; o++)
            memcpy(hc_f32(y) + o * osz[d] * inner,
                   hc_f32(x) + (o * x->sizes[d] + start) * inner,
                   (size_t)(osz[d] * inner) * sizeof(float));
    }
    ox_arg args[5] = {ox_arg_tensor("self", x->vid), ox_arg_int("dim", dim),
                      ox_arg_int("start", start), ox_arg_int("end", end), ox_arg_int("step", 1)};
    hc_record(rt, "aten::slice", 5, args, 1, &y);
    return y;
}

hc_tensor *hc_reshape(hc_rt *rt, hc_tensor *x, const int64_t *shape, size_t n)
{
    if (!x || n > HC_MAX_RANK)
        return NULL;
    /* x is contiguous (every host tensor is), so the bytes are shared */
    hc_tensor *y = hc_alias(rt, x, (uint32_t)n, shape);
    if (!y)
        return NULL;
    ox_arg args[2] = {ox_arg_tensor("self", x->vid), ox_arg_ints("shape", shape, n)};
    hc_record(rt, "aten::reshape", 2, args, 1, &y);
    return y;
}

hc_tensor *hc_mean_last(hc_rt *rt, hc_tensor *x)
{
    if (!x)
        return NULL;
    int64_t osz[HC_MAX_RANK];
    memcpy(osz, x->sizes, x->rank * sizeof *osz);
    int64_t len = osz[x->rank - 1];
    osz[x->rank - 1] = 1;
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, osz);
    if (!y)
        return NULL;
    if (!rt->shape_only) {
        int64_t rows = hc_numel(y);
        for (int64_t r = 0; r < rows; r++) {
            double s = 0;
            for (int64_t j = 0; j < len; j++)
                s += hc_f32(x)[r * len + j];
            hc_f32(y)[r] = (float)(s / (double)len);
        }
    }
    static const int64_t last[1] = {-1};
    ox_arg args[3] = {ox_arg_tensor("self", x->vid), ox_arg_ints("dim", last, 1),
                      ox_arg_bool("keepdim", 1)};
    hc_record(rt, "aten::mean", 3, args, 1, &y);
    return y;
}

typedef enum unop { U_RSQRT, U_NEG, U_SILU, U_POW, U_ADD, U_MUL } unop;

/* An elementwise op of x alone or with a scalar s. */
static hc_tensor *unary(hc_rt *rt, hc_tensor *x, unop op, double s)
{
    if (!x)
        return NULL;
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, x->sizes);
    if (!y)
        return NULL;
    int64_t n = rt->shape_only ? 0 : hc_numel(x);
    const float *xs = hc_f32(x);
    float *ys = hc_f32(y);
    for (int64_t i = 0; i < n; i++) {
        float v = xs[i];
        switch (op) {
        case U_RSQRT: ys[i] = 1.0f / sqrtf(v); break;
        case U_NEG: ys[i] = -v; break;
        case U_SILU: ys[i] = v / (1.0f + expf(-v)); break;
        case U_POW: ys[i] = (float)pow((double)v, s); break;
        case U_ADD: ys[i] = v + (float)s; break;
        case U_MUL: ys[i] = v * (float)s; break;
        }
    }
    static const char *const kinds[] = {"aten::rsqrt", "aten::neg", "aten::silu",
                                        "aten::pow", "aten::add", "aten::mul"};
    ox_arg args[3] = {ox_arg_tensor("self", x->vid)};
    size_t n_args = 1;
    if (op == U_POW)
        args[n_args++] = ox_arg_float("exponent", s);
    else if (op == U_ADD || op == U_MUL)
        args[n_args++] = ox_arg_float("other", s);
    if (op == U_ADD)
        args[n_args++] = ox_arg_float("alpha", 1.0);
    hc_record(rt, kinds[op], n_args, args, 1, &y);
    return y;
}

hc_tensor *hc_rsqrt(hc_rt *rt, hc_tensor *x) { return unary(rt, x, U_RSQRT, 0); }
hc_tensor *hc_neg(hc_rt *rt, hc_tensor *x) { return unary(rt, x, U_NEG, 0); }
hc_tensor *hc_silu(hc_rt *rt, hc_tensor *x) { return unary(rt, x, U_SILU, 0); }
hc_tensor *hc_pow_scalar(hc_rt *rt, hc_tensor *x, double e) { return unary(rt, x, U_POW, e); }
hc_tensor *hc_add_scalar(hc_rt *rt, hc_tensor *x, double s) { return unary(rt, x, U_ADD, s); }
hc_tensor *hc_mul_scalar(hc_rt *rt, hc_tensor *x, double s) { return unary(rt, x, U_MUL, s); }
