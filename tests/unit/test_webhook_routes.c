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

int main(void)
{
    Suite *s = suite_create("webhook_routes");
    TCase *tc = tcase_create("match");
    tcase_add_test(tc, paths);
    tcase_add_test(tc, methods);
    tcase_add_test(tc, content_types);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
