/* Comparisons, logical ops and selection by a mask: eq, ne, gt, lt, ge, le,
 * logical_and/or/xor/not, where, masked_fill.  A number operand becomes a
 * rank-0 constant of the tensor's type (at_operand); masked_fill's value may
 * also be a rank-0 tensor (a traced size), cast to the tensor's type. */
#include <string.h>

#include "aten_family.h"
#include "aten_symbolics.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* Equal takes floats and the integers other than int32/int64 only from
 * opset 11.  Below, a == b is not (a < b or a > b) for floats, exact for
 * every non-NaN pair, and the other integers compare as int64 (every value
 * of uint8 ... uint32 is one; torch.ao's FakeQuantize compares uint8 flags). */
static ox_vid equal(ox_sym *g, const ox_api *api, ox_vid a, ox_vid b)
{
    ox_dtype t = api->dtype(g, a);
    int is_float = t == OX_FLOAT || t == OX_DOUBLE || t == OX_FLOAT16;
    if (api->opset(g) >= 11 || t == OX_INT32 || t == OX_INT64 || t == OX_BOOL)
        return at_op2(g, api, "Equal", a, b);
    if (!is_float && oxu_is_integer(t))
        return at_op2(g, api, "Equal", oxu_cast(g, api, a, OX_INT64), oxu_cast(g, api, b, OX_INT64));
    if (!is_float)
        return at_op2(g, api, "Equal", a, b);
    ox_vid neq = at_op2(g, api, "Or", at_op2(g, api, "Less", a, b), at_op2(g, api, "Greater", a, b));
    return at_op1(g, api, "Not", neq);
}

/* Both operands in their promoted type (float32 > int32 compares floats). */
static int compare(ox_sym *g, const ox_api *api, const char *kind)
{
    static const char *const names[] = {"self", "other"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    ox_vid a = v[0], b = v[1];
    ox_vid y;
    if (strcmp(kind, "eq") == 0)
        y = equal(g, api, a, b);
    else if (strcmp(kind, "ne") == 0)
        y = at_op1(g, api, "Not", equal(g, api, a, b));
    else if (strcmp(kind, "gt") == 0)
        y = at_op2(g, api, "Greater", a, b);
    else if (strcmp(kind, "lt") == 0)
        y = at_op2(g, api, "Less", a, b);
    else if (strcmp(kind, "ge") == 0) /* GreaterOrEqual only from opset 12 */
        y = at_op1(g, api, "Not", at_op2(g, api, "Less", a, b));
    else
        y = at_op1(g, api, "Not", at_op2(g, api, "Greater", a, b));
    return oxu_set_result(g, api, 0, y);
}

static int sym_eq(ox_sym *g, const ox_api *api) { return compare(g, api, "eq"); }
static int sym_ne(ox_sym *g, const ox_api *api) { return compare(g, api, "ne"); }
static int sym_gt(ox_sym *g, const ox_api *api) { return compare(g, api, "gt"); }
static int sym_lt(ox_sym *g, const ox_api *api) { return compare(g, api, "lt"); }
static int sym_ge(ox_sym *g, const ox_api *api) { return compare(g, api, "ge"); }
static int sym_le(ox_sym *g, const ox_api *api) { return compare(g, api, "le"); }

/* where(condition, self, other): either branch may be a number; both in
 * their promoted type. */
static int sym_where(ox_sym *g, const ox_api *api)
{
    ox_vid c = api->arg_tensor(g, "condition");
    if (!c)
        return api->fail(g, "argument 'condition' is missing or None");
    if (api->dtype(g, c) != OX_BOOL)
        c = at_cast(g, api, c, OX_BOOL);
    static const char *const names[] = {"self", "other"};
    ox_vid v[2];
    if (oxu_promote_args(g, api, 2, names, v, NULL))
        return 1;
    return oxu_set_result(g, api, 0, oxu_where(g, api, c, v[0], v[1]));
}

static int sym_masked_fill(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_vid mask = api->arg_tensor(g, "mask");
    if (!mask)
        return api->fail(g, "argument 'mask' is missing or None");
    if (api->dtype(g, mask) != OX_BOOL)
        mask = at_cast(g, api, mask, OX_BOOL);
    ox_vid value = at_operand(g, api, "value", x);
    if (!value)
        return 1;
    /* A tensor value (masked_fill.Tensor; a size read in Python, which the host
     * records as its rank-0 int64 value) is one number, in x's type as torch
     * gives it. */
    if (api->arg_kind(g, "value") == OX_ARG_TENSOR) {
        if (api->rank(g, value) != 0)
            return api->fail(g, "argument 'value' has rank %d; masked_fill's value is one number (rank 0)",
                             api->rank(g, value));
        value = oxu_cast_to(g, api, value, api->dtype(g, x));
        if (!value)
            return 1;
    }
    return oxu_set_result(g, api, 0, oxu_where(g, api, mask, value, x));
}

/* Logical ops on bool tensors (attention masks): Or / And / Xor / Not. */
static int logical(ox_sym *g, const ox_api *api, const char *type)
{
    ox_vid a = api->arg_tensor(g, "self"), b = api->arg_tensor(g, "other");
    if (!b)
        return api->fail(g, "argument 'other' is missing or None");
    if (api->dtype(g, a) != OX_BOOL)
        a = at_cast(g, api, a, OX_BOOL);
    if (api->dtype(g, b) != OX_BOOL)
        b = at_cast(g, api, b, OX_BOOL);
    return oxu_set_result(g, api, 0, at_op2(g, api, type, a, b));
}

static int sym_logical_or(ox_sym *g, const ox_api *api) { return logical(g, api, "Or"); }
static int sym_logical_and(ox_sym *g, const ox_api *api) { return logical(g, api, "And"); }
static int sym_logical_xor(ox_sym *g, const ox_api *api) { return logical(g, api, "Xor"); }

static int sym_logical_not(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self");
    if (api->dtype(g, a) != OX_BOOL)
        a = at_cast(g, api, a, OX_BOOL);
    return oxu_set_result(g, api, 0, at_op1(g, api, "Not", a));
}

static const ox_param_decl p_other[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_logical[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                          OX_PARAM("other", OX_ARG_TENSOR)};
static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_param_decl p_where[] = {OX_PARAM("condition", OX_ARG_TENSOR),
                                        OX_PARAM("self", OX_ARG_TENSOR_OR_SCALAR),
                                        OX_PARAM("other", OX_ARG_TENSOR_OR_SCALAR)};
static const ox_param_decl p_masked_fill[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                              OX_PARAM("mask", OX_ARG_TENSOR),
                                              OX_PARAM("value", OX_ARG_TENSOR_OR_SCALAR)};

const ox_op_decl at_ops_compare[] = {
    OX_OP("aten::eq", 7, p_other, 1, sym_eq),
    OX_OP("aten::ne", 7, p_other, 1, sym_ne),
    OX_OP("aten::gt", 7, p_other, 1, sym_gt),
    OX_OP("aten::lt", 9, p_other, 1, sym_lt),
    OX_OP("aten::ge", 7, p_other, 1, sym_ge),
    OX_OP("aten::le", 9, p_other, 1, sym_le),
    OX_OP("aten::logical_or", 7, p_logical, 1, sym_logical_or),
    OX_OP("aten::logical_and", 7, p_logical, 1, sym_logical_and),
    OX_OP("aten::logical_xor", 7, p_logical, 1, sym_logical_xor),
    OX_OP("aten::logical_not", 7, p_self, 1, sym_logical_not),
    OX_OP("aten::where", 9, p_where, 1, sym_where),
    OX_OP("aten::masked_fill", 9, p_masked_fill, 1, sym_masked_fill),
};
AT_FAMILY_SIZE(at_ops_compare);
