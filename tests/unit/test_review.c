/* Check tests for rules/review.c: AdmissionReview v1/v1beta1 answers, mutating vs validating, every bad input. */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "admission/envelope.h"
#include "document/docs.h"
#include "document/emit.h"
#include "document/patch.h"
#include "fixture.h"
#include "admission/review.h"
#include "run.h"

static gpa_review_t review(gpa_webhook_t hook, const char *body)
{
    gpa_review_t r;
    gpa_review(&arena, cfg, NULL, hook, body, strlen(body), &r);
    ck_assert_uint_eq(r.len, strlen(r.body));
    return r;
}

/* The response, parsed with jansson (an independent reader); checks the envelope and returns `response`. */
static json_t *response(const gpa_review_t *r, const char *api, const char *uid, json_t **root)
{
    ck_assert_int_eq(r->http_status, 200);
    json_error_t jerr;
    *root = json_loadb(r->body, r->len, 0, &jerr);
    ck_assert_msg(*root != NULL, "response is not JSON: %s: %s", jerr.text, r->body);
    ck_assert_str_eq(json_string_value(json_object_get(*root, "apiVersion")), api);
    ck_assert_str_eq(json_string_value(json_object_get(*root, "kind")), "AdmissionReview");
    json_t *resp = json_object_get(*root, "response");
    ck_assert_ptr_nonnull(resp);
    ck_assert_str_eq(json_string_value(json_object_get(resp, "uid")), uid);
    ck_assert(json_is_boolean(json_object_get(resp, "allowed")));
    /* patch and patchType together or neither */
    ck_assert_int_eq(json_object_get(resp, "patch") != NULL, json_object_get(resp, "patchType") != NULL);
    json_t *warnings = json_object_get(resp, "warnings");
    for (size_t i = 0; i < json_array_size(warnings); i++) {
        const char *w = json_string_value(json_array_get(warnings, i));
        ck_assert_uint_lt(strlen(w), 120);
        ck_assert_ptr_null(strchr(w, '\n'));
        ck_assert_int_ne(strncmp(w, "Warning:", 8), 0);
    }
    return resp;
}

static char *unbase64(const char *s)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    ck_assert_int_eq(n % 4, 0);
    char *out = gpa_arena_alloc(&arena, n / 4 * 3 + 1), *w = out;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0;
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            const char *p = s[i + k] == '=' ? NULL : strchr(tab, s[i + k]);
            ck_assert(p != NULL || s[i + k] == '=');
            pad += p == NULL;
            v = v << 6 | (p != NULL ? (unsigned)(p - tab) : 0);
        }
        *w++ = (char)(v >> 16);
        if (pad < 2)
            *w++ = (char)(v >> 8);
        if (pad < 1)
            *w++ = (char)v;
    }
    *w = '\0';
    return out;
}

#define REVIEW_NS(api, op, ns, object, extra)                                                                                      \
    "{\"apiVersion\":\"admission.k8s.io/" api                                                                                      \
    "\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\",\"kind\":{\"group\":\"\","                                       \
    "\"version\":\"v1\",\"kind\":\"Pod\"},\"namespace\":\"" ns "\",\"operation\":\"" op "\",\"object\":" object extra "}}"
#define REVIEW(api, op, object) REVIEW_NS(api, op, "team-a", object, "")
#define POD(containers)                                                                                                            \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[" containers "]}}"
#define C(name, resources) "{\"name\":\"" name "\",\"resources\":" resources "}"
#define RATIO_ONLY C("a", "{\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\"}}")
#define MEM_AND_RATIO C("bad", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}")
#define CLEAN C("ok", "{\"limits\":{\"nvidia.com/gpu\":\"1\"}}")

START_TEST(validate_v1_allowed)
{
    json_t *root;
    gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, REVIEW("v1", "CREATE", POD(CLEAN)));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    ck_assert_ptr_null(json_object_get(resp, "status"));
    ck_assert_ptr_null(json_object_get(resp, "patch"));
    ck_assert_str_eq(r.uid, "u-1");
    ck_assert_str_eq(r.operation, "CREATE");
    ck_assert_str_eq(r.kind, "Pod");
    ck_assert_str_eq(r.ns, "team-a"); /* from request.namespace */
    ck_assert_str_eq(r.name, "p");
    ck_assert_str_eq(r.api_version, "admission.k8s.io/v1");
    ck_assert_int_eq(r.allowed, 1);
    json_decref(root);
}
END_TEST

START_TEST(validate_v1beta1_denied)
{
    json_t *root;
    gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, REVIEW("v1beta1", "CREATE", POD(MEM_AND_RATIO "," CLEAN)));
    json_t *resp = response(&r, "admission.k8s.io/v1beta1", "u-1", &root);
    ck_assert(json_is_false(json_object_get(resp, "allowed")));
    json_t *status = json_object_get(resp, "status");
    ck_assert_int_eq(json_integer_value(json_object_get(status, "code")), 403);
    const char *msg = json_string_value(json_object_get(status, "message"));
    ck_assert_ptr_nonnull(strstr(msg, "bad: memory-ratio-exclusive: "));
    ck_assert_ptr_null(json_object_get(resp, "patch"));
    ck_assert_int_eq(r.allowed, 0);
    ck_assert_int_eq(r.verdict.allowed, 0);
    json_decref(root);
}
END_TEST

START_TEST(validate_never_carries_a_patch)
{
    json_t *root;
    gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, REVIEW("v1", "CREATE", POD(RATIO_ONLY)));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert_ptr_null(json_object_get(resp, "patch"));
    ck_assert_ptr_null(json_object_get(resp, "patchType"));
    json_decref(root);
}
END_TEST

START_TEST(mutate_patch_and_type_together)
{
    json_t *root;
    gpa_review_t r = review(GPA_WEBHOOK_MUTATE, REVIEW("v1", "CREATE", POD(RATIO_ONLY)));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    ck_assert_str_eq(json_string_value(json_object_get(resp, "patchType")), "JSONPatch");
    const char *patch = unbase64(json_string_value(json_object_get(resp, "patch")));
    ck_assert_str_eq(patch, "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests\","
                            "\"value\":{\"koordinator.sh/gpu.shared\":\"1\"}},"
                            "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\","
                            "\"value\":\"1\"}]");
    json_decref(root);
}
END_TEST

START_TEST(mutate_never_denies)
{
    json_t *root;
    gpa_review_t r = review(GPA_WEBHOOK_MUTATE, REVIEW("v1", "CREATE", POD(MEM_AND_RATIO)));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    ck_assert_ptr_null(json_object_get(resp, "patch")); /* the bad container is left alone */
    ck_assert_ptr_null(json_object_get(resp, "patchType"));
    ck_assert_ptr_null(json_object_get(resp, "status"));
    json_decref(root);
}
END_TEST

#define LONG "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"

START_TEST(mutate_warnings_short)
{
    json_t *root;
    gpa_review_t r =
        review(GPA_WEBHOOK_MUTATE, REVIEW("v1", "CREATE", POD(C(LONG LONG, "{\"limits\":{\"koordinator.sh/gpu\":\"30\"}}"))));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert_int_eq(json_array_size(json_object_get(resp, "warnings")), 1);
    json_decref(root);
}
END_TEST

/* A Pod of n containers, each built by `container` from its index, as an AdmissionReview (arena-owned). */
static const char *many_containers(const char *op, size_t n, const char *container)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
                     "\"namespace\":\"team-a\",\"operation\":\"");
    gpa_buf_puts(&b, op);
    gpa_buf_puts(&b,
                 "\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[");
    for (size_t i = 0; i < n; i++) {
        char one[256];
        snprintf(one, sizeof(one), container, i);
        if (i != 0)
            gpa_buf_putc(&b, ',');
        gpa_buf_puts(&b, one);
    }
    gpa_buf_puts(&b, "]}}}}");
    const char *out = gpa_arena_strndup(&arena, b.base, b.len);
    gpa_buf_dispose(&b);
    return out;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* status.message and the warnings list name 20 findings each, then "and N more"; the verdict keeps them all. */
START_TEST(findings_capped_at_20)
{
    json_t *root;
    gpa_review_t r =
        review(GPA_WEBHOOK_VALIDATE, many_containers("CREATE", 25, C("c%zu", "{\"limits\":{\"nvidia.com/gpu\":\"0.5\"}}")));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_false(json_object_get(resp, "allowed")));
    ck_assert_uint_eq(r.verdict.violations.len, 25);
    const char *msg = json_string_value(json_object_get(json_object_get(resp, "status"), "message"));
    ck_assert_uint_eq(count(msg, "malformed-quantity"), GPA_REVIEW_MAX_FINDINGS);
    ck_assert_msg(strstr(msg, "c19: ") != NULL && strstr(msg, "c20: ") == NULL, "%s", msg);
    ck_assert_msg(strlen(msg) > 12 && strcmp(msg + strlen(msg) - 12, "; and 5 more") == 0, "%s", msg);
    json_decref(root);

    r = review(GPA_WEBHOOK_MUTATE, many_containers("CREATE", 23, C("c%zu", "{\"limits\":{\"koordinator.sh/gpu\":\"30\"}}")));
    resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert_uint_eq(r.verdict.warnings.len, 23);
    json_t *warnings = json_object_get(resp, "warnings");
    ck_assert_uint_eq(json_array_size(warnings), GPA_REVIEW_MAX_FINDINGS + 1);
    ck_assert_str_eq(json_string_value(json_array_get(warnings, GPA_REVIEW_MAX_FINDINGS)), "and 3 more");
    json_decref(root);

    /* Exactly 20: no "more". */
    r = review(GPA_WEBHOOK_VALIDATE, many_containers("CREATE", 20, C("c%zu", "{\"limits\":{\"nvidia.com/gpu\":\"0.5\"}}")));
    resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    msg = json_string_value(json_object_get(json_object_get(resp, "status"), "message"));
    ck_assert_uint_eq(count(msg, "malformed-quantity"), 20);
    ck_assert_ptr_null(strstr(msg, "more"));
    json_decref(root);
}
END_TEST

/* A review of thousands of rule-breaking containers is judged in a bounded arena: the body, its tree and the answer
 * (bytes the arena counts, held for the review in an arena of its own) stay under BREAKING_REVIEW_BYTES as the webhook
 * runs it (gpa_review_with holds the 20 findings it prints and counts the rest), and the denial names the first 20
 * with the count of the rest, as gpa_review's does holding all of them. */
#define BREAKING_CONTAINERS 10000
#define BREAKING_REVIEW_BYTES                                                                                                      \
    (8u << 20) /* measured 7,005,600 (9,706,656 with every finding held and each container's                                       \
                  resources paths kept, 12,113,952 with each message copied as well) */
START_TEST(breaking_review_bounded_in_arena_bytes)
{
    const char *body = many_containers("CREATE", BREAKING_CONTAINERS, C("c%06zu", "{\"limits\":{\"nvidia.com/gpu\":\"0.5\"}}"));
    gpa_arena_t own;
    gpa_arena_init(&own);
    gpa_review_t r, all;
    gpa_review_with(&own, cfg, NULL, NULL, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &r);
    ck_assert_uint_lt(gpa_arena_peak(&own), BREAKING_REVIEW_BYTES);
    ck_assert(!r.allowed);
    ck_assert_uint_eq(r.verdict.violations.len, GPA_REVIEW_MAX_FINDINGS);
    ck_assert_uint_eq(gpa_violations_omitted(&r.verdict.violations, GPA_ACTION_DENY),
                      BREAKING_CONTAINERS - GPA_REVIEW_MAX_FINDINGS);
    ck_assert_uint_eq(count(r.body, "malformed-quantity"), GPA_REVIEW_MAX_FINDINGS);
    ck_assert_msg(strstr(r.body, "c000019: ") != NULL && strstr(r.body, "c000020: ") == NULL, "%s", r.body);
    char more[64];
    snprintf(more, sizeof(more), "; and %d more\"", BREAKING_CONTAINERS - GPA_REVIEW_MAX_FINDINGS);
    ck_assert_msg(strstr(r.body, more) != NULL, "%s", r.body);
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &all);
    ck_assert_uint_eq(all.verdict.violations.len, BREAKING_CONTAINERS);
    ck_assert_uint_eq(all.verdict.violations.omitted.len, 0);
    ck_assert_str_eq(all.body, r.body);
    gpa_arena_dispose(&own);
}
END_TEST

/* Findings at warn past the 20 an answer prints are counted, not held: the same warnings and "and N more" as when
 * every one is held, the Pod admitted; a deny finding past them still denies. */
START_TEST(warn_findings_counted_past_20)
{
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    gpa_config_release(cfg);
    const char *text = "rules: {malformed-quantity: warn}\n";
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "c.yaml", &cfg, &err), 0);
    const char *body = many_containers("CREATE", 27, C("c%zu", "{\"limits\":{\"nvidia.com/gpu\":\"0.5\"}}"));
    gpa_review_t held, counted;
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &held);
    gpa_review_with(&arena, cfg, NULL, NULL, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &counted);
    ck_assert(counted.allowed);
    ck_assert_uint_eq(held.verdict.warnings.len, 27);
    ck_assert_uint_eq(counted.verdict.warnings.len, GPA_REVIEW_MAX_FINDINGS);
    ck_assert_uint_eq(gpa_violations_omitted(&counted.verdict.violations, GPA_ACTION_WARN), 7);
    ck_assert_str_eq(held.body, counted.body);
    ck_assert_msg(strstr(counted.body, "\"and 7 more\"]") != NULL, "%s", counted.body);
}
END_TEST

/* The answer to `body` with the webhook's filter is the answer without it, byte for byte, for both webhooks. */
static size_t compared;

static void same_answer_filtered(const char *body, size_t len, const char *what)
{
    gpa_json_filter_t *f = gpa_review_filter(&arena, cfg);
    for (int hook = GPA_WEBHOOK_VALIDATE; hook <= GPA_WEBHOOK_MUTATE; hook++) {
        gpa_review_t whole, filtered;
        gpa_review(&arena, cfg, NULL, (gpa_webhook_t)hook, body, len, &whole);
        gpa_review_with(&arena, cfg, NULL, NULL, f, (gpa_webhook_t)hook, body, len, &filtered);
        ck_assert_int_eq(whole.http_status, filtered.http_status);
        ck_assert_msg(whole.len == filtered.len && memcmp(whole.body, filtered.body, whole.len) == 0, "%s:\n%s\n%s", what,
                      whole.body, filtered.body);
    }
    compared++;
}

/* Every object of `path` (a YAML or JSON file), sent as CREATE and as UPDATE of itself; a review as it is. */
static void same_answers_for_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof(text) - 1, fp);
    fclose(fp);
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    if (gpa_docs_parse(&arena, text, len, &docs, &err) != 0)
        return;
    for (size_t i = 0; i < docs.len; i++) {
        gpa_buf_t obj = GPA_BUF_INIT, body = GPA_BUF_INIT;
        gpa_value_emit_json(&obj, docs.docs[i], 0);
        if (gpa_envelope_is_review(docs.docs[i])) {
            same_answer_filtered(obj.base, obj.len, path);
        } else {
            for (int update = 0; update < 2; update++) {
                body.len = 0;
                gpa_buf_puts(&body,
                             "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\","
                             "\"namespace\":\"team-a\",\"operation\":");
                gpa_buf_puts(&body, update ? "\"UPDATE\",\"oldObject\":" : "\"CREATE\",\"object\":");
                gpa_buf_append(&body, obj.base, obj.len);
                if (update) {
                    gpa_buf_puts(&body, ",\"object\":");
                    gpa_buf_append(&body, obj.base, obj.len);
                }
                gpa_buf_puts(&body, "}}");
                same_answer_filtered(body.base, body.len, path);
            }
        }
        gpa_buf_dispose(&obj);
        gpa_buf_dispose(&body);
    }
}

static void same_answers_under(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "%s", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t n = strlen(path);
        if (e->d_name[0] == '.')
            continue;
        if (e->d_type == DT_DIR)
            same_answers_under(path);
        else if (n > 5 && (strcmp(path + n - 5, ".yaml") == 0 || strcmp(path + n - 5, ".json") == 0))
            same_answers_for_file(path);
        gpa_arena_clear(&arena);
    }
    closedir(d);
}

/* What the webhook builds of a review (gpa_review_filter) changes no answer: every example, case and fuzz seed. */
START_TEST(filtered_answers_are_the_same)
{
    static const char *const dirs[] = {"examples", "tests/cases", "tests/fuzz/seeds/review", "tests/fuzz/seeds/decode"};
    const char *src = getenv("GPA_SOURCE_DIR");
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char root[1024];
        snprintf(root, sizeof(root), "%s/%s", src != NULL ? src : ".", dirs[i]);
        same_answers_under(root);
    }
    ck_assert_uint_gt(compared, 100);
}
END_TEST

START_TEST(update_and_delete)
{
    json_t *root;
    /* UPDATE: the old object already had the finding. */
    gpa_review_t r =
        review(GPA_WEBHOOK_VALIDATE, REVIEW_NS("v1", "UPDATE", "team-a", POD(MEM_AND_RATIO), ",\"oldObject\":" POD(MEM_AND_RATIO)));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    json_decref(root);
    /* UPDATE without oldObject is unreadable. */
    r = review(GPA_WEBHOOK_VALIDATE, REVIEW("v1", "UPDATE", POD(CLEAN)));
    ck_assert_int_eq(r.http_status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "request.oldObject"));
    /* DELETE: admitted, object null. */
    r = review(GPA_WEBHOOK_VALIDATE, REVIEW_NS("v1", "DELETE", "team-a", "null", ",\"oldObject\":" POD(MEM_AND_RATIO)));
    resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    ck_assert_str_eq(r.operation, "DELETE");
    json_decref(root);
}
END_TEST

START_TEST(request_namespace_fills_object)
{
    json_t *root;
    /* The object has no namespace; the request says kube-system, which is excluded. */
    gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, REVIEW_NS("v1", "CREATE", "kube-system", POD(MEM_AND_RATIO), ""));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    ck_assert_str_eq(r.ns, "kube-system");
    json_decref(root);
}
END_TEST

#define POD_NS(ns, containers)                                                                                                     \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                                     \
    "\"},\"spec\":{\"containers\":[" containers "]}}"

START_TEST(request_namespace_wins_over_object)
{
    json_t *root;
    /* Created in team-a, but the object claims an excluded namespace: the request's namespace is where it is stored,
     * so the object is checked (and denied), not skipped. */
    gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, REVIEW_NS("v1", "CREATE", "team-a", POD_NS("kube-system", MEM_AND_RATIO), ""));
    json_t *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_false(json_object_get(resp, "allowed")));
    ck_assert_str_eq(r.ns, "team-a");
    json_decref(root);
    /* And the other way round: an object in kube-system that says team-a is excluded. */
    r = review(GPA_WEBHOOK_VALIDATE, REVIEW_NS("v1", "CREATE", "kube-system", POD_NS("team-a", MEM_AND_RATIO), ""));
    resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    json_decref(root);
}
END_TEST

typedef struct st_bad_t {
    const char *body;
    const char *needle; /* must appear in the 400 reason */
} bad_t;

static const bad_t bad_inputs[] = {
    {"", "not JSON"},
    {"{", "not JSON"},
    {"not json at all", "not JSON"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"x\"", "not JSON"},
    {"[]", "(root)"},
    {"{\"kind\":\"AdmissionReview\",\"request\":{}}", "apiVersion"},
    {"{\"apiVersion\":\"admission.k8s.io/v2\",\"kind\":\"AdmissionReview\",\"request\":{}}", "apiVersion"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Pod\",\"request\":{}}", "kind"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", "request: missing"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":[]}", "request: must be an object"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"operation\":\"CREATE\"}}", "request.uid"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"\"}}", "request.uid"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":7}}", "request.uid"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}", "request.operation"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":\"PATCH\"}}",
     "request.operation"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\"}}",
     "request.object: missing"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\","
     "\"object\":\"pod\"}}",
     "request.object: must be an object"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\","
     "\"namespace\":5,\"object\":{}}}",
     "request.namespace"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":\"UPDATE\","
     "\"object\":{},\"oldObject\":[]}}",
     "request.oldObject"},
};

START_TEST(bad_input_is_400)
{
    const bad_t *b = &bad_inputs[_i];
    for (int hook = GPA_WEBHOOK_VALIDATE; hook <= GPA_WEBHOOK_MUTATE; hook++) {
        gpa_review_t r = review((gpa_webhook_t)hook, b->body);
        ck_assert_msg(r.http_status == 400, "%s: status %d", b->body, r.http_status);
        ck_assert_msg(strstr(r.body, b->needle) != NULL, "reason \"%s\" lacks \"%s\"", r.body, b->needle);
        ck_assert_ptr_null(strchr(r.body, '\n'));
        ck_assert_int_eq(r.allowed, 0);
    }
}
END_TEST

/* A well-formed review whose object has a bad shape on a path gpuadmit needs: HTTP 200, denied with code 400 and
 * the path (both webhooks), so kube-apiserver shows the reason; a bad shape elsewhere, or in a kind not read, passes. */
START_TEST(unreadable_object_is_denied_with_code_400)
{
    static const struct {
        const char *object, *path;
    } cases[] = {
        {"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":\"x\"}}",
         "request.object.spec.containers: must be a list"},
        {"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{},\"spec\":null,\"containers\":[]}",
         "request.object.spec.containers: missing"},
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayService\",\"spec\":{\"rayClusterConfig\":{\"workerGroupSpecs\":{}}}}",
         "request.object.spec.rayClusterConfig.workerGroupSpecs: must be a list"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int hook = GPA_WEBHOOK_VALIDATE; hook <= GPA_WEBHOOK_MUTATE; hook++) {
            const char *body = gpa_arena_printf(&arena, REVIEW("v1", "CREATE", "%s"), cases[i].object);
            gpa_review_t r = review((gpa_webhook_t)hook, body);
            json_t *root, *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
            ck_assert(json_is_false(json_object_get(resp, "allowed")));
            json_t *status = json_object_get(resp, "status");
            ck_assert_int_eq(json_integer_value(json_object_get(status, "code")), 400);
            const char *msg = json_string_value(json_object_get(status, "message"));
            ck_assert_msg(strstr(msg, cases[i].path) != NULL, "%s lacks %s", msg, cases[i].path);
            ck_assert_ptr_null(json_object_get(resp, "patch"));
            json_decref(root);
        }
    static const char *const fine[] = {
        ("{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"labels\":{\"a\":true}},\"spec\":{\"headGroupSpec\":"
         "{\"template\":{\"spec\":{\"nodeSelector\":{\"gpu\":1},\"containers\":[{\"name\":\"head\"}]}}}}}"), /* one string */
        "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{\"annotations\":{\"a\":[1]}}}",
        "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Deployment\",\"spec\":{\"template\":7}}",
    };
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
        gpa_review_t r = review(GPA_WEBHOOK_VALIDATE, gpa_arena_printf(&arena, REVIEW("v1", "CREATE", "%s"), fine[i]));
        json_t *root, *resp = response(&r, "admission.k8s.io/v1", "u-1", &root);
        ck_assert_msg(json_is_true(json_object_get(resp, "allowed")), "%s: %s", fine[i], r.body);
        json_decref(root);
    }
}
END_TEST

START_TEST(null_body)
{
    gpa_review_t r;
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_VALIDATE, NULL, 0, &r);
    ck_assert_int_eq(r.http_status, 400);
}
END_TEST

/* The benchmark review parses and answers (a realistic 5 KB Pod). */
START_TEST(bench_review_file)
{
    const char *dir = getenv("GPA_BENCH_REVIEW");
    const char *path = dir != NULL ? dir : "/work/shared/bench/review-pod-5k.json";
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return; /* not on this machine */
    char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    json_t *root;
    gpa_review_t r;
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_MUTATE, buf, n, &r);
    json_t *resp = response(&r, "admission.k8s.io/v1", "705ab4f5-6393-11e8-b7cc-42010a800002", &root);
    ck_assert(json_is_true(json_object_get(resp, "allowed")));
    json_decref(root);
    gpa_review(&arena, cfg, NULL, GPA_WEBHOOK_VALIDATE, buf, n, &r);
    response(&r, "admission.k8s.io/v1", "705ab4f5-6393-11e8-b7cc-42010a800002", &root);
    json_decref(root);
}
END_TEST

/* Every prefix and a spread of one-byte corruptions of a real review: a clean 200 or 400, never a crash. */
START_TEST(truncated_and_corrupted_everywhere)
{
    FILE *f = fopen("/work/shared/bench/review-pod-5k.json", "rb");
    if (f == NULL)
        return;
    static char buf[65536], copy[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    for (size_t len = 0; len < n; len++) {
        gpa_review_t r;
        gpa_review(&arena, cfg, NULL, (gpa_webhook_t)(len & 1), buf, len, &r);
        ck_assert_msg(r.http_status == 400 || r.http_status == 200, "prefix %zu: status %d", len, r.http_status);
        gpa_arena_clear(&arena);
    }
    static const char bytes[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '0', 'x', '\0', (char)0xff};
    for (size_t pos = 0; pos < n; pos += 7) {
        memcpy(copy, buf, n);
        copy[pos] = bytes[pos % sizeof(bytes)];
        gpa_review_t r;
        gpa_review(&arena, cfg, NULL, (gpa_webhook_t)(pos & 1), copy, n, &r);
        ck_assert_msg(r.http_status == 400 || r.http_status == 200, "byte %zu: status %d", pos, r.http_status);
        if (r.http_status == 200)
            ck_assert_ptr_nonnull(strstr(r.body, "\"response\""));
        gpa_arena_clear(&arena);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("review");
    TCase *tc = tcase_create("review");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, validate_v1_allowed);
    tcase_add_test(tc, validate_v1beta1_denied);
    tcase_add_test(tc, validate_never_carries_a_patch);
    tcase_add_test(tc, mutate_patch_and_type_together);
    tcase_add_test(tc, mutate_never_denies);
    tcase_add_test(tc, mutate_warnings_short);
    tcase_add_test(tc, findings_capped_at_20);
    tcase_add_test(tc, breaking_review_bounded_in_arena_bytes);
    tcase_add_test(tc, warn_findings_counted_past_20);
    tcase_add_test(tc, filtered_answers_are_the_same);
    tcase_add_test(tc, update_and_delete);
    tcase_add_test(tc, request_namespace_fills_object);
    tcase_add_test(tc, request_namespace_wins_over_object);
    tcase_add_loop_test(tc, bad_input_is_400, 0, (int)(sizeof(bad_inputs) / sizeof(bad_inputs[0])));
    tcase_add_test(tc, unreadable_object_is_denied_with_code_400);
    tcase_add_test(tc, null_body);
    tcase_add_test(tc, bench_review_file);
    tcase_add_test(tc, truncated_and_corrupted_everywhere);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
