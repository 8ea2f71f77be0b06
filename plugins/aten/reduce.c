/* aten::mean(dim, keepdim, dtype) -> ReduceMean (axes stay an attribute up to
 * opset 17). */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_mean(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    /* Read the rank before the Cast: its output carries no type yet. */
    int rank = api->rank(g, x);
    if (api->arg_kind(g, "dtype") == OX_ARG_DTYPE)
        x = at_cast(g, api, x, (ox_dtype)api->arg_int(g, "dtype", OX_FLOAT));
    if (!x)
        return 1;
    const int64_t *dims = NULL;
    size_t n = api->arg_ints(g, "dim", &dims);
    if (n > AT_MAX_RANK)
        return api->fail(g, "argument 'dim' has %zu entries; at most %d are supported", n,
                         AT_MAX_RANK);
    int64_t axes[AT_MAX_RANK];
    for (size_t i = 0; i < n; i++)
        if (at_axis(g, api, "dim", dims[i], rank, &axes[i]))
            return 1;
    ox_onode *r = api->op(g, "ReduceMean", 1, &x, 1);
    if (r) {
        /* An empty dim list reduces everything, as omitting axes does. */
        if (n)
            api->attr_ints(r, "axes", axes, n);
        api->attr_int(r, "keepdims", api->arg_int(g, "keepdim", 0) != 0);
    }
    ox_vid y = at_out(g, api, r, "ReduceMean");
    return y ? api->set_output(g, 0, y) : 1;
}
