/* The distinct elements of a tensor: aten::_unique2 (torch.unique: values,
 * inverse, counts), aten::_unique (values, inverse) over the flattened
 * tensor, aten::unique_dim (distinct slices along a dim) -> ONNX Unique,
 * from opset 11.
 *
 * Unique's outputs are Y, indices, inverse_indices, counts; torch's inverse
 * has self's shape (flattened form) and an output not asked for is an
 * empty tensor.  With sorted=False torch leaves the order unspecified (its
 * CPU kernel hashes); Unique keeps the order of first occurrence. */
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* The element type Unique computes in: ONNX Runtime's kernel takes float,
 * double, int8 and int64; other integers and bool go as int64, float16 and
 * bfloat16 as float (exact round trips). */
static ox_dtype unique_type(ox_dtype t)
{
    if (t == OX_FLOAT || t == OX_DOUBLE || t == OX_INT8 || t == OX_INT64)
        return t;
    return oxu_is_floating(t) ? OX_FLOAT : OX_INT64;
}

/* An empty 1-D int64 tensor: a ConstantOfShape of [0] (the writer is not
 * handed a zero-byte constant). */
static ox_vid empty_int64(ox_sym *g, const ox_api *api)
{
    int64_t zero = 0;
    return oxu_full(g, api, oxu_const_ints(g, api, &zero, 1), 0.0, OX_INT64);
}

/* Unique of self (along *axis when axis is not NULL); sets torch's outputs:
 * 0 values, then inverse (reshaped like self when flat) and counts when the
 * op has them (n_out 2 or 3), each only when asked for, else empty. */
static int unique(ox_sym *g, const ox_api *api, const int64_t *axis, size_t n_out, int want_counts)
{
    ox_vid self = api->arg_tensor(g, "self");
    ox_dtype t = api->dtype(g, self);
    ox_vid x = oxu_cast_to(g, api, self, unique_type(t));
    if (!x)
        return 1;
    ox_onode *n = api->op(g, "Unique", 1, &x, 4);
    if (!n)
        return api->fail(g, "could not create ONNX node Unique (out of memory?)");
    api->attr_int(n, "sorted", api->arg_int(g, "sorted", 1) != 0);
    if (axis)
        api->attr_int(n, "axis", *axis);
    int rc = oxu_set_result_as(g, api, 0, api->node_output(n, 0), t);
    if (rc)
        return rc;
    ox_vid inverse = api->node_output(n, 2);
    if (!api->arg_int(g, "return_inverse", 0))
        inverse = empty_int64(g, api);
    else if (!axis)
        inverse = at_op2(g, api, "Reshape", inverse, oxu_shape(g, api, self));
    if ((rc = oxu_set_result(g, api, 1, inverse)))
        return rc;
    if (n_out < 3)
        return 0;
    return oxu_set_result(g, api, 2, want_counts ? api->node_output(n, 3) : empty_int64(g, api));
}

static int sym_unique2(ox_sym *g, const ox_api *api)
{
    return unique(g, api, NULL, 3, (int)api->arg_int(g, "return_counts", 0));
}

static int sym_unique(ox_sym *g, const ox_api *api)
{
    return unique(g, api, NULL, 2, 0);
}

static int sym_unique_dim(ox_sym *g, const ox_api *api)
{
    int64_t dim;
    if (at_axis(g, api, "dim", api->arg_int(g, "dim", 0), api->rank(g, api->arg_tensor(g, "self")), &dim))
        return 1;
    return unique(g, api, &dim, 3, (int)api->arg_int(g, "return_counts", 0));
}

static const ox_param_decl p_unique2[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_BOOL("sorted", 1),
                                          OX_PARAM_BOOL("return_inverse", 0),
                                          OX_PARAM_BOOL("return_counts", 0)};
static const ox_param_decl p_unique[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM_BOOL("sorted", 1),
                                         OX_PARAM_BOOL("return_inverse", 0)};
static const ox_param_decl p_unique_dim[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("dim", OX_ARG_INT),
                                             OX_PARAM_BOOL("sorted", 1), OX_PARAM_BOOL("return_inverse", 0),
                                             OX_PARAM_BOOL("return_counts", 0)};

const ox_op_decl at_ops_unique[] = {
    OX_OP("aten::_unique2", 11, p_unique2, 3, sym_unique2),
    OX_OP("aten::_unique", 11, p_unique, 2, sym_unique),
    OX_OP("aten::unique_dim", 11, p_unique_dim, 3, sym_unique_dim),
};
AT_FAMILY_SIZE(at_ops_unique);
