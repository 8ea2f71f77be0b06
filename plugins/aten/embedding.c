/* aten::embedding -> Gather rows of the weight.  padding_idx, sparse and
 * scale_grad_by_freq only affect gradients. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_embedding(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "Gather", api->arg_tensor(g, "weight"),
                      api->arg_tensor(g, "indices"));
    return oxu_set_result(g, api, 0, y);
}

/* one_hot -> OneHot(indices, depth, [0, 1]) along a new last axis, in the
 * indices' int64 (torch's result type). */
/* The class count torch infers from the data (num_classes=-1) is a value
 * of the input, which the file cannot read at export: stated before
 * conversion. */
static int check_one_hot(ox_sym *g, const ox_api *api)
{
    int64_t n = api->arg_int(g, "num_classes", -1);
    if (n <= 0)
        return api->limit(g, 0, "argument 'num_classes' is %lld; one_hot is exported with an "
                                "explicit class count",
                          (long long)n);
    return 0;
}

static int sym_one_hot(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t n = api->arg_int(g, "num_classes", -1);
    int64_t values[2] = {0, 1}, two = 2;
    ox_vid in[3] = {x, api->const_ints(g, &n, 1), api->constant(g, OX_INT64, 1, &two, values)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create the OneHot constants");
    ox_onode *o = api->op(g, "OneHot", 3, in, 1);
    if (o)
        api->attr_int(o, "axis", -1);
    return oxu_set_result(g, api, 0, at_out(g, api, o, "OneHot"));
}

static const ox_param_decl p_embedding[] = {
    OX_PARAM("weight", OX_ARG_TENSOR), OX_PARAM("indices", OX_ARG_TENSOR),
    OX_PARAM_INT("padding_idx", OX_ARG_INT, -1), OX_PARAM_BOOL("scale_grad_by_freq", 0),
    OX_PARAM_BOOL("sparse", 0)};
/* num_classes=-1 (torch's default: read from the data) is refused above. */
static const ox_param_decl p_one_hot[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM_INT("num_classes", OX_ARG_INT, -1)};

const ox_op_decl at_ops_embedding[] = {
    OX_OP("aten::embedding", 7, p_embedding, 1, sym_embedding),
    OX_OP_EX("aten::one_hot", 9, p_one_hot, 1, sym_one_hot, 0, check_one_hot),
};
AT_FAMILY_SIZE(at_ops_embedding);
