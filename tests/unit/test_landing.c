/* Check tests for alloc/landing.c: the nodes and node templates a Pod template can land on (labels, dialect, devices
 * that could ever hold its shares) and whether they all have one card memory. Pods are decoded and normalized as
 * the engine does; inventories come from the compact form. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "inventory/inventory.h"
#include "alloc/landing.h"
#include "kube/normalize.h"
#include "base/buf.h"
#include "fixture.h"
#include "run.h"

#define GI ((int64_t)1 << 30)

/* Two 80Gi training nodes, one 40Gi inference node, an mGPU node, and a template of the training pool. */
static const char *const cluster = "kind: GPUInventory\n"
                                   "nodes:\n"
                                   "- name: a100\n"
                                   "  replicas: 2\n"
                                   "  labels: {pool: training}\n"
                                   "  dialects: [vendor, koordinator]\n"
                                   "  gpus: {count: 8, memory: 80Gi}\n"
                                   "- name: a40\n"
                                   "  labels: {pool: inference}\n"
                                   "  dialects: [vendor, koordinator]\n"
                                   "  gpus: {count: 4, memory: 40Gi}\n"
                                   "- name: mgpu\n"
                                   "  labels: {vke.node.gpu.schedule: mgpu}\n"
                                   "  dialects: [mgpu]\n"
                                   "  gpus: {count: 4, memory: 32Gi}\n"
                                   "templates:\n"
                                   "- name: spare-a100\n"
                                   "  labels: {pool: training}\n"
                                   "  dialects: [vendor, koordinator]\n"
                                   "  gpus: {count: 8, memory: 80Gi}\n";

static gpa_inventory_t *inventory(const char *yaml)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    char msg[512] = "";
    int rc = gpa_inventory_parse(inv, yaml, strlen(yaml), "test", &err);
    if (rc != 0)
        gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(rc == 0, "%s", msg);
    return inv;
}

/* A Pod whose one container has `limits` (JSON), with `spec_extra` (JSON members, or "") in its spec. */
static gpa_podspec_t *pod(const char *spec_extra, const char *limits)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":{%s%s"
             "\"containers\":[{\"name\":\"worker\",\"image\":\"w\",\"resources\":{\"limits\":%s}}]}}",
             spec_extra, spec_extra[0] != '\0' ? "," : "", limits);
    gpa_object_t *obj = object(text);
    ck_assert_int_eq(obj->npods, 1);
    return &obj->pods[0];
}

/* Where the Pod lands in `yaml`: the names (templates marked "+"), comma-separated; card memory in *memory. */
static const char *landing(const char *yaml, const char *spec_extra, const char *limits, gpa_alloc_budget_t *budget,
                           int64_t *memory)
{
    gpa_inventory_t *inv = inventory(yaml);
    gpa_podspec_t *p = pod(spec_extra, limits);
    gpa_request_t req;
    ck_assert_int_eq(gpa_normalize(&arena, cfg->dialects, p, &req), 0);
    gpa_landing_t land;
    gpa_alloc_landing(&arena, inv, &cfg->placement, p, &req, budget, &land);
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < land.nnodes; i++)
        gpa_buf_printf(&b, "%s%s%s", i ? "," : "", land.nodes[i]->is_template ? "+" : "", land.nodes[i]->name);
    gpa_buf_putc(&b, '\0');
    const char *names = gpa_arena_strdup(&arena, b.base);
    gpa_buf_dispose(&b);
    *memory = land.card_memory;
    gpa_inventory_release(inv);
    return names;
}

/* A required node affinity of one expression, as Pod spec members. */
static const char *affinity(const char *key, const char *op, const char *values)
{
    return gpa_arena_printf(
        &arena,
        "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{"
        "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"%s\",\"operator\":\"%s\",\"values\":[%s]}]}]}}}",
        key, op, values);
}

#define HALF "{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}"

START_TEST(every_node_of_the_dialect)
{
    int64_t m;
    /* Koordinator: every node but the mGPU one, and the template; 40Gi and 80Gi cards: no one card memory. */
    ck_assert_str_eq(landing(cluster, "", HALF, NULL, &m), "a100-0,a100-1,a40,+spare-a100");
    ck_assert_int_eq(m, 0);
    /* mGPU: the mGPU node only. */
    ck_assert_str_eq(landing(cluster, "", "{\"vke.volcengine.com/mgpu-core\":\"200\"}", NULL, &m), "mgpu");
    ck_assert_int_eq(m, 32 * GI);
}
END_TEST

START_TEST(labels_narrow_the_nodes)
{
    int64_t m;
    ck_assert_str_eq(landing(cluster, "\"nodeSelector\":{\"pool\":\"training\"}", HALF, NULL, &m), "a100-0,a100-1,+spare-a100");
    ck_assert_int_eq(m, 80 * GI);
    ck_assert_str_eq(landing(cluster, affinity("pool", "NotIn", "\"training\""), HALF, NULL, &m), "a40");
    ck_assert_int_eq(m, 40 * GI);
    /* A selector nothing matches: nowhere, no card memory. */
    ck_assert_str_eq(landing(cluster, "\"nodeSelector\":{\"pool\":\"none\"}", HALF, NULL, &m), "");
    ck_assert_int_eq(m, 0);
}
END_TEST

START_TEST(devices_that_could_hold_it)
{
    int64_t m;
    /* 50Gi a device fits only the 80Gi cards; eight devices only the eight-card nodes. */
    ck_assert_str_eq(landing(cluster, "", "{\"koordinator.sh/gpu-memory\":\"50Gi\",\"koordinator.sh/gpu.shared\":\"1\"}", NULL, &m),
                     "a100-0,a100-1,+spare-a100");
    ck_assert_int_eq(m, 80 * GI);
    ck_assert_str_eq(
        landing(cluster, "", "{\"koordinator.sh/gpu-memory-ratio\":\"800\",\"koordinator.sh/gpu-core\":\"800\"}", NULL, &m),
        "a100-0,a100-1,+spare-a100");
    ck_assert_int_eq(m, 80 * GI);
    /* No node could ever hold it. */
    ck_assert_str_eq(
        landing(cluster, "", "{\"koordinator.sh/gpu-memory\":\"100Gi\",\"koordinator.sh/gpu.shared\":\"1\"}", NULL, &m), "");
    ck_assert_int_eq(m, 0);
}
END_TEST

START_TEST(devices_of_one_node_differ)
{
    int64_t m;
    /* One card of a node has less memory: the node's cards differ. */
    const char *mixed = "kind: GPUInventory\n"
                        "nodes:\n"
                        "- name: node\n"
                        "  gpus: {count: 4, memory: 80Gi}\n"
                        "  devices:\n"
                        "  - {minor: 3, memory: 40Gi}\n";
    ck_assert_str_eq(landing(mixed, "", HALF, NULL, &m), "node");
    ck_assert_int_eq(m, 0);
    /* Unless that card is unhealthy (it never serves), or the share fits only the larger cards. */
    const char *unhealthy = "kind: GPUInventory\n"
                            "nodes:\n"
                            "- name: node\n"
                            "  gpus: {count: 4, memory: 80Gi}\n"
                            "  devices:\n"
                            "  - {minor: 3, memory: 40Gi, healthy: false}\n";
    ck_assert_str_eq(landing(unhealthy, "", HALF, NULL, &m), "node");
    ck_assert_int_eq(m, 80 * GI);
    ck_assert_str_eq(landing(mixed, "", "{\"koordinator.sh/gpu-memory\":\"60Gi\",\"koordinator.sh/gpu.shared\":\"1\"}", NULL, &m),
                     "node");
    ck_assert_int_eq(m, 80 * GI);
}
END_TEST

START_TEST(unknown_memory_and_budget)
{
    int64_t m;
    /* Cards of unknown memory take a whole-card share, but say no card memory. */
    const char *unknown = "kind: GPUInventory\nnodes:\n- name: node\n  gpus: {count: 2}\n";
    ck_assert_str_eq(
        landing(unknown, "", "{\"koordinator.sh/gpu-memory-ratio\":\"100\",\"koordinator.sh/gpu-core\":\"100\"}", NULL, &m),
        "node");
    ck_assert_int_eq(m, 0);
    /* A spent budget: the list is partial and says no card memory. */
    gpa_alloc_budget_t spent = gpa_alloc_budget(1);
    ck_assert_int_eq(gpa_alloc_budget_take(&spent, 2), -1);
    ck_assert_str_eq(landing(cluster, "\"nodeSelector\":{\"pool\":\"training\"}", HALF, &spent, &m), "");
    ck_assert_int_eq(m, 0);
}
END_TEST

START_TEST(identity_labels_tested_on_every_node)
{
    /* 40 nodes told apart only by an identity label (40 distinct values), one of them with 40Gi cards: nodes of one
     * shape are searched once, but each node's labels are tested. */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "kind: GPUInventory\nnodes:\n");
    for (int i = 0; i < 40; i++)
        gpa_buf_printf(&b, "- {name: node-%02d, labels: {host: h%02d}, gpus: {count: 2, memory: %s}}\n", i, i,
                       i == 39 ? "40Gi" : "80Gi");
    gpa_buf_putc(&b, '\0');
    const char *yaml = gpa_arena_strdup(&arena, b.base);
    gpa_buf_dispose(&b);
    int64_t m;
    ck_assert_str_eq(landing(yaml, "\"nodeSelector\":{\"host\":\"h07\"}", HALF, NULL, &m), "node-07");
    ck_assert_int_eq(m, 80 * GI);
    ck_assert_str_eq(landing(yaml, "\"nodeSelector\":{\"host\":\"h39\"}", HALF, NULL, &m), "node-39");
    ck_assert_int_eq(m, 40 * GI);
    ck_assert_str_eq(landing(yaml, affinity("host", "In", "\"h01\",\"h02\",\"h38\""), HALF, NULL, &m), "node-01,node-02,node-38");
    ck_assert_int_eq(m, 80 * GI);
    /* 50Gi a device: every 80Gi node, not the 40Gi one. */
    const char *names =
        landing(yaml, "", "{\"koordinator.sh/gpu-memory\":\"100Gi\",\"koordinator.sh/gpu.shared\":\"2\"}", NULL, &m);
    ck_assert_int_eq(strlen(names), 39 * strlen("node-00,") - 1);
    ck_assert_ptr_null(strstr(names, "node-39"));
    ck_assert_int_eq(m, 80 * GI);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("landing");
    TCase *tc = tcase_create("landing");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, every_node_of_the_dialect);
    tcase_add_test(tc, labels_narrow_the_nodes);
    tcase_add_test(tc, devices_that_could_hold_it);
    tcase_add_test(tc, devices_of_one_node_differ);
    tcase_add_test(tc, unknown_memory_and_budget);
    tcase_add_test(tc, identity_labels_tested_on_every_node);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
