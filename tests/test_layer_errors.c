/*
 * The layer symbolics' refusals (pooling, windows, padding, resizing,
 * sampling, bags, normalization, cells, packed sequences) for what a C host
 * may record and PyTorch never lets through: wrong ranks, sizes a window
 * does not fit, unknown sizes, out-of-range modes.  Each case traces one
 * node and asserts the exact message of the refused conversion.
 */
#include <check.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

/* One traced node of `kind` with `n_out` float outputs of shape odims. */
static void op_n(tb *b, const char *kind, size_t n_args, const ox_arg *args, size_t n_out,
                 int orank, const int64_t *odims)
{
    ox_tensor_desc d[3] = {{OX_FLOAT, (uint32_t)orank, odims},
                           {OX_FLOAT, (uint32_t)orank, odims},
                           {OX_FLOAT, (uint32_t)orank, odims}};
    ox_vid v[3] = {0, 0, 0};
    ck_assert_msg(ox_trace_op(b->t, kind, n_args, args, n_out, d, v) == OX_OK, "%s: %s", kind,
                  ox_errmsg(b->ctx));
    for (size_t i = 0; i < n_out; i++) {
        char name[8] = {'y', (char)('0' + i), 0};
        ck_assert_int_eq(ox_trace_output(b->t, v[i], name), OX_OK);
    }
}

/* Finish the trace, convert at opset: refused, with `msg` in the report. */
static void refused(tb *b, int opset, const char *msg)
{
    ox_graph *g = tb_finish(b), *onnx = NULL;
    ck_assert_int_ne(ox_convert(b->ctx, g, opset, &onnx), OX_OK);
    ck_assert_ptr_null(onnx);
    ck_assert_msg(strstr(ox_errmsg(b->ctx), msg), "expected \"%s\" in: %s", msg,
                  ox_errmsg(b->ctx));
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

static tb begin(void)
{
    return tb_open(sym_new_ctx(false), "Net");
}

static const int64_t k2[2] = {2, 2}, one2[2] = {1, 1}, zero2[2] = {0, 0};

START_TEST(pooling_needs_a_rank_of_its_spatial_dimensions)
{
    tb b = begin();
    int64_t xd[5] = {1, 1, 2, 4, 4}, yd[5] = {1, 1, 2, 2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 5, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("kernel_size", k2, 2)};
    op_n(&b, "aten::max_pool2d", 2, a, 1, 5, yd);
    refused(&b, 13, "aten::max_pool2d pools 2 spatial dimensions, so its input must have rank 3 "
                    "or 4; got rank 5");
}
END_TEST

START_TEST(adaptive_pooling_needs_the_spatial_sizes)
{
    tb b = begin();
    int64_t xd[4] = {1, 1, -1, 4}, yd[4] = {1, 1, 2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("output_size", k2, 2)};
    op_n(&b, "aten::adaptive_max_pool2d", 2, a, 2, 4, yd);
    refused(&b, 13, "aten::adaptive_max_pool2d needs the input's spatial sizes, which are unknown "
                    "(dynamic); record them");
}
END_TEST

START_TEST(unfold_windows_must_fit)
{
    tb b = begin();
    int64_t xd[2] = {3, 4}, yd[3] = {3, 0, 5};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("dimension", 1), ox_arg_int("size", 5),
                  ox_arg_int("step", 1)};
    op_n(&b, "aten::unfold", 4, a, 1, 3, yd);
    refused(&b, 13, "unfold of a dimension of size 4 into windows of 5 with step 1: expected 1 "
                    "<= size <= 4 and step >= 1");
}
END_TEST

START_TEST(unfold_needs_the_windowed_size)
{
    tb b = begin();
    int64_t xd[2] = {3, -1}, yd[3] = {3, 2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("dimension", -1), ox_arg_int("size", 2),
                  ox_arg_int("step", 2)};
    op_n(&b, "aten::unfold", 4, a, 1, 3, yd);
    refused(&b, 9, "unfold needs the size of dimension 1, which is unknown; record the input's "
                   "sizes");
}
END_TEST

static void im2col_case(int rank, const int64_t *xd, const char *msg)
{
    tb b = begin();
    int64_t yd[3] = {1, 4, 1};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, rank, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("kernel_size", k2, 2),
                  ox_arg_ints("dilation", one2, 2), ox_arg_ints("padding", zero2, 2),
                  ox_arg_ints("stride", one2, 2)};
    op_n(&b, "aten::im2col", 5, a, 1, 3, yd);
    refused(&b, 13, msg);
}

START_TEST(im2col_takes_images_the_kernel_fits)
{
    int64_t flat[2] = {4, 4}, small[4] = {1, 1, 1, 3};
    im2col_case(2, flat, "im2col takes a (C, H, W) or (N, C, H, W) input; got rank 2");
    im2col_case(4, small, "im2col: the padded input (1x3) is smaller than the dilated kernel");
}
END_TEST

static void pad_case(const char *mode, const int64_t *pad, const char *msg)
{
    tb b = begin();
    int64_t xd[3] = {1, 2, 4}, yd[3] = {1, 2, 9};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 3, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("pad", pad, 2),
                  ox_arg_string("mode", mode)};
    op_n(&b, "aten::pad", 3, a, 1, 3, yd);
    refused(&b, 13, msg);
}

START_TEST(pad_modes_and_circular_amounts)
{
    int64_t five[2] = {5, 0}, ok[2] = {1, 1};
    pad_case("circular", five, "circular padding of dimension 2 by (5, 0): each amount must lie "
                               "in [0, 4], the dimension's size");
    pad_case("wrap", ok, "argument 'mode' is \"wrap\"; expected \"constant\", \"reflect\", "
                         "\"replicate\" or \"circular\"");
}
END_TEST

START_TEST(pixel_unshuffle_needs_divisible_sizes)
{
    tb b = begin();
    int64_t xd[4] = {1, 1, 5, 4}, yd[4] = {1, 4, 2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("downscale_factor", 2)};
    op_n(&b, "aten::pixel_unshuffle", 2, a, 1, 4, yd);
    refused(&b, 13, "pixel_unshuffle: spatial size 5x4 is not divisible by downscale_factor 2");
}
END_TEST

START_TEST(upsampling_checks_rank_and_scales)
{
    double s2[2] = {2.0, 2.0};
    int64_t x4[4] = {1, 1, 2, 2}, y4[4] = {1, 1, 4, 4}, x5[5] = {1, 1, 2, 2, 2};
    tb b = begin();
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, x4);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_none("output_size"),
                  ox_arg_floats("scales", s2, 2)};
    op_n(&b, "aten::upsample_nearest3d", 3, a, 1, 4, y4);
    refused(&b, 13, "aten::upsample_nearest3d needs a rank-5 input (batch, channels, 3 spatial), "
                    "got rank 4");
    b = begin();
    x = tb_input(&b, "x", OX_FLOAT, 5, x5);
    a[0] = ox_arg_tensor("self", x);
    op_n(&b, "aten::upsample_nearest3d", 3, a, 1, 4, y4);
    refused(&b, 13, "argument 'scales' must hold 3 factors");
}
END_TEST

START_TEST(grid_sampler_modes_are_torchs_numbers)
{
    tb b = begin();
    int64_t xd[4] = {1, 1, 3, 3}, gd[4] = {1, 2, 2, 2}, yd[4] = {1, 1, 2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd), gr = tb_input(&b, "grid", OX_FLOAT, 4, gd);
    ox_arg a[] = {ox_arg_tensor("input", x), ox_arg_tensor("grid", gr),
                  ox_arg_int("interpolation_mode", 3), ox_arg_int("padding_mode", 0),
                  ox_arg_bool("align_corners", 0)};
    op_n(&b, "aten::grid_sampler", 5, a, 1, 4, yd);
    refused(&b, 16, "grid_sampler with interpolation_mode 3 / padding_mode 0: expected 0 to 2 "
                    "each (bilinear, nearest, bicubic / zeros, border, reflection)");
}
END_TEST

/* embedding_bag of a [6, 3] weight over indices of rank `rank`. */
static void bag_case(int rank, int offsets, int64_t mode, int weights, const char *msg)
{
    tb b = begin();
    int64_t wd[2] = {6, 3}, id[2] = {2, 2}, od[1] = {2}, yd[2] = {2, 3};
    ox_vid w = tb_input(&b, "w", OX_FLOAT, 2, wd);
    ox_vid i = tb_input(&b, "i", OX_INT64, rank, id);
    ox_vid o = offsets ? tb_input(&b, "o", OX_INT64, 1, od) : 0;
    ox_vid p = weights ? tb_input(&b, "p", OX_FLOAT, rank, id) : 0;
    ox_arg a[] = {ox_arg_tensor("weight", w), ox_arg_tensor("indices", i),
                  o ? ox_arg_tensor("offsets", o) : ox_arg_none("offsets"),
                  ox_arg_int("mode", mode),
                  p ? ox_arg_tensor("per_sample_weights", p) : ox_arg_none("per_sample_weights")};
    op_n(&b, "aten::embedding_bag", 5, a, 1, 2, yd);
    refused(&b, 13, msg);
}

START_TEST(embedding_bag_forms_and_modes)
{
    bag_case(2, 0, 4, 0, "embedding_bag mode 4 is not sum (0), mean (1) or max (2)");
    bag_case(1, 0, 0, 0, "embedding_bag takes 2-D indices without offsets or 1-D indices with "
                         "offsets; got rank-1 indices without offsets");
    bag_case(2, 0, 1, 1, "embedding_bag: per_sample_weights are only defined for mode sum");
}
END_TEST

START_TEST(conv_tbc_takes_rank_3)
{
    tb b = begin();
    int64_t xd[4] = {5, 2, 3, 1}, wd[3] = {3, 3, 4}, bd[1] = {4}, yd[3] = {5, 2, 4};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd), w = tb_input(&b, "w", OX_FLOAT, 3, wd);
    ox_vid bias = tb_input(&b, "b", OX_FLOAT, 1, bd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("weight", w),
                  ox_arg_tensor("bias", bias), ox_arg_int("pad", 1)};
    op_n(&b, "aten::conv_tbc", 4, a, 1, 3, yd);
    refused(&b, 13, "conv_tbc takes a rank-3 input and weight; got ranks 4 and 3");
}
END_TEST

START_TEST(lstm_cell_takes_h_and_c)
{
    tb b = begin();
    int64_t xd[2] = {2, 3}, wd[2] = {8, 3}, rd[2] = {8, 2}, hd[2] = {2, 2};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd), w = tb_input(&b, "w", OX_FLOAT, 2, wd);
    ox_vid r = tb_input(&b, "r", OX_FLOAT, 2, rd), h = tb_input(&b, "h", OX_FLOAT, 2, hd);
    ox_arg a[] = {ox_arg_tensor("input", x), ox_arg_tensors("hx", &h, 1),
                  ox_arg_tensor("w_ih", w), ox_arg_tensor("w_hh", r)};
    op_n(&b, "aten::lstm_cell", 4, a, 2, 2, hd);
    refused(&b, 13, "argument 'hx' must hold (h, c)");
}
END_TEST

START_TEST(weight_norm_needs_a_tensor_of_rank_1_or_more)
{
    tb b = begin();
    ox_vid v = tb_input(&b, "v", OX_FLOAT, 0, NULL), g = tb_input(&b, "g", OX_FLOAT, 0, NULL);
    ox_arg a[] = {ox_arg_tensor("v", v), ox_arg_tensor("g", g), ox_arg_int("dim", 0)};
    op_n(&b, "aten::_weight_norm", 3, a, 1, 0, NULL);
    refused(&b, 13, "_weight_norm needs v of known rank 1 to 8, got 0");
}
END_TEST

START_TEST(packed_sequences_state_their_opsets_and_ranks)
{
    int64_t dd[3] = {4, 2, 3}, ld[1] = {2}, xd[1] = {4};
    tb b = begin();
    ox_vid data = tb_input(&b, "data", OX_FLOAT, 3, dd), lens = tb_input(&b, "l", OX_INT64, 1, ld);
    ox_arg a[] = {ox_arg_tensor("data", data), ox_arg_tensor("batch_sizes", lens),
                  ox_arg_bool("batch_first", 0), ox_arg_float("padding_value", -1.0),
                  ox_arg_int("total_length", 4)};
    op_n(&b, "aten::_pad_packed_sequence", 5, a, 2, 3, dd);
    refused(&b, 10, "pad_packed_sequence with padding_value -1 masks the steps past each length "
                    "with Range; supported from opset 11");
    b = begin();
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 1, xd);
    lens = tb_input(&b, "l", OX_INT64, 1, ld);
    ox_arg p[] = {ox_arg_tensor("input", x), ox_arg_tensor("lengths", lens),
                  ox_arg_bool("batch_first", 0)};
    op_n(&b, "aten::_pack_padded_sequence", 3, p, 2, 1, xd);
    refused(&b, 13, "pack_padded_sequence needs an input of known rank 2 to 8, got 1");
}
END_TEST

START_TEST(pooling_needs_a_kernel)
{
    tb b = begin();
    int64_t xd[4] = {1, 1, 4, 4};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("kernel_size", NULL, 0)};
    op_n(&b, "aten::avg_pool2d", 2, a, 1, 4, xd);
    refused(&b, 13, "argument 'kernel_size' is missing or empty");
}
END_TEST

START_TEST(windows_state_their_arguments)
{
    int64_t bad[2] = {0, 1};
    tb b = begin();
    int64_t xd[4] = {1, 1, 4, 4}, yd[3] = {1, 4, 9};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("kernel_size", k2, 2),
                  ox_arg_ints("dilation", one2, 2), ox_arg_ints("padding", zero2, 2),
                  ox_arg_ints("stride", bad, 2)};
    op_n(&b, "aten::im2col", 5, a, 1, 3, yd);
    refused(&b, 13, "im2col: kernel_size, dilation and stride must be positive and padding not "
                    "negative");
    b = begin();
    x = tb_input(&b, "x", OX_FLOAT, 0, NULL);
    ox_arg u[] = {ox_arg_tensor("self", x), ox_arg_int("dimension", 0), ox_arg_int("size", 1),
                  ox_arg_int("step", 1)};
    op_n(&b, "aten::unfold", 4, u, 1, 0, NULL);
    refused(&b, 13, "unfold needs an input of known rank of at least 1 (got 0)");
}
END_TEST

START_TEST(resizing_states_sizes_and_ranks)
{
    int64_t three[3] = {4, 4, 4}, xd[5] = {1, 1, 2, 2, 2}, yd[5] = {1, 1, 4, 4, 4};
    tb b = begin();
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 5, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("output_size", three, 2)};
    op_n(&b, "aten::upsample_nearest3d", 2, a, 1, 5, yd);
    refused(&b, 13, "argument 'output_size' must hold 3 sizes");
    b = begin();
    int64_t ud[5] = {1, 1, -1, 2, 2};
    x = tb_input(&b, "x", OX_FLOAT, 5, ud);
    ox_arg s[] = {ox_arg_tensor("self", x), ox_arg_ints("output_size", three, 3)};
    op_n(&b, "aten::upsample_nearest3d", 2, s, 1, 5, yd);
    refused(&b, 9, "interpolation before opset 11 needs the input's spatial sizes, which are "
                   "unknown; record them or export with opset 11");
    b = begin();
    int64_t pd[3] = {4, 4, 4};
    x = tb_input(&b, "x", OX_FLOAT, 3, pd);
    ox_arg p[] = {ox_arg_tensor("self", x), ox_arg_int("downscale_factor", 2)};
    op_n(&b, "aten::pixel_unshuffle", 2, p, 1, 3, pd);
    refused(&b, 13, "pixel_unshuffle is exported for rank-4 inputs only (got rank 3)");
}
END_TEST

START_TEST(size_dependent_lowerings_need_the_sizes)
{
    tb b = begin();
    int64_t xd[3] = {5, 2, 3}, wd[3] = {-1, 3, 4}, bd[1] = {4}, yd[3] = {5, 2, 4};
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 3, xd), w = tb_input(&b, "w", OX_FLOAT, 3, wd);
    ox_vid bias = tb_input(&b, "b", OX_FLOAT, 1, bd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("weight", w),
                  ox_arg_tensor("bias", bias), ox_arg_int("pad", 1)};
    op_n(&b, "aten::conv_tbc", 4, a, 1, 3, yd);
    refused(&b, 13, "the weight's kernel size (axis 0) is unknown; record the weight's sizes");
    b = begin();
    int64_t dd[3] = {-1, 2, 3}, ld[1] = {2};
    ox_vid data = tb_input(&b, "data", OX_FLOAT, 3, dd), lens = tb_input(&b, "l", OX_INT64, 1, ld);
    ox_arg p[] = {ox_arg_tensor("data", data), ox_arg_tensor("batch_sizes", lens),
                  ox_arg_bool("batch_first", 0), ox_arg_float("padding_value", 0.0),
                  ox_arg_int("total_length", 6)};
    op_n(&b, "aten::_pad_packed_sequence", 5, p, 2, 3, dd);
    refused(&b, 13, "pad_packed_sequence to total_length 6 needs the data's time size, which is "
                    "unknown; record it");
    b = begin();
    int64_t id[4] = {1, -1, 4, 4}, cd[3] = {1, 4, 9};
    x = tb_input(&b, "x", OX_FLOAT, 4, id);
    ox_arg c[] = {ox_arg_tensor("self", x), ox_arg_ints("kernel_size", k2, 2),
                  ox_arg_ints("dilation", one2, 2), ox_arg_ints("padding", zero2, 2),
                  ox_arg_ints("stride", one2, 2)};
    op_n(&b, "aten::im2col", 5, c, 1, 3, cd);
    refused(&b, 13, "im2col needs the input's channel and spatial sizes, which are unknown; "
                    "record them");
}
END_TEST

static Suite *layer_errors_suite(void)
{
    Suite *s = suite_create("layer_errors");
    TCase *tc = tcase_create("refusals");
    tcase_add_test(tc, pooling_needs_a_rank_of_its_spatial_dimensions);
    tcase_add_test(tc, adaptive_pooling_needs_the_spatial_sizes);
    tcase_add_test(tc, unfold_windows_must_fit);
    tcase_add_test(tc, unfold_needs_the_windowed_size);
    tcase_add_test(tc, im2col_takes_images_the_kernel_fits);
    tcase_add_test(tc, pad_modes_and_circular_amounts);
    tcase_add_test(tc, pixel_unshuffle_needs_divisible_sizes);
    tcase_add_test(tc, upsampling_checks_rank_and_scales);
    tcase_add_test(tc, grid_sampler_modes_are_torchs_numbers);
    tcase_add_test(tc, embedding_bag_forms_and_modes);
    tcase_add_test(tc, conv_tbc_takes_rank_3);
    tcase_add_test(tc, lstm_cell_takes_h_and_c);
    tcase_add_test(tc, weight_norm_needs_a_tensor_of_rank_1_or_more);
    tcase_add_test(tc, packed_sequences_state_their_opsets_and_ranks);
    tcase_add_test(tc, pooling_needs_a_kernel);
    tcase_add_test(tc, windows_state_their_arguments);
    tcase_add_test(tc, resizing_states_sizes_and_ranks);
    tcase_add_test(tc, size_dependent_lowerings_need_the_sizes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(layer_errors_suite());
}
