/* Running products, extrema and log-sum-exps along a dim: cumprod,
 * cummax/cummin (values and indices), logcumsumexp.  ONNX has CumSum only;
 * these are a Scan along the dim whose body carries the running value, so
 * each step is torch's own recurrence in torch's order: exact for zeros,
 * negative values and integers (exp(cumsum(log x)) is none of these), one
 * pass over the data, and the dim's length is read at run time.  The cost
 * is ONNX Runtime's per-step overhead, about 1 us a step (1.30, one
 * thread: cumprod along 1000 steps of [64, 1000] 1.4 ms a run against
 * CumSum's 0.5 ms; along 64 steps of [1000, 64] 0.32 ms against 0.30 ms),
 * so it suits the short and medium dims these ops see.
 *
 * ONNX Runtime's Scan crashes (SIGFPE, 1.30) on a sequence of length 0,
 * and a dynamic dim may be empty at run time: the scan runs over the dim
 * with one leading element prepended (the start value), whose output is
 * sliced off. */
#include <math.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* x's run-time shape without `axis` (rank >= 2), as a 1-D int64. */
static ox_vid shape_without(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, int rank)
{
    ox_vid parts[2];
    size_t n = 0;
    if (axis > 0)
        parts[n++] = oxu_shape_slice(g, api, x, 0, axis);
    if (axis + 1 < rank)
        parts[n++] = oxu_shape_slice(g, api, x, axis + 1, rank);
    return n == 1 ? parts[0] : oxu_concat(g, api, parts, n, 0);
}

/* The state a scan starts from: a slice of x's shape without `axis` filled
 * with v (rank 0 when x is 1-D). */
static ox_vid start_value(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, int rank,
                          double v, ox_dtype dt)
{
    if (rank == 1)
        return oxu_full_scalar(g, api, v, dt);
    return oxu_full(g, api, shape_without(g, api, x, axis, rank), v, dt);
}

/* x with `first` (x's shape without axis) put in front along axis. */
static ox_vid prepend(ox_sym *g, const ox_api *api, ox_vid first, ox_vid x, int64_t axis)
{
    ox_vid parts[2] = {oxu_unsqueeze(g, api, first, axis), x};
    return oxu_concat(g, api, parts, 2, axis);
}

/* Scan over `scanned` along axis with states init[0..ns) and the body;
 * outputs n_out scan outputs stacked along axis, each with its first
 * (prepended) element sliced off, into outs[]. */
static int scan_along(ox_sym *g, const ox_api *api, ox_obody *body, size_t ns, const ox_vid *init,
                      ox_vid scanned, int64_t axis, int rank, size_t n_out, const ox_dtype *out_dt,
                      ox_vid *outs)
{
    if (!body || !scanned)
        return 1;
    ox_vid in[4];
    int64_t axes[4] = {axis, axis, axis, axis};
    if (ns + 1 > 4 || n_out > 4) /* this file's scans carry at most 3 states, 2 outputs */
        return api->fail(g, "scan_along holds at most 3 states and 4 outputs (%zu, %zu)", ns, n_out);
    for (size_t i = 0; i < ns; i++)
        if (!(in[i] = init[i]))
            return 1;
    in[ns] = scanned;
    ox_onode *scan = api->op(g, "Scan", ns + 1, in, ns + n_out);
    if (!scan)
        return api->fail(g, "could not create ONNX node Scan (out of memory?)");
    api->attr_graph(scan, "body", body);
    api->attr_int(scan, "num_scan_inputs", 1);
    api->attr_ints(scan, "scan_input_axes", &axis, 1);
    api->attr_ints(scan, "scan_output_axes", axes, n_out);
    for (size_t i = 0; i < n_out; i++) {
        ox_vid y = api->node_output(scan, ns + i);
        if (!y)
            return api->fail(g, "could not read output %zu of Scan", ns + i);
        api->set_type(g, y, out_dt[i], rank, NULL);
        if (!(outs[i] = oxu_slice(g, api, y, axis, 1, INT64_MAX, 1)))
            return 1;
    }
    return 0;
}

/* self and its dim, normalised against self's rank; a rank-0 self
 * (*was_rank0) is scanned as 1-D (torch accepts dim 0 or -1 there) and
 * reshaped back by scan_result. */
static int scan_self(ox_sym *g, const ox_api *api, ox_vid *x, int64_t *axis, int *rank,
                     int *was_rank0)
{
    *x = api->arg_tensor(g, "self");
    if (!*x)
        return 1;
    int r = api->rank(g, *x);
    if (r < 0)
        return api->fail(g, "the rank of self is not recorded");
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), r == 0 ? 1 : r, axis))
        return 1;
    *was_rank0 = r == 0;
    if (r == 0 && !(*x = oxu_unsqueeze(g, api, *x, 0)))
        return 1;
    *rank = r == 0 ? 1 : r;
    return 0;
}

/* A scan's output y as the op returns it: in `want` (the type the scan
 * computed in may be wider), rank 0 again for a rank-0 self. */
static ox_vid scan_result(ox_sym *g, const ox_api *api, ox_vid y, ox_dtype want, int was_rank0)
{
    static const int64_t zero = 0;
    y = oxu_cast_to(g, api, y, want);
    return was_rank0 ? oxu_squeeze(g, api, y, &zero, 1) : y;
}

/* ---------------------------------------------------------------- cumprod */

/* state, x_i -> state * x_i (twice: the carried state and the output) */
static ox_obody *product_body(ox_sym *g, const ox_api *api, ox_dtype dt, int rank)
{
    ox_dtype dts[2] = {dt, dt};
    int ranks[2] = {rank - 1, rank - 1};
    ox_vid in[2];
    if (api->body_begin(g, 2, dts, ranks, in))
        return NULL;
    ox_vid p = oxu_op2(g, api, "Mul", in[0], in[1]);
    ox_vid outs[2] = {p, oxu_op1(g, api, "Identity", p)};
    return api->body_end(g, 2, outs);
}

/* torch multiplies bool and integers as int64 (as cumsum); dtype= casts
 * first.  Narrow integers (only through dtype=) multiply in the type Mul
 * takes at this opset (oxu_arith_type), cast back: the product modulo the
 * narrow type's range, as torch wraps it. */
static int sym_cumprod(ox_sym *g, const ox_api *api)
{
    ox_vid x;
    int64_t axis = 0;
    int rank = 0, was_rank0 = 0;
    if (scan_self(g, api, &x, &axis, &rank, &was_rank0))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    else if (!at_is_floating(api->dtype(g, x)))
        x = oxu_cast_to(g, api, x, OX_INT64);
    if (!x)
        return 1;
    ox_dtype want = api->dtype(g, x);
    ox_dtype dt = oxu_arith_type(g, api, want);
    x = oxu_cast_to(g, api, x, dt);
    ox_vid one = start_value(g, api, x, axis, rank, 1.0, dt);
    ox_vid y = 0;
    if (scan_along(g, api, product_body(g, api, dt, rank), 1, &one, prepend(g, api, one, x, axis),
                   axis, rank, 1, &dt, &y))
        return 1;
    return oxu_set_result_recorded(g, api, 0, scan_result(g, api, y, want, was_rank0));
}

/* ---------------------------------------------------------------- cummax, cummin */

/* The type cummax/cummin compare t's values in: Less and Greater have
 * float, double, int32 and int64 kernels in ONNX Runtime (bool and the
 * narrow integers go through int32, uint32/uint64 through int64); the
 * values are cast back, exactly. */
static ox_dtype compare_type(ox_dtype t)
{
    switch (t) {
    case OX_FLOAT: case OX_DOUBLE: case OX_INT32: case OX_INT64: return t;
    case OX_UINT32: case OX_UINT64: return OX_INT64;
    case OX_FLOAT16: case OX_BFLOAT16: return OX_FLOAT;
    default: return OX_INT32;
    }
}

/* state (value v, index, step i), x_i -> the new state and (v, index) as
 * scan outputs.  Step i is the element's position (-1 for the prepended
 * start element); position 0 always takes x_0, so the start state's values
 * never matter.  Later, x_i replaces v as torch's cummax does: when x_i is
 * nan, or v is not nan and x_i >= v (<= for cummin), so equal values move
 * the index to the latest one. */
static ox_obody *extremum_body(ox_sym *g, const ox_api *api, ox_dtype dt, int rank, int max)
{
    ox_dtype dts[4] = {dt, OX_INT64, OX_INT64, dt};
    int ranks[4] = {rank - 1, rank - 1, 0, rank - 1};
    ox_vid in[4];
    if (api->body_begin(g, 4, dts, ranks, in))
        return NULL;
    ox_vid v = in[0], idx = in[1], x = in[3];
    ox_vid i = oxu_op2(g, api, "Add", in[2], oxu_const_int(g, api, 1));
    /* Not(x < v) is x >= v when neither is nan */
    ox_vid take = oxu_op1(g, api, "Not", oxu_op2(g, api, max ? "Less" : "Greater", x, v));
    if (oxu_is_floating(dt))
        take = oxu_op2(g, api, "Or", oxu_op1(g, api, "IsNaN", x),
                       oxu_op2(g, api, "And", oxu_op1(g, api, "Not", oxu_op1(g, api, "IsNaN", v)), take));
    take = oxu_op2(g, api, "Or", oxu_op2(g, api, "Equal", i, oxu_const_int(g, api, 0)), take);
    ox_vid v2 = oxu_where(g, api, take, x, v);
    ox_vid idx2 = oxu_where(g, api, take, i, idx);
    ox_vid outs[5] = {v2, idx2, i, oxu_op1(g, api, "Identity", v2), oxu_op1(g, api, "Identity", idx2)};
    return api->body_end(g, 5, outs);
}

static int cum_extremum(ox_sym *g, const ox_api *api, int max)
{
    ox_vid x;
    int64_t axis = 0;
    int rank = 0, was_rank0 = 0;
    if (scan_self(g, api, &x, &axis, &rank, &was_rank0))
        return 1;
    ox_dtype want = api->dtype(g, x);
    ox_dtype dt = compare_type(want);
    if (!(x = oxu_cast_to(g, api, x, dt)))
        return 1;
    ox_vid init[3] = {start_value(g, api, x, axis, rank, 0.0, dt),
                      start_value(g, api, x, axis, rank, 0.0, OX_INT64),
                      oxu_const_int(g, api, -2)}; /* the prepended element is step -1 */
    ox_dtype out_dt[2] = {dt, OX_INT64};
    ox_vid y[2] = {0, 0};
    if (scan_along(g, api, extremum_body(g, api, dt, rank, max), 3, init,
                   prepend(g, api, init[0], x, axis), axis, rank, 2, out_dt, y))
        return 1;
    if (oxu_set_result_recorded(g, api, 0, scan_result(g, api, y[0], want, was_rank0)))
        return 1;
    return oxu_set_result(g, api, 1, scan_result(g, api, y[1], OX_INT64, was_rank0));
}

static int sym_cummax(ox_sym *g, const ox_api *api) { return cum_extremum(g, api, 1); }
static int sym_cummin(ox_sym *g, const ox_api *api) { return cum_extremum(g, api, 0); }

/* ---------------------------------------------------------------- logcumsumexp */

/* state s (log of the running sum), step i, x_i -> log(e^s + e^x_i) as
 * max + log(1 + exp(min - max)), which neither overflows nor loses a small
 * term ahead of a large one (a log of the cumsum of exp does both).  When
 * s and x_i are equal infinities, min - max is nan while the answer is that
 * infinity: the term is 0 then, and stays nan when an input is nan.  Step 0
 * is x_0 itself. */
static ox_obody *logaddexp_body(ox_sym *g, const ox_api *api, ox_dtype dt, int rank)
{
    ox_dtype dts[3] = {dt, OX_INT64, dt};
    int ranks[3] = {rank - 1, 0, rank - 1};
    ox_vid in[3];
    if (api->body_begin(g, 3, dts, ranks, in))
        return NULL;
    ox_vid s = in[0], x = in[2];
    ox_vid i = oxu_op2(g, api, "Add", in[1], oxu_const_int(g, api, 1));
    ox_vid hi = oxu_op2(g, api, "Max", s, x), lo = oxu_op2(g, api, "Min", s, x);
    ox_vid e = oxu_op1(g, api, "Exp", oxu_op2(g, api, "Sub", lo, hi));
    ox_vid inf_pair = oxu_op2(g, api, "And", oxu_op1(g, api, "IsNaN", e),
                              oxu_op1(g, api, "Not", oxu_op1(g, api, "IsNaN", oxu_op2(g, api, "Add", s, x))));
    e = oxu_where(g, api, inf_pair, oxu_scalar_like(g, api, 0.0, x), e);
    ox_vid sum = oxu_op2(g, api, "Add", hi,
                         oxu_op1(g, api, "Log", oxu_op2(g, api, "Add", oxu_scalar_like(g, api, 1.0, x), e)));
    ox_vid s2 = oxu_where(g, api, oxu_op2(g, api, "Equal", i, oxu_const_int(g, api, 0)), x, sum);
    ox_vid outs[3] = {s2, i, oxu_op1(g, api, "Identity", s2)};
    return api->body_end(g, 3, outs);
}

static int sym_logcumsumexp(ox_sym *g, const ox_api *api)
{
    ox_vid x;
    int64_t axis = 0;
    int rank = 0, was_rank0 = 0;
    if (scan_self(g, api, &x, &axis, &rank, &was_rank0))
        return 1;
    ox_dtype want = api->dtype(g, x);
    /* Exp and Log in float32 for float16/bfloat16 (torch has no integer
     * kernel; a C host's integers compute in float32 too), cast back */
    ox_dtype dt = want == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT;
    if (!(x = oxu_cast_to(g, api, x, dt)))
        return 1;
    ox_vid init[2] = {start_value(g, api, x, axis, rank, 0.0, dt), oxu_const_int(g, api, -2)};
    ox_vid y = 0;
    if (scan_along(g, api, logaddexp_body(g, api, dt, rank), 2, init, prepend(g, api, init[0], x, axis),
                   axis, rank, 1, &dt, &y))
        return 1;
    return oxu_set_result_recorded(g, api, 0, scan_result(g, api, y, want, was_rank0));
}

static const ox_param_decl p_cumprod[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM("dim", OX_ARG_INT),
                                          OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};

static const ox_param_decl p_scan_dim[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT)};

const ox_op_decl at_ops_cumulative[] = {
    /* Scan with scan_input_axes appears at opset 9 */
    OX_OP("aten::cumprod", 9, p_cumprod, 1, sym_cumprod),
    OX_OP("aten::cummax", 9, p_scan_dim, 2, sym_cummax),
    OX_OP("aten::cummin", 9, p_scan_dim, 2, sym_cummin),
    OX_OP("aten::logcumsumexp", 9, p_scan_dim, 1, sym_logcumsumexp),
};
AT_FAMILY_SIZE(at_ops_cumulative);
