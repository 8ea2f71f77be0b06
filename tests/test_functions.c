/*
 * The functions stage (src/functions.c) on hand-built ONNX graphs: repeated
 * instances share one function, differing ones get their own, inner modules
 * are called from outer bodies, and what cannot become a function is refused
 * with the reason.  The result round-trips through the writer, the reader and
 * the checker, and the reader survives every truncation of such a file.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "functions.h"
#include "ir.h"
#include "onnx_read.h"
#include "test_util.h"

static ox_context *ctx;
static char dir[256];

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV, &ctx), OX_OK);
    snprintf(dir, sizeof dir, "/tmp/oxport-test-functions-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    rm_rf(dir);
    ox_context_free(ctx);
}

static const float weights[4] = {1, 2, 3, 4};

static ox_graph *new_graph(void)
{
    ox_graph *g = ox_graph_new("M");
    ck_assert_ptr_nonnull(g);
    g->is_onnx = true;
    ck_assert_int_eq(ox_graph_set_opset(g, "", 15), 0);
    return g;
}

static ox_vid value(ox_graph *g, ox_value_kind kind, const char *name)
{
    ox_value *v = ox_graph_add_value(g, kind, OX_FLOAT, 1, (const int64_t[]){4});
    ck_assert_ptr_nonnull(v);
    v->name = name;
    if (kind == OX_VAL_INPUT) {
        ck_assert_int_eq(ox_graph_add_input(g, v->id), 0);
    } else {
        v->tensor.data = weights;
        v->tensor.nbytes = sizeof weights;
        ck_assert_int_eq(ox_graph_add_param(g, v->id), 0);
    }
    return v->id;
}

/* One node with one output named `out`, typed like its first input. */
static ox_vid op(ox_graph *g, const char *kind, const char *scope, const char *out, uint32_t n_in,
                 const ox_vid *in)
{
    ox_node *n = ox_graph_add_node(g, kind, n_in, in, 1);
    ck_assert_ptr_nonnull(n);
    n->scope = scope;
    ox_value *v = ox_graph_value(g, n->outputs[0]);
    ck_assert_int_eq(ox_value_set_type(g, v, OX_FLOAT, 1, (const int64_t[]){4}), 0);
    v->name = out;
    return v->id;
}

/* x -> Mul(., w) -> act, once per block; act is "Relu" or "Sigmoid" per block */
static ox_graph *two_blocks(const char *act_a, const char *act_b)
{
    ox_graph *g = new_graph();
    ox_vid x = value(g, OX_VAL_INPUT, "x");
    ox_vid wa = value(g, OX_VAL_PARAM, "a.w");
    ox_vid wb = value(g, OX_VAL_PARAM, "b.w");
    ox_vid m1 = op(g, "onnx::Mul", "M/Block[a]", "1", 2, (ox_vid[]){x, wa});
    ox_vid r1 = op(g, act_a, "M/Block[a]", "2", 1, &m1);
    ox_vid m2 = op(g, "onnx::Mul", "M/Block[b]", "3", 2, (ox_vid[]){r1, wb});
    ox_vid r2 = op(g, act_b, "M/Block[b]", "4", 1, &m2);
    ck_assert_int_eq(ox_graph_add_output(g, r2), 0);
    ox_graph_value(g, r2)->is_output = true;
    return g;
}

static const char *const block_type[] = {"my.blocks::Block"};

/* g written, read back and checked: the functions survive as they were. */
static void round_trip(const ox_graph *g, uint32_t n_functions)
{
    char path[512];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    ck_assert_msg(ox_write(ctx, g, path, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph *r = NULL;
    ck_assert_msg(ox_read(ctx, path, &r) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(r->n_functions, n_functions);
    for (uint32_t i = 0; i < n_functions; i++) {
        ck_assert_str_eq(r->functions[i].name, g->functions[i].name);
        ck_assert_str_eq(r->functions[i].domain, g->functions[i].domain);
        ck_assert_uint_eq(r->functions[i].body->n_nodes, g->functions[i].body->n_nodes);
        ck_assert_uint_eq(r->functions[i].body->n_inputs, g->functions[i].body->n_inputs);
    }
    size_t nv = 99;
    ck_assert_msg(ox_check(ctx, r, stderr, &nv) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(nv, 0);
    ox_graph_free(r);
}

START_TEST(identical_instances_share_one_function)
{
    ox_graph *g = two_blocks("onnx::Relu", "onnx::Relu");
    ck_assert_msg(ox_functions_extract(ctx, g, 15, block_type, 1, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_functions, 1);
    const ox_function *f = &g->functions[0];
    ck_assert_str_eq(f->name, "Block");
    ck_assert_str_eq(f->domain, "my.blocks");
    ck_assert_uint_eq(f->body->n_inputs, 2);  /* x and the weight */
    ck_assert_uint_eq(f->body->n_outputs, 1);
    ck_assert_uint_eq(f->body->n_nodes, 2);
    ck_assert_str_eq(f->body->first->op_type, "Mul");
    ck_assert_int_eq(ox_graph_opset(f->body, ""), 15);
    ck_assert_int_eq(ox_graph_opset(g, "my.blocks"), 1);
    /* the graph is two calls, in order, the second reading the first */
    ck_assert_uint_eq(g->n_nodes, 2);
    const ox_node *a = g->first, *b = a->next;
    ck_assert_str_eq(a->domain, "my.blocks");
    ck_assert_str_eq(a->op_type, "Block");
    ck_assert_str_eq(a->scope, "M/Block[a]");
    ck_assert_str_eq(ox_graph_value(g, a->inputs[1])->name, "a.w");
    ck_assert_str_eq(ox_graph_value(g, b->inputs[1])->name, "b.w");
    ck_assert_uint_eq(b->inputs[0], a->outputs[0]);
    ck_assert_uint_eq(g->outputs[0], b->outputs[0]);
    round_trip(g, 1);
    ox_graph_free(g);
}
END_TEST

START_TEST(differing_instances_get_their_own_functions)
{
    ox_graph *g = two_blocks("onnx::Relu", "onnx::Sigmoid");
    ck_assert_msg(ox_functions_extract(ctx, g, 15, block_type, 1, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_functions, 2);
    ck_assert_str_eq(g->functions[0].name, "Block");
    ck_assert_str_eq(g->functions[1].name, "Block_1");
    ck_assert_str_eq(g->functions[1].body->last->op_type, "Sigmoid");
    ck_assert_str_eq(g->first->op_type, "Block");
    ck_assert_str_eq(g->first->next->op_type, "Block_1");
    round_trip(g, 2);
    ox_graph_free(g);
}
END_TEST

START_TEST(inner_modules_are_called_from_outer_bodies)
{
    ox_graph *g = new_graph();
    ox_vid x = value(g, OX_VAL_INPUT, "x");
    ox_vid w = value(g, OX_VAL_PARAM, "a.l.w");
    ox_vid m = op(g, "onnx::Mul", "M/Block[a]/Lin[l]", "1", 2, (ox_vid[]){x, w});
    ox_vid r = op(g, "onnx::Relu", "M/Block[a]", "2", 1, &m);
    ox_vid y = op(g, "onnx::Neg", "M", "3", 1, &r);
    ck_assert_int_eq(ox_graph_add_output(g, y), 0);
    ox_graph_value(g, y)->is_output = true;
    const char *const types[] = {"outer::Block", "Lin"};
    ck_assert_msg(ox_functions_extract(ctx, g, 17, types, 2, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_functions, 2);
    ck_assert_str_eq(g->functions[0].name, "Lin"); /* the inner one, first */
    ck_assert_str_eq(g->functions[0].domain, "local");
    const ox_graph *outer = g->functions[1].body;
    ck_assert_str_eq(outer->first->domain, "local");
    ck_assert_str_eq(outer->first->op_type, "Lin");
    ck_assert_int_eq(ox_graph_opset(outer, "local"), 1);
    ck_assert_uint_eq(g->n_nodes, 2);
    ck_assert_str_eq(g->first->op_type, "Block");
    ck_assert_str_eq(g->last->op_type, "Neg");
    round_trip(g, 2);
    ox_graph_free(g);
}
END_TEST

START_TEST(a_module_called_twice_with_work_between_is_two_calls)
{
    /* Block[a] runs twice, a Neg outside between: M/Block[a] is not one convex
     * piece, so it is cut where its second call reads the Neg */
    ox_graph *g = new_graph();
    ox_vid x = value(g, OX_VAL_INPUT, "x");
    ox_vid w = value(g, OX_VAL_PARAM, "a.w");
    ox_vid m1 = op(g, "onnx::Mul", "M/Block[a]", "1", 2, (ox_vid[]){x, w});
    ox_vid r1 = op(g, "onnx::Relu", "M/Block[a]", "2", 1, &m1);
    ox_vid n = op(g, "onnx::Neg", "M", "3", 1, &r1);
    ox_vid m2 = op(g, "onnx::Mul", "M/Block[a]", "4", 2, (ox_vid[]){n, w});
    ox_vid r2 = op(g, "onnx::Relu", "M/Block[a]", "5", 1, &m2);
    ck_assert_int_eq(ox_graph_add_output(g, r2), 0);
    ox_graph_value(g, r2)->is_output = true;
    ck_assert_msg(ox_functions_extract(ctx, g, 15, block_type, 1, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_functions, 1); /* the two calls have one body */
    ck_assert_uint_eq(g->n_nodes, 3);
    ck_assert_str_eq(g->first->op_type, "Block");
    ck_assert_str_eq(g->first->next->op_type, "Neg");
    ck_assert_str_eq(g->last->op_type, "Block");
    ck_assert_uint_eq(g->last->inputs[1], w);
    round_trip(g, 1);
    ox_graph_free(g);
}
END_TEST

START_TEST(outside_readers_between_the_nodes_move_after_the_call)
{
    /* Block[a] = Relu, Sigmoid; a Neg outside reads the Relu and sits between them */
    ox_graph *g = new_graph();
    ox_vid x = value(g, OX_VAL_INPUT, "x");
    ox_vid r = op(g, "onnx::Relu", "M/Block[a]", "1", 1, &x);
    ox_vid n = op(g, "onnx::Neg", "M", "2", 1, &r);
    ox_vid s = op(g, "onnx::Sigmoid", "M/Block[a]", "3", 1, &r);
    ox_vid y = op(g, "onnx::Add", "M", "4", 2, (ox_vid[]){n, s});
    ck_assert_int_eq(ox_graph_add_output(g, y), 0);
    ck_assert_msg(ox_functions_extract(ctx, g, 15, block_type, 1, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(g->functions[0].body->n_outputs, 2); /* the Relu too: Neg reads it */
    ck_assert_str_eq(g->first->op_type, "Block");
    ck_assert_str_eq(g->first->next->op_type, "Neg");
    ck_assert_str_eq(g->last->op_type, "Add");
    round_trip(g, 1);
    ox_graph_free(g);
}
END_TEST

START_TEST(a_type_no_scope_names_is_noted)
{
    ox_graph *g = two_blocks("onnx::Relu", "onnx::Relu");
    const char *const types[] = {"my.blocks::Block", "Blokc"};
    ox_report notes;
    ox_report_init(&notes);
    ck_assert_msg(ox_functions_extract(ctx, g, 15, types, 2, &notes) == OX_OK, "%s",
                  ox_errmsg(ctx));
    ck_assert_uint_eq(g->n_functions, 1);
    ck_assert_uint_eq(notes.n, 1);
    ck_assert_str_eq(notes.lines[0], "function type 'Blokc' names no module of the model (no "
                                     "scope segment 'Blokc[...]'), so no function was made for it");
    ox_report_free(&notes);
    ox_graph_free(g);
}
END_TEST

START_TEST(below_opset_15_and_bad_entries_are_refused)
{
    ox_graph *g = two_blocks("onnx::Relu", "onnx::Relu");
    ck_assert_int_eq(ox_functions_extract(ctx, g, 14, block_type, 1, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_export: model-local functions need opset 15 or newer (IR "
                                     "version 8); the export targets opset 14");
    const char *const empty[] = {""};
    ck_assert_int_eq(ox_functions_extract(ctx, g, 15, empty, 1, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "function_types[0] is empty; name a module type, "
                                     "\"domain::Type\" or \"Type\"");
    const char *const bracket[] = {"Block", "d::Block[a]"};
    ck_assert_int_eq(ox_functions_extract(ctx, g, 15, bracket, 2, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "function_types[1] is \"d::Block[a]\"; name a module type, "
                                     "\"domain::Type\" or \"Type\" (no '[', ']' or '/')");
    ck_assert_int_eq(ox_functions_extract(ctx, g, 15, NULL, 1, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_export: n_function_types is 1 but function_types is NULL");
    ck_assert_uint_eq(g->n_functions, 0);
    ck_assert_uint_eq(g->n_nodes, 4); /* untouched */
    ox_graph_free(g);
}
END_TEST

START_TEST(reader_survives_every_truncation_of_a_file_with_functions)
{
    ox_graph *g = two_blocks("onnx::Relu", "onnx::Sigmoid");
    ck_assert_int_eq(ox_functions_extract(ctx, g, 15, block_type, 1, NULL), OX_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/t.onnx", dir);
    ck_assert_msg(ox_write(ctx, g, path, NULL) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph_free(g);
    size_t len = 0;
    unsigned char *bytes = slurp(path, &len);
    ck_assert_ptr_nonnull(bytes);
    for (size_t cut = 1; cut < len; cut++) {
        ox_graph *r = NULL;
        if (ox_read_memory(ctx, bytes, cut, "cut", dir, &r) == OX_OK) {
            ox_check(ctx, r, NULL, NULL);
            ox_graph_free(r);
        }
    }
    for (size_t at = 0; at < len; at++) { /* every byte flipped once */
        bytes[at] ^= 0x5a;
        ox_graph *r = NULL;
        if (ox_read_memory(ctx, bytes, len, "flip", dir, &r) == OX_OK) {
            ox_check(ctx, r, NULL, NULL);
            ox_graph_free(r);
        }
        bytes[at] ^= 0x5a;
    }
    free(bytes);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("functions");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, identical_instances_share_one_function);
    tcase_add_test(tc, differing_instances_get_their_own_functions);
    tcase_add_test(tc, inner_modules_are_called_from_outer_bodies);
    tcase_add_test(tc, a_module_called_twice_with_work_between_is_two_calls);
    tcase_add_test(tc, outside_readers_between_the_nodes_move_after_the_call);
    tcase_add_test(tc, below_opset_15_and_bad_entries_are_refused);
    tcase_add_test(tc, a_type_no_scope_names_is_noted);
    tcase_add_test(tc, reader_survives_every_truncation_of_a_file_with_functions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
