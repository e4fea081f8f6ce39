/*
 * Distinct node shapes (inventory.h, gpa_inventory_shapes): the infeasible check searches one node per shape, and
 * its verdict and reason are exactly those of a search over every node (docs/allocator.md).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/explain.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "document/docs.h"
#include "kube/decode.h"
#include "policy/config.h"
#include "run.h"

/* The check as it was before shapes: every node searched (alloc.h's contract for gpa_alloc_feasible). */
static gpa_feasibility_t every_node(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol,
                                    const gpa_podspec_t *pod, const gpa_request_t *req, const char **reason)
{
    gpa_placement_t p;
    gpa_alloc_opts_t o = {.now = 0, .first_fit = 1};
    *reason = "";
    if (req->ngroups == 0)
        return GPA_FEASIBLE_NOW;
    gpa_alloc_place(a, inv, pol, pod, req, &o, &p);
    if (!p.feasible) {
        if (p.bounded)
            return GPA_FEASIBLE_UNKNOWN;
        *reason = gpa_explain_closest(a, &p);
        return GPA_FEASIBLE_NEVER;
    }
    o.now = 1;
    gpa_alloc_place(a, inv, pol, pod, req, &o, &p);
    if (p.feasible || p.bounded)
        return GPA_FEASIBLE_NOW;
    *reason = gpa_explain_closest(a, &p);
    return GPA_FEASIBLE_NOT_NOW;
}

static unsigned next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

/* Node types replicated many times, and single nodes of the same types with random usage. */
static char *random_inventory(unsigned seed)
{
    static const char *const types[] = {
        "labels: {zone: a, gen: \"7\"}\n    gpus: {count: 2, memory: 16Gi, model: T4}\n",
        "labels: {zone: a, gen: \"8\"}\n    gpus: {count: 8, memory: 80Gi, model: A100}\n",
        "labels: {zone: b, gen: \"8\"}\n    gpus: {count: 4, memory: 40Gi, model: A100}\n",
        "labels: {zone: b, gen: \"9\"}\n    dialects: [mgpu]\n    gpus: {count: 4, memory: 24Gi}\n",
    };
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    /* Half the time the replicated nodes are full, so that "not now" and its reason come up too. */
    int busy = next(&seed) % 2;
    len += (size_t)snprintf(text + len, cap - len, "kind: GPUInventory\nnodes:\n");
    for (int t = 0; t < 4; t++) {
        len += (size_t)snprintf(text + len, cap - len, "  - name: r%d\n    replicas: %u\n    %s%s", t, 1 + next(&seed) % 30,
                                types[t], busy ? "    used: [{wholeDevices: 8}]\n" : "");
        for (unsigned i = 0, n = next(&seed) % 6; i < n; i++) {
            len += (size_t)snprintf(text + len, cap - len, "  - name: u%d-%u\n    %s    used:\n", t, i, types[t]);
            for (unsigned k = 0, m = 1 + next(&seed) % 3; k < m; k++)
                len += (size_t)snprintf(text + len, cap - len, "      - {minor: %u, core: %u, memory: %uGi}\n", next(&seed) % 2,
                                        10 * (next(&seed) % 11), next(&seed) % 17);
        }
    }
    /* Nodes told apart only by an identity label (more than 32 distinct values): one shape with the r1 nodes. */
    for (int h = 0; h < 40; h++)
        len +=
            (size_t)snprintf(text + len, cap - len,
                             "  - name: h%02d\n    labels: {zone: a, gen: \"8\", host: h%02d}\n    gpus: {count: 8, memory: 80Gi, "
                             "model: A100}\n%s",
                             h, h, h % 3 == 0 ? "    used: [{minor: 0, whole: true}]\n" : "");
    return text;
}

static const char *const pods[] = {
    "spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 16}}}]}",
    "spec: {nodeSelector: {zone: b}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {koordinator.sh/gpu-core: 50, koordinator.sh/gpu-memory: 12Gi}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {koordinator.sh/gpu-core: 60, koordinator.sh/gpu-memory: 70Gi}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {koordinator.sh/gpu-core: 90, koordinator.sh/gpu-memory: 90Gi}}}]}",
    "spec: {nodeSelector: {gen: \"7\"}, containers: [{name: c, resources: {limits: {koordinator.sh/gpu-core: 100, "
    "koordinator.sh/gpu-memory: 16Gi}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {vke.volcengine.com/mgpu-core: 30, vke.volcengine.com/mgpu-memory: "
    "2048}}}]}",
    "spec: {containers: [{name: c, resources: {limits: {vke.volcengine.com/mgpu-core: 30, vke.volcengine.com/mgpu-memory: "
    "30000}}}]}",
    "spec: {nodeSelector: {host: h07}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}",
    "spec: {nodeSelector: {host: h99}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}",
    "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: host, operator: In, values: [h03, h04]}]}]}}}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}",
    /* Label tests on an identity label that most nodes pass: one search per shape among the nodes that pass. */
    "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: host, operator: Exists}]}]}}}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}",
    "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: host, operator: NotIn, values: [h00, h03, h06]}]}]}}}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: "
    "8}}}]}",
    "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: host, operator: DoesNotExist}]}]}}}, containers: [{name: c, resources: {limits: {koordinator.sh/gpu-core: 90, "
    "koordinator.sh/gpu-memory: 90Gi}}}]}",
    "spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: host, operator: NotIn, values: [h01]}, {key: zone, operator: In, values: [b]}]}]}}}, containers: [{name: c, "
    "resources: {limits: {nvidia.com/gpu: 4}}}]}",
};

static gpa_podspec_t *pod_of(gpa_arena_t *a, const char *spec)
{
    char *text = gpa_arena_printf(a, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\n%s\n", spec);
    gpa_docs_t docs;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_error_init(&err, "pod");
    ck_assert_msg(gpa_docs_parse(a, text, strlen(text), &docs, &err) == 0, "%s", err.message);
    ck_assert_msg(gpa_decode_object(a, docs.docs[0], &obj, &err) == 0, "%s", err.message);
    return &obj->pods[0];
}

START_TEST(one_node_per_shape_decides_as_every_node)
{
    gpa_config_t *cfg = gpa_config_default();
    size_t verdicts[3] = {0};
    for (unsigned seed = 1; seed <= 40; seed++) {
        char *text = random_inventory(seed);
        gpa_inventory_t *inv = gpa_inventory_new();
        gpa_error_t err = {0};
        ck_assert_msg(gpa_inventory_parse(inv, text, strlen(text), "random", &err) == 0, "%s\n%s", err.message, text);
        size_t nodes, shapes;
        gpa_inventory_nodes(inv, &nodes);
        gpa_inventory_shapes(inv, 0, &shapes);
        ck_assert_uint_lt(shapes, nodes);
        ck_assert_uint_le(shapes, 4);
        ck_assert(gpa_inventory_identity_key(inv, "host"));
        ck_assert(!gpa_inventory_identity_key(inv, "zone"));
        for (size_t p = 0; p < sizeof(pods) / sizeof(pods[0]); p++) {
            gpa_arena_t a = {0};
            gpa_podspec_t *pod = pod_of(&a, pods[p]);
            gpa_request_t req;
            ck_assert(gpa_normalize(&a, cfg->dialects, pod, &req) == 0);
            const char *want_reason, *got_reason;
            gpa_feasibility_t want = every_node(&a, inv, &cfg->placement, pod, &req, &want_reason);
            gpa_feasibility_t got = gpa_alloc_feasible(&a, inv, &cfg->placement, pod, &req, NULL, &got_reason);
            ck_assert_msg(want == got, "seed %u pod %zu: %d vs %d", seed, p, want, got);
            ck_assert_str_eq(want_reason, got_reason);
            verdicts[got]++;
            gpa_arena_dispose(&a);
        }
        gpa_inventory_release(inv);
        free(text);
    }
    /* Every verdict came up: the comparison covered each path. */
    ck_assert_uint_gt(verdicts[GPA_FEASIBLE_NOW], 0);
    ck_assert_uint_gt(verdicts[GPA_FEASIBLE_NOT_NOW], 0);
    ck_assert_uint_gt(verdicts[GPA_FEASIBLE_NEVER], 0);
    gpa_config_release(cfg);
}
END_TEST

/* Nodes differing in a label, a device's health or capacity, or (for "now") usage are distinct shapes. */
START_TEST(what_makes_a_shape)
{
    const char *text = "kind: GPUInventory\nnodes:\n"
                       "  - {name: a, replicas: 3, labels: {z: x}, gpus: {count: 2, memory: 16Gi}}\n"
                       "  - {name: b, labels: {z: y}, gpus: {count: 2, memory: 16Gi}}\n"
                       "  - {name: c, labels: {z: x}, gpus: {count: 2, memory: 16Gi}, devices: [{minor: 1, healthy: false}]}\n"
                       "  - {name: d, labels: {z: x}, gpus: {count: 2, memory: 32Gi}}\n"
                       "  - {name: e, labels: {z: x}, gpus: {count: 2, memory: 16Gi}, used: [{minor: 0, core: 10}]}\n";
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, text, strlen(text), "t", &err) == 0, "%s", err.message);
    size_t n;
    const gpa_node_t *const *s = gpa_inventory_shapes(inv, 0, &n);
    ck_assert_uint_eq(n, 4); /* a-0 (a-1, a-2, e alike when empty), b, c, d */
    ck_assert_str_eq(s[0]->name, "a-0");
    ck_assert_str_eq(s[1]->name, "b");
    gpa_inventory_shapes(inv, 1, &n);
    ck_assert_uint_eq(n, 5); /* e's usage sets it apart */
    gpa_inventory_release(inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shapes");
    TCase *tc = tcase_create("shapes");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, one_node_per_shape_decides_as_every_node);
    tcase_add_test(tc, what_makes_a_shape);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
