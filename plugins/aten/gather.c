/* Reading elements by an index tensor: aten::gather (along a dim, index of
 * the output's shape), aten::index_select (whole slices of a dim),
 * aten::take (positions in the flattened tensor), aten::masked_select (the
 * elements under a mask, flattened), aten::nonzero (coordinates of the
 * non-zero elements) and aten::as_strided (a strided window, which with
 * constant sizes and strides is a Gather of constant flat positions).
 *
 * gather is GatherElements from opset 11.  Before, ONNX has no elementwise
 * gather; the one-hot form stands in: OneHot(index) along a new axis after
 * dim, times self with that axis added, summed over dim.  It picks exactly
 * the indexed element (every other term is a zero product), so integer
 * results are exact; a NaN or infinity anywhere in the gathered row spreads
 * into the sum, as torch.onnx's opset-9 gather does too. */
#include <stdint.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "one_hot_sum.h"
#include "oxport/plugin_util.h"

/* ONNX Runtime's OneHot kernels take int64 indices and depth with a float
 * or int64 on-value: the two values_type may be. */
ox_vid at_one_hot_of(ox_sym *g, const ox_api *api, ox_vid index, ox_vid self, int64_t dim,
                     int64_t axis, ox_dtype values_type)
{
    ox_vid idx = oxu_cast_to(g, api, index, OX_INT64);
    ox_vid depth = oxu_size_of(g, api, self, dim);
    int64_t two = 2;
    const float fv[2] = {0.0f, 1.0f};
    const int64_t iv[2] = {0, 1};
    ox_vid values = api->constant(g, values_type, 1, &two, values_type == OX_FLOAT
                                                               ? (const void *)fv
                                                               : (const void *)iv);
    if (!idx || !depth || !values)
        return 0;
    ox_onode *n = api->op(g, "OneHot", 3, (ox_vid[]){idx, depth, values}, 1);
    if (n)
        api->attr_int(n, "axis", axis);
    return at_out(g, api, n, "OneHot");
}

ox_dtype at_one_hot_type(ox_dtype t)
{
    return oxu_is_floating(t) ? OX_FLOAT : OX_INT64;
}

/* Before opset 11 gather's one-hot form broadcasts self against the index,
 * so the index must match self's sizes outside dim (torch allows it to be
 * smaller there). */
static int check_gather(ox_sym *g, const ox_api *api)
{
    if (api->opset(g) >= 11)
        return 0;
    ox_vid self = api->arg_tensor(g, "self"), index = api->arg_tensor(g, "index");
    int rank = api->rank(g, self);
    int64_t dim;
    if (rank < 0 || api->rank(g, index) != rank ||
        oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &dim))
        return api->limit(g, 11, "gather needs the ranks of self and index before opset 11 "
                                 "(GatherElements)");
    for (int d = 0; d < rank; d++) {
        if (d == dim)
            continue;
        int64_t a = api->size(g, self, d), b = api->size(g, index, d);
        if (a < 0 || a != b)
            return api->limit(g, 11, "gather with an index smaller than self outside dim "
                                     "needs GatherElements, from opset 11");
    }
    return 0;
}

static int sym_gather(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), index = api->arg_tensor(g, "index");
    int rank = api->rank(g, self);
    int64_t dim;
    if (oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), rank, &dim))
        return 1;
    if (api->opset(g) >= 11) {
        ox_onode *n = api->op(g, "GatherElements", 2, (ox_vid[]){self, index}, 1);
        if (n)
            api->attr_int(n, "axis", dim);
        return oxu_set_result(g, api, 0, at_out(g, api, n, "GatherElements"));
    }
    ox_dtype t = api->dtype(g, self), ct = at_one_hot_type(t);
    ox_vid hot = at_one_hot_of(g, api, index, self, dim, dim, ct);
    ox_vid prod = at_op2(g, api, "Mul", at_unsqueeze(g, api, oxu_cast_to(g, api, self, ct), dim + 1),
                         hot);
    ox_vid y = oxu_reduce(g, api, "ReduceSum", prod, &dim, 1, 0);
    return oxu_set_result_as(g, api, 0, y, t);
}

/* index_select(self, dim, index): Gather along dim; a 0-dim index keeps the
 * dim with size 1, as torch does. */
static int sym_index_select(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), index = api->arg_tensor(g, "index");
    int64_t dim;
    if (oxu_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, self), &dim))
        return 1;
    if (api->rank(g, index) == 0)
        index = at_unsqueeze(g, api, index, 0);
    if (!index)
        return 1;
    ox_onode *n = api->op(g, "Gather", 2, (ox_vid[]){self, index}, 1);
    if (n)
        api->attr_int(n, "axis", dim);
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gather"));
}

static ox_vid flat(ox_sym *g, const ox_api *api, ox_vid x)
{
    const int64_t minus_one = -1;
    return at_reshape(g, api, x, &minus_one, 1);
}

/* take(self, index): the flattened self gathered at index (negative
 * positions count from the end, as Gather's do); the result has index's shape. */
static int sym_take(ox_sym *g, const ox_api *api)
{
    ox_vid in[2] = {flat(g, api, api->arg_tensor(g, "self")),
                    oxu_cast_to(g, api, api->arg_tensor(g, "index"), OX_INT64)};
    return oxu_set_result(g, api, 0, oxu_opn(g, api, "Gather", 2, in));
}

/* The positions of the true elements of a flattened bool value, 1-D. */
static ox_vid true_positions(ox_sym *g, const ox_api *api, ox_vid flat_mask)
{
    int64_t zero = 0;
    return at_squeeze(g, api, at_op1(g, api, "NonZero", flat_mask), &zero, 1);
}

/* masked_select(self, mask): self and mask broadcast against each other
 * (Expand broadcasts both ways), flattened, the elements under the mask. */
static int sym_masked_select(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), mask = api->arg_tensor(g, "mask");
    ox_vid xs = at_op2(g, api, "Expand", self, oxu_shape(g, api, mask));
    ox_vid ms = at_op2(g, api, "Expand", oxu_cast_to(g, api, mask, OX_BOOL), oxu_shape(g, api, self));
    ox_vid in[2] = {flat(g, api, xs), true_positions(g, api, flat(g, api, ms))};
    return oxu_set_result(g, api, 0, oxu_opn(g, api, "Gather", 2, in));
}

/* nonzero(self): NonZero gives [rank, n], torch [n, rank].  ONNX Runtime's
 * NonZero takes bool, float, int32, int64 and uint8; other types are
 * compared as bool (x != 0, what nonzero tests). */
static int sym_nonzero(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_dtype t = api->dtype(g, x);
    if (t != OX_BOOL && t != OX_FLOAT && t != OX_INT32 && t != OX_INT64 && t != OX_UINT8)
        x = oxu_cast(g, api, x, OX_BOOL);
    const int64_t perm[2] = {1, 0};
    return oxu_set_result(g, api, 0, at_transpose(g, api, at_op1(g, api, "NonZero", x), perm, 2));
}

/* nonzero_numpy(self): one int64 index tensor per dim (NumPy's nonzero,
 * torch.nonzero(as_tuple=True)): the columns of nonzero's [n, rank]. */
static int sym_nonzero_numpy(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    if (rank < 0 || (uint32_t)(rank ? rank : 1) != api->n_outputs(g))
        return api->fail(g, "nonzero_numpy of a rank-%d input, but the host recorded %u outputs",
                         rank, api->n_outputs(g));
    ox_dtype t = api->dtype(g, x);
    if (t != OX_BOOL && t != OX_FLOAT && t != OX_INT32 && t != OX_INT64 && t != OX_UINT8)
        x = oxu_cast(g, api, x, OX_BOOL);
    if (rank == 0) /* torch treats a 0-dim input as 1-dim */
        x = at_unsqueeze(g, api, x, 0);
    ox_vid nz = at_op1(g, api, "NonZero", x);  /* [rank, n] */
    ox_vid rows[OXU_MAX_RANK];
    uint32_t n = (uint32_t)(rank ? rank : 1);
    if (n > OXU_MAX_RANK)
        return api->fail(g, "nonzero_numpy supports inputs up to rank %d", OXU_MAX_RANK);
    if (n == 1) {
        int64_t zero = 0;
        return oxu_set_result(g, api, 0, oxu_squeeze(g, api, nz, &zero, 1));
    }
    if (oxu_split(g, api, nz, 0, NULL, n, rows))
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t zero = 0;
        if (oxu_set_result(g, api, i, oxu_squeeze(g, api, rows[i], &zero, 1)))
            return 1;
    }
    return 0;
}

/* as_strided(self, size, stride, storage_offset): the flat positions
 * offset + sum_i k_i * stride_i over every index (k_0, ...) of size, a
 * constant of size's shape, gathered from the flattened self.  self's
 * elements are taken in their logical (contiguous) order: a strided view in
 * the model reads its base's storage, which the trace does not see. */
static int sym_as_strided(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    const int64_t *size = NULL, *stride = NULL;
    size_t n = api->arg_ints(g, "size", &size);
    size_t ns = api->arg_ints(g, "stride", &stride);
    int64_t offset = api->arg_int(g, "storage_offset", 0);
    if (n != ns)
        return api->fail(g, "argument 'size' has %zu values but 'stride' has %zu", n, ns);
    if (n > AT_MAX_RANK)
        return api->fail(g, "as_strided supports up to %d dims, got %zu", AT_MAX_RANK, n);
    int64_t numel = 1, total = 1;
    int rank = api->rank(g, self);
    for (int d = 0; d < rank; d++)
        numel = api->size(g, self, d) < 0 || numel < 0 ? -1 : numel * api->size(g, self, d);
    if (rank < 0 || numel < 0)
        return api->fail(g, "as_strided needs the input's sizes, which are unknown; record them");
    for (size_t i = 0; i < n; i++) {
        if (size[i] < 0 || stride[i] < 0)
            return api->fail(g, "as_strided needs non-negative sizes and strides, got size %lld "
                                "and stride %lld at %zu",
                             (long long)size[i], (long long)stride[i], i);
        total *= size[i];
    }
    if (total > (int64_t)1 << 24)
        return api->fail(g, "as_strided of %lld elements: more than the 2^24 positions oxport "
                            "writes as a constant",
                         (long long)total);
    if (!total)
        return api->fail(g, "as_strided with an empty size is not exported");
    int64_t *pos = malloc((size_t)total * sizeof *pos);
    if (!pos)
        return api->fail(g, "out of memory for %lld as_strided positions", (long long)total);
    for (int64_t e = 0; e < total; e++) {
        int64_t rest = e, p = offset;
        for (size_t i = n; i-- > 0;) {
            p += (rest % size[i]) * stride[i];
            rest /= size[i];
        }
        if (p >= numel) {
            free(pos);
            return api->fail(g, "as_strided reads position %lld of an input of %lld elements",
                             (long long)p, (long long)numel);
        }
        pos[e] = p;
    }
    ox_vid idx = api->constant(g, OX_INT64, (uint32_t)n, size, pos);
    free(pos);
    if (!idx)
        return api->fail(g, "could not create the as_strided positions");
    ox_vid in[2] = {flat(g, api, self), idx};
    return oxu_set_result(g, api, 0, oxu_opn(g, api, "Gather", 2, in));
}

static const ox_param_decl p_gather[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                         OX_PARAM("index", OX_ARG_TENSOR),
                                         OX_PARAM_BOOL("sparse_grad", 0)};
static const ox_param_decl p_index_select[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM("dim", OX_ARG_INT),
                                               OX_PARAM("index", OX_ARG_TENSOR)};
static const ox_param_decl p_take[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("index", OX_ARG_TENSOR)};
static const ox_param_decl p_masked_select[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                OX_PARAM("mask", OX_ARG_TENSOR)};
static const ox_param_decl p_nonzero[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_as_strided[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("size", OX_ARG_INTS), OX_PARAM("stride", OX_ARG_INTS),
    /* schema: int? storage_offset=None, None meaning self's own offset (0 in a trace) */
    OX_PARAM_INT("storage_offset", OX_ARG_INT, 0)};

const ox_op_decl at_ops_gather[] = {
    OX_OP_EX("aten::gather", 9, p_gather, 1, sym_gather, 0u, check_gather),
    OX_OP("aten::index_select", 9, p_index_select, 1, sym_index_select),
    OX_OP("aten::take", 9, p_take, 1, sym_take),
    OX_OP("aten::masked_select", 9, p_masked_select, 1, sym_masked_select),
    OX_OP("aten::nonzero", 9, p_nonzero, 1, sym_nonzero),
    OX_OP_EX("aten::nonzero_numpy", 9, p_nonzero, 1, sym_nonzero_numpy,
             OX_OP_OUTPUTS_AS_RECORDED, NULL),
    OX_OP("aten::as_strided", 9, p_as_strided, 1, sym_as_strided),
};
AT_FAMILY_SIZE(at_ops_gather);
