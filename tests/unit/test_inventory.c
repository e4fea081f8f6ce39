/* Inventory loaders: every source on real-shaped objects (examples/inventory/), errors, all-or-nothing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/inventory.h"
#include "inventory/inventory_hami.h"
#include "base/buf.h"
#include "document/json.h"
#include "policy/config.h"
#include "run.h"

#define GI ((int64_t)1 << 30)
#define MI ((int64_t)1 << 20)

static char *slurp(const char *rel, size_t *len)
{
    char path[1024];
    const char *dir = getenv("GPA_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/%s", dir != NULL ? dir : ".", rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static gpa_inventory_t *load_file(const char *rel)
{
    size_t len;
    char *text = slurp(rel, &len);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    int rc = gpa_inventory_parse(inv, text, len, rel, &err);
    char msg[1024] = "";
    if (rc != 0)
        gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(rc == 0, "%s", msg);
    free(text);
    return inv;
}

static int parse_text(gpa_inventory_t *inv, const char *text, gpa_error_t *err)
{
    return gpa_inventory_parse(inv, text, strlen(text), "t.yaml", err);
}

static const gpa_gpu_t *gpu(const gpa_inventory_t *inv, const char *node, int minor)
{
    const gpa_node_t *n = gpa_inventory_find(inv, node);
    ck_assert_msg(n != NULL, "node %s", node);
    for (size_t i = 0; i < n->ngpus; i++)
        if (n->gpus[i].minor == minor)
            return &n->gpus[i];
    ck_abort_msg("no minor %d on %s", minor, node);
    return NULL;
}

START_TEST(kubectl_koordinator)
{
    gpa_inventory_t *inv = load_file("examples/inventory/kubectl-koordinator.json");
    size_t n;
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 2); /* cpu-1 has no GPU */
    ck_assert_str_eq(nodes[0].name, "a100-1");
    ck_assert_str_eq(nodes[1].name, "t4-1");
    ck_assert_uint_eq(nodes[0].ngpus, 4); /* the Device object is the truth; rdma is skipped */
    ck_assert(nodes[0].koordinator);
    ck_assert_str_eq(nodes[0].model, "A100-SXM4-80GB");
    ck_assert_str_eq(gpa_node_label(&nodes[0], "topology.kubernetes.io/zone"), "zone-a");
    const gpa_gpu_t *g0 = gpu(inv, "a100-1", 0);
    ck_assert_int_eq(g0->memory, 80 * GI);
    ck_assert_int_eq(g0->core_used, 75);
    ck_assert_int_eq(g0->memory_used, 60 * GI); /* 40Gi + ratio 25 of 80Gi */
    ck_assert_int_eq(g0->pods, 2);
    ck_assert(gpu(inv, "a100-1", 1)->whole_used); /* train-0: nvidia.com/gpu 1, lowest untouched minor */
    ck_assert(!gpu(inv, "a100-1", 2)->healthy);
    ck_assert(!gpu(inv, "a100-1", 3)->whole_used); /* done-0 Succeeded: holds nothing */
    ck_assert_int_eq(gpu(inv, "a100-1", 3)->core_used, 0);
    ck_assert_int_eq(gpu(inv, "t4-1", 1)->memory, (int64_t)15472384 * 1024); /* older kubernetes.io/ names */
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(gfd_nodes)
{
    gpa_inventory_t *inv = load_file("examples/inventory/gfd-nodes.yaml");
    const gpa_node_t *h = gpa_inventory_find(inv, "h100-1");
    ck_assert(h != NULL);
    ck_assert_uint_eq(h->ngpus, 8);
    ck_assert_int_eq(h->gpus[7].memory, 81559 * MI);
    ck_assert_str_eq(h->model, "NVIDIA-H100-80GB-HBM3");
    ck_assert(!h->koordinator);
    ck_assert_uint_eq(h->dialects, GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR);
    /* trainer-0: max(app 4, init 1) = 4 whole devices, the lowest minors */
    for (int m = 0; m < 8; m++)
        ck_assert_int_eq(gpu(inv, "h100-1", m)->whole_used, m < 4);
    ck_assert_uint_eq(gpa_inventory_find(inv, "l4-1")->ngpus, 2);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(mgpu_nodes)
{
    gpa_inventory_t *inv = load_file("examples/inventory/mgpu-nodes.yaml");
    const gpa_node_t *m = gpa_inventory_find(inv, "mgpu-1");
    ck_assert_uint_eq(m->ngpus, 4);
    ck_assert_uint_eq(m->dialects, GPA_DIALECT_MGPU);
    ck_assert_int_eq(m->gpus[0].memory, 32512 * MI); /* 130048 MiB / 4 */
    /* c0: 100 core and 8192 MiB over cards 1,0 → 50% and 4096 MiB each; c1: card 2 whole */
    ck_assert_int_eq(gpu(inv, "mgpu-1", 0)->core_used, 50);
    ck_assert_int_eq(gpu(inv, "mgpu-1", 1)->memory_used, 4096 * MI);
    ck_assert_int_eq(gpu(inv, "mgpu-1", 1)->pods, 1);
    ck_assert(gpu(inv, "mgpu-1", 2)->whole_used);
    ck_assert(!gpu(inv, "mgpu-1", 3)->whole_used);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(compact_form)
{
    gpa_inventory_t *inv = load_file("examples/inventory/compact.yaml");
    size_t n;
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(nodes[0].name, "a40");
    ck_assert_str_eq(nodes[2].name, "plan-a100-0");
    ck_assert_str_eq(nodes[3].name, "plan-a100-1");
    ck_assert_uint_eq(nodes[2].ngpus, 8);
    ck_assert_int_eq(nodes[2].gpus[0].memory, 80 * GI);
    ck_assert_str_eq(gpa_node_label(&nodes[3], "gpu"), "a100");
    ck_assert(!gpu(inv, "a40", 3)->healthy);
    ck_assert_int_eq(gpu(inv, "a40", 0)->memory_used, 20 * GI);
    ck_assert_int_eq(gpu(inv, "a40", 1)->memory_used, 40 * GI); /* ratio 100 of 40Gi */
    ck_assert(gpu(inv, "mgpu", 0)->whole_used);
    ck_assert_uint_eq(gpa_inventory_find(inv, "mgpu")->dialects, GPA_DIALECT_MGPU);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(mixed_files_any_order)
{
    /* A Pod read before its Node, in another file. */
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(parse_text(inv,
                                "kind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeName: g\n  containers:\n"
                                "  - name: c\n    resources: {limits: {nvidia.com/gpu: 2}}\n",
                                &err),
                     0);
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: g, gpus: {count: 4, memory: 16Gi}}\n", &err), 0);
    ck_assert(gpu(inv, "g", 1)->whole_used);
    ck_assert(!gpu(inv, "g", 2)->whole_used);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(errors_with_lines_nothing_half_loaded)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    size_t n;
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 1, memory: 8Gi}}\n", &err), 0);
    /* The second node is fine, the third is not: neither may appear. */
    int rc = parse_text(inv,
                        "kind: GPUInventory\nnodes:\n- {name: b, gpus: {count: 1, memory: 8Gi}}\n"
                        "- name: c\n  gpus: {count: 1, memory: 8 gigs}\n",
                        &err);
    ck_assert_int_eq(rc, -1);
    ck_assert_uint_eq(err.line, 5);
    ck_assert_str_eq(err.source, "t.yaml");
    ck_assert_msg(strstr(err.path, "nodes[1].gpus.memory") != NULL, "%s", err.path);
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(gpa_inventory_find(inv, "b") == NULL);
    /* unknown keys and duplicates */
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: d, gpu: {count: 1}}\n", &err), -1);
    ck_assert_str_eq(err.path, "nodes[0]");
    ck_assert_str_eq(err.message, "unknown field \"gpu\"; known: name, replicas, labels, dialects, gpus, devices, used");
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 1, memory: 8Gi}}\n", &err), -1);
    ck_assert_msg(strstr(err.message, "described twice") != NULL, "%s", err.message);
    ck_assert_int_eq(parse_text(inv,
                                "kind: GPUInventory\nnodes:\n- name: e\n  gpus: {count: 2, memory: 8Gi}\n  devices:\n"
                                "  - {minor: 1, healthy: false}\n  - {minor: 1}\n",
                                &err),
                     -1);
    ck_assert_msg(strstr(err.message, "listed twice") != NULL, "%s", err.message);
    ck_assert_int_eq(parse_text(inv, "{\"kind\": \"Device\", \"metadata\": {\"name\": \"x\"}, \"spec\": {\"devices\": 3}}", &err),
                     -1);
    ck_assert_str_eq(err.path, "spec.devices");
    ck_assert_str_eq(err.message, "must be a list, not a number");
    /* the document's own fields: no stray leading dot, and where the List holds the object */
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes: {a: 1}\n", &err), -1);
    ck_assert_str_eq(err.path, "nodes");
    ck_assert_str_eq(err.message, "must be a list, not a mapping");
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 8);
    ck_assert_int_eq(parse_text(inv, "kind: List\nitems:\n- {kind: GPUInventory, colour: red}\n", &err), -1);
    ck_assert_str_eq(err.path, "items[0]");
    ck_assert_str_eq(err.message, "unknown field \"colour\"; known: apiVersion, kind, metadata, nodes, templates");
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes: [}\n", &err), -1); /* syntax */
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory, 8 * GI);
    gpa_inventory_release(inv);
}
END_TEST

/* ---- usage: what tenants' Pods may hold (docs/allocator.md, "Usage") ---- */

static const char two_gpus[] = "kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 2, memory: 16Gi}}\n";

/* A Koordinator Pod on node a asking `limits`, whose device-allocated annotation says `allocated`. */
static char *koord_pod(const char *name, const char *node, const char *phase, const char *limits, const char *allocated)
{
    char *text;
    ck_assert(asprintf(&text,
                       "---\nkind: Pod\nmetadata:\n  name: %s\n  namespace: t\n  annotations:\n"
                       "    scheduling.koordinator.sh/device-allocated: '%s'\nspec:\n  %s\n  containers:\n"
                       "  - name: c\n    resources: {limits: {%s}}\nstatus: {phase: %s}\n",
                       name, allocated, node != NULL ? node : "schedulerName: x", limits, phase) > 0);
    return text;
}

/* Loads two_gpus and one Pod; the Pod must not fail the load. */
static gpa_inventory_t *with_pod(char *pod)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(parse_text(inv, two_gpus, &err), 0);
    ck_assert_msg(parse_text(inv, pod, &err) == 0, "%s", err.message);
    free(pod);
    return inv;
}

static int untouched(const gpa_inventory_t *inv, int minor)
{
    const gpa_gpu_t *g = gpu(inv, "a", minor);
    return g->core_used == 0 && g->memory_used == 0 && g->pods == 0 && !g->whole_used;
}

#define SHARE "koordinator.sh/gpu-core: 50, koordinator.sh/gpu-memory-ratio: 50"
#define FULL_0                                                                                                                     \
    "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}"

START_TEST(usage_scheduled_running_pods_only)
{
    gpa_inventory_t *inv = with_pod(koord_pod("p", "nodeName: a", "Running", SHARE, FULL_0));
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 8 * GI);
    gpa_inventory_release(inv);
    inv = with_pod(koord_pod("p", NULL, "Pending", SHARE, FULL_0)); /* no spec.nodeName: not scheduled */
    ck_assert(untouched(inv, 0));
    gpa_inventory_release(inv);
    inv = with_pod(koord_pod("p", "nodeName: a", "Failed", SHARE, FULL_0));
    ck_assert(untouched(inv, 0));
    gpa_inventory_release(inv);
    inv = with_pod(koord_pod("p", "nodeName: a", "Succeeded", SHARE, FULL_0));
    ck_assert(untouched(inv, 0));
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(usage_unknown_device_ignored)
{
    gpa_inventory_t *inv = with_pod(koord_pod(
        "p", "nodeName: a", "Running", SHARE,
        "{\"gpu\":[{\"minor\":7,\"resources\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}"));
    ck_assert(untouched(inv, 0));
    ck_assert(untouched(inv, 1));
    ck_assert(gpa_inventory_find(inv, "a")->ngpus == 2);
    gpa_inventory_release(inv);
    /* a negative minor decodes in Go and names no device: ignored, no warning */
    inv = with_pod(koord_pod("p", "nodeName: a", "Running", SHARE,
                             "{\"gpu\":[{\"minor\":-1,\"resources\":{\"koordinator.sh/gpu-core\":\"50\"}}]}"));
    ck_assert(untouched(inv, 0));
    ck_assert(untouched(inv, 1));
    size_t n;
    gpa_inventory_warnings(inv, &n, NULL);
    ck_assert_uint_eq(n, 0);
    gpa_inventory_release(inv);
}
END_TEST

/* An allocation without minor is minor 0, as koord-scheduler's decoder leaves an absent int32 */
START_TEST(usage_absent_minor_is_zero)
{
    gpa_inventory_t *inv = with_pod(
        koord_pod("p", "nodeName: a", "Running", SHARE,
                  "{\"gpu\":[{\"resources\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}"));
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50);
    ck_assert(untouched(inv, 1));
    gpa_inventory_release(inv);
}
END_TEST

/* A Pod's annotation cannot claim more devices, or more of a device, than its request asked. */
START_TEST(usage_capped_by_the_request)
{
    gpa_inventory_t *inv = with_pod(koord_pod(
        "p", "nodeName: a", "Running", SHARE,
        "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"100\",\"koordinator.sh/gpu-memory\":\"16Gi\","
        "\"koordinator.sh/gpu-memory-ratio\":\"100\"}},{\"minor\":1,\"resources\":{\"koordinator.sh/gpu-core\":\"100\"}}]}"));
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 8 * GI);
    ck_assert(untouched(inv, 1)); /* one device asked, one held */
    gpa_inventory_release(inv);
    /* the same device named a thousand times: one Pod, its share once */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"gpu\":[");
    for (int i = 0; i < 1000; i++)
        gpa_buf_printf(&b, "%s{\"minor\":%d,\"resources\":{\"koordinator.sh/gpu-core\":\"50\"}}", i > 0 ? "," : "", i % 2);
    gpa_buf_puts(&b, "]}");
    inv = with_pod(koord_pod("p", "nodeName: a", "Running", "koordinator.sh/gpu-core: 50, koordinator.sh/gpu-memory: 1Gi", b.base));
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 0); /* the annotation names no memory */
    ck_assert_int_eq(gpu(inv, "a", 0)->pods, 1);
    ck_assert(untouched(inv, 1));
    gpa_buf_dispose(&b);
    gpa_inventory_release(inv);
    /* a Pod that asks no GPU holds none, whatever its annotation says */
    inv = with_pod(koord_pod("p", "nodeName: a", "Running", "cpu: 1", FULL_0));
    ck_assert(untouched(inv, 0));
    gpa_inventory_release(inv);
}
END_TEST

/* A Koordinator Pod of two containers of 50/50 (gpu.shared 1 each) is one Pod-level request of two distinct devices
 * of 50/50 (docs/allocator.md): an annotation putting all of it on one device holds 50/50 there, not 100/100. */
START_TEST(usage_koordinator_pod_level)
{
    const char *pod = "kind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
                      "    scheduling.koordinator.sh/device-allocated: '%s'\n"
                      "spec:\n  nodeName: a\n  containers:\n"
                      "  - {name: m, resources: {limits: {" SHARE ", koordinator.sh/gpu.shared: 1}}}\n"
                      "  - {name: s, resources: {limits: {" SHARE ", koordinator.sh/gpu.shared: 1}}}\n"
                      "status: {phase: Running}\n";
    const char *one = "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"100\","
                      "\"koordinator.sh/gpu-memory-ratio\":\"100\"}}]}";
    const char *two = "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"50\","
                      "\"koordinator.sh/gpu-memory-ratio\":\"50\"}},{\"minor\":1,\"resources\":{\"koordinator.sh/gpu-core\":"
                      "\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}";
    char *text;
    ck_assert(asprintf(&text, pod, one) > 0);
    gpa_inventory_t *inv = with_pod(text);
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50); /* per device at most the Pod's per-device share */
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 8 * GI);
    ck_assert(untouched(inv, 1));
    gpa_inventory_release(inv);
    ck_assert(asprintf(&text, pod, two) > 0);
    inv = with_pod(text);
    for (int m = 0; m < 2; m++) {
        ck_assert_int_eq(gpu(inv, "a", m)->core_used, 50);
        ck_assert_int_eq(gpu(inv, "a", m)->memory_used, 8 * GI);
        ck_assert_int_eq(gpu(inv, "a", m)->pods, 1);
    }
    gpa_inventory_release(inv);
}
END_TEST

/* Volcano's mGPU plugin counts share containers per card (docs/allocator.md#placement): two containers of one Pod on
 * card 0 count two, a two-card container one on each of its cards; a Koordinator Pod counts once per device. */
START_TEST(usage_mgpu_counts_containers)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(
        parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: m, dialects: [mgpu], gpus: {count: 4, memory: 16Gi}}\n", &err), 0);
    ck_assert_msg(
        parse_text(inv,
                   "kind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
                   "    vke.volcengine.com/container-multiple-gpu: '1,1,2'\n"
                   "    vke.volcengine.com/gpu-index-container-a: '0'\n"
                   "    vke.volcengine.com/gpu-index-container-b: '0'\n"
                   "    vke.volcengine.com/gpu-index-container-c: '0,1'\n"
                   "spec:\n  nodeName: m\n  containers:\n"
                   "  - {name: a, resources: {limits: {vke.volcengine.com/mgpu-core: 10, vke.volcengine.com/mgpu-memory: 1024}}}\n"
                   "  - {name: b, resources: {limits: {vke.volcengine.com/mgpu-core: 10, vke.volcengine.com/mgpu-memory: 1024}}}\n"
                   "  - {name: c, resources: {limits: {vke.volcengine.com/mgpu-core: 20, vke.volcengine.com/mgpu-memory: 2048}}}\n",
                   &err) == 0,
        "%s", err.message);
    ck_assert_int_eq(gpu(inv, "m", 0)->pods, 3);
    ck_assert_int_eq(gpu(inv, "m", 0)->core_used, 30);
    ck_assert_int_eq(gpu(inv, "m", 1)->pods, 1);
    ck_assert_int_eq(gpu(inv, "m", 2)->pods, 0);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(usage_mgpu_cards_capped)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(
        parse_text(inv, "kind: GPUInventory\nnodes:\n- {name: m, dialects: [mgpu], gpus: {count: 4, memory: 16Gi}}\n", &err), 0);
    ck_assert_msg(parse_text(inv,
                             "kind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
                             "    vke.volcengine.com/gpu-index-container-c: '3,3,2,1,0'\n"
                             "spec:\n  nodeName: m\n  containers:\n  - name: c\n    resources:\n"
                             "      limits: {vke.volcengine.com/mgpu-core: 30, vke.volcengine.com/mgpu-memory: 1024}\n",
                             &err) == 0,
                  "%s", err.message);
    ck_assert_int_eq(gpu(inv, "m", 3)->core_used, 30);
    ck_assert_int_eq(gpu(inv, "m", 3)->memory_used, 1024 * MI);
    ck_assert_int_eq(gpu(inv, "m", 3)->pods, 1);
    for (int m = 0; m < 3; m++)
        ck_assert_int_eq(gpu(inv, "m", m)->pods, 0);
    /* a list longer than any node's cards is not read: the Pod holds nothing and is named */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "kind: Pod\nmetadata:\n  name: q\n  namespace: t\n  annotations:\n"
                     "    vke.volcengine.com/gpu-index-container-c: '0");
    for (int i = 0; i < 1024; i++)
        gpa_buf_puts(&b, ",1");
    gpa_buf_puts(&b, "'\nspec:\n  nodeName: m\n  containers:\n  - name: c\n    resources:\n"
                     "      limits: {vke.volcengine.com/mgpu-core: 30}\n");
    ck_assert_msg(parse_text(inv, b.base, &err) == 0, "%s", err.message);
    ck_assert_int_eq(gpu(inv, "m", 0)->pods, 0);
    size_t n;
    const gpa_error_t *w = gpa_inventory_warnings(inv, &n, NULL);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strstr(w[0].message, "Pod t/q holds no GPU: more than 1024 card indices") != NULL, "%s", w[0].message);
    gpa_buf_dispose(&b);
    gpa_inventory_release(inv);
}
END_TEST

/* One tenant's unreadable annotation never makes the inventory unreadable: the Pod holds nothing, named. */
START_TEST(usage_unreadable_pod_warns)
{
    static const char *const bad[][2] = {
        {"'{bad'", "not JSON"},
        {"'{\"gpu\": 3}'", "must be a list"},
        {"'{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"x\"}}]}'", "\"x\""},
        /* koord-scheduler decodes minor into an int32: a string, a fraction or an exponent fails its whole annotation */
        {"'{\"gpu\":[{\"minor\":\"0\",\"resources\":{}}]}'", "must be an integer"},
        {"'{\"gpu\":[{\"minor\":0.0,\"resources\":{}}]}'", "0.0 is not an int32"},
        {"'{\"gpu\":[{\"minor\":1e0,\"resources\":{}}]}'", "1e0 is not an int32"},
        {"'{\"gpu\":[{\"minor\":2147483648,\"resources\":{}}]}'", "2147483648 is not an int32"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gpa_inventory_t *inv = gpa_inventory_new();
        gpa_error_t err = {0};
        char *text;
        ck_assert(
            asprintf(&text,
                     "kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 2, memory: 16Gi}}\n---\n"
                     "kind: Pod\nmetadata:\n  name: evil\n  namespace: tenant\n  annotations:\n"
                     "    scheduling.koordinator.sh/device-allocated: %s\nspec:\n  nodeName: a\n  containers:\n"
                     "  - name: c\n    resources: {limits: {" SHARE "}}\n---\n"
                     "kind: Pod\nmetadata: {name: good, namespace: t, annotations: {scheduling.koordinator.sh/device-allocated: "
                     "'" FULL_0 "'}}\nspec:\n  nodeName: a\n  containers:\n  - name: c\n    resources: {limits: {" SHARE "}}\n",
                     bad[i][0]) > 0);
        ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
        free(text);
        ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 50); /* the good Pod only */
        ck_assert_int_eq(gpu(inv, "a", 0)->pods, 1);
        size_t n, total;
        const gpa_error_t *w = gpa_inventory_warnings(inv, &n, &total);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(total, 1);
        ck_assert_str_eq(w[0].source, "t.yaml");
        ck_assert_uint_eq(w[0].line, 5);
        ck_assert_msg(strstr(w[0].message, "Pod tenant/evil holds no GPU") != NULL, "%s", w[0].message);
        ck_assert_msg(strstr(w[0].message, bad[i][1]) != NULL, "%s", w[0].message);
        ck_assert_msg(strstr(w[0].path, "device-allocated") != NULL, "%s", w[0].path);
        gpa_inventory_release(inv);
    }
    /* in a List, the path says where; a failed load later drops its own warnings only */
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(parse_text(inv,
                                "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
                                "\"annotations\":{\"vke.volcengine.com/gpu-index-container-c\":\"0,zero\"}},"
                                "\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":"
                                "{\"vke.volcengine.com/mgpu-core\":\"30\"}}}]}}]}",
                                &err),
                     0);
    size_t n;
    const gpa_error_t *w = gpa_inventory_warnings(inv, &n, NULL);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strncmp(w[0].path, "items[0].metadata.annotations[", 30) == 0, "%s", w[0].path);
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\nnodes: [}\n", &err), -1);
    gpa_inventory_warnings(inv, &n, NULL);
    ck_assert_uint_eq(n, 1);
    gpa_inventory_release(inv);
}
END_TEST

/* Records per Pod are bounded by the devices its request spans, not by the annotation's size. */
static void count_usage(void *ctx, const gpa_usage_desc_t *d)
{
    (void)d;
    ++*(size_t *)ctx;
}

static void no_node(void *ctx, const gpa_node_desc_t *d)
{
    (void)ctx, (void)d;
}

static void no_gpu(void *ctx, const gpa_gpu_desc_t *d)
{
    (void)ctx, (void)d;
}

/* How many usage records one Pod (JSON) gives. */
static size_t usage_records(const gpa_buf_t *pod)
{
    gpa_arena_t a = {0};
    gpa_value_t *doc;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_msg(gpa_json_parse(&a, pod->base, pod->len, &doc, &err) == 0, "%s", err.message);
    size_t records = 0;
    gpa_inventory_sink_t sink = {no_node, no_gpu, count_usage, &records, NULL};
    ck_assert_int_eq(gpa_inventory_read_object(&a, GPA_INVENTORY_POD, doc, "t", &sink, &err), 0);
    gpa_arena_dispose(&a);
    return records;
}

START_TEST(usage_records_bounded)
{
    gpa_buf_t ann = GPA_BUF_INIT, pod = GPA_BUF_INIT;
    gpa_buf_puts(&ann, "{\\\"gpu\\\":[");
    for (int i = 0; i < 20000; i++)
        gpa_buf_printf(&ann, "%s{\\\"minor\\\":%d}", i > 0 ? "," : "", i % 1000);
    gpa_buf_puts(&ann, "]}");
    gpa_buf_printf(
        &pod,
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"annotations\":{"
        "\"scheduling.koordinator.sh/device-allocated\":\"%s\"}},\"spec\":{\"nodeName\":\"a\",\"containers\":[{"
        "\"name\":\"c\",\"resources\":{\"limits\":{\"koordinator.sh/gpu-core\":\"200\",\"koordinator.sh/gpu-memory-ratio\":"
        "\"200\"}}}]}}",
        ann.base);
    ck_assert_uint_eq(usage_records(&pod), 2); /* two whole devices asked */
    gpa_buf_dispose(&ann);
    gpa_buf_dispose(&pod);
}
END_TEST

START_TEST(node_templates)
{
    gpa_inventory_t *inv = load_file("examples/inventory/templates.yaml");
    size_t n;
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 0);
    const gpa_node_t *t = gpa_inventory_templates(inv, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(t[0].name, "ca-a100-40g"); /* name order */
    ck_assert_str_eq(t[1].name, "karpenter-a100");
    ck_assert_uint_eq(t[1].ngpus, 8);
    ck_assert_int_eq(t[1].gpus[7].memory, 80 * GI);
    ck_assert_str_eq(gpa_node_label(&t[1], "karpenter.sh/nodepool"), "a100");
    ck_assert_uint_eq(t[0].dialects, GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR);
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_inventory_templates_only(inv, &err), 0);
    /* Usage never lands on a template, whoever names it. */
    ck_assert_int_eq(parse_text(inv,
                                "kind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeName: karpenter-a100\n  containers:\n"
                                "  - name: c\n    resources: {limits: {nvidia.com/gpu: 2}}\n",
                                &err),
                     0);
    t = gpa_inventory_templates(inv, &n);
    ck_assert(!t[1].gpus[0].whole_used);
    ck_assert_int_eq(gpa_inventory_templates_only(inv, &err), -1); /* a Pod's usage is no template's */
    ck_assert_str_eq(err.source, "t.yaml");
    ck_assert_msg(strstr(err.message, "usage of Pod ns/p") != NULL, "%s", err.message);
    gpa_inventory_release(inv);

    /* The schema: what a template may say, with lines and paths. */
    inv = gpa_inventory_new();
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\ntemplates:\n- name: t\n  gpus: {count: 1}\n  used: []\n", &err), -1);
    ck_assert_str_eq(err.path, "templates[0]");
    ck_assert_str_eq(err.message, "unknown field \"used\"; known: name, labels, dialects, gpus, devices");
    ck_assert_uint_eq(err.line, 5);
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\ntemplates:\n- {gpus: {count: 1}}\n", &err), -1);
    ck_assert_str_eq(err.path, "templates[0].name");
    ck_assert_str_eq(err.message, "every template needs a name");
    ck_assert_int_eq(parse_text(inv, "kind: GPUInventory\ntemplates: {a: 1}\n", &err), -1);
    ck_assert_str_eq(err.path, "templates");
    ck_assert_str_eq(err.message, "must be a list, not a mapping");
    ck_assert_int_eq(parse_text(inv,
                                "kind: GPUInventory\nnodes:\n- {name: x, gpus: {count: 1}}\n"
                                "templates:\n- {name: x, gpus: {count: 1}}\n",
                                &err),
                     -1);
    ck_assert_msg(strstr(err.message, "template x is described twice") != NULL, "%s", err.message);
    /* A template's devices: overrides like a node's. */
    ck_assert_int_eq(parse_text(inv,
                                "kind: GPUInventory\ntemplates:\n- name: t\n  gpus: {count: 2, memory: 16Gi}\n"
                                "  devices: [{minor: 1, memory: 8Gi}]\n",
                                &err),
                     0);
    t = gpa_inventory_templates(inv, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(t[0].gpus[1].memory, 8 * GI);
    gpa_inventory_release(inv);
}
END_TEST

/* ---- HAMi (docs/allocator.md, "HAMi nodes") ---- */

#define A10_0 "GPU-7b3e2f10-5c1d-4a8e-9f21-3d6c8a1b0e01"
#define A10_1 "GPU-7b3e2f10-5c1d-4a8e-9f21-3d6c8a1b0e02"

static void assert_card(const gpa_gpu_t *g, const char *uuid, const char *type, const char *mode, int numa, int64_t mib,
                        int healthy)
{
    ck_assert_str_eq(g->uuid, uuid);
    ck_assert_str_eq(g->type, type);
    ck_assert_str_eq(g->mode, mode);
    ck_assert_int_eq(g->numa, numa);
    ck_assert_int_eq(g->memory, mib * MI);
    ck_assert_int_eq(g->core, 100);
    ck_assert_int_eq(g->slots, 10);
    ck_assert_int_eq(g->healthy, healthy);
}

/* A kubectl dump of three HAMi nodes (v2.10 JSON, v2.6 9-field list, v2.4 7-field list) and their Pods. */
START_TEST(kubectl_hami)
{
    gpa_inventory_t *inv = load_file("examples/inventory/kubectl-hami.json");
    size_t n;
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 3);
    const gpa_node_t *a10 = gpa_inventory_find(inv, "hami-a10-1");
    ck_assert_uint_eq(a10->ngpus, 2); /* its cards, not allocatable nvidia.com/gpu (20 slots) */
    ck_assert_uint_eq(a10->dialects, GPA_DIALECT_VENDOR | GPA_DIALECT_HAMI);
    assert_card(gpu(inv, "hami-a10-1", 0), A10_0, "NVIDIA A10", "hami-core", 0, 23028, 1);
    assert_card(gpu(inv, "hami-a10-1", 1), A10_1, "NVIDIA A10", "hami-core", 1, 23028, 1);
    for (int m = 0; m < 2; m++) { /* train-0: 2 vGPUs of 8000 MiB, 30 cores; the other Pods hold nothing here */
        ck_assert_int_eq(gpu(inv, "hami-a10-1", m)->memory_used, 8000 * MI);
        ck_assert_int_eq(gpu(inv, "hami-a10-1", m)->core_used, 30);
        ck_assert_int_eq(gpu(inv, "hami-a10-1", m)->slots_used, 1);
        ck_assert_int_eq(gpu(inv, "hami-a10-1", m)->pods, 1);
        ck_assert_int_eq(gpu(inv, "hami-a10-1", m)->whole_used, 0);
    }
    ck_assert_uint_eq(gpa_inventory_find(inv, "hami-a100-1")->ngpus, 4);
    for (int m = 0; m < 4; m++) {
        char uuid[64];
        snprintf(uuid, sizeof(uuid), "GPU-1c9f0d4b-8e2a-4f7c-b6d3-52a0e9c4f1%02d", m);
        assert_card(gpu(inv, "hami-a100-1", m), uuid, "NVIDIA-NVIDIA A100-SXM4-80GB", "hami-core", m / 2, 81920, m != 3);
    }
    ck_assert_int_eq(gpu(inv, "hami-a100-1", 2)->memory_used, 20000 * MI); /* infer-0; infer-old has finished */
    ck_assert_int_eq(gpu(inv, "hami-a100-1", 2)->core_used, 25);
    ck_assert_int_eq(gpu(inv, "hami-a100-1", 2)->slots_used, 1);
    /* v2.4's list: no index (all 0), so the position; mode hami-core */
    assert_card(gpu(inv, "hami-t4-1", 0), "GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a01", "NVIDIA-Tesla T4", "hami-core", 0, 15360, 1);
    assert_card(gpu(inv, "hami-t4-1", 1), "GPU-e41a6b72-0d3f-4c58-a9b1-7f2c6d8e3a02", "NVIDIA-Tesla T4", "hami-core", 0, 15360, 1);
    size_t nw;
    gpa_inventory_warnings(inv, &nw, NULL);
    ck_assert_uint_eq(nw, 0); /* ml/moved names a card no node has: ignored */
    gpa_inventory_release(inv);
    /* the same with a Node whose annotation cannot be read and a tenant's forged Pod: both named, the rest the same */
    inv = load_file("tests/cli/data/hami-poisoned.json");
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(gpu(inv, "hami-a10-1", 0)->memory_used, 8000 * MI);
    const gpa_error_t *w = gpa_inventory_warnings(inv, &nw, NULL);
    ck_assert_uint_eq(nw, 2);
    ck_assert_msg(strstr(w[0].message, "Node hami-t4-2 has no HAMi cards: card 0: devmem \"lots\"") != NULL, "%s", w[0].message);
    ck_assert_str_eq(w[0].path, "items[7].metadata.annotations[\"hami.io/node-nvidia-register\"]");
    ck_assert_msg(strstr(w[1].message, "Pod tenant/forged holds no GPU: entry 0") != NULL, "%s", w[1].message);
    ck_assert_str_eq(w[1].path, "items[8].metadata.annotations[\"hami.io/vgpu-devices-allocated\"]");
    gpa_inventory_release(inv);
}
END_TEST

/* Other sources' devices keep the defaults: no UUID, type or mode, slots not said. */
START_TEST(hami_fields_default)
{
    gpa_inventory_t *inv = load_file("examples/inventory/kubectl-koordinator.json");
    const gpa_gpu_t *g = gpu(inv, "a100-1", 0);
    ck_assert_str_eq(g->uuid, "");
    ck_assert_str_eq(g->type, "");
    ck_assert_str_eq(g->mode, "");
    ck_assert_int_eq(g->numa + g->slots + g->slots_used, 0);
    gpa_inventory_release(inv);
}
END_TEST

static const gpa_hami_card_t *read_cards(gpa_arena_t *a, const char *text, size_t *n)
{
    gpa_hami_card_t *cards;
    gpa_error_t why = {0};
    ck_assert_msg(gpa_hami_read_register(a, text, strlen(text), &cards, n, &why) == 0, "%s: %s", text, why.message);
    return cards;
}

/* Both formats as HAMi writes them (reference values), with the JSON's omitempty and the list's empty segments. */
START_TEST(hami_register_formats)
{
    gpa_arena_t a = {0};
    size_t n;
    const gpa_hami_card_t *c = read_cards(
        &a,
        "[{\"id\":\"GPU-a001\",\"count\":10,\"devmem\":23028,\"devcore\":100,\"type\":\"NVIDIA "
        "A10\",\"mode\":\"hami-core\",\"health\":true},"
        "{\"id\":\"GPU-a002\",\"index\":1,\"count\":10,\"devmem\":23028,\"devcore\":100,\"type\":\"NVIDIA A10\",\"numa\":1,"
        "\"mode\":\"hami-core\",\"health\":true},{\"id\":\"GPU-a003\",\"index\":2,\"migProfiles\":[{\"name\":\"1g.10gb\"}]}]",
        &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(c[0].uuid, "GPU-a001");
    ck_assert_int_eq(c[0].index + c[0].numa, 0);
    ck_assert_int_eq(c[1].numa, 1);
    ck_assert_int_eq(c[1].devmem, 23028);
    ck_assert_int_eq(c[2].healthy, 0); /* health absent: unhealthy */
    ck_assert_int_eq(c[2].count + c[2].devmem + c[2].devcore, 0);
    c = read_cards(
        &a, "GPU-a001,10,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:GPU-a002,10,23028,100,NVIDIA-NVIDIA A10,1,true,1,mig:", &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(c[1].type, "NVIDIA-NVIDIA A10");
    ck_assert_str_eq(c[1].mode, "mig");
    ck_assert_int_eq(c[1].index, 1);
    ck_assert_int_eq(c[1].healthy, 1);
    c = read_cards(&a, "::GPU-a001,4,15360,100,NVIDIA-Tesla T4,0,True::GPU-a002,4,15360,100,NVIDIA-Tesla T4,0,nope", &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(c[0].mode, "hami-core");
    ck_assert_int_eq(c[0].healthy, 1);
    ck_assert_int_eq(c[1].healthy, 0); /* ParseBool's error: false */
    read_cards(&a, "[]", &n);
    ck_assert_uint_eq(n, 0);
    read_cards(&a, "null", &n);
    ck_assert_uint_eq(n, 0);
    read_cards(&a, "", &n);
    ck_assert_uint_eq(n, 0);
    gpa_arena_dispose(&a);
}
END_TEST

static char *hami_node(const char *name, const char *reg)
{
    char *text;
    ck_assert(asprintf(&text,
                       "kind: Node\nmetadata:\n  name: %s\n  annotations:\n    hami.io/node-nvidia-register: '%s'\n"
                       "status: {allocatable: {nvidia.com/gpu: \"20\"}}\n",
                       name, reg) > 0);
    return text;
}

/* A register annotation gpuadmit cannot read: the Node is named in a warning and has no cards; the load goes on. */
START_TEST(hami_register_malformed)
{
    gpa_buf_t many = GPA_BUF_INIT;
    for (int i = 0; i < 1025; i++)
        gpa_buf_printf(&many, "GPU-%d,10,100,100,T,0,true:", i);
    const char *const bad[][2] = {
        {"[{\"id\":\"GPU-a\"", "not JSON"},
        {"{\"id\":\"GPU-a\"}", "not a list of cards"},
        {"[3]", "card 0 is not an object"},
        {"[{\"id\":7}]", "card 0: id is not a string"},
        {"[{\"id\":\"GPU-a\",\"devmem\":\"23028\"}]", "devmem is not a whole number"},
        {"[{\"id\":\"GPU-a\",\"devmem\":-1}]", "devmem is not a whole number"},
        {"[{\"id\":\"GPU-a\",\"count\":1.5}]", "count is not a whole number"},
        {"[{\"id\":\"GPU-a\",\"health\":\"true\"}]", "health is not true or false"},
        {"[{\"count\":10}]", "card 0 has no id"},
        {"[{\"id\":\"GPU-a\"},{\"id\":\"GPU-a\"}]", "GPU-a is registered twice"},
        {"GPU-a,10,23028,100,NVIDIA-T4,0,true,0:", "card 0 has 8 fields"},
        {"GPU-a,ten,23028,100,NVIDIA-T4,0,true:", "count \"ten\""},
        {"GPU-a,10,99999999999999999999,100,NVIDIA-T4,0,true:", "devmem"},
        {many.base, "more than 1024 cards"},
        {"'\n    hami.io/node-nvidia-register: [{id: GPU-a}]\n    x: '", "not a string"}, /* YAML: a list, not a string */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *node = hami_node("broken", bad[i][0]), *good = hami_node("fine", "GPU-b,10,23028,100,NVIDIA-T4,0,true:");
        char *text;
        ck_assert(asprintf(&text, "%s---\n%s", good, node) > 0);
        gpa_inventory_t *inv = gpa_inventory_new();
        gpa_error_t err = {0};
        ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
        ck_assert_ptr_null(gpa_inventory_find(inv, "broken")); /* no cards: not a GPU node */
        ck_assert_uint_eq(gpa_inventory_find(inv, "fine")->ngpus, 1);
        size_t n;
        const gpa_error_t *w = gpa_inventory_warnings(inv, &n, NULL);
        ck_assert_uint_eq(n, 1);
        ck_assert_msg(strstr(w[0].message, "Node broken has no HAMi cards: ") != NULL, "%s", w[0].message);
        ck_assert_msg(strstr(w[0].message, bad[i][1]) != NULL, "%zu: %s", i, w[0].message);
        ck_assert_str_eq(w[0].path, "metadata.annotations[\"hami.io/node-nvidia-register\"]");
        ck_assert_uint_eq(w[0].line, 8);
        gpa_inventory_release(inv);
        free(text), free(node), free(good);
    }
    gpa_buf_dispose(&many);
}
END_TEST

/* Duplicate indices (or none, v2.4): minors are the positions; distinct ones are the minors. */
START_TEST(hami_minor_is_the_index)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    char *text =
        hami_node("node1", "[{\"id\":\"GPU-x\",\"index\":5,\"health\":true},{\"id\":\"GPU-y\",\"index\":2,\"health\":true}]");
    ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
    ck_assert_str_eq(gpu(inv, "node1", 5)->uuid, "GPU-x");
    ck_assert_str_eq(gpu(inv, "node1", 2)->uuid, "GPU-y");
    ck_assert_int_eq(gpu(inv, "node1", 2)->core, 100); /* devcore absent: a whole card's compute */
    gpa_inventory_release(inv);
    free(text);
    inv = gpa_inventory_new();
    text = hami_node("node1", "[{\"id\":\"GPU-x\",\"index\":1},{\"id\":\"GPU-y\",\"index\":1}]");
    ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
    ck_assert_str_eq(gpu(inv, "node1", 0)->uuid, "GPU-x");
    ck_assert_str_eq(gpu(inv, "node1", 1)->uuid, "GPU-y");
    gpa_inventory_release(inv);
    free(text);
}
END_TEST

/* A card's UUID names it, as a hostname names a node: nodes of the same cards are one shape; slots tell them apart. */
START_TEST(hami_shapes)
{
    char *x = hami_node("hx", "GPU-x0,10,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:");
    char *y = hami_node("hy", "GPU-y0,10,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:");
    char *z = hami_node("hz", "GPU-z0,4,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:");
    char *text;
    ck_assert(asprintf(&text, "%s---\n%s---\n%s", x, y, z) > 0);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
    size_t n;
    const gpa_node_t *const *shapes = gpa_inventory_shapes(inv, 0, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(shapes[0]->name, "hx");
    ck_assert_str_eq(shapes[1]->name, "hz");
    gpa_inventory_release(inv);
    free(text), free(x), free(y), free(z);
}
END_TEST

#define HAMI_NODE                                                                                                                  \
    "kind: Node\nmetadata:\n  name: a\n  annotations:\n    hami.io/node-nvidia-register: '[{\"id\":\"" A10_0 "\",\"count\":10,"    \
    "\"devmem\":23028,\"devcore\":100,\"type\":\"NVIDIA A10\",\"health\":true},{\"id\":\"" A10_1 "\",\"index\":1,\"count\":10,"    \
    "\"devmem\":23028,\"devcore\":100,\"type\":\"NVIDIA A10\",\"health\":true}]'\nstatus: {allocatable: {nvidia.com/gpu: "         \
    "\"20\"}}\n"

/* A HAMi Pod: `where` is its spec.nodeName line (or ""), `ann` more annotation lines, `gpus` its containers' counts. */
static gpa_inventory_t *with_hami_pod(const char *where, const char *phase, const char *ann, const char *allocated,
                                      const char *gpus)
{
    char *text;
    ck_assert(asprintf(&text,
                       HAMI_NODE "---\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\n  annotations:\n%s"
                                 "    hami.io/vgpu-devices-allocated: '%s'\nspec:\n%s  containers:\n%s\nstatus: {phase: %s}\n",
                       ann, allocated, where, gpus, phase) > 0);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
    free(text);
    return inv;
}

#define ON_A "  nodeName: a\n"
#define ONE_VGPU "  - {name: c, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 20}}}"
#define TWO_VGPUS "  - {name: c, resources: {limits: {nvidia.com/gpu: 2, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 20}}}"

static int hami_untouched(const gpa_inventory_t *inv, int minor)
{
    const gpa_gpu_t *g = gpu(inv, "a", minor);
    return untouched(inv, minor) && g->slots_used == 0;
}

START_TEST(hami_usage)
{
    gpa_inventory_t *inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,4000,20:;", ONE_VGPU);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 4000 * MI);
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 20);
    ck_assert_int_eq(gpu(inv, "a", 0)->slots_used, 1);
    ck_assert_int_eq(gpu(inv, "a", 0)->pods, 1);
    ck_assert(hami_untouched(inv, 1));
    gpa_inventory_release(inv);
    /* two containers with a vGPU each on one card: two slots, one Pod; the 6-field entries of newer HAMi read too */
    inv = with_hami_pod(ON_A, "Pending", "", A10_1 ",NVIDIA,4000,20:;" A10_1 ",NVIDIA,2000,10,x,y:;",
                        ONE_VGPU "\n  - {name: d, resources: {limits: {nvidia.com/gpu: 1}}}");
    ck_assert_int_eq(gpu(inv, "a", 1)->memory_used, 6000 * MI);
    ck_assert_int_eq(gpu(inv, "a", 1)->core_used, 30);
    ck_assert_int_eq(gpu(inv, "a", 1)->slots_used, 2);
    ck_assert_int_eq(gpu(inv, "a", 1)->pods, 1);
    gpa_inventory_release(inv);
    /* hami.io/vgpu-node places a Pod that is not bound yet */
    inv = with_hami_pod("", "Pending", "    hami.io/vgpu-node: a\n", A10_0 ",NVIDIA,4000,20:;", ONE_VGPU);
    ck_assert_int_eq(gpu(inv, "a", 0)->slots_used, 1);
    gpa_inventory_release(inv);
    inv = with_hami_pod("  nodeName: b\n", "Running", "    hami.io/vgpu-node: a\n", A10_0 ",NVIDIA,4000,20:;", ONE_VGPU);
    ck_assert_int_eq(gpu(inv, "a", 0)->slots_used, 1); /* where HAMi counts it */
    gpa_inventory_release(inv);
    /* a plain nvidia.com/gpu Pod that HAMi placed holds what the annotation says, not a whole card */
    inv =
        with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,23028,100:;", "  - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}");
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 23028 * MI);
    ck_assert_int_eq(gpu(inv, "a", 0)->whole_used, 0);
    ck_assert(hami_untouched(inv, 1));
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(hami_usage_not_held)
{
    static const char *const phases[] = {"Succeeded", "Failed"};
    for (size_t i = 0; i < 2; i++) {
        gpa_inventory_t *inv = with_hami_pod(ON_A, phases[i], "", A10_0 ",NVIDIA,4000,20:;", ONE_VGPU);
        ck_assert(hami_untouched(inv, 0));
        gpa_inventory_release(inv);
    }
    gpa_inventory_t *inv = with_hami_pod("", "Pending", "", A10_0 ",NVIDIA,4000,20:;", ONE_VGPU); /* not placed */
    ck_assert(hami_untouched(inv, 0));
    gpa_inventory_release(inv);
    inv = with_hami_pod(ON_A, "Running", "", "GPU-ffffffff,NVIDIA,4000,20:;", ONE_VGPU); /* a card the node does not have */
    ck_assert(hami_untouched(inv, 0) && hami_untouched(inv, 1));
    size_t n;
    gpa_inventory_warnings(inv, &n, NULL);
    ck_assert_uint_eq(n, 0);
    gpa_inventory_release(inv);
}
END_TEST

/* A cluster that renamed HAMi's resources: read with the configuration's names (its decoding options), its HAMi Pods
 * hold what they hold; read with HAMi's defaults they would hold nothing. */
START_TEST(hami_usage_renamed)
{
    static const char conf[] = "hami: {resourceCountName: example.com/vgpu, resourceMemoryName: example.com/vgpu-memory, "
                               "resourceCoreName: example.com/vgpu-cores}\n";
    gpa_config_t *c = NULL;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_config_parse(conf, strlen(conf), "c.yaml", &c, &err), 0);
    const char *text = HAMI_NODE "---\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\n  annotations:\n"
                                 "    hami.io/vgpu-devices-allocated: '" A10_0 ",NVIDIA,4000,20:;'\nspec:\n" ON_A "  containers:\n"
                                 "  - {name: c, resources: {limits: {example.com/vgpu: 1, example.com/vgpu-memory: 4000, "
                                 "example.com/vgpu-cores: 20}}}\nstatus: {phase: Running}\n";
    for (int renamed = 0; renamed < 2; renamed++) {
        gpa_inventory_t *inv = gpa_inventory_new();
        ck_assert_msg(gpa_inventory_parse_with(inv, renamed ? &c->decode : NULL, text, strlen(text), "t.yaml", &err) == 0, "%s",
                      err.message);
        ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, renamed ? 4000 * MI : 0);
        ck_assert_int_eq(gpu(inv, "a", 0)->slots_used, renamed ? 1 : 0);
        gpa_inventory_release(inv);
    }
    gpa_config_release(c);
}
END_TEST

/* DRA objects in an inventory file: known, complete per kind held; ResourceSlices accepted, not read. */
START_TEST(dra_objects_known)
{
    const char *text =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\n"
        "spec: {extendedResourceName: nvidia.com/gpu}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: gpu.nvidia.com}\n---\n"
        "apiVersion: resource.k8s.io/v1beta1\nkind: List\nitems:\n- apiVersion: resource.k8s.io/v1beta1\n"
        "  kind: ResourceClaimTemplate\n  metadata: {name: t, namespace: ml}\n"
        "  spec: {spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.nvidia.com}]}}}\n";
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(parse_text(inv, text, &err) == 0, "%s", err.message);
    const gpa_dra_known_t *k = gpa_inventory_dra(inv);
    ck_assert_ptr_nonnull(gpa_dra_known_find(k, GPA_DRA_CLASS, "", "gpu.nvidia.com"));
    ck_assert_ptr_nonnull(gpa_dra_known_find(k, GPA_DRA_TEMPLATE, "ml", "t"));
    ck_assert(gpa_dra_known_complete(k, GPA_DRA_CLASS) && gpa_dra_known_complete(k, GPA_DRA_TEMPLATE));
    ck_assert(!gpa_dra_known_complete(k, GPA_DRA_CLAIM));
    ck_assert_str_eq(gpa_dra_known_extended(k, "nvidia.com/gpu", 14)->name, "gpu.nvidia.com");
    /* DRA objects alone describe no node: infeasible does not run on such an inventory; an empty one says "no node" */
    ck_assert(!gpa_inventory_has_nodes(inv));
    gpa_inventory_t *empty = gpa_inventory_new();
    ck_assert(gpa_inventory_has_nodes(empty));
    gpa_inventory_release(empty);
    /* a bad DRA object fails the file, and the objects it added before are dropped with it */
    const char *bad = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: other}\nspec: {}\n---\n"
                      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: {requests: 3}}\n";
    gpa_error_t e2 = {0};
    ck_assert_int_eq(parse_text(inv, bad, &e2), -1);
    ck_assert_str_eq(e2.path, "spec.devices.requests");
    ck_assert_ptr_null(gpa_dra_known_find(k, GPA_DRA_CLASS, "", "other"));
    ck_assert(!gpa_dra_known_complete(k, GPA_DRA_CLAIM));
    gpa_inventory_release(inv);
}
END_TEST

/* Tenants write Pods: at most as many entries as vGPUs asked, never more than a card; unreadable: warned. */
START_TEST(hami_usage_bounded)
{
    gpa_inventory_t *inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,4000,20:" A10_1 ",NVIDIA,4000,20:;", ONE_VGPU);
    ck_assert_int_eq(gpu(inv, "a", 0)->slots_used, 1);
    ck_assert(hami_untouched(inv, 1)); /* one vGPU asked, one held */
    gpa_inventory_release(inv);
    inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,999999999,500:;", ONE_VGPU);
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 4000 * MI); /* never more than its vGPU asks (gpumem, gpucores) */
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 20);
    gpa_inventory_release(inv);
    /* a vGPU of a percentage or the whole card: never more than the card */
    inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,999999999,500:;",
                        "  - {name: c, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 50}}}");
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 23028 * MI);
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 0); /* defaultCores: the vGPU asks none */
    gpa_inventory_release(inv);
    inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,999999999,500:;",
                        "  - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}");
    ck_assert_int_eq(gpu(inv, "a", 0)->memory_used, 23028 * MI);
    ck_assert_int_eq(gpu(inv, "a", 0)->core_used, 100);
    gpa_inventory_release(inv);
    /* a request gpuadmit cannot read holds nothing, and the Pod is named */
    inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,4000,20:;",
                        "  - {name: c, resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 16Gi}}}");
    ck_assert(hami_untouched(inv, 0));
    size_t nw;
    const gpa_error_t *uw = gpa_inventory_warnings(inv, &nw, NULL);
    ck_assert_uint_eq(nw, 1);
    ck_assert_msg(strstr(uw[0].message, "its request is not one gpuadmit can read") != NULL, "%s", uw[0].message);
    gpa_inventory_release(inv);
    inv = with_hami_pod(ON_A, "Running", "", A10_0 ",NVIDIA,4000,20:;", "  - {name: c, image: cpu-only}");
    ck_assert(hami_untouched(inv, 0)); /* asks no vGPU: holds none */
    gpa_inventory_release(inv);
    static const char *const bad[][2] = {
        {A10_0 ",NVIDIA,4000:;", "entry 0 is not UUID,type,memory,cores"},
        {A10_0 ",NVIDIA,4000,20:" A10_1 ",NVIDIA,-1,20:;", "entry 1 is not"},
        {",NVIDIA,4000,20:;", "entry 0 is not"},
        {A10_0 ",NVIDIA,4Gi,20:;", "entry 0 is not"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        inv = with_hami_pod(ON_A, "Running", "", bad[i][0], TWO_VGPUS);
        ck_assert(hami_untouched(inv, 0) && hami_untouched(inv, 1)); /* nothing, not the readable part */
        size_t n;
        const gpa_error_t *w = gpa_inventory_warnings(inv, &n, NULL);
        ck_assert_uint_eq(n, 1);
        ck_assert_msg(strstr(w[0].message, "Pod ml/p holds no GPU: ") != NULL, "%s", w[0].message);
        ck_assert_msg(strstr(w[0].message, bad[i][1]) != NULL, "%s", w[0].message);
        ck_assert_str_eq(w[0].path, "metadata.annotations[\"hami.io/vgpu-devices-allocated\"]");
        gpa_inventory_release(inv);
    }
    /* records per Pod: at most its vGPUs, whatever the annotation's size */
    gpa_buf_t ann = GPA_BUF_INIT, pod = GPA_BUF_INIT;
    for (int i = 0; i < 20000; i++)
        gpa_buf_printf(&ann, "GPU-%d,NVIDIA,1,1:", i);
    gpa_buf_printf(&pod,
                   "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"annotations\":{"
                   "\"hami.io/vgpu-devices-allocated\":\"%s\"}},\"spec\":{\"nodeName\":\"a\",\"containers\":[{"
                   "\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"3\"}}}]}}",
                   ann.base);
    ck_assert_uint_eq(usage_records(&pod), 3);
    gpa_buf_dispose(&ann);
    gpa_buf_dispose(&pod);
}
END_TEST

START_TEST(retain_release)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    ck_assert(gpa_inventory_retain(inv) == inv);
    gpa_inventory_release(inv);
    gpa_inventory_release(inv);
    gpa_inventory_release(NULL);
}
END_TEST

/* A JSON List is read an item at a time (what 10^5 devices cost is one item's tree): the same records, the same errors
 * at the same places, and an object that only looks like a List (its kind is not one) still adds nothing. */
START_TEST(lists_read_item_by_item)
{
#define COMPACT(name) "{\"kind\":\"GPUInventory\",\"nodes\":[{\"name\":\"" name "\",\"gpus\":{\"count\":2,\"memory\":\"8Gi\"}}]}"
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    size_t n;
    /* kubectl writes the kind after the items */
    ck_assert_int_eq(
        parse_text(inv, "{\"apiVersion\":\"v1\",\"items\":[" COMPACT("a") "," COMPACT("b") "],\"kind\":\"List\"}", &err), 0);
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(gpu(inv, "b", 1)->memory, 8 * GI);
    /* a fault in the third item: named there, with its line, and nothing of the file kept */
    ck_assert_int_eq(
        parse_text(
            inv, "{\"kind\":\"List\",\"items\":[\n" COMPACT("c") ",\n" COMPACT("d") ",\n{\"kind\":\"GPUInventory\",\"colour\":1}]}",
            &err),
        -1);
    ck_assert_str_eq(err.path, "items[2]");
    ck_assert_uint_eq(err.line, 4);
    ck_assert_ptr_null(gpa_inventory_find(inv, "c"));
    /* not a List: its items are not inventory, as any other object of an unknown kind */
    ck_assert_int_eq(parse_text(inv, "{\"kind\":\"NodeBag\",\"items\":[" COMPACT("e") "]}", &err), 0);
    ck_assert_ptr_null(gpa_inventory_find(inv, "e"));
    /* a YAML stream, document by document */
    ck_assert_int_eq(parse_text(inv,
                                "kind: GPUInventory\nnodes: [{name: f, gpus: {count: 1, memory: 8Gi}}]\n---\n"
                                "kind: List\nitems:\n- kind: GPUInventory\n  nodes: [{name: g, gpus: {count: 1, memory: 8Gi}}]\n",
                                &err),
                     0);
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_ptr_nonnull(gpa_inventory_find(inv, "g"));
    gpa_inventory_release(inv);
#undef COMPACT
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inventory");
    TCase *tc = tcase_create("loaders");
    tcase_add_test(tc, kubectl_koordinator);
    tcase_add_test(tc, lists_read_item_by_item);
    tcase_add_test(tc, gfd_nodes);
    tcase_add_test(tc, mgpu_nodes);
    tcase_add_test(tc, compact_form);
    tcase_add_test(tc, mixed_files_any_order);
    tcase_add_test(tc, errors_with_lines_nothing_half_loaded);
    tcase_add_test(tc, node_templates);
    tcase_add_test(tc, retain_release);
    tcase_add_test(tc, usage_scheduled_running_pods_only);
    tcase_add_test(tc, usage_unknown_device_ignored);
    tcase_add_test(tc, usage_absent_minor_is_zero);
    tcase_add_test(tc, usage_capped_by_the_request);
    tcase_add_test(tc, usage_koordinator_pod_level);
    tcase_add_test(tc, usage_mgpu_counts_containers);
    tcase_add_test(tc, usage_mgpu_cards_capped);
    tcase_add_test(tc, usage_unreadable_pod_warns);
    tcase_add_test(tc, usage_records_bounded);
    suite_add_tcase(s, tc);
    TCase *hami = tcase_create("hami");
    tcase_add_test(hami, kubectl_hami);
    tcase_add_test(hami, hami_fields_default);
    tcase_add_test(hami, hami_register_formats);
    tcase_add_test(hami, hami_register_malformed);
    tcase_add_test(hami, hami_minor_is_the_index);
    tcase_add_test(hami, hami_shapes);
    tcase_add_test(hami, hami_usage);
    tcase_add_test(hami, hami_usage_not_held);
    tcase_add_test(hami, hami_usage_bounded);
    tcase_add_test(hami, hami_usage_renamed);
    tcase_add_test(hami, dra_objects_known);
    suite_add_tcase(s, hami);
    return gpa_test_run(s);
}
