/*
 * Inception v3 as torchvision defines it, in eval mode without the auxiliary
 * classifier (aux_logits=False), transform_input=False, 299x299 input.
 */
#include "zoo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BasicConv2d: conv (no bias) + BatchNorm(eps 0.001) + F.relu(inplace). */
typedef struct basic_conv {
    const char *attr;
    hc_conv conv;
    hc_bn bn;
} basic_conv;

enum { MAX_BRANCH_CONVS = 10 };

typedef enum { KIND_A, KIND_B, KIND_C, KIND_D, KIND_E } block_kind;

typedef struct block {
    block_kind kind;
    const char *attr;
    basic_conv c[MAX_BRANCH_CONVS];
    int n;
} block;

typedef struct inception {
    basic_conv stem[5];
    block mixed[11];
    hc_fc fc;
} inception;

static void basic_make(hc_model *m, basic_conv *b, const char *prefix, const char *attr,
                       int64_t in, int64_t out, int64_t kh, int64_t kw, int64_t stride,
                       int64_t ph, int64_t pw)
{
    char p[128];
    b->attr = attr;
    hc_conv_spec s = {in, out, {kh, kw}, {stride, stride}, {ph, pw}, 0, 0};
    snprintf(p, sizeof p, "%s%s.conv", prefix, attr);
    hc_conv_make(m, &b->conv, p, s);
    snprintf(p, sizeof p, "%s%s.bn", prefix, attr);
    hc_bn_make(m, &b->bn, p, out, 0.001);
}

static hc_tensor *basic_fwd(hc_rt *rt, const basic_conv *b, hc_tensor *x)
{
    hc_scope_push(rt, "BasicConv2d[%s]", b->attr);
    x = hc_conv_fwd(rt, &b->conv, "conv", x);
    x = hc_bn_fwd(rt, &b->bn, "bn", x);
    x = hc_relu(rt, x, 1);
    hc_scope_pop(rt);
    return x;
}

/* One conv spec inside a mixed block. */
typedef struct cspec {
    const char *attr;
    int64_t in, out, kh, kw, stride, ph, pw; /* in < 0: the block's input channels */
} cspec;

static void block_make(hc_model *m, block *b, block_kind kind, const char *attr, int64_t in,
                       int64_t param)
{
    b->kind = kind;
    b->attr = attr;
    cspec s[MAX_BRANCH_CONVS];
    int n = 0;
#define C(a, i, o, kh, kw, st, ph, pw) s[n++] = (cspec){a, i, o, kh, kw, st, ph, pw}
    switch (kind) {
    case KIND_A:
        C("branch1x1", -1, 64, 1, 1, 1, 0, 0);
        C("branch5x5_1", -1, 48, 1, 1, 1, 0, 0);
        C("branch5x5_2", 48, 64, 5, 5, 1, 2, 2);
        C("branch3x3dbl_1", -1, 64, 1, 1, 1, 0, 0);
        C("branch3x3dbl_2", 64, 96, 3, 3, 1, 1, 1);
        C("branch3x3dbl_3", 96, 96, 3, 3, 1, 1, 1);
        C("branch_pool", -1, param, 1, 1, 1, 0, 0);
        break;
    case KIND_B:
        C("branch3x3", -1, 384, 3, 3, 2, 0, 0);
        C("branch3x3dbl_1", -1, 64, 1, 1, 1, 0, 0);
        C("branch3x3dbl_2", 64, 96, 3, 3, 1, 1, 1);
        C("branch3x3dbl_3", 96, 96, 3, 3, 2, 0, 0);
        break;
    case KIND_C:
        C("branch1x1", -1, 192, 1, 1, 1, 0, 0);
        C("branch7x7_1", -1, param, 1, 1, 1, 0, 0);
        C("branch7x7_2", param, param, 1, 7, 1, 0, 3);
        C("branch7x7_3", param, 192, 7, 1, 1, 3, 0);
        C("branch7x7dbl_1", -1, param, 1, 1, 1, 0, 0);
        C("branch7x7dbl_2", param, param, 7, 1, 1, 3, 0);
        C("branch7x7dbl_3", param, param, 1, 7, 1, 0, 3);
        C("branch7x7dbl_4", param, param, 7, 1, 1, 3, 0);
        C("branch7x7dbl_5", param, 192, 1, 7, 1, 0, 3);
        C("branch_pool", -1, 192, 1, 1, 1, 0, 0);
        break;
    case KIND_D:
        C("branch3x3_1", -1, 192, 1, 1, 1, 0, 0);
        C("branch3x3_2", 192, 320, 3, 3, 2, 0, 0);
        C("branch7x7x3_1", -1, 192, 1, 1, 1, 0, 0);
        C("branch7x7x3_2", 192, 192, 1, 7, 1, 0, 3);
        C("branch7x7x3_3", 192, 192, 7, 1, 1, 3, 0);
        C("branch7x7x3_4", 192, 192, 3, 3, 2, 0, 0);
        break;
    case KIND_E:
        C("branch1x1", -1, 320, 1, 1, 1, 0, 0);
        C("branch3x3_1", -1, 384, 1, 1, 1, 0, 0);
        C("branch3x3_2a", 384, 384, 1, 3, 1, 0, 1);
        C("branch3x3_2b", 384, 384, 3, 1, 1, 1, 0);
        C("branch3x3dbl_1", -1, 448, 1, 1, 1, 0, 0);
        C("branch3x3dbl_2", 448, 384, 3, 3, 1, 1, 1);
        C("branch3x3dbl_3a", 384, 384, 1, 3, 1, 0, 1);
        C("branch3x3dbl_3b", 384, 384, 3, 1, 1, 1, 0);
        C("branch_pool", -1, 192, 1, 1, 1, 0, 0);
        break;
    }
#undef C
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", attr);
    for (int i = 0; i < n; i++)
        basic_make(m, &b->c[i], prefix, s[i].attr, s[i].in < 0 ? in : s[i].in, s[i].out,
                   s[i].kh, s[i].kw, s[i].stride, s[i].ph, s[i].pw);
    b->n = n;
}

static hc_tensor *chain(hc_rt *rt, const basic_conv *c, int n, hc_tensor *x)
{
    for (int i = 0; i < n; i++)
        x = basic_fwd(rt, &c[i], x);
    return x;
}

static hc_tensor *block_fwd(hc_rt *rt, const block *b, hc_tensor *x)
{
    const basic_conv *c = b->c;
    hc_tensor *o[4], *pair[2];
    size_t n = 0;
    switch (b->kind) {
    case KIND_A:
        o[n++] = chain(rt, c, 1, x);
        o[n++] = chain(rt, c + 1, 2, x);
        o[n++] = chain(rt, c + 3, 3, x);
        o[n++] = basic_fwd(rt, &c[6], hc_avg_pool_f(rt, x, 3, 1, 1));
        break;
    case KIND_B:
        o[n++] = chain(rt, c, 1, x);
        o[n++] = chain(rt, c + 1, 3, x);
        o[n++] = hc_max_pool_f(rt, x, 3, 2, 0);
        break;
    case KIND_C:
        o[n++] = chain(rt, c, 1, x);
        o[n++] = chain(rt, c + 1, 3, x);
        o[n++] = chain(rt, c + 4, 5, x);
        o[n++] = basic_fwd(rt, &c[9], hc_avg_pool_f(rt, x, 3, 1, 1));
        break;
    case KIND_D:
        o[n++] = chain(rt, c, 2, x);
        o[n++] = chain(rt, c + 2, 4, x);
        o[n++] = hc_max_pool_f(rt, x, 3, 2, 0);
        break;
    case KIND_E: {
        o[n++] = chain(rt, c, 1, x);
        hc_tensor *t = chain(rt, c + 1, 1, x);
        pair[0] = basic_fwd(rt, &c[2], t);
        pair[1] = basic_fwd(rt, &c[3], t);
        o[n++] = hc_cat(rt, pair, 2, 1);
        t = chain(rt, c + 4, 2, x);
        pair[0] = basic_fwd(rt, &c[6], t);
        pair[1] = basic_fwd(rt, &c[7], t);
        o[n++] = hc_cat(rt, pair, 2, 1);
        o[n++] = basic_fwd(rt, &c[8], hc_avg_pool_f(rt, x, 3, 1, 1));
        break;
    }
    }
    return hc_cat(rt, o, n, 1);
}

static const char *const mixed_attr[11] = {"Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a",
                                           "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e",
                                           "Mixed_7a", "Mixed_7b", "Mixed_7c"};
static const block_kind mixed_kind[11] = {KIND_A, KIND_A, KIND_A, KIND_B, KIND_C, KIND_C,
                                          KIND_C, KIND_C, KIND_D, KIND_E, KIND_E};
static const int64_t mixed_in[11] = {192, 256, 288, 288, 768, 768, 768, 768, 768, 1280, 2048};
static const int64_t mixed_param[11] = {32, 64, 64, 0, 128, 160, 160, 192, 0, 0, 0};

static const char *const class_name[5] = {"InceptionA", "InceptionB", "InceptionC",
                                          "InceptionD", "InceptionE"};

static int build(hc_model *m)
{
    inception *n = calloc(1, sizeof *n);
    if (!n)
        return -1;
    m->state = n;
    basic_make(m, &n->stem[0], "", "Conv2d_1a_3x3", 3, 32, 3, 3, 2, 0, 0);
    basic_make(m, &n->stem[1], "", "Conv2d_2a_3x3", 32, 32, 3, 3, 1, 0, 0);
    basic_make(m, &n->stem[2], "", "Conv2d_2b_3x3", 32, 64, 3, 3, 1, 1, 1);
    basic_make(m, &n->stem[3], "", "Conv2d_3b_1x1", 64, 80, 1, 1, 1, 0, 0);
    basic_make(m, &n->stem[4], "", "Conv2d_4a_3x3", 80, 192, 3, 3, 1, 0, 0);
    for (int i = 0; i < 11; i++)
        block_make(m, &n->mixed[i], mixed_kind[i], mixed_attr[i], mixed_in[i], mixed_param[i]);
    hc_fc_make(m, &n->fc, "fc", 2048, 1000, 1);
    return 0;
}

static int forward(const hc_model *m, hc_rt *rt, hc_tensor *const *in, hc_tensor **out)
{
    const inception *n = m->state;
    hc_tensor *x = chain(rt, n->stem, 3, in[0]);
    x = hc_maxpool_mod(rt, "maxpool1", x, 3, 2, 0, 0);
    x = chain(rt, n->stem + 3, 2, x);
    x = hc_maxpool_mod(rt, "maxpool2", x, 3, 2, 0, 0);
    for (int i = 0; i < 11; i++) {
        hc_scope_push(rt, "%s[%s]", class_name[n->mixed[i].kind], n->mixed[i].attr);
        x = block_fwd(rt, &n->mixed[i], x);
        hc_scope_pop(rt);
    }
    x = hc_adaptive_avgpool_mod(rt, "avgpool", x, 1, 1);
    x = hc_dropout_mod(rt, "dropout", x, 0.5);
    x = hc_flatten(rt, x, 1, -1);
    x = hc_fc_fwd(rt, &n->fc, "fc", x);
    out[0] = x;
    return x ? 0 : -1;
}

const hc_zoo_model hc_zoo_inception_v3 = {
    .name = "inception_v3",
    .trace_name = "Inception3",
    .description = "torchvision Inception v3 (eval, no aux logits), 299x299 RGB",
    .n_inputs = 1,
    .inputs = {{OX_FLOAT, 4, {1, 3, 299, 299}, 0, 0}},
    .n_outputs = 1,
    .build = build,
    .forward = forward,
};
