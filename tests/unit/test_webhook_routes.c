/*
 * Check tests for webhook/routes.c's request matching, without sockets: the path (as h2o normalizes it, so a
 * query string such as kube-apiserver's ?timeout=10s does not change the route), the method (case-sensitive, as
 * HTTP says), and the Content-Type (application/json in any case, with or without parameters, nothing else).
 * Includes routes.c to reach its static predicates.
 */
#include <check.h>
#include <stdlib.h>

#include "../../webhook/routes.c"
#include "run.h"

typedef struct st_fake_t {
    h2o_req_t req;
} fake_t;

/* A request as h2o's HTTP/1 parser leaves it: path normalized (query cut), method, headers. */
static void fake_init(fake_t *f, const char *method, const char *path, const char *content_type)
{
    memset(f, 0, sizeof(*f));
    h2o_mem_init_pool(&f->req.pool);
    f->req.method = h2o_iovec_init(method, strlen(method));
    f->req.path = h2o_iovec_init(path, strlen(path));
    size_t query_at = SIZE_MAX, *norm_indexes = NULL;
    f->req.path_normalized = h2o_url_normalize_path(&f->req.pool, path, strlen(path), &query_at, &norm_indexes);
    f->req.query_at = query_at;
    if (content_type != NULL)
        h2o_add_header(&f->req.pool, &f->req.headers, H2O_TOKEN_CONTENT_TYPE, NULL, content_type, strlen(content_type));
}

static void fake_dispose(fake_t *f)
{
    h2o_mem_clear_pool(&f->req.pool);
}

START_TEST(paths)
{
    static const struct {
        const char *path, *route;
    } cases[] = {
        {"/validate", "/validate"},
        {"/validate?timeout=10s", "/validate"},
        {"/mutate?timeout=30s&x=/validate", "/mutate"},
        {"/./validate", "/validate"},
        {"/x/../mutate", "/mutate"},
        {"/validate?", "/validate"},
        {"/healthz?verbose", "/healthz"},
        {"/validate/", NULL},
        {"/validatex", NULL},
        {"/VALIDATE", NULL},
        {"/", NULL},
        {"/metrics/x", NULL},
        {"validate", "/validate"}, /* h2o prefixes a relative path with '/' */
    };
    static const char *const routes[] = {"/validate", "/mutate", "/healthz", "/readyz", "/metrics"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_t f;
        fake_init(&f, "POST", cases[i].path, "application/json");
        for (size_t r = 0; r < sizeof(routes) / sizeof(routes[0]); r++) {
            int want = cases[i].route != NULL && strcmp(cases[i].route, routes[r]) == 0;
            ck_assert_msg(path_is(&f.req, routes[r]) == want, "%s matched as %s: %d, want %d", cases[i].path, routes[r],
                          path_is(&f.req, routes[r]), want);
        }
        fake_dispose(&f);
    }
}
END_TEST

START_TEST(methods)
{
    static const char *const others[] = {"post", "PUT", "GET", "HEAD", "POSTX", "POS", ""};
    fake_t f;
    fake_init(&f, "POST", "/validate", "application/json");
    ck_assert(method_is(&f.req, "POST"));
    fake_dispose(&f);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        fake_init(&f, others[i], "/validate", "application/json");
        ck_assert_msg(!method_is(&f.req, "POST"), "%s taken for POST", others[i]);
        fake_dispose(&f);
    }
}
END_TEST

START_TEST(content_types)
{
    static const struct {
        const char *type;
        int json;
    } cases[] = {
        {"application/json", 1},
        {"application/json; charset=utf-8", 1},
        {"application/json;charset=UTF-8", 1},
        {"Application/JSON", 1},
        {"application/json ; charset=utf-8", 1},
        {"application/json\t;q=1", 1},
        {"application/jsonx", 0},
        {"application/json-patch+json", 0},
        {"application/json5", 0},
        {"text/json", 0},
        {"application/yaml", 0},
        {"application/jso", 0},
        {"", 0},
        {NULL, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_t f;
        fake_init(&f, "POST", "/validate", cases[i].type);
        ck_assert_msg(is_json(&f.req) == cases[i].json, "Content-Type \"%s\": %d, want %d",
                      cases[i].type != NULL ? cases[i].type : "(none)", is_json(&f.req), cases[i].json);
        fake_dispose(&f);
    }
}
END_TEST

/* The answer as h2o's connection layer would receive it (the last output stream of the chain). */
typedef struct st_captured_t {
    h2o_ostream_t super;
    int final;
    gpa_buf_t body;
} captured_t;

static void capture_send(h2o_ostream_t *self, h2o_req_t *req, h2o_iovec_t *bufs, size_t n, h2o_send_state_t state)
{
    (void)req;
    captured_t *c = (captured_t *)self;
    for (size_t i = 0; i < n; i++)
        gpa_buf_append(&c->body, bufs[i].base, bufs[i].len);
    c->final = state == H2O_SEND_STATE_FINAL;
}

/*
 * The 503 of --max-inflight-bytes (docs/webhook.md#limits): a review that completes while more than the budget is
 * buffered is answered 503 with Retry-After and its connection closed, before the engine runs. The end-to-end
 * tests cannot reach this state deterministically (docs/webhook.md says why), so it is driven here with the gauge
 * set above the budget.
 */
START_TEST(over_budget_is_503_with_retry_after)
{
    static h2o_pathconf_t no_filters;
    webhook_handler_t h = {.max_body = 4u << 20, .max_inflight = 1u << 20};
    captured_t out = {.super.do_send = capture_send};
    fake_t f;
    fake_init(&f, "POST", "/validate?timeout=10s", "application/json");
    f.req.entity = h2o_iovec_init(H2O_STRLIT("{}"));
    f.req.http1_is_persistent = 1;
    f.req.pathconf = &no_filters;
    f.req._ostr_top = &out.super;
    gpa_metrics_inflight_bytes_add((int64_t)h.max_inflight + 1);
    ck_assert_int_eq(review(&f.req, GPA_WEBHOOK_VALIDATE, &h), 0);
    gpa_metrics_inflight_bytes_add(-((int64_t)h.max_inflight + 1));
    ck_assert_int_eq(f.req.res.status, 503);
    ck_assert_int_eq(f.req.http1_is_persistent, 0); /* closing frees this connection's buffer too */
    ssize_t at = h2o_find_header(&f.req.res.headers, H2O_TOKEN_RETRY_AFTER, -1);
    ck_assert_int_ge(at, 0);
    ck_assert(h2o_memis(f.req.res.headers.entries[at].value.base, f.req.res.headers.entries[at].value.len, H2O_STRLIT("1")));
    ck_assert(out.final);
    ck_assert(h2o_memis(out.body.base, out.body.len, H2O_STRLIT("too many request bytes in flight; retry\n")));
    ck_assert_int_eq(gpa_metrics_inflight(), 0); /* refused before it was counted in flight */
    gpa_buf_dispose(&out.body);
    fake_dispose(&f);
}
END_TEST

/*
 * One review above 1 MiB is judged at a time (docs/webhook.md#limits): another one meanwhile gets 503 with
 * Retry-After, its connection closed, nothing reserved in the byte budget and the flag left to the one judged.
 */
START_TEST(large_review_while_another_is_judged_is_503)
{
    static h2o_pathconf_t no_filters;
    webhook_handler_t h = {.max_body = 4u << 20, .max_inflight = 16u << 20};
    captured_t out = {.super.do_send = capture_send};
    fake_t f;
    fake_init(&f, "POST", "/validate", "application/json");
    size_t len = LARGE_REVIEW + 1;
    char *body = calloc(1, len);
    f.req.entity = h2o_iovec_init(body, len);
    f.req.http1_is_persistent = 1;
    f.req.pathconf = &no_filters;
    f.req._ostr_top = &out.super;
    atomic_store(&judging_large, 1); /* another worker is judging one */
    int64_t before = gpa_metrics_inflight_bytes();
    ck_assert_int_eq(review(&f.req, GPA_WEBHOOK_VALIDATE, &h), 0);
    ck_assert_int_eq(f.req.res.status, 503);
    ck_assert_int_eq(f.req.http1_is_persistent, 0);
    ck_assert_int_ge(h2o_find_header(&f.req.res.headers, H2O_TOKEN_RETRY_AFTER, -1), 0);
    ck_assert(h2o_memis(out.body.base, out.body.len, H2O_STRLIT("another large review is being judged; retry\n")));
    ck_assert_int_eq(gpa_metrics_inflight_bytes(), before);
    ck_assert_int_eq(gpa_metrics_inflight(), 0);
    ck_assert_int_eq(atomic_load(&judging_large), 1); /* still the other one's */
    atomic_store(&judging_large, 0);
    free(body);
    gpa_buf_dispose(&out.body);
    fake_dispose(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webhook_routes");
    TCase *tc = tcase_create("match");
    tcase_add_test(tc, paths);
    tcase_add_test(tc, methods);
    tcase_add_test(tc, content_types);
    suite_add_tcase(s, tc);
    TCase *budget = tcase_create("budget");
    tcase_add_test(budget, over_budget_is_503_with_retry_after);
    tcase_add_test(budget, large_review_while_another_is_judged_is_503);
    suite_add_tcase(s, budget);
    return gpa_test_run(s);
}
