/*
 * The refusals of the indexing, factory and random symbolics (gather.c,
 * scatter.c, diagonal.c, sequence.c, random.c) that PyTorch's own checks
 * keep the PyTorch host from ever recording: a C host may still record
 * them, and each must get its clear message rather than a wrong graph.
 * (What PyTorch can record is tested in tests/ops/rows/index.py.)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

/* Trace one op over a float input "x" of shape xd, whose (float) output has
 * shape yd, and assert that converting at `opset` reports `line`. */
static void refused(int rank, const int64_t *xd, const char *kind, size_t n_args, ox_arg *args,
                    int y_rank, const int64_t *yd, int opset, const char *line)
{
    tb b = tb_open(sym_new_ctx(false), "G");
    ck_assert_int_eq(ox_trace_input(b.t, "x", OX_FLOAT, (uint32_t)rank, xd, &b.x), OX_OK);
    for (size_t i = 0; i < n_args; i++)
        if (args[i].kind == OX_ARG_TENSOR && args[i].u.tensor == 0)
            args[i].u.tensor = b.x; /* "the input" */
    ox_vid y = tb_op(&b, kind, n_args, args, y_rank, yd);
    ck_assert_int_eq(ox_trace_output(b.t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b.ctx, g, opset, &onnx), OX_OK);
    char expect[1024];
    snprintf(expect, sizeof expect, "\n  - %s", line);
    ck_assert_msg(strstr(ox_errmsg(b.ctx), expect) != NULL, "opset %d: %s", opset, ox_errmsg(b.ctx));
    ox_graph_free(g);
    ox_context_free(b.ctx);
}

START_TEST(as_strided_size_and_stride_counts_differ)
{
    int64_t xd[1] = {12}, size[2] = {2, 2}, stride[1] = {1};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_ints("size", size, 2), ox_arg_ints("stride", stride, 1)};
    refused(1, xd, "aten::as_strided", 3, a, 2, size, 13,
            "aten::as_strided at G: argument 'size' has 2 values but 'stride' has 1");
}
END_TEST

START_TEST(as_strided_negative_stride)
{
    int64_t xd[1] = {12}, size[2] = {2, 2}, stride[2] = {1, -1};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_ints("size", size, 2), ox_arg_ints("stride", stride, 2)};
    refused(1, xd, "aten::as_strided", 3, a, 2, size, 13,
            "aten::as_strided at G: as_strided needs non-negative sizes and strides, got size 2 and "
            "stride -1 at 1");
}
END_TEST

START_TEST(as_strided_past_the_input)
{
    int64_t xd[2] = {3, 4}, size[1] = {3}, stride[1] = {5};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_ints("size", size, 1), ox_arg_ints("stride", stride, 1),
                  ox_arg_int("storage_offset", 2)};
    refused(2, xd, "aten::as_strided", 4, a, 1, size, 13,
            "aten::as_strided at G: as_strided reads position 12 of an input of 12 elements");
}
END_TEST

START_TEST(diagonal_of_one_dim_twice)
{
    int64_t xd[2] = {3, 3}, yd[1] = {3};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_int("dim1", 1), ox_arg_int("dim2", -1)};
    refused(2, xd, "aten::diagonal", 3, a, 1, yd, 13,
            "aten::diagonal at G: arguments 'dim1' and 'dim2' are both dim 1");
}
END_TEST

START_TEST(diagonal_empty)
{
    int64_t xd[2] = {3, 4}, yd[1] = {0};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_int("offset", 4)};
    refused(2, xd, "aten::diagonal", 2, a, 1, yd, 13,
            "aten::diagonal at G: diagonal with offset 4 of a 3 x 4 matrix is empty; not exported");
}
END_TEST

START_TEST(randint_empty_range)
{
    int64_t xd[1] = {2}, size[1] = {3};
    ox_arg a[] = {ox_arg_int("low", 5), ox_arg_int("high", 5), ox_arg_ints("size", size, 1)};
    refused(1, xd, "aten::randint", 3, a, 1, size, 13,
            "aten::randint at G: randint needs low < high, got low 5 and high 5");
}
END_TEST

START_TEST(rand_negative_size)
{
    int64_t xd[1] = {2}, size[2] = {3, -2}, yd[2] = {3, 0};
    ox_arg a[] = {ox_arg_ints("size", size, 2)};
    refused(1, xd, "aten::rand", 1, a, 2, yd, 13,
            "aten::rand at G: argument 'size'[1] is -2; sizes must be non-negative");
}
END_TEST

START_TEST(linspace_negative_steps)
{
    int64_t xd[1] = {2}, yd[1] = {0};
    ox_arg a[] = {ox_arg_int("start", 0), ox_arg_int("end", 1), ox_arg_int("steps", -1)};
    refused(1, xd, "aten::linspace", 3, a, 1, yd, 13,
            "aten::linspace at G: argument 'steps' is -1; it must be non-negative");
}
END_TEST

START_TEST(multinomial_of_rank_3)
{
    int64_t xd[3] = {2, 2, 3}, yd[3] = {2, 2, 1};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_int("num_samples", 1)};
    refused(3, xd, "aten::multinomial", 2, a, 3, yd, 13,
            "aten::multinomial at G: multinomial takes a 1-D or 2-D input, got rank 3");
}
END_TEST

START_TEST(scatter_unknown_reduce)
{
    int64_t xd[2] = {3, 4};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_int("dim", 1), ox_arg_tensor("index", 0),
                  ox_arg_tensor("src", 0), ox_arg_string("reduce", "max")};
    refused(2, xd, "aten::scatter", 5, a, 2, xd, 17,
            "aten::scatter at G: argument 'reduce' is 'max'; scatter reduces with 'add' or 'multiply'");
}
END_TEST

START_TEST(index_add_source_smaller_than_self)
{
    int64_t xd[2] = {3, 4};
    ox_arg a[] = {ox_arg_tensor("self", 0), ox_arg_int("dim", 1), ox_arg_tensor("index", 0),
                  ox_arg_tensor("source", 0)};
    tb b = tb_open(sym_new_ctx(false), "G");
    int64_t id[1] = {2}, sd[2] = {2, 2};
    ox_vid idx, src;
    ck_assert_int_eq(ox_trace_input(b.t, "x", OX_FLOAT, 2, xd, &b.x), OX_OK);
    ck_assert_int_eq(ox_trace_input(b.t, "i", OX_INT64, 1, id, &idx), OX_OK);
    ck_assert_int_eq(ox_trace_input(b.t, "s", OX_FLOAT, 2, sd, &src), OX_OK);
    a[0].u.tensor = b.x;
    a[2].u.tensor = idx;
    a[3].u.tensor = src;
    ox_vid y = tb_op(&b, "aten::index_add", 4, a, 2, xd);
    ck_assert_int_eq(ox_trace_output(b.t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(b.ctx, g, 13, &onnx), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(b.ctx),
                         "\n  - aten::index_add at G: index_add with an index smaller than self "
                         "outside dim needs ScatterElements with reduction, from opset 16") != NULL,
                  "%s", ox_errmsg(b.ctx));
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

static Suite *index_guards_suite(void)
{
    Suite *s = suite_create("index_guards");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, as_strided_size_and_stride_counts_differ);
    tcase_add_test(tc, as_strided_negative_stride);
    tcase_add_test(tc, as_strided_past_the_input);
    tcase_add_test(tc, diagonal_of_one_dim_twice);
    tcase_add_test(tc, diagonal_empty);
    tcase_add_test(tc, randint_empty_range);
    tcase_add_test(tc, rand_negative_size);
    tcase_add_test(tc, linspace_negative_steps);
    tcase_add_test(tc, multinomial_of_rank_3);
    tcase_add_test(tc, scatter_unknown_reduce);
    tcase_add_test(tc, index_add_source_smaller_than_self);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(index_guards_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
