/*
 * ResNet-50 as torchvision defines it (Bottleneck v1.5: stride on the 3x3).
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct bottleneck {
    hc_conv conv1, conv2, conv3;
    hc_bn bn1, bn2, bn3;
    int has_downsample;
    hc_conv ds_conv;
    hc_bn ds_bn;
} bottleneck;

static const int blocks_per_layer[4] = {3, 4, 6, 3};

typedef struct resnet {
    hc_conv conv1;
    hc_bn bn1;
    bottleneck block[16];
    hc_fc fc;
} resnet;

static int build(hc_model *m)
{
    resnet *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    m->state = r;
    hc_conv_make(m, &r->conv1, "conv1", hc_conv_sq(3, 64, 7, 2, 3, 0));
    hc_bn_make(m, &r->bn1, "bn1", 64, 1e-5);
    int64_t inplanes = 64;
    int nb = 0;
    char p[96];
    for (int l = 0; l < 4; l++) {
        int64_t planes = 64 << l, width = planes, outp = planes * 4;
        int64_t stride = l == 0 ? 1 : 2;
        for (int b = 0; b < blocks_per_layer[l]; b++) {
            bottleneck *bk = &r->block[nb++];
            int64_t s = b == 0 ? stride : 1;
            snprintf(p, sizeof p, "layer%d.%d.conv1", l + 1, b);
            hc_conv_make(m, &bk->conv1, p, hc_conv_sq(inplanes, width, 1, 1, 0, 0));
            snprintf(p, sizeof p, "layer%d.%d.bn1", l + 1, b);
            hc_bn_make(m, &bk->bn1, p, width, 1e-5);
            snprintf(p, sizeof p, "layer%d.%d.conv2", l + 1, b);
            hc_conv_make(m, &bk->conv2, p, hc_conv_sq(width, width, 3, s, 1, 0));
            snprintf(p, sizeof p, "layer%d.%d.bn2", l + 1, b);
            hc_bn_make(m, &bk->bn2, p, width, 1e-5);
            snprintf(p, sizeof p, "layer%d.%d.conv3", l + 1, b);
            hc_conv_make(m, &bk->conv3, p, hc_conv_sq(width, outp, 1, 1, 0, 0));
            snprintf(p, sizeof p, "layer%d.%d.bn3", l + 1, b);
            hc_bn_make_gamma(m, &bk->bn3, p, outp, 1e-5, 0.1f, 0.3f);
            if (b == 0) {
                bk->has_downsample = 1;
                snprintf(p, sizeof p, "layer%d.%d.downsample.0", l + 1, b);
                hc_conv_make(m, &bk->ds_conv, p, hc_conv_sq(inplanes, outp, 1, s, 0, 0));
                snprintf(p, sizeof p, "layer%d.%d.downsample.1", l + 1, b);
                hc_bn_make(m, &bk->ds_bn, p, outp, 1e-5);
            }
            inplanes = outp;
        }
    }
    hc_fc_make(m, &r->fc, "fc", 2048, 1000, 1);
    return 0;
}

static hc_tensor *bottleneck_fwd(hc_rt *rt, const bottleneck *bk, hc_tensor *x)
{
    hc_tensor *identity = x;
    hc_tensor *out = hc_conv_fwd(rt, &bk->conv1, "conv1", x);
    out = hc_bn_fwd(rt, &bk->bn1, "bn1", out);
    out = hc_relu_mod(rt, "relu", out, 1);
    out = hc_conv_fwd(rt, &bk->conv2, "conv2", out);
    out = hc_bn_fwd(rt, &bk->bn2, "bn2", out);
    out = hc_relu_mod(rt, "relu", out, 1);
    out = hc_conv_fwd(rt, &bk->conv3, "conv3", out);
    out = hc_bn_fwd(rt, &bk->bn3, "bn3", out);
    if (bk->has_downsample) {
        hc_scope_push(rt, "Sequential[downsample]");
        identity = hc_conv_fwd(rt, &bk->ds_conv, "0", x);
        identity = hc_bn_fwd(rt, &bk->ds_bn, "1", identity);
        hc_scope_pop(rt);
    }
    out = hc_add(rt, out, identity, 1.0, 1); /* out += identity */
    return hc_relu_mod(rt, "relu", out, 1);
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const resnet *r = m->state;
    hc_tensor *x = hc_conv_fwd(rt, &r->conv1, "conv1", in[0]);
    x = hc_bn_fwd(rt, &r->bn1, "bn1", x);
    x = hc_relu_mod(rt, "relu", x, 1);
    x = hc_maxpool_mod(rt, "maxpool", x, 3, 2, 1, 0);
    int nb = 0;
    for (int l = 0; l < 4; l++) {
        hc_scope_push(rt, "Sequential[layer%d]", l + 1);
        for (int b = 0; b < blocks_per_layer[l]; b++) {
            hc_scope_push(rt, "Bottleneck[%d]", b);
            x = bottleneck_fwd(rt, &r->block[nb++], x);
            hc_scope_pop(rt);
        }
        hc_scope_pop(rt);
    }
    x = hc_adaptive_avgpool_mod(rt, "avgpool", x, 1, 1);
    x = hc_flatten(rt, x, 1, -1);
    x = hc_fc_fwd(rt, &r->fc, "fc", x);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_resnet50 = {
    .name = "resnet50",
    .trace_name = "ResNet",
    .description = "torchvision ResNet-50 (Bottleneck [3, 4, 6, 3]), 224x224 RGB",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 3, 224, 224}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
