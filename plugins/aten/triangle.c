/* triu / tril: Trilu from opset 14; from 11 a mask from two Ranges over the
 * last two dims' run-time sizes (col - row compared with the diagonal), so a
 * causal mask built from a traced length follows the length.  The diagonal is
 * an int, or a rank-0 int64 value when the host traced it (a KV-cache step's
 * `triu(mask, diagonal=past_len + 1)`): both forms take it as a value. */
#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

static ox_vid dim_size(ox_sym *g, const ox_api *api, ox_vid shape, int64_t axis)
{
    ox_vid idx = api->constant(g, OX_INT64, 0, NULL, &axis);
    ox_vid in[2] = {shape, idx};
    if (!shape || !idx)
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return at_out(g, api, n, "Gather");
}

/* The diagonal as a rank-0 int64 value. */
static ox_vid diagonal(ox_sym *g, const ox_api *api, const char *op)
{
    if (api->arg_kind(g, "diagonal") == OX_ARG_TENSOR) {
        ox_vid k = api->arg_tensor(g, "diagonal");
        if (api->rank(g, k) != 0) {
            api->fail(g, "argument 'diagonal' is a rank-%d tensor; %s takes one diagonal",
                      api->rank(g, k), op);
            return 0;
        }
        return oxu_cast_to(g, api, k, OX_INT64);
    }
    int64_t k = api->arg_int(g, "diagonal", 0);
    return api->constant(g, OX_INT64, 0, NULL, &k);
}

static int triangle(ox_sym *g, const ox_api *api, int upper)
{
    ox_vid x = api->arg_tensor(g, "self");
    const char *op = upper ? "triu" : "tril";
    int rank = api->rank(g, x);
    if (rank < 2)
        return api->fail(g, "%s needs an input of rank 2 or more, got rank %d", op, rank);
    ox_vid kv = diagonal(g, api, op);
    if (!kv)
        return 1;
    ox_vid y;
    if (api->opset(g) >= 14) {
        /* int8, uint8, int16: in a type ONNX Runtime's Trilu takes, cast back */
        ox_dtype t = api->dtype(g, x);
        ox_vid in[2] = {oxu_cast_to(g, api, x, oxu_ort_kernel_type("Trilu", t)), kv};
        if (!in[0])
            return 1;
        ox_onode *n = api->op(g, "Trilu", 2, in, 1);
        if (n)
            api->attr_int(n, "upper", upper);
        y = oxu_cast_to(g, api, at_out(g, api, n, "Trilu"), t);
    } else {
        ox_vid shape = at_op1(g, api, "Shape", x);
        ox_vid zero = api->const_scalar_of(g, OX_INT64, 0.0), one = api->const_scalar_of(g, OX_INT64, 1.0);
        ox_vid rin[3] = {zero, dim_size(g, api, shape, rank - 2), one};
        ox_vid cin[3] = {zero, dim_size(g, api, shape, rank - 1), one};
        if (!rin[1] || !cin[1] || !zero || !one)
            return 1;
        ox_vid rows = at_unsqueeze(g, api, at_out(g, api, api->op(g, "Range", 3, rin, 1), "Range"), 1);
        ox_vid cols = at_unsqueeze(g, api, at_out(g, api, api->op(g, "Range", 3, cin, 1), "Range"), 0);
        ox_vid d = at_op2(g, api, "Sub", cols, rows);
        /* triu keeps col - row >= k, tril keeps col - row <= k */
        ox_vid keep = at_op1(g, api, "Not", at_op2(g, api, upper ? "Less" : "Greater", d, kv));
        if (api->dtype(g, x) == OX_BOOL) /* ONNX Runtime has no bool Where before opset 16 */
            return oxu_set_result(g, api, 0, at_op2(g, api, "And", keep, x));
        ox_vid fill = api->scalar_like(g, 0.0, x);
        if (!keep || !fill)
            return 1;
        y = oxu_where(g, api, keep, x, fill); /* int8, int16: selected in int32 */
    }
    return oxu_set_result(g, api, 0, y);
}

static int sym_triu(ox_sym *g, const ox_api *api)
{
    return triangle(g, api, 1);
}

static int sym_tril(ox_sym *g, const ox_api *api)
{
    return triangle(g, api, 0);
}

static const ox_param_decl p_triangle[] = {OX_PARAM("self", OX_ARG_TENSOR),
                                           AT_PARAM_INT_OR("diagonal", OX_ARG_TENSOR, 0)};

/* From opset 11: Range, which builds the mask, is new there. */
const ox_op_decl at_ops_triangle[] = {
    OX_OP("aten::triu", 11, p_triangle, 1, sym_triu),
    OX_OP("aten::tril", 11, p_triangle, 1, sym_tril),
};
AT_FAMILY_SIZE(at_ops_triangle);
