/*
 * Operators of variable arity and the aten pack's check hooks.
 *
 * split, split_with_sizes, chunk and unbind are declared
 * OX_OP_OUTPUTS_AS_RECORDED: one recorded node with as many outputs as the
 * host saw becomes one Split.  Traced here with the public tracer, converted
 * at opsets 9, 13 (Split's sizes become an input) and 17, checked with
 * onnx.checker and run in ONNX Runtime against the pieces cut in C.
 *
 * The check hooks report what an opset cannot express before any node is
 * built; each case asserts the report line, lifting opset included.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxport/oxport.h"
#include "symbolic_harness.h"

static const int opsets[] = {9, 13, 17};
#define N_OPSETS 3
#define MAX_PIECES 8

/* x [rows, cols] with values 0, 1, 2, ... */
static float *iota(size_t n)
{
    float *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)i;
    return x;
}

/* Piece p of x [rows, cols] cut along dim at [start, start + len). */
static void cut(const float *x, int64_t rows, int64_t cols, int dim, int64_t start, int64_t len,
                float *out)
{
    size_t k = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            int64_t at = dim == 0 ? r : c;
            if (at >= start && at < start + len)
                out[k++] = x[r * cols + c];
        }
}

typedef struct piece {
    int rank;
    int64_t dims[2];
    int64_t start, len; /* along the split dim */
} piece;

/* Traces `kind` on x [rows, cols] with args, one output per piece, converts
 * at every opset, runs it and compares each output with its cut of x. */
static void split_case(const char *kind, int64_t rows, int64_t cols, int dim, size_t n_args,
                       const ox_arg *rest, size_t n_pieces, const piece *pieces)
{
    int64_t xd[2] = {rows, cols};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg args[4] = {ox_arg_tensor("self", x)};
    for (size_t i = 0; i < n_args; i++)
        args[1 + i] = rest[i];
    ox_tensor_desc od[MAX_PIECES];
    ox_vid outs[MAX_PIECES];
    for (size_t i = 0; i < n_pieces; i++)
        od[i] = (ox_tensor_desc){OX_FLOAT, (uint32_t)pieces[i].rank, pieces[i].dims};
    ck_assert_msg(ox_trace_op(b.t, kind, 1 + n_args, args, n_pieces, od, outs) == OX_OK, "%s",
                  ox_errmsg(b.ctx));
    for (size_t i = 0; i < n_pieces; i++) {
        char name[24];
        snprintf(name, sizeof name, "y%zu", i);
        ck_assert_int_eq(ox_trace_output(b.t, outs[i], name), OX_OK);
    }
    ox_graph *g = tb_finish(&b);
    float *xv = iota((size_t)(rows * cols));
    for (int o = 0; o < N_OPSETS; o++) {
        char dir[] = "/tmp/oxsplit-XXXXXX", path[4200];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        sym_write_checked(b.ctx, g, opsets[o], dir);
        feed f = {"x", "float32", 2, xd, xv, sizeof(float)};
        sym_run_ort(dir, opsets[o], 1, &f);
        for (size_t i = 0; i < n_pieces; i++) {
            size_t want_n = numel(pieces[i].rank, pieces[i].dims), n = 0;
            float want[64];
            ck_assert_uint_le(want_n, 64);
            cut(xv, rows, cols, dim, pieces[i].start, pieces[i].len, want);
            snprintf(path, sizeof path, "%s/out/output_%zu.bin", dir, i);
            float *got = read_file(path, &n);
            ck_assert_msg(n == want_n * sizeof(float), "%s opset %d piece %zu: %zu bytes, want %zu",
                          kind, opsets[o], i, n, want_n * sizeof(float));
            for (size_t k = 0; k < want_n; k++)
                ck_assert_msg(got[k] == want[k], "%s opset %d piece %zu [%zu]: got %g, want %g",
                              kind, opsets[o], i, k, (double)got[k], (double)want[k]);
            free(got);
        }
        rm_rf(dir);
    }
    free(xv);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}

START_TEST(split_by_size_leaves_a_shorter_last_piece)
{
    /* [2, 5] in pieces of 2 along dim 1: 2, 2, 1. */
    ox_arg a[] = {ox_arg_int("split_size", 2), ox_arg_int("dim", 1)};
    piece p[3] = {{2, {2, 2}, 0, 2}, {2, {2, 2}, 2, 2}, {2, {2, 1}, 4, 1}};
    split_case("aten::split", 2, 5, 1, 2, a, 3, p);
}
END_TEST

START_TEST(split_sizes_overload_and_split_with_sizes)
{
    /* [4, 2] into 1 and 3 rows, dim left out (0). */
    static const int64_t sizes[2] = {1, 3};
    piece p[2] = {{2, {1, 2}, 0, 1}, {2, {3, 2}, 1, 3}};
    ox_arg a[] = {ox_arg_ints("split_size", sizes, 2)};
    split_case("aten::split", 4, 2, 0, 1, a, 2, p);
    ox_arg w[] = {ox_arg_ints("split_sizes", sizes, 2), ox_arg_int("dim", -2)};
    split_case("aten::split_with_sizes", 4, 2, 0, 2, w, 2, p);
}
END_TEST

START_TEST(chunk_in_equal_and_unequal_pieces)
{
    /* [2, 6] in 3 chunks along the last dim: 2 each (Split without sizes). */
    ox_arg a[] = {ox_arg_int("chunks", 3), ox_arg_int("dim", -1)};
    piece p[3] = {{2, {2, 2}, 0, 2}, {2, {2, 2}, 2, 2}, {2, {2, 2}, 4, 2}};
    split_case("aten::chunk", 2, 6, 1, 2, a, 3, p);
    /* [5, 1] in 3 chunks along dim 0: ceil(5/3) = 2, so 2, 2, 1. */
    ox_arg c[] = {ox_arg_int("chunks", 3)};
    piece q[3] = {{2, {2, 1}, 0, 2}, {2, {2, 1}, 2, 2}, {2, {1, 1}, 4, 1}};
    split_case("aten::chunk", 5, 1, 0, 1, c, 3, q);
}
END_TEST

START_TEST(unbind_removes_the_dim)
{
    ox_arg a[] = {ox_arg_int("dim", 1)};
    piece p[3] = {{1, {2}, 0, 1}, {1, {2}, 1, 1}, {1, {2}, 2, 1}};
    split_case("aten::unbind", 2, 3, 1, 1, a, 3, p);
}
END_TEST

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

START_TEST(split_count_must_match_the_recorded_outputs)
{
    int64_t xd[2] = {2, 5}, pd[2] = {2, 3};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("split_size", 2), ox_arg_int("dim", 1)};
    ox_tensor_desc od[2] = {{OX_FLOAT, 2, pd}, {OX_FLOAT, 2, pd}};
    ox_vid outs[2];
    ck_assert_int_eq(ox_trace_op(b.t, "aten::split", 3, a, 2, od, outs), OX_OK);
    ck_assert_int_eq(ox_trace_output(b.t, outs[0], "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    char line[512];
    snprintf(line, sizeof line,
             "aten::split at Net: pieces of 2 along a dim of 5 make 3 tensors, but the host "
             "recorded 2 outputs (symbolic in %s/plugins/aten/libox_aten.so)",
             getenv("OXPORT_TEST_BUILDDIR"));
    fails_at(b.ctx, g, 13, line);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

/* x [2, 6] and n = x.size(1) as a traced rank-0 int64 value. */
static ox_vid traced_len(tb *b, ox_vid *x)
{
    int64_t xd[2] = {2, 6};
    *x = tb_input(b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", *x), ox_arg_int("dim", 1)};
    ox_tensor_desc od = {OX_INT64, 0, NULL};
    ox_vid n;
    ck_assert_int_eq(ox_trace_op(b->t, "aten::size", 2, a, 1, &od, &n), OX_OK);
    return n;
}

/* One op of kind, its output of type dt / rank / dims the graph's y, must
 * fail at `opset` with `msg` (the report line after "<kind> at Net: "), and
 * convert at `lifted`. */
static void limited(const char *kind, size_t n_args, ox_arg *args, ox_dtype dt, int rank,
                    const int64_t *dims, tb *b, int opset, int lifted, const char *msg)
{
    ox_tensor_desc od = {dt, (uint32_t)rank, dims};
    ox_vid y;
    ck_assert_msg(ox_trace_op(b->t, kind, n_args, args, 1, &od, &y) == OX_OK, "%s",
                  ox_errmsg(b->ctx));
    ck_assert_int_eq(ox_trace_output(b->t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(b);
    char line[1024];
    snprintf(line, sizeof line, "%s at Net: %s; supported from opset %d", kind, msg, lifted);
    fails_at(b->ctx, g, opset, line);
    ox_graph *onnx = NULL;
    ck_assert_msg(ox_convert(b->ctx, g, lifted, &onnx) == OX_OK, "%s", ox_errmsg(b->ctx));
    ox_graph_free(onnx);
    ox_graph_free(g);
    ox_context_free(b->ctx);
}

START_TEST(slice_with_a_traced_bound_is_lifted_at_10)
{
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x, n = traced_len(&b, &x);
    int64_t yd[2] = {2, -1};
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_int("dim", 1), ox_arg_int("start", 1),
                  ox_arg_tensor("end", n)};
    limited("aten::slice", 4, a, OX_FLOAT, 2, yd, &b, 9, 10,
            "a slice bound computed from a traced size needs Slice's inputs");
}
END_TEST

/* [x.size(dim), x.size(dim)] as a 1-D int64 value, as a host builds a size
 * list from traced ints. */
static ox_vid traced_pair(tb *b, ox_vid x, int64_t dim)
{
    int64_t one = 1, two = 2;
    ox_arg sa[] = {ox_arg_tensor("self", x), ox_arg_int("dim", dim)};
    ox_tensor_desc sd = {OX_INT64, 0, NULL}, ud = {OX_INT64, 1, &one}, cd = {OX_INT64, 1, &two};
    ox_vid n, n1, pair;
    ck_assert_int_eq(ox_trace_op(b->t, "aten::size", 2, sa, 1, &sd, &n), OX_OK);
    ox_arg ua[] = {ox_arg_tensor("self", n), ox_arg_int("dim", 0)};
    ck_assert_int_eq(ox_trace_op(b->t, "aten::unsqueeze", 2, ua, 1, &ud, &n1), OX_OK);
    ox_vid parts[2] = {n1, n1};
    ox_arg ca[] = {ox_arg_tensors("tensors", parts, 2), ox_arg_int("dim", 0)};
    ck_assert_int_eq(ox_trace_op(b->t, "aten::cat", 2, ca, 1, &cd, &pair), OX_OK);
    return pair;
}

START_TEST(constant_pad_with_traced_amounts_is_lifted_at_11)
{
    int64_t xd[2] = {2, 6}, yd[2] = {2, 18};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("pad", traced_pair(&b, x, 1)),
                  ox_arg_int("value", 0)};
    limited("aten::constant_pad_nd", 3, a, OX_FLOAT, 2, yd, &b, 10, 11,
            "pad amounts computed from traced sizes need Pad's pads input");
}
END_TEST

START_TEST(arange_with_a_float_step_is_lifted_at_11)
{
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x, n = traced_len(&b, &x);
    int64_t yd[1] = {-1};
    ox_arg a[] = {ox_arg_int("start", 0), ox_arg_tensor("end", n), ox_arg_float("step", 0.5),
                  ox_arg_dtype("dtype", OX_FLOAT)};
    limited("aten::arange", 4, a, OX_FLOAT, 1, yd, &b, 9, 11,
            "arange with a traced bound needs Range unless it is an integer range with a "
            "constant step");
}
END_TEST

START_TEST(arange_with_a_negative_step_is_lifted_at_11)
{
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x, n = traced_len(&b, &x);
    int64_t yd[1] = {-1};
    ox_arg a[] = {ox_arg_tensor("start", n), ox_arg_int("end", 0), ox_arg_int("step", -1),
                  ox_arg_dtype("dtype", OX_INT64)};
    limited("aten::arange", 4, a, OX_INT64, 1, yd, &b, 10, 11,
            "arange with a traced bound and a step of -1 needs Range");
}
END_TEST

START_TEST(several_index_tensors_are_lifted_at_11)
{
    int64_t xd[2] = {3, 3}, id[1] = {2}, idx[2] = {0, 1}, yd[1] = {2};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd), i;
    ck_assert_int_eq(ox_trace_const(b.t, OX_INT64, 1, id, idx, OX_COPY, &i), OX_OK);
    ox_vid key[2] = {i, i};
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensors("indices", key, 2)};
    limited("aten::index", 2, a, OX_FLOAT, 1, yd, &b, 10, 11,
            "indexing with several index tensors (or a boolean mask next to an index tensor) "
            "needs GatherND");
}
END_TEST

START_TEST(upsample_to_a_traced_size_is_lifted_at_11)
{
    int64_t xd[4] = {1, 1, 2, 2}, yd[4] = {1, 1, 2, 2};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 4, xd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("output_size", traced_pair(&b, x, 2))};
    limited("aten::upsample_nearest2d", 2, a, OX_FLOAT, 4, yd, &b, 10, 11,
            "an output size computed from traced sizes needs Resize's sizes input");
}
END_TEST

START_TEST(slice_scatter_into_a_dim_of_unknown_size_before_11_is_a_clear_error)
{
    int64_t xd[2] = {2, -1}, sd[2] = {2, 1};
    tb b = tb_open(sym_new_ctx(false), "Net");
    ox_vid x = tb_input(&b, "x", OX_FLOAT, 2, xd), src = tb_input(&b, "src", OX_FLOAT, 2, sd);
    ox_arg a[] = {ox_arg_tensor("self", x), ox_arg_tensor("src", src), ox_arg_int("dim", 1),
                  ox_arg_int("start", 0), ox_arg_int("end", 1)};
    ox_vid y = tb_op(&b, "aten::slice_scatter", 5, a, 2, xd);
    ck_assert_int_eq(ox_trace_output(b.t, y, "y"), OX_OK);
    ox_graph *g = tb_finish(&b);
    char line[512];
    snprintf(line, sizeof line,
             "aten::slice_scatter at Net: writing into a slice of dim 1, whose size is unknown, "
             "needs Range, from opset 11; record the size or export with opset 11 or later "
             "(symbolic in %s/plugins/aten/libox_aten.so)",
             getenv("OXPORT_TEST_BUILDDIR"));
    fails_at(b.ctx, g, 10, line);
    ox_graph *onnx = NULL;
    ck_assert_msg(ox_convert(b.ctx, g, 11, &onnx) == OX_OK, "%s", ox_errmsg(b.ctx));
    ox_graph_free(onnx);
    ox_graph_free(g);
    ox_context_free(b.ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, split_by_size_leaves_a_shorter_last_piece);
    tcase_add_test(tc, split_sizes_overload_and_split_with_sizes);
    tcase_add_test(tc, chunk_in_equal_and_unequal_pieces);
    tcase_add_test(tc, unbind_removes_the_dim);
    tcase_add_test(tc, split_count_must_match_the_recorded_outputs);
    tcase_add_test(tc, slice_with_a_traced_bound_is_lifted_at_10);
    tcase_add_test(tc, constant_pad_with_traced_amounts_is_lifted_at_11);
    tcase_add_test(tc, arange_with_a_float_step_is_lifted_at_11);
    tcase_add_test(tc, arange_with_a_negative_step_is_lifted_at_11);
    tcase_add_test(tc, several_index_tensors_are_lifted_at_11);
    tcase_add_test(tc, upsample_to_a_traced_size_is_lifted_at_11);
    tcase_add_test(tc, slice_scatter_into_a_dim_of_unknown_size_before_11_is_a_clear_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
