/* The IR: arena, values, nodes, use counts, attributes, opsets. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "test_util.h"

START_TEST(arena_alignment_and_zeroing)
{
    ox_arena a;
    ox_arena_init(&a);
    for (int i = 1; i < 2000; i += 7) {
        unsigned char *p = ox_arena_alloc(&a, (size_t)i);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 16, 0);
        for (int k = 0; k < i; k++)
            ck_assert_uint_eq(p[k], 0);
        memset(p, 0xab, (size_t)i);
    }
    /* sizes the inline path leaves to ox_arena_alloc_slow: 0, and past
     * 64 KiB while the head chunk may still have room */
    unsigned char *z0 = ox_arena_alloc(&a, 0), *z1 = ox_arena_alloc(&a, 0);
    ck_assert_ptr_nonnull(z0);
    ck_assert_ptr_ne(z0, z1);
    unsigned char *mid = ox_arena_alloc(&a, 70000);
    ck_assert_ptr_nonnull(mid);
    ck_assert_uint_eq((uintptr_t)mid % 16, 0);
    ck_assert_uint_eq(mid[0] | mid[69999], 0);
    memset(mid, 0xab, 70000);
    unsigned char *small = ox_arena_alloc(&a, 24);
    ck_assert_uint_eq(small[0] | small[23], 0);
    /* an oversized block does not break the chunk small allocations use */
    void *big = ox_arena_alloc(&a, 5u << 20);
    ck_assert_ptr_nonnull(big);
    char *s = ox_arena_printf(&a, "%s-%d", "conv", 7);
    ck_assert_str_eq(s, "conv-7");
    ck_assert_str_eq(ox_arena_strndup(&a, "abcdef", 3), "abc");
    ck_assert_ptr_null(ox_arena_strdup(&a, NULL));
    ox_arena_free(&a);
}
END_TEST

/* Past 2 MiB the arena maps its chunks and skips the memset: what it hands
 * out must still be zero, aligned and apart, in small pieces and large. */
START_TEST(arena_mapped_chunks_are_zeroed_and_apart)
{
    ox_arena a;
    ox_arena_init(&a);
    unsigned char *prev = NULL;
    size_t prev_n = 0, bad = 0; /* counted, not asserted each time: Check's asserts are slow */
    for (size_t i = 0; i < 200000; i++) {
        size_t n = 1 + i % 61;
        unsigned char *p = ox_arena_alloc(&a, n);
        if (!p)
            ck_abort_msg("out of memory at allocation %zu", i);
        bad += (uintptr_t)p % 16 != 0;
        bad += (p[0] | p[n / 2] | p[n - 1]) != 0;
        memset(p, 0xcd, n);
        bad += prev && prev[prev_n - 1] != 0xcd; /* the previous block kept its bytes */
        prev = p;
        prev_n = n;
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_gt(a.total, (size_t)6 << 20); /* several mapped chunks */
    for (int r = 0; r < 3; r++) {
        unsigned char *big = ox_arena_alloc(&a, (size_t)(3 + r) << 20);
        ck_assert_ptr_nonnull(big);
        ck_assert_uint_eq(big[0] | big[((size_t)(3 + r) << 20) - 1], 0);
        memset(big, 0xef, (size_t)(3 + r) << 20);
    }
    unsigned char *after = ox_arena_alloc(&a, 32);
    ck_assert_ptr_nonnull(after);
    ck_assert_uint_eq(after[0] | after[31], 0);
    ox_arena_free(&a);
}
END_TEST

/* Nodes of one kind share its string, with their op_type and domain
 * pointing into it; another kind, or a long one, gets its own. */
START_TEST(nodes_of_a_kind_share_its_string)
{
    ox_graph *g = ox_graph_new("g");
    ox_node *a = ox_graph_add_node(g, "aten::relu", 0, NULL, 1);
    ox_node *b = ox_graph_add_node(g, "aten::relu", 0, NULL, 1);
    ox_node *c = ox_graph_add_node_op(g, "com.example", "Relu", 0, NULL, 1);
    ox_node *d = ox_graph_add_node_op(g, "onnx", "Relu", 0, NULL, 1);
    ox_node *e = ox_graph_add_node(g, "onnx::Relu", 0, NULL, 1);
    ck_assert_ptr_eq(a->kind, b->kind);
    ck_assert_str_eq(b->op_type, "relu");
    ck_assert_str_eq(b->domain, "aten");
    ck_assert_str_eq(c->kind, "com.example::Relu");
    ck_assert_str_eq(c->domain, "com.example");
    ck_assert_str_eq(c->op_type, "Relu");
    ck_assert_ptr_eq(d->kind, e->kind);
    ck_assert_str_eq(e->domain, "");
    ck_assert_str_eq(e->op_type, "Relu");
    char longer[400];
    memset(longer, 'x', sizeof longer - 8);
    memcpy(longer + sizeof longer - 8, "::Op", 5);
    ox_node *f = ox_graph_add_node(g, longer, 0, NULL, 1);
    ox_node *h = ox_graph_add_node(g, longer, 0, NULL, 1);
    ck_assert_ptr_ne(f->kind, h->kind); /* past the table's length: a copy each */
    ck_assert_str_eq(h->kind, longer);
    ck_assert_str_eq(h->op_type, "Op");
    ck_assert_uint_eq(strlen(h->domain), sizeof longer - 8);
    const char *n1 = ox_graph_arg_name(g, "self");
    ck_assert_ptr_eq(ox_graph_arg_name(g, "self"), n1);
    ck_assert_str_eq(ox_graph_arg_name(g, "other"), "other");
    ox_graph_free(g);
}
END_TEST

/* ox_graph_add_node_op remembers the kind it made for an op_type pointer
 * (ox_graph.kind_hints).  A node made through that hint has the kind, domain
 * and op_type the general path (ox_graph_add_node) gives it, also when the
 * same buffer is passed again holding another name, or with another domain. */
static void assert_kind_as_general(ox_graph *g, const ox_node *n, const char *kind)
{
    ox_node *ref = ox_graph_add_node(g, kind, 0, NULL, 1);
    ck_assert_str_eq(n->kind, ref->kind);
    ck_assert_str_eq(n->domain, ref->domain);
    ck_assert_str_eq(n->op_type, ref->op_type);
    ck_assert_ptr_eq(n->op_type, n->kind + strlen(n->kind) - strlen(n->op_type));
}

START_TEST(kind_hints_agree_with_the_general_path)
{
    ox_graph *g = ox_graph_new("g");
    char buf[32];
    static const char *const cases[][3] = {
        {"onnx", "Add", "onnx::Add"},        {"onnx", "Add", "onnx::Add"},
        {"com.example", "Add", "com.example::Add"}, {"onnx", "Addx", "onnx::Addx"},
        {"onnx", "Ad", "onnx::Ad"},          {"onnx", "Add", "onnx::Add"},
        {"onnxx", "Add", "onnxx::Add"},       {"onn", "Add", "onn::Add"},
        {"ai", "Add", "ai::Add"},            {"onnx", "Add", "onnx::Add"},
    };
    const ox_node *first = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(buf, sizeof buf, "%s", cases[i][1]); /* one address, other names */
        ox_node *n = ox_graph_add_node_op(g, cases[i][0], buf, 0, NULL, 1);
        ck_assert_ptr_nonnull(n);
        assert_kind_as_general(g, n, cases[i][2]);
        if (!first)
            first = n;
        else if (strcmp(cases[i][2], "onnx::Add") == 0)
            ck_assert_ptr_eq(n->kind, first->kind); /* still one shared string */
    }
    /* a literal op_type: the hint's usual case */
    for (int i = 0; i < 3; i++) {
        ox_node *n = ox_graph_add_node_op(g, "com.example", "Relu", 0, NULL, 1);
        assert_kind_as_general(g, n, "com.example::Relu");
    }
    ox_graph_free(g);
}
END_TEST

/* The graph lists the values made as constants, in id order, for the
 * passes that look for them; a listed value keeps its place when it
 * becomes something else, and the kind says what it is now. */
START_TEST(constants_are_listed_as_made)
{
    ox_graph *g = ox_graph_new("g");
    ox_value *a = ox_graph_add_value(g, OX_VAL_CONST, OX_FLOAT, 0, NULL);
    ox_graph_add_value(g, OX_VAL_NODE, OX_FLOAT, 0, NULL);
    ox_value *b = ox_graph_add_value(g, OX_VAL_CONST, OX_INT64, 1, (const int64_t[]){3});
    ck_assert_uint_eq(g->n_consts, 2);
    ck_assert_uint_eq(g->consts[0], a->id);
    ck_assert_uint_eq(g->consts[1], b->id);
    ck_assert_int_eq(ox_value_become_param(g, a->id), 0);
    ck_assert_uint_eq(g->n_consts, 2);
    ck_assert_int_eq(ox_graph_value(g, g->consts[0])->kind, OX_VAL_PARAM);
    ox_graph_free(g);
}
END_TEST

START_TEST(values_nodes_and_uses)
{
    ox_graph *g = ox_graph_new("Net");
    ck_assert_ptr_nonnull(g);
    int64_t dims[] = {1, 3, 8, 8};
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 4, dims);
    ck_assert_uint_eq(x->id, 1);
    ck_assert_int_eq(ox_graph_add_input(g, x->id), 0);
    ck_assert_ptr_null(ox_graph_value(g, 0));
    ck_assert_ptr_null(ox_graph_value(g, 99));

    ox_node *relu = ox_graph_add_node(g, "onnx::Relu", 1, &x->id, 1);
    ck_assert_str_eq(relu->domain, "");
    ck_assert_str_eq(relu->op_type, "Relu");
    ck_assert_uint_eq(x->n_uses, 1);
    ox_vid y = relu->outputs[0];
    ck_assert_ptr_eq(ox_graph_value(g, y)->producer, relu);

    ox_node *custom = ox_graph_add_node(g, "com.microsoft::Gelu", 1, &y, 1);
    ck_assert_str_eq(custom->domain, "com.microsoft");
    ck_assert_str_eq(custom->op_type, "Gelu");
    ck_assert_uint_eq(g->n_nodes, 2);

    /* rewiring moves use counts */
    ox_graph_replace_uses(g, y, x->id);
    ck_assert_uint_eq(custom->inputs[0], x->id);
    ck_assert_uint_eq(x->n_uses, 2);
    ck_assert_uint_eq(ox_graph_value(g, y)->n_uses, 0);

    ox_graph_remove_node(g, relu);
    ck_assert_uint_eq(g->n_nodes, 1);
    ck_assert_ptr_eq(g->first, custom);
    ck_assert_uint_eq(x->n_uses, 1);
    ox_graph_free(g);
}
END_TEST

START_TEST(attributes_replace_by_name)
{
    ox_graph *g = ox_graph_new("Net");
    ox_node *n = ox_graph_add_node(g, "onnx::Gemm", 0, NULL, 1);
    ox_attr *a = ox_node_add_attr(g, n, "alpha", OX_ATTR_FLOAT);
    a->u.f = 2.0;
    ox_attr *b = ox_node_add_attr(g, n, "transB", OX_ATTR_INT);
    b->u.i = 1;
    a = ox_node_add_attr(g, n, "alpha", OX_ATTR_FLOAT);
    a->u.f = 0.5;
    ck_assert_uint_eq(n->n_attrs, 2);
    ck_assert_double_eq(ox_node_attr(n, "alpha")->u.f, 0.5);
    ck_assert_int_eq(ox_node_attr(n, "transB")->u.i, 1);
    ck_assert_ptr_null(ox_node_attr(n, "beta"));
    ox_graph_free(g);
}
END_TEST

START_TEST(opsets_and_ir_versions)
{
    ox_graph *g = ox_graph_new("m");
    ck_assert_int_eq(ox_graph_opset(g, ""), 0);
    ox_graph_set_opset(g, "", 9);
    ox_graph_set_opset(g, "ai.onnx", 13); /* same domain, raised */
    ox_graph_set_opset(g, "com.example", 1);
    ck_assert_uint_eq(g->n_opsets, 2);
    ck_assert_int_eq(ox_graph_opset(g, ""), 13);
    ck_assert_int_eq(ox_graph_opset(g, "com.example"), 1);
    ox_graph_free(g);

    ck_assert_int_eq(ox_ir_version_for_opset(8), 3);
    ck_assert_int_eq(ox_ir_version_for_opset(9), 4);
    ck_assert_int_eq(ox_ir_version_for_opset(10), 5);
    ck_assert_int_eq(ox_ir_version_for_opset(11), 6);
    ck_assert_int_eq(ox_ir_version_for_opset(13), 7);
    ck_assert_int_eq(ox_ir_version_for_opset(17), 8);
    ck_assert_int_eq(ox_ir_version_for_opset(20), 9);
    ck_assert_int_eq(ox_ir_version_for_opset(21), 10);
}
END_TEST

START_TEST(owned_tensors_large_and_small)
{
    ox_graph *g = ox_graph_new("m");
    ox_tensor_data small = {0}, large = {0};
    float s[4] = {1, 2, 3, 4};
    size_t big_n = (size_t)OX_IR_MALLOC_THRESHOLD * 2;
    unsigned char *b = malloc(big_n);
    memset(b, 7, big_n);
    ck_assert_int_eq(ox_tensor_own(g, &small, s, sizeof s), 0);
    ck_assert_int_eq(ox_tensor_own(g, &large, b, big_n), 0);
    free(b);
    ck_assert_mem_eq(small.data, s, sizeof s);
    ck_assert_uint_eq(((const unsigned char *)large.data)[big_n - 1], 7);
    /* the large copy belongs to a value so ox_graph_free releases it (ASan checks) */
    int64_t d = (int64_t)big_n;
    ox_value *v = ox_graph_add_value(g, OX_VAL_PARAM, OX_UINT8, 1, &d);
    v->tensor = large;
    ox_graph_free(g);
}
END_TEST

START_TEST(dtype_tables)
{
    ck_assert_uint_eq(ox_dtype_size(OX_FLOAT), 4);
    ck_assert_uint_eq(ox_dtype_size(OX_INT64), 8);
    ck_assert_uint_eq(ox_dtype_size(OX_BOOL), 1);
    ck_assert_uint_eq(ox_dtype_size(OX_FLOAT16), 2);
    ck_assert_str_eq(ox_dtype_torch_name(OX_FLOAT), "Float");
    ck_assert_str_eq(ox_dtype_torch_name(OX_INT64), "Long");
    ck_assert(!ox_dtype_valid(0));
    ck_assert(!ox_dtype_valid(14));
    ck_assert(ox_dtype_valid(OX_BFLOAT16));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ir");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, arena_alignment_and_zeroing);
    tcase_add_test(tc, kind_hints_agree_with_the_general_path);
    tcase_add_test(tc, arena_mapped_chunks_are_zeroed_and_apart);
    tcase_add_test(tc, nodes_of_a_kind_share_its_string);
    tcase_add_test(tc, constants_are_listed_as_made);
    tcase_add_test(tc, values_nodes_and_uses);
    tcase_add_test(tc, attributes_replace_by_name);
    tcase_add_test(tc, opsets_and_ir_versions);
    tcase_add_test(tc, owned_tensors_large_and_small);
    tcase_add_test(tc, dtype_tables);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
