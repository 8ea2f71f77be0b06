/* aten::roll -> per rolled dim, Concat(x[-k:], x[:-k]) (ONNX has no Roll).
 * Bounds counted from the end hold for any run-time size larger than the
 * shift, and for every size when |shift| <= 2 (a size of 1 or 2 it reaches
 * rolls by a multiple of itself, which the clamped slices give too).  Any
 * other shift is taken modulo the size at run time from opset 10 (Slice's
 * bounds are inputs there; with fixed sizes the computation folds away);
 * before 10 modulo the recorded size, with a warning under a dynamic axis. */
#include <stdbool.h>
#include <stdint.h>

#include "aten_family.h"
#include "aten_util.h"
#include "oxport/plugin_util.h"

/* torch.roll without dims rolls the flattened tensor: not exported. */
static int check_roll(ox_sym *g, const ox_api *api)
{
    const int64_t *dims = NULL;
    if (api->arg_ints(g, "dims", &dims) == 0)
        return api->limit(g, 0, "argument 'dims' is empty; rolling the flattened tensor is not "
                                "exported, give the dims to roll");
    return 0;
}

/* x rolled by k along d with the cut computed at run time: x[c:] then x[:c]
 * along d, c = (-k) mod n for the size n of d (Mod follows the divisor's sign,
 * so c is in [0, n); an empty dim divides by 1 instead). */
static ox_vid roll_at_run_time(ox_sym *g, const ox_api *api, ox_vid x, int64_t d, int64_t k)
{
    ox_vid n = oxu_slice(g, api, oxu_shape(g, api, x), 0, d, d + 1, 1);
    ox_vid empty = oxu_cast(g, api, at_op2(g, api, "Equal", n, oxu_const_int(g, api, 0)), OX_INT64);
    int64_t neg = -k;
    ox_vid cut = at_op2(g, api, "Mod", oxu_const_ints(g, api, &neg, 1), at_op2(g, api, "Add", n, empty));
    int64_t zero = 0, end = INT64_MAX;
    ox_vid axes = oxu_const_ints(g, api, &d, 1);
    ox_vid head[4] = {x, cut, oxu_const_ints(g, api, &end, 1), axes};
    ox_vid tail[4] = {x, oxu_const_ints(g, api, &zero, 1), cut, axes};
    ox_vid parts[2] = {oxu_opn(g, api, "Slice", 4, head), oxu_opn(g, api, "Slice", 4, tail)};
    return at_concat(g, api, parts, 2, d);
}

static int sym_roll(ox_sym *g, const ox_api *api)
{
    ox_vid self = api->arg_tensor(g, "self"), x = self;
    const int64_t *shifts = NULL, *dims = NULL;
    size_t ns = api->arg_ints(g, "shifts", &shifts);
    size_t nd = api->arg_ints(g, "dims", &dims);
    int rank = api->rank(g, x);
    if (ns != nd)
        return api->fail(g, "argument 'shifts' has %zu values but 'dims' has %zu", ns, nd);
    for (size_t i = 0; i < nd && x; i++) {
        int64_t d;
        if (at_axis(g, api, "dims", dims[i], rank, &d))
            return 1;
        int64_t s = api->size(g, self, (int)d);
        if (s < 0)
            return api->fail(g, "roll needs the size of dim %lld, which is unknown; record the "
                                "input's sizes",
                             (long long)d);
        int64_t k = shifts[i];
        /* A shift of at most 2 is two slices at -k, whatever the size;
         * another is taken modulo the size: the run-time one from opset 10,
         * before that the recorded one, which the file then holds
         * (fixed_size: the export warns under a dynamic axis).  Two slices
         * at -3 would leave a run-time size of 2 unrolled. */
        bool modulo = k > 2 || k < -2;
        if (modulo && api->opset(g) >= 10) {
            x = roll_at_run_time(g, api, x, d, k);
            continue;
        }
        if (modulo) {
            s = oxu_fixed_size(g, api, self, (int)d);
            k = s ? ((k % s) + s) % s : 0;
        }
        if (k == 0)
            continue;
        /* x[-k:] then x[:-k]; for a negative k that is x[|k|:] then x[:|k|] */
        int64_t cut = -k;
        ox_vid parts[2] = {at_slice(g, api, x, d, cut, INT64_MAX, 1),
                           at_slice(g, api, x, d, 0, cut, 1)};
        x = at_concat(g, api, parts, 2, d);
    }
    return oxu_set_result(g, api, 0, x);
}

static const ox_param_decl p_roll[] = {OX_PARAM("self", OX_ARG_TENSOR), OX_PARAM("shifts", OX_ARG_INTS),
                                       OX_PARAM_EMPTY_INTS("dims")};

const ox_op_decl at_ops_roll[] = {
    OX_OP_EX("aten::roll", 7, p_roll, 1, sym_roll, 0, check_roll),
};
AT_FAMILY_SIZE(at_ops_roll);
