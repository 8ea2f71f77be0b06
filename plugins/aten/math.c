/* Pointwise math: unary functions, pow, maximum/minimum, clamp, the dtype
 * conversion aten::to, and logarithms to other bases, round, fmod, the nan/inf
 * tests, square, lerp and addcmul/addcdiv.  A number where torch takes a tensor or a scalar
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

static ox_vid as_floating(ox_sym *g, const ox_api *api, ox_vid x)
{
    return at_as_floating(g, api, x);
}

static int floating_unary(ox_sym *g, const ox_api *api, const char *type)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, type, as_floating(g, api, api->arg_tensor(g, "self"))));
}

static int sym_exp(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Exp"); }
static int sym_log(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Log"); }
static int sym_sqrt(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Sqrt"); }
/* Neg takes no unsigned type: -x of a uint8 tensor (torch wraps it to
 * 256 - x) negates in the signed type that holds it, cast back, which wraps
 * the same way. */
static int sym_neg(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype t = x ? api->dtype(g, x) : OX_UNDEFINED;
    ox_dtype k = t == OX_UINT8 || t == OX_UINT16 ? OX_INT32
                 : t == OX_UINT32 || t == OX_UINT64 ? OX_INT64 : t;
    return oxu_set_result(g, api, 0, oxu_cast_to(g, api, at_op1(g, api, "Neg", oxu_cast_to(g, api, x, k)), t));
}
static int sym_abs(ox_sym *g, const ox_api *api) { return unary(g, api, "Abs"); }

static int sym_reciprocal(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Reciprocal"); }
/* floor / ceil of an integer tensor is the tensor (ONNX's Floor and Ceil take floats) */
static int integral_or_unary(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && at_is_integer(api->dtype(g, x)))
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    return unary(g, api, type);
}

static int sym_floor(ox_sym *g, const ox_api *api) { return integral_or_unary(g, api, "Floor"); }
static int sym_ceil(ox_sym *g, const ox_api *api) { return integral_or_unary(g, api, "Ceil"); }
static int sym_sin(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Sin"); }
static int sym_cos(ox_sym *g, const ox_api *api) { return floating_unary(g, api, "Cos"); }
/* sign of a bool tensor is the tensor (torch keeps bool; Sign takes no bool) */
static int sym_sign(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && api->dtype(g, x) == OX_BOOL)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    return unary(g, api, "Sign");
}
/* ONNX Runtime has no float64 Atan, Asin or Acos: in float64 they are
 * at_atan2's float64 series, atan(x) = atan2(x, 1), asin(x) =
 * atan2(x, sqrt((1 - x)(1 + x))), acos(x) = atan2(sqrt((1 - x)(1 + x)), x)
 * (1 - x is exact near 1, so acos keeps its precision there; |x| > 1 is a
 * nan as torch's), within a few ulps of torch's. */
static int inverse_trig(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* at_atan2 needs Where and IsNaN (opset 9): below, the file names the
     * op, as ONNX has it, and runs where a runtime has the kernel */
    if (!x || api->dtype(g, x) != OX_DOUBLE || api->opset(g) < 9)
        return floating_unary(g, api, type);
    ox_vid one = oxu_scalar_like(g, api, 1.0, x);
    if (type[1] == 't') /* Atan */
        return oxu_set_result(g, api, 0, at_atan2(g, api, x, one));
    ox_vid c = at_op1(g, api, "Sqrt", at_op2(g, api, "Mul", at_op2(g, api, "Sub", one, x),
                                              at_op2(g, api, "Add", one, x)));
    return oxu_set_result(g, api, 0, type[1] == 's' ? at_atan2(g, api, x, c) : at_atan2(g, api, c, x));
}
static int sym_atan(ox_sym *g, const ox_api *api) { return inverse_trig(g, api, "Atan"); }
static int sym_acos(ox_sym *g, const ox_api *api) { return inverse_trig(g, api, "Acos"); }
static int sym_asin(ox_sym *g, const ox_api *api) { return inverse_trig(g, api, "Asin"); }
/* ONNX Runtime has no float64 Tan either; a float64 tan is Sin / Cos, both
 * of which it runs in float64, within a few ulps of torch's. */
static int sym_tan(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && api->dtype(g, x) == OX_DOUBLE)
        return oxu_set_result(g, api, 0, at_op2(g, api, "Div", at_op1(g, api, "Sin", x),
                                                at_op1(g, api, "Cos", x)));
    return floating_unary(g, api, "Tan");
}

static int sym_rsqrt(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0,
                at_op1(g, api, "Reciprocal",
                       at_op1(g, api, "Sqrt", as_floating(g, api, api->arg_tensor(g, "self")))));
}

/* Integer operands of Pow, Max, Min and Clip are allowed from opset 12. */
static int integers_need_lowering(ox_sym *g, const ox_api *api, ox_vid x)
{
    return api->opset(g) < 12 && !at_is_floating(api->dtype(g, x));
}

/* Pow's base takes int32 and int64 only (and no integer before opset 12):
 * other integer bases (int8, uint8, int16 ...) and bool compute in doubles. */
static int pow_needs_lowering(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_dtype t = api->dtype(g, x);
    return !at_is_floating(t) && (api->opset(g) < 12 || (t != OX_INT32 && t != OX_INT64));
}

static ox_vid where(ox_sym *g, const ox_api *api, ox_vid cond, ox_vid a, ox_vid b)
{
    return oxu_where(g, api, cond, a, b);
}

/* Max or Min (op_type) of a and b, of one type, in the type ONNX Runtime has
 * a kernel for (int16 as int32), cast back. */
static ox_vid max_min_op(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a, ox_vid b)
{
    ox_dtype t = a ? api->dtype(g, a) : OX_UNDEFINED;
    ox_dtype k = oxu_ort_kernel_type(op_type, t);
    return oxu_cast_to(g, api, at_op2(g, api, op_type, oxu_cast_to(g, api, a, k), oxu_cast_to(g, api, b, k)),
                       t);
}

/* Erf; in float64, where ONNX Runtime has no Erf kernel (and a float32 round
 * trip would keep 7 of the 16 digits), spelled out in float64: for |x| < 2.5
 * the Taylor series 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)), 38 terms in
 * Horner form; above, 1 - erfc(|x|) with erfc's continued fraction
 * exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), 25 levels,
 * signed like x.  tests/pytorch/test_float64_erf.py holds it within 64 units
 * in the last place of math.erf over [-8, 8].
 * Each branch sees its inputs clamped to its own range, so the branch Where
 * does not take never overflows. */
#define ERF_SPLIT 2.5
#define ERF_TAYLOR_TERMS 38
#define ERF_CF_LEVELS 25

ox_vid at_erf(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (!x || api->dtype(g, x) != OX_DOUBLE)
        return at_op1(g, api, "Erf", x);
    ox_vid ax = at_op1(g, api, "Abs", x);
    ox_vid split = oxu_scalar(g, api, OX_DOUBLE, ERF_SPLIT);
    ox_vid neg_split = oxu_scalar(g, api, OX_DOUBLE, -ERF_SPLIT);

    ox_vid xt = at_op2(g, api, "Min", at_op2(g, api, "Max", x, neg_split), split);
    ox_vid x2 = at_op2(g, api, "Mul", xt, xt);
    double coef[ERF_TAYLOR_TERMS], factorial = 1.0;
    for (int n = 0; n < ERF_TAYLOR_TERMS; n++) {
        if (n > 0)
            factorial *= n;
        coef[n] = (n % 2 ? -1.0 : 1.0) / (factorial * (2 * n + 1));
    }
    ox_vid sum = oxu_scalar(g, api, OX_DOUBLE, coef[ERF_TAYLOR_TERMS - 1]);
    for (int n = ERF_TAYLOR_TERMS - 2; n >= 0; n--)
        sum = at_op2(g, api, "Add", at_op2(g, api, "Mul", sum, x2),
                     oxu_scalar(g, api, OX_DOUBLE, coef[n]));
    ox_vid taylor = at_op2(g, api, "Mul", at_op2(g, api, "Mul", xt, sum),
                           oxu_scalar(g, api, OX_DOUBLE, M_2_SQRTPI));

    ox_vid ac = at_op2(g, api, "Max", ax, split);
    ox_vid cf = ac;
    for (int n = ERF_CF_LEVELS; n >= 1; n--)
        cf = at_op2(g, api, "Add", ac,
                    at_op2(g, api, "Div", oxu_scalar(g, api, OX_DOUBLE, n / 2.0), cf));
    ox_vid gauss = at_op1(g, api, "Exp", at_op1(g, api, "Neg", at_op2(g, api, "Mul", ac, ac)));
    ox_vid erfc = at_op2(g, api, "Div",
                         at_op2(g, api, "Mul", gauss, oxu_scalar(g, api, OX_DOUBLE, M_2_SQRTPI / 2.0)),
                         cf);
    ox_vid tail = at_op2(g, api, "Mul", at_op1(g, api, "Sign", x),
                         at_op2(g, api, "Sub", oxu_scalar(g, api, OX_DOUBLE, 1.0), erfc));
    return where(g, api, at_op2(g, api, "Less", ax, split), taylor, tail);
}

static int sym_erf(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_erf(g, api, as_floating(g, api, api->arg_tensor(g, "self"))));
}

static int sym_pow(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "self") != OX_ARG_TENSOR) {
        /* pow.Scalar, a number to a tensor's power (torch.pow(2.0, x)): in doubles, the
         * result cast to the type the host recorded (float32 for 2.0 ** int_x) */
        ox_vid e = api->arg_tensor(g, "exponent");
        ox_vid base = api->const_scalar_of(g, OX_DOUBLE, api->arg_float(g, "self", 1.0));
        if (!e || !base)
            return api->fail(g, "pow of a number needs a tensor exponent");
        return oxu_set_result_recorded(g, api, 0,
                                       at_op2(g, api, "Pow", base, at_cast(g, api, e, OX_DOUBLE)));
    }
    /* base and exponent in torch's promoted type (an int tensor to the power 0.5 is
     * float), one type as Pow before opset 12 wants */
    static const char *const names[] = {"self", "exponent"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    ox_vid x = v[0], e = v[1];
    if (!pow_needs_lowering(g, api, x))
        return oxu_set_result_recorded(g, api, 0, at_op2(g, api, "Pow", x, e));
    /* in doubles (exact below 2^53), cast back to the recorded type */
    ox_vid p = at_op2(g, api, "Pow", at_cast(g, api, x, OX_DOUBLE), at_cast(g, api, e, OX_DOUBLE));
    return oxu_set_result_recorded(g, api, 0, p);
}

/* min/max elementwise -> Min/Max (torch.maximum, torch.max(a, b)), both
 * operands in torch's promoted type (maximum(int_tensor, float_tensor) is
 * float); for integers before opset 12, Where(a > b, a, b), exact. */
static int min_max(ox_sym *g, const ox_api *api, const char *type, const char *pick)
{
    static const char *const names[] = {"self", "other"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    ox_vid x = v[0], y = v[1];
    if (api->dtype(g, x) == OX_BOOL) /* Max/Min take no bool: or / and are the same */
        return oxu_set_result_recorded(g, api, 0,
                                       at_op2(g, api, strcmp(type, "Max") == 0 ? "Or" : "And", x, y));
    if (!integers_need_lowering(g, api, x))
        return oxu_set_result_recorded(g, api, 0, max_min_op(g, api, type, x, y));
    return oxu_set_result_recorded(g, api, 0, where(g, api, at_op2(g, api, pick, x, y), x, y));
}

static int sym_maximum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Max", "Greater");
}

static int sym_minimum(ox_sym *g, const ox_api *api)
{
    return min_max(g, api, "Min", "Less");
}

int at_elementwise_max_min(ox_sym *g, const ox_api *api, int max)
{
    return min_max(g, api, max ? "Max" : "Min", max ? "Greater" : "Less");
}

/* Bound x below by lo and above by hi (either 0: absent), values of one
 * type: Max then Min, or for integers before opset 12 (Max/Min take floats
 * only there) Where(x < lo, lo, x) and the same for hi, exact.  Both forms
 * broadcast x against tensor bounds, as torch does. */
static ox_vid clamp_between(ox_sym *g, const ox_api *api, ox_vid x, ox_vid lo, ox_vid hi)
{
    int where_form = integers_need_lowering(g, api, x);
    if (lo)
        x = where_form ? where(g, api, at_op2(g, api, "Less", x, lo), lo, x)
                       : max_min_op(g, api, "Max", x, lo);
    if (hi && x)
        x = where_form ? where(g, api, at_op2(g, api, "Greater", x, hi), hi, x)
                       : max_min_op(g, api, "Min", x, hi);
    return x;
}

/* A bound given as a tensor (clamp.Tensor, clamp_min/clamp_max of a tensor)
 * is no Clip input (Clip's bounds are scalars): the operands in their
 * promoted type, then Max/Min. */
static int clamp_tensor_bounds(ox_sym *g, const ox_api *api, ox_vid x)
{
    static const char *const names[3] = {"self", "min", "max"};
    const char *present[3];
    size_t n = 0;
    for (size_t i = 0; i < 3; i++)
        if (i == 0 || api->arg_kind(g, names[i]) != OX_ARG_NONE)
            present[n++] = names[i];
    ox_vid v[3] = {0, 0, 0};
    if (!x || oxu_promote_args(g, api, n, present, v, NULL))
        return 1;
    ox_vid lo = 0, hi = 0;
    for (size_t i = 1; i < n; i++)
        *(strcmp(present[i], "min") == 0 ? &lo : &hi) = v[i];
    return oxu_set_result_recorded(g, api, 0, clamp_between(g, api, v[0], lo, hi));
}

/* Bounds that take the promoted-type route: a tensor, or a float number for an
 * integer x (torch's int_x.clamp(max=2.5) is float). */
static int has_tensor_bound(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "min") == OX_ARG_TENSOR || api->arg_kind(g, "max") == OX_ARG_TENSOR)
        return 1;
    ox_vid x = api->arg_tensor(g, "self");
    return x && at_is_integer(api->dtype(g, x)) &&
           (api->arg_kind(g, "min") == OX_ARG_FLOAT || api->arg_kind(g, "max") == OX_ARG_FLOAT);
}

/* Number bounds as constants typed like x (torch keeps x's type). */
static int clamp_number_bounds(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_vid lo = 0, hi = 0;
    if (at_is_number(api->arg_kind(g, "min")) && !(lo = at_operand(g, api, "min", x)))
        return 1;
    if (at_is_number(api->arg_kind(g, "max")) && !(hi = at_operand(g, api, "max", x)))
        return 1;
    return oxu_set_result(g, api, 0, clamp_between(g, api, x, lo, hi));
}

/* clamp before opset 11: Clip's bounds are attributes (absent = unbounded).
 * ONNX Runtime's Clip-6 is float32 only: other floating types, integers and
 * tensor bounds take Max/Min (or Where). */
static int sym_clamp_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (has_tensor_bound(g, api))
        return clamp_tensor_bounds(g, api, x);
    if (!x || api->dtype(g, x) != OX_FLOAT)
        return clamp_number_bounds(g, api, x);
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n && at_is_number(api->arg_kind(g, "min")))
        api->attr_float(n, "min", api->arg_float(g, "min", 0.0));
    if (n && at_is_number(api->arg_kind(g, "max")))
        api->attr_float(n, "max", api->arg_float(g, "max", 0.0));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Clip"));
}

/* From opset 11 number bounds are optional Clip inputs typed like x. */
static int sym_clamp_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (has_tensor_bound(g, api))
        return clamp_tensor_bounds(g, api, x);
    /* Clip of int16, which ONNX Runtime has no kernel for: Max/Min, which
     * compute it in int32 */
    if (!x || integers_need_lowering(g, api, x) ||
        oxu_ort_kernel_type("Clip", api->dtype(g, x)) != api->dtype(g, x))
        return clamp_number_bounds(g, api, x);
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

/* type_as(self, other): Cast to other's element type. */
static int sym_type_as(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), other = api->arg_tensor(g, "other");
    if (!x || !other)
        return 1;
    return oxu_set_result(g, api, 0, at_cast(g, api, x, api->dtype(g, other)));
}

/* _cast_Byte(self, non_blocking) ... _cast_Short: Cast to the named type
 * (non_blocking is about host memory; nothing to export).  PyTorch 1.13 has
 * no _cast_Bool operator (torch.onnx registers the name; it stays excluded). */
#define AT_CAST_SYMBOLIC(nm, dt)                                         \
    static int sym_cast_##nm(ox_sym *g, const ox_api *api)               \
    {                                                                    \
        return oxu_set_result(g, api, 0, at_cast(g, api, api->arg_tensor(g, "self"), dt)); \
    }
AT_CAST_SYMBOLIC(Byte, OX_UINT8)
AT_CAST_SYMBOLIC(Char, OX_INT8)
AT_CAST_SYMBOLIC(Double, OX_DOUBLE)
AT_CAST_SYMBOLIC(Float, OX_FLOAT)
AT_CAST_SYMBOLIC(Half, OX_FLOAT16)
AT_CAST_SYMBOLIC(Int, OX_INT32)
AT_CAST_SYMBOLIC(Long, OX_INT64)
AT_CAST_SYMBOLIC(Short, OX_INT16)
#undef AT_CAST_SYMBOLIC

/* ---------------------------------------------------------------- logarithms,
 * rounding, fmod, nan/inf tests, lerp, addcmul/addcdiv */

/* The recorded output type when it is floating, else float32: what torch
 * computes an integer input's log or isnan-free float result in. */
static ox_dtype float_result(ox_sym *g, const ox_api *api)
{
    ox_dtype to = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
    return at_is_floating(to) && to != OX_UNDEFINED ? to : OX_FLOAT;
}

/* self as a floating value: integers and bool cast to the result type. */
static ox_vid float_self(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && !at_is_floating(api->dtype(g, x)))
        x = oxu_cast(g, api, x, float_result(g, api));
    return x;
}

/* log_b(x) = ln(x) / ln(b). */
static int log_base(ox_sym *g, const ox_api *api, double ln_base)
{
    ox_vid x = float_self(g, api);
    ox_vid l = at_op1(g, api, "Log", x);
    return oxu_set_result(g, api, 0, at_op2(g, api, "Div", l, oxu_scalar_like(g, api, ln_base, l)));
}

static int sym_log10(ox_sym *g, const ox_api *api) { return log_base(g, api, M_LN10); }
static int sym_log2(ox_sym *g, const ox_api *api) { return log_base(g, api, M_LN2); }

/* log(1 + x): ONNX has no Log1p; torch.onnx spells it the same way. */
static int sym_log1p(ox_sym *g, const ox_api *api)
{
    ox_vid x = float_self(g, api);
    return oxu_set_result(g, api, 0,
                          at_op1(g, api, "Log",
                                 at_op2(g, api, "Add", x, oxu_scalar_like(g, api, 1.0, x))));
}

/* Round (opset 11) rounds half to even, as torch does; decimals d scale by
 * 10^d first (10^-d divides, for a negative d), as torch's kernel does.
 * Integers are their own rounding. */
static int sym_round(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!x)
        return 1;
    if (!at_is_floating(api->dtype(g, x)))
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    int64_t d = api->arg_int(g, "decimals", 0);
    if (d == 0)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Round", x));
    double ten_d = 1.0; /* exact up to 10^22; the pack links no libm */
    for (int64_t i = 0; i < (d < 0 ? -d : d) && ten_d < 1e308; i++)
        ten_d *= 10.0;
    ox_vid k = oxu_scalar_like(g, api, ten_d, x);
    ox_vid r = at_op1(g, api, "Round", at_op2(g, api, d > 0 ? "Mul" : "Div", x, k));
    return oxu_set_result(g, api, 0, at_op2(g, api, d > 0 ? "Div" : "Mul", r, k));
}

/* fmod: the remainder with the dividend's sign, ONNX's Mod with fmod=1
 * (opset 10), in the operands' promoted type. */
static int sym_fmod(ox_sym *g, const ox_api *api)
{
    static const char *const names[2] = {"self", "other"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    ox_onode *n = api->op(g, "Mod", 2, v, 1);
    if (n)
        api->attr_int(n, "fmod", 1);
    return oxu_set_result_recorded(g, api, 0, at_out(g, api, n, "Mod"));
}

/* The largest finite value of a floating type: |x| above it is infinite. */
static double max_finite(ox_dtype t)
{
    return t == OX_DOUBLE ? 1.7976931348623157e308 : t == OX_FLOAT16 ? 65504.0
           : t == OX_BFLOAT16                       ? 3.3895313892515355e38
                                                    : 3.4028234663852886e38;
}

/* An all-false bool tensor shaped like x: integers are never nan or inf. */
static ox_vid all_false(ox_sym *g, const ox_api *api, ox_vid x)
{
    return oxu_full(g, api, oxu_shape(g, api, x), 0.0, OX_BOOL);
}

static int sym_isnan(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && !at_is_floating(api->dtype(g, x)))
        return oxu_set_result(g, api, 0, all_false(g, api, x));
    return oxu_set_result(g, api, 0, at_op1(g, api, "IsNaN", x));
}

/* x > max (or < -max) of x's type: +inf (-inf), exact in every floating type
 * and every opset (IsInf is opset 10 and float32/float64 only in ONNX Runtime). */
static ox_vid beyond(ox_sym *g, const ox_api *api, ox_vid x, int sign)
{
    double m = max_finite(api->dtype(g, x));
    return at_op2(g, api, sign > 0 ? "Greater" : "Less", x, oxu_scalar_like(g, api, sign * m, x));
}

static int sym_isinf(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!x)
        return 1;
    ox_dtype t = api->dtype(g, x);
    if (!at_is_floating(t))
        return oxu_set_result(g, api, 0, all_false(g, api, x));
    if (api->opset(g) >= 10 && (t == OX_FLOAT || t == OX_DOUBLE))
        return oxu_set_result(g, api, 0, at_op1(g, api, "IsInf", x));
    return oxu_set_result(g, api, 0, beyond(g, api, at_op1(g, api, "Abs", x), 1));
}

/* |x| < inf: false for +-inf and for nan (a comparison with nan is false),
 * exact at every opset; integers are always finite. */
static int sym_isfinite(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && !at_is_floating(api->dtype(g, x)))
        return oxu_set_result(g, api, 0, oxu_full(g, api, oxu_shape(g, api, x), 1.0, OX_BOOL));
    return oxu_set_result(g, api, 0, at_op2(g, api, "Less", at_op1(g, api, "Abs", x),
                                             oxu_scalar_like(g, api, HUGE_VAL, x)));
}

/* x * x, in the recorded type (torch squares a bool tensor into int64), in a
 * wider integer type where an opset has no Mul for a narrow one. */
static int sym_square(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype want = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
    if (!x)
        return 1;
    ox_dtype t = want != OX_UNDEFINED ? want : api->dtype(g, x);
    x = oxu_cast_to(g, api, x, oxu_arith_type(g, api, t));
    return oxu_set_result_as(g, api, 0, at_op2(g, api, "Mul", x, x), t);
}

/* nan -> nan (default 0), +inf -> posinf, -inf -> neginf (defaults: the
 * type's largest and lowest finite values); integers unchanged. */
static int sym_nan_to_num(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!x)
        return 1;
    ox_dtype t = api->dtype(g, x);
    if (!at_is_floating(t))
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    double m = max_finite(t);
    double nan = api->arg_kind(g, "nan") == OX_ARG_NONE ? 0.0 : api->arg_float(g, "nan", 0.0);
    double pinf = api->arg_kind(g, "posinf") == OX_ARG_NONE ? m : api->arg_float(g, "posinf", m);
    double ninf =
        api->arg_kind(g, "neginf") == OX_ARG_NONE ? -m : api->arg_float(g, "neginf", -m);
    ox_vid y = where(g, api, at_op1(g, api, "IsNaN", x), oxu_scalar_like(g, api, nan, x), x);
    y = where(g, api, beyond(g, api, x, 1), oxu_scalar_like(g, api, pinf, x), y);
    y = where(g, api, beyond(g, api, x, -1), oxu_scalar_like(g, api, ninf, x), y);
    return oxu_set_result(g, api, 0, y);
}

/* lerp(a, b, w) = a + w (b - a) for w < 0.5, b - (b - a)(1 - w) otherwise:
 * torch's two formulas (each exact at its end).  A number weight picks one at
 * export time; a tensor weight picks per element with Where. */
static int sym_lerp(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self");
    ox_vid b = api->arg_tensor(g, "end");
    if (!a || !b)
        return api->fail(g, "lerp needs self and end tensors");
    ox_vid v[2] = {a, b};
    if (oxu_promote(g, api, 2, v, NULL))
        return 1;
    a = v[0];
    b = v[1];
    ox_vid diff = at_op2(g, api, "Sub", b, a);
    ox_vid one = oxu_scalar_like(g, api, 1.0, a);
    if (at_is_number(api->arg_kind(g, "weight"))) {
        double w = api->arg_float(g, "weight", 0.0);
        ox_vid wv = oxu_scalar_like(g, api, w, a);
        if (w < 0.5)
            return oxu_set_result(g, api, 0, at_op2(g, api, "Add", a, at_op2(g, api, "Mul", wv, diff)));
        return oxu_set_result(g, api, 0,
                              at_op2(g, api, "Sub", b,
                                     at_op2(g, api, "Mul", diff, oxu_scalar_like(g, api, 1.0 - w, a))));
    }
    ox_vid w = api->arg_tensor(g, "weight");
    if (!w)
        return api->fail(g, "argument 'weight' is missing or None");
    w = oxu_cast_to(g, api, w, api->dtype(g, a));
    ox_vid low = at_op2(g, api, "Add", a, at_op2(g, api, "Mul", w, diff));
    ox_vid high = at_op2(g, api, "Sub", b, at_op2(g, api, "Mul", diff, at_op2(g, api, "Sub", one, w)));
    ox_vid small = at_op2(g, api, "Less", w, oxu_scalar_like(g, api, 0.5, a));
    return oxu_set_result(g, api, 0, where(g, api, small, low, high));
}

/* self + value * (tensor1 op tensor2), op Mul (addcmul) or Div (addcdiv), in
 * the three tensors' promoted type (computing in int32 where an opset has no
 * Add/Mul for a narrow integer type). */
static int addc(ox_sym *g, const ox_api *api, const char *op)
{
    ox_vid v[3] = {api->arg_tensor(g, "self"), api->arg_tensor(g, "tensor1"),
                   api->arg_tensor(g, "tensor2")};
    if (!v[0] || !v[1] || !v[2])
        return api->fail(g, "%s needs self, tensor1 and tensor2 tensors", op[0] == 'M' ? "addcmul" : "addcdiv");
    ox_dtype t;
    if (oxu_promote(g, api, 3, v, &t))
        return 1;
    ox_dtype ct = oxu_arith_type(g, api, t);
    for (int i = 0; i < 3; i++)
        v[i] = oxu_cast_to(g, api, v[i], ct);
    ox_vid prod = at_op2(g, api, op, v[1], v[2]);
    double value = api->arg_float(g, "value", 1.0);
    if (prod && value != 1.0)
        prod = at_op2(g, api, "Mul", prod, oxu_scalar_like(g, api, value, prod));
    return oxu_set_result_recorded(g, api, 0, at_op2(g, api, "Add", v[0], prod));
}

static int sym_addcmul(ox_sym *g, const ox_api *api) { return addc(g, api, "Mul"); }
static int sym_addcdiv(ox_sym *g, const ox_api *api) { return addc(g, api, "Div"); }

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_pow[] = {OX_PARAM("self", OX_ARG_TENSOR_OR_SCALAR),
                                      OX_PARAM("exponent", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_other[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};
/* clamp(Tensor self, Scalar? min, Scalar? max) and clamp.Tensor(Tensor self,
 * Tensor? min, Tensor? max), one operator to the host */
static const ox_param_decl p_clamp[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM_NULL("min", OX_ARG_TENSOR_OR_SCALAR),
                                        OX_PARAM_NULL("max", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_to[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dtype", OX_ARG_DTYPE)};
/* clamp_min(Tensor self, Scalar min) / clamp_min.Tensor(Tensor self, Tensor min),
 * and clamp_max with `max`: clamp with one bound (the other reads as None). */
static const ox_param_decl p_clamp_min[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("min", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_clamp_max[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("max", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_type_as[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM("other", OX_ARG_TENSOR)};
static const ox_param_decl p_cast[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_BOOL("non_blocking", 0)};

static const ox_param_decl p_round[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM_INT("decimals", OX_ARG_INT, 0)};
static const ox_param_decl p_nan_to_num[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_NULL("nan", OX_ARG_FLOAT),
    OX_PARAM_NULL("posinf", OX_ARG_FLOAT), OX_PARAM_NULL("neginf", OX_ARG_FLOAT)};
static const ox_param_decl p_lerp[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM("end", OX_ARG_TENSOR),
                                       OX_PARAM("weight", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_addc[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("tensor1", OX_ARG_TENSOR),
    OX_PARAM("tensor2", OX_ARG_TENSOR), OX_PARAM_INT("value", OX_ARG_SCALAR, 1)};

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
    OX_OP("aten::clamp_min", 9, p_clamp_min, 1, sym_clamp_9),
    OX_OP("aten::clamp_min", 11, p_clamp_min, 1, sym_clamp_11),
    OX_OP("aten::clamp_max", 9, p_clamp_max, 1, sym_clamp_9),
    OX_OP("aten::clamp_max", 11, p_clamp_max, 1, sym_clamp_11),
    OX_OP("aten::type_as", 7, p_type_as, 1, sym_type_as),
    OX_OP("aten::_cast_Byte", 7, p_cast, 1, sym_cast_Byte),
    OX_OP("aten::_cast_Char", 7, p_cast, 1, sym_cast_Char),
    OX_OP("aten::_cast_Double", 7, p_cast, 1, sym_cast_Double),
    OX_OP("aten::_cast_Float", 7, p_cast, 1, sym_cast_Float),
    OX_OP("aten::_cast_Half", 7, p_cast, 1, sym_cast_Half),
    OX_OP("aten::_cast_Int", 7, p_cast, 1, sym_cast_Int),
    OX_OP("aten::_cast_Long", 7, p_cast, 1, sym_cast_Long),
    OX_OP("aten::_cast_Short", 7, p_cast, 1, sym_cast_Short),
    OX_OP("aten::log10", 9, p_self, 1, sym_log10),
    OX_OP("aten::log2", 9, p_self, 1, sym_log2),
    OX_OP("aten::log1p", 9, p_self, 1, sym_log1p),
    OX_OP("aten::round", 11, p_round, 1, sym_round),
    OX_OP("aten::fmod", 10, p_other, 1, sym_fmod),
    OX_OP("aten::isnan", 9, p_self, 1, sym_isnan),
    OX_OP("aten::isinf", 9, p_self, 1, sym_isinf),
    OX_OP("aten::isfinite", 9, p_self, 1, sym_isfinite),
    OX_OP("aten::nan_to_num", 9, p_nan_to_num, 1, sym_nan_to_num),
    OX_OP("aten::square", 9, p_self, 1, sym_square),
    OX_OP("aten::lerp", 9, p_lerp, 1, sym_lerp),
    OX_OP("aten::addcmul", 9, p_addc, 1, sym_addcmul),
    OX_OP("aten::addcdiv", 9, p_addc, 1, sym_addcdiv),
};
AT_FAMILY_SIZE(at_ops_math);
