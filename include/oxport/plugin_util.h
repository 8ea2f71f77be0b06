/*
 * oxport plugin SDK: helpers every symbolic pack needs, header-only over
 * the ox_api table (a pack still links nothing but libc).  All functions
 * are static inline and prefixed oxu_.  What each helper emits at which
 * opset is tabled in docs/writing-a-plugin.md ("The SDK").
 *
 * Failure convention: a builder returns 0 (no value) after reporting why
 * through api->fail, or when an earlier step already failed; passing a 0 on
 * is safe, and oxu_set_result turns a 0 into the nonzero return a symbolic
 * needs.  So a symbolic is a chain of builders ending in
 *
 *     return oxu_set_result(g, api, 0, y);
 *
 * Helpers that return int (oxu_axis, oxu_split, oxu_promote, ...) return 0
 * on success and the nonzero result of api->fail otherwise.
 *
 * Only ABI 1.0 members of ox_api are called unconditionally (a later one
 * only after OXU_API_HAS), so a pack using the SDK works with every 1.x
 * engine.
 */
#ifndef OXPORT_PLUGIN_UTIL_H
#define OXPORT_PLUGIN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "oxport/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest tensor rank the helpers that lay out per-dimension lists
 * (pads, permutations, axes) handle. */
#define OXU_MAX_RANK 8

/* Whether the engine's table has member m (one added after ABI 1.0) and
 * fills it: check before calling api->limit, api->n_outputs, ... */
#define OXU_API_HAS(api, m) \
    ((api)->struct_size >= offsetof(ox_api, m) + sizeof((api)->m) && (api)->m != NULL)

/* ================================================================ results */

/* Output i of the recorded op is v; v == 0 means a builder already failed
 * (its message is recorded), so this returns nonzero without masking it. */
static inline int oxu_set_result(ox_sym *g, const ox_api *api, size_t i, ox_vid v)
{
    return v ? api->set_output(g, i, v) : 1;
}

/* How many outputs the host recorded for this node (ABI 1.1's
 * api->n_outputs, the arity of an OX_OP_OUTPUTS_AS_RECORDED operator);
 * `declared` from an engine without it. */
static inline uint32_t oxu_n_outputs(ox_sym *g, const ox_api *api, uint32_t declared)
{
    return OXU_API_HAS(api, n_outputs) ? api->n_outputs(g) : declared;
}

/* The recorded size of v along axis, for a symbolic that builds it into the
 * file (ABI 1.3's api->fixed_size: the export warns where a dynamic axis
 * reaches it); api->size on an older engine. */
static inline int64_t oxu_fixed_size(ox_sym *g, const ox_api *api, ox_vid v, int axis)
{
    return OXU_API_HAS(api, fixed_size) ? api->fixed_size(g, v, axis) : api->size(g, v, axis);
}

/* ================================================================ nodes */

/* Output 0 of a freshly created node, failing the conversion if the engine
 * could not create it. */
static inline ox_vid oxu_out(ox_sym *g, const ox_api *api, ox_onode *n, const char *op_type)
{
    ox_vid v = n ? api->node_output(n, 0) : 0;
    if (!v)
        api->fail(g, "could not create ONNX node %s (out of memory?)", op_type);
    return v;
}

/* A node of n inputs (none of them 0) and one output. */
static inline ox_vid oxu_opn(ox_sym *g, const ox_api *api, const char *op_type, size_t n,
                             const ox_vid *in)
{
    for (size_t i = 0; i < n; i++)
        if (!in[i])
            return 0;
    return oxu_out(g, api, api->op(g, op_type, n, in, 1), op_type);
}

static inline ox_vid oxu_op1(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a)
{
    return oxu_opn(g, api, op_type, 1, &a);
}

static inline ox_vid oxu_op2(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a,
                             ox_vid b)
{
    ox_vid in[2] = {a, b};
    return oxu_opn(g, api, op_type, 2, in);
}

/* ================================================================ arguments */

/* Normalise a possibly negative axis against a rank (pass rank + 1 for
 * Unsqueeze-like positions).  Fails when the axis is out of range, or
 * negative with an unknown rank (rank < 0). */
static inline int oxu_axis(ox_sym *g, const ox_api *api, const char *arg, int64_t axis, int rank,
                           int64_t *out)
{
    *out = 0; /* defined on failure too */
    if (rank < 0) {
        if (axis < 0)
            return api->fail(g, "argument '%s' is %lld, a negative axis, but the input's rank "
                                "is unknown; record the input's sizes",
                             arg, (long long)axis);
        *out = axis;
        return 0;
    }
    if (axis < -(int64_t)rank || axis >= rank)
        return api->fail(g, "argument '%s' is %lld, outside the range [%d, %d] for a rank-%d "
                            "input",
                         arg, (long long)axis, -rank, rank - 1, rank);
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

/* Read an int-list argument for n positions: absent -> dflt everywhere, a
 * lone value -> broadcast, n values -> copied; other counts fail. */
static inline int oxu_ints_n(ox_sym *g, const ox_api *api, const char *arg, size_t n,
                             int64_t dflt, int64_t *out)
{
    const int64_t *v = NULL;
    size_t k = api->arg_ints(g, arg, &v);
    for (size_t i = 0; i < n; i++)
        out[i] = k == 0 ? dflt : k == 1 ? v[0] : k == n ? v[i] : 0;
    if (k > 1 && k != n)
        return api->fail(g, "argument '%s' has %zu values; expected 1 or %zu", arg, k, n);
    return 0;
}

/* Whether argument `name` was recorded as a Python number. */
static inline int oxu_arg_is_number(ox_sym *g, const ox_api *api, const char *name)
{
    ox_arg_kind k = api->arg_kind(g, name);
    return k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL;
}

/* ================================================================ constants */

/* A 1-D int64 constant. */
static inline ox_vid oxu_const_ints(ox_sym *g, const ox_api *api, const int64_t *v, size_t n)
{
    ox_vid c = api->const_ints(g, v, n);
    if (!c)
        api->fail(g, "could not create a %zu-element int64 constant", n);
    return c;
}

/* A rank-0 int64 constant (a Gather index that drops its axis). */
static inline ox_vid oxu_const_int(ox_sym *g, const ox_api *api, int64_t v)
{
    ox_vid c = api->constant(g, OX_INT64, 0, NULL, &v);
    if (!c)
        api->fail(g, "could not create the int64 constant %lld", (long long)v);
    return c;
}

/* A 1-D float32 constant (Upsample/Resize scales). */
static inline ox_vid oxu_const_floats(ox_sym *g, const ox_api *api, const float *v, size_t n)
{
    int64_t len = (int64_t)n;
    ox_vid c = api->constant(g, OX_FLOAT, 1, &len, v);
    if (!c)
        api->fail(g, "could not create a %zu-element float constant", n);
    return c;
}

/* A rank-0 constant of element type dtype. */
static inline ox_vid oxu_scalar(ox_sym *g, const ox_api *api, ox_dtype dtype, double v)
{
    ox_vid c = api->const_scalar_of(g, dtype, v);
    if (!c)
        api->fail(g, "could not create the rank-0 constant %g", v);
    return c;
}

/* A rank-0 constant of like's element type (float when like's is unknown);
 * 0 when like is 0. */
static inline ox_vid oxu_scalar_like(ox_sym *g, const ox_api *api, double v, ox_vid like)
{
    if (!like)
        return 0;
    ox_vid c = api->scalar_like(g, v, like);
    if (!c)
        api->fail(g, "could not create the rank-0 constant %g", v);
    return c;
}

/* ================================================================ element types */

/* float16/float/double/bfloat16.  An unknown dtype counts as floating (the
 * common case, and the one every early-opset arithmetic op takes). */
static inline int oxu_is_floating(ox_dtype t)
{
    return t == OX_FLOAT || t == OX_DOUBLE || t == OX_FLOAT16 || t == OX_BFLOAT16 ||
           t == OX_UNDEFINED;
}

/* Integer or bool element types (ONNX Div truncates them; torch's div does not). */
static inline int oxu_is_integer(ox_dtype t)
{
    return t == OX_UINT8 || t == OX_INT8 || t == OX_UINT16 || t == OX_INT16 || t == OX_INT32 ||
           t == OX_INT64 || t == OX_UINT32 || t == OX_UINT64 || t == OX_BOOL;
}

static inline ox_vid oxu_cast(ox_sym *g, const ox_api *api, ox_vid x, ox_dtype to)
{
    if (!x)
        return 0;
    ox_onode *c = api->op(g, "Cast", 1, &x, 1);
    if (c)
        api->attr_int(c, "to", (int64_t)to);
    return oxu_out(g, api, c, "Cast");
}

/* x as element type `to`: x itself when it already is (or `to` is unknown). */
static inline ox_vid oxu_cast_to(ox_sym *g, const ox_api *api, ox_vid x, ox_dtype to)
{
    if (!x || to == OX_UNDEFINED || api->dtype(g, x) == to)
        return x;
    return oxu_cast(g, api, x, to);
}

/* A value as the element type ConstantOfShape and Constant can hold
 * exactly for dt: float32, float64, int64 or bool (a later Cast makes dt). */
typedef struct oxu_fill {
    ox_dtype base;
    union {
        float f;
        double d;
        int64_t i;
        uint8_t b;
    } u;
} oxu_fill;

static inline oxu_fill oxu_fill_of(double value, ox_dtype dt)
{
    oxu_fill f;
    memset(&f, 0, sizeof f);
    f.base = dt == OX_BOOL ? OX_BOOL
             : (dt != OX_UNDEFINED && dt != OX_FLOAT && dt != OX_DOUBLE &&
                dt != OX_FLOAT16 && dt != OX_BFLOAT16)
                 ? OX_INT64
             : dt == OX_DOUBLE ? OX_DOUBLE
                               : OX_FLOAT;
    if (f.base == OX_FLOAT)
        f.u.f = (float)value;
    else if (f.base == OX_DOUBLE)
        f.u.d = value;
    else if (f.base == OX_INT64)
        f.u.i = (int64_t)value;
    else
        f.u.b = value != 0.0;
    return f;
}

/* A tensor of run-time shape `shape` (a 1-D int64 value) filled with value,
 * of element type dt: ConstantOfShape holding a float32, float64, int64 or
 * bool (the value as C can spell it exactly), then a Cast when dt is
 * another type. */
static inline ox_vid oxu_full(ox_sym *g, const ox_api *api, ox_vid shape, double value,
                              ox_dtype dt)
{
    if (!shape)
        return 0;
    oxu_fill f = oxu_fill_of(value, dt);
    ox_onode *n = api->op(g, "ConstantOfShape", 1, &shape, 1);
    int64_t one = 1;
    if (n)
        api->attr_tensor(n, "value", f.base, 1, &one, &f.u);
    ox_vid y = oxu_out(g, api, n, "ConstantOfShape");
    return y && f.base != dt && dt != OX_UNDEFINED ? oxu_cast(g, api, y, dt) : y;
}

/* A rank-0 tensor holding value, of element type dt (Constant, then a Cast
 * when dt is not one Constant holds exactly). */
static inline ox_vid oxu_full_scalar(ox_sym *g, const ox_api *api, double value, ox_dtype dt)
{
    oxu_fill f = oxu_fill_of(value, dt);
    ox_vid y = api->constant(g, f.base, 0, NULL, &f.u);
    if (!y) {
        api->fail(g, "could not create the constant");
        return 0;
    }
    return f.base != dt && dt != OX_UNDEFINED ? oxu_cast(g, api, y, dt) : y;
}

/* Output i is v cast to `dtype` (the type the host recorded for it, e.g.
 * the oxu_promote result when the ONNX op computed in another type). */
static inline int oxu_set_result_as(ox_sym *g, const ox_api *api, size_t i, ox_vid v,
                                    ox_dtype dtype)
{
    return oxu_set_result(g, api, i, oxu_cast_to(g, api, v, dtype));
}

/* Output i is v, cast to the element type the host recorded for it when it
 * recorded one (engines before ABI 1.1 have no api->output_dtype: v as is).
 * The end of a symbolic that computed in a promoted type. */
static inline int oxu_set_result_recorded(ox_sym *g, const ox_api *api, size_t i, ox_vid v)
{
    ox_dtype want = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, i) : OX_UNDEFINED;
    if (want == OX_UNDEFINED)
        return oxu_set_result(g, api, i, v);
    return oxu_set_result_as(g, api, i, v, want);
}

/* ------------------------------------------------ PyTorch's type promotion
 *
 * torch.result_type in three steps.  Categories rank bool < integer <
 * floating.  Operands are grouped by how they take part: tensors with
 * dimensions, 0-dim tensors, and Python numbers (a number's type is int64,
 * float32 - the default dtype - or bool).  Each group is reduced with
 * torch.promote_types; then the dimensioned result wins unless a later
 * group is of a higher category, in which case that group's type joins in
 * (a 0-dim float64 lifts an int32 tensor to float64; a Python float lifts
 * it to float32; a 0-dim float32 leaves a float16 tensor float16). */

typedef enum oxu_operand_level {
    OXU_TENSOR = 0,  /* a tensor with at least one dimension (or unknown rank) */
    OXU_ZERO_DIM = 1, /* a 0-dim tensor */
    OXU_NUMBER = 2   /* a Python number (give its dtype as int64, float or bool) */
} oxu_operand_level;

/* 0 bool, 1 integer, 2 floating, -1 a type torch does not promote. */
static inline int oxu_dtype_category(ox_dtype t)
{
    if (t == OX_BOOL)
        return 0;
    if (t == OX_UINT8 || t == OX_INT8 || t == OX_INT16 || t == OX_INT32 || t == OX_INT64)
        return 1;
    if (t == OX_FLOAT16 || t == OX_BFLOAT16 || t == OX_FLOAT || t == OX_DOUBLE)
        return 2;
    return -1;
}

/* torch.promote_types(a, b) for bool, uint8, int8/16/32/64 and the four
 * floating types; OX_UNDEFINED for any other pair (torch 1.x promotes no
 * uint16/32/64) or an undefined operand. */
static inline ox_dtype oxu_promote_types(ox_dtype a, ox_dtype b)
{
    int ca = oxu_dtype_category(a), cb = oxu_dtype_category(b);
    if (ca < 0 || cb < 0)
        return OX_UNDEFINED;
    if (a == b)
        return a;
    if (ca != cb) {
        /* the higher category's type wins, whatever its width */
        return ca > cb ? a : b;
    }
    if (ca == 2) {
        /* float16 with bfloat16: neither holds the other; float32 holds both */
        if ((a == OX_FLOAT16 && b == OX_BFLOAT16) || (a == OX_BFLOAT16 && b == OX_FLOAT16))
            return OX_FLOAT;
        int wa = a == OX_DOUBLE ? 8 : a == OX_FLOAT ? 4 : 2;
        int wb = b == OX_DOUBLE ? 8 : b == OX_FLOAT ? 4 : 2;
        return wa >= wb ? a : b;
    }
    /* integers: uint8 with a signed type needs the next wider signed one */
    int wa = a == OX_INT64 ? 8 : a == OX_INT32 ? 4 : a == OX_INT16 ? 2 : 1;
    int wb = b == OX_INT64 ? 8 : b == OX_INT32 ? 4 : b == OX_INT16 ? 2 : 1;
    if (a == OX_UINT8 || b == OX_UINT8) {
        ox_dtype s = a == OX_UINT8 ? b : a; /* the signed one */
        return s == OX_INT8 ? OX_INT16 : s;
    }
    return wa >= wb ? a : b;
}

/* promote_types where an undefined side (an empty group) yields the other. */
static inline ox_dtype oxu_promote_skip_undefined(ox_dtype a, ox_dtype b)
{
    if (a == OX_UNDEFINED)
        return b;
    if (b == OX_UNDEFINED)
        return a;
    return oxu_promote_types(a, b);
}

/* A group's type `lower` joins `higher` only when it is of a higher category. */
static inline ox_dtype oxu_combine_categories(ox_dtype higher, ox_dtype lower)
{
    if (higher == OX_UNDEFINED)
        return lower;
    if (oxu_dtype_category(higher) == 2)
        return higher;
    if (higher == OX_BOOL || oxu_dtype_category(lower) == 2)
        return oxu_promote_skip_undefined(higher, lower);
    return higher;
}

/* torch.result_type of n operands.  OX_UNDEFINED when an operand's type is
 * undefined or one torch does not promote. */
static inline ox_dtype oxu_result_type(size_t n, const ox_dtype *dtypes,
                                       const oxu_operand_level *levels)
{
    ox_dtype group[3] = {OX_UNDEFINED, OX_UNDEFINED, OX_UNDEFINED};
    for (size_t i = 0; i < n; i++) {
        ox_dtype t = dtypes[i];
        if (oxu_dtype_category(t) < 0)
            return OX_UNDEFINED;
        if (levels[i] == OXU_NUMBER && oxu_dtype_category(t) == 2)
            t = OX_FLOAT; /* torch's default dtype */
        else if (levels[i] == OXU_NUMBER && oxu_dtype_category(t) == 1)
            t = OX_INT64;
        unsigned l = levels[i] <= OXU_NUMBER ? (unsigned)levels[i] : 0u;
        group[l] = oxu_promote_skip_undefined(group[l], t);
    }
    return oxu_combine_categories(group[OXU_TENSOR],
                                  oxu_combine_categories(group[OXU_ZERO_DIM], group[OXU_NUMBER]));
}

/* Cast the n tensors vids[] in place to their torch.result_type (a rank-0
 * value counts as a 0-dim tensor, an unknown rank as dimensioned) and
 * report it in *out_dtype (may be NULL).  Operands of an unknown type are
 * left alone and make *out_dtype OX_UNDEFINED. */
static inline int oxu_promote(ox_sym *g, const ox_api *api, size_t n, ox_vid *vids,
                              ox_dtype *out_dtype)
{
    ox_dtype types[16];
    oxu_operand_level levels[16];
    if (out_dtype)
        *out_dtype = OX_UNDEFINED;
    if (n > 16)
        return api->fail(g, "oxu_promote takes at most 16 operands, got %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (!vids[i])
            return 1; /* an earlier builder failed */
        types[i] = api->dtype(g, vids[i]);
        levels[i] = api->rank(g, vids[i]) == 0 ? OXU_ZERO_DIM : OXU_TENSOR;
    }
    ox_dtype to = oxu_result_type(n, types, levels);
    if (out_dtype)
        *out_dtype = to;
    if (to == OX_UNDEFINED)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(vids[i] = oxu_cast_to(g, api, vids[i], to)))
            return 1;
    return 0;
}

/* The named arguments of a promoting operator as values of their common
 * type: a tensor argument is cast (oxu_promote's rules), a Python number
 * becomes a rank-0 constant of the common type.  out[i] for names[i]; the
 * type in *out_dtype (may be NULL).  A missing tensor argument fails. */
static inline int oxu_promote_args(ox_sym *g, const ox_api *api, size_t n,
                                   const char *const *names, ox_vid *out, ox_dtype *out_dtype)
{
    ox_dtype types[16];
    oxu_operand_level levels[16];
    if (out_dtype)
        *out_dtype = OX_UNDEFINED;
    if (n > 16)
        return api->fail(g, "oxu_promote_args takes at most 16 operands, got %zu", n);
    for (size_t i = 0; i < n; i++) {
        ox_arg_kind k = api->arg_kind(g, names[i]);
        out[i] = 0;
        if (k == OX_ARG_INT || k == OX_ARG_FLOAT || k == OX_ARG_BOOL) {
            types[i] = k == OX_ARG_FLOAT ? OX_FLOAT : k == OX_ARG_INT ? OX_INT64 : OX_BOOL;
            levels[i] = OXU_NUMBER;
            continue;
        }
        if (!(out[i] = api->arg_tensor(g, names[i])))
            return api->fail(g, "argument '%s' is missing or None", names[i]);
        types[i] = api->dtype(g, out[i]);
        levels[i] = api->rank(g, out[i]) == 0 ? OXU_ZERO_DIM : OXU_TENSOR;
    }
    ox_dtype to = oxu_result_type(n, types, levels);
    if (out_dtype)
        *out_dtype = to;
    for (size_t i = 0; i < n; i++) {
        if (levels[i] == OXU_NUMBER) {
            double v = api->arg_float(g, names[i], 0.0);
            ox_dtype t = to != OX_UNDEFINED ? to : types[i];
            if (!(out[i] = oxu_scalar(g, api, t, v)))
                return 1;
        } else if (!(out[i] = oxu_cast_to(g, api, out[i], to))) {
            return 1;
        }
    }
    return 0;
}

/* The type to compute Add/Sub/Mul/Div in for operands of type t at the
 * target opset: t itself where ONNX defines the op for it, else a wider type
 * that holds every value (before opset 14 these ops take only float16,
 * float, double, int32 and int64: int8/int16/uint8/uint16 compute in int32,
 * uint32/uint64 in int64; bool, which none of them takes, in int32).  The
 * caller casts the result back to t, which wraps as torch's fixed-width
 * integers do, and makes bool + bool an or and bool * bool an and. */
static inline ox_dtype oxu_arith_type(ox_sym *g, const ox_api *api, ox_dtype t)
{
    if (t == OX_BOOL)
        return OX_INT32;
    if (api->opset(g) >= 14)
        return t;
    switch (t) {
    case OX_INT8: case OX_INT16: case OX_UINT8: case OX_UINT16: return OX_INT32;
    case OX_UINT32: case OX_UINT64: return OX_INT64;
    default: return t;
    }
}

/* The type to run Where, Trilu, Max, Min, Clip, ArgMax or ArgMin (op_type)
 * in for operands of type t so that ONNX Runtime can run the file: t
 * itself, except the integer types ONNX allows there but ONNX Runtime's CPU
 * kernels skip (1.30, every opset: Where and Trilu have no int8, int16,
 * uint16, uint32 or uint64 kernel, Trilu none for uint8 either; Max, Min,
 * Clip, ArgMax and ArgMin none for int16 or uint16, ArgMax and ArgMin none
 * for uint32).  Those become int32 or int64, which hold every value (uint64
 * only where the op merely selects, so its bits come back), and the
 * caller's Cast back to t is exact. */
static inline ox_dtype oxu_ort_kernel_type(const char *op_type, ox_dtype t)
{
    int select = strcmp(op_type, "Where") == 0 || strcmp(op_type, "Trilu") == 0;
    int arg = strcmp(op_type, "ArgMax") == 0 || strcmp(op_type, "ArgMin") == 0;
    switch (t) {
    case OX_INT16: case OX_UINT16: return OX_INT32;
    case OX_INT8: return select ? OX_INT32 : t;
    case OX_UINT8: return strcmp(op_type, "Trilu") == 0 ? OX_INT32 : t;
    case OX_UINT32: return select || arg ? OX_INT64 : t;
    case OX_UINT64: return select ? OX_INT64 : t;
    default: return t;
    }
}

/* ================================================================ layout */

static inline ox_vid oxu_transpose(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *perm,
                                   size_t n)
{
    if (!x)
        return 0;
    ox_onode *t = api->op(g, "Transpose", 1, &x, 1);
    if (t)
        api->attr_ints(t, "perm", perm, n);
    return oxu_out(g, api, t, "Transpose");
}

/* Reshape to a constant shape (0 copies the input's size, -1 infers one). */
static inline ox_vid oxu_reshape(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *shape,
                                 size_t n)
{
    if (!x)
        return 0;
    ox_vid s = api->const_ints(g, shape, n);
    if (!s) {
        api->fail(g, "could not create the shape constant of a Reshape");
        return 0;
    }
    return oxu_op2(g, api, "Reshape", x, s);
}

static inline ox_vid oxu_concat(ox_sym *g, const ox_api *api, const ox_vid *xs, size_t n,
                                int64_t axis)
{
    for (size_t i = 0; i < n; i++)
        if (!xs[i])
            return 0;
    ox_onode *c = api->op(g, "Concat", n, xs, 1);
    if (c)
        api->attr_int(c, "axis", axis);
    return oxu_out(g, api, c, "Concat");
}

/* Where(c, a, b): elementwise a where c holds, else b, broadcasting all
 * three.  Bool a and b become Or(And(c, a), And(Not(c), b)): ONNX allows
 * bool in Where, but ONNX Runtime has no kernel for it; the integer types it
 * has no kernel for either (int8, int16 ...: oxu_ort_kernel_type) select in
 * a wider type, cast back. */
static inline ox_vid oxu_where(ox_sym *g, const ox_api *api, ox_vid c, ox_vid a, ox_vid b)
{
    if (!c || !a || !b)
        return 0;
    ox_dtype t = api->dtype(g, a);
    if (t == OX_BOOL && api->dtype(g, b) == OX_BOOL)
        return oxu_op2(g, api, "Or", oxu_op2(g, api, "And", c, a),
                       oxu_op2(g, api, "And", oxu_op1(g, api, "Not", c), b));
    ox_dtype k = oxu_ort_kernel_type("Where", t);
    ox_vid in[3] = {c, oxu_cast_to(g, api, a, k), oxu_cast_to(g, api, b, k)};
    if (!in[1] || !in[2])
        return 0;
    return oxu_cast_to(g, api, oxu_out(g, api, api->op(g, "Where", 3, in, 1), "Where"), t);
}

/* Insert size-1 dimensions at axes[] (positions in the output): axes as
 * an attribute before opset 13, as an input from 13. */
static inline ox_vid oxu_unsqueeze_axes(ox_sym *g, const ox_api *api, ox_vid x,
                                        const int64_t *axes, size_t n)
{
    if (!x)
        return 0;
    if (api->opset(g) >= 13)
        return oxu_op2(g, api, "Unsqueeze", x, oxu_const_ints(g, api, axes, n));
    ox_onode *u = api->op(g, "Unsqueeze", 1, &x, 1);
    if (u)
        api->attr_ints(u, "axes", axes, n);
    return oxu_out(g, api, u, "Unsqueeze");
}

static inline ox_vid oxu_unsqueeze(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis)
{
    return oxu_unsqueeze_axes(g, api, x, &axis, 1);
}

/* Drop the size-1 dimensions axes[] (n == 0: every size-1 dimension): axes
 * as an attribute before opset 13, as an input from 13. */
static inline ox_vid oxu_squeeze(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes,
                                 size_t n)
{
    if (!x)
        return 0;
    if (n == 0)
        return oxu_op1(g, api, "Squeeze", x);
    if (api->opset(g) >= 13)
        return oxu_op2(g, api, "Squeeze", x, oxu_const_ints(g, api, axes, n));
    ox_onode *s = api->op(g, "Squeeze", 1, &x, 1);
    if (s)
        api->attr_ints(s, "axes", axes, n);
    return oxu_out(g, api, s, "Squeeze");
}

/* x[starts:ends:steps] along axes[] (steps NULL: all 1): attributes at
 * opset 9, where a step other than 1 fails (Slice has no steps there);
 * inputs from opset 10, the steps input only when a step is not 1. */
static inline ox_vid oxu_slice_axes(ox_sym *g, const ox_api *api, ox_vid x, size_t n,
                                    const int64_t *axes, const int64_t *starts,
                                    const int64_t *ends, const int64_t *steps)
{
    if (!x)
        return 0;
    int stepped = 0;
    for (size_t i = 0; steps && i < n; i++)
        if (steps[i] != 1) {
            stepped = 1;
            if (api->opset(g) < 10) {
                api->fail(g, "Slice has no steps before opset 10 (step=%lld); export with opset "
                             "10 or later",
                          (long long)steps[i]);
                return 0;
            }
        }
    if (api->opset(g) < 10) {
        ox_onode *s = api->op(g, "Slice", 1, &x, 1);
        if (s) {
            api->attr_ints(s, "starts", starts, n);
            api->attr_ints(s, "ends", ends, n);
            api->attr_ints(s, "axes", axes, n);
        }
        return oxu_out(g, api, s, "Slice");
    }
    ox_vid in[5] = {x, oxu_const_ints(g, api, starts, n), oxu_const_ints(g, api, ends, n),
                    oxu_const_ints(g, api, axes, n),
                    stepped ? oxu_const_ints(g, api, steps, n) : 0};
    return oxu_opn(g, api, "Slice", stepped ? 5 : 4, in);
}

/* x[start:end:step] along one axis. */
static inline ox_vid oxu_slice(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis,
                               int64_t start, int64_t end, int64_t step)
{
    return oxu_slice_axes(g, api, x, 1, &axis, &start, &end, &step);
}

/* Split x along axis into n_out parts, outs[0..n_out-1]: of the sizes
 * split[] when given, else equal.  The sizes are an attribute before opset
 * 13 and an input from 13; equal parts need nothing before 18 and the
 * num_outputs attribute from 18. */
static inline int oxu_split(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis,
                            const int64_t *split, size_t n_out, ox_vid *outs)
{
    for (size_t i = 0; i < n_out; i++)
        outs[i] = 0;
    if (!x)
        return 1;
    if (n_out == 0)
        return api->fail(g, "Split into 0 parts");
    int opset = api->opset(g);
    ox_vid in[2] = {x, 0};
    if (split && opset >= 13 && !(in[1] = oxu_const_ints(g, api, split, n_out)))
        return 1;
    ox_onode *s = api->op(g, "Split", in[1] ? 2 : 1, in, n_out);
    if (!s)
        return api->fail(g, "could not create ONNX node Split (out of memory?)");
    api->attr_int(s, "axis", axis);
    if (split && opset < 13)
        api->attr_ints(s, "split", split, n_out);
    if (!split && opset >= 18)
        api->attr_int(s, "num_outputs", (int64_t)n_out);
    for (size_t i = 0; i < n_out; i++)
        if (!(outs[i] = api->node_output(s, i)))
            return api->fail(g, "could not read output %zu of Split", i);
    return 0;
}

/* ================================================================ shapes */

/* Shape(x): a 1-D int64 of x's sizes at run time. */
static inline ox_vid oxu_shape(ox_sym *g, const ox_api *api, ox_vid x)
{
    return oxu_op1(g, api, "Shape", x);
}

/* x's size along dim at run time, a rank-0 int64 (dim must be >= 0; use
 * oxu_axis first). */
static inline ox_vid oxu_size_of(ox_sym *g, const ox_api *api, ox_vid x, int64_t dim)
{
    ox_vid in[2] = {oxu_shape(g, api, x), oxu_const_int(g, api, dim)};
    if (!in[0] || !in[1])
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return oxu_out(g, api, n, "Gather");
}

/* Sizes start..end-1 of x at run time, a 1-D int64. */
static inline ox_vid oxu_shape_slice(ox_sym *g, const ox_api *api, ox_vid x, int64_t start,
                                     int64_t end)
{
    return oxu_slice(g, api, oxu_shape(g, api, x), 0, start, end, 1);
}

/* ================================================================ pad, clip */

/* torch's pad list (begin, end) pairs from the last dimension backwards ->
 * ONNX pads (every begin, then every end, first dimension first) of
 * 2 * rank entries.  `arg` names the list in messages. */
static inline int oxu_pads_from_torch(ox_sym *g, const ox_api *api, const char *arg,
                                      const int64_t *pad, size_t np, int rank, int64_t *pads)
{
    if (rank < 0)
        return api->fail(g, "padding needs the input's rank, which is unknown; record the "
                            "input's sizes");
    if (rank > OXU_MAX_RANK)
        return api->fail(g, "padding supports inputs up to rank %d, got rank %d", OXU_MAX_RANK,
                         rank);
    if (np % 2 != 0 || np / 2 > (size_t)rank)
        return api->fail(g, "argument '%s' has %zu values; expected an even count of at most "
                            "%d for a rank-%d input",
                         arg, np, 2 * rank, rank);
    for (size_t i = 0; i < 2 * (size_t)rank; i++)
        pads[i] = 0;
    for (size_t i = 0; i < np / 2; i++) {
        size_t dim = (size_t)rank - 1 - i;
        pads[dim] = pad[2 * i];
        pads[(size_t)rank + dim] = pad[2 * i + 1];
    }
    return 0;
}

/* Pad from opset 11, where the amounts are an input: pads_v (1-D int64, in
 * ONNX's order) and, for mode "constant", value as a scalar of x's type. */
static inline ox_vid oxu_pad_node(ox_sym *g, const ox_api *api, ox_vid x, ox_vid pads_v,
                                  const char *mode, double value)
{
    int constant = strcmp(mode, "constant") == 0;
    ox_vid in[3] = {x, pads_v, constant ? oxu_scalar_like(g, api, value, x) : 0};
    if (!in[0] || !in[1] || (constant && !in[2]))
        return 0;
    ox_onode *p = api->op(g, "Pad", constant ? 3 : 2, in, 1);
    if (p)
        api->attr_string(p, "mode", mode);
    return oxu_out(g, api, p, "Pad");
}

/* Pad x by pads (ONNX order, 2 * rank(x) entries) in mode "constant"
 * (with value), "reflect" or "edge".  Before opset 11 pads and value are
 * attributes and Pad takes floats only, so an integer x is padded as
 * double (exact below 2^53) and cast back; from 11 they are inputs (the
 * value typed like x, and only for "constant"). */
static inline ox_vid oxu_pad(ox_sym *g, const ox_api *api, ox_vid x, const char *mode,
                             const int64_t *pads, size_t n_pads, double value)
{
    if (!x)
        return 0;
    int constant = strcmp(mode, "constant") == 0;
    if (api->opset(g) < 11) {
        ox_dtype t = api->dtype(g, x);
        int integral = !oxu_is_floating(t);
        ox_vid in = integral ? oxu_cast(g, api, x, OX_DOUBLE) : x;
        ox_onode *p = in ? api->op(g, "Pad", 1, &in, 1) : NULL;
        if (p) {
            api->attr_string(p, "mode", mode);
            api->attr_ints(p, "pads", pads, n_pads);
            if (constant)
                api->attr_float(p, "value", value);
        }
        ox_vid y = in ? oxu_out(g, api, p, "Pad") : 0;
        return integral ? oxu_cast(g, api, y, t) : y;
    }
    return oxu_pad_node(g, api, x, oxu_const_ints(g, api, pads, n_pads), mode, value);
}

/* Pad x by traced amounts: torch_pad is a 1-D int64 tensor in torch's
 * order (computed from sizes at run time).  Only from opset 11, where pads
 * is an input: one Gather from [0, pad...] puts each amount where ONNX
 * wants it, zeros for the dimensions torch_pad leaves out. */
static inline ox_vid oxu_pad_traced(ox_sym *g, const ox_api *api, ox_vid x, const char *mode,
                                    const char *arg, ox_vid torch_pad, double value)
{
    if (!x || !torch_pad)
        return 0;
    int rank = api->rank(g, x);
    if (rank < 0) {
        api->fail(g, "padding needs the input's rank, which is unknown; record the input's "
                     "sizes");
        return 0;
    }
    if (rank > OXU_MAX_RANK) {
        api->fail(g, "padding supports inputs up to rank %d, got rank %d", OXU_MAX_RANK, rank);
        return 0;
    }
    if (api->opset(g) < 11) {
        api->fail(g, "pad amounts computed from traced sizes need Pad's pads input, from opset "
                     "11; export with opset 11 or later");
        return 0;
    }
    int64_t np = api->size(g, torch_pad, 0);
    if (np < 0 || np % 2 != 0 || np / 2 > rank) {
        api->fail(g, "argument '%s' has %lld values; expected an even count of at most %d for "
                     "a rank-%d input",
                  arg, (long long)np, 2 * rank, rank);
        return 0;
    }
    int64_t idx[2 * OXU_MAX_RANK] = {0};
    for (int64_t i = 0; i < np / 2; i++) {
        int64_t dim = rank - 1 - i;
        idx[dim] = 1 + 2 * i;
        idx[rank + dim] = 2 + 2 * i;
    }
    int64_t zero = 0;
    ox_vid parts[2] = {oxu_const_ints(g, api, &zero, 1), torch_pad};
    ox_vid gin[2] = {oxu_concat(g, api, parts, 2, 0),
                     oxu_const_ints(g, api, idx, 2 * (size_t)rank)};
    if (!gin[0] || !gin[1])
        return 0;
    ox_onode *gn = api->op(g, "Gather", 2, gin, 1);
    if (gn)
        api->attr_int(gn, "axis", 0);
    return oxu_pad_node(g, api, x, oxu_out(g, api, gn, "Gather"), mode, value);
}

/* torch-style padding of x by the argument pad_arg: an int list, or a 1-D
 * int64 tensor of traced amounts (then opset 11 or later). */
static inline ox_vid oxu_pad_arg(ox_sym *g, const ox_api *api, ox_vid x, const char *pad_arg,
                                 const char *mode, double value)
{
    if (!x)
        return 0;
    if (api->arg_kind(g, pad_arg) == OX_ARG_TENSOR)
        return oxu_pad_traced(g, api, x, mode, pad_arg, api->arg_tensor(g, pad_arg), value);
    const int64_t *pad = NULL;
    size_t np = api->arg_ints(g, pad_arg, &pad);
    int rank = api->rank(g, x);
    int64_t pads[2 * OXU_MAX_RANK];
    if (oxu_pads_from_torch(g, api, pad_arg, pad, np, rank, pads))
        return 0;
    return oxu_pad(g, api, x, mode, pads, 2 * (size_t)rank, value);
}

/* Clip x to [*lo, *hi] (NULL: unbounded on that side).  Bounds are
 * attributes before opset 11 and inputs typed like x from 11.  Clip takes
 * floats only before opset 12: an integer x is clamped there with
 * Where(x < lo, lo, x) and Where(x > hi, hi, x), exact. */
static inline ox_vid oxu_clip(ox_sym *g, const ox_api *api, ox_vid x, const double *lo,
                              const double *hi)
{
    if (!x)
        return 0;
    int opset = api->opset(g);
    if (opset < 12 && !oxu_is_floating(api->dtype(g, x))) {
        for (int side = 0; side < 2 && x; side++) {
            const double *b = side ? hi : lo;
            if (!b)
                continue;
            ox_vid bv = oxu_scalar_like(g, api, *b, x);
            ox_vid in[3] = {oxu_op2(g, api, side ? "Greater" : "Less", x, bv), bv, x};
            x = oxu_opn(g, api, "Where", 3, in);
        }
        return x;
    }
    if (opset < 11) {
        ox_onode *n = api->op(g, "Clip", 1, &x, 1);
        if (n && lo)
            api->attr_float(n, "min", *lo);
        if (n && hi)
            api->attr_float(n, "max", *hi);
        return oxu_out(g, api, n, "Clip");
    }
    ox_vid in[3] = {x, lo ? oxu_scalar_like(g, api, *lo, x) : 0,
                    hi ? oxu_scalar_like(g, api, *hi, x) : 0};
    if ((lo && !in[1]) || (hi && !in[2]))
        return 0;
    return oxu_out(g, api, api->op(g, "Clip", 3, in, 1), "Clip");
}

/* ================================================================ reduce */

/* The first opset where op_type (ReduceSum, ReduceMean, ...) takes its axes
 * as an input: 13 for ReduceSum, 18 for the others. */
static inline int oxu_reduce_axes_input_opset(const char *op_type)
{
    return strcmp(op_type, "ReduceSum") == 0 ? 13 : 18;
}

/* Reduce x over axes[] (n == 0: every axis) with keepdims: the axes as an
 * attribute, or as an input from oxu_reduce_axes_input_opset. */
static inline ox_vid oxu_reduce(ox_sym *g, const ox_api *api, const char *op_type, ox_vid x,
                                const int64_t *axes, size_t n, int keepdims)
{
    if (!x)
        return 0;
    int as_input = api->opset(g) >= oxu_reduce_axes_input_opset(op_type);
    ox_vid in[2] = {x, 0};
    if (as_input && n && !(in[1] = oxu_const_ints(g, api, axes, n)))
        return 0;
    ox_onode *r = api->op(g, op_type, in[1] ? 2 : 1, in, 1);
    if (r) {
        if (!as_input && n)
            api->attr_ints(r, "axes", axes, n);
        api->attr_int(r, "keepdims", keepdims != 0);
    }
    return oxu_out(g, api, r, op_type);
}

/* ================================================================ resize */

/* How oxu_resize maps coordinates (ONNX Resize-11 names; before 11 only
 * "asymmetric" with mode "nearest" or "linear" exists). */
typedef struct oxu_resize_opts {
    const char *mode;                           /* "nearest", "linear", "cubic" */
    const char *coordinate_transformation_mode; /* NULL: "half_pixel" (Resize's default) */
    const char *nearest_mode;                   /* NULL: "round_prefer_floor" (default) */
} oxu_resize_opts;

/* Resize x by scales[] (one per dimension, n of them) or to sizes (a 1-D
 * int64 value of the full output shape; scales must then be NULL).
 * Opset 9: Upsample(x, scales); 10: Resize(x, scales), both "asymmetric"
 * only (another coordinate mode or sizes fail); from 11: Resize(x, roi,
 * scales, sizes) with the modes as attributes, roi and the unused one of
 * scales/sizes empty before 13 (required inputs there) and left out from
 * 13. */
static inline ox_vid oxu_resize(ox_sym *g, const ox_api *api, ox_vid x, const float *scales,
                                size_t n, ox_vid sizes, const oxu_resize_opts *o)
{
    if (!x)
        return 0;
    int opset = api->opset(g);
    const char *coord = o->coordinate_transformation_mode;
    if (opset < 11) {
        const char *type = opset < 10 ? "Upsample" : "Resize";
        if (!scales) {
            api->fail(g, "%s takes scales only before opset 11 (output sizes need Resize-11); "
                         "export with opset 11 or later",
                      type);
            return 0;
        }
        if (coord && strcmp(coord, "asymmetric") != 0) {
            api->fail(g, "%s maps coordinates only as 'asymmetric' before opset 11 (asked for "
                         "'%s'); export with opset 11 or later",
                      type, coord);
            return 0;
        }
        if (strcmp(o->mode, "nearest") != 0 && strcmp(o->mode, "linear") != 0) {
            api->fail(g, "%s has no mode '%s' before opset 11; export with opset 11 or later",
                      type, o->mode);
            return 0;
        }
        ox_vid in[2] = {x, oxu_const_floats(g, api, scales, n)};
        if (!in[1])
            return 0;
        ox_onode *r = api->op(g, type, 2, in, 1);
        if (r)
            api->attr_string(r, "mode", o->mode);
        return oxu_out(g, api, r, type);
    }
    ox_vid in[4] = {x, 0, scales ? oxu_const_floats(g, api, scales, n) : 0, scales ? 0 : sizes};
    if ((scales && !in[2]) || (!scales && !sizes)) {
        if (!scales && !sizes)
            api->fail(g, "oxu_resize needs scales or sizes");
        return 0;
    }
    size_t n_in = scales ? 3 : 4;
    if (opset < 13) {
        /* ConstantOfShape([0]) makes the empty float tensor at run time
         * (the writer is not handed a zero-byte constant). */
        int64_t zero = 0;
        ox_vid empty = oxu_op1(g, api, "ConstantOfShape", oxu_const_ints(g, api, &zero, 1));
        if (!empty)
            return 0;
        in[1] = empty;
        if (!scales)
            in[2] = empty;
    }
    ox_onode *r = api->op(g, "Resize", n_in, in, 1);
    if (r) {
        api->attr_string(r, "mode", o->mode);
        if (coord)
            api->attr_string(r, "coordinate_transformation_mode", coord);
        if (o->nearest_mode)
            api->attr_string(r, "nearest_mode", o->nearest_mode);
    }
    return oxu_out(g, api, r, "Resize");
}

#ifdef __cplusplus
}
#endif

#endif /* OXPORT_PLUGIN_UTIL_H */
