/* Opset YAML descriptors: strict parsing with file:line:col errors,
 * inheritance across opset files, limitation matchers and lifting opsets. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opset_yaml.h"
#include "report.h"
#include "test_util.h"

static char fixtures[4096];

static void setup(void)
{
    snprintf(fixtures, sizeof(fixtures), "%s/tests/fixtures/yaml", srcdir());
}

static ox_context *new_ctx(void)
{
    ox_context *ctx = NULL;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    return ctx;
}

static ox_opset_db *load_good(ox_context *ctx)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/good", fixtures);
    ox_opset_db *db = NULL;
    ox_status st = ox_opset_db_load(ctx, dir, &db);
    ck_assert_msg(st == OX_OK, "loading %s: %s", dir, ox_errmsg(ctx));
    return db;
}

/* Load fixtures/yaml/<name> and expect failure with "<dir>/<rest>". */
static void expect_error(const char *name, ox_status want, const char *rest)
{
    ox_context *ctx = new_ctx();
    char dir[4200], want_msg[8400];
    snprintf(dir, sizeof(dir), "%s/%s", fixtures, name);
    snprintf(want_msg, sizeof(want_msg), "%s/%s", dir, rest);
    ox_opset_db *db = (ox_opset_db *)&db; /* must be reset to NULL */
    ck_assert_int_eq(ox_opset_db_load(ctx, dir, &db), want);
    ck_assert_ptr_null(db);
    ck_assert_str_eq(ox_errmsg(ctx), want_msg);
    ox_context_free(ctx);
}

/* ------------------------------------------------------------ bad files */

START_TEST(error_syntax)
{
    expect_error("syntax", OX_ECONFIG,
                 "opset_9.yaml:6:6: expected valid YAML, got a syntax error: did not find expected "
                 "key (while parsing a block mapping started at 4:5)");
}
END_TEST

START_TEST(error_unknown_keys)
{
    expect_error("unknown_key", OX_ECONFIG,
                 "opset_9.yaml:6:5: expected one of the keys doc, params, limitations, got "
                 "'limitation'");
    expect_error("unknown_top_key", OX_ECONFIG,
                 "opset_9.yaml:2:1: expected one of the keys opset, operators, removed, excluded, got "
                 "'operator'");
}
END_TEST

/* Kinds are the pack's (ABI 1.1): the old "- name: kind" form is refused
 * with what to write instead. */
START_TEST(error_kind_in_params)
{
    expect_error("wrong_kind", OX_ECONFIG,
                 "opset_9.yaml:5:9: expected a parameter name, got a mapping: parameter kinds, "
                 "'?' and 'a|b' are declared by the symbolic pack (plugin ABI 1.1), so write "
                 "'- self' here");
}
END_TEST

START_TEST(error_opset_mismatch)
{
    expect_error("opset_mismatch", OX_ECONFIG,
                 "opset_10.yaml:1:8: expected opset 10 (the number in the file name "
                 "opset_10.yaml), got '9'");
}
END_TEST

START_TEST(error_limitation_shape)
{
    expect_error("no_message", OX_ECONFIG,
                 "opset_9.yaml:8:9: expected a 'message' key in this limitation, got none");
    expect_error("empty_message", OX_ECONFIG,
                 "opset_9.yaml:10:18: expected a message a user can read, got an empty string");
    expect_error("two_matchers", OX_ECONFIG,
                 "opset_9.yaml:10:9: expected one matcher per limitation, got 'in' after "
                 "'equals'");
    expect_error("no_matcher", OX_ECONFIG,
                 "opset_9.yaml:8:9: expected a matcher (equals, not_in, in, outside or present) "
                 "in this limitation, got none");
    expect_error("bad_range", OX_ECONFIG,
                 "opset_9.yaml:9:18: expected a range [LO, HI] with LO <= HI, got [3, -1]");
    expect_error("present_false", OX_ECONFIG, "opset_9.yaml:9:18: expected true, got 'false'");
    expect_error("unknown_arg", OX_ECONFIG,
                 "opset_9.yaml:8:14: expected a parameter of aten::max_pool2d (self, ceil_mode), "
                 "got 'ceil_mod'");
}
END_TEST

START_TEST(exclusions)
{
    expect_error("excluded_declared", OX_ECONFIG,
                 "opset_9.yaml:7:3: expected an operator this opset does not declare, got "
                 "'aten::relu' (declared under operators at opset 9 and excluded)");
    expect_error("excluded_empty", OX_ECONFIG,
                 "opset_9.yaml:3:15: expected the reason it is not exported, not an empty string, "
                 "got ''");
    expect_error("excluded_list", OX_ECONFIG,
                 "opset_9.yaml:3:3: expected a mapping of operator names to the reason each is "
                 "not exported, got a sequence");
    /* inherited upward; declaring the operator later lifts its exclusion there */
    ox_context *ctx = new_ctx();
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/excluded_lifted", fixtures);
    ox_opset_db *db = NULL;
    ck_assert_msg(ox_opset_db_load(ctx, dir, &db) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_opset_exclusion *const *ex;
    ck_assert_uint_eq(ox_opset_db_exclusions(db, 9, &ex), 2);
    ck_assert_str_eq(ex[0]->name, "aten::bar"); /* sorted */
    ck_assert_str_eq(ex[1]->reason, "ONNX lacks it before 10");
    ck_assert_int_eq(ex[1]->declared_in, 9);
    ck_assert_uint_eq(ox_opset_db_exclusions(db, 10, &ex), 1);
    ck_assert_str_eq(ex[0]->name, "aten::bar");
    ck_assert_ptr_null(ox_opset_db_excluded(db, 10, "aten::foo"));
    ck_assert_ptr_nonnull(ox_opset_db_excluded(db, 9, "aten::foo"));
    ck_assert_ptr_nonnull(ox_opset_db_lookup(db, 10, "aten::foo"));
    ck_assert_uint_eq(ox_opset_db_exclusions(db, 8, &ex), 0); /* below the files */
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

START_TEST(error_structure)
{
    expect_error("duplicate_key", OX_ECONFIG,
                 "opset_9.yaml:7:5: expected each key once, got 'doc' again (first at 4:5)");
    expect_error("unqualified", OX_ECONFIG,
                 "opset_9.yaml:3:3: expected a qualified operator name like aten::relu, got "
                 "'relu'");
    expect_error("param_not_a_name", OX_ECONFIG,
                 "opset_9.yaml:5:9: expected a parameter name, got a sequence");
    expect_error("removed_unknown", OX_ECONFIG,
                 "opset_10.yaml:2:11: expected an operator declared in a lower opset, got "
                 "'aten::rleu'");
    expect_error("bad_file_name", OX_ECONFIG,
                 "opset_nine.yaml: expected a descriptor named opset_<N>.yaml with N a positive "
                 "number, got 'opset_nine.yaml'");
}
END_TEST

START_TEST(error_directory)
{
    ox_context *ctx = new_ctx();
    ox_opset_db *db = NULL;
    char want[8400];
    /* the fixtures root holds only sub-directories */
    ck_assert_int_eq(ox_opset_db_load(ctx, fixtures, &db), OX_ECONFIG);
    snprintf(want, sizeof(want), "%s: expected opset descriptors (opset_<N>.yaml), got none",
             fixtures);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    ck_assert_int_eq(ox_opset_db_load(ctx, "/nonexistent/opset", &db), OX_ECONFIG);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "/nonexistent/opset: cannot open the opset descriptor directory: No such "
                     "file or directory (set opset_dir in the config, OXPORT_OPSET_DIR or "
                     "ox_context_set_opset_dir)");
    ck_assert_ptr_null(db);
    ox_context_free(ctx);
}
END_TEST

/* ---------------------------------------------------- resolution/inheritance */

START_TEST(range_gap_and_beyond)
{
    ox_context *ctx = new_ctx();
    ox_opset_db *db = load_good(ctx);
    ck_assert_int_eq(ox_opset_db_min(db), 9);
    ck_assert_int_eq(ox_opset_db_max(db), 13);
    /* below the lowest file nothing is declared */
    ck_assert_ptr_null(ox_opset_db_lookup(db, 8, "aten::conv2d"));
    /* opset 11 has no file: it is opset 10's descriptor */
    const ox_opset_op *mp10 = ox_opset_db_lookup(db, 10, "aten::max_pool2d");
    ck_assert_ptr_nonnull(mp10);
    ck_assert_ptr_eq(ox_opset_db_lookup(db, 11, "aten::max_pool2d"), mp10);
    ck_assert_int_eq(mp10->declared_in, 10);
    /* above the highest file the highest applies */
    ck_assert_ptr_eq(ox_opset_db_lookup(db, 17, "aten::softmax"),
                     ox_opset_db_lookup(db, 13, "aten::softmax"));
    /* untouched ops keep the file that declared them */
    ck_assert_int_eq(ox_opset_db_lookup(db, 13, "aten::conv2d")->declared_in, 9);
    ck_assert_ptr_null(ox_opset_db_lookup(db, 9, "aten::nonexistent"));
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

START_TEST(inheritance_replaces_only_given_keys)
{
    ox_context *ctx = new_ctx();
    ox_opset_db *db = load_good(ctx);
    const ox_opset_op *mp9 = ox_opset_db_lookup(db, 9, "aten::max_pool2d");
    ck_assert_str_eq(mp9->doc, "2-D max pooling");
    ck_assert_uint_eq(mp9->n_params, 6);
    ck_assert_str_eq(mp9->params[1].name, "kernel_size");
    ck_assert_str_eq(mp9->params[5].name, "ceil_mode");
    ck_assert_uint_eq(mp9->n_limitations, 1);
    ck_assert_str_eq(mp9->limitations[0].arg, "ceil_mode");
    ck_assert_str_eq(mp9->limitations[0].message,
                     "MaxPool has no ceil_mode attribute before opset 10");
    /* `limitations: []` lifts them, params and doc stay */
    const ox_opset_op *mp10 = ox_opset_db_lookup(db, 10, "aten::max_pool2d");
    ck_assert_uint_eq(mp10->n_limitations, 0);
    ck_assert_uint_eq(mp10->n_params, 6);
    ck_assert_str_eq(mp10->doc, "2-D max pooling");
    /* a doc-only entry keeps params and limitations */
    const ox_opset_op *sm10 = ox_opset_db_lookup(db, 10, "aten::softmax");
    ck_assert_str_eq(sm10->doc, "softmax over one dimension");
    ck_assert_ptr_null(ox_opset_db_lookup(db, 9, "aten::softmax")->doc);
    ck_assert_uint_eq(sm10->n_params, 3);
    ck_assert_uint_eq(sm10->n_limitations, 2);
    ck_assert_str_eq(sm10->params[2].name, "dtype");
    /* names in the order written */
    const ox_opset_op *conv = ox_opset_db_lookup(db, 9, "aten::conv2d");
    ck_assert_str_eq(conv->params[2].name, "bias");
    ck_assert_str_eq(conv->params[6].name, "groups");
    /* in-place names share the out-of-place descriptor */
    ck_assert_ptr_eq(ox_opset_db_lookup(db, 9, "aten::softmax_"),
                     ox_opset_db_lookup(db, 9, "aten::softmax"));
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

START_TEST(removed_and_sorted_listing)
{
    ox_context *ctx = new_ctx();
    ox_opset_db *db = load_good(ctx);
    ck_assert_ptr_nonnull(ox_opset_db_lookup(db, 11, "aten::old_op"));
    ck_assert_ptr_null(ox_opset_db_lookup(db, 12, "aten::old_op"));
    ck_assert_ptr_null(ox_opset_db_lookup(db, 13, "aten::old_op"));
    ck_assert_ptr_null(ox_opset_db_lookup(db, 11, "aten::new_op"));
    ck_assert_ptr_nonnull(ox_opset_db_lookup(db, 12, "aten::new_op"));

    const ox_opset_op *const *ops;
    const char *at9[] = {"aten::add",  "aten::conv2d",  "aten::max_pool2d", "aten::old_op",
                         "aten::pad", "aten::softmax", "aten::upsample"};
    size_t n = ox_opset_db_ops(db, 9, &ops);
    ck_assert_uint_eq(n, 7);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(ops[i]->name, at9[i]);
    const char *at12[] = {"aten::add",     "aten::conv2d",  "aten::max_pool2d", "aten::new_op",
                          "aten::pad",     "aten::softmax", "aten::upsample"};
    n = ox_opset_db_ops(db, 12, &ops);
    ck_assert_uint_eq(n, 7);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(ops[i]->name, at12[i]);
    ck_assert_uint_eq(ox_opset_db_ops(db, 8, &ops), 0);
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

/* ------------------------------------------------------------ node checks */

static ox_graph *G;
static ox_opset_db *DB;
static ox_context *CTX;

static void node_setup(void)
{
    setup();
    CTX = new_ctx();
    DB = load_good(CTX);
    G = ox_graph_new("Net");
}

static void node_teardown(void)
{
    ox_graph_free(G);
    ox_opset_db_free(DB);
    ox_context_free(CTX);
}

static ox_node *node(const char *kind, const char *scope, size_t n_args, const ox_targ *args)
{
    ox_node *n = ox_graph_add_node(G, kind, 0, NULL, 1);
    ck_assert_ptr_nonnull(n);
    n->scope = scope;
    n->args = ox_arena_memdup(&G->arena, args, n_args * sizeof(*args));
    n->n_args = (uint32_t)n_args;
    return n;
}

static ox_targ targ_int(const char *name, ox_arg_kind kind, int64_t v)
{
    ox_targ a;
    memset(&a, 0, sizeof(a));
    a.name = name;
    a.kind = kind;
    a.u.i = v;
    return a;
}

static ox_targ targ_float(const char *name, double v)
{
    ox_targ a = targ_int(name, OX_ARG_FLOAT, 0);
    a.u.f = v;
    return a;
}

static ox_targ targ_str(const char *name, const char *s)
{
    ox_targ a = targ_int(name, OX_ARG_STRING, 0);
    a.u.s = s;
    return a;
}

static ox_targ targ_ints(const char *name, int64_t *p, size_t n)
{
    ox_targ a = targ_int(name, OX_ARG_INTS, 0);
    a.u.ints.p = p;
    a.u.ints.n = n;
    return a;
}

static ox_targ targ_floats(const char *name, double *p, size_t n)
{
    ox_targ a = targ_int(name, OX_ARG_FLOATS, 0);
    a.u.floats.p = p;
    a.u.floats.n = n;
    return a;
}

/* Check node at opset; return the report joined (caller frees) and count. */
static char *check(const ox_node *n, int opset, size_t *count)
{
    ox_report r;
    ox_report_init(&r);
    *count = ox_opset_db_check_node(DB, opset, G, n, &r);
    ck_assert_uint_eq(*count, r.n);
    char *s = ox_report_join(&r, NULL);
    ox_report_free(&r);
    return s;
}

static void expect_lines(const ox_node *n, int opset, const char *want)
{
    size_t count;
    char *got = check(n, opset, &count);
    ck_assert_str_eq(got, want);
    free(got);
}

START_TEST(equals_hit_and_lift)
{
    int64_t k[] = {3, 3};
    ox_targ args[] = {targ_int("self", OX_ARG_TENSOR, 1), targ_ints("kernel_size", k, 2),
                      targ_int("ceil_mode", OX_ARG_BOOL, 1)};
    ox_node *n = node("aten::max_pool2d", "AlexNet/Sequential[features]/MaxPool2d[2]", 3, args);
    expect_lines(n, 9,
                 "aten::max_pool2d(ceil_mode=True) at AlexNet/Sequential[features]/MaxPool2d[2]: "
                 "MaxPool has no ceil_mode attribute before opset 10; supported from opset 10");
    expect_lines(n, 10, "");
    ck_assert_int_eq(ox_opset_db_lifting_opset(DB, 9, G, n), 10);
    ck_assert_int_eq(ox_opset_db_lifting_opset(DB, 11, G, n), 11);
    ck_assert_int_eq(ox_opset_db_lifting_opset(DB, 14, G, n), 0);
    /* ceil_mode=False and an unrecorded ceil_mode do not hit */
    args[2].u.i = 0;
    ox_node *off = node("aten::max_pool2d", "", 3, args);
    expect_lines(off, 9, "");
    ck_assert_int_eq(ox_opset_db_lifting_opset(DB, 9, G, off), 9);
    expect_lines(node("aten::max_pool2d", "", 2, args), 9, "");
    /* an integer 1 equals `true` */
    args[2] = targ_int("ceil_mode", OX_ARG_INT, 1);
    size_t count;
    free(check(node("aten::max_pool2d", "", 3, args), 9, &count));
    ck_assert_uint_eq(count, 1); /* the hit (kinds are the pack's to check) */
}
END_TEST

START_TEST(equals_list_never_lifted)
{
    int64_t d2[] = {2, 2}, d1[] = {1, 1}, d21[] = {2, 1};
    ox_targ args[] = {targ_ints("dilation", d2, 2)};
    /* nothing up to the highest descriptor lifts it: no "supported from" */
    expect_lines(node("aten::conv2d", "Net/Conv2d[c]", 1, args), 13,
                 "aten::conv2d(dilation=[2, 2]) at Net/Conv2d[c]: dilation 2 is not exported");
    args[0] = targ_ints("dilation", d1, 2);
    expect_lines(node("aten::conv2d", "", 1, args), 9, "");
    args[0] = targ_ints("dilation", d21, 2);
    expect_lines(node("aten::conv2d", "", 1, args), 9, "");
    args[0] = targ_ints("dilation", d2, 1); /* [2] is not [2, 2] */
    expect_lines(node("aten::conv2d", "", 1, args), 9, "");
}
END_TEST

START_TEST(not_in_matcher)
{
    ox_targ args[] = {targ_str("mode", "replicate")};
    /* scope-less node: no " at " part */
    expect_lines(node("aten::pad", "", 1, args), 9,
                 "aten::pad(mode='replicate'): only constant and reflect padding are exported; "
                 "supported from opset 12");
    args[0] = targ_str("mode", "circular");
    expect_lines(node("aten::pad", "", 1, args), 12,
                 "aten::pad(mode='circular'): circular padding is not exported");
    args[0] = targ_str("mode", "reflect");
    expect_lines(node("aten::pad", "", 1, args), 9, "");
    /* not recorded, or None: no hit */
    expect_lines(node("aten::pad", "", 0, args), 9, "");
    args[0] = targ_int("mode", OX_ARG_NONE, 0);
    expect_lines(node("aten::pad", "", 1, args), 9, "");
    /* numbers compare by value across int and float */
    ox_targ add[] = {targ_int("alpha", OX_ARG_INT, 1)};
    expect_lines(node("aten::add", "", 1, add), 9, "");
    add[0] = targ_float("alpha", 1.0);
    expect_lines(node("aten::add", "", 1, add), 9, "");
    add[0] = targ_float("alpha", 0.5);
    expect_lines(node("aten::add", "", 1, add), 9,
                 "aten::add(alpha=0.5): alpha other than 1 is not exported");
    add[0] = targ_float("alpha", 2.0);
    expect_lines(node("aten::add", "", 1, add), 9,
                 "aten::add(alpha=2.0): alpha other than 1 is not exported");
}
END_TEST

START_TEST(in_and_outside_matchers)
{
    double ok[] = {2.0, 2.0}, big[] = {1.0, 9.5};
    ox_targ up[] = {targ_str("mode", "bicubic"), targ_floats("scales", ok, 2)};
    expect_lines(node("aten::upsample", "U", 2, up), 9,
                 "aten::upsample(mode='bicubic') at U: this interpolation mode is not exported; "
                 "supported from opset 13");
    up[0] = targ_str("mode", "nearest");
    expect_lines(node("aten::upsample", "U", 2, up), 9, "");
    /* any element outside the range hits */
    up[1] = targ_floats("scales", big, 2);
    expect_lines(node("aten::upsample", "U", 2, up), 12,
                 "aten::upsample(scales=[1.0, 9.5]) at U: scale factors above 8; supported from "
                 "opset 13");

    ox_targ sm[] = {targ_int("dim", OX_ARG_INT, 5)};
    expect_lines(node("aten::softmax", "", 1, sm), 9,
                 "aten::softmax(dim=5): softmax over a dimension past 3; supported from opset 13");
    sm[0].u.i = -1; /* the range is closed */
    expect_lines(node("aten::softmax", "", 1, sm), 9, "");
    sm[0].u.i = 3;
    expect_lines(node("aten::softmax", "", 1, sm), 9, "");
    sm[0].u.i = -2;
    size_t count;
    free(check(node("aten::softmax", "", 1, sm), 9, &count));
    ck_assert_uint_eq(count, 1);
}
END_TEST

START_TEST(present_matcher_and_two_hits)
{
    ox_targ sm[] = {targ_int("dim", OX_ARG_INT, 7), targ_int("dtype", OX_ARG_DTYPE, OX_FLOAT)};
    /* both hit; no opset lifts the dtype one, so neither line gets a lifting opset */
    expect_lines(node("aten::softmax", "S", 2, sm), 9,
                 "aten::softmax(dim=7) at S: softmax over a dimension past 3\n"
                 "aten::softmax(dtype=float32) at S: softmax with a dtype argument is not "
                 "exported");
    sm[1] = targ_int("dtype", OX_ARG_NONE, 0);
    expect_lines(node("aten::softmax", "S", 2, sm), 9,
                 "aten::softmax(dim=7) at S: softmax over a dimension past 3; supported from "
                 "opset 13");
    sm[0].u.i = 0;
    expect_lines(node("aten::softmax", "S", 2, sm), 9, "");
}
END_TEST

/* Kinds are the pack's (tests/test_param_decl.c): the descriptors check
 * only their limitations, whatever kind an argument was recorded as. */
START_TEST(recorded_kinds_against_params)
{
    ox_targ mp[] = {targ_float("kernel_size", 2.5), targ_int("self", OX_ARG_NONE, 0)};
    expect_lines(node("aten::max_pool2d", "P", 2, mp), 10, "");
    char want[2048];
    ox_targ mode[] = {targ_int("mode", OX_ARG_INT, 3)};
    snprintf(want, sizeof(want), "aten::pad(mode=3): circular padding is not exported");
    expect_lines(node("aten::pad", "", 1, mode), 12, want);
    /* ops without a descriptor are not checked here */
    expect_lines(node("aten::elu", "", 1, mode), 9, "");
}
END_TEST

/* ---------------------------------------------------------------- listing */

static const ox_opset_limitation *lim(const ox_opset_db *db, int opset, const char *op, size_t i)
{
    const ox_opset_op *o = ox_opset_db_lookup(db, opset, op);
    ck_assert_ptr_nonnull(o);
    ck_assert_uint_lt(i, o->n_limitations);
    return &o->limitations[i];
}

static void expect_described(const ox_opset_limitation *l, const char *want)
{
    char buf[256];
    ox_opset_limitation_describe(l, buf, sizeof(buf));
    ck_assert_str_eq(buf, want);
}

START_TEST(describe_and_lift_without_a_node)
{
    ox_context *ctx = new_ctx();
    ox_opset_db *db = load_good(ctx);
    expect_described(lim(db, 9, "aten::max_pool2d", 0), "ceil_mode = true");
    expect_described(lim(db, 9, "aten::pad", 0), "mode not in [constant, reflect]");
    expect_described(lim(db, 9, "aten::softmax", 0), "dim outside [-1, 3]");
    expect_described(lim(db, 9, "aten::softmax", 1), "dtype present");
    expect_described(lim(db, 9, "aten::upsample", 0), "mode in [bicubic, area]");
    expect_described(lim(db, 9, "aten::upsample", 1), "scales outside [0.0, 8.0]");
    expect_described(lim(db, 9, "aten::conv2d", 0), "dilation = [2, 2]");

    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 9, "aten::max_pool2d",
                                                   lim(db, 9, "aten::max_pool2d", 0)), 10);
    /* a changed list counts as lifting the old one */
    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 9, "aten::pad", lim(db, 9, "aten::pad", 0)),
                     12);
    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 12, "aten::pad",
                                                   lim(db, 12, "aten::pad", 0)), 0);
    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 9, "aten::softmax",
                                                   lim(db, 9, "aten::softmax", 0)), 13);
    /* re-declared identically at 13: never lifted */
    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 9, "aten::softmax",
                                                   lim(db, 9, "aten::softmax", 1)), 0);
    ck_assert_int_eq(ox_opset_db_limitation_lifted(db, 9, "aten::conv2d",
                                                   lim(db, 9, "aten::conv2d", 0)), 0);
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

/* -------------------------------------------------------- the real opset/ */

START_TEST(real_opset_directory)
{
    const char *dir = getenv("OXPORT_OPSET_DIR");
    ck_assert_ptr_nonnull(dir);
    char probe[4200];
    snprintf(probe, sizeof(probe), "%s/opset_9.yaml", dir);
    if (access(probe, R_OK) != 0)
        return; /* descriptors not written yet in this tree */
    ox_context *ctx = new_ctx();
    ox_opset_db *db = NULL;
    ox_status st = ox_opset_db_load(ctx, dir, &db);
    ck_assert_msg(st == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_opset_db_min(db), 7);
    ck_assert_int_eq(ox_opset_db_max(db), 21);
    for (int o = 7; o <= 21; o++) {
        const ox_opset_op *const *ops;
        size_t n = ox_opset_db_ops(db, o, &ops);
        ck_assert_uint_gt(n, 0);
        for (size_t i = 1; i < n; i++)
            ck_assert_int_lt(strcmp(ops[i - 1]->name, ops[i]->name), 0);
        for (size_t i = 0; i < n; i++)
            ck_assert_int_le(ops[i]->declared_in, o);
    }
    ox_opset_db_free(db);
    ox_context_free(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("yaml");
    TCase *bad = tcase_create("bad_files");
    tcase_add_checked_fixture(bad, setup, NULL);
    tcase_add_test(bad, error_syntax);
    tcase_add_test(bad, error_unknown_keys);
    tcase_add_test(bad, error_kind_in_params);
    tcase_add_test(bad, error_opset_mismatch);
    tcase_add_test(bad, error_limitation_shape);
    tcase_add_test(bad, error_structure);
    tcase_add_test(bad, exclusions);
    tcase_add_test(bad, error_directory);
    suite_add_tcase(s, bad);

    TCase *res = tcase_create("resolution");
    tcase_add_checked_fixture(res, setup, NULL);
    tcase_add_test(res, range_gap_and_beyond);
    tcase_add_test(res, inheritance_replaces_only_given_keys);
    tcase_add_test(res, removed_and_sorted_listing);
    tcase_add_test(res, real_opset_directory);
    tcase_add_test(res, describe_and_lift_without_a_node);
    suite_add_tcase(s, res);

    TCase *chk = tcase_create("check_node");
    tcase_add_checked_fixture(chk, node_setup, node_teardown);
    tcase_add_test(chk, equals_hit_and_lift);
    tcase_add_test(chk, equals_list_never_lifted);
    tcase_add_test(chk, not_in_matcher);
    tcase_add_test(chk, in_and_outside_matchers);
    tcase_add_test(chk, present_matcher_and_two_hits);
    tcase_add_test(chk, recorded_kinds_against_params);
    suite_add_tcase(s, chk);

    return run_suite(s);
}
