/* Reading by index: aten::select (one position of a dim), aten::slice
 * (start:end:step of a dim), aten::index (advanced indexing).
 *
 * aten::index: advanced indexing x[i0, i1, ...] with integer index tensors,
 * boolean masks and None for dims taken whole.
 *
 * torch's rule: the index tensors broadcast against each other; the result
 * holds, in place of the indexed dims, the broadcast shape -- where those dims
 * sit when the index tensors are adjacent, in front when a None (a `:`)
 * separates them.  A boolean mask of rank k stands for k integer tensors, the
 * coordinates of its true elements (NonZero).
 *
 * Lowerings, the cheapest that fits:
 *  - one integer tensor: Gather on its axis (opset 9);
 *  - one boolean mask alone: Compress over the mask's dims flattened (opset 9);
 *  - anything else: the indexed dims transposed to the front, GatherND on the
 *    stacked index tensors, the broadcast dims moved back (opset 11).
 * Negative index values count from the end, as in torch: each integer index
 * is wrapped against its dim's size read at run time. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"
#include "index_common.h"

#include <string.h>

/* Shape(x)[axis] as a rank-0 int64 tensor. */
static ox_vid dim_size(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis)
{
    ox_vid shape = at_op1(g, api, "Shape", x);
    if (!shape)
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, (ox_vid[]){shape, api->const_scalar_of(g, OX_INT64, (double)axis)},
                          1);
    if (n)
        api->attr_int(n, "axis", 0);
    return at_out(g, api, n, "Gather");
}

static int all_non_negative(ox_sym *g, const ox_api *api, ox_vid idx)
{
    if (!api->is_const(g, idx))
        return 0;
    ox_dtype dt;
    size_t n = 0;
    const void *p = api->const_data(g, idx, &dt, &n);
    if (!p || dt != OX_INT64)
        return 0;
    const int64_t *v = p;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0)
            return 0;
    return 1;
}

ox_vid ax_wrap_index(ox_sym *g, const ox_api *api, ox_vid x, ox_vid idx, int64_t axis)
{
    if (api->dtype(g, idx) != OX_INT64 && !(idx = at_cast(g, api, idx, OX_INT64)))
        return 0;
    if (all_non_negative(g, api, idx))
        return idx;
    ox_vid n = dim_size(g, api, x, axis);
    ox_vid zero = api->const_scalar_of(g, OX_INT64, 0.0);
    if (!n || !zero)
        return 0;
    ox_vid neg = at_op2(g, api, "Less", idx, zero);
    ox_vid up = at_op2(g, api, "Add", idx, n);
    if (!neg || !up)
        return 0;
    return at_out(g, api, api->op(g, "Where", 3, (ox_vid[]){neg, up, idx}, 1), "Where");
}

static int is_mask(ox_sym *g, const ox_api *api, ox_vid v)
{
    ox_dtype dt = api->dtype(g, v);
    return dt == OX_BOOL || dt == OX_UINT8;
}

int ax_index_plan(ox_sym *g, const ox_api *api, ox_vid x, ax_plan *p)
{
    memset(p, 0, sizeof(*p));
    const ox_vid *idx = NULL;
    size_t n = api->arg_tensors(g, "indices", &idx);
    p->rank = api->rank(g, x);
    if (p->rank < 0)
        return api->fail(g, "the indexed tensor's rank is unknown");
    if (p->rank > AT_MAX_RANK)
        return api->fail(g, "the indexed tensor has rank %d; at most %d is supported", p->rank,
                         AT_MAX_RANK);
    int64_t d = 0;
    for (size_t i = 0; i < n; i++) {
        if (!idx[i]) {
            d++;
            continue;
        }
        int r = api->rank(g, idx[i]);
        if (r < 0)
            return api->fail(g, "argument 'indices'[%zu] has an unknown rank", i);
        int k = is_mask(g, api, idx[i]) ? (r ? r : 1) : 1;
        if (is_mask(g, api, idx[i])) {
            if (r == 0)
                return api->fail(g, "argument 'indices'[%zu] is a rank-0 boolean mask (x[True]), "
                                    "which adds a data-dependent dim; use torch.where", i);
            p->n_masks++;
            p->mask = idx[i];
            p->mask_axis = d;
            p->mask_rank = r;
        }
        if (d + k > p->rank || p->n + (size_t)k > AT_MAX_RANK)
            return api->fail(g, "argument 'indices' indexes %lld dims of a rank-%d tensor",
                             (long long)(d + k), p->rank);
        for (int j = 0; j < k; j++) {
            p->axis[p->n] = d + j;
            p->src[p->n] = idx[i];
            p->mask_row[p->n] = is_mask(g, api, idx[i]) ? j : -1;
            p->n++;
        }
        d += k;
    }
    if (p->n == 0)
        return api->fail(g, "argument 'indices' holds no index tensor");
    p->adjacent = 1;
    for (size_t i = 1; i < p->n; i++)
        if (p->axis[i] != p->axis[i - 1] + 1)
            p->adjacent = 0;
    return 0;
}

int ax_index_tensors(ox_sym *g, const ox_api *api, ox_vid x, ax_plan *p)
{
    ox_vid nonzero = 0, last_mask = 0;
    int brank = 0;
    for (size_t i = 0; i < p->n; i++) {
        ox_vid v = p->src[i];
        if (p->mask_row[i] >= 0) {
            if (v != last_mask) {
                nonzero = at_op1(g, api, "NonZero", v);
                last_mask = v;
                if (!nonzero)
                    return 1;
            }
            ox_onode *n = api->op(g, "Gather", 2,
                                  (ox_vid[]){nonzero, api->const_scalar_of(g, OX_INT64, (double)p->mask_row[i])},
                                  1);
            if (n)
                api->attr_int(n, "axis", 0);
            v = at_out(g, api, n, "Gather");
        } else {
            v = ax_wrap_index(g, api, x, v, p->axis[i]);
        }
        if (!v)
            return 1;
        p->idx[i] = v;
        /* The new nodes' ranks are not known yet: the recorded index's. */
        int r = p->mask_row[i] >= 0 ? 1 : api->rank(g, p->src[i]);
        if (r > brank)
            brank = r;
    }
    p->brank = brank;
    if (brank + p->rank - (int)p->n > AT_MAX_RANK)
        return api->fail(g, "indexing gives a rank-%d result; at most %d is supported",
                         brank + p->rank - (int)p->n, AT_MAX_RANK);
    if (p->n > 1) {
        /* Broadcast them to one shape: the shape of their sum. */
        ox_vid sum = p->idx[0];
        for (size_t i = 1; i < p->n && sum; i++)
            sum = at_op2(g, api, "Add", sum, p->idx[i]);
        ox_vid shape = sum ? at_op1(g, api, "Shape", sum) : 0;
        if (!shape)
            return 1;
        for (size_t i = 0; i < p->n; i++)
            if (!(p->idx[i] = at_op2(g, api, "Expand", p->idx[i], shape)))
                return 1;
    }
    ox_vid cols[AT_MAX_RANK];
    for (size_t i = 0; i < p->n; i++)
        if (!(cols[i] = at_unsqueeze(g, api, p->idx[i], brank)))
            return 1;
    p->stacked = p->n == 1 ? cols[0] : at_concat(g, api, cols, p->n, brank);
    if (!p->stacked)
        return 1;
    /* Indexed dims first, the others after them in order. */
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++)
        p->perm[k++] = p->axis[i];
    for (int64_t a = 0; a < p->rank; a++) {
        int used = 0;
        for (size_t i = 0; i < p->n; i++)
            used |= p->axis[i] == a;
        if (!used)
            p->perm[k++] = a;
    }
    /* GatherND's result is [broadcast dims, other dims]; torch keeps the
     * broadcast dims where adjacent index tensors were. */
    p->out_rank = brank + p->rank - (int)p->n;
    p->front = p->adjacent ? p->axis[0] : 0;
    for (int i = 0; i < p->out_rank; i++) {
        if (i < p->front)
            p->out_perm[i] = brank + i;
        else if (i < p->front + brank)
            p->out_perm[i] = i - p->front;
        else
            p->out_perm[i] = i;
    }
    return 0;
}

int ax_identity(const int64_t *perm, int n)
{
    for (int i = 0; i < n; i++)
        if (perm[i] != i)
            return 0;
    return 1;
}

/* x[mask] alone: the mask's dims flattened into one, Compress along it. */
static ox_vid compress_mask(ox_sym *g, const ox_api *api, ox_vid x, const ax_plan *p)
{
    int64_t a = p->mask_axis, k = p->mask_rank;
    ox_vid shape = at_op1(g, api, "Shape", x);
    if (!shape)
        return 0;
    ox_vid parts[3];
    size_t np = 0;
    if (a > 0 && !(parts[np++] = at_slice(g, api, shape, 0, 0, a, 1)))
        return 0;
    int64_t minus1 = -1;
    parts[np++] = api->const_ints(g, &minus1, 1);
    if (a + k < p->rank && !(parts[np++] = at_slice(g, api, shape, 0, a + k, INT64_MAX, 1)))
        return 0;
    ox_vid target = np == 1 ? parts[0] : at_concat(g, api, parts, np, 0);
    ox_vid flat = target ? at_op2(g, api, "Reshape", x, target) : 0;
    ox_vid m = p->mask;
    if (api->dtype(g, m) != OX_BOOL && !(m = at_cast(g, api, m, OX_BOOL)))
        return 0;
    ox_vid mflat = at_reshape(g, api, m, &minus1, 1);
    if (!flat || !mflat)
        return 0;
    ox_onode *n = api->op(g, "Compress", 2, (ox_vid[]){flat, mflat}, 1);
    if (n)
        api->attr_int(n, "axis", a);
    return at_out(g, api, n, "Compress");
}

ox_vid ax_gather_nd(ox_sym *g, const ox_api *api, ox_vid x, const ax_plan *p)
{
    ox_vid xt = ax_identity(p->perm, p->rank) ? x : at_transpose(g, api, x, p->perm, (size_t)p->rank);
    ox_vid y = xt ? at_op2(g, api, "GatherND", xt, p->stacked) : 0;
    if (!y || ax_identity(p->out_perm, p->out_rank))
        return y;
    return at_transpose(g, api, y, p->out_perm, (size_t)p->out_rank);
}

static int sym_index(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ax_plan p;
    if (ax_index_plan(g, api, x, &p))
        return 1;
    if (p.n_masks == 1 && p.n == (size_t)p.mask_rank)
        return oxu_set_result(g, api, 0, compress_mask(g, api, x, &p));
    if (p.n == 1 && p.n_masks == 0) {
        ox_vid idx = ax_wrap_index(g, api, x, p.src[0], p.axis[0]);
        ox_onode *gather = idx ? api->op(g, "Gather", 2, (ox_vid[]){x, idx}, 1) : NULL;
        if (gather)
            api->attr_int(gather, "axis", p.axis[0]);
        return oxu_set_result(g, api, 0, at_out(g, api, gather, "Gather"));
    }
    /* several index tensors: from opset 11 (check_index) */
    if (ax_index_tensors(g, api, x, &p))
        return 1;
    return oxu_set_result(g, api, 0, ax_gather_nd(g, api, x, &p));
}

ox_vid ax_slice_bound(ox_sym *g, const ox_api *api, const char *name, int64_t dflt)
{
    if (api->arg_kind(g, name) == OX_ARG_TENSOR) {
        ox_vid v = api->arg_tensor(g, name);
        if (api->dtype(g, v) != OX_INT64)
            v = at_cast(g, api, v, OX_INT64);
        return v && api->rank(g, v) == 0 ? at_unsqueeze(g, api, v, 0) : v;
    }
    int64_t b = api->arg_kind(g, name) == OX_ARG_NONE ? dflt : api->arg_int(g, name, dflt);
    return api->const_ints(g, &b, 1);
}

static int sym_select(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim, index = api->arg_int(g, "index", 0);
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    if (api->arg_kind(g, "index") == OX_ARG_TENSOR) {
        /* A traced index (a rank-0 int64 computed from sizes): Gather takes it
         * as it is; negative values count from the end from opset 11. */
        ox_vid in[2] = {x, api->arg_tensor(g, "index")};
        if (api->rank(g, in[1]) != 0)
            return api->fail(g, "argument 'index' is a rank-%d tensor; select takes one index",
                             api->rank(g, in[1]));
        ox_onode *n = api->op(g, "Gather", 2, in, 1);
        if (n)
            api->attr_int(n, "axis", dim);
        return oxu_set_result(g, api, 0, at_out(g, api, n, "Gather"));
    }
    /* Gather counts negative indices from the end from opset 11, whatever the
     * size is at run time; before 11 the recorded size has to do. */
    if (index < 0 && api->opset(g) < 11) {
        int64_t size = oxu_fixed_size(g, api, x, (int)dim);
        if (size >= 0)
            index += size;
        else
            return api->fail(g, "select with a negative index needs the size of dim %lld "
                                "before opset 11 (Gather's negative indices)",
                             (long long)dim);
    }
    /* A rank-0 index removes the dimension, as select does. */
    ox_vid idx = api->constant(g, OX_INT64, 0, NULL, &index);
    if (!idx)
        return api->fail(g, "could not create the index constant");
    ox_vid in[2] = {x, idx};
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", dim);
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gather"));
}

static int sym_slice(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    if (api->arg_kind(g, "start") == OX_ARG_TENSOR || api->arg_kind(g, "end") == OX_ARG_TENSOR) {
        /* from opset 10: check_slice */
        int64_t step = api->arg_int(g, "step", 1);
        if (step < 1)
            return api->fail(g, "argument 'step' is %lld; slice steps must be positive",
                             (long long)step);
        ox_vid in[5] = {x, ax_slice_bound(g, api, "start", 0), ax_slice_bound(g, api, "end", INT64_MAX),
                        api->const_ints(g, &dim, 1), api->const_ints(g, &step, 1)};
        for (int i = 0; i < 5; i++)
            if (!in[i])
                return api->fail(g, "could not create the Slice inputs");
        return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Slice", 5, in, 1), "Slice"));
    }
    int64_t start = api->arg_kind(g, "start") == OX_ARG_NONE ? 0 : api->arg_int(g, "start", 0);
    int64_t end = api->arg_kind(g, "end") == OX_ARG_NONE ? INT64_MAX
                                                          : api->arg_int(g, "end", INT64_MAX);
    int64_t step = api->arg_int(g, "step", 1);
    if (step < 1)
        return api->fail(g, "argument 'step' is %lld; slice steps must be positive",
                         (long long)step);
    return oxu_set_result(g, api, 0, at_slice(g, api, x, dim, start, end, step));
}

/* narrow(self, dim, start, length): self[start:start + length] along dim.
 * A number start may be negative (from the end: Slice counts it so at any
 * size); a traced start (narrow.Tensor, a rank-0 integer) goes in as Slice's
 * starts input, from opset 10 (check_narrow), and must be non-negative, as
 * torch requires of it. */
static int sym_narrow(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim, length = api->arg_int(g, "length", 0);
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    if (length < 0)
        return api->fail(g, "argument 'length' is %lld; it must be non-negative",
                         (long long)length);
    if (api->arg_kind(g, "start") == OX_ARG_TENSOR) {
        ox_vid start = ax_slice_bound(g, api, "start", 0);
        ox_vid end = start ? at_op2(g, api, "Add", start, api->const_ints(g, &length, 1)) : 0;
        int64_t one = 1;
        ox_vid in[5] = {x, start, end, api->const_ints(g, &dim, 1), api->const_ints(g, &one, 1)};
        for (int i = 0; i < 5; i++)
            if (!in[i])
                return api->fail(g, "could not create the Slice inputs");
        return oxu_set_result(g, api, 0, at_out(g, api, api->op(g, "Slice", 5, in, 1), "Slice"));
    }
    int64_t start = api->arg_int(g, "start", 0);
    int64_t end = start < 0 && start + length >= 0 ? INT64_MAX : start + length;
    return oxu_set_result(g, api, 0, at_slice(g, api, x, dim, start, end, 1));
}

static int check_narrow(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 10 && api->arg_kind(g, "start") == OX_ARG_TENSOR)
        return api->limit(g, 10, "narrow with a start computed from traced sizes needs Slice's "
                                 "inputs");
    return 0;
}

/* Slice takes its bounds as inputs from opset 10; before, they are
 * attributes, which cannot follow a traced size. */
static int check_slice(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) < 10 &&
        (api->arg_kind(g, "start") == OX_ARG_TENSOR || api->arg_kind(g, "end") == OX_ARG_TENSOR))
        return api->limit(g, 10, "a slice bound computed from a traced size needs Slice's "
                                 "inputs");
    return 0;
}

/* Indexing with several index tensors (or a mask next to one) is GatherND,
 * new in opset 11; one index tensor or one mask alone have opset-9 forms. */
static int check_index(ox_sym *g, const ox_api *api)
{
    const ox_vid *idx = NULL;
    size_t n = api->arg_tensors(g, "indices", &idx), k = 0;
    for (size_t i = 0; i < n; i++)
        k += idx[i] != 0;
    if (api->opset(g) < 11 && k > 1)
        return api->limit(g, 11, "indexing with several index tensors (or a boolean mask next to "
                                 "an index tensor) needs GatherND");
    return 0;
}

static const ox_param_decl p_select[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                         AT_PARAM_OR("index", OX_ARG_INT, OX_ARG_TENSOR)};
static const ox_param_decl p_slice[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_INT("dim", OX_ARG_INT, 0),
    AT_PARAM_OR_NULL("start", OX_ARG_INT, OX_ARG_TENSOR),
    AT_PARAM_OR_NULL("end", OX_ARG_INT, OX_ARG_TENSOR), OX_PARAM_INT("step", OX_ARG_INT, 1)};
/* narrow(self, dim, start, length) and narrow.Tensor (start a rank-0 tensor) */
static const ox_param_decl p_narrow[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                         AT_PARAM_OR("start", OX_ARG_INT, OX_ARG_TENSOR),
                                         OX_PARAM("length", OX_ARG_INT)};
static const ox_param_decl p_index[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("indices", OX_ARG_TENSOR_LIST)};

const ox_op_decl at_ops_index[] = {
    OX_OP("aten::select", 7, p_select, 1, sym_select),
    OX_OP_EX("aten::slice", 7, p_slice, 1, sym_slice, 0u, check_slice),
    OX_OP_EX("aten::index", 9, p_index, 1, sym_index, 0u, check_index),
    OX_OP_EX("aten::narrow", 7, p_narrow, 1, sym_narrow, 0u, check_narrow),
};
AT_FAMILY_SIZE(at_ops_index);
