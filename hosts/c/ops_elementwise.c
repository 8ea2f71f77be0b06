/*
 * Binary elementwise operators with numpy broadcasting.
 */
#include "ops.h"

#include <string.h>

typedef enum { OP_ADD, OP_MUL } binop;

/* Output shape of broadcasting a with b; 0 when they do not broadcast. */
static int broadcast_shape(const hc_tensor *a, const hc_tensor *b, uint32_t *rank, int64_t *sz)
{
    uint32_t r = a->rank > b->rank ? a->rank : b->rank;
    for (uint32_t i = 0; i < r; i++) {
        int64_t da = i < r - a->rank ? 1 : a->sizes[i - (r - a->rank)];
        int64_t db = i < r - b->rank ? 1 : b->sizes[i - (r - b->rank)];
        if (da != db && da != 1 && db != 1)
            return 0;
        sz[i] = da > db ? da : db;
    }
    *rank = r;
    return 1;
}

/* Element strides of t inside an output of rank r (0 on broadcast axes). */
static void broadcast_strides(const hc_tensor *t, uint32_t r, const int64_t *osz, int64_t *st)
{
    int64_t s = 1;
    for (int i = (int)r - 1; i >= 0; i--) {
        int ti = i - (int)(r - t->rank);
        if (ti < 0 || t->sizes[ti] == 1 || osz[i] == 1) {
            st[i] = 0;
        } else {
            st[i] = s;
        }
        if (ti >= 0)
            s *= t->sizes[ti];
    }
}

static hc_tensor *binary(hc_rt *rt, hc_tensor *a, hc_tensor *b, binop op, double alpha,
                         int inplace)
{
    if (!a || !b)
        return NULL;
    uint32_t r;
    int64_t osz[HC_MAX_RANK];
    if (!broadcast_shape(a, b, &r, osz)) {
        hc_fail(rt, OX_EINVAL, "elementwise op: shapes do not broadcast");
        return NULL;
    }
    hc_tensor *y = inplace ? a : hc_new(rt, a->dtype, r, osz);
    if (!y)
        return NULL;
    if (rt->shape_only)
        goto record;
    float al = (float)alpha;
    const float *as = hc_f32(a), *bs = hc_f32(b);
    float *ys = hc_f32(y);
    int64_t n = hc_numel(y);
    if (a->rank == b->rank && memcmp(a->sizes, b->sizes, a->rank * sizeof(int64_t)) == 0) {
        for (int64_t i = 0; i < n; i++)
            ys[i] = op == OP_ADD ? as[i] + al * bs[i] : as[i] * bs[i];
    } else {
        int64_t sa[HC_MAX_RANK], sb[HC_MAX_RANK];
        broadcast_strides(a, r, osz, sa);
        broadcast_strides(b, r, osz, sb);
        for (int64_t o = 0; o < n; o++) {
            int64_t rem = o, ia = 0, ib = 0;
            for (int d = (int)r - 1; d >= 0; d--) {
                int64_t idx = rem % osz[d];
                rem /= osz[d];
                ia += idx * sa[d];
                ib += idx * sb[d];
            }
            ys[o] = op == OP_ADD ? as[ia] + al * bs[ib] : as[ia] * bs[ib];
        }
    }
record:
    if (op == OP_ADD) {
        ox_arg args[3] = {ox_arg_tensor("self", a->vid), ox_arg_tensor("other", b->vid),
                          ox_arg_float("alpha", alpha)};
        hc_record(rt, inplace ? "aten::add_" : "aten::add", 3, args, 1, &y);
    } else {
        ox_arg args[2] = {ox_arg_tensor("self", a->vid), ox_arg_tensor("other", b->vid)};
        hc_record(rt, inplace ? "aten::mul_" : "aten::mul", 2, args, 1, &y);
    }
    return y;
}

hc_tensor *hc_add(hc_rt *rt, hc_tensor *a, hc_tensor *b, double alpha, int inplace)
{
    return binary(rt, a, b, OP_ADD, alpha, inplace);
}

hc_tensor *hc_mul(hc_rt *rt, hc_tensor *a, hc_tensor *b, int inplace)
{
    return binary(rt, a, b, OP_MUL, 1.0, inplace);
}
