/*
 * Could a DRA claim ever be allocated (docs/allocator.md#dra): Kubernetes' allocator (k8s.io/dynamic-resource-allocation
 * /structured) on empty devices, widened wherever gpuadmit cannot tell, so that "never" is always sound.
 *
 * For each request, in order, and each of its alternatives (`exactly`, or `firstAvailable`'s), the devices of complete
 * pools that the class's and the request's selectors admit (an unknown outcome counts as admitted), untainted or
 * tolerated, each with room for the capacity asked after `requestPolicy` rounding and within its own counter set; a
 * request is met on a node that holds `count` such devices (one at least for `All`). Devices offered to any node
 * (`allNodes`, a node selector) count on every node. The claim never fits when no node meets every request.
 *
 * Widened (never a denial where Kubernetes could allocate): requests are judged one by one on a node (two requests do
 * not compete for its devices), `matchAttribute`/`distinctAttribute` constraints are not applied, Node labels are not
 * matched against device node selectors, a selector outside the CEL subset admits. A class that admits no published
 * device, a class or a quantity gpuadmit cannot read, a selector that fails (dra-cel's) or a budget spent: unknown.
 */
#ifndef GPA_DRA_FIT_H
#define GPA_DRA_FIT_H

#include <stdint.h>

#include "alloc/placement.h"
#include "base/arena.h"
#include "inventory/dra_pools.h"
#include "kube/dra.h"

typedef enum en_gpa_dra_fit_t {
    GPA_DRA_FITS,    /* some node could hold every request on empty devices */
    GPA_DRA_NEVER,   /* no node ever could: *reason says which request, and why */
    GPA_DRA_UNKNOWN, /* nothing to say (see above) */
} gpa_dra_fit_t;

/* Whether `devices` (a claim's or a template's spec) could ever be allocated from `pools`, with the classes of `known`,
 * paying one step per device evaluated into budget; *reason (NEVER) is an arena string. */
gpa_dra_fit_t gpa_dra_ever_fits(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                                const gpa_dra_devices_t *devices, gpa_alloc_budget_t *budget, const char **reason);

/*
 * What asking `requested` (NULL: the request names no amount of this capacity) of capacity c consumes (KEP-5075): with
 * a requestPolicy, the smallest valid amount at or above it (the next of validValues, min + n*step within validRange),
 * or the policy's default when none is asked; without one, the amount asked, or the whole capacity when none is. A
 * device that does not allow several allocations is taken whole, the request only filtering (`shared` 0). Returns 0
 * with *consumed, 1 when the device can never serve it (*why says so), -1 when an amount cannot be read.
 */
int gpa_dra_consumed(gpa_arena_t *a, const gpa_dra_device_capacity_t *c, int shared, const gpa_quantity_t *requested,
                     int64_t *consumed, const char **why);

/* The devices of `pools` that e's class and selectors admit (an unknown outcome admits; a failing one does not), into
 * *out (arena-owned); 0 when none is, or when the class is not known, a selector does not parse or the budget is
 * spent (nothing can then be said of them). */
size_t gpa_dra_admitted(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_exact_t *e,
                        gpa_alloc_budget_t *budget, const gpa_dra_placed_t ***out);

#endif
