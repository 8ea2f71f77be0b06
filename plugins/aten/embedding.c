/* aten::embedding -> Gather rows of the weight.  padding_idx, sparse and
 * scale_grad_by_freq only affect gradients. */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_embedding(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "Gather", api->arg_tensor(g, "weight"),
                      api->arg_tensor(g, "indices"));
    return y ? api->set_output(g, 0, y) : 1;
}

/* one_hot -> OneHot(indices, depth, [0, 1]) along a new last axis, in the
 * indices' int64 (torch's result type). */
int at_sym_one_hot(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t n = api->arg_int(g, "num_classes", -1);
    if (n <= 0)
        return api->fail(g, "argument 'num_classes' is %lld; one_hot is exported with an "
                            "explicit class count",
                         (long long)n);
    int64_t values[2] = {0, 1}, two = 2;
    ox_vid in[3] = {x, api->const_ints(g, &n, 1), api->constant(g, OX_INT64, 1, &two, values)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create the OneHot constants");
    ox_onode *o = api->op(g, "OneHot", 3, in, 1);
    if (o)
        api->attr_int(o, "axis", -1);
    ox_vid y = at_out(g, api, o, "OneHot");
    return y ? api->set_output(g, 0, y) : 1;
}
