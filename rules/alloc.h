/*
 * The normalizing allocator: places a canonical request (normalize.h) on an inventory's devices (SPEC §5).
 * Shared by the `infeasible` rule (validate, review, serve) and `gpuadmit fit`.
 */
#ifndef GPA_ALLOC_H
#define GPA_ALLOC_H

#include "arena.h"
#include "config.h"
#include "model.h"
#include "normalize.h"

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

typedef enum en_gpa_fit_t {
    GPA_FIT_OK,      /* some node has room now */
    GPA_FIT_NOT_NOW, /* some node could hold it empty, none has room with current usage */
    GPA_FIT_NEVER,   /* no node could hold it even empty */
} gpa_fit_t;

/*
 * Feasibility for the infeasible rule. *reason (arena-owned, one line) says why for NOT_NOW and NEVER: the
 * closest node's first reason.
 */
gpa_fit_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_config_t *cfg, const gpa_podspec_t *pod,
                             const gpa_request_t *req, const char **reason);

#endif
