/* Pointwise non-linear activations: relu, tanh, sigmoid, leaky_relu,
 * hardtanh, threshold, gelu, silu, hardsigmoid, hardswish, and the ELU family,
 * shrinkage and gated ones (elu, celu, selu, softplus, mish, hardshrink,
 * softshrink, tanhshrink, log_sigmoid, glu, prelu, rrelu).  ONNX has no Gelu before
 * opset 20 and no HardSwish before 14, so they are spelled out with the
 * primitives every opset from 9 has. */
#include <math.h>
#include <string.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int unary(ox_sym *g, const ox_api *api, const char *op_type)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, op_type, api->arg_tensor(g, "self")));
}

/* tanh, sigmoid of an integer or bool tensor: float (at_as_floating) */
static int floating_unary(ox_sym *g, const ox_api *api, const char *op_type)
{
    return oxu_set_result(g, api, 0,
                          at_op1(g, api, op_type, at_as_floating(g, api, api->arg_tensor(g, "self"))));
}

/* Relu takes integers only from opset 14, and ONNX Runtime has no integer
 * Relu kernel even there: integers become max(x, 0) as Where(x < 0, 0, x),
 * exact, at every opset (oxu_where: in a type ONNX Runtime selects in). */
static int sym_relu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (at_is_floating(api->dtype(g, x)))
        return unary(g, api, "Relu");
    ox_vid zero = api->scalar_like(g, 0.0, x);
    if (!zero)
        return api->fail(g, "could not create the zero constant");
    return oxu_set_result(g, api, 0, oxu_where(g, api, at_op2(g, api, "Less", x, zero), zero, x));
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
 * (integers included: Greater takes them from opset 9; oxu_where selects
 * int8 and int16 in a type ONNX Runtime has a kernel for). */
static int sym_threshold(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid th = api->scalar_like(g, api->arg_float(g, "threshold", 0.0), x);
    ox_vid value = api->scalar_like(g, api->arg_float(g, "value", 0.0), x);
    return oxu_set_result(g, api, 0, oxu_where(g, api, at_op2(g, api, "Greater", x, th), x, value));
}

static int sym_tanh(ox_sym *g, const ox_api *api)
{
    return floating_unary(g, api, "Tanh");
}

static int sym_sigmoid(ox_sym *g, const ox_api *api)
{
    return floating_unary(g, api, "Sigmoid");
}

/* self clipped to [lo, hi] (hardtanh, relu6): Clip's bounds are attributes
 * before opset 11, inputs typed like x from 11. */
static int clip_9(ox_sym *g, const ox_api *api, double lo, double hi)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n) {
        api->attr_float(n, "min", lo);
        api->attr_float(n, "max", hi);
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Clip"));
}

static int clip_11(ox_sym *g, const ox_api *api, double lo, double hi)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid in[3] = {x, api->scalar_like(g, lo, x), api->scalar_like(g, hi, x)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create Clip's bound constants");
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip"));
}

static int sym_hardtanh_9(ox_sym *g, const ox_api *api)
{
    return clip_9(g, api, api->arg_float(g, "min_val", -1.0), api->arg_float(g, "max_val", 1.0));
}

static int sym_hardtanh_11(ox_sym *g, const ox_api *api)
{
    return clip_11(g, api, api->arg_float(g, "min_val", -1.0), api->arg_float(g, "max_val", 1.0));
}

/* relu6(self) = hardtanh(self, 0, 6). */
static int sym_relu6_9(ox_sym *g, const ox_api *api) { return clip_9(g, api, 0.0, 6.0); }
static int sym_relu6_11(ox_sym *g, const ox_api *api) { return clip_11(g, api, 0.0, 6.0); }

static ox_vid scalar(ox_sym *g, const ox_api *api, double v, ox_vid like)
{
    ox_vid c = api->scalar_like(g, v, like);
    if (!c)
        api->fail(g, "could not create the constant %g", v);
    return c;
}

/* torch's HardSigmoid is relu6(x + 3) / 6: ONNX's with alpha 1/6, beta 0.5.
 * ONNX Runtime has no float64 HardSigmoid: in float64 it is spelled out,
 * Max(Min(x / 6 + 0.5, 1), 0) (from opset 8, where Max and Min take
 * float64 in ONNX Runtime). */
static ox_vid hard_sigmoid(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (x && api->dtype(g, x) == OX_DOUBLE && api->opset(g) >= 8) {
        ox_vid lin = at_op2(g, api, "Add", at_op2(g, api, "Mul", x, scalar(g, api, 1.0 / 6.0, x)),
                            scalar(g, api, 0.5, x));
        return at_op2(g, api, "Max", at_op2(g, api, "Min", lin, scalar(g, api, 1.0, x)),
                      scalar(g, api, 0.0, x));
    }
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

/* ONNX Runtime runs a float64 HardSwish as its function body, a HardSigmoid
 * it has no float64 kernel for: in float64 opset 9's form, spelled out. */
static int sym_hardswish_14(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && api->dtype(g, x) == OX_DOUBLE)
        return sym_hardswish_9(g, api);
    return unary(g, api, "HardSwish");
}

/* silu(x) = x * sigmoid(x).  ONNX Runtime fuses that pair into its QuickGelu,
 * which has no float64 kernel, so a float64 file would not load: in float64
 * it is x / (1 + exp(-x)), which nothing fuses.  exp(-x) overflowing to inf
 * for very negative x gives x / inf = -0, as torch's silu gives. */
static int sym_silu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x && api->dtype(g, x) == OX_DOUBLE) {
        ox_vid e = at_op1(g, api, "Exp", at_op1(g, api, "Neg", x));
        ox_vid den = at_op2(g, api, "Add", e, scalar(g, api, 1.0, x));
        return oxu_set_result(g, api, 0, at_op2(g, api, "Div", x, den));
    }
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
        inner = at_erf(g, api, at_op2(g, api, "Mul", x, scalar(g, api, M_SQRT1_2, x)));
    }
    ox_vid one_plus = at_op2(g, api, "Add", inner, scalar(g, api, 1.0, x));
    ox_vid half_x = at_op2(g, api, "Mul", x, scalar(g, api, 0.5, x));
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", half_x, one_plus));
}

/* From opset 20 ONNX has Gelu (approximate "none" or "tanh", the same names
 * as torch's).  ONNX Runtime's Gelu kernels are float and float16 only, so
 * other element types keep the formula. */
static int sym_gelu_20(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype t = x ? api->dtype(g, x) : OX_UNDEFINED;
    if (t != OX_FLOAT && t != OX_FLOAT16)
        return sym_gelu(g, api);
    ox_onode *n = api->op(g, "Gelu", 1, &x, 1);
    if (n)
        api->attr_string(n, "approximate", api->arg_string(g, "approximate", "none"));
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gelu"));
}

/* ---------------------------------------------------------------- the ELU family,
 * shrinkage and gated activations (elu, celu, selu, softplus, mish, hardshrink,
 * softshrink, tanhshrink, log_sigmoid, glu, prelu, rrelu) */

/* ONNX Runtime has no float64 kernel for Elu, Selu, Softplus, or (outside
 * opsets 16-18) PRelu and LeakyRelu.  In float64 they are spelled out with ops it does have, in float64
 * (a float32 round trip would lose the precision the user asked for). */
static ox_vid where3(ox_sym *g, const ox_api *api, ox_vid cond, ox_vid a, ox_vid b)
{
    ox_vid in[3] = {cond, a, b};
    return oxu_opn(g, api, "Where", 3, in);
}

static int is_double(ox_sym *g, const ox_api *api, ox_vid x)
{
    return x && api->dtype(g, x) == OX_DOUBLE;
}

/* Measured: ONNX Runtime 1.30 runs float64 PRelu and LeakyRelu at opsets
 * 16-18 only (before 16 and from 19 on it finds no implementation). */
static int ort_has_f64_prelu(ox_sym *g, const ox_api *api)
{
    return api->opset(g) >= 16 && api->opset(g) <= 18;
}

/* Elu(x, alpha); in float64 Where(x > 0, x, alpha (exp(x) - 1)). */
static ox_vid elu_of(ox_sym *g, const ox_api *api, ox_vid x, double alpha)
{
    if (!x)
        return 0;
    if (is_double(g, api, x)) {
        ox_vid em1 = at_op2(g, api, "Sub", at_op1(g, api, "Exp", x), scalar(g, api, 1.0, x));
        return where3(g, api, at_op2(g, api, "Greater", x, scalar(g, api, 0.0, x)), x,
                      at_op2(g, api, "Mul", em1, scalar(g, api, alpha, x)));
    }
    ox_onode *n = api->op(g, "Elu", 1, &x, 1);
    if (n)
        api->attr_float(n, "alpha", alpha);
    return at_out(g, api, n, "Elu");
}

/* Softplus(x); in float64 relu(x) + log(1 + exp(-|x|)), which never overflows. */
static ox_vid softplus_of(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (!is_double(g, api, x))
        return at_op1(g, api, "Softplus", x);
    ox_vid e = at_op1(g, api, "Exp", at_op1(g, api, "Neg", at_op1(g, api, "Abs", x)));
    ox_vid l = at_op1(g, api, "Log", at_op2(g, api, "Add", e, scalar(g, api, 1.0, x)));
    return at_op2(g, api, "Add", at_op1(g, api, "Relu", x), l);
}

/* PRelu(x, slope); in float64 outside opsets 16-18 Where(x < 0, x * slope, x). */
static ox_vid prelu_of(ox_sym *g, const ox_api *api, ox_vid x, ox_vid slope)
{
    if (!is_double(g, api, x) || ort_has_f64_prelu(g, api))
        return at_op2(g, api, "PRelu", x, slope);
    return where3(g, api, at_op2(g, api, "Less", x, scalar(g, api, 0.0, x)),
                  at_op2(g, api, "Mul", x, slope), x);
}

/* scale * Elu(input_scale * x, alpha): selu reaches the dispatcher as elu with
 * scale and input_scale, so they are multiplications around Elu, not refusals. */
static int sym_elu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    double scale = api->arg_float(g, "scale", 1.0);
    double input_scale = api->arg_float(g, "input_scale", 1.0);
    if (x && input_scale != 1.0)
        x = at_op2(g, api, "Mul", x, scalar(g, api, input_scale, x));
    ox_vid y = elu_of(g, api, x, api->arg_float(g, "alpha", 1.0));
    if (y && scale != 1.0)
        y = at_op2(g, api, "Mul", y, scalar(g, api, scale, y));
    return oxu_set_result(g, api, 0, y);
}

/* celu(x, a) = max(0, x) + min(0, a (exp(x / a) - 1)) = a * Elu(x / a, 1).
 * ONNX's Celu (opset 12) takes float32 only: other types, and the opsets
 * before 12, use the Elu form, exact in every floating type. */
static int sym_celu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    double alpha = api->arg_float(g, "alpha", 1.0);
    if (!x)
        return 1;
    if (alpha == 0.0)
        return api->fail(g, "celu's alpha is 0, which torch rejects too (it divides by alpha)");
    if (api->opset(g) >= 12 && api->dtype(g, x) == OX_FLOAT) {
        ox_onode *n = api->op(g, "Celu", 1, &x, 1);
        if (n)
            api->attr_float(n, "alpha", alpha);
        return oxu_set_result(g, api, 0, at_out(g, api, n, "Celu"));
    }
    ox_vid scaled = alpha == 1.0 ? x : at_op2(g, api, "Mul", x, scalar(g, api, 1.0 / alpha, x));
    ox_vid y = elu_of(g, api, scaled, 1.0);
    if (y && alpha != 1.0)
        y = at_op2(g, api, "Mul", y, scalar(g, api, alpha, y));
    return oxu_set_result(g, api, 0, y);
}

/* ONNX's Selu defaults are torch's constants rounded to float; in float64
 * (no Selu kernel in ONNX Runtime) scale * elu(x, alpha) with torch's own. */
static int sym_selu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!is_double(g, api, x))
        return unary(g, api, "Selu");
    const double alpha = 1.6732632423543772848170429916717;
    const double scale = 1.0507009873554804934193349852946;
    ox_vid y = elu_of(g, api, x, alpha);
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", y, scalar(g, api, scale, x)));
}

/* softplus(x) = log(1 + exp(beta x)) / beta, and x itself where beta x >
 * threshold (torch's linear region, which torch.onnx leaves out: with a small
 * threshold the two differ by far more than rounding).  beta 0 gives inf, as
 * in torch. */
static int sym_softplus(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    double beta = api->arg_float(g, "beta", 1.0);
    double threshold = api->arg_float(g, "threshold", 20.0);
    if (!x)
        return 1;
    ox_vid bx = beta == 1.0 ? x : at_op2(g, api, "Mul", x, scalar(g, api, beta, x));
    ox_vid sp = softplus_of(g, api, bx);
    if (sp && beta != 1.0)
        sp = at_op2(g, api, "Div", sp, scalar(g, api, beta, x));
    ox_vid linear = at_op2(g, api, "Greater", bx, scalar(g, api, threshold, x));
    ox_vid in[3] = {linear, x, sp};
    if (!in[0] || !in[2])
        return 1;
    return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Where", 3, in, 1), "Where"));
}

/* mish(x) = x * tanh(softplus(x)) (ONNX's Mish is opset 18). */
static int sym_mish(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0,
                          at_op2(g, api, "Mul", x,
                                 at_op1(g, api, "Tanh", softplus_of(g, api, x))));
}

/* From opset 18 ONNX's Mish; ONNX Runtime's kernel is float only, so
 * other element types keep the formula. */
static int sym_mish_18(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!x || api->dtype(g, x) != OX_FLOAT)
        return sym_mish(g, api);
    return oxu_set_result(g, api, 0, at_op1(g, api, "Mish", x));
}

/* hardshrink and softshrink are ONNX's Shrink (opset 9, every numeric type):
 * y = x + bias below -lambd, x - bias above lambd, else 0; hardshrink has bias 0,
 * softshrink bias lambd. */
static int shrink(ox_sym *g, const ox_api *api, int soft)
{
    ox_vid x = api->arg_tensor(g, "self");
    double lambd = api->arg_float(g, "lambd", 0.5);
    ox_onode *n = x ? api->op(g, "Shrink", 1, &x, 1) : NULL;
    if (n) {
        api->attr_float(n, "lambd", lambd);
        api->attr_float(n, "bias", soft ? lambd : 0.0);
    }
    return oxu_set_result(g, api, 0, x ? at_out(g, api, n, "Shrink") : 0);
}

static int sym_hardshrink(ox_sym *g, const ox_api *api)
{
    return shrink(g, api, 0);
}

static int sym_softshrink(ox_sym *g, const ox_api *api)
{
    return shrink(g, api, 1);
}

static int sym_tanhshrink(ox_sym *g, const ox_api *api)
{
    ox_vid x = at_as_floating(g, api, api->arg_tensor(g, "self")); /* x - tanh(x): float */
    return oxu_set_result(g, api, 0, at_op2(g, api, "Sub", x, at_op1(g, api, "Tanh", x)));
}

/* log(sigmoid(x)) as -softplus(-x): the same function without Log(Sigmoid)'s
 * underflow to -inf for very negative x. */
static int sym_log_sigmoid(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0,
                          at_op1(g, api, "Neg",
                                 softplus_of(g, api, at_op1(g, api, "Neg", x))));
}

/* glu(x, dim) = a * sigmoid(b), a and b the two halves of x along dim. */
static int sym_glu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (!x || oxu_axis(g, api, "dim", api->arg_int(g, "dim", -1), api->rank(g, x), &dim))
        return 1;
    int64_t n = api->size(g, x, (int)dim);
    if (n >= 0 && n % 2 != 0)
        return api->fail(g, "glu halves dimension %lld, of odd size %lld", (long long)dim,
                         (long long)n);
    ox_vid half[2];
    if (oxu_split(g, api, x, dim, NULL, 2, half))
        return 1;
    return oxu_set_result(g, api, 0,
                          at_op2(g, api, "Mul", half[0], at_op1(g, api, "Sigmoid", half[1])));
}

/* prelu: the weight is one slope or one per channel (dimension 1).  ONNX's
 * PRelu broadcasts the slope against x's trailing dimensions, so a per-channel
 * weight gets size-1 dimensions after it for the dimensions past 1; a rank-0
 * input with a one-element weight gets a rank-0 slope (or the result would be
 * rank 1). */
static int sym_prelu(ox_sym *g, const ox_api *api)
{
    ox_vid v[2] = {api->arg_tensor(g, "self"), api->arg_tensor(g, "weight")};
    if (!v[0] || !v[1])
        return api->fail(g, "prelu needs self and weight tensors");
    ox_dtype dt;
    if (oxu_promote(g, api, 2, v, &dt))
        return 1;
    int rank = api->rank(g, v[0]);
    if (rank < 0)
        return api->fail(g, "prelu needs the input's rank, which is unknown; record its sizes");
    int64_t channels = api->size(g, v[1], 0);
    ox_vid slope = v[1];
    if (rank == 0) {
        int64_t axis0 = 0;
        slope = api->rank(g, slope) == 1 ? oxu_squeeze(g, api, slope, &axis0, 1) : slope;
    } else if (rank > 2 && channels != 1) {
        int64_t axes[OXU_MAX_RANK];
        if (rank > OXU_MAX_RANK)
            return api->fail(g, "prelu supports inputs up to rank %d, got rank %d", OXU_MAX_RANK,
                             rank);
        for (int i = 0; i < rank - 2; i++)
            axes[i] = i + 1;
        slope = oxu_unsqueeze_axes(g, api, slope, axes, (size_t)(rank - 2));
    }
    return oxu_set_result(g, api, 0, prelu_of(g, api, v[0], slope));
}

/* LeakyRelu(x, slope); in float64 outside the opsets ONNX Runtime has it
 * for, PRelu's spelled-out form (from opset 9, which it needs). */
static ox_vid leaky_relu_of(ox_sym *g, const ox_api *api, ox_vid x, double slope)
{
    if (!x)
        return 0;
    if (is_double(g, api, x) && !ort_has_f64_prelu(g, api) && api->opset(g) >= 9)
        return prelu_of(g, api, x, scalar(g, api, slope, x));
    ox_onode *n = api->op(g, "LeakyRelu", 1, &x, 1);
    if (n)
        api->attr_float(n, "alpha", slope);
    return at_out(g, api, n, "LeakyRelu");
}

static int sym_leaky_relu(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0,
                          leaky_relu_of(g, api, api->arg_tensor(g, "self"),
                                        api->arg_float(g, "negative_slope", 0.01)));
}

/* rrelu: in eval mode the negative slope is fixed at (lower + upper) / 2, a
 * LeakyRelu; in training mode it is drawn per element from U(lower, upper),
 * PRelu with a RandomUniformLike slope (ONNX Runtime's numbers, not torch's). */
static int sym_rrelu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    double lower = api->arg_float(g, "lower", 0.125);
    double upper = api->arg_float(g, "upper", 1.0 / 3.0);
    if (!x)
        return 1;
    if (!api->arg_int(g, "training", 0)) {
        return oxu_set_result(g, api, 0, leaky_relu_of(g, api, x, (lower + upper) / 2.0));
    }
    ox_onode *r = api->op(g, "RandomUniformLike", 1, &x, 1);
    if (r) {
        api->attr_float(r, "low", lower);
        api->attr_float(r, "high", upper);
    }
    if (r)
        api->attr_int(r, "dtype", (int64_t)api->dtype(g, x));
    return oxu_set_result(g, api, 0, prelu_of(g, api, x, at_out(g, api, r, "RandomUniformLike")));
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

/* torch's schemas (torch._C._jit_get_schemas_for_operator) */
static const ox_param_decl p_elu[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_INT("alpha", OX_ARG_SCALAR, 1),
    OX_PARAM_INT("scale", OX_ARG_SCALAR, 1), OX_PARAM_INT("input_scale", OX_ARG_SCALAR, 1)};
static const ox_param_decl p_celu[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_FLOAT("alpha", OX_ARG_SCALAR, 1.0)};
static const ox_param_decl p_softplus[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           OX_PARAM_INT("beta", OX_ARG_SCALAR, 1),
                                           OX_PARAM_INT("threshold", OX_ARG_SCALAR, 20)};
static const ox_param_decl p_shrink[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         OX_PARAM_FLOAT("lambd", OX_ARG_SCALAR, 0.5)};
static const ox_param_decl p_glu[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                      OX_PARAM_INT("dim", OX_ARG_INT, -1)};
static const ox_param_decl p_prelu[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("weight", OX_ARG_TENSOR)};
/* (the schema's generator is not recorded: the host has no value for it) */
static const ox_param_decl p_rrelu[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM_FLOAT("lower", OX_ARG_SCALAR, 0.125),
                                        OX_PARAM_FLOAT("upper", OX_ARG_SCALAR, 1.0 / 3.0),
                                        OX_PARAM_BOOL("training", 0)};

const ox_op_decl at_ops_activation[] = {
    OX_OP_EX("aten::relu", 7, p_self, 1, sym_relu, 0, check_relu),
    OX_OP("aten::threshold", 9, p_threshold, 1, sym_threshold),
    OX_OP("aten::tanh", 7, p_self, 1, sym_tanh),
    OX_OP("aten::sigmoid", 7, p_self, 1, sym_sigmoid),
    OX_OP("aten::leaky_relu", 7, p_leaky_relu, 1, sym_leaky_relu),
    OX_OP("aten::hardtanh", 7, p_hardtanh, 1, sym_hardtanh_9),
    OX_OP("aten::hardtanh", 11, p_hardtanh, 1, sym_hardtanh_11),
    OX_OP("aten::relu6", 7, p_self, 1, sym_relu6_9),
    OX_OP("aten::relu6", 11, p_self, 1, sym_relu6_11),
    OX_OP("aten::gelu", 9, p_gelu, 1, sym_gelu),
    OX_OP("aten::gelu", 20, p_gelu, 1, sym_gelu_20),
    OX_OP("aten::silu", 7, p_self, 1, sym_silu),
    OX_OP("aten::hardsigmoid", 7, p_self, 1, sym_hardsigmoid),
    OX_OP("aten::hardswish", 7, p_self, 1, sym_hardswish_9),
    OX_OP("aten::hardswish", 14, p_self, 1, sym_hardswish_14),
    OX_OP("aten::elu", 9, p_elu, 1, sym_elu),
    OX_OP("aten::celu", 9, p_celu, 1, sym_celu),
    OX_OP("aten::selu", 9, p_self, 1, sym_selu),
    OX_OP("aten::softplus", 9, p_softplus, 1, sym_softplus),
    OX_OP("aten::mish", 9, p_self, 1, sym_mish),
    OX_OP("aten::mish", 18, p_self, 1, sym_mish_18),
    OX_OP("aten::hardshrink", 9, p_shrink, 1, sym_hardshrink),
    OX_OP("aten::softshrink", 9, p_shrink, 1, sym_softshrink),
    OX_OP("aten::tanhshrink", 9, p_self, 1, sym_tanhshrink),
    OX_OP("aten::log_sigmoid", 9, p_self, 1, sym_log_sigmoid),
    OX_OP("aten::glu", 9, p_glu, 1, sym_glu),
    OX_OP("aten::prelu", 9, p_prelu, 1, sym_prelu),
    OX_OP("aten::rrelu", 9, p_rrelu, 1, sym_rrelu),
};
AT_FAMILY_SIZE(at_ops_activation);
