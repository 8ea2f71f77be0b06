/*
 * Graph passes on hand-built ONNX graphs: dead-code elimination, identity
 * removal, topological sort (of shuffled graphs too) and naming.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "lift_constants.h"
#include "passes.h"
#include "pipeline.h"
#include "test_util.h"

static ox_context *ctx;

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV, &ctx), OX_OK);
}

static void teardown(void)
{
    ox_context_free(ctx);
}

static ox_vid in_value(ox_graph *g, const char *name)
{
    ox_value *v = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 1, (const int64_t[]){4});
    ck_assert_ptr_nonnull(v);
    v->name = name;
    ck_assert_int_eq(ox_graph_add_input(g, v->id), 0);
    return v->id;
}

static ox_vid param_value(ox_graph *g, const char *name)
{
    static const float data[4];
    ox_value *v = ox_graph_add_value(g, OX_VAL_PARAM, OX_FLOAT, 1, (const int64_t[]){4});
    ck_assert_ptr_nonnull(v);
    v->name = name;
    v->tensor.data = data;
    v->tensor.nbytes = sizeof data;
    ck_assert_int_eq(ox_graph_add_param(g, v->id), 0);
    return v->id;
}

static ox_node *node(ox_graph *g, const char *kind, uint32_t n_in, const ox_vid *in)
{
    ox_node *n = ox_graph_add_node(g, kind, n_in, in, 1);
    ck_assert_ptr_nonnull(n);
    return n;
}

static ox_vid out0(const ox_node *n)
{
    return n->outputs[0];
}

static size_t count_nodes(const ox_graph *g)
{
    size_t k = 0;
    for (const ox_node *n = g->first; n; n = n->next)
        k++;
    ck_assert_uint_eq(k, g->n_nodes);
    return k;
}

/* Every input produced by a node comes from an earlier node in the list. */
static void assert_topological(const ox_graph *g)
{
    size_t cap = g->next_node_id;
    unsigned char *seen = calloc(cap ? cap : 1, 1);
    for (const ox_node *n = g->first; n; n = n->next) {
        for (uint32_t i = 0; i < n->n_inputs; i++) {
            const ox_value *v = ox_graph_value(g, n->inputs[i]);
            if (v && v->kind == OX_VAL_NODE && v->producer)
                ck_assert_msg(seen[v->producer->id], "%s uses %s before it is produced",
                              n->kind, v->producer->kind);
        }
        seen[n->id] = 1;
    }
    free(seen);
}

START_TEST(dce_removes_dead_chains_in_any_order)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_vid w = param_value(g, "w");
    ox_vid unused_w = param_value(g, "unused");
    ox_node *a = node(g, "onnx::Relu", 1, &x);
    ox_vid ab[] = {out0(a), w};
    ox_node *b = node(g, "onnx::Add", 2, ab);
    ox_vid bv = out0(b);
    node(g, "onnx::Sigmoid", 1, &bv); /* end of the dead chain */
    ox_node *live = node(g, "onnx::Tanh", 1, &x);
    ck_assert_int_eq(ox_graph_add_output(g, out0(live)), 0);
    /* put the chain's head last so a single reverse sweep would miss it */
    ox_graph_unlink_node(g, a);
    ox_graph_append_node(g, a);

    ck_assert_int_eq(ox_pass_dce(ctx, g), OX_OK);
    ck_assert_uint_eq(count_nodes(g), 1);
    ck_assert_str_eq(g->first->op_type, "Tanh");
    ck_assert_uint_eq(ox_graph_value(g, x)->n_uses, 1);
    ck_assert_uint_eq(g->n_params, 0); /* w died with the chain; unused never lived */
    (void)unused_w;
    ox_graph_free(g);
}
END_TEST

START_TEST(identity_and_eval_dropout_are_bypassed)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_node *id1 = node(g, "onnx::Identity", 1, &x);
    ox_vid v = out0(id1);
    ox_node *id2 = node(g, "onnx::Identity", 1, &v); /* chain of two */
    ox_vid v2 = out0(id2);
    ox_node *drop = ox_graph_add_node(g, "onnx::Dropout", 1, &v2, 2); /* mask unused */
    ox_vid dv = drop->outputs[0];
    ox_node *relu = node(g, "onnx::Relu", 1, &dv);
    /* a training-mode Dropout must stay */
    unsigned char yes = 1;
    ox_node *c = node(g, "onnx::Constant", 0, NULL);
    ox_attr *a = ox_node_add_attr(g, c, "value", OX_ATTR_TENSOR);
    a->u.t = ox_arena_alloc(&g->arena, sizeof(*a->u.t));
    a->u.t->dtype = OX_BOOL;
    a->u.t->data.data = &yes;
    a->u.t->data.nbytes = 1;
    ox_vid tin[] = {out0(relu), 0, out0(c)};
    ox_node *train = node(g, "onnx::Dropout", 3, tin);
    ox_vid tv = out0(train);
    ox_node *last = node(g, "onnx::Identity", 1, &tv); /* produces the output: stays */
    ck_assert_int_eq(ox_graph_add_output(g, out0(last)), 0);

    ck_assert_int_eq(ox_pass_remove_identity(ctx, g), OX_OK);
    ck_assert_uint_eq(count_nodes(g), 4); /* Relu, Constant, Dropout(training), Identity */
    ck_assert_uint_eq(relu->inputs[0], x);
    ck_assert_uint_eq(ox_graph_value(g, x)->n_uses, 1);
    ck_assert_uint_eq(last->inputs[0], tv);
    for (const ox_node *n = g->first; n; n = n->next)
        ck_assert_ptr_ne(n, drop);
    ox_graph_free(g);
}
END_TEST

START_TEST(toposort_orders_shuffled_graph_and_keeps_sorted_one)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_node *a = node(g, "onnx::Relu", 1, &x);
    ox_vid av = out0(a);
    ox_node *b = node(g, "onnx::Sigmoid", 1, &av);
    ox_node *e = node(g, "onnx::Neg", 1, &x); /* independent */
    ox_vid bc[] = {out0(b), out0(e)};
    ox_node *c = node(g, "onnx::Add", 2, bc);
    ck_assert_int_eq(ox_graph_add_output(g, out0(c)), 0);

    /* already sorted: unchanged */
    ck_assert_int_eq(ox_pass_toposort(ctx, g), OX_OK);
    const ox_node *want[] = {a, b, e, c};
    size_t k = 0;
    for (const ox_node *n = g->first; n; n = n->next, k++)
        ck_assert_ptr_eq(n, want[k]);
    ck_assert_uint_eq(k, 4);

    /* reversed list: sorted again, deterministically */
    ox_node *order[] = {c, e, b, a};
    for (size_t i = 0; i < 4; i++)
        ox_graph_unlink_node(g, order[i]);
    for (size_t i = 0; i < 4; i++)
        ox_graph_append_node(g, order[i]);
    ck_assert_int_eq(ox_pass_toposort(ctx, g), OX_OK);
    assert_topological(g);
    k = 0;
    for (const ox_node *n = g->first; n; n = n->next, k++)
        ck_assert_ptr_eq(n, want[k]);
    ck_assert_ptr_eq(g->last, c);
    ck_assert_ptr_null(g->last->next);
    ck_assert_ptr_null(g->first->prev);
    ox_graph_free(g);
}
END_TEST

/* Ids rising along the list are not enough to leave it as it is: a node
 * made early that reads one made later must move behind it. */
START_TEST(toposort_moves_a_node_behind_a_later_made_producer)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_node *a = node(g, "onnx::Relu", 1, &x);
    ox_node *b = node(g, "onnx::Neg", 1, &x);
    ox_node_redirect_input(g, a, 0, out0(b)); /* a now reads b */
    ck_assert_int_eq(ox_graph_add_output(g, out0(a)), 0);
    ck_assert_ptr_eq(g->first, a);
    ck_assert_int_eq(ox_pass_toposort(ctx, g), OX_OK);
    assert_topological(g);
    ck_assert_ptr_eq(g->first, b);
    ck_assert_ptr_eq(g->last, a);
    ox_graph_free(g);
}
END_TEST

/* The survey says what each of the three passes would find, so the pipeline
 * can skip a pass only when it would have done nothing. */
START_TEST(survey_says_what_the_cleanup_passes_would_find)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_node *a = node(g, "onnx::Relu", 1, &x);
    ox_vid av = out0(a);
    ox_node *b = node(g, "onnx::Neg", 1, &av);
    ck_assert_int_eq(ox_graph_add_output(g, out0(b)), 0);
    ox_graph_survey s;
    ox_pass_survey(g, &s);
    ck_assert(!s.forwarding && !s.dead && s.sorted && !s.named);
    a->name = "given";
    ox_pass_survey(g, &s);
    ck_assert(s.named);
    a->name = NULL;
    ox_node *sink = ox_graph_add_node(g, "onnx::Identity", 1, &x, 0); /* no outputs */
    sink->name = "given";
    ox_pass_survey(g, &s);
    ck_assert(s.named); /* a node's name counts even where it has no output to look at */
    ox_graph_remove_node(g, sink);
    ox_graph_value(g, out0(b))->name = "y";
    ox_pass_survey(g, &s);
    ck_assert(s.named);

    ox_vid bv = out0(b);
    ox_node *id = node(g, "onnx::Identity", 1, &bv); /* its output unused: dead too */
    ox_pass_survey(g, &s);
    ck_assert(s.forwarding && s.dead && s.sorted);
    ck_assert_int_eq(ox_graph_add_output(g, out0(id)), 0); /* an output's Identity stays */
    ox_pass_survey(g, &s);
    ck_assert(!s.forwarding && !s.dead && s.sorted);

    ox_graph_unlink_node(g, a); /* a producer after its consumer */
    ox_graph_append_node(g, a);
    ox_pass_survey(g, &s);
    ck_assert(!s.forwarding && !s.dead && !s.sorted);
    ox_graph_free(g);
}
END_TEST

START_TEST(toposort_reports_a_cycle)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_vid ins[] = {x, x};
    ox_node *a = node(g, "onnx::Add", 2, ins);
    ox_vid av = out0(a);
    ox_node *b = node(g, "onnx::Relu", 1, &av);
    a->inputs[1] = out0(b); /* a <- b <- a */
    ck_assert_int_eq(ox_pass_toposort(ctx, g), OX_ECHECK);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "the graph has a cycle: node 0 (onnx::Add) depends on its own output");
    ox_graph_free(g);
}
END_TEST

static ox_graph *naming_graph(const char *input_name)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, input_name);
    ox_vid w = param_value(g, "w");
    param_value(g, NULL);
    ox_vid xw[] = {x, w};
    ox_node *m = node(g, "onnx::Mul", 2, xw);
    ox_vid mv = out0(m);
    ox_node *r1 = node(g, "onnx::Relu", 1, &mv);
    r1->name = "Relu_2"; /* a name that the numbering below would also produce */
    ox_vid rv = out0(r1);
    ox_node *r2 = node(g, "onnx::Relu", 1, &rv);
    ox_value *y = ox_graph_value(g, out0(r2));
    y->name = "w"; /* collides with the parameter: the parameter keeps it */
    ck_assert_int_eq(ox_graph_add_output(g, y->id), 0);
    return g;
}

START_TEST(naming_is_deterministic_and_collision_free)
{
    for (int round = 0; round < 2; round++) {
        ox_graph *g = naming_graph("x");
        ck_assert_int_eq(ox_pass_name(ctx, g), OX_OK);
        ck_assert_str_eq(ox_graph_value(g, g->inputs[0])->name, "x");
        ck_assert_str_eq(ox_graph_value(g, g->params[0])->name, "w");
        ck_assert_str_eq(ox_graph_value(g, g->params[1])->name, "2");
        const ox_node *m = g->first, *r1 = m->next, *r2 = r1->next;
        ck_assert_str_eq(ox_graph_value(g, m->outputs[0])->name, "3");
        ck_assert_str_eq(ox_graph_value(g, r1->outputs[0])->name, "4");
        ck_assert_str_eq(ox_graph_value(g, r2->outputs[0])->name, "w_1");
        ck_assert_str_eq(m->name, "Mul_0");
        ck_assert_str_eq(r1->name, "Relu_2");
        ck_assert_str_eq(r2->name, "Relu_2_1");
        ox_graph_free(g);
    }
    /* a number taken by a given name is skipped */
    ox_graph *g = naming_graph("3");
    ck_assert_int_eq(ox_pass_name(ctx, g), OX_OK);
    ck_assert_str_eq(ox_graph_value(g, g->first->outputs[0])->name, "4");
    ck_assert_str_eq(ox_graph_value(g, g->first->next->outputs[0])->name, "5");
    ox_graph_free(g);
}
END_TEST

/* A Constant node holding `t`. */
static ox_node *constant(ox_graph *g, ox_attr_tensor *t)
{
    ox_node *n = node(g, "onnx::Constant", 0, NULL);
    ox_attr *a = ox_node_add_attr(g, n, "value", OX_ATTR_TENSOR);
    ck_assert_ptr_nonnull(a);
    a->u.t = t;
    ck_assert_int_eq(ox_value_set_type(g, ox_graph_value(g, out0(n)), t->dtype, (int32_t)t->rank, t->dims), 0);
    return n;
}

/* One walk names a graph with no names on its nodes as the two-walk pass
 * does: the same number for every value, the same name for every node. */
static ox_graph *unnamed_chain(void)
{
    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "5"); /* an input whose name is a number the counter reaches */
    param_value(g, NULL);
    ox_vid cur = x;
    for (int i = 0; i < 12; i++) {
        ox_node *n = node(g, i % 2 ? "onnx::Relu" : "onnx::Neg", 1, &cur);
        cur = out0(n);
    }
    ck_assert_int_eq(ox_graph_add_output(g, cur), 0);
    return g;
}

START_TEST(naming_in_one_walk_matches_two)
{
    ox_graph *one = unnamed_chain(), *two = unnamed_chain();
    ck_assert_int_eq(ox_pass_name_unnamed_nodes(ctx, one), OX_OK);
    ck_assert_int_eq(ox_pass_name(ctx, two), OX_OK);
    for (ox_vid v = 1; v < one->n_values; v++)
        ck_assert_pstr_eq(ox_graph_value(one, v)->name, ox_graph_value(two, v)->name);
    for (const ox_node *a = one->first, *b = two->first; a || b; a = a->next, b = b->next)
        ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(ox_graph_value(one, one->last->outputs[0])->name, "14"); /* 5 was taken */
    ox_graph_free(one);
    ox_graph_free(two);

    /* names given to nodes and outputs send the pipeline to the two walks */
    one = naming_graph("x");
    two = naming_graph("x");
    ox_pipeline p;
    ox_pipeline_init(&p, ctx, NULL, 0, NULL);
    p.g = one;
    ck_assert_int_eq(ox_pipeline_run_from(&p, "remove-identity"), OX_OK);
    ck_assert_int_eq(ox_pass_dce(ctx, two), OX_OK); /* what the pipeline did before naming */
    ck_assert_int_eq(ox_pass_name(ctx, two), OX_OK);
    for (ox_vid v = 1; v < one->n_values; v++)
        ck_assert_pstr_eq(ox_graph_value(one, v)->name, ox_graph_value(two, v)->name);
    for (const ox_node *a = one->first, *b = two->first; a || b; a = a->next, b = b->next)
        ck_assert_str_eq(a->name, b->name);
    ox_pipeline_free(&p);
    ox_graph_free(two);
}
END_TEST

START_TEST(constants_opset_8_cannot_hold_become_initializers)
{
    static int64_t shape_dims[1] = {2}, shape[2] = {-1, 4};
    static const float scale_data[1] = {0.5f};
    ox_attr_tensor shape_t = {.dtype = OX_INT64, .rank = 1, .dims = shape_dims,
                              .data = {.data = shape, .nbytes = sizeof shape}};
    ox_attr_tensor scale_t = {.dtype = OX_FLOAT, .rank = 0,
                              .data = {.data = scale_data, .nbytes = sizeof scale_data}};
    for (int opset = 8; opset <= 9; opset++) {
        ox_graph *g = ox_graph_new("g");
        ox_vid x = in_value(g, "x");
        ox_node *s = constant(g, &shape_t), *f = constant(g, &scale_t);
        ox_value *sv = ox_graph_value(g, out0(s));
        sv->name = "shape";
        ox_vid rin[] = {x, out0(s)};
        ox_node *r = node(g, "onnx::Reshape", 2, rin);
        ox_vid min[] = {out0(r), out0(f)};
        ox_node *m = node(g, "onnx::Mul", 2, min);
        ck_assert_int_eq(ox_graph_add_output(g, out0(m)), 0);
        ck_assert(ox_constant_needs_lifting(s, opset) == (opset < 9));
        ck_assert(!ox_constant_needs_lifting(f, opset)); /* Constant-1 holds floats */

        size_t lifted = 99;
        ck_assert_int_eq(ox_pass_lift_constants(ctx, g, opset, &lifted), OX_OK);
        ck_assert_uint_eq(lifted, opset < 9 ? 1 : 0);
        ck_assert_uint_eq(count_nodes(g), opset < 9 ? 3 : 4);
        ck_assert_uint_eq(g->n_params, opset < 9 ? 1 : 0);
        if (opset < 9) {
            /* same value: its id, name, uses and bytes; now an initializer */
            const ox_value *p = ox_graph_value(g, g->params[0]);
            ck_assert_uint_eq(p->id, rin[1]);
            ck_assert_int_eq(p->kind, OX_VAL_PARAM);
            ck_assert_ptr_null(p->producer);
            ck_assert_str_eq(p->name, "shape");
            ck_assert_uint_eq(p->n_uses, 1);
            ck_assert_int_eq(p->type.dtype, OX_INT64);
            ck_assert_uint_eq(p->tensor.nbytes, sizeof shape);
            ck_assert_int_eq(memcmp(p->tensor.data, shape, sizeof shape), 0);
            ck_assert_ptr_ne(p->tensor.data, shape); /* a copy the graph owns */
            ck_assert_str_eq(g->first->op_type, "Constant"); /* the float one stays */
        }
        assert_topological(g);
        ox_graph_free(g);
    }
}
END_TEST

START_TEST(pipeline_runs_every_pass)
{
    const ox_stage *st;
    size_t n = ox_pipeline_stages(&st);
    const char *want[] = {"prescan", "convert", "remove-identity", "dce", "toposort", "observed",
                          "name", "fold-constants", "dce", "functions", "lift-constants",
                          "io-layout"};
    ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(st[i].name, want[i]);
    ck_assert_int_eq(st[5].when, OX_STAGE_ALWAYS);
    ck_assert_int_eq(st[7].when, OX_STAGE_FOLDING);
    ck_assert_int_eq(st[9].when, OX_STAGE_EXPORTING);
    ck_assert_int_eq(st[10].when, OX_STAGE_ALWAYS);
    ck_assert_int_eq(st[11].when, OX_STAGE_EXPORTING);

    ox_graph *g = ox_graph_new("g");
    ox_vid x = in_value(g, "x");
    ox_node *dead = node(g, "onnx::Neg", 1, &x);
    ox_node *id = node(g, "onnx::Identity", 1, &x);
    ox_vid iv = out0(id);
    ox_node *r = node(g, "onnx::Relu", 1, &iv);
    ck_assert_int_eq(ox_graph_add_output(g, out0(r)), 0);
    ox_graph_unlink_node(g, r); /* out of order */
    ox_graph_unlink_node(g, dead);
    ox_graph_append_node(g, dead);
    ox_graph_append_node(g, r);
    ox_pipeline p;
    ox_pipeline_init(&p, ctx, NULL, 0, NULL); /* ox_convert's stages: no folding, no layout */
    p.g = g;
    ck_assert_int_eq(ox_pipeline_run_from(&p, "remove-identity"), OX_OK);
    ck_assert(!p.laid_out);
    ck_assert_uint_eq(count_nodes(g), 1);
    ck_assert_str_eq(g->first->op_type, "Relu");
    ck_assert_uint_eq(g->first->inputs[0], x);
    ck_assert_str_eq(g->first->name, "Relu_0");
    ck_assert_str_eq(ox_graph_value(g, out0(r))->name, "1");
    ox_pipeline_free(&p);
}
END_TEST

/* Without an Identity to bypass, DCE and the sort still run when the survey
 * finds a dead node or a node out of order. */
START_TEST(pipeline_cleans_and_sorts_a_graph_without_identities)
{
    for (int out_of_order = 0; out_of_order < 2; out_of_order++) {
        ox_graph *g = ox_graph_new("g");
        ox_vid x = in_value(g, "x");
        ox_node *a = node(g, "onnx::Relu", 1, &x);
        ox_vid av = out0(a);
        node(g, "onnx::Neg", 1, &av); /* dead */
        ox_node *b = node(g, "onnx::Sigmoid", 1, &av);
        ck_assert_int_eq(ox_graph_add_output(g, out0(b)), 0);
        if (out_of_order) {
            ox_graph_unlink_node(g, a);
            ox_graph_append_node(g, a);
        }
        ox_pipeline p;
        ox_pipeline_init(&p, ctx, NULL, 0, NULL);
        p.g = g;
        ck_assert_int_eq(ox_pipeline_run_from(&p, "remove-identity"), OX_OK);
        ck_assert_uint_eq(count_nodes(g), 2);
        assert_topological(g);
        ck_assert_ptr_eq(g->first, a);
        ck_assert_ptr_eq(g->last, b);
        ox_pipeline_free(&p);
    }
}
END_TEST

START_TEST(pipeline_names_an_unknown_stage)
{
    ox_pipeline p;
    ox_pipeline_init(&p, ctx, NULL, 0, NULL);
    ck_assert_int_eq(ox_pipeline_run_from(&p, "optimize"), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "the pipeline has no stage 'optimize'");
}
END_TEST

static Suite *passes_suite(void)
{
    Suite *s = suite_create("passes");
    TCase *tc = tcase_create("passes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, dce_removes_dead_chains_in_any_order);
    tcase_add_test(tc, identity_and_eval_dropout_are_bypassed);
    tcase_add_test(tc, toposort_orders_shuffled_graph_and_keeps_sorted_one);
    tcase_add_test(tc, toposort_moves_a_node_behind_a_later_made_producer);
    tcase_add_test(tc, survey_says_what_the_cleanup_passes_would_find);
    tcase_add_test(tc, naming_in_one_walk_matches_two);
    tcase_add_test(tc, toposort_reports_a_cycle);
    tcase_add_test(tc, naming_is_deterministic_and_collision_free);
    tcase_add_test(tc, constants_opset_8_cannot_hold_become_initializers);
    tcase_add_test(tc, pipeline_runs_every_pass);
    tcase_add_test(tc, pipeline_cleans_and_sorts_a_graph_without_identities);
    tcase_add_test(tc, pipeline_names_an_unknown_stage);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(passes_suite());
}
