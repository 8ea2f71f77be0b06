/*
 * DenseNet-121 as torchvision defines it (growth 32, blocks 6/12/24/16,
 * bn_size 4, 64 initial features, no dropout).
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>

enum { GROWTH = 32, BN_SIZE = 4, N_LAYERS_TOTAL = 58 };
static const int block_layers[4] = {6, 12, 24, 16};

typedef struct dense_layer {
    hc_bn norm1, norm2;
    hc_conv conv1, conv2;
} dense_layer;

typedef struct transition {
    hc_bn norm;
    hc_conv conv;
} transition;

typedef struct densenet {
    hc_conv conv0;
    hc_bn norm0;
    dense_layer layer[N_LAYERS_TOTAL];
    transition trans[3];
    hc_bn norm5;
    hc_fc classifier;
} densenet;

static int build(hc_model *m)
{
    densenet *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    m->state = d;
    char p[128];
    hc_conv_make(m, &d->conv0, "features.conv0", hc_conv_sq(3, 64, 7, 2, 3, 0));
    hc_bn_make(m, &d->norm0, "features.norm0", 64, 1e-5);
    int64_t nf = 64;
    int nl = 0;
    for (int b = 0; b < 4; b++) {
        for (int i = 0; i < block_layers[b]; i++) {
            dense_layer *L = &d->layer[nl++];
            int64_t in = nf + i * GROWTH;
            snprintf(p, sizeof p, "features.denseblock%d.denselayer%d.norm1", b + 1, i + 1);
            hc_bn_make(m, &L->norm1, p, in, 1e-5);
            snprintf(p, sizeof p, "features.denseblock%d.denselayer%d.conv1", b + 1, i + 1);
            hc_conv_make(m, &L->conv1, p, hc_conv_sq(in, BN_SIZE * GROWTH, 1, 1, 0, 0));
            snprintf(p, sizeof p, "features.denseblock%d.denselayer%d.norm2", b + 1, i + 1);
            hc_bn_make(m, &L->norm2, p, BN_SIZE * GROWTH, 1e-5);
            snprintf(p, sizeof p, "features.denseblock%d.denselayer%d.conv2", b + 1, i + 1);
            hc_conv_make(m, &L->conv2, p, hc_conv_sq(BN_SIZE * GROWTH, GROWTH, 3, 1, 1, 0));
        }
        nf += block_layers[b] * GROWTH;
        if (b < 3) {
            snprintf(p, sizeof p, "features.transition%d.norm", b + 1);
            hc_bn_make(m, &d->trans[b].norm, p, nf, 1e-5);
            snprintf(p, sizeof p, "features.transition%d.conv", b + 1);
            hc_conv_make(m, &d->trans[b].conv, p, hc_conv_sq(nf, nf / 2, 1, 1, 0, 0));
            nf /= 2;
        }
    }
    hc_bn_make(m, &d->norm5, "features.norm5", nf, 1e-5);
    hc_fc_make(m, &d->classifier, "classifier", nf, 1000, 1);
    return 0;
}

static hc_tensor *dense_layer_fwd(hc_rt *rt, const dense_layer *L, hc_tensor *const *prev,
                                  size_t n)
{
    hc_tensor *x = hc_cat(rt, prev, n, 1);
    x = hc_bn_fwd(rt, &L->norm1, "norm1", x);
    x = hc_relu_mod(rt, "relu1", x, 1);
    x = hc_conv_fwd(rt, &L->conv1, "conv1", x);
    x = hc_bn_fwd(rt, &L->norm2, "norm2", x);
    x = hc_relu_mod(rt, "relu2", x, 1);
    return hc_conv_fwd(rt, &L->conv2, "conv2", x);
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const densenet *d = m->state;
    hc_scope_push(rt, "Sequential[features]");
    hc_tensor *x = hc_conv_fwd(rt, &d->conv0, "conv0", in[0]);
    x = hc_bn_fwd(rt, &d->norm0, "norm0", x);
    x = hc_relu_mod(rt, "relu0", x, 1);
    x = hc_maxpool_mod(rt, "pool0", x, 3, 2, 1, 0);
    int nl = 0;
    for (int b = 0; b < 4; b++) {
        hc_tensor *feats[32];
        size_t nfeat = 0;
        feats[nfeat++] = x;
        hc_scope_push(rt, "_DenseBlock[denseblock%d]", b + 1);
        for (int i = 0; i < block_layers[b]; i++) {
            hc_scope_push(rt, "_DenseLayer[denselayer%d]", i + 1);
            feats[nfeat] = dense_layer_fwd(rt, &d->layer[nl++], feats, nfeat);
            nfeat++;
            hc_scope_pop(rt);
        }
        x = hc_cat(rt, feats, nfeat, 1);
        hc_scope_pop(rt);
        if (b < 3) {
            hc_scope_push(rt, "_Transition[transition%d]", b + 1);
            x = hc_bn_fwd(rt, &d->trans[b].norm, "norm", x);
            x = hc_relu_mod(rt, "relu", x, 1);
            x = hc_conv_fwd(rt, &d->trans[b].conv, "conv", x);
            x = hc_avgpool_mod(rt, "pool", x, 2, 2, 0);
            hc_scope_pop(rt);
        }
    }
    x = hc_bn_fwd(rt, &d->norm5, "norm5", x);
    hc_scope_pop(rt);
    x = hc_relu(rt, x, 1); /* F.relu(features, inplace=True) */
    x = hc_adaptive_avg_pool2d(rt, x, 1, 1);
    x = hc_flatten(rt, x, 1, -1);
    x = hc_fc_fwd(rt, &d->classifier, "classifier", x);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_densenet121 = {
    .name = "densenet121",
    .trace_name = "DenseNet",
    .description = "torchvision DenseNet-121 (growth 32, blocks 6/12/24/16), 224x224 RGB",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 3, 224, 224}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
