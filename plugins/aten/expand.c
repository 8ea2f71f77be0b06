/* Broadcasting copies: expand -> Expand, repeat -> Tile, stack ->
 * Unsqueeze + Concat. */
#include "aten_symbolics.h"
#include "aten_util.h"

static int done(ox_sym *g, const ox_api *api, ox_vid y)
{
    return y ? api->set_output(g, 0, y) : 1;
}

/* torch's -1 keeps a dim; ONNX Expand keeps it for 1 (broadcast rule). */
int at_sym_expand(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* Traced sizes: the host wrote 1 for a kept (-1) dim already. */
    if (api->arg_kind(g, "size") == OX_ARG_TENSOR)
        return done(g, api, at_op2(g, api, "Expand", x, api->arg_tensor(g, "size")));
    const int64_t *size = NULL;
    size_t n = api->arg_ints(g, "size", &size);
    if (n > AT_MAX_RANK)
        return api->fail(g, "argument 'size' has %zu entries; at most %d are supported", n,
                         AT_MAX_RANK);
    int64_t shape[AT_MAX_RANK];
    for (size_t i = 0; i < n; i++) {
        if (size[i] < -1)
            return api->fail(g, "argument 'size'[%zu] is %lld; sizes are -1 or non-negative", i,
                             (long long)size[i]);
        shape[i] = size[i] == -1 ? 1 : size[i];
    }
    ox_vid s = api->const_ints(g, shape, n);
    return done(g, api, s ? at_op2(g, api, "Expand", x, s) : at_out(g, api, NULL, "Expand"));
}

/* repeat may add leading dims: unsqueeze to the repeats' rank first (size-1
 * dims in front, whatever the input's sizes are at run time). */
int at_sym_repeat(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *reps = NULL;
    int traced = api->arg_kind(g, "repeats") == OX_ARG_TENSOR;
    ox_vid rt = traced ? api->arg_tensor(g, "repeats") : 0;
    size_t n = traced ? (size_t)api->size(g, rt, 0) : api->arg_ints(g, "repeats", &reps);
    int rank = api->rank(g, x);
    if (rank < 0 || (size_t)rank > n || n > AT_MAX_RANK)
        return api->fail(g, "argument 'repeats' has %zu values; expected at least the input's "
                            "rank %d and at most %d",
                         n, rank, AT_MAX_RANK);
    for (size_t i = (size_t)rank; i < n; i++)
        x = at_unsqueeze(g, api, x, 0);
    if (traced)
        return done(g, api, at_op2(g, api, "Tile", x, rt));
    ox_vid r = api->const_ints(g, reps, n);
    return done(g, api, r ? at_op2(g, api, "Tile", x, r) : at_out(g, api, NULL, "Tile"));
}

int at_sym_stack(ox_sym *g, const ox_api *api)
{
    const ox_vid *xs = NULL;
    size_t n = api->arg_tensors(g, "tensors", &xs);
    if (n == 0)
        return api->fail(g, "argument 'tensors' is empty");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, xs[0]) + 1, &dim))
        return 1;
    ox_vid parts[64];
    if (n > 64)
        return api->fail(g, "argument 'tensors' has %zu tensors; at most 64 are supported", n);
    for (size_t i = 0; i < n; i++)
        if (!(parts[i] = at_unsqueeze(g, api, xs[i], dim)))
            return 1;
    return done(g, api, at_concat(g, api, parts, n, dim));
}
