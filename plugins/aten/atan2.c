/* atan2(y, x): the angle of the point (x, y) in all four quadrants.  ONNX
 * has no Atan2, and its Atan has no float64 kernel in ONNX Runtime, so the
 * lowering reduces to the arctangent of a ratio in [0, 1] (Atan in float32,
 * an argument-halving series in float64) and places it by the signs.  The
 * float64 atan, asin and acos of math.c are this atan2 too. */
#include <math.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* arctan(t) for t in [0, 1] in float64 from operators ONNX Runtime runs in
 * float64: three halvings atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))) bring t
 * under tan(pi/32) ~ 0.0985, where the Taylor series to u^17/17 leaves a
 * remainder below u^19/19 < 1e-20, far under double's rounding; the
 * halvings' rounding (a few ulps) is what remains. */
static ox_vid atan_unit_f64(ox_sym *g, const ox_api *api, ox_vid t)
{
    ox_vid one = oxu_scalar_like(g, api, 1.0, t);
    ox_vid u = t;
    for (int i = 0; i < 3; i++) {
        ox_vid r = oxu_op1(g, api, "Sqrt", oxu_op2(g, api, "Add", one, oxu_op2(g, api, "Mul", u, u)));
        u = oxu_op2(g, api, "Div", u, oxu_op2(g, api, "Add", one, r));
    }
    ox_vid s = oxu_op2(g, api, "Mul", u, u);
    /* Horner in s: 1 - s/3 + s^2/5 - ... + s^8/17 */
    ox_vid p = oxu_scalar_like(g, api, 1.0 / 17.0, t);
    for (int k = 7; k >= 0; k--) {
        double c = (k % 2 ? -1.0 : 1.0) / (2.0 * k + 1.0);
        p = oxu_op2(g, api, "Add", oxu_op2(g, api, "Mul", p, s), oxu_scalar_like(g, api, c, t));
    }
    return oxu_op2(g, api, "Mul", oxu_op2(g, api, "Mul", u, p), oxu_scalar_like(g, api, 8.0, t));
}

/* v < 0, or v is -0 (1 / -0 is -inf): the half-plane IEEE atan2 reads from
 * the sign bit, so atan2(0, -0) is pi as torch has it. */
static ox_vid negative(ox_sym *g, const ox_api *api, ox_vid v)
{
    ox_vid zero = oxu_scalar_like(g, api, 0.0, v);
    return oxu_op2(g, api, "Or", oxu_op2(g, api, "Less", v, zero),
                   oxu_op2(g, api, "Less", oxu_op1(g, api, "Reciprocal", v), zero));
}

/* t = min(|y|, |x|) / max(|y|, |x|) in [0, 1] (NaN stays NaN), a = atan(t),
 * then pi/2 - a where |y| > |x|, pi - a where x is negative, -a where y is.
 * 0/0 and inf/inf are settled before the division: t = 0 when both are 0
 * (atan2(0, 0) = 0, placed by the signs), 1 when both are infinite (pi/4). */
ox_vid at_atan2(ox_sym *g, const ox_api *api, ox_vid y, ox_vid x)
{
    ox_vid ay = oxu_op1(g, api, "Abs", y), ax = oxu_op1(g, api, "Abs", x);
    ox_vid swap = oxu_op2(g, api, "Greater", ay, ax);
    ox_vid hi = oxu_where(g, api, swap, ay, ax), lo = oxu_where(g, api, swap, ax, ay);
    /* lo == hi without a NaN: Equal takes floats only from opset 11, and
     * lo <= hi holds unless one is NaN */
    ox_vid same = oxu_op1(g, api, "Not",
                          oxu_op2(g, api, "Or", oxu_op2(g, api, "Less", lo, hi),
                                  oxu_op1(g, api, "IsNaN", oxu_op2(g, api, "Add", lo, hi))));
    ox_dtype dt = api->dtype(g, y);
    ox_vid both = oxu_cast(g, api, oxu_op2(g, api, "Greater", hi, oxu_scalar_like(g, api, 0.0, hi)), dt);
    ox_vid t = oxu_where(g, api, same, both, oxu_op2(g, api, "Div", lo, hi));
    ox_vid a = dt == OX_DOUBLE ? atan_unit_f64(g, api, t) : oxu_op1(g, api, "Atan", t);
    a = oxu_where(g, api, swap, oxu_op2(g, api, "Sub", oxu_scalar_like(g, api, M_PI / 2, a), a), a);
    a = oxu_where(g, api, negative(g, api, x),
                  oxu_op2(g, api, "Sub", oxu_scalar_like(g, api, M_PI, a), a), a);
    return oxu_where(g, api, negative(g, api, y), oxu_op1(g, api, "Neg", a), a);
}

/* Both operands in torch's result type; integers and bools compute in the
 * floating type the host recorded (float32 by default), as torch's does. */
static int sym_atan2(ox_sym *g, const ox_api *api)
{
    static const char *const names[] = {"self", "other"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    ox_dtype t = api->dtype(g, v[0]);
    if (!oxu_is_floating(t) || t == OX_UNDEFINED) {
        ox_dtype to = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
        to = oxu_is_floating(to) && to != OX_UNDEFINED ? to : OX_FLOAT;
        v[0] = oxu_cast(g, api, v[0], to);
        v[1] = oxu_cast(g, api, v[1], to);
    }
    if (!v[0] || !v[1])
        return 1;
    return oxu_set_result_recorded(g, api, 0, at_atan2(g, api, v[0], v[1]));
}

static const ox_param_decl p_atan2[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR)};

const ox_op_decl at_ops_atan2[] = {
    /* Where and IsNaN appear at opset 9 */
    OX_OP("aten::atan2", 9, p_atan2, 1, sym_atan2),
};
AT_FAMILY_SIZE(at_ops_atan2);
