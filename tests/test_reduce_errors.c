/*
 * The error paths of the reduction, norm and loss symbolics that the
 * PyTorch host never reaches (it records every size, only float moments,
 * ATen's three reductions, orders and dims torch accepted): a C host can,
 * and each gets a clear report line.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

/* Conversion at `opset` fails with exactly this report line. */
static void fails_at(ox_context *ctx, ox_graph *g, int opset, const char *line)
{
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(ctx, g, opset, &onnx), OX_OK);
    char expect[1024];
    snprintf(expect, sizeof expect, "\n  - %s\n", line);
    char have[8192];
    snprintf(have, sizeof have, "%s\n", ox_errmsg(ctx));
    ck_assert_msg(strstr(have, expect) != NULL, "opset %d: %s", opset, ox_errmsg(ctx));
}

/* The graph of one op whose first output is y; b is finished and freed. */
static ox_graph *one_op(tb *b, const char *kind, size_t n_args, const ox_arg *args,
                        size_t n_out, const ox_tensor_desc *od)
{
    ox_vid outs[2];
    ck_assert_msg(ox_trace_op(b->t, kind, n_args, args, n_out, od, outs) == OX_OK, "%s",
                  ox_errmsg(b->ctx));
    static const char *const names[2] = {"y0", "y1"};
    for (size_t i = 0; i < n_out; i++)
        ck_assert_int_eq(ox_trace_output(b->t, outs[i], names[i]), OX_OK);
    return tb_finish(b);
}

static void symbolic_fails(tb *b, ox_graph *g, int opset, const char *kind, const char *msg)
{
    char line[1024];
    snprintf(line, sizeof line, "%s at Net: %s (symbolic in %s/plugins/aten/libox_aten.so)", kind,
             msg, getenv("OXPORT_TEST_BUILDDIR"));
    fails_at(b->ctx, g, opset, line);
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

START_TEST(sort_along_a_dim_of_unknown_size_is_lifted_at_10)
{
    int64_t xd[2] = {2, -1};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("dim", 1), ox_arg_bool("descending", 1)};
    ox_tensor_desc od[2] = {{OX_FLOAT, 2, xd}, {OX_INT64, 2, xd}};
    ox_graph *g = one_op(&b, "aten::sort", 3, a, 2, od);
    fails_at(b.ctx, g, 9,
             "aten::sort at Net: sorting along a dim of unrecorded size needs TopK's k input; "
             "supported from opset 10");
    ox_graph *onnx = NULL;
    ck_assert_msg(ox_convert(b.ctx, g, 10, &onnx) == OX_OK, "%s", ox_errmsg(b.ctx));
    ox_graph_free(onnx);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(var_of_integers_is_a_clear_error)
{
    int64_t xd[2] = {3, 4}, yd[1] = {3};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_INT64, 2, xd);
    int64_t dim = 1;
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_ints("dim", &dim, 1)};
    ox_tensor_desc od = {OX_FLOAT, 1, yd};
    ox_graph *g = one_op(&b, "aten::var", 2, a, 1, &od);
    symbolic_fails(&b, g, 13, "aten::var", "argument 'self' is not a floating-point tensor");
}
END_TEST

START_TEST(nll_loss_with_an_unknown_reduction_is_a_clear_error)
{
    int64_t xd[2] = {4, 3}, td[1] = {4};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd), t = tb_input(&b, "t", OX_INT64, 1, td);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("target", t), ox_arg_int("reduction", 5)};
    ox_tensor_desc od = {OX_FLOAT, 0, NULL};
    ox_graph *g = one_op(&b, "aten::nll_loss", 3, a, 1, &od);
    symbolic_fails(&b, g, 13, "aten::nll_loss",
                   "argument 'reduction' is 5; ATen's reductions are 0 (none), 1 (mean) and 2 (sum)");
}
END_TEST

START_TEST(cdist_of_a_vector_is_a_clear_error)
{
    int64_t ad[1] = {4}, bd[2] = {5, 4}, yd[1] = {5};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x1 = tb_input(&b, "a", OX_FLOAT, 1, ad), x2 = tb_input(&b, "b", OX_FLOAT, 2, bd);
    ox_arg a[] = {ox_arg_tensor("x1", x1), ox_arg_tensor("x2", x2), ox_arg_float("p", 2.0)};
    ox_tensor_desc od = {OX_FLOAT, 1, yd};
    ox_graph *g = one_op(&b, "aten::cdist", 3, a, 1, &od);
    symbolic_fails(&b, g, 13, "aten::cdist",
                   "cdist needs inputs of known rank 2 or more (got ranks 1 and 2)");
}
END_TEST

START_TEST(matrix_norm_of_an_order_torch_lacks_is_refused)
{
    int64_t xd[2] = {3, 4};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_float("ord", 3.0)};
    ox_tensor_desc od = {OX_FLOAT, 0, NULL};
    ox_graph *g = one_op(&b, "aten::linalg_matrix_norm", 2, a, 1, &od);
    fails_at(b.ctx, g, 13,
             "aten::linalg_matrix_norm at Net: argument 'ord' is 3; matrix norms have the orders "
             "'fro', 'nuc', inf, -inf, 1, -1, 2 and -2");
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

START_TEST(tensordot_with_unpaired_dims_is_a_clear_error)
{
    int64_t ad[2] = {2, 3}, bd[2] = {3, 2}, yd[2] = {2, 2};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "a", OX_FLOAT, 2, ad), y = tb_input(&b, "b", OX_FLOAT, 2, bd);
    int64_t da[1] = {1}, db[2] = {0, 1};
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("other", y), ox_arg_ints("dims_self", da, 1),
                  ox_arg_ints("dims_other", db, 2)};
    ox_tensor_desc od = {OX_FLOAT, 2, yd};
    ox_graph *g = one_op(&b, "aten::tensordot", 4, a, 1, &od);
    symbolic_fails(&b, g, 13, "aten::tensordot",
                   "arguments 'dims_self' and 'dims_other' have 1 and 2 entries");
}
END_TEST

START_TEST(cross_without_dim_and_no_dim_of_size_3_is_a_clear_error)
{
    int64_t xd[2] = {2, 4};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "a", OX_FLOAT, 2, xd), y = tb_input(&b, "b", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("other", y)};
    ox_tensor_desc od = {OX_FLOAT, 2, xd};
    ox_graph *g = one_op(&b, "aten::cross", 2, a, 1, &od);
    symbolic_fails(&b, g, 13, "aten::cross", "torch.cross without 'dim' needs a dim of size 3");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce_errors");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sort_along_a_dim_of_unknown_size_is_lifted_at_10);
    tcase_add_test(tc, var_of_integers_is_a_clear_error);
    tcase_add_test(tc, nll_loss_with_an_unknown_reduction_is_a_clear_error);
    tcase_add_test(tc, cdist_of_a_vector_is_a_clear_error);
    tcase_add_test(tc, matrix_norm_of_an_order_torch_lacks_is_refused);
    tcase_add_test(tc, tensordot_with_unpaired_dims_is_a_clear_error);
    tcase_add_test(tc, cross_without_dim_and_no_dim_of_size_3_is_a_clear_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
