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

/* Why allocated claims leave no room on device p for e (pools->use), NULL when they leave some. */
static const char *taken(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_placed_t *p, const gpa_dra_exact_t *e)
{
    const gpa_dra_use_t *u = pools->use != NULL ? &pools->use[p - pools->devices] : NULL;
    const gpa_dra_device_t *d = p->device;
    if (u == NULL || u->allocations == 0)
        return NULL;
    if (!d->allow_multiple)
        return gpa_arena_printf(a, "device %s/%s is allocated to claim %s", p->pool->name, d->name, u->by);
    for (size_t i = 0; i < e->ncapacity; i++) {
        const gpa_dra_capacity_t *want = &e->capacity[i];
        const gpa_dra_device_capacity_t *c = gpa_dra_device_capacity_named(d, p->pool->driver, want->name);
        int64_t consumed, used = 0;
        const char *why;
        if (c == NULL || gpa_dra_consumed(a, c, 1, &want->amount, &consumed, &why) != 0)
            continue;
        for (size_t k = 0; k < u->nconsumed; k++)
            if (strcmp(u->consumed[k].name, want->name) == 0 || strcmp(u->consumed[k].name, c->id) == 0)
                used = u->consumed[k].value.value;
        if (used > c->value.value - consumed)
            return gpa_arena_printf(a, "capacity %s of device %s/%s: %s asked, %s left by %u allocated claim(s)", want->name,
                                    p->pool->name, d->name, bytes_text(a, consumed),
                                    bytes_text(a, used < c->value.value ? c->value.value - used : 0), u->allocations);
    }
    return NULL;
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

static size_t needed(const gpa_dra_exact_t *e)
{
    return e->mode == GPA_DRA_ALL ? 1 : e->count > 0 ? (size_t)e->count : 1;
}

/* One alternative of a request (the request itself when it has none) and what it made of the devices looked at. */
typedef struct st_alternative_t {
    const gpa_dra_exact_t *e;
    const gpa_dra_object_t *cls;
    const gpa_cel_node_t **csel, **rsel;
    tally_t tally;
    size_t class_admitted; /* devices the class admits */
    size_t anywhere;       /* eligible devices offered to every node */
    size_t best;           /* the most eligible devices one node offers, those included */
    uint64_t *met_on;      /* the survey's: bit r, met on pools->runs[r]; bit nruns, on a node with only those */
    int now;               /* what allocated claims hold is taken (gpa_dra_fits_now) */
} alternative_t;

/* The class and the selectors parsed; unknown when the alternative cannot be judged soundly. */
static void prepare(gpa_arena_t *a, const gpa_dra_known_t *known, alternative_t *alt)
{
    const gpa_dra_exact_t *e = alt->e;
    alt->cls = e->class != NULL ? gpa_dra_known_find(known, GPA_DRA_CLASS, "", e->class) : NULL;
    alt->csel = alt->cls != NULL ? parse(a, alt->cls->cls.selectors, alt->cls->cls.nselectors) : NULL;
    alt->rsel = parse(a, e->selectors, e->nselectors);
    if (alt->cls == NULL || alt->csel == NULL || alt->rsel == NULL || e->mode == GPA_DRA_MODE_OTHER || e->admin_access)
        alt->tally.unknown = 1;
}

/* What the alternative makes of one device. */
typedef enum en_judgement_t {
    J_UNKNOWN,  /* the budget is spent, the scheduler errs here (dra-cel), or an amount cannot be read */
    J_NO_MATCH, /* the class or the selectors do not admit it */
    J_EXCLUDED, /* admitted, and cannot serve (*why) */
    J_ELIGIBLE, /* admitted and could serve */
} judgement_t;

static judgement_t judge(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_placed_t *p, gpa_alloc_budget_t *budget,
                         alternative_t *alt, const char **why)
{
    const gpa_dra_exact_t *e = alt->e;
    gpa_dra_selected_t s;
    if (gpa_dra_selected(a, alt->csel, alt->cls->cls.nselectors, alt->rsel, e->nselectors, p, budget, &s) != 0 ||
        admission(&s) == GPA_CEL_FAILS)
        return J_UNKNOWN;
    alt->class_admitted += s.cls == GPA_CEL_MATCH || s.cls == GPA_CEL_MAYBE;
    if (admission(&s) == GPA_CEL_NO_MATCH)
        return J_NO_MATCH;
    *why = cannot_serve(a, p, e);
    if (*why == NULL && alt->now)
        *why = taken(a, pools, p, e);
    return *why == NULL ? J_ELIGIBLE : (*why)[0] == '\0' ? J_UNKNOWN : J_EXCLUDED;
}

/* How many of devices[first .. first+n) the alternative could take; its tally counts them. */
static size_t look_at(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t first, size_t n, gpa_alloc_budget_t *budget,
                      alternative_t *alt)
{
    size_t eligible = 0;
    for (size_t d = first; d < first + n && !alt->tally.unknown; d++) {
        const char *why = NULL;
        judgement_t j = judge(a, pools, &pools->devices[d], budget, alt, &why);
        alt->tally.unknown = j == J_UNKNOWN;
        alt->tally.admitted += j == J_EXCLUDED || j == J_ELIGIBLE;
        if (j == J_EXCLUDED && alt->tally.exclude == NULL)
            alt->tally.exclude = why;
        if (j == J_ELIGIBLE)
            eligible++, alt->tally.eligible++;
    }
    return eligible;
}

/* Every device once, node by node: the tally whole, and on which nodes the alternative is met. */
static void survey(gpa_arena_t *a, const gpa_dra_pools_t *pools, gpa_alloc_budget_t *budget, alternative_t *alt)
{
    size_t need = needed(alt->e);
    alt->met_on = gpa_arena_calloc(a, pools->nruns / 64 + 1, sizeof(*alt->met_on));
    alt->anywhere = alt->best = look_at(a, pools, 0, pools->nanywhere, budget, alt);
    for (size_t r = 0; r < pools->nruns; r++) {
        size_t here = alt->anywhere + look_at(a, pools, pools->runs[r].first, pools->runs[r].n, budget, alt);
        alt->best = here > alt->best ? here : alt->best;
        if (here >= need)
            alt->met_on[r / 64] |= UINT64_C(1) << (r % 64);
    }
    if (alt->anywhere >= need)
        alt->met_on[pools->nruns / 64] |= UINT64_C(1) << (pools->nruns % 64);
    if (alt->class_admitted == 0)
        alt->tally.unknown = 1; /* the class's driver may not have published yet: nothing is known to be missing */
}

/* ---- the claim ----------------------------------------------------------------------------------------------------- */

typedef struct st_request_t {
    const gpa_dra_request_t *req;
    alternative_t *alts;
    size_t nalts;
} request_t;

/* Whether r is met on run `run` (nruns: a node with only the devices offered to any), from the survey. */
static int surveyed_met(const request_t *r, size_t run)
{
    for (size_t k = 0; k < r->nalts; k++)
        if (r->alts[k].tally.unknown || (r->alts[k].met_on[run / 64] >> (run % 64) & 1))
            return 1;
    return 0;
}

/* Whether r is met on devices[first .. first+n) with those offered to any node (counted in each alternative's anywhere). */
static int probe_met(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t first, size_t n, gpa_alloc_budget_t *budget, request_t *r)
{
    for (size_t k = 0; k < r->nalts; k++) {
        alternative_t *alt = &r->alts[k];
        if (alt->tally.unknown || alt->anywhere + look_at(a, pools, first, n, budget, alt) >= needed(alt->e))
            return 1;
    }
    return 0;
}

/*
 * The probe: node by node, each request in turn until one is not met there, stopping at the first node that meets
 * them all. A claim that fits costs the devices of the nodes looked at before that one, not the inventory.
 */
static int probe(gpa_arena_t *a, const gpa_dra_pools_t *pools, gpa_alloc_budget_t *budget, request_t *reqs, size_t nreqs)
{
    for (size_t i = 0; i < nreqs; i++)
        for (size_t k = 0; k < reqs[i].nalts; k++)
            reqs[i].alts[k].anywhere = look_at(a, pools, 0, pools->nanywhere, budget, &reqs[i].alts[k]);
    for (size_t r = 0; r <= pools->nruns; r++) {
        size_t first = r < pools->nruns ? pools->runs[r].first : 0, n = r < pools->nruns ? pools->runs[r].n : 0, i = 0;
        while (i < nreqs && probe_met(a, pools, first, n, budget, &reqs[i]))
            i++;
        if (i == nreqs)
            return 1;
    }
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
    return gpa_arena_printf(a, "request %s%s: %zu devices on one node asked, at most %zu on any node", name, more, needed(e),
                            alt->best);
}

/* The claim's requests and their alternatives, prepared; NULL when a request has neither form (the API server's to
 * refuse: nothing to say). */
static request_t *requests_of(gpa_arena_t *a, const gpa_dra_known_t *known, const gpa_dra_devices_t *devices, int now)
{
    request_t *reqs = gpa_arena_calloc(a, devices->nrequests, sizeof(*reqs));
    for (size_t i = 0; i < devices->nrequests; i++) {
        request_t *r = &reqs[i];
        r->req = &devices->requests[i];
        r->nalts = gpa_dra_request_nexact(r->req);
        if (r->nalts == 0)
            return NULL;
        r->alts = gpa_arena_calloc(a, r->nalts, sizeof(*r->alts));
        for (size_t k = 0; k < r->nalts; k++) {
            r->alts[k].e = gpa_dra_request_exact(r->req, k);
            r->alts[k].now = now;
            prepare(a, known, &r->alts[k]);
        }
    }
    return reqs;
}

static gpa_dra_fit_t fits(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                          const gpa_dra_devices_t *devices, int now, gpa_alloc_budget_t *budget, const char **reason)
{
    if (pools == NULL || pools->ndevices == 0 || devices->nrequests == 0)
        return GPA_DRA_UNKNOWN;
    size_t nreqs = devices->nrequests;
    request_t *reqs = requests_of(a, known, devices, now);
    if (reqs == NULL)
        return GPA_DRA_UNKNOWN;
    if (probe(a, pools, budget, reqs, nreqs))
        return GPA_DRA_FITS;
    /* No node found: the survey looks at every device for every alternative (what the probe learnt is set aside, but
     * not what it could not judge), so that the tallies say why. */
    for (size_t i = 0; i < nreqs; i++)
        for (size_t k = 0; k < reqs[i].nalts; k++) {
            alternative_t *alt = &reqs[i].alts[k];
            *alt = (alternative_t){.e = alt->e,
                                   .cls = alt->cls,
                                   .csel = alt->csel,
                                   .rsel = alt->rsel,
                                   .tally.unknown = alt->tally.unknown,
                                   .now = alt->now};
            survey(a, pools, budget, alt);
        }
    for (size_t r = 0; r <= pools->nruns; r++) {
        size_t i = 0;
        while (i < nreqs && surveyed_met(&reqs[i], r))
            i++;
        if (i == nreqs)
            return GPA_DRA_FITS; /* an alternative whose class admits nothing is met everywhere */
    }
    /* Never: a request no node meets says why; else they are met only on different nodes. */
    for (size_t i = 0; i < nreqs; i++) {
        size_t r = 0;
        while (r <= pools->nruns && !surveyed_met(&reqs[i], r))
            r++;
        if (r > pools->nruns) {
            *reason = why_never(a, &reqs[i]);
            return GPA_DRA_NEVER;
        }
    }
    *reason = "its requests are met only on different nodes, and a claim's devices must be reachable from one node";
    return GPA_DRA_NEVER;
}

gpa_dra_fit_t gpa_dra_ever_fits(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                                const gpa_dra_devices_t *devices, gpa_alloc_budget_t *budget, const char **reason)
{
    return fits(a, pools, known, devices, 0, budget, reason);
}

gpa_dra_fit_t gpa_dra_fits_now(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                               const gpa_dra_devices_t *devices, gpa_alloc_budget_t *budget, const char **reason)
{
    if (pools == NULL || pools->use == NULL)
        return gpa_dra_ever_fits(a, pools, known, devices, budget, reason);
    return fits(a, pools, known, devices, 1, budget, reason);
}

/* ---- the devices fit names ---------------------------------------------------------------------------------------- */

typedef GPA_VEC(size_t) indices_t;

static int holds(const indices_t *v, size_t d)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == d)
            return 1;
    return 0;
}

/* What device p consumes of a shared device's capacities for e ("memory 8Gi, cores 50"), NULL for a whole device. */
static const char *consumption(gpa_arena_t *a, const gpa_dra_placed_t *p, const gpa_dra_exact_t *e)
{
    const char *text = NULL;
    for (size_t i = 0; p->device->allow_multiple && i < e->ncapacity; i++) {
        const gpa_dra_device_capacity_t *c = gpa_dra_device_capacity_named(p->device, p->pool->driver, e->capacity[i].name);
        int64_t consumed;
        const char *why;
        if (c != NULL && gpa_dra_consumed(a, c, 1, &e->capacity[i].amount, &consumed, &why) == 0)
            text = gpa_arena_printf(a, "%s%s%s %s", text != NULL ? text : "", text != NULL ? ", " : "", e->capacity[i].name,
                                    bytes_text(a, consumed));
    }
    return text;
}

/* The devices of `ranges` (two [first, n) pairs) one alternative takes, none of `taken` whole; 0 when too few. */
static int take(gpa_arena_t *a, const gpa_dra_pools_t *pools, const size_t ranges[2][2], gpa_alloc_budget_t *budget,
                alternative_t *alt, indices_t *taken, gpa_dra_pick_t *pick)
{
    size_t need = needed(alt->e), got = 0;
    pick->devices = gpa_arena_alloc(a, (ranges[0][1] + ranges[1][1] + 1) * sizeof(*pick->devices));
    pick->consumed = gpa_arena_alloc(a, (ranges[0][1] + ranges[1][1] + 1) * sizeof(*pick->consumed));
    for (int r = 0; r < 2; r++)
        for (size_t d = ranges[r][0]; d < ranges[r][0] + ranges[r][1] && (got < need || alt->e->mode == GPA_DRA_ALL); d++) {
            const gpa_dra_placed_t *p = &pools->devices[d];
            const char *why = NULL;
            if ((!p->device->allow_multiple && holds(taken, d)) || judge(a, pools, p, budget, alt, &why) != J_ELIGIBLE)
                continue;
            pick->devices[got] = p;
            pick->consumed[got++] = consumption(a, p, alt->e);
        }
    if (got < need)
        return 0;
    for (size_t i = 0; i < got; i++)
        *gpa_vec_push(a, taken) = (size_t)(pick->devices[i] - pools->devices);
    pick->ndevices = got;
    return 1;
}

/* Every request served by devices of `ranges`, each its own (a shared device may serve several): the picks, or 0. */
static int pick_on(gpa_arena_t *a, const gpa_dra_pools_t *pools, const size_t ranges[2][2], gpa_alloc_budget_t *budget,
                   request_t *reqs, size_t nreqs, gpa_dra_pick_t *picks)
{
    indices_t taken = {0};
    for (size_t i = 0; i < nreqs; i++) {
        size_t k = 0;
        while (k < reqs[i].nalts &&
               (reqs[i].alts[k].tally.unknown || !take(a, pools, ranges, budget, &reqs[i].alts[k], &taken, &picks[i])))
            k++;
        if (k == reqs[i].nalts)
            return 0;
        const char *name = reqs[i].req->name != NULL ? reqs[i].req->name : "";
        picks[i].request = reqs[i].req->nalternatives != 0 ? gpa_arena_printf(a, "%s/%s", name, reqs[i].alts[k].e->name) : name;
    }
    return 1;
}

void gpa_dra_place(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_devices_t *devices,
                   int now, gpa_alloc_budget_t *budget, gpa_dra_placement_t *out)
{
    memset(out, 0, sizeof(*out));
    out->fit = gpa_dra_ever_fits(a, pools, known, devices, budget, &out->reason);
    if (now && out->fit == GPA_DRA_FITS && gpa_dra_fits_now(a, pools, known, devices, budget, &out->reason) == GPA_DRA_NEVER)
        out->fit = GPA_DRA_NEVER, out->no_room_now = 1;
    request_t *reqs = out->fit == GPA_DRA_FITS ? requests_of(a, known, devices, now && pools->use != NULL) : NULL;
    if (reqs == NULL)
        return;
    gpa_dra_pick_t *picks = gpa_arena_calloc(a, devices->nrequests, sizeof(*picks));
    for (size_t r = 0; r <= pools->nruns; r++) {
        size_t ranges[2][2] = {{0, pools->nanywhere},
                               {r < pools->nruns ? pools->runs[r].first : 0, r < pools->nruns ? pools->runs[r].n : 0}};
        if (pick_on(a, pools, ranges, budget, reqs, devices->nrequests, picks)) {
            out->node = r < pools->nruns ? pools->runs[r].node : NULL;
            out->picks = picks;
            out->npicks = devices->nrequests;
            return;
        }
    }
    out->reason = "every request can be met, but gpuadmit names no node where each has devices of its own (a request it "
                  "cannot judge, or requests that compete: docs/allocator.md#dra)";
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
