/*
 * Private to the allocator (alloc.c, explain.c): which nodes can take a Pod at all, before any device is
 * searched — its nodeSelector and required node affinity (labels), the dialects the node's GPUs serve, the
 * request's per-device amounts, and enough healthy devices for each group. The words for a refusal are
 * explain.c's (gpa_explain_refusal).
 */
#ifndef GPA_NODES_H
#define GPA_NODES_H

#include <stddef.h>

#include "alloc/inventory.h"
#include "alloc/normalize.h"

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

/* 0 when the node may be searched for the Pod; -1 with *out saying why not (every check in the order above). */
int gpa_nodes_check(const gpa_podspec_t *pod, const gpa_request_t *req, const gpa_node_t *node, gpa_nodes_refusal_t *out);

#endif
