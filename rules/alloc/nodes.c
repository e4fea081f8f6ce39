/*
 * Which nodes can take a Pod at all (nodes.h): label matching as the scheduler does it (nodeSelector, then
 * required node affinity: the terms ORed, a term's requirements ANDed), dialects, the request's per-device
 * amounts, and healthy devices.
 */
#include "alloc/nodes.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- labels ---- */

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void gpa_nodes_prepare(gpa_arena_t *a, const gpa_podspec_t *pod, gpa_nodes_pod_t *out)
{
    size_t nreq = 0;
    out->pod = pod;
    out->first = gpa_arena_calloc(a, pod->nnode_terms + 1, sizeof(*out->first));
    for (size_t t = 0; t < pod->nnode_terms; t++) {
        out->first[t] = nreq;
        nreq += pod->node_terms[t].len;
    }
    out->cost = 1 + (uint64_t)pod->nnode_selector + nreq;
    out->sorted = gpa_arena_calloc(a, nreq + 1, sizeof(*out->sorted));
    for (size_t t = 0; t < pod->nnode_terms; t++) {
        const gpa_node_term_t *term = &pod->node_terms[t];
        for (size_t i = 0; i < term->len; i++) {
            const gpa_node_requirement_t *q = &term->requirements[i];
            if (q->op != GPA_MATCH_IN && q->op != GPA_MATCH_NOT_IN)
                continue;
            const char **v = gpa_arena_calloc(a, q->nvalues + 1, sizeof(*v));
            memcpy(v, q->values, q->nvalues * sizeof(*v));
            qsort(v, q->nvalues, sizeof(*v), cmp_str_ptr);
            out->sorted[out->first[t] + i] = v;
        }
    }
}

static int requirement_matches(const gpa_node_t *node, const gpa_node_requirement_t *q, const char *const *sorted)
{
    const char *v = gpa_node_label(node, q->key);
    int64_t have, want;
    switch (q->op) {
    case GPA_MATCH_EXISTS:
        return v != NULL;
    case GPA_MATCH_DOES_NOT_EXIST:
        return v == NULL;
    case GPA_MATCH_GT:
    case GPA_MATCH_LT:
        if (q->nvalues != 1 || parse_i64(v, &have) != 0 || parse_i64(q->values[0], &want) != 0)
            return 0;
        return q->op == GPA_MATCH_GT ? have > want : have < want;
    case GPA_MATCH_IN:
    case GPA_MATCH_NOT_IN: {
        int listed = v != NULL && bsearch(&v, sorted, q->nvalues, sizeof(*sorted), cmp_str_ptr) != NULL;
        return listed == (q->op == GPA_MATCH_IN);
    }
    }
    return 0;
}

/* A term with no requirement matches no node (Kubernetes' rule for an empty nodeSelectorTerm). */
static const gpa_node_requirement_t *term_failure(const gpa_node_t *node, const gpa_node_term_t *t,
                                                  const char *const *const *sorted, int *matches)
{
    *matches = t->len > 0;
    for (size_t i = 0; i < t->len; i++)
        if (!requirement_matches(node, &t->requirements[i], sorted[i])) {
            *matches = 0;
            return &t->requirements[i];
        }
    return NULL;
}

int gpa_nodes_labels(const gpa_nodes_pod_t *pp, const gpa_node_t *node, gpa_nodes_refusal_t *out)
{
    const gpa_podspec_t *pod = pp->pod;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < pod->nnode_selector; i++) {
        const char *v = gpa_node_label(node, pod->node_selector[i].key);
        if (v == NULL || strcmp(v, pod->node_selector[i].value) != 0) {
            out->stage = GPA_NODES_SELECTOR;
            out->selector = &pod->node_selector[i];
            return 0;
        }
    }
    const gpa_node_requirement_t *first = NULL;
    for (size_t t = 0; t < pod->nnode_terms; t++) {
        int ok;
        const gpa_node_requirement_t *q =
            term_failure(node, &pod->node_terms[t], (const char *const *const *)pp->sorted + pp->first[t], &ok);
        if (ok)
            return 1;
        if (first == NULL)
            first = q;
    }
    if (pod->nnode_terms == 0)
        return 1;
    out->stage = GPA_NODES_AFFINITY;
    out->requirement = first;
    return 0;
}

/* ---- the request on this node ---- */

static unsigned request_dialects(const gpa_request_t *req)
{
    unsigned d = 0;
    for (size_t k = 0; k < req->ngroups; k++)
        d |= (unsigned)req->groups[k].dialect;
    return d;
}

/* GPA_NODES_OK, or why no device anywhere can hold one of the group's shares. */
static gpa_nodes_stage_t group_validity(const gpa_device_group_t *g)
{
    if (g->core < 0 || g->core > 100)
        return GPA_NODES_BAD_CORE;
    if (g->memory_kind == GPA_MEMORY_RATIO && (g->memory_ratio < 0 || g->memory_ratio > 100))
        return GPA_NODES_BAD_RATIO;
    if (g->memory_kind == GPA_MEMORY_BYTES && g->memory_bytes < 0)
        return GPA_NODES_BAD_MEMORY;
    return GPA_NODES_OK;
}

/* Whether a healthy card of the node is in MIG mode (HAMi may place several vGPUs of a container on it). */
static int mig_cards(const gpa_node_t *node)
{
    for (size_t i = 0; i < node->ngpus; i++)
        if (node->gpus[i].healthy && strcmp(node->gpus[i].mode, "mig") == 0)
            return 1;
    return 0;
}

int gpa_nodes_check(const gpa_nodes_pod_t *pp, const gpa_request_t *req, const gpa_node_t *node, gpa_nodes_refusal_t *out)
{
    if (!gpa_nodes_labels(pp, node, out))
        return -1;
    unsigned want = request_dialects(req);
    if ((want & node->dialects) != want) {
        out->stage = GPA_NODES_DIALECT;
        out->missing = want & ~node->dialects;
        return -1;
    }
    for (size_t i = 0; i < node->ngpus; i++)
        out->healthy += node->gpus[i].healthy != 0;
    for (size_t k = 0; k < req->ngroups; k++) {
        const gpa_device_group_t *g = &req->groups[k];
        out->group = g;
        if ((out->stage = group_validity(g)) != GPA_NODES_OK)
            return -1;
        if (g->count > out->healthy && !(g->hami != NULL && mig_cards(node))) { /* MIG: several vGPUs per card */
            out->stage = GPA_NODES_TOO_FEW;
            return -1;
        }
    }
    out->group = NULL;
    return 0;
}
