/*
 * The allocator: docs/allocator.md's arithmetic, per-device capacity, health, vendor counts, node selection, mGPU,
 * binpack versus spread and each dialect's default, the schedulers' annotations, init containers, reasons, and the depth-first
 * search against brute force. Requests are built by hand (the canonical form of normalize.h), inventories from the compact form.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "alloc/alloc.h"
#include "alloc/annotate.h"
#include "alloc/strategy.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "document/docs.h"
#include "run.h"

#define GI ((int64_t)1 << 30)

static gpa_alloc_policy_t cfg;
static gpa_arena_t arena;
static gpa_container_t containers[8];

static void setup(void)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.max_pods_per_device = 16;
    cfg.strategy = GPA_STRATEGY_BINPACK;
    cfg.core_weight = 20;
    gpa_arena_init(&arena);
    for (int i = 0; i < 8; i++) {
        memset(&containers[i], 0, sizeof(containers[i]));
        containers[i].name = gpa_arena_printf(&arena, "c%d", i);
        containers[i].index = (size_t)i;
    }
}

static void teardown(void)
{
    gpa_arena_dispose(&arena);
}

static gpa_inventory_t *inv_of(const char *yaml)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    char msg[1024] = "";
    int rc = gpa_inventory_parse(inv, yaml, strlen(yaml), "test", &err);
    if (rc != 0)
        gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(rc == 0, "%s", msg);
    return inv;
}

/* Groups: one per container unless given otherwise. */
typedef struct {
    gpa_device_group_t g[8];
    gpa_request_t r;
} req_t;

static gpa_device_group_t share(int c, gpa_dialect_t d, unsigned count, int64_t core, gpa_memory_kind_t kind, int64_t amount)
{
    gpa_device_group_t g = {.container = &containers[c], .dialect = d, .count = count, .core = core, .memory_kind = kind};
    if (kind == GPA_MEMORY_BYTES)
        g.memory_bytes = amount;
    else if (kind == GPA_MEMORY_RATIO)
        g.memory_ratio = amount;
    return g;
}

static gpa_device_group_t whole(int c, gpa_dialect_t d, unsigned count)
{
    return (gpa_device_group_t){.container = &containers[c], .dialect = d, .count = count, .whole = 1, .core = 100};
}

static void finish(req_t *q, size_t n, size_t napp)
{
    q->r.groups = q->g;
    q->r.ngroups = n;
    q->r.napp_groups = napp;
}

static gpa_placement_t place(const gpa_inventory_t *inv, const gpa_podspec_t *pod, const gpa_request_t *r, int now)
{
    gpa_placement_t p;
    gpa_alloc_opts_t o = {.now = now};
    static gpa_podspec_t empty;
    ck_assert_int_eq(gpa_alloc_place(&arena, inv, &cfg, pod != NULL ? pod : &empty, r, &o, &p), 0);
    return p;
}

static const char *reason_of(const gpa_placement_t *p, const char *node)
{
    for (size_t i = 0; i < p->nreasons; i++)
        if (strcmp(p->reasons[i].node, node) == 0)
            return p->reasons[i].reason;
    return NULL;
}

static const char *annotation(const gpa_placement_t *p, const char *key)
{
    for (size_t i = 0; i < p->nannotations; i++)
        if (strcmp(p->annotations[i].key, key) == 0)
            return p->annotations[i].value;
    return NULL;
}

static const char *hetero = "kind: GPUInventory\nnodes:\n"
                            "- {name: n40, gpus: {count: 1, memory: 40Gi}}\n"
                            "- {name: n80, gpus: {count: 1, memory: 80Gi}, labels: {gpu: a100}}\n";

START_TEST(bytes_fraction_depends_on_device)
{
    gpa_inventory_t *inv = inv_of(hetero);
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 20 * GI);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    ck_assert(p.feasible);
    ck_assert_str_eq(p.node, "n40"); /* binpack: the fuller device after placement */
    ck_assert_int_eq(p.shares[0].fraction, 5000);
    ck_assert_int_eq(p.shares[0].memory_bytes, 20 * GI);
    /* Pinned to the 80Gi card, the same bytes are a quarter of it. */
    gpa_pair_t sel = {.key = "gpu", .value = "a100"};
    gpa_podspec_t pod = {.node_selector = &sel, .nnode_selector = 1};
    p = place(inv, &pod, &q.r, 0);
    ck_assert_str_eq(p.node, "n80");
    ck_assert_int_eq(p.shares[0].fraction, 2500);
    ck_assert_str_eq(
        annotation(&p, "scheduling.koordinator.sh/device-allocated"),
        "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory\":\"20Gi\","
        "\"koordinator.sh/gpu-memory-ratio\":\"25\"}}]}");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(ratio_and_rounding)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 1, memory: 40G}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 10, GPA_MEMORY_BYTES, 10000000); /* 10 MB of 40 GB */
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    ck_assert_int_eq(p.shares[0].fraction, 3); /* 0.00025 rounds up to 0.0003 */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 33, GPA_MEMORY_RATIO, 33);
    p = place(inv, NULL, &q.r, 0);
    ck_assert_int_eq(p.shares[0].memory_bytes, 13200000000); /* ceil(33 × 40e9 / 100) */
    ck_assert_int_eq(p.shares[0].fraction, 3300);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(fragmentation)
{
    /* Two GPUs with 0.6 free each: 0.8 fits neither, whatever the node's sum says. */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 2, memory: 10Gi}\n  used:\n"
                                  "  - {minor: 0, core: 40, ratio: 40}\n  - {minor: 1, core: 40, ratio: 40}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 80, GPA_MEMORY_RATIO, 80);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert(!p.feasible);
    ck_assert_str_eq(reason_of(&p, "nd"), "device 0 has 6Gi free, needs 8Gi");
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_str_eq(why, "nd: device 0 has 6Gi free, needs 8Gi");
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 60, GPA_MEMORY_RATIO, 60);
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOW);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(unhealthy_never_used)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 2, memory: 16Gi}\n  devices:\n"
                                  "  - {minor: 0, healthy: false}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 50, GPA_MEMORY_RATIO, 50);
    finish(&q, 1, 1);
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "nd: needs 2 distinct devices, the node has 1 healthy of 2");
    q.g[0].count = 1;
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    ck_assert(p.feasible);
    ck_assert_int_eq(p.shares[0].minor, 1);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(vendor_whole_counts)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 8, memory: 80Gi}\n  used:\n"
                                  "  - {wholeDevices: 6, pod: a/b}\n  - {minor: 6, core: 10, memory: 1Gi}\n");
    req_t q;
    q.g[0] = whole(0, GPA_DIALECT_VENDOR, 2);
    finish(&q, 1, 1);
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_msg(strstr(why, "device 6 is shared by 1 Pod(s), a whole device is needed") != NULL, "%s", why);
    q.g[0].count = 1;
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert(p.feasible);
    ck_assert_int_eq(p.shares[0].minor, 7);
    ck_assert_int_eq(p.shares[0].fraction, 10000);
    ck_assert_uint_eq(p.nannotations, 1); /* compact nodes serve Koordinator: device-allocated */
    q.g[0].count = 9;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(selector_and_affinity)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- {name: a, labels: {gen: '7', zone: zx}, gpus: {count: 1, memory: 8Gi}}\n"
                                  "- {name: b, labels: {gen: '8', zone: zy, fast: 'true'}, gpus: {count: 1, memory: 8Gi}}\n"
                                  "- {name: c, labels: {gen: nine}, gpus: {count: 1, memory: 8Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 10, GPA_MEMORY_RATIO, 10);
    finish(&q, 1, 1);
    struct {
        gpa_match_op_t op;
        const char *key;
        const char *value;
        const char *want;
    } cases[] = {
        {GPA_MATCH_IN, "zone", "zy", "b"},     {GPA_MATCH_NOT_IN, "zone", "zx", "b"}, /* c has no zone: NotIn matches it */
        {GPA_MATCH_EXISTS, "fast", NULL, "b"}, {GPA_MATCH_DOES_NOT_EXIST, "zone", NULL, "c"},
        {GPA_MATCH_GT, "gen", "7", "b"},       {GPA_MATCH_LT, "gen", "8", "a"},
        {GPA_MATCH_GT, "gen", "8", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *vals[1] = {cases[i].value};
        gpa_node_requirement_t req = {.key = cases[i].key, .op = cases[i].op, .values = vals, .nvalues = cases[i].value ? 1 : 0};
        gpa_node_term_t term = {.requirements = &req, .len = 1};
        gpa_podspec_t pod = {.node_terms = &term, .nnode_terms = 1};
        cfg.strategy = GPA_STRATEGY_SPREAD; /* all nodes tie: the lowest matching name wins */
        gpa_placement_t p = place(inv, &pod, &q.r, 0);
        if (cases[i].want == NULL) {
            ck_assert(!p.feasible);
            ck_assert_msg(strstr(reason_of(&p, "a"), "required node affinity: gen Gt 8 fails") != NULL, "%s", reason_of(&p, "a"));
        } else {
            ck_assert_msg(p.feasible && strcmp(p.node, cases[i].want) == 0, "case %zu: %s", i, p.node ? p.node : "none");
        }
    }
    gpa_pair_t sel = {.key = "zone", .value = "zz"};
    gpa_podspec_t pod = {.node_selector = &sel, .nnode_selector = 1};
    gpa_placement_t p = place(inv, &pod, &q.r, 0);
    ck_assert(!p.feasible);
    ck_assert_str_eq(reason_of(&p, "a"), "nodeSelector zone=zz: the node's label is zx");
    ck_assert_str_eq(reason_of(&p, "c"), "nodeSelector zone=zz: the node's label is absent");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(mgpu_multi_card)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- {name: k, gpus: {count: 4, memory: 32Gi}, dialects: [koordinator]}\n"
                                  "- name: m\n  dialects: [mgpu]\n  gpus: {count: 4, memory: 32Gi}\n  used:\n"
                                  "  - {minor: 0, core: 100, whole: true}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_MGPU, 2, 50, GPA_MEMORY_BYTES, 4 * GI);
    q.g[1] = share(1, GPA_DIALECT_MGPU, 1, 100, GPA_MEMORY_NONE, 0);
    q.g[1].whole = 1;
    finish(&q, 2, 2);
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert(p.feasible);
    ck_assert_str_eq(p.node, "m");
    ck_assert_uint_eq(p.nshares, 3);
    ck_assert_str_eq(annotation(&p, "vke.volcengine.com/gpu-index-container-c0"), "1,2");
    ck_assert_str_eq(annotation(&p, "vke.volcengine.com/gpu-index-container-c1"), "3");
    /* a third whole card: only 3 healthy untouched cards exist once c0 holds two of them */
    q.g[1].count = 2;
    p = place(inv, NULL, &q.r, 1);
    ck_assert(!p.feasible);
    ck_assert_msg(strstr(reason_of(&p, "k"), "Pods, not mgpu") != NULL, "%s", reason_of(&p, "k"));
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(binpack_versus_spread)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 3, memory: 16Gi}\n  used:\n"
                                  "  - {minor: 1, core: 50, ratio: 50}\n  - {minor: 2, core: 20, ratio: 20}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 25, GPA_MEMORY_RATIO, 25);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.shares[0].minor, 1); /* the fullest that fits */
    ck_assert_int_eq(p.score, 7500);
    cfg.strategy = GPA_STRATEGY_SPREAD;
    p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.shares[0].minor, 0); /* the emptiest */
    ck_assert_int_eq(p.score, 7500);
    /* coreWeight: compute-heavy device 2 (core 90 used, memory 20) versus memory-heavy device 1 */
    gpa_inventory_release(inv);
    inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 2, memory: 10Gi}\n  used:\n"
                 "  - {minor: 0, core: 80, ratio: 10}\n  - {minor: 1, core: 10, ratio: 60}\n");
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 10, GPA_MEMORY_RATIO, 10);
    cfg.strategy = GPA_STRATEGY_BINPACK;
    cfg.core_weight = 100;
    ck_assert_int_eq(place(inv, NULL, &q.r, 1).shares[0].minor, 0);
    cfg.core_weight = 0;
    ck_assert_int_eq(place(inv, NULL, &q.r, 1).shares[0].minor, 1);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(max_pods_per_device)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 1, memory: 16Gi}\n  used:\n"
                                  "  - {minor: 0, core: 1, memory: 1Mi, pod: a}\n  - {minor: 0, core: 1, memory: 1Mi, pod: a}\n"
                                  "  - {minor: 0, core: 1, memory: 1Mi, pod: b}\n");
    ck_assert_int_eq(gpa_inventory_find(inv, "nd")->gpus[0].pods, 2); /* pod a counted once */
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 1, GPA_MEMORY_BYTES, 1 << 20);
    q.g[1] = share(1, GPA_DIALECT_KOORDINATOR, 1, 1, GPA_MEMORY_BYTES, 1 << 20);
    finish(&q, 2, 2);
    cfg.max_pods_per_device = 3; /* this Pod is the third, once, for both containers */
    ck_assert(place(inv, NULL, &q.r, 1).feasible);
    cfg.max_pods_per_device = 2;
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert(!p.feasible);
    ck_assert_msg(strstr(reason_of(&p, "nd"), "holds 2 Pods (maxPodsPerDevice 2)") != NULL, "%s", reason_of(&p, "nd"));
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(init_containers_alone)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 1, memory: 10Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 60, GPA_MEMORY_RATIO, 60);
    q.g[1] = share(1, GPA_DIALECT_KOORDINATOR, 1, 70, GPA_MEMORY_RATIO, 70);
    containers[1].is_init = 1;
    finish(&q, 2, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 0); /* 60 + 70 > 100, but they never run together */
    ck_assert(p.feasible);
    ck_assert_uint_eq(p.nshares, 1);
    q.g[1].memory_ratio = 100, q.g[1].core = 100, q.g[1].count = 2;
    p = place(inv, NULL, &q.r, 0);
    ck_assert(!p.feasible);
    ck_assert_str_eq(reason_of(&p, "nd"), "init container c1: needs 2 distinct devices, the node has 1 healthy of 1");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(ties_and_determinism)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: z, gpus: {count: 4, memory: 8Gi}}\n"
                                  "- {name: b, replicas: 3, gpus: {count: 4, memory: 8Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 30, GPA_MEMORY_RATIO, 30);
    q.g[1] = share(1, GPA_DIALECT_KOORDINATOR, 1, 30, GPA_MEMORY_RATIO, 30);
    finish(&q, 2, 2);
    gpa_placement_t p1 = place(inv, NULL, &q.r, 0), p2 = place(inv, NULL, &q.r, 0);
    ck_assert_str_eq(p1.node, "b-0");
    ck_assert_str_eq(p2.node, "b-0");
    ck_assert_int_eq(p1.score, p2.score);
    for (size_t i = 0; i < p1.nshares; i++)
        ck_assert_int_eq(p1.shares[i].minor, p2.shares[i].minor);
    /* binpack puts c1 on c0's first device: minors 0,1 then 0 */
    ck_assert_int_eq(p1.shares[0].minor, 0);
    ck_assert_int_eq(p1.shares[1].minor, 1);
    ck_assert_int_eq(p1.shares[2].minor, 0);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(bounded_search_says_so)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 8, memory: 8Gi}}\n");
    req_t q;
    for (int c = 0; c < 6; c++)
        q.g[c] = share(c, GPA_DIALECT_KOORDINATOR, 1, 30, GPA_MEMORY_RATIO, 30);
    finish(&q, 6, 6);
    gpa_placement_t p;
    gpa_alloc_budget_t b = gpa_alloc_budget(5);
    gpa_alloc_opts_t o = {.budget = &b};
    gpa_alloc_place(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, &o, &p);
    ck_assert(p.bounded);
    ck_assert(b.spent);
    ck_assert_uint_eq(b.cut, 1);
    o.budget = NULL;
    gpa_alloc_place(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, &o, &p);
    ck_assert(!p.bounded);
    ck_assert(p.feasible);
    gpa_inventory_release(inv);
}
END_TEST

/* ---- the infeasible rule's closest node: rank (stage), then how near within it, then name ---- */

static const char *feasible_why(const gpa_inventory_t *inv, const gpa_request_t *r, gpa_feasibility_t want)
{
    const char *why = NULL;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, r, NULL, &why), want);
    return why;
}

START_TEST(closest_prefers_most_free_memory)
{
    /* the 96Gi per card on 40Gi and 80Gi cards: the 80Gi node came nearer, though a40 sorts first. */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- {name: plan-a100, replicas: 2, gpus: {count: 8, memory: 80Gi}}\n"
                                  "- {name: a40, gpus: {count: 4, memory: 40Gi}}\n"
                                  "- {name: mgpu, dialects: [mgpu], gpus: {count: 4, memory: 32Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 100, GPA_MEMORY_BYTES, 96 * GI);
    finish(&q, 1, 1);
    ck_assert_str_eq(feasible_why(inv, &q.r, GPA_FEASIBLE_NEVER), "plan-a100-0: device 0 has 80Gi free, needs 96Gi");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(closest_device_by_coverage)
{
    /* Device 0 has the most memory but 10% of the compute asked; device 1 lacks only 5Gi of 75Gi: it is the
     * closest device, and its node (b) beats node a, whose best device covers less of the share. */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- name: a\n  gpus: {count: 1, memory: 80Gi}\n  used:\n  - {minor: 0, core: 0, memory: 40Gi}\n"
                                  "- name: b\n  gpus: {count: 2, memory: 80Gi}\n  used:\n"
                                  "  - {minor: 0, core: 95, memory: 0}\n  - {minor: 1, core: 0, memory: 10Gi}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 75 * GI);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert(!p.feasible);
    ck_assert_str_eq(reason_of(&p, "b"), "device 1 has 70Gi free, needs 75Gi");
    ck_assert_str_eq(feasible_why(inv, &q.r, GPA_FEASIBLE_NOT_NOW), "b: device 1 has 70Gi free, needs 75Gi");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(closest_counts_devices)
{
    /* Too few healthy devices: more of them is nearer. */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- name: a\n  gpus: {count: 4, memory: 16Gi}\n  devices:\n"
                                  "  - {minor: 0, healthy: false}\n  - {minor: 1, healthy: false}\n  - {minor: 2, healthy: false}\n"
                                  "- name: b\n  gpus: {count: 4, memory: 16Gi}\n  devices:\n  - {minor: 0, healthy: false}\n"
                                  "- name: c\n  gpus: {count: 4, memory: 16Gi}\n  devices:\n"
                                  "  - {minor: 0, healthy: false}\n  - {minor: 1, healthy: false}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 4, 50, GPA_MEMORY_RATIO, 50);
    finish(&q, 1, 1);
    ck_assert_str_eq(feasible_why(inv, &q.r, GPA_FEASIBLE_NEVER), "b: needs 4 distinct devices, the node has 3 healthy of 4");
    gpa_inventory_release(inv);
    /* Capacity: the node with more devices that have room is nearer, whatever its closest device lacks. */
    inv = inv_of("kind: GPUInventory\nnodes:\n"
                 "- name: a\n  gpus: {count: 3, memory: 10Gi}\n  used:\n"
                 "  - {minor: 0, core: 10, ratio: 10}\n  - {minor: 1, core: 10, ratio: 10}\n  - {minor: 2, core: 10, ratio: 10}\n"
                 "- name: b\n  gpus: {count: 3, memory: 10Gi}\n  used:\n  - {minor: 0, core: 90, ratio: 90}\n");
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 95, GPA_MEMORY_RATIO, 95);
    q.g[0].count = 3;
    ck_assert_str_eq(feasible_why(inv, &q.r, GPA_FEASIBLE_NOT_NOW),
                     "b: needs 3 devices with room, 2 have room (device 0 has 1Gi free, needs 9.5Gi)");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(closest_ties_to_lowest_name)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: n2, gpus: {count: 2, memory: 40Gi}}\n"
                                  "- {name: n1, gpus: {count: 2, memory: 40Gi}}\n- {name: n0, gpus: {count: 1, memory: 24Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 100, GPA_MEMORY_BYTES, 48 * GI);
    finish(&q, 1, 1);
    ck_assert_str_eq(feasible_why(inv, &q.r, GPA_FEASIBLE_NEVER), "n1: device 0 has 40Gi free, needs 48Gi");
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(closest_label_value)
{
    /* A mistyped nodeSelector value: the nearest node is the one whose label differs only in case, then the one
     * fewest edits away; a node without the label is farthest (issue 22: A100 pointed at a40). */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- {name: a40, labels: {gpu: a40}, gpus: {count: 1, memory: 40Gi}}\n"
                                  "- {name: b-a100, labels: {gpu: a100}, gpus: {count: 1, memory: 80Gi}}\n"
                                  "- {name: c-h100, labels: {gpu: A10}, gpus: {count: 1, memory: 80Gi}}\n"
                                  "- {name: a0, gpus: {count: 1, memory: 80Gi}}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 10, GPA_MEMORY_RATIO, 10);
    finish(&q, 1, 1);
    static const struct {
        const char *value, *want;
    } cases[] = {
        {"A100", "b-a100: nodeSelector gpu=A100: the node's label is a100"},
        {"a10", "c-h100: nodeSelector gpu=a10: the node's label is A10"},
        {"A4O", "a40: nodeSelector gpu=A4O: the node's label is a40"},
        {"a1000", "b-a100: nodeSelector gpu=a1000: the node's label is a100"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpa_pair_t sel = {.key = "gpu", .value = cases[i].value};
        gpa_podspec_t pod = {.node_selector = &sel, .nnode_selector = 1};
        const char *why = NULL;
        ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &pod, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
        ck_assert_str_eq(why, cases[i].want);
    }
    /* required node affinity In: the nearest of its values */
    const char *vals[2] = {"H100", "A100"};
    gpa_node_requirement_t req = {.key = "gpu", .op = GPA_MATCH_IN, .values = vals, .nvalues = 2};
    gpa_node_term_t term = {.requirements = &req, .len = 1};
    gpa_podspec_t pod = {.node_terms = &term, .nnode_terms = 1};
    const char *why = NULL;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &pod, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_msg(strncmp(why, "b-a100: ", 8) == 0, "%s", why);
    gpa_inventory_release(inv);
}
END_TEST

/* ---- brute force: every assignment, the same scoring, the first strictly best kept ---- */

typedef struct {
    int64_t core_free[8], mem_free[8], pods[8], mem[8];
    int touched[8], healthy[8];
    int n;
} bf_node_t;

static int64_t bf_best;
static int bf_found;

static int64_t bf_score(const bf_node_t *b, int d)
{
    int64_t uc = (100 - b->core_free[d]) * 10000 / 100;
    int64_t um = ((b->mem[d] - b->mem_free[d]) * 10000 + b->mem[d] - 1) / b->mem[d];
    int64_t used = (cfg.core_weight * uc + (100 - cfg.core_weight) * um) / 100;
    return cfg.strategy == GPA_STRATEGY_SPREAD ? 10000 - used : used;
}

static void bf(bf_node_t *b, const gpa_request_t *r, size_t k, unsigned j, int prev, int64_t score)
{
    if (k == r->napp_groups) {
        if (!bf_found || score > bf_best)
            bf_best = score, bf_found = 1;
        return;
    }
    const gpa_device_group_t *g = &r->groups[k];
    if (j == g->count) {
        bf(b, r, k + 1, 0, -1, score);
        return;
    }
    for (int d = prev + 1; d < b->n; d++) {
        int64_t mem = (g->memory_ratio * b->mem[d] + 99) / 100;
        if (!b->healthy[d] || b->core_free[d] < g->core || b->mem_free[d] < mem ||
            (!b->touched[d] && b->pods[d] >= cfg.max_pods_per_device))
            continue;
        bf_node_t save = *b;
        b->core_free[d] -= g->core, b->mem_free[d] -= mem;
        if (!b->touched[d])
            b->touched[d] = 1, b->pods[d]++;
        bf(b, r, k, j + 1, d, score + bf_score(b, d));
        *b = save;
    }
}

/* ---- node templates: "ever", never "now" (docs/allocator.md#autoscaled-gpu-pools) ---- */

START_TEST(templates_count_for_ever_never_now)
{
    /* A busy small node and a pool that scales from zero: the A100 Pod fits only a new node of the template. */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n"
                                  "- name: a10\n  labels: {gpu: a10}\n  gpus: {count: 1, memory: 24Gi}\n"
                                  "  used: [{minor: 0, core: 50, memory: 12Gi}]\n"
                                  "templates:\n"
                                  "- {name: pool-a100, labels: {gpu: a100}, gpus: {count: 8, memory: 80Gi}}\n");
    size_t n;
    gpa_inventory_nodes(inv, &n);
    ck_assert_uint_eq(n, 1); /* a template is not a node */
    ck_assert_ptr_null(gpa_inventory_find(inv, "pool-a100"));
    const gpa_node_t *t = gpa_inventory_templates(inv, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(t[0].name, "pool-a100");
    ck_assert(t[0].is_template);
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 40 * GI);
    finish(&q, 1, 1);
    gpa_pair_t sel = {.key = "gpu", .value = "a100"};
    gpa_podspec_t pod = {.node_selector = &sel, .nnode_selector = 1};
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &pod, &q.r, NULL, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_str_eq(why, "fits a new node of template pool-a100; a10: nodeSelector gpu=a100: the node's label is a10");
    gpa_placement_t p = place(inv, &pod, &q.r, 0);
    ck_assert(p.feasible);
    ck_assert_ptr_null(p.node);
    ck_assert_str_eq(p.template_name, "pool-a100");
    ck_assert_int_eq(p.shares[0].fraction, 5000);
    ck_assert_str_eq(reason_of(&p, "a10"), "nodeSelector gpu=a100: the node's label is a10"); /* why not an existing node */
    p = place(inv, &pod, &q.r, 1);                                                            /* room now: never a template */
    ck_assert(!p.feasible);
    ck_assert_ptr_null(p.template_name);
    ck_assert_uint_eq(p.nreasons, 1);
    /* A Pod an existing node takes goes there, not to a new node. */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 10 * GI);
    p = place(inv, NULL, &q.r, 0);
    ck_assert(p.feasible);
    ck_assert_str_eq(p.node, "a10");
    ck_assert_ptr_null(p.template_name);
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOW);
    /* No room now on the node, a template would do: not now, and the warning says where it would fit. */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 60, GPA_MEMORY_BYTES, 20 * GI);
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_str_eq(why, "fits a new node of template pool-a100; a10: device 0 has 12Gi free, needs 20Gi");
    /* Fits nothing, template included: still infeasible, and the template is named in the reasons. */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 96 * GI);
    ck_assert_int_eq(gpa_alloc_feasible(&arena, inv, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "template pool-a100: device 0 has 80Gi free, needs 96Gi");
    p = place(inv, NULL, &q.r, 0);
    ck_assert(!p.feasible);
    ck_assert_uint_eq(p.nreasons, 2);
    ck_assert(!p.reasons[0].is_template && p.reasons[1].is_template);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(templates_beside_a_cluster)
{
    /* Templates only, no GPU node at all (a cluster whose GPU pools scale from zero). */
    gpa_inventory_t *files = inv_of("kind: GPUInventory\ntemplates:\n- {name: t, gpus: {count: 2, memory: 40Gi}}\n");
    gpa_inventory_t *live = inv_of("kind: GPUInventory\nnodes:\n- {name: cpu-0, gpus: {count: 0}}\n");
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_inventory_templates_only(files, &err), 0);
    ck_assert_int_eq(gpa_inventory_templates_only(live, &err), -1);
    ck_assert_str_eq(err.message, "node cpu-0: only node templates are read from inventory files beside a live cluster");
    req_t q;
    q.g[0] = whole(0, GPA_DIALECT_VENDOR, 2);
    finish(&q, 1, 1);
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, live, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    gpa_inventory_set_templates(live, files);
    gpa_inventory_release(files); /* live holds its own reference */
    ck_assert_int_eq(gpa_alloc_feasible(&arena, live, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_str_eq(why, "fits a new node of template t");
    q.g[0].count = 3;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, live, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "template t: needs 3 distinct devices, the node has 2 healthy of 2");
    gpa_inventory_set_templates(live, NULL);
    ck_assert_int_eq(gpa_alloc_feasible(&arena, live, &cfg, &(gpa_podspec_t){0}, &q.r, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "the inventory has no GPU nodes");
    gpa_inventory_release(live);
}
END_TEST

/* ---- strategies: each dialect's scheduler default unless the configuration names one (alloc/strategy.h) ---- */

static const char *four_used = "kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 4, memory: 16Gi}\n  used:\n"
                               "  - {minor: 0, core: 10, ratio: 30}\n  - {minor: 1, core: 10, ratio: 50}\n"
                               "  - {minor: 2, core: 80, ratio: 5}\n  - {minor: 3, core: 10, ratio: 5}\n";

START_TEST(scheduler_defaults)
{
    gpa_config_t *c = gpa_config_default();
    cfg = c->placement; /* the configuration's defaults: strategy and coreWeight unset */
    gpa_config_release(c);
    gpa_inventory_t *inv = inv_of(four_used);
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 10, GPA_MEMORY_RATIO, 10);
    finish(&q, 1, 1);
    /* koord-scheduler: spread on memory alone. Devices 2 and 3 are the emptiest by memory (5%): the tie goes to the
     * lower minor, device 2, however busy its compute (coreWeight 0). */
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.strategy, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(p.core_weight, 0);
    ck_assert_int_eq(p.shares[0].minor, 2);
    /* Each setting the configuration names wins over the dialect's, the other stays the scheduler's. */
    cfg.core_weight = 20;
    p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.strategy, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(p.shares[0].minor, 3); /* device 2's compute now counts */
    cfg.strategy = GPA_STRATEGY_BINPACK;
    cfg.core_weight = GPA_CORE_WEIGHT_SCHEDULER;
    p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(p.core_weight, 0);
    ck_assert_int_eq(p.shares[0].minor, 1); /* the fullest */
    /* mGPU: Volcano's binpack, coreWeight 20 */
    gpa_inventory_release(inv);
    inv = inv_of("kind: GPUInventory\nnodes:\n- name: m\n  dialects: [mgpu]\n  gpus: {count: 3, memory: 16Gi}\n  used:\n"
                 "  - {minor: 0, core: 10, ratio: 10}\n  - {minor: 1, core: 60, ratio: 20}\n  - {minor: 2, core: 10, ratio: 30}\n");
    cfg.strategy = GPA_STRATEGY_SCHEDULER;
    q.g[0] = share(0, GPA_DIALECT_MGPU, 1, 10, GPA_MEMORY_BYTES, GI);
    p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(p.core_weight, 20);
    ck_assert_int_eq(p.shares[0].minor, 1); /* 20% of 70 core + 80% of ~26 memory beats device 2's 20% of 20 + 80% of ~36 */
    cfg.core_weight = 0;
    ck_assert_int_eq(place(inv, NULL, &q.r, 1).shares[0].minor, 2); /* on memory alone the other way round */
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(policy_table)
{
    gpa_alloc_policy_t unset = {
        .strategy = GPA_STRATEGY_SCHEDULER, .core_weight = GPA_CORE_WEIGHT_SCHEDULER, .max_pods_per_device = 7};
    gpa_alloc_policy_t k = gpa_alloc_policy_for(&unset, GPA_DIALECT_KOORDINATOR);
    ck_assert_int_eq(k.strategy, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(k.core_weight, 0);
    ck_assert_int_eq(k.max_pods_per_device, 7);
    gpa_alloc_policy_t m = gpa_alloc_policy_for(&unset, GPA_DIALECT_MGPU);
    ck_assert_int_eq(m.strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(m.core_weight, 20);
    gpa_alloc_policy_t v = gpa_alloc_policy_for(&unset, GPA_DIALECT_VENDOR);
    ck_assert_int_eq(v.strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(v.core_weight, 20);
    ck_assert_int_eq(gpa_alloc_policy_for(&unset, 0).strategy, GPA_STRATEGY_BINPACK); /* no dialect: the vendor row */
    ck_assert_int_eq(gpa_alloc_policy_for(&unset, GPA_DIALECT_MGPU | GPA_DIALECT_KOORDINATOR).strategy, GPA_STRATEGY_SPREAD);
    gpa_alloc_policy_t set = {.strategy = GPA_STRATEGY_BINPACK, .core_weight = 100};
    ck_assert_int_eq(gpa_alloc_policy_for(&set, GPA_DIALECT_KOORDINATOR).strategy, GPA_STRATEGY_BINPACK);
    ck_assert_int_eq(gpa_alloc_policy_for(&set, GPA_DIALECT_KOORDINATOR).core_weight, 100);
    gpa_strategy_t s;
    ck_assert_int_eq(gpa_strategy_parse("spread", &s), 0);
    ck_assert_int_eq(s, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(gpa_strategy_parse("scheduler", &s), -1); /* not a name the configuration takes */
    ck_assert_str_eq(gpa_strategy_name(GPA_STRATEGY_BINPACK), "binpack");
}
END_TEST

/* ---- the annotations, with the schedulers' own arithmetic (docs/allocator.md#annotations-fit-reports) ---- */

#define MI ((int64_t)1 << 20)

START_TEST(koord_arithmetic)
{
    /* Bytes to a ratio, as koord-scheduler: int64(float64(bytes) / float64(total) * 100). The expected values are
     * Go's (IEEE-754 binary64, each operation rounded to nearest), computed apart; where the exact floor differs,
     * the float's rounding is what the scheduler writes (2320/8000 is 0.29, × 100 is 28.999999999999996). */
    static const struct {
        int64_t bytes, total, ratio, floor;
    } cases[] = {
        {40000000000, 80 * GI, 46, 46},
        {1000 * MI, 8000 * MI, 12, 12},
        {2320 * MI, 8000 * MI, 28, 29},
        {5700, 10000, 56, 57},
        {58, 100, 57, 58},
        {7, 100, 7, 7},
        {29 * GI, 100 * GI, 28, 29},
        {1, 3, 33, 33},
        {2, 3, 66, 66},
        {20 * GI, 80 * GI, 25, 25},
        {80 * GI, 80 * GI, 100, 100},
        {0, 80 * GI, 0, 0},
        {10000000, 40000000000, 0, 0},
        {143771 * MI / 2, 143771 * MI, 50, 50},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_msg(gpa_annotate_bytes_ratio(cases[i].bytes, cases[i].total) == cases[i].ratio, "case %zu: %lld", i,
                      (long long)gpa_annotate_bytes_ratio(cases[i].bytes, cases[i].total));
        ck_assert_int_eq(cases[i].bytes * 100 / cases[i].total, cases[i].floor); /* the integer floor, for contrast */
    }
    ck_assert_int_eq(gpa_annotate_bytes_ratio(1, 0), 0);
    /* A ratio to bytes: truncated (feasibility rounds up). 33% of an H200's 143771Mi. */
    ck_assert_int_eq(gpa_annotate_ratio_bytes(33, 143771 * MI), 49749090631);
    ck_assert_int_eq(gpa_annotate_ratio_bytes(33, 40000000000), 13200000000);
    ck_assert_int_eq(gpa_annotate_ratio_bytes(100, INT64_MAX), INT64_MAX); /* exact, no overflow: 100q + r */
    ck_assert_int_eq(gpa_annotate_ratio_bytes(99, INT64_MAX), INT64_MAX / 100 * 99 + INT64_MAX % 100 * 99 / 100);
}
END_TEST

static const char *allocated(const gpa_placement_t *p)
{
    const char *v = annotation(p, "scheduling.koordinator.sh/device-allocated");
    ck_assert_ptr_nonnull(v);
    return v;
}

START_TEST(device_allocated_as_koord_writes)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: a, gpus: {count: 1, memory: 80Gi}}\n"
                                  "- {name: h, gpus: {count: 2, memory: 143771Mi}, labels: {gpu: h200}}\n");
    req_t q;
    /* 40e9 bytes on an 80Gi card: the bytes as asked (canonical binary form), the ratio truncated: 46, not 47 */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_BYTES, 40000000000);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    ck_assert_str_eq(p.node, "a");
    ck_assert_str_eq(allocated(&p), "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"50\","
                                    "\"koordinator.sh/gpu-memory\":\"39062500Ki\",\"koordinator.sh/gpu-memory-ratio\":\"46\"}}]}");
    ck_assert_int_eq(p.shares[0].fraction, 4657); /* feasibility still rounds up: 0.4657 of the card */
    /* A ratio on an H200, over two devices: the bytes truncated, one entry per device in minor order */
    gpa_pair_t sel = {.key = "gpu", .value = "h200"};
    gpa_podspec_t pod = {.node_selector = &sel, .nnode_selector = 1};
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 25, GPA_MEMORY_RATIO, 33);
    p = place(inv, &pod, &q.r, 0);
    ck_assert_int_eq(p.shares[0].memory_bytes, 49749090632); /* ceil: never less than asked */
    ck_assert_str_eq(allocated(&p), "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"25\","
                                    "\"koordinator.sh/gpu-memory\":\"49749090631\",\"koordinator.sh/gpu-memory-ratio\":\"33\"}},"
                                    "{\"minor\":1,\"resources\":{\"koordinator.sh/gpu-core\":\"25\","
                                    "\"koordinator.sh/gpu-memory\":\"49749090631\",\"koordinator.sh/gpu-memory-ratio\":\"33\"}}]}");
    /* Memory alone (no gpu-core asked): the scheduler writes no gpu-core */
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 0, GPA_MEMORY_BYTES, 2320 * MI);
    p = place(inv, NULL, &q.r, 0);
    ck_assert_str_eq(allocated(&p), "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-memory\":\"2320Mi\","
                                    "\"koordinator.sh/gpu-memory-ratio\":\"2\"}}]}");
    /* A whole device (vendor on a node that serves Koordinator): as koord-scheduler turns nvidia.com/gpu into 100/100 */
    q.g[0] = whole(0, GPA_DIALECT_VENDOR, 1);
    p = place(inv, NULL, &q.r, 0);
    ck_assert_str_eq(allocated(&p), "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"100\","
                                    "\"koordinator.sh/gpu-memory\":\"80Gi\",\"koordinator.sh/gpu-memory-ratio\":\"100\"}}]}");
    gpa_inventory_release(inv);
    /* 2320Mi of an 8000Mi card: 28, as the scheduler writes it; and what fit prints reads back as the same usage */
    inv = inv_of("kind: GPUInventory\nnodes:\n- {name: s, gpus: {count: 1, memory: 8000Mi}}\n");
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 1, 30, GPA_MEMORY_BYTES, 2320 * MI);
    p = place(inv, NULL, &q.r, 0);
    ck_assert_str_eq(allocated(&p), "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"30\","
                                    "\"koordinator.sh/gpu-memory\":\"2320Mi\",\"koordinator.sh/gpu-memory-ratio\":\"28\"}}]}");
    gpa_inventory_release(inv);
}
END_TEST

/* koord-scheduler lists a Pod's devices best-scored first (its sort: score, then minor): with usage, the emptiest */
START_TEST(device_allocated_in_scheduler_order)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: u\n  gpus: {count: 4, memory: 10Gi}\n  used:\n"
                                  "  - {minor: 0, core: 10, ratio: 60}\n  - {minor: 1, core: 10, ratio: 10}\n"
                                  "  - {minor: 2, core: 10, ratio: 30}\n");
    cfg.strategy = GPA_STRATEGY_SPREAD;
    cfg.core_weight = 0;
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 20, GPA_MEMORY_RATIO, 20);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 1);
    ck_assert_int_eq(p.shares[0].minor, 1); /* the shares in device order */
    ck_assert_int_eq(p.shares[1].minor, 3);
    const char *entry = "\"resources\":{\"koordinator.sh/gpu-core\":\"20\",\"koordinator.sh/gpu-memory\":\"2Gi\","
                        "\"koordinator.sh/gpu-memory-ratio\":\"20\"}}";
    char want[512];
    snprintf(want, sizeof(want), "{\"gpu\":[{\"minor\":3,%s,{\"minor\":1,%s]}", entry, entry);
    ck_assert_str_eq(allocated(&p), want); /* device 3 (20% used then) before device 1 (30%) */
    /* taken empty, the devices tie: minor order */
    p = place(inv, NULL, &q.r, 0);
    snprintf(want, sizeof(want), "{\"gpu\":[{\"minor\":0,%s,{\"minor\":1,%s]}", entry, entry);
    ck_assert_str_eq(allocated(&p), want);
    gpa_inventory_release(inv);
}
END_TEST

/* What fit prints is what gpuadmit's own inventory reads back from a scheduled Pod: the same usage per device */
START_TEST(device_allocated_reads_back)
{
    const char *node = "kind: GPUInventory\nnodes:\n- {name: s, gpus: {count: 2, memory: 8000Mi}}\n";
    gpa_inventory_t *inv = inv_of(node);
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_KOORDINATOR, 2, 30, GPA_MEMORY_BYTES, 2320 * MI);
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    gpa_inventory_release(inv);
    const char *pod =
        gpa_arena_printf(&arena,
                         "kind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
                         "    scheduling.koordinator.sh/device-allocated: '%s'\n"
                         "spec:\n  nodeName: s\n  containers:\n  - name: c\n    resources:\n      limits: "
                         "{koordinator.sh/gpu-core: \"60\", koordinator.sh/gpu-memory: 4640Mi, koordinator.sh/gpu.shared: \"2\"}\n"
                         "status: {phase: Running}\n",
                         allocated(&p));
    inv = inv_of(node);
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, pod, strlen(pod), "pod.yaml", &err) == 0, "%s", err.message);
    const gpa_node_t *n = gpa_inventory_find(inv, "s");
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(n->gpus[i].core_used, 30);
        ck_assert_int_eq(n->gpus[i].memory_used, 2320 * MI);
        ck_assert_int_eq(n->gpus[i].pods, 1);
    }
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(mgpu_annotations_as_volcano_writes)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: m\n  dialects: [mgpu]\n  gpus: {count: 4, memory: 32Gi}\n");
    req_t q;
    q.g[0] = share(0, GPA_DIALECT_MGPU, 2, 50, GPA_MEMORY_BYTES, 4 * GI);
    q.g[1] = share(2, GPA_DIALECT_MGPU, 1, 30, GPA_MEMORY_BYTES, GI);
    finish(&q, 2, 2);
    gpa_placement_t p = place(inv, NULL, &q.r, 0);
    ck_assert(p.feasible);
    /* one per container that asks, cards joined by ",", then the Pod marked assumed (c1 asks for nothing) */
    ck_assert_uint_eq(p.nannotations, 3);
    ck_assert_str_eq(p.annotations[0].key, "vke.volcengine.com/gpu-index-container-c0");
    ck_assert_str_eq(p.annotations[1].key, "vke.volcengine.com/gpu-index-container-c2");
    ck_assert_str_eq(p.annotations[2].key, "vke.volcengine.com/assumed");
    ck_assert_str_eq(p.annotations[2].value, "true");
    ck_assert_ptr_nonnull(strchr(p.annotations[0].value, ','));
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(dfs_matches_brute_force)
{
    unsigned seed = 12345;
    for (int round = 0; round < 300; round++) {
        cfg.strategy = (round & 1) ? GPA_STRATEGY_SPREAD : GPA_STRATEGY_BINPACK;
        cfg.core_weight = rand_r(&seed) % 101;
        cfg.max_pods_per_device = 1 + rand_r(&seed) % 4;
        bf_node_t b = {.n = 1 + rand_r(&seed) % 5};
        gpa_buf_t y = GPA_BUF_INIT;
        gpa_buf_printf(&y, "kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: %d, memory: 1Gi}\n  devices:\n", b.n);
        for (int d = 0; d < b.n; d++) {
            b.mem[d] = (int64_t)(1 + rand_r(&seed) % 4) << 28;
            b.healthy[d] = rand_r(&seed) % 6 != 0;
            gpa_buf_printf(&y, "  - {minor: %d, memory: %lld, healthy: %s}\n", d, (long long)b.mem[d],
                           b.healthy[d] ? "true" : "false");
        }
        gpa_buf_puts(&y, "  used:\n  - {minor: 0, core: 0, memory: 0}\n");
        for (int d = 0; d < b.n; d++) {
            int64_t core = (rand_r(&seed) % 4) * 20, ratio = (rand_r(&seed) % 4) * 20;
            b.pods[d] = rand_r(&seed) % 2;
            b.core_free[d] = 100 - core;
            b.mem_free[d] = b.mem[d] - (ratio * b.mem[d] + 99) / 100;
            if (b.pods[d])
                gpa_buf_printf(&y, "  - {minor: %d, core: %lld, ratio: %lld, pod: p%d}\n", d, (long long)core, (long long)ratio, d);
            else
                b.core_free[d] = 100, b.mem_free[d] = b.mem[d];
        }
        b.pods[0] += 1; /* the placeholder usage above counts as a Pod on device 0 */
        gpa_inventory_t *inv = inv_of(y.base);
        gpa_buf_dispose(&y);
        req_t q;
        size_t ng = 1 + rand_r(&seed) % 4;
        for (size_t k = 0; k < ng; k++)
            q.g[k] = share((int)k, GPA_DIALECT_KOORDINATOR, 1 + rand_r(&seed) % 2, 10 * (1 + rand_r(&seed) % 5), GPA_MEMORY_RATIO,
                           10 * (1 + rand_r(&seed) % 5));
        finish(&q, ng, ng);
        bf_found = 0;
        bf(&b, &q.r, 0, 0, -1, 0);
        gpa_placement_t p = place(inv, NULL, &q.r, 1);
        ck_assert_msg(p.feasible == bf_found, "round %d: dfs %d brute force %d", round, p.feasible, bf_found);
        if (bf_found) {
            size_t nsh = p.nshares;
            ck_assert_msg(p.score == bf_best / (int64_t)nsh, "round %d: dfs %lld brute force %lld", round, (long long)p.score,
                          (long long)(bf_best / (int64_t)nsh));
        }
        gpa_inventory_release(inv);
    }
}
END_TEST

/* ---- Koordinator at Pod level: a real Pod normalized, then placed ---- */

/* The Pod spec of one Pod in YAML, normalized with every dialect into *req (must normalize). */
static const gpa_podspec_t *pod_of(const char *yaml, gpa_request_t *req)
{
    gpa_docs_t docs;
    gpa_objects_t objs = {0};
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_docs_parse(&arena, yaml, strlen(yaml), &docs, &err), 0);
    ck_assert_int_eq(gpa_decode_document(&arena, docs.docs[0], &objs, &err), 0);
    ck_assert_uint_eq(objs.len, 1);
    const gpa_podspec_t *pod = &objs.items[0]->pods[0];
    ck_assert_int_eq(gpa_normalize(&arena, GPA_DIALECT_ALL, pod, req), 0);
    return pod;
}

#define HALF_SHARE "{limits: {koordinator.sh/gpu-core: 50, koordinator.sh/gpu-memory-ratio: 50, koordinator.sh/gpu.shared: 1}}"
static const char two_halves[] = "kind: Pod\nmetadata: {name: p, namespace: t}\nspec:\n  containers:\n"
                                 "  - {name: a, resources: " HALF_SHARE "}\n  - {name: b, resources: " HALF_SHARE "}\n";

/* Two containers of {50, 50, gpu.shared 1}: koord-scheduler reserves two different devices of 50/50, never one. */
START_TEST(koordinator_pod_needs_distinct_devices)
{
    gpa_inventory_t *one = inv_of("kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 1, memory: 80Gi}}\n");
    gpa_request_t req;
    const gpa_podspec_t *pod = pod_of(two_halves, &req);
    const char *why;
    ck_assert_int_eq(gpa_alloc_feasible(&arena, one, &cfg, pod, &req, NULL, &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "nd: the Pod's 2 containers ask for 2 devices of 50% each, each on a different device, the node has 1 "
                          "healthy of 1");
    gpa_placement_t p = place(one, pod, &req, 0);
    ck_assert(!p.feasible);
    gpa_inventory_release(one);
    /* Two devices: one share on each, each listed for the Pod's containers. */
    gpa_inventory_t *two = inv_of("kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 2, memory: 80Gi}}\n");
    ck_assert_int_eq(gpa_alloc_feasible(&arena, two, &cfg, pod, &req, NULL, &why), GPA_FEASIBLE_NOW);
    p = place(two, pod, &req, 0);
    ck_assert(p.feasible);
    ck_assert_uint_eq(p.nshares, 2);
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(p.shares[i].minor, (int32_t)i);
        ck_assert_int_eq(p.shares[i].core, 50);
        ck_assert_int_eq(p.shares[i].memory_bytes, 40 * GI);
        ck_assert_str_eq(p.shares[i].containers, "a,b");
    }
    gpa_inventory_release(two);
}
END_TEST

/* With usage: 2 devices with room are needed, the message counts them ("1 has room"). */
START_TEST(koordinator_pod_room_message)
{
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 2, memory: 80Gi}\n  used:\n"
                                  "  - {minor: 0, core: 80, ratio: 80}\n");
    gpa_request_t req;
    const gpa_podspec_t *pod = pod_of(two_halves, &req);
    gpa_placement_t p = place(inv, pod, &req, 1);
    ck_assert(!p.feasible);
    ck_assert_str_eq(reason_of(&p, "nd"), "the Pod's 2 containers ask for 2 devices of 50% each, each on a different device: 1 has "
                                          "room (device 0 has 16Gi free, needs 40Gi)");
    gpa_inventory_release(inv);
}
END_TEST

/* Group g alone on the one node "nd" of `yaml` (with usage when `now`): the node's reason, or NULL when it fits. */
static const char *lone_reason(const char *yaml, gpa_device_group_t g, int now)
{
    gpa_inventory_t *inv = inv_of(yaml);
    req_t q;
    q.g[0] = g;
    finish(&q, 1, 1);
    gpa_placement_t p = place(inv, NULL, &q.r, now);
    const char *why = p.feasible ? NULL : reason_of(&p, "nd"); /* node names are the inventory's: read them first */
    gpa_inventory_release(inv);
    return why;
}

/* A whole-device share (core and memory 100) needs the device's whole compute and memory free, and compute enough: on
 * a device whose compute total is 50, 100/100 fits no better than 99/99. */
START_TEST(whole_device_respects_compute_total)
{
    const char *half = "kind: GPUInventory\nnodes:\n- {name: nd, gpus: {count: 1, memory: 16Gi, core: 50}}\n";
    gpa_device_group_t g = share(0, GPA_DIALECT_KOORDINATOR, 1, 100, GPA_MEMORY_RATIO, 100);
    g.whole = 1;
    const char *why = lone_reason(half, g, 0);
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "device 0 has 50% compute in all, a whole-device share needs 100%");
    ck_assert_ptr_nonnull(lone_reason(half, share(0, GPA_DIALECT_KOORDINATOR, 1, 99, GPA_MEMORY_RATIO, 99), 0));
    /* a full-compute device: the whole share fits when all of it is free, not once something holds part of it */
    const char *used = "kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 1, memory: 16Gi}\n  used:\n"
                       "  - {minor: 0, core: 1, memory: 0}\n";
    ck_assert_ptr_null(lone_reason(used, g, 0));
    ck_assert_ptr_nonnull(lone_reason(used, g, 1));
}
END_TEST

/* "needs 1 device", never "needs 1 distinct devices". */
START_TEST(one_device_is_singular)
{
    const char *why = lone_reason("kind: GPUInventory\nnodes:\n- name: nd\n  gpus: {count: 1, memory: 16Gi}\n  devices:\n"
                                  "  - {minor: 0, healthy: false}\n",
                                  share(0, GPA_DIALECT_KOORDINATOR, 1, 50, GPA_MEMORY_RATIO, 50), 0);
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "needs 1 device, the node has 0 healthy of 1");
}
END_TEST

/* ---- one normalization: what validation admits, the allocator can place ---- */

static size_t placed_objects;

static void place_admitted(const gpa_inventory_t *inv, const gpa_config_t *c, gpa_object_t *obj, const char *path)
{
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_object_t *m;
    /* Admitted with a finding at warn (unit-hint's 50 whole GPUs) is admitted under a warning, not a promise. */
    if (gpa_check(&arena, c, obj, &opts, &v, &err) != 0 || !v.allowed || obj->npods == 0 || v.violations.len != 0)
        return;
    ck_assert_msg(gpa_decode_object(&arena, v.mutated, &m, &err) == 0, "%s: mutated object does not decode", path);
    for (size_t k = 0; k < m->npods; k++) {
        gpa_podspec_t pod = m->pods[k];
        gpa_request_t req;
        ck_assert_msg(gpa_normalize(&arena, c->dialects, &pod, &req) == 0, "%s: admitted but not normalizable", path);
        for (size_t g = 0; g < req.ngroups; g++) {
            ck_assert_msg(req.groups[g].core >= 0 && req.groups[g].core <= 100, "%s: core %lld", path,
                          (long long)req.groups[g].core);
            ck_assert_msg(req.groups[g].count >= 1 && req.groups[g].count <= 16, "%s: count %u", path, req.groups[g].count);
        }
        pod.nnode_selector = 0, pod.nnode_terms = 0; /* the big node carries none of the examples' labels */
        gpa_placement_t p;
        gpa_alloc_opts_t o = {.first_fit = 1};
        gpa_alloc_place(&arena, inv, &c->placement, &pod, &req, &o, &p);
        ck_assert_msg(p.feasible, "%s: admitted but not placeable: %s", path, p.nreasons ? p.reasons[0].reason : "");
        placed_objects++;
    }
}

static void walk_examples(const gpa_inventory_t *inv, const gpa_config_t *c, const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "%s", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t n = strlen(path);
        if (e->d_type == DT_DIR) {
            if (strstr(path, "examples/inventory") == NULL)
                walk_examples(inv, c, path);
            continue;
        }
        if (!(n > 5 && (strcmp(path + n - 5, ".yaml") == 0 || strcmp(path + n - 5, ".json") == 0)))
            continue;
        FILE *f = fopen(path, "rb");
        static char text[1 << 20];
        size_t len = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        text[len] = '\0';
        gpa_docs_t docs;
        gpa_error_t err = {0};
        if (gpa_docs_parse(&arena, text, len, &docs, &err) != 0)
            continue;
        for (size_t i = 0; i < docs.len; i++) {
            gpa_objects_t objs = {0};
            if (gpa_decode_document(&arena, docs.docs[i], &objs, &err) != 0)
                continue;
            for (size_t j = 0; j < objs.len; j++)
                place_admitted(inv, c, objs.items[j], path);
        }
    }
    closedir(d);
}

START_TEST(admitted_examples_normalize_and_place)
{
    /* Cards larger than any example asks for: this checks that admission and normalization agree, while card
     * size against a real inventory is the infeasible rule's business (examples/with-inventory). */
    gpa_inventory_t *inv = inv_of("kind: GPUInventory\nnodes:\n- {name: big, gpus: {count: 16, memory: 1Pi}}\n");
    gpa_config_t *c = gpa_config_default();
    const char *dir = getenv("GPA_SOURCE_DIR");
    char root[1024];
    snprintf(root, sizeof(root), "%s/examples", dir != NULL ? dir : ".");
    walk_examples(inv, c, root);
    snprintf(root, sizeof(root), "%s/tests/cases", dir != NULL ? dir : ".");
    DIR *cases = opendir(root);
    if (cases != NULL) {
        closedir(cases);
        walk_examples(inv, c, root);
    }
    ck_assert_msg(placed_objects > 5, "only %zu Pod specs placed", placed_objects);
    gpa_config_release(c);
    gpa_inventory_release(inv);
}
END_TEST

/* ---- HAMi (docs/allocator.md#hami-placement) ---- */

/* A node named `name` with HAMi's register annotation of `n` A10 cards (GPU-<name>-<i>), `slots` vGPUs each. */
static const char *hami_node(const char *name, int n, int slots)
{
    const char *cards = "";
    for (int i = 0; i < n; i++)
        cards = gpa_arena_printf(&arena,
                                 "%s%s{\"id\":\"GPU-%s-%d\",\"index\":%d,\"count\":%d,\"devmem\":23028,\"devcore\":100,"
                                 "\"type\":\"NVIDIA A10\",\"mode\":\"hami-core\",\"health\":true}",
                                 cards, i > 0 ? "," : "", name, i, i, slots);
    return gpa_arena_printf(&arena, "kind: Node\nmetadata:\n  name: %s\n  annotations:\n    hami.io/node-nvidia-register: '[%s]'\n",
                            name, cards);
}

/* A Pod with annotations `ann` (a flow mapping) and containers (YAML list items, two-space indent). */
static const gpa_podspec_t *hami_pod(const char *ann, const char *containers, gpa_request_t *req)
{
    return pod_of(
        gpa_arena_printf(&arena, "kind: Pod\nmetadata: {name: p, namespace: t, annotations: %s}\nspec:\n%s", ann, containers), req);
}

#define HC(name, limits) "  - {name: " name ", resources: {limits: " limits "}}\n"

static gpa_feasibility_t hami_feasible(const gpa_inventory_t *inv, const char *ann, const char *containers, const char **why)
{
    gpa_request_t req;
    const gpa_podspec_t *pod = hami_pod(ann, gpa_arena_printf(&arena, "  containers:\n%s", containers), &req);
    return gpa_alloc_feasible(&arena, inv, &cfg, pod, &req, NULL, why);
}

/* Every valid HAMi form fits an empty node of two A10s: a false denial is the worst outcome. */
START_TEST(hami_valid_forms_fit)
{
    gpa_inventory_t *inv = inv_of(hami_node("a10", 2, 10));
    static const char *const forms[] = {
        HC("c", "{nvidia.com/gpu: 2}"),
        HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 50}"),
        HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpucores: 30}"),
        HC("c", "{nvidia.com/gpumem: 8000}"),
        HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 100, nvidia.com/gpucores: 100}"),
        HC("c", "{nvidia.com/gpu: 2, nvidia.com/gpumem: 23028, nvidia.com/gpucores: 100}"),
        HC("a", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 0}")
            HC("b", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 4000}"),
        HC("a", "{nvidia.com/gpu: 2, nvidia.com/gpumem: 10000}") HC("b", "{nvidia.com/gpu: 2, nvidia.com/gpumem: 10000}"),
    };
    static const char *const selections[] = {
        "{}",
        "{nvidia.com/use-gputype: ' a10 , H100'}",
        "{nvidia.com/nouse-gputype: 'A100,,'}",
        "{nvidia.com/use-gputype: ''}",
        "{nvidia.com/vgpu-mode: hami-core}",
        "{nvidia.com/use-gpuuuid: 'GPU-a10-0, GPU-a10-1'}",
        "{nvidia.com/nouse-gpuuuid: GPU-x}",
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
        for (size_t j = 0; j < sizeof(selections) / sizeof(selections[0]); j++) {
            const char *why;
            ck_assert_msg(hami_feasible(inv, selections[j], forms[i], &why) == GPA_FEASIBLE_NOW, "form %zu, selection %zu: %s", i,
                          j, why);
        }
    gpa_inventory_release(inv);
}
END_TEST

/* What no node can ever hold, with the reason naming the fix. */
START_TEST(hami_infeasible_reasons)
{
    gpa_inventory_t *inv = inv_of(hami_node("a10", 2, 10));
    static const char *const cases[][3] = {
        {"{}", HC("c", "{nvidia.com/gpu: 3, nvidia.com/gpumem: 1000}"),
         "a10: asks for 3 vGPUs, each on a different card, the node has 2 healthy of 2: ask for at most 2"},
        {"{}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 30000}"),
         "a10: card 0 has 22.5Gi in all, a vGPU asks for 29.3Gi: ask for at most the card's memory"},
        {"{nvidia.com/use-gputype: 'A100,H100'}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"),
         "a10: card 0's type NVIDIA A10 does not match nvidia.com/use-gputype \"A100,H100\""},
        {"{nvidia.com/nouse-gputype: a10}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"),
         "a10: card 0's type NVIDIA A10 is excluded by nvidia.com/nouse-gputype \"a10\""},
        {"{nvidia.com/use-gpuuuid: GPU-a10-9}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"),
         "a10: card 0's UUID GPU-a10-0 does not match nvidia.com/use-gpuuuid \"GPU-a10-9\""},
        {"{nvidia.com/use-gpuuuid: GPU-a10-1}", HC("c", "{nvidia.com/gpu: 2, nvidia.com/gpumem: 1000}"), NULL},
        {"{nvidia.com/vgpu-mode: mig}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"),
         "a10: card 0's mode hami-core is not in nvidia.com/vgpu-mode \"mig\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *why;
        ck_assert_msg(hami_feasible(inv, cases[i][0], cases[i][1], &why) == GPA_FEASIBLE_NEVER, "case %zu", i);
        if (cases[i][2] != NULL)
            ck_assert_str_eq(why, cases[i][2]);
    }
    /* a UUID list selects the card it names, on whichever node holds it: never just one node per shape */
    gpa_inventory_release(inv);
    inv = inv_of(gpa_arena_printf(&arena, "%s---\n%s", hami_node("a", 2, 10), hami_node("b", 2, 10)));
    const char *why;
    ck_assert_int_eq(
        hami_feasible(inv, "{nvidia.com/use-gpuuuid: GPU-b-1}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &why),
        GPA_FEASIBLE_NOW);
    gpa_request_t req;
    const gpa_podspec_t *pod = hami_pod("{nvidia.com/use-gpuuuid: GPU-b-1}",
                                        "  containers:\n" HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &req);
    gpa_placement_t p = place(inv, pod, &req, 0);
    ck_assert(p.feasible);
    ck_assert_str_eq(p.node, "b");
    ck_assert_int_eq(p.shares[0].minor, 1);
    gpa_inventory_release(inv);
    /* a compact node that serves HAMi but gives no memory: whole cards only (as for every dialect), the lists pass its cards */
    inv = inv_of("kind: GPUInventory\nnodes:\n- {name: m, dialects: [hami], gpus: {count: 2}}\n");
    ck_assert_int_eq(hami_feasible(inv, "{}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 50}"), &why),
                     GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "m: card 0's memory size is unknown");
    ck_assert_int_eq(
        hami_feasible(inv, "{nvidia.com/use-gputype: A100}", HC("c", "{nvidia.com/gpu: 2, nvidia.com/gpucores: 50}"), &why),
        GPA_FEASIBLE_NOW);
    gpa_inventory_release(inv);
    /* a card in MIG mode may take several vGPUs of one container (MIG instances): never denied for too few cards */
    inv = inv_of("kind: Node\nmetadata:\n  name: mig\n  annotations:\n    hami.io/node-nvidia-register: '[{\"id\":\"GPU-m\","
                 "\"count\":7,\"devmem\":81920,\"devcore\":100,\"type\":\"NVIDIA A100\",\"mode\":\"mig\",\"health\":true}]'\n");
    ck_assert_int_eq(hami_feasible(inv, "{}", HC("c", "{nvidia.com/gpu: 3, nvidia.com/gpumem: 10000}"), &why), GPA_FEASIBLE_NOW);
    ck_assert_int_eq(hami_feasible(inv, "{}", HC("c", "{nvidia.com/gpu: 8, nvidia.com/gpumem: 1000}"), &why), GPA_FEASIBLE_NEVER);
    gpa_inventory_release(inv);
    /* HAMi's vGPUs go to HAMi cards only */
    inv = inv_of("kind: GPUInventory\nnodes:\n- {name: v, dialects: [vendor], gpus: {count: 8, memory: 80Gi}}\n");
    ck_assert_int_eq(hami_feasible(inv, "{}", HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &why), GPA_FEASIBLE_NEVER);
    ck_assert_str_eq(why, "v: its GPUs serve vendor Pods, not hami");
    gpa_inventory_release(inv);
}
END_TEST

/* Slots, the card alone at gpucores 100, and a card whose compute is fully booked, each container's vGPUs apart. */
START_TEST(hami_slots_and_exclusive_cards)
{
    const char *why;
    gpa_inventory_t *inv = inv_of(hami_node("one", 1, 2));
    const char *small =
        HC("a", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}") HC("b", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}");
    ck_assert_int_eq(hami_feasible(inv, "{}", small, &why), GPA_FEASIBLE_NOW);
    ck_assert_int_eq(hami_feasible(inv, "{}", gpa_arena_printf(&arena, "%s%s", small, HC("c", "{nvidia.com/gpumem: 1000}")), &why),
                     GPA_FEASIBLE_NEVER);
    /* gpucores 100 takes the card alone: beside another vGPU (either order), never on one card */
    const char *alone = HC("a", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000, nvidia.com/gpucores: 100}");
    const char *zero = HC("b", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000, nvidia.com/gpucores: 0}");
    ck_assert_int_eq(hami_feasible(inv, "{}", gpa_arena_printf(&arena, "%s%s", alone, zero), &why), GPA_FEASIBLE_NEVER);
    ck_assert_int_eq(hami_feasible(inv, "{}", gpa_arena_printf(&arena, "%s%s", zero, alone), &why), GPA_FEASIBLE_NEVER);
    gpa_inventory_release(inv);
    inv = inv_of(hami_node("two", 2, 10));
    ck_assert_int_eq(hami_feasible(inv, "{}", gpa_arena_printf(&arena, "%s%s", alone, zero), &why), GPA_FEASIBLE_NOW);
    gpa_inventory_release(inv);
    /* with usage: a card whose compute is fully booked takes no vGPU, not even one asking 0 */
    inv = inv_of(gpa_arena_printf(
        &arena,
        "%s---\nkind: Pod\nmetadata:\n  name: full\n  namespace: t\n  annotations:\n"
        "    hami.io/vgpu-devices-allocated: 'GPU-one-0,NVIDIA,1000,100:;'\n"
        "spec:\n  nodeName: one\n  containers:\n" HC(
            "c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000, nvidia.com/gpucores: 100}") "status: {phase: Running}\n",
        hami_node("one", 1, 10)));
    ck_assert_int_eq(hami_feasible(inv, "{}", zero, &why), GPA_FEASIBLE_NOT_NOW);
    ck_assert_str_eq(why, "one: card 0's compute is fully booked: it takes no vGPU, not even one asking 0 cores");
    gpa_inventory_release(inv);
}
END_TEST

/* fit writes HAMi's allocation as its scheduler does (init containers first, empty entries for containers without a
 * device), and the inventory reads it back as the same usage. */
START_TEST(hami_allocation_reads_back)
{
    gpa_inventory_t *inv = inv_of(hami_node("a10", 2, 10));
    const char *spec = "  initContainers:\n" HC(
        "setup",
        "{nvidia.com/gpu: 1, nvidia.com/gpumem-percentage: 10, "
        "nvidia.com/gpucores: 5}") "  containers:\n" HC("train", "{nvidia.com/gpu: 2, nvidia.com/gpumem: 8000, "
                                                                 "nvidia.com/gpucores: 30}") "  - {name: log, image: busybox}\n";
    gpa_request_t req;
    const gpa_podspec_t *pod = hami_pod("{}", spec, &req);
    gpa_placement_t p = place(inv, pod, &req, 0);
    ck_assert(p.feasible);
    ck_assert_int_eq(p.strategy, GPA_STRATEGY_BINPACK); /* the test's policy names one */
    const char *alloc = annotation(&p, "hami.io/vgpu-devices-allocated");
    ck_assert_ptr_nonnull(alloc);
    ck_assert_str_eq(alloc, "GPU-a10-0,NVIDIA,2302,5:;GPU-a10-0,NVIDIA,8000,30:GPU-a10-1,NVIDIA,8000,30:;;");
    ck_assert_str_eq(annotation(&p, "hami.io/vgpu-devices-to-allocate"), alloc);
    ck_assert_str_eq(annotation(&p, "hami.io/vgpu-node"), "a10");
    gpa_inventory_release(inv);
    /* read back: each entry adds its MiB, cores and one slot (the init container's entry too, as HAMi counts it) */
    inv = inv_of(gpa_arena_printf(
        &arena,
        "%s---\nkind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
        "    hami.io/vgpu-node: a10\n    hami.io/vgpu-devices-allocated: '%s'\nspec:\n%sstatus: {phase: Pending}\n",
        hami_node("a10", 2, 10), alloc, spec));
    const gpa_node_t *n = gpa_inventory_find(inv, "a10");
    ck_assert_int_eq(n->gpus[0].memory_used, (8000 + 2302) * MI);
    ck_assert_int_eq(n->gpus[0].core_used, 35);
    ck_assert_int_eq(n->gpus[0].slots_used, 2);
    ck_assert_int_eq(n->gpus[1].memory_used, 8000 * MI);
    ck_assert_int_eq(n->gpus[1].core_used, 30);
    ck_assert_int_eq(n->gpus[1].slots_used, 1);
    gpa_inventory_release(inv);
}
END_TEST

/* A count-only Pod on a HAMi node goes through hami-scheduler too: whole cards, written with their registered MiB and
 * compute, read back as the same usage. */
START_TEST(hami_whole_cards_written)
{
    const char *spec = "  containers:\n" HC("c", "{nvidia.com/gpu: 1}");
    gpa_inventory_t *inv = inv_of(hami_node("a10", 2, 10));
    gpa_request_t req;
    gpa_placement_t p = place(inv, hami_pod("{}", spec, &req), &req, 0);
    gpa_inventory_release(inv);
    ck_assert(p.feasible);
    ck_assert_str_eq(annotation(&p, "hami.io/vgpu-devices-allocated"), "GPU-a10-0,NVIDIA,23028,100:;");
    inv = inv_of(gpa_arena_printf(&arena,
                                  "%s---\nkind: Pod\nmetadata:\n  name: p\n  namespace: t\n  annotations:\n"
                                  "    hami.io/vgpu-devices-allocated: '%s'\nspec:\n  nodeName: a10\n%sstatus: {phase: Running}\n",
                                  hami_node("a10", 2, 10), annotation(&p, "hami.io/vgpu-devices-allocated"), spec));
    const gpa_node_t *n = gpa_inventory_find(inv, "a10");
    ck_assert_int_eq(n->gpus[0].memory_used, 23028 * MI);
    ck_assert_int_eq(n->gpus[0].core_used, 100);
    ck_assert_int_eq(n->gpus[0].slots_used, 1);
    ck_assert_int_eq(n->gpus[1].slots_used, 0);
    gpa_inventory_release(inv);
    /* on a node HAMi does not serve, no HAMi annotation */
    inv = inv_of("kind: GPUInventory\nnodes:\n- {name: v, dialects: [vendor], gpus: {count: 1, memory: 16Gi}}\n");
    p = place(inv, hami_pod("{}", spec, &req), &req, 0);
    ck_assert(p.feasible);
    ck_assert_ptr_null(annotation(&p, "hami.io/vgpu-devices-allocated"));
    gpa_inventory_release(inv);
}
END_TEST

/* HAMi's default: devices spread, scored on compute and memory alike. */
START_TEST(hami_default_strategy)
{
    gpa_alloc_policy_t unset = {
        .strategy = GPA_STRATEGY_SCHEDULER, .core_weight = GPA_CORE_WEIGHT_SCHEDULER, .max_pods_per_device = 16};
    gpa_alloc_policy_t h = gpa_alloc_policy_for(&unset, GPA_DIALECT_HAMI | GPA_DIALECT_VENDOR);
    ck_assert_int_eq(h.strategy, GPA_STRATEGY_SPREAD);
    ck_assert_int_eq(h.core_weight, 50);
    /* spread: the emptier card first */
    gpa_inventory_t *inv = inv_of(gpa_arena_printf(
        &arena,
        "%s---\nkind: Pod\nmetadata:\n  name: u\n  namespace: t\n  annotations:\n"
        "    hami.io/vgpu-devices-allocated: 'GPU-a10-0,NVIDIA,4000,20:;'\n"
        "spec:\n  nodeName: a10\n  containers:\n" HC(
            "c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 4000, nvidia.com/gpucores: 20}") "status: {phase: Running}\n",
        hami_node("a10", 2, 10)));
    gpa_request_t req;
    const gpa_podspec_t *pod = hami_pod("{}", "  containers:\n" HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &req);
    gpa_alloc_policy_t saved = cfg;
    cfg = unset;
    gpa_placement_t p = place(inv, pod, &req, 1);
    ck_assert(p.feasible);
    ck_assert_int_eq(p.shares[0].minor, 1);
    /* the Pod's hami.io/gpu-scheduler-policy: binpack (first of a chain) takes the busier card; unknown is spread */
    static const struct {
        const char *policy;
        int minor;
    } policies[] = {{"binpack", 0}, {"topology-aware, binpack", 0}, {"spread", 1}, {"numa", 1}, {"", 1}};
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
        pod = hami_pod(gpa_arena_printf(&arena, "{hami.io/gpu-scheduler-policy: '%s'}", policies[i].policy),
                       "  containers:\n" HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &req);
        p = place(inv, pod, &req, 1);
        ck_assert_msg(p.feasible && p.shares[0].minor == policies[i].minor, "policy %s", policies[i].policy);
    }
    /* what the configuration names wins */
    cfg = unset;
    cfg.strategy = GPA_STRATEGY_SPREAD;
    pod = hami_pod("{hami.io/gpu-scheduler-policy: binpack}",
                   "  containers:\n" HC("c", "{nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}"), &req);
    p = place(inv, pod, &req, 1);
    ck_assert_int_eq(p.shares[0].minor, 1);
    cfg = saved;
    gpa_inventory_release(inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("alloc");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bytes_fraction_depends_on_device);
    tcase_add_test(tc, ratio_and_rounding);
    tcase_add_test(tc, fragmentation);
    tcase_add_test(tc, unhealthy_never_used);
    tcase_add_test(tc, vendor_whole_counts);
    tcase_add_test(tc, selector_and_affinity);
    tcase_add_test(tc, mgpu_multi_card);
    tcase_add_test(tc, binpack_versus_spread);
    tcase_add_test(tc, scheduler_defaults);
    tcase_add_test(tc, policy_table);
    tcase_add_test(tc, koord_arithmetic);
    tcase_add_test(tc, device_allocated_as_koord_writes);
    tcase_add_test(tc, device_allocated_in_scheduler_order);
    tcase_add_test(tc, device_allocated_reads_back);
    tcase_add_test(tc, mgpu_annotations_as_volcano_writes);
    tcase_add_test(tc, max_pods_per_device);
    tcase_add_test(tc, init_containers_alone);
    tcase_add_test(tc, ties_and_determinism);
    tcase_add_test(tc, bounded_search_says_so);
    tcase_add_test(tc, closest_prefers_most_free_memory);
    tcase_add_test(tc, closest_device_by_coverage);
    tcase_add_test(tc, closest_counts_devices);
    tcase_add_test(tc, closest_label_value);
    tcase_add_test(tc, closest_ties_to_lowest_name);
    tcase_add_test(tc, templates_count_for_ever_never_now);
    tcase_add_test(tc, templates_beside_a_cluster);
    tcase_add_test(tc, dfs_matches_brute_force);
    tcase_add_test(tc, admitted_examples_normalize_and_place);
    tcase_add_test(tc, koordinator_pod_needs_distinct_devices);
    tcase_add_test(tc, koordinator_pod_room_message);
    tcase_add_test(tc, whole_device_respects_compute_total);
    tcase_add_test(tc, one_device_is_singular);
    tcase_add_test(tc, hami_valid_forms_fit);
    tcase_add_test(tc, hami_infeasible_reasons);
    tcase_add_test(tc, hami_slots_and_exclusive_cards);
    tcase_add_test(tc, hami_allocation_reads_back);
    tcase_add_test(tc, hami_default_strategy);
    tcase_add_test(tc, hami_whole_cards_written);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
