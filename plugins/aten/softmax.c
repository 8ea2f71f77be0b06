/* softmax / log_softmax.  Before opset 13 Softmax flattens the input to 2-D
 * at `axis`, which equals torch's softmax only over the last axis; other axes
 * are moved last and back. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static ox_vid softmax_node(ox_sym *g, const ox_api *api, const char *type, ox_vid x,
                           int64_t axis)
{
    if (!x)
        return 0;
    ox_onode *n = api->op(g, type, 1, &x, 1);
    if (n)
        api->attr_int(n, "axis", axis);
    return at_out(g, api, n, type);
}

static int lower_softmax(ox_sym *g, const ox_api *api, const char *type, int opset13)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* Read the rank before the Cast: its output carries no type yet. */
    int rank = api->rank(g, x);
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    else if (api->arg_int(g, "half_to_float", 0) && api->dtype(g, x) == OX_FLOAT16)
        x = at_cast(g, api, x, OX_FLOAT); /* _log_softmax's flag: computed in float32 */
    if (!x)
        return 1;
    /* dim is required (no default): the pre-scan refuses a node without it. */
    int64_t dim = api->arg_int(g, "dim", -1);
    if (rank < 0 && !opset13)
        return api->fail(g, "softmax before opset 13 needs the input's rank, which is unknown; "
                            "record the input's sizes or use opset 13");
    if (rank >= 0 && at_axis(g, api, "dim", dim, rank, &dim))
        return 1;
    ox_vid y;
    if (opset13 || dim == rank - 1) {
        y = softmax_node(g, api, type, x, dim);
    } else {
        if (rank > AT_MAX_RANK)
            return api->fail(g, "softmax supports inputs up to rank %d, got rank %d",
                             AT_MAX_RANK, rank);
        int64_t perm[AT_MAX_RANK];
        for (int i = 0; i < rank; i++)
            perm[i] = i;
        perm[dim] = rank - 1;
        perm[rank - 1] = dim;
        /* A swap is its own inverse. */
        y = at_transpose(g, api, x, perm, (size_t)rank);
        y = softmax_node(g, api, type, y, rank - 1);
        y = at_transpose(g, api, y, perm, (size_t)rank);
    }
    return oxu_set_result(g, api, 0, y);
}

static int sym_softmax_9(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "Softmax", 0);
}

static int sym_softmax_13(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "Softmax", 1);
}

static int sym_log_softmax_9(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "LogSoftmax", 0);
}

static int sym_log_softmax_13(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "LogSoftmax", 1);
}

/* _log_softmax(self, dim, half_to_float): log_softmax's kernel; with
 * half_to_float a float16 input is computed in, and gives, float32. */
static int sym__log_softmax_9(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "LogSoftmax", 0);
}

static int sym__log_softmax_13(ox_sym *g, const ox_api *api)
{
    return lower_softmax(g, api, "LogSoftmax", 1);
}

static const ox_param_decl p__log_softmax[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM("dim", OX_ARG_INT),
                                               OX_PARAM("half_to_float", OX_ARG_BOOL)};
static const ox_param_decl p_softmax[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM("dim", OX_ARG_INT),
                                          OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};

const ox_op_decl at_ops_softmax[] = {
    OX_OP("aten::softmax", 7, p_softmax, 1, sym_softmax_9),
    OX_OP("aten::softmax", 13, p_softmax, 1, sym_softmax_13),
    OX_OP("aten::log_softmax", 7, p_softmax, 1, sym_log_softmax_9),
    OX_OP("aten::log_softmax", 13, p_softmax, 1, sym_log_softmax_13),
    OX_OP("aten::_log_softmax", 7, p__log_softmax, 1, sym__log_softmax_9),
    OX_OP("aten::_log_softmax", 13, p__log_softmax, 1, sym__log_softmax_13),
};
AT_FAMILY_SIZE(at_ops_softmax);
