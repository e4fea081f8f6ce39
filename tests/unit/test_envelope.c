/* Check tests for rules/admission/envelope.c: strings compared by length, never up to a NUL. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "admission/envelope.h"
#include "admission/review.h"
#include "fixture.h"
#include "run.h"

#define POD "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"%s},\"spec\":{\"containers\":[]}}"

static char body[1024];

static const char *review_with(const char *api, const char *kind, const char *uid, const char *ns, const char *meta)
{
    char object[256];
    snprintf(object, sizeof(object), POD, meta);
    snprintf(body, sizeof(body),
             "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"request\":{\"uid\":\"%s\",\"operation\":\"CREATE\",%s\"object\":%s}}", api,
             kind, uid, ns, object);
    return body;
}

static int read_envelope(const char *text, gpa_envelope_t *env, gpa_error_t *err)
{
    gpa_error_init(err, "test");
    return gpa_envelope_read(json(text), env, err);
}

START_TEST(uid_with_nul_kept_whole)
{
    gpa_envelope_t env;
    gpa_error_t err = {0};
    ck_assert_int_eq(read_envelope(review_with(GPA_ADMISSION_V1, "AdmissionReview", "ab\\u0000cd", "", ""), &env, &err), 0);
    ck_assert_uint_eq(env.uid_len, 5);
    ck_assert_int_eq(memcmp(env.uid, "ab\0cd", 5), 0);
    gpa_review_t r;
    const char *text = review_with(GPA_ADMISSION_V1, "AdmissionReview", "ab\\u0000cd", "", "");
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_MUTATE, text, strlen(text), &r);
    ck_assert_int_eq(r.http_status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"uid\":\"ab\\u0000cd\""));
}
END_TEST

START_TEST(names_with_nul_are_not_names)
{
    gpa_envelope_t env;
    gpa_error_t err = {0};
    /* Each would read as the name before its NUL if compared as a C string. */
    ck_assert_int_eq(read_envelope(review_with(GPA_ADMISSION_V1, "AdmissionReview\\u0000x", "u", "", ""), &env, &err), -1);
    ck_assert_str_eq(err.path, "kind");
    ck_assert_int_eq(read_envelope(review_with(GPA_ADMISSION_V1 "\\u0000x", "AdmissionReview", "u", "", ""), &env, &err), -1);
    ck_assert_str_eq(err.path, "apiVersion");
    ck_assert_int_eq(
        read_envelope(review_with(GPA_ADMISSION_V1, "AdmissionReview", "u", "\"namespace\":\"kube-system\\u0000x\",", ""), &env,
                      &err),
        -1);
    ck_assert_str_eq(err.path, "request.namespace");
    ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
}
END_TEST

START_TEST(object_namespace_with_nul_is_not_excluded)
{
    gpa_review_t r;
    const char *text = review_with(GPA_ADMISSION_V1, "AdmissionReview", "u", "", ",\"namespace\":\"kube-system\\u0000x\"");
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_VALIDATE, text, strlen(text), &r);
    /* An object gpuadmit cannot read is denied in a 200 answer (code 400), never admitted as kube-system. */
    ck_assert_int_eq(r.http_status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"allowed\":false"));
    ck_assert_ptr_nonnull(strstr(r.body, "\"code\":400"));
    ck_assert_ptr_nonnull(strstr(r.body, "metadata.namespace"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("envelope");
    TCase *tc = tcase_create("envelope");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, uid_with_nul_kept_whole);
    tcase_add_test(tc, names_with_nul_are_not_names);
    tcase_add_test(tc, object_namespace_with_nul_is_not_excluded);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
