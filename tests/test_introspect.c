/*
 * The public introspection calls (oxport.h): packs, operator
 * implementations, each opset's view of the operators (parameters with `?`
 * and `a|b`, limitations with the opset lifting them, disabled and
 * pack-only operators), the pack checks, and the struct_size contract.
 * Only the public header is used: this is what an embedder sees.
 */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oxport/oxport.h"
#include "oxport/plugin.h"
#include "test_util.h"

/* ------------------------------------------------------------ fixtures */

static char tmp[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* Descriptors (names only): opset 9 declares test::pool with a limitation
 * opset 10 lifts; test::later has a
 * symbolic from opset 10 only; test::yamlonly has none; test::off is
 * disabled by the config. */
static void make_tree(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/oxport-introspect-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    write_file("opset_9.yaml", "opset: 9\n"
                               "operators:\n"
                               "  test::pool:\n"
                               "    doc: pooling\n"
                               "    params:\n"
                               "      - self\n"
                               "      - padding\n"
                               "      - ceil_mode\n"
                               "    limitations:\n"
                               "      - arg: ceil_mode\n"
                               "        equals: true\n"
                               "        message: no ceil_mode before opset 10\n"
                               "  test::later:\n"
                               "    params:\n"
                               "      - self\n"
                               "  test::yamlonly:\n"
                               "    params:\n"
                               "      - self\n"
                               "      - dim\n"
                               "  test::off:\n"
                               "    params:\n"
                               "      - self\n"
                               "excluded:\n"
                               "  test::gone: \"ONNX has no such operator\"\n"
                               "  test::packonly: \"stale: the pack converts it\"\n");
    write_file("opset_10.yaml", "opset: 10\n"
                                "operators:\n"
                                "  test::pool:\n"
                                "    limitations: []\n");
    write_file("oxport.yaml", "disabled_operators: [test::off]\n");
}

static int sym_id(ox_sym *g, const ox_api *api)
{
    return api->set_output(g, 0, api->arg_tensor(g, "self"));
}

static int no_limit(ox_sym *g, const ox_api *api)
{
    return 0;
}

/* ABI 1.1 declarations: the one schema, with an alternative kind, an
 * optional parameter and a default. */
static const int64_t one_one[] = {1, 1};
static const ox_param_decl p_pool[] = {
    OX_PARAM("self", OX_ARG_TENSOR),
    {.name = "padding", .kind = OX_ARG_INTS, .alt_kinds = OX_KIND_BIT(OX_ARG_STRING),
     .flags = OX_PARAM_OPTIONAL, .dflt = {.tag = OX_DEFAULT_INTS, .count = 2, .v = {.ints = one_one}}},
    OX_PARAM_BOOL("ceil_mode", 0)};
static const ox_param_decl p_self[] = {OX_PARAM("self", OX_ARG_TENSOR)};
#define DECL(nm, since, params, n_params, n_out) \
    {nm, since, params, n_params, n_out, sym_id, (uint32_t)sizeof(ox_param_decl), 0, NULL}
static const ox_op_decl ops[] = {
    DECL("test::pool", 9, p_pool, 3, 1),  DECL("test::pool", 10, p_pool, 3, 1),
    DECL("test::later", 10, p_self, 1, 1), DECL("test::off", 9, p_self, 1, 1),
    {"test::packonly", 9, p_self, 1, 2, sym_id, (uint32_t)sizeof(ox_param_decl),
     OX_OP_OUTPUTS_AS_RECORDED, no_limit},
};
static const ox_plugin_desc desc = {OX_PLUGIN_HEADER, "py", "2.1", "an in-process pack", ops,
                                    sizeof ops / sizeof ops[0], NULL, NULL};

static const ox_op_decl more_ops[] = {DECL("test::extra", 9, p_self, 1, 1)};
static const ox_plugin_desc more = {OX_PLUGIN_HEADER, "more", "1", NULL, more_ops, 1, NULL, NULL};

static ox_context *context(void)
{
    make_tree();
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, tmp), OX_OK);
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/oxport.yaml", tmp);
    ck_assert_msg(ox_context_load_config(ctx, cfg) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_msg(ox_context_add_pack(ctx, &desc, "python:test") == OX_OK, "%s", ox_errmsg(ctx));
    return ctx;
}

static void done(ox_context *ctx)
{
    ox_context_free(ctx);
    rm_tree(tmp);
}

/* The row of `name` at `opset`, failing the test when it is not listed. */
static size_t row_of(ox_context *ctx, int opset, const char *name, ox_opset_op_info *out)
{
    size_t n;
    ck_assert_msg(ox_context_opset_op_count(ctx, opset, &n) == OX_OK, "%s", ox_errmsg(ctx));
    for (size_t i = 0; i < n; i++) {
        out->struct_size = sizeof *out;
        ck_assert_int_eq(ox_context_opset_op(ctx, opset, i, out), OX_OK);
        if (!strcmp(out->name, name))
            return i;
    }
    ck_abort_msg("%s is not listed at opset %d", name, opset);
    return 0;
}

/* --------------------------------------------------------------- tests */

START_TEST(lists_packs_and_implementations)
{
    ox_context *ctx = context();
    size_t n;
    ck_assert_int_eq(ox_context_pack_count(ctx, &n), OX_OK);
    ck_assert_uint_eq(n, 1);
    ox_pack_info pk = OX_INFO_INIT(ox_pack_info);
    ck_assert_int_eq(ox_context_pack(ctx, 0, &pk), OX_OK);
    ck_assert_str_eq(pk.name, "py");
    ck_assert_str_eq(pk.version, "2.1");
    ck_assert_str_eq(pk.description, "an in-process pack");
    ck_assert_str_eq(pk.path, "python:test");
    ck_assert_uint_eq(pk.abi_major, OX_PLUGIN_ABI_MAJOR);
    ck_assert_uint_eq(pk.abi_minor, OX_PLUGIN_ABI_MINOR);
    ck_assert_int_eq(pk.configured, 1);
    ck_assert_uint_eq(pk.n_ops, 5);
    ck_assert_uint_eq(pk.n_overrides, 0);

    /* sorted by name, then since_opset */
    const char *names[] = {"test::later", "test::off", "test::packonly", "test::pool",
                           "test::pool"};
    const int since[] = {10, 9, 9, 9, 10};
    ck_assert_int_eq(ox_context_op_count(ctx, &n), OX_OK);
    ck_assert_uint_eq(n, 5);
    for (size_t i = 0; i < n; i++) {
        ox_op_info op = OX_INFO_INIT(ox_op_info);
        ck_assert_int_eq(ox_context_op(ctx, i, &op), OX_OK);
        ck_assert_str_eq(op.name, names[i]);
        ck_assert_int_eq(op.since_opset, since[i]);
        ck_assert_uint_eq(op.pack, 0);
        ck_assert_str_eq(op.pack_name, "py");
        ck_assert_ptr_null(op.overrides);
    }
    ox_op_info op = OX_INFO_INIT(ox_op_info);
    ck_assert_int_eq(ox_context_op(ctx, 2, &op), OX_OK);
    ck_assert_uint_eq(op.n_outputs, 2);
    ck_assert_int_eq(op.has_check, 1);
    ck_assert_int_eq(op.outputs_as_recorded, 1);
    ck_assert_int_eq(ox_context_op(ctx, 4, &op), OX_OK);
    ck_assert_uint_eq(op.n_params, 3);
    ck_assert_int_eq(op.has_check, 0);
    ck_assert_int_eq(op.outputs_as_recorded, 0);
    /* the pack's declaration: kinds, alternatives, optional, default */
    ox_param_info p = OX_INFO_INIT(ox_param_info);
    ck_assert_int_eq(ox_context_op_param(ctx, 4, 1, &p), OX_OK);
    ck_assert_str_eq(p.name, "padding");
    ck_assert_int_eq(p.kind, OX_ARG_INTS);
    ck_assert_uint_eq(p.alt_kinds, OX_KIND_BIT(OX_ARG_STRING));
    ck_assert_int_eq(p.optional, 1);
    ck_assert_str_eq(p.default_value, "[1, 1]");
    ck_assert_str_eq(p.kind_text, "ints|string?");
    ck_assert_int_eq(ox_context_op_param(ctx, 4, 0, &p), OX_OK);
    ck_assert_int_eq(p.optional, 0);
    ck_assert_ptr_null(p.default_value);
    ck_assert_str_eq(p.kind_text, "tensor");
    done(ctx);
}
END_TEST

START_TEST(opset_view_joins_descriptors_and_packs)
{
    ox_context *ctx = context();
    int lo, hi;
    const char *dir;
    ck_assert_int_eq(ox_context_opset_info(ctx, &lo, &hi, &dir), OX_OK);
    ck_assert_int_eq(lo, 9);
    ck_assert_int_eq(hi, 10);
    ck_assert_str_eq(dir, tmp);

    ox_opset_op_info o;
    size_t i = row_of(ctx, 9, "test::pool", &o);
    ck_assert_str_eq(o.doc, "pooling");
    ck_assert_int_eq(o.declared_in, 9);
    ck_assert_int_eq(o.supported, 1);
    ck_assert_int_eq(o.has_symbolic, 1);
    ox_op_info impl = OX_INFO_INIT(ox_op_info);
    ck_assert_int_eq(ox_context_op(ctx, o.op, &impl), OX_OK);
    ck_assert_str_eq(impl.name, "test::pool");
    ck_assert_int_eq(impl.since_opset, 9);
    /* the pack's schema for the symbolic that serves opset 9 */
    ck_assert_uint_eq(o.n_params, 3);
    ox_param_info p = OX_INFO_INIT(ox_param_info);
    ck_assert_int_eq(ox_context_opset_param(ctx, 9, i, 1, &p), OX_OK);
    ck_assert_str_eq(p.name, "padding");
    ck_assert_int_eq(p.kind, OX_ARG_INTS);
    ck_assert_uint_eq(p.alt_kinds, OX_KIND_BIT(OX_ARG_STRING));
    ck_assert_int_eq(p.optional, 1);
    ck_assert_int_eq(ox_context_opset_param(ctx, 9, i, 2, &p), OX_OK);
    ck_assert_str_eq(p.name, "ceil_mode");
    ck_assert_int_eq(p.optional, 1);
    ck_assert_str_eq(p.default_value, "False");
    ck_assert_uint_eq(p.alt_kinds, 0);
    /* the limitation, with the opset lifting it */
    ck_assert_uint_eq(o.n_limitations, 1);
    ox_limitation_info l = OX_INFO_INIT(ox_limitation_info);
    ck_assert_int_eq(ox_context_opset_limitation(ctx, 9, i, 0, &l), OX_OK);
    ck_assert_str_eq(l.arg, "ceil_mode");
    ck_assert_str_eq(l.when, "ceil_mode = true");
    ck_assert_str_eq(l.message, "no ceil_mode before opset 10");
    ck_assert_int_eq(l.lifted_at_opset, 10);
    /* at 10 the higher symbolic serves it, without the limitation */
    row_of(ctx, 10, "test::pool", &o);
    ck_assert_uint_eq(o.n_limitations, 0);
    ck_assert_int_eq(o.declared_in, 10);
    ck_assert_int_eq(ox_context_op(ctx, o.op, &impl), OX_OK);
    ck_assert_int_eq(impl.since_opset, 10);

    row_of(ctx, 9, "test::later", &o);
    ck_assert_int_eq(o.has_symbolic, 0);
    ck_assert_int_eq(o.supported, 0);
    ck_assert_int_eq(o.symbolic_from_opset, 10);
    i = row_of(ctx, 9, "test::yamlonly", &o);
    ck_assert_int_eq(o.has_symbolic, 0);
    ck_assert_int_eq(o.symbolic_from_opset, 0);
    /* no pack declares it: the descriptor's names, without kinds */
    ck_assert_uint_eq(o.n_params, 2);
    ck_assert_int_eq(ox_context_opset_param(ctx, 9, i, 1, &p), OX_OK);
    ck_assert_str_eq(p.name, "dim");
    ck_assert_int_eq(p.kind, OX_ARG_NONE);
    ck_assert_ptr_null(p.kind_text);
    row_of(ctx, 9, "test::off", &o);
    ck_assert_int_eq(o.has_symbolic, 1);
    ck_assert_int_eq(o.supported, 0);
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/oxport.yaml", tmp);
    ck_assert_str_eq(o.disabled_by, cfg);
    /* without a descriptor: the pack's declaration */
    i = row_of(ctx, 9, "test::packonly", &o);
    ck_assert_int_eq(o.declared_in, 0);
    ck_assert_ptr_null(o.doc);
    ck_assert_int_eq(o.supported, 1);
    ck_assert_uint_eq(o.n_params, 1);
    ck_assert_int_eq(ox_context_opset_param(ctx, 9, i, 0, &p), OX_OK);
    ck_assert_str_eq(p.name, "self");
    ck_assert_int_eq(p.kind, OX_ARG_TENSOR);
    done(ctx);
}
END_TEST

START_TEST(a_pack_added_later_is_listed)
{
    ox_context *ctx = context();
    size_t before, after;
    ck_assert_int_eq(ox_context_opset_op_count(ctx, 9, &before), OX_OK);
    ck_assert_int_eq(ox_context_add_pack(ctx, &more, "python:more"), OX_OK);
    ck_assert_int_eq(ox_context_opset_op_count(ctx, 9, &after), OX_OK);
    ck_assert_uint_eq(after, before + 1);
    ox_opset_op_info o;
    row_of(ctx, 9, "test::extra", &o);
    ox_op_info impl = OX_INFO_INIT(ox_op_info);
    ck_assert_int_eq(ox_context_op(ctx, o.op, &impl), OX_OK);
    ck_assert_str_eq(impl.pack_name, "more");
    size_t n;
    ck_assert_int_eq(ox_context_pack_count(ctx, &n), OX_OK);
    ck_assert_uint_eq(n, 2);
    done(ctx);
}
END_TEST

static const char *fixture(const char *name);

static const ox_op_decl relu_ops[] = {DECL("test::relu", 9, p_self, 1, 1)};
static const ox_plugin_desc relu_pack = {OX_PLUGIN_HEADER, "myrelu", "1", NULL, relu_ops, 1,
                                         NULL, NULL};

/* An in-process pack replacing a file pack's operator: counted on the pack,
 * named on the implementation. */
START_TEST(an_override_is_listed_with_the_pack_replaced)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, fixture("base")), OX_OK);
    ck_assert_int_eq(ox_context_add_pack(ctx, &relu_pack, "python:myrelu"), OX_OK);
    size_t n;
    ck_assert_msg(ox_context_pack_count(ctx, &n) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(n, 2);
    ox_pack_info mine = OX_INFO_INIT(ox_pack_info), base = OX_INFO_INIT(ox_pack_info);
    ck_assert_int_eq(ox_context_pack(ctx, 0, &mine), OX_OK);
    ck_assert_int_eq(ox_context_pack(ctx, 1, &base), OX_OK);
    ck_assert_str_eq(mine.path, "python:myrelu");
    ck_assert_str_eq(base.path, fixture("base"));
    ck_assert_uint_eq(mine.n_overrides, 1);
    ck_assert_uint_eq(base.n_overrides, 0);
    ck_assert_int_eq(ox_context_op_count(ctx, &n), OX_OK);
    size_t relu = 0;
    for (size_t i = 0; i < n; i++) {
        ox_op_info op = OX_INFO_INIT(ox_op_info);
        ck_assert_int_eq(ox_context_op(ctx, i, &op), OX_OK);
        if (strcmp(op.name, "test::relu") != 0)
            continue;
        relu++;
        ck_assert_uint_eq(op.pack, 0);
        ck_assert_str_eq(op.overrides, fixture("base"));
    }
    ck_assert_uint_eq(relu, 1);
    ox_context_free(ctx);
}
END_TEST

START_TEST(bad_requests_say_what_is_wrong)
{
    ox_context *ctx = context();
    ox_pack_info pk = {.struct_size = 0};
    ck_assert_int_eq(ox_context_pack(ctx, 0, &pk), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_pack: struct_size is 0; set it to the size of "
                                     "the struct (OX_INFO_INIT)");
    pk.struct_size = sizeof pk;
    ck_assert_int_eq(ox_context_pack(ctx, 1, &pk), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_pack: pack 1 of 1");
    ck_assert_int_eq(ox_context_pack(ctx, 0, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_pack: out is NULL");
    ox_op_info op = OX_INFO_INIT(ox_op_info);
    ck_assert_int_eq(ox_context_op(ctx, 5, &op), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_op: operator 5 of 5");
    ox_param_info p = OX_INFO_INIT(ox_param_info);
    ck_assert_int_eq(ox_context_op_param(ctx, 0, 1, &p), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_op_param: test::later has 1 parameters, not 2");
    size_t n;
    ck_assert_int_eq(ox_context_opset_op_count(ctx, 11, &n), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "ox_context_opset_op_count: opset 11 is outside the descriptors' range 9..10");
    ox_opset_op_info o = OX_INFO_INIT(ox_opset_op_info);
    ck_assert_int_eq(ox_context_opset_op(ctx, 9, 99, &o), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_opset_op: operator 99 of 5 at opset 9");
    size_t i = row_of(ctx, 9, "test::pool", &o);
    ox_limitation_info l = OX_INFO_INIT(ox_limitation_info);
    ck_assert_int_eq(ox_context_opset_limitation(ctx, 9, i, 1, &l), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_opset_limitation: test::pool has 1 limitations "
                                     "at opset 9, not 2");
    ck_assert_int_eq(ox_context_opset_param(ctx, 9, i, 3, &p), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_opset_param: test::pool has 3 parameters, not 4");
    ck_assert_int_eq(ox_context_pack_count(NULL, &n), OX_EINVAL);
    done(ctx);
}
END_TEST

/* A host built against an older, smaller struct gets the fields it knows
 * and nothing written past them. */
START_TEST(a_smaller_struct_is_filled_only_as_far_as_it_goes)
{
    ox_context *ctx = context();
    struct {
        ox_pack_info head;
        unsigned char guard[64];
    } buf;
    memset(&buf, 0xA5, sizeof buf);
    buf.head.struct_size = (uint32_t)offsetof(ox_pack_info, abi_major);
    ck_assert_int_eq(ox_context_pack(ctx, 0, &buf.head), OX_OK);
    ck_assert_str_eq(buf.head.name, "py");
    ck_assert_str_eq(buf.head.path, "python:test");
    const unsigned char *rest = (const unsigned char *)&buf.head + offsetof(ox_pack_info, abi_major);
    for (size_t k = 0; k < sizeof buf - offsetof(ox_pack_info, abi_major); k++)
        ck_assert_uint_eq(rest[k], 0xA5);
    done(ctx);
}
END_TEST

typedef struct collected {
    char text[8192];
    size_t n;
} collected;

static void collect(void *user, const char *line)
{
    collected *c = user;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "%s\n", line);
    c->n++;
}

static const char *fixture(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/plugins/libfx_%s.so", builddir(), name);
    return path;
}

START_TEST(checks_a_pack_file_without_keeping_it)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    collected c = {"", 0};
    size_t n = 99;
    ck_assert_int_eq(ox_pack_check_file(ctx, fixture("base"), collect, &c, &n), OX_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_int_eq(ox_pack_check_file(ctx, fixture("baddecl"), collect, &c, &n), OX_EPLUGIN);
    ck_assert_uint_eq(n, 9);
    ck_assert_uint_eq(c.n, 9);
    char first[1200];
    snprintf(first, sizeof first, "plugin %s: operator #0: name is NULL\n", fixture("baddecl"));
    ck_assert_msg(strncmp(c.text, first, strlen(first)) == 0, "%s", c.text);
    /* nothing was kept: the context has no packs */
    size_t packs;
    ck_assert_int_eq(ox_context_pack_count(ctx, &packs), OX_OK);
    ck_assert_uint_eq(packs, 0);
    c.text[0] = '\0';
    ck_assert_int_eq(ox_pack_check_file(ctx, "/nonexistent/x.so", collect, &c, NULL), OX_EPLUGIN);
    ck_assert_str_eq(c.text, "plugin /nonexistent/x.so: cannot open: No such file or directory\n");
    ck_assert_int_eq(ox_pack_check_file(ctx, NULL, collect, &c, NULL), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_pack_check_file: path is NULL");
    /* without a callback the problems still reach the host, in ox_errmsg,
     * instead of the message of an earlier call */
    ck_assert_int_eq(ox_pack_check_file(ctx, "/nonexistent/x.so", NULL, NULL, NULL), OX_EPLUGIN);
    ck_assert_str_eq(ox_errmsg(ctx), "plugin /nonexistent/x.so: cannot open: No such file or "
                                     "directory");
    ck_assert_int_eq(ox_pack_check_file(ctx, fixture("baddecl"), NULL, NULL, NULL), OX_EPLUGIN);
    snprintf(first, sizeof first, "plugin %s: operator #0: name is NULL (and 8 more problems)",
             fixture("baddecl"));
    ck_assert_str_eq(ox_errmsg(ctx), first);
    ox_context_free(ctx);
}
END_TEST

START_TEST(exclusions_are_listed_and_checked)
{
    ox_context *ctx = context();
    for (int opset = 9; opset <= 10; opset++) { /* inherited by opset 10 */
        size_t n = 0;
        ck_assert_msg(ox_context_exclusion_count(ctx, opset, &n) == OX_OK, "%s", ox_errmsg(ctx));
        ck_assert_uint_eq(n, 2);
        ox_exclusion_info e = OX_INFO_INIT(ox_exclusion_info);
        ck_assert_int_eq(ox_context_exclusion(ctx, opset, 0, &e), OX_OK);
        ck_assert_str_eq(e.name, "test::gone");
        ck_assert_str_eq(e.reason, "ONNX has no such operator");
        ck_assert_int_eq(e.declared_in, 9);
        ck_assert_int_eq(ox_context_exclusion(ctx, opset, 1, &e), OX_OK);
        ck_assert_str_eq(e.name, "test::packonly");
    }
    ox_exclusion_info e = OX_INFO_INIT(ox_exclusion_info);
    ck_assert_int_eq(ox_context_exclusion(ctx, 9, 2, &e), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_exclusion: opset 9 has 2 exclusions, not 3");
    size_t n;
    ck_assert_int_eq(ox_context_exclusion_count(ctx, 99, &n), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_exclusion_count: opset 99 is outside the "
                                     "descriptors' range 9..10");
    ck_assert_int_eq(ox_context_exclusion_count(ctx, 9, NULL), OX_EINVAL);
    /* an exclusion of an operator a pack converts is stale data */
    collected c = {"", 0};
    ck_assert_int_eq(ox_context_check_packs(ctx, collect, &c, NULL), OX_OK);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "%s/opset_9.yaml: operator test::packonly is excluded (\"stale: the pack converts "
             "it\"), but plugin ",
             tmp);
    ck_assert_msg(strstr(c.text, expected) != NULL, "%s", c.text);
    ck_assert_msg(strstr(c.text, " converts it from opset 9; remove the exclusion\n") != NULL, "%s",
                  c.text);
    ck_assert_msg(strstr(c.text, "test::gone") == NULL, "%s", c.text);
    done(ctx);
}
END_TEST

START_TEST(checks_the_loaded_packs_against_the_descriptors)
{
    ox_context *ctx = context();
    collected c = {"", 0};
    size_t n = 0;
    ck_assert_msg(ox_context_check_packs(ctx, collect, &c, &n) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_uint_eq(n, c.n);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "%s/opset_9.yaml: operator test::yamlonly is declared for opset 9, but no loaded "
             "pack provides a symbolic for it\n",
             tmp);
    ck_assert_msg(strstr(c.text, expected) != NULL, "%s", c.text);
    done(ctx);
}
END_TEST

START_TEST(graph_interface)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    int64_t sizes[] = {2, -1};
    ox_vid x;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &x), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, x, "y"), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    ck_assert_str_eq(ox_graph_name(g), "Net");
    ck_assert_uint_eq(ox_graph_input_count(g), 1);
    ck_assert_uint_eq(ox_graph_output_count(g), 1);
    ox_value_info v;
    ck_assert_int_eq(ox_graph_input_info(g, 0, &v), OX_OK);
    ck_assert_str_eq(v.name, "x");
    ck_assert_int_eq(v.dtype, OX_FLOAT);
    ck_assert_int_eq(v.rank, 2);
    ck_assert_int_eq(v.dims[0], 2);
    ck_assert_int_eq(v.dims[1], -1);
    ck_assert_int_eq(ox_graph_input_info(g, 1, &v), OX_EINVAL);
    ck_assert_str_eq(ox_dtype_name(OX_INT64), "int64");
    ck_assert_uint_eq(ox_dtype_size(OX_DOUBLE), 8);
    ck_assert_str_eq(ox_arg_kind_name(OX_ARG_INTS), "ints");
    ck_assert_str_eq(ox_picture_format_of("a/b.svg"), "svg");
    ck_assert_ptr_null(ox_picture_format_of("a/b.txt"));
    ck_assert_str_eq(ox_picture_format_of("a/B.PNG"), "png"); /* the extension's case aside */
    ck_assert_ptr_null(ox_picture_format_of("a.svg/b"));
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

/* A stream made from a descriptor takes what a FILE * would. */
START_TEST(a_stream_from_a_file_descriptor)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx),
                     OX_OK);
    ox_trace *t;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    int64_t sizes[] = {1, 3};
    ox_vid x;
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &x), OX_OK);
    ck_assert_int_eq(ox_trace_output(t, x, "y"), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);

    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    ck_assert_int_eq(ox_graph_print(g, mem), OX_OK);
    fclose(mem);

    FILE *tmpf = tmpfile();
    ck_assert_ptr_nonnull(tmpf);
    int fd = fileno(tmpf);
    FILE *s = ox_stream_from_fd(fd);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(ox_graph_print(g, s), OX_OK);
    ck_assert_int_eq(ox_stream_close(s), 0);
    /* the caller's descriptor is still open and holds the listing */
    char got[4096] = "";
    rewind(tmpf);
    size_t n = fread(got, 1, sizeof got - 1, tmpf);
    got[n] = '\0';
    ck_assert_uint_gt(want_len, 0);
    ck_assert_str_eq(got, want);
    fclose(tmpf);
    free(want);

    errno = 0;
    ck_assert_ptr_null(ox_stream_from_fd(-1));
    ck_assert_int_eq(errno, EBADF);
    ck_assert_int_eq(ox_stream_close(NULL), 0);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("introspect");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lists_packs_and_implementations);
    tcase_add_test(tc, opset_view_joins_descriptors_and_packs);
    tcase_add_test(tc, a_pack_added_later_is_listed);
    tcase_add_test(tc, an_override_is_listed_with_the_pack_replaced);
    tcase_add_test(tc, bad_requests_say_what_is_wrong);
    tcase_add_test(tc, a_smaller_struct_is_filled_only_as_far_as_it_goes);
    tcase_add_test(tc, checks_a_pack_file_without_keeping_it);
    tcase_add_test(tc, checks_the_loaded_packs_against_the_descriptors);
    tcase_add_test(tc, exclusions_are_listed_and_checked);
    tcase_add_test(tc, graph_interface);
    tcase_add_test(tc, a_stream_from_a_file_descriptor);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
