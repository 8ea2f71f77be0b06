/*
 * In-process packs (ox_context_add_pack): a descriptor from the host's memory
 * gets the same validation as a .so (exact messages, with the origin in
 * place of the file name), overrides file packs name by name with the
 * override recorded, may be added before or after loading, and its
 * symbolics run in a real conversion.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ir.h"
#include "plugin_load.h"
#include "test_util.h"

/* fx_base as the built-in pack, fx_override as a configured one. */
static ox_context *ctx_base(bool with_override)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024];
    const char *s = getenv("OXPORT_TEST_SRCDIR");
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", s ? s : "..");
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path_ex(ctx, fx("base"), false), OX_OK);
    if (with_override)
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, fx("override")), OX_OK);
    return ctx;
}

/* ---------------------------------------------------------- the pack */

static int init_calls, fini_calls;

static int sym_neg(ox_sym *g, const ox_api *api)
{
    ox_vid x = api->arg_tensor(g, "self");
    ox_onode *n = api->op(g, "Neg", 1, &x, 1);
    return api->set_output(g, 0, api->node_output(n, 0));
}

static int counting_init(const ox_api *api, char *err, size_t err_size)
{
    init_calls++;
    return 0;
}

static void counting_fini(void)
{
    fini_calls++;
}

static int failing_init(const ox_api *api, char *err, size_t err_size)
{
    snprintf(err, err_size, "the Python callback table is not ready");
    return 1;
}

static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
static const ox_op_decl relu_ops[] = {OX_OP("test::relu", 9, p_self, 1, sym_neg),
                                      OX_OP("mylib::foo", 9, p_self, 1, sym_neg)};

static ox_plugin_desc good_desc(void)
{
    ox_plugin_desc d = {OX_PLUGIN_HEADER, "py", "1", "in-process test pack", relu_ops, 2,
                        counting_init, counting_fini};
    return d;
}

static void expect_add_error(ox_context *ctx, const ox_plugin_desc *d, const char *origin,
                             ox_status st, const char *expected)
{
    ck_assert_int_eq(ox_context_add_pack(ctx, d, origin), st);
    ck_assert_str_eq(ox_errmsg(ctx), expected);
    ck_assert_uint_eq(ctx->n_mem_packs, 0);
}

/* ---------------------------------------------------------- tests */

START_TEST(overrides_file_packs_added_before_load)
{
    ox_context *ctx = ctx_base(true);
    ox_plugin_desc d = good_desc();
    init_calls = fini_calls = 0;
    ck_assert_msg(ox_context_add_pack(ctx, &d, "python:test.MyRelu") == OX_OK, "%s",
                  ox_errmsg(ctx));
    ck_assert_int_eq(init_calls, 1); /* validated and initialised when added */
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", 13);
    ck_assert_str_eq(im->plugin->path, "python:test.MyRelu");
    ck_assert_int_eq(im->plugin->rank, OX_PACK_IN_PROCESS);
    ck_assert_ptr_nonnull(im->overrides);
    ck_assert_str_eq(im->overrides->path, fx("override"));
    /* a new name joins; the file packs' other operators stay */
    ck_assert_str_eq(ox_registry_find(ctx->registry, "mylib::foo", 13)->plugin->path,
                     "python:test.MyRelu");
    ck_assert_str_eq(ox_registry_find(ctx->registry, "test::pool", 13)->plugin->path, fx("base"));
    /* listed once, in the listing and among the packs */
    const ox_op_impl *const *all;
    size_t n = ox_registry_ops(ctx->registry, &all), relu = 0;
    for (size_t i = 0; i < n; i++)
        relu += strcmp(all[i]->decl->name, "test::relu") == 0;
    ck_assert_uint_eq(relu, 1);
    const ox_plugin_info *const *packs;
    ck_assert_uint_eq(ox_registry_plugins(ctx->registry, &packs), 3);
    ck_assert_str_eq(packs[0]->desc->name, "py");
    ox_context_free(ctx);
    ck_assert_int_eq(init_calls, 1);
    ck_assert_int_eq(fini_calls, 1);
}
END_TEST

START_TEST(overrides_builtin_added_after_load)
{
    ox_context *ctx = ctx_base(false);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_registry_find(ctx->registry, "test::relu", 13)->plugin->path, fx("base"));
    ox_plugin_desc d = good_desc();
    ck_assert_msg(ox_context_add_pack(ctx, &d, "python:late") == OX_OK, "%s", ox_errmsg(ctx));
    const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", 13);
    ck_assert_str_eq(im->plugin->path, "python:late");
    ck_assert_str_eq(im->overrides->path, fx("base"));
    const ox_op_impl *const *all;
    size_t n = ox_registry_ops(ctx->registry, &all), found = 0;
    for (size_t i = 0; i < n; i++)
        found += strcmp(all[i]->decl->name, "mylib::foo") == 0;
    ck_assert_uint_eq(found, 1);
    ox_context_free(ctx);
}
END_TEST

/* An override declared since opset 11 replaces the file pack's test::relu
 * (since 9) from 11 up; opsets 9 and 10 keep the file pack's, whichever
 * loads first.  A later version of the file pack gives way too. */
static const ox_op_decl relu_from_11[] = {OX_OP("test::relu", 11, p_self, 1, sym_neg)};

START_TEST(an_override_replaces_from_its_own_opset_up)
{
    for (int late = 0; late < 2; late++) {
        ox_context *ctx = ctx_base(false);
        ox_plugin_desc d = {OX_PLUGIN_HEADER, "py11", "1", "relu from 11", relu_from_11, 1, NULL, NULL};
        if (late)
            ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_msg(ox_context_add_pack(ctx, &d, "python:from11") == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
        for (int opset = 9; opset <= 13; opset++) {
            const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", opset);
            ck_assert_ptr_nonnull(im);
            ck_assert_str_eq(im->plugin->path, opset < 11 ? fx("base") : "python:from11");
        }
        const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", 13);
        ck_assert_str_eq(im->overrides->path, fx("base"));
        ck_assert_ptr_null(ox_registry_find(ctx->registry, "test::relu", 9)->overrides);
        ox_context_free(ctx);
    }
}
END_TEST

/* The symbolic of an in-process pack converts a traced node. */
START_TEST(converts_through_in_process_symbolic)
{
    ox_context *ctx = ctx_base(false);
    ox_plugin_desc d = good_desc();
    ck_assert_int_eq(ox_context_add_pack(ctx, &d, "python:conv"), OX_OK);
    static const int64_t sizes[] = {2, 3};
    ox_trace *t;
    ox_vid x, y;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &x), OX_OK);
    ox_arg a = ox_arg_tensor("self", x);
    ox_tensor_desc od = {OX_FLOAT, 2, sizes};
    ck_assert_int_eq(ox_trace_op(t, "mylib::foo", 1, &a, 1, &od, &y), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "y"), OX_OK);
    ox_graph *g, *og;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_ptr_nonnull(og->first);
    ck_assert_str_eq(og->first->kind, "onnx::Neg");
    ck_assert_ptr_null(og->first->next);
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(rejects_bad_arguments)
{
    ox_context *ctx = ctx_base(false);
    ox_plugin_desc d = good_desc();
    expect_add_error(ctx, NULL, "python:x", OX_EINVAL, "ox_context_add_pack: desc is NULL");
    expect_add_error(ctx, &d, "", OX_EINVAL,
                     "ox_context_add_pack: origin is NULL or empty (name where the pack comes "
                     "from, e.g. \"python:mylib\")");
    expect_add_error(ctx, &d, NULL, OX_EINVAL,
                     "ox_context_add_pack: origin is NULL or empty (name where the pack comes "
                     "from, e.g. \"python:mylib\")");
    ck_assert_int_eq(ox_context_add_pack(NULL, &d, "python:x"), OX_EINVAL);
    ox_context_free(ctx);
}
END_TEST

START_TEST(rejects_bad_descriptors_like_a_file)
{
    ox_context *ctx = ctx_base(false);
    ox_plugin_desc d = good_desc();
    d.magic = 0x12345678u;
    expect_add_error(ctx, &d, "python:m", OX_EPLUGIN,
                     "plugin python:m: bad magic 0x12345678 (expected 0x4F58504C)");
    d = good_desc();
    d.abi_major = 2;
    char abi_msg[128];
    snprintf(abi_msg, sizeof abi_msg,
             "plugin python:m: built for plugin ABI 2.%d; this liboxport provides 1.%d",
             OX_PLUGIN_ABI_MINOR, OX_PLUGIN_ABI_MINOR);
    expect_add_error(ctx, &d, "python:m", OX_EPLUGIN, abi_msg);
    d = good_desc();
    d.struct_size = 16;
    expect_add_error(ctx, &d, "python:m", OX_EPLUGIN,
                     "plugin python:m: descriptor struct_size 16 is smaller than the 1.0 minimum 72");
    d = good_desc();
    d.init = failing_init;
    expect_add_error(ctx, &d, "python:m", OX_EPLUGIN,
                     "plugin python:m: init failed: the Python callback table is not ready");
    static const ox_op_decl bad[] = {OX_OP("foo", 9, p_self, 1, sym_neg),
                                     OX_OP("mylib::bar", 0, p_self, 0, NULL)};
    d = good_desc();
    d.ops = bad;
    expect_add_error(ctx, &d, "python:m", OX_EPLUGIN,
                     "plugin python:m: operator #0: name 'foo' is not qualified (expected "
                     "'domain::op', e.g. 'aten::relu')\n"
                     "plugin python:m: operator mylib::bar: since_opset 0 is invalid (must be 1 to 1000)\n"
                     "plugin python:m: operator mylib::bar: symbolic is NULL\n"
                     "plugin python:m: operator mylib::bar: n_outputs is 0 (an operator has at "
                     "least one output)");
    /* none of the rejected ones reached the registry */
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_registry_find(ctx->registry, "test::relu", 13)->plugin->path, fx("base"));
    ox_context_free(ctx);
}
END_TEST

START_TEST(rejects_duplicates_between_in_process_packs)
{
    for (int loaded = 0; loaded < 2; loaded++) {
        ox_context *ctx = ctx_base(false);
        if (loaded)
            ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
        ox_plugin_desc d = good_desc();
        ck_assert_int_eq(ox_context_add_pack(ctx, &d, "python:first"), OX_OK);
        ck_assert_int_eq(ox_context_add_pack(ctx, &d, "python:second"), OX_EPLUGIN);
        ck_assert_str_eq(ox_errmsg(ctx),
                         "plugin python:second: operator test::relu (since opset 9) is already "
                         "provided by python:first\n"
                         "plugin python:second: operator mylib::foo (since opset 9) is already "
                         "provided by python:first");
        ck_assert_uint_eq(ctx->n_mem_packs, 1);
        static const ox_op_decl twice[] = {OX_OP("mylib::t", 9, p_self, 1, sym_neg),
                                           OX_OP("mylib::t", 9, p_self, 1, sym_neg)};
        d.ops = twice;
        ck_assert_int_eq(ox_context_add_pack(ctx, &d, "python:twice"), OX_EPLUGIN);
        ck_assert_str_eq(ox_errmsg(ctx), "plugin python:twice: operator mylib::t (since opset 9) "
                                         "is already provided by python:twice");
        ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_str_eq(ox_registry_find(ctx->registry, "test::relu", 13)->plugin->path,
                         "python:first");
        ox_context_free(ctx);
    }
}
END_TEST

static Suite *inprocess_suite(void)
{
    Suite *s = suite_create("inprocess");
    TCase *tc = tcase_create("add_pack");
    tcase_add_test(tc, overrides_file_packs_added_before_load);
    tcase_add_test(tc, overrides_builtin_added_after_load);
    tcase_add_test(tc, an_override_replaces_from_its_own_opset_up);
    tcase_add_test(tc, converts_through_in_process_symbolic);
    tcase_add_test(tc, rejects_bad_arguments);
    tcase_add_test(tc, rejects_bad_descriptors_like_a_file);
    tcase_add_test(tc, rejects_duplicates_between_in_process_packs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(inprocess_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
