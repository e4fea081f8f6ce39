/* Check tests for kube/dra_nvidia.c: NVIDIA's opaque configuration decoded as the driver decodes it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "document/docs.h"
#include "kube/dra_nvidia.h"
#include "policy/engine.h"
#include "run.h"

static const gpa_value_t *params(const char *text)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_docs_parse(&arena, text, strlen(text), &docs, &err) == 0 && docs.len == 1, "parse: %s", err.message);
    return docs.docs[0];
}

static gpa_nvidia_fault_t faults[GPA_NVIDIA_MAX_FAULTS];

static size_t check_with(const char *text, const gpa_nvidia_gates_t *gates)
{
    return gpa_nvidia_check(&arena, params(text), gates, faults, GPA_NVIDIA_MAX_FAULTS);
}

/* Exactly one fault, at `path`, whose message holds `needle`. */
static void one_fault(const char *text, const gpa_nvidia_gates_t *gates, const char *path, const char *needle)
{
    size_t n = check_with(text, gates);
    ck_assert_msg(n == 1, "%s: %zu faults (first: %s)", text, n, n ? faults[0].message : "");
    ck_assert_str_eq(faults[0].path, path);
    ck_assert_msg(strstr(faults[0].message, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", text, faults[0].message, needle);
}

#define API "apiVersion: resource.nvidia.com/v1beta1\n"

static const gpa_nvidia_gates_t all_on = {1, 1, 0, 0};
static const gpa_nvidia_gates_t all_off = {0, 0, 0, 0};

START_TEST(test_valid_configs_pass)
{
    static const char *const ok[] = {
        API "kind: GpuConfig\n",
        API "kind: GpuConfig\nsharing: {strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}\n",
        API "kind: GpuConfig\nsharing: {strategy: TimeSlicing}\n",
        API "kind: GpuConfig\nsharing:\n  strategy: MPS\n  mpsConfig:\n    defaultActiveThreadPercentage: 50\n"
            "    defaultPinnedDeviceMemoryLimit: 10Gi\n    defaultPerDevicePinnedMemoryLimit: {\"0\": 1Mi, GPU-1a2b: 5Gi}\n"
            "    multiUser: true\n",
        API "kind: MigDeviceConfig\nsharing: {strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 0}}\n",
        API "kind: MigDeviceConfig\nsharing: {strategy: TimeSlicing}\n",
        API "kind: VfioDeviceConfig\niommu: {backendPolicy: PreferIommuFD, enableAPIDevice: true}\n",
        API "kind: VfioDeviceConfig\n",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        size_t n = check_with(ok[i], &all_on);
        ck_assert_msg(n == 0, "%s: %s", ok[i], n ? faults[0].message : "");
        ck_assert_uint_eq(check_with(ok[i], NULL), 0);
    }
}
END_TEST

START_TEST(test_type_meta)
{
    one_fault("apiVersion: resource.nvidia.com/v1alpha1\nkind: GpuConfig\n", NULL, "apiVersion", "v1beta1");
    one_fault("kind: GpuConfig\n", NULL, "apiVersion", "write resource.nvidia.com/v1beta1");
    one_fault(API "kind: GPUConfig\n", NULL, "kind", "GPUConfig");
    one_fault(API "kind: ComputeDomainChannelConfig\n", NULL, "kind", "GpuConfig, MigDeviceConfig");
    one_fault("[1, 2]\n", NULL, "", "not a mapping");
    ck_assert_uint_eq(gpa_nvidia_check(&arena, NULL, NULL, faults, GPA_NVIDIA_MAX_FAULTS), 0);
}
END_TEST

START_TEST(test_unknown_fields)
{
    one_fault(API "kind: GpuConfig\nmetadata: {name: x}\n", NULL, "metadata", "unknown field \"metadata\"");
    one_fault(API "kind: VfioDeviceConfig\nsharing: {strategy: MPS}\n", NULL, "sharing", "unknown field");
    one_fault(API "kind: GpuConfig\nsharing: {strategy: MPS, mpsConfig: {threads: 5}}\n", NULL, "sharing.mpsConfig.threads",
              "unknown field");
    one_fault(API "kind: GpuConfig\nsharing: {strategy: TimeSlicing, timeSlicingConfig: {interval: Short, x: 1}}\n", NULL,
              "sharing.timeSlicingConfig.x", "unknown field");
    one_fault(API "kind: VfioDeviceConfig\niommu: {backendPolicy: LegacyOnly, mode: x}\n", NULL, "iommu.mode", "unknown field");
}
END_TEST

START_TEST(test_kind_against_fields)
{
    /* A MigDeviceConfig has no time-slicing settings. */
    one_fault(API "kind: MigDeviceConfig\nsharing: {strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}\n", NULL,
              "sharing.timeSlicingConfig", "unknown field");
}
END_TEST

START_TEST(test_enums)
{
    one_fault(API "kind: GpuConfig\nsharing: {strategy: Exclusive}\n", NULL, "sharing.strategy", "TimeSlicing or MPS");
    one_fault(API "kind: GpuConfig\nsharing: {}\n", NULL, "sharing.strategy", "strategy \"\"");
    one_fault(API "kind: GpuConfig\nsharing: {strategy: TimeSlicing, timeSlicingConfig: {interval: VeryLong}}\n", NULL,
              "sharing.timeSlicingConfig.interval", "Default, Short, Medium or Long");
    one_fault(API "kind: GpuConfig\nsharing: {strategy: TimeSlicing, timeSlicingConfig: {}}\n", NULL,
              "sharing.timeSlicingConfig.interval", "without an interval");
    one_fault(API "kind: VfioDeviceConfig\niommu: {backendPolicy: Iommufd}\n", NULL, "iommu.backendPolicy", "LegacyOnly");
}
END_TEST

START_TEST(test_strategy_mix)
{
    one_fault(API "kind: GpuConfig\nsharing: {strategy: MPS, timeSlicingConfig: {interval: Short}}\n", NULL,
              "sharing.timeSlicingConfig", "cannot use TimeSlicingConfig");
    one_fault(API "kind: GpuConfig\nsharing: {strategy: TimeSlicing, mpsConfig: {}}\n", NULL, "sharing.mpsConfig",
              "cannot use MpsConfig");
    one_fault(API "kind: MigDeviceConfig\nsharing: {strategy: TimeSlicing, mpsConfig: {}}\n", NULL, "sharing.mpsConfig",
              "cannot use MpsConfig");
}
END_TEST

START_TEST(test_ranges)
{
    const char *pct = API "kind: GpuConfig\nsharing: {strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: %s}}\n";
    static const char *const bad[] = {"101", "-1", "50.5", "\"50\""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        one_fault(gpa_arena_printf(&arena, pct, bad[i]), NULL, "sharing.mpsConfig.defaultActiveThreadPercentage", "0");
    ck_assert_uint_eq(check_with(gpa_arena_printf(&arena, pct, "100"), NULL), 0);
    const char *pin = API "kind: GpuConfig\nsharing: {strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: %s}}\n";
    one_fault(gpa_arena_printf(&arena, pin, "1023Ki"), NULL, "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit", "below 1Mi");
    one_fault(gpa_arena_printf(&arena, pin, "0"), NULL, "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit", "below 1Mi");
    one_fault(gpa_arena_printf(&arena, pin, "10GB"), NULL, "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit", "not a quantity");
    ck_assert_uint_eq(check_with(gpa_arena_printf(&arena, pin, "1Mi"), NULL), 0);
    ck_assert_uint_eq(check_with(gpa_arena_printf(&arena, pin, "1048576"), NULL), 0);
}
END_TEST

START_TEST(test_per_device_keys)
{
    const char *per = API "kind: GpuConfig\nsharing: {strategy: MPS, mpsConfig: {defaultPerDevicePinnedMemoryLimit: {%s: 1Gi}}}\n";
    static const char *const bad[] = {"gpu0", "\"-1\"", "GPU-", "\"\""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        one_fault(gpa_arena_printf(&arena, per, bad[i]), NULL,
                  gpa_arena_printf(&arena, "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit.%s",
                                   bad[i][0] == '"' ? (bad[i][1] == '-' ? "-1" : "") : bad[i]),
                  "neither a device index nor a device UUID");
    static const char *const good[] = {"\"0\"", "\"7\"", "MIG-4f1a", "GPU-9c2e"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_uint_eq(check_with(gpa_arena_printf(&arena, per, good[i]), NULL), 0);
}
END_TEST

START_TEST(test_gates)
{
    const char *ts = API "kind: GpuConfig\nsharing: {strategy: TimeSlicing}\n";
    const char *mps = API "kind: MigDeviceConfig\nsharing: {strategy: MPS}\n";
    one_fault(ts, &all_off, "sharing.strategy", "TimeSlicingSettings");
    one_fault(mps, &all_off, "sharing.strategy", "MPSSupport");
    gpa_nvidia_gates_t cs = {1, 1, 1, 0}, dmig = {1, 1, 0, 1}, unknown = {-1, -1, -1, -1};
    one_fault(mps, &cs, "sharing.strategy", "ConsumableShares");
    one_fault(mps, &dmig, "sharing.strategy", "DynamicMIG");
    ck_assert_uint_eq(check_with(ts, &cs), 0);
    ck_assert_uint_eq(check_with(ts, &unknown), 0);
    ck_assert_uint_eq(check_with(mps, &unknown), 0);
}
END_TEST

START_TEST(test_fault_cap)
{
    const char *many = API "kind: GpuConfig\na: 1\nb: 1\nc: 1\nd: 1\ne: 1\nf: 1\ng: 1\nh: 1\ni: 1\nj: 1\n";
    ck_assert_uint_eq(check_with(many, NULL), GPA_NVIDIA_MAX_FAULTS);
    ck_assert_uint_eq(gpa_nvidia_check(&arena, params(many), NULL, faults, 2), 2);
}
END_TEST

START_TEST(test_sharing_question)
{
    ck_assert_int_eq(gpa_nvidia_sharing(params(API "kind: GpuConfig\nsharing: {strategy: TimeSlicing}\n")),
                     GPA_NVIDIA_SHARE_TIME_SLICING);
    ck_assert_int_eq(gpa_nvidia_sharing(params(API "kind: MigDeviceConfig\nsharing: {strategy: MPS}\n")), GPA_NVIDIA_SHARE_MPS);
    ck_assert_int_eq(gpa_nvidia_sharing(params(API "kind: GpuConfig\n")), GPA_NVIDIA_SHARE_NONE);
    ck_assert_int_eq(gpa_nvidia_sharing(params(API "kind: GpuConfig\nsharing: {strategy: Other}\n")), GPA_NVIDIA_SHARE_NONE);
    ck_assert_int_eq(gpa_nvidia_sharing(params("apiVersion: resource.nvidia.com/v1\nkind: GpuConfig\nsharing: {strategy: MPS}\n")),
                     GPA_NVIDIA_SHARE_NONE);
    ck_assert_int_eq(gpa_nvidia_sharing(params(API "kind: VfioDeviceConfig\n")), GPA_NVIDIA_SHARE_NONE);
    ck_assert_int_eq(gpa_nvidia_sharing(NULL), GPA_NVIDIA_SHARE_NONE);
    ck_assert_str_eq(gpa_nvidia_sharing_name(GPA_NVIDIA_SHARE_MPS), "MPS");
    ck_assert_ptr_null(gpa_nvidia_sharing_name(GPA_NVIDIA_SHARE_NONE));
}
END_TEST

/* The rule on a claim: "rule path" of each finding, space-separated. */
static const char *findings(const char *strategy)
{
    const char *text =
        gpa_arena_printf(&arena,
                         "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n"
                         "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}],\n"
                         "  config: [{opaque: {driver: example.com, parameters: {x: 1}}},\n"
                         "   {opaque: {driver: gpu.nvidia.com, parameters: {apiVersion: resource.nvidia.com/v1beta1, "
                         "kind: GpuConfig, sharing: {strategy: %s}}}}]}}\n",
                         strategy);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_check(&arena, cfg, decode((gpa_value_t *)params(text)), &opts, &v, &err), 0);
    const char *out = "";
    for (size_t i = 0; i < v.violations.len; i++)
        out = gpa_arena_printf(&arena, "%s%s%s%s %s", out, i > 0 ? " " : "", v.violations.items[i].rule,
                               v.violations.items[i].action == GPA_ACTION_DENY ? "!" : "", v.violations.items[i].path);
    return out;
}

START_TEST(test_rule_on_claim)
{
    ck_assert_str_eq(findings("TimeSlicing"), "");
    ck_assert_str_eq(findings("Spatial"), "dra-opaque-config! spec.devices.config[1].opaque.parameters.sharing.strategy");
    cfg->dra.nvidia_gates_set = 1; /* featureGates: {} : every gate at the driver's default, off */
    ck_assert_str_eq(findings("TimeSlicing"), "dra-opaque-config! spec.devices.config[1].opaque.parameters.sharing.strategy");
    cfg->dra.nvidia_gates_on = 1u << GPA_NVIDIA_GATE_TIME_SLICING;
    ck_assert_str_eq(findings("TimeSlicing"), "");
}
END_TEST

START_TEST(test_device_kinds)
{
    ck_assert_int_eq(gpa_nvidia_config_device(params(API "kind: GpuConfig\n")), GPA_NVIDIA_DEVICE_GPU);
    ck_assert_int_eq(gpa_nvidia_config_device(params(API "kind: MigDeviceConfig\n")), GPA_NVIDIA_DEVICE_MIG);
    ck_assert_int_eq(gpa_nvidia_config_device(params(API "kind: VfioDeviceConfig\n")), GPA_NVIDIA_DEVICE_VFIO);
    ck_assert_int_eq(gpa_nvidia_config_device(params(API "kind: Gpuconfig\n")), GPA_NVIDIA_DEVICE_UNKNOWN);
    ck_assert_int_eq(gpa_nvidia_config_device(params("apiVersion: resource.nvidia.com/v1\nkind: GpuConfig\n")),
                     GPA_NVIDIA_DEVICE_UNKNOWN);
    ck_assert_int_eq(gpa_nvidia_config_device(NULL), GPA_NVIDIA_DEVICE_UNKNOWN);
    ck_assert_int_eq(gpa_nvidia_class_device("gpu.nvidia.com"), GPA_NVIDIA_DEVICE_GPU);
    ck_assert_int_eq(gpa_nvidia_class_device("mig.nvidia.com"), GPA_NVIDIA_DEVICE_MIG);
    ck_assert_int_eq(gpa_nvidia_class_device("vfio.gpu.nvidia.com"), GPA_NVIDIA_DEVICE_VFIO);
    ck_assert_int_eq(gpa_nvidia_class_device("mig-1g.10gb.nvidia.com"), GPA_NVIDIA_DEVICE_UNKNOWN);
    ck_assert_int_eq(gpa_nvidia_class_device(NULL), GPA_NVIDIA_DEVICE_UNKNOWN);
    ck_assert_str_eq(gpa_nvidia_device_config_kind(GPA_NVIDIA_DEVICE_MIG), "MigDeviceConfig");
    ck_assert_str_eq(gpa_nvidia_device_class(GPA_NVIDIA_DEVICE_VFIO), "vfio.gpu.nvidia.com");
    ck_assert_ptr_null(gpa_nvidia_device_class(GPA_NVIDIA_DEVICE_UNKNOWN));
}
END_TEST

/* A template whose requests are gpu (gpu.nvidia.com), mig (mig.nvidia.com), own (a cluster's class) and fa
 * (firstAvailable: full of gpu.nvidia.com, part of mig.nvidia.com), with one config of kind `kind` naming `requests`:
 * the rule's findings as "rule path message-prefix", or "" when none. */
static const char *kind_findings(const char *kind, const char *requests)
{
    const char *text = gpa_arena_printf(
        &arena,
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\n"
        "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}},\n"
        "  {name: mig, exactly: {deviceClassName: mig.nvidia.com}}, {name: own, exactly: {deviceClassName: my-gpus}},\n"
        "  {name: fa, firstAvailable: [{name: full, deviceClassName: gpu.nvidia.com}, {name: part, deviceClassName: "
        "mig.nvidia.com}]}],\n"
        "  config: [{requests: %s, opaque: {driver: gpu.nvidia.com, parameters: {apiVersion: resource.nvidia.com/v1beta1, "
        "kind: %s}}}]}}}\n",
        requests, kind);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_check(&arena, cfg, decode((gpa_value_t *)params(text)), &opts, &v, &err), 0);
    const char *out = "";
    for (size_t i = 0; i < v.violations.len; i++)
        out = gpa_arena_printf(&arena, "%s%s%s %s %.40s", out, i > 0 ? " | " : "", v.violations.items[i].rule,
                               v.violations.items[i].path, v.violations.items[i].message);
    return out;
}

START_TEST(test_rule_config_kind_against_class)
{
    const char *path = "dra-opaque-config spec.spec.devices.config[0].opaque.parameters.kind ";
    ck_assert_str_eq(kind_findings("GpuConfig", "[gpu]"), "");
    ck_assert_str_eq(kind_findings("MigDeviceConfig", "[mig]"), "");
    ck_assert_str_eq(kind_findings("GpuConfig", "[mig]"),
                     gpa_arena_printf(&arena, "%sGpuConfig is for requests of class gpu.n", path));
    ck_assert_str_eq(kind_findings("MigDeviceConfig", "[gpu]"),
                     gpa_arena_printf(&arena, "%sMigDeviceConfig is for requests of class", path));
    ck_assert_str_eq(kind_findings("VfioDeviceConfig", "[gpu]"),
                     gpa_arena_printf(&arena, "%sVfioDeviceConfig is for requests of clas", path));
    /* one finding per request named of the other kind; none for a class gpuadmit does not know */
    ck_assert_str_eq(kind_findings("GpuConfig", "[gpu, mig, own, mig]"),
                     gpa_arena_printf(&arena,
                                      "%sGpuConfig is for requests of class gpu.n | %sGpuConfig is for requests of class gpu.n",
                                      path, path));
    /* firstAvailable: the alternative named is judged; the parent name is matched by the driver against nothing */
    ck_assert_str_eq(kind_findings("GpuConfig", "[fa/full]"), "");
    ck_assert_str_eq(kind_findings("GpuConfig", "[fa/part]"),
                     gpa_arena_printf(&arena, "%sGpuConfig is for requests of class gpu.n", path));
    ck_assert_str_eq(kind_findings("MigDeviceConfig", "[fa]"), "");
    /* no request named: the driver applies it to the devices of its own kind only */
    ck_assert_str_eq(kind_findings("GpuConfig", "[]"), "");
    ck_assert_str_eq(kind_findings("MigDeviceConfig", "[]"), "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dra_nvidia");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_valid_configs_pass);
    tcase_add_test(tc, test_type_meta);
    tcase_add_test(tc, test_unknown_fields);
    tcase_add_test(tc, test_kind_against_fields);
    tcase_add_test(tc, test_enums);
    tcase_add_test(tc, test_strategy_mix);
    tcase_add_test(tc, test_ranges);
    tcase_add_test(tc, test_per_device_keys);
    tcase_add_test(tc, test_gates);
    tcase_add_test(tc, test_fault_cap);
    tcase_add_test(tc, test_sharing_question);
    tcase_add_test(tc, test_rule_on_claim);
    tcase_add_test(tc, test_device_kinds);
    tcase_add_test(tc, test_rule_config_kind_against_class);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
