/*
 * Check tests for the validation rules (rules/rules*.c): the table, and every rule firing and not firing at
 * its boundaries, through the public API (gpa_validate_object, gpa_validate_container). Objects are written as
 * JSON with single quotes (turned into double quotes before parsing) and decoded as the front ends do.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/config.h"
#include "kube/decode.h"
#include "inventory/inventory.h"
#include "policy/rules.h"
#include "policy/validate.h"
#include "document/value.h"
#include "document/json.h"
#include "run.h"

static gpa_arena_t A;
static gpa_config_t *CFG;
static gpa_violations_t V;

static void setup(void)
{
    gpa_arena_init(&A);
    CFG = gpa_config_default();
    memset(&V, 0, sizeof(V));
}

static void teardown(void)
{
    gpa_config_release(CFG);
    gpa_arena_dispose(&A);
}

static gpa_object_t *decode(const char *squoted)
{
    char *json = gpa_arena_strdup(&A, squoted);
    for (char *p = json; *p != '\0'; p++)
        if (*p == '\'')
            *p = '"';
    gpa_value_t *doc;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    if (gpa_json_parse(&A, json, strlen(json), &doc, &err) != 0 || gpa_decode_object_with(&A, &CFG->decode, doc, &obj, &err) != 0)
        ck_abort_msg("cannot read test object: %s at %u:%u: %s", err.message, err.line, err.column, json);
    return obj;
}

/* A Pod whose spec.containers is `containers` (JSON array text) and whose annotations are `ann` (map text). */
static gpa_object_t *pod_with(const char *ann, const char *containers, const char *init)
{
    char buf[8192];
    snprintf(buf, sizeof(buf),
             "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'default','annotations':%s},"
             "'spec':{'containers':%s,'initContainers':%s}}",
             ann != NULL ? ann : "{}", containers, init != NULL ? init : "[]");
    return decode(buf);
}

/* A container named `name` whose requests and limits are both `res` (map text). */
static const char *ctr(const char *name, const char *res)
{
    return gpa_arena_printf(&A, "{'name':'%s','resources':{'requests':%s,'limits':%s}}", name, res, res);
}

static const char *list2(const char *a, const char *b)
{
    return gpa_arena_printf(&A, "[%s,%s]", a, b);
}

static const char *list1(const char *a)
{
    return gpa_arena_printf(&A, "[%s]", a);
}

static size_t validate(const gpa_object_t *obj)
{
    memset(&V, 0, sizeof(V));
    gpa_validate_object(&A, CFG, NULL, NULL, obj, &V);
    return V.len;
}

/* Validates a one-container Pod with resources `res`. */
static size_t one(const char *res)
{
    return validate(pod_with(NULL, list1(ctr("c0", res)), NULL));
}

static size_t hits(const char *rule)
{
    size_t n = 0;
    for (size_t i = 0; i < V.len; i++)
        n += strcmp(V.items[i].rule, rule) == 0;
    return n;
}

static const gpa_violation_t *first(const char *rule)
{
    for (size_t i = 0; i < V.len; i++)
        if (strcmp(V.items[i].rule, rule) == 0)
            return &V.items[i];
    ck_abort_msg("no finding of %s", rule);
    return NULL;
}

static void dump(void)
{
    for (size_t i = 0; i < V.len; i++)
        fprintf(stderr, "  %s [%s] %s: %s\n", V.items[i].rule, V.items[i].container ? V.items[i].container : "-", V.items[i].path,
                V.items[i].message);
}

/* Exactly these findings, by rule id (a space-separated list, each id once per expected finding). */
static void expect(const char *ids)
{
    size_t n = 0;
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", ids);
    for (char *tok = strtok(copy, " "); tok != NULL; tok = strtok(NULL, " ")) {
        n++;
        if (hits(tok) == 0) {
            dump();
            ck_abort_msg("expected %s", tok);
        }
    }
    if (n != V.len) {
        dump();
        ck_abort_msg("expected %zu findings (%s), got %zu", n, ids, V.len);
    }
}

/* Validates a Pod and expects exactly `ids` (expect's form; "" for none). */
static void expect_pod(const char *ann, const char *containers, const char *init, const char *ids)
{
    validate(pod_with(ann, containers, init));
    expect(ids);
}

static void set_action(const char *rule, gpa_action_t action)
{
    int i = gpa_rule_index(rule);
    ck_assert_int_ge(i, 0);
    CFG->actions[i] = action;
}

/* ---- the table ---- */

START_TEST(table_ids_unique_and_documented)
{
    ck_assert_uint_eq(gpa_nrules, 36);
    for (size_t i = 0; i < gpa_nrules; i++) {
        /* a rule checks Pods, or resource.k8s.io objects (scope OBJECT: on_dra alone) */
        ck_assert(gpa_rules[i].check != NULL || (gpa_rules[i].scope == GPA_SCOPE_OBJECT && gpa_rules[i].on_dra != NULL));
        ck_assert(gpa_rules[i].doc != NULL && strlen(gpa_rules[i].doc) > 10);
        ck_assert_uint_ne(gpa_rules[i].dialects, 0);
        ck_assert_int_eq(gpa_rule_index(gpa_rules[i].id), (int)i);
        for (size_t j = i + 1; j < gpa_nrules; j++)
            ck_assert_str_ne(gpa_rules[i].id, gpa_rules[j].id);
    }
    ck_assert_int_eq(gpa_rule_index("no-such-rule"), -1);
    static const char *spec_ids[] = {
        "malformed-quantity",      "request-limit-mismatch", "vendor-vs-share", "mixed-share-apis",     "memory-ratio-exclusive",
        "core-without-memory",     "shared-without-memory",  "shared-required", "deprecated-gpu-mixed", "non-positive",
        "multi-card-divisibility", "per-device-over-100",    "min-memory",      "full-card-memory",     "card-count-mismatch",
        "invalid-card-count",      "ambiguous-unit",         "infeasible"};
    for (size_t i = 0; i < sizeof(spec_ids) / sizeof(spec_ids[0]); i++)
        ck_assert_int_ge(gpa_rule_index(spec_ids[i]), 0);
}
END_TEST

START_TEST(valid_requests_pass)
{
    ck_assert_uint_eq(one("{'nvidia.com/gpu':'2'}"), 0);
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}"), 0);
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-memory-ratio':'200','koordinator.sh/gpu.shared':'2'}"), 0);
    ck_assert_uint_eq(one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'4096'}"), 0);
    ck_assert_uint_eq(one("{'vke.volcengine.com/mgpu-core':'200'}"), 0);
    ck_assert_uint_eq(one("{'cpu':'1','memory':'1Gi'}"), 0);
    /* the deprecated form alone is for expand-gpu to rewrite, not a violation */
    ck_assert_uint_eq(one("{'koordinator.sh/gpu':'50'}"), 0);
}
END_TEST

/* ---- malformed-quantity, request-limit-mismatch ---- */

START_TEST(malformed_quantity)
{
    one("{'nvidia.com/gpu':'1.5'}");
    expect("malformed-quantity"); /* the same text in request and limit is one mistake */
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"nvidia.com/gpu\"]");
    ck_assert_str_eq(V.items[0].container, "c0");
    ck_assert_str_eq(V.items[0].resources[0], "nvidia.com/gpu");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "not a whole number"));
    /* different bad texts: each at its own path */
    validate(
        pod_with(NULL, "[{'name':'c0','resources':{'requests':{'nvidia.com/gpu':'x'},'limits':{'nvidia.com/gpu':'y'}}}]", NULL));
    expect("malformed-quantity malformed-quantity");
    ck_assert_str_eq(V.items[1].path, "spec.containers[0].resources.limits[\"nvidia.com/gpu\"]");
    /* a bad limit beside a good request still counts */
    validate(
        pod_with(NULL, "[{'name':'c0','resources':{'requests':{'nvidia.com/gpu':'1'},'limits':{'nvidia.com/gpu':'1.5'}}}]", NULL));
    expect("malformed-quantity");
    one("{'koordinator.sh/gpu-memory':'lots','koordinator.sh/gpu.shared':'1'}");
    expect("malformed-quantity");
    one("{'nvidia.com/gpu':'99999999999999999999'}");
    expect("malformed-quantity");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "64 bits"));
    one("{'nvidia.com/gpu':true}");
    expect("malformed-quantity");
    /* 1000m is exactly 1; a number value is fine */
    ck_assert_uint_eq(one("{'nvidia.com/gpu':'1000m'}"), 0);
    ck_assert_uint_eq(one("{'nvidia.com/gpu':1}"), 0);
}
END_TEST

START_TEST(request_limit_mismatch)
{
    validate(
        pod_with(NULL, "[{'name':'c0','resources':{'requests':{'nvidia.com/gpu':'1'},'limits':{'nvidia.com/gpu':'2'}}}]", NULL));
    expect("request-limit-mismatch");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"nvidia.com/gpu\"]");
    validate(pod_with(NULL, "[{'name':'c0','resources':{'requests':{'nvidia.com/gpu':'1'},'limits':{'nvidia.com/gpu':'1000m'}}}]",
                      NULL));
    expect("");
    /* a limit alone is the amount */
    validate(pod_with(NULL, "[{'name':'c0','resources':{'limits':{'nvidia.com/gpu':'1'}}}]", NULL));
    expect("");
}
END_TEST

/* ---- vendor-vs-share, mixed-share-apis ---- */

START_TEST(vendor_vs_share)
{
    one("{'nvidia.com/gpu':'1','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}");
    expect("vendor-vs-share");
    ck_assert_str_eq(V.items[0].container, "c0");
    ck_assert_str_eq(V.items[0].resources[0], "nvidia.com/gpu");
    validate(pod_with(NULL,
                      list2(ctr("a", "{'nvidia.com/gpu':'1'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}")),
                      NULL));
    expect("vendor-vs-share");
    ck_assert_ptr_null(V.items[0].container);
    ck_assert_str_eq(V.items[0].path, "spec");
    /* an init container counts too */
    validate(pod_with(NULL, list1(ctr("a", "{'nvidia.com/gpu':'1'}")),
                      list1(ctr("i", "{'koordinator.sh/gpu-memory':'1Gi','koordinator.sh/gpu.shared':'1'}"))));
    expect("vendor-vs-share");
    /* declared as 0 is not declared */
    one("{'nvidia.com/gpu':'0','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}");
    expect("");
    /* a disabled dialect is not seen */
    CFG->dialects = GPA_DIALECT_VENDOR;
    one("{'nvidia.com/gpu':'1','koordinator.sh/gpu-memory':'8Gi'}");
    expect("");
}
END_TEST

START_TEST(mixed_share_apis)
{
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}")),
                      NULL));
    expect("mixed-share-apis");
    CFG->dialects = GPA_DIALECT_KOORDINATOR | GPA_DIALECT_VENDOR;
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}")),
                      NULL));
    expect("");
}
END_TEST

/* ---- Koordinator forms ---- */

START_TEST(memory_ratio_exclusive)
{
    one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}");
    expect("memory-ratio-exclusive"); /* once: the Pod-level view does not repeat a single container */
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources");
    ck_assert_str_eq(V.items[0].container, "c0");
    /* across containers: the scheduler's Pod total */
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}")),
                      NULL));
    expect("memory-ratio-exclusive");
    ck_assert_ptr_null(V.items[0].container);
    ck_assert_str_eq(V.items[0].path, "spec");
    /* 0 is not declared */
    one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-memory-ratio':'0','koordinator.sh/gpu.shared':'1'}");
    expect("");
}
END_TEST

START_TEST(core_and_shared_without_memory)
{
    one("{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}");
    expect("core-without-memory shared-without-memory");
    ck_assert_str_eq(first("core-without-memory")->path, "spec.containers[0].resources.requests[\"koordinator.sh/gpu-core\"]");
    one("{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}");
    expect("");
    one("{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu-memory':'0','koordinator.sh/gpu.shared':'1'}");
    expect("core-without-memory shared-without-memory");
    one("{'koordinator.sh/gpu.shared':'2'}");
    expect("shared-without-memory");
}
END_TEST

START_TEST(shared_required)
{
    one("{'koordinator.sh/gpu-memory':'8Gi'}");
    expect("shared-required");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "gpu.shared"));
    one("{'koordinator.sh/gpu-memory-ratio':'200'}");
    expect("shared-required");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "\"2\"")); /* the derivation inject-gpu-shared uses */
    /* a container breaking another rule is told that instead */
    one("{'koordinator.sh/gpu-memory':'4'}");
    expect("min-memory");
    one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-memory-ratio':'50'}");
    expect("memory-ratio-exclusive");
    /* ...unless that rule is off: the predicate counts rules that are not off */
    set_action("min-memory", GPA_ACTION_OFF);
    one("{'koordinator.sh/gpu-memory':'4'}");
    expect("shared-required");
}
END_TEST

START_TEST(deprecated_gpu_mixed)
{
    one("{'koordinator.sh/gpu':'50','koordinator.sh/gpu-core':'50','koordinator.sh/gpu-memory-ratio':'50'}");
    expect("deprecated-gpu-mixed");
    ck_assert_str_eq(V.items[0].resources[0], "koordinator.sh/gpu");
    one("{'koordinator.sh/gpu':'50','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}");
    expect("deprecated-gpu-mixed");
    one("{'koordinator.sh/gpu':'200'}");
    expect("");
}
END_TEST

/* ---- non-positive ---- */

START_TEST(non_positive)
{
    one("{'nvidia.com/gpu':'-1'}");
    expect("non-positive");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"nvidia.com/gpu\"]");
    one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'0'}");
    expect("non-positive");
    one("{'koordinator.sh/gpu':'0'}");
    expect("non-positive");
    one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'-2'}");
    expect("non-positive");
    one("{'vke.volcengine.com/mgpu-core':'0','vke.volcengine.com/mgpu-memory':'1024'}");
    expect("non-positive");
    one("{'vke.volcengine.com/mgpu-memory':'1024'}");
    expect("non-positive");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources");
    /* other resources declared as 0 count as not declared */
    ck_assert_uint_eq(one("{'nvidia.com/gpu':'0'}"), 0);
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-core':'0','koordinator.sh/gpu.shared':'1'}"), 0);
}
END_TEST

/* ---- multi-card-divisibility, per-device-over-100 ---- */

START_TEST(koord_divisibility_with_shared)
{
    one("{'koordinator.sh/gpu-memory-ratio':'100','koordinator.sh/gpu-core':'100','koordinator.sh/gpu.shared':'4'}");
    expect("");
    one("{'koordinator.sh/gpu-memory-ratio':'100','koordinator.sh/gpu-core':'150','koordinator.sh/gpu.shared':'4'}");
    expect("multi-card-divisibility");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"koordinator.sh/gpu-core\"]");
    one("{'koordinator.sh/gpu-memory-ratio':'130','koordinator.sh/gpu.shared':'3'}");
    expect("multi-card-divisibility");
    /* memory in bytes splits as ceil(memory/n): no divisibility needed */
    one("{'koordinator.sh/gpu-memory':'1000000001','koordinator.sh/gpu.shared':'3'}");
    expect("");
}
END_TEST

START_TEST(koord_divisibility_without_shared)
{
    set_action("shared-required", GPA_ACTION_OFF);
    one("{'koordinator.sh/gpu-memory-ratio':'200'}");
    expect("");
    one("{'koordinator.sh/gpu-memory-ratio':'150'}");
    expect("multi-card-divisibility");
    one("{'koordinator.sh/gpu':'150'}");
    expect("multi-card-divisibility");
    one("{'koordinator.sh/gpu':'100'}");
    expect("");
    /* ratio 300 asks for 3 devices: core 100 does not split over them */
    one("{'koordinator.sh/gpu-memory-ratio':'300','koordinator.sh/gpu-core':'100'}");
    expect("multi-card-divisibility");
}
END_TEST

START_TEST(koord_per_device)
{
    one("{'koordinator.sh/gpu-memory-ratio':'100','koordinator.sh/gpu.shared':'1'}");
    expect("");
    one("{'koordinator.sh/gpu-memory-ratio':'101','koordinator.sh/gpu.shared':'1'}");
    expect("per-device-over-100");
    one("{'koordinator.sh/gpu-memory-ratio':'200','koordinator.sh/gpu-core':'200','koordinator.sh/gpu.shared':'2'}");
    expect("");
    one("{'koordinator.sh/gpu-memory-ratio':'202','koordinator.sh/gpu.shared':'2'}");
    expect("per-device-over-100");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "gpu.shared 3"));
    /* without gpu.shared: ratio 50 means one device, core 200 cannot fit on it */
    set_action("shared-required", GPA_ACTION_OFF);
    one("{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu-core':'200'}");
    expect("per-device-over-100");
}
END_TEST

START_TEST(pod_level_totals)
{
    /* 30 + 45 over gpu.shared 1 + 1 = 2 devices: 75 does not split */
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory-ratio':'30','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'koordinator.sh/gpu-memory-ratio':'45','koordinator.sh/gpu.shared':'1'}")),
                      NULL));
    expect("multi-card-divisibility");
    ck_assert_ptr_null(V.items[0].container);
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "Pod total"));
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory-ratio':'30','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}")),
                      NULL));
    expect("");
    /* a single container's problem is reported once, at the container */
    validate(pod_with(NULL, list1(ctr("a", "{'koordinator.sh/gpu-memory-ratio':'101','koordinator.sh/gpu.shared':'1'}")), NULL));
    expect("per-device-over-100");
    ck_assert_str_eq(V.items[0].container, "a");
    /* init containers: max(sum of app containers, largest init container), so 60 + 60 = 120 over 2 is fine */
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory-ratio':'60','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'koordinator.sh/gpu-memory-ratio':'60','koordinator.sh/gpu.shared':'1'}")),
                      list1(ctr("i", "{'koordinator.sh/gpu-memory-ratio':'90','koordinator.sh/gpu.shared':'1'}"))));
    expect("");
    /* per resource: the init container's ratio 75 beats the app sum 70, the app sum's gpu.shared 2 beats its 1 */
    validate(pod_with(NULL,
                      list2(ctr("a", "{'koordinator.sh/gpu-memory-ratio':'30','koordinator.sh/gpu.shared':'1'}"),
                            ctr("b", "{'koordinator.sh/gpu-memory-ratio':'40','koordinator.sh/gpu.shared':'1'}")),
                      list1(ctr("i", "{'koordinator.sh/gpu-memory-ratio':'75','koordinator.sh/gpu.shared':'1'}"))));
    expect("multi-card-divisibility");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "75 does not split over gpu.shared 2"));
}
END_TEST

START_TEST(init_containers_checked)
{
    validate(pod_with(NULL, list1(ctr("a", "{'nvidia.com/gpu':'1'}")),
                      list1(ctr("i", "{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}"))));
    ck_assert_uint_eq(hits("core-without-memory"), 1);
    ck_assert_str_eq(first("core-without-memory")->container, "i");
    ck_assert_str_eq(first("core-without-memory")->path, "spec.initContainers[0].resources.requests[\"koordinator.sh/gpu-core\"]");
}
END_TEST

START_TEST(mgpu_divisibility_and_per_card)
{
    one("{'vke.volcengine.com/mgpu-core':'150'}");
    expect("multi-card-divisibility");
    one("{'vke.volcengine.com/mgpu-core':'300'}");
    expect("");
    const char *two = "{'vke.volcengine.com/container-multiple-gpu':'2'}";
    validate(
        pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}")), NULL));
    expect("");
    validate(
        pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'101','vke.volcengine.com/mgpu-memory':'1024'}")), NULL));
    expect("multi-card-divisibility");
    validate(
        pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1025'}")), NULL));
    expect("multi-card-divisibility");
    ck_assert_str_eq(V.items[0].resources[0], "vke.volcengine.com/mgpu-memory");
    validate(pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'202'}")), NULL));
    expect("per-device-over-100");
    /* the fix names both ways out: less core, or enough cards */
    ck_assert_str_eq(V.items[0].message,
                     "vke.volcengine.com/mgpu-core: 202 over 2 cards is over 100 per card; use at most 200, or 3 cards or more");
    validate(pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'200'}")), NULL));
    expect("");
}
END_TEST

/* ---- min-memory ---- */

START_TEST(min_memory_koordinator)
{
    one("{'koordinator.sh/gpu-memory':'256Mi','koordinator.sh/gpu.shared':'1'}");
    expect("");
    one("{'koordinator.sh/gpu-memory':'268435455','koordinator.sh/gpu.shared':'1'}");
    expect("min-memory");
    one("{'koordinator.sh/gpu-memory':'4','koordinator.sh/gpu.shared':'1'}");
    expect("min-memory");
    ck_assert_str_eq(V.items[0].message,
                     "koordinator.sh/gpu-memory: 4 is 4 bytes, below the 256Mi minimum per device; did you mean 4Gi?");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"koordinator.sh/gpu-memory\"]");
    /* per device: ceil(memory / n) */
    one("{'koordinator.sh/gpu-memory':'512Mi','koordinator.sh/gpu.shared':'2'}");
    expect("");
    one("{'koordinator.sh/gpu-memory':'511Mi','koordinator.sh/gpu.shared':'2'}");
    expect("min-memory");
    ck_assert_uint_lt(strlen(V.items[0].message), 100);
    /* the threshold is configured */
    CFG->min_device_memory = 1;
    one("{'koordinator.sh/gpu-memory':'4','koordinator.sh/gpu.shared':'1'}");
    expect("");
}
END_TEST

START_TEST(min_memory_mgpu)
{
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'256'}");
    expect("");
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'255'}");
    expect("min-memory");
    one("{'vke.volcengine.com/mgpu-core':'30'}");
    expect("min-memory");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources");
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'4'}");
    expect("min-memory");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "4096"));
    /* whole cards have all their memory */
    one("{'vke.volcengine.com/mgpu-core':'100'}");
    expect("");
    /* per card: memory / k */
    const char *two = "{'vke.volcengine.com/container-multiple-gpu':'2'}";
    validate(
        pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'510'}")), NULL));
    expect("min-memory");
    validate(
        pod_with(two, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'512'}")), NULL));
    expect("");
}
END_TEST

/* ---- mGPU specifics ---- */

START_TEST(full_card_memory)
{
    one("{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}");
    expect("full-card-memory");
    one("{'vke.volcengine.com/mgpu-core':'200','vke.volcengine.com/mgpu-memory':'6000'}");
    expect("full-card-memory");
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'2'}",
                      list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'200','vke.volcengine.com/mgpu-memory':'6000'}")), NULL));
    expect("full-card-memory");
    one("{'vke.volcengine.com/mgpu-core':'99','vke.volcengine.com/mgpu-memory':'1024'}");
    expect("");
}
END_TEST

START_TEST(card_count_mismatch)
{
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'3,2'}",
                      list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'200'}")), NULL));
    /* the annotation is unusable: c0 is checked as one card (200 = two whole cards) */
    expect("card-count-mismatch");
    ck_assert_ptr_null(V.items[0].container);
    ck_assert_str_eq(V.items[0].message, "multiple-gpu annotation \"3,2\" has 2 entries for 1 container; list one per container");
    ck_assert_str_eq(V.items[0].path, "metadata.annotations[\"vke.volcengine.com/container-multiple-gpu\"]");
    ck_assert_str_eq(V.items[0].resources[0], "vke.volcengine.com/container-multiple-gpu");
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':' 2 , 1 '}",
                      list2(ctr("a", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'100'}")),
                      NULL));
    expect("");
}
END_TEST

START_TEST(invalid_card_count)
{
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'-1,2'}",
                      list2(ctr("a", "{'vke.volcengine.com/mgpu-core':'200'}"), ctr("b", "{'vke.volcengine.com/mgpu-core':'200'}")),
                      NULL));
    expect("invalid-card-count");
    ck_assert_str_eq(V.items[0].container, "a");
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'0'}",
                      list1(ctr("a", "{'vke.volcengine.com/mgpu-core':'50','vke.volcengine.com/mgpu-memory':'1024'}")), NULL));
    expect("invalid-card-count");
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'two'}",
                      list1(ctr("a", "{'vke.volcengine.com/mgpu-core':'50','vke.volcengine.com/mgpu-memory':'1024'}")), NULL));
    expect("invalid-card-count");
    /* an empty entry is not a number; the unusable annotation leaves b a one-card request (100: a whole card) */
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'2,'}",
                      list2(ctr("a", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'100'}")),
                      NULL));
    ck_assert_uint_eq(hits("invalid-card-count"), 1);
    ck_assert_str_eq(first("invalid-card-count")->container, "b");
    ck_assert_uint_eq(hits("full-card-memory"), 1); /* a, as one card, is whole and sets memory */
    ck_assert_uint_eq(hits("card-count-mismatch"), 0);
    /* init containers have no entry: two entries for two app containers, an mGPU init container beside them */
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':' 2 , 1 '}",
                      list2(ctr("a", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}"),
                            ctr("b", "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}")),
                      list1(ctr("i", "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}"))));
    expect("");
    /* 0 for a container that asks for no mGPU is fine */
    validate(pod_with(
        "{'vke.volcengine.com/container-multiple-gpu':'0,2'}",
        list2(ctr("a", "{'cpu':'1'}"), ctr("b", "{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}")),
        NULL));
    expect("");
}
END_TEST

START_TEST(ambiguous_unit)
{
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1Gi'}");
    expect("ambiguous-unit");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "write 1024"));
    ck_assert_uint_eq(one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'6k'}"), 0);
    ck_assert_uint_eq(one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}"), 0);
}
END_TEST

/* ---- actions, dialects, the container predicate, workloads ---- */

START_TEST(actions_warn_and_off)
{
    set_action("min-memory", GPA_ACTION_WARN);
    one("{'koordinator.sh/gpu-memory':'4','koordinator.sh/gpu.shared':'1'}");
    expect("min-memory");
    ck_assert_int_eq(V.items[0].action, GPA_ACTION_WARN);
    set_action("min-memory", GPA_ACTION_OFF);
    one("{'koordinator.sh/gpu-memory':'4','koordinator.sh/gpu.shared':'1'}");
    expect("");
    one("{'nvidia.com/gpu':'-1'}");
    ck_assert_int_eq(V.items[0].action, GPA_ACTION_DENY);
}
END_TEST

START_TEST(disabled_dialects)
{
    CFG->dialects = GPA_DIALECT_VENDOR | GPA_DIALECT_MGPU;
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu-memory':'4'}"), 0);
    CFG->dialects = GPA_DIALECT_KOORDINATOR;
    ck_assert_uint_eq(one("{'vke.volcengine.com/mgpu-core':'150','nvidia.com/gpu':'1.5'}"), 0);
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'1,2,3'}", list1(ctr("a", "{}")), NULL));
    expect("");
}
END_TEST

START_TEST(container_predicate)
{
    gpa_object_t *obj = pod_with(NULL,
                                 list2(ctr("a", "{'koordinator.sh/gpu-memory':'8Gi'}"),
                                       ctr("b", "{'koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}")),
                                 NULL);
    const gpa_podspec_t *pod = &obj->pods[0];
    /* shared-required is not part of the predicate */
    ck_assert_uint_eq(gpa_validate_container(&A, CFG, pod, &pod->containers[0], NULL), 0);
    gpa_violations_t out = {0};
    ck_assert_uint_eq(gpa_validate_container(&A, CFG, pod, &pod->containers[1], &out), 2);
    ck_assert_uint_eq(out.len, 2);
    ck_assert_str_eq(out.items[0].rule, "core-without-memory");
    set_action("core-without-memory", GPA_ACTION_OFF);
    ck_assert_uint_eq(gpa_validate_container(&A, CFG, pod, &pod->containers[1], NULL), 1);
}
END_TEST

START_TEST(workload_paths)
{
    gpa_object_t *obj =
        decode("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d'},'spec':{'template':{"
               "'metadata':{'annotations':{'vke.volcengine.com/container-multiple-gpu':'1,1'}},"
               "'spec':{'containers':[{'name':'x','resources':{'limits':{'vke.volcengine.com/mgpu-core':'30'}}}]}}}}");
    validate(obj);
    expect("card-count-mismatch min-memory");
    ck_assert_str_eq(first("card-count-mismatch")->path,
                     "spec.template.metadata.annotations[\"vke.volcengine.com/container-multiple-gpu\"]");
    ck_assert_str_eq(first("min-memory")->path, "spec.template.spec.containers[0].resources");
    /* findings come in rule-table order */
    ck_assert_int_lt(gpa_rule_index(V.items[0].rule), gpa_rule_index(V.items[1].rule));
}
END_TEST

START_TEST(every_violation_collected)
{
    one("{'nvidia.com/gpu':'-1','koordinator.sh/gpu-core':'50','koordinator.sh/gpu-memory':'4','koordinator.sh/gpu-memory-ratio':'"
        "30','koordinator.sh/gpu.shared':'1'}");
    expect("vendor-vs-share memory-ratio-exclusive non-positive min-memory");
    for (size_t i = 0; i < V.len; i++) {
        ck_assert_ptr_nonnull(V.items[i].message);
        ck_assert_uint_le(strlen(V.items[i].message), 100);
    }
}
END_TEST

START_TEST(infeasible_needs_inventory)
{
    /* without an inventory the rule does not run */
    one("{'koordinator.sh/gpu-memory':'900Gi','koordinator.sh/gpu.shared':'1'}");
    expect("");
    /* with an inventory of one 24Gi device, 30Gi can never fit */
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_node_desc_t node = {.name = "n1", .count = 1, .memory = 24LL << 30, .source = "test", .line = 1};
    gpa_inventory_add_node(inv, &node);
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_inventory_commit(inv, &err), 0);
    gpa_object_t *obj =
        pod_with(NULL, list1(ctr("c0", "{'koordinator.sh/gpu-memory':'30Gi','koordinator.sh/gpu.shared':'1'}")), NULL);
    memset(&V, 0, sizeof(V));
    gpa_validate_object(&A, CFG, inv, NULL, obj, &V);
    expect("infeasible");
    ck_assert_int_eq(V.items[0].action, GPA_ACTION_DENY);
    ck_assert_str_eq(V.items[0].message, "no node could ever hold this Pod (1 GPU node): n1: device 0 has 24Gi free, needs 30Gi");
    obj = pod_with(NULL, list1(ctr("c0", "{'koordinator.sh/gpu-memory':'20Gi','koordinator.sh/gpu.shared':'1'}")), NULL);
    memset(&V, 0, sizeof(V));
    gpa_validate_object(&A, CFG, inv, NULL, obj, &V);
    expect("");
    set_action("infeasible", GPA_ACTION_OFF);
    obj = pod_with(NULL, list1(ctr("c0", "{'koordinator.sh/gpu-memory':'30Gi','koordinator.sh/gpu.shared':'1'}")), NULL);
    memset(&V, 0, sizeof(V));
    gpa_validate_object(&A, CFG, inv, NULL, obj, &V);
    expect("");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(unknown_resource)
{
    /* the blog's typo, in requests and limits: one finding, at the request, naming the closest known name */
    one("{'koordinator.sh/gpu-shared':'1','koordinator.sh/gpu-memory-ratio':'50'}");
    expect("unknown-resource");
    ck_assert_str_eq(V.items[0].message, "koordinator.sh/gpu-shared: no such resource; did you mean koordinator.sh/gpu.shared?");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"koordinator.sh/gpu-shared\"]");
    ck_assert_str_eq(V.items[0].container, "c0");
    ck_assert_str_eq(V.items[0].resources[0], "koordinator.sh/gpu-shared");
    ck_assert_str_eq(V.items[0].resources[1], "koordinator.sh/gpu.shared");
    /* alone in its container (no resource gpuadmit knows beside it), and only in limits */
    validate(pod_with(NULL, list1("{'name':'c0','resources':{'limits':{'koordinator.sh/gpu-shared':'1'}}}"), NULL));
    expect("unknown-resource");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.limits[\"koordinator.sh/gpu-shared\"]");
    /* case and separators, edit distance, the dialect's prefix; each names the closest */
    static const struct {
        const char *name, *closest;
    } near[] = {
        {"koordinator.sh/GPU_Memory", "koordinator.sh/gpu-memory"},
        {"koordinator.sh/gpu-mem-ratio", "koordinator.sh/gpu-memory-ratio"},
        {"koordinator.sh/gpu-cores", "koordinator.sh/gpu-core"},
        {"koordinator.sh/gpumemory", "koordinator.sh/gpu-memory"},
        {"koordinator.sh/gpu-memory-percent", "koordinator.sh/gpu-memory-ratio"},
        {"vke.volcengine.com/mgpu-mem", "vke.volcengine.com/mgpu-memory"},
        {"vke.volcengine.com/mgpu_core", "vke.volcengine.com/mgpu-core"},
        {"nvidia.com/gpus", "nvidia.com/gpu"},
        {"nvidia.com/GPU", "nvidia.com/gpu"},
        {"amd.com/gpus", "amd.com/gpu"},
        {"dcu.com/dcu", "dcu.com/gpu"},
    };
    for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
        one(gpa_arena_printf(&A, "{'%s':'1'}", near[i].name));
        ck_assert_msg(V.len == 1 && strcmp(V.items[0].rule, "unknown-resource") == 0, "%s: not a near miss", near[i].name);
        ck_assert_msg(strcmp(V.items[0].resources[1], near[i].closest) == 0, "%s: closest %s, want %s", near[i].name,
                      V.items[0].resources[1], near[i].closest);
    }
    /* names other systems define, other domains, names far from any known one */
    static const char *const never[] = {
        "nvidia.com/gpu.shared",
        "nvidia.com/mig-1g.5gb",
        "nvidia.com/mig-3g.20gb",
        "nvidia.com/priority",
        "koordinator.sh/rdma",
        "koordinator.sh/fpga",
        "koordinator.sh/batch-cpu",
        "koordinator.sh/mid-memory",
        "example.com/gpu-shared",
        "gpu",
        "cpu",
        "nvidia.com/hostdev-dummy",
        "vke.volcengine.com/eni-ip",
    };
    for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
        ck_assert_msg(one(gpa_arena_printf(&A, "{'%s':'1'}", never[i])) == 0, "%s is flagged", never[i]);
    /* HAMi's names are resources of the HAMi dialect, with values it accepts */
    ck_assert_uint_eq(one("{'nvidia.com/gpumem':'4096','nvidia.com/gpucores':'30'}"), 0);
    ck_assert_uint_eq(one("{'nvidia.com/gpumem-percentage':'50'}"), 0);
    /* the configuration's knownResources */
    const char *names[] = {"koordinator.sh/gpu-shared"};
    CFG->known_resources = names;
    CFG->nknown_resources = 1;
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-shared':'1'}"), 0);
    CFG->nknown_resources = 0;
    /* a dialect that is not enabled: its domain is not read */
    CFG->dialects = GPA_DIALECT_VENDOR | GPA_DIALECT_MGPU;
    ck_assert_uint_eq(one("{'koordinator.sh/gpu-shared':'1'}"), 0);
    one("{'nvidia.com/gpus':'1'}");
    expect("unknown-resource");
}
END_TEST

START_TEST(unknown_resource_blocks_mutation)
{
    /* the typo beside a memory form: the container is not mutated (no gpu.shared injected to hide it) */
    const gpa_object_t *obj =
        pod_with(NULL, list1(ctr("c0", "{'koordinator.sh/gpu-shared':'1','koordinator.sh/gpu-memory-ratio':'50'}")), NULL);
    ck_assert_uint_eq(gpa_validate_container(&A, CFG, &obj->pods[0], &obj->pods[0].containers[0], NULL), 1);
    validate(obj);
    expect("unknown-resource"); /* and not shared-required: the typo is the one thing to fix */
    set_action("unknown-resource", GPA_ACTION_WARN);
    ck_assert_uint_eq(gpa_validate_container(&A, CFG, &obj->pods[0], &obj->pods[0].containers[0], NULL), 0);
}
END_TEST

START_TEST(unit_hint)
{
    one("{'koordinator.sh/gpu':'2'}");
    expect("unit-hint");
    ck_assert_int_eq(V.items[0].action, GPA_ACTION_WARN);
    ck_assert_str_eq(V.items[0].message, "koordinator.sh/gpu: 2 is a percent, 2% of one device; 2 devices are 200");
    ck_assert_str_eq(V.items[0].path, "spec.containers[0].resources.requests[\"koordinator.sh/gpu\"]");
    one("{'koordinator.sh/gpu':'1'}");
    expect("unit-hint");
    ck_assert_str_eq(V.items[0].message, "koordinator.sh/gpu: 1 is a percent, 1% of one device; one whole device is 100");
    one("{'koordinator.sh/gpu':'10'}");
    expect("");
    one("{'nvidia.com/gpu':'50'}");
    expect("unit-hint");
    ck_assert_str_eq(V.items[0].message, "nvidia.com/gpu: 50 is 50 whole devices (a count, not a percent); one device is 1");
    one("{'nvidia.com/gpu':'16'}");
    expect("");
    one("{'amd.com/gpu':'17'}");
    expect("unit-hint");
    /* the configuration overrides the table's default */
    set_action("unit-hint", GPA_ACTION_DENY);
    one("{'dcu.com/gpu':'100'}");
    expect("unit-hint");
    ck_assert_int_eq(V.items[0].action, GPA_ACTION_DENY);
}
END_TEST

START_TEST(messages_say_what_to_write)
{
    /* deprecated-gpu-mixed: memory in bytes keeps gpu-memory; what koordinator.sh/gpu stood for is added */
    one("{'koordinator.sh/gpu':'50','koordinator.sh/gpu-memory':'8Gi'}");
    expect("deprecated-gpu-mixed");
    ck_assert_str_eq(V.items[0].message,
                     "koordinator.sh/gpu is deprecated: drop it, keep gpu-memory, add gpu-core: 50, gpu.shared: 1");
    ck_assert_str_eq(V.items[0].resources[1], "koordinator.sh/gpu-memory");
    one("{'koordinator.sh/gpu':'200','koordinator.sh/gpu-core':'200'}");
    expect("core-without-memory deprecated-gpu-mixed");
    ck_assert_str_eq(first("deprecated-gpu-mixed")->message,
                     "koordinator.sh/gpu is deprecated: drop it, keep gpu-core, add gpu-memory-ratio: 200, gpu.shared: 2");
    one("{'koordinator.sh/gpu':'50','koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu-core':'50','koordinator.sh/"
        "gpu.shared':'1'}");
    expect("deprecated-gpu-mixed");
    ck_assert_str_eq(V.items[0].message, "koordinator.sh/gpu is deprecated: drop it, keep gpu-memory-ratio, gpu-core, gpu.shared");
    /* malformed-quantity names the likely cause */
    one("{'nvidia.com/gpu':'100//apply a GPU'}");
    expect("malformed-quantity");
    ck_assert_str_eq(V.items[0].message, "nvidia.com/gpu: \"100//apply a GPU\": // is no YAML comment but part of the value; "
                                         "write \"100\"");
    one("{'nvidia.com/gpu':'${ACCELERATOR_QUANTITY}'}");
    expect("malformed-quantity");
    ck_assert_str_eq(V.items[0].message, "nvidia.com/gpu: \"${ACCELERATOR_QUANTITY}\": an unexpanded template variable; render "
                                         "the template (helm, envsubst) first");
    one("{'nvidia.com/gpu':'{{ .Values.gpus }}'}");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "an unexpanded template variable"));
    one("{'koordinator.sh/gpu-core':'50#half'}");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "# starts a YAML comment only after a space"));
    one("{'koordinator.sh/gpu-core':'50%','koordinator.sh/gpu-memory-ratio':'50'}");
    ck_assert_ptr_nonnull(strstr(first("malformed-quantity")->message, "without %"));
    one("{'koordinator.sh/gpu-memory':'8GB','koordinator.sh/gpu.shared':'1'}");
    ck_assert_ptr_nonnull(strstr(first("malformed-quantity")->message, "no B"));
    one("{'nvidia.com/gpu':'1 2'}");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "no spaces"));
    one("{'nvidia.com/gpu':'lots'}");
    ck_assert_str_eq(V.items[0].message, "nvidia.com/gpu: \"lots\" is not a Kubernetes quantity; use a whole number such as \"1\"");
    /* min-memory (mGPU) suggests a GiB reading only when one card could hold it */
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'128'}");
    expect("min-memory");
    ck_assert_ptr_null(strstr(V.items[0].message, "131072"));
    ck_assert_str_eq(V.items[0].message,
                     "vke.volcengine.com/mgpu-memory: 128MiB per card is below 256MiB; the unit is MiB (8192 is 8 GiB)");
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'80'}");
    ck_assert_ptr_nonnull(strstr(V.items[0].message, "did you mean 81920 (80 GiB)?"));
    one("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'81'}");
    ck_assert_ptr_null(strstr(V.items[0].message, "did you mean"));
}
END_TEST

/* Findings that deny (a warning admits). */
static size_t denials(void)
{
    size_t n = 0;
    for (size_t i = 0; i < V.len; i++)
        n += V.items[i].action == GPA_ACTION_DENY;
    return n;
}

/* The suggestions of malformed-quantity ("write \"20G\" or \"20Gi\"") as a NULL-terminated list. */
static const char **suggestions(const char *message)
{
    const char **out = gpa_arena_alloc(&A, 4 * sizeof(*out));
    size_t n = 0;
    const char *p = strstr(message, "; write \"");
    for (p = p != NULL ? p + 8 : NULL; p != NULL && *p == '"' && n < 3;) {
        const char *end = strchr(p + 1, '"');
        out[n++] = gpa_arena_printf(&A, "%.*s", (int)(end - p - 1), p + 1);
        p = strncmp(end + 1, " or \"", 5) == 0 ? end + 5 : NULL;
    }
    out[n] = NULL;
    return out;
}

/* Every value malformed-quantity suggests is one the rules then accept for that resource (issue 22: "20GB"
 * suggested "20", which min-memory denies as 20 bytes). Each row: a container's resources with %s for the bad
 * text, the bad text, how many suggestions it gets. */
START_TEST(malformed_suggestions_are_accepted)
{
    static const char mem[] = "{'koordinator.sh/gpu-memory':'%s','koordinator.sh/gpu.shared':'1'}";
    static const char mem2[] = "{'koordinator.sh/gpu-memory':'%s','koordinator.sh/gpu.shared':'2'}";
    static const char core[] =
        "{'koordinator.sh/gpu-core':'%s','koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}";
    static const char ratio[] = "{'koordinator.sh/gpu-memory-ratio':'%s','koordinator.sh/gpu.shared':'1'}";
    static const char mgpu[] = "{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'%s'}";
    static const char nvidia[] = "{'nvidia.com/gpu':'%s'}";
    static const struct {
        const char *res, *bad;
        size_t n;
    } rows[] = {
        {mem, "20GB", 2},      {mem, "1.5GB", 2},    {mem, "20gb", 2},     {mem, "8 Gi", 1},   {mem, "512MB", 2},
        {mem, "100MB", 0},     {mem, "20g", 2},      {mem, "1.5GiB", 1},   {mem, "4Gi#x", 1},  {mem, "16G // big", 2},
        {mem, "20B", 0},       {mem, "${MEM}", 0},   {mem, "260MB", 1},    {mem2, "520MB", 1}, {mem, "1e3MB", 0},
        {core, "50%", 1},      {core, "150%", 0},    {core, "50#half", 1}, {core, "50 %", 1},  {core, "20GB", 0},
        {ratio, "50%", 1},     {ratio, "200%", 0},   {mgpu, "8GB", 1},     {mgpu, "8GiB", 1},  {mgpu, "100MB", 0},
        {mgpu, "8192 MiB", 1}, {nvidia, "1 GPU", 0}, {nvidia, "2#x", 1},   {nvidia, "1.5", 0}, {nvidia, "1 2", 0},
        {nvidia, "100//x", 1},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        one(gpa_arena_printf(&A, rows[i].res, rows[i].bad));
        const char **sug = suggestions(first("malformed-quantity")->message);
        size_t n = 0;
        for (; sug[n] != NULL; n++) {
            one(gpa_arena_printf(&A, rows[i].res, sug[n]));
            if (denials() != 0) {
                dump();
                ck_abort_msg("\"%s\": the suggestion \"%s\" is denied", rows[i].bad, sug[n]);
            }
        }
        ck_assert_msg(n == rows[i].n, "\"%s\": %zu suggestions, want %zu", rows[i].bad, n, rows[i].n);
    }
    one("{'koordinator.sh/gpu-memory':'20GB','koordinator.sh/gpu.shared':'1'}");
    ck_assert_str_eq(first("malformed-quantity")->message, "koordinator.sh/gpu-memory: \"20GB\": Kubernetes suffixes have no B "
                                                           "(8G or 8Gi); write \"20G\" or \"20Gi\"");
    one("{'koordinator.sh/gpu-memory':'1.5GB','koordinator.sh/gpu.shared':'1'}");
    ck_assert_ptr_nonnull(strstr(first("malformed-quantity")->message, "write \"1500M\" or \"1536Mi\""));
    /* a valid request beside a malformed limit: the suggestion that matches the request */
    validate(pod_with(NULL,
                      "[{'name':'c0','resources':{'requests':{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'},"
                      "'limits':{'koordinator.sh/gpu-memory':'8GB','koordinator.sh/gpu.shared':'1'}}}]",
                      NULL));
    ck_assert_ptr_nonnull(strstr(first("malformed-quantity")->message, "; write \"8Gi\""));
}
END_TEST

/* Over one device but not whole devices: the gpu.shared that splits it is suggested beside whole devices, and
 * only when the rules then accept it (issue 22: 150 on one device was told "use 100, 200" only). */
START_TEST(over_100_suggests_shared)
{
    static const struct {
        const char *res, *rule, *fix; /* fix NULL: no gpu.shared suggested */
    } rows[] = {
        {"{'koordinator.sh/gpu-core':'150','koordinator.sh/gpu-memory-ratio':'150'}", "multi-card-divisibility",
         "use 100, 200, ... or set gpu.shared: 2"},
        {"{'koordinator.sh/gpu-core':'150','koordinator.sh/gpu-memory':'8Gi'}", "multi-card-divisibility", "or set gpu.shared: 2"},
        {"{'koordinator.sh/gpu-core':'150','koordinator.sh/gpu-memory-ratio':'120'}", "multi-card-divisibility",
         "or set gpu.shared: 2"},
        {"{'koordinator.sh/gpu-core':'150','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}",
         "per-device-over-100", "use gpu.shared: 2"},
        {"{'koordinator.sh/gpu-core':'210','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'2'}",
         "per-device-over-100", "use gpu.shared: 3"},
        {"{'koordinator.sh/gpu-core':'101','koordinator.sh/gpu-memory':'8Gi'}", "multi-card-divisibility", NULL},
        {"{'koordinator.sh/gpu-core':'150','koordinator.sh/gpu-memory':'300Mi'}", "multi-card-divisibility", NULL},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        one(rows[i].res);
        const char *msg = first(rows[i].rule)->message, *at = strstr(msg, "gpu.shared: ");
        if (rows[i].fix == NULL) {
            ck_assert_msg(at == NULL, "%s: %s", rows[i].res, msg);
            continue;
        }
        ck_assert_msg(strstr(msg, rows[i].fix) != NULL, "%s: %s", rows[i].res, msg);
        /* the suggestion holds: with that gpu.shared the container passes */
        char *fixed = gpa_arena_strdup(&A, rows[i].res);
        char *sh = strstr(fixed, ",'koordinator.sh/gpu.shared'");
        if (sh != NULL)
            strcpy(sh, "}");
        fixed[strlen(fixed) - 1] = '\0';
        one(gpa_arena_printf(&A, "%s,'koordinator.sh/gpu.shared':'%c'}", fixed, at[12]));
        if (denials() != 0) {
            dump();
            ck_abort_msg("%s: gpu.shared %c is denied", rows[i].res, at[12]);
        }
    }
}
END_TEST

START_TEST(knock_on_says_why)
{
    /* the annotation is unusable: the container is checked as one card, and the finding says so */
    const char *bad = "{'vke.volcengine.com/container-multiple-gpu':'2,2'}";
    validate(
        pod_with(bad, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'200','vke.volcengine.com/mgpu-memory':'8192'}")), NULL));
    expect("card-count-mismatch full-card-memory");
    ck_assert_str_eq(first("full-card-memory")->message,
                     "as one card (the multiple-gpu annotation is unusable): vke.volcengine.com/mgpu-memory with whole "
                     "cards (mgpu-core 200); drop it, whole cards get all memory");
    validate(pod_with("{'vke.volcengine.com/container-multiple-gpu':'x'}",
                      list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'150','vke.volcengine.com/mgpu-memory':'8192'}")), NULL));
    expect("invalid-card-count multi-card-divisibility");
    ck_assert_ptr_nonnull(strstr(first("multi-card-divisibility")->message, "as one card (the multiple-gpu"));
    /* a usable annotation, or none: no note */
    validate(
        pod_with(NULL, list1(ctr("c0", "{'vke.volcengine.com/mgpu-core':'200','vke.volcengine.com/mgpu-memory':'8192'}")), NULL));
    expect("full-card-memory");
    ck_assert_ptr_null(strstr(V.items[0].message, "as one card"));
}
END_TEST

/* ---- HAMi (docs/rules.md#hami): valid forms at least as hard as invalid ones ---- */

START_TEST(hami_valid_forms)
{
    static const char *const valid[] = {
        "{'nvidia.com/gpu':'1'}",
        "{'nvidia.com/gpu':'8'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'3000'}",
        "{'nvidia.com/gpu':'2','nvidia.com/gpumem':'3000','nvidia.com/gpucores':'30'}",
        "{'nvidia.com/gpumem':'3000'}",
        "{'nvidia.com/gpucores':'30'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpucores':'0'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'0'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'0','nvidia.com/gpumem-percentage':'50'}",
        "{'nvidia.com/gpu':'2','nvidia.com/gpumem-percentage':'100','nvidia.com/gpucores':'100'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'1'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'256'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'81920','nvidia.com/gpucores':'100'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'2147483647'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4096','nvidia.com/priority':'0'}",
        "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4096','nvidia.com/mig-1g.5gb':'1'}",
    };
    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        if (one(valid[i]) != 0) {
            dump();
            ck_abort_msg("%s: a valid HAMi request has findings", valid[i]);
        }
    }
    /* HAMi beside whole GPUs (one resource), in app and init containers, requests-only limits */
    expect_pod(NULL,
               list2(ctr("hami", "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4096'}"), ctr("whole", "{'nvidia.com/gpu':'2'}")),
               list1(ctr("init", "{'nvidia.com/gpumem-percentage':'30'}")), "");
    /* HAMi annotations that HAMi reads as written */
    expect_pod("{'nvidia.com/use-gputype':'A100,H100','nvidia.com/nouse-gputype':'1080','hami.io/gpu-scheduler-policy':'spread',"
               "'hami.io/node-scheduler-policy':'binpack','nvidia.com/vgpu-mode':'mig','nvidia.com/numa-bind':'0'}",
               list1(ctr("c", "{'nvidia.com/gpu':'2','nvidia.com/gpumem':'8000'}")), NULL, "");
    /* the dialect off: HAMi's names are neither read nor strays */
    CFG->dialects = GPA_DIALECT_ALL & ~(unsigned)GPA_DIALECT_HAMI;
    ck_assert_uint_eq(one("{'nvidia.com/gpu':'0','nvidia.com/gpumem':'16Gi','nvidia.com/gpumem-percentage':'150'}"), 0);
}
END_TEST

START_TEST(hami_invalid_forms)
{
    static const struct {
        const char *res, *rules;
    } invalid[] = {
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4096','nvidia.com/gpumem-percentage':'50'}", "memory-ratio-exclusive"},
        {"{'nvidia.com/gpu':'0','nvidia.com/gpumem':'4096'}", "non-positive"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'0'}", "non-positive"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpucores':'-5'}", "non-positive"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'101'}", "per-device-over-100"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'1000','nvidia.com/gpucores':'150'}", "per-device-over-100"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'255'}", "min-memory"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'16Gi'}", "ambiguous-unit"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4k'}", "ambiguous-unit"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'1e3'}", "ambiguous-unit"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'2147483648'}", "ambiguous-unit"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'12.5'}", "malformed-quantity"},
        {"{'nvidia.com/gpu':'1','nvidia.com/gpumem':'8Gi','nvidia.com/gpumem-percentage':'0'}", "ambiguous-unit non-positive"},
    };
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        one(invalid[i].res);
        expect(invalid[i].rules);
    }
    /* min-memory suggests GiB only where the value counts MiB (memoryFactor 1) */
    one("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4'}");
    ck_assert_ptr_nonnull(
        strstr(first("min-memory")->message, "4 is 4MiB per vGPU (HAMi counts MiB), below 256Mi; did you mean 4096"));
    CFG->hami.device[GPA_HAMI_NVIDIA].memory_factor = 2;
    one("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4'}");
    ck_assert_ptr_null(strstr(first("min-memory")->message, "did you mean"));
    CFG->hami.device[GPA_HAMI_NVIDIA].memory_factor = 1;
    /* the configured names: a message names them, and the default ones are no longer HAMi's */
    gpa_hami_names_set(&CFG->hami, GPA_HAMI_NVIDIA, GPA_HAMI_MEMORY, "nvidia.com/vgpu-memory");
    gpa_hami_names_set(&CFG->hami, GPA_HAMI_NVIDIA, GPA_HAMI_COUNT, "example.com/vgpu");
    const char *pod = "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':[{'name':'c','resources':"
                      "{'limits':{'example.com/vgpu':'0','nvidia.com/vgpu-memory':'4Gi','nvidia.com/gpumem':'8'}}}]}}";
    char *json = gpa_arena_strdup(&A, pod);
    for (char *p = json; *p != '\0'; p++)
        *p = *p == '\'' ? '"' : *p;
    gpa_value_t *doc;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_json_parse(&A, json, strlen(json), &doc, &err), 0);
    ck_assert_int_eq(gpa_decode_object_with(&A, &CFG->decode, doc, &obj, &err), 0);
    validate(obj);
    expect("non-positive ambiguous-unit");
    ck_assert_str_eq(first("non-positive")->resources[0], "example.com/vgpu");
    ck_assert_ptr_nonnull(strstr(first("ambiguous-unit")->message, "nvidia.com/vgpu-memory: \"4Gi\""));
}
END_TEST

START_TEST(hami_pod_rules)
{
    /* HAMi beside Koordinator: mixed-share-apis alone (its nvidia.com/gpu is HAMi's count, no vendor-vs-share) */
    expect_pod(NULL,
               list2(ctr("h", "{'nvidia.com/gpu':'1','nvidia.com/gpumem':'4096'}"),
                     ctr("k", "{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}")),
               NULL, "mixed-share-apis");
    /* a plain vendor container beside Koordinator is still vendor-vs-share */
    expect_pod(NULL,
               list2(ctr("v", "{'nvidia.com/gpu':'1'}"),
                     ctr("k", "{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu.shared':'1'}")),
               NULL, "vendor-vs-share");
    /* annotations: a resource name as a key; bad HAMi annotations only on a Pod asking HAMi for GPUs */
    expect_pod("{'nvidia.com/gpucores':'30'}", list1(ctr("c", "{'nvidia.com/gpu':'1'}")), NULL, "resource-in-annotation");
    expect_pod("{'nvidia.com/use-gpuuuid':' GPU-a','nvidia.com/vgpu-mode':'vgpu'}", list1(ctr("c", "{'nvidia.com/gpu':'1'}")), NULL,
               "invalid-annotation invalid-annotation");
    expect_pod("{'nvidia.com/numa-bind':'maybe'}", list1(ctr("c", "{'cpu':'1'}")), NULL, "");
    expect_pod("{'hami.io/gpu-scheduler-policy':'binpack,'}", list1(ctr("c", "{'nvidia.com/gpumem':'1024'}")), NULL,
               "invalid-annotation");
    /* privileged: any container of a HAMi Pod, never a whole-GPU Pod */
    const char *priv = "{'name':'agent','securityContext':{'privileged':true}}";
    expect_pod(NULL, list2(ctr("c", "{'nvidia.com/gpumem-percentage':'20'}"), priv), NULL, "privileged-share");
    expect_pod(NULL, list2(ctr("c", "{'nvidia.com/gpu':'1'}"), priv), NULL, "");
    /* a privileged: false is not privileged */
    expect_pod(NULL, list2(ctr("c", "{'nvidia.com/gpumem':'2048'}"), "{'name':'agent','securityContext':{'privileged':false}}"),
               NULL, "");
}
END_TEST

static Suite *rules_suite(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, table_ids_unique_and_documented);
    tcase_add_test(tc, valid_requests_pass);
    tcase_add_test(tc, malformed_quantity);
    tcase_add_test(tc, malformed_suggestions_are_accepted);
    tcase_add_test(tc, over_100_suggests_shared);
    tcase_add_test(tc, request_limit_mismatch);
    tcase_add_test(tc, vendor_vs_share);
    tcase_add_test(tc, mixed_share_apis);
    tcase_add_test(tc, memory_ratio_exclusive);
    tcase_add_test(tc, core_and_shared_without_memory);
    tcase_add_test(tc, shared_required);
    tcase_add_test(tc, deprecated_gpu_mixed);
    tcase_add_test(tc, non_positive);
    tcase_add_test(tc, koord_divisibility_with_shared);
    tcase_add_test(tc, koord_divisibility_without_shared);
    tcase_add_test(tc, koord_per_device);
    tcase_add_test(tc, pod_level_totals);
    tcase_add_test(tc, init_containers_checked);
    tcase_add_test(tc, mgpu_divisibility_and_per_card);
    tcase_add_test(tc, min_memory_koordinator);
    tcase_add_test(tc, min_memory_mgpu);
    tcase_add_test(tc, full_card_memory);
    tcase_add_test(tc, card_count_mismatch);
    tcase_add_test(tc, invalid_card_count);
    tcase_add_test(tc, ambiguous_unit);
    tcase_add_test(tc, actions_warn_and_off);
    tcase_add_test(tc, disabled_dialects);
    tcase_add_test(tc, container_predicate);
    tcase_add_test(tc, workload_paths);
    tcase_add_test(tc, every_violation_collected);
    tcase_add_test(tc, infeasible_needs_inventory);
    tcase_add_test(tc, unknown_resource);
    tcase_add_test(tc, unknown_resource_blocks_mutation);
    tcase_add_test(tc, unit_hint);
    tcase_add_test(tc, messages_say_what_to_write);
    tcase_add_test(tc, knock_on_says_why);
    tcase_add_test(tc, hami_valid_forms);
    tcase_add_test(tc, hami_invalid_forms);
    tcase_add_test(tc, hami_pod_rules);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(rules_suite());
}
