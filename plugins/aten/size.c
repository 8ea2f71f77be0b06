/* Sizes as traced values: aten::size / aten::numel read a tensor's size at run
 * time (rank-0 int64), integer arithmetic on them (floor_divide, remainder),
 * and the factories whose sizes may be such values (zeros/ones/full with a
 * size tensor, *_like, arange with traced bounds).  A size argument recorded
 * as a tensor is a 1-D int64 tensor the host built from traced scalars; as an
 * int list it is a constant of the file. */
#include <stdint.h>
#include <string.h>

#include "aten_symbolics.h"
#include "aten_util.h"

static int done(ox_sym *g, const ox_api *api, ox_vid y)
{
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_size(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    ox_vid shape = at_op1(g, api, "Shape", x);
    ox_vid idx = api->constant(g, OX_INT64, 0, NULL, &dim);
    if (!idx)
        return api->fail(g, "could not create the index constant");
    ox_vid in[2] = {shape, idx};
    if (!shape)
        return 1;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return done(g, api, at_out(g, api, n, "Gather"));
}

int at_sym_numel(ox_sym *g, const ox_api *api)
{
    return done(g, api, at_op1(g, api, "Size", api->arg_tensor(g, "self")));
}

/* `other` as a tensor of self's dtype (a recorded number becomes a constant). */
static ox_vid other_like(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_arg_kind k = api->arg_kind(g, "other");
    if (k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL) {
        ox_vid v = api->scalar_like(g, api->arg_float(g, "other", 1.0), x);
        if (!v)
            api->fail(g, "could not create the constant for 'other'");
        return v;
    }
    ox_vid o = api->arg_tensor(g, "other");
    if (!o) {
        api->fail(g, "argument 'other' is missing or None");
        return 0;
    }
    if (api->dtype(g, o) != api->dtype(g, x) && api->dtype(g, x) != OX_UNDEFINED)
        o = at_cast(g, api, o, api->dtype(g, x));
    return o;
}

/* Floor division.  ONNX Div truncates integers toward zero; torch floors, so a
 * quotient whose exact value is negative and inexact is one less. */
static ox_vid floor_div(ox_sym *g, const ox_api *api, ox_vid a, ox_vid b)
{
    if (!a || !b)
        return 0;
    if (!at_is_integer(api->dtype(g, a)))
        return at_op1(g, api, "Floor", at_op2(g, api, "Div", a, b));
    ox_vid q = at_op2(g, api, "Div", a, b);
    ox_vid inexact = at_op1(g, api, "Not", at_op2(g, api, "Equal", at_op2(g, api, "Mul", q, b), a));
    ox_vid zero = api->scalar_like(g, 0.0, a);
    ox_vid neg = at_op2(g, api, "Xor", at_op2(g, api, "Less", a, zero), at_op2(g, api, "Less", b, zero));
    ox_vid fix = at_cast(g, api, at_op2(g, api, "And", inexact, neg), api->dtype(g, a));
    return at_op2(g, api, "Sub", q, fix);
}

int at_sym_floor_divide(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return done(g, api, floor_div(g, api, x, other_like(g, api, x)));
}

/* torch.remainder has the divisor's sign: a - floor(a / b) * b. */
int at_sym_remainder(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid b = other_like(g, api, x);
    ox_vid q = floor_div(g, api, x, b);
    return done(g, api, at_op2(g, api, "Sub", x, at_op2(g, api, "Mul", q, b)));
}

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

/* A tensor of `shape` filled with `value`, of element type `dt`: ConstantOfShape
 * in float, int64 or bool, cast when the dtype is another. */
static ox_vid filled(ox_sym *g, const ox_api *api, ox_vid shape, int rank0, double value,
                     ox_dtype dt)
{
    ox_dtype base = dt == OX_BOOL ? OX_BOOL : at_is_integer(dt) ? OX_INT64
                                         : dt == OX_DOUBLE   ? OX_DOUBLE
                                                             : OX_FLOAT;
    union {
        float f;
        double d;
        int64_t i;
        uint8_t b;
    } u;
    memset(&u, 0, sizeof u);
    if (base == OX_FLOAT)
        u.f = (float)value;
    else if (base == OX_DOUBLE)
        u.d = value;
    else if (base == OX_INT64)
        u.i = (int64_t)value;
    else
        u.b = value != 0.0;
    ox_vid y;
    if (rank0) {
        y = api->constant(g, base, 0, NULL, &u);
        if (!y)
            api->fail(g, "could not create the constant");
    } else {
        if (!shape)
            return 0;
        ox_onode *n = api->op(g, "ConstantOfShape", 1, &shape, 1);
        int64_t one = 1;
        if (n)
            api->attr_tensor(n, "value", base, 1, &one, &u);
        y = at_out(g, api, n, "ConstantOfShape");
    }
    if (y && base != dt && dt != OX_UNDEFINED)
        y = at_cast(g, api, y, dt);
    return y;
}

static ox_dtype dtype_arg(ox_sym *g, const ox_api *api, ox_dtype dflt)
{
    if (api->arg_kind(g, "dtype") != OX_ARG_DTYPE)
        return dflt;
    return (ox_dtype)api->arg_int(g, "dtype", dflt);
}

static int factory(ox_sym *g, const ox_api *api, double value)
{
    int rank0;
    ox_vid s = shape_arg(g, api, "size", &rank0);
    if (!s && !rank0)
        return 1;
    return done(g, api, filled(g, api, s, rank0, value, dtype_arg(g, api, OX_FLOAT)));
}

int at_sym_zeros(ox_sym *g, const ox_api *api)
{
    return factory(g, api, 0.0);
}

int at_sym_ones(ox_sym *g, const ox_api *api)
{
    return factory(g, api, 1.0);
}

int at_sym_full(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "fill_value") == OX_ARG_TENSOR)
        return api->fail(g, "argument 'fill_value' is a tensor; full is exported with a number "
                            "(use torch.ones(...) * value to fill with a computed value)");
    return factory(g, api, api->arg_float(g, "fill_value", 0.0));
}

static int like(ox_sym *g, const ox_api *api, double value)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype dt = dtype_arg(g, api, api->dtype(g, x));
    if (api->rank(g, x) == 0)
        return done(g, api, filled(g, api, 0, 1, value, dt));
    return done(g, api, filled(g, api, at_op1(g, api, "Shape", x), 0, value, dt));
}

int at_sym_zeros_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, 0.0);
}

int at_sym_ones_like(ox_sym *g, const ox_api *api)
{
    return like(g, api, 1.0);
}

int at_sym_full_like(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "fill_value") == OX_ARG_TENSOR)
        return api->fail(g, "argument 'fill_value' is a tensor; full_like is exported with a "
                            "number");
    return like(g, api, api->arg_float(g, "fill_value", 0.0));
}

/* rand_like / randn_like: ONNX's generators draw other numbers than torch's,
 * from the same distribution. */
static int random_like(ox_sym *g, const ox_api *api, const char *op_type)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype dt = dtype_arg(g, api, api->dtype(g, x));
    ox_dtype gen = dt == OX_DOUBLE || dt == OX_FLOAT16 ? dt : OX_FLOAT;
    ox_onode *n = api->op(g, op_type, 1, &x, 1);
    if (n)
        api->attr_int(n, "dtype", gen);
    ox_vid y = at_out(g, api, n, op_type);
    if (y && gen != dt)
        y = at_cast(g, api, y, dt);
    return done(g, api, y);
}

int at_sym_rand_like(ox_sym *g, const ox_api *api)
{
    return random_like(g, api, "RandomUniformLike");
}

int at_sym_randn_like(ox_sym *g, const ox_api *api)
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

/* arange with traced bounds: Range from opset 11 (in the output's type, or
 * float for types Range lacks); before 11, integer ranges as the indices of
 * NonZero over a ones tensor of the element count. */
int at_sym_arange(ox_sym *g, const ox_api *api)
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
        return done(g, api, y);
    }
    if (!integral || api->arg_kind(g, "step") == OX_ARG_TENSOR ||
        api->arg_kind(g, "start") == OX_ARG_FLOAT || api->arg_kind(g, "step") == OX_ARG_FLOAT)
        return api->fail(g, "arange with a traced bound before opset 11 is exported for integer "
                            "ranges with a constant step only; export with opset 11 or later");
    int64_t step = api->arg_int(g, "step", 1);
    if (step <= 0)
        return api->fail(g, "arange with a traced bound before opset 11 needs a positive step "
                            "(got %lld); export with opset 11 or later",
                         (long long)step);
    ox_vid start = bound(g, api, "start", 0.0, OX_INT64), end = bound(g, api, "end", 0.0, OX_INT64);
    if (!start || !end)
        return 1;
    /* count = max(ceil((end - start) / step), 0), all non-negative here */
    ox_vid span = at_op2(g, api, "Sub", end, start);
    span = at_op2(g, api, "Max", span, api->const_scalar_of(g, OX_INT64, 0.0));
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
    return done(g, api, y);
}
