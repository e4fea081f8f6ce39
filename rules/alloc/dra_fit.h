/*
 * Could a DRA claim ever be allocated (docs/allocator.md#dra): Kubernetes' allocator (k8s.io/dynamic-resource-allocation
 * /structured) on empty devices, widened wherever gpuadmit cannot tell, so that "never" is always sound.
 *
 * For each request, in order, and each of its alternatives (`exactly`, or `firstAvailable`'s), the devices of complete
 * pools that the class's and the request's selectors admit (an unknown outcome counts as admitted), untainted or
 * tolerated, each with room for the capacity asked after `requestPolicy` rounding and within its own counter set; a
 * request is met on a node that holds `count` such devices (one at least for `All`). Devices offered to any node
 * (`allNodes`, a node selector) count on every node. On a node that meets every request, `matchAttribute` and
 * `distinctAttribute` are checked by a necessary condition, then a bounded search (the scheduler's backtracking) looks
 * for devices of their own for all the requests together: a whole device serves once, a shared one while the sum of
 * what its requests consume (every capacity: asked, its policy's default, or the whole) fits, counter sets hold what
 * the chosen devices consume, constraints hold, at most 32 devices. The claim never fits when no node passes.
 *
 * Widened (never a denial where Kubernetes could allocate): Node labels are not matched against device node
 * selectors, a selector outside the CEL subset admits, a constraint on a list attribute holds. A class that admits no
 * published device, a class or a quantity gpuadmit cannot read, a selector that fails (dra-cel's), an `All` request
 * the search cannot serve, or a budget spent: unknown (the search proves nothing, the claim fits).
 */
#ifndef GPA_DRA_FIT_H
#define GPA_DRA_FIT_H

#include <stdint.h>

#include "alloc/placement.h"
#include "base/arena.h"
#include "cel/cel.h"
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
 * The same with what allocated claims hold (pools->use, dra_pools.h): a device that does not allow several allocations
 * is taken while a claim holds it; one that does has what they consumed less of each capacity the request names; a
 * device not held has what the held devices consume of its counter sets less (MIG devices that overlap one held).
 * NEVER here and FITS above: no room now.
 */
gpa_dra_fit_t gpa_dra_fits_now(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known,
                               const gpa_dra_devices_t *devices, gpa_alloc_budget_t *budget, const char **reason);

/* One request's devices in a placement (gpa_dra_place). */
typedef struct st_gpa_dra_pick_t {
    const char *request; /* the request's name; "request/alternative" for a firstAvailable one */
    const gpa_dra_placed_t **devices;
    const char **consumed; /* per device: what a request takes of a shared device ("memory 8Gi"), NULL for a whole one */
    size_t ndevices;
} gpa_dra_pick_t;

typedef struct st_gpa_dra_placement_t {
    gpa_dra_fit_t fit;  /* gpa_dra_ever_fits's answer; with `now`, NEVER also where gpa_dra_fits_now's is; UNKNOWN
                           where it fits only because a request cannot be judged (*reason names it) */
    int no_room_now;    /* NEVER with `now` only: it fits on free devices */
    const char *reason; /* NEVER: why; FITS with no picks: why no devices are named */
    /* FITS: the first node (by name) whose devices serve every request, each with devices of its own (a device that
     * allows several allocations may serve several); NULL with picks: devices offered to any node; no picks: none named */
    const char *node;
    gpa_dra_pick_t *picks; /* one per request, in order */
    size_t npicks;
} gpa_dra_placement_t;

/* What `gpuadmit fit` says of a claim's devices: whether it fits and, when it does, the devices it could take, in the
 * arena. `now`: what allocated claims hold is taken (gpa_dra_fits_now). */
void gpa_dra_place(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_devices_t *devices,
                   int now, gpa_alloc_budget_t *budget, gpa_dra_placement_t *out);

/*
 * The claims one Pod's templates make (claims[i], named names[i] in the Pod) as one claim, for gpa_dra_ever_fits: the
 * scheduler allocates every claim of a Pod on the node it picks, a device to one claim (a shared one within its
 * capacity). Each request is renamed "<claim>/<request>", each constraint names its own claim's requests only, and
 * the allocation may hold GPA_DRA_MAX_RESULTS devices per claim. In a (borrowing the claims' records); NULL when
 * there is no request.
 */
const gpa_dra_devices_t *gpa_dra_devices_merge(gpa_arena_t *a, const char *const *names, const gpa_dra_devices_t *const *claims,
                                               size_t n);
/*
 * The n claims of a Pod placed together as the scheduler allocates them (gpa_dra_devices_merge, then gpa_dra_place):
 * 1 when that is `fit`'s answer, *out naming each request's devices (as "<claim>/<request>") or saying they never fit
 * together; 0 when each claim is to be placed alone (fewer than two, a request gpuadmit cannot judge, a search cut
 * short).
 */
int gpa_dra_place_together(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const char *const *names,
                           const gpa_dra_devices_t *const *claims, size_t n, int now, gpa_alloc_budget_t *budget,
                           gpa_dra_placement_t *out);

/*
 * Node by node, why the claim is not served there (explain): calls why(ctx, node, reason) for each node its devices
 * name (those offered to any node count on each) that does not meet every request, with each request it does not meet
 * ("; " between them), how many devices that request asks and how many the node has for it, and what left one out; a
 * node that meets every request and breaks a constraint names the constraint. `now`: what allocated claims hold is
 * taken. Returns how many nodes were named.
 */
size_t gpa_dra_why_not(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_devices_t *devices,
                       int now, gpa_alloc_budget_t *budget, void (*why)(void *ctx, const char *node, const char *reason),
                       void *ctx);

/*
 * What asking `requested` (NULL: the request names no amount of this capacity) of capacity c consumes (KEP-5075): with
 * a requestPolicy, the smallest valid amount at or above it (the next of validValues, min + n*step within validRange),
 * or the policy's default when none is asked; without one, the amount asked, or the whole capacity when none is. A
 * device that does not allow several allocations is taken whole, the request only filtering (`shared` 0). Returns 0
 * with *consumed, 1 when the device can never serve it (*why says so), -1 when an amount cannot be read.
 */
int gpa_dra_consumed(gpa_arena_t *a, const gpa_dra_device_capacity_t *c, int shared, const gpa_quantity_t *requested,
                     int64_t *consumed, const char **why);

/* The CEL cost the selectors may spend on one device (Kubernetes allows an estimated 10^6 per expression), and the
 * units a step of the request's budget pays for: a hostile selector on 10^5 devices stops with the budget. */
#define GPA_DRA_DEVICE_COST 100000u
#define GPA_DRA_COST_PER_STEP 1000u

/* What the scheduler's selectors say of one published device: its class's (cls), then, where those match or may, the
 * request's (req: NO_MATCH when not evaluated), with `which` and `why` of the request's selector it stopped at. */
typedef struct st_gpa_dra_selected_t {
    gpa_cel_outcome_t cls, req;
    size_t which;
    const char *why;
} gpa_dra_selected_t;

/* Evaluates cls[0..ncls) (none: a match) then req[0..nreq) on p, taking one step and one per GPA_DRA_COST_PER_STEP
 * units of CEL cost from budget. Returns 0, or -1 once the budget is spent (then *out says nothing). */
int gpa_dra_selected(gpa_arena_t *a, const gpa_cel_node_t *const *cls, size_t ncls, const gpa_cel_node_t *const *req, size_t nreq,
                     const gpa_dra_placed_t *p, gpa_alloc_budget_t *budget, gpa_dra_selected_t *out);

/* The devices of `pools` that e's class and selectors admit (an unknown outcome admits; a failing one does not), into
 * *out (arena-owned); 0 when none is, or when the class is not known, a selector does not parse or the budget is
 * spent (nothing can then be said of them). */
size_t gpa_dra_admitted(gpa_arena_t *a, const gpa_dra_pools_t *pools, const gpa_dra_known_t *known, const gpa_dra_exact_t *e,
                        gpa_alloc_budget_t *budget, const gpa_dra_placed_t ***out);

#endif
