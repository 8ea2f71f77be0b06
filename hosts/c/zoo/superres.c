/*
 * The sub-pixel super-resolution CNN from the PyTorch examples
 * (upscale factor 3, 1x224x224 luminance input -> 1x672x672).
 *
 * One deliberate difference: conv1's padding of 2 is applied by an explicit
 * F.pad (recorded as the Function-class op fn::ConstantPadNd, as PyTorch
 * 0.3-era traces did) followed by an unpadded conv1.  The numbers are
 * identical; the trace exercises the nn_functions symbolic pack.
 */
#include "zoo.h"

#include <stdlib.h>

enum { UPSCALE = 3 };

typedef struct superres {
    hc_conv conv1, conv2, conv3, conv4;
} superres;

static int build(hc_model *m)
{
    superres *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    m->state = s;
    hc_conv_make(m, &s->conv1, "conv1", hc_conv_sq(1, 64, 5, 1, 0, 1));
    hc_conv_make(m, &s->conv2, "conv2", hc_conv_sq(64, 64, 3, 1, 1, 1));
    hc_conv_make(m, &s->conv3, "conv3", hc_conv_sq(64, 32, 3, 1, 1, 1));
    hc_conv_make(m, &s->conv4, "conv4", hc_conv_sq(32, UPSCALE * UPSCALE, 3, 1, 1, 1));
    return 0;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const superres *s = m->state;
    const int64_t pad[4] = {2, 2, 2, 2};
    hc_tensor *x = hc_constant_pad(rt, in[0], pad, 4, 0.0, 1);
    x = hc_relu_mod(rt, "relu", hc_conv_fwd(rt, &s->conv1, "conv1", x), 0);
    x = hc_relu_mod(rt, "relu", hc_conv_fwd(rt, &s->conv2, "conv2", x), 0);
    x = hc_relu_mod(rt, "relu", hc_conv_fwd(rt, &s->conv3, "conv3", x), 0);
    x = hc_conv_fwd(rt, &s->conv4, "conv4", x);
    hc_scope_push(rt, "PixelShuffle[pixel_shuffle]");
    x = hc_pixel_shuffle(rt, x, UPSCALE);
    hc_scope_pop(rt);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_superresolution = {
    .name = "superresolution",
    .trace_name = "SuperResolutionNet",
    .description = "sub-pixel CNN super-resolution (PyTorch example), 1x224x224 -> 1x672x672",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 1, 224, 224}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
