/* Writing elements by an index tensor (in-place forms as new values):
 * aten::scatter (src tensor or value, with reduce), aten::scatter_add,
 * aten::index_add, aten::index_copy, aten::index_fill (whole slices of a
 * dim at the given positions) and aten::masked_scatter (the source's
 * elements, in order, where the mask is true).
 *
 * Overwriting scatters are Scatter (opsets 9-10) or ScatterElements (from
 * 11).  The index_* forms expand their 1-D index along the other dims
 * first, into the elementwise index ScatterElements takes.
 *
 * Accumulating scatters (scatter_add, index_add) add every update, repeated
 * indices included: ScatterElements with reduction="add" from opset 16.
 * Before, ONNX has no accumulating scatter, and ScatterElements would keep
 * one update per repeated index; the one-hot form adds them all instead:
 * OneHot(index) along a new axis after dim, times the updates, summed over
 * dim, gives self's shape with every update summed into its position
 * (exact for integers; floats are summed in another order than torch's). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "one_hot_sum.h"
#include "oxport/plugin_util.h"

/* upd cut to index's sizes (torch lets src be larger than index; ONNX's
 * updates are index's shape): Slice to Shape(index) from opset 10, to the
 * recorded sizes at 9.  Sizes that match on the example need no cut, unless
 * the index is a constant and upd is not: its sizes are then the file's,
 * while a dynamic axis may grow upd's (`out.scatter(1, fixed_idx, x)`). */
static ox_vid cut_to(ox_sym *g, const ox_api *api, ox_vid upd, ox_vid index)
{
    int rank = api->rank(g, index);
    if (!upd || rank <= 0 || api->rank(g, upd) != rank)
        return upd;
    int same = 1;
    int64_t axes[AT_MAX_RANK], starts[AT_MAX_RANK], ends[AT_MAX_RANK];
    for (int d = 0; d < rank && d < AT_MAX_RANK; d++) {
        int64_t a = api->size(g, upd, d), b = api->size(g, index, d);
        if (a < 0 || b < 0 || a != b)
            same = 0;
        axes[d] = d;
        starts[d] = 0;
        ends[d] = b;
    }
    if ((same && !(api->is_const(g, index) && !api->is_const(g, upd))) || rank > AT_MAX_RANK)
        return upd;
    if (api->opset(g) < 10) {
        for (int d = 0; d < rank; d++)
            if (ends[d] < 0) {
                api->fail(g, "scatter needs the index's sizes before opset 10; record them");
                return 0;
            }
        return oxu_slice_axes(g, api, upd, (size_t)rank, axes, starts, ends, NULL);
    }
    int64_t zeros[AT_MAX_RANK] = {0};
    ox_vid in[4] = {upd, oxu_const_ints(g, api, zeros, (size_t)rank), oxu_shape(g, api, index),
                    oxu_const_ints(g, api, axes, (size_t)rank)};
    return oxu_opn(g, api, "Slice", 4, in);
}

/* ScatterElements(x, index, upd, axis) (Scatter before opset 11), with
 * `reduction` ("add", "mul") from opset 16 or NULL. */
static ox_vid scatter_elements(ox_sym *g, const ox_api *api, ox_vid x, ox_vid index, ox_vid upd,
                               int64_t axis, const char *reduction)
{
    const char *type = api->opset(g) >= 11 ? "ScatterElements" : "Scatter";
    ox_vid in[3] = {x, oxu_cast_to(g, api, index, OX_INT64), upd};
    for (int i = 0; i < 3; i++)
        if (!in[i])
            return 0;
    ox_onode *n = api->op(g, type, 3, in, 1);
    if (n) {
        api->attr_int(n, "axis", axis);
        if (reduction)
            api->attr_string(n, "reduction", reduction);
    }
    return at_out(g, api, n, type);
}

/* self + every update added at its index along dim: ScatterElements(add)
 * from 16, the one-hot sum before (the index matches self outside dim). */
static ox_vid scatter_sum(ox_sym *g, const ox_api *api, ox_vid self, int64_t dim, ox_vid index,
                          ox_vid upd)
{
    ox_dtype t = api->dtype(g, self);
    upd = oxu_cast_to(g, api, cut_to(g, api, upd, index), t);
    if (api->opset(g) >= 16)
        return scatter_elements(g, api, self, index, upd, dim, "add");
    ox_dtype ct = at_one_hot_type(t);
    ox_vid hot = at_one_hot_of(g, api, index, self, dim, dim + 1, ct);
    ox_vid terms = at_op2(g, api, "Mul", hot, at_unsqueeze(g, api, oxu_cast_to(g, api, upd, ct), dim + 1));
    ox_vid sum = oxu_reduce(g, api, "ReduceSum", terms, &dim, 1, 0);
    ox_vid y = at_op2(g, api, "Add", oxu_cast_to(g, api, self, ct), sum);
    return oxu_cast_to(g, api, y, t);
}

/* Before opset 16 the one-hot sum needs the index's sizes outside dim to be
 * self's (torch allows them smaller). */
static int check_sum_shapes(ox_sym *g, const ox_api *api, ox_vid self, ox_vid like_index,
                            const char *what)
{
    int rank = api->rank(g, self);
    int64_t dim;
    if (rank < 0 || api->rank(g, like_index) != rank ||
        oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &dim))
        return api->limit(g, 16, "%s needs the ranks of its operands before opset 16", what);
    for (int d = 0; d < rank; d++) {
        int64_t a = api->size(g, self, d), b = api->size(g, like_index, d);
        if (d != dim && (a < 0 || a != b))
            return api->limit(g, 16, "%s with an index smaller than self outside dim needs "
                                     "ScatterElements with reduction, from opset 16",
                              what);
    }
    return 0;
}

static int read_dim(ox_sym *g, const ox_api *api, ox_vid self, int64_t *dim)
{
    return oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, self), dim);
}

/* torch's scatter reduce names -> ScatterElements' reduction. */
static const char *reduction_of(const char *reduce)
{
    return !reduce ? NULL : strcmp(reduce, "add") == 0 ? "add"
                        : strcmp(reduce, "multiply") == 0 ? "mul"
                                                          : "";
}

static int check_scatter(ox_sym *g, const ox_api *api)
{
    const char *reduce = api->arg_kind(g, "reduce") == OX_ARG_STRING
                             ? api->arg_string(g, "reduce", NULL) : NULL;
    const char *r = reduction_of(reduce);
    if (r && !*r)
        return api->limit(g, 0, "argument 'reduce' is '%s'; scatter reduces with 'add' or "
                                "'multiply'",
                          reduce);
    if (r && api->opset(g) < 16)
        return api->limit(g, 16, "scatter with reduce='%s' needs ScatterElements' reduction, "
                                 "from opset 16",
                          reduce);
    return 0;
}

/* scatter(self, dim, index, src | value, reduce=None). */
static int sym_scatter(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), index = api->arg_tensor(g, "index");
    int64_t dim;
    if (read_dim(g, api, self, &dim))
        return 1;
    ox_dtype t = api->dtype(g, self);
    ox_vid upd;
    if (api->arg_present(g, "src") && api->arg_kind(g, "src") == OX_ARG_TENSOR)
        upd = oxu_cast_to(g, api, cut_to(g, api, api->arg_tensor(g, "src"), index), t);
    else if (api->arg_kind(g, "value") == OX_ARG_TENSOR)
        upd = at_op2(g, api, "Expand", oxu_cast_to(g, api, api->arg_tensor(g, "value"), t),
                     oxu_shape(g, api, index));
    else
        upd = at_op2(g, api, "Expand", oxu_scalar(g, api, t, api->arg_float(g, "value", 0.0)),
                     oxu_shape(g, api, index));
    const char *reduce = api->arg_kind(g, "reduce") == OX_ARG_STRING
                             ? api->arg_string(g, "reduce", NULL) : NULL;
    return oxu_set_result(g, api, 0,
                          scatter_elements(g, api, self, index, upd, dim, reduction_of(reduce)));
}

/* scatter_reduce(self, dim, index, src, reduce, include_self=True):
 * ScatterElements' reduction, "add"/"mul" from opset 16, "max"/"min" from
 * 18, combines every update at an index with self's value there, which is
 * include_self=True.  With include_self=False the positions some update
 * reaches start from the reduction's identity instead of self's value (the
 * others keep self's); which positions those are is counted with a
 * ScatterElements(add) of ones, defined however often an index repeats.
 * reduce='mean' is the sum of the updates (and self's value, with
 * include_self) divided by their count (positions no update reaches keep
 * self's); torch floors the quotient for integer types. */
static const char *scatter_reduce_reduction(const char *reduce)
{
    static const char *const names[][2] = {
        {"sum", "add"}, {"prod", "mul"}, {"amax", "max"}, {"amin", "min"}, {"mean", "add"}};
    for (size_t i = 0; reduce && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(reduce, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

static int check_scatter_reduce(ox_sym *g, const ox_api *api)
{
    const char *reduce = api->arg_string(g, "reduce", "");
    const char *r = scatter_reduce_reduction(reduce);
    if (!r)
        return api->limit(g, 0, "scatter_reduce with reduce='%s': torch reduces with sum, prod, "
                                "mean, amax and amin",
                          reduce);
    if ((r[1] == 'a' || r[1] == 'i') && api->opset(g) < 18) /* max, min */
        return api->limit(g, 18, "scatter_reduce with reduce='%s' needs ScatterElements' "
                                 "reduction '%s', from opset 18",
                          reduce, r);
    ox_dtype t = api->dtype(g, api->arg_tensor(g, "self"));
    /* the count of updates reaching a position is a ScatterElements(add) in self's type */
    if (t == OX_BOOL && !api->arg_int(g, "include_self", 1))
        return api->limit(g, 0, "scatter_reduce with include_self=False on bool is not exported: "
                                "it counts the updates in self's type");
    return 0;
}

/* A rank-0 constant of type t: the largest value (or the smallest, `lowest`),
 * the identity of min (of max); +-inf for floating types. */
static ox_vid extreme_of(ox_sym *g, const ox_api *api, ox_dtype t, int lowest)
{
    if (oxu_is_floating(t))
        return oxu_scalar(g, api, t, lowest ? -INFINITY : INFINITY);
    if (t == OX_INT64 || t == OX_UINT64) {
        /* not every 64-bit bound is a double: spelled as an int64 constant */
        int64_t v = t == OX_UINT64 ? (lowest ? 0 : -1) : lowest ? INT64_MIN : INT64_MAX;
        ox_vid c = api->constant(g, OX_INT64, 0, NULL, &v);
        return t == OX_UINT64 ? oxu_cast(g, api, c, t) : c;
    }
    double lo = t == OX_INT32 ? INT32_MIN : t == OX_INT16 ? INT16_MIN : t == OX_INT8 ? INT8_MIN : 0;
    double hi = t == OX_INT32 ? INT32_MAX : t == OX_INT16 ? INT16_MAX : t == OX_INT8 ? INT8_MAX
              : t == OX_UINT32 ? UINT32_MAX : t == OX_UINT16 ? UINT16_MAX : UINT8_MAX;
    return oxu_full_scalar(g, api, lowest ? lo : hi, t);
}

/* How many updates reach each position of self (self's shape and type). */
static ox_vid update_count(ox_sym *g, const ox_api *api, ox_vid self, ox_vid index, int64_t dim)
{
    ox_dtype t = api->dtype(g, self);
    ox_vid zeros = oxu_full(g, api, oxu_shape(g, api, self), 0.0, t);
    ox_vid ones = oxu_full(g, api, oxu_shape(g, api, index), 1.0, t);
    return scatter_elements(g, api, zeros, index, ones, dim, "add");
}

static int sym_scatter_reduce(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), index = api->arg_tensor(g, "index");
    int64_t dim;
    const char *reduce = api->arg_string(g, "reduce", "");
    const char *r = scatter_reduce_reduction(reduce);
    if (!r) /* the check hook states it */
        return api->fail(g, "scatter_reduce: reduce='%s' has no ONNX form", reduce);
    if (read_dim(g, api, self, &dim))
        return 1;
    ox_dtype t = api->dtype(g, self);
    int include_self = api->arg_int(g, "include_self", 1) != 0;
    int mean = strcmp(reduce, "mean") == 0;
    ox_vid upd = oxu_cast_to(g, api, cut_to(g, api, api->arg_tensor(g, "src"), index), t);
    ox_vid count = mean || !include_self ? update_count(g, api, self, index, dim) : 0;
    ox_vid base = self;
    if (!include_self) {
        ox_vid reached = at_op2(g, api, "Greater", count, oxu_scalar(g, api, t, 0.0));
        ox_vid identity = r[0] == 'a' ? oxu_scalar(g, api, t, 0.0)
                          : r[1] == 'u' ? oxu_scalar(g, api, t, 1.0)
                                        : extreme_of(g, api, t, r[1] == 'a');
        base = oxu_where(g, api, reached, identity, self);
    }
    ox_vid y = scatter_elements(g, api, base, index, upd, dim, r);
    if (mean) {
        /* with self: its value counts once more; without: an unreached
         * position divides self's value by 1 */
        ox_vid one = oxu_scalar(g, api, t, 1.0);
        ox_vid den = include_self ? at_op2(g, api, "Add", count, one) : at_op2(g, api, "Max", count, one);
        if (oxu_is_integer(t)) /* floor: what Mod leaves (sign of the divisor, >= 1) goes first */
            y = at_op2(g, api, "Sub", y, at_op2(g, api, "Mod", y, den));
        y = at_op2(g, api, "Div", y, den);
    }
    return oxu_set_result(g, api, 0, y);
}

static int check_scatter_add(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 16)
        return 0;
    return check_sum_shapes(g, api, api->arg_tensor(g, "self"), api->arg_tensor(g, "index"),
                            "scatter_add");
}

static int sym_scatter_add(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    int64_t dim;
    if (read_dim(g, api, self, &dim))
        return 1;
    return oxu_set_result(g, api, 0, scatter_sum(g, api, self, dim, api->arg_tensor(g, "index"),
                                                 api->arg_tensor(g, "src")));
}

/* The 1-D (or 0-dim) index of an index_* op as an elementwise index: put
 * along dim of a rank-`rank` tensor, then broadcast to the shape `like`. */
static ox_vid spread_index(ox_sym *g, const ox_api *api, ox_vid index, int rank, int64_t dim,
                           ox_vid like_shape)
{
    if (rank < 1 || rank > AT_MAX_RANK) {
        api->fail(g, "index_* ops need the input's rank (1 to %d), got %d", AT_MAX_RANK, rank);
        return 0;
    }
    int64_t shape[AT_MAX_RANK];
    for (int d = 0; d < rank; d++)
        shape[d] = d == dim ? -1 : 1;
    ox_vid along = at_reshape(g, api, oxu_cast_to(g, api, index, OX_INT64), shape, (size_t)rank);
    return at_op2(g, api, "Expand", along, like_shape);
}

static int check_index_add(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 16)
        return 0;
    return check_sum_shapes(g, api, api->arg_tensor(g, "self"), api->arg_tensor(g, "source"),
                            "index_add");
}

/* index_add(self, dim, index, source, alpha): self with alpha * source's
 * slices added at index along dim, repeats accumulating. */
static int sym_index_add(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), source = api->arg_tensor(g, "source");
    int64_t dim;
    if (read_dim(g, api, self, &dim))
        return 1;
    ox_dtype t = api->dtype(g, self);
    source = oxu_cast_to(g, api, source, t);
    double alpha = api->arg_float(g, "alpha", 1.0);
    if (alpha != 1.0)
        source = at_op2(g, api, "Mul", source, oxu_scalar(g, api, t, alpha));
    ox_vid idx = spread_index(g, api, api->arg_tensor(g, "index"), api->rank(g, self), dim,
                              oxu_shape(g, api, source));
    return oxu_set_result(g, api, 0, scatter_sum(g, api, self, dim, idx, source));
}

/* index_copy(self, dim, index, source): source's slices written at index. */
static int sym_index_copy(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), source = api->arg_tensor(g, "source");
    int64_t dim;
    if (read_dim(g, api, self, &dim))
        return 1;
    ox_vid idx = spread_index(g, api, api->arg_tensor(g, "index"), api->rank(g, self), dim,
                              oxu_shape(g, api, source));
    source = oxu_cast_to(g, api, source, api->dtype(g, self));
    return oxu_set_result(g, api, 0, scatter_elements(g, api, self, idx, source, dim, NULL));
}

/* index_fill(self, dim, index, value): the slices at index set to value;
 * the index spreads over self's sizes with dim of the index's length (a
 * size-1 slice of self broadcast against it). */
static int sym_index_fill(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    int64_t dim;
    if (read_dim(g, api, self, &dim))
        return 1;
    ox_dtype t = api->dtype(g, self);
    ox_vid one_slice = at_slice(g, api, self, dim, 0, 1, 1);
    ox_vid idx = spread_index(g, api, api->arg_tensor(g, "index"), api->rank(g, self), dim,
                              oxu_shape(g, api, one_slice));
    ox_vid value = api->arg_kind(g, "value") == OX_ARG_TENSOR
                       ? oxu_cast_to(g, api, api->arg_tensor(g, "value"), t)
                       : oxu_scalar(g, api, t, api->arg_float(g, "value", 0.0));
    ox_vid upd = at_op2(g, api, "Expand", value, oxu_shape(g, api, idx));
    return oxu_set_result(g, api, 0, scatter_elements(g, api, self, idx, upd, dim, NULL));
}

/* masked_scatter(self, mask, source): self and mask broadcast, the
 * coordinates of the true elements (NonZero, transposed) take the first n
 * elements of the flattened source, in order: ScatterND, from opset 11. */
static int sym_masked_scatter(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), mask = api->arg_tensor(g, "mask");
    ox_vid source = api->arg_tensor(g, "source");
    ox_vid xs = at_op2(g, api, "Expand", self, oxu_shape(g, api, mask));
    ox_vid ms = at_op2(g, api, "Expand", oxu_cast_to(g, api, mask, OX_BOOL), oxu_shape(g, api, self));
    const int64_t perm[2] = {1, 0}, minus_one = -1, zero = 0;
    ox_vid coords = at_transpose(g, api, at_op1(g, api, "NonZero", ms), perm, 2);
    ox_vid count = oxu_shape_slice(g, api, coords, 0, 1);
    ox_vid in[4] = {at_reshape(g, api, oxu_cast_to(g, api, source, api->dtype(g, self)), &minus_one, 1),
                    oxu_const_ints(g, api, &zero, 1), count, oxu_const_ints(g, api, &zero, 1)};
    ox_vid upd = oxu_opn(g, api, "Slice", 4, in);
    ox_vid sin[3] = {xs, coords, upd};
    return oxu_set_result(g, api, 0, oxu_opn(g, api, "ScatterND", 3, sin));
}

static const ox_param_decl p_scatter[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT), OX_PARAM("index", OX_ARG_TENSOR),
    /* scatter.src / scatter.value (and their .reduce forms): one of the two */
    OX_PARAM_OPT("src", OX_ARG_TENSOR),
    {.name = "value", .kind = OX_ARG_SCALAR, .alt_kinds = OX_KIND_BIT(OX_ARG_TENSOR),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_NULL}},
    {.name = "reduce", .kind = OX_ARG_STRING, .flags = OX_PARAM_OPTIONAL,
     .dflt = {.tag = OX_DEFAULT_NULL}}};
static const ox_param_decl p_scatter_add[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                              OX_PARAM("dim", OX_ARG_INT),
                                              OX_PARAM("index", OX_ARG_TENSOR),
                                              OX_PARAM("src", OX_ARG_TENSOR)};
static const ox_param_decl p_scatter_reduce[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT), OX_PARAM("index", OX_ARG_TENSOR),
    OX_PARAM("src", OX_ARG_TENSOR), OX_PARAM("reduce", OX_ARG_STRING),
    OX_PARAM_BOOL("include_self", 1)};
static const ox_param_decl p_index_add[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT), OX_PARAM("index", OX_ARG_TENSOR),
    OX_PARAM("source", OX_ARG_TENSOR), OX_PARAM_INT("alpha", OX_ARG_SCALAR, 1)};
static const ox_param_decl p_index_copy[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                             OX_PARAM("dim", OX_ARG_INT),
                                             OX_PARAM("index", OX_ARG_TENSOR),
                                             OX_PARAM("source", OX_ARG_TENSOR)};
static const ox_param_decl p_index_fill[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT), OX_PARAM("index", OX_ARG_TENSOR),
    AT_PARAM_OR("value", OX_ARG_SCALAR, OX_ARG_TENSOR)};
static const ox_param_decl p_masked_scatter[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                 OX_PARAM("mask", OX_ARG_TENSOR),
                                                 OX_PARAM("source", OX_ARG_TENSOR)};

const ox_op_decl at_ops_scatter[] = {
    OX_OP_EX("aten::scatter", 9, p_scatter, 1, sym_scatter, 0u, check_scatter),
    OX_OP_EX("aten::scatter_add", 9, p_scatter_add, 1, sym_scatter_add, 0u, check_scatter_add),
    OX_OP_EX("aten::scatter_reduce", 16, p_scatter_reduce, 1, sym_scatter_reduce, 0u,
             check_scatter_reduce),
    OX_OP_EX("aten::index_add", 9, p_index_add, 1, sym_index_add, 0u, check_index_add),
    OX_OP("aten::index_copy", 9, p_index_copy, 1, sym_index_copy),
    OX_OP("aten::index_fill", 9, p_index_fill, 1, sym_index_fill),
    OX_OP("aten::masked_scatter", 11, p_masked_scatter, 1, sym_masked_scatter),
};
AT_FAMILY_SIZE(at_ops_scatter);
