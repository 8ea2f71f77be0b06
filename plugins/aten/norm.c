/* Vector and matrix norms and distances: norm, frobenius_norm, linalg_vector_norm,
 * linalg_matrix_norm, linalg_norm, cdist (the norm of every pairwise
 * difference), pairwise_distance and cosine_similarity.  The orders ONNX has reductions for
 * use them (1: ReduceL1, 2: ReduceL2, inf/-inf: ReduceMax/ReduceMin of
 * |x|); 0 counts nonzero elements; any other order p is
 * (sum |x|^p)^(1/p) with Pow. */
#include <math.h>
#include <string.h>

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

/* norm / linalg_vector_norm: the order is `p` or `ord`; `dtype` casts
 * first; an empty or absent dim reduces every element. */
static int vector_norm(ox_sym *g, const ox_api *api, const char *order_arg)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
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

/* frobenius_norm: the 2-norm over dims (every element when dim is empty). */
static int sym_frobenius_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    ox_vid y = oxu_reduce(g, api, "ReduceL2", x, axes, n, api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result(g, api, 0, y);
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

/* ---------------------------------------------------------------- matrix norms */

/* The matrix norm's order: "fro", "nuc" or a number (given as its text
 * for messages). */
typedef struct matrix_order {
    int fro, nuc;
    double p;
} matrix_order;

static matrix_order read_matrix_order(ox_sym *g, const ox_api *api)
{
    matrix_order o = {0, 0, 0.0};
    if (api->arg_kind(g, "ord") == OX_ARG_STRING) {
        const char *s = api->arg_string(g, "ord", "fro");
        o.fro = strcmp(s, "fro") == 0;
        o.nuc = strcmp(s, "nuc") == 0;
    } else if (api->arg_kind(g, "ord") == OX_ARG_NONE) {
        o.fro = 1;
    } else {
        o.p = api->arg_float(g, "ord", 2.0);
    }
    return o;
}

/* Which orders ONNX has the operators for: not the ones of singular
 * values (2, -2, nuc). */
static int matrix_order_check(ox_sym *g, const ox_api *api, matrix_order o)
{
    if (o.nuc || (!o.fro && (o.p == 2.0 || o.p == -2.0)))
        return api->limit(g, 0, "argument 'ord' is %s: this matrix norm is a function of the "
                                "singular values, and ONNX has no singular value decomposition",
                          o.nuc ? "'nuc'" : o.p > 0 ? "2" : "-2");
    if (!o.fro && o.p != 1.0 && o.p != -1.0 && !isinf(o.p))
        return api->limit(g, 0, "argument 'ord' is %g; matrix norms have the orders 'fro', "
                                "'nuc', inf, -inf, 1, -1, 2 and -2",
                          o.p);
    return 0;
}

/* The norm of the matrices over dims (r0, r1) of x: Frobenius as ReduceL2
 * over both; 1 / -1 as the max / min over r1 of the column sums of |x|
 * (over r0); inf / -inf the same over r0 of the row sums (over r1). */
static ox_vid matrix_norm(ox_sym *g, const ox_api *api, ox_vid x, matrix_order o, int64_t r0,
                          int64_t r1, int keep)
{
    int64_t both[2] = {r0 < r1 ? r0 : r1, r0 < r1 ? r1 : r0};
    if (o.fro)
        return oxu_reduce(g, api, "ReduceL2", x, both, 2, keep);
    int64_t sum_axis = isinf(o.p) ? r1 : r0, pick_axis = isinf(o.p) ? r0 : r1;
    ox_vid sums = oxu_reduce(g, api, "ReduceSum", at_op1(g, api, "Abs", x), &sum_axis, 1, 1);
    ox_vid y = oxu_reduce(g, api, o.p > 0 ? "ReduceMax" : "ReduceMin", sums, &pick_axis, 1, 1);
    return keep ? y : at_squeeze(g, api, y, both, 2);
}

/* Two distinct dims of x from `dim` (default the last two). */
static int matrix_dims(ox_sym *g, const ox_api *api, ox_vid x, int64_t *r0, int64_t *r1)
{
    const int64_t *d = NULL;
    size_t k = api->arg_ints(g, "dim", &d);
    int64_t want[2] = {-2, -1};
    if (k != 0 && k != 2)
        return api->fail(g, "argument 'dim' has %zu entries; a matrix norm takes 2", k);
    int rank = api->rank(g, x);
    if (at_axis(g, api, "dim", k ? d[0] : want[0], rank, r0) ||
        at_axis(g, api, "dim", k ? d[1] : want[1], rank, r1))
        return 1;
    if (*r0 == *r1)
        return api->fail(g, "argument 'dim' names dim %lld twice", (long long)*r0);
    return 0;
}

static int linalg_matrix_norm_check(ox_sym *g, const ox_api *api)
{
    return matrix_order_check(g, api, read_matrix_order(g, api));
}

static int sym_linalg_matrix_norm(ox_sym *g, const ox_api *api)
{
    matrix_order o = read_matrix_order(g, api);
    ox_vid x = api->arg_tensor(g, "self");
    int64_t r0 = 0, r1 = 0;
    if (matrix_order_check(g, api, o) || matrix_dims(g, api, x, &r0, &r1))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = oxu_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    ox_vid y = matrix_norm(g, api, x, o, r0, r1, api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result_recorded(g, api, 0, y);
}

/* linalg_norm: a matrix norm for a string order, two dims, or no dim and
 * a number order on a matrix; else a vector norm (2 without an order)
 * over dim or every element. */
static int linalg_norm_is_matrix(ox_sym *g, const ox_api *api)
{
    const int64_t *d = NULL;
    size_t k = api->arg_ints(g, "dim", &d);
    ox_arg_kind ok = api->arg_kind(g, "ord");
    if (ok == OX_ARG_STRING || k == 2)
        return 1;
    return k == 0 && ok != OX_ARG_NONE && api->rank(g, api->arg_tensor(g, "self")) == 2;
}

static int linalg_norm_check(ox_sym *g, const ox_api *api)
{
    return linalg_norm_is_matrix(g, api) ? linalg_matrix_norm_check(g, api) : 0;
}

static int sym_linalg_norm(ox_sym *g, const ox_api *api)
{
    if (linalg_norm_is_matrix(g, api))
        return sym_linalg_matrix_norm(g, api);
    return vector_norm(g, api, "ord");
}

/* pairwise_distance(x1, x2) = ||x1 - x2 + eps||_p over the last dim. */
static int sym_pairwise_distance(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "x1"), b = api->arg_tensor(g, "x2");
    if (at_promote2(g, api, &a, &b))
        return 1;
    /* integer inputs: torch adds eps to the integer difference, which makes
     * it a default-dtype float tensor, so the distance is float32 */
    if (a && at_is_integer(api->dtype(g, a))) {
        a = oxu_cast(g, api, a, OX_FLOAT);
        b = oxu_cast(g, api, b, OX_FLOAT);
    }
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

/* linalg_matrix_norm and its .str_ord overload (ord 'fro' / 'nuc') */
static const int64_t last_two[] = {-2, -1};
static const ox_param_decl p_matrix_norm[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    {.name = "ord", .kind = OX_ARG_STRING,
     .alt_kinds = OX_KIND_BIT(OX_ARG_INT) | OX_KIND_BIT(OX_ARG_FLOAT), .flags = OX_PARAM_OPTIONAL,
     .dflt = {.tag = OX_DEFAULT_STRING, .v = {.s = "fro"}}},
    OX_PARAM_INTS("dim", last_two), OX_PARAM_BOOL("keepdim", 0),
    OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
/* linalg_norm(self, Scalar? ord=None, int[1]? dim=None, ...) and .ord_str */
static const ox_param_decl p_linalg_norm[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    {.name = "ord", .kind = OX_ARG_FLOAT,
     .alt_kinds = OX_KIND_BIT(OX_ARG_INT) | OX_KIND_BIT(OX_ARG_STRING), .flags = OX_PARAM_OPTIONAL,
     .dflt = {.tag = OX_DEFAULT_NULL}},
    OX_PARAM_NULL("dim", OX_ARG_INTS), OX_PARAM_BOOL("keepdim", 0),
    OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};

static const ox_param_decl p_frobenius_norm[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_EMPTY_INTS("dim"), OX_PARAM_BOOL("keepdim", 0)};

const ox_op_decl at_ops_norm[] = {
    OX_OP("aten::frobenius_norm", 9, p_frobenius_norm, 1, sym_frobenius_norm),
    OX_OP_EX("aten::linalg_matrix_norm", 9, p_matrix_norm, 1, sym_linalg_matrix_norm, 0u,
             linalg_matrix_norm_check),
    OX_OP_EX("aten::linalg_norm", 9, p_linalg_norm, 1, sym_linalg_norm, 0u, linalg_norm_check),
    OX_OP("aten::norm", 9, p_norm_decl, 1, sym_norm),
    OX_OP("aten::linalg_vector_norm", 9, p_vector_norm, 1, sym_linalg_vector_norm),
    OX_OP("aten::cdist", 9, p_cdist, 1, sym_cdist),
    OX_OP("aten::_cdist_forward", 9, p_cdist, 1, sym_cdist),
    OX_OP("aten::pairwise_distance", 9, p_pairwise_distance, 1, sym_pairwise_distance),
    OX_OP("aten::cosine_similarity", 9, p_cosine_similarity, 1, sym_cosine_similarity),
};
AT_FAMILY_SIZE(at_ops_norm);
