/*
 * The allocator's entry points (alloc.h): each node in name order is checked (nodes.h), its init containers
 * placed alone, its app shares searched (search.h); a node that does not fit gets its reason (explain.h), the
 * chosen one its annotations (annotate.h).
 */
#include "alloc/alloc.h"
#include "alloc/annotate.h"
#include "alloc/explain.h"
#include "inventory/inventory.h"
#include "alloc/nodes.h"
#include "alloc/search.h"
#include "kube/quantity.h"

#include <stdlib.h>
#include <string.h>

/* ---- one node ---- */

typedef GPA_VEC(gpa_share_t) share_vec_t;

/* Share i of the best placement search s found (search order). */
static void share_at(const gpa_search_t *s, size_t i, gpa_share_t *sh)
{
    const gpa_search_pick_t *p = &s->best[i];
    const gpa_gpu_t *gpu = &s->best_node->gpus[p->dev];
    memset(sh, 0, sizeof(*sh));
    sh->group = s->slots[i].group;
    sh->container = s->req->groups[sh->group].container;
    sh->containers = s->req->groups[sh->group].containers;
    sh->minor = gpu->minor;
    sh->core = p->core;
    sh->memory_bytes = p->mem;
    sh->score = p->score;
    sh->fraction = gpu->memory > 0 ? gpa_mul_ceil_div_i64(p->mem, 10000, gpu->memory) : (p->core >= gpu->core ? 10000 : 0);
}

/*
 * Each init container alone, from the node's state (first fit): HAMi v2.10 fits each init container alone and the
 * app containers together, and so does every other scheduler gpuadmit models. *bounded: a search was cut short (no
 * answer). `shares`, when not NULL, gets where each init container's devices went.
 */
static int init_containers_fit(gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req,
                               const gpa_alloc_opts_t *opts, const gpa_node_t *node, size_t *failed, int *bounded,
                               share_vec_t *shares)
{
    gpa_alloc_opts_t o = *opts;
    o.first_fit = 1;
    for (size_t k = req->napp_groups; k < req->ngroups;) {
        size_t end = k + 1;
        while (end < req->ngroups && req->groups[end].container == req->groups[k].container)
            end++;
        gpa_search_t s;
        gpa_search_init(&s, a, pol, req, k, end, &o, node->ngpus);
        gpa_search_node(&s, node);
        if (s.bounded) {
            *bounded = 1;
            return 0;
        }
        if (!s.found) {
            *failed = k;
            return 0;
        }
        for (size_t i = 0; shares != NULL && i < s.nshares; i++)
            share_at(&s, i, gpa_vec_push(a, shares));
        k = end;
    }
    return 1;
}

/* ---- results ---- */

static int request_order(const void *x, const void *y)
{
    const gpa_share_t *a = x, *b = y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

static void fill_shares(gpa_arena_t *a, const gpa_search_t *s, gpa_placement_t *out)
{
    out->nshares = s->nshares;
    out->shares = gpa_arena_calloc(a, s->nshares + 1, sizeof(*out->shares));
    for (size_t i = 0; i < s->nshares; i++)
        share_at(s, i, &out->shares[i]);
    out->score = s->nshares > 0 ? s->best_score / (int64_t)s->nshares : 0;
    if (s->first_fit) /* searched largest first: back to request order (a group's devices are in minor order) */
        qsort(out->shares, out->nshares, sizeof(*out->shares), request_order);
}

static size_t max_gpus(const gpa_node_t *const *nodes, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (nodes[i]->ngpus > m)
            m = nodes[i]->ngpus;
    return m;
}

/* Every node of the inventory, in name order, as a list of pointers (arena-owned). */
/* n nodes as a list of pointers (arena-owned). */
static const gpa_node_t **pointers(gpa_arena_t *a, const gpa_node_t *nodes, size_t n)
{
    const gpa_node_t **all = gpa_arena_calloc(a, n + 1, sizeof(*all));
    for (size_t i = 0; i < n; i++)
        all[i] = &nodes[i];
    return all;
}

static const gpa_node_t **every_node(gpa_arena_t *a, const gpa_inventory_t *inv, size_t *n)
{
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, n);
    return pointers(a, nodes, *n);
}

/* The search stops: the budget ran out outside a device search (label tests, an init container's search). */
static void stop_search(gpa_search_t *s)
{
    if (!s->bounded)
        s->budget->cut++;
    s->bounded = 1;
}

/* Why the node cannot take the Pod (r filled), or 0 when its app shares are to be searched. */
static int refuse_node(gpa_arena_t *a, gpa_search_t *s, const gpa_nodes_pod_t *pp, const gpa_alloc_opts_t *o,
                       const gpa_alloc_policy_t *pol, const gpa_request_t *req, const gpa_node_t *node, gpa_node_reason_t *r)
{
    size_t failed_init = 0;
    int bounded = 0;
    gpa_nodes_refusal_t refusal;
    r->node = node->name;
    r->is_template = node->is_template;
    if (gpa_alloc_budget_take(s->budget, pp->cost) != 0) {
        stop_search(s);
        return 1;
    }
    if (gpa_nodes_check(pp, req, node, &refusal) != 0) {
        gpa_explain_refusal(a, req, node, &refusal, r);
        return 1;
    }
    if (!init_containers_fit(a, pol, req, o, node, &failed_init, &bounded, NULL)) {
        if (bounded)
            stop_search(s);
        else
            gpa_explain_group(a, s, node, failed_init, r);
        return 1;
    }
    return 0;
}

/* gpa_alloc_place over a list of nodes in name order (every node, or one per shape). */
static void place_on(gpa_arena_t *a, const gpa_node_t *const *nodes, size_t nnodes, const gpa_alloc_policy_t *pol,
                     const gpa_nodes_pod_t *pp, const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out)
{
    gpa_search_t s;
    memset(out, 0, sizeof(*out));
    gpa_search_init(&s, a, pol, req, 0, req->napp_groups, opts, max_gpus(nodes, nnodes));
    gpa_alloc_opts_t o = *opts;
    o.budget = s.budget; /* the init containers' searches share it */
    gpa_node_reason_t *reasons = gpa_arena_calloc(a, nnodes + 1, sizeof(*reasons));
    for (size_t i = 0; i < nnodes && !(s.found && s.first_fit) && !s.bounded; i++) {
        const gpa_node_t *node = nodes[i];
        gpa_node_reason_t *r = &reasons[i];
        if (refuse_node(a, &s, pp, &o, pol, req, node, r))
            continue;
        gpa_search_node(&s, node);
        /* Reasons matter only when no node fits, and then no bound pruned anything: node_found is exact. */
        if (!s.node_found && !s.bounded)
            gpa_explain_app(a, &s, node, r);
    }
    out->bounded = s.bounded;
    out->strategy = s.spread ? GPA_STRATEGY_SPREAD : GPA_STRATEGY_BINPACK;
    out->core_weight = s.core_weight;
    if (s.found) {
        out->feasible = 1;
        out->node = s.best_node->name;
        fill_shares(a, &s, out);
        /* the init containers' devices, for schedulers that write them (HAMi): the same first fit that admitted the node */
        share_vec_t init = {0};
        size_t failed = 0;
        int bounded = 0;
        init_containers_fit(a, pol, req, &o, s.best_node, &failed, &bounded, &init);
        gpa_annotate_placement(a, pp->pod, req, s.best_node, init.items, init.len, out);
        return;
    }
    out->reasons = reasons;
    out->nreasons = nnodes;
}

/* ---- node templates: they count for "could it ever be placed", never for "room now" (inventory.h) ---- */

/* The Pod on every template, taken empty (as place_on). */
static void place_on_templates(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_nodes_pod_t *pp,
                               const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out)
{
    size_t n;
    const gpa_node_t *templates = gpa_inventory_templates(inv, &n);
    place_on(a, pointers(a, templates, n), n, pol, pp, req, opts, out);
}

/* After no node took the Pod (p, not cut short): a template that does takes its place, keeping the nodes' reasons;
 * else the templates' reasons follow the nodes'. */
static void add_templates(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_nodes_pod_t *pp,
                          const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *p)
{
    gpa_placement_t t;
    size_t n;
    if (gpa_inventory_templates(inv, &n) == NULL || n == 0)
        return;
    place_on_templates(a, inv, pol, pp, req, opts, &t);
    if (t.feasible) {
        t.template_name = t.node;
        t.node = NULL;
        t.reasons = p->reasons;
        t.nreasons = p->nreasons;
        *p = t;
        return;
    }
    gpa_node_reason_t *all = gpa_arena_calloc(a, p->nreasons + t.nreasons + 1, sizeof(*all));
    if (p->nreasons > 0)
        memcpy(all, p->reasons, p->nreasons * sizeof(*all));
    if (t.nreasons > 0)
        memcpy(all + p->nreasons, t.reasons, t.nreasons * sizeof(*all));
    p->reasons = all;
    p->nreasons += t.nreasons;
    p->bounded = t.bounded;
}

int gpa_alloc_place(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                    const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out)
{
    size_t nnodes;
    gpa_nodes_pod_t pp;
    gpa_nodes_prepare(a, pod, &pp);
    const gpa_node_t **all = every_node(a, inv, &nnodes);
    place_on(a, all, nnodes, pol, &pp, req, opts, out);
    if (!out->feasible && !out->bounded && !opts->now)
        add_templates(a, inv, pol, &pp, req, opts, out);
    return 0;
}

/* ---- the infeasible rule ---- */

/* Whether the Pod selects nodes on a label that tells nodes apart (then shapes do not speak for every node). */
static int selects_identity(const gpa_inventory_t *inv, const gpa_podspec_t *pod)
{
    for (size_t i = 0; i < pod->nnode_selector; i++)
        if (gpa_inventory_identity_key(inv, pod->node_selector[i].key))
            return 1;
    for (size_t t = 0; t < pod->nnode_terms; t++)
        for (size_t i = 0; i < pod->node_terms[t].len; i++)
            if (gpa_inventory_identity_key(inv, pod->node_terms[t].requirements[i].key))
                return 1;
    return 0;
}

/* Whether a HAMi group selects cards by UUID (use-gpuuuid, nouse-gpuuuid). */
static int selects_uuid(const gpa_request_t *req)
{
    for (size_t k = 0; k < req->ngroups; k++)
        if (req->groups[k].hami != NULL && (req->groups[k].hami->use_uuid != NULL || req->groups[k].hami->nouse_uuid != NULL))
            return 1;
    return 0;
}

/*
 * The nodes to search: one per shape as far as the Pod can tell. A Pod that selects on no identity label tells
 * nodes apart only by their shape (the inventory's). Otherwise every node's labels are tested (logarithmic in a
 * list's length); of the nodes that pass, the first of each shape is searched, and the node that fails nearest
 * (gpa_explain_labels_nearness; the first in name order among equals) speaks for every node that fails (a label refusal ranks below
 * every other reason, and ties go to the lowest name). So a no-op `kubernetes.io/hostname` affinity costs one label test per node,
 * not one search per node.
 */
static const gpa_node_t *const *candidates(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_nodes_pod_t *pp,
                                           const gpa_request_t *req, gpa_alloc_budget_t *budget, int now, size_t *n)
{
    int by_uuid = selects_uuid(req); /* a card's UUID takes no part in a shape: every node is searched */
    if (!by_uuid && !selects_identity(inv, pp->pod))
        return gpa_inventory_shapes(inv, now, n);
    size_t nnodes, nshapes, k = 0;
    *n = 0;
    if (gpa_alloc_budget_take(budget, 0) != 0)
        return NULL; /* spent (by memory too): no arrays for a search that cannot run, none per template left */
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, &nnodes);
    gpa_inventory_shapes(inv, now, &nshapes);
    int *seen = gpa_arena_calloc(a, nshapes + 1, sizeof(*seen));
    /* Sized by what can pass: one node per shape (the UUID case aside) and the refused one. Never nodes x
     * templates: 4,000 templates on 5,000 nodes kept 160 MB of these arrays until the review ended. */
    const gpa_node_t **out = gpa_arena_calloc(a, (by_uuid ? nnodes : nshapes) + 2, sizeof(*out));
    const gpa_node_t *refused = NULL; /* the refused node that came nearest, first in name order among equals */
    size_t refused_at = 0;
    int64_t nearest = -1;
    for (size_t i = 0; i < nnodes && gpa_alloc_budget_take(budget, pp->cost) == 0; i++) {
        gpa_nodes_refusal_t why;
        if (!gpa_nodes_labels(pp, &nodes[i], &why)) {
            int64_t near = gpa_explain_labels_nearness(&nodes[i], &why);
            if (near > nearest)
                refused = &nodes[i], refused_at = k, nearest = near;
            continue;
        }
        int *first = &seen[gpa_inventory_shape_of(inv, &nodes[i], now)];
        if (!*first || by_uuid)
            out[k++] = &nodes[i];
        *first = 1;
    }
    if (refused != NULL) { /* in its place in name order */
        memmove(&out[refused_at + 1], &out[refused_at], (k - refused_at) * sizeof(*out));
        out[refused_at] = refused;
        k++;
    }
    *n = k;
    return out;
}

/* Whether the Pod fits some node (now: with current usage; else a node or, after every node, a template); p says
 * where or why not; -1 when the budget ran out before an answer. */
static int fits_some_node(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_nodes_pod_t *pp,
                          const gpa_request_t *req, gpa_alloc_budget_t *budget, int now, gpa_placement_t *p)
{
    gpa_alloc_opts_t o = {.now = now, .first_fit = 1, .budget = budget};
    size_t n;
    /* Nodes of one shape fit alike and explain alike; the first-named of each speaks for them all. */
    const gpa_node_t *const *shapes = candidates(a, inv, pp, req, budget, now, &n);
    place_on(a, shapes, n, pol, pp, req, &o, p);
    if (!p->feasible && !p->bounded && !budget->spent && !now)
        add_templates(a, inv, pol, pp, req, &o, p);
    if (p->feasible)
        return 1;
    return p->bounded || budget->spent ? -1 : 0; /* not proven: the rule only rejects what is certain */
}

gpa_feasibility_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol,
                                     const gpa_podspec_t *pod, const gpa_request_t *req, gpa_alloc_budget_t *budget,
                                     const char **reason)
{
    gpa_alloc_budget_t own = gpa_alloc_budget(0);
    gpa_nodes_pod_t pp;
    *reason = "";
    if (req->ngroups == 0)
        return GPA_FEASIBLE_NOW;
    if (budget == NULL)
        budget = &own;
    gpa_nodes_prepare(a, pod, &pp);
    gpa_placement_t p, t;
    int ever = fits_some_node(a, inv, pol, &pp, req, budget, 0, &p);
    if (ever <= 0) {
        budget->unproven += ever < 0;
        if (ever == 0)
            *reason = gpa_explain_closest(a, &p);
        return ever < 0 ? GPA_FEASIBLE_UNKNOWN : GPA_FEASIBLE_NEVER;
    }
    if (p.template_name != NULL) { /* only a new node would hold it: never room now */
        *reason = gpa_explain_with_template(a, &p, p.template_name);
        return GPA_FEASIBLE_NOT_NOW;
    }
    /* Room now cannot be proven either way once the budget is spent: say nothing. */
    if (fits_some_node(a, inv, pol, &pp, req, budget, 1, &p) != 0)
        return GPA_FEASIBLE_NOW;
    gpa_alloc_opts_t o = {.first_fit = 1, .budget = budget};
    place_on_templates(a, inv, pol, &pp, req, &o, &t);
    *reason = t.feasible ? gpa_explain_with_template(a, &p, t.node) : gpa_explain_closest(a, &p);
    return GPA_FEASIBLE_NOT_NOW;
}
