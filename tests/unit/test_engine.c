/* Check tests for rules/engine.c: gpa_check on CREATE, UPDATE, DELETE, exclusions, actions and warnings. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/decode.h"
#include "fixture.h"
#include "inventory/inventory.h"
#include "policy/engine.h"
#include "policy/rules.h"
#include "run.h"

static gpa_verdict_t check_op(gpa_object_t *obj, gpa_operation_t op, gpa_object_t *old, int mutate)
{
    gpa_check_opts_t opts = {.operation = op, .old_object = old, .mutate = mutate, .validate = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_check(&arena, cfg, obj, &opts, &v, &err) == 0, "check: %s", err.message);
    return v;
}

static int has_rule(const gpa_verdict_t *v, const char *rule, const char *container)
{
    for (size_t i = 0; i < v->violations.len; i++)
        if (strcmp(v->violations.items[i].rule, rule) == 0 && v->violations.items[i].container != NULL &&
            strcmp(v->violations.items[i].container, container) == 0)
            return 1;
    return 0;
}

#define POD_NS(ns, containers)                                                                                                     \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                                     \
    "\"},\"spec\":{\"containers\":[" containers "]}}"
#define POD(containers) POD_NS("team-a", containers)
#define C(name, resources) "{\"name\":\"" name "\",\"resources\":" resources "}"
#define RATIO_ONLY                                                                                                                 \
    C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"50\"},\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\"}}")
#define MEM_AND_RATIO                                                                                                              \
    C("bad", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/"     \
             "gpu.shared\":\"1\"}}")
#define CLEAN C("ok", "{\"limits\":{\"nvidia.com/gpu\":\"1\"}}")

START_TEST(create_mutates_then_validates)
{
    gpa_object_t *obj = object(POD(RATIO_ONLY));
    gpa_verdict_t v = check_op(obj, GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
    ck_assert_int_eq(v.mutations.len, 1);
    ck_assert_str_eq(v.mutations.items[0], "inject-gpu-shared");
    ck_assert_int_eq(v.patch.len, 2);
    ck_assert_ptr_ne(v.mutated, obj->root);
    /* The input tree is untouched; the mutated tree carries gpu.shared. */
    const gpa_value_t *limits = gpa_value_get(
        gpa_value_get(gpa_value_at(gpa_value_get(gpa_value_get(v.mutated, "spec"), "containers"), 0), "resources"), "limits");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(limits, "koordinator.sh/gpu.shared")), "1");
    ck_assert_int_eq(gpa_container_limit(&obj->pods[0].containers[0], GPA_R_GPU_SHARED)->present, 0);
}
END_TEST

START_TEST(create_without_mutation)
{
    gpa_verdict_t v = check_op(object(POD(RATIO_ONLY)), GPA_OP_CREATE, NULL, 0);
    ck_assert_int_eq(v.patch.len, 0);
    ck_assert_int_eq(v.mutations.len, 0);
}
END_TEST

START_TEST(create_denied)
{
    gpa_verdict_t v = check_op(object(POD(MEM_AND_RATIO "," CLEAN)), GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert(has_rule(&v, "memory-ratio-exclusive", "bad"));
    ck_assert_int_eq(v.warnings.len, 0);
    int found = 0;
    for (size_t i = 0; i < v.violations.len; i++)
        found |= strncmp(gpa_violation_line(&arena, &v.violations.items[i]), "bad: memory-ratio-exclusive: ", 29) == 0;
    ck_assert(found);
}
END_TEST

START_TEST(update_only_new_findings_count)
{
    /* The old object already had the finding: an update (say, removing a finalizer) must pass. */
    gpa_verdict_t v = check_op(object(POD(MEM_AND_RATIO)), GPA_OP_UPDATE, object(POD(MEM_AND_RATIO)), 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
    ck_assert_int_eq(v.patch.len, 0); /* mutation is CREATE only */
    /* A finding the old object did not have counts. */
    v = check_op(object(POD(MEM_AND_RATIO)), GPA_OP_UPDATE, object(POD(CLEAN)), 1);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert(has_rule(&v, "memory-ratio-exclusive", "bad"));
}
END_TEST

START_TEST(delete_and_connect_admitted)
{
    gpa_verdict_t v = check_op(object(POD(MEM_AND_RATIO)), GPA_OP_DELETE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
    v = check_op(object(POD(MEM_AND_RATIO)), GPA_OP_CONNECT, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
}
END_TEST

START_TEST(excluded_namespace_and_other_kinds)
{
    gpa_object_t *obj = object(POD_NS("kube-system", MEM_AND_RATIO "," RATIO_ONLY));
    gpa_verdict_t v = check_op(obj, GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
    ck_assert_int_eq(v.patch.len, 0);
    ck_assert_ptr_eq(v.mutated, obj->root);
    v = check_op(object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}"), GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.violations.len, 0);
}
END_TEST

static void check_warning_shape(const char *w)
{
    ck_assert_uint_lt(strlen(w), 120);
    ck_assert_ptr_null(strchr(w, '\n'));
    ck_assert_ptr_null(strchr(w, '\r'));
    ck_assert_int_ne(strncasecmp(w, "warning:", 8), 0);
    /* valid UTF-8: no sequence cut at the end */
    size_t n = strlen(w), i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)w[i];
        size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        ck_assert_msg(i + len <= n, "cut UTF-8 sequence at the end of \"%s\"", w);
        for (size_t k = 1; k < len; k++)
            ck_assert_int_eq((unsigned char)w[i + k] & 0xC0, 0x80);
        i += len;
    }
}

#define LONG_NAME "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
#define GPU50 "{\"limits\":{\"koordinator.sh/gpu\":\"50\"}}"

START_TEST(mutation_warnings_are_one_short_line)
{
    gpa_verdict_t v =
        check_op(object(POD(C("Warning: sneaky\\nname", GPU50) "," C(LONG_NAME LONG_NAME LONG_NAME, GPU50) "," C("plain", GPU50))),
                 GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_int_eq(v.warnings.len, 3);
    for (size_t i = 0; i < v.warnings.len; i++)
        check_warning_shape(v.warnings.items[i].text);
    ck_assert_ptr_nonnull(strstr(v.warnings.items[0].text, "sneaky name"));
    ck_assert_ptr_nonnull(strstr(v.warnings.items[1].text, "..."));
    ck_assert_ptr_nonnull(strstr(v.warnings.items[2].text, "plain: koordinator.sh/gpu is deprecated"));
    /* the CLI's line is whole: the cut is the API server's, for the webhook's answers only */
    ck_assert_ptr_null(strstr(v.warnings.items[1].whole, "..."));
    ck_assert_uint_gt(strlen(v.warnings.items[1].whole), 120);
    ck_assert_ptr_nonnull(strstr(v.warnings.items[1].whole, "koordinator.sh/gpu is deprecated"));
    ck_assert_str_eq(v.warnings.items[0].whole, v.warnings.items[0].text);
    ck_assert_int_eq(v.mutations.len, 2);
    ck_assert_str_eq(v.mutations.items[0], "expand-gpu");
    ck_assert_str_eq(v.mutations.items[1], "inject-gpu-shared");
}
END_TEST

START_TEST(warn_action_gives_a_warning)
{
    static const char conf[] = "rules:\n  memory-ratio-exclusive: warn\n";
    gpa_config_t *warn_cfg;
    gpa_error_t err = {0};
    gpa_error_init(&err, "conf");
    ck_assert_msg(gpa_config_parse(conf, strlen(conf), "conf", &warn_cfg, &err) == 0, "%s", err.message);
    gpa_config_release(cfg);
    cfg = warn_cfg;
    gpa_verdict_t v = check_op(object(POD(MEM_AND_RATIO)), GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert(has_rule(&v, "memory-ratio-exclusive", "bad"));
    ck_assert_int_eq(v.warnings.len, 1);
    check_warning_shape(v.warnings.items[0].text);
    ck_assert_ptr_nonnull(strstr(v.warnings.items[0].text, "bad: memory-ratio-exclusive: "));
}
END_TEST

/* One node, one 24Gi device, held whole by another Pod: a 50% share has no room now, two devices never fit. */
static gpa_inventory_t *full_node(void)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_node_desc_t node = {.name = "n1", .count = 1, .memory = 24LL << 30, .source = "test", .line = 1};
    gpa_usage_desc_t used = {.node = "n1", .pod = "team-a/big", .minor = 0, .whole = 1, .source = "test", .line = 2};
    gpa_inventory_add_node(inv, &node);
    gpa_inventory_add_usage(inv, &used);
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_inventory_commit(inv, &err), 0);
    return inv;
}

/* No node has room now (but one could hold the Pod empty): a warning whose origin is the allocator, not a rule's
 * configured action (infeasible stays deny). */
START_TEST(no_room_now_is_a_warning_from_the_allocator)
{
    gpa_inventory_t *inv = full_node();
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 1, .inventory = inv};
    gpa_verdict_t v;
    ck_assert_int_eq(gpa_check(&arena, cfg, object(POD(RATIO_ONLY)), &opts, &v, &err), 0);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 1);
    ck_assert_str_eq(v.violations.items[0].rule, "infeasible");
    ck_assert_int_eq(v.violations.items[0].action, GPA_ACTION_WARN);
    ck_assert_uint_eq(v.warnings.len, 1);
    ck_assert_int_eq(v.warnings.items[0].origin, GPA_WARNING_NOT_NOW);
    ck_assert_uint_eq(v.warnings.items[0].violation, 0);
    ck_assert(gpa_warning_is_finding(&v.warnings.items[0]));
    gpa_inventory_release(inv);
}
END_TEST

/* inject-gpu-shared writes the devices shared-required asks for: one derivation (gpu_request.h), even where the
 * deprecated koordinator.sh/gpu sits beside a memory form (deprecated-gpu-mixed at warn lets it be mutated). */
START_TEST(inject_writes_what_shared_required_asks)
{
    static const char conf[] = "rules:\n  deprecated-gpu-mixed: warn\n";
    static const char pod[] =
        POD(C("mixed", "{\"limits\":{\"koordinator.sh/gpu\":\"200\",\"koordinator.sh/gpu-memory\":\"16Gi\"}}"));
    gpa_error_t err = {0};
    gpa_error_init(&err, "conf");
    gpa_config_release(cfg);
    ck_assert_msg(gpa_config_parse(conf, strlen(conf), "conf", &cfg, &err) == 0, "%s", err.message);
    gpa_verdict_t as_written = check_op(object(pod), GPA_OP_CREATE, NULL, 0);
    ck_assert(has_rule(&as_written, "shared-required", "mixed"));
    int asked = 0;
    for (size_t i = 0; i < as_written.violations.len; i++)
        asked |= strstr(as_written.violations.items[i].message, "gpu.shared: \"2\"") != NULL;
    ck_assert(asked);
    gpa_verdict_t mutated = check_op(object(pod), GPA_OP_CREATE, NULL, 1);
    ck_assert_ptr_nonnull(strstr(patch_text(&mutated.patch), "gpu.shared\",\"value\":\"2\""));
}
END_TEST

/* A rule rolled out as warn changes nothing but the warnings: the container is still made canonical (gpu.shared,
 * mirrored limits), where denying would have left it alone. */
START_TEST(warn_rule_does_not_stop_mutation)
{
    static const char conf[] = "rules:\n  min-memory: warn\n";
    static const char pod[] = POD(C("tiny", "{\"requests\":{\"koordinator.sh/gpu-memory\":\"100Mi\"}}"));
    gpa_config_t *warn_cfg;
    gpa_error_t err = {0};
    gpa_error_init(&err, "conf");
    ck_assert_msg(gpa_config_parse(conf, strlen(conf), "conf", &warn_cfg, &err) == 0, "%s", err.message);

    gpa_verdict_t denied = check_op(object(pod), GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(denied.allowed, 0);
    ck_assert(has_rule(&denied, "min-memory", "tiny"));
    ck_assert_int_eq(denied.patch.len, 0);

    gpa_config_release(cfg);
    cfg = warn_cfg;
    gpa_verdict_t warned = check_op(object(pod), GPA_OP_CREATE, NULL, 1);
    ck_assert_int_eq(warned.allowed, 1);
    ck_assert(has_rule(&warned, "min-memory", "tiny"));
    ck_assert(!has_rule(&warned, "shared-required", "tiny"));
    ck_assert_int_eq(warned.warnings.len, 1);
    ck_assert_int_eq(warned.mutations.len, 2); /* inject-gpu-shared, mirror-limits */
    const gpa_value_t *limits = gpa_value_get(
        gpa_value_get(gpa_value_at(gpa_value_get(gpa_value_get(warned.mutated, "spec"), "containers"), 0), "resources"), "limits");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(limits, "koordinator.sh/gpu-memory")), "100Mi");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(limits, "koordinator.sh/gpu.shared")), "1");
}
END_TEST

/* A Volcano Job of two tasks: each task's Pod template is a Pod spec of its own. */
#define VCJOB(task0, task1)                                                                                                        \
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\",\"namespace\":\"team-a\"},"       \
    "\"spec\":{\"tasks\":[{\"name\":\"t0\",\"template\":{\"spec\":{\"containers\":[" task0 "]}}},"                                 \
    "{\"name\":\"t1\",\"template\":{\"spec\":{\"containers\":[" task1 "]}}}]}}"
#define VENDOR_A C("a", "{\"limits\":{\"nvidia.com/gpu\":\"1\"}}")
#define SHARE_B C("b", "{\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}}")

/* A Pod-level finding is one of a Pod template: the same rule in another template of the object is new. */
START_TEST(update_pod_level_finding_is_matched_by_template)
{
    /* vendor-vs-share at the Pod level (two containers, one dialect each), in task 0, then in task 1. */
    gpa_object_t *old = object(VCJOB(VENDOR_A "," SHARE_B, CLEAN));
    gpa_verdict_t v = check_op(object(VCJOB(VENDOR_A "," SHARE_B, CLEAN)), GPA_OP_UPDATE, old, 1);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 0);
    v = check_op(object(VCJOB(CLEAN, VENDOR_A "," SHARE_B)), GPA_OP_UPDATE, old, 1);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert_uint_eq(v.violations.len, 1);
    ck_assert_str_eq(v.violations.items[0].rule, "vendor-vs-share");
    ck_assert_ptr_null(v.violations.items[0].container);
    ck_assert_str_eq(v.violations.items[0].pod, "spec.tasks[1].template.spec");
}
END_TEST

static gpa_verdict_t check_inv(gpa_object_t *obj, gpa_operation_t op, gpa_object_t *old, const gpa_inventory_t *inv)
{
    gpa_check_opts_t opts = {.operation = op, .old_object = old, .mutate = op == GPA_OP_CREATE, .validate = 1, .inventory = inv};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_check(&arena, cfg, obj, &opts, &v, &err) == 0, "check: %s", err.message);
    return v;
}

#define HALF_SHARED C("a", "{\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}}")
#define RATIO_200 C("a", "{\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu.shared\":\"2\"}}")

/* Only a violation excuses a violation: an old "no room now" warning never lets a new never-placeable Pod through,
 * so the verdict is the same on CREATE and on UPDATE. */
START_TEST(update_old_warning_does_not_excuse_a_denial)
{
    gpa_inventory_t *inv = full_node();
    gpa_verdict_t v = check_inv(object(POD(HALF_SHARED)), GPA_OP_CREATE, NULL, inv);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 1);
    ck_assert_int_eq(v.violations.items[0].not_now, 1);
    v = check_inv(object(POD(RATIO_200)), GPA_OP_CREATE, NULL, inv);
    ck_assert_int_eq(v.allowed, 0);
    v = check_inv(object(POD(RATIO_200)), GPA_OP_UPDATE, object(POD(HALF_SHARED)), inv);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert_uint_eq(v.violations.len, 1);
    ck_assert_str_eq(v.violations.items[0].rule, "infeasible");
    ck_assert_int_eq(v.violations.items[0].not_now, 0);
    /* An old violation still excuses the same violation, and a weaker finding. */
    v = check_inv(object(POD(RATIO_200)), GPA_OP_UPDATE, object(POD(RATIO_200)), inv);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 0);
    v = check_inv(object(POD(HALF_SHARED)), GPA_OP_UPDATE, object(POD(RATIO_200)), inv);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 0);
    gpa_inventory_release(inv);
}
END_TEST

#define MEM_4GI C("server", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"4Gi\"}}")
#define MEM_4GI_SHARED                                                                                                             \
    C("server", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"4Gi\",\"koordinator.sh/gpu.shared\":\"1\"},\"requests\":{"           \
                "\"koordinator.sh/gpu-memory\":\"4Gi\",\"koordinator.sh/gpu.shared\":\"1\"}}")

/* kubectl replace of the manifest that was admitted on CREATE (where the mutating webhook added gpu.shared): the
 * update is judged as the mutations would leave it, so shared-required does not count; nothing is patched. */
START_TEST(update_is_judged_as_mutated)
{
    gpa_verdict_t v = check_op(object(POD(MEM_4GI)), GPA_OP_CREATE, NULL, 0);
    ck_assert(has_rule(&v, "shared-required", "server")); /* as written, without the mutations */
    v = check_op(object(POD(MEM_4GI)), GPA_OP_UPDATE, object(POD(MEM_4GI_SHARED)), 0);
    ck_assert_int_eq(v.allowed, 1);
    ck_assert_uint_eq(v.violations.len, 0);
    ck_assert_uint_eq(v.patch.len, 0);
    ck_assert_uint_eq(v.mutations.len, 0);
    ck_assert_uint_eq(v.warnings.len, 0);
    /* What the mutations cannot fix still counts: too little memory per device. */
    v = check_op(object(POD(C("server", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"4\"}}"))), GPA_OP_UPDATE,
                 object(POD(MEM_4GI_SHARED)), 0);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert(has_rule(&v, "min-memory", "server"));
    /* What a mutation switched off would have fixed still counts. */
    static const char conf[] = "mutations:\n  inject-gpu-shared: off\n";
    gpa_error_t err = {0};
    gpa_error_init(&err, "conf");
    gpa_config_release(cfg);
    ck_assert_msg(gpa_config_parse(conf, strlen(conf), "conf", &cfg, &err) == 0, "%s", err.message);
    v = check_op(object(POD(MEM_4GI)), GPA_OP_UPDATE, object(POD(MEM_4GI_SHARED)), 0);
    ck_assert_int_eq(v.allowed, 0);
    ck_assert(has_rule(&v, "shared-required", "server"));
}
END_TEST

/* Inventory: one node of eight 80Gi devices (vendor and Koordinator), one mGPU node of eight cards. */
static gpa_inventory_t *eight_gpu_nodes(void)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_node_desc_t node = {.name = "n1", .count = 8, .memory = 80LL << 30, .source = "test", .line = 1};
    gpa_node_desc_t mgpu = {.name = "m1", .mgpu = 1, .count = 8, .memory = 80LL << 30, .source = "test", .line = 2};
    gpa_inventory_add_node(inv, &node);
    gpa_inventory_add_node(inv, &mgpu);
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_inventory_commit(inv, &err) == 0, "%s", err.message);
    return inv;
}

static void assert_infeasible(const char *pod, const char *devices)
{
    gpa_inventory_t *inv = eight_gpu_nodes();
    gpa_verdict_t v = check_inv(object(pod), GPA_OP_CREATE, NULL, inv);
    ck_assert_msg(v.allowed == 0, "%s: allowed", pod);
    int found = 0;
    for (size_t i = 0; i < v.violations.len; i++)
        if (strcmp(v.violations.items[i].rule, "infeasible") == 0) {
            found = 1;
            ck_assert_int_eq(v.violations.items[i].action, GPA_ACTION_DENY);
            ck_assert_msg(strstr(v.violations.items[i].message, devices) != NULL, "%s", v.violations.items[i].message);
        }
    ck_assert_msg(found, "%s: no infeasible", pod);
    gpa_inventory_release(inv);
}

/* Counts beyond the allocator's arithmetic (2^32 devices and more) are infeasible like any unplaceable request: they
 * never skip the rule, and are never truncated (2^32 + 1 cards is not one card). */
START_TEST(big_counts_are_infeasible)
{
    assert_infeasible(POD(C("v", "{\"limits\":{\"nvidia.com/gpu\":\"4294967296\"}}")), "4294967296 devices");
    assert_infeasible(POD(C("v", "{\"limits\":{\"nvidia.com/gpu\":\"4294967295\"}}")), "4294967295");
    assert_infeasible(POD(C("k", "{\"limits\":{\"koordinator.sh/gpu-memory\":\"1Ei\",\"koordinator.sh/gpu.shared\":"
                                 "\"4294967296\"},\"requests\":{\"koordinator.sh/gpu-memory\":\"1Ei\",\"koordinator.sh/"
                                 "gpu.shared\":\"4294967296\"}}")),
                      "4294967296 devices");
    /* mGPU whole cards: core 100 x (2^32 + 1), read as 2^32 + 1 cards (it was one card, and fit). */
    assert_infeasible(POD(C("m", "{\"limits\":{\"vke.volcengine.com/mgpu-core\":\"429496729700\"}}")), "4294967297 devices");
    /* A count that fits a node is placed as before. */
    gpa_inventory_t *inv = eight_gpu_nodes();
    gpa_verdict_t v =
        check_inv(object(POD(C("m", "{\"limits\":{\"vke.volcengine.com/mgpu-core\":\"200\"}}"))), GPA_OP_CREATE, NULL, inv);
    ck_assert_int_eq(v.allowed, 1);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(violation_line)
{
    gpa_violation_t v = {.rule = "non-positive", .container = "c", .message = "m"};
    ck_assert_str_eq(gpa_violation_line(&arena, &v), "c: non-positive: m");
    v.container = NULL;
    ck_assert_str_eq(gpa_violation_line(&arena, &v), "non-positive: m");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("engine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, create_mutates_then_validates);
    tcase_add_test(tc, create_without_mutation);
    tcase_add_test(tc, create_denied);
    tcase_add_test(tc, update_only_new_findings_count);
    tcase_add_test(tc, delete_and_connect_admitted);
    tcase_add_test(tc, excluded_namespace_and_other_kinds);
    tcase_add_test(tc, mutation_warnings_are_one_short_line);
    tcase_add_test(tc, warn_action_gives_a_warning);
    tcase_add_test(tc, no_room_now_is_a_warning_from_the_allocator);
    tcase_add_test(tc, warn_rule_does_not_stop_mutation);
    tcase_add_test(tc, inject_writes_what_shared_required_asks);
    tcase_add_test(tc, violation_line);
    tcase_add_test(tc, update_pod_level_finding_is_matched_by_template);
    tcase_add_test(tc, update_old_warning_does_not_excuse_a_denial);
    tcase_add_test(tc, update_is_judged_as_mutated);
    tcase_add_test(tc, big_counts_are_infeasible);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
