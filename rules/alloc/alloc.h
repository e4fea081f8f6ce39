/*
 * The normalizing allocator: places a canonical request (normalize.h) on an inventory's devices (SPEC §5).
 * Shared by the `infeasible` rule (validate, review, serve) and `gpuadmit fit`. Formulas: docs/allocator.md.
 *
 * Arithmetic is exact (64-bit integers, overflow checked). A share's memory on a device of M bytes:
 * bytes as asked, or ceil(ratio × M / 100) for a ratio; its fraction of the device is ceil(bytes × 10000 / M)
 * in 1/10000. Capacity is per device: a share never spans devices and node-level sums are never used.
 *
 * Init containers: each must fit alone on the chosen node (with the node's current usage when counting it);
 * the Pod then holds only its app containers' shares, which are what a placement lists. Init containers run
 * one at a time before the app containers, so they neither add to nor compete with the app shares.
 *
 * No I/O; everything returned lives in the arena passed in. Thread-safe over a shared, committed inventory.
 */
#ifndef GPA_ALLOC_H
#define GPA_ALLOC_H

#include <stdint.h>

#include "base/arena.h"
#include "kube/model.h"
#include "alloc/normalize.h"

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

typedef enum en_gpa_strategy_t {
    GPA_STRATEGY_BINPACK, /* prefer the fullest devices that fit */
    GPA_STRATEGY_SPREAD,  /* prefer the emptiest */
} gpa_strategy_t;

/* How the allocator places: the configuration's `placement` section and maxPodsPerDevice (policy/config.h). */
typedef struct st_gpa_alloc_policy_t {
    gpa_strategy_t strategy;     /* default binpack */
    int64_t core_weight;         /* 0..100, percent weight of compute vs memory in the score; default 20 */
    int64_t max_pods_per_device; /* share Pods on one device; default 16 */
} gpa_alloc_policy_t;

typedef enum en_gpa_fit_t {
    GPA_FIT_OK,      /* some node has room now */
    GPA_FIT_NOT_NOW, /* some node could hold it empty, none has room with current usage */
    GPA_FIT_NEVER,   /* no node could hold it even empty */
} gpa_fit_t;

/*
 * Feasibility for the infeasible rule. *reason (arena-owned, one line) says why for NOT_NOW and NEVER: the
 * closest node's first reason ("node-3: device 1 has 12Gi free, needs 20Gi"); "" for OK. The closest node is
 * the one that got furthest (labels < dialect < healthy devices < capacity < together), then, within that
 * stage, came nearest (more healthy devices; more of the needed devices with room, then the larger part of
 * the share its closest device could hold), then the lowest name. A Pod without GPU groups is OK. A search
 * cut short by its bound never yields NEVER (the check only rejects what is certain).
 */
gpa_fit_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                             const gpa_request_t *req, const char **reason);

/* One device share a placed Pod would hold. */
typedef struct st_gpa_share_t {
    const gpa_container_t *container; /* borrowed from the request */
    size_t group;                     /* index into req->groups */
    int32_t minor;
    int64_t core;         /* percent of the device's compute */
    int64_t memory_bytes; /* bytes of the device's memory */
    int64_t fraction;     /* memory_bytes of the device's memory, in 1/10000, rounded up */
} gpa_share_t;

typedef struct st_gpa_node_reason_t {
    const char *node;
    const char *reason; /* the first reason the Pod does not fit there, one line */
    int rank_;          /* how far the node got: higher = closer to fitting */
    int64_t near_;      /* within one rank, how near it came: higher = closer (docs/allocator.md) */
} gpa_node_reason_t;

typedef struct st_gpa_placement_t {
    int feasible;
    const char *node;    /* the chosen node, NULL when not feasible */
    int64_t score;       /* mean per-share score, 0..10000 (docs/allocator.md); 0 when no share */
    gpa_share_t *shares; /* app containers' shares, in request order (group, then device order) */
    size_t nshares;
    gpa_pair_t *annotations; /* what the scheduler would write: device-allocated or gpu-index-container-* */
    size_t nannotations;
    gpa_node_reason_t *reasons; /* when not feasible: every node in name order with its first reason */
    size_t nreasons;
    int bounded; /* the search hit its step bound: the result is the best found, not proven best */
} gpa_placement_t;

typedef struct st_gpa_alloc_opts_t {
    int now;            /* count current usage (else every node is taken empty) */
    int first_fit;      /* stop at the first feasible placement (feasibility only; no best-score search) */
    uint64_t max_steps; /* device checks allowed per Pod before the search is cut (bounded); 0 = 20,000,000 */
} gpa_alloc_opts_t;

/*
 * Places the Pod: every node (name order) whose labels match and whose GPUs serve the request's dialects is
 * searched depth-first over the app shares (containers in order, devices in minor order, the devices of one
 * multi-device group distinct and increasing), pruned by score bound and by device symmetry; the best score
 * wins, ties to the lowest node name, then the lowest minors. Strategy, coreWeight and maxPodsPerDevice come
 * from pol. Returns 0 with *out filled (arena-owned); -1 only for a request no node could read (never).
 */
int gpa_alloc_place(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                    const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out);

#endif
