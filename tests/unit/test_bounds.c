/* Check tests for the memory bounds' measure: the arena's exact byte accounting (held now, peak since init),
 * through small and large blocks, grown vectors, clear and dispose. The per-review ceilings are asserted on
 * these counters (bytes, never time); cases for further surfaces go here. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "run.h"

START_TEST(empty_arena_holds_nothing)
{
    gpa_arena_t a = {0};
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 0);
    gpa_arena_clear(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
}
END_TEST

START_TEST(small_blocks_share_one_chunk)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 1);
    size_t chunk = gpa_arena_held(&a);
    ck_assert_uint_gt(chunk, 1000);
    for (int i = 0; i < 50; i++)
        gpa_arena_alloc(&a, 16);
    ck_assert_uint_eq(gpa_arena_held(&a), chunk);
    ck_assert_uint_eq(gpa_arena_peak(&a), chunk);
    gpa_arena_dispose(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 0);
}
END_TEST

START_TEST(large_block_counted_exactly)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 1);
    size_t chunk = gpa_arena_held(&a);
    gpa_arena_alloc(&a, 1000000);
    ck_assert_uint_eq(gpa_arena_held(&a), chunk + 1000000);
    gpa_arena_alloc(&a, 1000001); /* rounded to the alignment, 16 */
    ck_assert_uint_eq(gpa_arena_held(&a), chunk + 1000000 + 1000016);
    gpa_arena_clear(&a); /* keeps at most one standard chunk, never a large block */
    ck_assert_uint_le(gpa_arena_held(&a), chunk);
    ck_assert_uint_eq(gpa_arena_peak(&a), chunk + 1000000 + 1000016);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(grown_vector_held_once)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    GPA_VEC(int) v = {0};
    for (int i = 0; i < 1 << 20; i++)
        *gpa_vec_push(&a, &v) = i;
    ck_assert_int_eq(v.items[12345], 12345);
    /* The last doubling reallocates its own block: held is that block plus what the small sizes left behind,
     * far below the sum of every size the vector went through. */
    size_t final = v.cap * sizeof(int);
    ck_assert_uint_ge(gpa_arena_held(&a), final);
    ck_assert_uint_lt(gpa_arena_held(&a), final + final / 8);
    ck_assert_uint_ge(gpa_arena_peak(&a), gpa_arena_held(&a));
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(clear_of_a_lone_large_block_holds_nothing)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 100000);
    ck_assert_uint_eq(gpa_arena_held(&a), 100000);
    gpa_arena_clear(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 100000);
    char *s = gpa_arena_strdup(&a, "reused");
    ck_assert_str_eq(s, "reused");
    gpa_arena_dispose(&a);
}
END_TEST

static Suite *bounds_suite(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("arena accounting");
    tcase_add_test(tc, empty_arena_holds_nothing);
    tcase_add_test(tc, small_blocks_share_one_chunk);
    tcase_add_test(tc, large_block_counted_exactly);
    tcase_add_test(tc, grown_vector_held_once);
    tcase_add_test(tc, clear_of_a_lone_large_block_holds_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(bounds_suite());
}
