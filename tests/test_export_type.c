/*
 * Export types (torch.onnx's OperatorExportTypes) and custom domain versions:
 * ATen fallback nodes, fall-through nodes, the notes the pre-scan leaves, the
 * config switch, and that a mode no operator needs changes nothing.  Uses the
 * fixture packs and opset descriptors.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "ir.h"

static ox_context *new_ctx(void)
{
    ox_context *ctx;
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
    char dir[1024], pack[1024];
    const char *s = getenv("OXPORT_TEST_SRCDIR"), *b = getenv("OXPORT_TEST_BUILDDIR");
    snprintf(dir, sizeof dir, "%s/tests/fixtures/plugins/opset", s ? s : "..");
    snprintf(pack, sizeof pack, "%s/tests/fixtures/plugins/libfx_base.so", b ? b : ".");
    ck_assert_int_eq(ox_context_set_opset_dir(ctx, dir), OX_OK);
    ck_assert_int_eq(ox_context_add_plugin_path(ctx, pack), OX_OK);
    return ctx;
}

/* x -> test::relu -> kinds[0] -> kinds[1] ... -> output; every value Float[2, 3].
 * Each extra op also records an int argument "dim". */
static ox_graph *trace(ox_context *ctx, const char *const *kinds, size_t n)
{
    static const int64_t sizes[] = {2, 3};
    ox_tensor_desc d = {OX_FLOAT, 2, sizes};
    ox_trace *t;
    ox_vid v;
    ck_assert_int_eq(ox_trace_begin(ctx, "Net", &t), OX_OK);
    ck_assert_int_eq(ox_trace_input(t, "x", OX_FLOAT, 2, sizes, &v), OX_OK);
    ox_arg a = ox_arg_tensor("self", v);
    ck_assert_int_eq(ox_trace_op(t, "test::relu", 1, &a, 1, &d, &v), OX_OK);
    for (size_t i = 0; i < n; i++) {
        ox_arg args[2] = {ox_arg_tensor("self", v), ox_arg_int("dim", 1)};
        ck_assert_int_eq(ox_trace_op(t, kinds[i], 2, args, 1, &d, &v), OX_OK);
    }
    ck_assert_int_eq(ox_trace_output(t, v, "y"), OX_OK);
    ox_graph *g;
    ck_assert_int_eq(ox_trace_finish(t, &g), OX_OK);
    return g;
}

static const ox_node *nth(const ox_graph *g, int i)
{
    const ox_node *n = g->first;
    while (n && i--)
        n = n->next;
    ck_assert_ptr_nonnull(n);
    return n;
}

static const ox_attr *attr(const ox_node *n, const char *name)
{
    for (uint32_t i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

START_TEST(onnx_reports_every_missing_symbolic)
{
    ox_context *ctx = new_ctx();
    const char *kinds[] = {"aten::erfinv", "mylib::foo"};
    ox_graph *g = trace(ctx, kinds, 2), *og;
    ck_assert_int_eq(ox_convert(ctx, g, 11, &og), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "Couldn't export operator(s): 2 problem(s) at opset 11:\n"
                     "  - ONNX export failed on erfinv because no symbolic for aten::erfinv is "
                     "registered (scope: Net)\n"
                     "  - ONNX export failed on foo because no symbolic for mylib::foo is "
                     "registered (scope: Net)");
    ck_assert_str_eq(ox_context_notes(ctx), "");
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(aten_fallback_writes_aten_nodes_for_aten_ops_only)
{
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_set_export_type(ctx, OX_EXPORT_ATEN_FALLBACK), OX_OK);
    const char *both[] = {"aten::erfinv", "mylib::foo"};
    ox_graph *g = trace(ctx, both, 2), *og;
    ck_assert_int_eq(ox_convert(ctx, g, 11, &og), OX_EUNSUPPORTED);
    ck_assert_str_eq(ox_errmsg(ctx),
                     "Couldn't export operator(s): 1 problem(s) at opset 11:\n"
                     "  - ONNX export failed on foo because no symbolic for mylib::foo is "
                     "registered (scope: Net)");
    ox_graph_free(g);

    const char *aten[] = {"aten::erfinv"};
    g = trace(ctx, aten, 1);
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_context_notes(ctx), "aten::erfinv at Net: no symbolic at opset 11; "
                                            "exported as an ATen node in domain org.pytorch.aten "
                                            "(ONNX_ATEN_FALLBACK)");
    ck_assert_str_eq(nth(og, 0)->kind, "onnx::Relu");
    const ox_node *n = nth(og, 1);
    ck_assert_str_eq(n->domain, "org.pytorch.aten");
    ck_assert_str_eq(n->op_type, "ATen");
    ck_assert_uint_eq(n->n_inputs, 1);
    ck_assert_str_eq(attr(n, "operator")->u.s.p, "erfinv");
    ck_assert_str_eq(attr(n, "overload_name")->u.s.p, "");
    ck_assert_int_eq(attr(n, "dim")->u.i, 1); /* other arguments as attributes */
    ck_assert_int_eq(ox_graph_opset(og, "org.pytorch.aten"), 1);
    ox_graph_free(og);
    ox_graph_free(g);

    /* nothing needs the fallback: the same graph as ONNX, no notes */
    g = trace(ctx, NULL, 0);
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_context_notes(ctx), "");
    ck_assert_uint_eq(og->n_nodes, 1);
    ck_assert_uint_eq(og->n_opsets, 1);
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(fallthrough_keeps_nodes_with_their_domain_versions)
{
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_set_export_type(ctx, OX_EXPORT_FALLTHROUGH), OX_OK);
    ck_assert_int_eq(ox_context_set_domain_version(ctx, "mylib", 2), OX_OK);
    const char *both[] = {"aten::erfinv", "mylib::foo"};
    ox_graph *g = trace(ctx, both, 2), *og;
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(ox_context_notes(ctx),
                     "aten::erfinv at Net: no symbolic at opset 11; exported as recorded, in its "
                     "own domain (ONNX_FALLTHROUGH)\n"
                     "mylib::foo at Net: no symbolic at opset 11; exported as recorded, in its own "
                     "domain (ONNX_FALLTHROUGH)");
    ck_assert_str_eq(nth(og, 1)->kind, "aten::erfinv");
    ck_assert_str_eq(nth(og, 2)->kind, "mylib::foo");
    ck_assert_int_eq(ox_graph_opset(og, "aten"), 1);
    ck_assert_int_eq(ox_graph_opset(og, "mylib"), 2);
    ck_assert_int_eq(ox_graph_opset(og, ""), 11);
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(aten_converts_every_aten_op_as_aten)
{
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_set_export_type(ctx, OX_EXPORT_ATEN), OX_OK);
    const char *aten[] = {"aten::erfinv"};
    ox_graph *g = trace(ctx, aten, 1), *og;
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_str_eq(nth(og, 0)->kind, "onnx::Relu"); /* test::relu is not an aten op */
    ck_assert_str_eq(nth(og, 1)->kind, "org.pytorch.aten::ATen");
    ck_assert_str_eq(ox_context_notes(ctx), "");
    ox_graph_free(og);
    ox_graph_free(g);
    ox_context_free(ctx);
}
END_TEST

START_TEST(config_switch_and_context_precedence)
{
    char dir[] = "/tmp/oxport-et-XXXXXX", cfg[1100];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cfg, sizeof cfg, "%s/oxport.yaml", dir);
    FILE *f = fopen(cfg, "w");
    ck_assert_ptr_nonnull(f);
    fputs("operator_export_type: aten_fallback\ncustom_domains:\n  org.pytorch.aten: 3\n", f);
    fclose(f);
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_load_config(ctx, cfg), OX_OK);
    ck_assert_int_eq(ox_context_export_type(ctx), OX_EXPORT_ATEN_FALLBACK);
    const char *aten[] = {"aten::erfinv"};
    ox_graph *g = trace(ctx, aten, 1), *og;
    ck_assert_msg(ox_convert(ctx, g, 11, &og) == OX_OK, "%s", ox_errmsg(ctx));
    ck_assert_int_eq(ox_graph_opset(og, "org.pytorch.aten"), 3);
    ox_graph_free(og);
    /* the context's own setting wins over the config */
    ck_assert_int_eq(ox_context_set_export_type(ctx, OX_EXPORT_ONNX), OX_OK);
    ck_assert_int_eq(ox_convert(ctx, g, 11, &og), OX_EUNSUPPORTED);
    ox_graph_free(g);
    ox_context_free(ctx);
    unlink(cfg);
    rmdir(dir);
}
END_TEST

START_TEST(bad_arguments)
{
    ox_context *ctx = new_ctx();
    ck_assert_int_eq(ox_context_set_export_type(ctx, (ox_export_type)7), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_set_export_type: 7 is not an export type (0 ONNX, "
                                     "1 ATEN, 2 ATEN_FALLBACK, 3 FALLTHROUGH)");
    ck_assert_int_eq(ox_context_set_domain_version(ctx, "ai.onnx", 1), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_set_domain_version: domain 'ai.onnx' is not a "
                                     "custom domain (the default domain's version is the target "
                                     "opset)");
    ck_assert_int_eq(ox_context_set_domain_version(ctx, NULL, 1), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_set_domain_version: domain NULL is not a custom "
                                     "domain (the default domain's version is the target opset)");
    ck_assert_int_eq(ox_context_set_domain_version(ctx, "mylib", 0), OX_EINVAL);
    ck_assert_str_eq(ox_errmsg(ctx), "ox_context_set_domain_version: version 0 of domain 'mylib' "
                                     "must be >= 1");
    ox_context_free(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export_type");
    TCase *tc = tcase_create("export_type");
    tcase_add_test(tc, onnx_reports_every_missing_symbolic);
    tcase_add_test(tc, aten_fallback_writes_aten_nodes_for_aten_ops_only);
    tcase_add_test(tc, fallthrough_keeps_nodes_with_their_domain_versions);
    tcase_add_test(tc, aten_converts_every_aten_op_as_aten);
    tcase_add_test(tc, config_switch_and_context_precedence);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
