/*
 * The refusals of the spectral symbolics (plugins/aten/spectral.c) that the
 * operator table cannot reach: torch rejects these calls itself or never
 * records them (a complex op on a tensor without the trailing 2 of ONNX's
 * float form, stft with win_length past n_fft, istft with a length past the
 * frames, a signal shorter than n_fft), but a C host can record them, and
 * each must get its own message rather than a crash or a file ONNX Runtime
 * rejects.  Small graphs over the build-tree aten pack, at opset 17.  (The
 * conversions themselves: tests/ops/rows/spectral.py.)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

static tb begin(int rank, const int64_t *dims)
{
    tb b = tb_open(sym_new_ctx(false), "S");
    b.x = tb_input(&b, "x", OX_FLOAT, rank, dims);
    return b;
}

/* Records `kind` with one float output of shape out, converts at opset 17
 * and checks that it fails with a message containing `want`. */
static void refused(tb *b, const char *kind, size_t n_args, const ox_arg *args, int rank,
                    const int64_t *out, const char *want)
{
    ox_vid y = tb_op(b, kind, n_args, args, rank, out);
    ck_assert_int_eq(ox_trace_output(b->t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(b);
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b->ctx, g, 17, &onnx), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(b->ctx), want) != NULL, "%s", ox_errmsg(b->ctx));
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

START_TEST(c2c_of_a_tensor_without_the_trailing_two_is_refused)
{
    int64_t d[2] = {4, 3};
    int64_t dim[1] = {0};
    tb b = begin(2, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("dim", dim, 1), ox_arg_int("normalization", 0),
                  ox_arg_bool("forward", 1)};
    refused(&b, "aten::_fft_c2c", 4, a, 2, d,
            "the input must be a complex tensor's float form (trailing size 2)");
}
END_TEST

START_TEST(fft_dim_out_of_range_is_refused)
{
    int64_t d[2] = {4, 6}, out[3] = {4, 4, 2};
    int64_t dim[1] = {2};
    tb b = begin(2, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("dim", dim, 1), ox_arg_int("normalization", 0),
                  ox_arg_bool("onesided", 1)};
    refused(&b, "aten::_fft_r2c", 4, a, 3, out, "dim 2 is out of range for a tensor of rank 2");
}
END_TEST

START_TEST(c2r_to_no_points_is_refused)
{
    int64_t d[3] = {2, 5, 2}, out[2] = {2, 8};
    int64_t dim[1] = {1};
    tb b = begin(3, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_ints("dim", dim, 1), ox_arg_int("normalization", 2),
                  ox_arg_int("last_dim_size", 0)};
    refused(&b, "aten::_fft_c2r", 4, a, 2, out, "last_dim_size must be at least 1, got 0");
}
END_TEST

START_TEST(stft_window_longer_than_n_fft_is_refused)
{
    int64_t d[2] = {1, 100}, out[4] = {1, 9, 13, 2};
    tb b = begin(2, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("n_fft", 16), ox_arg_int("hop_length", 8),
                  ox_arg_int("win_length", 20), ox_arg_none("window"), ox_arg_bool("normalized", 0),
                  ox_arg_none("onesided"), ox_arg_bool("return_complex", 1)};
    refused(&b, "aten::stft", 8, a, 4, out, "need n_fft >= 1, hop_length >= 1 and 1 <= win_length <= n_fft");
}
END_TEST

START_TEST(stft_of_a_signal_shorter_than_n_fft_is_refused)
{
    int64_t d[2] = {1, 10}, out[4] = {1, 9, 1, 2};
    tb b = begin(2, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("n_fft", 16), ox_arg_none("hop_length"),
                  ox_arg_none("win_length"), ox_arg_none("window"), ox_arg_bool("normalized", 0),
                  ox_arg_none("onesided"), ox_arg_bool("return_complex", 1)};
    refused(&b, "aten::stft", 8, a, 4, out, "the signal has 10 samples, fewer than n_fft=16");
}
END_TEST

START_TEST(istft_length_past_the_frames_is_refused)
{
    int64_t d[4] = {1, 9, 5, 2}, out[2] = {1, 100};
    tb b = begin(4, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("n_fft", 16), ox_arg_int("hop_length", 4),
                  ox_arg_none("win_length"), ox_arg_none("window"), ox_arg_bool("center", 1),
                  ox_arg_bool("normalized", 0), ox_arg_none("onesided"), ox_arg_int("length", 100),
                  ox_arg_bool("return_complex", 0)};
    refused(&b, "aten::istft", 10, a, 2, out, "istft's length 100 is past the 24 samples the frames cover");
}
END_TEST

START_TEST(istft_bins_that_do_not_match_n_fft_are_refused)
{
    int64_t d[3] = {7, 5, 2}, out[1] = {16};
    tb b = begin(3, d);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("n_fft", 16), ox_arg_int("hop_length", 4),
                  ox_arg_none("win_length"), ox_arg_none("window"), ox_arg_bool("center", 1),
                  ox_arg_bool("normalized", 0), ox_arg_bool("onesided", 1), ox_arg_none("length"),
                  ox_arg_bool("return_complex", 0)};
    refused(&b, "aten::istft", 10, a, 1, out, "istft: 7 frequency bins do not match n_fft=16 (onesided)");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("symbolics_spectral");
    TCase *tc = tcase_create("refusals");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, c2c_of_a_tensor_without_the_trailing_two_is_refused);
    tcase_add_test(tc, fft_dim_out_of_range_is_refused);
    tcase_add_test(tc, c2r_to_no_points_is_refused);
    tcase_add_test(tc, stft_window_longer_than_n_fft_is_refused);
    tcase_add_test(tc, stft_of_a_signal_shorter_than_n_fft_is_refused);
    tcase_add_test(tc, istft_length_past_the_frames_is_refused);
    tcase_add_test(tc, istft_bins_that_do_not_match_n_fft_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
