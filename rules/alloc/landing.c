/*
 * Where a Pod can land and the card memory there (landing.h): every node, then every template, checked as the
 * infeasible rule checks one (nodes.h), then searched empty for the app shares (search.h, first fit).
 */
#include "alloc/landing.h"
#include "alloc/nodes.h"
#include "alloc/search.h"

#include <string.h>

/* The memory of the serving devices seen so far: one value, or mixed (or unknown somewhere). */
typedef struct st_card_memory_t {
    int64_t bytes;
    int seen, mixed;
} card_memory_t;

static void see_memory(card_memory_t *m, int64_t bytes)
{
    if (bytes <= 0 || (m->seen && m->bytes != bytes))
        m->mixed = 1;
    if (!m->seen)
        m->bytes = bytes;
    m->seen = 1;
}

static size_t most_gpus(const gpa_node_t *nodes, size_t n, size_t at_least)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i].ngpus > at_least)
            at_least = nodes[i].ngpus;
    return at_least;
}

/* The memory of each device of `node` (empty) that could hold one share of some app group. */
static void serving_memory(gpa_search_t *s, const gpa_request_t *req, const gpa_node_t *node, card_memory_t *m)
{
    gpa_search_start(s, node);
    for (size_t d = 0; d < s->ndev; d++)
        for (size_t k = 0; k < req->napp_groups; k++) {
            int64_t core, bytes;
            if (gpa_search_fits(s, &s->dev[d], &req->groups[k], &core, &bytes)) {
                see_memory(m, node->gpus[d].memory);
                break;
            }
        }
}

/* One call's state: the search, the Pod's label tests, and per shape of the inventory's nodes whether it lands. */
typedef struct st_landing_ctx_t {
    const gpa_inventory_t *inv;
    const gpa_request_t *req;
    gpa_search_t s;
    gpa_nodes_pod_t pp;
    unsigned char *shape_lands; /* per shape (gpa_inventory_shapes, empty): 0 not looked at yet, 1 lands, 2 does not */
    card_memory_t m;
} landing_ctx_t;

/* Whether the Pod's devices fit `node`, taken empty, once its labels passed: as lands() answers. */
static int devices_land(landing_ctx_t *c, const gpa_node_t *node)
{
    gpa_nodes_refusal_t why;
    if (gpa_nodes_check(&c->pp, c->req, node, &why) != 0)
        return 0;
    c->s.found = 0; /* each node on its own: a placement found on an earlier node must not bound this one's search */
    gpa_search_node(&c->s, node);
    if (c->s.bounded)
        return -1;
    if (!c->s.node_found)
        return 0;
    serving_memory(&c->s, c->req, node, &c->m);
    return 1;
}

/*
 * 1 when the Pod lands on `node` taken empty (its serving devices' memory then joins c->m); 0 when not; -1 when the
 * budget ran out before an answer. Labels are tested on every node; the rest once per shape: nodes of one shape have
 * the same dialects and devices, so once their labels pass they land alike, and their cards are the same (inventory.h).
 */
static int lands(landing_ctx_t *c, const gpa_node_t *node)
{
    gpa_nodes_refusal_t why;
    if (gpa_alloc_budget_take(c->s.budget, c->pp.cost) != 0)
        return -1;
    if (!gpa_nodes_labels(&c->pp, node, &why))
        return 0;
    unsigned char *known = node->is_template ? NULL : &c->shape_lands[gpa_inventory_shape_of(c->inv, node, 0)];
    if (known != NULL && *known != 0)
        return *known == 1;
    int rc = devices_land(c, node);
    if (known != NULL && rc >= 0)
        *known = rc > 0 ? 1 : 2;
    return rc;
}

void gpa_alloc_landing(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                       const gpa_request_t *req, gpa_alloc_budget_t *budget, gpa_landing_t *out)
{
    memset(out, 0, sizeof(*out));
    if (req->napp_groups == 0)
        return;
    size_t nnodes, ntemplates, nshapes;
    const gpa_node_t *lists[2] = {gpa_inventory_nodes(inv, &nnodes), gpa_inventory_templates(inv, &ntemplates)};
    size_t sizes[2] = {nnodes, ntemplates};
    gpa_inventory_shapes(inv, 0, &nshapes);
    gpa_alloc_budget_t own = gpa_alloc_budget(0);
    gpa_alloc_opts_t opts = {.first_fit = 1, .budget = budget != NULL ? budget : &own};
    landing_ctx_t c = {.inv = inv, .req = req, .shape_lands = gpa_arena_calloc(a, nshapes + 1, 1)};
    gpa_search_init(&c.s, a, pol, req, 0, req->napp_groups, &opts, most_gpus(lists[1], ntemplates, most_gpus(lists[0], nnodes, 0)));
    gpa_nodes_prepare(a, pod, &c.pp);
    out->nodes = gpa_arena_calloc(a, nnodes + ntemplates + 1, sizeof(*out->nodes));
    for (size_t l = 0; l < 2 && !out->bounded; l++)
        for (size_t i = 0; i < sizes[l]; i++) {
            int rc = lands(&c, &lists[l][i]);
            if (rc < 0) {
                out->bounded = 1;
                break;
            }
            if (rc > 0)
                out->nodes[out->nnodes++] = &lists[l][i];
        }
    out->card_memory = !out->bounded && out->nnodes > 0 && !c.m.mixed ? c.m.bytes : 0;
}
