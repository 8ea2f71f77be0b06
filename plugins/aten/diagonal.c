/* Diagonals: aten::diagonal reads one, aten::diag_embed writes one, and
 * aten::diag does either (a vector's matrix, a matrix's vector).
 *
 * diagonal(self, offset, dim1, dim2): the elements self[..i.., i + offset]
 * over dim1 and dim2, as a new last dim (the other dims keep their order).
 * dim1 and dim2 are transposed to the end and flattened together; a Gather
 * of the constant flat positions row * cols + col takes the diagonal.  The
 * two dims' recorded sizes fix the diagonal's length. */
#include <stdint.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int diagonal_of(ox_sym *g, const ox_api *api, ox_vid x, int64_t offset, int64_t d1,
                       int64_t d2)
{
    int rank = api->rank(g, x);
    if (d1 == d2)
        return api->fail(g, "arguments 'dim1' and 'dim2' are both dim %lld", (long long)d1);
    if (rank > AT_MAX_RANK)
        return api->fail(g, "diagonal supports inputs up to rank %d, got %d", AT_MAX_RANK, rank);
    int64_t rows = oxu_fixed_size(g, api, x, (int)d1), cols = oxu_fixed_size(g, api, x, (int)d2);
    if (rows < 0 || cols < 0)
        return api->fail(g, "diagonal needs the sizes of dims %lld and %lld, which are unknown; "
                            "record the input's sizes",
                         (long long)d1, (long long)d2);
    int64_t r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
    int64_t len = rows - r0 < cols - c0 ? rows - r0 : cols - c0;
    if (len <= 0)
        return api->fail(g, "diagonal with offset %lld of a %lld x %lld matrix is empty; not "
                            "exported",
                         (long long)offset, (long long)rows, (long long)cols);
    int64_t perm[AT_MAX_RANK], shape[AT_MAX_RANK];
    int k = 0;
    for (int d = 0; d < rank; d++)
        if (d != d1 && d != d2) {
            shape[k] = 0; /* copy the size */
            perm[k++] = d;
        }
    perm[k] = d1;
    perm[k + 1] = d2;
    shape[k] = -1;
    ox_vid t = at_transpose(g, api, x, perm, (size_t)rank);
    ox_vid flat = at_reshape(g, api, t, shape, (size_t)k + 1);
    int64_t *pos = malloc((size_t)len * sizeof *pos);
    if (!pos)
        return api->fail(g, "out of memory for %lld diagonal positions", (long long)len);
    for (int64_t i = 0; i < len; i++)
        pos[i] = (r0 + i) * cols + c0 + i;
    ox_vid p = oxu_const_ints(g, api, pos, (size_t)len);
    free(pos);
    if (!flat || !p)
        return 1;
    ox_onode *n = api->op(g, "Gather", 2, (ox_vid[]){flat, p}, 1);
    if (n)
        api->attr_int(n, "axis", k);
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gather"));
}

static int sym_diagonal(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t d1, d2;
    if (at_axis(g, api, "dim1", api->arg_int(g, "dim1", 0), rank, &d1) ||
        at_axis(g, api, "dim2", api->arg_int(g, "dim2", 1), rank, &d2))
        return 1;
    return diagonal_of(g, api, x, api->arg_int(g, "offset", 0), d1, d2);
}

/* diag_embed(self, offset, dim1, dim2): a zero tensor of one more dim whose
 * diagonal (offset, dim1, dim2) is self's last dim, everything from the
 * run-time shape.  self's last dim, padded with |offset| zeros to the
 * matrix's size m, is broadcast along the rows (offset >= 0: row i holds
 * x[i] at column i + offset) or the columns (offset < 0), and Where keeps
 * it on EyeLike's diagonal k = offset of an m x m ConstantOfShape (exact
 * for every value, inf and nan included, where a product with the
 * identity would turn 0 * inf into nan).  The matrix dims, made last, are
 * transposed to dim1 (rows) and dim2 (columns). */
static int diag_embed_of(ox_sym *g, const ox_api *api, ox_vid x, int64_t offset, int64_t d1,
                         int64_t d2)
{
    int r = api->rank(g, x);
    if (r < 1)
        return api->fail(g, "diag_embed needs self of rank at least 1 (rank %d)", r);
    if (r + 1 > AT_MAX_RANK)
        return api->fail(g, "diag_embed supports results up to rank %d, got %d", AT_MAX_RANK, r + 1);
    if (d1 == d2)
        return api->fail(g, "arguments 'dim1' and 'dim2' are both dim %lld", (long long)d1);
    ox_dtype dt = api->dtype(g, x);
    int64_t mag = offset < 0 ? -offset : offset;
    ox_vid a = x;
    if (mag) {
        int64_t pads[2 * AT_MAX_RANK] = {0};
        pads[2 * r - 1] = mag; /* the end of the last dim */
        a = oxu_pad(g, api, x, "constant", pads, (size_t)(2 * r), 0.0);
    }
    ox_vid m = oxu_shape_slice(g, api, a, r - 1, r);
    ox_vid mm[2] = {m, m};
    ox_vid square = oxu_full(g, api, oxu_concat(g, api, mm, 2, 0), 0.0, OX_FLOAT);
    ox_onode *eye = square ? api->op(g, "EyeLike", 1, &square, 1) : NULL;
    if (eye)
        api->attr_int(eye, "k", offset);
    ox_vid mask = oxu_cast(g, api, oxu_out(g, api, eye, "EyeLike"), OX_BOOL);
    ox_vid v = oxu_unsqueeze(g, api, a, offset >= 0 ? r : r - 1);
    ox_vid y = oxu_where(g, api, mask, v, oxu_full_scalar(g, api, 0.0, dt));
    int64_t perm[AT_MAX_RANK];
    int identity = 1;
    for (int p = 0, b = 0; p <= r; p++) {
        perm[p] = p == d1 ? r - 1 : p == d2 ? r : b++;
        identity &= perm[p] == p;
    }
    if (!identity)
        y = at_transpose(g, api, y, perm, (size_t)r + 1);
    return oxu_set_result_recorded(g, api, 0, y);
}

static int sym_diag_embed(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t d1, d2;
    if (rank < 0)
        return api->fail(g, "the rank of self is not recorded");
    if (at_axis(g, api, "dim1", api->arg_int(g, "dim1", -2), rank + 1, &d1) ||
        at_axis(g, api, "dim2", api->arg_int(g, "dim2", -1), rank + 1, &d2))
        return 1;
    return diag_embed_of(g, api, x, api->arg_int(g, "offset", 0), d1, d2);
}

/* diag(self, diagonal): a vector's square matrix (diag_embed's) or a
 * matrix's diagonal (diagonal's, dims 0 and 1). */
static int sym_diag(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t k = api->arg_int(g, "diagonal", 0);
    if (rank == 1)
        return diag_embed_of(g, api, x, k, 0, 1);
    if (rank == 2)
        return diagonal_of(g, api, x, k, 0, 1);
    return api->fail(g, "diag takes a 1-D or 2-D self (rank %d)", rank);
}

static const ox_param_decl p_diagonal[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           OX_PARAM_INT("offset", OX_ARG_INT, 0),
                                           OX_PARAM_INT("dim1", OX_ARG_INT, 0),
                                           OX_PARAM_INT("dim2", OX_ARG_INT, 1)};

static const ox_param_decl p_diag_embed[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                             OX_PARAM_INT("offset", OX_ARG_INT, 0),
                                             OX_PARAM_INT("dim1", OX_ARG_INT, -2),
                                             OX_PARAM_INT("dim2", OX_ARG_INT, -1)};
static const ox_param_decl p_diag[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                       OX_PARAM_INT("diagonal", OX_ARG_INT, 0)};

const ox_op_decl at_ops_diagonal[] = {
    OX_OP("aten::diagonal", 9, p_diagonal, 1, sym_diagonal),
    /* EyeLike, ConstantOfShape and Where appear at opset 9 */
    OX_OP("aten::diag_embed", 9, p_diag_embed, 1, sym_diag_embed),
    OX_OP("aten::diag", 9, p_diag, 1, sym_diag),
};
AT_FAMILY_SIZE(at_ops_diagonal);
