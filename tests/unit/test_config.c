/*
 * Check tests for rules/policy/config_load.c, the configuration's reader (config.h): defaults, every key of
 * README.md#configuration in YAML and JSON, and broken configurations reported at the offending node's line and column.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/config.h"
#include "kube/resource.h"
#include "policy/rules.h"
#include "run.h"

static gpa_config_t *parse_ok(const char *text)
{
    gpa_config_t *cfg = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "cfg.yaml");
    if (gpa_config_parse(text, strlen(text), "cfg.yaml", &cfg, &err) != 0)
        ck_abort_msg("unexpected error %u:%u %s: %s", err.line, err.column, err.path, err.message);
    ck_assert_ptr_nonnull(cfg);
    return cfg;
}

/* Parses a broken configuration and checks where the error points and that it names `word`. */
static void parse_bad(const char *text, unsigned line, unsigned column, const char *word)
{
    gpa_config_t *cfg = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "cfg.yaml");
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "cfg.yaml", &cfg, &err), -1);
    ck_assert_ptr_null(cfg);
    char line_text[900];
    gpa_error_format(&err, line_text, sizeof(line_text));
    if (err.line != line || (column != 0 && err.column != column) || strstr(line_text, word) == NULL)
        ck_abort_msg("for <<%s>> got \"%s\" (%u:%u), want %u:%u and \"%s\"", text, line_text, err.line, err.column, line, column,
                     word);
    ck_assert_ptr_nonnull(strstr(line_text, "cfg.yaml:"));
}

START_TEST(defaults)
{
    gpa_config_t *cfg = gpa_config_default();
    ck_assert_int_eq(cfg->min_device_memory, 256LL << 20);
    ck_assert_int_eq(cfg->placement.max_pods_per_device, 16);
    ck_assert_uint_eq(cfg->dialects, GPA_DIALECT_ALL);
    /* the rule table carries the defaults: deny, except unit-hint and the DRA rules docs/rules.md marks warn */
    static const char *const warn[] = {
        "unit-hint",        "dra-unknown-class",     "dra-unknown-claim",    "dra-api-version", "dra-template-sharing",
        "dra-shared-claim", "dra-capacity-unshared", "dra-capacity-rounding"};
    for (size_t i = 0; i < gpa_nrules; i++) {
        gpa_action_t want = GPA_ACTION_DENY;
        for (size_t k = 0; k < sizeof(warn) / sizeof(warn[0]); k++)
            if (strcmp(gpa_rules[i].id, warn[k]) == 0)
                want = GPA_ACTION_WARN;
        ck_assert_int_eq(cfg->actions[i], want);
    }
    ck_assert_uint_eq(cfg->nknown_resources, 0);
    ck_assert(!gpa_config_knows_resource(cfg, "koordinator.sh/gpu-shared", 25));
    ck_assert(gpa_config_excludes(cfg, "kube-system"));
    ck_assert(!gpa_config_excludes(cfg, "default"));
    /* placement unset: each dialect's scheduler default (alloc/strategy.h) */
    ck_assert_int_eq(cfg->placement.strategy, GPA_STRATEGY_SCHEDULER);
    ck_assert_int_eq(cfg->placement.core_weight, GPA_CORE_WEIGHT_SCHEDULER);
    ck_assert_ptr_null(cfg->source);
    for (size_t m = 0; m < gpa_nmutations; m++)
        ck_assert_int_eq(gpa_config_mutation_on(cfg, m), gpa_mutations[m].on);
    gpa_config_release(cfg);
    /* an empty file is the defaults */
    cfg = parse_ok("");
    ck_assert_int_eq(cfg->placement.max_pods_per_device, 16);
    ck_assert_str_eq(cfg->source, "cfg.yaml");
    gpa_config_release(cfg);
}
END_TEST

START_TEST(every_key_yaml)
{
    gpa_config_t *cfg = parse_ok("minDeviceMemory: 1Gi\n"
                                 "maxPodsPerDevice: 4\n"
                                 "dialects: [koordinator, mgpu]\n"
                                 "rules:\n"
                                 "  min-memory: warn\n"
                                 "  infeasible: off\n"
                                 "  shared-required: deny\n"
                                 "  unit-hint: deny\n"
                                 "knownResources: [example.com/gpu, koordinator.sh/gpu-shared]\n"
                                 "namespaces:\n"
                                 "  exclude: [kube-system, gpu-test]\n"
                                 "placement:\n"
                                 "  strategy: spread\n"
                                 "  coreWeight: 50\n"
                                 "mutations:\n"
                                 "  inject-gpu-shared: off\n"
                                 "  mirror-limits: \"on\"\n"
                                 "  expand-gpu: false\n");
    ck_assert_int_eq(cfg->min_device_memory, 1LL << 30);
    ck_assert_int_eq(cfg->placement.max_pods_per_device, 4);
    ck_assert_uint_eq(cfg->dialects, GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU);
    ck_assert_int_eq(cfg->actions[gpa_rule_index("min-memory")], GPA_ACTION_WARN);
    ck_assert_int_eq(cfg->actions[gpa_rule_index("infeasible")], GPA_ACTION_OFF);
    ck_assert_int_eq(cfg->actions[gpa_rule_index("shared-required")], GPA_ACTION_DENY);
    ck_assert_int_eq(cfg->actions[gpa_rule_index("vendor-vs-share")], GPA_ACTION_DENY);
    ck_assert_int_eq(cfg->actions[gpa_rule_index("unit-hint")], GPA_ACTION_DENY);
    ck_assert_uint_eq(cfg->nknown_resources, 2);
    ck_assert(gpa_config_knows_resource(cfg, "koordinator.sh/gpu-shared", 25));
    ck_assert(!gpa_config_knows_resource(cfg, "koordinator.sh/gpu-share", 24));
    ck_assert(gpa_config_excludes(cfg, "gpu-test"));
    ck_assert_uint_eq(cfg->nexclude_namespaces, 2);
    ck_assert_int_eq(cfg->placement.strategy, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(cfg->placement.core_weight, 50);
    ck_assert(!gpa_config_mutation_on(cfg, GPA_MUTATION_INJECT_GPU_SHARED));
    ck_assert(gpa_config_mutation_on(cfg, GPA_MUTATION_MIRROR_LIMITS));
    ck_assert(!gpa_config_mutation_on(cfg, GPA_MUTATION_EXPAND_GPU));
    gpa_config_release(cfg);
    cfg = parse_ok("mutations: {inject-gpu-shared: true}\n");
    ck_assert(gpa_config_mutation_on(cfg, GPA_MUTATION_INJECT_GPU_SHARED));
    gpa_config_release(cfg);
    /* `strategy:` and `coreWeight:` with no value (as the chart may render them) are unset, as if not given */
    cfg = parse_ok("placement:\n  strategy:\n  coreWeight:\n");
    ck_assert_int_eq(cfg->placement.strategy, GPA_STRATEGY_SCHEDULER);
    ck_assert_int_eq(cfg->placement.core_weight, GPA_CORE_WEIGHT_SCHEDULER);
    gpa_config_release(cfg);
    cfg = parse_ok("placement: {strategy: binpack}\n"); /* one set, the other still the scheduler's */
    ck_assert_int_eq(cfg->placement.strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(cfg->placement.core_weight, GPA_CORE_WEIGHT_SCHEDULER);
    gpa_config_release(cfg);
}
END_TEST

START_TEST(json_and_numbers)
{
    gpa_config_t *cfg = parse_ok("{\"minDeviceMemory\": 268435456, \"namespaces\": {\"exclude\": []},"
                                 " \"rules\": {\"ambiguous-unit\": \"warn\"}}");
    ck_assert_int_eq(cfg->min_device_memory, 268435456);
    ck_assert_uint_eq(cfg->nexclude_namespaces, 0);
    ck_assert(!gpa_config_excludes(cfg, "kube-system"));
    ck_assert_int_eq(cfg->actions[gpa_rule_index("ambiguous-unit")], GPA_ACTION_WARN);
    gpa_config_release(cfg);
    cfg = parse_ok("minDeviceMemory: \"0\"\ndialects: []\n");
    ck_assert_int_eq(cfg->min_device_memory, 0);
    ck_assert_uint_eq(cfg->dialects, 0);
    gpa_config_release(cfg);
}
END_TEST

START_TEST(broken_configs)
{
    parse_bad("minDeviceMemory: 1Gi\ncolour: blue\n", 2, 9,
              "cfg.yaml:2:9: unknown field \"colour\"; known: minDeviceMemory, maxPodsPerDevice, dialects, rules, namespaces, "
              "placement, knownResources, mutations, workloads");
    parse_bad("knownResources: example.com/gpu\n", 1, 17, "knownResources: must be a list, not a string");
    parse_bad("knownResources: [example.com/gpu, 3]\n", 1, 35, "knownResources[1]");
    parse_bad("knownResources: [gpu]\n", 1, 18, "\"gpu\" is not a resource name such as example.com/gpu");
    parse_bad("rules:\n  min-memory: warn\n  no-such-rule: deny\n", 3, 17, "unknown rule \"no-such-rule\"");
    parse_bad("rules:\n  min-memory: block\n", 2, 15, "unknown action \"block\"");
    parse_bad("rules:\n  min-memory: 3\n", 2, 15, "rules.min-memory: must be an action (deny, warn, off), not a number");
    parse_bad("minDeviceMemory: lots\n", 1, 18, "not a Kubernetes quantity");
    parse_bad("minDeviceMemory: 1.5\n", 1, 18, "not a whole number");
    parse_bad("minDeviceMemory: -1Gi\n", 1, 18, "out of range");
    parse_bad("minDeviceMemory: [1]\n", 1, 18, "minDeviceMemory: must be a quantity such as 256Mi, not a list");
    parse_bad("maxPodsPerDevice: \"16\"\n", 1, 19, "maxPodsPerDevice: must be a number, not a string");
    parse_bad("maxPodsPerDevice: 0\n", 1, 19, "out of range");
    parse_bad("dialects: [vendor, nvidia]\n", 1, 20, "unknown dialect \"nvidia\"");
    parse_bad("dialects: vendor\n", 1, 11, "dialects: must be a list, not a string");
    parse_bad("namespaces:\n  include: [a]\n", 2, 12, "namespaces: unknown field \"include\"; known: exclude");
    parse_bad("namespaces:\n  exclude: [a, 3]\n", 2, 16, "namespaces.exclude[1]");
    parse_bad("placement:\n  strategy: random\n", 2, 13, "unknown strategy");
    parse_bad("placement:\n  coreWeight: 101\n", 2, 15, "out of range");
    parse_bad("placement: spread\n", 1, 12, "placement: must be a mapping, not a string");
    parse_bad("- a\n- b\n", 1, 1, "cfg.yaml:1:1: must be a mapping, not a list");
    parse_bad("minDeviceMemory: 1Gi\n---\nminDeviceMemory: 2Gi\n", 3, 0, "one document");
    parse_bad("{\"rules\": {\"min-memory\": \"warn\",\n \"nope\": \"off\"}}", 2, 10, "unknown rule");
    parse_bad("minDeviceMemory: [1\n", 2, 0, "cfg.yaml");
    parse_bad("mutations:\n  inject-shared: off\n", 2, 18,
              "mutations: unknown field \"inject-shared\"; known: expand-gpu, inject-gpu-shared, mirror-limits");
    parse_bad("mutations:\n  mirror-limits: maybe\n", 2, 18, "mutations.mirror-limits: must be on or off, not a string");
    parse_bad("mutations: [expand-gpu]\n", 1, 12, "mutations: must be a mapping, not a list");
}
END_TEST

/* `hami`: HAMi's names and defaults (the `nvidia` section of its device config); other keys of that section are
 * accepted, named in one warning. */
START_TEST(hami_key)
{
    gpa_config_t *cfg = gpa_config_default();
    ck_assert(cfg->dialects & GPA_DIALECT_HAMI);
    ck_assert_str_eq(cfg->hami.device[GPA_HAMI_NVIDIA].name[GPA_HAMI_MEMORY], "nvidia.com/gpumem");
    ck_assert_ptr_eq(cfg->decode.hami, &cfg->hami);
    ck_assert(!cfg->warning.set_);
    gpa_config_release(cfg);
    cfg = parse_ok("hami:\n"
                   "  resourceCountName: nvidia.com/gpu\n"
                   "  resourceMemoryName: nvidia.com/vgpu-memory\n"
                   "  resourceMemoryPercentageName: nvidia.com/vgpu-memory-percentage\n"
                   "  resourceCoreName: nvidia.com/vgpu-cores\n"
                   "  resourcePriorityName: nvidia.com/vgpu-priority\n"
                   "  overwriteEnv: false\n"
                   "  defaultMemory: 2048\n"
                   "  defaultCores: 10\n"
                   "  defaultGPUNum: 1\n"
                   "  memoryFactor: 2\n"
                   "  deviceSplitCount: 8\n"
                   "  deviceMemoryScaling: 1\n"
                   "  migProfileAllowlist:\n"
                   "  - models: [A30]\n"
                   "workloads: []\n");
    const gpa_hami_device_t *d = &cfg->hami.device[GPA_HAMI_NVIDIA];
    ck_assert_str_eq(d->name[GPA_HAMI_MEMORY], "nvidia.com/vgpu-memory");
    ck_assert_str_eq(d->name[GPA_HAMI_PRIORITY], "nvidia.com/vgpu-priority");
    ck_assert_int_eq(d->default_memory, 2048);
    ck_assert_int_eq(d->default_cores, 10);
    ck_assert_int_eq(d->memory_factor, 2);
    ck_assert_int_eq(d->device_split_count, 8);
    ck_assert_ptr_eq(cfg->decode.hami, &cfg->hami); /* workloads read after hami keep it */
    ck_assert(cfg->warning.set_);
    ck_assert_uint_eq(cfg->warning.line, 7);
    ck_assert_ptr_nonnull(strstr(cfg->warning.message, "overwriteEnv, deviceMemoryScaling, migProfileAllowlist"));
    gpa_config_release(cfg);
    cfg = parse_ok("dialects: [hami]\n");
    ck_assert_uint_eq(cfg->dialects, GPA_DIALECT_HAMI);
    gpa_config_release(cfg);

    parse_bad("hami: [x]\n", 1, 7, "hami: must be a mapping");
    parse_bad("hami:\n  resourceMemoryName: 7\n", 2, 23, "hami.resourceMemoryName: must be a string");
    parse_bad("hami:\n  resourceMemoryName: gpumem\n", 2, 23, "is not a resource name");
    parse_bad("hami:\n  memoryFactor: 0\n", 2, 17, "out of range");
    parse_bad("hami:\n  defaultCores: 101\n", 2, 17, "out of range");
    parse_bad("hami:\n  resourceMemoryName: koordinator.sh/gpu-memory\n", 2, 3, "a resource of another dialect");
    parse_bad("hami:\n  resourceCoreName: nvidia.com/gpumem\n", 2, 3, "are both nvidia.com/gpumem");
    parse_bad("hami:\n  resourceCountName: koordinator.sh/gpu\n", 2, 3, "a resource of another dialect");
}
END_TEST

/* `workloads`: more kinds to read, each checked (fields, types, path syntax) with file:line and path. */
START_TEST(workloads_key)
{
    gpa_config_t *cfg = parse_ok("workloads:\n"
                                 "- group: example.com\n"
                                 "  kind: Trainer\n"
                                 "  podTemplates: ['spec.workers[*].template']\n"
                                 "  podSpecs: [spec.launcher]\n"
                                 "  resources: ['spec.roles.*.resources']\n"
                                 "- {group: '', kind: Pod, podTemplates: ['']}\n");
    ck_assert_uint_eq(cfg->workloads.len, 2);
    const gpa_workload_t *w = &cfg->workloads.items[0];
    ck_assert_str_eq(w->group, "example.com");
    ck_assert_str_eq(w->kind, "Trainer");
    ck_assert_str_eq(w->pod_templates[0], "spec.workers[*].template");
    ck_assert_ptr_null(w->pod_templates[1]);
    ck_assert_str_eq(w->pod_specs[0], "spec.launcher");
    ck_assert_str_eq(w->resources[0], "spec.roles.*.resources");
    ck_assert_ptr_eq(gpa_workload_find(&cfg->workloads, "example.com/v1", "Trainer"), w);
    ck_assert_ptr_eq(gpa_workload_find(&cfg->workloads, "v1", "Pod"), &cfg->workloads.items[1]);
    gpa_config_release(cfg);
    cfg = gpa_config_default();
    ck_assert_uint_eq(cfg->workloads.len, 0);
    gpa_config_release(cfg);

    parse_bad("workloads: {group: a}\n", 1, 12, "workloads: must be a list");
    parse_bad("workloads:\n- 7\n", 2, 3, "workloads[0]: must be a mapping");
    parse_bad("workloads:\n- {group: a, kind: K, podTemplate: [x]}\n", 2, 0,
              "workloads[0]: unknown field \"podTemplate\"; known: group, kind, podTemplates");
    parse_bad("workloads:\n- {group: a, kind: K, podTemplates: x}\n", 2, 0, "workloads[0].podTemplates: must be a list");
    parse_bad("workloads:\n- {group: a, kind: K, podSpecs: [7]}\n", 2, 0, "workloads[0].podSpecs[0]: must be a string");
    parse_bad("workloads:\n- group: a\n  kind: K\n  resources: ['spec..r']\n", 4, 0,
              "workloads[0].resources[0]: \"spec..r\" has an empty step");
    parse_bad("workloads:\n- {group: a, kind: K, podTemplates: ['spec.tasks[0].template']}\n", 2, 0, "a step is a key");
    parse_bad("workloads:\n- {group: example.com/v1, kind: K, podSpecs: [spec]}\n", 2, 0, "is an apiVersion");
    parse_bad("workloads:\n- {group: a, podSpecs: [spec]}\n", 2, 0, "needs group and kind");
    parse_bad("workloads:\n- {group: a, kind: '', podSpecs: [spec]}\n", 2, 0, "workloads[0].kind: must not be empty");
    parse_bad("workloads:\n- {group: a, kind: K}\n", 2, 0, "names no path");
    parse_bad("workloads:\n- {group: a, kind: K, podSpecs: [s]}\n- {group: a, kind: K, podSpecs: [t]}\n", 3, 0,
              "workloads[1]: K of group \"a\" is already workloads[0]");
}
END_TEST

START_TEST(refcount)
{
    gpa_config_t *cfg = parse_ok("maxPodsPerDevice: 8\n");
    ck_assert_ptr_eq(gpa_config_retain(cfg), cfg);
    gpa_config_release(cfg);
    ck_assert_int_eq(cfg->placement.max_pods_per_device, 8); /* still held once */
    gpa_config_release(cfg);
    gpa_config_release(NULL);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, every_key_yaml);
    tcase_add_test(tc, json_and_numbers);
    tcase_add_test(tc, broken_configs);
    tcase_add_test(tc, workloads_key);
    tcase_add_test(tc, hami_key);
    tcase_add_test(tc, refcount);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(config_suite());
}
