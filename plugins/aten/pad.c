/* Padding -> Pad: constant_pad_nd (attributes before opset 11, inputs
 * after), reflection and replication padding (mode reflect / edge).  The
 * padding list is torch's (begin, end) pairs from the last dim backwards.
 * aten::pad (F.pad at the dispatcher) takes the mode; circular padding is
 * Slice and Concat, and from opset 19 Pad's wrap mode. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int pad_mode(ox_sym *g, const ox_api *api, const char *mode)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *pad = NULL;
    size_t np = api->arg_ints(g, "padding", &pad);
    int rank = api->rank(g, x);
    if (rank < 0 || rank > AT_MAX_RANK)
        return api->fail(g, "padding needs an input of known rank up to %d (got %d)", AT_MAX_RANK,
                         rank);
    if (np % 2 != 0 || np / 2 > (size_t)rank)
        return api->fail(g, "argument 'padding' has %zu values; expected an even count of at "
                            "most %d for a rank-%d input",
                         np, 2 * rank, rank);
    int64_t pads[2 * AT_MAX_RANK] = {0};
    for (size_t i = 0; i < np / 2; i++) {
        size_t dim = (size_t)rank - 1 - i;
        pads[dim] = pad[2 * i];
        pads[(size_t)rank + dim] = pad[2 * i + 1];
        if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
            return api->fail(g, "argument 'padding' has a negative value; %s padding only grows",
                             mode);
    }
    ox_onode *p;
    if (api->opset(g) < 11) {
        p = api->op(g, "Pad", 1, &x, 1);
        if (p)
            api->attr_ints(p, "pads", pads, 2 * (size_t)rank);
    } else {
        ox_vid in[2] = {x, api->const_ints(g, pads, 2 * (size_t)rank)};
        if (!in[1])
            return api->fail(g, "could not create the pads constant of Pad");
        p = api->op(g, "Pad", 2, in, 1);
    }
    if (p)
        api->attr_string(p, "mode", mode);
    return oxu_set_result(g, api, 0, at_out(g, api, p, "Pad"));
}

static int sym_reflection_pad(ox_sym *g, const ox_api *api)
{
    return pad_mode(g, api, "reflect");
}

static int sym_replication_pad(ox_sym *g, const ox_api *api)
{
    return pad_mode(g, api, "edge");
}

static int sym_constant_pad_nd(ox_sym *g, const ox_api *api)
{
    return at_constant_pad(g, api, "self", "value");
}

/* Before opset 11 Pad's amounts are an attribute, so they cannot follow
 * traced sizes. */
static int check_constant_pad_nd(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 11 && api->arg_kind(g, "pad") == OX_ARG_TENSOR)
        return api->limit(g, 11, "pad amounts computed from traced sizes need Pad's pads input");
    return 0;
}

/* Circular padding of one dimension: the last `before` elements, x, the
 * first `after` (Slice with negative starts, so any size at run time). */
static ox_vid pad_circular_dim(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis,
                               int64_t before, int64_t after)
{
    ox_vid parts[3];
    size_t n = 0;
    if (before > 0)
        parts[n++] = oxu_slice(g, api, x, axis, -before, INT64_MAX, 1);
    parts[n++] = x;
    if (after > 0)
        parts[n++] = oxu_slice(g, api, x, axis, 0, after, 1);
    return n == 1 ? x : oxu_concat(g, api, parts, n, axis);
}

static int pad_circular(ox_sym *g, const ox_api *api, ox_vid x);

/* _pad_circular(self, pad): F.pad's circular mode under its own name. */
static int sym_pad_circular(ox_sym *g, const ox_api *api)
{
    return pad_circular(g, api, api->arg_tensor(g, "self"));
}

/* aten::pad, F.pad's dispatcher form: every mode.  circular wraps around
 * (torch allows at most one period); the others are Pad's modes. */
static int sym_pad(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const char *mode = api->arg_string(g, "mode", "constant");
    if (strcmp(mode, "constant") == 0)
        return oxu_set_result(g, api, 0,
                              oxu_pad_arg(g, api, x, "pad", "constant",
                                          api->arg_float(g, "value", 0.0)));
    if (strcmp(mode, "reflect") == 0 || strcmp(mode, "replicate") == 0)
        return oxu_set_result(g, api, 0,
                              oxu_pad_arg(g, api, x, "pad",
                                          mode[2] == 'f' ? "reflect" : "edge", 0.0));
    if (strcmp(mode, "circular") != 0)
        return api->fail(g, "argument 'mode' is \"%s\"; expected \"constant\", \"reflect\", "
                            "\"replicate\" or \"circular\"",
                         mode);
    return pad_circular(g, api, x);
}

/* Circular padding by the `pad` list (torch's order: last dim first), each
 * amount at most the dimension's size (torch allows one period). */
static int pad_circular(ox_sym *g, const ox_api *api, ox_vid x)
{
    const int64_t *pad = NULL;
    size_t np = api->arg_ints(g, "pad", &pad);
    int rank = api->rank(g, x);
    int64_t pads[2 * OXU_MAX_RANK];
    if (oxu_pads_from_torch(g, api, "pad", pad, np, rank, pads))
        return 1;
    for (int d = 0; d < rank && x; d++) {
        int64_t len = api->size(g, api->arg_tensor(g, "self"), d);
        if (pads[d] < 0 || pads[rank + d] < 0 ||
            (len >= 0 && (pads[d] > len || pads[rank + d] > len)))
            return api->fail(g, "circular padding of dimension %d by (%lld, %lld): each amount "
                                "must lie in [0, %lld], the dimension's size",
                             d, (long long)pads[d], (long long)pads[rank + d], (long long)len);
        if (api->opset(g) < 19)
            x = pad_circular_dim(g, api, x, d, pads[d], pads[rank + d]);
    }
    if (api->opset(g) >= 19)
        x = oxu_pad(g, api, x, "wrap", pads, 2 * (size_t)rank, 0.0);
    return oxu_set_result(g, api, 0, x);
}

/* mode: F.pad's default; value: None means 0 */
static const ox_param_decl p_pad[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("pad", OX_ARG_INTS),
    OX_PARAM_STRING("mode", "constant"), OX_PARAM_NULL("value", OX_ARG_FLOAT)};
static const ox_param_decl p_pad_circular[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM("pad", OX_ARG_INTS)};
static const ox_param_decl p_constant_pad_nd[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    AT_PARAM_OR("pad", OX_ARG_INTS, OX_ARG_TENSOR),
    OX_PARAM_INT("value", OX_ARG_SCALAR, 0)};
static const ox_param_decl p_pad_mode[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           OX_PARAM("padding", OX_ARG_INTS)};

const ox_op_decl at_ops_pad[] = {
    OX_OP_EX("aten::constant_pad_nd", 7, p_constant_pad_nd, 1, sym_constant_pad_nd, 0u,
             check_constant_pad_nd),
    OX_OP("aten::reflection_pad1d", 7, p_pad_mode, 1, sym_reflection_pad),
    OX_OP("aten::reflection_pad2d", 7, p_pad_mode, 1, sym_reflection_pad),
    OX_OP("aten::reflection_pad3d", 9, p_pad_mode, 1, sym_reflection_pad),
    OX_OP("aten::pad", 9, p_pad, 1, sym_pad),
    OX_OP("aten::_pad_circular", 9, p_pad_circular, 1, sym_pad_circular),
    OX_OP("aten::replication_pad1d", 7, p_pad_mode, 1, sym_replication_pad),
    OX_OP("aten::replication_pad2d", 7, p_pad_mode, 1, sym_replication_pad),
    OX_OP("aten::replication_pad3d", 7, p_pad_mode, 1, sym_replication_pad),
};
AT_FAMILY_SIZE(at_ops_pad);
