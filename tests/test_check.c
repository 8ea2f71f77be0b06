/*
 * The structural checker: each hand-built violation produces its exact line,
 * and a graph with several problems reports all of them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "onnx_schemas.h"
#include "schema_check.h"
#include "test_util.h"

static ox_context *ctx;

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_DEFAULT_OPSETS,
                                    &ctx), OX_OK);
}

static void teardown(void)
{
    ox_context_free(ctx);
}

/* x -> Relu 'a' -> h -> Relu 'b' -> y, with initializer w (unused). */
typedef struct net {
    ox_graph *g;
    ox_value *x, *w, *h, *y;
    ox_node *a, *b;
} net;

static net make_net(void)
{
    net n;
    int64_t d[] = {2};
    static const float wd[2] = {1, 2};
    n.g = ox_graph_new("g");
    n.g->ir_version = 7;
    ox_graph_set_opset(n.g, "", 13);
    n.x = ox_graph_add_value(n.g, OX_VAL_INPUT, OX_FLOAT, 1, d);
    n.x->name = "x";
    ox_graph_add_input(n.g, n.x->id);
    n.w = ox_graph_add_value(n.g, OX_VAL_PARAM, OX_FLOAT, 1, d);
    n.w->name = "w";
    n.w->tensor = (ox_tensor_data){wd, sizeof wd, false};
    ox_graph_add_param(n.g, n.w->id);
    n.a = ox_graph_add_node(n.g, "onnx::Relu", 1, &n.x->id, 1);
    n.a->name = "a";
    n.h = ox_graph_value(n.g, n.a->outputs[0]);
    n.h->name = "h";
    n.b = ox_graph_add_node(n.g, "onnx::Relu", 1, &n.h->id, 1);
    n.b->name = "b";
    n.y = ox_graph_value(n.g, n.b->outputs[0]);
    n.y->name = "y";
    ox_value_set_type(n.g, n.y, OX_FLOAT, 1, d);
    ox_graph_add_output(n.g, n.y->id);
    return n;
}

/* Run the checker; return its report (malloc'd) and the count. */
static char *report(const ox_graph *g, size_t *count, ox_status *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    *st = ox_check(ctx, g, f, count);
    fclose(f);
    return text;
}

static void expect(const ox_graph *g, const char *lines, size_t n)
{
    size_t count = 99;
    ox_status st;
    char *text = report(g, &count, &st);
    ck_assert_str_eq(text, lines);
    ck_assert_uint_eq(count, n);
    ck_assert_int_eq(st, n ? OX_ECHECK : OX_OK);
    free(text);
}

START_TEST(valid_graph_passes)
{
    net n = make_net();
    expect(n.g, "", 0);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(model_level_fields)
{
    net n = make_net();
    n.g->ir_version = 0;
    n.g->n_opsets = 0;
    expect(n.g, "model: ir_version is not set\n"
                "model: no opset_import for the default domain (ai.onnx)\n", 2);
    ck_assert_str_eq(ox_errmsg(ctx), "2 ONNX structural rule violations; first: model: "
                     "ir_version is not set");
    ox_graph_free(n.g);
}
END_TEST

START_TEST(use_before_definition)
{
    net n = make_net();
    /* move b in front of a */
    ox_graph_unlink_node(n.g, n.a);
    ox_graph_append_node(n.g, n.a);
    expect(n.g, "node 'b' (Relu): input 'h' is not a graph input, an initializer or an output of "
                "an earlier node\n", 1);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(ssa_names_and_ids)
{
    net n = make_net();
    n.h->name = "y"; /* two values named y */
    expect(n.g, "node 'b' (Relu): output 'y' is already defined by node 'a'\n", 1);
    n.h->name = "w"; /* a node output named like an initializer */
    expect(n.g, "node 'a' (Relu): output 'w' is already defined by initializer 'w'\n", 1);
    n.h->name = "h";
    n.b->outputs[0] = n.h->id; /* the same value produced twice */
    expect(n.g, "node 'b' (Relu): output 'h' is already defined (each value must be produced "
                "once)\n"
                "graph output 'y' is not produced by any node, graph input or initializer\n", 2);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(initializer_names)
{
    net n = make_net();
    int64_t d[] = {2};
    static const float wd[2] = {3, 4};
    ox_value *w2 = ox_graph_add_value(n.g, OX_VAL_PARAM, OX_FLOAT, 1, d);
    w2->name = "w";
    w2->tensor = (ox_tensor_data){wd, sizeof wd, false};
    ox_graph_add_param(n.g, w2->id);
    ox_value *w3 = ox_graph_add_value(n.g, OX_VAL_PARAM, OX_FLOAT, 1, d);
    w3->tensor = (ox_tensor_data){wd, sizeof wd, false};
    ox_graph_add_param(n.g, w3->id);
    expect(n.g, "initializer 'w' is defined more than once\n"
                "initializer #2 has no name\n", 2);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(inputs_and_outputs_need_names_and_types)
{
    net n = make_net();
    n.x->name = NULL;
    n.x->type.dtype = OX_UNDEFINED;
    n.y->type.dtype = OX_UNDEFINED;
    expect(n.g, "graph input #0 has no name\n"
                "graph input '%1' has no element type\n"
                "graph output 'y' has no element type\n", 3);
    ox_graph_free(n.g);

    n = make_net();
    int64_t d[] = {2};
    ox_value *z = ox_graph_add_value(n.g, OX_VAL_NODE, OX_FLOAT, 1, d);
    z->name = "z";
    ox_graph_add_output(n.g, z->id);
    expect(n.g, "graph output 'z' is not produced by any node, graph input or initializer\n", 1);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(op_type_and_domains)
{
    net n = make_net();
    ox_node *e = ox_graph_add_node(n.g, "onnx::", 1, &n.y->id, 1);
    (void)e;
    ox_node *c = ox_graph_add_node(n.g, "com.example::Foo", 1, &n.y->id, 1);
    c->name = "c";
    expect(n.g, "node #2 (): op_type is empty\n"
                "node 'c' (Foo): no opset_import for domain 'com.example'\n", 2);
    /* an empty op_type is reported once, not also as an unknown operator */
    ox_graph_set_opset(n.g, "com.example", 1);
    expect(n.g, "node #2 (): op_type is empty\n", 1);
    ox_graph_free(n.g);
}
END_TEST

/* Move the net's nodes to a custom domain: the attribute rules below are
 * structural, and no schema applies there. */
static void custom_domain(net *n)
{
    ox_graph_set_opset(n->g, "com.example", 1);
    n->a->domain = n->b->domain = "com.example";
    n->a->kind = n->b->kind = "com.example::Relu";
}

START_TEST(attribute_kinds)
{
    net n = make_net();
    custom_domain(&n);
    ox_attr *a = ox_node_add_attr(n.g, n.a, "axes", OX_ATTR_INTS);
    a->u.ints.n = 2; /* values promised, none given */
    a = ox_node_add_attr(n.g, n.a, "value", OX_ATTR_TENSOR);
    a = ox_node_add_attr(n.g, n.a, "body", OX_ATTR_GRAPH);
    a = ox_node_add_attr(n.g, n.a, "odd", OX_ATTR_INT);
    a->kind = (ox_attr_kind)42;
    ox_attr_tensor *t = ox_arena_alloc(&n.g->arena, sizeof *t);
    int64_t *dims = ox_arena_alloc(&n.g->arena, sizeof(int64_t));
    dims[0] = 3;
    t->dtype = OX_FLOAT;
    t->rank = 1;
    t->dims = dims;
    static const float two[2] = {1, 2};
    t->data = (ox_tensor_data){two, sizeof two, false};
    a = ox_node_add_attr(n.g, n.b, "t", OX_ATTR_TENSOR);
    a->u.t = t;
    expect(n.g,
           "node 'a' (Relu): attribute 'axes' (INTS) says it holds 2 values but has none\n"
           "node 'a' (Relu): attribute 'value' (TENSOR) has no tensor\n"
           "node 'a' (Relu): attribute 'body' (GRAPH) has no graph\n"
           "node 'a' (Relu): attribute 'odd' has kind 42, which is not an ONNX attribute type\n"
           "node 'b' (Relu): attribute 't' tensor holds 8 bytes but float32 with 3 elements "
           "needs 12\n", 5);
    ox_graph_free(n.g);

    /* two attributes of one name (ox_node_add_attr would replace: build by hand) */
    n = make_net();
    custom_domain(&n);
    ox_attr *two_attrs = ox_arena_alloc(&n.g->arena, 2 * sizeof(ox_attr));
    two_attrs[0].name = "alpha";
    two_attrs[0].kind = OX_ATTR_FLOAT;
    two_attrs[1] = two_attrs[0];
    n.a->attrs = two_attrs;
    n.a->n_attrs = 2;
    ox_attr *unnamed = ox_node_add_attr(n.g, n.b, "x", OX_ATTR_INT);
    unnamed->name = "";
    expect(n.g, "node 'a' (Relu): attribute 'alpha' appears more than once\n"
                "node 'b' (Relu): attribute #0 has no name\n", 2);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(null_report_still_counts)
{
    net n = make_net();
    n.g->ir_version = 0;
    size_t count = 0;
    ck_assert_int_eq(ox_check(ctx, n.g, NULL, &count), OX_ECHECK);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(ox_check(ctx, NULL, NULL, &count), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_check: graph is NULL");
    ox_graph_free(n.g);
}
END_TEST

START_TEST(schema_rules)
{
    net n = make_net();
    ox_node_add_attr(n.g, n.a, "axis", OX_ATTR_INT);
    ox_node *c = ox_graph_add_node(n.g, "onnx::HardSwish", 1, &n.y->id, 1);
    c->name = "c";
    ox_node *d = ox_graph_add_node(n.g, "onnx::Upsample", 1, &n.y->id, 1);
    d->name = "d";
    ox_node *e = ox_graph_add_node(n.g, "onnx::Add", 1, &n.y->id, 1);
    e->name = "e";
    ox_value *i = ox_graph_add_value(n.g, OX_VAL_INPUT, OX_INT64, 0, NULL);
    i->name = "i";
    ox_graph_add_input(n.g, i->id);
    ox_vid mixed[2] = {n.y->id, i->id};
    ox_node *f = ox_graph_add_node(n.g, "onnx::Add", 2, mixed, 1);
    f->name = "f";
    expect(n.g,
           "node 'a' (Relu): Relu (opset 13) has no attribute 'axis'\n"
           "node 'c' (HardSwish): HardSwish is not in ai.onnx opset 13 (it is introduced in "
           "opset 14)\n"
           "node 'd' (Upsample): Upsample is deprecated at opset 13 (since opset 10)\n"
           "node 'e' (Add): Add (opset 13) takes 2 input(s), got 1\n"
           "node 'f' (Add): input 1 of Add is int64 but input 0 is float32: both have type T\n",
           5);
    ox_graph_free(n.g);
}
END_TEST

START_TEST(model_versions_and_names)
{
    net n = make_net();
    n.g->ir_version = 2;
    n.g->name = "";
    expect(n.g,
           "model: ir_version 2 is outside the IR versions oxport knows (3 to 10)\n"
           "graph: the name is empty (ONNX requires one)\n", 2);
    n.g->ir_version = 99;
    n.g->name = "g";
    n.g->opsets[0].version = 0;
    expect(n.g,
           "model: ir_version 99 is outside the IR versions oxport knows (3 to 10)\n"
           "model: opset_import for domain '' has version 0 (must be >= 1)\n"
           "node 'a' (Relu): no opset_import for domain ''\n"
           "node 'b' (Relu): no opset_import for domain ''\n", 4);
    ox_graph_free(n.g);
}
END_TEST

/* IR 3 has initializers only as defaults of graph inputs (onnx.checker:
 * "in initializer but not in graph input"); from IR 4 they stand alone. */
START_TEST(ir3_initializers_are_inputs)
{
    net n = make_net();
    n.g->ir_version = 3;
    ox_graph_set_opset(n.g, "", 8);
    expect(n.g, "initializer 'w' is not a graph input; IR version 3 requires every initializer "
                "to be listed as a graph input too\n", 1);
    n.w->listed_as_input = true; /* as the reader marks it, and the export's layout */
    expect(n.g, "", 0);
    n.w->listed_as_input = false;
    n.g->ir_version = 4;
    expect(n.g, "", 0);
    ox_graph_free(n.g);
}
END_TEST

/* The schema check remembers the last clean node of each schema row and
 * passes a node that reads the same (schema_check.c).  Over nodes that
 * repeat clean and broken forms of one operator (types, counts, absent
 * inputs, attributes), the memoized check reports what the unmemoized one
 * does, node by node. */
static void collect_rule(void *user, const char *rule)
{
    char *buf = user;
    size_t len = strlen(buf);
    snprintf(buf + len, 4096 - len, "%s\n", rule);
}

START_TEST(clean_node_memo_agrees_with_the_full_check)
{
    ox_graph *g = ox_graph_new("g");
    int64_t d[1] = {4};
    ox_value *f = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 1, d);
    ox_value *f2 = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 1, d);
    ox_value *i64 = ox_graph_add_value(g, OX_VAL_INPUT, OX_INT64, 1, d);
    ox_value *none = ox_graph_add_value(g, OX_VAL_INPUT, OX_UNDEFINED, 1, d);
    struct { const char *op; uint32_t n_in; ox_vid in[3]; ox_dtype out; bool attr; } nodes[] = {
        {"Add", 2, {f->id, f2->id}, OX_FLOAT, false},
        {"Add", 2, {f->id, f->id}, OX_FLOAT, false},
        {"Add", 2, {f->id, i64->id}, OX_FLOAT, false},   /* T binds two types */
        {"Add", 2, {f->id, f2->id}, OX_FLOAT, false},
        {"Add", 2, {f->id, f2->id}, OX_INT64, false},    /* the output breaks T */
        {"Add", 1, {f->id}, OX_FLOAT, false},            /* too few inputs */
        {"Add", 2, {f->id, 0}, OX_FLOAT, false},         /* a required input absent */
        {"Add", 2, {f->id, none->id}, OX_FLOAT, false},
        {"Add", 2, {f->id, f2->id}, OX_FLOAT, true},     /* an attribute Add has not */
        {"Add", 2, {f->id, f2->id}, OX_FLOAT, false},
        {"Relu", 1, {i64->id}, OX_INT64, false},         /* int64 Relu before opset 14 */
        {"Relu", 1, {f->id}, OX_FLOAT, false},
        {"Relu", 1, {i64->id}, OX_INT64, false},
        {"Clip", 3, {f->id, 0, f2->id}, OX_FLOAT, false}, /* an optional input absent */
        {"Clip", 3, {f->id, 0, f2->id}, OX_FLOAT, false},
        {"Clip", 3, {f->id, 0, i64->id}, OX_FLOAT, false},
    };
    static char memo_out[4096], full_out[4096];
    size_t broken_nodes = 0;
    for (int64_t version = 13; version <= 14; version++)
        for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
            ox_node *n = ox_graph_add_node_op(g, "", nodes[k].op, nodes[k].n_in, nodes[k].in, 1);
            ox_value_set_type(g, ox_graph_value(g, n->outputs[0]), nodes[k].out, 1, d);
            if (nodes[k].attr)
                ox_node_add_attr(g, n, "axis", OX_ATTR_INT)->u.i = 0;
            ox_schema_lookup l = ox_schema_lookup_node(n, version);
            memo_out[0] = full_out[0] = '\0';
            size_t a = ox_schema_check_node_as(g, NULL, n, &l, version, collect_rule, memo_out);
            size_t b = ox_schema_check_node_unmemoized(g, NULL, n, &l, version, collect_rule,
                                                       full_out);
            ck_assert_msg(a == b, "node %zu (%s) at opset %lld: %zu against %zu", k,
                          nodes[k].op, (long long)version, a, b);
            ck_assert_str_eq(memo_out, full_out);
            broken_nodes += a > 0;
        }
    ck_assert_uint_ge(broken_nodes, 14); /* the broken forms, at both opsets but Relu's */
    ox_graph_free(g);
}
END_TEST

/* The schema index (built in one walk of the table on first use) finds
 * every row at its own since_version and up to the version before its
 * operator's next row. */
START_TEST(schema_index_finds_every_row)
{
    for (size_t i = 0; i < ox_n_schemas; i++) {
        const ox_schema *s = &ox_schemas[i];
        ck_assert_ptr_eq(ox_schema_find(s->domain, s->name, s->since_version), s);
        bool next_same = i + 1 < ox_n_schemas && strcmp(ox_schemas[i + 1].name, s->name) == 0 &&
                         strcmp(ox_schemas[i + 1].domain, s->domain) == 0;
        if (next_same)
            ck_assert_ptr_eq(ox_schema_find(s->domain, s->name,
                                            ox_schemas[i + 1].since_version - 1), s);
    }
}
END_TEST

/* A node's noted schema row (ox_node.schema_kind) answers only while the
 * node keeps its kind and the version stays in the row's range. */
START_TEST(noted_schema_rows_follow_kind_and_version)
{
    ox_graph *g = ox_graph_new("g");
    int64_t d[1] = {4};
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 1, d);
    ox_node *n = ox_graph_add_node_op(g, "", "Relu", 1, &x->id, 1);
    ox_schema_lookup at13 = ox_schema_lookup_node_noting(n, 13);
    ck_assert_ptr_nonnull(at13.s);
    ck_assert_str_eq(at13.s->name, "Relu");
    ck_assert_ptr_eq(ox_schema_lookup_node(n, 13).s, at13.s);
    ox_schema_lookup at14 = ox_schema_lookup_node(n, 14); /* Relu-14 is another row */
    ck_assert_ptr_nonnull(at14.s);
    ck_assert_ptr_ne(at14.s, at13.s);
    ck_assert_int_eq(at14.s->since_version, 14);
    ck_assert_int_eq(ox_schema_output_dtype(g, NULL, n, 13, 0), OX_FLOAT);
    /* a node made next with the same op_type starts with that row noted
     * (ir.c's kind hints), and is answered as a fresh lookup would be */
    ox_node *m = ox_graph_add_node_op(g, "", "Relu", 1, &x->id, 1);
    ck_assert_uint_eq(m->schema_row, n->schema_row);
    ck_assert_ptr_eq(ox_schema_lookup_node(m, 13).s, at13.s);
    ck_assert_ptr_eq(ox_schema_lookup_node(m, 14).s, at14.s);
    ox_node *o = ox_graph_add_node_op(g, "com.example", "Relu", 1, &x->id, 1);
    ck_assert_uint_eq(o->schema_row, 0); /* another kind: nothing noted */
    ck_assert_int_eq(ox_node_set_kind(g, n, "", "Shape"), 0);
    ox_schema_lookup shape = ox_schema_lookup_node(n, 13);
    ck_assert_ptr_nonnull(shape.s);
    ck_assert_str_eq(shape.s->name, "Shape");
    ck_assert_int_eq(ox_schema_output_dtype(g, NULL, n, 13, 0), OX_INT64);
    ox_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("rules");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, valid_graph_passes);
    tcase_add_test(tc, schema_index_finds_every_row);
    tcase_add_test(tc, clean_node_memo_agrees_with_the_full_check);
    tcase_add_test(tc, model_level_fields);
    tcase_add_test(tc, use_before_definition);
    tcase_add_test(tc, ssa_names_and_ids);
    tcase_add_test(tc, initializer_names);
    tcase_add_test(tc, inputs_and_outputs_need_names_and_types);
    tcase_add_test(tc, op_type_and_domains);
    tcase_add_test(tc, attribute_kinds);
    tcase_add_test(tc, schema_rules);
    tcase_add_test(tc, model_versions_and_names);
    tcase_add_test(tc, ir3_initializers_are_inputs);
    tcase_add_test(tc, null_report_still_counts);
    tcase_add_test(tc, noted_schema_rows_follow_kind_and_version);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
