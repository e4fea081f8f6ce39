/*
 * The allocator's search (alloc.h): per node, a depth-first search over the Pod's app shares with two
 * prunings that never change the answer — a score bound (the rest cannot beat the best) and device symmetry
 * (of two devices in identical state only the lower minor is tried: swapping them in any completion gives
 * the same score and a lexicographically larger assignment). Reasons for nodes that do not fit: fit_reason.c.
 */
#include "alloc/alloc.h"
#include "alloc/search.h"
#include "alloc/inventory.h"
#include "kube/quantity.h"

#include <string.h>

#define DEFAULT_MAX_STEPS 20000000ull

/* ---- amounts ---- */

int64_t gpa_fit_share_memory(const gpa_device_group_t *g, const gpa_gpu_t *gpu)
{
    if (g->whole)
        return gpu->memory;
    switch (g->memory_kind) {
    case GPA_MEMORY_BYTES:
        return g->memory_bytes;
    case GPA_MEMORY_RATIO:
        return gpu->memory > 0 ? gpa_mul_ceil_div_i64(g->memory_ratio, gpu->memory, 100) : -1;
    default:
        return 0;
    }
}

void gpa_fit_state_init(gpa_fit_dev_t *st, const gpa_node_t *node, int now)
{
    for (size_t i = 0; i < node->ngpus; i++) {
        const gpa_gpu_t *g = &node->gpus[i];
        st[i] = (gpa_fit_dev_t){.gpu = g, .core_free = g->core, .mem_free = g->memory};
        if (now) {
            st[i].core_free = g->core - g->core_used;
            st[i].mem_free = g->memory - g->memory_used;
            st[i].pods = g->pods;
            st[i].whole_used = g->whole_used;
        }
    }
}

/* Whether share `g` fits device `d` as things stand; *core and *mem get its amounts there. */
int gpa_fit_check(const gpa_fit_search_t *s, const gpa_fit_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem)
{
    const gpa_gpu_t *gpu = d->gpu;
    if (!gpu->healthy || d->whole_used)
        return 0;
    if (g->whole) {
        *core = gpu->core;
        *mem = gpu->memory;
        return d->pods == 0 && !d->touched && d->core_free == gpu->core && d->mem_free == gpu->memory;
    }
    *core = g->core;
    *mem = gpa_fit_share_memory(g, gpu);
    if (*mem < 0 || (*mem > 0 && gpu->memory <= 0))
        return 0;
    if (!d->touched && d->pods >= s->max_pods)
        return 0;
    return *mem <= d->mem_free && *core <= d->core_free;
}

/* The device's score once it carries what it carries now, 0..10000 (docs/allocator.md). */
static int64_t device_score(const gpa_fit_search_t *s, const gpa_fit_dev_t *d)
{
    const gpa_gpu_t *gpu = d->gpu;
    int64_t u_core = gpu->core > 0 ? (gpu->core - d->core_free) * 10000 / gpu->core : 10000;
    int64_t u_mem = gpu->memory > 0 ? gpa_mul_ceil_div_i64(gpu->memory - d->mem_free, 10000, gpu->memory) : u_core;
    if (u_mem < 0 || u_mem > 10000)
        u_mem = 10000; /* over-committed usage reports, or an overflow: treat as full */
    if (u_core < 0 || u_core > 10000)
        u_core = 10000;
    int64_t used = (s->core_weight * u_core + (100 - s->core_weight) * u_mem) / 100;
    return s->spread ? 10000 - used : used;
}

/* ---- the depth-first search ---- */

static int same_state(const gpa_fit_dev_t *x, const gpa_fit_dev_t *y)
{
    return x->core_free == y->core_free && x->mem_free == y->mem_free && x->pods == y->pods && x->whole_used == y->whole_used &&
           x->touched == y->touched && x->gpu->core == y->gpu->core && x->gpu->memory == y->gpu->memory &&
           x->gpu->healthy == y->gpu->healthy;
}

/* An earlier candidate in [start, d) in the same state makes `d` redundant. */
static int symmetric_to_earlier(const gpa_fit_search_t *s, size_t start, size_t d)
{
    for (size_t e = start; e < d; e++)
        if (same_state(&s->dev[e], &s->dev[d]))
            return 1;
    return 0;
}

static void record_leaf(gpa_fit_search_t *s, int64_t score)
{
    s->node_found = 1;
    if (s->found && score <= s->best_score)
        return;
    s->found = 1;
    s->node_found = 1;
    s->best_score = score;
    s->best_node = s->node;
    memcpy(s->best, s->cur, s->nshares * sizeof(*s->best));
}

static void dfs(gpa_fit_search_t *s, size_t i, int64_t score)
{
    if (s->stop)
        return;
    if (i == s->nshares) {
        record_leaf(s, score);
        s->stop = s->first_fit;
        return;
    }
    /* Bound: each remaining share scores at most 10000; a tie with the best found is not better. */
    if (s->found && score + (int64_t)(s->nshares - i) * 10000 <= s->best_score)
        return;
    const gpa_fit_slot_t *slot = &s->slots[i];
    const gpa_device_group_t *g = &s->req->groups[slot->group];
    size_t start = slot->first_of_group ? 0 : (size_t)s->cur[i - 1].dev + 1;
    for (size_t d = start; d < s->ndev && !s->stop; d++) {
        int64_t core, mem;
        if (++s->steps > s->max_steps) {
            s->bounded = 1;
            s->stop = 1;
            return;
        }
        if (!gpa_fit_check(s, &s->dev[d], g, &core, &mem) || symmetric_to_earlier(s, start, d))
            continue;
        gpa_fit_dev_t saved = s->dev[d];
        gpa_fit_dev_t *dv = &s->dev[d];
        dv->core_free -= core;
        dv->mem_free -= mem;
        if (!dv->touched)
            dv->pods++, dv->touched = 1;
        if (g->whole)
            dv->whole_used = 1;
        s->cur[i] = (gpa_fit_pick_t){.dev = (uint32_t)d, .core = core, .mem = mem};
        dfs(s, i + 1, score + device_score(s, dv));
        *dv = saved;
    }
}

/* Flattens groups [from, to) into one slot per device share. */
static size_t make_slots(gpa_arena_t *a, const gpa_request_t *req, size_t from, size_t to, gpa_fit_slot_t **out)
{
    size_t n = 0;
    for (size_t k = from; k < to; k++)
        n += req->groups[k].count;
    gpa_fit_slot_t *slots = gpa_arena_calloc(a, n + 1, sizeof(*slots));
    size_t i = 0;
    for (size_t k = from; k < to; k++)
        for (unsigned c = 0; c < req->groups[k].count; c++)
            slots[i++] = (gpa_fit_slot_t){.group = k, .first_of_group = c == 0};
    *out = slots;
    return n;
}

/* Searches one node for slots [..nshares) from a fresh state; the search keeps its best across nodes. */
void gpa_fit_search_node(gpa_fit_search_t *s, const gpa_node_t *node)
{
    s->node = node;
    s->ndev = node->ngpus;
    gpa_fit_state_init(s->dev, node, s->now);
    s->stop = 0;
    s->node_found = 0;
    dfs(s, 0, 0);
    if (s->bounded)
        s->stop = 1;
}

void gpa_fit_search_init(gpa_fit_search_t *s, gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req, size_t from,
                         size_t to, const gpa_alloc_opts_t *opts, size_t max_gpus)
{
    memset(s, 0, sizeof(*s));
    s->req = req;
    s->now = opts->now;
    s->first_fit = opts->first_fit;
    s->max_steps = opts->max_steps != 0 ? opts->max_steps : DEFAULT_MAX_STEPS;
    s->max_pods = pol->max_pods_per_device > 0 ? pol->max_pods_per_device : 16;
    s->core_weight = pol->core_weight < 0 ? 0 : pol->core_weight > 100 ? 100 : pol->core_weight;
    s->spread = pol->strategy == GPA_STRATEGY_SPREAD;
    s->nshares = make_slots(a, req, from, to, &s->slots);
    s->cur = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->cur));
    s->best = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->best));
    s->dev = gpa_arena_calloc(a, max_gpus + 1, sizeof(*s->dev));
}

/* ---- one node: labels, dialects, init containers ---- */

unsigned gpa_fit_request_dialects(const gpa_request_t *req)
{
    unsigned d = 0;
    for (size_t k = 0; k < req->ngroups; k++)
        d |= (unsigned)req->groups[k].dialect;
    return d;
}

/* Each init container alone, from the node's state (first fit). */
static int init_containers_fit(gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req,
                               const gpa_alloc_opts_t *opts, const gpa_node_t *node, size_t *failed)
{
    gpa_alloc_opts_t o = *opts;
    o.first_fit = 1;
    for (size_t k = req->napp_groups; k < req->ngroups;) {
        size_t end = k + 1;
        while (end < req->ngroups && req->groups[end].container == req->groups[k].container)
            end++;
        gpa_fit_search_t s;
        gpa_fit_search_init(&s, a, pol, req, k, end, &o, node->ngpus);
        gpa_fit_search_node(&s, node);
        if (!s.found && !s.bounded) {
            *failed = k;
            return 0;
        }
        k = end;
    }
    return 1;
}

/* ---- results ---- */

static void fill_shares(gpa_arena_t *a, const gpa_fit_search_t *s, gpa_placement_t *out)
{
    out->nshares = s->nshares;
    out->shares = gpa_arena_calloc(a, s->nshares + 1, sizeof(*out->shares));
    for (size_t i = 0; i < s->nshares; i++) {
        const gpa_fit_pick_t *p = &s->best[i];
        const gpa_gpu_t *gpu = &s->best_node->gpus[p->dev];
        gpa_share_t *sh = &out->shares[i];
        sh->group = s->slots[i].group;
        sh->container = s->req->groups[sh->group].container;
        sh->minor = gpu->minor;
        sh->core = p->core;
        sh->memory_bytes = p->mem;
        sh->fraction = gpu->memory > 0 ? gpa_mul_ceil_div_i64(p->mem, 10000, gpu->memory) : (p->core >= gpu->core ? 10000 : 0);
    }
    out->score = s->nshares > 0 ? s->best_score / (int64_t)s->nshares : 0;
}

static size_t max_gpus(const gpa_node_t *nodes, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (nodes[i].ngpus > m)
            m = nodes[i].ngpus;
    return m;
}

int gpa_alloc_place(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                    const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out)
{
    size_t nnodes;
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, &nnodes);
    gpa_fit_search_t s;
    memset(out, 0, sizeof(*out));
    gpa_fit_search_init(&s, a, pol, req, 0, req->napp_groups, opts, max_gpus(nodes, nnodes));
    gpa_node_reason_t *reasons = gpa_arena_calloc(a, nnodes + 1, sizeof(*reasons));
    for (size_t i = 0; i < nnodes && !(s.found && s.first_fit) && !s.bounded; i++) {
        const gpa_node_t *node = &nodes[i];
        size_t failed_init = 0;
        gpa_node_reason_t *r = &reasons[i];
        r->node = node->name;
        if (gpa_fit_precheck(a, &s, pol, pod, node, r) != 0)
            continue;
        if (!init_containers_fit(a, pol, req, opts, node, &failed_init)) {
            gpa_fit_explain_group(a, &s, node, failed_init, r);
            continue;
        }
        gpa_fit_search_node(&s, node);
        /* Reasons matter only when no node fits, and then no bound pruned anything: node_found is exact. */
        if (!s.node_found && !s.bounded)
            gpa_fit_explain_app(a, &s, node, r);
    }
    out->bounded = s.bounded;
    if (s.found) {
        out->feasible = 1;
        out->node = s.best_node->name;
        fill_shares(a, &s, out);
        gpa_fit_annotate(a, req, s.best_node, out);
        return 0;
    }
    out->reasons = reasons;
    out->nreasons = nnodes;
    return 0;
}

/* ---- the infeasible rule ---- */

/* Whether r came closer to fitting than best: a later stage, or nearer within the same stage. */
static int nearer(const gpa_node_reason_t *r, const gpa_node_reason_t *best)
{
    if (r->rank_ != best->rank_)
        return r->rank_ > best->rank_;
    return r->near_ > best->near_;
}

/* The closest node's reason; reasons are in node name order, so ties keep the lowest name. */
static const char *closest(gpa_arena_t *a, const gpa_placement_t *p)
{
    const gpa_node_reason_t *best = NULL;
    for (size_t i = 0; i < p->nreasons; i++)
        if (p->reasons[i].reason != NULL && (best == NULL || nearer(&p->reasons[i], best)))
            best = &p->reasons[i];
    if (best == NULL)
        return "the inventory has no GPU nodes";
    return gpa_arena_printf(a, "%s: %s", best->node, best->reason);
}

gpa_fit_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                             const gpa_request_t *req, const char **reason)
{
    gpa_placement_t p;
    gpa_alloc_opts_t o = {.now = 0, .first_fit = 1};
    *reason = "";
    if (req->ngroups == 0)
        return GPA_FIT_OK;
    gpa_alloc_place(a, inv, pol, pod, req, &o, &p);
    if (!p.feasible) {
        if (p.bounded)
            return GPA_FIT_OK; /* not proven impossible: the rule only rejects what is certain */
        *reason = closest(a, &p);
        return GPA_FIT_NEVER;
    }
    o.now = 1;
    gpa_alloc_place(a, inv, pol, pod, req, &o, &p);
    if (p.feasible || p.bounded)
        return GPA_FIT_OK;
    *reason = closest(a, &p);
    return GPA_FIT_NOT_NOW;
}
