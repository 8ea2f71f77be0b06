/*
 * VGG-16 (configuration "D") as torchvision defines it.
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>

#define POOL (-1)
static const int cfg_d[] = {64,  64,  POOL, 128, 128, POOL, 256, 256, 256, POOL,
                            512, 512, 512,  POOL, 512, 512, 512, POOL};
#define N_CFG ((int)(sizeof cfg_d / sizeof cfg_d[0]))

typedef struct vgg {
    hc_conv conv[13];
    hc_fc fc[3];
} vgg;

static int build(hc_model *m)
{
    vgg *v = calloc(1, sizeof *v);
    if (!v)
        return -1;
    m->state = v;
    char prefix[64];
    int64_t in = 3;
    int idx = 0, nc = 0;
    for (int i = 0; i < N_CFG; i++) {
        if (cfg_d[i] == POOL) {
            idx += 1;
            continue;
        }
        snprintf(prefix, sizeof prefix, "features.%d", idx);
        hc_conv_make(m, &v->conv[nc++], prefix, hc_conv_sq(in, cfg_d[i], 3, 1, 1, 1));
        in = cfg_d[i];
        idx += 2; /* conv, relu */
    }
    const int64_t dims[4] = {512 * 7 * 7, 4096, 4096, 1000};
    const int fc_index[3] = {0, 3, 6};
    for (int i = 0; i < 3; i++) {
        snprintf(prefix, sizeof prefix, "classifier.%d", fc_index[i]);
        hc_fc_make(m, &v->fc[i], prefix, dims[i], dims[i + 1], 1);
    }
    return 0;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const vgg *v = m->state;
    hc_tensor *x = in[0];
    char attr[16];
    int idx = 0, nc = 0;
    hc_scope_push(rt, "Sequential[features]");
    for (int i = 0; i < N_CFG; i++) {
        snprintf(attr, sizeof attr, "%d", idx++);
        if (cfg_d[i] == POOL) {
            x = hc_maxpool_mod(rt, attr, x, 2, 2, 0, 0);
            continue;
        }
        x = hc_conv_fwd(rt, &v->conv[nc++], attr, x);
        snprintf(attr, sizeof attr, "%d", idx++);
        x = hc_relu_mod(rt, attr, x, 1);
    }
    hc_scope_pop(rt);
    x = hc_adaptive_avgpool_mod(rt, "avgpool", x, 7, 7);
    x = hc_flatten(rt, x, 1, -1);
    hc_scope_push(rt, "Sequential[classifier]");
    x = hc_fc_fwd(rt, &v->fc[0], "0", x);
    x = hc_relu_mod(rt, "1", x, 1);
    x = hc_dropout_mod(rt, "2", x, 0.5);
    x = hc_fc_fwd(rt, &v->fc[1], "3", x);
    x = hc_relu_mod(rt, "4", x, 1);
    x = hc_dropout_mod(rt, "5", x, 0.5);
    x = hc_fc_fwd(rt, &v->fc[2], "6", x);
    hc_scope_pop(rt);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_vgg16 = {
    .name = "vgg16",
    .trace_name = "VGG",
    .description = "torchvision VGG-16 (config D, no batch norm), 224x224 RGB",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 3, 224, 224}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
