/*
 * Embedding lookup: rows of the weight matrix gathered by int64 indices.
 */
#include "ops.h"

#include <string.h>

hc_tensor *hc_embedding(hc_rt *rt, hc_tensor *weight, hc_tensor *indices)
{
    if (!weight || !indices || indices->rank >= HC_MAX_RANK)
        return NULL;
    int64_t v = weight->sizes[0], d = weight->sizes[1];
    int64_t osz[HC_MAX_RANK];
    for (uint32_t i = 0; i < indices->rank; i++)
        osz[i] = indices->sizes[i];
    osz[indices->rank] = d;
    hc_tensor *y = hc_new(rt, weight->dtype, indices->rank + 1, osz);
    if (!y)
        return NULL;
    int64_t n = rt->shape_only ? 0 : hc_numel(indices);
    for (int64_t i = 0; i < n; i++) {
        int64_t ix = hc_i64(indices)[i];
        if (ix < 0 || ix >= v) {
            hc_fail(rt, OX_EINVAL, "embedding: index out of range");
            return NULL;
        }
        memcpy(hc_f32(y) + i * d, hc_f32(weight) + ix * d, (size_t)d * sizeof(float));
    }
    ox_arg args[5] = {
        ox_arg_tensor("weight", weight->vid), ox_arg_tensor("indices", indices->vid),
        ox_arg_int("padding_idx", -1), ox_arg_bool("scale_grad_by_freq", 0),
        ox_arg_bool("sparse", 0),
    };
    hc_record(rt, "aten::embedding", 5, args, 1, &y);
    return y;
}
