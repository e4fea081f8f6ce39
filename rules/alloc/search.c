/*
 * The allocator's search (search.h): per node, a depth-first search over the Pod's shares with two prunings
 * that never change the answer — a score bound (the rest cannot beat the best) and device symmetry (of two
 * devices in identical state only the lower minor is tried: swapping them in any completion gives the same
 * score and a lexicographically larger assignment). Formulas: docs/allocator.md.
 */
#include "alloc/search.h"
#include "kube/quantity.h"

#include <string.h>

#define DEFAULT_MAX_STEPS 20000000ull

/* ---- amounts ---- */

int64_t gpa_search_share_memory(const gpa_device_group_t *g, const gpa_gpu_t *gpu)
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

void gpa_search_start(gpa_search_t *s, const gpa_node_t *node)
{
    gpa_search_dev_t *st = s->dev;
    s->ndev = node->ngpus;
    for (size_t i = 0; i < node->ngpus; i++) {
        const gpa_gpu_t *g = &node->gpus[i];
        st[i] = (gpa_search_dev_t){.gpu = g, .core_free = g->core, .mem_free = g->memory};
        if (s->now) {
            st[i].core_free = g->core - g->core_used;
            st[i].mem_free = g->memory - g->memory_used;
            st[i].pods = g->pods;
            st[i].whole_used = g->whole_used;
        }
    }
}

int gpa_search_fits(const gpa_search_t *s, const gpa_search_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem)
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
    *mem = gpa_search_share_memory(g, gpu);
    if (*mem < 0 || (*mem > 0 && gpu->memory <= 0))
        return 0;
    if (!d->touched && d->pods >= s->max_pods)
        return 0;
    return *mem <= d->mem_free && *core <= d->core_free;
}

/* The device's score once it carries what it carries now, 0..10000 (docs/allocator.md). */
static int64_t device_score(const gpa_search_t *s, const gpa_search_dev_t *d)
{
    const gpa_gpu_t *gpu = d->gpu;
    int64_t u_core = 10000, core_used;
    if (gpu->core > 0 && !__builtin_mul_overflow(gpu->core - d->core_free, 10000, &core_used))
        u_core = core_used / gpu->core; /* else no core, or ~1e15 percent declared (overflow): counted as full */
    int64_t u_mem = gpu->memory > 0 ? gpa_mul_ceil_div_i64(gpu->memory - d->mem_free, 10000, gpu->memory) : u_core;
    if (u_mem < 0 || u_mem > 10000)
        u_mem = 10000; /* over-committed usage reports, or an overflow: treat as full */
    if (u_core < 0 || u_core > 10000)
        u_core = 10000;
    int64_t used = (s->core_weight * u_core + (100 - s->core_weight) * u_mem) / 100;
    return s->spread ? 10000 - used : used;
}

/* ---- the depth-first search ---- */

static int same_state(const gpa_search_dev_t *x, const gpa_search_dev_t *y)
{
    return x->core_free == y->core_free && x->mem_free == y->mem_free && x->pods == y->pods && x->whole_used == y->whole_used &&
           x->touched == y->touched && x->gpu->core == y->gpu->core && x->gpu->memory == y->gpu->memory &&
           x->gpu->healthy == y->gpu->healthy;
}

/* An earlier candidate in [start, d) in the same state makes `d` redundant. */
static int symmetric_to_earlier(const gpa_search_t *s, size_t start, size_t d)
{
    for (size_t e = start; e < d; e++)
        if (same_state(&s->dev[e], &s->dev[d]))
            return 1;
    return 0;
}

static void record_leaf(gpa_search_t *s, int64_t score)
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

static void dfs(gpa_search_t *s, size_t i, int64_t score)
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
    const gpa_search_slot_t *slot = &s->slots[i];
    const gpa_device_group_t *g = &s->req->groups[slot->group];
    size_t start = slot->first_of_group ? 0 : (size_t)s->cur[i - 1].dev + 1;
    for (size_t d = start; d < s->ndev && !s->stop; d++) {
        int64_t core, mem;
        if (++s->steps > s->max_steps) {
            s->bounded = 1;
            s->stop = 1;
            return;
        }
        if (!gpa_search_fits(s, &s->dev[d], g, &core, &mem) || symmetric_to_earlier(s, start, d))
            continue;
        gpa_search_dev_t saved = s->dev[d];
        gpa_search_dev_t *dv = &s->dev[d];
        dv->core_free -= core;
        dv->mem_free -= mem;
        if (!dv->touched)
            dv->pods++, dv->touched = 1;
        if (g->whole)
            dv->whole_used = 1;
        s->cur[i] = (gpa_search_pick_t){.dev = (uint32_t)d, .core = core, .mem = mem};
        dfs(s, i + 1, score + device_score(s, dv));
        *dv = saved;
    }
}

/* Flattens groups [from, to) into one slot per device share. */
static size_t make_slots(gpa_arena_t *a, const gpa_request_t *req, size_t from, size_t to, gpa_search_slot_t **out)
{
    size_t n = 0;
    for (size_t k = from; k < to; k++)
        n += req->groups[k].count;
    gpa_search_slot_t *slots = gpa_arena_calloc(a, n + 1, sizeof(*slots));
    size_t i = 0;
    for (size_t k = from; k < to; k++)
        for (unsigned c = 0; c < req->groups[k].count; c++)
            slots[i++] = (gpa_search_slot_t){.group = k, .first_of_group = c == 0};
    *out = slots;
    return n;
}

/* Searches one node for slots [..nshares) from a fresh state; the search keeps its best across nodes. */
void gpa_search_node(gpa_search_t *s, const gpa_node_t *node)
{
    s->node = node;
    s->stop = 0;
    s->node_found = 0;
    if (s->impossible)
        return;
    gpa_search_start(s, node);
    dfs(s, 0, 0);
    if (s->bounded)
        s->stop = 1;
}

void gpa_search_init(gpa_search_t *s, gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req, size_t from,
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
    /* A group's count comes from the request (gpu-core 40G asks for 400 million devices): never size anything by it
     * beyond what a node could hold. */
    for (size_t k = from; k < to; k++)
        s->impossible |= req->groups[k].count > max_gpus;
    s->nshares = s->impossible ? 0 : make_slots(a, req, from, to, &s->slots);
    s->cur = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->cur));
    s->best = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->best));
    s->dev = gpa_arena_calloc(a, max_gpus + 1, sizeof(*s->dev));
}
