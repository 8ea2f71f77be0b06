/* Binary arithmetic: add/sub (with alpha), mul, div.  A number as `other`
 * becomes a rank-0 constant of self's type, as torch's type promotion keeps
 * the tensor's dtype. */
#include <string.h>

#include "aten_symbolics.h"
#include "aten_util.h"

static int is_number(ox_arg_kind k)
{
    return k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL;
}

/* torch's div is true division: integer operands give a float result, where
 * ONNX Div would truncate. */
static int true_div(ox_sym *g, const ox_api *api)
{
    ox_vid x = at_cast(g, api, api->arg_tensor(g, "self"), OX_FLOAT);
    ox_vid other;
    if (is_number(api->arg_kind(g, "other"))) {
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
    return y ? api->set_output(g, 0, y) : 1;
}

static int binary(ox_sym *g, const ox_api *api, const char *type, int with_alpha)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (strcmp(type, "Div") == 0 && at_is_integer(api->dtype(g, x)))
        return true_div(g, api);
    double alpha = with_alpha ? api->arg_float(g, "alpha", 1.0) : 1.0;
    ox_vid other;
    if (is_number(api->arg_kind(g, "other"))) {
        /* Fold alpha into the number. */
        other = api->scalar_like(g, api->arg_float(g, "other", 0.0) * alpha, x);
        if (!other)
            return api->fail(g, "could not create the constant for 'other'");
    } else {
        other = api->arg_tensor(g, "other");
        if (!other)
            return api->fail(g, "argument 'other' is missing or None");
        if (at_promote2(g, api, &x, &other))
            return 1;
        if (alpha != 1.0) {
            ox_vid a = api->scalar_like(g, alpha, other);
            if (!a)
                return api->fail(g, "could not create the constant for 'alpha'");
            other = at_op2(g, api, "Mul", other, a);
        }
    }
    ox_vid y = at_op2(g, api, type, x, other);
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_add(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Add", 1);
}

int at_sym_sub(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Sub", 1);
}

int at_sym_mul(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Mul", 0);
}

int at_sym_div(ox_sym *g, const ox_api *api)
{
    return binary(g, api, "Div", 0);
}
