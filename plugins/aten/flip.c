/* aten::flip: the order of elements reversed along dims.  Slice with step
 * -1 from opset 10; at opset 9, where Slice has no steps, a Gather of the
 * reversed positions, computed from the size at run time. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_flip(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *dims = NULL;
    size_t nd = api->arg_ints(g, "dims", &dims);
    int rank = api->rank(g, x);
    if (nd > AT_MAX_RANK)
        return api->fail(g, "argument 'dims' has %zu values; flip supports up to %d", nd, AT_MAX_RANK);
    int64_t axes[AT_MAX_RANK], starts[AT_MAX_RANK], ends[AT_MAX_RANK], steps[AT_MAX_RANK];
    for (size_t i = 0; i < nd; i++) {
        if (at_axis(g, api, "dims", dims[i], rank, &axes[i]))
            return 1;
        starts[i] = -1;
        ends[i] = INT64_MIN; /* past the first element, whatever the size */
        steps[i] = -1;
    }
    if (nd == 0)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    if (api->opset(g) >= 10)
        return oxu_set_result(g, api, 0, oxu_slice_axes(g, api, x, nd, axes, starts, ends, steps));
    for (size_t i = 0; i < nd && x; i++) {
        /* n - 1 - k for k = 0..n-1, n read at run time: the positions of
         * NonZero over n ones (the range that opset 9 has) */
        ox_vid n = oxu_size_of(g, api, x, axes[i]);
        ox_vid ones = oxu_full(g, api, at_unsqueeze(g, api, n, 0), 1.0, OX_FLOAT);
        int64_t zero = 0;
        ox_vid k = at_squeeze(g, api, at_op1(g, api, "NonZero", ones), &zero, 1);
        ox_vid last = at_op2(g, api, "Sub", n, oxu_const_int(g, api, 1));
        ox_vid pos = at_op2(g, api, "Sub", last, k);
        ox_onode *gn = pos ? api->op(g, "Gather", 2, (ox_vid[]){x, pos}, 1) : NULL;
        if (gn)
            api->attr_int(gn, "axis", axes[i]);
        x = pos ? at_out(g, api, gn, "Gather") : 0;
    }
    return oxu_set_result(g, api, 0, x);
}

static const ox_param_decl p_flip[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dims", OX_ARG_INTS)};

const ox_op_decl at_ops_flip[] = {
    OX_OP("aten::flip", 9, p_flip, 1, sym_flip),
};
AT_FAMILY_SIZE(at_ops_flip);
