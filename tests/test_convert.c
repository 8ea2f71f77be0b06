/*
 * Conversion: the pre-scan reports every problem at once, dispatch by opset,
 * the symbolic output contract, constants, pass-through nodes and graph
 * outputs.  Uses the fixture packs and the fixture opset descriptors
 * (tests/fixtures/plugins/), so it does not move when the shipped ones do.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_job.h"
#include "config.h"
#include "context.h"
#include "ir.h"
#include "plugin_load.h"
#include "test_util.h"

/* A context with the fixture descriptors and these packs, not loaded yet. */
static ox_context *ctx_unloaded(const char *const *packs, size_t n)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024];
    const char *s = getenv("OXPORT_TEST_SRCDIR");
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", s ? s : "..");
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, fx(packs[i])), OX_OK);
    return ctx;
}

static ox_context *ctx_with(const char *const *packs, size_t n)
{
    ox_context *ctx = ctx_unloaded(packs, n);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    return ctx;
}

/* `text` as a config file; path is a mkstemp template, filled in. */
static void write_config(char *path, const char *text)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A tiny tracing helper: every value is Float[2, 3]. */
static const int64_t SIZES[] = {2, 3};

typedef struct tr {
    ox_context *ctx;
    ox_trace *t;
} tr;

static tr begin(ox_context *ctx)
{
    tr x = {ctx, NULL};
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &x.t), OX_OK);
    return x;
}

static ox_vid input(tr *x, const char *name)
{
    ox_vid v;
    ck_assert_int_eq(ox_trace_input(x->t, name, OX_FLOAT, 2, SIZES, &v), OX_OK);
    return v;
}

static ox_vid op(tr *x, const char *scope, const char *kind, size_t n, const ox_arg *args)
{
    ox_tensor_desc d = {OX_FLOAT, 2, SIZES};
    ox_vid v;
    if (scope)
        ck_assert_int_eq(ox_trace_push_scope(x->t, scope), OX_OK);
    ck_assert_msg(ox_trace_op(x->t, kind, n, args, 1, &d, &v) == OX_OK, "%s", ox_errmsg(x->ctx));
    if (scope)
        ck_assert_int_eq(ox_trace_pop_scope(x->t), OX_OK);
    return v;
}

static ox_vid unary(tr *x, const char *scope, const char *kind, ox_vid in)
{
    ox_arg a = ox_arg_tensor("self", in);
    return op(x, scope, kind, 1, &a);
}

static ox_graph *finish(tr *x, ox_vid out)
{
    ck_assert_int_eq(ox_trace_output(x->t, out, NULL), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(x->t, &g), OX_OK);
    return g;
}

static const char *only_op(const ox_graph *g)
{
    ck_assert_uint_eq(g->n_nodes, 1);
    return g->first->op_type;
}

static char msg[16384];

START_TEST(prescan_reports_all_problems_at_once)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_vid v = unary(&x, "Missing[m]", "test::missing", in);
    ox_arg pool[] = {ox_arg_tensor("self", v), ox_arg_bool("ceil_mode", 1)};
    v = op(&x, "MaxPool2d[pool]", "test::pool", 2, pool);
    ox_arg relu[] = {ox_arg_tensor("self", v), ox_arg_int("foo", 1)};
    v = op(&x, "ReLU[r]", "test::relu", 2, relu);
    v = unary(&x, NULL, "test::later", v);
    v = unary(&x, NULL, "test::yamlonly", v);
    v = unary(&x, NULL, "test::gone", v);
    ox_arg mul[] = {ox_arg_tensor("self", v), ox_arg_string("other", "two")};
    v = op(&x, NULL, "test::mul", 2, mul);
    ox_arg noself = ox_arg_none("self");
    v = op(&x, NULL, "test::act", 1, &noself);
    ox_arg modeonly = ox_arg_string("mode", "constant");
    ox_vid w = op(&x, "Pad[p]", "test::picky", 1, &modeonly);
    ox_arg mul2[] = {ox_arg_tensor("self", v), ox_arg_tensor("other", w)};
    ox_graph *g = finish(&x, op(&x, NULL, "test::mul", 2, mul2));

    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    ck_assert_ptr_null(out);
    const char *base = fx("base");
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 9 problem(s) at opset 9:\n"
             "  - ONNX export failed on missing because no symbolic for test::missing is "
             "registered (scope: Net/Missing[m])\n"
             "  - test::pool(ceil_mode=True) at Net/MaxPool2d[pool]: MaxPool has no ceil_mode "
             "attribute before opset 10; supported from opset 10\n"
             "  - test::relu at Net/ReLU[r]: unknown argument 'foo' (the symbolic in %s declares "
             "self)\n"
             "  - ONNX export failed on later because test::later has no symbolic at this opset "
             "(scope: Net); supported from opset 11\n"
             "  - ONNX export failed on yamlonly because no symbolic for test::yamlonly is "
             "registered (scope: Net); the opset descriptors declare it, but no loaded pack "
             "provides its symbolic (is the pack on the plugin path?)\n"
             "  - ONNX export failed on gone because no symbolic for test::gone is registered "
             "(scope: Net); oxport does not export it: a TorchScript-only name a trace never "
             "records (opset_9.yaml)\n"
             "  - test::mul at Net: argument 'other' is recorded as string, but the symbolic in "
             "%s declares tensor_or_scalar\n"
             "  - test::act at Net: required tensor argument 'self' is None\n"
             "  - test::picky at Net/Pad[p]: required tensor argument 'self' is not recorded",
             base, base);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* The pre-scan skips matching the arguments of a node recorded like an
 * earlier node of its kind that matched (prescan.c): a node of that kind
 * with another argument, another kind of argument or another output count
 * is still matched and reported, after the skipped ones and before them. */
START_TEST(prescan_matches_each_new_signature)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid v = input(&x, "x");
    ox_arg relu[] = {ox_arg_tensor("self", v)};
    v = op(&x, "A[0]", "test::relu", 1, relu);
    relu[0] = ox_arg_tensor("self", v);
    v = op(&x, "A[1]", "test::relu", 1, relu);
    ox_arg extra[] = {ox_arg_tensor("self", v), ox_arg_int("foo", 1)};
    v = op(&x, "B[0]", "test::relu", 2, extra);
    relu[0] = ox_arg_tensor("self", v);
    v = op(&x, "A[2]", "test::relu", 1, relu);
    ox_arg mul[] = {ox_arg_tensor("self", v), ox_arg_tensor("other", v)};
    v = op(&x, "C[0]", "test::mul", 2, mul);
    ox_arg mul_s[] = {ox_arg_tensor("self", v), ox_arg_string("other", "two")};
    v = op(&x, "D[0]", "test::mul", 2, mul_s);
    ox_arg none[] = {ox_arg_none("self")};
    v = op(&x, "E[0]", "test::relu", 1, none);
    ox_graph *g = finish(&x, v);

    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    ck_assert_ptr_null(out);
    const char *base = fx("base");
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 3 problem(s) at opset 9:\n"
             "  - test::relu at Net/B[0]: unknown argument 'foo' (the symbolic in %s declares "
             "self)\n"
             "  - test::mul at Net/D[0]: argument 'other' is recorded as string, but the "
             "symbolic in %s declares tensor_or_scalar\n"
             "  - test::relu at Net/E[0]: required tensor argument 'self' is None",
             base, base);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* The same problem in many nodes is listed once, with its count and scopes;
 * the context keeps every line for the CLI's JSON report. */
START_TEST(repeated_problems_are_grouped)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid v = input(&x, "x");
    const char *scopes[] = {"A[0]", "A[0]", "B[1]", "A[0]"};
    for (size_t i = 0; i < 4; i++) {
        ox_arg pool[] = {ox_arg_tensor("self", v), ox_arg_bool("ceil_mode", 1)};
        v = op(&x, scopes[i], "test::pool", 2, pool);
    }
    v = unary(&x, "M[m]", "test::missing", v);
    ox_graph *g = finish(&x, v);
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "Couldn't export operator(s): 5 problem(s) at opset 9:\n"
                     "  - test::pool(ceil_mode=True) at Net/A[0]: MaxPool has no ceil_mode "
                     "attribute before opset 10; supported from opset 10 (4 times in 2 scopes: "
                     "Net/A[0] (3), Net/B[1] (1))\n"
                     "  - ONNX export failed on missing because no symbolic for test::missing is "
                     "registered (scope: Net/M[m])");
    ck_assert_uint_eq(ctx->problems.n, 5);
    ck_assert_int_eq(ctx->problems_opset, 9);
    ck_assert_str_eq(ctx->problems.scopes[2], "Net/B[1]");
    /* a later success forgets them */
    ox_graph_free(g);
    x = begin(ctx);
    g = finish(&x, unary(&x, NULL, "test::relu", input(&x, "x")));
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(ctx->problems.n, 0);
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* A name in disabled_operators that no pack provides and no descriptor
 * declares is a typo that would disable nothing: refused, whether the
 * config comes after the packs or before them. */
START_TEST(misspelt_disabled_operator_is_refused)
{
    char cfg[] = "/tmp/oxport-cfg-XXXXXX";
    write_config(cfg, "disabled_operators: [test::reluu]\n");
    char expected[512];
    snprintf(expected, sizeof expected,
             "%s: disabled_operators names test::reluu, which no symbolic pack provides and no "
             "opset descriptor declares (a misspelt name would disable nothing; `oxport ops` "
             "lists the operators)",
             cfg);
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    ck_assert_int_eq(ox_context_load_config(ctx, cfg), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), expected);
    ck_assert_ptr_null(ctx->config); /* refused whole */
    ox_context_free(ctx);

    ctx = ctx_unloaded(packs, 1);
    ck_assert_int_eq(ox_context_load_config(ctx, cfg), OX_OK);
    ck_assert_int_eq(ox_context_load(ctx), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), expected);
    ox_context_free(ctx);
    unlink(cfg);
}
END_TEST

START_TEST(disabled_operator_is_reported_with_config)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    char cfg[] = "/tmp/oxport-cfg-XXXXXX";
    write_config(cfg, "disabled_operators: [test::relu]\n");
    ck_assert_msg(ox_context_load_config(ctx, cfg) == OX_OK, "%s", ox_errmsg(ctx));
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, "ReLU[r]", "test::relu", input(&x, "x")));
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
             "  - ONNX export failed on relu because test::relu is disabled by %s (scope: "
             "Net/ReLU[r])",
             ctx->config->path);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
    remove(cfg);
}
END_TEST

/* A symbolic that starts above the enabled opsets (a config's max, or a pack's
 * since_opset past the descriptors) cannot be reached by choosing another
 * opset, so the report must not promise "supported from opset 11". */
START_TEST(symbolic_above_enabled_range_is_not_promised)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    char cfg[] = "/tmp/oxport-cfg-XXXXXX";
    write_config(cfg, "opsets: {min: 9, max: 10}\n");
    ck_assert_msg(ox_context_load_config(ctx, cfg) == OX_OK, "%s", ox_errmsg(ctx));
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, NULL, "test::later", input(&x, "x")));
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
                     "  - ONNX export failed on later because test::later has no symbolic at "
                     "this opset (scope: Net); its symbolic starts at opset 11, above the "
                     "enabled opsets 9..10");
    ox_graph_free(g);
    ox_context_free(ctx);
    remove(cfg);
}
END_TEST

START_TEST(dispatch_follows_target_opset)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, NULL, "test::act", input(&x, "x")));
    const struct { int opset; const char *op; } cases[] = {
        {9, "Relu"}, {10, "Relu"}, {11, "Sigmoid"}};
    for (size_t i = 0; i < 3; i++) {
        ox_graph *out = NULL;
        ck_assert_msg(ox_convert(ctx, g, cases[i].opset, &out) == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_str_eq(only_op(out), cases[i].op);
        ck_assert_int_eq(ox_graph_opset(out, ""), cases[i].opset);
        ck_assert_int_eq(out->ir_version, ox_ir_version_for_opset(cases[i].opset));
        ck_assert(out->is_onnx);
        ox_graph_free(out);
    }
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 8, &out), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_convert: opset 8 is outside the enabled range 9..11 "
                                     "(set by the opset descriptors)");
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(in_place_op_uses_out_of_place_symbolic)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, NULL, "test::relu_", input(&x, "x")));
    ox_graph *out = NULL;
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(only_op(out), "Relu");
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(symbolic_output_contract)
{
    const char *packs[] = {"base", "unset", "toomany"};
    ox_context *ctx = ctx_with(packs, 3);
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, "Bad[b]", "test::unset", input(&x, "x")));
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EPLUGIN);
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
             "  - test::unset at Net/Bad[b]: the symbolic in %s left output 0 of 1 unset",
             fx("unset"));
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);

    x = begin(ctx);
    g = finish(&x, unary(&x, "Bad[b]", "test::toomany", input(&x, "x")));
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EPLUGIN);
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
             "  - test::toomany at Net/Bad[b]: the symbolic in %s set output 1, but the node has "
             "1 output(s)",
             fx("toomany"));
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(symbolic_nodes_are_checked_against_schemas)
{
    const char *packs[] = {"badnode"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    const char *kinds[] = {"test::unknown_op", "test::too_new", "test::bad_attrs",
                           "test::missing_attr", "test::input_count", "test::absent_input",
                           "test::bad_types", "test::mistyped"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        ck_assert_int_eq(ox_trace_output(x.t, unary(&x, "Bad[b]", kinds[i], in), NULL), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(x.t, &g), OX_OK);
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EPLUGIN);
    ck_assert_ptr_null(out);
    const char *p = fx("badnode");
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 11 problem(s) at opset 9:\n"
             "  - test::unknown_op at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: NoSuchOp is not an operator of ai.onnx (opset 9)\n"
             "  - test::too_new at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX node: "
             "Celu is not in ai.onnx opset 9 (it is introduced in opset 12)\n"
             "  - test::bad_attrs at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: attribute 'alpha' of Elu must be FLOAT, got INT\n"
             "  - test::bad_attrs at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: Elu (opset 9) has no attribute 'beta'\n"
             "  - test::missing_attr at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: Cast requires attribute 'to' (INT)\n"
             "  - test::input_count at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: Add (opset 9) takes 2 input(s), got 1\n"
             "  - test::absent_input at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: input 1 (B) of Gemm is required but absent\n"
             "  - test::absent_input at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: input 2 (C) of Gemm is required but absent\n"
             "  - test::bad_types at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: input 0 (X) of Relu is int64, which type constraint T does not allow "
             "(allowed: float32, float16, float64)\n"
             "  - test::bad_types at Net/Bad[b]: the symbolic in %s emitted an invalid ONNX "
             "node: input 1 of Add is int64 but input 0 is float32: both have type T\n"
             "  - test::mistyped at Net/Bad[b]: the symbolic in %s typed output 0 of its Cast "
             "node as float32, but the schema makes it int64",
             p, p, p, p, p, p, p, p, p, p, p);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* One recorded op on input x, converted at opset 9: the error message. */
static const char *convert_error(ox_context *ctx, const char *kind, int times)
{
    tr x = begin(ctx);
    ox_vid v = input(&x, "x");
    for (int i = 0; i < times; i++)
        v = unary(&x, "C[c]", kind, v);
    ox_graph *g = finish(&x, v);
    ox_graph *out = NULL;
    ox_status st = ox_convert(ctx, g, 9, &out);
    ox_graph_free(out);
    ox_graph_free(g);
    return st == OX_OK ? "OK" : ox_errmsg(ctx);
}

START_TEST(plugin_contract_holes_are_closed)
{
    const char *packs[] = {"contract"};
    ox_context *ctx = ctx_with(packs, 1);
    const char *p = fx("contract");
    const char *head = "Couldn't export operator(s): 1 problem(s) at opset 9:\n  - ";

    ck_assert_str_eq(convert_error(ctx, "test::stale_vid", 1), "OK"); /* keeps an id */
    const char *m = convert_error(ctx, "test::stale_vid", 1);
    ck_assert_msg(strncmp(m, head, strlen(head)) == 0, "%s", m);
    unsigned bad;
    ck_assert_int_eq(sscanf(m + strlen(head), "test::stale_vid at Net/C[c]: op(Relu): input 0: "
                                              "value %x", &bad), 1);
    snprintf(msg, sizeof msg, "%stest::stale_vid at Net/C[c]: op(Relu): input 0: value %#x is "
                              "not a value of this conversion (an id kept from another graph, "
                              "or a traced id; pass a vid from arg_tensor, node_output or "
                              "constant) (symbolic in %s)", head, bad, p);
    ck_assert_str_eq(m, msg);

    snprintf(msg, sizeof msg, "%stest::raw_vid at Net/C[c]: op(Relu): input 0: value 0x1 is not "
                              "a value of this conversion (an id kept from another graph, or a "
                              "traced id; pass a vid from arg_tensor, node_output or constant) "
                              "(symbolic in %s)", head, p);
    ck_assert_str_eq(convert_error(ctx, "test::raw_vid", 1), msg);

    m = convert_error(ctx, "test::retype_input", 1);
    ck_assert_int_eq(sscanf(m + strlen(head), "test::retype_input at Net/C[c]: set_type: value "
                                              "%x", &bad), 1);
    snprintf(msg, sizeof msg, "%stest::retype_input at Net/C[c]: set_type: value %#x is a graph "
                              "input; its type is the host's and cannot be changed (symbolic in "
                              "%s)", head, bad, p);
    ck_assert_str_eq(m, msg);

    m = convert_error(ctx, "test::contradict", 1);
    ck_assert_int_eq(sscanf(m + strlen(head), "test::contradict at Net/C[c]: set_type: value %x",
                            &bad), 1);
    snprintf(msg, sizeof msg, "%stest::contradict at Net/C[c]: set_type: value %#x has size 3 on "
                              "axis 1; it cannot become 4 (symbolic in %s)", head, bad, p);
    ck_assert_str_eq(m, msg);

    snprintf(msg, sizeof msg, "%stest::many_outputs at Net/C[c]: op(Split): 2147483648 outputs "
                              "asked for (at most 65536) (symbolic in %s)", head, p);
    ck_assert_str_eq(convert_error(ctx, "test::many_outputs", 1), msg);

    snprintf(msg, sizeof msg, "%stest::stale_handle at Net/C[c]: node handle of Elu was made by "
                              "an earlier symbolic call; handles are valid only inside the call "
                              "that created them (symbolic in %s)", head, p);
    ck_assert_str_eq(convert_error(ctx, "test::stale_handle", 2), msg);
    ox_context_free(ctx);
}
END_TEST

START_TEST(symbolic_failures_are_collected_without_cascades)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_arg a[] = {ox_arg_tensor("self", in), ox_arg_string("mode", "reflect")};
    ox_vid p1 = op(&x, "Pad[p1]", "test::picky", 2, a);
    ox_vid r = unary(&x, NULL, "test::relu", p1); /* downstream of a failure: not reported */
    ox_arg b[] = {ox_arg_tensor("self", in), ox_arg_string("mode", "replicate")};
    ox_vid p2 = op(&x, "Pad[p2]", "test::picky", 2, b);
    ox_arg m[] = {ox_arg_tensor("self", r), ox_arg_tensor("other", p2)};
    ox_graph *g = finish(&x, op(&x, NULL, "test::mul", 2, m));
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EUNSUPPORTED);
    const char *base = fx("base");
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 2 problem(s) at opset 9:\n"
             "  - test::picky at Net/Pad[p1]: mode 'reflect' is not supported (symbolic in %s)\n"
             "  - test::picky at Net/Pad[p2]: mode 'replicate' is not supported (symbolic in %s)",
             base, base);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

static const ox_node *find_op(const ox_graph *g, const char *op_type)
{
    for (const ox_node *n = g->first; n; n = n->next)
        if (strcmp(n->op_type, op_type) == 0)
            return n;
    return NULL;
}

START_TEST(constants_materialize_only_when_used)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    const float three = 3.0f, unused = 7.0f;
    ox_vid c3, c7;
    ck_assert_int_eq(ox_trace_const(x.t, OX_FLOAT, 0, NULL, &three, OX_BORROW, &c3), OX_OK);
    ck_assert_int_eq(ox_trace_const(x.t, OX_FLOAT, 0, NULL, &unused, OX_BORROW, &c7), OX_OK);
    ox_arg m1[] = {ox_arg_tensor("self", in), ox_arg_tensor("other", c3)};
    ox_vid v = op(&x, NULL, "test::mul", 2, m1);
    ox_arg m2[] = {ox_arg_tensor("self", v), ox_arg_float("other", 0.5)};
    ox_graph *g = finish(&x, op(&x, NULL, "test::mul", 2, m2));
    ox_graph *out = NULL;
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    /* Constant(3), Mul, Constant(0.5), Mul: the unused 7 is gone */
    ck_assert_uint_eq(out->n_nodes, 4);
    ck_assert_uint_eq(out->n_params, 0);
    double seen[2];
    size_t k = 0;
    for (const ox_node *n = out->first; n; n = n->next) {
        if (strcmp(n->op_type, "Constant") != 0)
            continue;
        const ox_attr *a = ox_node_attr(n, "value");
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(a->u.t->dtype, OX_FLOAT);
        ck_assert_uint_eq(a->u.t->rank, 0);
        float f;
        memcpy(&f, a->u.t->data.data, sizeof f);
        ck_assert_uint_lt(k, 2);
        seen[k++] = f;
        /* topological: the constant comes before its consumer */
        ck_assert_str_eq(n->next->op_type, "Mul");
    }
    ck_assert_uint_eq(k, 2);
    ck_assert_double_eq(seen[0], 3.0);
    ck_assert_double_eq(seen[1], 0.5);
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(onnx_nodes_pass_through_with_attributes)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_arg a[] = {ox_arg_tensor("X", in), ox_arg_float("alpha", 0.25)};
    ox_graph *g = finish(&x, op(&x, "Act[a]", "onnx::LeakyRelu", 2, a));
    ox_graph *out = NULL;
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(only_op(out), "LeakyRelu");
    const ox_attr *alpha = ox_node_attr(out->first, "alpha");
    ck_assert_ptr_nonnull(alpha);
    ck_assert_int_eq(alpha->kind, OX_ATTR_FLOAT);
    ck_assert_double_eq(alpha->u.f, 0.25);
    ck_assert_uint_eq(out->first->n_inputs, 1);
    ck_assert_uint_eq(out->first->inputs[0], out->inputs[0]);
    ck_assert_str_eq(out->first->scope, "Net/Act[a]");
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(outputs_stay_distinct_values)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_vid r = unary(&x, NULL, "test::relu", in);
    ck_assert_int_eq(ox_trace_output(x.t, in, NULL), OX_OK); /* an input as output */
    ck_assert_int_eq(ox_trace_output(x.t, r, "y"), OX_OK);
    ck_assert_int_eq(ox_trace_output(x.t, r, NULL), OX_OK); /* the same value twice */
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(x.t, &g), OX_OK);
    ox_graph *out = NULL;
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(out->n_outputs, 3);
    ck_assert_uint_eq(out->n_nodes, 3); /* Relu + two Identities */
    ck_assert_uint_ne(out->outputs[0], out->inputs[0]);
    ck_assert_uint_ne(out->outputs[1], out->outputs[2]);
    ck_assert_str_eq(ox_graph_value(out, out->outputs[0])->producer->op_type, "Identity");
    ck_assert_str_eq(ox_graph_value(out, out->outputs[1])->name, "y");
    ck_assert_str_eq(ox_graph_value(out, out->outputs[1])->producer->op_type, "Relu");
    ck_assert_str_eq(ox_graph_value(out, out->outputs[2])->producer->op_type, "Identity");
    /* the host's output type is copied onto the ONNX value */
    ox_value *y = ox_graph_value(out, out->outputs[2]);
    ck_assert_int_eq(y->type.dtype, OX_FLOAT);
    ck_assert_int_eq(y->type.rank, 2);
    ck_assert_int_eq(y->type.dims[1], 3);
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(override_pack_converts_the_node)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", getenv("OXPORT_TEST_SRCDIR"));
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path_ex(ctx, fx("base"), false), OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, fx("override")), OX_OK);
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, NULL, "test::relu", input(&x, "x")));
    ox_graph *out = NULL;
    ck_assert_msg(ox_convert(ctx, g, 9, &out) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(only_op(out), "LeakyRelu");
    ck_assert_ptr_nonnull(find_op(out, "LeakyRelu"));
    ox_graph_free(out);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(export_checks_options_struct_size)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_graph *g = finish(&x, unary(&x, NULL, "test::relu", input(&x, "x")));
    ox_export_options o;
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(ox_export(ctx, g, "/tmp/oxport-never-written.onnx", &o), OX_EINVAL);
    snprintf(msg, sizeof msg,
             "ox_export: options struct_size is 0, expected %zu; initialize the options with "
             "ox_export_options_init",
             sizeof o);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_export_options_init(&o);
    ck_assert_uint_eq(o.struct_size, sizeof o);
    ck_assert_int_eq(o.export_params, 1);
    ck_assert_int_eq(o.keep_initializers_as_inputs, -1);
    ck_assert_str_eq(o.producer_name, "oxport");
    ck_assert_str_eq(o.producer_version, ox_version());
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* A Relu whose host-recorded output type (int64) contradicts the type the
 * schema gives it (its input's, float32): the conversion names the node. */
START_TEST(host_type_contradicting_the_schema_fails)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_arg a = ox_arg_tensor("self", in);
    ox_tensor_desc d = {OX_INT64, 2, SIZES};
    ox_vid y;
    ck_assert_int_eq(ox_trace_push_scope(x.t, "R[r]"), OX_OK);
    ck_assert_int_eq(ox_trace_op(x.t, "test::relu", 1, &a, 1, &d, &y), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(x.t), OX_OK);
    ox_graph *g = finish(&x, y);
    ox_graph *out = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 9, &out), OX_EPLUGIN);
    snprintf(msg, sizeof msg,
             "Couldn't export operator(s): 1 problem(s) at opset 9:\n"
             "  - test::relu at Net/R[r]: the host recorded output 0 as int64, but the symbolic "
             "in %s maps it to output 0 of its Relu node, which is float32", fx("base"));
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* An onnx:: node the host recorded itself passes through conversion as it
 * is; the check before writing catches its unknown attribute. */
START_TEST(export_checks_before_writing)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_arg a[] = {ox_arg_tensor("X", in), ox_arg_float("beta", 0.25)};
    ox_graph *g = finish(&x, op(&x, "Act[a]", "onnx::Relu", 2, a));
    char dir[] = "/tmp/oxport-check-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[1100];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    ox_export_options o;
    ox_export_options_init(&o);
    ck_assert_int_eq(o.check, 1);
    o.opset = 9;
    ck_assert_msg(ox_export(ctx, g, path, &o) == OX_ECHECK, "%s", ox_errmsg(ctx));
    snprintf(msg, sizeof msg,
             "ox_export: 1 ONNX structural rule violation; first: node 'Relu_0' (Relu): Relu "
             "(opset 9) has no attribute 'beta'; %s was not written (check=0 skips the check)",
             path);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ck_assert_int_ne(access(path, F_OK), 0);
    o.check = 0;
    ck_assert_msg(ox_export(ctx, g, path, &o) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(access(path, F_OK), 0);
    remove(path);
    rmdir(dir);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* Files in dir other than "." and "..": a failed export leaves no temp. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* A graph large enough that the check runs on a thread beside the writer
 * (check_job.h): a violation in its last node still fails the export with
 * the check's message, and neither the earlier file at the path nor any
 * temp file is left changed; without the violation it is written. */
START_TEST(export_checks_beside_a_large_write)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    char dir[] = "/tmp/oxport-check-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[1100];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("earlier", f);
    fclose(f);
    const uint32_t n_nodes = 2 * OX_CHECK_THREAD_MIN_NODES;
    for (int broken = 1; broken >= 0; broken--) {
        tr x = begin(ctx);
        ox_vid h = input(&x, "x");
        for (uint32_t i = 0; i + 1 < n_nodes; i++) {
            ox_arg a = ox_arg_tensor("X", h);
            h = op(&x, NULL, "onnx::Relu", 1, &a);
        }
        ox_arg last[] = {ox_arg_tensor("X", h), ox_arg_float("beta", 0.25)};
        ox_graph *g = finish(&x, op(&x, NULL, "onnx::Relu", broken ? 2 : 1, last));
        ck_assert_uint_eq(ox_graph_node_count(g), n_nodes);
        ox_export_options o;
        ox_export_options_init(&o);
        o.opset = 9;
        ox_status st = ox_export(ctx, g, path, &o);
        if (broken) {
            ck_assert_msg(st == OX_ECHECK, "%s", ox_errmsg(ctx));
            snprintf(msg, sizeof msg,
                     "ox_export: 1 ONNX structural rule violation; first: node 'Relu_%u' (Relu): "
                     "Relu (opset 9) has no attribute 'beta'; %s was not written (check=0 skips "
                     "the check)", (unsigned)(n_nodes - 1), path);
            ck_assert_str_eq(ox_errmsg(ctx), msg);
            char was[16] = {0};
            f = fopen(path, "r");
            ck_assert_ptr_nonnull(f);
            ck_assert_uint_eq(fread(was, 1, sizeof was - 1, f), 7);
            fclose(f);
            ck_assert_str_eq(was, "earlier");
        } else {
            ck_assert_msg(st == OX_OK, "%s", ox_errmsg(ctx));
            ox_graph *back = NULL;
            ck_assert_msg(ox_read(ctx, path, &back) == OX_OK, "%s", ox_errmsg(ctx));
            ck_assert_uint_eq(ox_graph_node_count(back), n_nodes);
            ox_graph_free(back);
        }
        ck_assert_int_eq(entries_in(dir), 1);
        ox_graph_free(g);
    }
    remove(path);
    rmdir(dir);
    ox_context_free(ctx);
}
END_TEST

/* The io-layout stage decides the file's names once; ox_export's verbose
 * listing shows those same names, including the suffix a caller's input name
 * forces on a value that already had it. */
START_TEST(export_listing_shows_the_file_names)
{
    const char *packs[] = {"base"};
    ox_context *ctx = ctx_with(packs, 1);
    tr x = begin(ctx);
    ox_vid in = input(&x, "x");
    ox_arg a = ox_arg_tensor("X", in);
    ox_vid h = op(&x, NULL, "onnx::Relu", 1, &a);
    ox_arg b = ox_arg_tensor("X", h);
    ox_graph *g = finish(&x, op(&x, NULL, "onnx::Neg", 1, &b));
    char dir[] = "/tmp/oxport-names-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[1100];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    char *listing = NULL;
    size_t len = 0;
    FILE *verbose = open_memstream(&listing, &len);
    const char *names[] = {"1"}; /* the name the naming pass gave Relu's output */
    ox_export_options o;
    ox_export_options_init(&o);
    o.opset = 9;
    o.verbose = verbose;
    o.input_names = names;
    o.n_input_names = 1;
    ck_assert_msg(ox_export(ctx, g, path, &o) == OX_OK, "%s", ox_errmsg(ctx));
    fclose(verbose);
    ck_assert_msg(strstr(listing, "graph(%1 : Float(2, 3))") != NULL, "%s", listing);
    ck_assert_msg(strstr(listing, "%1_1 : Float(2, 3) = onnx::Relu(%1)") != NULL, "%s", listing);
    ox_graph *r;
    ck_assert_msg(ox_read(ctx, path, &r) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_graph_value(r, r->inputs[0])->name, "1");
    ck_assert_str_eq(ox_graph_value(r, r->first->outputs[0])->name, "1_1");
    ox_graph_free(r);
    free(listing);
    remove(path);
    rmdir(dir);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

static Suite *convert_suite(void)
{
    Suite *s = suite_create("convert");
    TCase *tc = tcase_create("convert");
    tcase_add_test(tc, prescan_reports_all_problems_at_once);
    tcase_add_test(tc, prescan_matches_each_new_signature);
    tcase_add_test(tc, repeated_problems_are_grouped);
    tcase_add_test(tc, export_checks_before_writing);
    tcase_add_test(tc, export_checks_beside_a_large_write);
    tcase_add_test(tc, export_listing_shows_the_file_names);
    tcase_add_test(tc, host_type_contradicting_the_schema_fails);
    tcase_add_test(tc, disabled_operator_is_reported_with_config);
    tcase_add_test(tc, misspelt_disabled_operator_is_refused);
    tcase_add_test(tc, symbolic_above_enabled_range_is_not_promised);
    tcase_add_test(tc, dispatch_follows_target_opset);
    tcase_add_test(tc, in_place_op_uses_out_of_place_symbolic);
    tcase_add_test(tc, symbolic_output_contract);
    tcase_add_test(tc, symbolic_nodes_are_checked_against_schemas);
    tcase_add_test(tc, plugin_contract_holes_are_closed);
    tcase_add_test(tc, symbolic_failures_are_collected_without_cascades);
    tcase_add_test(tc, constants_materialize_only_when_used);
    tcase_add_test(tc, onnx_nodes_pass_through_with_attributes);
    tcase_add_test(tc, outputs_stay_distinct_values);
    tcase_add_test(tc, override_pack_converts_the_node);
    tcase_add_test(tc, export_checks_options_struct_size);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(convert_suite());
}
