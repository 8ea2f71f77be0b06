/* Pointwise math: unary functions, pow, maximum/minimum, clamp, and the dtype
 * conversion aten::to.  A number where torch takes a tensor or a scalar
 * becomes a rank-0 constant of the tensor's type, as torch's type promotion
 * keeps the tensor's dtype (at_operand, shared with the arithmetic and
 * comparison families). */
#include <math.h>
#include <string.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

int at_is_number(ox_arg_kind k)
{
    return k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL;
}

/* Argument `name` as a value: a tensor, or a number typed like `like`. */
ox_vid at_operand(ox_sym *g, const ox_api *api, const char *name, ox_vid like)
{
    if (at_is_number(api->arg_kind(g, name))) {
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
    return oxu_set_result(g, api, 0, at_op1(g, api, type, api->arg_tensor(g, "self")));
}

static int sym_exp(ox_sym *g, const ox_api *api) { return unary(g, api, "Exp"); }
static int sym_log(ox_sym *g, const ox_api *api) { return unary(g, api, "Log"); }
static int sym_sqrt(ox_sym *g, const ox_api *api) { return unary(g, api, "Sqrt"); }
static int sym_neg(ox_sym *g, const ox_api *api) { return unary(g, api, "Neg"); }
static int sym_abs(ox_sym *g, const ox_api *api) { return unary(g, api, "Abs"); }

/* 1 / x of an integer tensor is floating in torch: x in the recorded type
 * first (float32 unless the host says otherwise). */
static int sym_reciprocal(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && at_is_integer(api->dtype(g, x))) {
        ox_dtype to = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
        x = oxu_cast(g, api, x, at_is_floating(to) ? to : OX_FLOAT);
    }
    return oxu_set_result(g, api, 0, at_op1(g, api, "Reciprocal", x));
}
static int sym_erf(ox_sym *g, const ox_api *api) { return unary(g, api, "Erf"); }
static int sym_floor(ox_sym *g, const ox_api *api) { return unary(g, api, "Floor"); }
static int sym_ceil(ox_sym *g, const ox_api *api) { return unary(g, api, "Ceil"); }
static int sym_sin(ox_sym *g, const ox_api *api) { return unary(g, api, "Sin"); }
static int sym_cos(ox_sym *g, const ox_api *api) { return unary(g, api, "Cos"); }
static int sym_sign(ox_sym *g, const ox_api *api) { return unary(g, api, "Sign"); }
static int sym_atan(ox_sym *g, const ox_api *api) { return unary(g, api, "Atan"); }
static int sym_acos(ox_sym *g, const ox_api *api) { return unary(g, api, "Acos"); }
static int sym_asin(ox_sym *g, const ox_api *api) { return unary(g, api, "Asin"); }
static int sym_tan(ox_sym *g, const ox_api *api) { return unary(g, api, "Tan"); }

static int sym_rsqrt(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0,
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

static int sym_pow(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid e = at_operand(g, api, "exponent", x);
    if (!integers_need_lowering(g, api, x))
        return oxu_set_result(g, api, 0, at_op2(g, api, "Pow", x, e));
    /* in doubles (exact below 2^53), cast back to x's type */
    ox_vid p = at_op2(g, api, "Pow", at_cast(g, api, x, OX_DOUBLE), at_cast(g, api, e, OX_DOUBLE));
    return oxu_set_result(g, api, 0, at_cast(g, api, p, api->dtype(g, x)));
}

/* min/max elementwise -> Min/Max (torch.maximum, torch.max(a, b)); for
 * integers before opset 12, Where(a > b, a, b), exact. */
static int min_max(ox_sym *g, const ox_api *api, const char *type, const char *pick)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid y = at_operand(g, api, "other", x);
    if (!integers_need_lowering(g, api, x))
        return oxu_set_result(g, api, 0, at_op2(g, api, type, x, y));
    return oxu_set_result(g, api, 0, where(g, api, at_op2(g, api, pick, x, y), x, y));
}

static int sym_maximum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Max", "Greater");
}

static int sym_minimum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Min", "Less");
}

/* clamp of integers before opset 12 (Clip takes floats only there):
 * Where(x < min, min, x), then the same for max. */
static int clamp_integers(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_vid self = x; /* the bounds take its type */
    if (at_is_number(api->arg_kind(g, "min"))) {
        ox_vid lo = at_operand(g, api, "min", self);
        x = where(g, api, at_op2(g, api, "Less", x, lo), lo, x);
    }
    if (x && at_is_number(api->arg_kind(g, "max"))) {
        ox_vid hi = at_operand(g, api, "max", self);
        x = where(g, api, at_op2(g, api, "Greater", x, hi), hi, x);
    }
    return oxu_set_result(g, api, 0, x);
}

/* clamp before opset 11: Clip's bounds are attributes (absent = unbounded). */
static int sym_clamp_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (integers_need_lowering(g, api, x))
        return clamp_integers(g, api, x);
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n && at_is_number(api->arg_kind(g, "min")))
        api->attr_float(n, "min", api->arg_float(g, "min", 0.0));
    if (n && at_is_number(api->arg_kind(g, "max")))
        api->attr_float(n, "max", api->arg_float(g, "max", 0.0));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Clip"));
}

/* From opset 11 the bounds are optional inputs typed like x. */
static int sym_clamp_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (integers_need_lowering(g, api, x))
        return clamp_integers(g, api, x);
    ox_vid in[3] = {x, 0, 0};
    if (at_is_number(api->arg_kind(g, "min")) && !(in[1] = at_operand(g, api, "min", x)))
        return 1;
    if (at_is_number(api->arg_kind(g, "max")) && !(in[2] = at_operand(g, api, "max", x)))
        return 1;
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip"));
}

/* Tensor.to(dtype), .float(), .long() ... -> Cast; dtype is required (the
 * host records x.to(other) and x.to(device) as a dtype or nothing). */
static int sym_to(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT)));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_pow[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM("exponent", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_other[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_clamp[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM_NULL("min", OX_ARG_SCALAR),
                                        OX_PARAM_NULL("max", OX_ARG_SCALAR)};
static const ox_param_decl p_to[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dtype", OX_ARG_DTYPE)};

const ox_op_decl at_ops_math[] = {
    OX_OP("aten::exp", 7, p_self, 1, sym_exp),
    OX_OP("aten::log", 7, p_self, 1, sym_log),
    OX_OP("aten::sqrt", 7, p_self, 1, sym_sqrt),
    OX_OP("aten::rsqrt", 7, p_self, 1, sym_rsqrt),
    OX_OP("aten::reciprocal", 7, p_self, 1, sym_reciprocal),
    OX_OP("aten::erf", 9, p_self, 1, sym_erf),
    OX_OP("aten::floor", 7, p_self, 1, sym_floor),
    OX_OP("aten::ceil", 7, p_self, 1, sym_ceil),
    OX_OP("aten::sin", 7, p_self, 1, sym_sin),
    OX_OP("aten::cos", 7, p_self, 1, sym_cos),
    OX_OP("aten::sign", 9, p_self, 1, sym_sign),
    OX_OP("aten::atan", 7, p_self, 1, sym_atan),
    OX_OP("aten::acos", 7, p_self, 1, sym_acos),
    OX_OP("aten::asin", 7, p_self, 1, sym_asin),
    OX_OP("aten::tan", 7, p_self, 1, sym_tan),
    OX_OP("aten::neg", 7, p_self, 1, sym_neg),
    OX_OP("aten::abs", 7, p_self, 1, sym_abs),
    OX_OP("aten::pow", 7, p_pow, 1, sym_pow),
    OX_OP("aten::maximum", 9, p_other, 1, sym_maximum),
    OX_OP("aten::minimum", 9, p_other, 1, sym_minimum),
    OX_OP("aten::clamp", 9, p_clamp, 1, sym_clamp_9),
    OX_OP("aten::clamp", 11, p_clamp, 1, sym_clamp_11),
    OX_OP("aten::to", 7, p_to, 1, sym_to),
};
AT_FAMILY_SIZE(at_ops_math);
