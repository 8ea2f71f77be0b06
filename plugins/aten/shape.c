/* Shape and layout operators: cat, flatten, view/reshape, t/transpose/permute,
 * contiguous, unsqueeze/squeeze, select, slice, pixel_shuffle. */
#include <stdint.h>

#include "aten_symbolics.h"
#include "aten_util.h"

static int done(ox_sym *g, const ox_api *api, ox_vid y)
{
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_cat(ox_sym *g, const ox_api *api)
{
    const ox_vid *xs = NULL;
    size_t n = api->arg_tensors(g, "tensors", &xs);
    if (n == 0)
        return api->fail(g, "argument 'tensors' is empty; cat needs at least one tensor");
    for (size_t i = 0; i < n; i++)
        if (!xs[i])
            return api->fail(g, "argument 'tensors' has None at position %zu", i);
    int64_t dim;
    /* Concat accepts negative axes only from opset 11: normalise. */
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, xs[0]), &dim))
        return 1;
    return done(g, api, at_concat(g, api, xs, n, dim));
}

int at_sym_flatten(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "flatten needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank == 0)
        return done(g, api, at_reshape(g, api, x, (const int64_t[]){1}, 1));
    int64_t s, e;
    if (at_axis(g, api, "start_dim", api->arg_int(g, "start_dim", 0), rank, &s) ||
        at_axis(g, api, "end_dim", api->arg_int(g, "end_dim", -1), rank, &e))
        return 1;
    if (s > e)
        return api->fail(g, "start_dim %lld comes after end_dim %lld", (long long)s,
                         (long long)e);
    if (s == e)
        return done(g, api, at_op1(g, api, "Identity", x));
    /* Flatten makes 2-D outputs: exactly torch's result in these two cases. */
    if ((s == 1 && e == rank - 1) || (s == 0 && e == rank - 2)) {
        ox_onode *n = api->op(g, "Flatten", 1, &x, 1);
        if (n)
            api->attr_int(n, "axis", s == 1 ? 1 : e + 1);
        return done(g, api, at_out(g, api, n, "Flatten"));
    }
    if (rank > AT_MAX_RANK)
        return api->fail(g, "flatten supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    /* Leading dims copied (0), the merged run inferred (-1), trailing dims
     * must be known because their positions shift. */
    int64_t shape[AT_MAX_RANK];
    size_t k = 0;
    for (int64_t i = 0; i < s; i++)
        shape[k++] = 0;
    shape[k++] = -1;
    for (int64_t i = e + 1; i < rank; i++) {
        int64_t d = api->size(g, x, (int)i);
        if (d < 0)
            return api->fail(g, "flatten(start_dim=%lld, end_dim=%lld) needs the size of dim "
                                "%lld, which is unknown",
                             (long long)s, (long long)e, (long long)i);
        shape[k++] = d;
    }
    return done(g, api, at_reshape(g, api, x, shape, k));
}

static int reshape_to(ox_sym *g, const ox_api *api, const char *arg)
{
    /* A shape built from traced sizes (a 1-D int64 tensor) goes in as it is. */
    if (api->arg_kind(g, arg) == OX_ARG_TENSOR)
        return done(g, api, at_op2(g, api, "Reshape", api->arg_tensor(g, "self"),
                                   api->arg_tensor(g, arg)));
    const int64_t *shape = NULL;
    size_t n = api->arg_ints(g, arg, &shape);
    if (!api->arg_present(g, arg))
        return api->fail(g, "argument '%s' is missing", arg);
    return done(g, api, at_reshape(g, api, api->arg_tensor(g, "self"), shape, n));
}

int at_sym_view(ox_sym *g, const ox_api *api)
{
    return reshape_to(g, api, "size");
}

int at_sym_reshape(ox_sym *g, const ox_api *api)
{
    return reshape_to(g, api, "shape");
}

int at_sym_t(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank >= 0 && rank < 2)
        return done(g, api, at_op1(g, api, "Identity", x));
    static const int64_t perm[2] = {1, 0};
    return done(g, api, at_transpose(g, api, x, perm, 2));
}

int at_sym_transpose(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "transpose needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank > AT_MAX_RANK)
        return api->fail(g, "transpose supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    int64_t d0, d1, perm[AT_MAX_RANK];
    if (at_axis(g, api, "dim0", api->arg_int(g, "dim0", 0), rank, &d0) ||
        at_axis(g, api, "dim1", api->arg_int(g, "dim1", 1), rank, &d1))
        return 1;
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    perm[d0] = d1;
    perm[d1] = d0;
    return done(g, api, at_transpose(g, api, x, perm, (size_t)rank));
}

int at_sym_permute(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *dims = NULL;
    size_t n = api->arg_ints(g, "dims", &dims);
    int rank = api->rank(g, x);
    if (rank >= 0 && (size_t)rank != n)
        return api->fail(g, "argument 'dims' has %zu entries for a rank-%d input", n, rank);
    if (n > AT_MAX_RANK)
        return api->fail(g, "permute supports up to rank %d, got %zu dims", AT_MAX_RANK, n);
    int64_t perm[AT_MAX_RANK];
    for (size_t i = 0; i < n; i++)
        if (at_axis(g, api, "dims", dims[i], (int)n, &perm[i]))
            return 1;
    return done(g, api, at_transpose(g, api, x, perm, n));
}

int at_sym_contiguous(ox_sym *g, const ox_api *api)
{
    return done(g, api, at_op1(g, api, "Identity", api->arg_tensor(g, "self")));
}

int at_sym_unsqueeze(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank < 0 ? -1 : rank + 1, &dim))
        return 1;
    return done(g, api, at_unsqueeze(g, api, x, dim));
}

int at_sym_squeeze(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (api->arg_kind(g, "dim") == OX_ARG_NONE)
        return done(g, api, at_squeeze(g, api, x, NULL, 0));
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    /* torch ignores a dim whose size is not 1; ONNX Squeeze would reject it. */
    int64_t size = api->size(g, x, (int)dim);
    if (size >= 0 && size != 1)
        return done(g, api, at_op1(g, api, "Identity", x));
    return done(g, api, at_squeeze(g, api, x, &dim, 1));
}

int at_sym_select(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim, index = api->arg_int(g, "index", 0);
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    if (api->arg_kind(g, "index") == OX_ARG_TENSOR) {
        /* A traced index (a rank-0 int64 computed from sizes): Gather takes it
         * as it is; negative values count from the end from opset 11. */
        ox_vid in[2] = {x, api->arg_tensor(g, "index")};
        if (api->rank(g, in[1]) != 0)
            return api->fail(g, "argument 'index' is a rank-%d tensor; select takes one index",
                             api->rank(g, in[1]));
        ox_onode *n = api->op(g, "Gather", 2, in, 1);
        if (n)
            api->attr_int(n, "axis", dim);
        return done(g, api, at_out(g, api, n, "Gather"));
    }
    /* Gather counts negative indices from the end from opset 11, whatever the
     * size is at run time; before 11 the recorded size has to do. */
    if (index < 0 && api->opset(g) < 11) {
        int64_t size = api->size(g, x, (int)dim);
        if (size >= 0)
            index += size;
        else
            return api->fail(g, "select with a negative index needs the size of dim %lld "
                                "before opset 11 (Gather's negative indices)",
                             (long long)dim);
    }
    /* A rank-0 index removes the dimension, as select does. */
    ox_vid idx = api->constant(g, OX_INT64, 0, NULL, &index);
    if (!idx)
        return api->fail(g, "could not create the index constant");
    ox_vid in[2] = {x, idx};
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", dim);
    return done(g, api, at_out(g, api, n, "Gather"));
}

/* A slice bound as a 1-element int64 tensor: the traced value, or the constant. */
static ox_vid bound_1d(ox_sym *g, const ox_api *api, const char *name, int64_t dflt)
{
    if (api->arg_kind(g, name) == OX_ARG_TENSOR) {
        ox_vid v = api->arg_tensor(g, name);
        if (api->dtype(g, v) != OX_INT64)
            v = at_cast(g, api, v, OX_INT64);
        return api->rank(g, v) == 0 ? at_unsqueeze(g, api, v, 0) : v;
    }
    int64_t b = api->arg_kind(g, name) == OX_ARG_NONE ? dflt : api->arg_int(g, name, dflt);
    return api->const_ints(g, &b, 1);
}

int at_sym_slice(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    if (api->arg_kind(g, "start") == OX_ARG_TENSOR || api->arg_kind(g, "end") == OX_ARG_TENSOR) {
        if (api->opset(g) < 10)
            return api->fail(g, "a slice bound computed from a traced size needs Slice's "
                                "inputs, from opset 10; export with opset 10 or later");
        int64_t step = api->arg_int(g, "step", 1);
        if (step < 1)
            return api->fail(g, "argument 'step' is %lld; slice steps must be positive",
                             (long long)step);
        ox_vid in[5] = {x, bound_1d(g, api, "start", 0), bound_1d(g, api, "end", INT64_MAX),
                        api->const_ints(g, &dim, 1), api->const_ints(g, &step, 1)};
        for (int i = 0; i < 5; i++)
            if (!in[i])
                return api->fail(g, "could not create the Slice inputs");
        return done(g, api, at_out(g, api, api->op(g, "Slice", 5, in, 1), "Slice"));
    }
    int64_t start = api->arg_kind(g, "start") == OX_ARG_NONE ? 0 : api->arg_int(g, "start", 0);
    int64_t end = api->arg_kind(g, "end") == OX_ARG_NONE ? INT64_MAX
                                                          : api->arg_int(g, "end", INT64_MAX);
    int64_t step = api->arg_int(g, "step", 1);
    if (step < 1)
        return api->fail(g, "argument 'step' is %lld; slice steps must be positive",
                         (long long)step);
    return done(g, api, at_slice(g, api, x, dim, start, end, step));
}

/* pixel_shuffle from opset 11: DepthToSpace's CRD mode is torch's order. */
int at_sym_pixel_shuffle_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r = api->arg_int(g, "upscale_factor", 1);
    if (api->rank(g, x) != 4)
        return api->fail(g, "pixel_shuffle is exported for rank-4 inputs only (got rank %d)",
                         api->rank(g, x));
    ox_onode *n = api->op(g, "DepthToSpace", 1, &x, 1);
    if (n) {
        api->attr_int(n, "blocksize", r);
        api->attr_string(n, "mode", "CRD");
    }
    return done(g, api, at_out(g, api, n, "DepthToSpace"));
}

/* Before opset 11 DepthToSpace only has DCR order: spell CRD out as
 * [N, C, r, r, H, W] -> permute(0, 1, 4, 2, 5, 3) -> [N, C, H*r, W*r]. */
int at_sym_pixel_shuffle_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r = api->arg_int(g, "upscale_factor", 1);
    if (api->rank(g, x) != 4)
        return api->fail(g, "pixel_shuffle is exported for rank-4 inputs only (got rank %d)",
                         api->rank(g, x));
    int64_t c = api->size(g, x, 1), h = api->size(g, x, 2), w = api->size(g, x, 3);
    if (c < 0 || h < 0 || w < 0)
        return api->fail(g, "pixel_shuffle before opset 11 needs the input's channel and "
                            "spatial sizes, which are unknown; record them or use opset 11");
    if (r < 1 || c % (r * r) != 0)
        return api->fail(g, "pixel_shuffle: %lld channels are not divisible by "
                            "upscale_factor^2 = %lld",
                         (long long)c, (long long)(r * r));
    int64_t s1[6] = {0, c / (r * r), r, r, h, w};
    static const int64_t perm[6] = {0, 1, 4, 2, 5, 3};
    int64_t s2[4] = {0, c / (r * r), h * r, w * r};
    ox_vid y = at_reshape(g, api, x, s1, 6);
    y = at_transpose(g, api, y, perm, 6);
    return done(g, api, at_reshape(g, api, y, s2, 4));
}
