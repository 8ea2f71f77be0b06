/* Vector norms and distances: norm, linalg_vector_norm, cdist (the norm of
 * every pairwise difference), pairwise_distance and cosine_similarity.  The orders ONNX has reductions for
 * use them (1: ReduceL1, 2: ReduceL2, inf/-inf: ReduceMax/ReduceMin of
 * |x|); 0 counts nonzero elements; any other order p is
 * (sum |x|^p)^(1/p) with Pow. */
#include <math.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The p-norm of x over axes[] (n == 0: every axis). */
static ox_vid p_norm(ox_sym *g, const ox_api *api, ox_vid x, double p, const int64_t *axes,
                     size_t n, int keep)
{
    if (!x)
        return 0;
    if (p == 1.0)
        return oxu_reduce(g, api, "ReduceL1", x, axes, n, keep);
    if (p == 2.0)
        return oxu_reduce(g, api, "ReduceL2", x, axes, n, keep);
    if (isinf(p))
        return oxu_reduce(g, api, p > 0 ? "ReduceMax" : "ReduceMin", at_op1(g, api, "Abs", x),
                          axes, n, keep);
    if (p == 0.0) /* nonzero -> true -> 1 (Cast to bool is nonzero at every opset) */
        return oxu_reduce(g, api, "ReduceSum",
                          oxu_cast_to(g, api, oxu_cast(g, api, x, OX_BOOL), api->dtype(g, x)),
                          axes, n, keep);
    ox_vid s = oxu_reduce(g, api, "ReduceSum",
                          at_op2(g, api, "Pow", at_op1(g, api, "Abs", x),
                                 oxu_scalar_like(g, api, p, x)),
                          axes, n, keep);
    return at_op2(g, api, "Pow", s, oxu_scalar_like(g, api, 1.0 / p, x));
}

static int read_dims(ox_sym *g, const ox_api *api, ox_vid x, int64_t *axes, size_t *n)
{
    const int64_t *dims = NULL;
    size_t k = api->arg_ints(g, "dim", &dims);
    if (k > AT_MAX_RANK)
        return api->fail(g, "argument 'dim' has %zu entries; at most %d are supported", k,
                         AT_MAX_RANK);
    for (size_t i = 0; i < k; i++)
        if (at_axis(g, api, "dim", dims[i], api->rank(g, x), &axes[i]))
            return 1;
    *n = k;
    return 0;
}

/* norm / linalg_vector_norm: the order is `p` or `ord`; `dtype` casts
 * first; an empty or absent dim reduces every element. */
static int vector_norm(ox_sym *g, const ox_api *api, const char *order_arg)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (read_dims(g, api, x, axes, &n))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = oxu_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    double p = api->arg_float(g, order_arg, 2.0);
    ox_vid y = p_norm(g, api, x, p, axes, n, api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result_recorded(g, api, 0, y);
}

static int sym_norm(ox_sym *g, const ox_api *api) { return vector_norm(g, api, "p"); }
static int sym_linalg_vector_norm(ox_sym *g, const ox_api *api)
{
    return vector_norm(g, api, "ord");
}

/* cdist(x1 [..., P, M], x2 [..., R, M]) -> [..., P, R]: the p-norm over M
 * of x1 unsqueezed at -2 minus x2 unsqueezed at -3 (broadcast to
 * [..., P, R, M]).  torch may compute p=2 through a matrix product for
 * large inputs; the difference is rounding. */
static int sym_cdist(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "x1"), b = api->arg_tensor(g, "x2");
    int ra = api->rank(g, a), rb = api->rank(g, b);
    if (ra < 2 || rb < 2)
        return api->fail(g, "cdist needs inputs of known rank 2 or more (got ranks %d and %d)",
                         ra, rb);
    ox_vid d = at_op2(g, api, "Sub", at_unsqueeze(g, api, a, ra - 1),
                      at_unsqueeze(g, api, b, rb - 2));
    int64_t last = (ra > rb ? ra : rb); /* the rank of d, minus one */
    ox_vid y = p_norm(g, api, d, api->arg_float(g, "p", 2.0), &last, 1, 0);
    return oxu_set_result(g, api, 0, y);
}

/* pairwise_distance(x1, x2) = ||x1 - x2 + eps||_p over the last dim. */
static int sym_pairwise_distance(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "x1"), b = api->arg_tensor(g, "x2");
    if (at_promote2(g, api, &a, &b))
        return 1;
    int ra = api->rank(g, a), rb = api->rank(g, b);
    if (ra < 0 || rb < 0)
        return api->fail(g, "pairwise_distance needs the inputs' ranks, which are unknown; "
                            "record their sizes");
    int64_t last = (ra > rb ? ra : rb) - 1;
    if (last < 0)
        last = 0; /* two rank-0 inputs: torch reduces the one element */
    ox_vid d = at_op2(g, api, "Add", at_op2(g, api, "Sub", a, b),
                      oxu_scalar_like(g, api, api->arg_float(g, "eps", 1e-6), a));
    ox_vid y = p_norm(g, api, d, api->arg_float(g, "p", 2.0), &last, 1,
                      api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result(g, api, 0, y);
}

/* cosine_similarity(x1, x2, dim) as torch 1.13 computes it: both expanded
 * to their broadcast shape, each divided by its L2 norm over dim (clamped
 * below at eps), then the sum of the products over dim. */
static int sym_cosine_similarity(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "x1"), b = api->arg_tensor(g, "x2");
    if (at_promote2(g, api, &a, &b))
        return 1;
    int ra = api->rank(g, a), rb = api->rank(g, b);
    if (ra < 0 || rb < 0)
        return api->fail(g, "cosine_similarity needs the inputs' ranks, which are unknown; "
                            "record their sizes");
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 1), ra > rb ? ra : rb, &axis))
        return 1;
    ox_vid shape = oxu_shape(g, api, at_op2(g, api, "Add", a, b));
    double eps = api->arg_float(g, "eps", 1e-8);
    double eps2 = eps * eps;
    ox_vid unit[2];
    for (int i = 0; i < 2; i++) {
        ox_vid x = at_op2(g, api, "Expand", i ? b : a, shape);
        ox_vid ss = oxu_reduce(g, api, "ReduceSum", at_op2(g, api, "Mul", x, x), &axis, 1, 1);
        ox_vid n = at_op1(g, api, "Sqrt", oxu_clip(g, api, ss, &eps2, NULL));
        unit[i] = at_op2(g, api, "Div", x, n);
    }
    ox_vid y = oxu_reduce(g, api, "ReduceSum", at_op2(g, api, "Mul", unit[0], unit[1]), &axis, 1, 0);
    return oxu_set_result(g, api, 0, y);
}

/* Scalar p: a Python int or float (inf included). */
#define P_ORDER(nm, val)                                                                  \
    {.name = (nm), .kind = OX_ARG_FLOAT, .alt_kinds = OX_KIND_BIT(OX_ARG_INT),             \
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_FLOAT, .v = {.f = (val)}}}

/* aten::norm.ScalarOpt_dim(_dtype) and norm.Scalar (no dim: every element) */
static const ox_param_decl p_norm_decl[] = {
    OX_PARAM("self", OX_ARG_TENSOR), P_ORDER("p", 2.0), OX_PARAM_EMPTY_INTS("dim"),
    OX_PARAM_BOOL("keepdim", 0), OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_vector_norm[] = {
    OX_PARAM("self", OX_ARG_TENSOR), P_ORDER("ord", 2.0), OX_PARAM_NULL("dim", OX_ARG_INTS),
    OX_PARAM_BOOL("keepdim", 0), OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
/* aten::cdist's defaults; aten::_cdist_forward (what torch.cdist dispatches
 * to) has the same parameters, all required */
static const ox_param_decl p_cdist[] = {OX_PARAM("x1", OX_ARG_TENSOR), OX_PARAM("x2", OX_ARG_TENSOR),
                                        P_ORDER("p", 2.0),
                                        OX_PARAM_NULL("compute_mode", OX_ARG_INT)};

static const ox_param_decl p_pairwise_distance[] = {
    OX_PARAM("x1", OX_ARG_TENSOR), OX_PARAM("x2", OX_ARG_TENSOR), P_ORDER("p", 2.0),
    OX_PARAM_FLOAT("eps", OX_ARG_FLOAT, 1e-6), OX_PARAM_BOOL("keepdim", 0)};
static const ox_param_decl p_cosine_similarity[] = {
    OX_PARAM("x1", OX_ARG_TENSOR), OX_PARAM("x2", OX_ARG_TENSOR),
    OX_PARAM_INT("dim", OX_ARG_INT, 1), OX_PARAM_FLOAT("eps", OX_ARG_FLOAT, 1e-8)};

const ox_op_decl at_ops_norm[] = {
    OX_OP("aten::norm", 9, p_norm_decl, 1, sym_norm),
    OX_OP("aten::linalg_vector_norm", 9, p_vector_norm, 1, sym_linalg_vector_norm),
    OX_OP("aten::cdist", 9, p_cdist, 1, sym_cdist),
    OX_OP("aten::_cdist_forward", 9, p_cdist, 1, sym_cdist),
    OX_OP("aten::pairwise_distance", 9, p_pairwise_distance, 1, sym_pairwise_distance),
    OX_OP("aten::cosine_similarity", 9, p_cosine_similarity, 1, sym_cosine_similarity),
};
AT_FAMILY_SIZE(at_ops_norm);
