/*
 * Check tests for webhook/judge.c's health (judge.h): a worker loop that has not turned, or a judge running one
 * review past its deadline, for longer than stuck_ms makes gpa_judge_stuck name it; busy is not stuck. Times are
 * given, not read from the clock, so the tests are deterministic.
 */
#include <check.h>
#include <string.h>

#include "judge.h"
#include "run.h"

START_TEST(a_loop_that_stops_turning_is_stuck)
{
    gpa_judge_opts_t o;
    gpa_judge_opts_init(&o);
    char buf[128];
    size_t loop = gpa_judge_beat_new(GPA_BEAT_LOOP);
    gpa_judge_beat(loop, 1000);
    ck_assert_ptr_null(gpa_judge_stuck(1000, buf, sizeof(buf)));
    ck_assert_ptr_null(gpa_judge_stuck(1000 + o.stuck_ms, buf, sizeof(buf)));
    const char *why = gpa_judge_stuck(1000 + o.stuck_ms + 1, buf, sizeof(buf));
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "event loop has not turned for") != NULL, "%s", why);
    /* It turns again: healthy. */
    gpa_judge_beat(loop, 1000 + o.stuck_ms + 1);
    ck_assert_ptr_null(gpa_judge_stuck(1000 + o.stuck_ms + 2, buf, sizeof(buf)));
}
END_TEST

START_TEST(a_judge_far_past_its_deadline_is_stuck)
{
    gpa_judge_opts_t o;
    gpa_judge_opts_init(&o);
    char buf[128];
    size_t judge = gpa_judge_beat_new(GPA_BEAT_JUDGE);
    /* Idle: never stuck, however long. */
    ck_assert_ptr_null(gpa_judge_stuck(1u << 30, buf, sizeof(buf)));
    gpa_judge_beat(judge, 5000); /* took a review at 5 s */
    ck_assert_ptr_null(gpa_judge_stuck(5000 + o.deadline_ms, buf, sizeof(buf)));
    ck_assert_ptr_null(gpa_judge_stuck(5000 + o.deadline_ms + o.stuck_ms, buf, sizeof(buf)));
    const char *why = gpa_judge_stuck(5000 + o.deadline_ms + o.stuck_ms + 1, buf, sizeof(buf));
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "judge") == why, "%s", why);
    gpa_judge_beat(judge, 0); /* done */
    ck_assert_ptr_null(gpa_judge_stuck(1u << 30, buf, sizeof(buf)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webhook_judge");
    TCase *tc = tcase_create("health");
    tcase_add_test(tc, a_loop_that_stops_turning_is_stuck);
    tcase_add_test(tc, a_judge_far_past_its_deadline_is_stuck);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
