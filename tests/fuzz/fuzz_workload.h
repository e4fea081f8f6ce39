/* Fixed workloads and a fixed inventory for the loader fuzz drivers: what a fuzzed configuration or inventory is
 * then used for, so the fuzzer reaches the rules and the allocator with every value it makes (header-only). */
#ifndef GPA_FUZZ_WORKLOAD_H
#define GPA_FUZZ_WORKLOAD_H

#include <stdlib.h>

#include "inventory/inventory.h"
#include "document/docs.h"
#include "kube/decode.h"
#include "policy/engine.h"

/* Pods of each dialect, shared and whole, one in an excluded namespace, one too big for any GPU; and a DRA claim whose
 * requests compete under constraints (the placement search on a fuzzed inventory's ResourceSlices). */
static const char fuzz_pods[] =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: share, namespace: ml}\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n"
    "      limits: {koordinator.sh/gpu-memory: 512Mi, koordinator.sh/gpu-core: \"30\"}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ratio, namespace: kube-system}\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n"
    "      limits: {koordinator.sh/gpu-memory-ratio: \"150\", koordinator.sh/gpu.shared: \"1\"}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: mgpu, namespace: team}\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n"
    "      limits: {vke.volcengine.com/mgpu-core: \"50\", vke.volcengine.com/mgpu-memory: \"8192\"}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: whole, namespace: team}\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n      limits: {nvidia.com/gpu: \"2\"}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: ml}\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n"
    "      limits: {koordinator.sh/gpu-memory: 96Gi, koordinator.sh/gpu-core: \"100\"}\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: mig, namespace: ml}\n"
    "spec:\n  devices:\n    requests:\n"
    "    - {name: a, exactly: {deviceClassName: mig.nvidia.com, count: 2}}\n"
    "    - {name: b, firstAvailable: [{name: big, deviceClassName: gpu.nvidia.com, capacity: {requests: "
    "{memory: 40Gi}}}, {name: small, deviceClassName: mig.nvidia.com}]}\n"
    "    - {name: c, exactly: {deviceClassName: gpu.nvidia.com, capacity: {requests: {memory: 1Gi}}}}\n"
    "    constraints:\n    - {requests: [a], matchAttribute: gpu.nvidia.com/parentUUID}\n"
    "    - {distinctAttribute: gpu.nvidia.com/uuid}\n";

static const char fuzz_inventory[] = "kind: GPUInventory\n"
                                     "nodes:\n"
                                     "- name: a100\n"
                                     "  replicas: 2\n"
                                     "  gpus: {count: 2, memory: 80Gi}\n"
                                     "  used: [{minor: 0, core: 50, memory: 20Gi, pod: ml/infer-0}]\n"
                                     "- name: mgpu\n"
                                     "  labels: {vke.node.gpu.schedule: mgpu}\n"
                                     "  dialects: [mgpu]\n"
                                     "  gpus: {count: 1, memory: 16Gi}\n";

/* Checks every fixed Pod with `cfg` and `inv` (either may be the caller's fuzzed one), mutating and not. */
__attribute__((unused)) static void fuzz_check_workloads(const gpa_config_t *cfg, const gpa_inventory_t *inv)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_docs_t docs;
    if (gpa_docs_parse(&a, fuzz_pods, sizeof(fuzz_pods) - 1, &docs, &err) != 0)
        abort();
    for (size_t i = 0; i < docs.len; i++) {
        for (int mutate = 0; mutate < 2; mutate++) {
            gpa_object_t *obj;
            gpa_verdict_t v;
            gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = mutate, .validate = 1, .inventory = inv};
            if (gpa_decode_object(&a, docs.docs[i], &obj, &err) != 0 || gpa_check(&a, cfg, obj, &opts, &v, &err) != 0)
                abort(); /* the fixed Pods decode, and checking them never fails, whatever the configuration */
        }
    }
    gpa_arena_dispose(&a);
}

/* The fixed inventory, new (one reference). */
__attribute__((unused)) static gpa_inventory_t *fuzz_inventory_new(void)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_inventory_t *inv = gpa_inventory_new();
    if (gpa_inventory_parse(inv, fuzz_inventory, sizeof(fuzz_inventory) - 1, "fuzz", &err) != 0)
        abort();
    return inv;
}

#endif
