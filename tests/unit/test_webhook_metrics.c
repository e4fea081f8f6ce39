/*
 * Check tests for webhook/metrics.c: the Prometheus text exposition (0.0.4) as a scraper reads it. Every sample
 * belongs to a family announced by exactly one HELP and one TYPE line before it, families are not interleaved,
 * series are unique, label values are quoted and escaped, histograms are cumulative and end with +Inf equal to
 * _count, and the counters and gauges move with the calls that feed them.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "metrics.h"
#include "policy/rules.h"

static char *render(time_t now)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_metrics_render(&b, now);
    gpa_buf_putc(&b, '\0');
    return gpa_buf_steal(&b);
}

/* The value of the sample line that starts with `series` followed by a space; aborts when absent. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL)
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    ck_abort_msg("no sample %s in:\n%s", series, text);
    return -1;
}

static int is_name_char(char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

/* Family of a sample name: histogram series (_bucket, _sum, _count) belong to the base name. */
static void family_of(const char *name, size_t n, const char *type_of_base, char *out, size_t outsize)
{
    static const char *const sfx[] = {"_bucket", "_sum", "_count"};
    snprintf(out, outsize, "%.*s", (int)n, name);
    if (type_of_base == NULL)
        return;
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(sfx[i]);
        if (n > k && memcmp(name + n - k, sfx[i], k) == 0) {
            snprintf(out, outsize, "%.*s", (int)(n - k), name);
            return;
        }
    }
}

/* Checks the whole exposition's grammar; returns the number of samples. */
static size_t check_grammar(const char *text)
{
    char families[64][96], types[64][32], seen_series[2048][200];
    size_t nfam = 0, nseries = 0, nsamples = 0;
    int help_pending = 0;
    char current[96] = "";
    ck_assert_msg(text[strlen(text) - 1] == '\n', "exposition must end with a newline");
    for (const char *line = text; *line != '\0';) {
        const char *eol = strchr(line, '\n');
        ck_assert_ptr_nonnull(eol);
        size_t len = (size_t)(eol - line);
        char buf[512];
        ck_assert_uint_lt(len, sizeof(buf));
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = eol + 1;
        ck_assert_msg(len > 0, "empty line");
        if (strncmp(buf, "# HELP ", 7) == 0) {
            char name[96];
            ck_assert_int_eq(sscanf(buf + 7, "%95s", name), 1);
            ck_assert_msg(strlen(buf) > 8 + strlen(name), "HELP without text: %s", buf);
            for (size_t i = 0; i < nfam; i++)
                ck_assert_msg(strcmp(families[i], name) != 0, "family %s announced twice", name);
            ck_assert_uint_lt(nfam, 64);
            snprintf(families[nfam], sizeof(families[nfam]), "%s", name);
            types[nfam][0] = '\0';
            nfam++;
            snprintf(current, sizeof(current), "%s", name);
            help_pending = 1;
            continue;
        }
        if (strncmp(buf, "# TYPE ", 7) == 0) {
            char name[96], type[24];
            ck_assert_int_eq(sscanf(buf + 7, "%95s %23s", name, type), 2);
            ck_assert_msg(help_pending && strcmp(name, current) == 0, "TYPE %s not right after its HELP", name);
            ck_assert_msg(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 || strcmp(type, "histogram") == 0, "type %s",
                          type);
            snprintf(types[nfam - 1], sizeof(types[nfam - 1]), "%s", type);
            if (strcmp(type, "counter") == 0)
                ck_assert_msg(strlen(name) > 6 && strcmp(name + strlen(name) - 6, "_total") == 0, "counter %s without _total",
                              name);
            help_pending = 0;
            continue;
        }
        ck_assert_msg(buf[0] != '#', "stray comment: %s", buf);
        ck_assert_msg(!help_pending, "sample before TYPE: %s", buf);
        /* name */
        size_t i = 0;
        while (is_name_char(buf[i], i == 0))
            i++;
        ck_assert_msg(i > 0, "no metric name: %s", buf);
        char fam[96];
        family_of(buf, i, strcmp(types[nfam - 1], "histogram") == 0 ? "h" : NULL, fam, sizeof(fam));
        ck_assert_msg(strcmp(fam, current) == 0, "sample %s outside its family %s", buf, current);
        /* labels */
        if (buf[i] == '{') {
            i++;
            while (buf[i] != '}') {
                size_t k = i;
                while (is_name_char(buf[i], i == k))
                    i++;
                ck_assert_msg(i > k && buf[i] == '=' && buf[i + 1] == '"', "bad label in %s", buf);
                i += 2;
                while (buf[i] != '"') {
                    ck_assert_msg(buf[i] != '\0' && buf[i] != '\n', "unterminated label value in %s", buf);
                    if (buf[i] == '\\') {
                        ck_assert_msg(buf[i + 1] == '\\' || buf[i + 1] == '"' || buf[i + 1] == 'n', "bad escape in %s", buf);
                        i++;
                    }
                    i++;
                }
                i++;
                if (buf[i] == ',')
                    i++;
                else
                    ck_assert_msg(buf[i] == '}', "bad label list in %s", buf);
            }
            i++;
        }
        ck_assert_msg(buf[i] == ' ', "no space before the value: %s", buf);
        char *end;
        const char *value = buf + i + 1;
        if (strcmp(value, "+Inf") != 0 && strcmp(value, "-Inf") != 0 && strcmp(value, "NaN") != 0) {
            strtod(value, &end);
            ck_assert_msg(end != value && *end == '\0', "bad value in %s", buf);
        }
        /* unique series */
        for (size_t s = 0; s < nseries; s++)
            ck_assert_msg(strncmp(seen_series[s], buf, i) != 0 || seen_series[s][i] != '\0', "duplicate series %.*s", (int)i, buf);
        if (nseries < 2048) {
            snprintf(seen_series[nseries], sizeof(seen_series[nseries]), "%.*s", (int)i, buf);
            nseries++;
        }
        nsamples++;
    }
    return nsamples;
}

static void feed_review(gpa_webhook_t hook, int status, int allowed, const char *rule, gpa_action_t action, uint64_t micros)
{
    gpa_review_t r;
    memset(&r, 0, sizeof(r));
    gpa_violation_t v;
    memset(&v, 0, sizeof(v));
    r.http_status = status;
    r.allowed = allowed;
    if (rule != NULL) {
        v.rule = rule;
        v.action = action;
        r.verdict.violations.items = &v;
        r.verdict.violations.len = 1;
        r.verdict.violations.cap = 1;
    }
    gpa_metrics_review(hook, &r, micros);
}

START_TEST(empty_exposition_is_well_formed)
{
    char *text = render(1000);
    ck_assert_uint_gt(check_grammar(text), 10);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_total{webhook=\"validate\",verdict=\"allowed\"}"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_in_flight"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"mutate\",le=\"+Inf\"}"), 0);
    ck_assert_ptr_nonnull(strstr(text, "# TYPE gpuadmit_request_duration_seconds histogram\n"));
    ck_assert_ptr_nonnull(strstr(text, "# TYPE gpuadmit_requests_in_flight gauge\n"));
    ck_assert_ptr_nonnull(strstr(text, "# TYPE gpuadmit_requests_total counter\n"));
    free(text);
}
END_TEST

START_TEST(every_rule_has_a_findings_series)
{
    char *text = render(0);
    for (size_t r = 0; r < gpa_nrules; r++) {
        char series[256];
        snprintf(series, sizeof(series), "gpuadmit_rule_findings_total{webhook=\"validate\",rule=\"%s\",action=\"warn\"}",
                 gpa_rules[r].id);
        ck_assert_double_eq(sample(text, series), 0);
    }
    free(text);
}
END_TEST

START_TEST(reviews_count_by_verdict_and_rule)
{
    feed_review(GPA_WEBHOOK_VALIDATE, 200, 1, NULL, GPA_ACTION_DENY, 50);
    feed_review(GPA_WEBHOOK_VALIDATE, 200, 0, "min-memory", GPA_ACTION_DENY, 300);
    feed_review(GPA_WEBHOOK_VALIDATE, 200, 1, "min-memory", GPA_ACTION_WARN, 300);
    feed_review(GPA_WEBHOOK_MUTATE, 400, 0, NULL, GPA_ACTION_DENY, 10);
    char *text = render(0);
    check_grammar(text);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_total{webhook=\"validate\",verdict=\"allowed\"}"), 2);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_total{webhook=\"validate\",verdict=\"denied\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_total{webhook=\"mutate\",verdict=\"invalid\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_total{webhook=\"mutate\",verdict=\"allowed\"}"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_rule_findings_total{webhook=\"validate\",rule=\"min-memory\",action=\"deny\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_rule_findings_total{webhook=\"validate\",rule=\"min-memory\",action=\"warn\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_rule_findings_total{webhook=\"mutate\",rule=\"min-memory\",action=\"deny\"}"), 0);
    free(text);
}
END_TEST

START_TEST(histogram_is_cumulative_with_inf_sum_and_count)
{
    /* bounds are inclusive (le): 100 µs lands in le="0.000100" */
    static const uint64_t times[] = {100, 101, 250, 999, 1000000, 1000001, 7000000};
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        feed_review(GPA_WEBHOOK_VALIDATE, 200, 1, NULL, GPA_ACTION_DENY, times[i]);
        total += times[i];
    }
    char *text = render(0);
    check_grammar(text);
    const char *p = "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=";
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=\"0.000100\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=\"0.000250\"}"), 3);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=\"0.001000\"}"), 4);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=\"1.000000\"}"), 5);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_bucket{webhook=\"validate\",le=\"+Inf\"}"), 7);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_count{webhook=\"validate\"}"), 7);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_sum{webhook=\"validate\"}"), (double)total / 1e6);
    ck_assert_double_eq(sample(text, "gpuadmit_request_duration_seconds_count{webhook=\"mutate\"}"), 0);
    /* monotonic, ascending le, +Inf last */
    double last = -1, last_le = -1;
    int inf_seen = 0;
    for (const char *q = strstr(text, p); q != NULL; q = strstr(q + 1, p)) {
        ck_assert_msg(!inf_seen, "a bucket after +Inf");
        const char *le = q + strlen(p) + 1;
        double v = strtod(strchr(le, ' ') + 1, NULL);
        ck_assert_msg(v >= last, "bucket counts must not decrease");
        last = v;
        if (strncmp(le, "+Inf", 4) == 0) {
            inf_seen = 1;
        } else {
            double b = strtod(le, NULL);
            ck_assert_msg(b > last_le, "le must ascend");
            last_le = b;
        }
    }
    ck_assert(inf_seen);
    free(text);
}
END_TEST

START_TEST(gauges_follow_their_calls)
{
    gpa_metrics_inflight_add(1);
    gpa_metrics_inflight_add(1);
    gpa_metrics_inflight_add(-1);
    gpa_metrics_connections_add(3);
    gpa_metrics_set_cert_not_after(5000);
    gpa_metrics_set_ready(1);
    gpa_metrics_reload(GPA_RELOAD_CONFIG, 0);
    gpa_metrics_reload(GPA_RELOAD_CERTIFICATE, 1);
    gpa_metrics_http_rejection(415);
    gpa_metrics_http_rejection(418); /* not a tracked code: ignored */
    gpa_metrics_tls_failure();
    char *text = render(4000);
    check_grammar(text);
    ck_assert_double_eq(sample(text, "gpuadmit_requests_in_flight"), 1);
    ck_assert_int_eq(gpa_metrics_inflight(), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_connections"), 3);
    ck_assert_double_eq(sample(text, "gpuadmit_certificate_expiry_seconds"), 1000);
    ck_assert_double_eq(sample(text, "gpuadmit_ready"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_reloads_total{what=\"config\",result=\"failure\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_reloads_total{what=\"config\",result=\"success\"}"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_reloads_total{what=\"certificate\",result=\"success\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_http_rejections_total{code=\"415\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_http_rejections_total{code=\"404\"}"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_tls_handshake_failures_total"), 1);
    ck_assert_ptr_null(strstr(text, "418"));
    free(text);
    /* an expired certificate reads negative */
    text = render(6000);
    ck_assert_double_eq(sample(text, "gpuadmit_certificate_expiry_seconds"), -1000);
    gpa_metrics_set_ready(0);
    free(text);
    text = render(6000);
    ck_assert_double_eq(sample(text, "gpuadmit_ready"), 0);
    free(text);
}
END_TEST

START_TEST(limits_count_refusals)
{
    ck_assert_int_eq(gpa_metrics_connections_try_add(2), 0);
    ck_assert_int_eq(gpa_metrics_connections_try_add(2), 0);
    ck_assert_int_eq(gpa_metrics_connections_try_add(2), -1); /* at the cap: not counted */
    ck_assert_int_eq(gpa_metrics_connections(), 2);
    gpa_metrics_refused(GPA_LIMIT_CONNECTIONS);
    gpa_metrics_refused(GPA_LIMIT_INFLIGHT_BYTES);
    gpa_metrics_refused(GPA_LIMIT_INFLIGHT_BYTES);
    gpa_metrics_shed();
    gpa_metrics_accept_paused(EMFILE);
    gpa_metrics_accept_paused(EINTR); /* not a reason to pause: ignored */
    gpa_metrics_inflight_bytes_add(5000);
    gpa_metrics_inflight_bytes_add(-1000);
    char *text = render(0);
    check_grammar(text);
    ck_assert_double_eq(sample(text, "gpuadmit_connections_refused_total{limit=\"max-connections\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_connections_refused_total{limit=\"max-inflight-bytes\"}"), 2);
    ck_assert_double_eq(sample(text, "gpuadmit_connections_shed_total"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_accept_pauses_total{reason=\"EMFILE\"}"), 1);
    ck_assert_double_eq(sample(text, "gpuadmit_accept_pauses_total{reason=\"ENFILE\"}"), 0);
    ck_assert_double_eq(sample(text, "gpuadmit_inflight_bytes"), 4000);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webhook_metrics");
    TCase *tc = tcase_create("exposition");
    /* The counters are process-wide: every test runs in its own fork (CK_FORK, Check's default). */
    tcase_add_test(tc, empty_exposition_is_well_formed);
    tcase_add_test(tc, every_rule_has_a_findings_series);
    tcase_add_test(tc, reviews_count_by_verdict_and_rule);
    tcase_add_test(tc, histogram_is_cumulative_with_inf_sum_and_count);
    tcase_add_test(tc, gauges_follow_their_calls);
    tcase_add_test(tc, limits_count_refusals);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
