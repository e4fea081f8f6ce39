/*
 * How every unit test program ends: run its suite, print Check's summary, exit non-zero on any failure.
 */
#ifndef GPA_TEST_RUN_H
#define GPA_TEST_RUN_H

#include <check.h>
#include <stdlib.h>

/* Runs s (and frees it): EXIT_SUCCESS when every test passed. */
static inline int gpa_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
