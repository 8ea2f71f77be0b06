/*
 * word_language_model from the PyTorch examples: Embedding -> 2-layer LSTM
 * -> Linear decoder -> log_softmax, with the hidden state as inputs and
 * outputs.  Vocabulary 10000 (not WikiText-2's 33278) to keep the zoo small;
 * emsize = nhid = 200, sequence length 35.
 */
#include "zoo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { NTOKEN = 10000, NINP = 200, NHID = 200, NLAYERS = 2, BPTT = 35 };

typedef struct word_lm {
    hc_tensor *encoder;
    hc_tensor *lstm[4 * NLAYERS];
    hc_fc decoder;
} word_lm;

static int build(hc_model *m)
{
    word_lm *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    m->state = w;
    /* init_weights(): encoder and decoder U(-0.1, 0.1), decoder bias 0;
     * LSTM weights PyTorch's default U(-1/sqrt(H), 1/sqrt(H)). */
    int64_t esz[2] = {NTOKEN, NINP};
    w->encoder = hc_param_uniform(m, 2, esz, -0.1f, 0.1f, "encoder.weight");
    float k = 1.0f / sqrtf((float)NHID);
    for (int l = 0; l < NLAYERS; l++) {
        int64_t in = l == 0 ? NINP : NHID;
        int64_t wih[2] = {4 * NHID, in}, whh[2] = {4 * NHID, NHID}, b[1] = {4 * NHID};
        w->lstm[4 * l] = hc_param_uniform(m, 2, wih, -k, k, "rnn.weight_ih_l%d", l);
        w->lstm[4 * l + 1] = hc_param_uniform(m, 2, whh, -k, k, "rnn.weight_hh_l%d", l);
        w->lstm[4 * l + 2] = hc_param_uniform(m, 1, b, -k, k, "rnn.bias_ih_l%d", l);
        w->lstm[4 * l + 3] = hc_param_uniform(m, 1, b, -k, k, "rnn.bias_hh_l%d", l);
    }
    int64_t dsz[2] = {NTOKEN, NHID}, dbz[1] = {NTOKEN};
    w->decoder.weight = hc_param_uniform(m, 2, dsz, -0.1f, 0.1f, "decoder.weight");
    w->decoder.bias = hc_param_uniform(m, 1, dbz, 0.0f, 0.0f, "decoder.bias");
    return 0;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const word_lm *w = m->state;
    hc_scope_push(rt, "Embedding[encoder]");
    hc_tensor *emb = hc_embedding(rt, w->encoder, in[0]);
    hc_scope_pop(rt);
    emb = hc_dropout_mod(rt, "drop", emb, 0.5);
    hc_tensor *output, *h_n, *c_n;
    hc_scope_push(rt, "LSTM[rnn]");
    hc_lstm(rt, emb, in[1], in[2], w->lstm, NLAYERS, 0.5, &output, &h_n, &c_n);
    hc_scope_pop(rt);
    output = hc_dropout_mod(rt, "drop", output, 0.5);
    hc_tensor *decoded = hc_fc_fwd(rt, &w->decoder, "decoder", output);
    const int64_t shape[2] = {-1, NTOKEN};
    decoded = hc_view(rt, decoded, shape, 2);
    out[0] = hc_log_softmax(rt, decoded, 1);
    out[1] = h_n;
    out[2] = c_n;
    return out[0] && h_n && c_n ? 0 : -1;
}

const hc_zoo_model hc_zoo_word_language_model = {
    .name = "word_language_model",
    .trace_name = "RNNModel",
    .description = "PyTorch example word LM: embedding 10000x200, 2-layer LSTM(200), decoder",
    .n_inputs = 3,
    .inputs = {
        {OX_INT64, 2, {BPTT, 1}, 1, NTOKEN},
        {OX_FLOAT, 3, {NLAYERS, 1, NHID}, 1, 0},
        {OX_FLOAT, 3, {NLAYERS, 1, NHID}, 1, 0},
    },
    .n_outputs = 3,
    .build = build,
    .forward = forward,
};
