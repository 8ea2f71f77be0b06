/* Pointwise non-linear activations: relu, tanh, sigmoid, leaky_relu,
 * hardtanh, threshold, gelu, silu, hardsigmoid, hardswish.  ONNX has no Gelu before
 * opset 20 and no HardSwish before 14, so they are spelled out with the
 * primitives every opset from 9 has. */
#include <math.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int unary(ox_sym *g, const ox_api *api, const char *op_type)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, op_type, api->arg_tensor(g, "self")));
}

/* Relu takes integers only from opset 14, and ONNX Runtime has no integer
 * Relu kernel even there: integers become max(x, 0) as Where(x < 0, 0, x),
 * exact, at every opset. */
static int sym_relu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (at_is_floating(api->dtype(g, x)))
        return unary(g, api, "Relu");
    ox_vid zero = api->scalar_like(g, 0.0, x);
    if (!zero)
        return api->fail(g, "could not create the zero constant");
    ox_vid in[3] = {at_op2(g, api, "Less", x, zero), zero, x};
    if (!in[0])
        return 1;
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Where", 3, in, 1), "Where"));
}

/* Where and Less on integers come with opset 9. */
static int check_relu(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 9 && !at_is_floating(api->dtype(g, api->arg_tensor(g, "self"))))
        return api->limit(g, 9, "relu of an integer tensor is exported as Where(x < 0, 0, x), "
                                "which needs opset 9");
    return 0;
}

/* y = x > threshold ? x : value: Greater and Where, each operand in x's type
 * (integers included: Greater takes them from opset 9). */
static int sym_threshold(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid th = api->scalar_like(g, api->arg_float(g, "threshold", 0.0), x);
    ox_vid value = api->scalar_like(g, api->arg_float(g, "value", 0.0), x);
    ox_vid in[3] = {at_op2(g, api, "Greater", x, th), x, value};
    if (!in[0] || !in[2])
        return 1;
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Where", 3, in, 1), "Where"));
}

static int sym_tanh(ox_sym *g, const ox_api *api)
{
    return unary(g, api, "Tanh");
}

static int sym_sigmoid(ox_sym *g, const ox_api *api)
{
    return unary(g, api, "Sigmoid");
}

static int sym_leaky_relu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "LeakyRelu", 1, &x, 1);
    if (n)
        api->attr_float(n, "alpha", api->arg_float(g, "negative_slope", 0.01));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "LeakyRelu"));
}

/* Clip's bounds are attributes before opset 11. */
static int sym_hardtanh_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n) {
        api->attr_float(n, "min", api->arg_float(g, "min_val", -1.0));
        api->attr_float(n, "max", api->arg_float(g, "max_val", 1.0));
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Clip"));
}

/* From opset 11 they are inputs typed like x. */
static int sym_hardtanh_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid in[3] = {x, api->scalar_like(g, api->arg_float(g, "min_val", -1.0), x),
                    api->scalar_like(g, api->arg_float(g, "max_val", 1.0), x)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create Clip's bound constants");
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip"));
}

static ox_vid scalar(ox_sym *g, const ox_api *api, double v, ox_vid like)
{
    ox_vid c = api->scalar_like(g, v, like);
    if (!c)
        api->fail(g, "could not create the constant %g", v);
    return c;
}

/* torch's HardSigmoid is relu6(x + 3) / 6: ONNX's with alpha 1/6, beta 0.5. */
static ox_vid hard_sigmoid(ox_sym *g, const ox_api *api, ox_vid x)
{
    ox_onode *n = api->op(g, "HardSigmoid", 1, &x, 1);
    if (n) {
        api->attr_float(n, "alpha", 1.0 / 6.0);
        api->attr_float(n, "beta", 0.5);
    }
    return at_out(g, api, n, "HardSigmoid");
}

static int sym_hardsigmoid(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, hard_sigmoid(g, api, api->arg_tensor(g, "self")));
}

static int sym_hardswish_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", x, hard_sigmoid(g, api, x)));
}

static int sym_hardswish_14(ox_sym *g, const ox_api *api)
{
    return unary(g, api, "HardSwish");
}

static int sym_silu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", x, at_op1(g, api, "Sigmoid", x)));
}

/* approximate='none': x/2 * (1 + erf(x / sqrt 2));
 * approximate='tanh': x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
 * Another value is a limitation in opset_9.yaml, refused by the pre-scan. */
static int sym_gelu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const char *approx = api->arg_string(g, "approximate", "none");
    ox_vid inner;
    if (strcmp(approx, "tanh") == 0) {
        ox_vid cube = at_op2(g, api, "Mul", x, at_op2(g, api, "Mul", x, x));
        ox_vid poly = at_op2(g, api, "Add", x,
                             at_op2(g, api, "Mul", cube, scalar(g, api, 0.044715, x)));
        inner = at_op1(g, api, "Tanh",
                       at_op2(g, api, "Mul", poly, scalar(g, api, sqrt(2.0 / M_PI), x)));
    } else {
        inner = at_op1(g, api, "Erf", at_op2(g, api, "Mul", x, scalar(g, api, M_SQRT1_2, x)));
    }
    ox_vid one_plus = at_op2(g, api, "Add", inner, scalar(g, api, 1.0, x));
    ox_vid half_x = at_op2(g, api, "Mul", x, scalar(g, api, 0.5, x));
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", half_x, one_plus));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_leaky_relu[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_FLOAT("negative_slope", OX_ARG_SCALAR, 0.01)};
/* torch's schema: threshold(Tensor self, Scalar threshold, Scalar value) */
static const ox_param_decl p_threshold[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("threshold", OX_ARG_SCALAR),
                                            OX_PARAM("value", OX_ARG_SCALAR)};
static const ox_param_decl p_hardtanh[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           OX_PARAM_INT("min_val", OX_ARG_SCALAR, -1),
                                           OX_PARAM_INT("max_val", OX_ARG_SCALAR, 1)};
static const ox_param_decl p_gelu[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_STRING("approximate", "none")};

const ox_op_decl at_ops_activation[] = {
    OX_OP_EX("aten::relu", 7, p_self, 1, sym_relu, 0, check_relu),
    OX_OP("aten::threshold", 9, p_threshold, 1, sym_threshold),
    OX_OP("aten::tanh", 7, p_self, 1, sym_tanh),
    OX_OP("aten::sigmoid", 7, p_self, 1, sym_sigmoid),
    OX_OP("aten::leaky_relu", 7, p_leaky_relu, 1, sym_leaky_relu),
    OX_OP("aten::hardtanh", 7, p_hardtanh, 1, sym_hardtanh_9),
    OX_OP("aten::hardtanh", 11, p_hardtanh, 1, sym_hardtanh_11),
    OX_OP("aten::gelu", 9, p_gelu, 1, sym_gelu),
    OX_OP("aten::silu", 7, p_self, 1, sym_silu),
    OX_OP("aten::hardsigmoid", 7, p_self, 1, sym_hardsigmoid),
    OX_OP("aten::hardswish", 7, p_self, 1, sym_hardswish_9),
    OX_OP("aten::hardswish", 14, p_self, 1, sym_hardswish_14),
};
AT_FAMILY_SIZE(at_ops_activation);
