/* aten::index with one integer index tensor (x[idx], x[:, idx]) -> Gather on
 * that axis.  Several index tensors broadcast against each other in torch
 * (advanced indexing), which one Gather cannot express. */
#include "aten_symbolics.h"
#include "aten_util.h"

int at_sym_index(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const ox_vid *idx = NULL;
    size_t n = api->arg_tensors(g, "indices", &idx);
    ox_vid which = 0;
    int64_t axis = -1;
    for (size_t i = 0; i < n; i++) {
        if (!idx[i])
            continue;
        if (which)
            return api->fail(g, "argument 'indices' has more than one index tensor (advanced "
                                "indexing); index one dim at a time");
        which = idx[i];
        axis = (int64_t)i;
    }
    if (!which)
        return api->fail(g, "argument 'indices' holds no index tensor");
    ox_dtype dt = api->dtype(g, which);
    if (dt == OX_BOOL || dt == OX_UINT8)
        return api->fail(g, "argument 'indices' is a boolean mask; masks select a data-dependent "
                            "number of elements, use torch.where or masked_fill instead");
    ox_onode *gather = api->op(g, "Gather", 2, (ox_vid[]){x, which}, 1);
    if (gather)
        api->attr_int(gather, "axis", axis);
    ox_vid y = at_out(g, api, gather, "Gather");
    return y ? api->set_output(g, 0, y) : 1;
}
