/*
 * Plugin ABI 1.1: what the new declaration fields do once a pack is loaded
 * (defaults reach the symbolic, optional and alternative kinds pass the
 * pre-scan, check hooks report limitations before conversion, variable
 * arity) and every rule the loader holds them to, with exact messages.
 * Fixtures: tests/fixtures/plugins/fx_v11.c, fx_baddecl11.c; the 1.0 packs
 * there are built from the frozen 1.0 header and must keep loading.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "param_decl.h"
#include "plugin_load.h"
#include "test_util.h"

static ox_context *ctx_with(const char *pack)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024];
    const char *s = getenv("OXPORT_TEST_SRCDIR");
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", s ? s : "..");
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, fx(pack)), OX_OK);
    return ctx;
}

static const int64_t SIZES[] = {2, 4};

/* A one-op trace: kind(args) with n_out outputs, all of them graph outputs. */
static ox_graph *one_op(ox_context *ctx, const char *kind, size_t n_args, ox_arg *args,
                        size_t n_out)
{
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ox_vid x;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, SIZES, &x), OX_OK);
    /* A copy per trace: x is this trace's id, which another trace refuses. */
    ox_arg a[8];
    ck_assert_uint_le(n_args, 8);
    for (size_t i = 0; i < n_args; i++) {
        a[i] = args[i];
        if (a[i].kind == OX_ARG_TENSOR && a[i].u.tensor == 0)
            a[i].u.tensor = x; /* "the input" */
    }
    ox_tensor_desc d[4];
    ox_vid out[4];
    for (size_t i = 0; i < n_out; i++)
        d[i] = (ox_tensor_desc){OX_FLOAT, 2, SIZES};
    ck_assert_msg(ox_trace_op(t, kind, n_args, a, n_out, d, out) == OX_OK, "%s",
                  ox_errmsg(ctx));
    for (size_t i = 0; i < n_out; i++)
        ck_assert_int_eq(ox_trace_output(t, out[i], NULL), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    return g;
}

static ox_graph *convert_ok(ox_context *ctx, const ox_graph *traced, int opset)
{
    ox_graph *onnx = NULL;
    ck_assert_msg(ox_convert(ctx, traced, opset, &onnx) == OX_OK, "%s", ox_errmsg(ctx));
    return onnx;
}

static void convert_fails(ox_context *ctx, const ox_graph *traced, int opset, const char *want)
{
    ox_graph *onnx = NULL;
    ck_assert_int_ne(ox_convert(ctx, traced, opset, &onnx), OX_OK);
    ck_assert_str_eq(ox_errmsg(ctx), want);
}

START_TEST(declared_default_reaches_the_symbolic)
{
    ox_context *ctx = ctx_with("v11");
    ox_arg args[] = {ox_arg_tensor("self", 0)};
    ox_graph *g = one_op(ctx, "test::defaults", 1, args, 1);
    ox_graph *o = convert_ok(ctx, g, 9);
    ck_assert_str_eq(o->first->op_type, "LeakyRelu");
    ck_assert_double_eq(ox_node_attr(o->first, "alpha")->u.f, 0.25); /* not the code's 99 */
    ox_graph_free(o);
    ox_graph_free(g);
    /* a recorded value wins over the default */
    ox_arg given[] = {ox_arg_tensor("self", 0), ox_arg_float("alpha", 0.5)};
    g = one_op(ctx, "test::defaults", 2, given, 1);
    o = convert_ok(ctx, g, 9);
    ck_assert_double_eq(ox_node_attr(o->first, "alpha")->u.f, 0.5);
    ox_graph_free(o);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(list_and_string_defaults_alternative_kind_and_none)
{
    ox_context *ctx = ctx_with("v11");
    ox_arg args[] = {ox_arg_tensor("self", 0), ox_arg_none("value")};
    ox_graph *g = one_op(ctx, "test::padded", 2, args, 1);
    ox_graph *o = convert_ok(ctx, g, 9);
    const ox_attr *pads = ox_node_attr(o->first, "pads");
    ck_assert_uint_eq(pads->u.ints.n, 4);
    ck_assert_int_eq(pads->u.ints.p[1], 1);
    ck_assert_int_eq(pads->u.ints.p[3], 1);
    ck_assert_str_eq(ox_node_attr(o->first, "mode")->u.s.p, "reflect");
    ox_graph_free(o);
    ox_graph_free(g);
    /* pads may be recorded as its alternative kind, a string... */
    ox_arg same[] = {ox_arg_tensor("self", 0), ox_arg_string("pads", "same")};
    g = one_op(ctx, "test::padded", 2, same, 1);
    o = convert_ok(ctx, g, 9); /* (the fixture's symbolic then reads no ints) */
    ck_assert_uint_eq(ox_node_attr(o->first, "pads")->u.ints.n, 0);
    ox_graph_free(o);
    ox_graph_free(g);
    /* ...but not as a float: the message prints the declared kinds */
    ox_arg bad[] = {ox_arg_tensor("self", 0), ox_arg_float("pads", 1.5)};
    g = one_op(ctx, "test::padded", 2, bad, 1);
    char want[2048];
    snprintf(want, sizeof want,
             "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
             "  - test::padded at Net: argument 'pads' is recorded as float, but the "
             "symbolic in %s declares ints|string?",
             fx("v11"));
    convert_fails(ctx, g, 9, want);
    ox_graph_free(g);
    /* a required tensor may not be None */
    ox_arg none[] = {ox_arg_none("self")};
    g = one_op(ctx, "test::padded", 1, none, 1);
    convert_fails(ctx, g, 9,
                  "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                  "  - test::padded at Net: required tensor argument 'self' is None");
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(check_hook_reports_before_conversion)
{
    ox_context *ctx = ctx_with("v11");
    ox_arg args[] = {ox_arg_tensor("self", 0), ox_arg_int("k", 3)};
    ox_graph *g = one_op(ctx, "test::limited", 2, args, 1);
    convert_fails(ctx, g, 9,
                  "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                  "  - test::limited at Net: k=3 needs opset 11; supported from opset 11");
    ox_graph_free(convert_ok(ctx, g, 11));
    ox_graph_free(g);
    /* the default k=1 passes at every opset */
    g = one_op(ctx, "test::limited", 1, args, 1);
    ox_graph_free(convert_ok(ctx, g, 9));
    ox_graph_free(g);
    /* a hook that builds is refused, by name */
    g = one_op(ctx, "test::hookbuilds", 1, args, 1);
    convert_fails(ctx, g, 9,
                  "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                  "  - test::hookbuilds at Net: the check hook tried to build Relu (a "
                  "check hook only reads its arguments and reports with api->limit)");
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(outputs_as_recorded_make_one_node)
{
    ox_context *ctx = ctx_with("v11");
    ox_arg args[] = {ox_arg_tensor("self", 0), ox_arg_int("dim", 1)};
    for (size_t n = 1; n <= 3; n++) {
        ox_graph *g = one_op(ctx, "test::pieces", 2, args, n);
        ox_graph *o = convert_ok(ctx, g, 9);
        ck_assert_uint_eq(o->n_nodes, 1);
        ck_assert_str_eq(o->first->op_type, "Split");
        ck_assert_uint_eq(o->first->n_outputs, n);
        ck_assert_uint_eq(o->n_outputs, n);
        ox_graph_free(o);
        ox_graph_free(g);
    }
    ox_context_free(ctx);
}
END_TEST

/* api->output_dtype: the host's recorded type, which the SDK casts back to. */
START_TEST(result_cast_back_to_the_recorded_type)
{
    ox_context *ctx = ctx_with("v11");
    ox_arg args[] = {ox_arg_tensor("self", 0)};
    ox_graph *g = one_op(ctx, "test::recorded", 1, args, 1); /* recorded float32 */
    ox_graph *o = convert_ok(ctx, g, 9);
    ck_assert_uint_eq(o->n_nodes, 2);
    ck_assert_str_eq(o->first->op_type, "Cast");
    ck_assert_int_eq(ox_node_attr(o->first, "to")->u.i, OX_DOUBLE);
    ck_assert_str_eq(o->last->op_type, "Cast");
    ck_assert_int_eq(ox_node_attr(o->last, "to")->u.i, OX_FLOAT);
    ox_graph_free(o);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(bad_11_declarations_named_one_by_one)
{
    ox_context *ctx = ctx_with("baddecl11");
    ck_assert_int_eq(ox_context_load(ctx), OX_EPLUGIN);
    const char *f = fx("baddecl11");
    char want[8192];
    snprintf(want, sizeof want,
             "plugin %s: operator test::nostride: param_size 0 is not a parameter row stride (a "
             "1.1 pack sets it to sizeof(ox_param_decl), at least 40 and a multiple of 8; OX_OP "
             "does)\n"
             "plugin %s: operator test::oddstride: param_size 44 is not a parameter row stride "
             "(a 1.1 pack sets it to sizeof(ox_param_decl), at least 40 and a multiple of 8; "
             "OX_OP does)\n"
             "plugin %s: operator test::badtag: parameter 'alpha' has unknown default tag 9\n"
             "plugin %s: operator test::nodefault: parameter 'dim' is optional but has no "
             "default (a non-tensor parameter the host may leave out needs one; OX_DEFAULT_NULL "
             "when it defaults to None)\n"
             "plugin %s: operator test::notoptional: parameter 'dim' has a default but is not "
             "marked OX_PARAM_OPTIONAL\n"
             "plugin %s: operator test::wrongdefault: parameter 'dim' is declared ints, but its "
             "default is a float\n"
             "plugin %s: operator test::wrongdefaultkind: parameter 'dim' is declared int, but "
             "its default is a string\n"
             "plugin %s: operator test::tensordefault: optional_tensor parameter 'bias' has an "
             "int default (a tensor can only default to None)\n"
             "plugin %s: operator test::badbits: parameter 'self' has alt_kinds 0x100000 with "
             "bits that name no kind (known: 0x1FFE)\n"
             "plugin %s: operator test::badbits: parameter 'self' has unknown flags 0x4\n"
             "plugin %s: operator test::nulllist: parameter 'size' has a 2-entry list default "
             "that is NULL\n"
             "plugin %s: operator test::badflags: unknown flags 0x8",
             f, f, f, f, f, f, f, f, f, f, f, f);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    ox_context_free(ctx);
}
END_TEST

/* A 1.0 pack (frozen header): its non-tensor parameters may be left out or
 * None, as 1.0 promised, and nothing past its 1.0 fields is read. */
START_TEST(abi_1_0_pack_keeps_its_rules)
{
    ox_context *ctx = ctx_with("base");
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_op_impl *im = ox_registry_find(ctx->registry, "test::picky", 9);
    ck_assert_ptr_nonnull(im);
    ck_assert_uint_eq(im->decl->n_params, 2);
    const ox_param_decl *mode = &im->decl->params[1];
    ck_assert_str_eq(mode->name, "mode");
    ck_assert(!ox_param_required(mode));
    ck_assert(ox_param_accepts(mode, OX_ARG_NONE));
    ck_assert(!ox_param_accepts(mode, OX_ARG_INT));
    ck_assert(ox_param_required(&im->decl->params[0]));
    ck_assert(im->decl->check == NULL);
    ox_context_free(ctx);
}
END_TEST

/* The one kind rule, row by row. */
START_TEST(kind_rule)
{
    struct {
        ox_arg_kind declared;
        uint32_t alts, flags;
        ox_arg_kind got;
        bool fits;
    } rows[] = {
        {OX_ARG_INTS, 0, 0, OX_ARG_INT, true},   /* a lone int is a 1-list */
        {OX_ARG_INT, 0, 0, OX_ARG_BOOL, true},
        {OX_ARG_FLOAT, 0, 0, OX_ARG_INT, true},
        {OX_ARG_SCALAR, 0, 0, OX_ARG_BOOL, true},
        {OX_ARG_TENSOR_OR_SCALAR, 0, 0, OX_ARG_TENSOR, true},
        {OX_ARG_OPT_TENSOR, 0, 0, OX_ARG_NONE, true},
        {OX_ARG_TENSOR, 0, 0, OX_ARG_NONE, false},
        {OX_ARG_INT, 0, 0, OX_ARG_NONE, false},  /* 1.1: required unless optional */
        {OX_ARG_INT, 0, OX_PARAM_OPTIONAL, OX_ARG_NONE, true},
        {OX_ARG_INT, 0, 0, OX_ARG_FLOAT, false},
        {OX_ARG_INTS, OX_KIND_BIT(OX_ARG_STRING), 0, OX_ARG_STRING, true},
        {OX_ARG_INTS, OX_KIND_BIT(OX_ARG_STRING), 0, OX_ARG_FLOAT, false},
        {OX_ARG_STRING, 0, 0, OX_ARG_INT, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ox_param_decl p = {.name = "p", .kind = rows[i].declared, .alt_kinds = rows[i].alts,
                           .flags = rows[i].flags};
        ck_assert_msg(ox_param_accepts(&p, rows[i].got) == rows[i].fits, "row %zu", i);
    }
}
END_TEST

START_TEST(default_text_reads_like_python)
{
    static const int64_t ks[] = {1, 1};
    ox_param_decl rows[] = {OX_PARAM_NULL("a", OX_ARG_DTYPE), OX_PARAM_BOOL("b", 1),
                            OX_PARAM_FLOAT("c", OX_ARG_FLOAT, 1e-5), OX_PARAM_STRING("d", "none"),
                            OX_PARAM_INTS("e", ks), OX_PARAM_EMPTY_INTS("f"),
                            OX_PARAM_INT("g", OX_ARG_INT, -1), OX_PARAM("h", OX_ARG_TENSOR)};
    const char *want[] = {"None", "True", "1e-05", "'none'", "[1, 1]", "[]", "-1", ""};
    char buf[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ox_param_default_text(&rows[i], buf, sizeof buf);
        ck_assert_str_eq(buf, want[i]);
    }
    ox_param_kind_text(&rows[4], buf, sizeof buf);
    ck_assert_str_eq(buf, "ints?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("abi11");
    TCase *tc = tcase_create("abi11");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, declared_default_reaches_the_symbolic);
    tcase_add_test(tc, list_and_string_defaults_alternative_kind_and_none);
    tcase_add_test(tc, check_hook_reports_before_conversion);
    tcase_add_test(tc, outputs_as_recorded_make_one_node);
    tcase_add_test(tc, result_cast_back_to_the_recorded_type);
    tcase_add_test(tc, bad_11_declarations_named_one_by_one);
    tcase_add_test(tc, abi_1_0_pack_keeps_its_rules);
    tcase_add_test(tc, kind_rule);
    tcase_add_test(tc, default_text_reads_like_python);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
