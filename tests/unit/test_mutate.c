/* Check tests for rules/mutate.c: each mutation, the exact patch, its application, and idempotence. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/decode.h"
#include "fixture.h"
#include "policy/mutate.h"
#include "policy/rules.h"
#include "policy/validate.h"
#include "run.h"

typedef struct st_result_t {
    const char *patch;
    gpa_warnings_t warnings;
    gpa_strings_t applied;
    gpa_value_t *mutated;
} result_t;

static result_t run(gpa_value_t *doc)
{
    result_t r = {0};
    gpa_patch_t patch = {0};
    gpa_mutate(&arena, cfg, NULL, decode(doc), &patch, &r.warnings, &r.applied);
    r.patch = patch_text(&patch);
    r.mutated = doc;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_patch_apply(&arena, &r.mutated, &patch, &err) == 0, "apply %s: %s", r.patch, err.message);
    return r;
}

/* After the patch every GPU resource with a request has the same limit (in every container mutation may touch). */
static void check_request_equals_limit(const gpa_object_t *obj)
{
    for (size_t p = 0; p < obj->npods; p++) {
        const gpa_podspec_t *pod = &obj->pods[p];
        for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
            const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
            if (gpa_validate_container(&arena, cfg, pod, c, NULL) != 0)
                continue;
            for (int r = 0; r < GPA_R__COUNT; r++) {
                if (!gpa_container_request(c, (gpa_resource_t)r)->present ||
                    gpa_container_request(c, (gpa_resource_t)r)->status != GPA_Q_OK)
                    continue;
                ck_assert_msg(gpa_container_limit(c, (gpa_resource_t)r)->present, "%s: %s has no limit", c->name,
                              gpa_resource_name((gpa_resource_t)r));
                ck_assert_int_eq(gpa_container_limit(c, (gpa_resource_t)r)->value,
                                 gpa_container_request(c, (gpa_resource_t)r)->value);
            }
        }
    }
}

/*
 * The core assertion: `doc` mutates with exactly `want_patch`, the patched document equals `want_doc`, the
 * patched document mutates to an empty patch, and every GPU request has an equal limit afterwards.
 */
static result_t check_mutation(const char *doc, const char *want_patch, const char *want_doc)
{
    gpa_value_t *input = json(doc);
    result_t r = run(input);
    ck_assert_str_eq(r.patch, want_patch);
    ck_assert_msg(gpa_value_equal(r.mutated, json(want_doc)), "patched document differs from %s", want_doc);
    ck_assert_msg(gpa_value_equal(input, json(doc)), "input tree modified");
    result_t again = run(r.mutated);
    ck_assert_str_eq(again.patch, "[]");
    ck_assert_int_eq(again.applied.len, 0);
    check_request_equals_limit(decode(r.mutated));
    return r;
}

static void check_applied(const result_t *r, const char *const *ids, size_t n)
{
    ck_assert_int_eq(r->applied.len, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(r->applied.items[i], ids[i]);
}

#define POD(containers)                                                                                                            \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[" containers "]}}"
#define C(name, resources) "{\"name\":\"" name "\",\"image\":\"img\",\"resources\":" resources "}"

START_TEST(inject_shared_one)
{
    result_t r = check_mutation(
        POD(C("a", "{\"requests\":{\"cpu\":\"1\",\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"},"
                   "\"limits\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"}]",
        POD(C("a", "{\"requests\":{\"cpu\":\"1\",\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\","
                   "\"koordinator.sh/gpu.shared\":\"1\"},"
                   "\"limits\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\","
                   "\"koordinator.sh/gpu.shared\":\"1\"}}")));
    static const char *const ids[] = {"inject-gpu-shared"};
    check_applied(&r, ids, 1);
    ck_assert_int_eq(r.warnings.len, 0);
}
END_TEST

START_TEST(inject_shared_from_ratio_and_core)
{
    /* ratio 200 → 2 devices */
    check_mutation(POD(C("a", "{\"limits\":{\"koordinator.sh/gpu-core\":\"200\",\"koordinator.sh/gpu-memory-ratio\":\"200\"}}")),
                   "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests\","
                   "\"value\":{\"koordinator.sh/gpu.shared\":\"2\"}},"
                   "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"2\"}]",
                   POD(C("a", "{\"requests\":{\"koordinator.sh/gpu.shared\":\"2\"},\"limits\":{\"koordinator.sh/gpu-core\":\"200\","
                              "\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu.shared\":\"2\"}}")));
    /* bytes with core 300 → 3 devices; bytes with core 50 → 1 */
    check_mutation(
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-core\":\"300\",\"koordinator.sh/gpu-memory\":\"30Gi\"},"
                   "\"limits\":{\"koordinator.sh/gpu-core\":\"300\",\"koordinator.sh/gpu-memory\":\"30Gi\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"3\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"3\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-core\":\"300\",\"koordinator.sh/gpu-memory\":\"30Gi\","
                   "\"koordinator.sh/gpu.shared\":\"3\"},"
                   "\"limits\":{\"koordinator.sh/gpu-core\":\"300\",\"koordinator.sh/gpu-memory\":\"30Gi\","
                   "\"koordinator.sh/gpu.shared\":\"3\"}}")));
    check_mutation(
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory\":\"8Gi\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory\":\"8Gi\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu.shared\":\"1\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu.shared\":\"1\"}}")));
}
END_TEST

START_TEST(expand_gpu)
{
    result_t r = check_mutation(
        POD(C("trainer", "{\"requests\":{\"koordinator.sh/gpu\":\"50\"},\"limits\":{\"koordinator.sh/gpu\":\"50\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu-memory-ratio\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu-core\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-memory-ratio\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-core\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu\"}]",
        POD(C("trainer", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\","
                         "\"koordinator.sh/gpu.shared\":\"1\"},"
                         "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\","
                         "\"koordinator.sh/gpu.shared\":\"1\"}}")));
    static const char *const ids[] = {"expand-gpu", "inject-gpu-shared"};
    check_applied(&r, ids, 2);
    ck_assert_int_eq(r.warnings.len, 1);
    ck_assert_ptr_nonnull(strstr(r.warnings.items[0].text, "trainer"));
    ck_assert_ptr_nonnull(strstr(r.warnings.items[0].text, "deprecated"));
    ck_assert_ptr_nonnull(strstr(r.warnings.items[0].text, "gpu-core: 50"));
}
END_TEST

START_TEST(expand_gpu_small_percent)
{
    /* koordinator.sh/gpu: 2 reads like two devices: the warning says it is 2% of one (docs/rules.md#unit-hint) */
    result_t r = run(json(POD(C("a", "{\"limits\":{\"koordinator.sh/gpu\":\"2\"}}"))));
    ck_assert_int_eq(r.warnings.len, 1);
    ck_assert_str_eq(r.warnings.items[0].text, "a: koordinator.sh/gpu: 2 is 2% of one device; 2 devices are 200; deprecated, now "
                                               "gpu-core: 2, gpu-memory-ratio: 2");
    r = run(json(POD(C("a", "{\"limits\":{\"koordinator.sh/gpu\":\"10\"}}"))));
    ck_assert_str_eq(r.warnings.items[0].text,
                     "a: koordinator.sh/gpu is deprecated; rewritten as gpu-core: 10, gpu-memory-ratio: 10");
}
END_TEST

START_TEST(typo_not_hidden)
{
    /* a near miss of gpu.shared beside a memory form: nothing is injected beside it (the rule denies instead) */
    result_t r =
        run(json(POD(C("a", "{\"limits\":{\"koordinator.sh/gpu-shared\":\"1\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}"))));
    ck_assert_str_eq(r.patch, "[]");
    ck_assert_int_eq(r.applied.len, 0);
}
END_TEST

START_TEST(expand_gpu_whole_devices)
{
    /* gpu: 200 → core 200, ratio 200, shared 2; written only as a limit, the requests map is added whole. */
    check_mutation(
        POD(C("a", "{\"limits\":{\"koordinator.sh/gpu\":\"200\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests\",\"value\":"
        "{\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu-core\":\"200\",\"koordinator.sh/gpu.shared\":\"2\"}},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-memory-ratio\",\"value\":\"200\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-core\",\"value\":\"200\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"2\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu-core\":\"200\","
                   "\"koordinator.sh/gpu.shared\":\"2\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu-core\":\"200\","
                   "\"koordinator.sh/gpu.shared\":\"2\"}}")));
}
END_TEST

START_TEST(expand_gpu_beside_zeros)
{
    /* A share resource declared as 0 counts as not declared (docs/rules.md#rules), so gpu: 50 is alone: expanded, the zero
     * overwritten, with the deprecation warning. */
    result_t r = check_mutation(
        POD(C("a", "{\"limits\":{\"koordinator.sh/gpu\":\"50\",\"koordinator.sh/gpu-core\":\"0\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests\",\"value\":"
        "{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-memory-ratio\",\"value\":\"50\"},"
        "{\"op\":\"replace\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-core\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\","
                   "\"koordinator.sh/gpu.shared\":\"1\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\","
                   "\"koordinator.sh/gpu.shared\":\"1\"}}")));
    static const char *const ids[] = {"expand-gpu", "inject-gpu-shared"};
    check_applied(&r, ids, 2);
    ck_assert_int_eq(r.warnings.len, 1);
}
END_TEST

START_TEST(mirror_limits_adds_missing_map)
{
    result_t r = check_mutation(
        POD(C("a", "{\"requests\":{\"nvidia.com/gpu\":\"2\",\"cpu\":\"4\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits\",\"value\":{\"nvidia.com/gpu\":\"2\"}}]",
        POD(C("a", "{\"requests\":{\"nvidia.com/gpu\":\"2\",\"cpu\":\"4\"},\"limits\":{\"nvidia.com/gpu\":\"2\"}}")));
    static const char *const ids[] = {"mirror-limits"};
    check_applied(&r, ids, 1);
}
END_TEST

/* HAMi's quota guide writes requests alone: every name of the HAMi block gets its limit, the priority too */
START_TEST(mirror_limits_hami_names)
{
    result_t r = check_mutation(
        POD(C("a", "{\"requests\":{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem\":\"2000\",\"nvidia.com/priority\":\"1\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits\",\"value\":{\"nvidia.com/gpu\":\"2\","
        "\"nvidia.com/gpumem\":\"2000\",\"nvidia.com/priority\":\"1\"}}]",
        POD(C("a", "{\"requests\":{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem\":\"2000\",\"nvidia.com/priority\":\"1\"},"
                   "\"limits\":{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem\":\"2000\",\"nvidia.com/priority\":\"1\"}}")));
    static const char *const ids[] = {"mirror-limits"};
    check_applied(&r, ids, 1);
    /* into an existing limits map, key by key; a priority already limited is left alone */
    check_mutation(
        POD(C("a", "{\"requests\":{\"nvidia.com/gpucores\":\"30\",\"nvidia.com/gpumem-percentage\":\"25\","
                   "\"nvidia.com/priority\":\"0\"},\"limits\":{\"cpu\":\"1\",\"nvidia.com/priority\":\"0\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpumem-percentage\",\"value\":\"25\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpucores\",\"value\":\"30\"}]",
        POD(C("a", "{\"requests\":{\"nvidia.com/gpucores\":\"30\",\"nvidia.com/gpumem-percentage\":\"25\","
                   "\"nvidia.com/priority\":\"0\"},\"limits\":{\"cpu\":\"1\",\"nvidia.com/priority\":\"0\","
                   "\"nvidia.com/gpumem-percentage\":\"25\",\"nvidia.com/gpucores\":\"30\"}}")));
    /* the priority alone is mirrored too, into an existing map */
    check_mutation(POD(C("a", "{\"requests\":{\"nvidia.com/gpumem\":\"1000\",\"nvidia.com/priority\":\"1\"},"
                              "\"limits\":{\"nvidia.com/gpumem\":\"1000\"}}")),
                   "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1priority\",\"value\":\"1\"}]",
                   POD(C("a", "{\"requests\":{\"nvidia.com/gpumem\":\"1000\",\"nvidia.com/priority\":\"1\"},"
                              "\"limits\":{\"nvidia.com/gpumem\":\"1000\",\"nvidia.com/priority\":\"1\"}}")));
}
END_TEST

START_TEST(mirror_limits_into_existing_map_and_user_shared_untouched)
{
    check_mutation(
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory\":\"4Gi\","
                   "\"koordinator.sh/gpu.shared\":\"1\"},\"limits\":{\"cpu\":\"1\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-memory\",\"value\":\"4Gi\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-core\",\"value\":\"50\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory\":\"4Gi\","
                   "\"koordinator.sh/gpu.shared\":\"1\"},\"limits\":{\"cpu\":\"1\",\"koordinator.sh/gpu-memory\":\"4Gi\","
                   "\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}}")));
}
END_TEST

START_TEST(escaped_key_in_input)
{
    /* A key written with \u002f is the same resource: the patch names it with ~1, not the escape. */
    check_mutation(
        POD(C("a", "{\"requests\":{\"koordinator.sh\\u002fgpu-memory-ratio\":\"30\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"30\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"30\",\"koordinator.sh/gpu.shared\":\"1\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"30\",\"koordinator.sh/gpu.shared\":\"1\"}}")));
}
END_TEST

START_TEST(escaped_deprecated_key_removed)
{
    /* koordinator.sh\u002fgpu is koordinator.sh/gpu: expanded, and removed by its ~1 pointer. */
    check_mutation(
        POD(C("a", "{\"requests\":{\"koordinator.sh\\u002fgpu\":\"100\"},\"limits\":{\"koordinator.sh\\u002fgpu\":\"100\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu-memory-ratio\",\"value\":\"100\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu-core\",\"value\":\"100\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/requests/koordinator.sh~1gpu\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-memory-ratio\",\"value\":\"100\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu-core\",\"value\":\"100\"},"
        "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu.shared\",\"value\":\"1\"},"
        "{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/limits/koordinator.sh~1gpu\"}]",
        POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"100\",\"koordinator.sh/gpu-core\":\"100\","
                   "\"koordinator.sh/gpu.shared\":\"1\"},"
                   "\"limits\":{\"koordinator.sh/gpu-memory-ratio\":\"100\",\"koordinator.sh/gpu-core\":\"100\","
                   "\"koordinator.sh/gpu.shared\":\"1\"}}")));
}
END_TEST

START_TEST(init_containers_and_templates)
{
    check_mutation(
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"template\":{\"spec\":{"
        "\"initContainers\":[{\"name\":\"init\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\"}}}],"
        "\"containers\":[{\"name\":\"main\"}]}}}}",
        "[{\"op\":\"add\",\"path\":\"/spec/template/spec/initContainers/0/resources/limits\",\"value\":{\"nvidia.com/"
        "gpu\":\"1\"}}]",
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"template\":{\"spec\":{"
        "\"initContainers\":[{\"name\":\"init\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\"},"
        "\"limits\":{\"nvidia.com/gpu\":\"1\"}}}],\"containers\":[{\"name\":\"main\"}]}}}}");
}
END_TEST

START_TEST(invalid_container_left_alone)
{
    /* memory and ratio together (memory-ratio-exclusive): no mutation, not even mirror-limits. */
    result_t r = check_mutation(
        POD(C("bad", "{\"requests\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}") "," C(
            "good", "{\"requests\":{\"nvidia.com/gpu\":\"1\"}}")),
        "[{\"op\":\"add\",\"path\":\"/spec/containers/1/resources/limits\",\"value\":{\"nvidia.com/gpu\":\"1\"}}]",
        POD(C("bad", "{\"requests\":{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}") "," C(
            "good", "{\"requests\":{\"nvidia.com/gpu\":\"1\"},\"limits\":{\"nvidia.com/gpu\":\"1\"}}")));
    ck_assert_int_eq(r.applied.len, 1);
}
END_TEST

START_TEST(nothing_to_do)
{
    result_t r = check_mutation(POD(C("a", "{\"requests\":{\"cpu\":\"1\"}}") ",{\"name\":\"b\"}"), "[]",
                                POD(C("a", "{\"requests\":{\"cpu\":\"1\"}}") ",{\"name\":\"b\"}"));
    ck_assert_int_eq(r.applied.len, 0);
    check_mutation("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}", "[]",
                   "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}");
}
END_TEST

START_TEST(table)
{
    ck_assert_int_eq(gpa_nmutations, 5);
    ck_assert_int_eq(gpa_mutation_index("expand-gpu"), 0);
    ck_assert_int_eq(gpa_mutation_index("inject-gpu-shared"), 1);
    ck_assert_int_eq(gpa_mutation_index("mirror-limits"), 2);
    ck_assert_int_eq(gpa_mutation_index("ray-num-gpus"), 3);
    ck_assert_int_eq(gpa_mutation_index("ray-gpu-memory"), 4);
    /* On by default, except ray-gpu-memory. */
    ck_assert_uint_eq(gpa_mutations_default(), 0xfu);
    ck_assert_int_eq(gpa_mutation_index("nope"), -1);
    for (size_t i = 0; i < gpa_nmutations; i++) {
        ck_assert(gpa_mutations[i].doc != NULL && gpa_mutations[i].doc[0] != '\0');
    }
}
END_TEST

/* A mutation switched off in the configuration (`mutations`) is not run; the others are. */
START_TEST(switched_off)
{
    static const char conf[] = "mutations: {inject-gpu-shared: off}\n";
    gpa_error_t err = {0};
    gpa_error_init(&err, "conf");
    gpa_config_release(cfg);
    ck_assert_msg(gpa_config_parse(conf, strlen(conf), "conf", &cfg, &err) == 0, "%s", err.message);
    result_t r = run(json(POD(C("a", "{\"requests\":{\"koordinator.sh/gpu-memory-ratio\":\"50\"}}"))));
    ck_assert_ptr_null(strstr(r.patch, "gpu.shared"));
    static const char *const ids[] = {"mirror-limits"};
    check_applied(&r, ids, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mutate");
    TCase *tc = tcase_create("mutate");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, inject_shared_one);
    tcase_add_test(tc, inject_shared_from_ratio_and_core);
    tcase_add_test(tc, expand_gpu);
    tcase_add_test(tc, expand_gpu_whole_devices);
    tcase_add_test(tc, expand_gpu_beside_zeros);
    tcase_add_test(tc, mirror_limits_adds_missing_map);
    tcase_add_test(tc, mirror_limits_hami_names);
    tcase_add_test(tc, mirror_limits_into_existing_map_and_user_shared_untouched);
    tcase_add_test(tc, escaped_key_in_input);
    tcase_add_test(tc, escaped_deprecated_key_removed);
    tcase_add_test(tc, expand_gpu_small_percent);
    tcase_add_test(tc, typo_not_hidden);
    tcase_add_test(tc, init_containers_and_templates);
    tcase_add_test(tc, invalid_container_left_alone);
    tcase_add_test(tc, nothing_to_do);
    tcase_add_test(tc, table);
    tcase_add_test(tc, switched_off);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
