/* Shape and layout: flatten, view/reshape (and _as), t/transpose/permute,
 * movedim, numpy_T, contiguous, lift, clone/detach/alias and the other
 * identities, unsqueeze/squeeze -- the same elements under another shape or
 * order. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Reshape x to the constant dims head[0..n_head), then the 1-D int64 value
 * `middle` when given, then x's own dims from `tail` on.  Those trailing dims
 * shift position, so Reshape's 0 cannot copy them: they come from x's Shape,
 * which follows a dynamic axis (an export without one folds the chain into a
 * constant target).  flatten and unflatten. */
static ox_vid reshape_around(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *head,
                             size_t n_head, ox_vid middle, int64_t tail, int rank)
{
    ox_vid parts[3];
    size_t k = 0;
    if (n_head)
        parts[k++] = oxu_const_ints(g, api, head, n_head);
    if (middle)
        parts[k++] = middle;
    if (tail < rank)
        parts[k++] = at_slice(g, api, at_op1(g, api, "Shape", x), 0, tail, rank, 1);
    ox_vid target = k == 1 ? parts[0] : at_concat(g, api, parts, k, 0);
    return at_op2(g, api, "Reshape", x, target);
}

static int sym_flatten(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "flatten needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank == 0)
        return oxu_set_result(g, api, 0, at_reshape(g, api, x, (const int64_t[]){1}, 1));
    int64_t s, e;
    if (at_axis(g, api, "start_dim", api->arg_int(g, "start_dim", 0), rank, &s) ||
        at_axis(g, api, "end_dim", api->arg_int(g, "end_dim", -1), rank, &e))
        return 1;
    if (s > e)
        return api->fail(g, "start_dim %lld comes after end_dim %lld", (long long)s,
                         (long long)e);
    if (s == e)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    /* Flatten makes 2-D outputs: exactly torch's result in these two cases. */
    if ((s == 1 && e == rank - 1) || (s == 0 && e == rank - 2)) {
        ox_onode *n = api->op(g, "Flatten", 1, &x, 1);
        if (n)
            api->attr_int(n, "axis", s == 1 ? 1 : e + 1);
        return oxu_set_result(g, api, 0, at_out(g, api, n, "Flatten"));
    }
    if (rank > AT_MAX_RANK)
        return api->fail(g, "flatten supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    /* Leading dims copied (0) and the merged run inferred (-1) */
    int64_t head[AT_MAX_RANK];
    size_t k = 0;
    for (int64_t i = 0; i < s; i++)
        head[k++] = 0;
    head[k++] = -1;
    if (e == rank - 1)
        return oxu_set_result(g, api, 0, at_reshape(g, api, x, head, k));
    return oxu_set_result(g, api, 0, reshape_around(g, api, x, head, k, 0, e + 1, rank));
}

/* unflatten(self, dim, sizes): dim split into sizes (one may be -1).  The
 * other dims come from the input's Shape, so a dynamic axis among them
 * follows; sizes built from traced sizes come as a 1-D int64 tensor. */
static int sym_unflatten(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank <= 0)
        return api->fail(g, "unflatten needs an input of rank 1 or more with a known rank");
    if (rank > AT_MAX_RANK)
        return api->fail(g, "unflatten supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    int64_t d;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &d))
        return 1;
    ox_vid sizes;
    if (api->arg_kind(g, "sizes") == OX_ARG_TENSOR) {
        sizes = api->arg_tensor(g, "sizes");
    } else {
        const int64_t *v = NULL;
        size_t n = api->arg_ints(g, "sizes", &v);
        if (n == 0)
            return api->fail(g, "unflatten: sizes must be non-empty");
        sizes = oxu_const_ints(g, api, v, n);
    }
    if (!sizes)
        return 1;
    static const int64_t copied[AT_MAX_RANK] = {0}; /* Reshape's 0 copies a leading dim */
    return oxu_set_result(g, api, 0,
                          reshape_around(g, api, x, copied, (size_t)d, sizes, d + 1, rank));
}

static int reshape_to(ox_sym *g, const ox_api *api, const char *arg)
{
    /* A shape built from traced sizes (a 1-D int64 tensor) goes in as it is. */
    if (api->arg_kind(g, arg) == OX_ARG_TENSOR)
        return oxu_set_result(g, api, 0, at_op2(g, api, "Reshape", api->arg_tensor(g, "self"),
                                   api->arg_tensor(g, arg)));
    /* The shape is required: the pre-scan refuses a node without it. */
    const int64_t *shape = NULL;
    size_t n = api->arg_ints(g, arg, &shape);
    return oxu_set_result(g, api, 0, at_reshape(g, api, api->arg_tensor(g, "self"), shape, n));
}

static int sym_view(ox_sym *g, const ox_api *api)
{
    return reshape_to(g, api, "size");
}

static int sym_reshape(ox_sym *g, const ox_api *api)
{
    return reshape_to(g, api, "shape");
}

static int sym_t(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank >= 0 && rank < 2)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    static const int64_t perm[2] = {1, 0};
    return oxu_set_result(g, api, 0, at_transpose(g, api, x, perm, 2));
}

static int sym_transpose(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "transpose needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank > AT_MAX_RANK)
        return api->fail(g, "transpose supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    int64_t d0, d1, perm[AT_MAX_RANK];
    if (at_axis(g, api, "dim0", api->arg_int(g, "dim0", 0), rank, &d0) ||
        at_axis(g, api, "dim1", api->arg_int(g, "dim1", 1), rank, &d1))
        return 1;
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    perm[d0] = d1;
    perm[d1] = d0;
    return oxu_set_result(g, api, 0, at_transpose(g, api, x, perm, (size_t)rank));
}

static int sym_permute(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    const int64_t *dims = NULL;
    size_t n = api->arg_ints(g, "dims", &dims);
    int rank = api->rank(g, x);
    if (rank >= 0 && (size_t)rank != n)
        return api->fail(g, "argument 'dims' has %zu entries for a rank-%d input", n, rank);
    if (n > AT_MAX_RANK)
        return api->fail(g, "permute supports up to rank %d, got %zu dims", AT_MAX_RANK, n);
    int64_t perm[AT_MAX_RANK];
    for (size_t i = 0; i < n; i++)
        if (at_axis(g, api, "dims", dims[i], (int)n, &perm[i]))
            return 1;
    return oxu_set_result(g, api, 0, at_transpose(g, api, x, perm, n));
}

static int sym_contiguous(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", api->arg_tensor(g, "self")));
}

/* view_as / reshape_as(self, other): self in other's shape, read at run time. */
static int sym_reshape_as(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self"), other = api->arg_tensor(g, "other");
    if (!x || !other)
        return 1;
    return oxu_set_result(g, api, 0, at_op2(g, api, "Reshape", x, oxu_shape(g, api, other)));
}

/* movedim(self, source, destination), ints or int lists: the moved dims at
 * their destinations, the others in their order in the remaining places. */
static int sym_movedim(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "movedim needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank > AT_MAX_RANK)
        return api->fail(g, "movedim supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    int64_t src1, dst1;
    const int64_t *src = &src1, *dst = &dst1;
    size_t ns = 1, nd = 1;
    if (api->arg_kind(g, "source") == OX_ARG_INTS)
        ns = api->arg_ints(g, "source", &src);
    else
        src1 = api->arg_int(g, "source", 0);
    if (api->arg_kind(g, "destination") == OX_ARG_INTS)
        nd = api->arg_ints(g, "destination", &dst);
    else
        dst1 = api->arg_int(g, "destination", 0);
    if (ns != nd)
        return api->fail(g, "arguments 'source' (%zu dims) and 'destination' (%zu dims) differ "
                            "in length", ns, nd);
    if (ns > (size_t)rank)
        return api->fail(g, "movedim of %zu dims of a rank-%d input", ns, rank);
    int64_t perm[AT_MAX_RANK], s[AT_MAX_RANK], d[AT_MAX_RANK];
    int used_src[AT_MAX_RANK] = {0}, used_dst[AT_MAX_RANK] = {0};
    for (size_t i = 0; i < ns; i++) {
        if (at_axis(g, api, "source", src[i], rank, &s[i]) ||
            at_axis(g, api, "destination", dst[i], rank, &d[i]))
            return 1;
        if (used_src[s[i]]++ || used_dst[d[i]]++)
            return api->fail(g, "movedim: a dim repeats in 'source' or 'destination'");
        perm[d[i]] = s[i];
    }
    int64_t next = 0;
    for (int i = 0; i < rank; i++) {
        if (used_dst[i])
            continue;
        while (used_src[next])
            next++;
        perm[i] = next++;
    }
    return oxu_set_result(g, api, 0, at_transpose(g, api, x, perm, (size_t)rank));
}

/* numpy_T(self), Tensor.T: every dim reversed. */
static int sym_numpy_T(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "numpy_T needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank > AT_MAX_RANK)
        return api->fail(g, "numpy_T supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);
    if (rank < 2)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    int64_t perm[AT_MAX_RANK];
    for (int i = 0; i < rank; i++)
        perm[i] = rank - 1 - i;
    return oxu_set_result(g, api, 0, at_transpose(g, api, x, perm, (size_t)rank));
}

static int sym_unsqueeze(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank < 0 ? -1 : rank + 1, &dim))
        return 1;
    return oxu_set_result(g, api, 0, at_unsqueeze(g, api, x, dim));
}

static int sym_squeeze(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (api->arg_kind(g, "dim") == OX_ARG_NONE)
        return oxu_set_result(g, api, 0, at_squeeze(g, api, x, NULL, 0));
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, x), &dim))
        return 1;
    /* torch ignores a dim whose size is not 1; ONNX Squeeze would reject it. */
    int64_t size = oxu_fixed_size(g, api, x, (int)dim);
    if (size >= 0 && size != 1)
        return oxu_set_result(g, api, 0, at_op1(g, api, "Identity", x));
    return oxu_set_result(g, api, 0, at_squeeze(g, api, x, &dim, 1));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_flatten[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM_INT("start_dim", OX_ARG_INT, 0),
                                          OX_PARAM_INT("end_dim", OX_ARG_INT, -1)};
static const ox_param_decl p_unflatten[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                            AT_PARAM_OR("sizes", OX_ARG_INTS, OX_ARG_TENSOR)};
static const ox_param_decl p_view[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       AT_PARAM_OR("size", OX_ARG_INTS, OX_ARG_TENSOR)};
static const ox_param_decl p_reshape[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          AT_PARAM_OR("shape", OX_ARG_INTS, OX_ARG_TENSOR)};
static const ox_param_decl p_transpose[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                            OX_PARAM("dim0", OX_ARG_INT), OX_PARAM("dim1", OX_ARG_INT)};
static const ox_param_decl p_permute[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dims", OX_ARG_INTS)};
static const ox_param_decl p_reshape_as[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                             OX_PARAM("other", OX_ARG_TENSOR)};
/* movedim.int (ints) and movedim.intlist (int lists) */
static const ox_param_decl p_movedim[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          AT_PARAM_OR("source", OX_ARG_INT, OX_ARG_INTS),
                                          AT_PARAM_OR("destination", OX_ARG_INT, OX_ARG_INTS)};
/* clone's memory_format is about strides, which ONNX has none of */
static const ox_param_decl p_clone[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM_NULL("memory_format", OX_ARG_INT)};
static const ox_param_decl p_unsqueeze[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT)};
/* dim None: every size-1 dim (torch's overload without dim). */
static const ox_param_decl p_squeeze[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM_NULL("dim", OX_ARG_INT)};

const ox_op_decl at_ops_shape[] = {
    OX_OP("aten::flatten", 7, p_flatten, 1, sym_flatten),
    OX_OP("aten::unflatten", 7, p_unflatten, 1, sym_unflatten),
    OX_OP("aten::view", 7, p_view, 1, sym_view),
    OX_OP("aten::reshape", 7, p_reshape, 1, sym_reshape),
    OX_OP("aten::t", 7, p_self, 1, sym_t),
    OX_OP("aten::transpose", 7, p_transpose, 1, sym_transpose),
    OX_OP("aten::permute", 7, p_permute, 1, sym_permute),
    OX_OP("aten::contiguous", 7, p_self, 1, sym_contiguous),
    /* lift (a tensor made a functional value) is the identity too */
    OX_OP("aten::lift", 9, p_self, 1, sym_contiguous),
    OX_OP("aten::view_as", 7, p_reshape_as, 1, sym_reshape_as),
    OX_OP("aten::reshape_as", 7, p_reshape_as, 1, sym_reshape_as),
    OX_OP("aten::movedim", 7, p_movedim, 1, sym_movedim),
    OX_OP("aten::numpy_T", 7, p_self, 1, sym_numpy_T),
    /* The same values under another name: a copy, a view without autograd,
     * an alias, and the conjugate / negative-bit resolutions, which are the
     * identity on the real tensors a trace holds (there is no complex
     * element type to record).  _conj stays excluded: torch defines it for
     * complex tensors only. */
    OX_OP("aten::clone", 7, p_clone, 1, sym_contiguous),
    OX_OP("aten::detach", 7, p_self, 1, sym_contiguous),
    OX_OP("aten::alias", 7, p_self, 1, sym_contiguous),
    OX_OP("aten::resolve_conj", 7, p_self, 1, sym_contiguous),
    OX_OP("aten::resolve_neg", 7, p_self, 1, sym_contiguous),
    OX_OP("aten::conj_physical", 7, p_self, 1, sym_contiguous),
    OX_OP("aten::unsqueeze", 7, p_unsqueeze, 1, sym_unsqueeze),
    OX_OP("aten::squeeze", 7, p_squeeze, 1, sym_squeeze),
};
AT_FAMILY_SIZE(at_ops_shape);
