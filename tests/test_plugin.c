/*
 * Plugin loader: every rejection path with its exact message (one broken
 * fixture pack per path, as SQLite's loadext.test does), overrides, opset
 * dispatch, directory loading, and the out-of-tree walkthrough pack.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "context.h"
#include "ir.h"
#include "plugin_load.h"

static const char *builddir(void)
{
    const char *d = getenv("OXPORT_TEST_BUILDDIR");
    return d ? d : ".";
}

static const char *srcdir(void)
{
    const char *d = getenv("OXPORT_TEST_SRCDIR");
    return d ? d : "..";
}

/* Path of fixture pack libfx_<name>.so (a few rotating buffers). */
static const char *fx(const char *name)
{
    static char bufs[4][1024];
    static int k;
    char *b = bufs[k++ % 4];
    snprintf(b, 1024, "%s/tests/fixtures/plugins/libfx_%s.so", builddir(), name);
    return b;
}

static const char *fixture_opsets(void)
{
    static char b[1024];
    snprintf(b, sizeof b, "%s/tests/fixtures/plugins/opset", srcdir());
    return b;
}

/* A context that sees only what a test gives it. */
static ox_context *ctx_with(const char *const *paths, size_t n)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, fixture_opsets()), OX_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, paths[i]), OX_OK);
    return ctx;
}

static void expect_load_error(const char *const *paths, size_t n, const char *expected)
{
    ox_context *ctx = ctx_with(paths, n);
    ck_assert_int_eq(ox_context_load(ctx), OX_EPLUGIN);
    ck_assert_str_eq(ox_errmsg(ctx), expected);
    ck_assert_ptr_null(ctx->registry); /* all-or-nothing */
    ox_context_free(ctx);
}

static char msg[16384];

START_TEST(rejects_missing_entry)
{
    const char *p[] = {fx("noentry")};
    snprintf(msg, sizeof msg,
             "plugin %s: no entry symbol 'ox_plugin_entry' (is it an oxport symbolic pack?)", p[0]);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_bad_magic)
{
    const char *p[] = {fx("badmagic")};
    snprintf(msg, sizeof msg, "plugin %s: bad magic 0x12345678 (expected 0x4F58504C)", p[0]);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_newer_abi)
{
    const char *p[] = {fx("abi2")};
    snprintf(msg, sizeof msg, "plugin %s: built for plugin ABI 2.0; this liboxport provides %d.%d",
             p[0], OX_PLUGIN_ABI_MAJOR, OX_PLUGIN_ABI_MINOR);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_small_descriptor)
{
    const char *p[] = {fx("small")};
    snprintf(msg, sizeof msg,
             "plugin %s: descriptor struct_size 16 is smaller than the 1.0 minimum 72", p[0]);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_failing_init)
{
    const char *p[] = {fx("initfail")};
    snprintf(msg, sizeof msg, "plugin %s: init failed: cannot find libfoo.so.3", p[0]);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_duplicate_operator)
{
    const char *p[] = {fx("dup_a"), fx("dup_b")};
    snprintf(msg, sizeof msg,
             "plugin %s: operator test::twice (since opset 9) is already provided by %s", p[1],
             p[0]);
    expect_load_error(p, 2, msg);
}
END_TEST

START_TEST(rejects_bad_declarations)
{
    const char *p[] = {fx("baddecl")};
    const char *f = p[0];
    snprintf(msg, sizeof msg,
             "plugin %s: operator #0: name is NULL\n"
             "plugin %s: operator #1: name 'relu' is not qualified (expected 'domain::op', e.g. "
             "'aten::relu')\n"
             "plugin %s: operator test::since0: since_opset 0 is invalid (must be 1 to 1000)\n"
             "plugin %s: operator test::nosym: symbolic is NULL\n"
             "plugin %s: operator test::noparams: n_params is 2 but params is NULL\n"
             "plugin %s: operator test::unnamed: parameter #0 has a NULL name\n"
             "plugin %s: operator test::badkind: parameter 'dim' has unknown kind 42\n"
             "plugin %s: operator test::far: since_opset 2000000000 is invalid (must be 1 to "
             "1000)\n"
             "plugin %s: operator test::outputs: n_outputs is 2147483648 (at most 65536)",
             f, f, f, f, f, f, f, f, f);
    expect_load_error(p, 1, msg);
}
END_TEST

START_TEST(rejects_unloadable_file)
{
    char dir[] = "/tmp/oxport-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/libjunk.so", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    const char *p[] = {dir};
    ox_context *ctx = ctx_with(p, 1);
    ck_assert_int_eq(ox_context_load(ctx), OX_EPLUGIN);
    snprintf(msg, sizeof msg, "plugin %s: cannot open: ", path);
    ck_assert_msg(strncmp(ox_errmsg(ctx), msg, strlen(msg)) == 0, "got: %s", ox_errmsg(ctx));
    ck_assert_ptr_nonnull(strstr(ox_errmsg(ctx), "libjunk.so")); /* dlerror's own text follows */
    ox_context_free(ctx);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(rejects_missing_configured_dir)
{
    const char *p[] = {"/nonexistent/oxport-plugins"};
    expect_load_error(p, 1,
                      "plugin path /nonexistent/oxport-plugins (added with "
                      "ox_context_add_plugin_path): No such file or directory");
}
END_TEST

START_TEST(env_path_is_searched_and_named_in_errors)
{
    setenv("OXPORT_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b", 1);
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, fixture_opsets()), OX_OK);
    ck_assert_int_eq(ox_registry_load(ctx), OX_EPLUGIN);
    ck_assert_str_eq(ox_errmsg(ctx), "plugin path /nonexistent/a (from OXPORT_PLUGIN_PATH): No "
                                     "such file or directory");
    ox_context_free(ctx);
    unsetenv("OXPORT_PLUGIN_PATH");
}
END_TEST

/* A build tree's packs are the built-in ones (OXPORT_BUILTIN_PLUGIN_PATH):
 * OXPORT_PLUGIN_PATH adds in front of them and overrides name by name;
 * OXPORT_NO_DEFAULT_PLUGINDIR leaves only the explicit paths. */
START_TEST(env_path_adds_in_front_of_builtin_path)
{
    const char *no_default = getenv("OXPORT_NO_DEFAULT_PLUGINDIR");
    char *saved = no_default ? strdup(no_default) : NULL;
    unsetenv("OXPORT_NO_DEFAULT_PLUGINDIR");
    setenv("OXPORT_BUILTIN_PLUGIN_PATH", fx("base"), 1);
    setenv("OXPORT_PLUGIN_PATH", fx("override"), 1);
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(0, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, fixture_opsets()), OX_OK);
    ck_assert_msg(ox_registry_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", 13);
    ck_assert_str_eq(im->plugin->path, fx("override"));
    ck_assert_str_eq(im->overrides->path, fx("base"));
    ck_assert(!im->overrides->explicit_path);
    ck_assert_str_eq(ox_registry_find(ctx->registry, "test::pool", 13)->plugin->path, fx("base"));
    ox_context_free(ctx);

    setenv("OXPORT_NO_DEFAULT_PLUGINDIR", "1", 1);
    ck_assert_int_eq(ox_context_new(0, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, fixture_opsets()), OX_OK);
    ck_assert_msg(ox_registry_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_ptr_null(ox_registry_find(ctx->registry, "test::pool", 13));
    ck_assert_ptr_null(ox_registry_find(ctx->registry, "test::relu", 13)->overrides);
    ox_context_free(ctx);
    unsetenv("OXPORT_NO_DEFAULT_PLUGINDIR");

    setenv("OXPORT_BUILTIN_PLUGIN_PATH", "/nonexistent/builtin", 1);
    ck_assert_int_eq(ox_context_new(0, &ctx), OX_OK);
    ck_assert_int_eq(ox_registry_load(ctx), OX_EPLUGIN);
    ck_assert_str_eq(ox_errmsg(ctx), "plugin path /nonexistent/builtin (from "
                                     "OXPORT_BUILTIN_PLUGIN_PATH): No such file or directory");
    ox_context_free(ctx);
    unsetenv("OXPORT_BUILTIN_PLUGIN_PATH");
    unsetenv("OXPORT_PLUGIN_PATH");
    if (saved)
        setenv("OXPORT_NO_DEFAULT_PLUGINDIR", saved, 1);
    free(saved);
}
END_TEST

START_TEST(config_plugin_dirs_are_searched_and_named_in_errors)
{
    char dir[] = "/tmp/oxport-cfg-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cfg[1100];
    snprintf(cfg, sizeof cfg, "%s/oxport.yaml", dir);
    FILE *f = fopen(cfg, "w");
    ck_assert_ptr_nonnull(f);
    fputs("plugin_dirs: [./missing-plugins]\n", f);
    fclose(f);
    ox_context *ctx = ctx_with(NULL, 0);
    ck_assert_msg(ox_context_load_config(ctx, cfg) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_context_load(ctx), OX_EPLUGIN);
    ck_assert_ptr_nonnull(ctx->config);
    snprintf(msg, sizeof msg, "plugin path %s (plugin_dirs in %s): No such file or directory",
             ctx->config->plugin_dirs[0], ctx->config->path);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ck_assert_ptr_nonnull(strstr(msg, "/missing-plugins"));
    ox_context_free(ctx);
    unlink(cfg);
    rmdir(dir);
}
END_TEST

/* fx_base loaded as a built-in pack, fx_override as an explicit one, in
 * either order: the explicit one wins and records what it replaced. */
static void check_override(bool builtin_first)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, fixture_opsets()), OX_OK);
    const char *base = fx("base"), *over = fx("override");
    if (builtin_first) {
        ck_assert_int_eq(ox_context_add_plugin_path_ex(ctx, base, false), OX_OK);
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, over), OX_OK);
    } else {
        ck_assert_int_eq(ox_context_add_plugin_path(ctx, over), OX_OK);
        ck_assert_int_eq(ox_context_add_plugin_path_ex(ctx, base, false), OX_OK);
    }
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_op_impl *im = ox_registry_find(ctx->registry, "test::relu", 13);
    ck_assert_ptr_nonnull(im);
    ck_assert_str_eq(im->plugin->path, over);
    ck_assert_ptr_nonnull(im->overrides);
    ck_assert_str_eq(im->overrides->path, base);
    /* the rest of the built-in pack is untouched */
    im = ox_registry_find(ctx->registry, "test::pool", 13);
    ck_assert_str_eq(im->plugin->path, base);
    ck_assert_ptr_null(im->overrides);
    /* the listing shows test::relu once */
    const ox_op_impl *const *all;
    size_t n = ox_registry_ops(ctx->registry, &all), relu = 0;
    for (size_t i = 0; i < n; i++)
        relu += strcmp(all[i]->decl->name, "test::relu") == 0;
    ck_assert_uint_eq(relu, 1);
    ox_context_free(ctx);
}

START_TEST(explicit_pack_overrides_builtin)
{
    check_override(false);
    check_override(true);
}
END_TEST

/* A pack is mapped once per process and stays after its last context is
 * freed (RTLD_NODELETE in plugin_load.c): mapped again, its statics would be
 * written afresh at the same address, which TSan reports as a race between
 * the two contexts' threads (tests/test_threads.c). */
START_TEST(pack_stays_loaded_after_its_context)
{
    const char *p[] = {fx("base")};
    ck_assert_ptr_null(dlopen(p[0], RTLD_NOW | RTLD_NOLOAD));
    ox_context *ctx = ctx_with(p, 1);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ox_context_free(ctx);
    void *h = dlopen(p[0], RTLD_NOW | RTLD_NOLOAD);
    ck_assert_msg(h != NULL, "%s was unloaded with its context", p[0]);
    dlclose(h);
}
END_TEST

START_TEST(dispatch_picks_highest_since_not_above_target)
{
    const char *p[] = {fx("base")};
    ox_context *ctx = ctx_with(p, 1);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_registry *r = ctx->registry;
    ck_assert_ptr_null(ox_registry_find(r, "test::act", 8));
    ck_assert_int_eq(ox_registry_find(r, "test::act", 9)->decl->since_opset, 9);
    ck_assert_int_eq(ox_registry_find(r, "test::act", 10)->decl->since_opset, 9);
    ck_assert_int_eq(ox_registry_find(r, "test::act", 11)->decl->since_opset, 11);
    ck_assert_int_eq(ox_registry_find(r, "test::act", 17)->decl->since_opset, 11);
    /* in-place spelling resolves to the out-of-place op */
    ck_assert_int_eq(ox_registry_find(r, "test::act_", 11)->decl->since_opset, 11);
    ck_assert_ptr_null(ox_registry_find(r, "test::nothing", 13));
    ck_assert_int_eq(ox_registry_lowest_since(r, "test::act"), 9);
    ck_assert_int_eq(ox_registry_lowest_since(r, "test::later"), 11);
    ck_assert_int_eq(ox_registry_lowest_since(r, "test::nothing"), 0);
    /* sorted listing: by name, then since */
    const ox_op_impl *const *all;
    size_t n = ox_registry_ops(r, &all);
    ck_assert_uint_eq(n, 7);
    ck_assert_str_eq(all[0]->decl->name, "test::act");
    ck_assert_int_eq(all[0]->decl->since_opset, 9);
    ck_assert_str_eq(all[1]->decl->name, "test::act");
    ck_assert_int_eq(all[1]->decl->since_opset, 11);
    for (size_t i = 1; i < n; i++)
        ck_assert_int_le(strcmp(all[i - 1]->decl->name, all[i]->decl->name), 0);
    const ox_plugin_info *const *packs;
    ck_assert_uint_eq(ox_registry_plugins(r, &packs), 1);
    ck_assert_str_eq(packs[0]->desc->name, "base");
    ck_assert(packs[0]->explicit_path);
    ox_context_free(ctx);
}
END_TEST

static void link_fixture(const char *dir, const char *name, const char *as)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, as);
    ck_assert_int_eq(symlink(fx(name), path), 0);
}

static void remove_dir(const char *dir, const char *const *names, size_t n)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

START_TEST(directory_loads_every_so_sorted_and_once)
{
    char dir[] = "/tmp/oxport-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    link_fixture(dir, "toomany", "c.so");
    link_fixture(dir, "base", "a.so");
    link_fixture(dir, "unset", "b.so");
    char readme[PATH_MAX];
    snprintf(readme, sizeof readme, "%s/README", dir);
    FILE *f = fopen(readme, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    /* the same pack listed twice (directory + file) is loaded once */
    const char *p[] = {dir, fx("base")};
    ox_context *ctx = ctx_with(p, 2);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_plugin_info *const *packs;
    ck_assert_uint_eq(ox_registry_plugins(ctx->registry, &packs), 3);
    ck_assert_str_eq(packs[0]->desc->name, "base");
    ck_assert_str_eq(packs[1]->desc->name, "unset");
    ck_assert_str_eq(packs[2]->desc->name, "toomany");
    ox_context_free(ctx);
    const char *names[] = {"a.so", "b.so", "c.so", "README"};
    remove_dir(dir, names, 4);
}
END_TEST

START_TEST(one_bad_pack_fails_the_whole_load)
{
    char dir[] = "/tmp/oxport-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    link_fixture(dir, "base", "a.so");
    link_fixture(dir, "badmagic", "b.so");
    const char *p[] = {dir};
    ox_context *ctx = ctx_with(p, 1);
    ck_assert_int_eq(ox_context_load(ctx), OX_EPLUGIN);
    snprintf(msg, sizeof msg, "plugin %s/b.so: bad magic 0x12345678 (expected 0x4F58504C)", dir);
    ck_assert_str_eq(ox_errmsg(ctx), msg);
    ck_assert_ptr_null(ctx->registry);
    ox_context_free(ctx);
    const char *names[] = {"a.so", "b.so"};
    remove_dir(dir, names, 2);
}
END_TEST

/* A FIFO named like a pack would block dlopen until something wrote to it;
 * it is refused at once.  A pack named without a slash is the file in the
 * working directory, not a library of that name on the search path. */
START_TEST(rejects_a_fifo_and_loads_a_bare_name_from_here)
{
    char dir[] = "/tmp/oxport-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/libwait.so", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    const char *p[] = {dir};
    snprintf(msg, sizeof msg, "plugin %s: not a regular file; a pack is a shared library (.so)",
             path);
    expect_load_error(p, 1, msg);
    unlink(path);

    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    link_fixture(dir, "base", "libz.so.1"); /* the name of a library every system has */
    ck_assert_int_eq(chdir(dir), 0);
    const char *bare[] = {"libz.so.1"};
    ox_context *ctx = ctx_with(bare, 1);
    ck_assert_int_eq(ox_context_load(ctx), OX_OK); /* the system's libz has no entry symbol */
    ox_context_free(ctx);
    ck_assert_int_eq(chdir(cwd), 0);
    const char *names[] = {"libz.so.1"};
    remove_dir(dir, names, 1);
}
END_TEST

START_TEST(check_file_reports_every_problem)
{
    ox_context *ctx = ctx_with(NULL, 0);
    ox_report r;
    ox_report_init(&r);
    ck_assert_int_eq(ox_plugin_check_file(ctx, fx("baddecl"), &r), OX_EPLUGIN);
    ck_assert_uint_eq(r.n, 9);
    ox_report_free(&r);
    ox_report_init(&r);
    ck_assert_int_eq(ox_plugin_check_file(ctx, fx("base"), &r), OX_OK);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_int_eq(ox_plugin_check_file(ctx, fx("small"), &r), OX_EPLUGIN);
    ck_assert_uint_eq(r.n, 1);
    ox_report_free(&r);
    ox_context_free(ctx);
}
END_TEST

START_TEST(consistency_lists_yaml_ops_without_symbolic)
{
    const char *p[] = {fx("base")};
    ox_context *ctx = ctx_with(p, 1);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ox_report r;
    ox_report_init(&r);
    ck_assert_uint_eq(ox_registry_consistency(ctx, &r), 2);
    snprintf(msg, sizeof msg,
             "%s/opset_9.yaml: operator test::kinded is declared for opset 9, but no loaded pack "
             "provides a symbolic for it",
             fixture_opsets());
    ck_assert_str_eq(r.lines[0], msg);
    snprintf(msg, sizeof msg,
             "%s/opset_11.yaml: operator test::yamlonly is declared for opset 11, but no loaded "
             "pack provides a symbolic for it",
             fixture_opsets());
    ck_assert_str_eq(r.lines[1], msg);
    ox_report_free(&r);
    ox_context_free(ctx);
}
END_TEST

START_TEST(consistency_flags_versions_past_every_descriptor)
{
    const char *p[] = {fx("base"), fx("far")};
    ox_context *ctx = ctx_with(p, 2);
    ck_assert_msg(ox_context_load(ctx) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_registry_find(ctx->registry, "test::far", 11)->decl->since_opset, 9);
    ox_report r;
    ox_report_init(&r);
    ck_assert_uint_eq(ox_registry_consistency(ctx, &r), 3);
    snprintf(msg, sizeof msg,
             "plugin %s: operator test::far: since_opset 1000 is past the newest opset "
             "descriptor (11) in %s, so that version is never used",
             p[1], fixture_opsets());
    ck_assert_str_eq(r.lines[0], msg);
    ox_report_free(&r);
    /* `oxport plugins --check FILE`, the check a pack's author runs before
     * installing it (docs/writing-a-plugin.md), says the same of the file */
    ox_report_init(&r);
    ck_assert_int_eq(ox_plugin_check_file(ctx, p[1], &r), OX_EPLUGIN);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_str_eq(r.lines[0], msg);
    ox_report_free(&r);
    ox_context_free(ctx);
}
END_TEST

/* ------------------------------------ the walkthrough (docs/writing-a-plugin.md) */

/* A custom operator of the user's own library, which no built-in pack knows. */
static ox_graph *trace_thresholded_relu_net(ox_context *ctx)
{
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    const int64_t sizes[] = {2, 3};
    ox_vid x, y;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &x), OX_OK);
    ck_assert_int_eq(ox_trace_push_scope(t, "Act[act]"), OX_OK);
    ox_arg args[] = {ox_arg_tensor("self", x), ox_arg_float("alpha", 0.5)};
    ox_tensor_desc out = {OX_FLOAT, 2, sizes};
    ck_assert_int_eq(ox_trace_op(t, "mylib::thresholded_relu", 2, args, 1, &out, &y), OX_OK);
    ck_assert_int_eq(ox_trace_pop_scope(t), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, y, "y"), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    return g;
}

START_TEST(walkthrough_fail_dropin_succeed)
{
    char dir[] = "/tmp/oxport-walkthrough-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* what `make` does with pkg-config's flags, against the source headers */
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "${CC:-cc} -O2 -Wall -Wextra -Werror -I%s/include -fPIC -fvisibility=hidden -shared "
             "-Wl,-z,defs -o %s/libox_thresholded_relu.so "
             "%s/docs/examples/thresholded_relu/thresholded_relu.c",
             srcdir(), dir, srcdir());
    ck_assert_int_eq(system(cmd), 0);

    char opsets[PATH_MAX];
    snprintf(opsets, sizeof opsets, "%s/opset", srcdir());
    unsetenv("OXPORT_PLUGIN_PATH");
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, opsets), OX_OK);
    ox_graph *g = trace_thresholded_relu_net(ctx);
    ox_graph *onnx = NULL;
    ck_assert_int_eq(ox_convert(ctx, g, 13, &onnx), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "Couldn't export operator(s): 1 problem(s) at opset 13:\n"
                     "  - ONNX export failed on thresholded_relu because no symbolic for "
                     "mylib::thresholded_relu is registered (scope: Net/Act[act])");
    ck_assert_ptr_null(onnx);
    ox_context_free(ctx);

    /* drop the pack in: same trace, now it exports */
    setenv("OXPORT_PLUGIN_PATH", dir, 1);
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, opsets), OX_OK);
    ck_assert_msg(ox_convert(ctx, g, 13, &onnx) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(onnx->n_nodes, 1);
    ck_assert_str_eq(onnx->first->op_type, "ThresholdedRelu");
    const ox_attr *alpha = ox_node_attr(onnx->first, "alpha");
    ck_assert_ptr_nonnull(alpha);
    ck_assert_double_eq(alpha->u.f, 0.5);
    ck_assert_str_eq(onnx->first->scope, "Net/Act[act]");
    ox_value *y = ox_graph_value(onnx, onnx->outputs[0]);
    ck_assert_str_eq(y->name, "y");
    ck_assert_int_eq(y->type.dtype, OX_FLOAT);
    ck_assert_int_eq(y->type.rank, 2);
    ox_graph_free(onnx);

    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/net.onnx", dir);
    ox_export_options o;
    ox_export_options_init(&o);
    o.opset = 13;
    ck_assert_msg(ox_export(ctx, g, out, &o) == OX_OK, "%s", ox_errmsg(ctx));
    struct stat st;
    ck_assert_int_eq(stat(out, &st), 0);
    ck_assert_int_gt(st.st_size, 0);
    ox_context_free(ctx);
    ox_graph_free(g);
    unsetenv("OXPORT_PLUGIN_PATH");

    unlink(out);
    snprintf(out, sizeof out, "%s/libox_thresholded_relu.so", dir);
    unlink(out);
    rmdir(dir);
}
END_TEST

static Suite *plugin_suite(void)
{
    Suite *s = suite_create("plugin");
    TCase *tc = tcase_create("loader");
    tcase_add_test(tc, rejects_missing_entry);
    tcase_add_test(tc, rejects_bad_magic);
    tcase_add_test(tc, rejects_newer_abi);
    tcase_add_test(tc, rejects_small_descriptor);
    tcase_add_test(tc, rejects_failing_init);
    tcase_add_test(tc, rejects_duplicate_operator);
    tcase_add_test(tc, rejects_bad_declarations);
    tcase_add_test(tc, rejects_unloadable_file);
    tcase_add_test(tc, rejects_a_fifo_and_loads_a_bare_name_from_here);
    tcase_add_test(tc, rejects_missing_configured_dir);
    tcase_add_test(tc, env_path_is_searched_and_named_in_errors);
    tcase_add_test(tc, env_path_adds_in_front_of_builtin_path);
    tcase_add_test(tc, config_plugin_dirs_are_searched_and_named_in_errors);
    tcase_add_test(tc, explicit_pack_overrides_builtin);
    tcase_add_test(tc, pack_stays_loaded_after_its_context);
    tcase_add_test(tc, dispatch_picks_highest_since_not_above_target);
    tcase_add_test(tc, directory_loads_every_so_sorted_and_once);
    tcase_add_test(tc, one_bad_pack_fails_the_whole_load);
    tcase_add_test(tc, check_file_reports_every_problem);
    tcase_add_test(tc, consistency_lists_yaml_ops_without_symbolic);
    tcase_add_test(tc, consistency_flags_versions_past_every_descriptor);
    suite_add_tcase(s, tc);
    TCase *walk = tcase_create("walkthrough");
    tcase_add_test(walk, walkthrough_fail_dropin_succeed);
    suite_add_tcase(s, walk);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plugin_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
