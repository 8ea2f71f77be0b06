/*
 * The aten and nn_functions symbolic packs, end to end: small graphs traced
 * through the public tracer, converted at opsets 9, 13 and 17 with only the
 * build-tree packs loaded, written, checked with onnx.checker (full_check)
 * and run with ONNX Runtime against values computed here in C.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opset_yaml.h"
#include "oxport/oxport.h"
#include "plugin_load.h"
#include "symbolic_harness.h"

static const int opsets[] = {9, 13, 17};
#define N_OPSETS 3

/* Both build-tree packs. */
static ox_context *new_ctx(void)
{
    return sym_new_ctx(true);
}

static tb tb_begin(const char *model)
{
    return tb_open(new_ctx(), model);
}

/* ------------------------------------------------ export, check, run in ORT */

typedef struct want {
    int rank;
    const int64_t *dims;
    const float *data;
} want;

/* Convert at `opset`, write, onnx.checker, run in ORT, compare outputs. */
static void run_at(ox_context *ctx, const ox_graph *traced, int opset, size_t n_feeds,
                   const feed *feeds, size_t n_want, const want *wants)
{
    char dir[] = "/tmp/oxsym-XXXXXX", path[4200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sym_write_checked(ctx, traced, opset, dir);
    sym_run_ort(dir, opset, n_feeds, feeds);

    for (size_t o = 0; o < n_want; o++) {
        size_t n = 0;
        snprintf(path, sizeof path, "%s/out/output_%zu.bin", dir, o);
        float *got = read_file(path, &n);
        size_t expect_n = numel(wants[o].rank, wants[o].dims);
        ck_assert_msg(n == expect_n * sizeof(float), "opset %d output %zu: %zu bytes, want %zu",
                      opset, o, n, expect_n * sizeof(float));
        for (size_t i = 0; i < expect_n; i++) {
            float w = wants[o].data[i];
            ck_assert_msg(fabsf(got[i] - w) <= 1e-4f + 1e-4f * fabsf(w),
                          "opset %d output %zu[%zu]: got %.7g, want %.7g", opset, o, i,
                          (double)got[i], (double)w);
        }
        free(got);
    }
    rm_rf(dir);
}

static void run_all(ox_context *ctx, const ox_graph *traced, size_t n_feeds, const feed *feeds,
                    size_t n_want, const want *wants)
{
    for (int i = 0; i < N_OPSETS; i++)
        run_at(ctx, traced, opsets[i], n_feeds, feeds, n_want, wants);
}

/* Convenience for the common one-float-input, one-output case. */
static void run_simple(tb *b, ox_graph *g, int in_rank, const int64_t *in_dims, const float *x,
                       int out_rank, const int64_t *out_dims, const float *y)
{
    feed f = {"x", "float32", in_rank, in_dims, x, sizeof(float)};
    want w = {out_rank, out_dims, y};
    run_all(b->ctx, g, 1, &f, 1, &w);
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

/* ------------------------------------------------------ reference kernels */

typedef struct conv_geom {
    int n, c, h, w;       /* input */
    int o, kh, kw;        /* weight [o, c/groups, kh, kw] */
    int sh, sw, dh, dw, groups;
    int pt, pl, pb, pr;   /* pads: top, left, bottom, right */
} conv_geom;

static void conv_out_size(const conv_geom *cg, int *oh, int *ow)
{
    *oh = (cg->h + cg->pt + cg->pb - cg->dh * (cg->kh - 1) - 1) / cg->sh + 1;
    *ow = (cg->w + cg->pl + cg->pr - cg->dw * (cg->kw - 1) - 1) / cg->sw + 1;
}

static void conv_ref(const conv_geom *cg, const float *x, const float *w, const float *b,
                     float *y)
{
    int oh, ow, cpg = cg->c / cg->groups, opg = cg->o / cg->groups;
    conv_out_size(cg, &oh, &ow);
    for (int n = 0; n < cg->n; n++)
        for (int o = 0; o < cg->o; o++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    double acc = b ? b[o] : 0.0;
                    int grp = o / opg;
                    for (int c = 0; c < cpg; c++)
                        for (int ki = 0; ki < cg->kh; ki++)
                            for (int kj = 0; kj < cg->kw; kj++) {
                                int yi = i * cg->sh - cg->pt + ki * cg->dh;
                                int xj = j * cg->sw - cg->pl + kj * cg->dw;
                                if (yi < 0 || yi >= cg->h || xj < 0 || xj >= cg->w)
                                    continue;
                                int ci = grp * cpg + c;
                                acc += x[((n * cg->c + ci) * cg->h + yi) * cg->w + xj] *
                                       w[((o * cpg + c) * cg->kh + ki) * cg->kw + kj];
                            }
                    y[((n * cg->o + o) * oh + i) * ow + j] = (float)acc;
                }
}

static float sigm(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

/* gates[r] = W_ih[r] . x + b_ih[r] + W_hh[r] . h + b_hh[r] for rows r0..r0+H */
static float gate(const float *wih, const float *whh, const float *bih, const float *bhh,
                  int row, int in, int hid, const float *x, const float *h, int hh_only)
{
    double a = 0.0;
    if (hh_only != 1) {
        for (int k = 0; k < in; k++)
            a += wih[row * in + k] * x[k];
        a += bih ? bih[row] : 0.0f;
    }
    if (hh_only != 2) {
        for (int k = 0; k < hid; k++)
            a += whh[row * hid + k] * h[k];
        a += bhh ? bhh[row] : 0.0f;
    }
    return (float)a;
}

/* One LSTM layer over [seq, batch, in] with torch's gate order i, f, g, o. */
static void lstm_layer_ref(int seq, int batch, int in, int hid, const float *x, const float *wih,
                           const float *whh, const float *bih, const float *bhh, float *h,
                           float *c, float *y)
{
    float gates[4][64];
    for (int t = 0; t < seq; t++)
        for (int bt = 0; bt < batch; bt++) {
            const float *xt = x + ((size_t)t * batch + bt) * in;
            float *hb = h + bt * hid, *cb = c + bt * hid;
            for (int k = 0; k < 4; k++)
                for (int r = 0; r < hid; r++)
                    gates[k][r] = gate(wih, whh, bih, bhh, k * hid + r, in, hid, xt, hb, 0);
            for (int r = 0; r < hid; r++) {
                float ig = sigm(gates[0][r]), fg = sigm(gates[1][r]), gg = tanhf(gates[2][r]),
                      og = sigm(gates[3][r]);
                cb[r] = fg * cb[r] + ig * gg;
                hb[r] = og * tanhf(cb[r]);
                y[((size_t)t * batch + bt) * hid + r] = hb[r];
            }
        }
}

/* One GRU layer, torch's gate order r, z, n. */
static void gru_layer_ref(int seq, int batch, int in, int hid, const float *x, const float *wih,
                          const float *whh, const float *bih, const float *bhh, float *h,
                          float *y)
{
    float nh[64];
    for (int t = 0; t < seq; t++)
        for (int bt = 0; bt < batch; bt++) {
            const float *xt = x + ((size_t)t * batch + bt) * in;
            float *hb = h + bt * hid;
            for (int r = 0; r < hid; r++) {
                float rg = sigm(gate(wih, whh, bih, bhh, r, in, hid, xt, hb, 0));
                float zg = sigm(gate(wih, whh, bih, bhh, hid + r, in, hid, xt, hb, 0));
                float ni = gate(wih, whh, bih, bhh, 2 * hid + r, in, hid, xt, hb, 2);
                float nhh = gate(wih, whh, bih, bhh, 2 * hid + r, in, hid, xt, hb, 1);
                float n = tanhf(ni + rg * nhh);
                nh[r] = (1.0f - zg) * n + zg * hb[r];
            }
            for (int r = 0; r < hid; r++) {
                hb[r] = nh[r];
                y[((size_t)t * batch + bt) * hid + r] = nh[r];
            }
        }
}

/* ------------------------------------------------------------------ tests */

START_TEST(conv2d_explicit_padding_stride_groups)
{
    /* x [1,4,5,5], w [4,2,3,3] (groups 2), stride 2, padding 1, bias. */
    conv_geom cg = {1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 2, 1, 1, 1, 1};
    int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {4, 2, 3, 3}, bd[1] = {4};
    int oh, ow;
    conv_out_size(&cg, &oh, &ow);
    int64_t yd[4] = {1, 4, oh, ow};
    float *x = rnd_array(100, 1, 0.5f), *w = rnd_array(72, 2, 0.5f),
          *bias = rnd_array(4, 3, 0.5f);
    float y[64];
    conv_ref(&cg, x, w, bias, y);

    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_vid vw = tb_param(&b, "conv.weight", 4, wd, w);
    ox_vid vb = tb_param(&b, "conv.bias", 1, bd, bias);
    int64_t two[1] = {2}, one[1] = {1};
    ox_arg a[] = {ox_arg_tensor("input", vx), ox_arg_tensor("weight", vw),
                  ox_arg_tensor("bias", vb),  ox_arg_ints("stride", two, 1),
                  ox_arg_ints("padding", one, 1), ox_arg_ints("dilation", one, 1),
                  ox_arg_int("groups", 2)};
    ox_vid vy = tb_op(&b, "aten::conv2d", 7, a, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, yd, y);
    free(x);
    free(w);
    free(bias);
}
END_TEST

START_TEST(conv2d_padding_same_is_asymmetric_like_torch)
{
    /* kernel 2x2, dilation 1: torch pads 0 before and 1 after. */
    conv_geom cg = {1, 1, 3, 4, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0, 1, 1};
    int64_t xd[4] = {1, 1, 3, 4}, wd[4] = {2, 1, 2, 2}, yd[4] = {1, 2, 3, 4};
    float *x = rnd_array(12, 4, 0.5f), *w = rnd_array(8, 5, 0.5f);
    float y[24];
    conv_ref(&cg, x, w, NULL, y);

    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_vid vw = tb_param(&b, "conv.weight", 4, wd, w);
    ox_arg a[] = {ox_arg_tensor("input", vx), ox_arg_tensor("weight", vw), ox_arg_none("bias"),
                  ox_arg_string("padding", "same")};
    ox_vid vy = tb_op(&b, "aten::conv2d", 4, a, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, yd, y);
    free(x);
    free(w);
}
END_TEST

START_TEST(conv_transpose2d_output_padding)
{
    /* x [1,2,3,3], w [2,1,3,3], stride 2, padding 1, output_padding 1:
     * y [1,1,6,6].  Reference: scatter each input pixel. */
    int64_t xd[4] = {1, 2, 3, 3}, wd[4] = {2, 1, 3, 3}, yd[4] = {1, 1, 6, 6};
    float *x = rnd_array(18, 6, 0.5f), *w = rnd_array(18, 7, 0.5f);
    float y[36] = {0};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int ki = 0; ki < 3; ki++)
                    for (int kj = 0; kj < 3; kj++) {
                        int oi = i * 2 - 1 + ki, oj = j * 2 - 1 + kj;
                        if (oi >= 0 && oi < 6 && oj >= 0 && oj < 6)
                            y[oi * 6 + oj] += x[(c * 3 + i) * 3 + j] * w[(c * 3 + ki) * 3 + kj];
                    }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_vid vw = tb_param(&b, "deconv.weight", 4, wd, w);
    int64_t two[2] = {2, 2}, one[2] = {1, 1};
    ox_arg a[] = {ox_arg_tensor("input", vx),      ox_arg_tensor("weight", vw),
                  ox_arg_none("bias"),             ox_arg_ints("stride", two, 2),
                  ox_arg_ints("padding", one, 2),  ox_arg_ints("dilation", one, 2),
                  ox_arg_bool("transposed", 1),    ox_arg_ints("output_padding", one, 2),
                  ox_arg_int("groups", 1)};
    ox_vid vy = tb_op(&b, "aten::convolution", 9, a, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, yd, y);
    free(x);
    free(w);
}
END_TEST

START_TEST(max_pool2d_and_avg_pool2d)
{
    /* x [1,1,4,4] = 0..15.  max_pool k2 s2 -> [5,7,13,15]; then
     * avg_pool k2 s1 pad 1 count_include_pad=False on [1,1,2,2]. */
    int64_t xd[4] = {1, 1, 4, 4}, pd[4] = {1, 1, 2, 2}, yd[4] = {1, 1, 3, 3};
    float x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    float y[9] = {5, 6, 7, 9, 10, 11, 13, 14, 15};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    int64_t k2[2] = {2, 2}, one[1] = {1}, zero[2] = {0, 0};
    ox_arg m[] = {ox_arg_tensor("self", vx), ox_arg_ints("kernel_size", k2, 2),
                  ox_arg_ints("stride", NULL, 0), ox_arg_ints("padding", zero, 2),
                  ox_arg_ints("dilation", one, 1), ox_arg_bool("ceil_mode", 0)};
    ox_vid vp = tb_op(&b, "aten::max_pool2d", 6, m, 4, pd);
    ox_arg av[] = {ox_arg_tensor("self", vp), ox_arg_ints("kernel_size", k2, 2),
                   ox_arg_ints("stride", one, 1), ox_arg_ints("padding", one, 1),
                   ox_arg_bool("ceil_mode", 0), ox_arg_bool("count_include_pad", 0),
                   ox_arg_none("divisor_override")};
    ox_vid vy = tb_op(&b, "aten::avg_pool2d", 7, av, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, yd, y);
}
END_TEST

/* max_pool2d(k=2, ceil_mode) of a [1, 1, H, W] input with sizes xd (-1:
 * unknown). */
static ox_graph *ceil_pool_graph(tb *b, const int64_t *xd)
{
    int64_t yd[4] = {1, 1, 3, 3}, k2[1] = {2};
    ox_vid vx = tb_input(b, "x", OX_FLOAT, 4, xd);
    ck_assert_int_eq(ox_trace_push_scope(b->t, "MaxPool2d[pool]"), OX_OK);
    ox_arg m[] = {ox_arg_tensor("self", vx), ox_arg_ints("kernel_size", k2, 1),
                  ox_arg_bool("ceil_mode", 1)};
    ox_vid vy = tb_op(b, "aten::max_pool2d", 3, m, 4, yd);
    ck_assert_int_eq(ox_trace_pop_scope(b->t), OX_OK);
    ck_assert_int_eq(ox_trace_output(b->t, vy, "y"), OX_OK);
    return tb_finish(b);
}

START_TEST(max_pool2d_ceil_mode_is_padding_at_9_and_an_attribute_from_10)
{
    int64_t xd[4] = {1, 1, 5, 5}, yd[4] = {1, 1, 3, 3};
    tb b = tb_begin("Net");
    ox_graph *g = ceil_pool_graph(&b, xd);
    /* Windows past the edge are kept, as torch does: at 9 through extra
     * end padding, from 10 through MaxPool's ceil_mode. */
    float x[25];
    for (int i = 0; i < 25; i++)
        x[i] = (float)i;
    float y[9] = {6, 8, 9, 16, 18, 19, 21, 23, 24};
    feed f = {"x", "float32", 4, xd, x, sizeof(float)};
    want w = {4, yd, y};
    run_at(b.ctx, g, 9, 1, &f, 1, &w);
    run_at(b.ctx, g, 10, 1, &f, 1, &w);
    run_at(b.ctx, g, 13, 1, &f, 1, &w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(max_pool2d_ceil_mode_at_9_needs_the_spatial_sizes)
{
    int64_t xd[4] = {1, 1, -1, 5};
    tb b = tb_begin("Net");
    ox_graph *g = ceil_pool_graph(&b, xd);
    ox_graph *onnx = NULL;
    ck_assert_int_eq(ox_convert(b.ctx, g, 9, &onnx), OX_EUNSUPPORTED);
    ck_assert_ptr_null(onnx);
    ck_assert_msg(strstr(ox_errmsg(b.ctx), "Net/MaxPool2d[pool]: ceil_mode before opset 10 is "
                                           "exported as extra padding, which needs the input's "
                                           "spatial sizes; they are unknown (dynamic); supported "
                                           "from opset 10"),
                  "%s", ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_convert(b.ctx, g, 10, &onnx), OX_OK);
    ox_graph_free(onnx);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(adaptive_avg_pool2d_global_and_divisible)
{
    int64_t xd[4] = {1, 2, 4, 4}, gd[4] = {1, 2, 1, 1}, ad[4] = {1, 2, 2, 2};
    float *x = rnd_array(32, 8, 0.5f);
    float yg[2] = {0}, ya[8] = {0};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                yg[c] += x[(c * 4 + i) * 4 + j] / 16.0f;
                ya[(c * 2 + i / 2) * 2 + j / 2] += x[(c * 4 + i) * 4 + j] / 4.0f;
            }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    int64_t o1[2] = {1, 1}, o2[1] = {2};
    ox_arg a1[] = {ox_arg_tensor("self", vx), ox_arg_ints("output_size", o1, 2)};
    ox_arg a2[] = {ox_arg_tensor("self", vx), ox_arg_ints("output_size", o2, 1)};
    ox_vid v1 = tb_op(&b, "aten::adaptive_avg_pool2d", 2, a1, 4, gd);
    ox_vid v2 = tb_op(&b, "aten::adaptive_avg_pool2d", 2, a2, 4, ad);
    ck_assert_int_eq(ox_trace_output(b.t, v1, "g"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, v2, "a"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "float32", 4, xd, x, sizeof(float)};
    want w[2] = {{4, gd, yg}, {4, ad, ya}};
    run_all(b.ctx, g, 1, &f, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
}
END_TEST

/* 5 -> 2 does not tile: torch's bins [0, 3) and [2, 5) overlap at 2, each
 * reduced on its own (Slice + ReduceMean per bin and dim). */
START_TEST(adaptive_avg_pool2d_uneven_pools_each_bin)
{
    int64_t xd[4] = {1, 1, 5, 5}, yd[4] = {1, 1, 2, 2}, o[2] = {2, 2};
    float *x = rnd_array(25, 17, 1.0f), y[4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double sum = 0;
            for (int r = 2 * i; r < 2 * i + 3; r++)
                for (int c = 2 * j; c < 2 * j + 3; c++)
                    sum += x[r * 5 + c];
            y[i * 2 + j] = (float)(sum / 9);
        }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", vx), ox_arg_ints("output_size", o, 2)};
    ox_vid vy = tb_op(&b, "aten::adaptive_avg_pool2d", 2, a, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "float32", 4, xd, x, sizeof(float)};
    want w[1] = {{4, yd, y}};
    run_all(b.ctx, g, 1, &f, 1, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
}
END_TEST

START_TEST(linear_2d_3d_and_addmm)
{
    /* y2 = x2 W^T + b (Gemm); y3 = x3 W^T + b (MatMul+Add);
     * z = 0.5 * b + 2 * (x2 @ M) (addmm). */
    int64_t x2d[2] = {2, 3}, x3d[3] = {2, 2, 3}, wd[2] = {4, 3}, bd[1] = {4}, md[2] = {3, 4};
    int64_t y2d[2] = {2, 4}, y3d[3] = {2, 2, 4};
    float *x2 = rnd_array(6, 9, 0.5f), *x3 = rnd_array(12, 10, 0.5f),
          *w = rnd_array(12, 11, 0.5f), *bias = rnd_array(4, 12, 0.5f),
          *m = rnd_array(12, 13, 0.5f);
    float y2[8], y3[16], z[8];
    for (int r = 0; r < 2; r++)
        for (int o = 0; o < 4; o++) {
            float acc = bias[o], mm = 0;
            for (int k = 0; k < 3; k++) {
                acc += x2[r * 3 + k] * w[o * 3 + k];
                mm += x2[r * 3 + k] * m[k * 4 + o];
            }
            y2[r * 4 + o] = acc;
            z[r * 4 + o] = 0.5f * bias[o] + 2.0f * mm;
        }
    for (int r = 0; r < 4; r++)
        for (int o = 0; o < 4; o++) {
            float acc = bias[o];
            for (int k = 0; k < 3; k++)
                acc += x3[r * 3 + k] * w[o * 3 + k];
            y3[r * 4 + o] = acc;
        }
    tb b = tb_begin("Net");
    ox_vid vx2 = tb_input(&b, "x2", OX_FLOAT, 2, x2d);
    ox_vid vx3 = tb_input(&b, "x3", OX_FLOAT, 3, x3d);
    ox_vid vw = tb_param(&b, "fc.weight", 2, wd, w);
    ox_vid vb = tb_param(&b, "fc.bias", 1, bd, bias);
    ox_vid vm = tb_param(&b, "m", 2, md, m);
    ox_arg l2[] = {ox_arg_tensor("input", vx2), ox_arg_tensor("weight", vw),
                   ox_arg_tensor("bias", vb)};
    ox_arg l3[] = {ox_arg_tensor("input", vx3), ox_arg_tensor("weight", vw),
                   ox_arg_tensor("bias", vb)};
    ox_arg am[] = {ox_arg_tensor("self", vb), ox_arg_tensor("mat1", vx2), ox_arg_tensor("mat2", vm),
                   ox_arg_float("beta", 0.5), ox_arg_int("alpha", 2)};
    ox_vid v2 = tb_op(&b, "aten::linear", 3, l2, 2, y2d);
    ox_vid v3 = tb_op(&b, "aten::linear", 3, l3, 3, y3d);
    ox_vid vz = tb_op(&b, "aten::addmm", 5, am, 2, y2d);
    ck_assert_int_eq(ox_trace_output(b.t, v2, "y2"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, v3, "y3"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vz, "z"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f[2] = {{"x2", "float32", 2, x2d, x2, 4}, {"x3", "float32", 3, x3d, x3, 4}};
    want wt[3] = {{2, y2d, y2}, {3, y3d, y3}, {2, y2d, z}};
    run_all(b.ctx, g, 2, f, 3, wt);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x2);
    free(x3);
    free(w);
    free(bias);
    free(m);
}
END_TEST

START_TEST(softmax_over_middle_axis_and_log_softmax_last)
{
    /* x [2,3,2]: softmax over dim 1 (the transpose pattern below 13),
     * log_softmax over dim -1. */
    int64_t xd[3] = {2, 3, 2};
    float *x = rnd_array(12, 14, 0.5f);
    float s[12], ls[12];
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            float sum = 0;
            for (int k = 0; k < 3; k++)
                sum += expf(x[(a * 3 + k) * 2 + c]);
            for (int k = 0; k < 3; k++)
                s[(a * 3 + k) * 2 + c] = expf(x[(a * 3 + k) * 2 + c]) / sum;
        }
    for (int r = 0; r < 6; r++) {
        float sum = expf(x[r * 2]) + expf(x[r * 2 + 1]);
        ls[r * 2] = x[r * 2] - logf(sum);
        ls[r * 2 + 1] = x[r * 2 + 1] - logf(sum);
    }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_arg sa[] = {ox_arg_tensor("self", vx), ox_arg_int("dim", 1), ox_arg_none("dtype")};
    ox_arg la[] = {ox_arg_tensor("self", vx), ox_arg_int("dim", -1)};
    ox_vid v1 = tb_op(&b, "aten::softmax", 3, sa, 3, xd);
    ox_vid v2 = tb_op(&b, "aten::log_softmax", 2, la, 3, xd);
    ck_assert_int_eq(ox_trace_output(b.t, v1, "s"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, v2, "ls"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "float32", 3, xd, x, 4};
    want w[2] = {{3, xd, s}, {3, xd, ls}};
    run_all(b.ctx, g, 1, &f, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
}
END_TEST

/* A 2-layer LSTM over 2 steps with initial states, and batch_first. */
static void lstm_case(int batch_first)
{
    enum { SEQ = 2, B = 1, IN = 3, H = 2, L = 2 };
    int64_t xd[3] = {batch_first ? B : SEQ, batch_first ? SEQ : B, IN};
    int64_t hd[3] = {L, B, H}, yd[3] = {xd[0], xd[1], H};
    int64_t wih0d[2] = {4 * H, IN}, wihd[2] = {4 * H, H}, whhd[2] = {4 * H, H}, bd[1] = {4 * H};
    float *x = rnd_array(SEQ * B * IN, 20, 0.5f), *h0 = rnd_array(L * B * H, 21, 0.5f),
          *c0 = rnd_array(L * B * H, 22, 0.5f);
    float *p[L][4];
    for (int l = 0; l < L; l++) {
        p[l][0] = rnd_array(4 * H * (l == 0 ? IN : H), 30u + (unsigned)l * 4, 0.5f);
        p[l][1] = rnd_array(4 * H * H, 31u + (unsigned)l * 4, 0.5f);
        p[l][2] = rnd_array(4 * H, 32u + (unsigned)l * 4, 0.5f);
        p[l][3] = rnd_array(4 * H, 33u + (unsigned)l * 4, 0.5f);
    }
    /* Reference on [seq, batch, in] (B == 1, so batch_first is the same memory). */
    float h[L][H], c[L][H], y0[SEQ * H], y1[SEQ * H], hn[L * H], cn[L * H];
    memcpy(h, h0, sizeof h);
    memcpy(c, c0, sizeof c);
    lstm_layer_ref(SEQ, B, IN, H, x, p[0][0], p[0][1], p[0][2], p[0][3], h[0], c[0], y0);
    lstm_layer_ref(SEQ, B, H, H, y0, p[1][0], p[1][1], p[1][2], p[1][3], h[1], c[1], y1);
    memcpy(hn, h, sizeof hn);
    memcpy(cn, c, sizeof cn);

    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vh = tb_input(&b, "h0", OX_FLOAT, 3, hd);
    ox_vid vc = tb_input(&b, "c0", OX_FLOAT, 3, hd);
    ox_vid vp[L * 4];
    static const char *names[4] = {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"};
    char nm[L * 4][32];
    for (int l = 0; l < L; l++)
        for (int k = 0; k < 4; k++) {
            snprintf(nm[l * 4 + k], sizeof nm[0], "%s%d", names[k], l);
            const int64_t *d = k == 0 ? (l == 0 ? wih0d : wihd) : k == 1 ? whhd : bd;
            vp[l * 4 + k] = tb_param(&b, nm[l * 4 + k], k < 2 ? 2 : 1, d, p[l][k]);
        }
    ox_vid hx[2] = {vh, vc};
    ox_arg a[] = {ox_arg_tensor("input", vx),   ox_arg_tensors("hx", hx, 2),
                  ox_arg_tensors("params", vp, L * 4), ox_arg_bool("has_biases", 1),
                  ox_arg_int("num_layers", L),  ox_arg_float("dropout", 0.0),
                  ox_arg_bool("train", 0),      ox_arg_bool("bidirectional", 0),
                  ox_arg_bool("batch_first", batch_first)};
    ox_tensor_desc od[3] = {{OX_FLOAT, 3, yd}, {OX_FLOAT, 3, hd}, {OX_FLOAT, 3, hd}};
    ox_vid outs[3];
    ck_assert_msg(ox_trace_op(b.t, "aten::lstm", 9, a, 3, od, outs) == OX_OK, "%s",
                  ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[1], "hn"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[2], "cn"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f[3] = {{"x", "float32", 3, xd, x, 4},
                 {"h0", "float32", 3, hd, h0, 4},
                 {"c0", "float32", 3, hd, c0, 4}};
    want w[3] = {{3, yd, y1}, {3, hd, hn}, {3, hd, cn}};
    run_all(b.ctx, g, 3, f, 3, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
    free(h0);
    free(c0);
    for (int l = 0; l < L; l++)
        for (int k = 0; k < 4; k++)
            free(p[l][k]);
}

START_TEST(lstm_two_layers_with_initial_state)
{
    lstm_case(0);
}
END_TEST

START_TEST(lstm_batch_first)
{
    lstm_case(1);
}
END_TEST

START_TEST(lstm_one_step_known_weights)
{
    /* input 1, hidden 1, one step, x = 1, h0 = c0 = 0; every torch gate row
     * has its own weight so a wrong gate order changes the result:
     * i = s(0.1), f = s(0.2) (unused: c0 = 0), g = tanh(0.3), o = s(0.4),
     * c = i*g, h = o*tanh(c). */
    int64_t xd[3] = {1, 1, 1}, wd[2] = {4, 1}, hd[3] = {1, 1, 1};
    float x[1] = {1.0f}, wih[4] = {0.1f, 0.2f, 0.3f, 0.4f}, whh[4] = {0.5f, 0.6f, 0.7f, 0.8f};
    float cval = sigm(0.1f) * tanhf(0.3f), hval = sigm(0.4f) * tanhf(cval);
    float y[1] = {hval}, c[1] = {cval};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vp[2] = {tb_param(&b, "w_ih", 2, wd, wih), tb_param(&b, "w_hh", 2, wd, whh)};
    ox_arg a[] = {ox_arg_tensor("input", vx),   ox_arg_tensors("hx", NULL, 0),
                  ox_arg_tensors("params", vp, 2), ox_arg_bool("has_biases", 0),
                  ox_arg_int("num_layers", 1),  ox_arg_float("dropout", 0.0),
                  ox_arg_bool("train", 0),      ox_arg_bool("bidirectional", 0),
                  ox_arg_bool("batch_first", 0)};
    ox_tensor_desc od[3] = {{OX_FLOAT, 3, xd}, {OX_FLOAT, 3, hd}, {OX_FLOAT, 3, hd}};
    ox_vid outs[3];
    ck_assert_msg(ox_trace_op(b.t, "aten::lstm", 9, a, 3, od, outs) == OX_OK, "%s",
                  ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[2], "cn"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "float32", 3, xd, x, 4};
    want w[2] = {{3, xd, y}, {3, hd, c}};
    run_all(b.ctx, g, 1, &f, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(gru_one_layer_with_initial_state)
{
    enum { SEQ = 3, B = 2, IN = 3, H = 2 };
    int64_t xd[3] = {SEQ, B, IN}, hd[3] = {1, B, H}, yd[3] = {SEQ, B, H};
    int64_t wihd[2] = {3 * H, IN}, whhd[2] = {3 * H, H}, bd[1] = {3 * H};
    float *x = rnd_array(SEQ * B * IN, 40, 0.5f), *h0 = rnd_array(B * H, 41, 0.5f);
    float *wih = rnd_array(3 * H * IN, 42, 0.5f), *whh = rnd_array(3 * H * H, 43, 0.5f),
          *bih = rnd_array(3 * H, 44, 0.5f), *bhh = rnd_array(3 * H, 45, 0.5f);
    float h[B * H], y[SEQ * B * H];
    memcpy(h, h0, sizeof h);
    gru_layer_ref(SEQ, B, IN, H, x, wih, whh, bih, bhh, h, y);
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vh = tb_input(&b, "h0", OX_FLOAT, 3, hd);
    ox_vid vp[4] = {tb_param(&b, "w_ih", 2, wihd, wih), tb_param(&b, "w_hh", 2, whhd, whh),
                    tb_param(&b, "b_ih", 1, bd, bih), tb_param(&b, "b_hh", 1, bd, bhh)};
    ox_arg a[] = {ox_arg_tensor("input", vx),   ox_arg_tensor("hx", vh),
                  ox_arg_tensors("params", vp, 4), ox_arg_bool("has_biases", 1),
                  ox_arg_int("num_layers", 1),  ox_arg_float("dropout", 0.0),
                  ox_arg_bool("train", 0),      ox_arg_bool("bidirectional", 0),
                  ox_arg_bool("batch_first", 0)};
    ox_tensor_desc od[2] = {{OX_FLOAT, 3, yd}, {OX_FLOAT, 3, hd}};
    ox_vid outs[2];
    ck_assert_msg(ox_trace_op(b.t, "aten::gru", 9, a, 2, od, outs) == OX_OK, "%s",
                  ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[1], "hn"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f[2] = {{"x", "float32", 3, xd, x, 4}, {"h0", "float32", 3, hd, h0, 4}};
    want w[2] = {{3, yd, y}, {3, hd, h}};
    run_all(b.ctx, g, 2, f, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
    free(h0);
    free(wih);
    free(whh);
    free(bih);
    free(bhh);
}
END_TEST

/* One direction of an Elman RNN layer; writes h_t into y[t][b][off : off+hid]
 * of a [seq, batch, ystride] output. */
static void rnn_dir_ref(int seq, int batch, int in, int hid, const float *x, const float *wih,
                        const float *whh, const float *bih, const float *bhh, float *h, float *y,
                        int ystride, int off, int reverse, int relu)
{
    float nh[64];
    for (int s = 0; s < seq; s++) {
        int t = reverse ? seq - 1 - s : s;
        for (int bt = 0; bt < batch; bt++) {
            const float *xt = x + ((size_t)t * batch + bt) * in;
            float *hb = h + bt * hid;
            for (int r = 0; r < hid; r++) {
                float a = gate(wih, whh, bih, bhh, r, in, hid, xt, hb, 0);
                nh[r] = relu ? (a > 0 ? a : 0) : tanhf(a);
            }
            for (int r = 0; r < hid; r++) {
                hb[r] = nh[r];
                y[((size_t)t * batch + bt) * ystride + off + r] = nh[r];
            }
        }
    }
}

/* Two bidirectional layers: per-direction weight stacking, the
 * [seq, D, batch, H] -> [seq, batch, D*H] hand-off and per-layer h0 slices. */
static void rnn_bidir_case(const char *kind, int relu)
{
    enum { SEQ = 3, B = 2, IN = 3, H = 2, L = 2, D = 2 };
    int64_t xd[3] = {SEQ, B, IN}, hd[3] = {L * D, B, H}, yd[3] = {SEQ, B, D * H};
    int64_t wih0d[2] = {H, IN}, wih1d[2] = {H, D * H}, whhd[2] = {H, H}, bd[1] = {H};
    float *x = rnd_array(SEQ * B * IN, 80, 0.5f), *h0 = rnd_array(L * D * B * H, 81, 0.5f);
    float *p[L * D * 4];
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vh = tb_input(&b, "h0", OX_FLOAT, 3, hd);
    ox_vid vp[L * D * 4];
    char nm[L * D * 4][16];
    for (int i = 0; i < L * D * 4; i++) {
        int l = i / (D * 4), k = i % 4;
        const int64_t *d = k == 0 ? (l == 0 ? wih0d : wih1d) : k == 1 ? whhd : bd;
        int rank = k < 2 ? 2 : 1;
        p[i] = rnd_array(numel(rank, d), 90u + (unsigned)i, 0.5f);
        snprintf(nm[i], sizeof nm[0], "p%d", i);
        vp[i] = tb_param(&b, nm[i], rank, d, p[i]);
    }
    float h[L * D * B * H], y0[SEQ * B * D * H], y1[SEQ * B * D * H];
    memcpy(h, h0, sizeof h);
    for (int l = 0; l < L; l++)
        for (int dir = 0; dir < D; dir++) {
            float **q = p + (l * D + dir) * 4;
            rnn_dir_ref(SEQ, B, l == 0 ? IN : D * H, H, l == 0 ? x : y0, q[0], q[1], q[2], q[3],
                        h + (l * D + dir) * B * H, l == 0 ? y0 : y1, D * H, dir * H, dir, relu);
        }
    ox_arg a[] = {ox_arg_tensor("input", vx),   ox_arg_tensor("hx", vh),
                  ox_arg_tensors("params", vp, L * D * 4), ox_arg_bool("has_biases", 1),
                  ox_arg_int("num_layers", L),  ox_arg_float("dropout", 0.0),
                  ox_arg_bool("train", 0),      ox_arg_bool("bidirectional", 1),
                  ox_arg_bool("batch_first", 0)};
    ox_tensor_desc od[2] = {{OX_FLOAT, 3, yd}, {OX_FLOAT, 3, hd}};
    ox_vid outs[2];
    ck_assert_msg(ox_trace_op(b.t, kind, 9, a, 2, od, outs) == OX_OK, "%s", ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[1], "hn"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f[2] = {{"x", "float32", 3, xd, x, 4}, {"h0", "float32", 3, hd, h0, 4}};
    want w[2] = {{3, yd, y1}, {3, hd, h}};
    run_all(b.ctx, g, 2, f, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
    free(h0);
    for (int i = 0; i < L * D * 4; i++)
        free(p[i]);
}

START_TEST(rnn_tanh_bidirectional_two_layers)
{
    rnn_bidir_case("aten::rnn_tanh", 0);
}
END_TEST

START_TEST(rnn_relu_bidirectional_two_layers)
{
    rnn_bidir_case("aten::rnn_relu", 1);
}
END_TEST

START_TEST(pixel_shuffle_permutation)
{
    /* [1,8,2,3] r=2 -> [1,2,4,6]: y[c][h*r+i][w*r+j] = x[c*r*r + i*r + j][h][w]. */
    int64_t xd[4] = {1, 8, 2, 3}, yd[4] = {1, 2, 4, 6};
    float x[48], y[48];
    for (int i = 0; i < 48; i++)
        x[i] = (float)i;
    for (int c = 0; c < 2; c++)
        for (int h = 0; h < 2; h++)
            for (int w = 0; w < 3; w++)
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++)
                        y[(c * 4 + h * 2 + i) * 6 + w * 2 + j] =
                            x[((c * 4 + i * 2 + j) * 2 + h) * 3 + w];
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", vx), ox_arg_int("upscale_factor", 2)};
    ox_vid vy = tb_op(&b, "aten::pixel_shuffle", 2, a, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, yd, y);
}
END_TEST

START_TEST(constant_pad_nd_and_fn_ConstantPadNd)
{
    /* x [1,1,2,3]; pad (1, 2, 0, 1): last dim 1 before / 2 after, dim 2
     * 0 before / 1 after -> [1,1,3,6].  aten with value 7, fn with -1. */
    int64_t xd[4] = {1, 1, 2, 3}, yd[4] = {1, 1, 3, 6}, pad[4] = {1, 2, 0, 1};
    float x[6] = {1, 2, 3, 4, 5, 6}, ya[18], yf[18];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 6; j++) {
            int in = i < 2 && j >= 1 && j < 4;
            ya[i * 6 + j] = in ? x[i * 3 + j - 1] : 7.0f;
            yf[i * 6 + j] = in ? x[i * 3 + j - 1] : -1.0f;
        }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", vx), ox_arg_ints("pad", pad, 4), ox_arg_int("value", 7)};
    ox_arg f[] = {ox_arg_tensor("input", vx), ox_arg_ints("pad", pad, 4),
                  ox_arg_float("value", -1.0)};
    ox_vid va = tb_op(&b, "aten::constant_pad_nd", 3, a, 4, yd);
    ox_vid vf = tb_op(&b, "fn::ConstantPadNd", 3, f, 4, yd);
    ck_assert_int_eq(ox_trace_output(b.t, va, "a"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vf, "f"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed fd = {"x", "float32", 4, xd, x, 4};
    want w[2] = {{4, yd, ya}, {4, yd, yf}};
    run_all(b.ctx, g, 1, &fd, 2, w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(batch_norm_without_affine_weights)
{
    /* weight/bias None: y = (x - mean) / sqrt(var + eps). */
    int64_t xd[4] = {2, 3, 1, 2}, cd[1] = {3};
    float *x = rnd_array(12, 50, 0.5f), mean[3] = {0.1f, -0.2f, 0.3f},
          var[3] = {0.5f, 1.0f, 2.0f};
    float y[12];
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 2; k++) {
                int i = (n * 3 + c) * 2 + k;
                y[i] = (x[i] - mean[c]) / sqrtf(var[c] + 1e-3f);
            }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_vid vm = tb_param(&b, "bn.running_mean", 1, cd, mean);
    ox_vid vv = tb_param(&b, "bn.running_var", 1, cd, var);
    ox_arg a[] = {ox_arg_tensor("input", vx),       ox_arg_none("weight"),
                  ox_arg_none("bias"),              ox_arg_tensor("running_mean", vm),
                  ox_arg_tensor("running_var", vv), ox_arg_bool("training", 0),
                  ox_arg_float("momentum", 0.1),    ox_arg_float("eps", 1e-3),
                  ox_arg_bool("cudnn_enabled", 0)};
    ox_vid vy = tb_op(&b, "aten::batch_norm", 9, a, 4, xd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    run_simple(&b, tb_finish(&b), 4, xd, x, 4, xd, y);
    free(x);
}
END_TEST

static void shape_chain(int64_t step)
{
    /* x [2,3,4]:
     *   a = transpose(x, 0, 2)            [4,3,2]
     *   b = select(a, 1, -1)              [4,2]    = x[:, 2, :]^T
     *   c = unsqueeze(b, 0)               [1,4,2]
     *   d = slice(c, 1, 1, None, step)    [1,R,2]  rows 1, 1+step, ... (R rows)
     *   e = squeeze(d, 0)                 [R,2]
     *   f = view(e, [-1])                 [2R]
     *   s = mean(x, [1], keepdim=False)   [2,4]
     *   t = flatten(x, 1, 2)              [2,12]
     *   u = cat([x, x], -1)               [2,3,8]  -> permute (2,0,1) [8,2,3] -> flatten(0,1) [16,3]
     */
    int64_t xd[3] = {2, 3, 4};
    float *x = rnd_array(24, 60, 0.5f);
    int64_t rows = (3 + step - 1) / step;
    float f[6], s[8], t[24], u[48];
    /* b[i][j] = x[j][2][i]; row r of e is row 1 + step*r of b. */
    for (int64_t r = 0; r < rows; r++)
        for (int j = 0; j < 2; j++)
            f[r * 2 + j] = x[(j * 3 + 2) * 4 + 1 + step * r];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++)
            s[i * 4 + k] =
                (x[(i * 3 + 0) * 4 + k] + x[(i * 3 + 1) * 4 + k] + x[(i * 3 + 2) * 4 + k]) / 3.0f;
    memcpy(t, x, sizeof t);
    /* u[k][i][j] (k in 0..7) = cat[i][j][k] = x[i][j][k % 4]. */
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                u[(k * 2 + i) * 3 + j] = x[(i * 3 + j) * 4 + k % 4];

    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    int64_t ad[3] = {4, 3, 2}, bdm[2] = {4, 2}, cdm[3] = {1, 4, 2}, ddm[3] = {1, rows, 2},
            edm[2] = {rows, 2}, fdm[1] = {2 * rows}, sdm[2] = {2, 4}, tdm[2] = {2, 12},
            catd[3] = {2, 3, 8}, pd[3] = {8, 2, 3}, ud[2] = {16, 3};
    int64_t minus1[1] = {-1}, one[1] = {1}, perm[3] = {2, 0, 1};
    ox_arg ta[] = {ox_arg_tensor("self", vx), ox_arg_int("dim0", 0), ox_arg_int("dim1", 2)};
    ox_vid va = tb_op(&b, "aten::transpose", 3, ta, 3, ad);
    ox_arg sa[] = {ox_arg_tensor("self", va), ox_arg_int("dim", 1), ox_arg_int("index", -1)};
    ox_vid vb = tb_op(&b, "aten::select", 3, sa, 2, bdm);
    ox_arg ua[] = {ox_arg_tensor("self", vb), ox_arg_int("dim", 0)};
    ox_vid vc = tb_op(&b, "aten::unsqueeze", 2, ua, 3, cdm);
    ox_arg la[] = {ox_arg_tensor("self", vc), ox_arg_int("dim", 1), ox_arg_int("start", 1),
                   ox_arg_none("end"), ox_arg_int("step", step)};
    ox_vid vd = tb_op(&b, "aten::slice", 5, la, 3, ddm);
    ox_arg qa[] = {ox_arg_tensor("self", vd), ox_arg_int("dim", 0)};
    ox_vid ve = tb_op(&b, "aten::squeeze", 2, qa, 2, edm);
    ox_arg wa[] = {ox_arg_tensor("self", ve), ox_arg_ints("size", minus1, 1)};
    ox_vid vf = tb_op(&b, "aten::view", 2, wa, 1, fdm);
    ox_arg ma[] = {ox_arg_tensor("self", vx), ox_arg_ints("dim", one, 1),
                   ox_arg_bool("keepdim", 0), ox_arg_none("dtype")};
    ox_vid vs = tb_op(&b, "aten::mean", 4, ma, 2, sdm);
    ox_arg fa[] = {ox_arg_tensor("self", vx), ox_arg_int("start_dim", 1),
                   ox_arg_int("end_dim", 2)};
    ox_vid vt = tb_op(&b, "aten::flatten", 3, fa, 2, tdm);
    ox_vid pair[2] = {vx, vx};
    ox_arg ca[] = {ox_arg_tensors("tensors", pair, 2), ox_arg_int("dim", -1)};
    ox_vid vcat = tb_op(&b, "aten::cat", 2, ca, 3, catd);
    ox_arg pa[] = {ox_arg_tensor("self", vcat), ox_arg_ints("dims", perm, 3)};
    ox_vid vp = tb_op(&b, "aten::permute", 2, pa, 3, pd);
    ox_arg fa2[] = {ox_arg_tensor("self", vp), ox_arg_int("start_dim", 0),
                    ox_arg_int("end_dim", 1)};
    ox_vid vu = tb_op(&b, "aten::flatten", 3, fa2, 2, ud);
    ck_assert_int_eq(ox_trace_output(b.t, vf, "f"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vs, "s"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vt, "t"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vu, "u"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed fd = {"x", "float32", 3, xd, x, 4};
    want w[4] = {{1, fdm, f}, {2, sdm, s}, {2, tdm, t}, {2, ud, u}};
    if (step == 1) {
        run_all(b.ctx, g, 1, &fd, 4, w);
    } else {
        /* Slice steps exist from opset 10 on. */
        ox_graph *onnx = NULL;
        ck_assert_int_eq(ox_convert(b.ctx, g, 9, &onnx), OX_EUNSUPPORTED);
        ck_assert_msg(strstr(ox_errmsg(b.ctx), "aten::slice(step=2) at Net: Slice has no steps "
                                               "before opset 10; supported from opset 10"),
                      "%s", ox_errmsg(b.ctx));
        run_at(b.ctx, g, 10, 1, &fd, 4, w);
        run_at(b.ctx, g, 13, 1, &fd, 4, w);
        run_at(b.ctx, g, 17, 1, &fd, 4, w);
    }
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
}

START_TEST(shape_ops_chain)
{
    shape_chain(1);
}
END_TEST

START_TEST(shape_ops_chain_with_slice_step)
{
    shape_chain(2);
}
END_TEST

START_TEST(elementwise_activations_embedding_dropout)
{
    /* idx [2,3] int64 -> emb [2,3,4] -> dropout(eval) ->
     *   a = add(e, e, alpha=2) ; b = sub(a, 0.5) ; c = mul(b, 3) ; d = div(c, e+...)
     *   r = relu(hardtanh(leaky_relu(d, 0.1), -0.5, 0.5)) ; y = sigmoid(r) + tanh(r) */
    int64_t id[2] = {2, 3}, wd[2] = {5, 4}, ed[3] = {2, 3, 4};
    int64_t idx[6] = {0, 4, 2, 2, 1, 3};
    float *w = rnd_array(20, 70, 0.5f);
    float y[24];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++) {
            float e = w[idx[i] * 4 + k];
            float a = e + 2.0f * e, bb = a - 0.5f, c = bb * 3.0f, d = c / 2.0f;
            float l = d > 0 ? d : 0.1f * d;
            float h = l < -0.5f ? -0.5f : l > 0.5f ? 0.5f : l;
            float r = h > 0 ? h : 0;
            y[i * 4 + k] = sigm(r) + tanhf(r);
        }
    tb b = tb_begin("Net");
    ox_vid vi = tb_input(&b, "idx", OX_INT64, 2, id);
    ox_vid vw = tb_param(&b, "emb.weight", 2, wd, w);
    ox_arg ea[] = {ox_arg_tensor("weight", vw), ox_arg_tensor("indices", vi),
                   ox_arg_int("padding_idx", -1), ox_arg_bool("scale_grad_by_freq", 0),
                   ox_arg_bool("sparse", 0)};
    ox_vid ve = tb_op(&b, "aten::embedding", 5, ea, 3, ed);
    ox_arg da[] = {ox_arg_tensor("input", ve), ox_arg_float("p", 0.5), ox_arg_bool("train", 0)};
    ox_vid vd0 = tb_op(&b, "aten::dropout", 3, da, 3, ed);
    ox_arg aa[] = {ox_arg_tensor("self", vd0), ox_arg_tensor("other", vd0), ox_arg_int("alpha", 2)};
    ox_vid va = tb_op(&b, "aten::add", 3, aa, 3, ed);
    ox_arg sa[] = {ox_arg_tensor("self", va), ox_arg_float("other", 0.5)};
    ox_vid vs = tb_op(&b, "aten::sub", 2, sa, 3, ed);
    ox_arg ma[] = {ox_arg_tensor("self", vs), ox_arg_int("other", 3)};
    ox_vid vm = tb_op(&b, "aten::mul_", 2, ma, 3, ed);
    ox_arg dva[] = {ox_arg_tensor("self", vm), ox_arg_float("other", 2.0)};
    ox_vid vdv = tb_op(&b, "aten::div", 2, dva, 3, ed);
    ox_arg la[] = {ox_arg_tensor("self", vdv), ox_arg_float("negative_slope", 0.1)};
    ox_vid vl = tb_op(&b, "aten::leaky_relu", 2, la, 3, ed);
    ox_arg ha[] = {ox_arg_tensor("self", vl), ox_arg_float("min_val", -0.5),
                   ox_arg_float("max_val", 0.5)};
    ox_vid vh = tb_op(&b, "aten::hardtanh", 3, ha, 3, ed);
    ox_arg ra[] = {ox_arg_tensor("self", vh)};
    ox_vid vr = tb_op(&b, "aten::relu_", 1, ra, 3, ed);
    ox_arg ga[] = {ox_arg_tensor("self", vr)};
    ox_vid vsg = tb_op(&b, "aten::sigmoid", 1, ga, 3, ed);
    ox_vid vth = tb_op(&b, "aten::tanh", 1, ga, 3, ed);
    ox_arg fa[] = {ox_arg_tensor("self", vsg), ox_arg_tensor("other", vth)};
    ox_vid vy = tb_op(&b, "aten::add", 2, fa, 3, ed);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"idx", "int64", 2, id, idx, 8};
    want wt = {3, ed, y};
    run_all(b.ctx, g, 1, &f, 1, &wt);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(w);
}
END_TEST

START_TEST(conv1d_matrix_products_and_identities)
{
    /* x [1,2,5] -> conv1d(w [3,2,2], stride 2, dilation 2) [1,3,2] -> contiguous
     * -> feature_dropout(eval) -> squeeze() [3,2] -> t() [2,3] -> mm(., M [3,2]) [2,2]
     * -> unsqueeze(0) [1,2,2] -> bmm(., itself) [1,2,2] -> matmul(., I2) ->
     * softmax(dim=0, dtype=float) -> mean(dim=[0,1,2], keepdim) [1,1,1]. */
    int64_t xd[3] = {1, 2, 5}, wd[3] = {3, 2, 2}, cd[3] = {1, 3, 2}, sd[2] = {3, 2},
            td[2] = {2, 3}, md[2] = {3, 2}, pd[2] = {2, 2}, ud[3] = {1, 2, 2}, rd[3] = {1, 1, 1};
    float *x = rnd_array(10, 100, 0.5f), *w = rnd_array(12, 101, 0.5f),
          *m = rnd_array(6, 102, 0.5f);
    float eye[4] = {1, 0, 0, 1};
    float c[6], pm[4], q[4], sm[4], mean[1] = {0};
    for (int o = 0; o < 3; o++)
        for (int j = 0; j < 2; j++) {
            float acc = 0;
            for (int ci = 0; ci < 2; ci++)
                for (int k = 0; k < 2; k++)
                    acc += x[ci * 5 + j * 2 + k * 2] * w[(o * 2 + ci) * 2 + k];
            c[o * 2 + j] = acc;
        }
    /* t(c)[i][o] = c[o][i]; pm = t(c) @ m */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            pm[i * 2 + j] = 0;
            for (int o = 0; o < 3; o++)
                pm[i * 2 + j] += c[o * 2 + i] * m[o * 2 + j];
        }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            q[i * 2 + j] = pm[i * 2] * pm[j] + pm[i * 2 + 1] * pm[2 + j];
    /* softmax over dim 0 of [1,2,2]: a single element per slice -> all 1. */
    for (int i = 0; i < 4; i++) {
        sm[i] = expf(q[i] - q[i]);
        mean[0] += sm[i] / 4.0f;
    }
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vw = tb_param(&b, "conv.weight", 3, wd, w);
    ox_vid vm = tb_param(&b, "m", 2, md, m);
    ox_vid vi = tb_param(&b, "eye", 2, pd, eye);
    int64_t two[1] = {2}, zero[1] = {0}, all[3] = {0, 1, 2};
    ox_arg ca[] = {ox_arg_tensor("input", vx), ox_arg_tensor("weight", vw), ox_arg_none("bias"),
                   ox_arg_ints("stride", two, 1), ox_arg_ints("padding", zero, 1),
                   ox_arg_ints("dilation", two, 1), ox_arg_int("groups", 1)};
    ox_vid v = tb_op(&b, "aten::conv1d", 7, ca, 3, cd);
    ox_arg one_self[] = {ox_arg_tensor("self", v)};
    v = tb_op(&b, "aten::contiguous", 1, one_self, 3, cd);
    ox_arg fd[] = {ox_arg_tensor("input", v), ox_arg_float("p", 0.2), ox_arg_bool("train", 0)};
    v = tb_op(&b, "aten::feature_dropout", 3, fd, 3, cd);
    ox_arg sq[] = {ox_arg_tensor("self", v), ox_arg_none("dim")};
    v = tb_op(&b, "aten::squeeze", 2, sq, 2, sd);
    ox_arg ta[] = {ox_arg_tensor("self", v)};
    v = tb_op(&b, "aten::t", 1, ta, 2, td);
    ox_arg mma[] = {ox_arg_tensor("self", v), ox_arg_tensor("mat2", vm)};
    v = tb_op(&b, "aten::mm", 2, mma, 2, pd);
    ox_arg ua[] = {ox_arg_tensor("self", v), ox_arg_int("dim", 0)};
    v = tb_op(&b, "aten::unsqueeze", 2, ua, 3, ud);
    ox_arg ba[] = {ox_arg_tensor("self", v), ox_arg_tensor("mat2", v)};
    v = tb_op(&b, "aten::bmm", 2, ba, 3, ud);
    ox_arg mta[] = {ox_arg_tensor("self", v), ox_arg_tensor("other", vi)};
    v = tb_op(&b, "aten::matmul", 2, mta, 3, ud);
    ox_arg sa[] = {ox_arg_tensor("self", v), ox_arg_int("dim", 0), ox_arg_dtype("dtype", OX_FLOAT)};
    ox_vid vs = tb_op(&b, "aten::softmax", 3, sa, 3, ud);
    ox_arg ma[] = {ox_arg_tensor("self", vs), ox_arg_ints("dim", all, 3),
                   ox_arg_bool("keepdim", 1)};
    ox_vid vr = tb_op(&b, "aten::mean", 3, ma, 3, rd);
    ck_assert_int_eq(ox_trace_output(b.t, v, "q"), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, vr, "r"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "float32", 3, xd, x, 4};
    want wt[2] = {{3, ud, q}, {3, rd, mean}};
    run_all(b.ctx, g, 1, &f, 2, wt);
    ox_graph_free(g);
    ox_context_free(b.ctx);
    free(x);
    free(w);
    free(m);
}
END_TEST

START_TEST(div_of_integers_is_true_division)
{
    /* torch: int64 / int -> float; ONNX Div alone would truncate. */
    int64_t xd[1] = {4}, x[4] = {7, -7, 3, 10};
    float y[4] = {3.5f, -3.5f, 1.5f, 5.0f};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_INT64, 1, xd);
    ox_arg a[] = {ox_arg_tensor("self", vx), ox_arg_int("other", 2)};
    ox_vid vy = tb_op(&b, "aten::div", 2, a, 1, xd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    feed f = {"x", "int64", 1, xd, x, 8};
    want w = {1, xd, y};
    run_all(b.ctx, g, 1, &f, 1, &w);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(rnn_training_with_dropout_between_layers_fails)
{
    int64_t xd[3] = {1, 1, 2}, hd[3] = {2, 1, 2};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_vid vh = tb_input(&b, "h0", OX_FLOAT, 3, hd);
    ox_arg a[] = {ox_arg_tensor("input", vx),   ox_arg_tensor("hx", vh),
                  ox_arg_tensors("params", NULL, 0), ox_arg_bool("has_biases", 1),
                  ox_arg_int("num_layers", 2),  ox_arg_float("dropout", 0.5),
                  ox_arg_bool("train", 1),      ox_arg_bool("bidirectional", 0),
                  ox_arg_bool("batch_first", 0)};
    ox_tensor_desc od[2] = {{OX_FLOAT, 3, xd}, {OX_FLOAT, 3, hd}};
    ox_vid outs[2];
    ck_assert_msg(ox_trace_op(b.t, "aten::gru", 9, a, 2, od, outs) == OX_OK, "%s",
                  ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ox_graph *g = tb_finish(&b), *onnx = NULL;
    ck_assert_int_ne(ox_convert(b.ctx, g, 13, &onnx), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(b.ctx), "aten::gru in training mode with dropout=0.5 between "
                                           "layers is not exported; put the model in eval mode "
                                           "(train=False)"),
                  "%s", ox_errmsg(b.ctx));
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* Dropout before opset 12 has no training switch (it is the identity): a
 * training-mode dropout is refused there, naming the opset that lifts it,
 * and converts from 12 on. */
START_TEST(dropout_in_training_is_reported)
{
    int64_t xd[2] = {2, 2};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg da[] = {ox_arg_tensor("input", vx), ox_arg_float("p", 0.5), ox_arg_bool("train", 1)};
    ox_vid vy = tb_op(&b, "aten::dropout", 3, da, 2, xd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    ox_graph *g = tb_finish(&b), *onnx = NULL;
    for (int i = 0; i < N_OPSETS; i++) {
        if (opsets[i] >= 12) {
            ck_assert_msg(ox_convert(b.ctx, g, opsets[i], &onnx) == OX_OK, "%s", ox_errmsg(b.ctx));
            ox_graph_free(onnx);
            continue;
        }
        ck_assert_int_eq(ox_convert(b.ctx, g, opsets[i], &onnx), OX_EUNSUPPORTED);
        ck_assert_msg(strstr(ox_errmsg(b.ctx), "dropout in training mode needs Dropout's "
                                               "training_mode input (opset 12); before it Dropout "
                                               "is the identity; supported from opset 12"),
                      "%s", ox_errmsg(b.ctx));
    }
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* A C host may record one_hot's num_classes=-1 (torch infers it from the
 * data); the check hook states it before conversion, at every opset. */
START_TEST(one_hot_without_class_count_is_a_stated_limitation)
{
    int64_t xd[1] = {3};
    tb b = tb_begin("Net");
    ox_vid vx = tb_input(&b, "i", OX_INT64, 1, xd);
    ox_arg a[] = {ox_arg_tensor("self", vx), ox_arg_int("num_classes", -1)};
    ox_vid vy = tb_op(&b, "aten::one_hot", 2, a, 1, xd);
    ck_assert_int_eq(ox_trace_output(b.t, vy, "y"), OX_OK);
    ox_graph *g = tb_finish(&b), *onnx = NULL;
    for (int i = 0; i < N_OPSETS; i++) {
        ck_assert_int_eq(ox_convert(b.ctx, g, opsets[i], &onnx), OX_EUNSUPPORTED);
        char expected[256];
        snprintf(expected, sizeof expected,
                 "Couldn't export operator(s): 1 problem(s) at opset %d:\n  - aten::one_hot at "
                 "Net: argument 'num_classes' is -1; one_hot is exported with an explicit class "
                 "count",
                 opsets[i]);
        ck_assert_str_eq(ox_errmsg(b.ctx), expected);
    }
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* Every operator the YAML declares has a symbolic, and every symbolic's
 * parameters are the ones the YAML lists (same names, same order) at every
 * opset both cover; kinds are the pack's alone. */
START_TEST(yaml_and_packs_agree)
{
    ox_context *ctx = new_ctx();
    const ox_op_impl *const *impls = NULL;
    size_t n_impls = ox_registry_ops(ctx->registry, &impls);
    ck_assert_uint_ge(n_impls, 48);
    ox_opset_db *db = ctx->opsets;
    ck_assert_ptr_nonnull(db);
    ck_assert_int_eq(ox_opset_db_min(db), 7);
    ck_assert_int_eq(ox_opset_db_max(db), 21);
    for (int opset = 7; opset <= 21; opset++) {
        const ox_opset_op *const *ops = NULL;
        size_t n = ox_opset_db_ops(db, opset, &ops);
        /* The seed's 48 operators at least; the loops below check both directions. */
        ck_assert_uint_ge(n, 48);
        for (size_t i = 0; i < n; i++) {
            const ox_op_impl *impl = ox_registry_find(ctx->registry, ops[i]->name, opset);
            ck_assert_msg(impl != NULL, "opset %d: %s has no symbolic", opset, ops[i]->name);
            const ox_op_decl *d = impl->decl;
            ck_assert_msg(d->n_params == ops[i]->n_params, "%s: %u params vs YAML %zu", d->name,
                          d->n_params, ops[i]->n_params);
            for (size_t p = 0; p < d->n_params; p++)
                ck_assert_str_eq(d->params[p].name, ops[i]->params[p].name);
        }
    }
    /* An operator the descriptors describe (a doc line, limitations) is
     * described from its symbolic's since_opset on (aten::cumsum from 11); one
     * with neither needs no entry: its pack's declaration is its schema. */
    for (size_t i = 0; i < n_impls; i++) {
        int since = impls[i]->decl->since_opset;
        bool described = false;
        for (int o = 9; o <= 17 && !described; o++)
            described = ox_opset_db_lookup(db, o, impls[i]->decl->name) != NULL;
        if (described)
            ck_assert_msg(ox_opset_db_lookup(db, since, impls[i]->decl->name) != NULL,
                          "%s has a symbolic from opset %d but no YAML entry there",
                          impls[i]->decl->name, since);
    }
    ox_context_free(ctx);
}
END_TEST

static Suite *symbolics_suite(void)
{
    Suite *s = suite_create("symbolics");
    TCase *tc = tcase_create("packs");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, yaml_and_packs_agree);
    tcase_add_test(tc, conv2d_explicit_padding_stride_groups);
    tcase_add_test(tc, conv2d_padding_same_is_asymmetric_like_torch);
    tcase_add_test(tc, conv_transpose2d_output_padding);
    tcase_add_test(tc, max_pool2d_and_avg_pool2d);
    tcase_add_test(tc, max_pool2d_ceil_mode_is_padding_at_9_and_an_attribute_from_10);
    tcase_add_test(tc, max_pool2d_ceil_mode_at_9_needs_the_spatial_sizes);
    tcase_add_test(tc, adaptive_avg_pool2d_global_and_divisible);
    tcase_add_test(tc, adaptive_avg_pool2d_uneven_pools_each_bin);
    tcase_add_test(tc, linear_2d_3d_and_addmm);
    tcase_add_test(tc, softmax_over_middle_axis_and_log_softmax_last);
    tcase_add_test(tc, lstm_one_step_known_weights);
    tcase_add_test(tc, lstm_two_layers_with_initial_state);
    tcase_add_test(tc, lstm_batch_first);
    tcase_add_test(tc, gru_one_layer_with_initial_state);
    tcase_add_test(tc, rnn_tanh_bidirectional_two_layers);
    tcase_add_test(tc, rnn_relu_bidirectional_two_layers);
    tcase_add_test(tc, pixel_shuffle_permutation);
    tcase_add_test(tc, constant_pad_nd_and_fn_ConstantPadNd);
    tcase_add_test(tc, batch_norm_without_affine_weights);
    tcase_add_test(tc, shape_ops_chain);
    tcase_add_test(tc, shape_ops_chain_with_slice_step);
    tcase_add_test(tc, elementwise_activations_embedding_dropout);
    tcase_add_test(tc, conv1d_matrix_products_and_identities);
    tcase_add_test(tc, div_of_integers_is_true_division);
    tcase_add_test(tc, rnn_training_with_dropout_between_layers_fails);
    tcase_add_test(tc, dropout_in_training_is_reported);
    tcase_add_test(tc, one_hot_without_class_count_is_a_stated_limitation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(symbolics_suite());
}
