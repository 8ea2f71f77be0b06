/* Bitwise logic and shifts: bitwise_not, bitwise_and/or/xor (the dispatcher's
 * names for ~, &, |, ^ and TorchScript's __and__ ...), __lshift__, __rshift__.
 * ONNX has bitwise ops on integers only from opset 18 (BitwiseNot/And/Or/Xor,
 * used there); before that bool operands are Not/And/Or/Xor, ~ of an integer
 * is exact arithmetic, and &, |, ^ of integers are a limitation lifted at 18.  Shifts are exact
 * multiplications and floor divisions by powers of two (BitShift, opset 11,
 * only for unsigned types). */
#include <stdio.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* ~x: Not for bool; for a signed integer -x - 1 (two's complement, exact:
 * the result is in x's range), for uint8 255 - x; computed where an opset
 * lacks Sub/Neg for the type in a wider one and cast back. */
static int sym_bitwise_not(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!x)
        return 1;
    ox_dtype t = api->dtype(g, x);
    if (t == OX_BOOL)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Not", x));
    if (!at_is_integer(t))
        return api->fail(g, "bitwise_not of a %s tensor: torch defines it for integers and bool "
                            "only",
                         at_is_floating(t) ? "floating" : "non-integer");
    if (api->opset(g) >= 18)
        return oxu_set_result(g, api, 0, at_op1(g, api, "BitwiseNot", x));
    ox_dtype ct = oxu_arith_type(g, api, t);
    ox_vid xc = oxu_cast_to(g, api, x, ct);
    ox_vid y = t == OX_UINT8
                   ? at_op2(g, api, "Sub", oxu_scalar(g, api, ct, 255.0), xc)
                   : at_op2(g, api, "Sub", at_op1(g, api, "Neg", xc), oxu_scalar(g, api, ct, 1.0));
    return oxu_set_result(g, api, 0, oxu_cast_to(g, api, y, t));
}

/* The torch.result_type of self and other (a tensor or a number). */
static ox_dtype operands_type(ox_sym *g, const ox_api *api)
{
    static const char *const names[2] = {"self", "other"};
    ox_dtype types[2];
    oxu_operand_level levels[2];
    for (int i = 0; i < 2; i++) {
        ox_arg_kind k = api->arg_kind(g, names[i]);
        if (k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL) {
            types[i] = k == OX_ARG_FLOAT ? OX_FLOAT : k == OX_ARG_INT ? OX_INT64 : OX_BOOL;
            levels[i] = OXU_NUMBER;
        } else {
            ox_vid v = api->arg_tensor(g, names[i]);
            types[i] = v ? api->dtype(g, v) : OX_UNDEFINED;
            levels[i] = v && api->rank(g, v) == 0 ? OXU_ZERO_DIM : OXU_TENSOR;
        }
    }
    return oxu_result_type(2, types, levels);
}

/* &, |, ^ of integers need BitwiseAnd/Or/Xor (opset 18). */
static int check_bitwise_binary(ox_sym *g, const ox_api *api)
{
    ox_dtype t = operands_type(g, api);
    if (t != OX_BOOL && t != OX_UNDEFINED && api->opset(g) < 18)
        return api->limit(g, 18, "%s of integer tensors needs ONNX's Bitwise%s (opset 18)",
                          strstr(api->op_name(g), "and")   ? "bitwise_and"
                          : strstr(api->op_name(g), "xor") ? "bitwise_xor"
                                                           : "bitwise_or",
                          strstr(api->op_name(g), "and")   ? "And"
                          : strstr(api->op_name(g), "xor") ? "Xor"
                                                           : "Or");
    return 0;
}

/* bool operands: And/Or/Xor; integers (opset 18, check_bitwise_binary):
 * BitwiseAnd/Or/Xor on the promoted type. */
static int bool_binary(ox_sym *g, const ox_api *api, const char *op_type)
{
    static const char *const names[2] = {"self", "other"};
    ox_vid v[2];
    ox_dtype t;
    if (oxu_promote_args(g, api, 2, names, v, &t))
        return 1;
    if (t != OX_BOOL) {
        char bitwise[16];
        snprintf(bitwise, sizeof bitwise, "Bitwise%s", op_type);
        return oxu_set_result(g, api, 0, at_op2(g, api, bitwise, v[0], v[1]));
    }
    return oxu_set_result(g, api, 0, at_op2(g, api, op_type, v[0], v[1]));
}

static int sym_bitwise_and(ox_sym *g, const ox_api *api) { return bool_binary(g, api, "And"); }
static int sym_bitwise_or(ox_sym *g, const ox_api *api) { return bool_binary(g, api, "Or"); }
static int sym_bitwise_xor(ox_sym *g, const ox_api *api) { return bool_binary(g, api, "Xor"); }

static int is_unsigned(ox_dtype t)
{
    return t == OX_UINT8 || t == OX_UINT16 || t == OX_UINT32 || t == OX_UINT64;
}

/* 2^other in type ct: a constant for a number shift, else Pow in float32
 * (exact for every shift below 128; a shift count past the type's width is
 * undefined in torch too) cast to ct. */
static ox_vid power_of_two(ox_sym *g, const ox_api *api, ox_vid other, ox_dtype ct)
{
    if (oxu_arg_is_number(g, api, "other")) {
        int64_t k = api->arg_int(g, "other", 0);
        if (k < 0 || k > 63) {
            api->fail(g, "shift count %lld is outside [0, 63]", (long long)k);
            return 0;
        }
        return oxu_scalar(g, api, ct, (double)((uint64_t)1 << k));
    }
    ox_vid p = at_op2(g, api, "Pow", oxu_scalar(g, api, OX_FLOAT, 2.0),
                      oxu_cast_to(g, api, other, OX_FLOAT));
    return oxu_cast_to(g, api, p, ct);
}

/* x << k = x * 2^k (wrapping like torch's fixed-width integers); x >> k =
 * floor(x / 2^k), an arithmetic shift: ONNX's integer Div truncates, so a
 * negative x with a remainder steps down by one.  Unsigned types from opset
 * 11 use BitShift. */
static int shift(ox_sym *g, const ox_api *api, int left)
{
    static const char *const names[2] = {"self", "other"};
    ox_vid v[2];
    ox_dtype t;
    if (oxu_promote_args(g, api, 2, names, v, &t))
        return 1;
    if (!at_is_integer(t) || t == OX_BOOL)
        return api->fail(g, "%s of %s tensors: torch shifts integers only",
                         left ? "<<" : ">>", t == OX_BOOL ? "bool" : "floating");
    if (is_unsigned(t) && api->opset(g) >= 11) {
        ox_onode *n = api->op(g, "BitShift", 2, v, 1);
        if (n)
            api->attr_string(n, "direction", left ? "LEFT" : "RIGHT");
        return oxu_set_result(g, api, 0, at_out(g, api, n, "BitShift"));
    }
    ox_dtype ct = oxu_arith_type(g, api, t);
    ox_vid x = oxu_cast_to(g, api, v[0], ct);
    ox_vid p = power_of_two(g, api, v[1], ct);
    if (left)
        return oxu_set_result(g, api, 0, oxu_cast_to(g, api, at_op2(g, api, "Mul", x, p), t));
    ox_vid q = at_op2(g, api, "Div", x, p);
    ox_vid r = at_op2(g, api, "Sub", x, at_op2(g, api, "Mul", q, p));
    ox_vid step = oxu_cast_to(g, api, at_op2(g, api, "Less", r, oxu_scalar(g, api, ct, 0.0)), ct);
    return oxu_set_result(g, api, 0, oxu_cast_to(g, api, at_op2(g, api, "Sub", q, step), t));
}

static int sym_lshift(ox_sym *g, const ox_api *api) { return shift(g, api, 1); }
static int sym_rshift(ox_sym *g, const ox_api *api) { return shift(g, api, 0); }

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
/* bitwise_and.Tensor / .Scalar, __lshift__.Tensor / .Scalar: one operator each */
static const ox_param_decl p_other[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};

const ox_op_decl at_ops_bitwise[] = {
    OX_OP("aten::bitwise_not", 9, p_self, 1, sym_bitwise_not),
    OX_OP_EX("aten::bitwise_and", 9, p_other, 1, sym_bitwise_and, 0u, check_bitwise_binary),
    OX_OP_EX("aten::bitwise_or", 9, p_other, 1, sym_bitwise_or, 0u, check_bitwise_binary),
    OX_OP_EX("aten::bitwise_xor", 9, p_other, 1, sym_bitwise_xor, 0u, check_bitwise_binary),
    OX_OP("aten::__lshift__", 9, p_other, 1, sym_lshift),
    OX_OP("aten::__rshift__", 9, p_other, 1, sym_rshift),
};
AT_FAMILY_SIZE(at_ops_bitwise);
