/* Ranks of values a symbolic builds, from ONNX's rules for their producers
 * (rank_of.h): what is inferred, and what stays unknown. */
#include <check.h>

#include "ir.h"
#include "rank_of.h"
#include "test_util.h"

static ox_graph *g;

static void setup(void)
{
    g = ox_graph_new("m");
    ck_assert_ptr_nonnull(g);
}

static void teardown(void)
{
    ox_graph_free(g);
}

/* A graph input of the given rank (-1: unknown), its dims unknown. */
static ox_vid input(int32_t rank)
{
    int64_t dims[4] = {-1, -1, -1, -1};
    ox_value *v = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, rank, rank > 0 ? dims : NULL);
    ck_assert_ptr_nonnull(v);
    return v->id;
}

static ox_vid op(const char *kind, uint32_t n, const ox_vid *in)
{
    ox_node *node = ox_graph_add_node(g, kind, n, in, 1);
    ck_assert_ptr_nonnull(node);
    return node->outputs[0];
}

static int rank(ox_vid v)
{
    return ox_rank_of(g, ox_graph_value(g, v));
}

START_TEST(elementwise_ops_keep_their_input_rank)
{
    ox_vid x = input(3);
    ox_vid cast = op("onnx::Cast", 1, &x);
    ck_assert_int_eq(rank(cast), 3);
    ox_vid neg = op("onnx::Neg", 1, &cast);
    ck_assert_int_eq(rank(op("onnx::Exp", 1, &neg)), 3);
    ck_assert_int_eq(rank(op("onnx::Softmax", 1, &x)), 3);
    ox_vid s = input(0);
    ck_assert_int_eq(rank(op("onnx::Cast", 1, &s)), 0);
}
END_TEST

START_TEST(broadcasting_ops_take_the_largest_rank)
{
    ox_vid a = input(1), b = input(4), c = input(0);
    ck_assert_int_eq(rank(op("onnx::Add", 2, (ox_vid[]){a, b})), 4);
    ck_assert_int_eq(rank(op("onnx::Less", 2, (ox_vid[]){op("onnx::Cast", 1, &a), c})), 1);
    ck_assert_int_eq(rank(op("onnx::Where", 3, (ox_vid[]){c, a, c})), 1);
}
END_TEST

START_TEST(unknown_stays_unknown)
{
    ox_vid x = input(-1), y = input(2);
    ck_assert_int_eq(rank(op("onnx::Cast", 1, &x)), -1);
    ck_assert_int_eq(rank(op("onnx::Add", 2, (ox_vid[]){x, y})), -1);
    /* operators whose rank depends on more than their inputs' ranks */
    ck_assert_int_eq(rank(op("onnx::Reshape", 2, (ox_vid[]){y, y})), -1);
    ck_assert_int_eq(rank(op("onnx::Unsqueeze", 1, &y)), -1);
    /* other domains keep their own rules */
    ck_assert_int_eq(rank(op("com.microsoft::Gelu", 1, &y)), -1);
    /* an absent optional input */
    ck_assert_int_eq(rank(op("onnx::Add", 2, (ox_vid[]){y, 0})), -1);
}
END_TEST

START_TEST(a_long_chain_is_followed_only_so_far)
{
    ox_vid v = input(2);
    for (int i = 0; i < 8; i++)
        v = op("onnx::Relu", 1, &v);
    ck_assert_int_eq(rank(v), 2);
    v = op("onnx::Relu", 1, &v);
    ck_assert_int_eq(rank(v), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rank_of");
    TCase *tc = tcase_create("rank_of");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, elementwise_ops_keep_their_input_rank);
    tcase_add_test(tc, broadcasting_ops_take_the_largest_rank);
    tcase_add_test(tc, unknown_stays_unknown);
    tcase_add_test(tc, a_long_chain_is_followed_only_so_far);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
