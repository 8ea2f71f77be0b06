/* Creation ops: zeros/ones/full of a size, *_like of another tensor's
 * run-time shape, rand_like/randn_like, arange.  A size argument recorded as
 * a tensor is a 1-D int64 tensor the host built from traced scalars; as an
 * int list it is a constant of the file.  So is full's fill value: a number,
 * or a rank-0 tensor (a traced size, torch.full((), x.size(0))). */
#include <stdint.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The shape argument `name` as a 1-D int64 value; *rank0 when it is an empty
 * constant list (a rank-0 result, which ConstantOfShape spells with an empty
 * shape tensor the writer cannot hold as a zero-byte constant). */
static ox_vid shape_arg(ox_sym *g, const ox_api *api, const char *name, int *rank0)
{
    *rank0 = 0;
    if (api->arg_kind(g, name) == OX_ARG_TENSOR) {
        ox_vid s = api->arg_tensor(g, name);
        if (api->dtype(g, s) != OX_INT64)
            s = at_cast(g, api, s, OX_INT64);
        return s;
    }
    const int64_t *v = NULL;
    size_t n = api->arg_ints(g, name, &v);
    if (n == 0) {
        *rank0 = 1;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0) {
            api->fail(g, "argument '%s'[%zu] is %lld; sizes must be non-negative", name, i,
                      (long long)v[i]);
            return 0;
        }
    ox_vid s = api->const_ints(g, v, n);
    if (!s)
        api->fail(g, "could not create the shape constant");
    return s;
}

/* A tensor of `shape` (rank 0 when rank0) filled with `value`, of element
 * type `dt`: the SDK's ConstantOfShape or Constant, cast when needed. */
static ox_vid filled(ox_sym *g, const ox_api *api, ox_vid shape, int rank0, double value,
                     ox_dtype dt)
{
    return rank0 ? oxu_full_scalar(g, api, value, dt) : oxu_full(g, api, shape, value, dt);
}

static ox_dtype dtype_arg(ox_sym *g, const ox_api *api, ox_dtype dflt)
{
    if (api->arg_kind(g, "dtype") != OX_ARG_DTYPE)
        return dflt;
    return (ox_dtype)api->arg_int(g, "dtype", dflt);
}

/* Whether fill_value is a value of the graph (a size read in Python,
 * torch.full((), x.size(0)), which the host records as a rank-0 tensor)
 * rather than a number. */
static int fill_is_tensor(ox_sym *g, const ox_api *api)
{
    return api->arg_kind(g, "fill_value") == OX_ARG_TENSOR;
}

/* A tensor of `shape` (rank 0 when rank0) holding fill_value's value, cast
 * to dt: Expand of the value, which follows it at run time. */
static ox_vid filled_by_value(ox_sym *g, const ox_api *api, ox_vid shape, int rank0, ox_dtype dt)
{
    ox_vid v = api->arg_tensor(g, "fill_value");
    if (!v) {
        api->fail(g, "argument 'fill_value' is missing or None");
        return 0;
    }
    if (api->rank(g, v) != 0) {
        api->fail(g, "argument 'fill_value' has rank %d; a fill value is one number (rank 0)",
                  api->rank(g, v));
        return 0;
    }
    v = oxu_cast_to(g, api, v, dt);
    return rank0 || !v ? v : at_op2(g, api, "Expand", v, shape);
}

static int factory(ox_sym *g, const ox_api *api, double value)
{
    int rank0;
    ox_vid s = shape_arg(g, api, "size", &rank0);
    if (!s && !rank0)
        return 1;
    ox_dtype dt = dtype_arg(g, api, OX_FLOAT);
    if (fill_is_tensor(g, api))
        return oxu_set_result(g, api, 0, filled_by_value(g, api, s, rank0, dt));
    return oxu_set_result(g, api, 0, filled(g, api, s, rank0, value, dt));
}

static int sym_zeros(ox_sym *g, const ox_api *api)
{
    return factory(g, api, 0.0);
}

static int sym_ones(ox_sym *g, const ox_api *api)
{
    return factory(g, api, 1.0);
}

static int sym_full(ox_sym *g, const ox_api *api)
{
    return factory(g, api, fill_is_tensor(g, api) ? 0.0 : api->arg_float(g, "fill_value", 0.0));
}

/* empty / empty_like / new_empty: torch leaves the values unspecified; zeros
 * are one valid choice, and the same on every run. */
static int sym_empty(ox_sym *g, const ox_api *api)
{
    return factory(g, api, 0.0);
}

/* new_zeros / new_ones / new_full / new_empty(self, size): a factory of
 * size whose dtype defaults to self's (hosts record the result's). */
static int new_factory(ox_sym *g, const ox_api *api, double value)
{
    int rank0;
    ox_vid s = shape_arg(g, api, "size", &rank0);
    if (!s && !rank0)
        return 1;
    ox_dtype dt = dtype_arg(g, api, api->dtype(g, api->arg_tensor(g, "self")));
    if (fill_is_tensor(g, api))
        return oxu_set_result(g, api, 0, filled_by_value(g, api, s, rank0, dt));
    return oxu_set_result(g, api, 0, filled(g, api, s, rank0, value, dt));
}

static int sym_new_zeros(ox_sym *g, const ox_api *api)
{
    return new_factory(g, api, 0.0);
}

static int sym_new_ones(ox_sym *g, const ox_api *api)
{
    return new_factory(g, api, 1.0);
}

static int sym_new_full(ox_sym *g, const ox_api *api)
{
    return new_factory(g, api, fill_is_tensor(g, api) ? 0.0 : api->arg_float(g, "fill_value", 0.0));
}

static int like(ox_sym *g, const ox_api *api, double value)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype dt = dtype_arg(g, api, api->dtype(g, x));
    if (fill_is_tensor(g, api))
        return oxu_set_result(g, api, 0,
                              filled_by_value(g, api, api->rank(g, x) == 0 ? 0 : oxu_shape(g, api, x),
                                              api->rank(g, x) == 0, dt));
    if (api->rank(g, x) == 0)
        return oxu_set_result(g, api, 0, filled(g, api, 0, 1, value, dt));
    return oxu_set_result(g, api, 0, filled(g, api, at_op1(g, api, "Shape", x), 0, value, dt));
}

static int sym_zeros_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, 0.0);
}

static int sym_ones_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, 1.0);
}

static int sym_empty_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, 0.0);
}

static int sym_full_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, fill_is_tensor(g, api) ? 0.0 : api->arg_float(g, "fill_value", 0.0));
}

/* rand_like / randn_like: ONNX's generators draw other numbers than torch's,
 * from the same distribution. */
static int random_like(ox_sym *g, const ox_api *api, const char *op_type)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype dt = dtype_arg(g, api, api->dtype(g, x));
    /* ONNX Runtime has no float16 generator kernels: float16 is cast from float */
    ox_dtype gen = dt == OX_DOUBLE ? dt : OX_FLOAT;
    ox_onode *n = api->op(g, op_type, 1, &x, 1);
    if (n)
        api->attr_int(n, "dtype", gen);
    ox_vid y = at_out(g, api, n, op_type);
    if (y && gen != dt)
        y = at_cast(g, api, y, dt);
    return oxu_set_result(g, api, 0, y);
}

static int sym_rand_like(ox_sym *g, const ox_api *api)
{
    return random_like(g, api, "RandomUniformLike");
}

static int sym_randn_like(ox_sym *g, const ox_api *api)
{
    return random_like(g, api, "RandomNormalLike");
}

/* One arange bound as a rank-0 value of type dt (a recorded number is a constant). */
static ox_vid bound(ox_sym *g, const ox_api *api, const char *name, double dflt, ox_dtype dt)
{
    if (api->arg_kind(g, name) == OX_ARG_TENSOR) {
        ox_vid v = api->arg_tensor(g, name);
        if (api->rank(g, v) != 0)
            v = at_squeeze(g, api, v, NULL, 0);
        return api->dtype(g, v) == dt ? v : at_cast(g, api, v, dt);
    }
    ox_vid v = api->const_scalar_of(g, dt, api->arg_float(g, name, dflt));
    if (!v)
        api->fail(g, "could not create the constant for '%s'", name);
    return v;
}

/* Range is new in opset 11; before, only an integer range with a constant
 * positive step has a lowering (below). */
static int check_arange(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 11)
        return 0;
    if (!at_is_integer(dtype_arg(g, api, OX_INT64)) || api->arg_kind(g, "step") == OX_ARG_TENSOR ||
        api->arg_kind(g, "start") == OX_ARG_FLOAT || api->arg_kind(g, "step") == OX_ARG_FLOAT)
        return api->limit(g, 11, "arange with a traced bound needs Range unless it is an "
                                 "integer range with a constant step");
    int64_t step = api->arg_int(g, "step", 1);
    if (step <= 0)
        return api->limit(g, 11, "arange with a traced bound and a step of %lld needs Range",
                          (long long)step);
    return 0;
}

/* arange with traced bounds: Range from opset 11 (in the output's type, or
 * float for types Range lacks); before 11, integer ranges as the indices of
 * NonZero over a ones tensor of the element count. */
static int sym_arange(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = dtype_arg(g, api, OX_INT64);
    int integral = at_is_integer(dt);
    if (api->opset(g) >= 11) {
        ox_dtype rt = dt == OX_INT64 || dt == OX_INT32 || dt == OX_INT16 || dt == OX_DOUBLE
                          ? dt
                          : integral ? OX_INT64 : OX_FLOAT;
        ox_vid in[3] = {bound(g, api, "start", 0.0, rt), bound(g, api, "end", 0.0, rt),
                        bound(g, api, "step", 1.0, rt)};
        if (!in[0] || !in[1] || !in[2])
            return 1;
        ox_vid y = at_out(g, api, api->op(g, "Range", 3, in, 1), "Range");
        if (y && rt != dt)
            y = at_cast(g, api, y, dt);
        return oxu_set_result(g, api, 0, y);
    }
    /* check_arange refused every other form before opset 11. */
    int64_t step = api->arg_int(g, "step", 1);
    ox_vid start = bound(g, api, "start", 0.0, OX_INT64), end = bound(g, api, "end", 0.0, OX_INT64);
    if (!start || !end)
        return 1;
    /* count = max(ceil((end - start) / step), 0), all non-negative here */
    ox_vid span = at_op2(g, api, "Sub", end, start);
    /* Max takes no int64 before opset 12: clamp as double (exact below 2^53) */
    span = at_cast(g, api, at_op2(g, api, "Max", at_cast(g, api, span, OX_DOUBLE),
                                  api->const_scalar_of(g, OX_DOUBLE, 0.0)),
                   OX_INT64);
    ox_vid count = at_op2(g, api, "Div", at_op2(g, api, "Add", span,
                                                 api->const_scalar_of(g, OX_INT64, (double)(step - 1))),
                          api->const_scalar_of(g, OX_INT64, (double)step));
    ox_vid ones = filled(g, api, at_unsqueeze(g, api, count, 0), 0, 1.0, OX_FLOAT);
    ox_vid idx = at_op1(g, api, "NonZero", ones);
    int64_t zero = 0;
    idx = at_squeeze(g, api, idx, &zero, 1);
    ox_vid y = at_op2(g, api, "Add", at_op2(g, api, "Mul", idx,
                                            api->const_scalar_of(g, OX_INT64, (double)step)),
                      start);
    if (y && dt != OX_INT64)
        y = at_cast(g, api, y, dt);
    return oxu_set_result(g, api, 0, y);
}

static const ox_param_decl p_factory[] = {AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                          OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_full[] = {AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                       AT_PARAM_OR("fill_value", OX_ARG_SCALAR, OX_ARG_TENSOR),
                                       OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_new[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                      OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_new_full[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR),
                                           AT_PARAM_OR("fill_value", OX_ARG_SCALAR, OX_ARG_TENSOR),
                                           OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_like[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_full_like[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            AT_PARAM_OR("fill_value", OX_ARG_SCALAR, OX_ARG_TENSOR),
                                            OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
/* arange(end), arange(start, end), arange(start, end, step): start 0, step 1. */
static const ox_param_decl p_arange[] = {
    {.name = "start", .kind = OX_ARG_SCALAR, .alt_kinds = OX_KIND_BIT(OX_ARG_TENSOR),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INT, .v = {.i = 0}}},
    AT_PARAM_OR("end", OX_ARG_SCALAR, OX_ARG_TENSOR),
    {.name = "step", .kind = OX_ARG_SCALAR, .alt_kinds = OX_KIND_BIT(OX_ARG_TENSOR),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INT, .v = {.i = 1}}},
    OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};

const ox_op_decl at_ops_factory[] = {
    OX_OP("aten::zeros", 9, p_factory, 1, sym_zeros),
    OX_OP("aten::ones", 9, p_factory, 1, sym_ones),
    OX_OP("aten::full", 9, p_full, 1, sym_full),
    OX_OP("aten::empty", 9, p_factory, 1, sym_empty),
    OX_OP("aten::new_zeros", 9, p_new, 1, sym_new_zeros),
    OX_OP("aten::new_ones", 9, p_new, 1, sym_new_ones),
    OX_OP("aten::new_full", 9, p_new_full, 1, sym_new_full),
    OX_OP("aten::new_empty", 9, p_new, 1, sym_new_zeros),
    OX_OP("aten::zeros_like", 9, p_like, 1, sym_zeros_like),
    OX_OP("aten::empty_like", 9, p_like, 1, sym_empty_like),
    OX_OP("aten::ones_like", 9, p_like, 1, sym_ones_like),
    OX_OP("aten::full_like", 9, p_full_like, 1, sym_full_like),
    OX_OP("aten::rand_like", 7, p_like, 1, sym_rand_like),
    OX_OP("aten::randn_like", 7, p_like, 1, sym_randn_like),
    OX_OP_EX("aten::arange", 9, p_arange, 1, sym_arange, 0u, check_arange),
};
AT_FAMILY_SIZE(at_ops_factory);
