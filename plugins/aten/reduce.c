/* Reductions along dims: mean, sum, prod, amax/amin, aminmax, all/any,
 * logsumexp, var/std (and with the mean), argmax/argmin, and the scan,
 * selection and order along one: cumsum, topk, sort/argsort, median/kthvalue.  Reduce* take axes as an attribute
 * up to opset 17, except ReduceSum, whose axes become an input at opset 13. */
#include <math.h>
#include <string.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The element type Reduce* computes t's values in at this opset: ONNX
 * defines the reductions for float16/float/double/int32/int64/uint32/uint64,
 * and ReduceMax/ReduceMin also for int8/uint8 from opset 12 and bool from
 * 20.  Other types (bool, int16, uint16, int8/uint8 earlier) go through
 * int32, which holds every value exactly; the caller casts the result back. */
static ox_dtype reduce_compute_type(ox_sym *g, const ox_api *api, const char *type, ox_dtype t)
{
    int minmax = strcmp(type, "ReduceMax") == 0 || strcmp(type, "ReduceMin") == 0;
    switch (t) {
    case OX_BOOL: return minmax && api->opset(g) >= 20 ? t : OX_INT32;
    case OX_INT16: case OX_UINT16: return OX_INT32;
    case OX_INT8: case OX_UINT8: return minmax && api->opset(g) >= 12 ? t : OX_INT32;
    default: return t;
    }
}

/* Reduce x over axes[] with type, in a type ONNX defines it for (a cast
 * round trip otherwise): the result has x's element type. */
static ox_vid reduce_as_is(ox_sym *g, const ox_api *api, const char *type, ox_vid x,
                           const int64_t *axes, size_t n, int keep)
{
    if (!x)
        return 0;
    ox_dtype t = api->dtype(g, x);
    ox_dtype c = reduce_compute_type(g, api, type, t);
    ox_vid y = oxu_reduce(g, api, type, oxu_cast_to(g, api, x, c), axes, n, keep);
    return c == t ? y : oxu_cast_to(g, api, y, t);
}

/* `self` reduced over `dim` (none: every dim) with `keepdim`; a `dtype`
 * argument casts first.  Sums and products of bool and integer tensors
 * are int64 in torch (widen_ints). */
static int reduce(ox_sym *g, const ox_api *api, const char *type, int widen_ints)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    else if (widen_ints && !at_is_floating(api->dtype(g, x)))
        x = oxu_cast_to(g, api, x, OX_INT64);
    /* An empty dim list reduces everything, as omitting axes does. */
    ox_vid y = reduce_as_is(g, api, type, x, axes, n, api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result_recorded(g, api, 0, y);
}

static int sym_mean(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMean", 0); }
static int sym_sum(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceSum", 1); }
static int sym_prod(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceProd", 1); }
static int sym_amax(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMax", 0); }
static int sym_amin(ox_sym *g, const ox_api *api) { return reduce(g, api, "ReduceMin", 0); }

/* any / all: x as bool (nonzero is true), counted as int64 with
 * ReduceSum (ONNX has no boolean reduction, and a count is defined for an
 * empty reduction too): any is count > 0, all is "no false value", a
 * count of zero over Not(x). */
static int any_all(ox_sym *g, const ox_api *api, int all)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    ox_vid b = oxu_cast_to(g, api, x, OX_BOOL);
    if (all)
        b = at_op1(g, api, "Not", b);
    ox_vid count = oxu_reduce(g, api, "ReduceSum", oxu_cast(g, api, b, OX_INT64), axes, n,
                              api->arg_int(g, "keepdim", 0) != 0);
    ox_vid y = at_op2(g, api, all ? "Equal" : "Greater", count, oxu_scalar(g, api, OX_INT64, 0));
    return oxu_set_result_recorded(g, api, 0, y); /* uint8 for a uint8 input */
}

static int sym_any(ox_sym *g, const ox_api *api) { return any_all(g, api, 0); }
static int sym_all(ox_sym *g, const ox_api *api) { return any_all(g, api, 1); }

/* aminmax: (min, max) over dim, or over every element. */
static int sym_aminmax(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    int keep = api->arg_int(g, "keepdim", 0) != 0;
    if (oxu_set_result(g, api, 0, reduce_as_is(g, api, "ReduceMin", x, axes, n, keep)))
        return 1;
    return oxu_set_result(g, api, 1, reduce_as_is(g, api, "ReduceMax", x, axes, n, keep));
}

/* logsumexp -> ReduceLogSumExp; integer inputs give float in torch. */
static int sym_logsumexp(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    if (!at_is_floating(api->dtype(g, x)))
        x = oxu_cast(g, api, x, OX_FLOAT);
    ox_vid y = oxu_reduce(g, api, "ReduceLogSumExp", x, axes, n, api->arg_int(g, "keepdim", 0) != 0);
    return oxu_set_result_recorded(g, api, 0, y);
}

/* ---------------------------------------------------------------- moments */

/* The correction of var/std: `correction` when recorded (None means 1),
 * else 1 - 0 for `unbiased` (the older overloads). */
static double moment_correction(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "correction") != OX_ARG_NONE)
        return api->arg_float(g, "correction", 1.0);
    return api->arg_int(g, "unbiased", 1) != 0 ? 1.0 : 0.0;
}

/* var = sum((x - mean)^2) / (N - correction) over the reduced dims, and
 * the mean as torch returns it (kept dims per keepdim).  N, the count of
 * reduced elements, is Size(x) / Size(mean): the kept-dims mean has one
 * element per reduced group. */
static int moments(ox_sym *g, const ox_api *api, ox_vid *var, ox_vid *mean)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axes[AT_MAX_RANK];
    size_t n = 0;
    *var = *mean = 0;
    if (at_dim_axes(g, api, x, axes, &n))
        return 1;
    int keep = api->arg_int(g, "keepdim", 0) != 0;
    ox_dtype t = api->dtype(g, x);
    if (!at_is_floating(t)) /* torch computes moments of floats only */
        return api->fail(g, "argument 'self' is not a floating-point tensor");
    ox_vid m = oxu_reduce(g, api, "ReduceMean", x, axes, n, 1);
    ox_vid d = at_op2(g, api, "Sub", x, m);
    ox_vid ss = oxu_reduce(g, api, "ReduceSum", at_op2(g, api, "Mul", d, d), axes, n, keep);
    /* the recorded sizes may be the example's only (dynamic axes): N is
     * counted at run time */
    ox_vid nx = oxu_cast_to(g, api, at_op1(g, api, "Size", x), t);
    ox_vid nm = oxu_cast_to(g, api, at_op1(g, api, "Size", m), t);
    ox_vid denom = at_op2(g, api, "Sub", at_op2(g, api, "Div", nx, nm),
                          oxu_scalar_like(g, api, moment_correction(g, api), x));
    *var = at_op2(g, api, "Div", ss, denom);
    *mean = keep ? m : at_squeeze(g, api, m, axes, n);
    return *var && *mean ? 0 : 1;
}

static int sym_var(ox_sym *g, const ox_api *api)
{
    ox_vid v, m;
    return moments(g, api, &v, &m) ? 1 : oxu_set_result(g, api, 0, v);
}

static int sym_std(ox_sym *g, const ox_api *api)
{
    ox_vid v, m;
    return moments(g, api, &v, &m) ? 1 : oxu_set_result(g, api, 0, at_op1(g, api, "Sqrt", v));
}

static int sym_var_mean(ox_sym *g, const ox_api *api)
{
    ox_vid v, m;
    if (moments(g, api, &v, &m) || oxu_set_result(g, api, 0, v))
        return 1;
    return oxu_set_result(g, api, 1, m);
}

static int sym_std_mean(ox_sym *g, const ox_api *api)
{
    ox_vid v, m;
    if (moments(g, api, &v, &m) || oxu_set_result(g, api, 0, at_op1(g, api, "Sqrt", v)))
        return 1;
    return oxu_set_result(g, api, 1, m);
}

/* dim None: the index into the flattened tensor.  0 after api->fail. */
static ox_vid arg_reduce_value(ox_sym *g, const ox_api *api, const char *type)
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
                                "the input's, which is unknown; record it"), 0;
        int64_t flat = -1;
        x = at_reshape(g, api, x, &flat, 1);
    } else if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis)) {
        return 0;
    }
    if (x && api->dtype(g, x) == OX_BOOL) /* ArgMax/ArgMin take no bool (max.dim of a mask) */
        x = at_cast(g, api, x, OX_INT32);
    else if (x) /* nor, in ONNX Runtime, int16: in a wider type, same order */
        x = oxu_cast_to(g, api, x, oxu_ort_kernel_type(type, api->dtype(g, x)));
    if (!x)
        return 0;
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
    return y;
}

static int arg_reduce(ox_sym *g, const ox_api *api, const char *type)
{
    return oxu_set_result(g, api, 0, arg_reduce_value(g, api, type));
}

static int sym_argmax(ox_sym *g, const ox_api *api) { return arg_reduce(g, api, "ArgMax"); }
static int sym_argmin(ox_sym *g, const ox_api *api) { return arg_reduce(g, api, "ArgMin"); }

/* max / min: one operator, three overloads.  max(self): over every element;
 * max.dim(self, dim, keepdim) -> (values, indices), the indices by ArgMax
 * (the host may record the values only); max.other(self, other): the
 * elementwise maximum's lowering. */
static int max_min(ox_sym *g, const ox_api *api, int max)
{
    if (api->arg_kind(g, "other") == OX_ARG_TENSOR)
        return at_elementwise_max_min(g, api, max);
    ox_vid x = api->arg_tensor(g, "self");
    const char *type = max ? "ReduceMax" : "ReduceMin";
    if (api->arg_kind(g, "dim") == OX_ARG_NONE) {
        if (api->n_outputs(g) != 1)
            return api->fail(g, "%s without 'dim' has one output, but the host recorded %u",
                             api->op_name(g), api->n_outputs(g));
        return oxu_set_result(g, api, 0, reduce_as_is(g, api, type, x, NULL, 0, 0));
    }
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis))
        return 1;
    int keep = api->arg_int(g, "keepdim", 0) != 0;
    if (oxu_set_result(g, api, 0, reduce_as_is(g, api, type, x, &axis, 1, keep)))
        return 1;
    if (api->n_outputs(g) < 2)
        return 0;
    return oxu_set_result(g, api, 1, arg_reduce_value(g, api, max ? "ArgMax" : "ArgMin"));
}

static int sym_max(ox_sym *g, const ox_api *api) { return max_min(g, api, 1); }
static int sym_min(ox_sym *g, const ox_api *api) { return max_min(g, api, 0); }

/* CumSum exists from opset 11; its axis is a rank-0 input. */
static int sym_cumsum(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &axis))
        return 1;
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    else if (!at_is_floating(api->dtype(g, x)))
        x = oxu_cast_to(g, api, x, OX_INT64); /* torch sums bool and integers as int64 */
    ox_vid ax = api->const_scalar_of(g, OX_INT64, (double)axis);
    if (!x || !ax)
        return x ? api->fail(g, "could not create the axis constant") : 1;
    ox_vid y = at_op2(g, api, "CumSum", x, ax);
    return oxu_set_result_recorded(g, api, 0, y);
}

/* The element type TopK orders t's values in: TopK takes floats only
 * before opset 11 (integers go through double, exact below 2^53), and
 * ONNX Runtime's TopK has float, double, int32 and int64 kernels from 11
 * (narrower integers and bool use int32).  Values are cast back. */
static ox_dtype topk_compute_type(ox_sym *g, const ox_api *api, ox_dtype t)
{
    if (at_is_floating(t))
        return t;
    if (api->opset(g) < 11)
        return OX_DOUBLE;
    return t == OX_INT64 || t == OX_INT32 ? t : OX_INT32;
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
    ox_dtype dt = api->dtype(g, x);
    if (!(x = oxu_cast_to(g, api, x, topk_compute_type(g, api, dt))))
        return 1;
    ox_onode *t;
    /* k from a traced size (torchvision's topk(min(k, n))): TopK's K input */
    ox_vid traced_k = api->arg_kind(g, "k") == OX_ARG_TENSOR ? api->arg_tensor(g, "k") : 0;
    if (traced_k && opset < 10)
        return api->limit(g, 10, "topk with a k computed from traced sizes needs TopK's K input");
    if (traced_k) {
        const int64_t one = 1;
        ox_vid in[2] = {x, at_reshape(g, api, oxu_cast_to(g, api, traced_k, OX_INT64), &one, 1)};
        if (!in[1])
            return 1;
        t = api->op(g, "TopK", 2, in, 2);
    } else if (opset < 10) {
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
    if (oxu_set_result(g, api, 0, oxu_cast_to(g, api, api->node_output(t, 0), dt)))
        return 1;
    return api->set_output(g, 1, api->node_output(t, 1));
}

/* sort and argsort: TopK over the whole dim (k = its size: read with Shape
 * from opset 10, where k is an input; the recorded size at opset 9, where
 * k is an attribute, so a dynamic dim needs opset 10).  From
 * opset 11 TopK takes largest=0 for ascending order and breaks ties by the
 * lower index, which is torch's stable order in both directions; before 11
 * an ascending sort is TopK of -x.  Element types as topk_compute_type. */
static int sort_check(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", -1), api->rank(g, x), &axis))
        return 1;
    int opset = api->opset(g);
    if (opset < 11 && api->arg_int(g, "stable", 0))
        return api->limit(g, 11, "a stable sort needs TopK's tie order (lower index first)");
    if (opset < 10 && api->size(g, x, (int)axis) < 0)
        return api->limit(g, 10, "sorting along a dim of unrecorded size needs TopK's k input");
    return 0;
}

static int sort_topk(ox_sym *g, const ox_api *api, int indices_only)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t axis;
    if (sort_check(g, api))
        return 1;
    (void)at_axis(g, api, "dim", api->arg_int(g, "dim", -1), api->rank(g, x), &axis);
    int opset = api->opset(g);
    int descending = api->arg_int(g, "descending", 0) != 0;
    ox_dtype t = api->dtype(g, x);
    ox_vid in = oxu_cast_to(g, api, x, topk_compute_type(g, api, t));
    int negate = opset < 11 && !descending;
    if (negate)
        in = at_op1(g, api, "Neg", in);
    ox_onode *n = NULL;
    if (!in)
        return 1;
    if (opset < 10) {
        /* read only here: a fixed read warns where a dynamic axis reaches the
         * dim, and from opset 10 k follows the run-time size */
        int64_t k = oxu_fixed_size(g, api, x, (int)axis);
        n = api->op(g, "TopK", 1, &in, 2);
        if (n)
            api->attr_int(n, "k", k);
    } else {
        /* the dim's size at run time: the recorded one may be the example's */
        ox_vid kv = oxu_unsqueeze(g, api, oxu_size_of(g, api, x, axis), 0);
        ox_vid tin[2] = {in, kv};
        if (!kv)
            return 1;
        n = api->op(g, "TopK", 2, tin, 2);
    }
    if (!n)
        return api->fail(g, "could not create ONNX node TopK (out of memory?)");
    api->attr_int(n, "axis", axis);
    if (opset >= 11)
        api->attr_int(n, "largest", descending);
    ox_vid idx = api->node_output(n, 1);
    if (indices_only)
        return api->set_output(g, 0, idx);
    ox_vid values = api->node_output(n, 0);
    if (negate)
        values = at_op1(g, api, "Neg", values);
    if (oxu_set_result(g, api, 0, oxu_cast_to(g, api, values, t)))
        return 1;
    return api->set_output(g, 1, idx);
}

static int sym_sort(ox_sym *g, const ox_api *api) { return sort_topk(g, api, 0); }
static int sym_argsort(ox_sym *g, const ox_api *api) { return sort_topk(g, api, 1); }

/* median and kthvalue: the k-th smallest along axis through TopK(k,
 * smallest first), whose last entry is picked with Gather at position k - 1
 * (`pos`, a rank-0 int64 value; at opset 9, where TopK's k is an attribute,
 * the constant kfix instead).  From opset 11 TopK orders equal values by
 * the lower index, so the index on ties is the one of a stable sort, which
 * is torch's median's; torch's kthvalue picks among ties by its
 * partitioning, which no ONNX operator reproduces (docs: the YAML).  Before
 * 11 the smallest are TopK's largest of -x.  Element types as
 * topk_compute_type. */
static int kth_smallest(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, ox_vid pos,
                        int64_t kfix, int keep, int median)
{
    int opset = api->opset(g);
    ox_dtype t = api->dtype(g, x);
    /* nan: TopK's order of a nan is not defined, so nan orders as +inf, and
     * the nans are counted to settle the result as torch's: a median of
     * values with a nan is nan, at the first nan's index; kthvalue sorts nan
     * last, so its k-th is nan when fewer than k values are not */
    int nan_aware = oxu_is_floating(t) && t != OX_UNDEFINED;
    ox_vid isnan = nan_aware ? at_op1(g, api, "IsNaN", x) : 0;
    if (nan_aware)
        x = oxu_where(g, api, isnan, oxu_scalar_like(g, api, INFINITY, x), x);
    ox_vid in = oxu_cast_to(g, api, x, topk_compute_type(g, api, t));
    int negate = opset < 11;
    if (negate)
        in = at_op1(g, api, "Neg", in);
    if (!in)
        return 1;
    ox_onode *n;
    if (opset < 10) {
        pos = oxu_const_int(g, api, kfix - 1);
        n = api->op(g, "TopK", 1, &in, 2);
        if (n)
            api->attr_int(n, "k", kfix);
    } else {
        ox_vid tin[2] = {in, oxu_unsqueeze(g, api, at_op2(g, api, "Add", pos, oxu_const_int(g, api, 1)), 0)};
        if (!tin[1])
            return 1;
        n = api->op(g, "TopK", 2, tin, 2);
    }
    if (!n || !pos)
        return n ? 1 : api->fail(g, "could not create ONNX node TopK (out of memory?)");
    api->attr_int(n, "axis", axis);
    if (opset >= 11)
        api->attr_int(n, "largest", 0);
    ox_vid picked[2];
    for (int i = 0; i < 2; i++) {
        ox_vid gin[2] = {api->node_output(n, (size_t)i), pos};
        ox_onode *ga = api->op(g, "Gather", 2, gin, 1);
        if (ga)
            api->attr_int(ga, "axis", axis);
        picked[i] = oxu_out(g, api, ga, "Gather"); /* a rank-0 position drops the dim */
        if (keep)
            picked[i] = oxu_unsqueeze(g, api, picked[i], axis);
    }
    if (negate)
        picked[0] = at_op1(g, api, "Neg", picked[0]);
    if (nan_aware) {
        ox_vid count = oxu_reduce(g, api, "ReduceSum", oxu_cast(g, api, isnan, OX_INT64), &axis, 1, keep);
        ox_vid is_nan_result;
        if (median) {
            is_nan_result = at_op2(g, api, "Greater", count, oxu_const_int(g, api, 0));
            ox_vid flags = oxu_cast(g, api, isnan, OX_FLOAT);
            ox_onode *am = flags ? api->op(g, "ArgMax", 1, &flags, 1) : NULL;
            if (am) {
                api->attr_int(am, "axis", axis);
                api->attr_int(am, "keepdims", keep);
            }
            /* ArgMax takes the first of equal maxima: the first nan */
            picked[1] = oxu_where(g, api, is_nan_result, oxu_out(g, api, am, "ArgMax"), picked[1]);
        } else {
            ox_vid not_nan = at_op2(g, api, "Sub", oxu_size_of(g, api, x, axis), count);
            is_nan_result = at_op2(g, api, "Greater", at_op2(g, api, "Add", pos, oxu_const_int(g, api, 1)),
                                   not_nan);
        }
        picked[0] = oxu_where(g, api, is_nan_result, oxu_scalar_like(g, api, NAN, picked[0]), picked[0]);
    }
    if (oxu_set_result(g, api, 0, oxu_cast_to(g, api, picked[0], t)))
        return 1;
    if (oxu_n_outputs(g, api, 1) < 2)
        return 0;
    return oxu_set_result(g, api, 1, picked[1]);
}

/* At opset 9 k is TopK's attribute: the position must be known when the
 * file is written (kthvalue's k is; median's comes from the dim's size). */
static int median_check(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (api->opset(g) >= 10)
        return 0;
    int r = api->rank(g, x);
    if (api->arg_kind(g, "dim") != OX_ARG_INT) {
        for (int i = 0; i < r; i++)
            if (api->size(g, x, i) < 0)
                return api->limit(g, 10, "median of a tensor of unrecorded size needs TopK's k input");
        return r < 0 ? api->limit(g, 10, "median of a tensor of unrecorded rank needs TopK's k input") : 0;
    }
    int64_t axis;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), r == 0 ? 1 : r, &axis))
        return 1;
    if (r > 0 && api->size(g, x, (int)axis) < 0)
        return api->limit(g, 10, "median along a dim of unrecorded size needs TopK's k input");
    return 0;
}

/* median/kthvalue of a 0-dim tensor along dim 0 or -1: the value, index 0. */
static int one_element(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x)))
        return 1;
    if (oxu_n_outputs(g, api, 1) < 2)
        return 0;
    return oxu_set_result(g, api, 1, oxu_full_scalar(g, api, 0.0, OX_INT64));
}

/* torch's median is the lower one, the ((n - 1) // 2)-th smallest, n read
 * at run time from opset 10 (a dynamic dim keeps its median); median()
 * without a dim is over every element, a rank-0 value (no index). */
static int sym_median(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (median_check(g, api))
        return 1;
    int64_t axis = 0;
    int keep = 0;
    if (api->arg_kind(g, "dim") == OX_ARG_INT) {
        int r = api->rank(g, x);
        if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), r == 0 ? 1 : r, &axis))
            return 1;
        keep = api->arg_int(g, "keepdim", 0) != 0;
        if (r == 0) /* dim 0 of a 0-dim tensor: the element itself, index 0 */
            return one_element(g, api, x);
    } else {
        static const int64_t flat = -1;
        x = at_reshape(g, api, x, &flat, 1);
    }
    if (!x)
        return 1;
    int64_t kfix = 0;
    ox_vid pos = 0;
    if (api->opset(g) < 10) {
        int64_t n = 1;
        if (api->arg_kind(g, "dim") == OX_ARG_INT) {
            n = oxu_fixed_size(g, api, api->arg_tensor(g, "self"), (int)axis);
        } else {
            ox_vid self = api->arg_tensor(g, "self");
            for (int i = 0; i < api->rank(g, self); i++)
                n *= oxu_fixed_size(g, api, self, i);
        }
        kfix = (n - 1) / 2 + 1;
    } else {
        ox_vid n = oxu_size_of(g, api, x, axis);
        pos = at_op2(g, api, "Div", at_op2(g, api, "Sub", n, oxu_const_int(g, api, 1)),
                     oxu_const_int(g, api, 2));
        if (!pos)
            return 1;
    }
    return kth_smallest(g, api, x, axis, pos, kfix, keep, 1);
}

/* k from a traced size (kthvalue(x, (n + 1) // 2)) is TopK's k input */
static int kthvalue_check(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "k") == OX_ARG_TENSOR && api->opset(g) < 10)
        return api->limit(g, 10, "kthvalue with a k computed from traced sizes needs TopK's k input");
    return 0;
}

static int sym_kthvalue(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int r = api->rank(g, x);
    int64_t axis, k = 1;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", -1), r == 0 ? 1 : r, &axis))
        return 1;
    int keep = api->arg_int(g, "keepdim", 0) != 0;
    if (kthvalue_check(g, api))
        return 1;
    ox_vid pos = 0;
    if (api->arg_kind(g, "k") == OX_ARG_TENSOR) {
        ox_vid kv = oxu_cast_to(g, api, api->arg_tensor(g, "k"), OX_INT64);
        static const int64_t zero = 0;
        if (kv && api->rank(g, kv) == 1)
            kv = oxu_squeeze(g, api, kv, &zero, 1);
        pos = at_op2(g, api, "Sub", kv, oxu_const_int(g, api, 1));
        if (!pos)
            return 1;
    } else if ((k = api->arg_int(g, "k", 1)) < 1) {
        return api->fail(g, "kthvalue's k is %lld; it must be at least 1", (long long)k);
    }
    if (r == 0) /* torch: a 0-dim tensor's only element, whatever keepdim */
        return one_element(g, api, x);
    if (!pos && api->opset(g) >= 10 && !(pos = oxu_const_int(g, api, k - 1)))
        return 1;
    if (!x)
        return 1;
    return kth_smallest(g, api, x, axis, pos, k, keep, 0);
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
    OX_PARAM("self", OX_ARG_TENSOR), AT_PARAM_OR("k", OX_ARG_INT, OX_ARG_TENSOR),
    OX_PARAM_INT("dim", OX_ARG_INT, -1),
    OX_PARAM_BOOL("largest", 1), OX_PARAM_BOOL("sorted", 1)};

/* aten::prod.dim_int, all.dim, any.dim take one int dim; None (the
 * overloads without dim) reduces every dim. */
static const ox_param_decl p_prod[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_NULL("dim", OX_ARG_INT),
    OX_PARAM_BOOL("keepdim", 0), OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_any_all[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM_NULL("dim", OX_ARG_INT),
                                          OX_PARAM_BOOL("keepdim", 0)};
static const ox_param_decl p_logsumexp[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("dim", OX_ARG_INTS),
                                            OX_PARAM_BOOL("keepdim", 0)};
/* The .correction overloads, and `unbiased` of the older ones (read when
 * no correction is recorded): one declaration for both. */
static const ox_param_decl p_moments[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_NULL("dim", OX_ARG_INTS),
    OX_PARAM_BOOL("unbiased", 1), OX_PARAM_NULL("correction", OX_ARG_INT),
    OX_PARAM_BOOL("keepdim", 0)};
/* max(self), max.dim(self, dim, keepdim=False), max.other(self, other): one
 * declaration; dim None is the overload without it (and so is min's). */
static const ox_param_decl p_max_min[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM_NULL("dim", OX_ARG_INT),
                                          OX_PARAM_BOOL("keepdim", 0),
                                          OX_PARAM_NULL("other", OX_ARG_TENSOR)};
/* median(self) and median.dim(self, dim, keepdim): one declaration, dim
 * None for the overload without it (one output, no index) */
static const ox_param_decl p_median[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         OX_PARAM_NULL("dim", OX_ARG_INT),
                                         OX_PARAM_BOOL("keepdim", 0)};
static const ox_param_decl p_kthvalue[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           AT_PARAM_OR("k", OX_ARG_INT, OX_ARG_TENSOR),
                                           OX_PARAM_INT("dim", OX_ARG_INT, -1),
                                           OX_PARAM_BOOL("keepdim", 0)};
/* aten::sort.stable's order; plain aten::sort records no `stable` */
static const ox_param_decl p_sort[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_NULL("stable", OX_ARG_BOOL),
                                       OX_PARAM_INT("dim", OX_ARG_INT, -1),
                                       OX_PARAM_BOOL("descending", 0)};

const ox_op_decl at_ops_reduce[] = {
    OX_OP("aten::mean", 7, p_mean_sum, 1, sym_mean),
    OX_OP("aten::sum", 9, p_mean_sum, 1, sym_sum),
    OX_OP("aten::amax", 7, p_amax, 1, sym_amax),
    OX_OP("aten::amin", 7, p_amax, 1, sym_amin),
    OX_OP("aten::argmax", 7, p_argmax, 1, sym_argmax),
    OX_OP("aten::argmin", 7, p_argmax, 1, sym_argmin),
    OX_OP("aten::cumsum", 11, p_cumsum, 1, sym_cumsum),
    OX_OP("aten::topk", 7, p_topk, 2, sym_topk),
    OX_OP("aten::prod", 9, p_prod, 1, sym_prod),
    OX_OP("aten::all", 9, p_any_all, 1, sym_all),
    OX_OP("aten::any", 9, p_any_all, 1, sym_any),
    OX_OP("aten::aminmax", 9, p_argmax, 2, sym_aminmax),
    OX_OP("aten::logsumexp", 9, p_logsumexp, 1, sym_logsumexp),
    OX_OP("aten::var", 9, p_moments, 1, sym_var),
    OX_OP("aten::std", 9, p_moments, 1, sym_std),
    OX_OP("aten::var_mean", 9, p_moments, 2, sym_var_mean),
    OX_OP("aten::std_mean", 9, p_moments, 2, sym_std_mean),
    OX_OP_EX("aten::sort", 9, p_sort, 2, sym_sort, 0u, sort_check),
    OX_OP_EX("aten::argsort", 9, p_sort, 1, sym_argsort, 0u, sort_check),
    OX_OP_EX("aten::median", 9, p_median, 1, sym_median, OX_OP_OUTPUTS_AS_RECORDED, median_check),
    OX_OP_EX("aten::kthvalue", 9, p_kthvalue, 2, sym_kthvalue, 0u, kthvalue_check),
    OX_OP_EX("aten::max", 9, p_max_min, 1, sym_max, OX_OP_OUTPUTS_AS_RECORDED, NULL),
    OX_OP_EX("aten::min", 9, p_max_min, 1, sym_min, OX_OP_OUTPUTS_AS_RECORDED, NULL),
};
AT_FAMILY_SIZE(at_ops_reduce);
