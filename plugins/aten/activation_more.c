/* Activations of the mobile and transformer families: gelu, silu, hardswish,
 * hardsigmoid.  ONNX has no Gelu before opset 20 and no HardSwish before 14,
 * so they are spelled out with the primitives every opset from 9 has. */
#include <math.h>
#include <string.h>

#include "aten_symbolics.h"
#include "aten_util.h"

static int done(ox_sym *g, const ox_api *api, ox_vid y)
{
    return y ? api->set_output(g, 0, y) : 1;
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

int at_sym_hardsigmoid(ox_sym *g, const ox_api *api)
{
    return done(g, api, hard_sigmoid(g, api, api->arg_tensor(g, "self")));
}

int at_sym_hardswish_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return done(g, api, at_op2(g, api, "Mul", x, hard_sigmoid(g, api, x)));
}

int at_sym_hardswish_14(ox_sym *g, const ox_api *api)
{
    return done(g, api, at_op1(g, api, "HardSwish", api->arg_tensor(g, "self")));
}

int at_sym_silu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return done(g, api, at_op2(g, api, "Mul", x, at_op1(g, api, "Sigmoid", x)));
}

/* approximate='none': x/2 * (1 + erf(x / sqrt 2));
 * approximate='tanh': x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). */
int at_sym_gelu(ox_sym *g, const ox_api *api)
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
    } else if (strcmp(approx, "none") == 0) {
        inner = at_op1(g, api, "Erf", at_op2(g, api, "Mul", x, scalar(g, api, M_SQRT1_2, x)));
    } else {
        return api->fail(g, "argument 'approximate' is '%s'; expected 'none' or 'tanh'", approx);
    }
    ox_vid one_plus = at_op2(g, api, "Add", inner, scalar(g, api, 1.0, x));
    ox_vid half_x = at_op2(g, api, "Mul", x, scalar(g, api, 0.5, x));
    return done(g, api, at_op2(g, api, "Mul", half_x, one_plus));
}
