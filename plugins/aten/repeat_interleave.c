/* aten::repeat_interleave(repeats): the positions 0, 1, ... each repeated
 * repeats[i] times, e.g. [2, 0, 1] -> [0, 0, 2] (torch.repeat_interleave
 * with a tensor of repeats dispatches to it, then index_selects with the
 * result; with an int it builds the positions itself, a constant).
 *
 * Output element j is the number of cumulative counts at or below j:
 * CumSum(repeats) compared with Range(0, total) + 1 and summed, which needs
 * CumSum and Range, from opset 11. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_repeat_interleave(ox_sym *g, const ox_api *api)
{
    ox_vid r = oxu_cast_to(g, api, api->arg_tensor(g, "repeats"), OX_INT64);
    if (r && api->rank(g, r) == 0)
        r = at_unsqueeze(g, api, r, 0);
    ox_vid cum = at_op2(g, api, "CumSum", r, oxu_const_int(g, api, 0));
    ox_vid total = oxu_reduce(g, api, "ReduceSum", r, NULL, 0, 0);
    ox_vid range_in[3] = {oxu_const_int(g, api, 0), total, oxu_const_int(g, api, 1)};
    ox_vid pos = oxu_opn(g, api, "Range", 3, range_in);
    ox_vid next = at_op2(g, api, "Add", pos, oxu_const_int(g, api, 1));
    /* below[j][i] = cum[i] < j + 1, i.e. cum[i] <= j */
    ox_vid below = at_op2(g, api, "Less", at_unsqueeze(g, api, cum, 0), at_unsqueeze(g, api, next, 1));
    const int64_t axis = 1;
    ox_vid y = oxu_reduce(g, api, "ReduceSum", oxu_cast(g, api, below, OX_INT64), &axis, 1, 0);
    return oxu_set_result_recorded(g, api, 0, y);
}

static const ox_param_decl p_repeat_interleave[] = {OX_PARAM("repeats", OX_ARG_TENSOR),
                                                    OX_PARAM_NULL("output_size", OX_ARG_INT)};

const ox_op_decl at_ops_repeat_interleave[] = {
    OX_OP("aten::repeat_interleave", 11, p_repeat_interleave, 1, sym_repeat_interleave),
};
AT_FAMILY_SIZE(at_ops_repeat_interleave);
