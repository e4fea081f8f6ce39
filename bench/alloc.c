/*
 * bench-alloc: the allocator's figures (issue 4). Builds a 5,000-node × 8-GPU cluster as kubectl prints it
 * (Nodes, Koordinator Device objects, scheduled Pods), then times
 *   - loading it (gpa_inventory_parse, target ≤ 1 s),
 *   - fit per Pod over all nodes, loading excluded (target ≤ 20 ms),
 *   - one 6-container × 8-GPU depth-first search (target ≤ 5 ms),
 *   - a 5,000-node HAMi cluster's register annotations (8 cards each, v2.8+ JSON): read node by node as the live
 *     view does (target ≤ 100 ms), and the whole kubectl List loaded (parse + resolve),
 * and prints a table. Timing is printed, never asserted (machines differ): the table says whether each
 * target was met.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/alloc.h"
#include "base/buf.h"
#include "inventory/inventory.h"
#include "document/json.h"

#define NODES 5000
#define GPUS 8

static double clock_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

/* A kubectl List: per node a Node, a Device object, and up to three share Pods (deterministic pseudo-usage). */
static char *cluster_json(size_t *len)
{
    gpa_buf_t b = GPA_BUF_INIT;
    unsigned seed = 42;
    gpa_buf_puts(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int n = 0; n < NODES; n++) {
        gpa_buf_printf(&b,
                       "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\",\"labels\":{"
                       "\"kubernetes.io/hostname\":\"node-%05d\",\"node.koordinator.sh/gpu-model\":\"%s\","
                       "\"topology.kubernetes.io/zone\":\"zone-%d\"}},\"status\":{\"allocatable\":{\"cpu\":\"96\","
                       "\"memory\":\"1056710028Ki\",\"koordinator.sh/gpu-core\":\"800\",\"koordinator.sh/gpu-memory\":\"%s\"}}}",
                       n ? "," : "", n, n, n % 2 ? "A100-80GB" : "A100-40GB", n % 4, n % 2 ? "640Gi" : "320Gi");
        gpa_buf_printf(&b,
                       ",{\"apiVersion\":\"scheduling.koordinator.sh/v1alpha1\",\"kind\":\"Device\",\"metadata\":"
                       "{\"name\":\"node-%05d\"},\"spec\":{\"devices\":[",
                       n);
        for (int g = 0; g < GPUS; g++)
            gpa_buf_printf(&b,
                           "%s{\"type\":\"gpu\",\"minor\":%d,\"health\":%s,\"resources\":{\"koordinator.sh/gpu-core\":\"100\","
                           "\"koordinator.sh/gpu-memory\":\"%s\",\"koordinator.sh/gpu-memory-ratio\":\"100\"}}",
                           g ? "," : "", g, rand_r(&seed) % 50 ? "true" : "false", n % 2 ? "80Gi" : "40Gi");
        gpa_buf_puts(&b, "]}}");
        for (int p = 0; p < 3; p++) {
            int minor = rand_r(&seed) % GPUS, pct = 10 * (1 + rand_r(&seed) % 6);
            gpa_buf_printf(&b,
                           ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-%d-%d\",\"namespace\":\"ml\","
                           "\"annotations\":{\"scheduling.koordinator.sh/device-allocated\":\"{\\\"gpu\\\":[{\\\"minor\\\":%d,"
                           "\\\"resources\\\":{\\\"koordinator.sh/gpu-core\\\":\\\"%d\\\",\\\"koordinator.sh/gpu-memory-ratio\\\":"
                           "\\\"%d\\\"}}]}\"}},\"spec\":{\"nodeName\":\"node-%05d\",\"containers\":[{\"name\":\"main\","
                           "\"image\":\"infer:1\"}]},\"status\":{\"phase\":\"Running\"}}",
                           n, p, minor, pct, pct, n);
        }
    }
    gpa_buf_puts(&b, "]}");
    *len = b.len;
    return gpa_buf_steal(&b);
}

/* CPU time of this process: what a row costs on a loaded machine, beside the wall clock. */
static double cpu_ms(void)
{
    return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

/* A kubectl List of HAMi nodes: per node a Node whose register annotation lists 8 cards (v2.8+ JSON). */
static char *hami_json(size_t *len)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (int n = 0; n < NODES; n++) {
        gpa_buf_printf(&b,
                       "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"hami-%05d\",\"labels\":{"
                       "\"kubernetes.io/hostname\":\"hami-%05d\",\"gpu\":\"on\"},\"annotations\":{\"hami.io/node-handshake\":"
                       "\"Requesting_2026-11-26 09:12:44\",\"hami.io/node-nvidia-register\":\"[",
                       n ? "," : "", n, n);
        for (int g = 0; g < GPUS; g++)
            gpa_buf_printf(&b,
                           "%s{\\\"id\\\":\\\"GPU-%08x-5c1d-4a8e-9f21-3d6c8a1b%04x\\\",\\\"index\\\":%d,\\\"count\\\":10,"
                           "\\\"devmem\\\":81920,\\\"devcore\\\":100,\\\"type\\\":\\\"NVIDIA A100-SXM4-80GB\\\",\\\"numa\\\":%d,"
                           "\\\"mode\\\":\\\"hami-core\\\",\\\"health\\\":true}",
                           g ? "," : "", n, g, g, g / 4);
        gpa_buf_puts(&b, "]\"}},\"status\":{\"allocatable\":{\"cpu\":\"96\",\"nvidia.com/gpu\":\"80\"}}}");
    }
    gpa_buf_puts(&b, "]}");
    *len = b.len;
    return gpa_buf_steal(&b);
}

static void count_gpu(void *ctx, const gpa_gpu_desc_t *d)
{
    (void)d;
    ++*(size_t *)ctx;
}

static void ignore_node(void *ctx, const gpa_node_desc_t *d)
{
    (void)ctx, (void)d;
}

/* Reads each Node of the List into records, as the live view does per object (the JSON already parsed): ms, or -1. */
static double time_hami_nodes(const char *text, size_t len, size_t *cards, double *cpu)
{
    gpa_arena_t a, scratch;
    gpa_value_t *list;
    gpa_error_t err = {0};
    gpa_arena_init(&a);
    gpa_arena_init(&scratch);
    if (gpa_json_parse(&a, text, len, &list, &err) != 0)
        return -1;
    const gpa_value_t *items = gpa_value_get(list, "items");
    gpa_inventory_sink_t sink = {ignore_node, count_gpu, NULL, cards, NULL};
    double t0 = now_ms(), c0 = cpu_ms();
    for (size_t i = 0; i < items->u.array.len; i++) {
        gpa_arena_clear(&scratch);
        if (gpa_inventory_read_object(&scratch, GPA_INVENTORY_NODE, items->u.array.items[i], "bench", &sink, &err) != 0)
            return -1;
    }
    double ms = now_ms() - t0;
    *cpu = cpu_ms() - c0;
    gpa_arena_dispose(&scratch);
    gpa_arena_dispose(&a);
    return ms;
}

static gpa_container_t containers[6];

static gpa_request_t request(gpa_device_group_t *g, size_t n, unsigned count, int64_t core, int64_t ratio)
{
    for (size_t i = 0; i < n; i++)
        g[i] = (gpa_device_group_t){.container = &containers[i],
                                    .dialect = GPA_DIALECT_KOORDINATOR,
                                    .count = count,
                                    .core = core,
                                    .memory_kind = GPA_MEMORY_RATIO,
                                    .memory_ratio = ratio};
    return (gpa_request_t){.groups = g, .ngroups = n, .napp_groups = n};
}

typedef struct st_row_t {
    const char *what;
    double ms, target;
    const char *note;
} row_t;

static double time_place(const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_request_t *req, int now, int reps,
                         gpa_placement_t *last)
{
    gpa_arena_t a;
    gpa_podspec_t pod = {0};
    gpa_alloc_opts_t opts = {.now = now};
    gpa_arena_init(&a);
    double t0 = now_ms();
    for (int i = 0; i < reps; i++) {
        gpa_arena_clear(&a);
        gpa_alloc_place(&a, inv, pol, &pod, req, &opts, last);
    }
    double ms = (now_ms() - t0) / reps;
    last->node = last->node != NULL ? strdup(last->node) : NULL; /* outlives the arena for the report */
    gpa_arena_dispose(&a);
    return ms;
}

int main(void)
{
    gpa_alloc_policy_t cfg = {.max_pods_per_device = 16, .strategy = GPA_STRATEGY_BINPACK, .core_weight = 20};
    row_t rows[10];
    size_t nrows = 0, len;
    for (int i = 0; i < 6; i++)
        containers[i].name = (const char *[]){"c0", "c1", "c2", "c3", "c4", "c5"}[i];

    char *text = cluster_json(&len);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    double t0 = now_ms();
    if (gpa_inventory_parse(inv, text, len, "bench", &err) != 0) {
        char msg[1024];
        gpa_error_format(&err, msg, sizeof(msg));
        fprintf(stderr, "bench-alloc: %s\n", msg);
        return 2;
    }
    char note[64];
    snprintf(note, sizeof(note), "%.1f MB of JSON", (double)len / 1e6);
    rows[nrows++] = (row_t){"load 5,000 nodes x 8 GPUs (kubectl List)", now_ms() - t0, 1000, strdup(note)};
    free(text);

    gpa_device_group_t g[6];
    gpa_placement_t p;
    gpa_request_t one = request(g, 1, 1, 25, 25);
    rows[nrows++] = (row_t){"fit 1 container (0.25 GPU), --now", time_place(inv, &cfg, &one, 1, 20, &p), 20, p.node};
    rows[nrows++] = (row_t){"fit 1 container (0.25 GPU), empty", time_place(inv, &cfg, &one, 0, 20, &p), 20, p.node};
    gpa_request_t two = request(g, 1, 2, 50, 50);
    rows[nrows++] = (row_t){"fit 1 container x 2 GPUs (0.5 each), --now", time_place(inv, &cfg, &two, 1, 20, &p), 20, p.node};
    gpa_request_t four = request(g, 4, 1, 30, 30);
    rows[nrows++] = (row_t){"fit 4 containers (0.3 each), --now", time_place(inv, &cfg, &four, 1, 5, &p), 20, p.node};
    cfg.strategy = GPA_STRATEGY_SPREAD;
    rows[nrows++] = (row_t){"fit 1 container (0.25 GPU), spread, --now", time_place(inv, &cfg, &one, 1, 20, &p), 20, p.node};
    cfg.strategy = GPA_STRATEGY_BINPACK;
    gpa_inventory_release(inv);

    /* One node, 8 GPUs, 6 containers: the search the Volcano design describes. */
    inv = gpa_inventory_new();
    const char *node = "kind: GPUInventory\nnodes:\n- name: one\n  gpus: {count: 8, memory: 80Gi}\n  used:\n"
                       "  - {minor: 1, core: 30, ratio: 30}\n  - {minor: 4, core: 50, ratio: 20}\n";
    if (gpa_inventory_parse(inv, node, strlen(node), "bench", &err) != 0)
        return 2;
    gpa_request_t six = request(g, 6, 1, 20, 15);
    rows[nrows++] = (row_t){"search 6 containers x 8 GPUs, one node", time_place(inv, &cfg, &six, 1, 50, &p), 5, p.node};
    gpa_request_t six2 = request(g, 6, 2, 20, 15);
    rows[nrows++] = (row_t){"search 6 containers x 2 GPUs each, 8 GPUs", time_place(inv, &cfg, &six2, 1, 20, &p), 5,
                            p.bounded ? "bounded" : p.node};
    gpa_inventory_release(inv);

    text = hami_json(&len);
    size_t cards = 0;
    double cpu;
    double ms = time_hami_nodes(text, len, &cards, &cpu);
    if (ms < 0 || cards != NODES * GPUS) {
        fprintf(stderr, "bench-alloc: HAMi nodes not read (%zu cards)\n", cards);
        return 2;
    }
    snprintf(note, sizeof(note), "%.1f ms of CPU; node by node, as the live view", cpu);
    rows[nrows++] = (row_t){"read 5,000 HAMi register annotations (8 cards)", ms, 100, strdup(note)};
    snprintf(note, sizeof(note), "%.1f MB of JSON", (double)len / 1e6);
    inv = gpa_inventory_new();
    t0 = now_ms();
    if (gpa_inventory_parse(inv, text, len, "bench", &err) != 0)
        return 2;
    rows[nrows++] = (row_t){"load 5,000 HAMi nodes x 8 cards (kubectl List)", now_ms() - t0, 1000, strdup(note)};
    gpa_inventory_release(inv);
    free(text);

    printf("%-46s %12s %10s  %-4s  %s\n", "benchmark", "ms", "target ms", "met", "note");
    for (size_t i = 0; i < nrows; i++)
        printf("%-46s %12.3f %10.0f  %-4s  %s\n", rows[i].what, rows[i].ms, rows[i].target,
               rows[i].ms <= rows[i].target ? "yes" : "NO", rows[i].note != NULL ? rows[i].note : "(no fit)");
    return 0;
}
