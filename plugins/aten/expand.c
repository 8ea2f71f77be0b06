/* Broadcasting copies: expand, expand_as, broadcast_tensors, meshgrid ->
 * Expand; repeat -> Tile. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* torch's -1 keeps a dim; ONNX Expand keeps it for 1 (broadcast rule). */
static int sym_expand(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* Traced sizes: the host wrote 1 for a kept (-1) dim already. */
    if (api->arg_kind(g, "size") == OX_ARG_TENSOR)
        return oxu_set_result(g, api, 0, at_op2(g, api, "Expand", x, api->arg_tensor(g, "size")));
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
    return oxu_set_result(g, api, 0, s ? at_op2(g, api, "Expand", x, s) : at_out(g, api, NULL, "Expand"));
}

/* repeat may add leading dims: unsqueeze to the repeats' rank first (size-1
 * dims in front, whatever the input's sizes are at run time). */
static int sym_repeat(ox_sym *g, const ox_api *api)
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
        return oxu_set_result(g, api, 0, at_op2(g, api, "Tile", x, rt));
    ox_vid r = api->const_ints(g, reps, n);
    return oxu_set_result(g, api, 0, r ? at_op2(g, api, "Tile", x, r) : at_out(g, api, NULL, "Tile"));
}

/* expand_as(self, other): self broadcast to other's shape, read at run time. */
static int sym_expand_as(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), other = api->arg_tensor(g, "other");
    if (!x || !other)
        return 1;
    return oxu_set_result(g, api, 0, at_op2(g, api, "Expand", x, oxu_shape(g, api, other)));
}

/* broadcast_tensors(tensors): each expanded to the common shape.  Expand
 * broadcasts both ways, so Shape(Expand(t_i, s)) grows s to the broadcast of
 * s and t_i's shape, at run time. */
static int sym_broadcast_tensors(ox_sym *g, const ox_api *api)
{
    const ox_vid *ts = NULL;
    size_t n = api->arg_tensors(g, "tensors", &ts);
    if (n == 0 || n != api->n_outputs(g))
        return api->fail(g, "broadcast_tensors of %zu tensors, but the host recorded %u outputs",
                         n, api->n_outputs(g));
    ox_vid s = oxu_shape(g, api, ts[0]);
    for (size_t i = 1; i < n && s; i++)
        s = oxu_shape(g, api, at_op2(g, api, "Expand", ts[i], s));
    for (size_t i = 0; i < n; i++)
        if (oxu_set_result(g, api, i, s ? at_op2(g, api, "Expand", ts[i], s) : 0))
            return 1;
    return 0;
}

/* meshgrid(tensors, indexing): n tensors of 0 or 1 dims, each expanded over
 * the grid of their lengths, varying along its own dim.  "ij" (the default,
 * and what the overload without `indexing` does) puts tensor i's dim at
 * position i; "xy" swaps the first two positions (Cartesian indexing). */
static int sym_meshgrid(ox_sym *g, const ox_api *api)
{
    const ox_vid *ts = NULL;
    size_t n = api->arg_tensors(g, "tensors", &ts);
    const char *indexing = api->arg_string(g, "indexing", "ij");
    int xy = strcmp(indexing, "xy") == 0;
    if (!xy && strcmp(indexing, "ij") != 0)
        return api->fail(g, "argument 'indexing' is \"%s\"; expected \"ij\" or \"xy\"", indexing);
    if (n == 0 || n > AT_MAX_RANK || n != api->n_outputs(g))
        return api->fail(g, "meshgrid of %zu tensors (at most %d), but the host recorded %u "
                            "outputs", n, AT_MAX_RANK, api->n_outputs(g));
    ox_vid flat[AT_MAX_RANK], lens[AT_MAX_RANK];
    size_t pos[AT_MAX_RANK];
    for (size_t i = 0; i < n; i++) {
        int rank = api->rank(g, ts[i]);
        if (rank > 1)
            return api->fail(g, "meshgrid takes tensors of 0 or 1 dims; tensor %zu has %d", i, rank);
        pos[i] = xy && n > 1 && i < 2 ? 1 - i : i;
        int64_t all = -1;
        if (!(flat[i] = at_reshape(g, api, ts[i], &all, 1)))
            return 1;
    }
    /* each length from the tensor as recorded (a 0-d one counts 1), so an export
     * without dynamic axes folds the grid's shape into a constant */
    for (size_t i = 0; i < n; i++) {
        int64_t one = 1;
        lens[pos[i]] = api->rank(g, ts[i]) == 1 ? oxu_shape(g, api, ts[i])
                                                 : oxu_const_ints(g, api, &one, 1);
    }
    ox_vid grid = at_concat(g, api, lens, n, 0);
    for (size_t i = 0; i < n; i++) {
        int64_t shape[AT_MAX_RANK];
        for (size_t k = 0; k < n; k++)
            shape[k] = k == pos[i] ? -1 : 1;
        ox_vid y = grid ? at_op2(g, api, "Expand", at_reshape(g, api, flat[i], shape, n), grid) : 0;
        if (oxu_set_result(g, api, i, y))
            return 1;
    }
    return 0;
}

static const ox_param_decl p_expand[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR)};
static const ox_param_decl p_repeat[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         AT_PARAM_OR("repeats", OX_ARG_INTS, OX_ARG_TENSOR)};

static const ox_param_decl p_expand_as[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("other", OX_ARG_TENSOR)};
static const ox_param_decl p_tensors[] = {OX_PARAM("tensors", OX_ARG_TENSOR_LIST)};
/* meshgrid.indexing's `indexing` is keyword-only and required; the overload
 * without it indexes as "ij" */
static const ox_param_decl p_meshgrid[] = {OX_PARAM("tensors", OX_ARG_TENSOR_LIST),
                                           OX_PARAM_STRING("indexing", "ij")};

const ox_op_decl at_ops_expand[] = {
    OX_OP("aten::expand", 8, p_expand, 1, sym_expand),
    OX_OP("aten::repeat", 7, p_repeat, 1, sym_repeat),
    OX_OP("aten::expand_as", 8, p_expand_as, 1, sym_expand_as),
    OX_OP_EX("aten::broadcast_tensors", 8, p_tensors, 1, sym_broadcast_tensors,
             OX_OP_OUTPUTS_AS_RECORDED, NULL),
    OX_OP_EX("aten::meshgrid", 8, p_meshgrid, 1, sym_meshgrid, OX_OP_OUTPUTS_AS_RECORDED, NULL),
};
AT_FAMILY_SIZE(at_ops_expand);
