/* Sliding windows: Tensor.unfold (aten::unfold), F.unfold (aten::im2col)
 * and its inverse F.fold (aten::col2im).  ONNX has no windowing operator for
 * the first two; both gather the windows' elements with a constant index
 * table built from the recorded sizes (one Gather per windowed dimension),
 * then move the window axes where torch puts them.  F.fold is ONNX's Col2Im
 * (opset 18). */
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Gather along axis with the [n_windows, window] table start + i * step +
 * j * dilation: the windowed axis becomes two (windows, then elements). */
static ox_vid gather_windows(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis,
                             int64_t n_windows, int64_t window, int64_t step, int64_t dilation)
{
    if (!x)
        return 0;
    if (n_windows <= 0 || window <= 0 || n_windows > (INT64_C(1) << 24) / window) {
        api->fail(g, "%lld windows of %lld elements: expected a positive count of at most 2^24 "
                     "indices",
                  (long long)n_windows, (long long)window);
        return 0;
    }
    int64_t *idx = malloc((size_t)(n_windows * window) * sizeof *idx);
    if (!idx) {
        api->fail(g, "out of memory for a window index table");
        return 0;
    }
    for (int64_t i = 0; i < n_windows; i++)
        for (int64_t j = 0; j < window; j++)
            idx[i * window + j] = i * step + j * dilation;
    int64_t dims[2] = {n_windows, window};
    ox_vid in[2] = {x, api->constant(g, OX_INT64, 2, dims, idx)};
    free(idx);
    if (!in[1]) {
        api->fail(g, "could not create the window index constant");
        return 0;
    }
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", axis);
    return oxu_out(g, api, n, "Gather");
}

/* x.unfold(dimension, size, step): dimension becomes the window count and
 * a last dimension of `size` elements is appended. */
static int sym_unfold(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t dim, size = api->arg_int(g, "size", 1), step = api->arg_int(g, "step", 1);
    if (rank < 1)
        return api->fail(g, "unfold needs an input of known rank of at least 1 (got %d)", rank);
    if (rank >= OXU_MAX_RANK)
        return api->fail(g, "unfold supports inputs up to rank %d, got rank %d", OXU_MAX_RANK - 1,
                         rank);
    if (oxu_axis(g, api, "dimension", api->arg_int(g, "dimension", 0), rank, &dim))
        return 1;
    int64_t len = oxu_fixed_size(g, api, x, (int)dim);
    if (len < 0)
        return api->fail(g, "unfold needs the size of dimension %lld, which is unknown; record "
                            "the input's sizes",
                         (long long)dim);
    if (size < 1 || step < 1 || size > len)
        return api->fail(g, "unfold of a dimension of size %lld into windows of %lld with step "
                            "%lld: expected 1 <= size <= %lld and step >= 1",
                         (long long)len, (long long)size, (long long)step, (long long)len);
    ox_vid y = gather_windows(g, api, x, dim, (len - size) / step + 1, size, step, 1);
    if (dim + 1 == rank)
        return oxu_set_result(g, api, 0, y);
    int64_t perm[OXU_MAX_RANK];
    size_t k = 0;
    for (int64_t i = 0; i <= rank; i++)
        if (i != dim + 1)
            perm[k++] = i;
    perm[k++] = dim + 1;
    return oxu_set_result(g, api, 0, oxu_transpose(g, api, y, perm, k));
}

/* F.unfold: (N, C, H, W) -> (N, C * kh * kw, L), every kh x kw patch (with
 * dilation, after zero padding, at the stride) as a column; an unbatched
 * (C, H, W) input as a batch of one. */
static int sym_im2col(ox_sym *g, const ox_api *api)
{
    ox_vid src = api->arg_tensor(g, "self"), x = src;
    int rank = api->rank(g, x);
    if (rank != 3 && rank != 4)
        return api->fail(g, "im2col takes a (C, H, W) or (N, C, H, W) input; got rank %d", rank);
    int64_t k[2], d[2], p[2], s[2];
    if (at_ints_n(g, api, "kernel_size", 2, 1, k) || at_ints_n(g, api, "dilation", 2, 1, d) ||
        at_ints_n(g, api, "padding", 2, 0, p) || at_ints_n(g, api, "stride", 2, 1, s))
        return 1;
    int64_t c = oxu_fixed_size(g, api, src, -3), h = oxu_fixed_size(g, api, src, -2),
            w = oxu_fixed_size(g, api, src, -1);
    if (c < 0 || h < 0 || w < 0)
        return api->fail(g, "im2col needs the input's channel and spatial sizes, which are "
                            "unknown; record them");
    int64_t out[2], len[2] = {h + 2 * p[0], w + 2 * p[1]};
    for (int i = 0; i < 2; i++) {
        if (k[i] < 1 || d[i] < 1 || s[i] < 1 || p[i] < 0)
            return api->fail(g, "im2col: kernel_size, dilation and stride must be positive and "
                                "padding not negative");
        out[i] = (len[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
        if (len[i] < d[i] * (k[i] - 1) + 1)
            return api->fail(g, "im2col: the padded input (%lldx%lld) is smaller than the "
                                "dilated kernel",
                             (long long)len[0], (long long)len[1]);
    }
    if (rank == 3)
        x = oxu_unsqueeze(g, api, x, 0);
    if (p[0] || p[1]) {
        int64_t pads[8] = {0, 0, p[0], p[1], 0, 0, p[0], p[1]};
        x = oxu_pad(g, api, x, "constant", pads, 8, 0.0);
    }
    x = gather_windows(g, api, x, 2, out[0], k[0], s[0], d[0]); /* N, C, oh, kh, Wp */
    x = gather_windows(g, api, x, 4, out[1], k[1], s[1], d[1]); /* N, C, oh, kh, ow, kw */
    static const int64_t perm[6] = {0, 1, 3, 5, 2, 4};
    int64_t shape[3] = {0, c * k[0] * k[1], out[0] * out[1]};
    ox_vid y = oxu_reshape(g, api, oxu_transpose(g, api, x, perm, 6), shape, 3);
    if (rank == 3) {
        int64_t zero = 0;
        y = oxu_squeeze(g, api, y, &zero, 1);
    }
    return oxu_set_result(g, api, 0, y);
}

/* F.fold: (N, C * kh * kw, L) -> (N, C, H, W), the columns summed back into
 * their patches; an unbatched (C * kh * kw, L) input as a batch of one.
 * Col2Im-18 takes the image and block shapes as inputs, the padding as
 * [top, left, bottom, right]. */
static int sym_col2im(ox_sym *g, const ox_api *api)
{
    ox_vid src = api->arg_tensor(g, "self"), x = src;
    int rank = api->rank(g, x);
    if (rank != 2 && rank != 3)
        return api->fail(g, "col2im takes a (C * kh * kw, L) or (N, C * kh * kw, L) input; got "
                            "rank %d",
                         rank);
    int64_t o[2], k[2], d[2], p[2], s[2];
    if (at_ints_n(g, api, "output_size", 2, 1, o) || at_ints_n(g, api, "kernel_size", 2, 1, k) ||
        at_ints_n(g, api, "dilation", 2, 1, d) || at_ints_n(g, api, "padding", 2, 0, p) ||
        at_ints_n(g, api, "stride", 2, 1, s))
        return 1;
    for (int i = 0; i < 2; i++)
        if (o[i] < 1 || k[i] < 1 || d[i] < 1 || s[i] < 1 || p[i] < 0)
            return api->fail(g, "col2im: output_size, kernel_size, dilation and stride must be "
                                "positive and padding not negative");
    if (rank == 2)
        x = oxu_unsqueeze(g, api, x, 0);
    ox_vid in[3] = {x, oxu_const_ints(g, api, o, 2), oxu_const_ints(g, api, k, 2)};
    if (!in[0] || !in[1] || !in[2])
        return 1;
    ox_onode *n = api->op(g, "Col2Im", 3, in, 1);
    if (n) {
        int64_t pads[4] = {p[0], p[1], p[0], p[1]};
        api->attr_ints(n, "dilations", d, 2);
        api->attr_ints(n, "pads", pads, 4);
        api->attr_ints(n, "strides", s, 2);
    }
    ox_vid y = oxu_out(g, api, n, "Col2Im");
    if (rank == 2) {
        int64_t zero = 0;
        y = oxu_squeeze(g, api, y, &zero, 1);
    }
    return oxu_set_result(g, api, 0, y);
}

static const ox_param_decl p_unfold[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dimension", OX_ARG_INT),
    OX_PARAM("size", OX_ARG_INT), OX_PARAM("step", OX_ARG_INT)};
static const ox_param_decl p_im2col[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),
    OX_PARAM("dilation", OX_ARG_INTS), OX_PARAM("padding", OX_ARG_INTS),
    OX_PARAM("stride", OX_ARG_INTS)};
static const ox_param_decl p_col2im[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("output_size", OX_ARG_INTS),
    OX_PARAM("kernel_size", OX_ARG_INTS), OX_PARAM("dilation", OX_ARG_INTS),
    OX_PARAM("padding", OX_ARG_INTS), OX_PARAM("stride", OX_ARG_INTS)};

const ox_op_decl at_ops_window[] = {
    OX_OP("aten::unfold", 9, p_unfold, 1, sym_unfold),
    OX_OP("aten::im2col", 9, p_im2col, 1, sym_im2col),
    OX_OP("aten::col2im", 18, p_col2im, 1, sym_col2im),
};
AT_FAMILY_SIZE(at_ops_window);
