/*
 * The normalizing allocator: places a canonical request (normalize.h) on an inventory's devices (docs/allocator.md).
 * Shared by the `infeasible` rule (validate, review, serve) and `gpuadmit fit`. Formulas: docs/allocator.md.
 *
 * Arithmetic is exact (64-bit integers, overflow checked). A share's memory on a device of M bytes:
 * bytes as asked, or ceil(ratio × M / 100) for a ratio; its fraction of the device is ceil(bytes × 10000 / M)
 * in 1/10000. Capacity is per device: a share never spans devices and node-level sums are never used.
 *
 * Init containers: each must fit alone on the chosen node (with the node's current usage when counting it);
 * the Pod then holds only its app containers' shares, which are what a placement lists. (A Koordinator Pod's init
 * containers are in its one Pod-level group, normalize.h: there are no init groups to place for it.) Init containers run
 * one at a time before the app containers, so they neither add to nor compete with the app shares.
 *
 * No I/O; everything returned lives in the arena passed in. Thread-safe over a shared, committed inventory.
 */
#ifndef GPA_ALLOC_H
#define GPA_ALLOC_H

#include <stdint.h>

#include "base/arena.h"
#include "kube/model.h"
#include "kube/normalize.h"
#include "alloc/placement.h"

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

typedef enum en_gpa_feasibility_t {
    GPA_FEASIBLE_NOW,     /* some node has room now */
    GPA_FEASIBLE_NOT_NOW, /* some node or node template could hold it empty, no node has room with current usage */
    GPA_FEASIBLE_NEVER,   /* no node and no node template could hold it even empty */
    GPA_FEASIBLE_UNKNOWN, /* the budget ran out before a node was found or every node ruled out: not proven */
} gpa_feasibility_t;

/*
 * Feasibility for the infeasible rule. *reason (arena-owned, one line) says why for NOT_NOW and NEVER: the
 * closest node's first reason ("node-3: device 1 has 12Gi free, needs 20Gi"); "" for NOW. The closest node is
 * the one that got furthest (labels < dialect < healthy devices < capacity < together), then, within that
 * stage, came nearest (more healthy devices; more of the needed devices with room, then the larger part of
 * the share its closest device could hold), then the lowest name. A Pod without GPU groups is NOW.
 *
 * Every step is taken from `budget` (placement.h: the request's, shared by each template of the object; NULL =
 * a budget of the call's own). A search cut short never yields NEVER: UNKNOWN (counted in budget->unproven)
 * when "could it ever fit" was not answered, NOW when only "is there room now" was not. Nodes of one shape as
 * far as the Pod can tell (the same devices, labels apart from identity labels, and label tests passed or
 * failed alike) are searched once.
 *
 * Node templates (inventory.h) count for "ever" only: a Pod that no node but a template could hold is NOT_NOW,
 * its reason starting "fits a new node of template T" (then the closest node's reason, if any node has GPUs); a
 * NOT_NOW Pod that a template could hold says so too. A template's reason reads "template T: ...".
 */
gpa_feasibility_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol,
                                     const gpa_podspec_t *pod, const gpa_request_t *req, gpa_alloc_budget_t *budget,
                                     const char **reason);

/*
 * Places the Pod: every node (name order) whose labels match and whose GPUs serve the request's dialects is
 * searched depth-first over the app shares (containers in order, devices in minor order, the devices of one
 * multi-device group distinct and increasing), pruned by score bound and by device symmetry; the best score
 * wins, ties to the lowest node name, then the lowest minors. Strategy, coreWeight and maxPodsPerDevice come
 * from pol. Without opts->now, when no node takes the Pod, the node templates are searched the same way: on one,
 * out->node is NULL, out->template_name names it and out->reasons keeps the nodes' reasons; on none, the
 * templates' reasons follow the nodes'. With opts->now templates are never searched. Returns 0 with *out filled
 * (arena-owned); -1 only for a request no node could read (never).
 */
int gpa_alloc_place(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                    const gpa_request_t *req, const gpa_alloc_opts_t *opts, gpa_placement_t *out);

#endif
