/*
 * The allocator's vocabulary: what it is told (the placement policy, the search options) and what it answers
 * (a placement: the node, each device share, the scheduler's annotations, or every node's reason). alloc.h
 * declares the calls; the allocator's own files include this header so that none of them needs alloc.h.
 *
 * Ownership: a placement's strings and arrays live in the arena passed to gpa_alloc_place; node names are
 * borrowed from the inventory and containers from the request.
 */
#ifndef GPA_PLACEMENT_H
#define GPA_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "kube/model.h"

typedef enum en_gpa_strategy_t {
    GPA_STRATEGY_BINPACK,   /* prefer the fullest devices that fit */
    GPA_STRATEGY_SPREAD,    /* prefer the emptiest */
    GPA_STRATEGY_SCHEDULER, /* unset: the default of the request's scheduler (alloc/strategy.h) */
} gpa_strategy_t;

/* coreWeight unset: the default of the request's scheduler (alloc/strategy.h). */
#define GPA_CORE_WEIGHT_SCHEDULER ((int64_t)-1)

/* How the allocator places: the configuration's `placement` section and maxPodsPerDevice (policy/config.h). */
typedef struct st_gpa_alloc_policy_t {
    gpa_strategy_t strategy;     /* the configuration's default: GPA_STRATEGY_SCHEDULER */
    int64_t core_weight;         /* 0..100, percent weight of compute vs memory in the score; or GPA_CORE_WEIGHT_SCHEDULER */
    int64_t max_pods_per_device; /* share Pods on one device; default 16 */
} gpa_alloc_policy_t;

/* What one check may allocate beyond what its object's decoding holds (docs/allocator.md#bounds): candidates,
 * search state, reasons, findings, the answer. Past it every search stops (the budget is spent). */
#define GPA_CHECK_MEMORY_BYTES ((size_t)32 << 20)

/* Steps a budget holds when its front end names none (docs/allocator.md#bounds). */
#define GPA_ALLOC_BUDGET_STEPS 20000000ull

/*
 * One request's search budget, shared by every Pod template and node of the object it judges: each device
 * check and each node-affinity requirement evaluated costs a step, and a front end may add a deadline (rules/
 * has no clock: `expired` is the front end's, polled every few thousand steps and between nodes). Once the
 * steps are spent or the deadline has passed, every search that uses the budget stops at once (bounded), so a
 * request costs at most `steps` steps and a little past its deadline, however many templates it holds.
 * Owned by the caller; searches change `steps`, `spent` and the counters.
 */
typedef struct st_gpa_alloc_budget_t {
    uint64_t steps;            /* steps left; 0 = spent */
    int (*expired)(void *ctx); /* nonzero once the deadline has passed; NULL = no deadline */
    void *expired_ctx;         /* handed to expired */
    int spent;                 /* set once the steps ran out or the deadline passed */
    unsigned cut;              /* searches cut short */
    unsigned unproven;         /* infeasible checks that could not prove their answer (gpa_alloc_feasible UNKNOWN) */
    uint64_t poll_;            /* steps until expired is polled again */
    /* The review's memory (gpa_check sets both, for the length of one check): once `arena` holds more than
     * `memory_limit` bytes the budget is spent, so whatever searches, explains or places stops, whatever the path,
     * and ends as a search cut short ("could not prove", never a denial). NULL: no memory bound. */
    const gpa_arena_t *arena;
    size_t memory_limit;
    int over_memory; /* the budget was spent by memory */
} gpa_alloc_budget_t;

/* A budget of `steps` steps (0 = GPA_ALLOC_BUDGET_STEPS), with no deadline. */
gpa_alloc_budget_t gpa_alloc_budget(uint64_t steps);
/* Takes one step (or n) from b; returns 0 while the budget lasts, -1 once it is spent (and stays spent). */
int gpa_alloc_budget_take(gpa_alloc_budget_t *b, uint64_t n);

typedef struct st_gpa_alloc_opts_t {
    int now;                    /* count current usage (else every node is taken empty) */
    int first_fit;              /* stop at the first feasible placement (feasibility only; no best-score search) */
    gpa_alloc_budget_t *budget; /* borrowed; NULL = a budget of the call's own, GPA_ALLOC_BUDGET_STEPS steps */
} gpa_alloc_opts_t;

/* One device share a placed Pod would hold. */
typedef struct st_gpa_share_t {
    const gpa_container_t *container; /* borrowed from the request: the (first) container of the share's group */
    const char *containers;           /* the group's container names joined with "," (a Koordinator Pod's group: every
                                         container with a Koordinator resource; docs/allocator.md); borrowed */
    size_t group;                     /* index into req->groups */
    int32_t minor;
    int64_t core;         /* percent of the device's compute */
    int64_t memory_bytes; /* bytes of the device's memory */
    int64_t fraction;     /* memory_bytes of the device's memory, in 1/10000, rounded up */
    int64_t score;        /* its device's score once it is there, 0..10000 (the scheduler lists devices by it) */
} gpa_share_t;

typedef struct st_gpa_node_reason_t {
    const char *node;   /* the node's name, or the template's when is_template */
    int is_template;    /* a node template (inventory.h): a new node of it would not fit either */
    const char *reason; /* the first reason the Pod does not fit there, one line */
    int rank_;          /* how far the node got: higher = closer to fitting */
    int64_t near_;      /* within one rank, how near it came: higher = closer (docs/allocator.md) */
} gpa_node_reason_t;

typedef struct st_gpa_placement_t {
    int feasible;
    const char *node;          /* the chosen node, NULL when not feasible or on a template */
    const char *template_name; /* feasible only on a new node of this template (inventory.h), else NULL */
    int64_t score;             /* mean per-share score, 0..10000 (docs/allocator.md); 0 when no share */
    gpa_strategy_t strategy;   /* what the score used: the policy resolved for the request (gpa_alloc_policy_for) */
    int64_t core_weight;       /* likewise, 0..100 */
    gpa_share_t *shares;       /* app containers' shares, in request order (group, then device order) */
    size_t nshares;
    gpa_pair_t *annotations; /* what the scheduler would write: device-allocated or gpu-index-container-* */
    size_t nannotations;
    gpa_node_reason_t *reasons; /* when not feasible, or only on a template: every node in name order with its first
                                   reason, then (when not feasible) every template's */
    size_t nreasons;
    int bounded; /* the search was cut short by its budget: the result is the best found, not proven best */
} gpa_placement_t;

#endif
