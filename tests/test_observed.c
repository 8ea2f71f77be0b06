/* The host's fixed values (ox_trace_fixed_values, observed.h): which warn,
 * which are quiet, and that what only they kept is not left in the graph. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "observed.h"
#include "report.h"
#include "test_util.h"

static ox_context *ctx;
static ox_graph *g;
static ox_report notes;

static void setup(void)
{
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS | OX_CONTEXT_NO_ENV, &ctx), OX_OK);
    g = ox_graph_new("m");
    ck_assert_ptr_nonnull(g);
    ox_report_init(&notes);
}

static void teardown(void)
{
    ox_report_free(&notes);
    ox_graph_free(g);
    ox_context_free(ctx);
}

static ox_node *op(const char *kind, uint32_t n, const ox_vid *in)
{
    ox_node *k = ox_graph_add_node(g, kind, n, in, 1);
    ck_assert_ptr_nonnull(k);
    return k;
}

/* An int64 Constant node: a scalar, or rank 1 of n elements. */
static ox_vid ints(uint32_t rank, uint32_t n, const int64_t *v)
{
    ox_node *c = op("onnx::Constant", 0, NULL);
    int64_t dim = n;
    ck_assert_int_eq(ox_node_become_constant_copy(g, c, OX_INT64, rank, &dim, v, n * sizeof(*v)), 0);
    return c->outputs[0];
}

/* x.size(dim) as the aten pack lowers it: Gather(Shape(x), dim), a scalar. */
static ox_vid size_of(ox_vid x, int64_t dim)
{
    ox_vid s = op("onnx::Shape", 1, &x)->outputs[0];
    ox_vid v = op("onnx::Gather", 2, (ox_vid[]){s, ints(0, 1, &dim)})->outputs[0];
    ox_value_set_type(g, ox_graph_value(g, v), OX_INT64, 0, NULL);
    return v;
}

/* The graph: x [2, 6] -> Relu -> output; batch dynamic when asked. */
static ox_vid model(bool dynamic_batch)
{
    ox_value *x = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 2, (int64_t[]){2, 6});
    ox_graph_add_input(g, x->id);
    if (dynamic_batch)
        ox_value_set_dim_param(g, x, 0, "batch");
    ck_assert_int_eq(ox_graph_add_output(g, op("onnx::Relu", 1, &x->id)->outputs[0]), 0);
    return x->id;
}

static void observe(ox_vid v, const char *message)
{
    ck_assert_int_eq(ox_graph_add_observed(g, &v, 1, message), 0);
}

/* Resolves, and checks that only x's Relu is left. */
static void resolve(void)
{
    ck_assert_int_eq(ox_pass_resolve_observed(ctx, g, &notes), OX_OK);
    ck_assert_uint_eq(g->n_observed, 0);
    ck_assert_uint_eq(g->n_nodes, 1);
    ck_assert_str_eq(g->first->kind, "onnx::Relu");
}

START_TEST(a_size_no_dynamic_axis_reaches_is_quiet)
{
    ox_vid x = model(true);
    observe(size_of(x, 1), "channels fixed");
    resolve();
    ck_assert_uint_eq(notes.n, 0);
}
END_TEST

START_TEST(a_size_a_dynamic_axis_reaches_warns)
{
    ox_vid x = model(true);
    observe(size_of(x, 0), "batch fixed at m.py:3");
    resolve();
    ck_assert_uint_eq(notes.n, 1);
    ck_assert_str_eq(notes.lines[0], "batch fixed at m.py:3");
}
END_TEST

/* torch's floor division of sizes, as the aten pack lowers it (Div, then the
 * sign fix-up: Mul, Equal, Not, Less, Xor, And, Cast, Sub), is worked out;
 * so is the remainder and a Where on a comparison. */
START_TEST(floor_division_and_its_fixups_are_worked_out)
{
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        ox_graph_free(g);
        g = ox_graph_new("m");
        ox_vid x = model(false);
        if (dynamic)
            ox_value_set_dim_param(g, ox_graph_value(g, x), 1, "n");
        int64_t four = 4, zero = 0;
        ox_vid a = size_of(x, 1), b = ints(0, 1, &four), z = ints(0, 1, &zero);
        ox_vid q = op("onnx::Div", 2, (ox_vid[]){a, b})->outputs[0];
        ox_vid back = op("onnx::Mul", 2, (ox_vid[]){q, b})->outputs[0];
        ox_vid exact = op("onnx::Equal", 2, (ox_vid[]){back, a})->outputs[0];
        ox_vid inexact = op("onnx::Not", 1, &exact)->outputs[0];
        ox_vid neg = op("onnx::Xor", 2, (ox_vid[]){op("onnx::Less", 2, (ox_vid[]){a, z})->outputs[0],
                                                    op("onnx::Less", 2, (ox_vid[]){b, z})->outputs[0]})
                         ->outputs[0];
        ox_node *cast = op("onnx::Cast", 1, (ox_vid[]){op("onnx::And", 2, (ox_vid[]){inexact, neg})->outputs[0]});
        ox_node_add_attr(g, cast, "to", OX_ATTR_INT)->u.i = OX_INT64;
        ox_vid fdiv = op("onnx::Sub", 2, (ox_vid[]){q, cast->outputs[0]})->outputs[0];
        ox_node *mod = op("onnx::Mod", 2, (ox_vid[]){a, b});
        ox_vid big = op("onnx::Greater", 2, (ox_vid[]){a, b})->outputs[0];
        ox_vid pick = op("onnx::Where", 3, (ox_vid[]){big, fdiv, mod->outputs[0]})->outputs[0];
        observe(pick, "6 // 4 fixed");
        resolve();
        ck_assert_uint_eq(notes.n, (unsigned)dynamic);
        ox_report_free(&notes);
        ox_report_init(&notes);
    }
}
END_TEST

/* NonZero's count follows the input's values: a size read from it warns
 * though the file has no dynamic axis. */
START_TEST(a_data_sized_size_warns_without_dynamic_axes)
{
    ox_vid x = model(false);
    ox_node *nz = op("onnx::NonZero", 1, &x);
    ox_value_set_type(g, ox_graph_value(g, nz->outputs[0]), OX_INT64, 2, (int64_t[]){2, 7});
    observe(size_of(nz->outputs[0], 1), "count fixed");
    resolve();
    ck_assert_uint_eq(notes.n, 1);
}
END_TEST

/* One entry of several values warns if any of them can vary; a comparison
 * (a bool) is fixed where its sizes are. */
START_TEST(an_entry_warns_if_any_value_varies)
{
    ox_vid x = model(true);
    ox_vid both[] = {size_of(x, 1), size_of(x, 0)};
    ck_assert_int_eq(ox_graph_add_observed(g, both, 2, "shape fixed"), 0);
    ox_vid c = size_of(x, 1), b = size_of(x, 0);
    observe(op("onnx::Equal", 2, (ox_vid[]){c, c})->outputs[0], "channels compared");
    observe(op("onnx::Equal", 2, (ox_vid[]){b, c})->outputs[0], "batch compared");
    ck_assert_int_eq(ox_graph_add_observed(g, (ox_vid[]){0}, 1, "a value conversion dropped"), 0);
    resolve();
    ck_assert_uint_eq(notes.n, 3);
    ck_assert_str_eq(notes.lines[0], "shape fixed");
    ck_assert_str_eq(notes.lines[1], "batch compared");
}
END_TEST

/* A second input y [?, 5], its dim 0 named `name`. */
static ox_vid second_input(const char *name)
{
    ox_value *y = ox_graph_add_value(g, OX_VAL_INPUT, OX_FLOAT, 2, (int64_t[]){2, 5});
    ox_graph_add_input(g, y->id);
    ox_value_set_dim_param(g, y, 0, name);
    return y->id;
}

static ox_vid node1(const char *kind, ox_vid x)
{
    return op(kind, 1, &x)->outputs[0];
}

/* Terms: sizes of one dynamic axis name are equal on every run, and so
 * are the dims rules pass on unchanged; a comparison of two of them comes
 * out the same every time.  Each pair below: quiet or a warning. */
START_TEST(sizes_of_one_axis_name_compare_the_same_every_run)
{
    static const struct {
        const char *second_name;
        int how; /* what is compared with x.size(0) */
        bool warns;
    } cases[] = {
        {"batch", 0, false}, /* y.size(0), y's dim 0 named as x's */
        {"other", 0, true},  /* ... named otherwise: may differ */
        {"batch", 1, false}, /* Relu(y).size(0): elementwise keeps it */
        {"batch", 2, false}, /* Transpose(y).size(1) */
        {"batch", 3, true},  /* Concat(y, y).size(0): twice the batch */
        {"batch", 4, false}, /* ConstantOfShape([y.size(0), 3]).size(0) */
        {"batch", 5, true},  /* Slice(y, 1:).size(0) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ox_graph_free(g);
        g = ox_graph_new("m");
        ox_vid x = model(true), y = second_input(cases[i].second_name), other = 0;
        switch (cases[i].how) {
        case 0: other = size_of(y, 0); break;
        case 1: other = size_of(node1("onnx::Relu", y), 0); break;
        case 2: other = size_of(node1("onnx::Transpose", y), 1); break;
        case 3: {
            ox_node *c = op("onnx::Concat", 2, (ox_vid[]){y, y});
            ox_node_add_attr(g, c, "axis", OX_ATTR_INT)->u.i = 0;
            other = size_of(c->outputs[0], 0);
            break;
        }
        case 4: {
            int64_t zero = 0, three = 3;
            ox_vid axes = ints(1, 1, &zero);
            ox_vid b = op("onnx::Unsqueeze", 2, (ox_vid[]){size_of(y, 0), axes})->outputs[0];
            ox_node *cat = op("onnx::Concat", 2, (ox_vid[]){b, ints(1, 1, &three)});
            ox_node_add_attr(g, cat, "axis", OX_ATTR_INT)->u.i = 0;
            other = size_of(node1("onnx::ConstantOfShape", cat->outputs[0]), 0);
            break;
        }
        case 5: {
            int64_t one = 1, big = INT64_MAX, zero = 0;
            ox_vid s = op("onnx::Slice", 4, (ox_vid[]){y, ints(1, 1, &one), ints(1, 1, &big), ints(1, 1, &zero)})
                           ->outputs[0];
            other = size_of(s, 0);
            break;
        }
        }
        observe(op("onnx::Equal", 2, (ox_vid[]){size_of(x, 0), other})->outputs[0], "batches compared");
        resolve();
        ck_assert_msg(notes.n == (cases[i].warns ? 1u : 0u), "case %zu: %zu notes", i, (size_t)notes.n);
        ox_report_free(&notes);
        ox_report_init(&notes);
    }
}
END_TEST

START_TEST(the_trace_call_refuses_bad_input)
{
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "M", &t), OX_OK);
    ox_vid x;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, (int64_t[]){2, 3}, &x), OX_OK);
    ck_assert_int_eq(ox_trace_fixed_values(t, 1, &x, "two\nlines"), OX_EINVAL);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "one non-empty line"));
    ck_assert_int_eq(ox_trace_fixed_values(t, 1, &x, ""), OX_EINVAL);
    ox_vid missing = 999;
    ck_assert_int_eq(ox_trace_fixed_values(t, 1, &missing, "w"), OX_EINVAL);
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "value 999 was not produced"));
    ck_assert_int_eq(ox_trace_fixed_values(t, 1, NULL, "w"), OX_EINVAL);
    ck_assert_int_eq(ox_trace_fixed_values(NULL, 1, &x, "w"), OX_EINVAL);
    ck_assert_int_eq(ox_trace_fixed_values(t, 1, &x, "fine"), OX_OK);
    ox_graph *tg;
    ck_assert_int_eq(ox_trace_output(t, x, "y"), OX_OK);
    ck_assert_int_eq(ox_trace_finish(t, &tg), OX_OK);
    ck_assert_uint_eq(tg->n_observed, 1);
    ck_assert_str_eq(tg->observed[0].message, "fine");
    ox_graph_free(tg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("observed");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_size_no_dynamic_axis_reaches_is_quiet);
    tcase_add_test(tc, a_size_a_dynamic_axis_reaches_warns);
    tcase_add_test(tc, floor_division_and_its_fixups_are_worked_out);
    tcase_add_test(tc, a_data_sized_size_warns_without_dynamic_axes);
    tcase_add_test(tc, an_entry_warns_if_any_value_varies);
    tcase_add_test(tc, sizes_of_one_axis_name_compare_the_same_every_run);
    tcase_add_test(tc, the_trace_call_refuses_bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
