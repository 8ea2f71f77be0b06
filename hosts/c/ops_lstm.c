/*
 * Multi-layer unidirectional LSTM (inference).  The input projection of a
 * whole layer is one GEMM over all time steps; the recurrence is one small
 * GEMM per step.
 */
#include "ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

static float sig(float v) { return 1.0f / (1.0f + expf(-v)); }

int hc_lstm(hc_rt *rt, hc_tensor *input, hc_tensor *h0, hc_tensor *c0, hc_tensor *const *params,
            int64_t num_layers, double dropout, hc_tensor **out, hc_tensor **h_n,
            hc_tensor **c_n)
{
    *out = *h_n = *c_n = NULL;
    if (!input || !h0 || !c0 || num_layers < 1 || num_layers > 64)
        return -1;
    for (int64_t i = 0; i < 4 * num_layers; i++)
        if (!params[i])
            return -1;
    int64_t seq = input->sizes[0], batch = input->sizes[1], hid = h0->sizes[2];
    int64_t osz[3] = {seq, batch, hid};
    hc_tensor *y = hc_new(rt, OX_FLOAT, 3, osz);
    hc_tensor *hn = hc_new(rt, OX_FLOAT, 3, h0->sizes);
    hc_tensor *cn = hc_new(rt, OX_FLOAT, 3, c0->sizes);
    float *gates = malloc((size_t)(seq * batch * 4 * hid) * sizeof *gates);
    float *layer_in = malloc((size_t)(seq * batch * hid) * sizeof *layer_in);
    if (!y || !hn || !cn || !gates || !layer_in) {
        free(gates);
        free(layer_in);
        hc_fail(rt, OX_ENOMEM, "lstm: out of memory");
        return -1;
    }
    const float *x = hc_f32(input);
    int64_t in = input->sizes[2];
    for (int64_t l = 0; l < num_layers; l++) {
        const float *wih = hc_f32(params[4 * l]), *whh = hc_f32(params[4 * l + 1]);
        const float *bih = hc_f32(params[4 * l + 2]), *bhh = hc_f32(params[4 * l + 3]);
        int64_t rows = seq * batch, g4 = 4 * hid;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t j = 0; j < g4; j++)
                gates[r * g4 + j] = bih[j] + bhh[j];
        hc_sgemm(0, 1, (size_t)rows, (size_t)g4, (size_t)in, 1.0f, x, (size_t)in, wih,
                 (size_t)in, 1.0f, gates, (size_t)g4);
        float *h = hc_f32(hn) + l * batch * hid, *c = hc_f32(cn) + l * batch * hid;
        memcpy(h, hc_f32(h0) + l * batch * hid, (size_t)(batch * hid) * sizeof *h);
        memcpy(c, hc_f32(c0) + l * batch * hid, (size_t)(batch * hid) * sizeof *c);
        float *ys = hc_f32(y);
        for (int64_t t = 0; t < seq; t++) {
            float *g = gates + t * batch * g4;
            hc_sgemm(0, 1, (size_t)batch, (size_t)g4, (size_t)hid, 1.0f, h, (size_t)hid, whh,
                     (size_t)hid, 1.0f, g, (size_t)g4);
            for (int64_t b = 0; b < batch; b++) {
                const float *gb = g + b * g4;
                for (int64_t k = 0; k < hid; k++) {
                    float ig = sig(gb[k]), fg = sig(gb[hid + k]);
                    float cg = tanhf(gb[2 * hid + k]), og = sig(gb[3 * hid + k]);
                    float cv = fg * c[b * hid + k] + ig * cg;
                    c[b * hid + k] = cv;
                    h[b * hid + k] = og * tanhf(cv);
                }
            }
            memcpy(ys + t * batch * hid, h, (size_t)(batch * hid) * sizeof *h);
        }
        /* The next layer reads this layer's output; copy it aside because y
         * is rewritten by that layer. */
        memcpy(layer_in, ys, (size_t)(seq * batch * hid) * sizeof *layer_in);
        x = layer_in;
        in = hid;
    }
    free(gates);
    free(layer_in);

    ox_vid hx[2] = {h0->vid, c0->vid};
    ox_vid pv[256];
    for (int64_t i = 0; i < 4 * num_layers; i++)
        pv[i] = params[i]->vid;
    ox_arg args[9] = {
        ox_arg_tensor("input", input->vid),
        ox_arg_tensors("hx", hx, 2),
        ox_arg_tensors("params", pv, (size_t)(4 * num_layers)),
        ox_arg_bool("has_biases", 1),
        ox_arg_int("num_layers", num_layers),
        ox_arg_float("dropout", dropout),
        ox_arg_bool("train", 0),
        ox_arg_bool("bidirectional", 0),
        ox_arg_bool("batch_first", 0),
    };
    hc_tensor *outs[3] = {y, hn, cn};
    hc_record(rt, "aten::lstm", 9, args, 3, outs);
    *out = y;
    *h_n = hn;
    *c_n = cn;
    return 0;
}
