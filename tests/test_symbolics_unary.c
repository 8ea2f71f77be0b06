/*
 * The refusals of the unary helper's symbolics (activations, pointwise math,
 * bitwise logic, native_dropout) that the operator table cannot reach: eager
 * PyTorch rejects these calls itself (celu with alpha 0, glu of an odd size,
 * a shift of floats), but a C host can record them, and each must get its
 * own message rather than a crash or a file ONNX Runtime rejects.  Small
 * graphs traced through the public tracer and converted with only the
 * build-tree aten pack.  A required tensor recorded as None is the pre-scan's
 * refusal, before the symbolic's own guard.  (The conversions themselves:
 * tests/ops/rows/unary.py.)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

/* A trace with one input "x" of type dt, over the aten pack alone. */
static tb begin_typed(ox_dtype dt, int rank, const int64_t *dims)
{
    tb b = tb_open(sym_new_ctx(false), "U");
    b.x = tb_input(&b, "x", dt, rank, dims);
    return b;
}

/* Records `kind` with one output of type out_dt and shape dims, makes it the
 * graph's output, and checks that conversion at `opset` fails with exactly
 * this report line. */
static void refused(tb *b, const char *kind, size_t n_args, const ox_arg *args, ox_dtype out_dt,
                    int rank, const int64_t *dims, int opset, const char *line)
{
    ox_vid y = 0;
    ox_tensor_desc d = {out_dt, (uint32_t)rank, dims};
    ck_assert_msg(ox_trace_op(b->t, kind, n_args, args, 1, &d, &y) == OX_OK, "%s: %s", kind,
                  ox_errmsg(b->ctx));
    ck_assert_int_eq(ox_trace_output(b->t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(b);
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b->ctx, g, opset, &onnx), OX_OK);
    char expect[1024];
    snprintf(expect, sizeof expect, "\n  - %s", line);
    ck_assert_msg(strstr(ox_errmsg(b->ctx), expect) != NULL, "opset %d: %s", opset,
                  ox_errmsg(b->ctx));
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

static const int64_t d34[2] = {3, 4};

START_TEST(celu_alpha_zero_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_float("alpha", 0.0)};
    refused(&b, "aten::celu", 2, a, OX_FLOAT, 2, d34, 13,
            "aten::celu at U: celu's alpha is 0, which torch rejects too (it divides by alpha)");
}
END_TEST

START_TEST(glu_of_an_odd_dimension_is_refused)
{
    int64_t d35[2] = {3, 5}, half[2] = {3, 2};
    tb b = begin_typed(OX_FLOAT, 2, d35);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("dim", -1)};
    refused(&b, "aten::glu", 2, a, OX_FLOAT, 2, half, 13,
            "aten::glu at U: glu halves dimension 1, of odd size 5");
}
END_TEST

START_TEST(glu_dim_out_of_range_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("dim", 2)};
    refused(&b, "aten::glu", 2, a, OX_FLOAT, 2, d34, 9,
            "aten::glu at U: argument 'dim' is 2, outside the range [-2, 1] for a rank-2 input");
}
END_TEST

START_TEST(bitwise_not_of_floats_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x)};
    refused(&b, "aten::bitwise_not", 1, a, OX_FLOAT, 2, d34, 13,
            "aten::bitwise_not at U: bitwise_not of a floating tensor: torch defines it for "
            "integers and bool only");
}
END_TEST

START_TEST(shift_of_floats_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("other", 1)};
    refused(&b, "aten::__lshift__", 2, a, OX_FLOAT, 2, d34, 13,
            "aten::__lshift__ at U: << of floating tensors: torch shifts integers only");
}
END_TEST

START_TEST(shift_of_bools_is_refused)
{
    tb b = begin_typed(OX_BOOL, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_bool("other", 1)};
    refused(&b, "aten::__rshift__", 2, a, OX_BOOL, 2, d34, 13,
            "aten::__rshift__ at U: >> of bool tensors: torch shifts integers only");
}
END_TEST

START_TEST(shift_count_past_63_is_refused)
{
    tb b = begin_typed(OX_INT64, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_int("other", 64)};
    refused(&b, "aten::__lshift__", 2, a, OX_INT64, 2, d34, 9,
            "aten::__lshift__ at U: shift count 64 is outside [0, 63]");
}
END_TEST

START_TEST(lerp_without_end_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_none("end"), ox_arg_float("weight", 0.5)};
    refused(&b, "aten::lerp", 3, a, OX_FLOAT, 2, d34, 13,
            "aten::lerp at U: required tensor argument 'end' is None");
}
END_TEST

START_TEST(addcdiv_without_tensor2_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_tensor("tensor1", b.x),
                  ox_arg_none("tensor2")};
    refused(&b, "aten::addcdiv", 3, a, OX_FLOAT, 2, d34, 13,
            "aten::addcdiv at U: required tensor argument 'tensor2' is None");
}
END_TEST

START_TEST(prelu_without_weight_is_refused)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_arg a[] = {ox_arg_tensor("self", b.x), ox_arg_none("weight")};
    refused(&b, "aten::prelu", 2, a, OX_FLOAT, 2, d34, 13,
            "aten::prelu at U: required tensor argument 'weight' is None");
}
END_TEST

/* train=None is training to ATen's native_dropout: the check hook refuses it
 * like train=True below opset 12 (the table's rows cover True), and from 12
 * it converts to a training-mode Dropout. */
static ox_graph *native_dropout_train_none(tb *b)
{
    ox_arg a[] = {ox_arg_tensor("input", b->x), ox_arg_float("p", 0.5), ox_arg_none("train")};
    ox_vid y[2] = {0, 0};
    ox_tensor_desc d[2] = {{OX_FLOAT, 2, d34}, {OX_BOOL, 2, d34}};
    ck_assert_msg(ox_trace_op(b->t, "aten::native_dropout", 3, a, 2, d, y) == OX_OK, "%s",
                  ox_errmsg(b->ctx));
    ck_assert_int_eq(ox_trace_output(b->t, y[0], "y"), OX_OK);
    return tb_finish(b);
}

START_TEST(native_dropout_train_none_is_training)
{
    tb b = begin_typed(OX_FLOAT, 2, d34);
    ox_graph *g = native_dropout_train_none(&b);
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b.ctx, g, 11, &onnx), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(b.ctx), "\n  - aten::native_dropout at U: native_dropout in "
                                           "training mode (train=True or None) needs Dropout's "
                                           "training_mode input (opset 12); before it Dropout is "
                                           "the identity; supported from opset 12") != NULL,
                  "%s", ox_errmsg(b.ctx));
    ck_assert_int_eq(ox_convert(b.ctx, g, 13, &onnx), OX_OK);
    ox_graph_free(onnx);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("symbolics_unary");
    TCase *tc = tcase_create("refusals");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, celu_alpha_zero_is_refused);
    tcase_add_test(tc, glu_of_an_odd_dimension_is_refused);
    tcase_add_test(tc, glu_dim_out_of_range_is_refused);
    tcase_add_test(tc, bitwise_not_of_floats_is_refused);
    tcase_add_test(tc, shift_of_floats_is_refused);
    tcase_add_test(tc, shift_of_bools_is_refused);
    tcase_add_test(tc, shift_count_past_63_is_refused);
    tcase_add_test(tc, lerp_without_end_is_refused);
    tcase_add_test(tc, addcdiv_without_tensor2_is_refused);
    tcase_add_test(tc, prelu_without_weight_is_refused);
    tcase_add_test(tc, native_dropout_train_none_is_training);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
