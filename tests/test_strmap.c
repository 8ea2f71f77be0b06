/*
 * The engine's string table (strmap.h): hashed keys, and the decimal-number
 * keys it keeps in dense arrays, which must behave exactly like hashed ones.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "strmap.h"
#include "test_util.h"

START_TEST(numbers_and_names_share_one_map)
{
    ox_strmap m;
    ck_assert_int_eq(ox_strmap_init(&m, 100), 0);
    ck_assert_int_eq(ox_strmap_put(&m, "17", 1), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "017", 2), 1); /* another spelling: another key */
    ck_assert_int_eq(ox_strmap_put(&m, "0", 3), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "x", 4), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "17a", 5), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "17", 9), 0); /* the first value stays */
    ck_assert_uint_eq(m.n, 5);
    /* keys of 8 bytes and more hash a word at a time: still found exactly */
    ck_assert_int_eq(ox_strmap_put(&m, "aten::conv2d", 10), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "aten::conv2e", 11), 1);
    ck_assert_int_eq(ox_strmap_put(&m, "aten::co", 12), 1);
    ck_assert_uint_eq(*ox_strmap_find(&m, "aten::conv2d"), 10);
    ck_assert_uint_eq(*ox_strmap_find(&m, "aten::conv2e"), 11);
    ck_assert_uint_eq(*ox_strmap_findn(&m, "aten::conv2dx", 12), 10);
    ck_assert_uint_eq(*ox_strmap_find(&m, "aten::co"), 12);
    ck_assert_ptr_null(ox_strmap_find(&m, "aten::conv2"));
    ck_assert_uint_eq(m.n, 8);
    ck_assert_uint_eq(*ox_strmap_find(&m, "17"), 1);
    ck_assert_uint_eq(*ox_strmap_find(&m, "017"), 2);
    ck_assert_uint_eq(*ox_strmap_find(&m, "0"), 3);
    ck_assert_uint_eq(*ox_strmap_find(&m, "x"), 4);
    ck_assert_uint_eq(*ox_strmap_find(&m, "17a"), 5);
    ck_assert_ptr_null(ox_strmap_find(&m, "18"));
    ck_assert_ptr_null(ox_strmap_find(&m, "00"));
    ck_assert_ptr_null(ox_strmap_find(&m, ""));
    /* a key given by length: the first n bytes only */
    ck_assert_uint_eq(*ox_strmap_findn(&m, "17abc", 2), 1);
    ck_assert_uint_eq(*ox_strmap_findn(&m, "17abc", 3), 5);
    ck_assert_uint_eq(*ox_strmap_findn(&m, "0123", 1), 3);
    ck_assert_ptr_null(ox_strmap_findn(&m, "0123", 2));
    ck_assert_ptr_null(ox_strmap_findn(&m, "x", 0)); /* the empty key, not yet put */
    ck_assert_int_eq(ox_strmap_put(&m, "", 6), 1);
    ck_assert_uint_eq(*ox_strmap_findn(&m, "x", 0), 6);
    ck_assert_uint_eq(*ox_strmap_find(&m, ""), 6);
    ox_strmap_free(&m);
}
END_TEST

/* Numbers past the dense range, and maps never initialised, hash them: a
 * key is found the way it was put, whichever way that was. */
START_TEST(numbers_past_the_dense_range_are_hashed)
{
    ox_strmap m;
    ck_assert_int_eq(ox_strmap_init(&m, 4), 0);
    char keys[3000][24];
    for (int i = 0; i < 3000; i++) {
        snprintf(keys[i], sizeof keys[i], "%d", i * 7);
        ck_assert_int_eq(ox_strmap_put(&m, keys[i], (uint64_t)i), 1);
    }
    ck_assert_uint_eq(m.n, 3000);
    ck_assert_uint_lt(m.n_hashed, 3000); /* the small ones are dense */
    ck_assert_uint_gt(m.n_hashed, 0);    /* the large ones are not */
    for (int i = 0; i < 3000; i++) {
        char probe[24];
        snprintf(probe, sizeof probe, "%d", i * 7);
        ck_assert_uint_eq(*ox_strmap_find(&m, probe), (uint64_t)i);
        snprintf(probe, sizeof probe, "%d", i * 7 + 1);
        ck_assert_ptr_null(ox_strmap_find(&m, probe));
    }
    ox_strmap_free(&m);

    ox_strmap z = {0};
    ck_assert_int_eq(ox_strmap_put(&z, "5", 1), 1);
    ck_assert_uint_eq(z.n_hashed, 1);
    ck_assert_uint_eq(*ox_strmap_find(&z, "5"), 1);
    ck_assert_ptr_null(ox_strmap_find(&z, "6"));
    ox_strmap_free(&z);
}
END_TEST

START_TEST(a_set_claims_each_number_once)
{
    ox_strset s;
    ck_assert_int_eq(ox_strset_init(&s, 1000), 0);
    char keys[1000][8];
    for (int i = 999; i >= 0; i--) {
        snprintf(keys[i], sizeof keys[i], "%d", i);
        ck_assert_int_eq(ox_strset_add(&s, keys[i]), 1);
    }
    for (int i = 0; i < 1000; i++) {
        ck_assert(ox_strset_has(&s, keys[i]));
        ck_assert_int_eq(ox_strset_add(&s, keys[i]), 0);
    }
    ck_assert(!ox_strset_has(&s, "1000"));
    ck_assert_uint_eq(s.n, 1000);
    ox_strset_free(&s);
}
END_TEST

/* The one spelling of a number the dense keys and the naming pass share. */
START_TEST(numbers_are_read_one_way)
{
    size_t v = 99;
    ck_assert(ox_str_number("0", SIZE_MAX, 10, &v) && v == 0);
    ck_assert(ox_str_number("17", SIZE_MAX, 18, &v) && v == 17);
    ck_assert(!ox_str_number("17", SIZE_MAX, 17, &v)); /* not below the bound */
    ck_assert(!ox_str_number("017", SIZE_MAX, 100, &v));
    ck_assert(!ox_str_number("", SIZE_MAX, 100, &v));
    ck_assert(!ox_str_number("+1", SIZE_MAX, 100, &v));
    ck_assert(!ox_str_number("1x", SIZE_MAX, 100, &v));
    ck_assert(ox_str_number("1x", 1, 100, &v) && v == 1);
    ck_assert(!ox_str_number("0", SIZE_MAX, 0, &v));
    char big[32];
    snprintf(big, sizeof big, "%zu", (size_t)SIZE_MAX - 1);
    ck_assert(ox_str_number(big, SIZE_MAX, SIZE_MAX, &v) && v == SIZE_MAX - 1);
    snprintf(big, sizeof big, "%zu", (size_t)SIZE_MAX);
    ck_assert(!ox_str_number(big, SIZE_MAX, SIZE_MAX, &v));
    ck_assert(!ox_str_number("123456789012345678901234567890", SIZE_MAX, SIZE_MAX, &v));
}
END_TEST

static Suite *strmap_suite(void)
{
    Suite *s = suite_create("strmap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, numbers_and_names_share_one_map);
    tcase_add_test(tc, numbers_past_the_dense_range_are_hashed);
    tcase_add_test(tc, a_set_claims_each_number_once);
    tcase_add_test(tc, numbers_are_read_one_way);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(strmap_suite());
}
