/*
 * Gathering ResourceSlices into pools (dra_pools.h).
 */
#include "inventory/dra_pools.h"

#include <stdlib.h>
#include <string.h>

void gpa_dra_pools_init(gpa_dra_pools_t *p)
{
    memset(p, 0, sizeof(*p));
}

void gpa_dra_pools_add(gpa_arena_t *a, gpa_dra_pools_t *p, const gpa_dra_slice_t *slice)
{
    *gpa_vec_push(a, &p->added_) = slice;
}

/* Driver, then pool name, then the highest generation first. */
static int by_pool(const void *x, const void *y)
{
    const gpa_dra_slice_t *s = *(const gpa_dra_slice_t *const *)x, *t = *(const gpa_dra_slice_t *const *)y;
    int c = strcmp(s->driver, t->driver);
    if (c == 0)
        c = strcmp(s->pool, t->pool);
    if (c == 0)
        c = s->generation > t->generation ? -1 : s->generation < t->generation;
    return c;
}

static int same_pool(const gpa_dra_slice_t *s, const gpa_dra_slice_t *t)
{
    return strcmp(s->driver, t->driver) == 0 && strcmp(s->pool, t->pool) == 0;
}

const gpa_dra_counter_set_t *gpa_dra_pool_counter_set(const gpa_dra_pool_t *pool, const char *name)
{
    for (size_t i = 0; i < pool->ncounter_sets; i++)
        if (strcmp(pool->counter_sets[i].name, name) == 0)
            return &pool->counter_sets[i];
    return NULL;
}

/* The pool of slices[0..n) (one pool, highest generation first): its slices of that generation and their counters. */
static void gather(gpa_arena_t *a, const gpa_dra_slice_t **slices, size_t n, gpa_dra_pool_t *pool)
{
    const gpa_dra_slice_t *top = slices[0];
    size_t sets = 0;
    memset(pool, 0, sizeof(*pool));
    pool->driver = top->driver;
    pool->name = top->pool;
    pool->generation = top->generation;
    pool->slice_count = top->slice_count;
    pool->slices = slices;
    while (pool->nslices < n && slices[pool->nslices]->generation == top->generation)
        sets += slices[pool->nslices++]->ncounter_sets;
    /* A generation whose slices disagree on their count is still being written: incomplete until they agree. */
    pool->complete = (int64_t)pool->nslices == pool->slice_count;
    for (size_t i = 0; i < pool->nslices; i++)
        pool->complete &= slices[i]->slice_count == pool->slice_count;
    pool->counter_sets = sets != 0 ? gpa_arena_calloc(a, sets, sizeof(*pool->counter_sets)) : NULL;
    for (size_t i = 0; i < pool->nslices; i++)
        for (size_t k = 0; k < slices[i]->ncounter_sets; k++)
            if (gpa_dra_pool_counter_set(pool, slices[i]->counter_sets[k].name) == NULL)
                pool->counter_sets[pool->ncounter_sets++] = slices[i]->counter_sets[k];
}

static void place_devices(gpa_arena_t *a, gpa_dra_pools_t *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->npools; i++)
        for (size_t k = 0; p->pools[i].complete && k < p->pools[i].nslices; k++)
            n += p->pools[i].slices[k]->ndevices;
    p->devices = n != 0 ? gpa_arena_calloc(a, n, sizeof(*p->devices)) : NULL;
    p->ndevices = 0;
    for (size_t i = 0; i < p->npools; i++)
        for (size_t k = 0; p->pools[i].complete && k < p->pools[i].nslices; k++) {
            const gpa_dra_slice_t *s = p->pools[i].slices[k];
            for (size_t d = 0; d < s->ndevices; d++)
                p->devices[p->ndevices++] =
                    (gpa_dra_placed_t){&s->devices[d], &p->pools[i], s->per_device ? &s->devices[d].nodes : &s->nodes};
        }
}

/* Devices offered to any node first, then by node name; ties keep the order they were placed in (a stable sort). */
typedef struct st_ranked_t {
    gpa_dra_placed_t placed;
    size_t rank;
} ranked_t;

static int by_node(const void *x, const void *y)
{
    const ranked_t *a = x, *b = y;
    const char *m = a->placed.nodes->node_name, *n = b->placed.nodes->node_name;
    int c = m == NULL || n == NULL ? (m != NULL) - (n != NULL) : strcmp(m, n);
    return c != 0 ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

static void order_by_node(gpa_arena_t *a, gpa_dra_pools_t *p)
{
    if (p->ndevices > 1) {
        ranked_t *r = gpa_xmalloc(p->ndevices * sizeof(*r));
        for (size_t i = 0; i < p->ndevices; i++)
            r[i] = (ranked_t){p->devices[i], i};
        qsort(r, p->ndevices, sizeof(*r), by_node);
        for (size_t i = 0; i < p->ndevices; i++)
            p->devices[i] = r[i].placed;
        free(r);
    }
    p->nanywhere = 0;
    while (p->nanywhere < p->ndevices && p->devices[p->nanywhere].nodes->node_name == NULL)
        p->nanywhere++;
    size_t nruns = 0;
    for (size_t i = p->nanywhere; i < p->ndevices; i++)
        nruns += i == p->nanywhere || strcmp(p->devices[i - 1].nodes->node_name, p->devices[i].nodes->node_name) != 0;
    p->runs = nruns != 0 ? gpa_arena_calloc(a, nruns, sizeof(*p->runs)) : NULL;
    p->nruns = 0;
    for (size_t i = p->nanywhere; i < p->ndevices; i++) {
        if (p->nruns == 0 || strcmp(p->runs[p->nruns - 1].node, p->devices[i].nodes->node_name) != 0)
            p->runs[p->nruns++] = (gpa_dra_node_run_t){p->devices[i].nodes->node_name, i, 0};
        p->runs[p->nruns - 1].n++;
    }
}

void gpa_dra_pools_seal(gpa_arena_t *a, gpa_dra_pools_t *p, void (*warn)(void *ctx, const char *message), void *ctx)
{
    size_t n = p->added_.len;
    const gpa_dra_slice_t **sorted = n != 0 ? gpa_arena_alloc(a, n * sizeof(*sorted)) : NULL;
    if (n != 0)
        memcpy(sorted, p->added_.items, n * sizeof(*sorted));
    if (n > 1)
        qsort(sorted, n, sizeof(*sorted), by_pool);
    size_t npools = 0;
    for (size_t i = 0; i < n; i++)
        npools += i == 0 || !same_pool(sorted[i - 1], sorted[i]);
    p->pools = npools != 0 ? gpa_arena_calloc(a, npools, sizeof(*p->pools)) : NULL;
    p->npools = 0;
    for (size_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && same_pool(sorted[i], sorted[end]);)
            end++;
        gpa_dra_pool_t *pool = &p->pools[p->npools++];
        gather(a, sorted + i, end - i, pool);
        if (!pool->complete && warn != NULL)
            warn(ctx, gpa_arena_printf(a,
                                       "ResourceSlice pool %s/%s generation %lld: %zu of %lld slices present; its devices are left "
                                       "out until the driver has published them all",
                                       pool->driver, pool->name, (long long)pool->generation, pool->nslices,
                                       (long long)pool->slice_count));
    }
    place_devices(a, p);
    order_by_node(a, p);
    p->use = NULL;
}

/* ---- what allocated claims hold ----------------------------------------------------------------------------------- */

static int key_cmp(const gpa_dra_placed_t *d, const char *driver, const char *pool, const char *device)
{
    int c = strcmp(d->pool->driver, driver);
    if (c == 0)
        c = strcmp(d->pool->name, pool);
    return c != 0 ? c : strcmp(d->device->name, device);
}

static int by_key_cmp(const void *x, const void *y)
{
    const gpa_dra_placed_t *a = *(const gpa_dra_placed_t *const *)x, *b = *(const gpa_dra_placed_t *const *)y;
    return key_cmp(a, b->pool->driver, b->pool->name, b->device->name);
}

/* The devices by (driver, pool, name), for finding what results name. */
static const gpa_dra_placed_t **index_keys(gpa_arena_t *a, const gpa_dra_pools_t *p)
{
    const gpa_dra_placed_t **by_key = gpa_arena_alloc(a, (p->ndevices + 1) * sizeof(*by_key));
    for (size_t i = 0; i < p->ndevices; i++)
        by_key[i] = &p->devices[i];
    qsort(by_key, p->ndevices, sizeof(*by_key), by_key_cmp);
    return by_key;
}

/* The index in p->devices of (driver, pool, device), or -1. */
static long find_device(const gpa_dra_pools_t *p, const gpa_dra_placed_t *const *by_key, const char *driver, const char *pool,
                        const char *device)
{
    size_t lo = 0, hi = p->ndevices;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_cmp(by_key[mid], driver, pool, device);
        if (c == 0)
            return (long)(by_key[mid] - p->devices);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Adds what one result consumes to u (capacity names summed; a sum past int64 stays at its maximum). */
static void add_consumed(gpa_arena_t *a, gpa_dra_use_t *u, const gpa_dra_result_t *res)
{
    for (size_t i = 0; i < res->nconsumed; i++) {
        const gpa_dra_amount_t *c = &res->consumed[i];
        if (c->value.status != GPA_Q_OK)
            continue;
        size_t k = 0;
        while (k < u->nconsumed && strcmp(u->consumed[k].name, c->name) != 0)
            k++;
        if (k == u->nconsumed) {
            gpa_dra_amount_t *more = gpa_arena_alloc(a, (u->nconsumed + 1) * sizeof(*more));
            if (u->nconsumed != 0)
                memcpy(more, u->consumed, u->nconsumed * sizeof(*more));
            more[k] = (gpa_dra_amount_t){c->name, {.status = GPA_Q_OK, .value = 0}};
            u->consumed = more;
            u->nconsumed++;
        }
        if (__builtin_add_overflow(u->consumed[k].value.value, c->value.value, &u->consumed[k].value.value))
            u->consumed[k].value.value = INT64_MAX;
    }
}

/* Where counter `counter` of set `set` is in the pool's sets (*i the set, *j the counter): 0, or -1 when it is not. */
static int counter_at(const gpa_dra_pool_t *pool, const char *set, const char *counter, size_t *i, size_t *j)
{
    const gpa_dra_counter_set_t *s = gpa_dra_pool_counter_set(pool, set);
    if (s == NULL)
        return -1;
    *i = (size_t)(s - pool->counter_sets);
    for (*j = 0; *j < s->ncounters; (*j)++)
        if (strcmp(s->counters[*j].name, counter) == 0)
            return 0;
    return -1;
}

/* What an allocated device consumes of its pool's counters, added to the pool's used (held once per device: a device
 * allocated several times consumes its counters once, as the scheduler counts them). */
static void use_counters(gpa_arena_t *a, gpa_dra_pools_t *pools, size_t d)
{
    const gpa_dra_placed_t *p = &pools->devices[d];
    gpa_dra_pool_t *pool = &pools->pools[p->pool - pools->pools];
    for (size_t c = 0; c < p->device->nconsumes; c++) {
        const gpa_dra_counter_set_t *use = &p->device->consumes[c];
        for (size_t k = 0; k < use->ncounters; k++) {
            size_t i, j;
            if (use->counters[k].value.status != GPA_Q_OK || counter_at(pool, use->name, use->counters[k].name, &i, &j) != 0)
                continue;
            if (pool->used == NULL)
                pool->used = gpa_arena_calloc(a, pool->ncounter_sets, sizeof(*pool->used));
            if (pool->used[i] == NULL)
                pool->used[i] = gpa_arena_calloc(a, pool->counter_sets[i].ncounters + 1, sizeof(**pool->used));
            if (__builtin_add_overflow(pool->used[i][j], use->counters[k].value.value, &pool->used[i][j]))
                pool->used[i][j] = INT64_MAX;
        }
    }
}

int64_t gpa_dra_pool_counter_left(const gpa_dra_pool_t *pool, const char *set, const char *counter, int held)
{
    size_t i, j;
    if (counter_at(pool, set, counter, &i, &j) != 0 || pool->counter_sets[i].counters[j].value.status != GPA_Q_OK)
        return INT64_MIN;
    int64_t value = pool->counter_sets[i].counters[j].value.value;
    int64_t used = held && pool->used != NULL && pool->used[i] != NULL ? pool->used[i][j] : 0;
    return value - (used < value ? used : value);
}

void gpa_dra_pools_use(gpa_arena_t *a, gpa_dra_pools_t *p, const gpa_dra_object_t *const *claims, size_t n)
{
    const gpa_dra_placed_t **by_key = NULL;
    p->use = NULL;
    for (size_t i = 0; i < n; i++) {
        const gpa_dra_object_t *c = claims[i];
        for (size_t k = 0; c->kind == GPA_DRA_CLAIM && k < c->nallocated; k++) {
            const gpa_dra_result_t *res = &c->allocated[k];
            if (by_key == NULL)
                by_key = index_keys(a, p);
            long d = find_device(p, by_key, res->driver, res->pool, res->device);
            if (d < 0)
                continue;
            if (p->use == NULL)
                p->use = gpa_arena_calloc(a, p->ndevices, sizeof(*p->use));
            gpa_dra_use_t *u = &p->use[d];
            if (u->allocations++ == 0) {
                u->by = gpa_arena_printf(a, "%s/%s", c->ns, c->name);
                use_counters(a, p, (size_t)d);
            }
            add_consumed(a, u, res);
        }
    }
}

int gpa_dra_pools_driver_known(const gpa_dra_pools_t *p, const char *driver)
{
    for (size_t i = 0; i < p->npools; i++)
        if (p->pools[i].complete && strcmp(p->pools[i].driver, driver) == 0)
            return 1;
    return 0;
}
