/* Elementwise math beyond the four arithmetic ops: unary functions, pow,
 * clamp, min/max, comparisons, where and masked_fill.  A number where torch
 * takes a tensor or a scalar becomes a rank-0 constant of the tensor's type,
 * as torch's type promotion keeps the tensor's dtype. */
#include <math.h>
#include <string.h>

#include "aten_symbolics.h"
#include "aten_util.h"

static int done(ox_sym *g, const ox_api *api, ox_vid y)
{
    return y ? api->set_output(g, 0, y) : 1;
}

static int is_number(ox_arg_kind k)
{
    return k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL;
}

/* Argument `name` as a value: a tensor, or a number typed like `like`. */
static ox_vid operand(ox_sym *g, const ox_api *api, const char *name, ox_vid like)
{
    if (is_number(api->arg_kind(g, name))) {
        ox_vid c = api->scalar_like(g, api->arg_float(g, name, 0.0), like);
        if (!c)
            api->fail(g, "could not create the constant for '%s'", name);
        return c;
    }
    ox_vid v = api->arg_tensor(g, name);
    if (!v)
        api->fail(g, "argument '%s' is missing or None", name);
    return v;
}

static int unary(ox_sym *g, const ox_api *api, const char *type)
{
    return done(g, api, at_op1(g, api, type, api->arg_tensor(g, "self")));
}

int at_sym_exp(ox_sym *g, const ox_api *api) { return unary(g, api, "Exp"); }
int at_sym_log(ox_sym *g, const ox_api *api) { return unary(g, api, "Log"); }
int at_sym_sqrt(ox_sym *g, const ox_api *api) { return unary(g, api, "Sqrt"); }
int at_sym_neg(ox_sym *g, const ox_api *api) { return unary(g, api, "Neg"); }
int at_sym_abs(ox_sym *g, const ox_api *api) { return unary(g, api, "Abs"); }

int at_sym_reciprocal(ox_sym *g, const ox_api *api) { return unary(g, api, "Reciprocal"); }
int at_sym_erf(ox_sym *g, const ox_api *api) { return unary(g, api, "Erf"); }
int at_sym_floor(ox_sym *g, const ox_api *api) { return unary(g, api, "Floor"); }
int at_sym_ceil(ox_sym *g, const ox_api *api) { return unary(g, api, "Ceil"); }
int at_sym_sin(ox_sym *g, const ox_api *api) { return unary(g, api, "Sin"); }
int at_sym_cos(ox_sym *g, const ox_api *api) { return unary(g, api, "Cos"); }
int at_sym_sign(ox_sym *g, const ox_api *api) { return unary(g, api, "Sign"); }

/* rsub(self, other, alpha) = other - alpha * self (`1 - x`). */
int at_sym_rsub(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    double alpha = api->arg_float(g, "alpha", 1.0);
    if (x && alpha != 1.0) {
        ox_vid a = api->scalar_like(g, alpha, x);
        if (!a)
            return api->fail(g, "could not create the constant for 'alpha'");
        x = at_op2(g, api, "Mul", x, a);
    }
    return done(g, api, at_op2(g, api, "Sub", operand(g, api, "other", x), x));
}

int at_sym_rsqrt(ox_sym *g, const ox_api *api)
{
    return done(g, api,
                at_op1(g, api, "Reciprocal", at_op1(g, api, "Sqrt", api->arg_tensor(g, "self"))));
}

/* Integer operands of Pow, Max, Min and Clip are allowed from opset 12. */
static int integers_need_lowering(ox_sym *g, const ox_api *api, ox_vid x)
{
    return api->opset(g) < 12 && !at_is_floating(api->dtype(g, x));
}

static ox_vid where(ox_sym *g, const ox_api *api, ox_vid cond, ox_vid a, ox_vid b)
{
    if (!cond || !a || !b)
        return 0;
    ox_vid in[3] = {cond, a, b};
    return at_out(g, api, api->op(g, "Where", 3, in, 1), "Where");
}

int at_sym_pow(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid e = operand(g, api, "exponent", x);
    if (!integers_need_lowering(g, api, x))
        return done(g, api, at_op2(g, api, "Pow", x, e));
    /* in doubles (exact below 2^53), cast back to x's type */
    ox_vid p = at_op2(g, api, "Pow", at_cast(g, api, x, OX_DOUBLE), at_cast(g, api, e, OX_DOUBLE));
    return done(g, api, at_cast(g, api, p, api->dtype(g, x)));
}

/* min/max elementwise -> Min/Max (torch.maximum, torch.max(a, b)); for
 * integers before opset 12, Where(a > b, a, b), exact. */
static int min_max(ox_sym *g, const ox_api *api, const char *type, const char *pick)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid y = operand(g, api, "other", x);
    if (!integers_need_lowering(g, api, x))
        return done(g, api, at_op2(g, api, type, x, y));
    return done(g, api, where(g, api, at_op2(g, api, pick, x, y), x, y));
}

int at_sym_maximum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Max", "Greater");
}

int at_sym_minimum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Min", "Less");
}

/* clamp of integers before opset 12 (Clip takes floats only there):
 * Where(x < min, min, x), then the same for max. */
static int clamp_integers(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_vid self = x; /* the bounds take its type */
    if (is_number(api->arg_kind(g, "min"))) {
        ox_vid lo = operand(g, api, "min", self);
        x = where(g, api, at_op2(g, api, "Less", x, lo), lo, x);
    }
    if (x && is_number(api->arg_kind(g, "max"))) {
        ox_vid hi = operand(g, api, "max", self);
        x = where(g, api, at_op2(g, api, "Greater", x, hi), hi, x);
    }
    return done(g, api, x);
}

/* clamp before opset 11: Clip's bounds are attributes (absent = unbounded). */
int at_sym_clamp_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (integers_need_lowering(g, api, x))
        return clamp_integers(g, api, x);
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n && is_number(api->arg_kind(g, "min")))
        api->attr_float(n, "min", api->arg_float(g, "min", 0.0));
    if (n && is_number(api->arg_kind(g, "max")))
        api->attr_float(n, "max", api->arg_float(g, "max", 0.0));
    return done(g, api, at_out(g, api, n, "Clip"));
}

/* From opset 11 the bounds are optional inputs typed like x. */
int at_sym_clamp_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (integers_need_lowering(g, api, x))
        return clamp_integers(g, api, x);
    ox_vid in[3] = {x, 0, 0};
    if (is_number(api->arg_kind(g, "min")) && !(in[1] = operand(g, api, "min", x)))
        return 1;
    if (is_number(api->arg_kind(g, "max")) && !(in[2] = operand(g, api, "max", x)))
        return 1;
    return done(g, api, at_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip"));
}

/* Equal takes floats only from opset 11: below, a == b is not (a < b or
 * a > b), exact for every non-NaN pair. */
static ox_vid equal(ox_sym *g, const ox_api *api, ox_vid a, ox_vid b)
{
    ox_dtype t = api->dtype(g, a);
    int is_float = t == OX_FLOAT || t == OX_DOUBLE || t == OX_FLOAT16;
    if (api->opset(g) >= 11 || !is_float)
        return at_op2(g, api, "Equal", a, b);
    ox_vid neq = at_op2(g, api, "Or", at_op2(g, api, "Less", a, b), at_op2(g, api, "Greater", a, b));
    return at_op1(g, api, "Not", neq);
}

static int compare(ox_sym *g, const ox_api *api, const char *kind)
{
    ox_vid a = api->arg_tensor(g, "self");
    ox_vid b = operand(g, api, "other", a);
    if (!a || !b)
        return 1;
    ox_vid y;
    if (strcmp(kind, "eq") == 0)
        y = equal(g, api, a, b);
    else if (strcmp(kind, "ne") == 0)
        y = at_op1(g, api, "Not", equal(g, api, a, b));
    else if (strcmp(kind, "gt") == 0)
        y = at_op2(g, api, "Greater", a, b);
    else if (strcmp(kind, "lt") == 0)
        y = at_op2(g, api, "Less", a, b);
    else if (strcmp(kind, "ge") == 0) /* GreaterOrEqual only from opset 12 */
        y = at_op1(g, api, "Not", at_op2(g, api, "Less", a, b));
    else
        y = at_op1(g, api, "Not", at_op2(g, api, "Greater", a, b));
    return done(g, api, y);
}

int at_sym_eq(ox_sym *g, const ox_api *api) { return compare(g, api, "eq"); }
int at_sym_ne(ox_sym *g, const ox_api *api) { return compare(g, api, "ne"); }
int at_sym_gt(ox_sym *g, const ox_api *api) { return compare(g, api, "gt"); }
int at_sym_lt(ox_sym *g, const ox_api *api) { return compare(g, api, "lt"); }
int at_sym_ge(ox_sym *g, const ox_api *api) { return compare(g, api, "ge"); }
int at_sym_le(ox_sym *g, const ox_api *api) { return compare(g, api, "le"); }

/* where(condition, self, other): either branch may be a number. */
int at_sym_where(ox_sym *g, const ox_api *api)
{
    ox_vid c = api->arg_tensor(g, "condition");
    ox_vid x = api->arg_tensor(g, "self"), y = api->arg_tensor(g, "other");
    if (!x && !y)
        return api->fail(g, "arguments 'self' and 'other' are both numbers; one must be a tensor");
    if (!x && !(x = operand(g, api, "self", y)))
        return 1;
    if (!y && !(y = operand(g, api, "other", x)))
        return 1;
    ox_vid in[3] = {c, x, y};
    if (!c)
        return api->fail(g, "argument 'condition' is missing or None");
    return done(g, api, at_out(g, api, api->op(g, "Where", 3, in, 1), "Where"));
}

int at_sym_masked_fill(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid mask = api->arg_tensor(g, "mask");
    if (!mask)
        return api->fail(g, "argument 'mask' is missing or None");
    if (api->dtype(g, mask) != OX_BOOL)
        mask = at_cast(g, api, mask, OX_BOOL);
    ox_vid in[3] = {mask, operand(g, api, "value", x), x};
    if (!in[0] || !in[1])
        return 1;
    return done(g, api, at_out(g, api, api->op(g, "Where", 3, in, 1), "Where"));
}

/* Tensor.to(dtype), .float(), .long() ... -> Cast. */
int at_sym_to(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "dtype") != OX_ARG_DTYPE)
        return api->fail(g, "argument 'dtype' is not recorded; only dtype conversions are exported");
    ox_vid x = api->arg_tensor(g, "self");
    return done(g, api, at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT)));
}

/* Logical ops on bool tensors (attention masks): Or / And / Xor / Not. */
static int logical(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid a = api->arg_tensor(g, "self"), b = api->arg_tensor(g, "other");
    if (!b)
        return api->fail(g, "argument 'other' is missing or None");
    if (api->dtype(g, a) != OX_BOOL)
        a = at_cast(g, api, a, OX_BOOL);
    if (api->dtype(g, b) != OX_BOOL)
        b = at_cast(g, api, b, OX_BOOL);
    return done(g, api, at_op2(g, api, type, a, b));
}

int at_sym_logical_or(ox_sym *g, const ox_api *api) { return logical(g, api, "Or"); }
int at_sym_logical_and(ox_sym *g, const ox_api *api) { return logical(g, api, "And"); }
int at_sym_logical_xor(ox_sym *g, const ox_api *api) { return logical(g, api, "Xor"); }

int at_sym_logical_not(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self");
    if (api->dtype(g, a) != OX_BOOL)
        a = at_cast(g, api, a, OX_BOOL);
    return done(g, api, at_op1(g, api, "Not", a));
}
