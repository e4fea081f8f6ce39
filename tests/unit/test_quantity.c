/* Check tests for rules/quantity.c: table-driven parsing, formatting and overflow-checked arithmetic. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "kube/quantity.h"
#include "run.h"

typedef struct st_qcase_t {
    const char *text;
    gpa_qstatus_t status;
    int64_t value;
    gpa_qsuffix_t suffix;
} qcase_t;

static const qcase_t cases[] = {
    /* plain numbers and signs */
    {"0", GPA_Q_OK, 0, GPA_QS_NONE},
    {"1", GPA_Q_OK, 1, GPA_QS_NONE},
    {"+7", GPA_Q_OK, 7, GPA_QS_NONE},
    {"-7", GPA_Q_OK, -7, GPA_QS_NONE},
    {"-0", GPA_Q_OK, 0, GPA_QS_NONE},
    {"007", GPA_Q_OK, 7, GPA_QS_NONE},
    {"100", GPA_Q_OK, 100, GPA_QS_NONE},
    {"1.", GPA_Q_OK, 1, GPA_QS_NONE},
    {"1.000", GPA_Q_OK, 1, GPA_QS_NONE},
    {"2.0G", GPA_Q_OK, 2000000000, GPA_QS_DECIMAL},
    /* every binary suffix */
    {"1Ki", GPA_Q_OK, 1024, GPA_QS_BINARY},
    {"1Mi", GPA_Q_OK, 1048576, GPA_QS_BINARY},
    {"20Gi", GPA_Q_OK, 21474836480LL, GPA_QS_BINARY},
    {"1Ti", GPA_Q_OK, 1099511627776LL, GPA_QS_BINARY},
    {"1Pi", GPA_Q_OK, 1125899906842624LL, GPA_QS_BINARY},
    {"1Ei", GPA_Q_OK, 1152921504606846976LL, GPA_QS_BINARY},
    {"7Ei", GPA_Q_OK, 8070450532247928832LL, GPA_QS_BINARY},
    {"0.5Ki", GPA_Q_OK, 512, GPA_QS_BINARY},
    {".5Ki", GPA_Q_OK, 512, GPA_QS_BINARY},
    {"1.5Gi", GPA_Q_OK, 1610612736LL, GPA_QS_BINARY},
    {"0.001Ki", GPA_Q_FRACTION, 0, GPA_QS_BINARY},
    {"0.125Ki", GPA_Q_OK, 128, GPA_QS_BINARY},
    {"-1Gi", GPA_Q_OK, -1073741824LL, GPA_QS_BINARY},
    /* every decimal suffix */
    {"1000n", GPA_Q_FRACTION, 0, GPA_QS_DECIMAL},
    {"1000000000n", GPA_Q_OK, 1, GPA_QS_DECIMAL},
    {"3000000u", GPA_Q_OK, 3, GPA_QS_DECIMAL},
    {"2000m", GPA_Q_OK, 2, GPA_QS_DECIMAL},
    {"1k", GPA_Q_OK, 1000, GPA_QS_DECIMAL},
    {"1M", GPA_Q_OK, 1000000, GPA_QS_DECIMAL},
    {"1G", GPA_Q_OK, 1000000000, GPA_QS_DECIMAL},
    {"1T", GPA_Q_OK, 1000000000000LL, GPA_QS_DECIMAL},
    {"1P", GPA_Q_OK, 1000000000000000LL, GPA_QS_DECIMAL},
    {"1E", GPA_Q_OK, 1000000000000000000LL, GPA_QS_DECIMAL},
    {"9E", GPA_Q_OK, 9000000000000000000LL, GPA_QS_DECIMAL},
    {"10E", GPA_Q_OVERFLOW, 0, GPA_QS_DECIMAL},
    {"1.5k", GPA_Q_OK, 1500, GPA_QS_DECIMAL},
    /* exponents */
    {"1e3", GPA_Q_OK, 1000, GPA_QS_EXPONENT},
    {"1E3", GPA_Q_OK, 1000, GPA_QS_EXPONENT},
    {"1e+3", GPA_Q_OK, 1000, GPA_QS_EXPONENT},
    {"1500e-3", GPA_Q_FRACTION, 0, GPA_QS_EXPONENT},
    {"1000e-3", GPA_Q_OK, 1, GPA_QS_EXPONENT},
    {"1e18", GPA_Q_OK, 1000000000000000000LL, GPA_QS_EXPONENT},
    {"1e19", GPA_Q_OVERFLOW, 0, GPA_QS_EXPONENT},
    {"1e999999999999999999999999", GPA_Q_OVERFLOW, 0, GPA_QS_EXPONENT},
    {"1e-999999999999999999999999", GPA_Q_FRACTION, 0, GPA_QS_EXPONENT},
    {"0e999999999999999999999999", GPA_Q_OK, 0, GPA_QS_EXPONENT},
    {"0.0e-5", GPA_Q_OK, 0, GPA_QS_EXPONENT},
    /* boundaries */
    {"9223372036854775807", GPA_Q_OK, INT64_MAX, GPA_QS_NONE},
    {"9223372036854775808", GPA_Q_OVERFLOW, 0, GPA_QS_NONE},
    {"-9223372036854775808", GPA_Q_OK, INT64_MIN, GPA_QS_NONE},
    {"-9223372036854775809", GPA_Q_OVERFLOW, 0, GPA_QS_NONE},
    {"9223372036854775807000m", GPA_Q_OK, INT64_MAX, GPA_QS_DECIMAL},
    {"9223372036854775807001m", GPA_Q_FRACTION, 0, GPA_QS_DECIMAL},
    {"8Ei", GPA_Q_OVERFLOW, 0, GPA_QS_BINARY},
    {"9Ei", GPA_Q_OVERFLOW, 0, GPA_QS_BINARY},
    {"-8Ei", GPA_Q_OK, INT64_MIN, GPA_QS_BINARY},
    {"8388607.999999999Ti", GPA_Q_FRACTION, 0, GPA_QS_BINARY},
    {"99999999999999999999", GPA_Q_OVERFLOW, 0, GPA_QS_NONE},
    {"0000000000000000000000000000001", GPA_Q_OK, 1, GPA_QS_NONE},
    {"1000000000000000000000000000000n", GPA_Q_OVERFLOW, 0, GPA_QS_DECIMAL},
    /* fractions */
    {"500m", GPA_Q_FRACTION, 0, GPA_QS_DECIMAL},
    {"1.5", GPA_Q_FRACTION, 0, GPA_QS_NONE},
    {"1n", GPA_Q_FRACTION, 0, GPA_QS_DECIMAL},
    {"0.1", GPA_Q_FRACTION, 0, GPA_QS_NONE},
    {"-1.5", GPA_Q_FRACTION, 0, GPA_QS_NONE},
    /* syntax errors */
    {"", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {" ", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {" 1", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1 ", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1.2.3", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"Gi", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1gi", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1 Gi", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"0x10", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1K", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1ki", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1KiB", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1e", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1e+", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1e3e", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1e3.5", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1Gi5", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"-", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"+", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {".", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"--1", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"+-1", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1,000", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"1_000", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"inf", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"NaN", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
    {"１", GPA_Q_SYNTAX, 0, GPA_QS_NONE},
};

START_TEST(test_parse_table)
{
    const qcase_t *c = &cases[_i];
    gpa_quantity_t q = gpa_quantity_parse(c->text, strlen(c->text));
    ck_assert_msg(q.status == c->status, "\"%s\": status %d, want %d", c->text, q.status, c->status);
    if (c->status == GPA_Q_OK)
        ck_assert_msg(q.value == c->value, "\"%s\": value %lld, want %lld", c->text, (long long)q.value, (long long)c->value);
    if (c->status != GPA_Q_SYNTAX)
        ck_assert_msg(q.suffix == c->suffix, "\"%s\": suffix %d, want %d", c->text, q.suffix, c->suffix);
}
END_TEST

START_TEST(test_parse_uses_len_not_nul)
{
    gpa_quantity_t q = gpa_quantity_parse("12Gi-garbage", 4);
    ck_assert_int_eq(q.status, GPA_Q_OK);
    ck_assert_int_eq(q.value, 12LL << 30);
    q = gpa_quantity_parse(NULL, 0);
    ck_assert_int_eq(q.status, GPA_Q_SYNTAX);
    q = gpa_quantity_parse("1\0"
                           "0",
                           3);
    ck_assert_int_eq(q.status, GPA_Q_SYNTAX);
}
END_TEST

START_TEST(test_parse_long_inputs)
{
    /* 100,000 digits: no overflow of the bookkeeping, no quadratic work, exact answers. */
    size_t n = 100000;
    char *s = malloc(n + 8);
    memset(s, '0', n);
    s[n - 1] = '5';
    gpa_quantity_t q = gpa_quantity_parse(s, n);
    ck_assert_int_eq(q.status, GPA_Q_OK);
    ck_assert_int_eq(q.value, 5);
    s[0] = '1';
    q = gpa_quantity_parse(s, n);
    ck_assert_int_eq(q.status, GPA_Q_OVERFLOW);
    /* "0." followed by many digits ending in 1, then Ei: a fraction no binary suffix can make whole */
    memset(s, '0', n);
    s[1] = '.';
    s[n - 1] = '1';
    memcpy(s + n, "Ei", 2);
    q = gpa_quantity_parse(s, n + 2);
    ck_assert_int_eq(q.status, GPA_Q_FRACTION);
    /* many significant digits after the point, with a large integer part: overflow */
    memset(s, '7', n);
    s[50] = '.';
    q = gpa_quantity_parse(s, n);
    ck_assert_int_eq(q.status, GPA_Q_OVERFLOW);
    /* many trailing zeros after the point are still whole */
    memset(s, '0', n);
    s[0] = '3';
    s[1] = '.';
    q = gpa_quantity_parse(s, n);
    ck_assert_int_eq(q.status, GPA_Q_OK);
    ck_assert_int_eq(q.value, 3);
    free(s);
}
END_TEST

typedef struct st_fcase_t {
    int64_t value;
    int binary;
    const char *text;
} fcase_t;

static const fcase_t fcases[] = {
    {0, 0, "0"},
    {0, 1, "0"},
    {100, 0, "100"},
    {1500000000, 0, "1500M"},
    {1000, 0, "1k"},
    {1000, 1, "1k"},
    {1023, 1, "1023"},
    {1024, 1, "1Ki"},
    {1536, 1, "1536"},
    {21474836480LL, 1, "20Gi"},
    {1610612736LL, 1, "1536Mi"},
    {1152921504606846976LL, 1, "1Ei"},
    {INT64_MAX, 0, "9223372036854775807"},
    {INT64_MAX, 1, "9223372036854775807"},
    {INT64_MIN, 1, "-8Ei"},
    {INT64_MIN, 0, "-9223372036854775808"},
    {-1073741824LL, 1, "-1Gi"},
    {-2000, 0, "-2k"},
    {9000000000000000000LL, 0, "9E"},
    {268435456, 1, "256Mi"},
};

START_TEST(test_format_table)
{
    const fcase_t *c = &fcases[_i];
    char dst[32];
    memset(dst, 'x', sizeof(dst));
    gpa_quantity_format(c->value, c->binary, dst);
    ck_assert_str_eq(dst, c->text);
    /* canonical text parses back to the same value */
    gpa_quantity_t q = gpa_quantity_parse(dst, strlen(dst));
    ck_assert_int_eq(q.status, GPA_Q_OK);
    ck_assert_int_eq(q.value, c->value);
}
END_TEST

START_TEST(test_arith)
{
    int64_t r = 42;
    ck_assert_int_eq(gpa_mul_i64(3, 4, &r), 0);
    ck_assert_int_eq(r, 12);
    ck_assert_int_eq(gpa_mul_i64(INT64_MAX, 2, &r), -1);
    ck_assert_int_eq(r, 12); /* untouched on overflow */
    ck_assert_int_eq(gpa_mul_i64(INT64_MIN, -1, &r), -1);
    ck_assert_int_eq(gpa_mul_i64(-1, INT64_MAX, &r), 0);
    ck_assert_int_eq(r, -INT64_MAX);
    ck_assert_int_eq(gpa_mul_i64(1LL << 62, 2, &r), -1);
    ck_assert_int_eq(gpa_add_i64(INT64_MAX, 0, &r), 0);
    ck_assert_int_eq(r, INT64_MAX);
    ck_assert_int_eq(gpa_add_i64(INT64_MAX, 1, &r), -1);
    ck_assert_int_eq(r, INT64_MAX);
    ck_assert_int_eq(gpa_add_i64(INT64_MIN, -1, &r), -1);
    ck_assert_int_eq(gpa_add_i64(-5, 3, &r), 0);
    ck_assert_int_eq(r, -2);
    ck_assert_int_eq(gpa_ceil_div(0, 3), 0);
    ck_assert_int_eq(gpa_ceil_div(1, 3), 1);
    ck_assert_int_eq(gpa_ceil_div(3, 3), 1);
    ck_assert_int_eq(gpa_ceil_div(4, 3), 2);
    ck_assert_int_eq(gpa_ceil_div(INT64_MAX, 1), INT64_MAX);
    ck_assert_int_eq(gpa_ceil_div(INT64_MAX, 2), (INT64_MAX / 2) + 1);
    ck_assert_int_eq(gpa_ceil_div(21474836480LL, 3), 7158278827LL);
}
END_TEST

START_TEST(test_bytes_format)
{
    char dst[32];
    gpa_bytes_format(1023, 0, dst);
    ck_assert_str_eq(dst, "1023");
    gpa_bytes_format(21474836480LL, 0, dst);
    ck_assert_str_eq(dst, "20Gi");
    gpa_bytes_format(512LL << 20, 1, dst);
    ck_assert_str_eq(dst, "512Mi");
    gpa_bytes_format((12LL << 30) + (1LL << 29), 0, dst);
    ck_assert_str_eq(dst, "12.5Gi");
    gpa_bytes_format((12LL << 30) + 1, 0, dst); /* down: a free amount is never overstated */
    ck_assert_str_eq(dst, "12.0Gi");
    gpa_bytes_format((12LL << 30) + 1, 1, dst); /* up: a need is never understated */
    ck_assert_str_eq(dst, "12.1Gi");
    gpa_bytes_format((13LL << 30) - 1, 1, dst);
    ck_assert_str_eq(dst, "13.0Gi");
    gpa_bytes_format(INT64_MAX, 1, dst);
    ck_assert_str_eq(dst, "8.0Ei");
}
END_TEST

START_TEST(test_saturating_and_ceil_mul)
{
    ck_assert_int_eq(gpa_sat_add_i64(INT64_MAX - 1, 5), INT64_MAX);
    ck_assert_int_eq(gpa_sat_add_i64(40, 2), 42);
    ck_assert_int_eq(gpa_mul_ceil_div_i64(30, 81920, 100), 24576);
    ck_assert_int_eq(gpa_mul_ceil_div_i64(1, 1, 3), 1);
    ck_assert_int_eq(gpa_mul_ceil_div_i64(INT64_MAX, 2, 100), -1);
}
END_TEST

/* What a malformed text most likely meant, per unit of the resource (bytes, MiB, a count). */
START_TEST(test_guess_table)
{
    static const struct {
        const char *text;
        int64_t unit;
        const char *want; /* the guesses' texts joined by "|", "" for none */
    } rows[] = {
        {"20GB", 1, "20G|20Gi"},
        {"1.5GB", 1, "1500M|1536Mi"},
        {"1.5 GiB", 1, "1536Mi"},
        {"512mb", 1, "512M|512Mi"},
        {"8 Gi", 1, "8Gi"},
        {"20B", 1, "20"},
        {"20", 1, "20"},
        {"2kb", 1, "2k|2Ki"},
        {"8GB", 1 << 20, "8192"},
        {"8192 MiB", 1 << 20, "8192"},
        {"100", 1 << 20, "100"},
        {"50%", 0, "50"},
        {"50GB", 0, ""},
        {"1.5", 0, ""},
        {"1 2", 0, ""},
        {"100 GPUs", 0, ""},
        {"${X}", 1, ""},
        {"0GB", 1, ""},
        {"", 1, ""},
        {"1.2.3GB", 1, ""},
        {"99999999999999999999GB", 1, ""},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gpa_quantity_guess_t g[2];
        size_t n = gpa_quantity_guess(rows[i].text, rows[i].unit, g);
        char got[80] = "";
        for (size_t k = 0; k < n; k++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k > 0 ? "|" : "", g[k].text);
        ck_assert_msg(strcmp(got, rows[i].want) == 0, "%s (unit %lld): got \"%s\", want \"%s\"", rows[i].text,
                      (long long)rows[i].unit, got, rows[i].want);
    }
}
END_TEST

START_TEST(test_status_text)
{
    ck_assert_str_eq(gpa_quantity_status_text(GPA_Q_FRACTION), "not a whole number");
    ck_assert_ptr_nonnull(gpa_quantity_status_text(GPA_Q_SYNTAX));
    ck_assert_ptr_nonnull(gpa_quantity_status_text(GPA_Q_OVERFLOW));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quantity");
    TCase *tc = tcase_create("quantity");
    tcase_add_loop_test(tc, test_parse_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_parse_uses_len_not_nul);
    tcase_add_test(tc, test_parse_long_inputs);
    tcase_add_loop_test(tc, test_format_table, 0, (int)(sizeof(fcases) / sizeof(fcases[0])));
    tcase_add_test(tc, test_arith);
    tcase_add_test(tc, test_bytes_format);
    tcase_add_test(tc, test_saturating_and_ceil_mul);
    tcase_add_test(tc, test_status_text);
    tcase_add_test(tc, test_guess_table);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
