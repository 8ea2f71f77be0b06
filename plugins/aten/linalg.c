/* Linear algebra beyond products: the cross product of 3-vectors, and
 * determinants (Det, from opset 11): det, logdet, slogdet. */
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* x's three components along axis in the order `order` (a rotation). */
static ox_vid rotate3(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, const int64_t *order)
{
    ox_vid in[2] = {x, oxu_const_ints(g, api, order, 3)};
    if (!in[0] || !in[1])
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", axis);
    return oxu_out(g, api, n, "Gather");
}

/* linalg_cross(a, b, dim): a[1]b[2] - a[2]b[1], ... along dim of size 3,
 * as rot1(a) * rot2(b) - rot2(a) * rot1(b), where rot1 takes components
 * (1, 2, 0) and rot2 (2, 0, 1) with one Gather each; Mul broadcasts
 * the other dims as torch does. */
static int sym_linalg_cross(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self"), b = api->arg_tensor(g, "other");
    if (at_promote2(g, api, &a, &b))
        return 1;
    int64_t axis, dim = api->arg_int(g, "dim", -1); /* torch requires operands of one rank */
    if (api->arg_kind(g, "dim") == OX_ARG_NONE && strcmp(api->op_name(g), "aten::cross") == 0) {
        /* torch.cross without dim: the first dim of size 3 (torch 1.13's
         * deprecated default) */
        int rank = api->rank(g, a);
        dim = -1;
        for (int i = rank - 1; i >= 0; i--)
            if (api->size(g, a, i) == 3)
                dim = i;
        if (dim < 0)
            return api->fail(g, "torch.cross without 'dim' needs a dim of size 3");
    }
    if (at_axis(g, api, "dim", dim, api->rank(g, a), &axis))
        return 1;
    static const int64_t rot1[3] = {1, 2, 0}, rot2[3] = {2, 0, 1};
    ox_vid p = at_op2(g, api, "Mul", rotate3(g, api, a, axis, rot1), rotate3(g, api, b, axis, rot2));
    ox_vid q = at_op2(g, api, "Mul", rotate3(g, api, a, axis, rot2), rotate3(g, api, b, axis, rot1));
    return oxu_set_result(g, api, 0, at_op2(g, api, "Sub", p, q));
}

/* Det over the last two dims (batched), in float32: ONNX Runtime has Det
 * kernels for float32 only, so float64 and float16 go through it and back
 * (a float64 determinant keeps float32's precision). */
static ox_vid det(ox_sym *g, const ox_api *api, ox_vid a)
{
    ox_dtype t = a ? api->dtype(g, a) : OX_UNDEFINED;
    ox_vid d = at_op1(g, api, "Det", oxu_cast_to(g, api, a, OX_FLOAT));
    return oxu_cast_to(g, api, d, t);
}

static int sym_linalg_det(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, det(g, api, api->arg_tensor(g, "A")));
}

/* logdet = Log(Det): NaN for a negative determinant, -inf for zero, as torch. */
static int sym_logdet(ox_sym *g, const ox_api *api)
{
    return oxu_set_result(g, api, 0, at_op1(g, api, "Log", det(g, api, api->arg_tensor(g, "self"))));
}

/* linalg_slogdet -> (Sign(Det), Log(Abs(Det))): a singular matrix gives
 * (0, -inf) as torch. */
static int sym_linalg_slogdet(ox_sym *g, const ox_api *api)
{
    ox_vid d = det(g, api, api->arg_tensor(g, "A"));
    if (oxu_set_result(g, api, 0, at_op1(g, api, "Sign", d)))
        return 1;
    return oxu_set_result(g, api, 1, at_op1(g, api, "Log", at_op1(g, api, "Abs", d)));
}

static const ox_param_decl p_linalg_cross[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                               OX_PARAM("other", OX_ARG_TENSOR),
                                               OX_PARAM_INT("dim", OX_ARG_INT, -1)};
/* aten::cross(self, other, int? dim=None) */
static const ox_param_decl p_cross[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR),
                                        OX_PARAM_NULL("dim", OX_ARG_INT)};
static const ox_param_decl p_linalg_det[] = {OX_PARAM("A", OX_ARG_TENSOR)};
static const ox_param_decl p_logdet[] = {OX_PARAM("self", OX_ARG_TENSOR)};

const ox_op_decl at_ops_linalg[] = {
    OX_OP("aten::linalg_cross", 9, p_linalg_cross, 1, sym_linalg_cross),
    OX_OP("aten::cross", 9, p_cross, 1, sym_linalg_cross),
    OX_OP("aten::linalg_det", 11, p_linalg_det, 1, sym_linalg_det),
    OX_OP("aten::logdet", 11, p_logdet, 1, sym_logdet),
    OX_OP("aten::linalg_slogdet", 11, p_linalg_det, 2, sym_linalg_slogdet),
};
AT_FAMILY_SIZE(at_ops_linalg);
