/*
 * AlexNet as torchvision defines it (features / avgpool / classifier).
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct alexnet {
    hc_conv conv[5];
    hc_fc fc[3];
} alexnet;

static const int conv_index[5] = {0, 3, 6, 8, 10};
static const int fc_index[3] = {1, 4, 6};

static int build(hc_model *m)
{
    alexnet *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    m->state = a;
    const hc_conv_spec spec[5] = {
        hc_conv_sq(3, 64, 11, 4, 2, 1),    hc_conv_sq(64, 192, 5, 1, 2, 1),
        hc_conv_sq(192, 384, 3, 1, 1, 1),  hc_conv_sq(384, 256, 3, 1, 1, 1),
        hc_conv_sq(256, 256, 3, 1, 1, 1),
    };
    char prefix[64];
    for (int i = 0; i < 5; i++) {
        snprintf(prefix, sizeof prefix, "features.%d", conv_index[i]);
        hc_conv_make(m, &a->conv[i], prefix, spec[i]);
    }
    const int64_t dims[4] = {256 * 6 * 6, 4096, 4096, 1000};
    for (int i = 0; i < 3; i++) {
        snprintf(prefix, sizeof prefix, "classifier.%d", fc_index[i]);
        hc_fc_make(m, &a->fc[i], prefix, dims[i], dims[i + 1], 1);
    }
    return 0;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const alexnet *a = m->state;
    hc_tensor *x = in[0];
    hc_scope_push(rt, "Sequential[features]");
    x = hc_conv_fwd(rt, &a->conv[0], "0", x);
    x = hc_relu_mod(rt, "1", x, 1);
    x = hc_maxpool_mod(rt, "2", x, 3, 2, 0, 0);
    x = hc_conv_fwd(rt, &a->conv[1], "3", x);
    x = hc_relu_mod(rt, "4", x, 1);
    x = hc_maxpool_mod(rt, "5", x, 3, 2, 0, 0);
    x = hc_conv_fwd(rt, &a->conv[2], "6", x);
    x = hc_relu_mod(rt, "7", x, 1);
    x = hc_conv_fwd(rt, &a->conv[3], "8", x);
    x = hc_relu_mod(rt, "9", x, 1);
    x = hc_conv_fwd(rt, &a->conv[4], "10", x);
    x = hc_relu_mod(rt, "11", x, 1);
    x = hc_maxpool_mod(rt, "12", x, 3, 2, 0, 0);
    hc_scope_pop(rt);
    x = hc_adaptive_avgpool_mod(rt, "avgpool", x, 6, 6);
    x = hc_flatten(rt, x, 1, -1);
    hc_scope_push(rt, "Sequential[classifier]");
    x = hc_dropout_mod(rt, "0", x, 0.5);
    x = hc_fc_fwd(rt, &a->fc[0], "1", x);
    x = hc_relu_mod(rt, "2", x, 1);
    x = hc_dropout_mod(rt, "3", x, 0.5);
    x = hc_fc_fwd(rt, &a->fc[1], "4", x);
    x = hc_relu_mod(rt, "5", x, 1);
    x = hc_fc_fwd(rt, &a->fc[2], "6", x);
    hc_scope_pop(rt);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_alexnet = {
    .name = "alexnet",
    .trace_name = "AlexNet",
    .description = "torchvision AlexNet, 224x224 RGB",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 3, 224, 224}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
