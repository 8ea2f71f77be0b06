/* Positions in a sorted sequence: aten::bucketize(self, boundaries) and
 * aten::searchsorted(sorted_sequence, self).  The position of x is the
 * number of sequence elements below it (side 'left', right=False: b < x)
 * or at or below it ('right': b <= x, i.e. not x < b): a comparison of x
 * against the whole sequence, summed.  Exact, opset 9 (no ONNX op searches
 * a sorted sequence); it costs len(sequence) comparisons per element. */
#include <stdint.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* seq is [..., M] (1-D for bucketize), x is [..., K] (any shape for a 1-D
 * seq): compare x[..., k, None] with seq[..., None, :], sum the last axis. */
static int positions(ox_sym *g, const ox_api *api, ox_vid seq, ox_vid x, int right)
{
    if (at_promote2(g, api, &seq, &x))
        return 1;
    int seq_rank = api->rank(g, seq), xr = api->rank(g, x);
    if (xr < 0 || seq_rank < 0)
        return api->fail(g, "bucketize/searchsorted need the ranks of their inputs; record them");
    /* [..., M] -> [..., 1, M]; a 1-D sequence broadcasts as it is */
    ox_vid s = seq_rank == 1 ? seq : at_unsqueeze(g, api, seq, seq_rank - 1);
    ox_vid xe = at_unsqueeze(g, api, x, xr);
    ox_vid hit = right ? at_op1(g, api, "Not", at_op2(g, api, "Less", xe, s)) : at_op2(g, api, "Less", s, xe);
    const int64_t last = xr;
    ox_vid count = oxu_reduce(g, api, "ReduceSum", oxu_cast(g, api, hit, OX_INT64), &last, 1, 0);
    ox_dtype out = api->arg_int(g, "out_int32", 0) ? OX_INT32 : OX_INT64;
    return oxu_set_result_as(g, api, 0, count, out);
}

static int sym_bucketize(ox_sym *g, const ox_api *api)
{
    return positions(g, api, api->arg_tensor(g, "boundaries"), api->arg_tensor(g, "self"),
                     (int)api->arg_int(g, "right", 0));
}

static int check_searchsorted(ox_sym *g, const ox_api *api)
{
    if (api->arg_tensor(g, "sorter"))
        return api->limit(g, 0, "searchsorted with a sorter is not exported; sort the sequence first");
    return 0;
}

static int sym_searchsorted(ox_sym *g, const ox_api *api)
{
    int right = (int)api->arg_int(g, "right", 0);
    if (api->arg_kind(g, "side") == OX_ARG_STRING)
        right = strcmp(api->arg_string(g, "side", "left"), "right") == 0;
    return positions(g, api, api->arg_tensor(g, "sorted_sequence"), api->arg_tensor(g, "self"), right);
}

static const ox_param_decl p_bucketize[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("boundaries", OX_ARG_TENSOR),
                                            OX_PARAM_BOOL("out_int32", 0), OX_PARAM_BOOL("right", 0)};
static const ox_param_decl p_searchsorted[] = {
    OX_PARAM("sorted_sequence", OX_ARG_TENSOR), OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_BOOL("out_int32", 0),
    OX_PARAM_BOOL("right", 0),
    {.name = "side", .kind = OX_ARG_STRING, .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_NULL}},
    OX_PARAM_NULL("sorter", OX_ARG_OPT_TENSOR)};

const ox_op_decl at_ops_bucketize[] = {
    OX_OP("aten::bucketize", 9, p_bucketize, 1, sym_bucketize),
    OX_OP_EX("aten::searchsorted", 9, p_searchsorted, 1, sym_searchsorted, 0u, check_searchsorted),
};
AT_FAMILY_SIZE(at_ops_bucketize);
