/*
 * base/distance: edit distances and the nearness used to rank "did you mean" candidates.
 */
#include <check.h>
#include <string.h>

#include "base/distance.h"
#include "run.h"

static size_t dist(const char *x, const char *y, int fold)
{
    return gpa_edit_distance(x, strlen(x), y, strlen(y), fold);
}

START_TEST(test_edit_distance)
{
    ck_assert_uint_eq(dist("", "", 0), 0);
    ck_assert_uint_eq(dist("kitten", "sitting", 0), 3);
    ck_assert_uint_eq(dist("A100", "a100", 0), 1);
    ck_assert_uint_eq(dist("A100", "a100", 1), 0);
    ck_assert_uint_eq(dist("valdiate", "validate", 0), 2);
    ck_assert_uint_eq(dist("", "abc", 0), 3);
    /* long texts are compared on their first GPA_DISTANCE_MAX bytes */
    char a[200], b[200];
    memset(a, 'x', sizeof(a) - 1), a[sizeof(a) - 1] = '\0';
    memset(b, 'x', sizeof(b) - 1), b[sizeof(b) - 1] = '\0';
    b[150] = 'y';
    ck_assert_uint_eq(dist(a, b, 0), 0);
}
END_TEST

START_TEST(test_nearness_orders)
{
    /* equal without case, then fewer folded edits, then fewer edits as written */
    ck_assert_int_gt(gpa_text_nearness("A100", "a100"), gpa_text_nearness("A100", "a10"));
    ck_assert_int_gt(gpa_text_nearness("A100", "a10"), gpa_text_nearness("A100", "a40"));
    ck_assert_int_gt(gpa_text_nearness("a10", "a10"), gpa_text_nearness("a10", "A10"));
    ck_assert_int_gt(gpa_text_nearness("x", "y"), 0);
    ck_assert_int_eq(gpa_text_nearness("x", NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("distance");
    TCase *tc = tcase_create("distance");
    tcase_add_test(tc, test_edit_distance);
    tcase_add_test(tc, test_nearness_orders);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
