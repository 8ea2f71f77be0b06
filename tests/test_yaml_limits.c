/* Bounded YAML loading (src/yaml_limits.c, ox_yaml_check_mapping): files
 * generated here, big enough to have taken minutes before the limits, now
 * refused or loaded with a file:line:col message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opset_yaml.h"
#include "test_util.h"
#include "yaml_stress.h"
#include "yaml_limits.h"
#include "yaml_read.h"

static char dir[256];
static char path[512];
static ox_context *ctx;

static void setup(void)
{
    strcpy(dir, "/tmp/oxport-yaml-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    ck_assert_int_eq(ox_context_new(OX_CONTEXT_NO_ENV | OX_CONTEXT_NO_DEFAULT_PLUGINS, &ctx), OX_OK);
}

static void teardown(void)
{
    ox_context_free(ctx);
    rm_tree(dir);
}

static FILE *create(void)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    return f;
}

/* Loading `path` fails with OX_ECONFIG and "<path>:<rest>". */
static void expect_refused(const char *rest)
{
    ox_yaml y;
    char want[1024];
    snprintf(want, sizeof want, "%s:%s", path, rest);
    ck_assert_int_eq(ox_yaml_load(ctx, path, &y), OX_ECONFIG);
    ck_assert_str_eq(ox_errmsg(ctx), want);
}

/* One list of 5000 entries, aliased 5000 times (150 KB): 25 M nodes for a
 * reader that walks it.  Refused at the alias that crosses the budget. */
START_TEST(aliases_count_against_the_node_budget)
{
    ck_assert_int_eq(yaml_stress_alias_bomb(path, 5000, "x"), 0);
    /* before b's aliases: the root, key a, a's 5001 nodes, key b, b itself */
    unsigned long k = (OX_YAML_MAX_NODES - 5005) / 5001 + 1; /* 1-based alias that crosses */
    char rest[256];
    snprintf(rest, sizeof rest, "2:%lu: expected at most %u YAML nodes with aliases expanded, got "
             "more (this alias repeats a large node)", 5 + 4 * (k - 1), OX_YAML_MAX_NODES);
    expect_refused(rest);

    /* a few aliases are fine */
    FILE *f = create();
    fputs("a: &a [1, 2, 3]\nb: [*a, *a]\nc: *a\n", f);
    fclose(f);
    ox_yaml y;
    ck_assert_int_eq(ox_yaml_load(ctx, path, &y), OX_OK);
    ox_yaml_free(&y);
}
END_TEST

START_TEST(recursive_alias_refused)
{
    FILE *f = create();
    fputs("a: &x [1, *x]\n", f);
    fclose(f);
    expect_refused("1:11: expected an alias to a finished node, got *x inside the node it names "
                   "(a recursive structure)");
}
END_TEST

START_TEST(nesting_depth_capped)
{
    FILE *f = create();
    for (int i = 0; i < 100000; i++)
        fputc('[', f);
    for (int i = 0; i < 100000; i++)
        fputc(']', f);
    fputc('\n', f);
    fclose(f);
    char rest[256];
    snprintf(rest, sizeof rest, "1:%d: expected at most %d levels of nested sequences and "
             "mappings, got deeper", OX_YAML_MAX_DEPTH + 1, OX_YAML_MAX_DEPTH);
    expect_refused(rest);

    /* block style too, mappings in sequences */
    f = create();
    for (int i = 0; i <= OX_YAML_MAX_DEPTH; i++)
        fprintf(f, "%*sk:\n", 2 * i, "");
    fprintf(f, "%*sv\n", 2 * (OX_YAML_MAX_DEPTH + 1), "");
    fclose(f);
    snprintf(rest, sizeof rest, "%d:%d: expected at most %d levels of nested sequences and "
             "mappings, got deeper", OX_YAML_MAX_DEPTH + 1, 2 * OX_YAML_MAX_DEPTH + 1,
             OX_YAML_MAX_DEPTH);
    expect_refused(rest);
}
END_TEST

START_TEST(escaped_nul_in_a_scalar_refused)
{
    FILE *f = create();
    fputs("name: ok\nop: \"aten::relu\\0x\"\n", f);
    fclose(f);
    expect_refused("2:5: expected text without NUL characters, got a scalar with an escaped NUL "
                   "(\\0)");
}
END_TEST

/* 100 k keys: the duplicate check is hashed (it was quadratic). */
START_TEST(many_keys_checked_in_linear_time)
{
    ck_assert_int_eq(yaml_stress_keys(path, 100000), 0);
    ox_yaml y;
    ck_assert_int_eq(ox_yaml_load(ctx, path, &y), OX_OK);
    ck_assert_int_eq(ox_yaml_check_mapping(ctx, &y, ox_yaml_root(&y), "a mapping", NULL), OX_OK);
    ox_yaml_free(&y);

    FILE *f = fopen(path, "a");
    fputs("k99998: again\n", f);
    fclose(f);
    ck_assert_int_eq(ox_yaml_load(ctx, path, &y), OX_OK);
    ck_assert_int_eq(ox_yaml_check_mapping(ctx, &y, ox_yaml_root(&y), "a mapping", NULL),
                     OX_ECONFIG);
    char want[1024];
    snprintf(want, sizeof want, "%s:100001:1: expected each key once, got 'k99998' again (first "
             "at 99999:1)", path);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    ox_yaml_free(&y);
}
END_TEST

/* Descriptors with 100 k operators, half removed and redeclared by the next
 * opset: the merge looks names up in hash sets (it compared every pair). */
START_TEST(descriptors_with_many_operators)
{
    char p9[600], p10[600];
    snprintf(p9, sizeof p9, "%s/opset_9.yaml", dir);
    snprintf(p10, sizeof p10, "%s/opset_10.yaml", dir);
    ck_assert_int_eq(yaml_stress_descriptors(p9, p10, 100000, 50000), 0);
    ox_opset_db *db = NULL;
    ck_assert_msg(ox_opset_db_load(ctx, dir, &db) == OX_OK, "%s", ox_errmsg(ctx));
    const ox_opset_op *const *ops;
    ck_assert_uint_eq(ox_opset_db_ops(db, 9, &ops), 100000);
    ck_assert_uint_eq(ox_opset_db_ops(db, 10, &ops), 100000);
    ck_assert_ptr_null(ox_opset_db_lookup(db, 10, "aten::op4"));
    ck_assert_ptr_nonnull(ox_opset_db_lookup(db, 10, "aten::op5"));
    ck_assert_ptr_nonnull(ox_opset_db_lookup(db, 10, "aten::new49999"));
    ox_opset_db_free(db);

    /* the same operator declared and removed: still refused */
    FILE *f = fopen(p10, "w");
    fputs("opset: 10\noperators:\n  aten::op1: {params: [self]}\nremoved:\n", f);
    for (int i = 0; i < 100000; i += 2)
        fprintf(f, "  - aten::op%d\n", i);
    fputs("  - aten::op1\n", f);
    fclose(f);
    ck_assert_int_eq(ox_opset_db_load(ctx, dir, &db), OX_ECONFIG);
    char want[1024];
    snprintf(want, sizeof want, "%s:50005:5: expected an operator this file does not declare, "
             "got 'aten::op1' (declared under operators and removed)", p10);
    ck_assert_str_eq(ox_errmsg(ctx), want);
    unlink(p10);

    /* a parameter given twice, among many */
    f = fopen(p9, "w");
    fputs("opset: 9\noperators:\n  aten::wide:\n    params:\n", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "      - p%d\n", i);
    fputs("      - p3\n", f);
    fclose(f);
    ck_assert_int_eq(ox_opset_db_load(ctx, dir, &db), OX_ECONFIG);
    snprintf(want, sizeof want, "%s:20005:9: expected each parameter once, got 'p3' again", p9);
    ck_assert_str_eq(ox_errmsg(ctx), want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("yaml_limits");
    TCase *tc = tcase_create("limits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, aliases_count_against_the_node_budget);
    tcase_add_test(tc, recursive_alias_refused);
    tcase_add_test(tc, nesting_depth_capped);
    tcase_add_test(tc, escaped_nul_in_a_scalar_refused);
    tcase_add_test(tc, many_keys_checked_in_linear_time);
    tcase_add_test(tc, descriptors_with_many_operators);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
