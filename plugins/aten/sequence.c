/* Factories of values computed from positions 0..n-1, n a (possibly traced)
 * size: aten::eye (EyeLike over a zeros matrix of the size), aten::linspace,
 * aten::hann_window, aten::_dim_arange.  The positions are Range from opset
 * 11; before, the indices NonZero finds in n ones (the same values, with no
 * Range to make them). */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* A size argument as a rank-0 int64 value (a recorded number is a constant). */
static ox_vid count_arg(ox_sym *g, const ox_api *api, const char *name)
{
    if (api->arg_kind(g, name) == OX_ARG_TENSOR) {
        ox_vid v = oxu_cast_to(g, api, api->arg_tensor(g, name), OX_INT64);
        return v && api->rank(g, v) != 0 ? at_squeeze(g, api, v, NULL, 0) : v;
    }
    int64_t n = api->arg_int(g, name, 0);
    if (n < 0) {
        api->fail(g, "argument '%s' is %lld; it must be non-negative", name, (long long)n);
        return 0;
    }
    return oxu_const_int(g, api, n);
}

/* 0, 1, ..., n-1 (n a rank-0 int64) as a 1-D int64. */
static ox_vid positions(ox_sym *g, const ox_api *api, ox_vid n)
{
    if (api->opset(g) >= 11) {
        ox_vid in[3] = {oxu_const_int(g, api, 0), n, oxu_const_int(g, api, 1)};
        return oxu_opn(g, api, "Range", 3, in);
    }
    ox_vid ones = oxu_full(g, api, at_unsqueeze(g, api, n, 0), 1.0, OX_FLOAT);
    int64_t zero = 0;
    return at_squeeze(g, api, at_op1(g, api, "NonZero", ones), &zero, 1);
}

static ox_dtype dtype_arg(ox_sym *g, const ox_api *api)
{
    return api->arg_kind(g, "dtype") == OX_ARG_DTYPE ? (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT)
                                                     : OX_FLOAT;
}

/* eye(n, m=n): EyeLike of an n x m zeros matrix (ONNX Runtime's EyeLike makes
 * float, double, int32 and int64; other types are cast from float). */
static int sym_eye(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = dtype_arg(g, api);
    ox_vid n = count_arg(g, api, "n");
    ox_vid m = api->arg_present(g, "m") && api->arg_kind(g, "m") != OX_ARG_NONE ? count_arg(g, api, "m") : n;
    ox_vid dims[2] = {at_unsqueeze(g, api, n, 0), at_unsqueeze(g, api, m, 0)};
    ox_vid zeros = oxu_full(g, api, at_concat(g, api, dims, 2, 0), 0.0, OX_FLOAT);
    ox_dtype made = dt == OX_DOUBLE || dt == OX_INT32 || dt == OX_INT64 ? dt : OX_FLOAT;
    ox_onode *e = zeros ? api->op(g, "EyeLike", 1, &zeros, 1) : NULL;
    if (e)
        api->attr_int(e, "dtype", made);
    ox_vid y = zeros ? at_out(g, api, e, "EyeLike") : 0;
    return oxu_set_result_as(g, api, 0, y, dt);
}

/* The type linspace and hann_window compute in: double for double and the
 * integer types (exact positions), float otherwise. */
static ox_dtype compute_type(ox_dtype dt)
{
    return dt == OX_DOUBLE || !oxu_is_floating(dt) ? OX_DOUBLE : OX_FLOAT;
}

/* linspace(start, end, steps): start + i * (end - start) / max(steps - 1, 1);
 * integer dtypes truncate, as torch's do. */
static int sym_linspace(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = dtype_arg(g, api), ct = compute_type(dt);
    ox_vid n = count_arg(g, api, "steps");
    double start = api->arg_float(g, "start", 0.0), end = api->arg_float(g, "end", 0.0);
    ox_vid i = oxu_cast(g, api, positions(g, api, n), ct);
    ox_vid gaps = at_op2(g, api, "Max", at_op2(g, api, "Sub", oxu_cast(g, api, n, ct), oxu_scalar(g, api, ct, 1.0)),
                         oxu_scalar(g, api, ct, 1.0));
    ox_vid step = at_op2(g, api, "Div", oxu_scalar(g, api, ct, end - start), gaps);
    ox_vid y = at_op2(g, api, "Add", at_op2(g, api, "Mul", i, step), oxu_scalar(g, api, ct, start));
    return oxu_set_result_as(g, api, 0, y, dt);
}

/* hann_window(L, periodic): 0.5 - 0.5 * cos(2 pi k / N), N = L when periodic
 * else L - 1; a window of length 1 is [1], as torch makes it. */
static int sym_hann_window(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = dtype_arg(g, api), ct = compute_type(dt);
    ox_vid len = count_arg(g, api, "window_length");
    int periodic = (int)api->arg_int(g, "periodic", 1);
    ox_vid k = oxu_cast(g, api, positions(g, api, len), ct);
    ox_vid denom = oxu_cast(g, api, len, ct);
    if (!periodic)
        denom = at_op2(g, api, "Sub", denom, oxu_scalar(g, api, ct, 1.0));
    /* a zero denominator (L == 1, not periodic) gives NaN here; the Where below replaces it */
    ox_vid angle = at_op2(g, api, "Div", at_op2(g, api, "Mul", k, oxu_scalar(g, api, ct, 2.0 * 3.14159265358979323846)),
                          denom);
    ox_vid half = oxu_scalar(g, api, ct, 0.5);
    ox_vid w = at_op2(g, api, "Sub", half, at_op2(g, api, "Mul", half, at_op1(g, api, "Cos", angle)));
    ox_vid single = at_op2(g, api, "Equal", len, oxu_const_int(g, api, 1));
    ox_vid in[3] = {single, oxu_scalar(g, api, ct, 1.0), w};
    return oxu_set_result_as(g, api, 0, oxu_opn(g, api, "Where", 3, in), dt);
}

/* _dim_arange(like, dim): 0..like.size(dim)-1, int64. */
static int sym_dim_arange(ox_sym *g, const ox_api *api)
{
    ox_vid like = api->arg_tensor(g, "like");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, like), &dim))
        return 1;
    return oxu_set_result(g, api, 0, positions(g, api, oxu_size_of(g, api, like, dim)));
}

static const ox_param_decl p_eye[] = {AT_PARAM_OR("n", OX_ARG_INT, OX_ARG_TENSOR),
                                      AT_PARAM_OR_NULL("m", OX_ARG_INT, OX_ARG_TENSOR),
                                      OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_linspace[] = {OX_PARAM("start", OX_ARG_SCALAR), OX_PARAM("end", OX_ARG_SCALAR),
                                           AT_PARAM_OR("steps", OX_ARG_INT, OX_ARG_TENSOR),
                                           OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_hann_window[] = {AT_PARAM_OR("window_length", OX_ARG_INT, OX_ARG_TENSOR),
                                              OX_PARAM_BOOL("periodic", 1),
                                              OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_dim_arange[] = {OX_PARAM("like", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT)};

const ox_op_decl at_ops_sequence[] = {
    OX_OP("aten::eye", 9, p_eye, 1, sym_eye),
    OX_OP("aten::linspace", 9, p_linspace, 1, sym_linspace),
    OX_OP("aten::hann_window", 9, p_hann_window, 1, sym_hann_window),
    OX_OP("aten::_dim_arange", 9, p_dim_arange, 1, sym_dim_arange),
};
AT_FAMILY_SIZE(at_ops_sequence);
