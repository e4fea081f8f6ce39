/*
 * Where a Pod can land (docs/allocator.md#where-a-pod-can-land): the nodes and node templates of an inventory that
 * could ever hold a Pod template, taken empty, and whether every device that could serve its app shares there has
 * one card memory. The `ray-gpu-memory` mutation reads it to turn a share by ratio (Koordinator gpu-memory-ratio,
 * whole cards) into bytes: a ratio means bytes only when every card it can land on has the same memory.
 *
 * A node lands the Pod when its labels pass the Pod's nodeSelector and required node affinity, its GPUs serve the
 * request's dialects, it has enough healthy devices for each group, and a first-fit search of the app shares on
 * the node, empty, places them (as the infeasible rule's "could it ever fit"). Its serving devices are those that
 * could hold one share of some app group, empty. Current usage never counts: the answer holds for every replica
 * of a group, whenever it is created.
 *
 * No I/O. Ownership: the list is arena-owned; the nodes are borrowed from the inventory.
 */
#ifndef GPA_LANDING_H
#define GPA_LANDING_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "kube/model.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "alloc/placement.h"

typedef struct st_gpa_landing_t {
    const gpa_node_t **nodes; /* the nodes that land the Pod, in name order, then the templates that do (is_template) */
    size_t nnodes;
    int64_t card_memory; /* M bytes when every serving device of every listed node has M bytes; 0 when the listed nodes'
                            serving devices differ in memory, when one's memory is unknown, when nothing is listed, or
                            when the search was cut short */
    int bounded;         /* the budget ran out before every node was looked at: the list is partial */
} gpa_landing_t;

/*
 * Lists where the Pod template `pod`, normalized as `req` (gpa_normalize), can land in `inv`, and their card memory
 * (above). pol supplies maxPodsPerDevice. Every label test and device check takes a step from `budget` (borrowed;
 * NULL = a budget of the call's own). A request with no app group lands nowhere. Never fails.
 */
void gpa_alloc_landing(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                       const gpa_request_t *req, gpa_alloc_budget_t *budget, gpa_landing_t *out);

#endif
