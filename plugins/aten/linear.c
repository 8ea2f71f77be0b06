/* Matrix products: linear, addmm -> Gemm; matmul/mm/bmm/dot/mv -> MatMul;
 * einsum, tensordot -> Einsum; outer -> Unsqueeze, Mul; baddbmm
 * (nn.MultiheadAttention's dispatcher path adds an attention mask to
 * q @ k^T with it) -> MatMul, Add, and Mul for a beta or alpha other than 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static int sym_linear(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    ox_vid y;
    if (b && api->rank(g, x) == 2) {
        ox_vid in[3] = {x, w, b};
        ox_onode *n = api->op(g, "Gemm", 3, in, 1);
        if (n)
            api->attr_int(n, "transB", 1);
        y = at_out(g, api, n, "Gemm");
    } else {
        /* Any rank: y = x @ W^T (+ b), broadcasting over leading dims. */
        static const int64_t perm[2] = {1, 0};
        y = at_op2(g, api, "MatMul", x, at_transpose(g, api, w, perm, 2));
        if (y && b)
            y = at_op2(g, api, "Add", y, b);
    }
    return oxu_set_result(g, api, 0, y);
}

static int sym_addmm(ox_sym *g, const ox_api *api)
{
    ox_vid in[3] = {api->arg_tensor(g, "mat1"), api->arg_tensor(g, "mat2"),
                    api->arg_tensor(g, "self")};
    ox_onode *n = api->op(g, "Gemm", 3, in, 1);
    if (n) {
        api->attr_float(n, "alpha", api->arg_float(g, "alpha", 1.0));
        api->attr_float(n, "beta", api->arg_float(g, "beta", 1.0));
    }
    return oxu_set_result(g, api, 0, at_out(g, api, n, "Gemm"));
}

static int sym_matmul(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "other"));
    return oxu_set_result(g, api, 0, y);
}

/* mm and bmm name their second operand mat2. */
static int sym_mm(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "mat2"));
    return oxu_set_result(g, api, 0, y);
}

/* dot (vector . vector) and mv (matrix . vector) name their second
 * operand tensor and vec; MatMul takes 1-D operands as torch does. */
static int sym_dot(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "tensor"));
    return oxu_set_result(g, api, 0, y);
}

static int sym_mv(ox_sym *g, const ox_api *api)
{
    ox_vid y = at_op2(g, api, "MatMul", api->arg_tensor(g, "self"), api->arg_tensor(g, "vec"));
    return oxu_set_result(g, api, 0, y);
}

/* einsum -> Einsum (opset 12; the PyTorch host records the products torch
 * dispatches to below 12).  ONNX takes the same equation language (letters,
 * "...", implicit output); spaces, which torch allows, are dropped. */
static int sym_einsum(ox_sym *g, const ox_api *api)
{
    const ox_vid *xs = NULL;
    size_t n = api->arg_tensors(g, "tensors", &xs);
    const char *eq = api->arg_string(g, "equation", "");
    char *compact = malloc(strlen(eq) + 1);
    if (!compact)
        return api->fail(g, "out of memory copying the equation");
    size_t k = 0;
    for (const char *c = eq; *c; c++)
        if (*c != ' ')
            compact[k++] = *c;
    compact[k] = '\0';
    ox_onode *e = api->op(g, "Einsum", n, xs, 1);
    if (e)
        api->attr_string(e, "equation", compact); /* copied */
    free(compact);
    /* torch sums an integer operand's contracted letters as int64 when no
     * product is left (einsum("ii", int32) is int64); Einsum keeps int32 */
    ox_dtype want = OXU_API_HAS(api, output_dtype) ? api->output_dtype(g, 0) : OX_UNDEFINED;
    ox_vid y = at_out(g, api, e, "Einsum");
    if (y && at_is_integer(want) && api->dtype(g, y) != want)
        y = oxu_cast(g, api, y, want);
    return oxu_set_result(g, api, 0, y);
}

/* outer(a, b) = a[:, None] * b (promoted operands). */
static int sym_outer(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self"), b = api->arg_tensor(g, "vec2");
    if (at_promote2(g, api, &a, &b))
        return 1;
    return oxu_set_result(g, api, 0, at_op2(g, api, "Mul", at_unsqueeze(g, api, a, 1), b));
}

/* tensordot -> Einsum (opset 12; the host records the permutes and mm it
 * dispatches to below): self's dims get letters a, b, ...; other's
 * contracted dims reuse their partners', its free dims get new ones; the
 * output is self's free letters, then other's. */
static int sym_tensordot(ox_sym *g, const ox_api *api)
{
    ox_vid a = api->arg_tensor(g, "self"), b = api->arg_tensor(g, "other");
    const int64_t *da = NULL, *db = NULL;
    size_t na = api->arg_ints(g, "dims_self", &da), nb = api->arg_ints(g, "dims_other", &db);
    int ra = api->rank(g, a), rb = api->rank(g, b);
    if (ra < 0 || rb < 0 || ra + rb > 26)
        return api->fail(g, "tensordot needs inputs of known ranks adding up to at most 26 "
                            "(got %d and %d)", ra, rb);
    if (na != nb)
        return api->fail(g, "arguments 'dims_self' and 'dims_other' have %zu and %zu entries", na,
                         nb);
    char la[26], lb[26], out[27], eq[3 * 27 + 4];
    int contracted_a[26] = {0}, n_out = 0;
    for (int i = 0; i < ra; i++)
        la[i] = (char)('a' + i);
    for (int i = 0; i < rb; i++)
        lb[i] = (char)('a' + ra + i);
    for (size_t k = 0; k < na; k++) {
        int64_t x, y;
        if (at_axis(g, api, "dims_self", da[k], ra, &x) || at_axis(g, api, "dims_other", db[k], rb, &y))
            return 1;
        lb[y] = la[x];
        contracted_a[x] = 1;
    }
    for (int i = 0; i < ra; i++)
        if (!contracted_a[i])
            out[n_out++] = la[i];
    for (int i = 0; i < rb; i++)
        if (lb[i] >= 'a' + ra)
            out[n_out++] = lb[i];
    snprintf(eq, sizeof eq, "%.*s,%.*s->%.*s", ra, la, rb, lb, n_out, out);
    if (at_promote2(g, api, &a, &b))
        return 1;
    ox_vid in[2] = {a, b};
    ox_onode *e = api->op(g, "Einsum", 2, in, 1);
    if (e)
        api->attr_string(e, "equation", eq);
    return oxu_set_result(g, api, 0, at_out(g, api, e, "Einsum"));
}

static ox_vid scaled(ox_sym *g, const ox_api *api, ox_vid v, double k)
{
    if (!v || k == 1.0)
        return v;
    ox_vid c = api->scalar_like(g, k, v);
    if (!c) {
        api->fail(g, "could not create the constant %g", k);
        return 0;
    }
    return at_op2(g, api, "Mul", v, c);
}

static int sym_baddbmm(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self");
    ox_vid prod = at_op2(g, api, "MatMul", api->arg_tensor(g, "batch1"),
                         api->arg_tensor(g, "batch2"));
    prod = scaled(g, api, prod, api->arg_float(g, "alpha", 1.0));
    double beta = api->arg_float(g, "beta", 1.0);
    ox_vid y = beta == 0.0 ? prod : at_op2(g, api, "Add", scaled(g, api, self, beta), prod);
    return oxu_set_result(g, api, 0, y);
}

static const ox_param_decl p_linear[] = {OX_PARAM("input", OX_ARG_TENSOR),
                                         OX_PARAM("weight", OX_ARG_TENSOR),
                                         OX_PARAM_NULL("bias", OX_ARG_OPT_TENSOR)};
static const ox_param_decl p_addmm[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("mat1", OX_ARG_TENSOR), OX_PARAM("mat2", OX_ARG_TENSOR),
    OX_PARAM_INT("beta", OX_ARG_SCALAR, 1), OX_PARAM_INT("alpha", OX_ARG_SCALAR, 1)};
static const ox_param_decl p_matmul[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                         OX_PARAM("other", OX_ARG_TENSOR)};
static const ox_param_decl p_mm[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("mat2", OX_ARG_TENSOR)};
static const ox_param_decl p_dot[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("tensor", OX_ARG_TENSOR)};
static const ox_param_decl p_mv[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("vec", OX_ARG_TENSOR)};
static const ox_param_decl p_einsum[] = {OX_PARAM("equation", OX_ARG_STRING),
                                         OX_PARAM("tensors", OX_ARG_TENSOR_LIST),
                                         OX_PARAM_NULL("path", OX_ARG_INTS)};
static const ox_param_decl p_outer[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("vec2", OX_ARG_TENSOR)};
static const ox_param_decl p_tensordot[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("other", OX_ARG_TENSOR),
    OX_PARAM("dims_self", OX_ARG_INTS), OX_PARAM("dims_other", OX_ARG_INTS)};
static const ox_param_decl p_baddbmm[] = {
    OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("batch1", OX_ARG_TENSOR),
    OX_PARAM("batch2", OX_ARG_TENSOR), OX_PARAM_INT("beta", OX_ARG_SCALAR, 1),
    OX_PARAM_INT("alpha", OX_ARG_SCALAR, 1)};

const ox_op_decl at_ops_linear[] = {
    OX_OP("aten::linear", 7, p_linear, 1, sym_linear),
    OX_OP("aten::addmm", 7, p_addmm, 1, sym_addmm),
    OX_OP("aten::matmul", 7, p_matmul, 1, sym_matmul),
    OX_OP("aten::mm", 9, p_mm, 1, sym_mm),
    OX_OP("aten::bmm", 7, p_mm, 1, sym_mm),
    OX_OP("aten::baddbmm", 7, p_baddbmm, 1, sym_baddbmm),
    OX_OP("aten::dot", 9, p_dot, 1, sym_dot),
    OX_OP("aten::mv", 9, p_mv, 1, sym_mv),
    OX_OP("aten::einsum", 12, p_einsum, 1, sym_einsum),
    OX_OP("aten::outer", 9, p_outer, 1, sym_outer),
    OX_OP("aten::tensordot", 12, p_tensordot, 1, sym_tensordot),
};
AT_FAMILY_SIZE(at_ops_linear);
