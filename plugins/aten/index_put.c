/* Writes, as the new value of the tensor written (the host records every
 * in-place op as a new value of its base):
 *  - aten::index_put  x[indices] = values (also accumulate=True): Where for a
 *    lone boolean mask whose values do not run along the selected elements
 *    (opset 9), ScatterND on the indexed dims moved to the front otherwise
 *    (opset 11; accumulate needs ScatterND's reduction, opset 16);
 *  - aten::slice_scatter  x with x[..., start:end:step, ...] replaced: the
 *    positions along the dim are a Slice of Range(0, size) read at run time
 *    (opset 11), or a constant list when the size is known (opset 9, 10),
 *    scattered with ScatterElements (Scatter before opset 11);
 *  - aten::copy / fill / zero  (copy_, fill_, zero_): the source broadcast to
 *    the written tensor's shape and type. */
#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"
#include "index_common.h"

#include <stdlib.h>

static void invert(const int64_t *perm, int64_t *inv, int n)
{
    for (int i = 0; i < n; i++)
        inv[perm[i]] = i;
}

static ox_vid as_type_of(ox_sym *g, const ox_api *api, ox_vid v, ox_vid like)
{
    return api->dtype(g, v) == api->dtype(g, like) ? v : at_cast(g, api, v, api->dtype(g, like));
}

/* A tensor argument or a Python number, in like's type. */
static ox_vid value_arg(ox_sym *g, const ox_api *api, const char *name, ox_vid like)
{
    ox_arg_kind k = api->arg_kind(g, name);
    if (k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL) {
        ox_vid c = api->scalar_like(g, api->arg_float(g, name, 0.0), like);
        if (!c)
            api->fail(g, "could not create the constant for '%s'", name);
        return c;
    }
    ox_vid v = api->arg_tensor(g, name);
    if (!v) {
        api->fail(g, "argument '%s' is missing or None", name);
        return 0;
    }
    return as_type_of(g, api, v, like);
}

static ox_vid broadcast_to(ox_sym *g, const ox_api *api, ox_vid v, ox_vid like)
{
    ox_vid shape = v ? at_op1(g, api, "Shape", like) : 0;
    return shape ? at_op2(g, api, "Expand", v, shape) : 0;
}

static int sym_copy(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, broadcast_to(g, api, value_arg(g, api, "src", x), x));
}

static int sym_fill(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, broadcast_to(g, api, value_arg(g, api, "value", x), x));
}

static int sym_zero(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    return oxu_set_result(g, api, 0, broadcast_to(g, api, api->scalar_like(g, 0.0, x), x));
}

/* x[mask] = v where v broadcasts against the dims after the mask's: Where. */
static ox_vid mask_where(ox_sym *g, const ox_api *api, ox_vid x, const ax_plan *p, ox_vid v,
                         int accumulate)
{
    ox_vid m = p->mask;
    if (api->dtype(g, m) != OX_BOOL && !(m = at_cast(g, api, m, OX_BOOL)))
        return 0;
    int64_t trailing = p->rank - p->mask_axis - p->mask_rank;
    for (int64_t i = 0; i < trailing && m; i++)
        m = at_unsqueeze(g, api, m, p->mask_rank + i);
    if (accumulate && !(v = at_op2(g, api, "Add", x, v)))
        return 0;
    return oxu_where(g, api, m, v, x);
}

/* Whether x[indices] = values is a Where over a lone boolean mask: the
 * values must broadcast against the dims after the mask's.  Read from the
 * recorded values (a number is rank 0; a tensor of another type than x gets
 * a Cast whose rank is not known when the symbolic asks). */
static int by_mask(ox_sym *g, const ox_api *api, ox_vid x, const ax_plan *p)
{
    int vrank = 0;
    if (!at_is_number(api->arg_kind(g, "values"))) {
        ox_vid v = api->arg_tensor(g, "values");
        vrank = api->dtype(g, v) == api->dtype(g, x) ? api->rank(g, v) : -1;
    }
    return p->n_masks == 1 && p->n == (size_t)p->mask_rank && vrank >= 0 &&
           vrank <= p->rank - p->mask_axis - p->mask_rank;
}

/* Anything but the mask form is ScatterND, new in opset 11; summing repeated
 * indices is its reduction attribute, new in 16. */
static int check_index_put(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 16)
        return 0;
    ox_vid x = api->arg_tensor(g, "self");
    ax_plan p;
    if (ax_index_plan(g, api, x, &p))
        return 1;
    if (by_mask(g, api, x, &p))
        return 0;
    if (api->opset(g) < 11)
        return api->limit(g, 11, "writing through index tensors (x[idx] = v, index_put_) needs "
                                 "ScatterND");
    if (api->arg_int(g, "accumulate", 0))
        return api->limit(g, 16, "index_put_ with accumulate=True sums repeated indices, which "
                                 "needs ScatterND's reduction");
    return 0;
}

static int sym_index_put(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int accumulate = (int)api->arg_int(g, "accumulate", 0);
    ax_plan p;
    if (ax_index_plan(g, api, x, &p))
        return 1;
    ox_vid v = value_arg(g, api, "values", x);
    if (!v)
        return 1;
    if (by_mask(g, api, x, &p))
        return oxu_set_result(g, api, 0, mask_where(g, api, x, &p, v, accumulate));
    /* ScatterND from here (check_index_put refused it below 11, and
     * accumulate below 16) */
    if (ax_index_tensors(g, api, x, &p))
        return 1;
    /* The updates' shape in GatherND order: [broadcast dims, other dims]. */
    ox_vid sshape = at_op1(g, api, "Shape", p.stacked);
    ox_vid parts[2];
    size_t np = 0;
    if (!sshape || !(parts[np++] = at_slice(g, api, sshape, 0, 0, p.brank, 1)))
        return 1;
    int n_other = p.rank - (int)p.n;
    if (n_other > 0) {
        ox_vid xshape = at_op1(g, api, "Shape", x);
        ox_vid others = api->const_ints(g, p.perm + p.n, (size_t)n_other);
        ox_onode *gn = xshape && others ? api->op(g, "Gather", 2, (ox_vid[]){xshape, others}, 1) : NULL;
        if (gn)
            api->attr_int(gn, "axis", 0);
        if (!(parts[np++] = at_out(g, api, gn, "Gather")))
            return 1;
    }
    ox_vid ushape = np == 1 ? parts[0] : at_concat(g, api, parts, np, 0);
    if (!ushape)
        return 1;
    if (ax_identity(p.out_perm, p.out_rank)) {
        v = at_op2(g, api, "Expand", v, ushape);
    } else {
        /* values come in torch's order: broadcast there, then reorder. */
        ox_vid order = api->const_ints(g, p.out_perm, (size_t)p.out_rank);
        ox_onode *gn = order ? api->op(g, "Gather", 2, (ox_vid[]){ushape, order}, 1) : NULL;
        if (gn)
            api->attr_int(gn, "axis", 0);
        ox_vid tshape = at_out(g, api, gn, "Gather");
        int64_t inv[AT_MAX_RANK];
        invert(p.out_perm, inv, p.out_rank);
        v = tshape ? at_op2(g, api, "Expand", v, tshape) : 0;
        v = v ? at_transpose(g, api, v, inv, (size_t)p.out_rank) : 0;
    }
    ox_vid xt = ax_identity(p.perm, p.rank) ? x : at_transpose(g, api, x, p.perm, (size_t)p.rank);
    if (!v || !xt)
        return 1;
    ox_onode *sn = api->op(g, "ScatterND", 3, (ox_vid[]){xt, p.stacked, v}, 1);
    if (sn && accumulate)
        api->attr_string(sn, "reduction", "add");
    ox_vid y = at_out(g, api, sn, "ScatterND");
    if (!y || ax_identity(p.perm, p.rank))
        return oxu_set_result(g, api, 0, y);
    int64_t inv[AT_MAX_RANK];
    invert(p.perm, inv, p.rank);
    return oxu_set_result(g, api, 0, at_transpose(g, api, y, inv, (size_t)p.rank));
}

/* Python's slice rule on a known length: the positions start:end:step selects. */
static size_t slice_positions(int64_t n, int64_t start, int64_t end, int64_t step, int64_t *out,
                              size_t cap)
{
    if (start < 0)
        start += n;
    if (end < 0)
        end += n;
    start = start < 0 ? 0 : (start > n ? n : start);
    end = end < 0 ? 0 : (end > n ? n : end);
    size_t k = 0;
    for (int64_t i = start; i < end && k < cap; i += step)
        out[k++] = i;
    return k;
}

enum { MAX_STATIC_POSITIONS = 1 << 16 };

/* The positions along `dim` the slice selects; *empty when it selects none (a
 * known length only: at run time an empty Range scatters nothing). */
static ox_vid positions(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim, int64_t step, int *empty)
{
    *empty = 0;
    if (api->opset(g) >= 11) {
        ox_vid shape = at_op1(g, api, "Shape", x);
        ox_onode *gn = shape ? api->op(g, "Gather", 2,
                                       (ox_vid[]){shape, api->const_scalar_of(g, OX_INT64, (double)dim)}, 1)
                             : NULL;
        if (gn)
            api->attr_int(gn, "axis", 0);
        ox_vid n = at_out(g, api, gn, "Gather");
        ox_vid zero = api->const_scalar_of(g, OX_INT64, 0.0), one = api->const_scalar_of(g, OX_INT64, 1.0);
        ox_vid all = n ? at_out(g, api, api->op(g, "Range", 3, (ox_vid[]){zero, n, one}, 1), "Range") : 0;
        int64_t axis0 = 0;
        ox_vid in[5] = {all, ax_slice_bound(g, api, "start", 0), ax_slice_bound(g, api, "end", INT64_MAX),
                        api->const_ints(g, &axis0, 1), api->const_ints(g, &step, 1)};
        for (int i = 0; i < 5; i++)
            if (!in[i])
                return 0;
        return at_out(g, api, api->op(g, "Slice", 5, in, 1), "Slice");
    }
    int64_t n = oxu_fixed_size(g, api, x, (int)dim);
    /* traced bounds: from opset 11 (check_slice_scatter) */
    if (n < 0) {
        api->fail(g, "writing into a slice of dim %lld, whose size is unknown, needs Range, from "
                     "opset 11; record the size or export with opset 11 or later", (long long)dim);
        return 0;
    }
    if (n > MAX_STATIC_POSITIONS) {
        api->fail(g, "writing into a slice of a dim of %lld elements before opset 11 would store "
                     "every position; export with opset 11 or later", (long long)n);
        return 0;
    }
    int64_t start = api->arg_kind(g, "start") == OX_ARG_NONE ? 0 : api->arg_int(g, "start", 0);
    int64_t end = api->arg_kind(g, "end") == OX_ARG_NONE ? INT64_MAX : api->arg_int(g, "end", INT64_MAX);
    int64_t *buf = malloc((size_t)(n ? n : 1) * sizeof(*buf));
    if (!buf) {
        api->fail(g, "out of memory for %lld slice positions", (long long)n);
        return 0;
    }
    size_t k = slice_positions(n, start, end, step, buf, (size_t)n);
    ox_vid out = k ? api->const_ints(g, buf, k) : 0;
    free(buf);
    *empty = k == 0;
    if (k && !out)
        api->fail(g, "could not create the slice positions");
    return out;
}

/* Before opset 11 the written positions are a constant list, which cannot
 * follow a traced bound. */
static int check_slice_scatter(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 11 &&
        (api->arg_kind(g, "start") == OX_ARG_TENSOR || api->arg_kind(g, "end") == OX_ARG_TENSOR))
        return api->limit(g, 11, "writing into a slice whose bounds are traced needs Range");
    return 0;
}

static int sym_slice_scatter(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t dim;
    if (rank < 1 || rank > AT_MAX_RANK)
        return api->fail(g, "slice_scatter into a rank-%d tensor is not supported", rank);
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &dim))
        return 1;
    int64_t step = api->arg_int(g, "step", 1);
    if (step < 1)
        return api->fail(g, "argument 'step' is %lld; slice steps must be positive", (long long)step);
    ox_vid src = value_arg(g, api, "src", x);
    int empty = 0;
    ox_vid pos = src ? positions(g, api, x, dim, step, &empty) : 0;
    if (empty)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    if (!pos)
        return 1;
    int64_t shape[AT_MAX_RANK];
    for (int i = 0; i < rank; i++)
        shape[i] = i == dim ? -1 : 1;
    ox_vid idx = at_reshape(g, api, pos, shape, (size_t)rank);
    /* src may broadcast along the other dims; the indices take its full shape. */
    ox_vid sshape = idx ? at_op1(g, api, "Shape", src) : 0;
    idx = sshape ? at_op2(g, api, "Expand", idx, sshape) : 0;
    if (!idx)
        return 1;
    const char *op = api->opset(g) >= 11 ? "ScatterElements" : "Scatter";
    ox_onode *n = api->op(g, op, 3, (ox_vid[]){x, idx, src}, 1);
    if (n)
        api->attr_int(n, "axis", dim);
    return oxu_set_result(g, api, 0, at_out(g, api, n, op));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_index_put[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("indices", OX_ARG_TENSOR_LIST),
    OX_PARAM("values", OX_ARG_TENSOR_OR_SCALAR), OX_PARAM_BOOL("accumulate", 0)};
static const ox_param_decl p_slice_scatter[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("src", OX_ARG_TENSOR), OX_PARAM_INT("dim", OX_ARG_INT, 0),
    AT_PARAM_OR_NULL("start", OX_ARG_INT, OX_ARG_TENSOR),
    AT_PARAM_OR_NULL("end", OX_ARG_INT, OX_ARG_TENSOR), OX_PARAM_INT("step", OX_ARG_INT, 1)};
static const ox_param_decl p_copy[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM("src", OX_ARG_TENSOR_OR_SCALAR),
                                       OX_PARAM_BOOL("non_blocking", 0)};
static const ox_param_decl p_fill[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM("value", OX_ARG_TENSOR_OR_SCALAR)};

const ox_op_decl at_ops_index_put[] = {
    OX_OP_EX("aten::index_put", 7, p_index_put, 1, sym_index_put, 0u, check_index_put),
    OX_OP_EX("aten::slice_scatter", 9, p_slice_scatter, 1, sym_slice_scatter, 0u,
             check_slice_scatter),
    OX_OP("aten::copy", 8, p_copy, 1, sym_copy),
    OX_OP("aten::fill", 8, p_fill, 1, sym_fill),
    OX_OP("aten::zero", 8, p_self, 1, sym_zero),
};
AT_FAMILY_SIZE(at_ops_index_put);
