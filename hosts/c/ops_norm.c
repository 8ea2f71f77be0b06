/*
 * Batch normalization in inference mode: the running statistics are
 * parameters (buffers), recorded as such, never recomputed.
 */
#include "ops.h"

#include <math.h>

hc_tensor *hc_batch_norm(hc_rt *rt, hc_tensor *x, hc_tensor *w, hc_tensor *b, hc_tensor *mean,
                         hc_tensor *var, double momentum, double eps)
{
    if (!x)
        return NULL;
    hc_tensor *y = hc_new(rt, OX_FLOAT, x->rank, x->sizes);
    if (!y)
        return NULL;
    int64_t n = x->sizes[0], c = x->sizes[1], inner = 1;
    for (uint32_t i = 2; i < x->rank; i++)
        inner *= x->sizes[i];
    const float *xs = hc_f32(x);
    float *ys = hc_f32(y);
    for (int64_t ci = 0; ci < c; ci++) {
        double m = mean ? hc_f32(mean)[ci] : 0.0, v = var ? hc_f32(var)[ci] : 1.0;
        double g = w ? hc_f32(w)[ci] : 1.0, be = b ? hc_f32(b)[ci] : 0.0;
        float scale = (float)(g / sqrt(v + eps));
        float shift = (float)(be - m * g / sqrt(v + eps));
        for (int64_t i = 0; i < n; i++) {
            const float *p = xs + (i * c + ci) * inner;
            float *q = ys + (i * c + ci) * inner;
            for (int64_t k = 0; k < inner; k++)
                q[k] = p[k] * scale + shift;
        }
    }
    ox_arg args[9] = {
        ox_arg_tensor("input", x->vid),
        w ? ox_arg_tensor("weight", w->vid) : ox_arg_none("weight"),
        b ? ox_arg_tensor("bias", b->vid) : ox_arg_none("bias"),
        mean ? ox_arg_tensor("running_mean", mean->vid) : ox_arg_none("running_mean"),
        var ? ox_arg_tensor("running_var", var->vid) : ox_arg_none("running_var"),
        ox_arg_bool("training", 0),
        ox_arg_float("momentum", momentum),
        ox_arg_float("eps", eps),
        ox_arg_bool("cudnn_enabled", 1),
    };
    hc_record(rt, "aten::batch_norm", 9, args, 1, &y);
    return y;
}
