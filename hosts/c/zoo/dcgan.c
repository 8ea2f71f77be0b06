/*
 * DCGAN generator and discriminator from the PyTorch examples
 * (nz=100, ngf=ndf=64, nc=3, 64x64 images).
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>

enum { NZ = 100, NGF = 64, NDF = 64, NC = 3 };

typedef struct gan {
    hc_conv conv[5];
    hc_bn bn[4];
} gan;

static int build_generator(hc_model *m)
{
    gan *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    m->state = g;
    const int64_t ch[6] = {NZ, NGF * 8, NGF * 4, NGF * 2, NGF, NC};
    char p[64];
    for (int i = 0; i < 5; i++) {
        hc_conv_spec s = {ch[i], ch[i + 1], {4, 4}, {i == 0 ? 1 : 2, i == 0 ? 1 : 2},
                          {i == 0 ? 0 : 1, i == 0 ? 0 : 1}, 0, 1};
        snprintf(p, sizeof p, "main.%d", 3 * i);
        hc_conv_make(m, &g->conv[i], p, s);
        if (i < 4) {
            snprintf(p, sizeof p, "main.%d", 3 * i + 1);
            hc_bn_make(m, &g->bn[i], p, ch[i + 1], 1e-5);
        }
    }
    return 0;
}

static int forward_generator(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const gan *g = m->state;
    hc_tensor *x = in[0];
    char a[16];
    hc_scope_push(rt, "Sequential[main]");
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "%d", 3 * i);
        x = hc_conv_fwd(rt, &g->conv[i], a, x);
        if (i < 4) {
            snprintf(a, sizeof a, "%d", 3 * i + 1);
            x = hc_bn_fwd(rt, &g->bn[i], a, x);
            snprintf(a, sizeof a, "%d", 3 * i + 2);
            x = hc_relu_mod(rt, a, x, 1);
        }
    }
    x = hc_tanh_mod(rt, "13", x);
    hc_scope_pop(rt);
    out[0] = x;
    return x ? 0 : -1;
}

/* Discriminator layout: conv0 lrelu1 | conv2 bn3 lrelu4 | conv5 bn6 lrelu7 |
 * conv8 bn9 lrelu10 | conv11 sigmoid12. */
static int build_discriminator(hc_model *m)
{
    gan *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    m->state = d;
    const int64_t ch[6] = {NC, NDF, NDF * 2, NDF * 4, NDF * 8, 1};
    const int conv_at[5] = {0, 2, 5, 8, 11};
    char p[64];
    for (int i = 0; i < 5; i++) {
        hc_conv_spec s = {ch[i], ch[i + 1], {4, 4}, {i == 4 ? 1 : 2, i == 4 ? 1 : 2},
                          {i == 4 ? 0 : 1, i == 4 ? 0 : 1}, 0, 0};
        snprintf(p, sizeof p, "main.%d", conv_at[i]);
        hc_conv_make(m, &d->conv[i], p, s);
        if (i >= 1 && i <= 3) {
            snprintf(p, sizeof p, "main.%d", conv_at[i] + 1);
            hc_bn_make(m, &d->bn[i - 1], p, ch[i + 1], 1e-5);
        }
    }
    return 0;
}

static int forward_discriminator(const hc_model *m, hc_rt *rt, hc_tensor *const *in,
                                 hc_tensor **out)
{
    const gan *d = m->state;
    const int conv_at[5] = {0, 2, 5, 8, 11};
    hc_tensor *x = in[0];
    char a[16];
    hc_scope_push(rt, "Sequential[main]");
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "%d", conv_at[i]);
        x = hc_conv_fwd(rt, &d->conv[i], a, x);
        if (i == 4)
            break;
        int next = conv_at[i] + 1;
        if (i >= 1) {
            snprintf(a, sizeof a, "%d", next++);
            x = hc_bn_fwd(rt, &d->bn[i - 1], a, x);
        }
        snprintf(a, sizeof a, "%d", next);
        x = hc_leaky_relu_mod(rt, a, x, 0.2, 1);
    }
    x = hc_sigmoid_mod(rt, "12", x);
    hc_scope_pop(rt);
    /* output.view(-1, 1).squeeze(1) */
    const int64_t shape[2] = {-1, 1};
    x = hc_view(rt, x, shape, 2);
    x = hc_squeeze(rt, x, 1);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_dcgan_generator = {
    .name = "dcgan_generator",
    .trace_name = "Generator",
    .description = "DCGAN generator (PyTorch examples): z[100] -> 3x64x64",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, NZ, 1, 1}, 0, 0}},
    .n_outputs = 1,
    .build = build_generator,
    .forward = forward_generator,
};

const hc_zoo_model hc_zoo_dcgan_discriminator = {
    .name = "dcgan_discriminator",
    .trace_name = "Discriminator",
    .description = "DCGAN discriminator (PyTorch examples): 3x64x64 -> probability",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, NC, 64, 64}, 0, 0}},
    .n_outputs = 1,
    .build = build_discriminator,
    .forward = forward_discriminator,
};
