/* Convolutions: aten::conv1d/2d/3d, aten::convolution, aten::conv_transpose2d
 * -> Conv / ConvTranspose. */
#include <string.h>

#include "aten_symbolics.h"
#include "aten_util.h"

/* Explicit ONNX pads (all begins, then all ends) from torch's padding
 * argument, which is an int list or the strings "same" / "valid". */
static int conv_pads(ox_sym *g, const ox_api *api, size_t nsp, const int64_t *kernel,
                     const int64_t *dilation, int64_t *pads)
{
    if (api->arg_kind(g, "padding") == OX_ARG_STRING) {
        const char *mode = api->arg_string(g, "padding", "valid");
        if (strcmp(mode, "valid") == 0) {
            memset(pads, 0, 2 * nsp * sizeof *pads);
            return 0;
        }
        if (strcmp(mode, "same") != 0)
            return api->fail(g, "argument 'padding' is \"%s\"; expected \"same\", \"valid\" or "
                                "a list of ints",
                             mode);
        /* torch puts the odd extra element at the end. */
        for (size_t i = 0; i < nsp; i++) {
            int64_t total = dilation[i] * (kernel[i] - 1);
            pads[i] = total / 2;
            pads[nsp + i] = total - total / 2;
        }
        return 0;
    }
    int64_t p[AT_MAX_RANK];
    if (at_ints_n(g, api, "padding", nsp, 0, p))
        return 1;
    for (size_t i = 0; i < nsp; i++)
        pads[i] = pads[nsp + i] = p[i];
    return 0;
}

static int lower_conv(ox_sym *g, const ox_api *api, int transposed)
{
    ox_vid x = api->arg_tensor(g, "input");
    ox_vid w = api->arg_tensor(g, "weight");
    ox_vid b = api->arg_tensor(g, "bias");
    int wrank = api->rank(g, w);
    if (wrank < 3 || wrank > 5)
        return api->fail(g, "the weight must have rank 3 to 5 with known sizes (got rank %d)",
                         wrank);
    size_t nsp = (size_t)wrank - 2;
    int64_t kernel[AT_MAX_RANK], stride[AT_MAX_RANK], dilation[AT_MAX_RANK],
        pads[2 * AT_MAX_RANK], outpad[AT_MAX_RANK];
    for (size_t i = 0; i < nsp; i++) {
        kernel[i] = api->size(g, w, (int)i + 2);
        if (kernel[i] < 0)
            return api->fail(g, "the weight's kernel size along axis %zu is unknown; record the "
                                "weight's sizes",
                             i + 2);
    }
    if (at_ints_n(g, api, "stride", nsp, 1, stride) ||
        at_ints_n(g, api, "dilation", nsp, 1, dilation) ||
        conv_pads(g, api, nsp, kernel, dilation, pads))
        return 1;
    if (transposed && at_ints_n(g, api, "output_padding", nsp, 0, outpad))
        return 1;

    ox_vid in[3] = {x, w, b};
    const char *type = transposed ? "ConvTranspose" : "Conv";
    ox_onode *n = api->op(g, type, b ? 3 : 2, in, 1);
    if (n) {
        api->attr_ints(n, "kernel_shape", kernel, nsp);
        api->attr_ints(n, "strides", stride, nsp);
        api->attr_ints(n, "pads", pads, 2 * nsp);
        api->attr_ints(n, "dilations", dilation, nsp);
        api->attr_int(n, "group", api->arg_int(g, "groups", 1));
        if (transposed) {
            int any = 0;
            for (size_t i = 0; i < nsp; i++)
                any |= outpad[i] != 0;
            if (any)
                api->attr_ints(n, "output_padding", outpad, nsp);
        }
    }
    ox_vid y = at_out(g, api, n, type);
    return y ? api->set_output(g, 0, y) : 1;
}

int at_sym_conv(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, 0);
}

int at_sym_convolution(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, api->arg_int(g, "transposed", 0) != 0);
}

int at_sym_conv_transpose2d(ox_sym *g, const ox_api *api)
{
    return lower_conv(g, api, 1);
}
