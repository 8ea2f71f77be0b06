/* aten::embedding -> Gather rows of the weight (with max_norm, after
 * aten::embedding_renorm below).  padding_idx, sparse and
 * scale_grad_by_freq only affect gradients. */
#include <math.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_embedding(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "Gather", api->arg_tensor(g, "weight"),
                      api->arg_tensor(g, "indices"));
    return oxu_set_result(g, api, 0, y);
}

/* ------------------------------------------------ embedding_renorm
 *
 * nn.Embedding(max_norm=...) rescales, in place and before the lookup, each
 * weight row the indices name whose p-norm exceeds max_norm, to max_norm
 * (ATen divides by norm + 1e-7).  The host records the in-place call; its
 * result is the whole new weight, which the following aten::embedding (and
 * any later use of the weight) reads.  The rows named are Unique'd, renormed
 * and written back with ScatterND, all three opset 11's. */

static int check_embedding_renorm(ox_sym *g, const ox_api *api)
{
    double p = api->arg_float(g, "norm_type", 2.0);
    if (!(p > 0))
        return api->limit(g, 0, "embedding_renorm norm_type %g is not positive; max_norm is exported "
                                "for p-norms with p > 0 (and inf)",
                          p);
    return 0;
}

/* The p-norm of each row of w (N, D), as (N, 1). */
static ox_vid row_norms(ox_sym *g, const ox_api *api, ox_vid w, double p)
{
    int64_t last = 1;
    if (p == 1.0)
        return oxu_reduce(g, api, "ReduceL1", w, &last, 1, 1);
    if (p == 2.0)
        return oxu_reduce(g, api, "ReduceL2", w, &last, 1, 1);
    ox_vid a = oxu_op1(g, api, "Abs", w);
    if (isinf(p))
        return oxu_reduce(g, api, "ReduceMax", a, &last, 1, 1);
    ox_vid s = oxu_reduce(g, api, "ReduceSum", oxu_op2(g, api, "Pow", a, oxu_scalar_like(g, api, p, w)),
                          &last, 1, 1);
    return oxu_op2(g, api, "Pow", s, oxu_scalar_like(g, api, 1.0 / p, w));
}

static int sym_embedding_renorm(ox_sym *g, const ox_api *api)
{
    ox_vid w = api->arg_tensor(g, "self"), idx = api->arg_tensor(g, "indices");
    double max_norm = api->arg_float(g, "max_norm", 0.0), p = api->arg_float(g, "norm_type", 2.0);
    if (api->rank(g, w) != 2)
        return api->fail(g, "embedding_renorm: the weight has rank %d; it is a 2-D (rows, dim) matrix",
                         api->rank(g, w));
    int64_t flat = -1;
    ox_vid ids = oxu_reshape(g, api, oxu_cast_to(g, api, idx, OX_INT64), &flat, 1);
    ox_vid uniq = oxu_op1(g, api, "Unique", ids); /* each row once: ScatterND's writes stay distinct */
    ox_vid rows = oxu_op2(g, api, "Gather", w, uniq);
    ox_vid norm = row_norms(g, api, rows, p);
    ox_vid limit = oxu_scalar_like(g, api, max_norm, w);
    ox_vid scale = oxu_op2(g, api, "Div", limit, oxu_op2(g, api, "Add", norm, oxu_scalar_like(g, api, 1e-7, w)));
    ox_vid sel[3] = {oxu_op2(g, api, "Greater", norm, limit), oxu_op2(g, api, "Mul", rows, scale), rows};
    ox_vid renormed = oxu_opn(g, api, "Where", 3, sel);
    ox_vid sc[3] = {w, oxu_unsqueeze(g, api, uniq, 1), renormed};
    return oxu_set_result(g, api, 0, oxu_opn(g, api, "ScatterND", 3, sc));
}

/* one_hot -> OneHot(indices, depth, [0, 1]) along a new last axis, in the
 * indices' int64 (torch's result type). */
/* The class count torch infers from the data (num_classes=-1) is a value
 * of the input, which the file cannot read at export: stated before
 * conversion.  A count recorded as a tensor (a traced size, x.size(0)) is
 * OneHot's depth input as it is. */
static int check_one_hot(ox_sym *g, const ox_api *api)
{
    if (api->arg_kind(g, "num_classes") == OX_ARG_TENSOR)
        return 0;
    int64_t n = api->arg_int(g, "num_classes", -1);
    if (n <= 0)
        return api->limit(g, 0, "argument 'num_classes' is %lld; one_hot is exported with an "
                                "explicit class count",
                          (long long)n);
    return 0;
}

static int sym_one_hot(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t n = api->arg_int(g, "num_classes", -1);
    int64_t values[2] = {0, 1}, two = 2;
    ox_vid depth = api->arg_kind(g, "num_classes") == OX_ARG_TENSOR
                       ? oxu_cast_to(g, api, api->arg_tensor(g, "num_classes"), OX_INT64)
                       : api->const_ints(g, &n, 1);
    ox_vid in[3] = {x, depth, api->constant(g, OX_INT64, 1, &two, values)};
    if (!in[1] || !in[2])
        return api->fail(g, "could not create the OneHot constants");
    ox_onode *o = api->op(g, "OneHot", 3, in, 1);
    if (o)
        api->attr_int(o, "axis", -1);
    return oxu_set_result(g, api, 0, at_out(g, api, o, "OneHot"));
}

/* ------------------------------------------------ embedding_bag
 *
 * Bags of embeddings reduced by sum, mean or max, without a Loop: every bag
 * is a row of a membership mask over the looked-up rows.  A 2-D input holds
 * fixed-length bags (one per row); a 1-D input is cut into bags at
 * `offsets`, the mask then comparing each index's position (Range, opset
 * 11) with the bags' [start, end).  Entries equal to padding_idx belong to
 * no bag; an empty bag gives zeros, as in torch. */

enum { BAG_SUM = 0, BAG_MEAN = 1, BAG_MAX = 2 };

static int check_embedding_bag(ox_sym *g, const ox_api *api)
{
    int64_t mode = api->arg_int(g, "mode", BAG_SUM);
    if (mode < BAG_SUM || mode > BAG_MAX)
        return api->limit(g, 0, "embedding_bag mode %lld is not sum (0), mean (1) or max (2)",
                          (long long)mode);
    if (api->opset(g) < 11 && api->arg_tensor(g, "offsets"))
        return api->limit(g, 11, "embedding_bag with offsets numbers the indices with Range");
    return 0;
}

/* Which of the looked-up rows each bag holds, as bool: (B, L) for a 2-D
 * input, (B, N) for a 1-D one. */
static ox_vid bag_members(ox_sym *g, const ox_api *api, ox_vid idx, ox_vid offsets, int last)
{
    if (!offsets) {
        /* every entry of row b is in bag b: a mask of ones of idx's shape */
        ox_vid t = oxu_scalar(g, api, OX_BOOL, 1.0);
        ox_onode *n = api->op(g, "Expand", 2, (ox_vid[]){t, oxu_shape(g, api, idx)}, 1);
        return oxu_out(g, api, n, "Expand");
    }
    ox_vid off = oxu_cast_to(g, api, offsets, OX_INT64);
    ox_vid n_idx = oxu_size_of(g, api, idx, 0);
    ox_vid starts, ends;
    if (last) {
        /* offsets has one more entry, the end of the last bag */
        starts = oxu_slice(g, api, off, 0, 0, -1, 1);
        ends = oxu_slice(g, api, off, 0, 1, INT64_MAX, 1);
    } else {
        int64_t one = 1;
        ox_vid parts[2] = {oxu_slice(g, api, off, 0, 1, INT64_MAX, 1),
                           oxu_reshape(g, api, n_idx, &one, 1)};
        starts = off;
        ends = oxu_concat(g, api, parts, 2, 0);
    }
    ox_vid rin[3] = {oxu_const_int(g, api, 0), n_idx, oxu_const_int(g, api, 1)};
    ox_vid pos = oxu_unsqueeze(g, api, oxu_opn(g, api, "Range", 3, rin), 0); /* (1, N) */
    ox_vid lo = oxu_op1(g, api, "Not", oxu_op2(g, api, "Less", pos, oxu_unsqueeze(g, api, starts, 1)));
    ox_vid hi = oxu_op2(g, api, "Less", pos, oxu_unsqueeze(g, api, ends, 1));
    return oxu_op2(g, api, "And", lo, hi); /* (B, N) */
}

static int sym_embedding_bag(ox_sym *g, const ox_api *api)
{
    ox_vid w = api->arg_tensor(g, "weight"), idx = api->arg_tensor(g, "indices");
    ox_vid offsets = api->arg_tensor(g, "offsets"), psw = api->arg_tensor(g, "per_sample_weights");
    int64_t mode = api->arg_int(g, "mode", BAG_SUM), pad = api->arg_int(g, "padding_idx", -1);
    int rank = api->rank(g, idx);
    if (rank != (offsets ? 1 : 2))
        return api->fail(g, "embedding_bag takes 2-D indices without offsets or 1-D indices with "
                            "offsets; got rank-%d indices %s offsets",
                         rank, offsets ? "with" : "without");
    if (psw && mode != BAG_SUM)
        return api->fail(g, "embedding_bag: per_sample_weights are only defined for mode sum");
    ox_vid rows = oxu_op2(g, api, "Gather", w, idx); /* (B, L, D) or (N, D) */
    ox_vid member = bag_members(g, api, idx, offsets, api->arg_int(g, "include_last_offset", 0) != 0);
    if (pad >= 0) {
        ox_vid keep = oxu_op1(g, api, "Not", oxu_op2(g, api, "Equal", idx,
                                                       oxu_scalar_like(g, api, (double)pad, idx)));
        member = oxu_op2(g, api, "And", member, offsets ? oxu_unsqueeze(g, api, keep, 0) : keep);
    }
    ox_dtype t = api->dtype(g, w);
    ox_vid weight = oxu_cast(g, api, member, t); /* (B, L|N) */
    int64_t one = 1;
    ox_vid count = oxu_reduce(g, api, "ReduceSum", weight, &one, 1, 1); /* (B, 1) */
    ox_vid y;
    if (mode == BAG_MAX) {
        /* rows outside the bag are -inf; an empty bag's max is 0 */
        ox_vid m = oxu_unsqueeze(g, api, member, 2);
        ox_vid r = offsets ? oxu_unsqueeze(g, api, rows, 0) : rows;
        ox_vid win[3] = {m, r, oxu_scalar_like(g, api, -HUGE_VAL, rows)};
        ox_vid best = oxu_reduce(g, api, "ReduceMax", oxu_opn(g, api, "Where", 3, win), &one, 1, 0);
        ox_vid some = oxu_op2(g, api, "Greater", count, oxu_scalar_like(g, api, 0.0, count));
        ox_vid zin[3] = {some, best, oxu_scalar_like(g, api, 0.0, rows)};
        y = oxu_opn(g, api, "Where", 3, zin);
    } else {
        if (psw)
            weight = oxu_op2(g, api, "Mul", weight,
                             offsets ? oxu_unsqueeze(g, api, oxu_cast_to(g, api, psw, t), 0)
                                     : oxu_cast_to(g, api, psw, t));
        /* (B, 1, L|N) @ rows: (B, L, D) per bag, or (N, D) shared */
        int64_t mid = 1;
        y = oxu_squeeze(g, api, oxu_op2(g, api, "MatMul", oxu_unsqueeze(g, api, weight, 1), rows),
                        &mid, 1);
        if (mode == BAG_MEAN)
            y = oxu_op2(g, api, "Div", y,
                        oxu_op2(g, api, "Max", count, oxu_scalar_like(g, api, 1.0, count)));
    }
    return oxu_set_result(g, api, 0, y);
}

static const ox_param_decl p_embedding[] = {
    OX_PARAM("weight", OX_ARG_TENSOR), OX_PARAM("indices", OX_ARG_TENSOR),
    OX_PARAM_INT("padding_idx", OX_ARG_INT, -1), OX_PARAM_BOOL("scale_grad_by_freq", 0),
    OX_PARAM_BOOL("sparse", 0)};
/* num_classes=-1 (torch's default: read from the data) is refused above. */
/* ATen's offsets is required; None here means a 2-D input of fixed-length
 * bags (F.embedding_bag's form, which ATen gets as a flattened input with
 * arange offsets).  padding_idx -1: none. */
static const ox_param_decl p_embedding_bag[] = {
    OX_PARAM("weight", OX_ARG_TENSOR), OX_PARAM("indices", OX_ARG_TENSOR),
    OX_PARAM_NULL("offsets", OX_ARG_OPT_TENSOR), OX_PARAM_BOOL("scale_grad_by_freq", 0),
    OX_PARAM_INT("mode", OX_ARG_INT, 0), OX_PARAM_BOOL("sparse", 0),
    OX_PARAM_NULL("per_sample_weights", OX_ARG_OPT_TENSOR),
    OX_PARAM_BOOL("include_last_offset", 0), OX_PARAM_INT("padding_idx", OX_ARG_INT, -1)};
static const ox_param_decl p_embedding_renorm[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("indices", OX_ARG_TENSOR),
    OX_PARAM("max_norm", OX_ARG_FLOAT), OX_PARAM("norm_type", OX_ARG_FLOAT)};
static const ox_param_decl p_one_hot[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    {.name = "num_classes", .kind = OX_ARG_INT, .alt_kinds = OX_KIND_BIT(OX_ARG_TENSOR),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INT, .v = {.i = -1}}}};

const ox_op_decl at_ops_embedding[] = {
    OX_OP("aten::embedding", 7, p_embedding, 1, sym_embedding),
    OX_OP_EX("aten::embedding_bag", 9, p_embedding_bag, 1, sym_embedding_bag, 0,
             check_embedding_bag),
    OX_OP_EX("aten::embedding_renorm", 11, p_embedding_renorm, 1, sym_embedding_renorm, 0,
             check_embedding_renorm),
    OX_OP_EX("aten::one_hot", 9, p_one_hot, 1, sym_one_hot, 0, check_one_hot),
};
AT_FAMILY_SIZE(at_ops_embedding);
