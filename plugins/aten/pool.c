/* Pooling over 1, 2 or 3 spatial dimensions: max_pool*d (with or without
 * indices) -> MaxPool, avg_pool*d -> AveragePool, adaptive pooling ->
 * GlobalAveragePool, a pooling whose kernel tiles the input exactly, or
 * else one reduction per output bin.
 *
 * One symbolic per ONNX operator; the number of spatial dimensions is the
 * declaration's (kernel_size / output_size counts), so an unbatched input
 * (C, *spatial) is pooled as a batch of one. */
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

#define POOL_MAX_DIMS 3

typedef struct pool_args {
    int nd; /* spatial dimensions */
    int64_t kernel[POOL_MAX_DIMS], stride[POOL_MAX_DIMS], pad[POOL_MAX_DIMS];
    int64_t dilation[POOL_MAX_DIMS];
    int ceil_mode;
} pool_args;

/* The spatial dimensions an operator pools over, from its name's digit
 * (aten::max_pool3d_with_indices -> 3). */
static int pool_dims(ox_sym *g, const ox_api *api)
{
    const char *name = api->op_name(g);
    const char *d = strstr(name, "pool");
    return d && d[4] >= '1' && d[4] <= '3' ? d[4] - '0' : 2;
}

static int read_pool(ox_sym *g, const ox_api *api, int with_dilation, pool_args *p)
{
    const int64_t *s = NULL;
    p->nd = pool_dims(g, api);
    size_t nd = (size_t)p->nd;
    if (api->arg_ints(g, "kernel_size", &s) == 0)
        return api->fail(g, "argument 'kernel_size' is missing or empty");
    if (at_ints_n(g, api, "kernel_size", nd, 1, p->kernel))
        return 1;
    /* torch: an empty stride means stride = kernel_size. */
    if (api->arg_ints(g, "stride", &s) == 0) {
        for (size_t i = 0; i < nd; i++)
            p->stride[i] = p->kernel[i];
    } else if (at_ints_n(g, api, "stride", nd, 1, p->stride)) {
        return 1;
    }
    if (at_ints_n(g, api, "padding", nd, 0, p->pad))
        return 1;
    for (size_t i = 0; i < nd; i++)
        p->dilation[i] = 1;
    if (with_dilation && at_ints_n(g, api, "dilation", nd, 1, p->dilation))
        return 1;
    p->ceil_mode = api->arg_int(g, "ceil_mode", 0) != 0;
    return 0;
}

/* Whether x is unbatched, (C, *spatial), rather than (N, C, *spatial). */
static int pool_unbatched(ox_sym *g, const ox_api *api, ox_vid x, int nd, int *unbatched)
{
    int rank = api->rank(g, x);
    if (rank != nd + 1 && rank != nd + 2)
        return api->fail(g, "%s pools %d spatial dimensions, so its input must have rank %d or "
                            "%d; got rank %d",
                         api->op_name(g), nd, nd + 1, nd + 2, rank);
    *unbatched = rank == nd + 1;
    return 0;
}

/* The extra end padding that makes floor-mode pooling give ceil_mode's
 * output size: torch's ceil size, less the last window when it would start
 * in the end padding.  For opset 9, whose pooling ops have no ceil_mode;
 * needs the spatial sizes (the check hook refuses otherwise). */
static void ceil_extra_pads(ox_sym *g, const ox_api *api, ox_vid x, const pool_args *p,
                            int64_t *extra)
{
    for (int i = 0; i < p->nd; i++) {
        int64_t len = oxu_fixed_size(g, api, x, i - p->nd), k = p->kernel[i], s = p->stride[i];
        int64_t span = len + 2 * p->pad[i] - k;
        int64_t out = (span + s - 1) / s + 1;
        if ((out - 1) * s >= len + p->pad[i])
            out--;
        int64_t need = (out - 1) * s + k - (len + 2 * p->pad[i]);
        extra[i] = need > 0 ? need : 0;
    }
}

/* ceil_mode before opset 10 is lowered through padding computed from the
 * input's spatial sizes, so they must be recorded. */
static int check_pool(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 10 || api->arg_int(g, "ceil_mode", 0) == 0)
        return 0;
    ox_vid x = api->arg_tensor(g, "self");
    int nd = pool_dims(g, api);
    for (int i = 0; i < nd; i++)
        if (api->size(g, x, i - nd) < 0)
            return api->limit(g, 10, "ceil_mode before opset 10 is exported as extra padding, "
                                     "which needs the input's spatial sizes; they are unknown "
                                     "(dynamic)");
    return 0;
}

/* The ONNX pads (begins, then ends) of a pooling, with ceil_mode lowered to
 * extra end padding before opset 10 (*ceil_attr says whether the node keeps
 * the attribute instead). */
static void pool_pads(ox_sym *g, const ox_api *api, ox_vid x, const pool_args *p,
                      const int64_t *begin, int64_t *pads, int *ceil_attr)
{
    int64_t extra[POOL_MAX_DIMS] = {0, 0, 0};
    *ceil_attr = p->ceil_mode && api->opset(g) >= 10;
    if (p->ceil_mode && !*ceil_attr)
        ceil_extra_pads(g, api, x, p, extra);
    for (int i = 0; i < p->nd; i++) {
        pads[i] = begin[i];
        pads[p->nd + i] = begin[i] + extra[i];
    }
}

/* torch's indices count within each (n, c) plane, ONNX's over the whole
 * tensor.  A MaxPool with a 1-sized kernel numbers every input element the
 * ONNX way; its first element per plane is that plane's offset, which
 * turns the pooled indices into torch's at any (dynamic) size. */
static ox_vid plane_indices(ox_sym *g, const ox_api *api, ox_vid x, int nd, ox_vid flat)
{
    int64_t ones[POOL_MAX_DIMS] = {1, 1, 1}, axes[POOL_MAX_DIMS], starts[POOL_MAX_DIMS] = {0},
            ends[POOL_MAX_DIMS] = {1, 1, 1};
    ox_onode *n = flat ? api->op(g, "MaxPool", 1, &x, 2) : NULL;
    if (n) {
        api->attr_ints(n, "kernel_shape", ones, (size_t)nd);
        api->attr_ints(n, "strides", ones, (size_t)nd);
    }
    ox_vid every = n ? api->node_output(n, 1) : 0;
    if (flat && !every) {
        api->fail(g, "could not create ONNX node MaxPool (out of memory?)");
        return 0;
    }
    for (int i = 0; i < nd; i++)
        axes[i] = 2 + i;
    ox_vid offset = oxu_slice_axes(g, api, every, (size_t)nd, axes, starts, ends, NULL);
    return at_op2(g, api, "Sub", flat, offset);
}

/* MaxPool of x (batched) with p; *indices (when not NULL) gets torch's
 * per-plane indices.  src is the recorded input, whose sizes x (its
 * Unsqueeze, when unbatched) may not carry. */
static ox_vid max_pool(ox_sym *g, const ox_api *api, ox_vid x, ox_vid src, const pool_args *p,
                       ox_vid *indices)
{
    int64_t pads[2 * POOL_MAX_DIMS];
    int ceil_attr, dilated = 0;
    pool_pads(g, api, src, p, p->pad, pads, &ceil_attr);
    for (int i = 0; i < p->nd; i++)
        dilated |= p->dilation[i] != 1;
    size_t nd = (size_t)p->nd;
    ox_onode *n = x ? api->op(g, "MaxPool", 1, &x, indices ? 2 : 1) : NULL;
    if (n) {
        api->attr_ints(n, "kernel_shape", p->kernel, nd);
        api->attr_ints(n, "strides", p->stride, nd);
        api->attr_ints(n, "pads", pads, 2 * nd);
        if (dilated)
            api->attr_ints(n, "dilations", p->dilation, nd);
        if (ceil_attr)
            api->attr_int(n, "ceil_mode", 1);
    }
    ox_vid y = at_out(g, api, n, "MaxPool");
    if (indices)
        *indices = y ? plane_indices(g, api, x, p->nd, api->node_output(n, 1)) : 0;
    return y;
}

/* Outputs of a pooling computed on a batch of one: drop that batch again;
 * in the recorded type (averages of float64 are computed in float32). */
static int set_pooled(ox_sym *g, const ox_api *api, int unbatched, size_t n, ox_vid *ys)
{
    int64_t zero = 0;
    for (size_t i = 0; i < n; i++) {
        ox_vid y = unbatched ? oxu_squeeze(g, api, ys[i], &zero, 1) : ys[i];
        if (oxu_set_result_recorded(g, api, i, y))
            return 1;
    }
    return 0;
}

/* max_pool*d and max_pool*d_with_indices.  What MaxPool lacks before opset
 * 10 (dilations) is a limitation in opset_9.yaml; ceil_mode is extra
 * padding there (check_pool). */
static int sym_max_pool(ox_sym *g, const ox_api *api)
{
    pool_args p;
    int unbatched;
    ox_vid src = api->arg_tensor(g, "self"), x = src;
    if (read_pool(g, api, 1, &p) || pool_unbatched(g, api, x, p.nd, &unbatched))
        return 1;
    if (unbatched)
        x = oxu_unsqueeze(g, api, x, 0);
    int with_indices = strstr(api->op_name(g), "with_indices") != NULL;
    ox_vid ys[2] = {0, 0};
    ys[0] = max_pool(g, api, x, src, &p, with_indices ? &ys[1] : NULL);
    return set_pooled(g, api, unbatched, with_indices ? 2 : 1, ys);
}

/* avg_pool*d.  divisor_override has no ONNX form (opset_9.yaml).  Before
 * opset 10, ceil_mode is extra end padding, which AveragePool must not
 * count: torch counts the explicit padding (count_include_pad) but never
 * the ceil overhang, so that padding is a Pad node and the pooling counts
 * no padding. */
static int sym_avg_pool(ox_sym *g, const ox_api *api)
{
    pool_args p;
    int unbatched;
    ox_vid src = api->arg_tensor(g, "self"), x = src;
    if (read_pool(g, api, 0, &p) || pool_unbatched(g, api, x, p.nd, &unbatched))
        return 1;
    x = at_float64_as_float(g, api, x);
    if (unbatched)
        x = oxu_unsqueeze(g, api, x, 0);
    int count_pad = api->arg_int(g, "count_include_pad", 1) != 0;
    int64_t pads[2 * POOL_MAX_DIMS];
    int ceil_attr, padded = 0;
    pool_pads(g, api, src, &p, p.pad, pads, &ceil_attr);
    for (int i = 0; i < p.nd; i++)
        padded |= p.pad[i] != 0;
    if (p.ceil_mode && !ceil_attr && count_pad) {
        if (padded) {
            /* the explicit padding becomes data; the ceil overhang (the
             * same amount, from the unpadded geometry) stays uncounted */
            size_t rank = (size_t)p.nd + 2;
            int64_t full[2 * (POOL_MAX_DIMS + 2)] = {0};
            for (int i = 0; i < p.nd; i++) {
                full[2 + i] = full[rank + 2 + i] = p.pad[i];
                pads[p.nd + i] -= pads[i];
                pads[i] = 0;
            }
            x = oxu_pad(g, api, x, "constant", full, 2 * rank, 0.0);
        }
        count_pad = 0;
    }
    size_t nd = (size_t)p.nd;
    ox_onode *n = x ? api->op(g, "AveragePool", 1, &x, 1) : NULL;
    if (n) {
        api->attr_ints(n, "kernel_shape", p.kernel, nd);
        api->attr_ints(n, "strides", p.stride, nd);
        api->attr_ints(n, "pads", pads, 2 * nd);
        api->attr_int(n, "count_include_pad", count_pad);
        if (ceil_attr)
            api->attr_int(n, "ceil_mode", 1);
    }
    ox_vid y = at_out(g, api, n, "AveragePool");
    return set_pooled(g, api, unbatched, 1, &y);
}

/* ONNX has no adaptive pooling.  An output size that tiles the input is a
 * pooling whose kernel is the tile; any other is pooled bin by bin
 * (pool_bins).  Only a non-positive output size is refused (torch's error). */
static int check_adaptive_pool(ox_sym *g, const ox_api *api)
{
    int nd = pool_dims(g, api);
    const int64_t *out = NULL;
    size_t n = api->arg_ints(g, "output_size", &out);
    if (n != (size_t)nd)
        return 0; /* a bad size: the symbolic's to say */
    for (int i = 0; i < nd; i++)
        if (out[i] <= 0)
            return api->limit(g, 0, "%s to size %lld in spatial dimension %d: the output size must be "
                                    "positive",
                              api->op_name(g), (long long)out[i], i);
    return 0;
}

/* Adaptive pooling of x (batched) to out when out does not tile the input:
 * bin i of a dim of length len pooled to o covers [floor(i*len/o),
 * ceil((i+1)*len/o)), torch's bins (neighbours overlap where o does not
 * divide len).  Each dim is pooled in turn, a Slice and a keepdims
 * ReduceMean/ReduceMax per bin, concatenated: the mean or max over a box is
 * that over its rows of the one over its columns, since every row of a bin
 * has the same length. */
static ox_vid pool_bins(ox_sym *g, const ox_api *api, ox_vid x, int rank, const int64_t *lens,
                        const int64_t *out, int nd, int is_max)
{
    for (int d = 0; d < nd && x; d++) {
        int64_t len = lens[d], o = out[d], axis = rank - nd + d;
        if (len == o)
            continue;
        ox_vid *bins = calloc((size_t)o, sizeof *bins);
        if (!bins) {
            api->fail(g, "out of memory");
            return 0;
        }
        for (int64_t i = 0; i < o; i++) {
            int64_t start = i * len / o, end = ((i + 1) * len + o - 1) / o;
            ox_vid cut = at_slice(g, api, x, axis, start, end, 1);
            bins[i] = oxu_reduce(g, api, is_max ? "ReduceMax" : "ReduceMean", cut, &axis, 1, 1);
            if (!bins[i])
                break;
        }
        x = bins[o - 1] ? (o == 1 ? bins[0] : oxu_concat(g, api, bins, (size_t)o, axis)) : 0;
        free(bins);
    }
    return x;
}

/* A stand-in for an output ONNX cannot compute: a node of a domain no runtime
 * has, which fails the export's check if the model reads it (an unread
 * output is dropped). */
static ox_vid unexpressible(ox_sym *g, const ox_api *api, ox_vid like, const char *what)
{
    ox_onode *n = api->op_domain(g, "oxport.unexpressible", 1, what, 1, &like, 1);
    return oxu_out(g, api, n, what);
}

/* adaptive_avg_pool*d and adaptive_max_pool*d (values and indices). */
static int sym_adaptive_pool(ox_sym *g, const ox_api *api)
{
    int nd = pool_dims(g, api), unbatched;
    int is_max = strstr(api->op_name(g), "max") != NULL;
    ox_vid src = api->arg_tensor(g, "self"), x = src;
    int64_t out[POOL_MAX_DIMS];
    if (at_ints_n(g, api, "output_size", (size_t)nd, 1, out) ||
        pool_unbatched(g, api, x, nd, &unbatched))
        return 1;
    if (unbatched)
        x = oxu_unsqueeze(g, api, x, 0);
    int global = 1;
    for (int i = 0; i < nd; i++)
        global &= out[i] == 1;
    ox_vid ys[2] = {0, 0};
    if (!is_max)
        x = at_float64_as_float(g, api, x);
    if (global && !is_max) {
        ys[0] = at_op1(g, api, "GlobalAveragePool", x);
        return set_pooled(g, api, unbatched, 1, ys);
    }
    pool_args p = {.nd = nd, .ceil_mode = 0};
    int64_t lens[POOL_MAX_DIMS];
    int tiles = 1;
    for (int i = 0; i < nd; i++) {
        int64_t len = lens[i] = oxu_fixed_size(g, api, src, i - nd);
        if (len < 0)
            return api->fail(g, "%s needs the input's spatial sizes, which are unknown "
                                "(dynamic); record them",
                             api->op_name(g));
        tiles &= len % out[i] == 0;
        p.kernel[i] = p.stride[i] = len / out[i];
        p.pad[i] = 0;
        p.dilation[i] = 1;
    }
    if (!tiles) {
        /* x's rank: the recorded input's, plus the batch dim of an unbatched one */
        ys[0] = pool_bins(g, api, x, api->rank(g, src) + unbatched, lens, out, nd, is_max);
        if (is_max)
            ys[1] = ys[0] ? unexpressible(g, api, ys[0], "adaptive_max_pool_indices") : 0;
        return set_pooled(g, api, unbatched, is_max ? 2 : 1, ys);
    }
    if (is_max) {
        ys[0] = max_pool(g, api, x, src, &p, &ys[1]);
        return set_pooled(g, api, unbatched, 2, ys);
    }
    int64_t pads[2 * POOL_MAX_DIMS] = {0};
    ox_onode *n = x ? api->op(g, "AveragePool", 1, &x, 1) : NULL;
    if (n) {
        api->attr_ints(n, "kernel_shape", p.kernel, (size_t)nd);
        api->attr_ints(n, "strides", p.stride, (size_t)nd);
        api->attr_ints(n, "pads", pads, 2 * (size_t)nd);
    }
    ys[0] = at_out(g, api, n, "AveragePool");
    return set_pooled(g, api, unbatched, 1, ys);
}

/* Schemas of torch 1.13 (torch._C._jit_get_schemas_for_operator); the 1-D
 * forms spell their int defaults as lists, the others as ints. */
static const int64_t one[] = {1}, zero[] = {0};
#define MAX_POOL_PARAMS                                                                   \
    {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),               \
     OX_PARAM_EMPTY_INTS("stride"), /* empty: the kernel size */                          \
     OX_PARAM_INTS("padding", zero), OX_PARAM_INTS("dilation", one),                      \
     OX_PARAM_BOOL("ceil_mode", 0)}
static const ox_param_decl p_max_pool[] = MAX_POOL_PARAMS;
static const ox_param_decl p_avg_pool1d[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),
    OX_PARAM_EMPTY_INTS("stride"), OX_PARAM_INTS("padding", zero),
    OX_PARAM_BOOL("ceil_mode", 0), OX_PARAM_BOOL("count_include_pad", 1)};
static const ox_param_decl p_avg_pool[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("kernel_size", OX_ARG_INTS),
    OX_PARAM_EMPTY_INTS("stride"), OX_PARAM_INTS("padding", zero),
    OX_PARAM_BOOL("ceil_mode", 0), OX_PARAM_BOOL("count_include_pad", 1),
    OX_PARAM_NULL("divisor_override", OX_ARG_INT)};
static const ox_param_decl p_adaptive_pool[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                OX_PARAM("output_size", OX_ARG_INTS)};

const ox_op_decl at_ops_pool[] = {
    OX_OP_EX("aten::max_pool1d", 9, p_max_pool, 1, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::max_pool2d", 7, p_max_pool, 1, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::max_pool3d", 9, p_max_pool, 1, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::max_pool1d_with_indices", 9, p_max_pool, 2, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::max_pool2d_with_indices", 9, p_max_pool, 2, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::max_pool3d_with_indices", 9, p_max_pool, 2, sym_max_pool, 0, check_pool),
    OX_OP_EX("aten::avg_pool1d", 9, p_avg_pool1d, 1, sym_avg_pool, 0, check_pool),
    OX_OP_EX("aten::avg_pool2d", 7, p_avg_pool, 1, sym_avg_pool, 0, check_pool),
    OX_OP_EX("aten::avg_pool3d", 9, p_avg_pool, 1, sym_avg_pool, 0, check_pool),
    OX_OP_EX("aten::adaptive_avg_pool1d", 9, p_adaptive_pool, 1, sym_adaptive_pool, 0,
             check_adaptive_pool),
    OX_OP_EX("aten::adaptive_avg_pool2d", 7, p_adaptive_pool, 1, sym_adaptive_pool, 0,
             check_adaptive_pool),
    OX_OP_EX("aten::adaptive_avg_pool3d", 9, p_adaptive_pool, 1, sym_adaptive_pool, 0,
             check_adaptive_pool),
    OX_OP_EX("aten::adaptive_max_pool1d", 9, p_adaptive_pool, 2, sym_adaptive_pool, 0,
             check_adaptive_pool),
    OX_OP_EX("aten::adaptive_max_pool2d", 9, p_adaptive_pool, 2, sym_adaptive_pool, 0,
             check_adaptive_pool),
    OX_OP_EX("aten::adaptive_max_pool3d", 9, p_adaptive_pool, 2, sym_adaptive_pool, 0,
             check_adaptive_pool),
};
AT_FAMILY_SIZE(at_ops_pool);
