/*
 * Private to the allocator (alloc.c, explain.c): which nodes can take a Pod at all, before any device is
 * searched — its nodeSelector and required node affinity (labels), the dialects the node's GPUs serve, the
 * request's per-device amounts, and enough healthy devices for each group. The words for a refusal are
 * explain.c's (gpa_explain_refusal).
 */
#ifndef GPA_NODES_H
#define GPA_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

#include "inventory/inventory.h"
#include "kube/normalize.h"

/* The first check a node fails, in the order they run. */
typedef enum en_gpa_nodes_stage_t {
    GPA_NODES_OK,
    GPA_NODES_SELECTOR,   /* a nodeSelector entry does not match the node's label: `selector` */
    GPA_NODES_AFFINITY,   /* no required node affinity term matches: `requirement` (NULL when every term is empty) */
    GPA_NODES_DIALECT,    /* its GPUs do not serve some of the request's dialects: `missing` */
    GPA_NODES_BAD_CORE,   /* `group`'s per-device compute is outside 0..100 */
    GPA_NODES_BAD_RATIO,  /* `group`'s per-device memory ratio is outside 0..100 */
    GPA_NODES_BAD_MEMORY, /* `group` asks for negative memory */
    GPA_NODES_TOO_FEW,    /* `group` needs more distinct devices than the node's `healthy` ones */
} gpa_nodes_stage_t;

typedef struct st_gpa_nodes_refusal_t {
    gpa_nodes_stage_t stage;
    const gpa_pair_t *selector;                /* borrowed from the Pod spec */
    const gpa_node_requirement_t *requirement; /* borrowed from the Pod spec: the first one that failed */
    unsigned missing;                          /* GPA_DIALECT_* bits asked for and not served */
    const gpa_device_group_t *group;           /* borrowed from the request */
    size_t healthy;                            /* the node's healthy devices */
} gpa_nodes_refusal_t;

/*
 * A Pod's label tests prepared once for many nodes: the value lists of In and NotIn sorted, so that a node is
 * matched in time logarithmic in a list's length (a NotIn of 100k hostnames costs log2(100k) compares per node,
 * not 100k). Arena-owned; borrows the Pod spec, which must outlive it.
 */
typedef struct st_gpa_nodes_pod_t {
    const gpa_podspec_t *pod;
    const char ***sorted; /* per requirement, every term's in turn: In/NotIn values in strcmp order (else NULL) */
    size_t *first;        /* [term]: its first requirement's index in sorted */
    uint64_t cost;        /* steps one node's label tests may take (budget): selector entries and requirements */
} gpa_nodes_pod_t;

void gpa_nodes_prepare(gpa_arena_t *a, const gpa_podspec_t *pod, gpa_nodes_pod_t *out);
/* 1 when the node's labels pass the Pod's nodeSelector and required node affinity; else 0 with *out saying why. */
int gpa_nodes_labels(const gpa_nodes_pod_t *pp, const gpa_node_t *node, gpa_nodes_refusal_t *out);
/* 0 when the node may be searched for the Pod; -1 with *out saying why not (every check in the order above). */
int gpa_nodes_check(const gpa_nodes_pod_t *pp, const gpa_request_t *req, const gpa_node_t *node, gpa_nodes_refusal_t *out);

#endif
