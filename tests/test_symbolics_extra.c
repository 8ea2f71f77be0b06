/*
 * Symbolics of the wider operator coverage whose semantics are easy to get
 * subtly wrong: layer_norm's axes and optional affine, gelu's two formulas,
 * bilinear interpolation's align_corners, roll's wrap-around and the
 * limitations that name the opset lifting them.  Small graphs traced through
 * the public tracer, converted with only the build-tree packs, checked with
 * onnx.checker (full_check) and run with ONNX Runtime against references
 * computed here in C.  (split/chunk/unbind, one Split node: tests/test_split.c
 * and their rows in tests/ops/aten_ops.py.)
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

/* A trace with one float input "x", over the aten pack alone. */
static tb tb_begin(const char *model, int rank, const int64_t *dims)
{
    tb b = tb_open(sym_new_ctx(false), model);
    ck_assert_int_eq(ox_trace_input(b.t, "x", OX_FLOAT, (uint32_t)rank, dims, &b.x), OX_OK);
    return b;
}

static ox_graph *tb_finish_y(tb *b, ox_vid y)
{
    ck_assert_int_eq(ox_trace_output(b->t, y, "y"), OX_OK);
    return tb_finish(b);
}

/* Convert at `opset`, write, onnx.checker, run x in ORT, compare y with want. */
static void run_at(ox_context *ctx, const ox_graph *traced, int opset, int in_rank,
                   const int64_t *in_dims, const float *x, int out_rank, const int64_t *out_dims,
                   const float *want, float tol)
{
    char dir[] = "/tmp/oxsymx-XXXXXX", path[4200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sym_write_checked(ctx, traced, opset, dir);
    feed f = {"x", "float32", in_rank, in_dims, x, sizeof(float)};
    sym_run_ort(dir, opset, 1, &f);
    size_t n = 0, expect_n = numel(out_rank, out_dims);
    snprintf(path, sizeof path, "%s/out/output_0.bin", dir);
    float *got = read_file(path, &n);
    n /= sizeof(float);
    ck_assert_msg(n == expect_n, "opset %d: %zu elements, want %zu", opset, n, expect_n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(fabsf(got[i] - want[i]) <= tol + tol * fabsf(want[i]),
                      "opset %d [%zu]: got %.7g, want %.7g", opset, i, (double)got[i],
                      (double)want[i]);
    free(got);
    rm_rf(dir);
}

static void run_opsets(tb *b, ox_graph *g, const int *opsets, size_t n_opsets, int in_rank,
                       const int64_t *in_dims, const float *x, int out_rank,
                       const int64_t *out_dims, const float *want)
{
    for (size_t i = 0; i < n_opsets; i++)
        run_at(b->ctx, g, opsets[i], in_rank, in_dims, x, out_rank, out_dims, want, 1e-4f);
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

/* Conversion at `opset` fails with exactly this report line. */
static void fails_at(tb *b, ox_graph *g, int opset, const char *line)
{
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b->ctx, g, opset, &onnx), OX_OK);
    char expect[1024];
    snprintf(expect, sizeof expect, "\n  - %s", line);
    ck_assert_msg(strstr(ox_errmsg(b->ctx), expect) != NULL, "opset %d: %s", opset,
                  ox_errmsg(b->ctx));
}

static const int all_opsets[] = {9, 11, 13, 14, 17};

/* ------------------------------------------------------------ layer_norm */

/* x [2, 3, 4]: normalized_shape [3, 4] with weight/bias (both trailing axes),
 * then [4] without weight (opset 17 falls back to the formula: its
 * LayerNormalization needs a scale). */
START_TEST(layer_norm_trailing_axes_and_optional_affine)
{
    int64_t xd[3] = {2, 3, 4}, wd[2] = {3, 4};
    float *x = rnd_array(24, 11, 2.0f), *w = rnd_array(12, 12, 2.0f),
          *bias = rnd_array(12, 13, 2.0f);
    float want[24], mid[24];
    for (int n = 0; n < 2; n++) {
        double mean = 0, var = 0;
        for (int i = 0; i < 12; i++)
            mean += x[n * 12 + i];
        mean /= 12;
        for (int i = 0; i < 12; i++)
            var += (x[n * 12 + i] - mean) * (x[n * 12 + i] - mean);
        var /= 12;
        for (int i = 0; i < 12; i++)
            mid[n * 12 + i] =
                (float)((x[n * 12 + i] - mean) / sqrt(var + 1e-5)) * w[i] + bias[i];
    }
    for (int r = 0; r < 6; r++) {
        double mean = 0, var = 0;
        for (int i = 0; i < 4; i++)
            mean += mid[r * 4 + i];
        mean /= 4;
        for (int i = 0; i < 4; i++)
            var += (mid[r * 4 + i] - mean) * (mid[r * 4 + i] - mean);
        var /= 4;
        for (int i = 0; i < 4; i++)
            want[r * 4 + i] = (float)((mid[r * 4 + i] - mean) / sqrt(var + 1e-3));
    }
    tb b = tb_begin("LN", 3, xd);
    ox_vid vw = tb_param(&b, "ln.weight", 2, wd, w), vb = tb_param(&b, "ln.bias", 2, wd, bias);
    int64_t ns1[2] = {3, 4}, ns2[1] = {4};
    ox_arg a1[] = {ox_arg_tensor("input", b.x), ox_arg_ints("normalized_shape", ns1, 2),
                   ox_arg_tensor("weight", vw), ox_arg_tensor("bias", vb),
                   ox_arg_float("eps", 1e-5), ox_arg_bool("cudnn_enable", 0)};
    ox_vid v1 = tb_op(&b, "aten::layer_norm", 6, a1, 3, xd);
    ox_arg a2[] = {ox_arg_tensor("input", v1), ox_arg_ints("normalized_shape", ns2, 1),
                   ox_arg_none("weight"), ox_arg_none("bias"), ox_arg_float("eps", 1e-3),
                   ox_arg_bool("cudnn_enable", 0)};
    ox_vid v2 = tb_op(&b, "aten::layer_norm", 6, a2, 3, xd);
    ox_graph *g = tb_finish_y(&b, v2);
    run_opsets(&b, g, all_opsets, 5, 3, xd, x, 3, xd, want);
    free(x);
    free(w);
    free(bias);
}
END_TEST

START_TEST(layer_norm_shape_must_match_trailing_dims)
{
    int64_t xd[3] = {2, 3, 4}, ns[1] = {3};
    tb b = tb_begin("LN", 3, xd);
    ox_arg a[] = {ox_arg_tensor("input", b.x), ox_arg_ints("normalized_shape", ns, 1),
                  ox_arg_none("weight"), ox_arg_none("bias")};
    ox_vid y = tb_op(&b, "aten::layer_norm", 4, a, 3, xd);
    ox_graph *g = tb_finish_y(&b, y);
    fails_at(&b, g, 13,
             "aten::layer_norm at LN: argument 'normalized_shape'[0] is 3 but input dim 2 is 4");
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* ------------------------------------------------------------ gelu */

START_TEST(gelu_none_and_tanh)
{
    int64_t xd[2] = {3, 5};
    float *x = rnd_array(15, 21, 2.0f);
    float want[15];
    for (int i = 0; i < 15; i++) {
        double v = x[i];
        double exact = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
        double approx = 0.5 * exact * (1.0 + tanh(sqrt(2.0 / M_PI) *
                                                   (exact + 0.044715 * exact * exact * exact)));
        want[i] = (float)approx;
    }
    tb b = tb_begin("G", 2, xd);
    ox_arg a1[] = {ox_arg_tensor("self", b.x), ox_arg_string("approximate", "none")};
    ox_vid v1 = tb_op(&b, "aten::gelu", 2, a1, 2, xd);
    ox_arg a2[] = {ox_arg_tensor("self", v1), ox_arg_string("approximate", "tanh")};
    ox_vid v2 = tb_op(&b, "aten::gelu", 2, a2, 2, xd);
    ox_graph *g = tb_finish_y(&b, v2);
    run_opsets(&b, g, all_opsets, 5, 2, xd, x, 2, xd, want);
    free(x);
}
END_TEST

START_TEST(gelu_unknown_approximation_is_a_limitation)
{
    int64_t xd[1] = {4};
    tb b = tb_begin("G", 1, xd);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_string("approximate", "fast")};
    ox_vid y = tb_op(&b, "aten::gelu", 2, a, 1, xd);
    ox_graph *g = tb_finish_y(&b, y);
    fails_at(&b, g, 17, "aten::gelu(approximate='fast') at G: gelu's approximate is 'none' or 'tanh'");
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* ------------------------------------------------------------ interpolation */

/* torch's bilinear source coordinate for output index o (one axis). */
static double src_coord(int o, int in, int out, int align)
{
    if (align)
        return out > 1 ? (double)o * (in - 1) / (out - 1) : 0.0;
    double s = ((double)o + 0.5) * in / out - 0.5;
    return s < 0 ? 0 : s;
}

static void bilinear_ref(const float *x, int c, int ih, int iw, int oh, int ow, int align,
                         float *y)
{
    for (int ch = 0; ch < c; ch++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double sy = src_coord(i, ih, oh, align), sx = src_coord(j, iw, ow, align);
                int y0 = (int)sy, x0 = (int)sx;
                int y1 = y0 + 1 < ih ? y0 + 1 : ih - 1, x1 = x0 + 1 < iw ? x0 + 1 : iw - 1;
                double fy = sy - y0, fx = sx - x0;
                const float *p = x + ch * ih * iw;
                y[(ch * oh + i) * ow + j] =
                    (float)((1 - fy) * ((1 - fx) * p[y0 * iw + x0] + fx * p[y0 * iw + x1]) +
                            fy * ((1 - fx) * p[y1 * iw + x0] + fx * p[y1 * iw + x1]));
            }
}

static void bilinear_case(int align)
{
    int64_t xd[4] = {1, 2, 3, 4}, yd[4] = {1, 2, 5, 7}, os[2] = {5, 7};
    float *x = rnd_array(24, 31 + (unsigned)align, 2.0f);
    float want[70];
    bilinear_ref(x, 2, 3, 4, 5, 7, align, want);
    tb b = tb_begin("Up", 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("output_size", os, 2),
                  ox_arg_bool("align_corners", align)};
    ox_vid y = tb_op(&b, "aten::upsample_bilinear2d", 3, a, 4, yd);
    ox_graph *g = tb_finish_y(&b, y);
    fails_at(&b, g, 8,
             "ONNX export failed on upsample_bilinear2d because aten::upsample_bilinear2d has "
             "no symbolic at this opset (scope: Up); supported from opset 9");
    /* 9 and 10: Gathers with torch's weights; from 11: Resize */
    static const int opsets[] = {9, 10, 11, 13, 17};
    run_opsets(&b, g, opsets, 5, 4, xd, x, 4, yd, want);
    free(x);
}

START_TEST(upsample_bilinear2d_align_corners_true)
{
    bilinear_case(1);
}
END_TEST

START_TEST(upsample_bilinear2d_align_corners_false)
{
    bilinear_case(0);
}
END_TEST

/* torch's nearest: src = floor(dst * in / out), here with a non-integer ratio. */
START_TEST(upsample_nearest2d_floor_coordinates)
{
    int64_t xd[4] = {1, 1, 2, 3}, yd[4] = {1, 1, 4, 9}, os[2] = {4, 9};
    float *x = rnd_array(6, 41, 2.0f);
    float want[36];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 9; j++)
            want[i * 9 + j] = x[(i * 2 / 4) * 3 + (j * 3 / 9)];
    tb b = tb_begin("Up", 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("output_size", os, 2)};
    ox_vid y = tb_op(&b, "aten::upsample_nearest2d", 2, a, 4, yd);
    ox_graph *g = tb_finish_y(&b, y);
    static const int opsets[] = {9, 10, 11, 13, 17};
    run_opsets(&b, g, opsets, 5, 4, xd, x, 4, yd, want);
    free(x);
}
END_TEST

/* ------------------------------------------------------------ roll, index, norms */

START_TEST(roll_wraps_negative_and_oversized_shifts)
{
    int64_t xd[2] = {3, 4}, sh[2] = {-1, 6}, dims[2] = {0, -1};
    float *x = rnd_array(12, 51, 2.0f);
    float want[12];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            want[((i + 2) % 3) * 4 + (j + 2) % 4] = x[i * 4 + j];
    tb b = tb_begin("Roll", 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("shifts", sh, 2),
                  ox_arg_ints("dims", dims, 2)};
    ox_vid y = tb_op(&b, "aten::roll", 3, a, 2, xd);
    ox_graph *g = tb_finish_y(&b, y);
    run_opsets(&b, g, all_opsets, 5, 2, xd, x, 2, xd, want);
    free(x);
}
END_TEST

/* use_input_stats=False normalises with running statistics (BatchNormalization,
 * the operator table's instance_norm.running_stats rows); a recording without
 * them has nothing to normalise with. */
START_TEST(instance_norm_without_running_stats_is_a_limitation)
{
    int64_t xd[3] = {1, 2, 3};
    tb b = tb_begin("IN", 3, xd);
    ox_arg a[] = {ox_arg_tensor("input", b.x), ox_arg_none("weight"), ox_arg_none("bias"),
                  ox_arg_none("running_mean"), ox_arg_none("running_var"),
                  ox_arg_bool("use_input_stats", 0), ox_arg_float("momentum", 0.1),
                  ox_arg_float("eps", 1e-5), ox_arg_bool("cudnn_enabled", 0)};
    ox_vid y = tb_op(&b, "aten::instance_norm", 9, a, 3, xd);
    ox_graph *g = tb_finish_y(&b, y);
    fails_at(&b, g, 13,
             "aten::instance_norm at IN: instance_norm with use_input_stats=False needs "
             "running_mean and running_var to normalise with");
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* group_norm: 4 channels in 2 groups, per-channel affine. */
START_TEST(group_norm_groups_and_affine)
{
    int64_t xd[4] = {2, 4, 2, 3}, cd[1] = {4};
    float *x = rnd_array(48, 61, 2.0f), *w = rnd_array(4, 62, 2.0f),
          *bias = rnd_array(4, 63, 2.0f);
    float want[48];
    for (int n = 0; n < 2; n++)
        for (int gr = 0; gr < 2; gr++) {
            const float *p = x + (n * 4 + gr * 2) * 6;
            double mean = 0, var = 0;
            for (int i = 0; i < 12; i++)
                mean += p[i];
            mean /= 12;
            for (int i = 0; i < 12; i++)
                var += (p[i] - mean) * (p[i] - mean);
            var /= 12;
            for (int i = 0; i < 12; i++) {
                int ch = gr * 2 + i / 6;
                want[(n * 4 + gr * 2) * 6 + i] =
                    (float)((p[i] - mean) / sqrt(var + 1e-5)) * w[ch] + bias[ch];
            }
        }
    tb b = tb_begin("GN", 4, xd);
    ox_vid vw = tb_param(&b, "gn.weight", 1, cd, w), vb = tb_param(&b, "gn.bias", 1, cd, bias);
    ox_arg a[] = {ox_arg_tensor("input", b.x), ox_arg_int("num_groups", 2),
                  ox_arg_tensor("weight", vw), ox_arg_tensor("bias", vb),
                  ox_arg_float("eps", 1e-5), ox_arg_bool("cudnn_enabled", 0)};
    ox_vid y = tb_op(&b, "aten::group_norm", 6, a, 4, xd);
    ox_graph *g = tb_finish_y(&b, y);
    run_opsets(&b, g, all_opsets, 5, 4, xd, x, 4, xd, want);
    free(x);
    free(w);
    free(bias);
}
END_TEST

/* ------------------------------------------------------------ index, reductions, pads */

/* y = x[:, idx] * x[:, idx].sum(1, keepdim=True) with idx an int64 buffer;
 * aten::index skips dim 0 with a None entry. */
START_TEST(index_on_second_dim_and_sum_keepdim)
{
    int64_t xd[2] = {2, 3}, id[1] = {4}, yd[2] = {2, 4};
    int64_t idx[4] = {2, 0, 1, 2};
    float *x = rnd_array(6, 71, 2.0f);
    float want[8];
    for (int r = 0; r < 2; r++) {
        double s = 0;
        for (int j = 0; j < 4; j++)
            s += x[r * 3 + idx[j]];
        for (int j = 0; j < 4; j++)
            want[r * 4 + j] = x[r * 3 + idx[j]] * (float)s;
    }
    tb b = tb_begin("Idx", 2, xd);
    ox_vid vi = 0;
    ck_assert_int_eq(ox_trace_param(b.t, "idx", OX_INT64, 1, id, idx, OX_COPY, &vi), OX_OK);
    ox_vid list[2] = {0, vi};
    ox_arg a1[] = {ox_arg_tensor("self", b.x), ox_arg_tensors("indices", list, 2)};
    ox_vid g1 = tb_op(&b, "aten::index", 2, a1, 2, yd);
    int64_t dim[1] = {1}, sd[2] = {2, 1};
    ox_arg a2[] = {ox_arg_tensor("self", g1), ox_arg_ints("dim", dim, 1), ox_arg_bool("keepdim", 1),
                   ox_arg_none("dtype")};
    ox_vid s1 = tb_op(&b, "aten::sum", 4, a2, 2, sd);
    ox_arg a3[] = {ox_arg_tensor("self", g1), ox_arg_tensor("other", s1)};
    ox_vid y = tb_op(&b, "aten::mul", 2, a3, 2, yd);
    ox_graph *g = tb_finish_y(&b, y);
    run_opsets(&b, g, all_opsets, 5, 2, xd, x, 2, yd, want);
    free(x);
}
END_TEST

/* reflect then replicate padding of the last dim, torch's (left, right) list:
 * [a b c] -reflect(2, 1)-> [c b a b c b] -replicate(1, 0)-> [c c b a b c b]. */
START_TEST(reflection_then_replication_pad1d)
{
    int64_t xd[3] = {1, 2, 3}, pd[3] = {1, 2, 6}, yd[3] = {1, 2, 7};
    int64_t p1[2] = {2, 1}, p2[2] = {1, 0};
    float *x = rnd_array(6, 81, 2.0f);
    float want[14];
    for (int c = 0; c < 2; c++) {
        const float *r = x + c * 3;
        float row[7] = {r[2], r[2], r[1], r[0], r[1], r[2], r[1]};
        memcpy(want + c * 7, row, sizeof row);
    }
    tb b = tb_begin("Pad", 3, xd);
    ox_arg a1[] = {ox_arg_tensor("self", b.x), ox_arg_ints("padding", p1, 2)};
    ox_vid v1 = tb_op(&b, "aten::reflection_pad1d", 2, a1, 3, pd);
    ox_arg a2[] = {ox_arg_tensor("self", v1), ox_arg_ints("padding", p2, 2)};
    ox_vid y = tb_op(&b, "aten::replication_pad1d", 2, a2, 3, yd);
    ox_graph *g = tb_finish_y(&b, y);
    run_opsets(&b, g, all_opsets, 5, 3, xd, x, 3, yd, want);
    free(x);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("symbolics_extra");
    TCase *tc = tcase_create("packs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, layer_norm_trailing_axes_and_optional_affine);
    tcase_add_test(tc, layer_norm_shape_must_match_trailing_dims);
    tcase_add_test(tc, gelu_none_and_tanh);
    tcase_add_test(tc, gelu_unknown_approximation_is_a_limitation);
    tcase_add_test(tc, upsample_bilinear2d_align_corners_true);
    tcase_add_test(tc, upsample_bilinear2d_align_corners_false);
    tcase_add_test(tc, upsample_nearest2d_floor_coordinates);
    tcase_add_test(tc, roll_wraps_negative_and_oversized_shifts);
    tcase_add_test(tc, instance_norm_without_running_stats_is_a_limitation);
    tcase_add_test(tc, group_norm_groups_and_affine);
    tcase_add_test(tc, index_on_second_dim_and_sum_keepdim);
    tcase_add_test(tc, reflection_then_replication_pad1d);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
