/* Sizes as tensors: aten::_shape_as_tensor (Shape), aten::tensor /
 * as_tensor / scalar_tensor of traced sizes (torch.tensor(x.size(0)): the
 * host records the size value, a rank-0 or 1-D int64, and the dtype) and
 * aten::_reshape_from_tensor (Reshape to a shape tensor). */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_shape_as_tensor(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, oxu_shape(g, api, api->arg_tensor(g, "self")));
}

/* The recorded value, cast to the recorded dtype; an Identity when no cast
 * is needed, so the output is a value of its own. */
static int of_value(ox_sym *g, const ox_api *api, const char *arg)
{
    ox_vid v = api->arg_tensor(g, arg);
    ox_dtype dt = api->arg_kind(g, "dtype") == OX_ARG_DTYPE ? (ox_dtype)api->arg_int(g, "dtype", OX_INT64)
                                                            : api->dtype(g, v);
    if (!v)
        return api->fail(g, "argument '%s' is missing", arg);
    return oxu_set_result(g, api, 0, api->dtype(g, v) == dt ? at_op1(g, api, "Identity", v)
                                                            : oxu_cast(g, api, v, dt));
}

static int sym_tensor(ox_sym *g, const ox_api *api)
{
    return of_value(g, api, "data");
}

static int sym_scalar_tensor(ox_sym *g, const ox_api *api)
{
    return of_value(g, api, "s");
}

static int sym_reshape_from_tensor(ox_sym *g, const ox_api *api)
{
    ox_vid shape = oxu_cast_to(g, api, api->arg_tensor(g, "shape"), OX_INT64);
    return oxu_set_result(g, api, 0, at_op2(g, api, "Reshape", api->arg_tensor(g, "self"), shape));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
/* the traced form only: constant data is a constant of the file, never recorded */
static const ox_param_decl p_tensor[] = {OX_PARAM("data", OX_ARG_TENSOR), OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_scalar_tensor[] = {OX_PARAM("s", OX_ARG_TENSOR),
                                                OX_PARAM_NULL("dtype", OX_ARG_DTYPE)};
static const ox_param_decl p_reshape_from_tensor[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                                      OX_PARAM("shape", OX_ARG_TENSOR)};

const ox_op_decl at_ops_size_tensor[] = {
    OX_OP("aten::_shape_as_tensor", 9, p_self, 1, sym_shape_as_tensor),
    OX_OP("aten::tensor", 9, p_tensor, 1, sym_tensor),
    OX_OP("aten::as_tensor", 9, p_tensor, 1, sym_tensor),
    OX_OP("aten::scalar_tensor", 9, p_scalar_tensor, 1, sym_scalar_tensor),
    OX_OP("aten::_reshape_from_tensor", 9, p_reshape_from_tensor, 1, sym_reshape_from_tensor),
};
AT_FAMILY_SIZE(at_ops_size_tensor);
