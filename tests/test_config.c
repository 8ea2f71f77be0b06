/* User config (oxport.yaml): keys, path resolution, strict errors, and
 * ox_context_load_config's effect on the context. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "test_util.h"

static char dir[4096];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/yaml/config", srcdir());
}

static ox_context *new_ctx(void)
{
    ox_context *ctx = NULL;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    return ctx;
}

static void fixture(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

/* Loading fixture `name` fails with status and "<path><rest>". */
static void expect_error(const char *name, ox_status want, const char *rest)
{
    char path[4200], msg[8400];
    fixture(path, sizeof(path), name);
    snprintf(msg, sizeof(msg), "%s%s", path, rest);
    ox_context *ctx = new_ctx();
    ox_config *cfg = (ox_config *)&cfg; /* must come back NULL */
    ck_assert_int_eq(ox_config_load(ctx, path, &cfg), want);
    ck_assert_ptr_null(cfg);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    /* the public entry point reports the same and leaves no config behind */
    ck_assert_int_eq(ox_context_load_config(ctx, path), want);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ck_assert_ptr_null(ctx->config);
    ox_context_free(ctx);
}

START_TEST(full_config)
{
    char path[4200], want[8400];
    fixture(path, sizeof(path), "full.yaml");
    ox_context *ctx = new_ctx();
    ox_config *cfg = NULL;
    ck_assert_int_eq(ox_config_load(ctx, path, &cfg), OX_OK);
    ck_assert_str_eq(cfg->path, path);
    ck_assert_int_eq(cfg->target_opset, 11);
    ck_assert_int_eq(cfg->min_opset, 9);
    ck_assert_int_eq(cfg->max_opset, 13);
    ck_assert_uint_eq(cfg->n_plugin_dirs, 3);
    snprintf(want, sizeof(want), "%s/my-plugins", dir);
    ck_assert_str_eq(cfg->plugin_dirs[0], want);
    ck_assert_str_eq(cfg->plugin_dirs[1], "/opt/oxport/plugins");
    snprintf(want, sizeof(want), "%s/../shared", dir);
    ck_assert_str_eq(cfg->plugin_dirs[2], want);
    ck_assert_uint_eq(cfg->n_disabled_ops, 2);
    ck_assert_str_eq(cfg->disabled_ops[0], "aten::dropout");
    ck_assert_str_eq(cfg->disabled_ops[1], "aten::elu");
    ck_assert_uint_eq(cfg->n_domains, 2);
    ck_assert_str_eq(cfg->domains[0].domain, "com.example");
    ck_assert_int_eq(cfg->domains[0].version, 1);
    ck_assert_str_eq(cfg->domains[1].domain, "org.test.ops");
    ck_assert_int_eq(cfg->domains[1].version, 3);
    snprintf(want, sizeof(want), "%s/descriptors", dir);
    ck_assert_str_eq(cfg->opset_dir, want);
    ck_assert_int_eq(cfg->export_type, OX_EXPORT_ATEN_FALLBACK);
    ck_assert_int_eq(cfg->sync, 1);
    ox_config_free(cfg);
    /* not set: -1, the context's default (ONNX) applies */
    fixture(path, sizeof(path), "empty.yaml");
    ck_assert_int_eq(ox_config_load(ctx, path, &cfg), OX_OK);
    ck_assert_int_eq(cfg->export_type, -1);
    ox_config_free(cfg);
    ox_context_free(ctx);
}
END_TEST

START_TEST(empty_config_is_valid)
{
    char path[4200];
    fixture(path, sizeof(path), "empty.yaml");
    ox_context *ctx = new_ctx();
    ox_config *cfg = NULL;
    ck_assert_int_eq(ox_config_load(ctx, path, &cfg), OX_OK);
    ck_assert_int_eq(cfg->target_opset, 0);
    ck_assert_int_eq(cfg->min_opset, 0);
    ck_assert_int_eq(cfg->max_opset, 0);
    ck_assert_uint_eq(cfg->n_plugin_dirs, 0);
    ck_assert_uint_eq(cfg->n_disabled_ops, 0);
    ck_assert_uint_eq(cfg->n_domains, 0);
    ck_assert_ptr_null(cfg->opset_dir);
    ck_assert_int_eq(cfg->sync, 0);
    ox_config_free(cfg);
    ox_context_free(ctx);
}
END_TEST

START_TEST(relative_to_a_bare_file_name)
{
    /* a config named without a directory resolves against the current one */
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(chdir(dir), 0);
    ox_config *cfg = NULL;
    ck_assert_int_eq(ox_config_load(ctx, "full.yaml", &cfg), OX_OK);
    ck_assert_str_eq(cfg->plugin_dirs[0], "my-plugins");
    ck_assert_str_eq(cfg->plugin_dirs[2], "../shared");
    ck_assert_str_eq(cfg->opset_dir, "descriptors");
    ox_config_free(cfg);
    ox_context_free(ctx);
}
END_TEST

START_TEST(errors)
{
    expect_error("unknown_key.yaml", OX_ECONFIG,
                 ":2:1: expected one of the keys target_opset, opsets, plugin_dirs, "
                 "disabled_operators, custom_domains, opset_dir, operator_export_type, sync, direct_io, "
                 "got 'plugin_dir'");
    expect_error("bad_export_type.yaml", OX_ECONFIG,
                 ":2:23: expected onnx, aten, aten_fallback or fallthrough, got 'ONNX_ATEN'");
    expect_error("bad_sync.yaml", OX_ECONFIG,
                 ":1:7: expected true or false (fsync exported files), got 'yes please'");
    expect_error("range_key.yaml", OX_ECONFIG,
                 ":1:18: expected one of the keys min, max, got 'maximum'");
    expect_error("target_outside.yaml", OX_ECONFIG,
                 ":4:15: expected a target_opset inside the enabled range 9..12, got '13'");
    expect_error("reversed_range.yaml", OX_ECONFIG,
                 ":1:9: expected min <= max, got min 15 and max 10");
    expect_error("bad_domain.yaml", OX_ECONFIG,
                 ":2:16: expected a domain version (a positive integer), got 'one'");
    expect_error("default_domain.yaml", OX_ECONFIG,
                 ":2:3: expected a custom domain name (not the default ai.onnx), got 'ai.onnx'");
    expect_error("bad_disabled.yaml", OX_ECONFIG,
                 ":3:5: expected a qualified operator name like aten::dropout, got 'dropout'");
    expect_error("duplicate.yaml", OX_ECONFIG,
                 ":2:1: expected each key once, got 'target_opset' again (first at 1:1)");
    expect_error("not_mapping.yaml", OX_ECONFIG, ":1:1: expected a config mapping, got a sequence");
    expect_error("missing.yaml", OX_EIO, ": cannot read: No such file or directory");
}
END_TEST

START_TEST(context_load_config)
{
    char path[4200], want[8400];
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_target_opset(ctx), OX_DEFAULT_OPSET);
    fixture(path, sizeof(path), "full.yaml");
    ck_assert_int_eq(ox_context_load_config(ctx, path), OX_OK);
    ck_assert_ptr_nonnull(ctx->config);
    ck_assert_int_eq(ox_context_target_opset(ctx), 11);
    /* the config's opset_dir applies when neither the API nor the env set one */
    snprintf(want, sizeof(want), "%s/descriptors", dir);
    ck_assert_str_eq(ox_context_opset_dir(ctx), want);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, "/api/opset"), OX_OK);
    ck_assert_str_eq(ox_context_opset_dir(ctx), "/api/opset");
    /* plugin dirs are read by the loader from ctx->config, not duplicated */
    ck_assert_uint_eq(ctx->n_plugin_paths, 0);
    ck_assert_uint_eq(ctx->config->n_plugin_dirs, 3);
    /* a second config replaces the first */
    fixture(path, sizeof(path), "empty.yaml");
    ck_assert_int_eq(ox_context_load_config(ctx, path), OX_OK);
    ck_assert_str_eq(ctx->config->path, path);
    ck_assert_int_eq(ox_context_target_opset(ctx), OX_DEFAULT_OPSET);
    /* after loading, plugin_dirs could no longer take effect: refused */
    ctx->loaded = true;
    fixture(path, sizeof(path), "full.yaml");
    ck_assert_int_eq(ox_context_load_config(ctx, path), OX_ESTATE);
    snprintf(want, sizeof(want),
             "ox_context_load_config(\"%s\"): plugins are already loaded, so its plugin_dirs "
             "would have no effect; load the config before ox_context_load or the first "
             "conversion",
             path);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    fixture(path, sizeof(path), "empty.yaml");
    ck_assert_str_eq(ctx->config->path, path); /* unchanged */
    ctx->loaded = false;
    ox_context_free(ctx);
}
END_TEST

START_TEST(shipped_default_config)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/opset/oxport.yaml", srcdir());
    ox_context *ctx = new_ctx();
    ox_config *cfg = NULL;
    ox_status st = ox_config_load(ctx, path, &cfg);
    ck_assert_msg(st == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(cfg->target_opset, 13);
    ck_assert_int_eq(cfg->min_opset, 7);
    ck_assert_int_eq(cfg->max_opset, 21);
    ck_assert_uint_eq(cfg->n_plugin_dirs, 0);
    ck_assert_ptr_null(cfg->opset_dir);
    ck_assert_int_eq(cfg->sync, 0);
    ox_config_free(cfg);
    ox_context_free(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, full_config);
    tcase_add_test(tc, empty_config_is_valid);
    tcase_add_test(tc, relative_to_a_bare_file_name);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, context_load_config);
    tcase_add_test(tc, shipped_default_config);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
