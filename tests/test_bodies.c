/*
 * Plugin ABI 1.2's subgraphs (api->body_begin, body_end, attr_graph): a
 * symbolic builds a Scan whose body is checked, named and written with the
 * file, and every misuse of the body API fails the conversion with a
 * message naming it instead of wiring a value of the wrong graph.
 */
/* before check.h, whose fail() macro would rename the SDK's api->fail */
#include "oxport/plugin_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "test_util.h"

/* ---------------------------------------------------------- the pack */

/* A running sum over axis 0 of x [n, 4]: Scan with one state (the sum so
 * far, zeros [4]) and one scan input; the body adds the row to the state
 * and emits the new sum. */
static ox_obody *sum_body(ox_sym *g, const ox_api *api)
{
    ox_dtype dts[2] = {OX_FLOAT, OX_FLOAT};
    int ranks[2] = {1, 1};
    ox_vid in[2];
    if (api->body_begin(g, 2, dts, ranks, in))
        return NULL;
    ox_vid sum = oxu_op2(g, api, "Add", in[0], in[1]);
    ox_vid outs[2] = {sum, sum}; /* the same value twice: the engine adds an Identity */
    return api->body_end(g, 2, outs);
}

static int sym_scan_sum(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_obody *body = sum_body(g, api);
    static const float zeros[4];
    ox_vid in[2] = {oxu_const_floats(g, api, zeros, 4), x};
    ox_onode *scan = body ? api->op(g, "Scan", 2, in, 2) : NULL;
    if (!scan)
        return 1;
    api->attr_graph(scan, "body", body);
    api->attr_int(scan, "num_scan_inputs", 1);
    api->set_type(g, api->node_output(scan, 1), OX_FLOAT, 2, NULL);
    return api->set_output(g, 0, api->node_output(scan, 1));
}

/* Misuses, one per operator. */
static int sym_outer_value(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    int rank = 1;
    ox_vid in;
    if (api->body_begin(g, 1, &dt, &rank, &in))
        return 1;
    ox_vid x = api->arg_tensor(g, "self"); /* a main-graph value, used in the body */
    ox_vid y = oxu_op2(g, api, "Add", in, x);
    api->body_end(g, 1, &y);
    return 1;
}

static int sym_left_open(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    return api->body_begin(g, 1, &dt, NULL, &in); /* 0: "done", the body still open */
}

static int sym_end_without_begin(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    if (!api->body_end(g, 1, &x))
        return 1;
    return api->set_output(g, 0, x);
}

static int sym_output_inside(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    if (api->body_begin(g, 1, &dt, NULL, &in))
        return 1;
    int rc = api->set_output(g, 0, in);
    api->body_end(g, 1, &in);
    return rc;
}

static int sym_invalid_node(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    if (api->body_begin(g, 1, &dt, NULL, &in))
        return 1;
    ox_onode *n = api->op(g, "Add", 1, &in, 1); /* Add takes two inputs */
    ox_vid y = api->node_output(n, 0);
    return api->body_end(g, 1, &y) ? 0 : 1;
}

static int sym_too_deep(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    for (int i = 0; i < 9; i++)
        if (api->body_begin(g, 1, &dt, NULL, &in))
            return 1;
    return 0;
}

static int sym_stale_handle(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    if (api->body_begin(g, 1, &dt, NULL, &in))
        return 1;
    ox_onode *n = api->op(g, "Relu", 1, &in, 1);
    ox_vid y = api->node_output(n, 0);
    if (!api->body_end(g, 1, &y))
        return 1;
    api->attr_int(n, "alpha", 1); /* the body is closed */
    return 1;
}

static int sym_body_twice(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_obody *body = sum_body(g, api);
    static const float zeros[4];
    ox_vid in[2] = {oxu_const_floats(g, api, zeros, 4), x};
    ox_onode *a = api->op(g, "Scan", 2, in, 2), *b = api->op(g, "Scan", 2, in, 2);
    api->attr_graph(a, "body", body);
    api->attr_graph(b, "body", body);
    return 1;
}

static int sym_null_body(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *a = api->op(g, "Identity", 1, &x, 1);
    api->attr_graph(a, "body", NULL);
    return 1;
}

static int check_begins(ox_sym *g, const ox_api *api)
{
    ox_dtype dt = OX_FLOAT;
    ox_vid in;
    api->body_begin(g, 1, &dt, NULL, &in);
    return 1;
}

static int sym_unused(ox_sym *g, const ox_api *api)
{
    return api->set_output(g, 0, api->arg_tensor(g, "self"));
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_op_decl body_ops[] = {
    OX_OP("test::scan_sum", 9, p_self, 1, sym_scan_sum),
    OX_OP("test::outer_value", 9, p_self, 1, sym_outer_value),
    OX_OP("test::left_open", 9, p_self, 1, sym_left_open),
    OX_OP("test::end_without_begin", 9, p_self, 1, sym_end_without_begin),
    OX_OP("test::output_inside", 9, p_self, 1, sym_output_inside),
    OX_OP("test::invalid_node", 9, p_self, 1, sym_invalid_node),
    OX_OP("test::too_deep", 9, p_self, 1, sym_too_deep),
    OX_OP("test::stale_handle", 9, p_self, 1, sym_stale_handle),
    OX_OP("test::body_twice", 9, p_self, 1, sym_body_twice),
    OX_OP("test::null_body", 9, p_self, 1, sym_null_body),
    OX_OP_EX("test::check_begins", 9, p_self, 1, sym_unused, 0u, check_begins),
};

static ox_context *ctx_with_pack(void)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", srcdir());
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    static const ox_plugin_desc d = {OX_PLUGIN_HEADER, "bodies", "1", "subgraph test pack",
                                     body_ops, sizeof body_ops / sizeof body_ops[0], NULL, NULL};
    ck_assert_msg(ox_context_add_pack(ctx, &d, "test:bodies") == OX_OK, "%s", ox_errmsg(ctx));
    return ctx;
}

/* kind(x) of x [3, 4] as the whole model. */
static ox_graph *one_op(ox_context *ctx, const char *kind)
{
    static const int64_t sizes[] = {3, 4};
    ox_trace *t;
    ox_vid x, y;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &x), OX_OK);
    ox_arg a = ox_arg_tensor("self", x);
    ox_tensor_desc od = {OX_FLOAT, 2, sizes};
    ck_assert_int_eq(ox_trace_op(t, kind, 1, &a, 1, &od, &y), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "y"), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    return g;
}

static void convert_fails_with(const char *kind, const char *want)
{
    ox_context *ctx = ctx_with_pack();
    ox_graph *g = one_op(ctx, kind), *og = NULL;
    ck_assert_int_ne(ox_convert(ctx, g, 11, &og), OX_OK);
    ck_assert_msg(strstr(ox_errmsg(ctx), want) != NULL, "%s: wanted '%s' in: %s", kind, want,
                  ox_errmsg(ctx));
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}

/* The last node of g of op type `op` (NULL when none). */
static const ox_node *node_of(const ox_graph *g, const char *op)
{
    const ox_node *found = NULL;
    for (const ox_node *n = g->first; n; n = n->next)
        if (strcmp(n->op_type, op) == 0)
            found = n;
    return found;
}

/* ---------------------------------------------------------- tests */

START_TEST(scan_body_is_built_checked_and_written)
{
    ox_context *ctx = ctx_with_pack();
    ox_graph *g = one_op(ctx, "test::scan_sum"), *og = NULL;
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_node *scan = node_of(og, "Scan");
    ck_assert_ptr_nonnull(scan);
    const ox_attr *a = ox_node_attr(scan, "body");
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(a->kind, OX_ATTR_GRAPH);
    const ox_graph *b = a->u.g;
    ck_assert_uint_eq(b->n_inputs, 2);
    ck_assert_uint_eq(b->n_outputs, 2);
    ck_assert_uint_ne(b->outputs[0], b->outputs[1]); /* the repeated output got its own value */
    /* the schema's types reached the body's values; its names carry the body's */
    ck_assert_int_eq(b->values[b->outputs[0]]->type.dtype, OX_FLOAT);
    ck_assert_str_eq(b->name, "scan_sum_0_body0");
    ck_assert_ptr_nonnull(strstr(b->values[b->outputs[1]]->name, "scan_sum_0_body0/"));

    char dir[] = "/tmp/oxport-bodies-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[1100];
    snprintf(path, sizeof path, "%s/scan.onnx", dir);
    ox_export_options o;
    ox_export_options_init(&o);
    o.opset = 11;
    ck_assert_msg(ox_export(ctx, g, path, &o) == OX_OK, "%s", ox_errmsg(ctx));
    ox_graph *back = NULL;
    ck_assert_msg(ox_read(ctx, path, &back) == OX_OK, "%s", ox_errmsg(ctx));
    size_t violations = 99;
    FILE *report = tmpfile();
    ck_assert_int_eq(ox_check(ctx, back, report, &violations), OX_OK);
    ck_assert_uint_eq(violations, 0);
    fclose(report);
    const ox_node *rscan = node_of(back, "Scan");
    ck_assert_ptr_nonnull(rscan);
    const ox_attr *ra = ox_node_attr(rscan, "body");
    ck_assert_ptr_nonnull(ra);
    ck_assert_uint_eq(ra->u.g->n_nodes, 2); /* Add and the Identity */
    ox_graph_free(back);
    rm_rf(dir);
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(enclosing_value_in_a_body_is_refused)
{
    convert_fails_with("test::outer_value",
                       "belongs to a graph enclosing the body being built; a body is closed: pass "
                       "the value in as one of its inputs");
}
END_TEST

START_TEST(body_left_open_is_refused)
{
    convert_fails_with("test::left_open",
                       "the symbolic returned with 1 body(ies) open (every body_begin needs its "
                       "body_end)");
}
END_TEST

START_TEST(body_end_without_begin_is_refused)
{
    convert_fails_with("test::end_without_begin", "body_end without body_begin");
}
END_TEST

START_TEST(set_output_inside_a_body_is_refused)
{
    convert_fails_with("test::output_inside", "set_output(0) inside a body");
}
END_TEST

START_TEST(invalid_body_node_is_refused)
{
    convert_fails_with("test::invalid_node", "body_end: a node of the body is not valid ONNX: ");
}
END_TEST

START_TEST(nesting_is_bounded)
{
    convert_fails_with("test::too_deep", "body_begin: bodies nest at most 8 deep");
}
END_TEST

START_TEST(handle_of_a_closed_body_is_refused)
{
    convert_fails_with("test::stale_handle", "node handle of Relu belongs to another graph");
}
END_TEST

START_TEST(body_attached_twice_is_refused)
{
    convert_fails_with("test::body_twice",
                       "attr_graph(Scan, body): the body is already another node's attribute");
}
END_TEST

START_TEST(missing_body_is_refused)
{
    convert_fails_with("test::null_body", "attr_graph(Identity, body): no body");
}
END_TEST

START_TEST(check_hook_cannot_begin_a_body)
{
    convert_fails_with("test::check_begins", "the check hook called body_begin");
}
END_TEST

static Suite *bodies_suite(void)
{
    Suite *s = suite_create("bodies");
    TCase *tc = tcase_create("bodies");
    tcase_add_test(tc, scan_body_is_built_checked_and_written);
    tcase_add_test(tc, enclosing_value_in_a_body_is_refused);
    tcase_add_test(tc, body_left_open_is_refused);
    tcase_add_test(tc, body_end_without_begin_is_refused);
    tcase_add_test(tc, set_output_inside_a_body_is_refused);
    tcase_add_test(tc, invalid_body_node_is_refused);
    tcase_add_test(tc, nesting_is_bounded);
    tcase_add_test(tc, handle_of_a_closed_body_is_refused);
    tcase_add_test(tc, body_attached_twice_is_refused);
    tcase_add_test(tc, missing_body_is_refused);
    tcase_add_test(tc, check_hook_cannot_begin_a_body);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(bodies_suite());
}
