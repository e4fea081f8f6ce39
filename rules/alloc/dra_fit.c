/*
 * Could a DRA claim ever be allocated (dra_fit.h).
 */
#include "alloc/dra_fit.h"

#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "inventory/dra_device.h"

/* ---- capacity ---------------------------------------------------------------------------------------------------- */

static const char *bytes_text(gpa_arena_t *a, int64_t v)
{
    char buf[32];
    gpa_quantity_format(v, 1, buf);
    return gpa_arena_strdup(a, buf);
}

/* The smallest of validValues at or above want; 1 when none is. */
static int round_to_values(const gpa_dra_policy_t *p, int64_t want, int64_t *out)
{
    for (size_t i = 0; i < p->nvalid_values; i++) {
        if (p->valid_values[i].status != GPA_Q_OK)
            return -1;
        if (p->valid_values[i].value >= want) {
            *out = p->valid_values[i].value;
            return 0;
        }
    }
    return 1;
}

/* min + n*step, the smallest at or above want (step 0 or absent: want itself, at least min); 1 above max. */
static int round_to_range(const gpa_dra_policy_t *p, int64_t want, int64_t *out)
{
    if (p->min.status != GPA_Q_OK || (p->has_step && p->step.status != GPA_Q_OK) || (p->has_max && p->max.status != GPA_Q_OK))
        return -1;
    int64_t v = want < p->min.value ? p->min.value : want;
    if (p->has_step && p->step.value > 0 && v > p->min.value) {
        int64_t over = v - p->min.value, steps = over / p->step.value + (over % p->step.value != 0), add;
        if (__builtin_mul_overflow(steps, p->step.value, &add) || __builtin_add_overflow(p->min.value, add, &v))
            return 1;
    }
    if (p->has_max && v > p->max.value)
        return 1;
    *out = v;
    return 0;
}

int gpa_dra_consumed(gpa_arena_t *a, const gpa_dra_device_capacity_t *c, int shared, const gpa_quantity_t *requested,
                     int64_t *consumed, const char **why)
{
    if (c->value.status != GPA_Q_OK || (requested != NULL && requested->status != GPA_Q_OK))
        return -1;
    int64_t want = requested != NULL ? requested->value : c->value.value;
    *why = NULL;
    if (shared && c->policy != NULL) {
        const gpa_dra_policy_t *p = c->policy;
        if (requested == NULL) {
            if (p->has_default && p->def.status != GPA_Q_OK)
                return -1;
            want = p->has_default ? p->def.value : c->value.value;
        }
        int r = p->nvalid_values != 0 ? round_to_values(p, want, &want) : p->has_range ? round_to_range(p, want, &want) : 0;
        if (r < 0)
            return -1;
        if (r > 0) {
            *why = gpa_arena_printf(a, "%s is above what its requestPolicy allows",
                                    bytes_text(a, requested != NULL ? requested->value : want));
            return 1;
        }
    }
    if (want > c->value.value) {
        *why = gpa_arena_printf(a, "%s asked, the device has %s", bytes_text(a, want), bytes_text(a, c->value.value));
        return 1;
    }
    *consumed = shared ? want : c->value.value;
    return 0;
}

/* ---- one device ---------------------------------------------------------------------------------------------------- */

/* Why devices were left out of one alternative, for the reason given when no node meets it. */
typedef struct st_tally_t {
    size_t admitted;     /* by the class and the selectors */
    size_t eligible;     /* of those, with room */
    const char *exclude; /* the first reason an admitted device was left out */
    int unknown;         /* an outcome gpuadmit cannot judge soundly: the alternative says nothing */
} tally_t;

static int tolerated(const gpa_dra_exact_t *e, const gpa_dra_taint_t *t)
{
    for (size_t i = 0; i < e->ntolerations; i++) {
        const gpa_dra_toleration_t *o = &e->tolerations[i];
        int exists = o->op != NULL && strcmp(o->op, "Exists") == 0;
        if (o->key != NULL && o->key[0] != '\0' && (t->key == NULL || strcmp(o->key, t->key) != 0))
            continue;
        if ((o->key == NULL || o->key[0] == '\0') && !exists)
            continue;
        if (!exists && strcmp(o->value != NULL ? o->value : "", t->value != NULL ? t->value : "") != 0)
            continue;
        if (o->effect != NULL && o->effect[0] != '\0' && (t->effect == NULL || strcmp(o->effect, t->effect) != 0))
            continue;
        return 1;
    }
    return 0;
}

/* Why d can never serve e (taints, capacity, counters), NULL when it can; "" when gpuadmit cannot tell (unknown). */
static const char *cannot_serve(gpa_arena_t *a, const gpa_dra_placed_t *p, const gpa_dra_exact_t *e)
{
    const gpa_dra_device_t *d = p->device;
    for (size_t i = 0; i < d->ntaints; i++) {
        const gpa_dra_taint_t *t = &d->taints[i];
        int blocks = t->effect != NULL && (strcmp(t->effect, "NoSchedule") == 0 || strcmp(t->effect, "NoExecute") == 0);
        if (blocks && !tolerated(e, t))
            return gpa_arena_printf(a, "device %s/%s is tainted %s=%s:%s and the request does not tolerate it", p->pool->name,
                                    d->name, t->key != NULL ? t->key : "", t->value != NULL ? t->value : "", t->effect);
    }
    for (size_t i = 0; i < e->ncapacity; i++) {
        const gpa_dra_capacity_t *want = &e->capacity[i];
        const gpa_dra_device_capacity_t *c = gpa_dra_device_capacity_named(d, p->pool->driver, want->name);
        if (c == NULL)
            return gpa_arena_printf(a, "device %s/%s has no capacity %s", p->pool->name, d->name, want->name);
        int64_t consumed;
        const char *why;
        int r = gpa_dra_consumed(a, c, d->allow_multiple, &want->amount, &consumed, &why);
        if (r < 0)
            return "";
        if (r > 0)
            return gpa_arena_printf(a, "capacity %s of device %s/%s: %s", want->name, p->pool->name, d->name, why);
    }
    for (size_t i = 0; i < d->nconsumes; i++) {
        const gpa_dra_counter_set_t *set = gpa_dra_pool_counter_set(p->pool, d->consumes[i].name);
        for (size_t k = 0; set != NULL && k < d->consumes[i].ncounters; k++) {
            const gpa_dra_counter_t *use = &d->consumes[i].counters[k];
            for (size_t j = 0; j < set->ncounters; j++)
                if (strcmp(set->counters[j].name, use->name) == 0 && use->value.status == GPA_Q_OK &&
                    set->counters[j].value.status == GPA_Q_OK && use->value.value > set->counters[j].value.value)
                    return gpa_arena_printf(a, "device %s/%s consumes more %s than its counter set %s holds", p->pool->name,
                                            d->name, use->name, set->name);
        }
    }
    return NULL;
}

/* ---- one alternative ----------------------------------------------------------------------------------------------- */

/* Selectors parsed; NULL when one cannot be (dra-cel's to say). */
static const gpa_cel_node_t **parse(gpa_arena_t *a, const char *const *texts, size_t n)
{
    const gpa_cel_node_t **out = gpa_arena_calloc(a, n + 1, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        gpa_error_t err;
        gpa_error_init(&err, NULL);
        if (texts[i] == NULL || gpa_cel_parse(a, texts[i], strlen(texts[i]), "", &out[i], &err) != 0)
            return NULL;
    }
    return out;
}

int gpa_dra_selected(gpa_arena_t *a, const gpa_cel_node_t *const *cls, size_t ncls, const gpa_cel_node_t *const *req, size_t nreq,
                     const gpa_dra_placed_t *p, gpa_alloc_budget_t *budget, gpa_dra_selected_t *out)
{
    uint64_t cost = GPA_DRA_DEVICE_COST;
    out->cls = gpa_dra_select(a, cls, ncls, p->pool->driver, p->device, &cost, &out->which, &out->why);
    out->req = GPA_CEL_NO_MATCH;
    if (out->cls == GPA_CEL_MATCH || out->cls == GPA_CEL_MAYBE)
        out->req = gpa_dra_select(a, req, nreq, p->pool->driver, p->device, &cost, &out->which, &out->why);
    return gpa_alloc_budget_take(budget, 1 + (GPA_DRA_DEVICE_COST - cost) / GPA_DRA_COST_PER_STEP) != 0 ? -1 : 0;
}

/* What the scheduler could make of the device for the alternative: MATCH or MAYBE admit it (a class that may match
 * and a request that does not is no match), NO_MATCH does not, FAILS where the class's selectors err. */
static gpa_cel_outcome_t admission(const gpa_dra_selected_t *s)
{
    if (s->cls == GPA_CEL_MATCH)
        return s->req;
    if (s->cls == GPA_CEL_MAYBE)
        return s->req == GPA_CEL_NO_MATCH ? GPA_CEL_NO_MATCH : GPA_CEL_MAYBE;
    return s->cls;
}

/* The nodes devices name, sorted and unique: a node is its index here. */
typedef struct st_nodes_t {
    const char **names;
    size_t len;
} nodes_t;

static int cmp_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static nodes_t nodes_of(gpa_arena_t *a, const gpa_dra_pools_t *pools)
{
    nodes_t n = {gpa_arena_alloc(a, (pools->ndevices + 1) * sizeof(*n.names)), 0};
    for (size_t d = 0; d < pools->ndevices; d++)
        if (pools->devices[d].nodes->node_name != NULL)
            n.names[n.len++] = pools->devices[d].nodes->node_name;
    qsort(n.names, n.len, sizeof(*n.names), cmp_name);
    size_t u = 0;
    for (size_t i = 0; i < n.len; i++)
        if (u == 0 || strcmp(n.names[u - 1], n.names[i]) != 0)
            n.names[u++] = n.names[i];
    n.len = u;
    return n;
}

static size_t node_index(const nodes_t *n, const char *name)
{
    const char **at = bsearch(&name, n->names, n->len, sizeof(*n->names), cmp_name);
    return (size_t)(at - n->names);
}

/* One node's count of eligible devices. */
typedef struct st_node_count_t {
    size_t node;
    size_t n;
} node_count_t;

typedef struct st_alternative_t {
    const gpa_dra_exact_t *e;
    tally_t tally;
    node_count_t *counts; /* by node index, only nodes with some: one entry per eligible device at most */
    size_t ncounts;
    size_t anywhere; /* devices offered to every node */
} alternative_t;

static void count_on(const nodes_t *nodes, alternative_t *alt, const gpa_dra_placed_t *p)
{
    if (p->nodes->node_name == NULL) {
        alt->anywhere++;
        return;
    }
    size_t node = node_index(nodes, p->nodes->node_name);
    if (alt->ncounts != 0 && alt->counts[alt->ncounts - 1].node == node) /* a node's devices come together */
        alt->counts[alt->ncounts - 1].n++;
    else
        alt->counts[alt->ncounts++] = (node_count_t){node, 1};
}

static int cmp_count(const void *x, const void *y)
{
    const node_count_t *a = x, *b = y;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Sorts alt's counts by node and merges the entries of one node. */
static void merge_counts(alternative_t *alt)
{
    qsort(alt->counts, alt->ncounts, sizeof(*alt->counts), cmp_count);
    size_t u = 0;
    for (size_t i = 0; i < alt->ncounts; i++)
        if (u != 0 && alt->counts[u - 1].node == alt->counts[i].node)
            alt->counts[u - 1].n += alt->counts[i].n;
        else
            alt->counts[u++] = alt->counts[i];
    alt->ncounts = u;
}

/* Fills alt's counts: which devices the alternative could take, on which node. */
static void survey(gpa_arena_t *a, const gpa_dra_pools_t *pools, const nodes_t *nodes, const gpa_dra_known_t *known,
                   gpa_alloc_budget_t *budget, alternative_t *alt)
{
    const gpa_dra_exact_t *e = alt->e;
    const gpa_dra_object_t *cls = e->class != NULL ? gpa_dra_known_find(known, GPA_DRA_CLASS, "", e->class) : NULL;
    const gpa_cel_node_t **csel = cls != NULL ? parse(a, cls->cls.selectors, cls->cls.nselectors) : NULL;
    const gpa_cel_node_t **rsel = parse(a, e->selectors, e->nselectors);
    size_t class_admitted = 0;
    if (cls == NULL || csel == NULL || rsel == NULL || e->mode == GPA_DRA_MODE_OTHER || e->admin_access) {
        alt->tally.unknown = 1;
        return;
    }
    alt->counts = gpa_arena_alloc(a, (pools->ndevices + 1) * sizeof(*alt->counts));
    for (size_t d = 0; d < pools->ndevices && !alt->tally.unknown; d++) {
        const gpa_dra_placed_t *p = &pools->devices[d];
        gpa_dra_selected_t s;
        if (gpa_dra_selected(a, csel, cls->cls.nselectors, rsel, e->nselectors, p, budget, &s) != 0 ||
            admission(&s) == GPA_CEL_FAILS) {
            alt->tally.unknown = 1; /* the budget is spent, or the scheduler errs here (dra-cel) */
            break;
        }
        class_admitted += s.cls == GPA_CEL_MATCH || s.cls == GPA_CEL_MAYBE;
        if (admission(&s) == GPA_CEL_NO_MATCH)
            continue;
        alt->tally.admitted++;
        const char *why = cannot_serve(a, p, e);
        if (why != NULL && why[0] == '\0')
            alt->tally.unknown = 1;
        else if (why != NULL && alt->tally.exclude == NULL)
            alt->tally.exclude = why;
        if (why != NULL)
            continue;
        alt->tally.eligible++;
        count_on(nodes, alt, p);
    }
    merge_counts(alt);
    if (class_admitted == 0)
        alt->tally.unknown = 1; /* the class's driver may not have published yet: nothing is known to be missing */
}

static size_t needed(const gpa_dra_exact_t *e)
{
    return e->mode == GPA_DRA_ALL ? 1 : e->count > 0 ? (size_t)e->count : 1;
}

/* Whether alt is met on node `node` (nodes->len: a node with only the devices offered to any node). */
static int met_on(const alternative_t *alt, size_t node)
{
    if (alt->tally.unknown)
        return 1;
    size_t n = alt->anywhere;
    node_count_t key = {node, 0};
    const node_count_t *at = alt->ncounts != 0 ? bsearch(&key, alt->counts, alt->ncounts, sizeof(key), cmp_count) : NULL;
    if (at != NULL)
        n += at->n;
    return n >= needed(alt->e);
}

/* ---- the claim ----------------------------------------------------------------------------------------------------- */

typedef struct st_request_t {
    const gpa_dra_request_t *req;
    alternative_t *alts;
    size_t nalts;
} request_t;

static int request_met_on(const request_t *r, size_t node)
{
    for (size_t i = 0; i < r->nalts; i++)
        if (met_on(&r->alts[i], node))
            return 1;
    return 0;
}

/* Why request r is met on no node: its first alternative's tally. */
static const char *why_never(gpa_arena_t *a, const request_t *r)
{
    const alternative_t *alt = &r->alts[0];
    const gpa_dra_exact_t *e = alt->e;
    const char *name = r->req->name != NULL ? r->req->name : "";
    const char *more = r->nalts > 1 ? gpa_arena_printf(a, " (nor any of its %zu alternatives)", r->nalts - 1) : "";
    if (alt->tally.admitted == 0)
        return gpa_arena_printf(a, "request %s%s: no published device that class %s admits matches its selectors", name, more,
                                e->class);
    if (alt->tally.eligible == 0)
        return gpa_arena_printf(a, "request %s%s: %zu device(s) match, none can serve it (for one, %s)", name, more,
                                alt->tally.admitted, alt->tally.exclude);
    size_t best = alt->anywhere;
    for (size_t i = 0; i < alt->ncounts; i++)
        if (alt->anywhere + alt->counts[i].n > best)
            best = alt->anywhere + alt->counts[i].n;
    return gpa_arena_printf(a, "request %s%s: %zu devices on one node asked, at most %zu on any node", name, more, needed(e), best);
}

gpa_dra_fit_t gpa_dra_ever_fits(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                                const gpa_dra_devices_t *devices, gpa_alloc_budget_t *budget, const char **reason)
{
    if (pools == NULL || pools->ndevices == 0 || devices->nrequests == 0)
        return GPA_DRA_UNKNOWN;
    nodes_t nodes = nodes_of(a, pools);
    request_t *reqs = gpa_arena_calloc(a, devices->nrequests, sizeof(*reqs));
    for (size_t i = 0; i < devices->nrequests; i++) {
        const gpa_dra_request_t *req = &devices->requests[i];
        request_t *r = &reqs[i];
        r->req = req;
        r->nalts = gpa_dra_request_nexact(req);
        if (r->nalts == 0)
            return GPA_DRA_UNKNOWN; /* a request of neither form: the API server's to refuse */
        r->alts = gpa_arena_calloc(a, r->nalts, sizeof(*r->alts));
        for (size_t k = 0; k < r->nalts; k++) {
            r->alts[k].e = gpa_dra_request_exact(req, k);
            survey(a, pools, &nodes, known, budget, &r->alts[k]);
        }
    }
    /* A node meets the claim when it meets every request: every node devices name, and one with only shared ones. */
    for (size_t node = 0; node <= nodes.len; node++) {
        size_t i = 0;
        while (i < devices->nrequests && request_met_on(&reqs[i], node))
            i++;
        if (i == devices->nrequests)
            return GPA_DRA_FITS;
    }
    /* Never: a request no node meets says why; else they are met only on different nodes. */
    for (size_t i = 0; i < devices->nrequests; i++) {
        size_t node = 0;
        while (node <= nodes.len && !request_met_on(&reqs[i], node))
            node++;
        if (node > nodes.len) {
            *reason = why_never(a, &reqs[i]);
            return GPA_DRA_NEVER;
        }
    }
    *reason = "its requests are met only on different nodes, and a claim's devices must be reachable from one node";
    return GPA_DRA_NEVER;
}

size_t gpa_dra_admitted(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_exact_t *e,
                        gpa_alloc_budget_t *budget, const gpa_dra_placed_t ***out)
{
    const gpa_dra_object_t *cls = e->class != NULL ? gpa_dra_known_find(known, GPA_DRA_CLASS, "", e->class) : NULL;
    const gpa_cel_node_t **csel = cls != NULL ? parse(a, cls->cls.selectors, cls->cls.nselectors) : NULL;
    const gpa_cel_node_t **rsel = parse(a, e->selectors, e->nselectors);
    *out = NULL;
    if (pools == NULL || cls == NULL || csel == NULL || rsel == NULL)
        return 0;
    size_t n = 0;
    for (size_t d = 0; d < pools->ndevices; d++) {
        gpa_dra_selected_t s;
        if (gpa_dra_selected(a, csel, cls->cls.nselectors, rsel, e->nselectors, &pools->devices[d], budget, &s) != 0)
            return 0;
        if (admission(&s) != GPA_CEL_MATCH && admission(&s) != GPA_CEL_MAYBE)
            continue;
        if (*out == NULL)
            *out = gpa_arena_alloc(a, pools->ndevices * sizeof(**out));
        (*out)[n++] = &pools->devices[d];
    }
    return n;
}
