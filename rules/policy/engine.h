/*
 * The engine's one entry point: an object and a configuration in, a verdict out. Every front end (webhook,
 * validate, mutate, review, test) calls gpa_check() and reads the same gpa_verdict_t.
 *
 * No I/O, clock, logging or globals: everything the verdict points to lives in the arena passed in.
 */
#ifndef GPA_ENGINE_H
#define GPA_ENGINE_H

#include "base/arena.h"
#include "policy/config.h"
#include "base/error.h"
#include "kube/model.h"
#include "document/patch.h"
#include "policy/verdict.h"
#include "alloc/placement.h"

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

typedef enum en_gpa_operation_t {
    GPA_OP_CREATE,
    GPA_OP_UPDATE,
    GPA_OP_DELETE,
    GPA_OP_CONNECT,
} gpa_operation_t;

typedef struct st_gpa_check_opts_t {
    gpa_operation_t operation;        /* DELETE and CONNECT are always admitted with no findings */
    gpa_object_t *old_object;         /* UPDATE: a finding the old object already had as a violation (same rule, same Pod
                                         spec path, same container or both Pod-level) does not count */
    int mutate;                       /* CREATE: apply the mutations first, then validate the mutated object. An UPDATE
                                         is never patched, and is always judged as the mutations (those the
                                         configuration leaves on) would leave it, the old object as well */
    int as_written;                   /* the object is judged as stored, no mutation will ever run on it (validate and
                                         audit --no-mutate): no rule counts on a mutation to fix what it sees (a Ray
                                         group with no count advertises 0 GPUs). Off for the webhook's /validate,
                                         which follows the mutating webhook */
    int validate;                     /* run the validation rules */
    const gpa_inventory_t *inventory; /* enables the infeasible rule; NULL = no inventory */
    /* What the cluster holds (kube/dra.h: the same input over the inventory's or live view's layer), borrowed; NULL:
     * nothing known (the DRA rules that need it stay silent). The object must have been decoded with the same
     * known classes (gpa_decode_opts_t.known), so that extended resources read alike. */
    const gpa_dra_known_t *known;
    size_t memory_bytes;        /* what the check may allocate beyond what its arena holds when it starts; past it
                                   every search stops, "could not prove" (0 = GPA_CHECK_MEMORY_BYTES) */
    gpa_alloc_budget_t *budget; /* borrowed: the search budget of every Pod template of the object (and of
                                   oldObject's); NULL = one of GPA_ALLOC_BUDGET_STEPS steps, no deadline */
    size_t keep_findings;       /* CREATE: hold at most this many findings of each action in out->violations, count
                                   the rest (gpa_violations_t.omitted); 0 = hold all. An UPDATE holds all: each is
                                   compared with the old object's */
} gpa_check_opts_t;

/*
 * Checks one object. Returns 0 with *out filled, or -1 with err when the mutated object cannot be re-read
 * (an internal fault, never a verdict). Objects in excluded namespaces and objects with no Pod spec come back
 * allowed, untouched, with no findings.
 */
int gpa_check(gpa_arena_t *a, const gpa_config_t *cfg, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *out,
              gpa_error_t *err);

#endif
