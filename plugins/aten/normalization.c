/* aten::batch_norm (inference) -> BatchNormalization. */
#include <stdlib.h>

#include "aten_symbolics.h"
#include "aten_util.h"

/* A 1-D constant of `c` copies of v, typed like the input (float or double). */
static ox_vid filled(ox_sym *g, const ox_api *api, ox_dtype dt, int64_t c, double v)
{
    size_t n = (size_t)c;
    ox_vid out = 0;
    if (dt == OX_DOUBLE) {
        double *d = malloc(n * sizeof *d);
        if (d) {
            for (size_t i = 0; i < n; i++)
                d[i] = v;
            out = api->constant(g, OX_DOUBLE, 1, &c, d);
        }
        free(d);
    } else {
        float *f = malloc(n * sizeof *f);
        if (f) {
            for (size_t i = 0; i < n; i++)
                f[i] = (float)v;
            out = api->constant(g, OX_FLOAT, 1, &c, f);
        }
        free(f);
    }
    if (!out)
        api->fail(g, "could not create a %lld-element constant", (long long)c);
    return out;
}

int at_sym_batch_norm(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid scale = api->arg_tensor(g, "weight");
    ox_vid bias = api->arg_tensor(g, "bias");
    ox_vid mean = api->arg_tensor(g, "running_mean");
    ox_vid var = api->arg_tensor(g, "running_var");
    if (api->arg_int(g, "training", 0))
        return api->fail(g, "batch_norm in training mode is not exported; put the model in "
                            "eval mode (training=False)");
    if (!mean || !var)
        return api->fail(g, "batch_norm without running_mean/running_var (track_running_stats="
                            "False) normalises with batch statistics, which BatchNormalization "
                            "in inference mode does not do");
    if (!scale || !bias) {
        int64_t c = api->size(g, x, 1);
        if (c < 0)
            c = api->size(g, mean, 0);
        if (c < 0)
            return api->fail(g, "batch_norm without weight/bias needs the channel count, but "
                                "the input's dim 1 is unknown");
        ox_dtype dt = api->dtype(g, x);
        if (!scale && !(scale = filled(g, api, dt, c, 1.0)))
            return 1;
        if (!bias && !(bias = filled(g, api, dt, c, 0.0)))
            return 1;
    }
    ox_vid in[5] = {x, scale, bias, mean, var};
    ox_onode *n = api->op(g, "BatchNormalization", 5, in, 1);
    if (n) {
        api->attr_float(n, "epsilon", api->arg_float(g, "eps", 1e-5));
        /* ONNX weighs the running value by momentum; torch weighs the batch's. */
        api->attr_float(n, "momentum", 1.0 - api->arg_float(g, "momentum", 0.1));
    }
    ox_vid y = at_out(g, api, n, "BatchNormalization");
    return y ? api->set_output(g, 0, y) : 1;
}
