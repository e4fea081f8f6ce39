/*
 * The allocator's bounds (docs/allocator.md#bounds): one budget per request shared by every template and node, a
 * deadline from the front end, a search cut short that warns and never denies, nodes of one shape searched once
 * whatever label tests the Pod makes, label lists looked up (not scanned), and the capacity bound.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/review.h"
#include "alloc/alloc.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "document/docs.h"
#include "kube/decode.h"
#include "policy/config.h"
#include "policy/engine.h"
#include "fixture.h"
#include "run.h"

/* `n` mGPU nodes of 8 cards, each told apart by its own `host` label (an identity label). */
static gpa_inventory_t *hosts(unsigned n)
{
    size_t cap = 256 + (size_t)n * 160, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "kind: GPUInventory\nnodes:\n");
    for (unsigned i = 0; i < n; i++)
        len += (size_t)snprintf(
            text + len, cap - len,
            "  - {name: n%04u, labels: {host: h%04u, pool: a}, dialects: [mgpu], gpus: {count: 8, memory: 32Gi}}\n", i, i);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, text, len, "hosts", &err) == 0, "%s", err.message);
    free(text);
    return inv;
}

/* n mGPU containers `<prefix><i>` of one card each, compute core0 + i percent (all distinct) and `mib` of memory. */
static const char *mgpu(const char *prefix, unsigned n, unsigned core0, unsigned mib)
{
    const char *out = "";
    for (unsigned i = 0; i < n; i++)
        out = gpa_arena_printf(&arena,
                               "%s%s{name: %s%u, resources: {limits: {vke.volcengine.com/mgpu-core: %u, "
                               "vke.volcengine.com/mgpu-memory: %u}}}",
                               out, i > 0 ? ", " : "", prefix, i, core0 + i, mib);
    return out;
}

/* Never placeable, proven by a short search (no bound cuts it at the root): 7 shares of 30000 MiB (one per 32Gi
 * card) and 2 of 95% compute (alone on a card) need 9 cards, a node has 8. */
static const char *never_after_a_search(void)
{
    return gpa_arena_printf(&arena, "%s, %s", mgpu("small", 7, 10, 30000), mgpu("big", 2, 95, 4000));
}

/* Never placeable, and beyond any budget to prove: 17 shares of 34..50% compute (two at most per card: 9 cards,
 * a node has 8) and one of 1%, which defeats the count bound. */
static const char *heavy(void)
{
    return gpa_arena_printf(&arena, "%s, %s", mgpu("c", 17, 34, 1024), mgpu("tiny", 1, 1, 256));
}

static gpa_object_t *yaml_object(const char *yaml)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, "object");
    ck_assert_msg(gpa_docs_parse(&arena, yaml, strlen(yaml), &docs, &err) == 0, "%s", err.message);
    return decode(docs.docs[0]);
}

static gpa_object_t *pod(const char *affinity, const char *containers)
{
    return yaml_object(
        gpa_arena_printf(&arena, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {%s%scontainers: [%s]}\n",
                         affinity, affinity[0] != '\0' ? ", " : "", containers));
}

/* A required node affinity with one expression. */
static const char *affinity(const char *expression)
{
    return gpa_arena_printf(&arena,
                            "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                            "[{matchExpressions: [%s]}]}}}",
                            expression);
}

static gpa_feasibility_t feasible(const gpa_inventory_t *inv, const gpa_object_t *obj, size_t p, gpa_alloc_budget_t *b,
                                  const char **reason)
{
    gpa_request_t req;
    ck_assert(gpa_normalize(&arena, cfg->dialects, &obj->pods[p], &req) == 0);
    return gpa_alloc_feasible(&arena, inv, &cfg->placement, &obj->pods[p], &req, b, reason);
}

static int deadline_passed(void *ctx)
{
    return *(int *)ctx;
}

/* Steps a budget lost. */
static uint64_t spent(const gpa_alloc_budget_t *b, uint64_t initial)
{
    return initial - b->steps;
}

START_TEST(a_budget_is_shared_by_every_template)
{
    gpa_inventory_t *inv = hosts(4);
    const char *tasks = "";
    for (int t = 0; t < 5; t++)
        tasks = gpa_arena_printf(&arena, "%s  - {name: t%d, template: {spec: {containers: [%s]}}}\n", tasks, t, heavy());
    gpa_object_t *job = yaml_object(gpa_arena_printf(&arena,
                                                     "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, "
                                                     "namespace: d}\nspec:\n  tasks:\n%s",
                                                     tasks));
    ck_assert_uint_eq(job->npods, 5);
    gpa_alloc_budget_t b = gpa_alloc_budget(200000);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv, .budget = &b};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_check(&arena, cfg, job, &opts, &v, &err), 0);
    /* The whole object took at most its budget (plus one node's label tests), not 5 times it. */
    ck_assert(b.spent);
    ck_assert_uint_eq(b.steps, 0);
    ck_assert_uint_eq(b.unproven, 5);
    /* Cut short: every template warned "could not prove", none denied. */
    ck_assert(v.allowed);
    size_t warned = 0;
    for (size_t i = 0; i < v.violations.len; i++)
        if (strcmp(v.violations.items[i].rule, "infeasible") == 0) {
            ck_assert_int_eq(v.violations.items[i].action, GPA_ACTION_WARN);
            ck_assert_msg(strstr(v.violations.items[i].message, "could not prove") != NULL, "%s", v.violations.items[i].message);
            warned++;
        }
    ck_assert_uint_eq(warned, 5);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(cut_short_warns_never_denies)
{
    gpa_inventory_t *inv = hosts(2);
    const char *c = never_after_a_search();
    gpa_object_t *obj = pod("", c);
    const char *why;
    ck_assert_int_eq(feasible(inv, obj, 0, NULL, &why), GPA_FEASIBLE_NEVER);
    gpa_alloc_budget_t b = gpa_alloc_budget(3);
    ck_assert_int_eq(feasible(inv, obj, 0, &b, &why), GPA_FEASIBLE_UNKNOWN);
    ck_assert_uint_eq(b.unproven, 1);
    ck_assert_uint_ge(b.cut, 1);
    /* Through the rule: a warning, admitted, whatever the configured action (deny). */
    gpa_alloc_budget_t b2 = gpa_alloc_budget(3);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv, .budget = &b2};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    ck_assert(v.allowed);
    ck_assert_uint_eq(v.warnings.len, 1);
    ck_assert_msg(strstr(v.warnings.items[0].text, "could not prove") != NULL, "%s", v.warnings.items[0].text);
    opts.budget = NULL;
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    ck_assert(!v.allowed);
    gpa_inventory_release(inv);
}
END_TEST

/* The placement search recursed once per share: a HAMi node registering 8 MIG cards of 2^31 slots and a Pod of
 * 1,200 containers x 64 vGPUs went 56,000 levels deep (SIGSEGV). Scaled down: 300 containers x 8 vGPUs (2,400
 * levels) on 8 cards of 2^31 slots each is cut at GPA_SEARCH_MAX_DEPTH, a warning, and never a crash or a denial. */
START_TEST(deep_searches_are_cut_not_overflowed)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    char *reg = gpa_arena_printf(&arena, "%s", "[");
    for (int c = 0; c < 8; c++)
        reg = gpa_arena_printf(&arena,
                               "%s%s{\\\"id\\\":\\\"GPU-%d\\\",\\\"count\\\":2147483648,\\\"devmem\\\":81920,"
                               "\\\"devcore\\\":100,\\\"type\\\":\\\"NVIDIA-A100\\\",\\\"mode\\\":\\\"mig\\\","
                               "\\\"health\\\":true}",
                               reg, c ? "," : "", c);
    const char *node = gpa_arena_printf(&arena,
                                        "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"mig\",\"annotations\":"
                                        "{\"hami.io/node-nvidia-register\":\"%s]\"}}}",
                                        reg);
    ck_assert_msg(gpa_inventory_parse(inv, node, strlen(node), "nodes", &err) == 0, "%s", err.message);
    const char *containers = "";
    for (int i = 0; i < 300; i++)
        containers = gpa_arena_printf(&arena, "%s%s{name: c%d, resources: {limits: {nvidia.com/gpu: 8, nvidia.com/gpumem: 260}}}",
                                      containers, i ? ", " : "", i);
    gpa_object_t *obj = pod("", containers);
    const char *why;
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    ck_assert_int_eq(feasible(inv, obj, 0, &b, &why), GPA_FEASIBLE_UNKNOWN);
    ck_assert_uint_ge(b.cut, 1);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv};
    gpa_verdict_t v;
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    ck_assert(v.allowed);
    gpa_inventory_release(inv);
}
END_TEST

/* A HAMi Pod with a long use-gpuuuid list on many HAMi nodes: every card's test against the list pays its bytes into
 * the request's steps, and no reason copies the list (each quotes its start). 40 nodes of 8 cards, a 100 KB list. */
START_TEST(hami_lists_pay_and_are_quoted_short)
{
    const char *nodes = "";
    for (int n = 0; n < 40; n++) {
        const char *cards = "";
        for (int i = 0; i < 8; i++)
            cards = gpa_arena_printf(&arena,
                                     "%s%s{\"id\":\"GPU-n%d-%d\",\"index\":%d,\"count\":10,\"devmem\":23028,\"devcore\":100,"
                                     "\"type\":\"NVIDIA A10\",\"mode\":\"hami-core\",\"health\":true}",
                                     cards, i ? "," : "", n, i, i);
        nodes = gpa_arena_printf(&arena,
                                 "%s---\nkind: Node\nmetadata:\n  name: n%02d\n  annotations:\n"
                                 "    hami.io/node-nvidia-register: '[%s]'\n",
                                 nodes, n, cards);
    }
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, nodes, strlen(nodes), "nodes", &err) == 0, "%s", err.message);
    size_t cap = 100 * 1024 + 64, len = 0;
    char *list = gpa_arena_alloc(&arena, cap);
    while (len + 48 < cap)
        len += (size_t)snprintf(list + len, cap - len, "%sGPU-00000000-0000-0000-0000-%012zu", len ? "," : "", len);
    gpa_object_t *obj = yaml_object(gpa_arena_printf(&arena,
                                                     "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d, annotations: "
                                                     "{nvidia.com/use-gpuuuid: \"%s\"}}\nspec: {containers: [{name: c, "
                                                     "resources: {limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}}}]}\n",
                                                     list));
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    uint64_t initial = b.steps;
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv, .budget = &b};
    gpa_verdict_t v;
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    ck_assert(!v.allowed); /* no card has any of the UUIDs: infeasible, proven within the budget */
    ck_assert_uint_ge(spent(&b, initial), 40 * 8 * (len / 64));
    for (size_t i = 0; i < v.violations.len; i++)
        ck_assert_msg(strlen(v.violations.items[i].message) < 1024, "%zu bytes", strlen(v.violations.items[i].message));
    gpa_inventory_release(inv);
}
END_TEST

/* A RayCluster-like object of many templates, each pinned to one node by its hostname, on many nodes: what a review
 * allocates grows with templates + nodes, never templates x nodes (the candidate list of each template is sized by
 * node shapes). 400 templates on 2,000 nodes held 6.4 MB of candidate arrays before; the whole review now stays
 * far under that, in bytes the arena counts. */
START_TEST(templates_pinned_by_hostname_cost_no_nodes_x_templates)
{
    size_t cap = 64 + 2000 * 96, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "kind: GPUInventory\nnodes:\n");
    for (int i = 0; i < 2000; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "- {name: n%04d, labels: {kubernetes.io/hostname: n%04d}, gpus: {count: 8, memory: 80Gi}}\n", i, i);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, text, len, "nodes", &err) == 0, "%s", err.message);
    free(text);
    const char *tasks = "";
    for (int t = 0; t < 400; t++)
        tasks = gpa_arena_printf(&arena,
                                 "%s  - {name: t%d, template: {spec: {nodeSelector: {kubernetes.io/hostname: n%04d}, containers: "
                                 "[{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n",
                                 tasks, t, t);
    gpa_object_t *job = yaml_object(gpa_arena_printf(
        &arena, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: d}\nspec:\n  tasks:\n%s", tasks));
    ck_assert_uint_eq(job->npods, 400);
    gpa_arena_t review;
    gpa_arena_init(&review);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv};
    gpa_verdict_t v;
    ck_assert_int_eq(gpa_check(&review, cfg, job, &opts, &v, &err), 0);
    ck_assert(v.allowed);
    ck_assert_msg(gpa_arena_peak(&review) < 2 * 1024 * 1024, "the review held %zu bytes", gpa_arena_peak(&review));
    gpa_arena_dispose(&review);
    gpa_inventory_release(inv);
}
END_TEST

/* The engine's memory bound: once a check has allocated its allowance, the budget is spent, whatever the path, and
 * every template ends "could not prove" (admitted with a warning), never a denial. */
START_TEST(memory_bound_spends_the_budget)
{
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    gpa_arena_t small;
    gpa_arena_init(&small);
    b.arena = &small;
    b.memory_limit = gpa_arena_held(&small) + 1024;
    ck_assert_int_eq(gpa_alloc_budget_take(&b, 1), 0);
    gpa_arena_alloc(&small, 64 * 1024);
    ck_assert_int_eq(gpa_alloc_budget_take(&b, 1), -1);
    ck_assert(b.spent && b.over_memory);
    gpa_arena_dispose(&small);
    /* through gpa_check: a Volcano Job of five templates, proved never with the default allowance, cut by memory */
    gpa_inventory_t *inv = hosts(400);
    const char *tasks = "";
    for (int t = 0; t < 5; t++)
        tasks =
            gpa_arena_printf(&arena, "%s  - {name: t%d, template: {spec: {containers: [%s]}}}\n", tasks, t, never_after_a_search());
    gpa_object_t *job = yaml_object(gpa_arena_printf(
        &arena, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: d}\nspec:\n  tasks:\n%s", tasks));
    gpa_alloc_budget_t b2 = gpa_alloc_budget(0);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .inventory = inv, .budget = &b2, .memory_bytes = 1};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_arena_t review; /* a fresh arena: its first chunk is past an allowance of one byte */
    gpa_arena_init(&review);
    ck_assert_int_eq(gpa_check(&review, cfg, job, &opts, &v, &err), 0);
    ck_assert(b2.over_memory);
    ck_assert_ptr_null(b2.arena); /* never left pointing at the caller's arena */
    ck_assert(v.allowed);
    ck_assert_uint_ge(v.warnings.len, 1);
    ck_assert_msg(strstr(v.warnings.items[0].text, "could not prove") != NULL, "%s", v.warnings.items[0].text);
    opts.budget = NULL;
    opts.memory_bytes = 0;
    ck_assert_int_eq(gpa_check(&review, cfg, job, &opts, &v, &err), 0);
    ck_assert(!v.allowed);
    gpa_arena_dispose(&review);
    gpa_inventory_release(inv);
}
END_TEST

START_TEST(the_deadline_cuts_the_search)
{
    gpa_inventory_t *inv = hosts(3);
    gpa_object_t *obj = pod("", heavy());
    int passed = 1;
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    b.expired = deadline_passed;
    b.expired_ctx = &passed;
    const char *why;
    ck_assert_int_eq(feasible(inv, obj, 0, &b, &why), GPA_FEASIBLE_UNKNOWN);
    ck_assert(b.spent);
    /* It stopped at the first look at the clock, with nearly all its steps left. */
    ck_assert_uint_le(spent(&b, GPA_ALLOC_BUDGET_STEPS), 2048);
    gpa_inventory_release(inv);
}
END_TEST

/* A Pod whose affinity every node passes is searched once per shape, not once per node: with a budget that one
 * search fits in and 300 do not, the answer is proven (denied) as without the affinity. */
START_TEST(noop_hostname_affinity_keeps_one_search_per_shape)
{
    gpa_inventory_t *inv = hosts(300);
    const char *c = never_after_a_search();
    const char *why, *plain_why;
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    ck_assert_int_eq(feasible(inv, pod("", c), 0, &b, &plain_why), GPA_FEASIBLE_NEVER);
    uint64_t one = spent(&b, GPA_ALLOC_BUDGET_STEPS);
    static const char *const noops[] = {"{key: host, operator: Exists}", "{key: host, operator: NotIn, values: [x1, y1]}",
                                        "{key: gone, operator: DoesNotExist}"};
    for (size_t i = 0; i < sizeof(noops) / sizeof(noops[0]); i++) {
        b = gpa_alloc_budget(4 * one + 300 * 8);
        ck_assert_int_eq(feasible(inv, pod(affinity(noops[i]), c), 0, &b, &why), GPA_FEASIBLE_NEVER);
        ck_assert_str_eq(why, plain_why);
    }
    gpa_inventory_release(inv);
}
END_TEST

/* In and NotIn over 20,000 values: matched by lookup, and each node's label tests cost one step per expression. */
START_TEST(large_in_and_notin_lists)
{
    gpa_inventory_t *inv = hosts(50);
    char *many = gpa_arena_alloc(&arena, 20000 * 8 + 1), *at = many;
    for (int i = 0; i < 20000; i++)
        at += sprintf(at, "%sx%05d", i > 0 ? ", " : "", i);
    const char *one_card =
        "{name: c, resources: {limits: {vke.volcengine.com/mgpu-core: 50, vke.volcengine.com/mgpu-memory: 1024}}}";
    const char *why;
    /* NotIn a list holding none of the hosts: fits. NotIn a list holding every host: never. */
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    ck_assert_int_eq(feasible(inv,
                              pod(affinity(gpa_arena_printf(&arena, "{key: host, operator: NotIn, values: [%s]}", many)), one_card),
                              0, &b, &why),
                     GPA_FEASIBLE_NOW);
    char *all = gpa_arena_alloc(&arena, strlen(many) + 50 * 7 + 1);
    at = all + sprintf(all, "%s", many);
    for (int i = 49; i >= 0; i--)
        at += sprintf(at, ", h%04d", i);
    b = gpa_alloc_budget(0);
    ck_assert_int_eq(feasible(inv,
                              pod(affinity(gpa_arena_printf(&arena, "{key: host, operator: NotIn, values: [%s]}", all)), one_card),
                              0, &b, &why),
                     GPA_FEASIBLE_NEVER);
    ck_assert_msg(strstr(why, "n0000: required node affinity: host NotIn") != NULL, "%s", why);
    /* Label tests are charged per expression, not per value: 50 nodes, twice over, far below 20,000 steps. */
    ck_assert_uint_lt(spent(&b, GPA_ALLOC_BUDGET_STEPS), 1000);
    /* In a list naming one host (last in the list): only that node. */
    b = gpa_alloc_budget(0);
    const char *in = gpa_arena_printf(&arena, "{key: host, operator: In, values: [%s, h0042]}", many);
    ck_assert_int_eq(feasible(inv, pod(affinity(in), one_card), 0, &b, &why), GPA_FEASIBLE_NOW);
    gpa_placement_t p;
    gpa_request_t req;
    gpa_object_t *obj = pod(affinity(in), one_card);
    ck_assert(gpa_normalize(&arena, cfg->dialects, &obj->pods[0], &req) == 0);
    gpa_alloc_opts_t o = {0};
    gpa_alloc_place(&arena, inv, &cfg->placement, &obj->pods[0], &req, &o, &p);
    ck_assert(p.feasible);
    ck_assert_str_eq(p.node, "n0042");
    gpa_inventory_release(inv);
}
END_TEST

/* Shares whose compute adds up to more than a node has are ruled out before any device is tried. */
START_TEST(capacity_bound_proves_without_searching)
{
    gpa_inventory_t *inv = hosts(1);
    const char *c = mgpu("c", 17, 48, 1024); /* 48..64% compute: 952% in all, a node has 800% */
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    const char *why;
    ck_assert_int_eq(feasible(inv, pod("", c), 0, &b, &why), GPA_FEASIBLE_NEVER);
    ck_assert_uint_lt(spent(&b, GPA_ALLOC_BUDGET_STEPS), 100 + 17 * 8); /* the reason costs a step per group and device */
    gpa_inventory_release(inv);
}
END_TEST

/* 17 shares of 34..50% compute on 8 cards: at most two fit a card, so 16 at most; ruled out at once. With one
 * share of 1% more, the count bound says nothing and only the search (or its budget) can tell. */
START_TEST(count_bound_proves_distinct_sizes)
{
    gpa_inventory_t *inv = hosts(1);
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    const char *why;
    ck_assert_int_eq(feasible(inv, pod("", mgpu("c", 17, 34, 1024)), 0, &b, &why), GPA_FEASIBLE_NEVER);
    ck_assert_uint_lt(spent(&b, GPA_ALLOC_BUDGET_STEPS), 100 + 17 * 8); /* the reason costs a step per group and device */
    b = gpa_alloc_budget(100000);
    ck_assert_int_eq(feasible(inv, pod("", heavy()), 0, &b, &why), GPA_FEASIBLE_UNKNOWN);
    gpa_inventory_release(inv);
}
END_TEST

/* The webhook's entry with a budget: the same answer as without, and the budget's counters say what happened. */
START_TEST(review_with_a_budget)
{
    gpa_inventory_t *inv = hosts(2);
    const char *body = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\","
                       "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"operation\":\"CREATE\",\"namespace\":\"d\","
                       "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
                       "[{\"name\":\"c\",\"resources\":{\"limits\":{\"vke.volcengine.com/mgpu-core\":\"30\","
                       "\"vke.volcengine.com/mgpu-memory\":\"99999\"}}}]}}}}";
    gpa_review_t r;
    gpa_alloc_budget_t b = gpa_alloc_budget(0);
    gpa_review_with(&arena, cfg, inv, &b, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &r);
    ck_assert_int_eq(r.http_status, 200);
    ck_assert(!r.allowed);
    ck_assert(!b.spent);
    b = gpa_alloc_budget(1);
    gpa_review_with(&arena, cfg, inv, &b, NULL, GPA_WEBHOOK_VALIDATE, body, strlen(body), &r);
    ck_assert(r.allowed);
    ck_assert_uint_eq(b.unproven, 1);
    gpa_inventory_release(inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("bounds");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_budget_is_shared_by_every_template);
    tcase_add_test(tc, cut_short_warns_never_denies);
    tcase_add_test(tc, deep_searches_are_cut_not_overflowed);
    tcase_add_test(tc, hami_lists_pay_and_are_quoted_short);
    tcase_add_test(tc, memory_bound_spends_the_budget);
    tcase_add_test(tc, templates_pinned_by_hostname_cost_no_nodes_x_templates);
    tcase_add_test(tc, the_deadline_cuts_the_search);
    tcase_add_test(tc, noop_hostname_affinity_keeps_one_search_per_shape);
    tcase_add_test(tc, large_in_and_notin_lists);
    tcase_add_test(tc, capacity_bound_proves_without_searching);
    tcase_add_test(tc, count_bound_proves_distinct_sizes);
    tcase_add_test(tc, review_with_a_budget);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
