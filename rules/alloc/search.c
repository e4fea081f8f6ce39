/*
 * The allocator's search (search.h): per node, a depth-first search over the Pod's shares with two prunings
 * that never change the answer — a score bound (the rest cannot beat the best) and device symmetry (of two
 * devices in identical state only the lower minor is tried: swapping them in any completion gives the same
 * score and a lexicographically larger assignment). Formulas: docs/allocator.md.
 */
#include "alloc/search.h"
#include "alloc/strategy.h"
#include "kube/gpu_request.h"
#include "kube/quantity.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- the request's budget (placement.h) ---- */

#define POLL_STEPS 1024 /* steps between two looks at the front end's clock */

gpa_alloc_budget_t gpa_alloc_budget(uint64_t steps)
{
    return (gpa_alloc_budget_t){.steps = steps != 0 ? steps : GPA_ALLOC_BUDGET_STEPS};
}

int gpa_alloc_budget_take(gpa_alloc_budget_t *b, uint64_t n)
{
    if (b->spent)
        return -1;
    if (b->arena != NULL && gpa_arena_held(b->arena) > b->memory_limit) {
        b->spent = 1;
        b->over_memory = 1;
        return -1;
    }
    if (n > b->steps) {
        b->steps = 0;
        b->spent = 1;
        return -1;
    }
    b->steps -= n;
    if (b->expired == NULL)
        return 0;
    if (b->poll_ > n) {
        b->poll_ -= n;
        return 0;
    }
    b->poll_ = POLL_STEPS;
    if (b->expired(b->expired_ctx))
        b->spent = 1;
    return b->spent ? -1 : 0;
}

/* ---- amounts ---- */

/* x + y, or INT64_MAX when it overflows (a total no node can offer). */
static int64_t add_sat(int64_t x, int64_t y)
{
    int64_t r;
    return __builtin_add_overflow(x, y, &r) ? INT64_MAX : r;
}

int64_t gpa_search_share_memory(const gpa_device_group_t *g, const gpa_gpu_t *gpu)
{
    if (g->whole)
        return gpu->memory;
    switch (g->memory_kind) {
    case GPA_MEMORY_BYTES:
        return g->memory_bytes;
    case GPA_MEMORY_RATIO:
        return gpu->memory > 0 ? gpa_mul_ceil_div_i64(g->memory_ratio, gpu->memory, 100) : -1;
    case GPA_MEMORY_PERCENT_MIB: /* HAMi: floor(M MiB x p / 100) MiB, in integers as its Fit computes */
        return gpu->memory > 0 ? gpu->memory / GPA_MIB * g->memory_ratio / 100 * GPA_MIB : -1;
    case GPA_MEMORY_CARD:
        return gpu->memory;
    default:
        return 0;
    }
}

int gpa_search_counts_anew(const gpa_search_dev_t *d, const gpa_device_group_t *g)
{
    return !d->touched || g->dialect == GPA_DIALECT_MGPU;
}

/* Whether the device could still take a whole-device share (nothing on it). */
static int whole_free(const gpa_search_dev_t *d)
{
    return d->gpu->healthy && !d->whole_used && d->pods == 0 && !d->touched && d->core_free == d->gpu->core &&
           d->mem_free == d->gpu->memory;
}

/* Adds (sign 1) or removes (-1) what device d has free to the node's totals (the capacity bound). */
static void add_free(gpa_search_t *s, const gpa_search_dev_t *d, int sign)
{
    if (!d->gpu->healthy || d->whole_used)
        return;
    int64_t core = d->core_free > 0 ? d->core_free : 0, mem = d->mem_free > 0 ? d->mem_free : 0;
    if (sign > 0) {
        s->free_core = add_sat(s->free_core, core);
        s->free_mem = add_sat(s->free_mem, mem);
        s->free_whole += whole_free(d);
    } else if (s->free_core != INT64_MAX && s->free_mem != INT64_MAX) {
        s->free_core -= core;
        s->free_mem -= mem;
        s->free_whole -= whole_free(d);
    } else {
        s->free_whole -= whole_free(d); /* a saturated total stays saturated: the bound just never cuts */
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
            st[i].slots_used = g->slots_used;
        }
    }
    s->free_core = s->free_mem = 0;
    s->free_whole = 0;
    for (size_t i = 0; i < node->ngpus; i++)
        add_free(s, &st[i], 1);
}

/* ---- HAMi's card checks (docs/allocator.md#hami-placement) ---- */

/* Whether hay[0..hlen) contains needle[0..nlen), ASCII case-insensitive. */
static int contains_ci(const char *hay, const char *needle, size_t nlen)
{
    size_t hlen = strlen(hay);
    for (size_t i = 0; i + nlen <= hlen; i++) {
        size_t k = 0;
        while (k < nlen && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == nlen)
            return 1;
    }
    return 0;
}

/* The next item of a comma list at *p, trimmed (*item, *len; maybe empty); 0 when the list is done. */
static int next_item(const char **p, const char **item, size_t *len)
{
    if (*p == NULL || **p == '\0')
        return 0;
    size_t n = strcspn(*p, ",");
    const char *q = *p;
    *p += n + ((*p)[n] == ',');
    while (n > 0 && isspace((unsigned char)*q))
        q++, n--;
    while (n > 0 && isspace((unsigned char)q[n - 1]))
        n--;
    *item = q, *len = n;
    return 1;
}

/* A comma list as HAMi v2.10 reads it (items trimmed, empty ones ignored): -1 when it holds no item (no
 * constraint), 1 when an item matches `s` (a case-insensitive substring of it, or equal to it), else 0. */
static int list_matches(const char *list, const char *s, int substring)
{
    int items = 0;
    const char *q;
    size_t len;
    for (const char *p = list; next_item(&p, &q, &len);) {
        if (len == 0)
            continue;
        items = 1;
        if (substring ? contains_ci(s, q, len) : strlen(s) == len && memcmp(s, q, len) == 0)
            return 1;
    }
    return items ? 0 : -1;
}

/* A card that HAMi did not register (the compact form's) has no type or UUID to test: the lists pass it (the check
 * only rejects what is certain). */
int gpa_search_hami_selected(const gpa_hami_select_t *sel, const gpa_gpu_t *gpu, gpa_hami_check_t *why)
{
    *why = GPA_HAMI_CARD_TYPE;
    if (gpu->type[0] != '\0' &&
        (list_matches(sel->use_type, gpu->type, 1) == 0 || list_matches(sel->nouse_type, gpu->type, 1) == 1))
        return 0;
    *why = GPA_HAMI_CARD_MODE; /* a blank vgpu-mode constrains nothing here (never deny on a doubt) */
    if (sel->mode != NULL && list_matches(sel->mode, "", 0) != -1 && strstr(sel->mode, gpu->mode) == NULL)
        return 0;
    *why = GPA_HAMI_CARD_UUID;
    if (gpu->uuid[0] != '\0' &&
        (list_matches(sel->use_uuid, gpu->uuid, 0) == 0 || list_matches(sel->nouse_uuid, gpu->uuid, 0) == 1))
        return 0;
    return 1;
}

/* The strategy a HAMi Pod names (hami.io/gpu-scheduler-policy, docs/allocator.md#hami-placement): the first item of
 * its chain that is binpack or spread; an unknown value is spread, as in hami-scheduler; `dflt` when none is named. */
static int hami_policy(const gpa_request_t *req, int dflt)
{
    for (size_t k = 0; k < req->ngroups; k++) {
        const gpa_hami_select_t *sel = req->groups[k].hami;
        if (sel == NULL || sel->policy == NULL)
            continue;
        const char *q;
        size_t n;
        for (const char *p = sel->policy; next_item(&p, &q, &n);) {
            if (n == 7 && memcmp(q, "binpack", 7) == 0)
                return 0;
            if (n == 6 && memcmp(q, "spread", 6) == 0)
                return 1;
        }
        return 1;
    }
    return dflt;
}

int gpa_search_hami_mig(const gpa_gpu_t *gpu)
{
    return strcmp(gpu->mode, "mig") == 0;
}

int64_t gpa_search_hami_slots(const gpa_search_dev_t *d, const gpa_device_group_t *g)
{
    return d->gpu->slots > 0 ? d->gpu->slots : g->hami->split_count;
}

gpa_hami_check_t gpa_search_hami_check(const gpa_search_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem)
{
    const gpa_gpu_t *gpu = d->gpu;
    gpa_hami_check_t why;
    *core = g->core;
    *mem = 0;
    if (!gpu->healthy)
        return GPA_HAMI_CARD_UNHEALTHY;
    if (d->whole_used)
        return GPA_HAMI_CARD_HELD;
    if (!gpa_search_hami_selected(g->hami, gpu, &why))
        return why;
    if (gpa_search_hami_slots(d, g) <= d->slots_used)
        return GPA_HAMI_CARD_SLOTS;
    *mem = gpa_search_share_memory(g, gpu);
    if (*mem < 0 || d->mem_free < *mem || (*mem > 0 && gpu->memory <= 0)) /* unknown memory: whole cards only */
        return GPA_HAMI_CARD_MEMORY;
    if (d->core_free < *core)
        return GPA_HAMI_CARD_CORES;
    if (gpu->core == 100 && *core == 100 && (d->slots_used > 0 || d->pods > 0))
        return GPA_HAMI_CARD_EXCLUSIVE;
    if (gpu->core != 0 && d->core_free <= 0 && *core == 0)
        return GPA_HAMI_CARD_EXHAUSTED;
    return GPA_HAMI_CARD_FITS;
}

uint64_t gpa_search_fit_steps(const gpa_device_group_t *g)
{
    const gpa_hami_select_t *sel = g->hami != NULL ? g->hami : g->select;
    return 1 + (sel != NULL ? sel->list_steps : 0);
}

int gpa_search_fits(const gpa_search_t *s, const gpa_search_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem)
{
    const gpa_gpu_t *gpu = d->gpu;
    if (g->hami != NULL) /* HAMi's slots stand for maxPodsPerDevice */
        return gpa_search_hami_check(d, g, core, mem) == GPA_HAMI_CARD_FITS;
    gpa_hami_check_t why;
    if (!gpu->healthy || d->whole_used)
        return 0;
    if (g->select != NULL && gpu->uuid[0] != '\0' && !gpa_search_hami_selected(g->select, gpu, &why))
        return 0;   /* a count-only container on a card HAMi registered: hami-scheduler's lists apply */
    if (g->whole) { /* the whole device, all of it free, and compute enough: 100/100 on a 50-core device does not fit */
        *core = gpu->core;
        *mem = gpu->memory;
        return d->pods == 0 && !d->touched && d->core_free == gpu->core && d->mem_free == gpu->memory && gpu->core >= g->core;
    }
    *core = g->core;
    *mem = gpa_search_share_memory(g, gpu);
    if (*mem < 0 || (*mem > 0 && gpu->memory <= 0))
        return 0;
    if (gpa_search_counts_anew(d, g) && d->pods >= s->max_pods)
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
           x->gpu->healthy == y->gpu->healthy && x->slots_used == y->slots_used && x->gpu->slots == y->gpu->slots &&
           strcmp(x->gpu->type, y->gpu->type) == 0 && strcmp(x->gpu->mode, y->gpu->mode) == 0;
}

/* An earlier candidate in [start, d) in the same state makes `d` redundant. */
static int symmetric_to_earlier(const gpa_search_t *s, size_t start, size_t d)
{
    for (size_t e = start; e < d; e++)
        if (same_state(&s->dev[e], &s->dev[d]) && (!s->by_uuid || strcmp(s->dev[e].gpu->uuid, s->dev[d].gpu->uuid) == 0))
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

/* Stops the search: its budget is spent (steps or deadline). Counted once per search. */
static void cut(gpa_search_t *s)
{
    if (!s->bounded)
        s->budget->cut++;
    s->bounded = 1;
    s->stop = 1;
}

/* How many shares of at least `core` percent and `mem` bytes device d could still take (either may be 0: no bound). */
static size_t shares_fitting(const gpa_search_t *s, const gpa_search_dev_t *d, int64_t core, int64_t mem)
{
    int hami = d->gpu->uuid[0] != '\0'; /* a HAMi card: its slots, not maxPodsPerDevice (no bound here) */
    if (!d->gpu->healthy || d->whole_used || (!hami && !d->touched && d->pods >= s->max_pods) || d->core_free < 0 ||
        d->mem_free < 0)
        return 0;
    int64_t n = INT64_MAX;
    if (core > 0)
        n = d->core_free / core;
    if (mem > 0 && d->mem_free / mem < n)
        n = d->mem_free / mem;
    if (s->per_container && s->max_pods - d->pods < n) /* each share one more toward maxPodsPerDevice */
        n = s->max_pods > d->pods ? s->max_pods - d->pods : 0;
    return n > (int64_t)s->nshares ? s->nshares : (size_t)n;
}

/* Count bound: the node's devices cannot take the remaining share slots, each at least the smallest of them. */
static int too_many_shares(const gpa_search_t *s, size_t i)
{
    size_t room = 0, need = s->need_shares[i];
    if (need == 0 || (s->min_core[i] <= 0 && s->min_mem[i] <= 0 && !s->per_container))
        return 0;
    for (size_t d = 0; d < s->ndev && room < need; d++)
        room += shares_fitting(s, &s->dev[d], s->min_core[i], s->min_mem[i]);
    return room < need;
}

/* Capacity bound: slots [i..) need more compute, bytes, untouched devices or room for shares than the node has. */
static int cannot_complete(const gpa_search_t *s, size_t i)
{
    return s->need_core[i] > s->free_core || s->need_mem[i] > s->free_mem || s->need_whole[i] > s->free_whole ||
           too_many_shares(s, i);
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
    if (i >= GPA_SEARCH_MAX_DEPTH) { /* the recursion never follows the input further */
        cut(s);
        return;
    }
    /* Bound: each remaining share scores at most 10000; a tie with the best found is not better. */
    if (s->found && score + (int64_t)(s->nshares - i) * 10000 <= s->best_score)
        return;
    if (cannot_complete(s, i))
        return;
    const gpa_search_slot_t *slot = &s->slots[i];
    const gpa_device_group_t *g = &s->req->groups[slot->group];
    /* later vGPUs of a group on higher cards; on a MIG card HAMi may place several as instances (the same card again) */
    size_t start = slot->first_of_group
                       ? 0
                       : (size_t)s->cur[i - 1].dev + !(g->hami != NULL && gpa_search_hami_mig(s->dev[s->cur[i - 1].dev].gpu));
    for (size_t d = start; d < s->ndev && !s->stop; d++) {
        int64_t core, mem;
        if (gpa_alloc_budget_take(s->budget, gpa_search_fit_steps(g)) != 0) {
            cut(s);
            return;
        }
        if (!gpa_search_fits(s, &s->dev[d], g, &core, &mem) || symmetric_to_earlier(s, start, d))
            continue;
        gpa_search_dev_t saved = s->dev[d];
        gpa_search_dev_t *dv = &s->dev[d];
        add_free(s, dv, -1);
        dv->core_free -= core;
        dv->mem_free -= mem;
        if (gpa_search_counts_anew(dv, g))
            dv->pods++;
        dv->touched = 1;
        if (g->whole)
            dv->whole_used = 1;
        dv->slots_used += g->hami != NULL;
        add_free(s, dv, 1);
        int64_t here = device_score(s, dv);
        s->cur[i] = (gpa_search_pick_t){.dev = (uint32_t)d, .core = core, .mem = mem, .score = here};
        dfs(s, i + 1, score + here);
        add_free(s, dv, -1);
        *dv = saved;
        add_free(s, dv, 1);
    }
}

/* Groups [from, to) in the order their slots are searched: request order, or for a first-fit search the
 * largest shares first (whole devices, then compute, then bytes), which proves "does not fit" sooner. */
typedef struct st_group_key_t {
    int64_t size[3]; /* whole, core, bytes */
    size_t k;
} group_key_t;

static int larger_first(const void *x, const void *y)
{
    const group_key_t *a = x, *b = y;
    for (int w = 0; w < 3; w++)
        if (a->size[w] != b->size[w])
            return a->size[w] > b->size[w] ? -1 : 1;
    return a->k < b->k ? -1 : 1;
}

static group_key_t *group_order(gpa_arena_t *a, const gpa_request_t *req, size_t from, size_t to, int largest_first)
{
    group_key_t *keys = gpa_arena_calloc(a, to - from + 1, sizeof(*keys));
    for (size_t k = from; k < to; k++) {
        const gpa_device_group_t *g = &req->groups[k];
        keys[k - from] = (group_key_t){{g->whole, g->core, g->memory_kind == GPA_MEMORY_BYTES ? g->memory_bytes : 0}, k};
    }
    if (largest_first)
        qsort(keys, to - from, sizeof(*keys), larger_first);
    return keys;
}

/* Flattens groups [from, to) into one slot per device share, in group_order. */
static size_t make_slots(gpa_arena_t *a, const gpa_request_t *req, size_t from, size_t to, int largest_first,
                         gpa_search_slot_t **out)
{
    size_t n = 0;
    for (size_t k = from; k < to; k++)
        n += req->groups[k].count;
    group_key_t *order = group_order(a, req, from, to, largest_first);
    gpa_search_slot_t *slots = gpa_arena_calloc(a, n + 1, sizeof(*slots));
    size_t i = 0;
    for (size_t j = 0; j < to - from; j++)
        for (unsigned c = 0; c < req->groups[order[j].k].count; c++)
            slots[i++] = (gpa_search_slot_t){.group = order[j].k, .first_of_group = c == 0};
    *out = slots;
    return n;
}

/* What slots [i..) need in total, for the capacity bound: share slots' compute and bytes, whole devices. */
static void make_needs(gpa_search_t *s, gpa_arena_t *a)
{
    s->need_core = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->need_core));
    s->need_mem = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->need_mem));
    s->need_whole = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->need_whole));
    s->need_shares = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->need_shares));
    s->min_core = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->min_core));
    s->min_mem = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->min_mem));
    s->min_core[s->nshares] = s->min_mem[s->nshares] = INT64_MAX;
    for (size_t i = s->nshares; i-- > 0;) {
        const gpa_device_group_t *g = &s->req->groups[s->slots[i].group];
        int bytes = !g->whole && g->memory_kind == GPA_MEMORY_BYTES && g->memory_bytes > 0;
        s->need_core[i] = add_sat(s->need_core[i + 1], g->whole || g->core < 0 ? 0 : g->core);
        s->need_mem[i] = add_sat(s->need_mem[i + 1], bytes ? g->memory_bytes : 0);
        s->need_whole[i] = s->need_whole[i + 1] + (g->whole != 0);
        s->need_shares[i] = s->need_shares[i + 1] + (g->whole == 0);
        int64_t core = g->whole ? INT64_MAX : g->core > 0 ? g->core : 0, mem = g->whole ? INT64_MAX : bytes ? g->memory_bytes : 0;
        s->min_core[i] = core < s->min_core[i + 1] ? core : s->min_core[i + 1];
        s->min_mem[i] = mem < s->min_mem[i + 1] ? mem : s->min_mem[i + 1];
    }
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
    s->own_budget = gpa_alloc_budget(0);
    s->budget = opts->budget != NULL ? opts->budget : &s->own_budget;
    s->max_pods = pol->max_pods_per_device > 0 ? pol->max_pods_per_device : 16;
    unsigned dialects = 0; /* the request's: its scheduler's defaults fill what the policy leaves unset */
    for (size_t k = 0; k < req->ngroups; k++)
        dialects |= (unsigned)req->groups[k].dialect;
    s->per_container = dialects == GPA_DIALECT_MGPU;
    gpa_alloc_policy_t scored = gpa_alloc_policy_for(pol, dialects);
    s->core_weight = scored.core_weight;
    s->spread = scored.strategy == GPA_STRATEGY_SPREAD;
    if (pol->strategy != GPA_STRATEGY_BINPACK && pol->strategy != GPA_STRATEGY_SPREAD) /* unset: a HAMi Pod may choose */
        s->spread = hami_policy(req, s->spread);
    /* A group's count comes from the request (gpu-core 40G asks for 400 million devices): never size anything by it
     * beyond what a node could hold. */
    for (size_t k = from; k < to; k++) {
        const gpa_hami_select_t *sel = req->groups[k].hami != NULL ? req->groups[k].hami : req->groups[k].select;
        /* a HAMi group may take MIG instances of fewer cards: bounded by the slots a node may register */
        s->impossible |= req->groups[k].count > (req->groups[k].hami != NULL ? max_gpus * GPA_SEARCH_HAMI_MIG_SLOTS : max_gpus);
        s->by_uuid |= sel != NULL && (sel->use_uuid != NULL || sel->nouse_uuid != NULL);
    }
    s->nshares = s->impossible ? 0 : make_slots(a, req, from, to, s->first_fit, &s->slots);
    make_needs(s, a);
    s->cur = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->cur));
    s->best = gpa_arena_calloc(a, s->nshares + 1, sizeof(*s->best));
    s->dev = gpa_arena_calloc(a, max_gpus + 1, sizeof(*s->dev));
}
