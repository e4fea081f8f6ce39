/*
 * The drivers that run the rule table (rules.h): every rule on an object, or the container-level predicate
 * that mutation and shared-required share.
 *
 * Ownership: findings and their strings are allocated from the arena passed in; the object, Pod spec and
 * configuration are only read.
 */
#ifndef GPA_VALIDATE_H
#define GPA_VALIDATE_H

#include <stddef.h>

#include "base/arena.h"
#include "kube/gpu_request.h"
#include "kube/model.h"
#include "policy/config.h"
#include "policy/verdict.h"
#include "alloc/placement.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

/*
 * Validates one object as written: every rule whose configured action is not off, on every Pod spec,
 * appending findings (with their configured action) to out. `inv` may be NULL (no infeasible rule). The
 * infeasible rule's searches, over every Pod spec, take their steps from `budget` (borrowed; NULL = one budget
 * of GPA_ALLOC_BUDGET_STEPS for this call).
 */
void gpa_validate_object(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget,
                         const gpa_object_t *obj, gpa_violations_t *out);
/* The same, with what the cluster is known to hold (kube/dra.h; NULL: nothing), which the DRA rules read: a
 * resource.k8s.io object gets the rules' on_dra checks (rules.h). */
void gpa_validate_object_known(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, const gpa_dra_known_t *known,
                               gpa_alloc_budget_t *budget, const gpa_object_t *obj, gpa_violations_t *out);

/*
 * The container-level findings of one container other than shared-required, from rules whose action is deny.
 * Mutation uses it to decide whether a container may be mutated (only when this is 0) and shared-required
 * uses the same predicate, so the two never disagree. Rules at warn do not count: a rule rolled out as warn
 * must change nothing but the warnings (its containers are still made canonical). Appends to out when
 * out != NULL; returns the count.
 */
size_t gpa_validate_container(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_container_t *c,
                              gpa_violations_t *out);

/* gpa_validate_container with the Pod's facts already computed: callers that visit every container of a Pod
 * compute them once, not once per container (which made a Pod of n containers cost n^2). */
size_t gpa_validate_container_facts(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_pod_facts_t *facts,
                                    const gpa_container_t *c, gpa_violations_t *out);

#endif
