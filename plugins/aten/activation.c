/* Pointwise activations: relu, tanh, sigmoid, leaky_relu, hardtanh. */
#include "aten_symbolics.h"
#include "aten_util.h"

static int unary(ox_sym *g, const ox_api *api, const char *op_type)
{
    ox_vid y = at_op1(g, api, op_type, api->arg_tensor(g, "self"));
    return y ? api->set_output(g, 0, y) : 1;
}

/* Relu takes integers only from opset 14, and ONNX Runtime has no integer
 * Relu kernel even there: integers become max(x, 0) as Where(x < 0, 0, x),
 * exact, at every opset. */
int at_sym_relu(ox_sym *g, const ox_api *api)
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
    ox_vid y = at_out(g, api, api->op(g, "Where", 3, in, 1), "Where");
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_tanh(ox_sym *g, const ox_api *api)
{
    return unary(g, api, "Tanh");
}

int at_sym_sigmoid(ox_sym *g, const ox_api *api)
{
    return unary(g, api, "Sigmoid");
}

int at_sym_leaky_relu(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "LeakyRelu", 1, &x, 1);
    if (n)
        api->attr_float(n, "alpha", api->arg_float(g, "negative_slope", 0.01));
    ox_vid y = at_out(g, api, n, "LeakyRelu");
    return y ? api->set_output(g, 0, y) : 1;
}

/* Clip's bounds are attributes before opset 11. */
int at_sym_hardtanh_9(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Clip", 1, &x, 1);
    if (n) {
        api->attr_float(n, "min", api->arg_float(g, "min_val", -1.0));
        api->attr_float(n, "max", api->arg_float(g, "max_val", 1.0));
    }
    ox_vid y = at_out(g, api, n, "Clip");
    return y ? api->set_output(g, 0, y) : 1;
}

/* From opset 11 they are inputs typed like x. */
int at_sym_hardtanh_11(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid in[3] = {x, api->scalar_like(g, api->arg_float(g, "min_val", -1.0), x),
                    api->scalar_like(g, api->arg_float(g, "max_val", 1.0), x)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create Clip's bound constants");
    ox_vid y = at_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip");
    return y ? api->set_output(g, 0, y) : 1;
}
