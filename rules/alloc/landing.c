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

/* 1 when the Pod lands on `node` taken empty (its serving devices' memory then joins *m); 0 when not; -1 when the
 * budget ran out before an answer. */
static int lands(gpa_search_t *s, const gpa_nodes_pod_t *pp, const gpa_request_t *req, const gpa_node_t *node, card_memory_t *m)
{
    gpa_nodes_refusal_t why;
    if (gpa_alloc_budget_take(s->budget, pp->cost) != 0)
        return -1;
    if (gpa_nodes_check(pp, req, node, &why) != 0)
        return 0;
    s->found = 0; /* each node on its own: a placement found on an earlier node must not bound this one's search */
    gpa_search_node(s, node);
    if (s->bounded)
        return -1;
    if (!s->node_found)
        return 0;
    serving_memory(s, req, node, m);
    return 1;
}

void gpa_alloc_landing(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                       const gpa_request_t *req, gpa_alloc_budget_t *budget, gpa_landing_t *out)
{
    memset(out, 0, sizeof(*out));
    if (req->napp_groups == 0)
        return;
    size_t nnodes, ntemplates;
    const gpa_node_t *lists[2] = {gpa_inventory_nodes(inv, &nnodes), gpa_inventory_templates(inv, &ntemplates)};
    size_t sizes[2] = {nnodes, ntemplates};
    gpa_alloc_budget_t own = gpa_alloc_budget(0);
    gpa_alloc_opts_t opts = {.first_fit = 1, .budget = budget != NULL ? budget : &own};
    gpa_search_t s;
    gpa_search_init(&s, a, pol, req, 0, req->napp_groups, &opts, most_gpus(lists[1], ntemplates, most_gpus(lists[0], nnodes, 0)));
    gpa_nodes_pod_t pp;
    gpa_nodes_prepare(a, pod, &pp);
    out->nodes = gpa_arena_calloc(a, nnodes + ntemplates + 1, sizeof(*out->nodes));
    card_memory_t m = {0};
    for (size_t l = 0; l < 2 && !out->bounded; l++)
        for (size_t i = 0; i < sizes[l]; i++) {
            int rc = lands(&s, &pp, req, &lists[l][i], &m);
            if (rc < 0) {
                out->bounded = 1;
                break;
            }
            if (rc > 0)
                out->nodes[out->nnodes++] = &lists[l][i];
        }
    out->card_memory = !out->bounded && out->nnodes > 0 && !m.mixed ? m.bytes : 0;
}
