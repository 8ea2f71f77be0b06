/* aten::repeat_interleave, in the two forms a host records:
 *
 * - the positions form, repeat_interleave(repeats): the positions 0, 1, ...
 *   each repeated repeats[i] times, e.g. [2, 0, 1] -> [0, 0, 2]
 *   (torch.repeat_interleave with a tensor of repeats dispatches to it,
 *   then index_selects with the result);
 * - the self form, repeat_interleave(self, repeats: int, dim): every element
 *   of self repeated along dim (the PyTorch host records torch's int-repeats
 *   call so, because ATen would build the positions from self's size as a
 *   constant, which could not follow a dynamic axis).
 *
 * The self form is Unsqueeze, Expand and Reshape over sizes read at run
 * time: every opset from 9.  The positions form from opset 11 counts, for
 * output element j, the cumulative counts at or below j: CumSum(repeats)
 * compared with Range(0, total) + 1 and summed.  Before 11 (no CumSum, no
 * Range) it concatenates one Expand(i, [repeats[i]]) per position, as
 * torch.onnx's opset-9 symbolic does, which needs the number of repeats at
 * export time (check_repeat_interleave): the recorded one, so a dynamic
 * axis of the repeats does not follow before opset 11 (docs/pytorch.md,
 * known gaps: symbolics that read a recorded size). */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The positions form before opset 11 concatenates one Expand per position. */
#define POSITIONS_9_MAX 1024

static int check_repeat_interleave(ox_sym *g, const ox_api *api)
{
    if (api->arg_tensor(g, "self") || api->opset(g) >= 11)
        return 0;
    ox_vid r = api->arg_tensor(g, "repeats");
    if (!r)
        return 0;
    int rank = api->rank(g, r);
    int64_t n = rank == 0 ? 1 : rank == 1 ? api->size(g, r, 0) : -1;
    if (rank == 1 && n < 0)
        return api->limit(g, 11, "a tensor of repeats of unknown length needs CumSum and Range");
    if (n > POSITIONS_9_MAX)
        return api->limit(g, 11, "%lld repeats would take one Expand each before CumSum and Range "
                                 "(at most %d)",
                          (long long)n, POSITIONS_9_MAX);
    return 0;
}

/* The self form: y = Reshape(Expand(Unsqueeze(x, d + 1), sizes of x with r
 * inserted after d), sizes of x with size d times r). */
static int self_form(ox_sym *g, const ox_api *api, ox_vid x)
{
    if (api->arg_kind(g, "repeats") != OX_ARG_INT)
        return api->fail(g, "repeat_interleave(self, repeats) is recorded with an int of repeats "
                            "(a tensor of repeats is recorded as the positions form)");
    int64_t r = api->arg_int(g, "repeats", 1);
    if (r < 0)
        return api->fail(g, "repeats must be non-negative, got %lld", (long long)r);
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "repeat_interleave needs the input's rank; record the input's sizes");
    int64_t d = 0;
    if (api->arg_kind(g, "dim") == OX_ARG_NONE) {
        /* no dim: over the flattened tensor */
        const int64_t flat = -1;
        x = oxu_reshape(g, api, x, &flat, 1);
        rank = 1;
    } else if (oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &d)) {
        return 1;
    }
    ox_vid rv = oxu_const_ints(g, api, &r, 1);
    ox_vid grown[3], merged[3];
    size_t ng = 0, nm = 0;
    grown[ng++] = oxu_shape_slice(g, api, x, 0, d + 1);
    grown[ng++] = rv;
    if (d > 0)
        merged[nm++] = oxu_shape_slice(g, api, x, 0, d);
    merged[nm++] = oxu_op2(g, api, "Mul", oxu_shape_slice(g, api, x, d, d + 1), rv);
    if (d + 1 < rank) {
        ox_vid tail = oxu_shape_slice(g, api, x, d + 1, rank);
        grown[ng++] = tail;
        merged[nm++] = tail;
    }
    ox_vid e = oxu_op2(g, api, "Expand", oxu_unsqueeze(g, api, x, d + 1), oxu_concat(g, api, grown, ng, 0));
    return oxu_set_result_recorded(g, api, 0, oxu_op2(g, api, "Reshape", e, oxu_concat(g, api, merged, nm, 0)));
}

/* The positions form from opset 11. */
static ox_vid positions_11(ox_sym *g, const ox_api *api, ox_vid r)
{
    ox_vid cum = at_op2(g, api, "CumSum", r, oxu_const_int(g, api, 0));
    ox_vid total = oxu_reduce(g, api, "ReduceSum", r, NULL, 0, 0);
    ox_vid range_in[3] = {oxu_const_int(g, api, 0), total, oxu_const_int(g, api, 1)};
    ox_vid pos = oxu_opn(g, api, "Range", 3, range_in);
    ox_vid next = at_op2(g, api, "Add", pos, oxu_const_int(g, api, 1));
    /* below[j][i] = cum[i] < j + 1, i.e. cum[i] <= j */
    ox_vid below = at_op2(g, api, "Less", at_unsqueeze(g, api, cum, 0), at_unsqueeze(g, api, next, 1));
    const int64_t axis = 1;
    return oxu_reduce(g, api, "ReduceSum", oxu_cast(g, api, below, OX_INT64), &axis, 1, 0);
}

/* The positions form before opset 11: Concat(Expand([i], repeats[i:i+1])...)
 * over the n repeats known at export time (check_repeat_interleave). */
static ox_vid positions_9(ox_sym *g, const ox_api *api, ox_vid r)
{
    int64_t n = oxu_fixed_size(g, api, r, 0);
    if (n < 0 || n > POSITIONS_9_MAX) {
        api->fail(g, "the number of repeats is unknown or above %d", POSITIONS_9_MAX);
        return 0;
    }
    if (n == 0) {
        const int64_t zero = 0;
        return oxu_full(g, api, oxu_const_ints(g, api, &zero, 1), 0.0, OX_INT64);
    }
    ox_vid parts[POSITIONS_9_MAX];
    for (int64_t i = 0; i < n; i++) {
        parts[i] = at_op2(g, api, "Expand", oxu_const_ints(g, api, &i, 1), oxu_slice(g, api, r, 0, i, i + 1, 1));
        if (!parts[i])
            return 0;
    }
    return n == 1 ? parts[0] : oxu_concat(g, api, parts, (size_t)n, 0);
}

static int sym_repeat_interleave(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (x)
        return self_form(g, api, x);
    ox_vid r = oxu_cast_to(g, api, api->arg_tensor(g, "repeats"), OX_INT64);
    if (r && api->rank(g, r) == 0)
        r = at_unsqueeze(g, api, r, 0);
    ox_vid y = api->opset(g) >= 11 ? positions_11(g, api, r) : positions_9(g, api, r);
    return oxu_set_result_recorded(g, api, 0, y);
}

/* self is absent in the positions form; repeats is a tensor there and an int
 * in the self form. */
static const ox_param_decl p_repeat_interleave[] = {
    OX_PARAM_NULL("self", OX_ARG_TENSOR),
    {.name = "repeats", .kind = OX_ARG_TENSOR, .alt_kinds = OX_KIND_BIT(OX_ARG_INT)},
    OX_PARAM_NULL("dim", OX_ARG_INT), OX_PARAM_NULL("output_size", OX_ARG_INT)};

const ox_op_decl at_ops_repeat_interleave[] = {
    OX_OP_EX("aten::repeat_interleave", 9, p_repeat_interleave, 1, sym_repeat_interleave, 0u,
             check_repeat_interleave),
};
AT_FAMILY_SIZE(at_ops_repeat_interleave);
