/* Broadcasting copies: expand -> Expand, repeat -> Tile. */
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

static const ox_param_decl p_expand[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR)};
static const ox_param_decl p_repeat[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         AT_PARAM_OR("repeats", OX_ARG_INTS, OX_ARG_TENSOR)};

const ox_op_decl at_ops_expand[] = {
    OX_OP("aten::expand", 8, p_expand, 1, sym_expand),
    OX_OP("aten::repeat", 7, p_repeat, 1, sym_repeat),
};
AT_FAMILY_SIZE(at_ops_expand);
