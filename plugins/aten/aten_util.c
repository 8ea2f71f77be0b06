#include "aten_util.h"

ox_vid at_out(ox_sym *g, const ox_api *api, ox_onode *n, const char *op_type)
{
    ox_vid v = n ? api->node_output(n, 0) : 0;
    if (!v)
        api->fail(g, "could not create ONNX node %s (out of memory?)", op_type);
    return v;
}

ox_vid at_op1(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a)
{
    if (!a)
        return 0;
    return at_out(g, api, api->op(g, op_type, 1, &a, 1), op_type);
}

ox_vid at_op2(ox_sym *g, const ox_api *api, const char *op_type, ox_vid a, ox_vid b)
{
    if (!a || !b)
        return 0;
    ox_vid in[2] = {a, b};
    return at_out(g, api, api->op(g, op_type, 2, in, 1), op_type);
}

int at_axis(ox_sym *g, const ox_api *api, const char *arg, int64_t axis, int rank, int64_t *out)
{
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

int at_ints_n(ox_sym *g, const ox_api *api, const char *arg, size_t n, int64_t dflt,
              int64_t *out)
{
    const int64_t *v = NULL;
    size_t k = api->arg_ints(g, arg, &v);
    for (size_t i = 0; i < n; i++)
        out[i] = k == 0 ? dflt : k == 1 ? v[0] : k == n ? v[i] : 0;
    if (k > 1 && k != n)
        return api->fail(g, "argument '%s' has %zu values; expected 1 or %zu", arg, k, n);
    return 0;
}

ox_vid at_transpose(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *perm, size_t n)
{
    if (!x)
        return 0;
    ox_onode *t = api->op(g, "Transpose", 1, &x, 1);
    if (t)
        api->attr_ints(t, "perm", perm, n);
    return at_out(g, api, t, "Transpose");
}

ox_vid at_reshape(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *shape, size_t n)
{
    if (!x)
        return 0;
    ox_vid s = api->const_ints(g, shape, n);
    if (!s) {
        api->fail(g, "could not create the shape constant of a Reshape");
        return 0;
    }
    return at_op2(g, api, "Reshape", x, s);
}

ox_vid at_concat(ox_sym *g, const ox_api *api, const ox_vid *xs, size_t n, int64_t axis)
{
    for (size_t i = 0; i < n; i++)
        if (!xs[i])
            return 0;
    ox_onode *c = api->op(g, "Concat", n, xs, 1);
    if (c)
        api->attr_int(c, "axis", axis);
    return at_out(g, api, c, "Concat");
}

ox_vid at_unsqueeze(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis)
{
    if (!x)
        return 0;
    if (api->opset(g) >= 13) {
        ox_vid ax = api->const_ints(g, &axis, 1);
        return ax ? at_op2(g, api, "Unsqueeze", x, ax) : at_out(g, api, NULL, "Unsqueeze");
    }
    ox_onode *u = api->op(g, "Unsqueeze", 1, &x, 1);
    if (u)
        api->attr_ints(u, "axes", &axis, 1);
    return at_out(g, api, u, "Unsqueeze");
}

ox_vid at_squeeze(ox_sym *g, const ox_api *api, ox_vid x, const int64_t *axes, size_t n)
{
    if (!x)
        return 0;
    if (n == 0)
        return at_op1(g, api, "Squeeze", x);
    if (api->opset(g) >= 13) {
        ox_vid ax = api->const_ints(g, axes, n);
        return ax ? at_op2(g, api, "Squeeze", x, ax) : at_out(g, api, NULL, "Squeeze");
    }
    ox_onode *s = api->op(g, "Squeeze", 1, &x, 1);
    if (s)
        api->attr_ints(s, "axes", axes, n);
    return at_out(g, api, s, "Squeeze");
}

ox_vid at_slice(ox_sym *g, const ox_api *api, ox_vid x, int64_t axis, int64_t start, int64_t end,
                int64_t step)
{
    if (!x)
        return 0;
    if (api->opset(g) < 10) {
        if (step != 1) {
            api->fail(g, "Slice has no steps before opset 10 (step=%lld); export with opset 10 "
                         "or later",
                      (long long)step);
            return 0;
        }
        ox_onode *s = api->op(g, "Slice", 1, &x, 1);
        if (s) {
            api->attr_ints(s, "starts", &start, 1);
            api->attr_ints(s, "ends", &end, 1);
            api->attr_ints(s, "axes", &axis, 1);
        }
        return at_out(g, api, s, "Slice");
    }
    ox_vid in[5] = {x, api->const_ints(g, &start, 1), api->const_ints(g, &end, 1),
                    api->const_ints(g, &axis, 1), step != 1 ? api->const_ints(g, &step, 1) : 0};
    size_t n_in = step != 1 ? 5 : 4;
    for (size_t i = 0; i < n_in; i++)
        if (!in[i])
            return at_out(g, api, NULL, "Slice");
    return at_out(g, api, api->op(g, "Slice", n_in, in, 1), "Slice");
}

ox_vid at_cast(ox_sym *g, const ox_api *api, ox_vid x, ox_dtype to)
{
    if (!x)
        return 0;
    ox_onode *c = api->op(g, "Cast", 1, &x, 1);
    if (c)
        api->attr_int(c, "to", (int64_t)to);
    return at_out(g, api, c, "Cast");
}

int at_is_integer(ox_dtype t)
{
    switch (t) {
    case OX_UINT8: case OX_INT8: case OX_UINT16: case OX_INT16: case OX_INT32: case OX_INT64:
    case OX_UINT32: case OX_UINT64: case OX_BOOL:
        return 1;
    default:
        return 0;
    }
}

static int dtype_width(ox_dtype t)
{
    switch (t) {
    case OX_BOOL: return 0;
    case OX_UINT8: case OX_INT8: return 1;
    case OX_INT16: case OX_UINT16: case OX_FLOAT16: case OX_BFLOAT16: return 2;
    case OX_INT32: case OX_UINT32: case OX_FLOAT: return 4;
    default: return 8;
    }
}

int at_promote2(ox_sym *g, const ox_api *api, ox_vid *a, ox_vid *b)
{
    ox_dtype ta = api->dtype(g, *a), tb = api->dtype(g, *b);
    if (ta == tb || ta == OX_UNDEFINED || tb == OX_UNDEFINED)
        return 0;
    int fa = at_is_floating(ta), fb = at_is_floating(tb);
    ox_dtype to;
    if (fa != fb)
        to = fa ? ta : tb;
    else if ((api->rank(g, *a) == 0) != (api->rank(g, *b) == 0))
        to = api->rank(g, *a) == 0 ? tb : ta;
    else
        to = dtype_width(ta) >= dtype_width(tb) ? ta : tb;
    if (ta != to && !(*a = at_cast(g, api, *a, to)))
        return 1;
    if (tb != to && !(*b = at_cast(g, api, *b, to)))
        return 1;
    return 0;
}

/* Traced pad amounts (a 1-D int64 tensor in torch's order): one Gather from
 * [0, pad...] puts each amount where ONNX wants it, zeros for unpadded dims. */
static ox_vid traced_pads(ox_sym *g, const ox_api *api, ox_vid pad, int rank)
{
    int64_t np = api->size(g, pad, 0);
    if (np < 0 || np % 2 != 0 || np / 2 > rank) {
        api->fail(g, "argument 'pad' has %lld values; expected an even count of at most %d for "
                     "a rank-%d input",
                  (long long)np, 2 * rank, rank);
        return 0;
    }
    int64_t idx[2 * AT_MAX_RANK] = {0};
    for (int64_t i = 0; i < np / 2; i++) {
        int64_t dim = rank - 1 - i;
        idx[dim] = 1 + 2 * i;
        idx[rank + dim] = 2 + 2 * i;
    }
    int64_t zero = 0;
    ox_vid parts[2] = {api->const_ints(g, &zero, 1), pad};
    ox_vid all = at_concat(g, api, parts, 2, 0);
    ox_vid in[2] = {all, api->const_ints(g, idx, 2 * (size_t)rank)};
    if (!all || !in[1])
        return 0;
    ox_onode *n = api->op(g, "Gather", 2, in, 1);
    if (n)
        api->attr_int(n, "axis", 0);
    return at_out(g, api, n, "Gather");
}

int at_is_floating(ox_dtype t)
{
    return t == OX_FLOAT || t == OX_DOUBLE || t == OX_FLOAT16 || t == OX_BFLOAT16 ||
           t == OX_UNDEFINED;
}

int at_constant_pad(ox_sym *g, const ox_api *api, const char *input_arg, const char *value_arg)
{
    ox_vid x = api->arg_tensor(g, input_arg);
    if (api->arg_kind(g, "pad") == OX_ARG_TENSOR) {
        int rank = api->rank(g, x);
        if (rank < 0 || rank > AT_MAX_RANK)
            return api->fail(g, "padding needs the rank of '%s' (at most %d)", input_arg,
                             AT_MAX_RANK);
        if (api->opset(g) < 11)
            return api->fail(g, "pad amounts computed from traced sizes need Pad's pads input, "
                                "from opset 11; export with opset 11 or later");
        ox_vid pads = traced_pads(g, api, api->arg_tensor(g, "pad"), rank);
        ox_vid in[3] = {x, pads, api->scalar_like(g, api->arg_float(g, value_arg, 0.0), x)};
        if (!pads || !in[2])
            return 1;
        ox_onode *p = api->op(g, "Pad", 3, in, 1);
        if (p)
            api->attr_string(p, "mode", "constant");
        ox_vid y = at_out(g, api, p, "Pad");
        return y ? api->set_output(g, 0, y) : 1;
    }
    const int64_t *pad = NULL;
    size_t np = api->arg_ints(g, "pad", &pad);
    double value = api->arg_float(g, value_arg, 0.0);
    int rank = api->rank(g, x);
    if (rank < 0)
        return api->fail(g, "padding needs the rank of '%s', which is unknown; record the "
                            "input's sizes",
                         input_arg);
    if (np % 2 != 0 || np / 2 > (size_t)rank)
        return api->fail(g, "argument 'pad' has %zu values; expected an even count of at most "
                            "%d for a rank-%d input",
                         np, 2 * rank, rank);
    if (rank > AT_MAX_RANK)
        return api->fail(g, "padding supports inputs up to rank %d, got rank %d", AT_MAX_RANK,
                         rank);

    /* torch: (begin, end) pairs from the last dim backwards; ONNX: all
     * begins then all ends, first dim first. */
    int64_t pads[2 * AT_MAX_RANK] = {0};
    for (size_t i = 0; i < np / 2; i++) {
        size_t dim = (size_t)rank - 1 - i;
        pads[dim] = pad[2 * i];
        pads[(size_t)rank + dim] = pad[2 * i + 1];
    }

    ox_vid y;
    if (api->opset(g) < 11) {
        /* Pad-2 takes floats only: pad a double copy of an integer tensor
         * (exact below 2^53) and cast back. */
        ox_dtype t = api->dtype(g, x);
        int integral = !at_is_floating(t);
        ox_vid in = integral ? at_cast(g, api, x, OX_DOUBLE) : x;
        ox_onode *p = in ? api->op(g, "Pad", 1, &in, 1) : NULL;
        if (p) {
            api->attr_string(p, "mode", "constant");
            api->attr_ints(p, "pads", pads, 2 * (size_t)rank);
            api->attr_float(p, "value", value);
        }
        y = at_out(g, api, p, "Pad");
        if (integral)
            y = at_cast(g, api, y, t);
    } else {
        ox_vid in[3] = {x, api->const_ints(g, pads, 2 * (size_t)rank),
                        api->scalar_like(g, value, x)};
        if (!in[1] || !in[2])
            return api->fail(g, "could not create the pads/value constants of Pad");
        ox_onode *p = api->op(g, "Pad", 3, in, 1);
        if (p)
            api->attr_string(p, "mode", "constant");
        y = at_out(g, api, p, "Pad");
    }
    if (!y)
        return 1;
    return api->set_output(g, 0, y);
}
