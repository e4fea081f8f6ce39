/*
 * Could a DRA claim ever be allocated (dra_fit.h).
 */
#include "alloc/dra_fit.h"

#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "inventory/dra_device.h"

/* ---- capacity ---------------------------------------------------------------------------------------------------- */

/* An amount as its capacity would be written: the shorter exact form, binary or decimal ("80Gi", "10G"). */
static const char *bytes_text(gpa_arena_t *a, int64_t v)
{
    char bin[32], dec[32];
    gpa_quantity_format(v, 1, bin);
    gpa_quantity_format(v, 0, dec);
    return gpa_arena_strdup(a, strlen(dec) < strlen(bin) ? dec : bin);
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

/* Why what allocated devices consume of p's counter sets leaves too little for p (a device not yet held). */
static const char *counters_taken(gpa_arena_t *a, const gpa_dra_placed_t *p)
{
    for (size_t i = 0; p->pool->used != NULL && i < p->device->nconsumes; i++) {
        const gpa_dra_counter_set_t *use = &p->device->consumes[i];
        for (size_t k = 0; k < use->ncounters; k++) {
            int64_t left = gpa_dra_pool_counter_left(p->pool, use->name, use->counters[k].name, 1);
            if (left != INT64_MIN && use->counters[k].value.status == GPA_Q_OK && use->counters[k].value.value > left)
                return gpa_arena_printf(a,
                                        "device %s/%s consumes %s of %s from counter set %s, which allocated devices leave at %s",
                                        p->pool->name, p->device->name, bytes_text(a, use->counters[k].value.value),
                                        use->counters[k].name, use->name, bytes_text(a, left));
        }
    }
    return NULL;
}

/* The amount of capacity c of device p that e asks, or NULL. */
static const gpa_quantity_t *asked_of(const gpa_dra_placed_t *p, const gpa_dra_exact_t *e, const gpa_dra_device_capacity_t *c)
{
    for (size_t i = 0; i < e->ncapacity; i++)
        if (gpa_dra_device_capacity_named(p->device, p->pool->driver, e->capacity[i].name) == c)
            return &e->capacity[i].amount;
    return NULL;
}

/* What e consumes of capacity c of shared device p (its request rounded, its policy's default, or the whole: KEP-5075
 * lists every capacity); INT64_MAX when that cannot be read or served. */
static int64_t consumes(gpa_arena_t *a, const gpa_dra_placed_t *p, const gpa_dra_exact_t *e, const gpa_dra_device_capacity_t *c)
{
    const gpa_quantity_t *asked = asked_of(p, e, c);
    int64_t consumed;
    const char *why;
    return gpa_dra_consumed(a, c, 1, asked, &consumed, &why) == 0 ? consumed : INT64_MAX;
}

/* What allocated claims consumed of capacity c of device p (pools->use; 0 when none holds it). */
static int64_t used_of(const gpa_dra_pools_t *pools, const gpa_dra_placed_t *p, const gpa_dra_device_capacity_t *c)
{
    const gpa_dra_use_t *u = pools->use != NULL ? &pools->use[p - pools->devices] : NULL;
    for (size_t k = 0; u != NULL && k < u->nconsumed; k++)
        if (gpa_dra_device_capacity_named(p->device, p->pool->driver, u->consumed[k].name) == c)
            return u->consumed[k].value.value;
    return 0;
}

/* Why allocated claims leave no room on device p for e (pools->use), NULL when they leave some. */
static const char *taken(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_placed_t *p, const gpa_dra_exact_t *e)
{
    const gpa_dra_use_t *u = pools->use != NULL ? &pools->use[p - pools->devices] : NULL;
    const gpa_dra_device_t *d = p->device;
    if (u == NULL || u->allocations == 0)
        return counters_taken(a, p); /* its counters are not yet consumed: others may have taken them */
    if (!d->allow_multiple)
        return gpa_arena_printf(a, "device %s/%s is allocated to claim %s", p->pool->name, d->name, u->by);
    for (size_t i = 0; i < d->ncapacity; i++) {
        const gpa_dra_device_capacity_t *c = d->capacity[i];
        int64_t consumed = consumes(a, p, e, c), used = used_of(pools, p, c);
        if (c->value.status == GPA_Q_OK && consumed != INT64_MAX && used > c->value.value - consumed)
            return gpa_arena_printf(a, "capacity %s of device %s/%s: %s %s, %s left by %u allocated claim(s)", c->id, p->pool->name,
                                    d->name, bytes_text(a, consumed),
                                    asked_of(p, e, c) != NULL ? "asked" : "consumed (the request names none)",
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
    return gpa_dra_selectors_parse(a, texts, NULL, n, NULL, NULL);
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
    /* the search's: the devices it could take on the node searched, and of those offered to any node (judged once) */
    size_t *cand, ncand, cand_cap, *anywhere_cand, nanywhere_cand;
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

/* The devices of node `run` as two [first, n) ranges: those offered to any node, and the node's own (run == nruns: a
 * node with only the former). */
static void run_ranges(const gpa_dra_pools_t *pools, size_t run, size_t ranges[2][2])
{
    ranges[0][0] = 0, ranges[0][1] = pools->nanywhere;
    ranges[1][0] = run < pools->nruns ? pools->runs[run].first : 0;
    ranges[1][1] = run < pools->nruns ? pools->runs[run].n : 0;
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
    alternative_t *alts; /* shared with an earlier request that asks the same (copy_of_earlier) */
    size_t nalts;
    int copy_of_earlier; /* it asks what an earlier request asks: met where that one is, never looked at twice */
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

/* Each alternative's count of the devices offered to any node (an alternative shared with an earlier request is
 * counted once). */
static void look_at_anywhere(gpa_arena_t *a, const gpa_dra_pools_t *pools, gpa_alloc_budget_t *budget, request_t *reqs,
                             size_t nreqs)
{
    for (size_t i = 0; i < nreqs; i++)
        for (size_t k = 0; !reqs[i].copy_of_earlier && k < reqs[i].nalts; k++)
            reqs[i].alts[k].anywhere = look_at(a, pools, 0, pools->nanywhere, budget, &reqs[i].alts[k]);
}

/* ---- constraints ------------------------------------------------------------------------------------------------ */

/* Devices on one node past which a constraint is not judged (it then holds): the comparisons (cubic in them) stay
 * bounded. NVIDIA's DynamicMIG node publishes about a hundred. */
#define CONSTRAINT_MAX_DEVICES 256

static int same_value(const gpa_dra_attribute_t *x, const gpa_dra_attribute_t *y)
{
    if (x->type != y->type || x->type == GPA_DRA_ATTR_OTHER)
        return 0;
    if (x->type == GPA_DRA_ATTR_INT)
        return x->i == y->i;
    if (x->type == GPA_DRA_ATTR_BOOL)
        return x->b == y->b;
    if (x->type == GPA_DRA_ATTR_VERSION) /* semver equality: build metadata aside */
        return strcspn(x->s, "+") == strcspn(y->s, "+") && strncmp(x->s, y->s, strcspn(x->s, "+")) == 0;
    return strcmp(x->s, y->s) == 0;
}

/* The attribute a constraint names, fully qualified; NULL for one that is not (the API server refuses it). */
static const char *constraint_attribute(const gpa_dra_constraint_t *c)
{
    const char *attr = c->match_attribute != NULL ? c->match_attribute : c->distinct_attribute;
    return attr != NULL && strchr(attr, '/') != NULL ? attr : NULL;
}

/* "matchAttribute gpu.nvidia.com/parentUUID": a constraint as a reason names it. */
static const char *constraint_text(gpa_arena_t *a, const gpa_dra_constraint_t *c)
{
    return c->match_attribute != NULL ? gpa_arena_printf(a, "matchAttribute %s", c->match_attribute)
                                      : gpa_arena_printf(a, "distinctAttribute %s", c->distinct_attribute);
}

static int in_constraint(const gpa_dra_constraint_t *c, const char *name)
{
    if (c->nrequests == 0)
        return 1;
    for (size_t i = 0; i < c->nrequests; i++)
        if (name != NULL && strcmp(c->requests[i], name) == 0)
            return 1;
    return 0;
}

/* One request's side of a constraint on one node: the attribute of each device it could take there. */
typedef struct st_side_t {
    const gpa_dra_attribute_t **values;
    const gpa_dra_placed_t **devices; /* values[i] is devices[i]'s */
    size_t n, need;
} side_t;

/* The devices of `ranges` request r could take (any of its alternatives), by their attribute `attr`; -1 when the
 * constraint cannot be judged for r (an alternative gpuadmit cannot judge, All, too many devices). */
static int side_of(gpa_arena_t *a, const gpa_dra_pools_t *pools, const size_t ranges[2][2], gpa_alloc_budget_t *budget,
                   request_t *r, const char *attr, side_t *s)
{
    size_t total = ranges[0][1] + ranges[1][1];
    if (total > CONSTRAINT_MAX_DEVICES)
        return -1;
    s->values = gpa_arena_alloc(a, (total + 1) * sizeof(*s->values));
    s->devices = gpa_arena_alloc(a, (total + 1) * sizeof(*s->devices));
    s->n = 0;
    s->need = SIZE_MAX;
    for (size_t k = 0; k < r->nalts; k++) {
        alternative_t *alt = &r->alts[k];
        if (alt->tally.unknown || alt->e->mode == GPA_DRA_ALL)
            return -1;
        s->need = needed(alt->e) < s->need ? needed(alt->e) : s->need;
    }
    for (int g = 0; g < 2; g++)
        for (size_t d = ranges[g][0]; d < ranges[g][0] + ranges[g][1]; d++) {
            const gpa_dra_placed_t *p = &pools->devices[d];
            const gpa_dra_attribute_t *at = gpa_dra_device_attribute_named(p->device, p->pool->driver, attr);
            size_t k = 0;
            const char *why;
            judgement_t j = J_NO_MATCH;
            while (k < r->nalts && (j = judge(a, pools, p, budget, &r->alts[k], &why)) != J_ELIGIBLE && j != J_UNKNOWN)
                k++;
            if (j == J_UNKNOWN)
                return -1; /* the budget, or a device gpuadmit cannot judge: the constraint is not judged */
            if (k < r->nalts && at != NULL && at->type == GPA_DRA_ATTR_OTHER)
                return -1;                  /* a list attribute: not compared */
            if (k < r->nalts && at != NULL) /* a device without the attribute never meets the constraint */
                s->devices[s->n] = p, s->values[s->n++] = at;
        }
    return 0;
}

static size_t count_same(const side_t *s, const gpa_dra_attribute_t *v)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += same_value(s->values[i], v);
    return n;
}

static size_t count_distinct(const gpa_dra_attribute_t *const *v, size_t n)
{
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && !same_value(v[j], v[i]))
            j++;
        distinct += j == i;
    }
    return distinct;
}

/* Devices of value v any side could take, each once; SIZE_MAX when one allows several allocations (it may serve all). */
static size_t devices_with(const side_t *sides, size_t n, const gpa_dra_attribute_t *v)
{
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < sides[k].n; i++) {
            if (!same_value(sides[k].values[i], v))
                continue;
            if (sides[k].devices[i]->device->allow_multiple)
                return SIZE_MAX;
            int seen = 0;
            for (size_t j = 0; j <= k && !seen; j++)
                for (size_t m = 0; m < (j < k ? sides[j].n : i) && !seen; m++)
                    seen = sides[j].devices[m] == sides[k].devices[i];
            count += !seen;
        }
    return count;
}

/* matchAttribute: some value every side has on as many devices as it needs, with devices enough for them all. */
static int match_holds(const side_t *sides, size_t n)
{
    size_t need = 0;
    for (size_t k = 0; k < n; k++)
        need += sides[k].need;
    for (size_t i = 0; n > 0 && i < sides[0].n; i++) {
        size_t k = 0;
        while (k < n && count_same(&sides[k], sides[0].values[i]) >= sides[k].need)
            k++;
        if (k == n && devices_with(sides, n, sides[0].values[i]) >= need)
            return 1;
    }
    return n == 0;
}

/* distinctAttribute: as many distinct values as each side needs, and as all of them need together (necessary, not
 * sufficient: a denial on it is sound). */
static int distinct_holds(gpa_arena_t *a, const side_t *sides, size_t n)
{
    size_t total = 0, need = 0;
    for (size_t i = 0; i < n; i++) {
        if (count_distinct(sides[i].values, sides[i].n) < sides[i].need)
            return 0;
        total += sides[i].n;
        need += sides[i].need;
    }
    const gpa_dra_attribute_t **all = gpa_arena_alloc(a, (total + 1) * sizeof(*all));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sides[i].n; k++)
            all[m++] = sides[i].values[k];
    return count_distinct(all, m) >= need;
}

/*
 * Whether the claim's constraints may hold on the devices of `ranges`: 0 only when one provably cannot (no value its
 * requests share enough devices of, too few distinct values); a constraint gpuadmit cannot judge holds. *which: the
 * first that cannot.
 */
static int constraints_hold(gpa_arena_t *a, const gpa_dra_pools_t *pools, const size_t ranges[2][2], gpa_alloc_budget_t *budget,
                            request_t *reqs, size_t nreqs, const gpa_dra_devices_t *devices, const gpa_dra_constraint_t **which)
{
    for (size_t c = 0; c < devices->nconstraints; c++) {
        const gpa_dra_constraint_t *con = &devices->constraints[c];
        const char *attr = constraint_attribute(con);
        if (attr == NULL)
            continue;
        side_t *sides = gpa_arena_calloc(a, nreqs + 1, sizeof(*sides));
        size_t n = 0;
        int judged = 1;
        for (size_t i = 0; i < nreqs && judged; i++)
            if (in_constraint(con, reqs[i].req->name))
                judged = side_of(a, pools, ranges, budget, &reqs[i], attr, &sides[n++]) == 0;
        if (judged && !(con->match_attribute != NULL ? match_holds(sides, n) : distinct_holds(a, sides, n))) {
            *which = con;
            return 0;
        }
    }
    return 1;
}

/* The claim's constraints on node `run` (nruns: only the devices offered to any node). */
static int constraints_hold_on(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t run, gpa_alloc_budget_t *budget,
                               request_t *reqs, size_t nreqs, const gpa_dra_devices_t *devices, const gpa_dra_constraint_t **which)
{
    size_t ranges[2][2];
    run_ranges(pools, run, ranges);
    return devices->nconstraints == 0 || constraints_hold(a, pools, ranges, budget, reqs, nreqs, devices, which);
}

/* ---- the search: every request its own devices on one node ------------------------------------------------------ */

/*
 * Kubernetes' allocator on one node (dra.md §5.2): requests in order, each alternative in order, `count` devices of
 * those the alternative admits, backtracking when a later request, a constraint, a shared device's capacity or a
 * counter set leaves no choice. Only what is judged exactly is modelled (a device's judgement is the alternative's, an
 * unknown outcome admits), so a search that ends with no choice on a node proves the scheduler finds none there.
 */
typedef enum en_search_result_t {
    S_FOUND, /* every request has devices of its own: s->chosen */
    S_NONE,  /* provably none */
    S_UNSURE /* the budget ran out, or an alternative gpuadmit cannot judge: nothing is proved */
} search_result_t;

typedef struct st_chosen_t {
    const request_t *r;
    const alternative_t *alt; /* r's alternative the device serves */
    size_t d;                 /* index in pools->devices */
} chosen_t;

typedef struct st_search_t {
    gpa_arena_t *a;
    const gpa_dra_pools_t *pools;
    const gpa_dra_devices_t *devices;
    request_t *reqs;
    size_t nreqs;
    gpa_alloc_budget_t *budget;
    int now, unsure;
    size_t ranges[2][2];
    chosen_t *chosen; /* the scheduler allocates at most GPA_DRA_MAX_RESULTS devices to a claim (max_chosen) */
    size_t nchosen, max_chosen;
    chosen_t one_claim_[GPA_DRA_MAX_RESULTS];
} search_t;

/* The devices of the node's ranges the alternative admits and could serve, into alt->cand; those offered to any node
 * judged once for every node. */
static void candidates(search_t *s, alternative_t *alt)
{
    size_t n = s->ranges[1][1];
    if (alt->anywhere_cand == NULL) {
        alt->anywhere_cand = gpa_arena_alloc(s->a, (s->pools->nanywhere + 1) * sizeof(size_t));
        for (size_t d = 0; d < s->pools->nanywhere; d++) {
            const char *why;
            if (judge(s->a, s->pools, &s->pools->devices[d], s->budget, alt, &why) == J_ELIGIBLE)
                alt->anywhere_cand[alt->nanywhere_cand++] = d;
        }
    }
    if (alt->cand_cap < alt->nanywhere_cand + n + 1) { /* one buffer for every node searched, grown to the largest */
        alt->cand_cap = 2 * (alt->nanywhere_cand + n + 1);
        alt->cand = gpa_arena_alloc(s->a, alt->cand_cap * sizeof(*alt->cand));
    }
    memcpy(alt->cand, alt->anywhere_cand, alt->nanywhere_cand * sizeof(*alt->cand));
    alt->ncand = alt->nanywhere_cand;
    for (size_t d = s->ranges[1][0]; d < s->ranges[1][0] + n; d++) {
        const char *why;
        judgement_t j = judge(s->a, s->pools, &s->pools->devices[d], s->budget, alt, &why);
        alt->tally.unknown |= j == J_UNKNOWN;
        if (j == J_ELIGIBLE)
            alt->cand[alt->ncand++] = d;
    }
}

/* Whether a shared device d has room for e beside what the claim already put on it. */
static int capacity_room(search_t *s, size_t d, const gpa_dra_exact_t *e)
{
    const gpa_dra_placed_t *p = &s->pools->devices[d];
    for (size_t j = 0; j < p->device->ncapacity; j++) {
        const gpa_dra_device_capacity_t *c = p->device->capacity[j];
        if (c->value.status != GPA_Q_OK)
            continue;
        int64_t sum = s->now ? used_of(s->pools, p, c) : 0, more = consumes(s->a, p, e, c);
        for (size_t k = 0; more != INT64_MAX && k < s->nchosen; k++) {
            int64_t had = s->chosen[k].d == d ? consumes(s->a, p, s->chosen[k].alt->e, c) : 0;
            more = had == INT64_MAX || __builtin_add_overflow(more, had, &more) ? INT64_MAX : more;
        }
        if (more == INT64_MAX) { /* an amount or a policy gpuadmit cannot read: the scheduler may find room */
            s->unsure = 1;
            continue;
        }
        if (__builtin_add_overflow(sum, more, &sum) || sum > c->value.value)
            return 0;
    }
    return 1;
}

/* Whether allocated claims hold device d (with `now`): a shared device's counters are then consumed already. */
static int held(const search_t *s, size_t d)
{
    return s->now && s->pools->use != NULL && s->pools->use[d].allocations != 0;
}

/* What device q consumes of counter `counter` of its pool's set `set` (0: none, or an amount that cannot be read). */
static int64_t device_consumes(const gpa_dra_device_t *q, const char *set, const char *counter)
{
    for (size_t m = 0; m < q->nconsumes; m++)
        for (size_t n = 0; strcmp(q->consumes[m].name, set) == 0 && n < q->consumes[m].ncounters; n++)
            if (strcmp(q->consumes[m].counters[n].name, counter) == 0 && q->consumes[m].counters[n].value.status == GPA_Q_OK)
                return q->consumes[m].counters[n].value.value;
    return 0;
}

/* Whether d's counters fit beside the devices chosen (each consumes once, however many requests it serves). */
static int counters_room(search_t *s, size_t d)
{
    const gpa_dra_placed_t *p = &s->pools->devices[d];
    if (held(s, d))
        return 1; /* a shared device already allocated: its counters are consumed */
    for (size_t k = 0; k < s->nchosen; k++)
        if (s->chosen[k].d == d)
            return 1;
    for (size_t i = 0; i < p->device->nconsumes; i++) {
        const gpa_dra_counter_set_t *use = &p->device->consumes[i];
        for (size_t c = 0; c < use->ncounters; c++) {
            int64_t left = gpa_dra_pool_counter_left(p->pool, use->name, use->counters[c].name, s->now),
                    sum = use->counters[c].value.value;
            if (left == INT64_MIN || use->counters[c].value.status != GPA_Q_OK)
                continue; /* judged by cannot_serve already, or not to be judged */
            for (size_t k = 0; k < s->nchosen; k++) {
                const gpa_dra_placed_t *q = &s->pools->devices[s->chosen[k].d];
                /* a device chosen for two requests consumes once; one allocated already is in `left` */
                int first = !held(s, s->chosen[k].d) && q->pool == p->pool;
                for (size_t j = 0; j < k; j++)
                    first &= s->chosen[j].d != s->chosen[k].d;
                if (first && __builtin_add_overflow(sum, device_consumes(q->device, use->name, use->counters[c].name), &sum))
                    return 0;
            }
            if (sum > left)
                return 0;
        }
    }
    return 1;
}

/* Whether d, for request r, keeps each constraint naming r with what is chosen; a value gpuadmit does not compare
 * exactly (a list) holds. */
static int constraints_room(search_t *s, const request_t *r, size_t d)
{
    const gpa_dra_placed_t *p = &s->pools->devices[d];
    for (size_t c = 0; c < s->devices->nconstraints; c++) {
        const gpa_dra_constraint_t *con = &s->devices->constraints[c];
        const char *attr = constraint_attribute(con);
        if (attr == NULL || !in_constraint(con, r->req->name))
            continue;
        const gpa_dra_attribute_t *at = gpa_dra_device_attribute_named(p->device, p->pool->driver, attr);
        if (at == NULL)
            return 0;
        for (size_t k = 0; at->type != GPA_DRA_ATTR_OTHER && k < s->nchosen; k++) {
            const gpa_dra_placed_t *q = &s->pools->devices[s->chosen[k].d];
            const gpa_dra_attribute_t *was = gpa_dra_device_attribute_named(q->device, q->pool->driver, attr);
            if (in_constraint(con, s->chosen[k].r->req->name) && was->type != GPA_DRA_ATTR_OTHER &&
                same_value(was, at) != (con->match_attribute != NULL))
                return 0;
        }
    }
    return 1;
}
/* Whether d may serve r's alternative beside what is chosen: a whole device once, a shared one while its capacity
 * lasts, counters and constraints kept. */
static int may_take(search_t *s, const request_t *r, const alternative_t *alt, size_t d)
{
    if (s->nchosen == s->max_chosen)
        return 0;
    for (size_t k = 0; !s->pools->devices[d].device->allow_multiple && k < s->nchosen; k++)
        if (s->chosen[k].d == d)
            return 0;
    return (!s->pools->devices[d].device->allow_multiple || capacity_room(s, d, alt->e)) && counters_room(s, d) &&
           constraints_room(s, r, d);
}

static search_result_t serve(search_t *s, size_t i);

/* Request i's alternative alt with `left` more devices, chosen among alt->cand from `from` on (each once). */
static search_result_t choose(search_t *s, size_t i, const alternative_t *alt, size_t from, size_t left)
{
    if (left == 0)
        return serve(s, i + 1);
    for (size_t c = from; c + left <= alt->ncand; c++) {
        if (gpa_alloc_budget_take(s->budget, 1) != 0) {
            s->unsure = 1;
            return S_UNSURE;
        }
        if (!may_take(s, &s->reqs[i], alt, alt->cand[c]))
            continue;
        s->chosen[s->nchosen++] = (chosen_t){&s->reqs[i], alt, alt->cand[c]};
        search_result_t got = choose(s, i, alt, c + 1, left - 1);
        if (got != S_NONE)
            return got;
        s->nchosen--;
    }
    return S_NONE;
}

/* Requests i.. served, each alternative in order. */
static search_result_t serve(search_t *s, size_t i)
{
    if (i == s->nreqs)
        return S_FOUND;
    request_t *r = &s->reqs[i];
    for (size_t k = 0; k < r->nalts; k++) {
        alternative_t *alt = &r->alts[k];
        if (alt->tally.unknown) {
            s->unsure = 1; /* the scheduler may serve it: nothing after it is proved either */
            continue;
        }
        size_t need = alt->e->mode == GPA_DRA_ALL ? alt->ncand : needed(alt->e);
        if (alt->e->mode == GPA_DRA_ALL && need == 0)
            continue;
        /* All takes every device admitted, those that may match too: a choice that fails is not proved to */
        s->unsure |= alt->e->mode == GPA_DRA_ALL;
        search_result_t got = choose(s, i, alt, 0, need);
        if (got != S_NONE)
            return got;
    }
    return S_NONE;
}

/* The search on node `run` (nruns: only the devices offered to any node). */
static search_result_t search_on(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t run, gpa_alloc_budget_t *budget,
                                 request_t *reqs, size_t nreqs, const gpa_dra_devices_t *devices, search_t *s)
{
    *s = (search_t){.a = a, .pools = pools, .devices = devices, .reqs = reqs, .nreqs = nreqs, .budget = budget};
    s->max_chosen = devices->max_results > GPA_DRA_MAX_RESULTS ? devices->max_results : GPA_DRA_MAX_RESULTS;
    s->chosen = s->max_chosen > GPA_DRA_MAX_RESULTS ? gpa_arena_alloc(a, s->max_chosen * sizeof(*s->chosen)) : s->one_claim_;
    s->now = nreqs > 0 && reqs[0].alts[0].now && pools->use != NULL;
    run_ranges(pools, run, s->ranges);
    for (size_t i = 0; i < nreqs; i++)
        for (size_t k = 0; !reqs[i].copy_of_earlier && k < reqs[i].nalts; k++)
            if (!reqs[i].alts[k].tally.unknown)
                candidates(s, &reqs[i].alts[k]);
    if (budget->spent)
        return S_UNSURE;
    search_result_t got = serve(s, 0);
    return got == S_NONE && s->unsure ? S_UNSURE : got;
}

/* Whether the claim may be allocated on node `run` once its requests are each met there: the constraints' necessary
 * condition, then the search (cut short: it may). */
static int searched_fits(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t run, gpa_alloc_budget_t *budget, request_t *reqs,
                         size_t nreqs, const gpa_dra_devices_t *devices, const gpa_dra_constraint_t **broken, size_t *none)
{
    search_t s;
    if (!constraints_hold_on(a, pools, run, budget, reqs, nreqs, devices, broken))
        return 0;
    if (search_on(a, pools, run, budget, reqs, nreqs, devices, &s) != S_NONE)
        return 1;
    ++*none;
    return 0;
}

/*
 * The probe: node by node, each request in turn until one is not met there, stopping at the first node that meets
 * them all and where the search finds them devices. A claim that fits costs the devices of the nodes looked at before
 * that one, not the inventory.
 */
static int probe(gpa_arena_t *a, const gpa_dra_pools_t *pools, gpa_alloc_budget_t *budget, request_t *reqs, size_t nreqs,
                 const gpa_dra_devices_t *devices)
{
    const gpa_dra_constraint_t *which;
    size_t none = 0;
    look_at_anywhere(a, pools, budget, reqs, nreqs);
    for (size_t r = 0; r <= pools->nruns; r++) {
        size_t ranges[2][2], i = 0;
        run_ranges(pools, r, ranges);
        while (i < nreqs && (reqs[i].copy_of_earlier || probe_met(a, pools, ranges[1][0], ranges[1][1], budget, &reqs[i])))
            i++;
        if (i == nreqs && searched_fits(a, pools, r, budget, reqs, nreqs, devices, &which, &none))
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

static int same_string(const char *x, const char *y)
{
    return x == y || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

/* Whether two alternatives ask the same devices: class, selectors, count, capacity, tolerations (names aside). */
static int same_exact(const gpa_dra_exact_t *x, const gpa_dra_exact_t *y)
{
    if (!same_string(x->class, y->class) || x->nselectors != y->nselectors || x->mode != y->mode || x->count != y->count ||
        x->ncapacity != y->ncapacity || x->ntolerations != y->ntolerations || x->admin_access != y->admin_access)
        return 0;
    for (size_t i = 0; i < x->nselectors; i++)
        if (!same_string(x->selectors[i], y->selectors[i]))
            return 0;
    for (size_t i = 0; i < x->ncapacity; i++)
        if (!same_string(x->capacity[i].name, y->capacity[i].name) ||
            x->capacity[i].amount.status != y->capacity[i].amount.status ||
            x->capacity[i].amount.value != y->capacity[i].amount.value)
            return 0;
    for (size_t i = 0; i < x->ntolerations; i++) {
        const gpa_dra_toleration_t *s = &x->tolerations[i], *t = &y->tolerations[i];
        if (!same_string(s->key, t->key) || !same_string(s->op, t->op) || !same_string(s->value, t->value) ||
            !same_string(s->effect, t->effect))
            return 0;
    }
    return 1;
}

/* An earlier request that asks what r asks (every alternative the same, in order), or NULL: 32 requests of one
 * selector cost one. */
static request_t *asked_before(request_t *reqs, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        size_t k = 0;
        while (k < reqs[i].nalts && reqs[j].nalts == reqs[i].nalts &&
               same_exact(gpa_dra_request_exact(reqs[i].req, k), gpa_dra_request_exact(reqs[j].req, k)))
            k++;
        if (reqs[j].nalts == reqs[i].nalts && k == reqs[i].nalts)
            return &reqs[j];
    }
    return NULL;
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
        request_t *same = asked_before(reqs, i);
        if (same != NULL) {
            r->alts = same->alts;
            r->copy_of_earlier = 1;
            continue;
        }
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
    if (probe(a, pools, budget, reqs, nreqs, devices))
        return GPA_DRA_FITS;
    /* No node found: the survey looks at every device for every alternative (what the probe learnt is set aside, but
     * not what it could not judge), so that the tallies say why. */
    for (size_t i = 0; i < nreqs; i++)
        for (size_t k = 0; !reqs[i].copy_of_earlier && k < reqs[i].nalts; k++) {
            alternative_t *alt = &reqs[i].alts[k];
            *alt = (alternative_t){.e = alt->e,
                                   .cls = alt->cls,
                                   .csel = alt->csel,
                                   .rsel = alt->rsel,
                                   .tally.unknown = alt->tally.unknown,
                                   .now = alt->now};
            survey(a, pools, budget, alt);
        }
    const gpa_dra_constraint_t *broken = NULL;
    size_t met_nodes = 0, none = 0;
    for (size_t r = 0; r <= pools->nruns; r++) {
        size_t i = 0;
        while (i < nreqs && surveyed_met(&reqs[i], r))
            i++;
        if (i < nreqs)
            continue;
        met_nodes++;
        if (searched_fits(a, pools, r, budget, reqs, nreqs, devices, &broken, &none))
            return GPA_DRA_FITS; /* an alternative whose class admits nothing is met everywhere */
    }
    if (none != 0) {
        *reason = gpa_arena_printf(a,
                                   "its requests are each met on %zu node(s), on none all together: they compete for the "
                                   "same devices, a shared device's capacity or a counter set%s",
                                   met_nodes, devices->nconstraints != 0 ? ", under the claim's constraints" : "");
        return GPA_DRA_NEVER;
    }
    if (broken != NULL) {
        *reason = gpa_arena_printf(a, "its requests are met on %zu node(s), on none by devices that meet %s (%s)", met_nodes,
                                   constraint_text(a, broken), broken->path);
        return GPA_DRA_NEVER;
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

/* The search's choice as fit names it: one pick per request, in order. */
static gpa_dra_pick_t *picks_of(gpa_arena_t *a, const search_t *s)
{
    gpa_dra_pick_t *picks = gpa_arena_calloc(a, s->nreqs, sizeof(*picks));
    for (size_t i = 0; i < s->nreqs; i++) {
        gpa_dra_pick_t *pick = &picks[i];
        const request_t *r = &s->reqs[i];
        const alternative_t *alt = NULL;
        pick->devices = gpa_arena_alloc(a, (s->nchosen + 1) * sizeof(*pick->devices));
        pick->consumed = gpa_arena_alloc(a, (s->nchosen + 1) * sizeof(*pick->consumed));
        for (size_t k = 0; k < s->nchosen; k++)
            if (s->chosen[k].r == r) {
                const gpa_dra_placed_t *p = &s->pools->devices[s->chosen[k].d];
                alt = s->chosen[k].alt;
                pick->devices[pick->ndevices] = p;
                pick->consumed[pick->ndevices++] = consumption(a, p, alt->e);
            }
        const char *name = r->req->name != NULL ? r->req->name : "";
        pick->request = r->req->nalternatives != 0 && alt != NULL ? gpa_arena_printf(a, "%s/%s", name, alt->e->name) : name;
    }
    return picks;
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
    search_t s;
    for (size_t r = 0; r <= pools->nruns; r++)
        if (search_on(a, pools, r, budget, reqs, devices->nrequests, devices, &s) == S_FOUND) {
            out->node = r < pools->nruns ? pools->runs[r].node : NULL;
            out->picks = picks_of(a, &s);
            out->npicks = devices->nrequests;
            return;
        }
    for (size_t i = 0; i < devices->nrequests; i++) {
        size_t k = 0;
        while (k < reqs[i].nalts && (reqs[i].alts[k].tally.unknown || reqs[i].alts[k].class_admitted == 0))
            k++;
        if (k == reqs[i].nalts) { /* the rule admits it; fit has nothing to name */
            out->fit = GPA_DRA_UNKNOWN;
            out->reason = gpa_arena_printf(a,
                                           "request %s cannot be judged: its class is not known or admits no published device, "
                                           "a selector errs or is not read, or it asks admin access",
                                           reqs[i].req->name != NULL ? reqs[i].req->name : "");
            return;
        }
    }
    out->reason = budget->spent ? "every request can be met, but the search for devices of their own was cut short by its budget"
                                : "every request can be met, but gpuadmit names no node where each has devices of its own";
}

const gpa_dra_devices_t *gpa_dra_devices_merge(gpa_arena_t *a, const char *const *names, const gpa_dra_devices_t *const *claims,
                                               size_t n)
{
    gpa_dra_devices_t *m = gpa_arena_calloc(a, 1, sizeof(*m));
    for (size_t c = 0; c < n; c++)
        m->nrequests += claims[c]->nrequests, m->nconstraints += claims[c]->nconstraints;
    if (n == 0 || m->nrequests == 0)
        return NULL;
    m->path = claims[0]->path;
    m->max_results = n * GPA_DRA_MAX_RESULTS;
    m->requests = gpa_arena_calloc(a, m->nrequests, sizeof(*m->requests));
    m->constraints = gpa_arena_calloc(a, m->nconstraints + 1, sizeof(*m->constraints));
    size_t r = 0, k = 0;
    for (size_t c = 0; c < n; c++) {
        const gpa_dra_devices_t *d = claims[c];
        const char **renamed = gpa_arena_calloc(a, d->nrequests + 1, sizeof(*renamed));
        for (size_t i = 0; i < d->nrequests; i++) {
            m->requests[r] = d->requests[i];
            m->requests[r++].name = renamed[i] =
                gpa_arena_printf(a, "%s/%s", names[c], d->requests[i].name != NULL ? d->requests[i].name : "");
        }
        for (size_t i = 0; i < d->nconstraints; i++) {
            gpa_dra_constraint_t *con = &m->constraints[k++];
            *con = d->constraints[i];
            if (con->nrequests == 0) { /* every request of its claim, not of the Pod's others */
                con->requests = renamed, con->nrequests = d->nrequests;
                continue;
            }
            con->requests = gpa_arena_calloc(a, con->nrequests, sizeof(*con->requests));
            for (size_t q = 0; q < con->nrequests; q++)
                con->requests[q] = gpa_arena_printf(a, "%s/%s", names[c], d->constraints[i].requests[q]);
        }
    }
    return m;
}

int gpa_dra_place_together(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const char *const *names,
                           const gpa_dra_devices_t *const *claims, size_t n, int now, gpa_alloc_budget_t *budget,
                           gpa_dra_placement_t *out)
{
    const gpa_dra_devices_t *all = n >= 2 ? gpa_dra_devices_merge(a, names, claims, n) : NULL;
    if (all == NULL)
        return 0;
    gpa_dra_place(a, pools, known, all, now, budget, out);
    return (out->fit == GPA_DRA_FITS && out->npicks != 0) || out->fit == GPA_DRA_NEVER;
}

/* Why no alternative of r is met on devices[first .. first+n) (and those offered to any node): its first alternative's
 * count there and first exclusion; NULL when one is met. */
static const char *unmet_here(gpa_arena_t *a, const gpa_dra_pools_t *pools, size_t first, size_t n, gpa_alloc_budget_t *budget,
                              request_t *r)
{
    size_t here0 = 0;
    const char *exclude = NULL;
    for (size_t k = 0; k < r->nalts; k++) {
        alternative_t *alt = &r->alts[k];
        alt->tally = (tally_t){.unknown = alt->tally.unknown};
        size_t here = alt->anywhere + look_at(a, pools, first, n, budget, alt);
        if (alt->tally.unknown || here >= needed(alt->e))
            return NULL;
        if (k == 0)
            here0 = here, exclude = alt->tally.exclude;
    }
    const char *name = r->req->name != NULL ? r->req->name : "";
    return gpa_arena_printf(a, "request %s%s: %zu device(s) asked, %zu here%s%s", name,
                            r->nalts > 1 ? " (and its alternatives)" : "", needed(r->alts[0].e), here0,
                            exclude != NULL ? "; for one left out, " : "", exclude != NULL ? exclude : "");
}

size_t gpa_dra_why_not(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_devices_t *devices,
                       int now, gpa_alloc_budget_t *budget, void (*why)(void *ctx, const char *node, const char *reason), void *ctx)
{
    request_t *reqs = pools != NULL && devices->nrequests != 0 ? requests_of(a, known, devices, now && pools->use != NULL) : NULL;
    size_t named = 0;
    if (reqs == NULL)
        return 0;
    look_at_anywhere(a, pools, budget, reqs, devices->nrequests);
    for (size_t r = 0; r < pools->nruns; r++) {
        const char *reason = NULL;
        for (size_t i = 0; i < devices->nrequests; i++) {
            const char *unmet =
                reqs[i].copy_of_earlier ? NULL : unmet_here(a, pools, pools->runs[r].first, pools->runs[r].n, budget, &reqs[i]);
            if (unmet != NULL)
                reason = reason == NULL ? unmet : gpa_arena_printf(a, "%s; %s", reason, unmet);
        }
        const gpa_dra_constraint_t *broken = NULL;
        if (reason == NULL && !constraints_hold_on(a, pools, r, budget, reqs, devices->nrequests, devices, &broken))
            reason = gpa_arena_printf(a, "no devices here meet %s", constraint_text(a, broken));
        if (reason != NULL) {
            why(ctx, pools->runs[r].node, reason);
            named++;
        }
    }
    return named;
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
