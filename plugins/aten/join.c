/* Joining and splitting along a dim: cat -> Concat, stack -> Unsqueeze +
 * Concat; split, split_with_sizes, chunk, unbind -> one Split node with as
 * many outputs as the host recorded (unbind squeezes each). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Pieces of unequal sizes a split may make (their sizes sit on the stack). */
#define AT_SPLIT_MAX 1024

/* A tensor of shape (0,). */
static int is_legacy_empty(ox_sym *g, const ox_api *api, ox_vid x)
{
    return api->rank(g, x) == 1 && api->size(g, x, 0) == 0;
}

static int sym_cat(ox_sym *g, const ox_api *api)
{
    const ox_vid *xs = NULL;
    size_t n = api->arg_tensors(g, "tensors", &xs);
    if (n == 0)
        return api->fail(g, "argument 'tensors' is empty; cat needs at least one tensor");
    for (size_t i = 0; i < n; i++)
        if (!xs[i])
            return api->fail(g, "argument 'tensors' has None at position %zu", i);
    /* torch.cat promotes its tensors to their common type (however many:
     * DenseNet concatenates dozens) */
    ox_dtype to = OX_UNDEFINED;
    for (size_t i = 0; i < n; i++)
        to = oxu_promote_skip_undefined(to, api->dtype(g, xs[i]));
    /* torch.cat skips 1-D tensors of size 0 among tensors of another rank
     * (its legacy empty tensor, e.g. Emformer's empty memory bank), which
     * Concat would refuse: all inputs there have one rank */
    int rank = -1;
    for (size_t i = 0; i < n && rank < 0; i++)
        if (!is_legacy_empty(g, api, xs[i]))
            rank = api->rank(g, xs[i]);
    if (rank < 0)
        rank = api->rank(g, xs[0]);
    ox_vid *parts = malloc(n * sizeof *parts);
    if (!parts)
        return api->fail(g, "out of memory for %zu tensors", n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rank != 1 && is_legacy_empty(g, api, xs[i]))
            continue;
        if (!(parts[k++] = oxu_cast_to(g, api, xs[i], to))) {
            free(parts);
            return 1;
        }
    }
    int64_t dim;
    /* Concat accepts negative axes only from opset 11: normalise. */
    int rc;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &dim))
        rc = 1;
    else
        rc = oxu_set_result(g, api, 0, k == 1 ? parts[0] : at_concat(g, api, parts, k, dim));
    free(parts);
    return rc;
}

static int sym_stack(ox_sym *g, const ox_api *api)
{
    const ox_vid *xs = NULL;
    size_t n = api->arg_tensors(g, "tensors", &xs);
    if (n == 0)
        return api->fail(g, "argument 'tensors' is empty");
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, xs[0]) + 1, &dim))
        return 1;
    ox_vid parts[64];
    if (n > 64)
        return api->fail(g, "argument 'tensors' has %zu tensors; at most 64 are supported", n);
    /* torch.stack promotes its tensors to their common type, as torch.cat
     * does (stack([float, int32]) is float); Concat wants one type */
    ox_dtype to = OX_UNDEFINED;
    for (size_t i = 0; i < n; i++) {
        if (!xs[i])
            return api->fail(g, "argument 'tensors' has None at position %zu", i);
        to = oxu_promote_skip_undefined(to, api->dtype(g, xs[i]));
    }
    for (size_t i = 0; i < n; i++)
        if (!(parts[i] = at_unsqueeze(g, api, oxu_cast_to(g, api, xs[i], to), dim)))
            return 1;
    return oxu_set_result(g, api, 0, at_concat(g, api, parts, n, dim));
}

/* Split x along dim into n pieces of the given sizes (NULL: n equal pieces,
 * which Split makes without being told the sizes, so a dim whose size
 * varies at run time still splits right); each piece squeezed along dim when
 * `squeeze` (unbind).  Sets every output. */
static int split_into(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim, const int64_t *sizes,
                      uint32_t n, int squeeze)
{
    if (n == 1)
        sizes = NULL; /* one piece is the whole dim, whatever its size at run time */
    ox_vid *outs = calloc(n ? n : 1, sizeof *outs);
    if (!outs)
        return api->fail(g, "out of memory splitting into %u pieces", n);
    /* oxu_split spells the sizes per opset: attribute, input, or (equal
     * pieces from opset 18) the num_outputs attribute */
    int rc = oxu_split(g, api, x, dim, sizes, n, outs);
    for (uint32_t i = 0; !rc && i < n; i++) {
        ox_vid y = outs[i];
        if (squeeze)
            y = at_squeeze(g, api, y, &dim, 1);
        rc = oxu_set_result(g, api, i, y);
    }
    free(outs);
    return rc;
}

/* The dim argument normalised against x's rank. */
static int split_dim(ox_sym *g, const ox_api *api, ox_vid x, int64_t *dim)
{
    return at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), dim);
}

/* The size of x along dim, which pieces of a given length need. */
static int64_t split_length(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim)
{
    int64_t len = oxu_fixed_size(g, api, x, (int)dim);
    if (len < 0)
        api->fail(g, "%s needs the size of dim %lld, which is unknown; record the input's sizes",
                  api->op_name(g), (long long)dim);
    return len;
}

/* Pieces of `piece` elements (the last one shorter) over len elements. */
static int split_even(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim, int64_t len,
                      int64_t piece)
{
    uint32_t n = api->n_outputs(g);
    int64_t want = piece > 0 ? (len + piece - 1) / piece : -1;
    if (len == 0)
        want = 1; /* torch gives one empty piece */
    if (piece <= 0 || want != (int64_t)n)
        return api->fail(g, "pieces of %lld along a dim of %lld make %lld tensors, but the host "
                            "recorded %u outputs",
                         (long long)piece, (long long)len, (long long)want, n);
    if (len % piece == 0)
        return split_into(g, api, x, dim, NULL, n, 0);
    int64_t sizes[AT_SPLIT_MAX];
    if (n > AT_SPLIT_MAX)
        return api->fail(g, "%s into %u pieces; at most %d are supported", api->op_name(g), n,
                         AT_SPLIT_MAX);
    for (uint32_t i = 0; i < n; i++)
        sizes[i] = i + 1 < n ? piece : len - piece * (int64_t)(n - 1);
    return split_into(g, api, x, dim, sizes, n, 0);
}

/* Pieces of the listed sizes, one per recorded output. */
static int split_sizes(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim, const char *arg)
{
    const int64_t *sizes = NULL;
    size_t k = api->arg_ints(g, arg, &sizes);
    uint32_t n = api->n_outputs(g);
    if (k != n)
        return api->fail(g, "argument '%s' has %zu sizes, but the host recorded %u outputs", arg, k,
                         n);
    int64_t len = api->size(g, x, (int)dim), sum = 0;
    for (size_t i = 0; i < k; i++) {
        if (sizes[i] < 0)
            return api->fail(g, "argument '%s'[%zu] is %lld; sizes must be non-negative", arg, i,
                             (long long)sizes[i]);
        sum += sizes[i];
    }
    if (len >= 0 && sum != len)
        return api->fail(g, "argument '%s' sums to %lld, but dim %lld has %lld elements", arg,
                         (long long)sum, (long long)dim, (long long)len);
    return split_into(g, api, x, dim, sizes, n, 0);
}

/* split(self, split_size, dim): pieces of split_size, or (the int-list
 * overload) of the listed sizes. */
static int sym_split(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (split_dim(g, api, x, &dim))
        return 1;
    if (api->arg_kind(g, "split_size") == OX_ARG_INTS)
        return split_sizes(g, api, x, dim, "split_size");
    int64_t len = split_length(g, api, x, dim);
    return len < 0 ? 1 : split_even(g, api, x, dim, len, api->arg_int(g, "split_size", 0));
}

static int sym_split_with_sizes(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (split_dim(g, api, x, &dim))
        return 1;
    return split_sizes(g, api, x, dim, "split_sizes");
}

/* chunk(self, chunks, dim): pieces of ceil(len / chunks), so possibly fewer
 * than chunks of them. */
static int sym_chunk(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim, chunks = api->arg_int(g, "chunks", 1);
    if (split_dim(g, api, x, &dim))
        return 1;
    if (chunks < 1)
        return api->fail(g, "argument 'chunks' is %lld; it must be positive", (long long)chunks);
    int64_t len = split_length(g, api, x, dim);
    if (len < 0)
        return 1;
    return split_even(g, api, x, dim, len, len ? (len + chunks - 1) / chunks : 1);
}

/* unbind(self, dim): one piece per position, the dim removed. */
static int sym_unbind(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (split_dim(g, api, x, &dim))
        return 1;
    uint32_t n = api->n_outputs(g);
    int64_t len = api->size(g, x, (int)dim);
    if (len >= 0 && len != (int64_t)n)
        return api->fail(g, "unbind along a dim of %lld elements, but the host recorded %u outputs",
                         (long long)len, n);
    return split_into(g, api, x, dim, NULL, n, 1);
}

/* tensor_split: pieces by `sections` (the first len % sections one longer)
 * or by the cut positions `indices` (slices between them, Python's bounds:
 * negative from the end, clamped, an empty piece where a cut goes back).
 * The .tensor_indices_or_sections overload (a tensor holding either) is not
 * declared: its values are known only at run time while the pieces' count
 * is fixed by the recording, so a host records the int or list overload.
 * One Slice per piece: the pieces of decreasing cuts need not cover the dim. */
static int sym_tensor_split(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int64_t dim;
    if (split_dim(g, api, x, &dim))
        return 1;
    int64_t len = split_length(g, api, x, dim);
    if (len < 0)
        return 1;
    uint32_t n = api->n_outputs(g);
    if (n > AT_SPLIT_MAX)
        return api->fail(g, "tensor_split into %u pieces; at most %d are supported", n,
                         AT_SPLIT_MAX);
    int64_t start[AT_SPLIT_MAX], end[AT_SPLIT_MAX];
    if (api->arg_kind(g, "sections") == OX_ARG_INT) {
        int64_t k = api->arg_int(g, "sections", 1);
        if (k < 1 || k != (int64_t)n)
            return api->fail(g, "argument 'sections' is %lld, but the host recorded %u outputs",
                             (long long)k, n);
        int64_t pos = 0;
        for (int64_t i = 0; i < k; i++) {
            int64_t size = len / k + (i < len % k);
            start[i] = pos;
            end[i] = pos += size;
        }
    } else if (api->arg_kind(g, "indices") != OX_ARG_INTS) {
        return api->fail(g, "tensor_split needs 'sections' (an int) or 'indices' (an int list)");
    } else {
        const int64_t *cuts = NULL;
        size_t k = api->arg_ints(g, "indices", &cuts);
        if (k + 1 != n)
            return api->fail(g, "argument 'indices' has %zu cuts, but the host recorded %u outputs",
                             k, n);
        int64_t prev = 0;
        for (size_t i = 0; i <= k; i++) {
            int64_t c = len;
            if (i < k) {
                c = cuts[i] < 0 ? cuts[i] + len : cuts[i];
                c = c < 0 ? 0 : c > len ? len : c;
            }
            start[i] = prev;
            end[i] = c < prev ? prev : c;
            prev = c;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (oxu_set_result(g, api, i, at_slice(g, api, x, dim, start[i], end[i], 1)))
            return 1;
    return 0;
}

static const ox_param_decl p_cat[] = {OX_PARAM("tensors", OX_ARG_TENSOR_LIST),
                                      OX_PARAM_INT("dim", OX_ARG_INT, 0)};
/* split.Tensor takes an int, split.sizes an int list, both named split_size. */
static const ox_param_decl p_split[] = {
    OX_PARAM("self", OX_ARG_TENSOR), AT_PARAM_OR("split_size", OX_ARG_INT, OX_ARG_INTS),
    OX_PARAM_INT("dim", OX_ARG_INT, 0)};
static const ox_param_decl p_split_with_sizes[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                   OX_PARAM("split_sizes", OX_ARG_INTS),
                                                   OX_PARAM_INT("dim", OX_ARG_INT, 0)};
static const ox_param_decl p_chunk[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("chunks", OX_ARG_INT),
                                        OX_PARAM_INT("dim", OX_ARG_INT, 0)};
static const ox_param_decl p_unbind[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         OX_PARAM_INT("dim", OX_ARG_INT, 0)};

/* tensor_split.sections (self, sections, dim) and .indices (self, indices,
 * dim): one declaration, the recorded one of the two present */
static const ox_param_decl p_tensor_split[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM_NULL("sections", OX_ARG_INT),
                                               OX_PARAM_NULL("indices", OX_ARG_INTS),
                                               OX_PARAM_INT("dim", OX_ARG_INT, 0)};
/* unsafe_split.Tensor: split_size is an int */
static const ox_param_decl p_unsafe_split[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM("split_size", OX_ARG_INT),
                                               OX_PARAM_INT("dim", OX_ARG_INT, 0)};

#define AS_RECORDED OX_OP_OUTPUTS_AS_RECORDED
const ox_op_decl at_ops_join[] = {
    OX_OP("aten::cat", 7, p_cat, 1, sym_cat),
    OX_OP("aten::stack", 7, p_cat, 1, sym_stack),
    OX_OP_EX("aten::split", 7, p_split, 1, sym_split, AS_RECORDED, NULL),
    OX_OP_EX("aten::split_with_sizes", 7, p_split_with_sizes, 1, sym_split_with_sizes,
             AS_RECORDED, NULL),
    OX_OP_EX("aten::chunk", 7, p_chunk, 1, sym_chunk, AS_RECORDED, NULL),
    OX_OP_EX("aten::unbind", 7, p_unbind, 1, sym_unbind, AS_RECORDED, NULL),
    /* the unsafe_ forms skip autograd's view checks: the same pieces */
    OX_OP_EX("aten::unsafe_split", 7, p_unsafe_split, 1, sym_split, AS_RECORDED, NULL),
    OX_OP_EX("aten::unsafe_split_with_sizes", 7, p_split_with_sizes, 1, sym_split_with_sizes,
             AS_RECORDED, NULL),
    OX_OP_EX("aten::unsafe_chunk", 7, p_chunk, 1, sym_chunk, AS_RECORDED, NULL),
    OX_OP_EX("aten::tensor_split", 7, p_tensor_split, 1, sym_tensor_split, AS_RECORDED, NULL),
};
AT_FAMILY_SIZE(at_ops_join);


