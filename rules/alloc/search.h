/*
 * Private to the allocator (alloc.c, explain.c): the depth-first search of one node's devices, and the state
 * of those devices while it runs. Front ends include alloc.h, never this.
 *
 * Ownership: a search's arrays live in the arena given to gpa_search_init; the request, the nodes and their
 * devices are borrowed and must outlive the search.
 */
#ifndef GPA_SEARCH_H
#define GPA_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "alloc/placement.h"

/* One device's state during a search of one node. */
typedef struct st_gpa_search_dev_t {
    const gpa_gpu_t *gpu;
    int64_t core_free, mem_free; /* percent, bytes */
    int64_t pods;                /* share Pods on it, this one included once touched; mGPU: share containers */
    int whole_used;
    int touched;        /* this Pod already has a share on it */
    int64_t slots_used; /* HAMi's vGPUs on it (one per share of a HAMi group), this Pod's included */
} gpa_search_dev_t;

/* One device share to place: slot i of the flattened groups. */
typedef struct st_gpa_search_slot_t {
    size_t group;
    int first_of_group; /* later slots of one group take higher device indexes (distinct devices) */
} gpa_search_slot_t;

/* Where slot i went: a device and the share's amounts there. */
typedef struct st_gpa_search_pick_t {
    uint32_t dev; /* index into the node's gpus */
    int64_t core, mem;
    int64_t score; /* the device's score once this share is on it */
} gpa_search_pick_t;

typedef struct st_gpa_search_t {
    const gpa_request_t *req;
    int now, first_fit, spread; /* spread and core_weight: the policy resolved for the request (strategy.h) */
    gpa_alloc_budget_t *budget; /* borrowed: the request's (opts->budget), or own_budget */
    gpa_alloc_budget_t own_budget;
    int64_t max_pods, core_weight;
    int per_container;        /* the groups are mGPU shares: each counts toward max_pods (gpa_search_counts_anew) */
    gpa_search_slot_t *slots; /* in request order; first fit: the largest groups first (proves "no" sooner) */
    size_t nshares;
    /* Capacity bound: what slots [i..) still need in total (core and bytes of the share slots, whole devices)
     * and what the node's devices still have free; a partial placement needing more than is free is cut. */
    int64_t *need_core, *need_mem, free_core, free_mem;
    size_t *need_whole, free_whole;
    /* Count bound: slots [i..) hold need_shares[i] share (not whole) slots, none smaller than min_core[i] percent
     * and min_mem[i] bytes (0: no bound), so a device takes at most as many of them as those minimums fit in. */
    size_t *need_shares;
    int64_t *min_core, *min_mem;
    gpa_search_pick_t *cur, *best;
    gpa_search_dev_t *dev; /* the node's devices, scratch sized for the largest node */
    size_t ndev;
    const gpa_node_t *node, *best_node;
    int found, node_found, stop, bounded;
    int by_uuid;        /* a group selects HAMi cards by UUID: cards in the same state are not interchangeable */
    int impossible;     /* a group needs more devices than the largest node has: nothing to search, nothing set up */
    int64_t best_score; /* sum of per-share scores */
} gpa_search_t;

/*
 * Sets up a search over groups [from, to) of req; max_gpus sizes the device state (the largest node). Every
 * search step is taken from opts->budget (shared with every other search of the request), or from a budget of
 * the search's own when it is NULL; once the budget is spent the search stops with `bounded` set.
 */
void gpa_search_init(gpa_search_t *s, gpa_arena_t *a, const gpa_alloc_policy_t *pol, const gpa_request_t *req, size_t from,
                     size_t to, const gpa_alloc_opts_t *opts, size_t max_gpus);
/* Searches one node; s keeps the best placement over every node searched so far (ties: the earlier). */
void gpa_search_node(gpa_search_t *s, const gpa_node_t *node);
/* Sets s->dev and s->ndev to the node's devices as a search starts: empty, or with current usage when s->now. */
void gpa_search_start(gpa_search_t *s, const gpa_node_t *node);
/* The steps one gpa_search_fits of group g costs: 1, and a HAMi group's card lists by their length. */
uint64_t gpa_search_fit_steps(const gpa_device_group_t *g);
/* Whether group g's share fits device d as things stand; its core and memory there in *core, *mem. */
int gpa_search_fits(const gpa_search_t *s, const gpa_search_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem);
/* Whether group g's share on device d adds one to d's count toward maxPodsPerDevice: a Pod counts once per device,
 * but an mGPU share counts per container, as Volcano's mGPU plugin counts (docs/allocator.md#placement). */
int gpa_search_counts_anew(const gpa_search_dev_t *d, const gpa_device_group_t *g);

/* The first of HAMi's checks a card fails for a HAMi group (g->hami set), in HAMi's order (docs/allocator.md#hami-placement). */
typedef enum en_gpa_hami_check_t {
    GPA_HAMI_CARD_FITS,
    GPA_HAMI_CARD_UNHEALTHY,
    GPA_HAMI_CARD_HELD,      /* held whole by a vendor Pod */
    GPA_HAMI_CARD_TYPE,      /* use-gputype matches no item, or nouse-gputype one */
    GPA_HAMI_CARD_MODE,      /* vgpu-mode does not contain the card's mode */
    GPA_HAMI_CARD_UUID,      /* use-gpuuuid does not list it, or nouse-gpuuuid does */
    GPA_HAMI_CARD_SLOTS,     /* every vGPU slot taken */
    GPA_HAMI_CARD_MEMORY,    /* free memory below the vGPU's */
    GPA_HAMI_CARD_CORES,     /* free compute below the vGPU's */
    GPA_HAMI_CARD_EXCLUSIVE, /* gpucores 100 on a card of compute 100 that holds another vGPU */
    GPA_HAMI_CARD_EXHAUSTED, /* compute fully booked: not even a vGPU asking 0 cores */
} gpa_hami_check_t;
/* HAMi's checks of card d for group g; the vGPU's compute and bytes there in *core, *mem (as far as computed). */
gpa_hami_check_t gpa_search_hami_check(const gpa_search_dev_t *d, const gpa_device_group_t *g, int64_t *core, int64_t *mem);
/* Whether card gpu passes HAMi's card selection sel (type, mode and UUID lists); *why the list it fails. A card
 * HAMi did not register (no UUID) has nothing to test and passes. */
int gpa_search_hami_selected(const gpa_hami_select_t *sel, const gpa_gpu_t *gpu, gpa_hami_check_t *why);
/* Whether HAMi registered the card in MIG mode: several vGPUs of one container may go on it, as MIG instances (one
 * slot each, up to its slots). A group of more than GPA_SEARCH_HAMI_MIG_SLOTS vGPUs per card of the largest node is
 * not searched (no card registers that many MIG instances). */
int gpa_search_hami_mig(const gpa_gpu_t *gpu);
#define GPA_SEARCH_HAMI_MIG_SLOTS 8
/* The deepest the search goes: one level per share of the Pod. A Pod whose search would go deeper (a thousand
 * containers of many vGPUs on cards registering thousands of slots) is cut there, "could not prove", never denied
 * and never a stack overflow; the capacity and count bounds still prove "never" at the root without descending. */
#define GPA_SEARCH_MAX_DEPTH 1024
/* The card's slots: its registered count, else the configuration's deviceSplitCount. */
int64_t gpa_search_hami_slots(const gpa_search_dev_t *d, const gpa_device_group_t *g);

/* A group's per-device memory on one device (ratio converted); -1 when it cannot be known. */
int64_t gpa_search_share_memory(const gpa_device_group_t *g, const gpa_gpu_t *gpu);

#endif
