/*
 * bench-live-view: the live inventory in process, without the network (docs/cluster.md). Applies a cluster of
 * 5,000 Koordinator nodes × 8 GPUs (Node and Device objects) and 100,000 scheduled Pods, half holding a GPU share,
 * to a view (cluster/view.h) as a reflector would, then times
 *   - one object applied during the first list, and one watch event (a Pod update) after it (target ≤ 20 µs),
 *   - a new inventory built from the view,
 *   - the infeasible check of a GPU-share Pod against that inventory, and the whole engine with and without it,
 * and prints the memory the view and one inventory take. Times are CPU time of the thread (the machine may be
 * shared). Figures only, never a pass/fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "document/docs.h"
#include "document/json.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "view.h"

#define NODES 5000
#define PODS 100000
#define EVENTS 20000
#define CHECKS 20000

/* CPU time of this thread: the figures stay meaningful on a machine shared with other work. */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

static void node_json(gpa_buf_t *b, int i)
{
    gpa_buf_printf(b,
                   "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"gpu-%04d\",\"labels\":{"
                   "\"kubernetes.io/hostname\":\"gpu-%04d\",\"kubernetes.io/os\":\"linux\",\"topology.kubernetes.io/zone\":"
                   "\"zone-%d\",\"node.koordinator.sh/gpu-model\":\"%s\"}},\"status\":{\"allocatable\":{\"cpu\":\"96\","
                   "\"nvidia.com/gpu\":\"8\",\"koordinator.sh/gpu-core\":\"800\",\"koordinator.sh/gpu-memory\":\"640Gi\"}}}",
                   i, i, i % 3, i % 2 ? "H100" : "A100");
}

static void device_json(gpa_buf_t *b, int i)
{
    gpa_buf_printf(b,
                   "{\"apiVersion\":\"scheduling.koordinator.sh/v1alpha1\",\"kind\":\"Device\",\"metadata\":{\"name\":"
                   "\"gpu-%04d\"},\"spec\":{\"devices\":[",
                   i);
    for (int m = 0; m < 8; m++)
        gpa_buf_printf(b,
                       "%s{\"type\":\"gpu\",\"minor\":%d,\"health\":true,\"resources\":{\"koordinator.sh/gpu-core\":\"100\","
                       "\"koordinator.sh/gpu-memory\":\"80Gi\"}}",
                       m ? "," : "", m);
    gpa_buf_puts(b, "]}}");
}

static void pod_json(gpa_buf_t *b, int j, int generation)
{
    int gpu = j % 2 == 0;
    gpa_buf_printf(b,
                   "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"job-%06d\",\"namespace\":\"team-%d\","
                   "\"labels\":{\"app\":\"job-%d\",\"generation\":\"%d\"}",
                   j, j % 20, j % 500, generation);
    if (gpu)
        gpa_buf_printf(b,
                       ",\"annotations\":{\"scheduling.koordinator.sh/device-allocated\":\"{\\\"gpu\\\":[{\\\"minor\\\":%d,"
                       "\\\"resources\\\":{\\\"koordinator.sh/gpu-core\\\":\\\"25\\\",\\\"koordinator.sh/gpu-memory\\\":"
                       "\\\"20Gi\\\"}}]}\"}",
                       (j / 2 / NODES) % 8);
    gpa_buf_printf(b,
                   "},\"spec\":{\"nodeName\":\"gpu-%04d\",\"containers\":[{\"name\":\"main\",\"image\":\"train:1\","
                   "\"resources\":{\"limits\":{\"cpu\":\"4\"%s}}}]},\"status\":{\"phase\":\"Running\"}}",
                   (j / 2) % NODES, gpu ? ",\"koordinator.sh/gpu-core\":\"25\",\"koordinator.sh/gpu-memory-ratio\":\"25\"" : "");
}

typedef void (*gen_fn)(gpa_buf_t *b, int i);

/* Applies objects [from, to) of one kind; the mean microseconds per object (JSON parsing excluded). */
static double apply_all(gpa_view_t *v, gpa_view_kind_t kind, gen_fn gen, int from, int to)
{
    gpa_arena_t a = {0};
    gpa_buf_t b = GPA_BUF_INIT;
    double spent = 0;
    for (int i = from; i < to; i++) {
        gpa_buf_reset(&b);
        gen(&b, i);
        gpa_value_t *obj;
        gpa_error_t err = {0};
        gpa_error_init(&err, "bench");
        if (gpa_json_parse(&a, b.base, b.len, &obj, &err) != 0) {
            fprintf(stderr, "bench: %s\n%.*s\n", err.message, (int)b.len, b.base);
            exit(1);
        }
        double t = cpu_us();
        gpa_view_apply(v, kind, GPA_WATCH_ADDED, obj, NULL, 0, &err);
        spent += cpu_us() - t;
        gpa_arena_clear(&a);
    }
    gpa_buf_dispose(&b);
    gpa_arena_dispose(&a);
    return spent / (to - from);
}

static void pod_gen0(gpa_buf_t *b, int j)
{
    pod_json(b, j, 0);
}

static void pod_gen1(gpa_buf_t *b, int j)
{
    pod_json(b, j, 1);
}

static const char share_pod[] = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team-1}\nspec:\n  containers:\n"
                                "  - name: main\n    resources:\n      limits: {koordinator.sh/gpu-core: 50, "
                                "koordinator.sh/gpu-memory-ratio: 50}\n";

/* Mean microseconds of gpa_check (validation) of the share Pod with `inv` (may be NULL). */
static double check_us(const gpa_inventory_t *inv)
{
    gpa_arena_t a = {0}, doc = {0};
    gpa_docs_t docs;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_error_init(&err, "pod");
    if (gpa_docs_parse(&doc, share_pod, strlen(share_pod), &docs, &err) != 0 ||
        gpa_decode_object(&doc, docs.docs[0], &obj, &err) != 0)
        exit(1);
    gpa_config_t *cfg = gpa_config_default();
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv};
    gpa_verdict_t v;
    double t = cpu_us();
    for (int i = 0; i < CHECKS; i++) {
        gpa_check(&a, cfg, obj, &opts, &v, &err);
        gpa_arena_clear(&a);
    }
    double per = (cpu_us() - t) / CHECKS;
    gpa_config_release(cfg);
    gpa_arena_dispose(&a);
    gpa_arena_dispose(&doc);
    return per;
}

int main(void)
{
    long rss0 = rss_kb();
    gpa_view_t *v = gpa_view_new();
    for (int k = 0; k < GPA_VIEW_NKINDS; k++)
        gpa_view_begin_list(v, (gpa_view_kind_t)k);
    double node_us = apply_all(v, GPA_VIEW_NODES, node_json, 0, NODES);
    double dev_us = apply_all(v, GPA_VIEW_DEVICES, device_json, 0, NODES);
    double pod_us = apply_all(v, GPA_VIEW_PODS, pod_gen0, 0, PODS);
    for (int k = 0; k < GPA_VIEW_NKINDS; k++)
        gpa_view_end_list(v, (gpa_view_kind_t)k);
    long rss_view = rss_kb();
    /* The best of five builds: the machine may be shared. */
    gpa_error_t err = {0};
    gpa_inventory_t *inv = NULL;
    double build_ms = 1e12;
    for (int i = 0; i < 5; i++) {
        gpa_inventory_release(inv);
        double t = cpu_us();
        inv = gpa_view_snapshot(v, &err);
        build_ms = (cpu_us() - t) / 1e3 < build_ms ? (cpu_us() - t) / 1e3 : build_ms;
        if (inv == NULL) {
            fprintf(stderr, "bench: %s\n", err.message);
            return 1;
        }
    }
    long rss_inv = rss_kb();
    double event_us = apply_all(v, GPA_VIEW_PODS, pod_gen1, 0, EVENTS);
    size_t nnodes, nshapes, nnow;
    gpa_inventory_nodes(inv, &nnodes);
    gpa_inventory_shapes(inv, 0, &nshapes);
    gpa_inventory_shapes(inv, 1, &nnow);
    double with = check_us(inv), without = check_us(NULL);
    gpa_inventory_t *one = gpa_inventory_new();
    gpa_buf_t b = GPA_BUF_INIT;
    node_json(&b, 0);
    gpa_buf_puts(&b, "\n---\n");
    device_json(&b, 0);
    if (gpa_inventory_parse(one, b.base, b.len, "one", &err) != 0)
        return 1;
    gpa_buf_dispose(&b);
    double single = check_us(one);
    gpa_inventory_release(one);

    printf("%-44s %12s  %s\n", "what", "figure", "note");
    printf("%-44s %9.1f us  %d Nodes\n", "Node applied (first list)", node_us, NODES);
    printf("%-44s %9.1f us  %d Device objects x 8 GPUs\n", "Device applied (first list)", dev_us, NODES);
    printf("%-44s %9.1f us  %d Pods, half with a GPU share\n", "Pod applied (first list)", pod_us, PODS);
    printf("%-44s %9.1f us  mean of %d Pod updates (target <= 20 us)\n", "one watch event applied", event_us, EVENTS);
    printf("%-44s %9.1f ms  %zu GPU nodes (best of 5)\n", "new inventory built from the view", build_ms, nnodes);
    printf("%-44s %9.1f MB  records of every object held\n", "memory: the view", (rss_view - rss0) / 1024.0);
    printf("%-44s %9.1f MB  one resolved inventory\n", "memory: one inventory", (rss_inv - rss_view) / 1024.0);
    printf("%-44s %12zu  empty: %zu, with usage: %zu\n", "node shapes searched by infeasible", nshapes, nshapes, nnow);
    printf("%-44s %9.2f us  %zu nodes: costs what one node costs\n", "engine check of a share Pod, live inventory", with, nnodes);
    printf("%-44s %9.2f us  the rule's own cost, whatever the cluster's size\n", "engine check of a share Pod, one-node inventory",
           single);
    printf("%-44s %9.2f us  infeasible not run (bench-live: /validate ratio)\n", "engine check of a share Pod, no inventory",
           without);
    gpa_inventory_release(inv);
    gpa_view_free(v);
    return 0;
}
