/*
 * Private to the allocator's files (inventory.c, fit_load.c, alloc.c): helpers that are not part of any
 * public contract. Front ends include inventory.h and alloc.h, never this.
 */
#ifndef GPA_FIT_H
#define GPA_FIT_H

#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/inventory.h"
#include "kube/quantity.h"

/* ---- the search (alloc.c) and its explanations (fit_reason.c) ---- */

/* One device's state during a search of one node. */
typedef struct st_gpa_fit_dev_t {
    const gpa_gpu_t *gpu;
    int64_t core_free, mem_free; /* percent, bytes */
    int64_t pods;                /* share Pods on it, this one included once touched */
    int whole_used;
    int touched; /* this Pod already has a share on it */
} gpa_fit_dev_t;

/* One device share to place: slot i of the flattened groups. */
typedef struct st_gpa_fit_slot_t {
    size_t group;
    int first_of_group; /* later slots of one group take higher device indexes (distinct devices) */
} gpa_fit_slot_t;

typedef struct st_gpa_fit_pick_t {
    uint32_t dev; /* index into the node's gpus */
    int64_t core, mem;
} gpa_fit_pick_t;

typedef struct st_gpa_fit_search_t {
    const gpa_request_t *req;
    int now, first_fit, spread;
    uint64_t max_steps, steps;
    int64_t max_pods, core_weight;
    gpa_fit_slot_t *slots;
    size_t nshares;
    gpa_fit_pick_t *cur, *best;
    gpa_fit_dev_t *dev; /* scratch, sized for the largest node */
    size_t ndev;
    const gpa_node_t *node, *best_node;
    int found, node_found, stop, bounded;
    int64_t best_score; /* sum of per-share scores */
} gpa_fit_search_t;

/* Sets up a search over groups [from, to) of req; max_gpus sizes the scratch state. */
void gpa_fit_search_init(gpa_fit_search_t *s, gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req, size_t from,
                         size_t to, const gpa_alloc_opts_t *opts, size_t max_gpus);
/* Searches one node; s keeps the best placement over every node searched so far (ties: the earlier). */
void gpa_fit_search_node(gpa_fit_search_t *s, const gpa_node_t *node);
/* The node's devices as the search starts: empty, or with current usage when `now`. */
void gpa_fit_state_init(gpa_fit_dev_t *st, const gpa_node_t *node, int now);
/* Whether group g's share fits device d now; its core and memory there in *core, *mem. */
int gpa_fit_check(const gpa_fit_search_t *s, const gpa_fit_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem);
/* A group's per-device memory on one device (ratio converted); -1 when it cannot be known. */
int64_t gpa_fit_share_memory(const gpa_device_group_t *g, const gpa_gpu_t *gpu);
unsigned gpa_fit_request_dialects(const gpa_request_t *req);

/* Checks before any search: dialects, labels, the request's sanity, enough healthy devices. 0 = go on;
 * -1 = the node is out, r->reason and r->rank_ say why. */
int gpa_fit_precheck(gpa_arena_t *a, const gpa_fit_search_t *s, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                     const gpa_node_t *node, gpa_node_reason_t *r);
/* Why group k (an init container's first group) does not fit the node; fills r. */
void gpa_fit_explain_group(gpa_arena_t *a, gpa_fit_search_t *s, const gpa_node_t *node, size_t k, gpa_node_reason_t *r);
/* Why the app shares do not fit the node: the first group that cannot fit alone, else "together". */
void gpa_fit_explain_app(gpa_arena_t *a, gpa_fit_search_t *s, const gpa_node_t *node, gpa_node_reason_t *r);
/* The annotations the scheduler would write for a placement on `node`. */
void gpa_fit_annotate(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, gpa_placement_t *out);

#endif
