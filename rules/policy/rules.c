/*
 * The rule table (docs/rules.md#rules). The drivers that run it are validate.c's.
 */
#include "policy/rules.h"

#include <string.h>

#include "kube/resource.h"
#include "policy/config.h"
#include "policy/rule_checks.h"

#define ALL (GPA_DIALECT_ALL & ~GPA_DIALECT_DRA) /* the device dialects: what container resources speak */
#define KOORD GPA_DIALECT_KOORDINATOR
#define MGPU GPA_DIALECT_MGPU
#define HAMI GPA_DIALECT_HAMI
#define SHARE (GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU)
#define SHARES (GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU | GPA_DIALECT_HAMI)
#define DRA GPA_DIALECT_DRA

/* Rules that span dialects: the Koordinator half, then the mGPU half, then HAMi's. */
static void rule_non_positive(gpa_rule_ctx_t *ctx)
{
    gpa_rule_non_positive_common(ctx);
    gpa_rule_non_positive_mgpu(ctx);
    gpa_rule_non_positive_hami(ctx);
    gpa_rule_non_positive_dra_container(ctx);
}

static void rule_node_name_set(gpa_rule_ctx_t *ctx)
{
    gpa_rule_node_name_set(ctx);
    gpa_rule_node_name_set_dra(ctx);
}

static void rule_memory_ratio_exclusive(gpa_rule_ctx_t *ctx)
{
    gpa_rule_memory_ratio_exclusive(ctx);
    gpa_rule_memory_ratio_exclusive_hami(ctx);
}

static void rule_ambiguous_unit(gpa_rule_ctx_t *ctx)
{
    gpa_rule_ambiguous_unit(ctx);
    gpa_rule_ambiguous_unit_hami(ctx);
}

static void rule_multi_card_divisibility(gpa_rule_ctx_t *ctx)
{
    gpa_rule_multi_card_divisibility_koord(ctx);
    gpa_rule_multi_card_divisibility_mgpu(ctx);
}

static void rule_per_device_over_100(gpa_rule_ctx_t *ctx)
{
    gpa_rule_per_device_over_100_koord(ctx);
    gpa_rule_per_device_over_100_mgpu(ctx);
    gpa_rule_per_device_over_100_hami(ctx);
}

static void rule_min_memory(gpa_rule_ctx_t *ctx)
{
    gpa_rule_min_memory_koord(ctx);
    gpa_rule_min_memory_mgpu(ctx);
    gpa_rule_min_memory_hami(ctx);
}

/*
 * The table. Columns as the legend in rules.h says: id, dialects, scope, default action, check, doc.
 * Order matters: findings are reported in this order, and configurations index actions by it.
 */
const gpa_rule_t gpa_rules[] = {
    {"malformed-quantity", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_malformed_quantity,
     "a GPU resource value does not parse, is not a whole number, or overflows 64 bits", NULL},
    {"request-limit-mismatch", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_request_limit_mismatch,
     "a GPU resource's request and limit are both given and differ", NULL},
    {"vendor-vs-share", ALL, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_vendor_vs_share,
     "one Pod declares a vendor resource and any share resource (Koordinator or mGPU)", NULL},
    {"mixed-share-apis", SHARES, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_mixed_share_apis,
     "one Pod declares resources of two share dialects (Koordinator, mGPU, HAMi)", NULL},
    {"memory-ratio-exclusive", KOORD | HAMI, GPA_SCOPE_BOTH, GPA_ACTION_DENY, rule_memory_ratio_exclusive,
     "a container (or the Pod's totals) declares both gpu-memory and gpu-memory-ratio (HAMi: gpumem and gpumem-percentage)", NULL},
    {"core-without-memory", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_core_without_memory,
     "a container declares gpu-core but neither gpu-memory nor gpu-memory-ratio", NULL},
    {"shared-without-memory", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_shared_without_memory,
     "a container declares gpu.shared but neither gpu-memory nor gpu-memory-ratio", NULL},
    {"shared-required", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_shared_required,
     "a container declares a memory form but no gpu.shared, and breaks no other rule", NULL},
    {"deprecated-gpu-mixed", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_deprecated_gpu_mixed,
     "koordinator.sh/gpu appears with another Koordinator share resource", NULL},
    {"non-positive", ALL | DRA, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, rule_non_positive,
     "a GPU resource is negative, gpu.shared or gpu is 0, an mGPU container's mgpu-core is 0 or absent, a HAMi "
     "container's count or gpumem-percentage is 0, or a DRA capacity request is negative",
     gpa_rule_non_positive_dra},
    {"multi-card-divisibility", SHARE, GPA_SCOPE_BOTH, GPA_ACTION_DENY, rule_multi_card_divisibility,
     "a multi-device request does not split evenly over its devices", NULL},
    {"per-device-over-100", SHARES, GPA_SCOPE_BOTH, GPA_ACTION_DENY, rule_per_device_over_100,
     "a per-device share of core or memory ratio exceeds 100 (HAMi: gpumem-percentage or gpucores above 100)", NULL},
    {"min-memory", SHARES, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, rule_min_memory,
     "the memory one device would get is below minDeviceMemory (HAMi: an explicit gpumem)", NULL},
    {"full-card-memory", MGPU, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_full_card_memory,
     "mGPU: whole cards requested (core per card 100) and mgpu-memory set as well", NULL},
    {"card-count-mismatch", MGPU, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_card_count_mismatch,
     "mGPU: the multiple-gpu annotation has a different number of entries than there are containers", NULL},
    {"invalid-card-count", MGPU, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_invalid_card_count,
     "mGPU: an annotation entry is not a whole number >= 0, or is 0 for a container that requests mGPU", NULL},
    {"ambiguous-unit", MGPU | HAMI, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, rule_ambiguous_unit,
     "a MiB resource written with a suffix: mGPU mgpu-memory with a binary one; HAMi gpumem with any, or above 2^31-1 MiB", NULL},
    {"unknown-resource", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_rule_unknown_resource,
     "a requested name is a near miss of a GPU resource gpuadmit knows: no node offers it", NULL},
    {"unit-hint", GPA_DIALECT_VENDOR | KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_WARN, gpa_rule_unit_hint,
     "an amount that reads like the wrong unit: koordinator.sh/gpu 1-9 (a percent), a vendor count above 16", NULL},
    {"ray-num-gpus", ALL, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_ray_num_gpus,
     "KubeRay: a group's Ray container gets GPU devices and Ray will advertise 0 GPUs for it, or more than it gets", NULL},
    {"node-name-set", SHARES | DRA, GPA_SCOPE_POD, GPA_ACTION_DENY, rule_node_name_set,
     "a Pod (or template) that asks for a GPU share (Koordinator, mGPU, HAMi) or has DRA claims sets spec.nodeName", NULL},
    {"resource-in-annotation", ALL, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_resource_in_annotation,
     "a Pod's or template's annotation key is a GPU resource name gpuadmit knows: no scheduler reads it there", NULL},
    {"privileged-share", HAMI, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_privileged_share,
     "HAMi: a privileged container in a Pod that asks for HAMi resources", NULL},
    {"invalid-annotation", HAMI, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_invalid_annotation,
     "HAMi: a scheduling annotation HAMi cannot use (policy, card lists, vgpu-mode, numa-bind)", NULL},
    {"infeasible", ALL | DRA, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_infeasible,
     "an inventory is configured and no node in it could ever hold the Pod (or allocate the DRA claim)", gpa_rule_infeasible_dra},
    {"dra-unknown-class", DRA, GPA_SCOPE_CONTAINER, GPA_ACTION_WARN, gpa_rule_dra_unknown_class_container,
     "DRA: a request (or a container's deviceclass.resource.kubernetes.io/<class>) names a DeviceClass the cluster does not "
     "have (where its classes are known)",
     gpa_rule_dra_unknown_class},
    {"dra-unknown-claim", DRA, GPA_SCOPE_POD, GPA_ACTION_WARN, gpa_rule_dra_unknown_claim,
     "DRA: a Pod or template names a ResourceClaim or ResourceClaimTemplate its namespace does not have (where known)", NULL},
    {"dra-unknown-request", DRA, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_dra_unknown_request,
     "DRA: a container's resources.claims[].request names no request of the claim or template (where known)", NULL},
    {"dra-claim-source", DRA, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_rule_dra_claim_source,
     "DRA: a Pod's resourceClaims entry uses the source: wrapper removed in Kubernetes 1.31", NULL},
    {"dra-api-version", DRA, GPA_SCOPE_OBJECT, GPA_ACTION_WARN, NULL,
     "DRA: a resource.k8s.io object in a version the cluster (dra.kubernetesVersion) does not serve", gpa_rule_dra_api_version},
    {"dra-opaque-config", DRA, GPA_SCOPE_OBJECT, GPA_ACTION_DENY, NULL,
     "DRA: an NVIDIA gpu.nvidia.com opaque configuration the driver would refuse (kind, field, enum, range, feature gate)",
     gpa_rule_dra_opaque_config},
    {"dra-template-sharing", DRA, GPA_SCOPE_POD, GPA_ACTION_WARN, gpa_rule_dra_template_sharing,
     "DRA: a ResourceClaimTemplate that shares its device (TimeSlicing, MPS) behind a workload of several replicas", NULL},
    {"dra-shared-claim", DRA, GPA_SCOPE_POD, GPA_ACTION_WARN, gpa_rule_dra_shared_claim,
     "DRA: a workload of several replicas names one ResourceClaim (deny above 256 replicas)", NULL},
    {"dra-cel", DRA, GPA_SCOPE_OBJECT, GPA_ACTION_DENY, NULL,
     "DRA: a selector that does not parse as CEL, or that fails at run time on a device its class admits (with an inventory)",
     gpa_rule_dra_cel},
    {"dra-capacity-unshared", DRA, GPA_SCOPE_OBJECT, GPA_ACTION_WARN, NULL,
     "DRA: a request asks for capacity, but no device it admits allows several allocations (with an inventory)",
     gpa_rule_dra_capacity_unshared},
    {"dra-capacity-rounding", DRA, GPA_SCOPE_OBJECT, GPA_ACTION_WARN, NULL,
     "DRA: a capacity request is rounded up by the device's requestPolicy to more than dra.roundingWarnPercent above it",
     gpa_rule_dra_capacity_rounding},
};
const size_t gpa_nrules = sizeof(gpa_rules) / sizeof(gpa_rules[0]);

_Static_assert(sizeof(gpa_rules) / sizeof(gpa_rules[0]) <= GPA_RULE_MAX, "GPA_RULE_MAX too small for the rule table");

int gpa_rule_index(const char *id)
{
    for (size_t i = 0; i < gpa_nrules; i++)
        if (strcmp(gpa_rules[i].id, id) == 0)
            return (int)i;
    return -1;
}
