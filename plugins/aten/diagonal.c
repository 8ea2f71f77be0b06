/* aten::diagonal(self, offset, dim1, dim2): the elements self[..i.., i + offset]
 * over dim1 and dim2, as a new last dim (the other dims keep their order).
 * dim1 and dim2 are transposed to the end and flattened together; a Gather
 * of the constant flat positions row * cols + col takes the diagonal.  The
 * two dims' recorded sizes fix the diagonal's length. */
#include <stdint.h>
#include <stdlib.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_diagonal(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    int rank = api->rank(g, x);
    int64_t offset = api->arg_int(g, "offset", 0), d1, d2;
    if (at_axis(g, api, "dim1", api->arg_int(g, "dim1", 0), rank, &d1) ||
        at_axis(g, api, "dim2", api->arg_int(g, "dim2", 1), rank, &d2))
        return 1;
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

static const ox_param_decl p_diagonal[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           OX_PARAM_INT("offset", OX_ARG_INT, 0),
                                           OX_PARAM_INT("dim1", OX_ARG_INT, 0),
                                           OX_PARAM_INT("dim2", OX_ARG_INT, 1)};

const ox_op_decl at_ops_diagonal[] = {
    OX_OP("aten::diagonal", 9, p_diagonal, 1, sym_diagonal),
};
AT_FAMILY_SIZE(at_ops_diagonal);
