/*
 * Check tests for webhook/log.c: one JSON object per line, whatever the strings put in it. Quotes, backslashes,
 * newlines, control characters, DEL and invalid UTF-8 (a uid, a name, a file name or a reason taken from hostile
 * input) must never break the line or make it invalid JSON; log collectors drop lines they cannot parse.
 */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int pipe_fds[2];
static int saved_stderr;

/* Sends what the logger writes on stderr into a pipe. */
static void capture(void)
{
    ck_assert_int_eq(pipe(pipe_fds), 0);
    saved_stderr = dup(STDERR_FILENO);
    ck_assert_int_eq(dup2(pipe_fds[1], STDERR_FILENO), STDERR_FILENO);
    close(pipe_fds[1]);
}

/* Stops capturing and returns everything written (new, caller frees). */
static char *captured(void)
{
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    static char buf[65536];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof(buf) - 1 && (got = read(pipe_fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
        n += (size_t)got;
    close(pipe_fds[0]);
    buf[n] = '\0';
    return strdup(buf);
}

/* Bytes are valid UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static int valid_utf8(const unsigned char *s)
{
    while (*s != '\0') {
        unsigned c = *s, n, min;
        if (c < 0x80) {
            s++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1, min = 0x80, c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2, min = 0x800, c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return 0;
            c = (c << 6) | (s[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return 0;
        s += n + 1;
    }
    return 1;
}

/* The one line in text, checked to be exactly one valid-UTF-8 JSON object ending in a newline; new, json_decref. */
static json_t *one_line(const char *text)
{
    size_t len = strlen(text);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "line must end with a newline: %s", text);
    ck_assert_msg(strchr(text, '\n') == text + len - 1, "exactly one line expected: %s", text);
    ck_assert_msg(valid_utf8((const unsigned char *)text), "line is not valid UTF-8: %s", text);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\n'; p++)
        ck_assert_msg(*p >= 0x20 && *p != 0x7f, "raw control byte 0x%02x in line", *p);
    json_error_t e;
    json_t *j = json_loadb(text, len, JSON_ALLOW_NUL, &e);
    ck_assert_msg(j != NULL && json_is_object(j), "not a JSON object (%s): %s", e.text, text);
    return j;
}

static const char *field(json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    ck_assert_msg(json_is_string(v), "no string %s", key);
    return json_string_value(v);
}

START_TEST(line_shape)
{
    capture();
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "denied");
    gpa_log_str(l, "uid", "705ab4f5-6393-11e8-b7cc-42010a800002");
    gpa_log_str(l, "name", NULL);
    gpa_log_int(l, "n", -42);
    const char *rules[] = {"min-memory", "infeasible"};
    gpa_log_strs(l, "rules", rules, 2);
    gpa_log_end(l);
    char *text = captured();
    json_t *j = one_line(text);
    ck_assert_str_eq(field(j, "level"), "info");
    ck_assert_str_eq(field(j, "msg"), "denied");
    ck_assert_str_eq(field(j, "uid"), "705ab4f5-6393-11e8-b7cc-42010a800002");
    ck_assert(json_is_null(json_object_get(j, "name")));
    ck_assert_int_eq(json_integer_value(json_object_get(j, "n")), -42);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "rules")), 2);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "rules"), 1)), "infeasible");
    /* RFC 3339 UTC with milliseconds, first key */
    const char *ts = field(j, "ts");
    ck_assert_uint_eq(strlen(ts), 24);
    ck_assert(ts[4] == '-' && ts[7] == '-' && ts[10] == 'T' && ts[13] == ':' && ts[16] == ':' && ts[19] == '.' && ts[23] == 'Z');
    ck_assert(strncmp(text, "{\"ts\":\"", 7) == 0);
    json_decref(j);
    free(text);
}
END_TEST

START_TEST(hostile_strings_are_escaped)
{
    static const char hostile[] = "a\"b\\c\nd\re\tf\x01g\x1fh\x7fi</script>\"}\n{\"level\":\"error\"";
    capture();
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_WARN, "unreadable AdmissionReview");
    gpa_log_str(l, "uid", hostile);
    gpa_log_str(l, "name", "ünïcödé ✓ 😀");
    gpa_log_strn(l, "reason", "with\0nul", 8);
    const char *list[] = {"\"", "\n"};
    gpa_log_strs(l, "rules", list, 2);
    gpa_log_str(l, "k\"ey\n", "v");
    gpa_log_end(l);
    char *text = captured();
    json_t *j = one_line(text);
    ck_assert_str_eq(field(j, "uid"), hostile);
    ck_assert_str_eq(field(j, "name"), "ünïcödé ✓ 😀");
    ck_assert_str_eq(field(j, "level"), "warn");
    ck_assert_str_eq(field(j, "k\"ey\n"), "v");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "rules"), 1)), "\n");
    size_t n = 0;
    json_t *reason = json_object_get(j, "reason");
    n = json_string_length(reason);
    ck_assert_uint_eq(n, 8);
    ck_assert(memcmp(json_string_value(reason), "with\0nul", 8) == 0);
    json_decref(j);
    free(text);
}
END_TEST

START_TEST(invalid_utf8_is_replaced)
{
    /* stray continuation, truncated sequences (also at the very end), overlong '/', a UTF-16 surrogate, beyond
     * U+10FFFF, 0xff: each becomes U+FFFD, the valid text around them stays */
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"a\x80z", "a\xef\xbf\xbdz"},
        {"a\xc3", "a\xef\xbf\xbd"},
        {"a\xe2\x82z", "a\xef\xbf\xbd\xef\xbf\xbdz"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xff\"\n", "\xef\xbf\xbd\"\n"},
        {"ok \xc3\xa9 \xf0\x9f\x98\x80", "ok \xc3\xa9 \xf0\x9f\x98\x80"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        capture();
        gpa_log_line_t *l = gpa_log_begin(GPA_LOG_ERROR, "reload failed; keeping the previous one");
        gpa_log_str(l, "file", cases[i].in);
        const char *list[] = {cases[i].in};
        gpa_log_strs(l, "rules", list, 1);
        gpa_log_end(l);
        char *text = captured();
        json_t *j = one_line(text);
        ck_assert_msg(strcmp(field(j, "file"), cases[i].want) == 0, "case %zu: got %s", i, text);
        ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "rules"), 0)), cases[i].want);
        json_decref(j);
        free(text);
    }
}
END_TEST

START_TEST(levels_filter_and_parse)
{
    gpa_log_level_t lv;
    ck_assert_int_eq(gpa_log_parse_level("warn", &lv), 0);
    ck_assert_int_eq(lv, GPA_LOG_WARN);
    ck_assert_int_eq(gpa_log_parse_level("WARN", &lv), -1);
    ck_assert_int_eq(gpa_log_parse_level("", &lv), -1);
    gpa_log_set_level(GPA_LOG_WARN);
    ck_assert_ptr_null(gpa_log_begin(GPA_LOG_INFO, "x"));
    capture();
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "filtered");
    gpa_log_str(l, "a", "b"); /* every call accepts NULL */
    gpa_log_strn(l, "a", "b", 1);
    gpa_log_int(l, "a", 1);
    gpa_log_strs(l, "a", NULL, 0);
    gpa_log_end(l);
    gpa_log_msg(GPA_LOG_INFO, "filtered too", "e");
    gpa_log_msg(GPA_LOG_ERROR, "kept", "bad \"thing\"");
    char *text = captured();
    json_t *j = one_line(text);
    ck_assert_str_eq(field(j, "msg"), "kept");
    ck_assert_str_eq(field(j, "error"), "bad \"thing\"");
    json_decref(j);
    free(text);
}
END_TEST

START_TEST(limited_lines_once_a_second)
{
    gpa_log_limit_t limit = {0};
    capture();
    gpa_log_line_t *first = gpa_log_begin_limited(&limit, GPA_LOG_WARN, "refused");
    ck_assert_ptr_nonnull(first);
    gpa_log_end(first);
    for (int i = 0; i < 3; i++) /* within the second: dropped and counted */
        ck_assert_ptr_null(gpa_log_begin_limited(&limit, GPA_LOG_WARN, "refused"));
    atomic_store(&limit.last_ms, atomic_load(&limit.last_ms) - 1000); /* as if a second had passed */
    gpa_log_line_t *next = gpa_log_begin_limited(&limit, GPA_LOG_WARN, "refused");
    ck_assert_ptr_nonnull(next);
    gpa_log_end(next);
    char *text = captured();
    char *second = strchr(text, '\n');
    ck_assert_ptr_nonnull(second);
    json_t *j = one_line(second + 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "suppressed")), 3);
    json_decref(j);
    second[1] = '\0';
    j = one_line(text);
    ck_assert_ptr_null(json_object_get(j, "suppressed"));
    json_decref(j);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webhook_log");
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, line_shape);
    tcase_add_test(tc, hostile_strings_are_escaped);
    tcase_add_test(tc, invalid_utf8_is_replaced);
    tcase_add_test(tc, levels_filter_and_parse);
    tcase_add_test(tc, limited_lines_once_a_second);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
