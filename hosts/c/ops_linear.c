/*
 * Fully connected layers: linear, addmm, and the transpose addmm needs.
 */
#include "ops.h"

#include "gemm.h"

hc_tensor *hc_linear(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b)
{
    if (!x || !w)
        return NULL;
    int64_t in = x->sizes[x->rank - 1], out = w->sizes[0];
    int64_t rows = hc_numel(x) / in;
    int64_t osz[HC_MAX_RANK];
    for (uint32_t i = 0; i < x->rank; i++)
        osz[i] = x->sizes[i];
    osz[x->rank - 1] = out;
    hc_tensor *y = hc_new(rt, x->dtype, x->rank, osz);
    if (!y)
        return NULL;
    if (!rt->shape_only) {
        float *ys = hc_f32(y);
        if (b)
            for (int64_t r = 0; r < rows; r++)
                for (int64_t j = 0; j < out; j++)
                    ys[r * out + j] = hc_f32(b)[j];
        hc_sgemm(0, 1, (size_t)rows, (size_t)out, (size_t)in, 1.0f, hc_f32(x), (size_t)in,
                 hc_f32(w), (size_t)in, b ? 1.0f : 0.0f, ys, (size_t)out);
    }
    ox_arg args[3] = {
        ox_arg_tensor("input", x->vid),
        ox_arg_tensor("weight", w->vid),
        b ? ox_arg_tensor("bias", b->vid) : ox_arg_none("bias"),
    };
    hc_record(rt, "aten::linear", 3, args, 1, &y);
    return y;
}

hc_tensor *hc_addmm(hc_rt *rt, hc_tensor *self, hc_tensor *mat1, hc_tensor *mat2, double beta,
                    double alpha)
{
    if (!self || !mat1 || !mat2)
        return NULL;
    int64_t m = mat1->sizes[0], k = mat1->sizes[1], n = mat2->sizes[1];
    int64_t osz[2] = {m, n};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 2, osz);
    if (!y)
        return NULL;
    float *ys = hc_f32(y);
    const float *s = hc_f32(self);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            /* self broadcasts: [n], [1, n], [m, 1] or [m, n]. */
            int64_t si = self->rank == 2 && self->sizes[0] == m ? i : 0;
            int64_t sj = self->sizes[self->rank - 1] == n ? j : 0;
            int64_t ld = self->sizes[self->rank - 1];
            ys[i * n + j] = (float)beta * s[si * ld + sj];
        }
    hc_sgemm(0, 0, (size_t)m, (size_t)n, (size_t)k, (float)alpha, hc_f32(mat1), (size_t)k,
             hc_f32(mat2), (size_t)n, 1.0f, ys, (size_t)n);
    ox_arg args[5] = {
        ox_arg_tensor("self", self->vid), ox_arg_tensor("mat1", mat1->vid),
        ox_arg_tensor("mat2", mat2->vid), ox_arg_float("beta", beta),
        ox_arg_float("alpha", alpha),
    };
    hc_record(rt, "aten::addmm", 5, args, 1, &y);
    return y;
}

hc_tensor *hc_t(hc_rt *rt, hc_tensor *x)
{
    if (!x)
        return NULL;
    int64_t r = x->sizes[0], c = x->rank == 2 ? x->sizes[1] : 1;
    int64_t osz[2] = {c, r};
    hc_tensor *y = hc_new(rt, OX_FLOAT, x->rank, osz);
    if (!y)
        return NULL;
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            hc_f32(y)[j * r + i] = hc_f32(x)[i * c + j];
    if (x->rank == 1)
        y->sizes[0] = r;
    ox_arg args[1] = {ox_arg_tensor("self", x->vid)};
    hc_record(rt, "aten::t", 1, args, 1, &y);
    return y;
}
