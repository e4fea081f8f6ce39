/*
 * Check tests for cli/report/report.c: the text and JSON reports of a verdict select warnings by their origin, so a
 * warning is never lost because its text happens to mention a rule id.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "policy/engine.h"
#include "report/report.h"
#include "run.h"

static void use_config(const char *text)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    gpa_config_release(cfg);
    cfg = NULL;
    ck_assert_msg(gpa_config_parse(text, strlen(text), "test", &cfg, &err) == 0, "config: %s", err.message);
}

static gpa_verdict_t check(gpa_object_t *obj)
{
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_check(&arena, cfg, obj, &opts, &v, &err) == 0, "check: %s", err.message);
    return v;
}

/* The text report of one object, in the arena. */
static const char *report_text(const gpa_object_t *obj, const gpa_verdict_t *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    gpa_report_text(out, &arena, "pod.yaml", obj, v);
    fclose(out);
    const char *s = gpa_arena_strndup(&arena, buf, len);
    free(buf);
    return s;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

/* (memory-ratio-exclusive is off: the two containers mix memory forms at the Pod level.)
 * A container named like a rule (min-memory) gets expand-gpu's deprecation warning while a min-memory finding at warn
 * is in the same verdict: the warning is the mutation's, and the text report prints it. */
#define RULE_NAMED_POD                                                                                                             \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"team-a\"},\"spec\":{\"containers\":["    \
    "{\"name\":\"min-memory\",\"resources\":{\"limits\":{\"koordinator.sh/gpu\":\"30\"}}},"                                        \
    "{\"name\":\"small\",\"resources\":{\"limits\":{\"koordinator.sh/gpu-memory\":\"100Mi\",\"koordinator.sh/"                     \
    "gpu.shared\":\"1\"}}}"                                                                                                        \
    "]}}"

START_TEST(text_keeps_a_mutation_warning_that_names_a_rule)
{
    use_config("rules: {min-memory: warn, memory-ratio-exclusive: \"off\"}");
    gpa_object_t *obj = object(RULE_NAMED_POD);
    gpa_verdict_t v = check(obj);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 1);
    ck_assert_str_eq(v.violations.items[0].rule, "min-memory");
    const char *text = report_text(obj, &v);
    ck_assert_msg(strstr(text, ": warning: min-memory: koordinator.sh/gpu is deprecated") != NULL, "no expand-gpu warning in:\n%s",
                  text);
    /* The finding at warn is printed once, as a finding, not again as a warning. */
    ck_assert_uint_eq(count(text, "container \"small\": min-memory:"), 1);
    ck_assert_msg(strstr(text, "[warn]") != NULL, "%s", text);
}
END_TEST

START_TEST(json_lists_every_warning)
{
    use_config("rules: {min-memory: warn, memory-ratio-exclusive: \"off\"}");
    gpa_object_t *obj = object(RULE_NAMED_POD);
    gpa_verdict_t v = check(obj);
    json_t *el = gpa_report_json("pod.yaml", obj, &v);
    json_t *w = json_object_get(el, "warnings");
    ck_assert_uint_eq(json_array_size(w), 2);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(w, 0)), "min-memory: koordinator.sh/gpu is deprecated"));
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(w, 1)), "small: min-memory: "));
    json_decref(el);
}
END_TEST

/* What gpa_report_escape makes of `in`, as a string to compare. */
static char *escaped(const char *in)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "");
    gpa_report_escape(&b, in);
    return gpa_buf_steal(&b);
}

static void assert_escape(const char *in, const char *want)
{
    char *got = escaped(in);
    ck_assert_str_eq(got, want);
    /* Escaping is idempotent (a backslash is kept as it is), so a cell escaped for its width may be escaped again. */
    char *again = escaped(got);
    ck_assert_str_eq(again, want);
    free(again);
    free(got);
}

START_TEST(escape_controls_c1_and_invalid_utf8)
{
    assert_escape("main", "main");
    assert_escape("a\nb\tc\rd", "a\\nb\\tc\\rd");
    assert_escape("\x1b[2J\x01\x7f", "\\x1b[2J\\x01\\x7f");
    assert_escape("\xc2\x9b"
                  "31m",
                  "\\u009b31m"); /* C1 CSI, encoded as UTF-8 */
    assert_escape("\x9b"
                  "31m \xff",
                  "\\x9b31m \\xff");                  /* bytes that are not UTF-8 */
    assert_escape("\xc0\x8a", "\\xc0\\x8a");          /* an overlong newline */
    assert_escape("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
    assert_escape("gpu-\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \\n",
                  "gpu-\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \\n"); /* UTF-8 and backslashes as they are */
}
END_TEST

START_TEST(text_lines_cannot_be_forged)
{
    gpa_object_t *obj =
        object("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\\nx: allowed\",\"namespace\":\"t\"},"
               "\"spec\":{\"containers\":[{\"name\":\"m\\u001b[2J\",\"resources\":{\"limits\":"
               "{\"koordinator.sh/gpu-core\":\"50\"}}}]}}");
    gpa_verdict_t v = check(obj);
    ck_assert_str_eq(report_text(obj, &v),
                     "pod.yaml Pod/t/p\\nx: allowed container \"m\\x1b[2J\": core-without-memory: koordinator.sh/gpu-core "
                     "without GPU memory; add gpu-memory (e.g. 8Gi) or gpu-memory-ratio\n"
                     "pod.yaml Pod/t/p\\nx: allowed: denied\n");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("warnings");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, text_keeps_a_mutation_warning_that_names_a_rule);
    tcase_add_test(tc, json_lists_every_warning);
    suite_add_tcase(s, tc);
    TCase *esc = tcase_create("escaping");
    tcase_add_checked_fixture(esc, setup, teardown);
    tcase_add_test(esc, escape_controls_c1_and_invalid_utf8);
    tcase_add_test(esc, text_lines_cannot_be_forged);
    suite_add_tcase(s, esc);
    return gpa_test_run(s);
}
