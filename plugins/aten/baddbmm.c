/* aten::baddbmm: beta * self + alpha * (batch1 @ batch2) -> MatMul, Add (and
 * Mul for a beta or alpha other than 1).  nn.MultiheadAttention's dispatcher
 * path uses it to add an attention mask to q @ k^T. */
#include "aten_symbolics.h"
#include "aten_util.h"

static ox_vid scaled(ox_sym *g, const ox_api *api, ox_vid v, double k)
{
    if (!v || k == 1.0)
        return v;
    ox_vid c = api->scalar_like(g, k, v);
    if (!c) {
        api->fail(g, "could not create the constant %g", k);
        return 0;
    }
    return at_op2(g, api, "Mul", v, c);
}

int at_sym_baddbmm(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    ox_vid prod = at_op2(g, api, "MatMul", api->arg_tensor(g, "batch1"),
                         api->arg_tensor(g, "batch2"));
    prod = scaled(g, api, prod, api->arg_float(g, "alpha", 1.0));
    double beta = api->arg_float(g, "beta", 1.0);
    ox_vid y = beta == 0.0 ? prod : at_op2(g, api, "Add", scaled(g, api, self, beta), prod);
    return y ? api->set_output(g, 0, y) : 1;
}
