/* Arithmetic operators: add/sub (with alpha), mul, div, rsub, floor_divide,
 * remainder.  A number as `other` becomes a rank-0 constant of self's type,
 * as torch's type promotion keeps the tensor's dtype. */
#include <string.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* torch's div is true division: integer operands give a float result, where
 * ONNX Div would truncate. */
static int true_div(ox_sym *g, const ox_api *api)
{
    ox_vid x = at_cast(g, api, api->arg_tensor(g, "self"), OX_FLOAT);
    ox_vid other;
    if (at_is_number(api->arg_kind(g, "other"))) {
        other = api->const_scalar_of(g, OX_FLOAT, api->arg_float(g, "other", 1.0));
        if (!other)
            return api->fail(g, "could not create the constant for 'other'");
    } else {
        other = api->arg_tensor(g, "other");
        if (!other)
            return api->fail(g, "argument 'other' is missing or None");
        if (at_is_integer(api->dtype(g, other)))
            other = at_cast(g, api, other, OX_FLOAT);
    }
    ox_vid y = at_op2(g, api, "Div", x, other);
    return oxu_set_result(g, api, 0, y);
}

/* self and other by torch's type promotion, in a type ONNX's Add/Sub/Mul/Div
 * take at this opset (oxu_arith_type); the caller casts the result back to
 * the recorded type. */
static int arith_operands(ox_sym *g, const ox_api *api, ox_vid v[2], ox_dtype *type)
{
    static const char *const names[] = {"self", "other"};
    ox_dtype common;
    if (oxu_promote_args(g, api, 2, names, v, &common))
        return 1;
    ox_dtype wide = oxu_arith_type(g, api, common);
    if (type)
        *type = wide;
    v[0] = oxu_cast_to(g, api, v[0], wide);
    v[1] = oxu_cast_to(g, api, v[1], wide);
    return !v[0] || !v[1];
}

/* self <op> alpha * other, by torch's type promotion: both operands in their
 * common type (a Python number does not widen a tensor of its category),
 * computed in a type ONNX defines the op for at this opset, and the result
 * cast to the type the host recorded. */
static int binary(ox_sym *g, const ox_api *api, const char *type, int with_alpha)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* integer / integer (tensor or number) is true division; with a floating
     * operand the promoted type is floating and Div is already exact */
    ox_vid other_t = api->arg_tensor(g, "other"); /* 0 for a number */
    ox_dtype other_dt = other_t ? api->dtype(g, other_t) : OX_UNDEFINED;
    int other_floating = other_t ? other_dt != OX_UNDEFINED && oxu_is_floating(other_dt)
                                 : api->arg_kind(g, "other") == OX_ARG_FLOAT;
    if (strcmp(type, "Div") == 0 && at_is_integer(api->dtype(g, x)) && !other_floating)
        return true_div(g, api);
    ox_vid v[2];
    if (arith_operands(g, api, v, NULL))
        return 1;
    double alpha = with_alpha ? api->arg_float(g, "alpha", 1.0) : 1.0;
    if (v[1] && alpha != 1.0) {
        ox_vid a = api->scalar_like(g, alpha, v[1]);
        if (!a)
            return api->fail(g, "could not create the constant for 'alpha'");
        v[1] = at_op2(g, api, "Mul", v[1], a);
    }
    return oxu_set_result_recorded(g, api, 0, at_op2(g, api, type, v[0], v[1]));
}

static int sym_add(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Add", 1);
}

static int sym_sub(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Sub", 1);
}

static int sym_mul(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Mul", 0);
}

static ox_vid floor_div(ox_sym *g, const ox_api *api, ox_vid a, ox_vid b);

/* div with rounding_mode 'floor' or 'trunc' (torch.div(a, b, rounding_mode=)):
 * the quotient of the promoted operands rounded; integer Div already
 * truncates toward zero, and floor_div floors. */
static int rounded_div(ox_sym *g, const ox_api *api, const char *mode)
{
    ox_vid v[2];
    ox_dtype wide;
    if (arith_operands(g, api, v, &wide))
        return 1;
    ox_vid a = v[0], b = v[1];
    ox_vid y;
    if (strcmp(mode, "floor") == 0) {
        y = floor_div(g, api, a, b);
    } else if (at_is_integer(wide)) {
        y = at_op2(g, api, "Div", a, b);
    } else {
        /* trunc(q) = q < 0 ? ceil(q) : floor(q), exact */
        ox_vid q = at_op2(g, api, "Div", a, b);
        ox_vid zero = q ? api->scalar_like(g, 0.0, q) : 0;
        ox_vid in[3] = {at_op2(g, api, "Less", q, zero), at_op1(g, api, "Ceil", q),
                        at_op1(g, api, "Floor", q)};
        if (!in[0] || !in[1] || !in[2])
            return 1;
        y = at_out(g, api, api->op(g, "Where", 3, in, 1), "Where");
    }
    return oxu_set_result_recorded(g, api, 0, y);
}

/* torch allows only these two (and None): anything else is the host's bug,
 * said before conversion. */
static int check_div(ox_sym *g, const ox_api *api)
{
    const char *mode = api->arg_string(g, "rounding_mode", NULL);
    if (mode && strcmp(mode, "floor") != 0 && strcmp(mode, "trunc") != 0)
        return api->limit(g, 0, "argument 'rounding_mode' is '%s'; torch.div takes 'floor', "
                                "'trunc' or None",
                          mode);
    return 0;
}

static int sym_div(ox_sym *g, const ox_api *api)
{
    const char *mode = api->arg_string(g, "rounding_mode", NULL);
    if (mode)
        return rounded_div(g, api, mode);
    return binary(g, api, "Div", 0);
}

/* rsub(self, other, alpha) = other - alpha * self (`1 - x`), in the
 * promoted and widened type like sub. */
static int sym_rsub(ox_sym *g, const ox_api *api)
{
    ox_vid v[2];
    if (arith_operands(g, api, v, NULL))
        return 1;
    double alpha = api->arg_float(g, "alpha", 1.0);
    if (alpha != 1.0) {
        ox_vid a = api->scalar_like(g, alpha, v[0]);
        if (!a)
            return api->fail(g, "could not create the constant for 'alpha'");
        v[0] = at_op2(g, api, "Mul", v[0], a);
    }
    return oxu_set_result_recorded(g, api, 0, at_op2(g, api, "Sub", v[1], v[0]));
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

/* Both in the promoted type, widened where ONNX lacks Div/Mul for it
 * (uint8 before opset 14), the result cast to the recorded type. */
static int sym_floor_divide(ox_sym *g, const ox_api *api)
{
    ox_vid v[2];
    if (arith_operands(g, api, v, NULL))
        return 1;
    return oxu_set_result_recorded(g, api, 0, floor_div(g, api, v[0], v[1]));
}

/* torch.remainder has the divisor's sign: a - floor(a / b) * b. */
static int sym_remainder(ox_sym *g, const ox_api *api)
{
    ox_vid v[2];
    if (arith_operands(g, api, v, NULL))
        return 1;
    ox_vid q = floor_div(g, api, v[0], v[1]);
    return oxu_set_result_recorded(g, api, 0,
                                   at_op2(g, api, "Sub", v[0], at_op2(g, api, "Mul", q, v[1])));
}

static const ox_param_decl p_add[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR),
                                      OX_PARAM_INT("alpha", OX_ARG_SCALAR, 1)};
static const ox_param_decl p_other[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};
/* torch's div.Tensor_mode: rounding_mode None, 'floor' or 'trunc' */
static const ox_param_decl p_div[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR),
                                      OX_PARAM_NULL("rounding_mode", OX_ARG_STRING)};

const ox_op_decl at_ops_arithmetic[] = {
    OX_OP("aten::add", 7, p_add, 1, sym_add),
    OX_OP("aten::sub", 7, p_add, 1, sym_sub),
    OX_OP("aten::mul", 7, p_other, 1, sym_mul),
    OX_OP_EX("aten::div", 9, p_div, 1, sym_div, 0, check_div),
    /* true_divide is div without a rounding mode (its recorded arguments lack one) */
    OX_OP("aten::true_divide", 9, p_other, 1, sym_div),
    OX_OP("aten::rsub", 7, p_add, 1, sym_rsub),
    OX_OP("aten::floor_divide", 9, p_other, 1, sym_floor_divide),
    OX_OP("aten::remainder", 9, p_other, 1, sym_remainder),
};
AT_FAMILY_SIZE(at_ops_arithmetic);
