/* Sizes as traced values: aten::size / aten::numel read a tensor's size at
 * run time (a rank-0 int64), so a shape computed from it follows the input. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_size(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    ox_vid shape = at_op1(g, api, "Shape", x);
    ox_vid idx = api->constant(g, OX_INT64, 0, NULL, &dim);
    if (!idx)
        return api->fail(g, "could not create the index constant");
    ox_vid in[2] = {shape, idx};
    if (!shape)
        return 1;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gather"));
}

static int sym_numel(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, "Size", api->arg_tensor(g, "self")));
}

static const ox_param_decl p_size[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT)};
static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};

const ox_op_decl at_ops_size[] = {
    OX_OP("aten::size", 7, p_size, 1, sym_size),
    OX_OP("aten::numel", 7, p_self, 1, sym_numel),
};
AT_FAMILY_SIZE(at_ops_size);
