/* Reductions along dims: mean, sum, amax/amin, argmax/argmin, and the scan
 * and selection along one: cumsum, topk.  Reduce* take axes as an attribute
 * up to opset 17, except ReduceSum, whose axes become an input at opset 13. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int read_axes(ox_sym *g, const ox_api *api, ox_vid x, int64_t *axes, size_t *n)
{
    const int64_t *dims = NULL;
    size_t k = api->arg_ints(g, "dim", &dims);
    if (k > AT_MAX_RANK)
        return api->fail(g, "argument 'dim' has %zu entries; at most %d are supported", k,
                         AT_MAX_RANK);
    int rank = api->rank(g, x);
    for (size_t i = 0; i < k; i++)
        if (at_axis(g, api, "dim", dims[i], rank, &axes[i]))
            return 1;
    *n = k;
    return 0;
}

static int reduce(ox_sym *g, const ox_api *api, const char *type, int axes_input)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (read_axes(g, api, x, axes, &n))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    else if (strcmp(type, "ReduceSum") == 0 && !at_is_floating(api->dtype(g, x)) &&
             api->dtype(g, x) != OX_INT64)
        x = at_cast(g, api, x, OX_INT64); /* torch sums bool and integers as int64 */
    if (!x)
        return 1;
    ox_vid in[2] = {x, 0};
    /* An empty dim list reduces everything, as omitting axes does. */
    if (axes_input && n && !(in[1] = api->const_ints(g, axes, n)))
        return api->fail(g, "could not create the axes constant");
    ox_onode *r = api->op(g, type, in[1] ? 2 : 1, in, 1);
    if (r) {
        if (!axes_input && n)
            api->attr_ints(r, "axes", axes, n);
        api->attr_int(r, "keepdims", api->arg_int(g, "keepdim", 0) != 0);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, r, type));
}

static int sym_mean(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMean", 0); }
static int sym_sum_9(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceSum", 0); }
static int sym_sum_13(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceSum", 1); }
static int sym_amax(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMax", 0); }
static int sym_amin(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMin", 0); }

/* dim None: the index into the flattened tensor. */
static int arg_reduce(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis = 0;
    int keep = api->arg_int(g, "keepdim", 0) != 0;
    int64_t ones[OXU_MAX_RANK];
    int rank = api->rank(g, x);
    if (api->arg_kind(g, "dim") == OX_ARG_NONE) {
        /* over the flattened tensor; with keepdim the result has every dim
         * of size 1 (torch's shape), a Reshape of ArgMax's [1] */
        if (keep && (rank < 0 || rank > OXU_MAX_RANK))
            return api->fail(g, "argument 'keepdim' is true without 'dim': the result's rank is "
                                "the input's, which is unknown; record it");
        int64_t flat = -1;
        x = at_reshape(g, api, x, &flat, 1);
    } else if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis)) {
        return 1;
    }
    if (!x)
        return 1;
    ox_onode *r = api->op(g, type, 1, &x, 1);
    if (r) {
        api->attr_int(r, "axis", axis);
        api->attr_int(r, "keepdims", keep);
    }
    ox_vid y = at_out(g, api, r, type);
    if (keep && api->arg_kind(g, "dim") == OX_ARG_NONE) {
        for (int i = 0; i < rank; i++)
            ones[i] = 1;
        y = at_reshape(g, api, y, ones, (size_t)rank);
    }
    return oxu_set_result(g, api, 0, y);
}

static int sym_argmax(ox_sym *g, const ox_api *api) { return arg_reduce(g, api, "ArgMax"); }
static int sym_argmin(ox_sym *g, const ox_api *api) { return arg_reduce(g, api, "ArgMin"); }

/* CumSum exists from opset 11; its axis is a rank-0 input. */
static int sym_cumsum(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    ox_vid ax = api->const_scalar_of(g, OX_INT64, (double)axis);
    if (!x || !ax)
        return x ? api->fail(g, "could not create the axis constant") : 1;
    ox_vid y = at_op2(g, api, "CumSum", x, ax);
    return oxu_set_result(g, api, 0, y);
}

/* topk: k is an attribute at opset 9, an input from 10; largest/sorted
 * attributes exist from 11 (the YAML limits largest=False below). */
static int sym_topk(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis, k = api->arg_int(g, "k", 1);
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", -1), api->rank(g, x), &axis))
        return 1;
    int opset = api->opset(g);
    ox_onode *t;
    if (opset < 10) {
        t = api->op(g, "TopK", 1, &x, 2);
        if (t)
            api->attr_int(t, "k", k);
    } else {
        ox_vid in[2] = {x, api->const_ints(g, &k, 1)};
        if (!in[1])
            return api->fail(g, "could not create the k constant");
        t = api->op(g, "TopK", 2, in, 2);
    }
    if (!t)
        return api->fail(g, "could not create ONNX node TopK (out of memory?)");
    api->attr_int(t, "axis", axis);
    if (opset >= 11) {
        api->attr_int(t, "largest", api->arg_int(g, "largest", 1) != 0);
        api->attr_int(t, "sorted", api->arg_int(g, "sorted", 1) != 0);
    }
    if (api->set_output(g, 0, api->node_output(t, 0)))
        return 1;
    return api->set_output(g, 1, api->node_output(t, 1));
}

/* dim None (or absent, the overload without dim) reduces every dim. */
static const ox_param_decl p_mean_sum[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_NULL("dim", OX_ARG_INTS),
    OX_PARAM_BOOL("keepdim", 0), OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_amax[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_EMPTY_INTS("dim"),
                                       OX_PARAM_BOOL("keepdim", 0)};
static const ox_param_decl p_argmax[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         OX_PARAM_NULL("dim", OX_ARG_INT), OX_PARAM_BOOL("keepdim", 0)};
static const ox_param_decl p_cumsum[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                         OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_topk[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("k", OX_ARG_INT), OX_PARAM_INT("dim", OX_ARG_INT, -1),
    OX_PARAM_BOOL("largest", 1), OX_PARAM_BOOL("sorted", 1)};

const ox_op_decl at_ops_reduce[] = {
    OX_OP("aten::mean", 7, p_mean_sum, 1, sym_mean),
    OX_OP("aten::sum", 9, p_mean_sum, 1, sym_sum_9),
    OX_OP("aten::sum", 13, p_mean_sum, 1, sym_sum_13),
    OX_OP("aten::amax", 7, p_amax, 1, sym_amax),
    OX_OP("aten::amin", 7, p_amax, 1, sym_amin),
    OX_OP("aten::argmax", 7, p_argmax, 1, sym_argmax),
    OX_OP("aten::argmin", 7, p_argmax, 1, sym_argmin),
    OX_OP("aten::cumsum", 11, p_cumsum, 1, sym_cumsum),
    OX_OP("aten::topk", 7, p_topk, 2, sym_topk),
};
AT_FAMILY_SIZE(at_ops_reduce);
