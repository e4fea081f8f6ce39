/*
 * The validation rules as data (SPEC §3): one table of {id, dialects, scope, default action, check, doc}.
 * Adding a rule is one row in rules.c and one check function in the file of its family.
 *
 * Legend:
 *   id        stable rule id, what configurations, messages and tests name
 *   dialects  the GPA_DIALECT_* bits whose resources the rule reads (a rule runs when any is enabled)
 *   scope     CONTAINER: checked per container (app and init); POD: checked once per Pod spec; BOTH: per
 *             container, then once on the Pod-level totals (Kubernetes' PodRequests rule, the scheduler's view)
 *   action    the default action (deny unless stated otherwise)
 *   check     appends findings through gpa_rule_ctx_t (rules_impl.h)
 *   doc       one line for `gpuadmit rules`-style listings and the README
 */
#ifndef GPA_RULES_H
#define GPA_RULES_H

#include <stddef.h>

#include "policy/config.h"
#include "policy/engine.h"

typedef enum en_gpa_scope_t {
    GPA_SCOPE_CONTAINER,
    GPA_SCOPE_POD,
    GPA_SCOPE_BOTH,
} gpa_scope_t;

typedef struct st_gpa_rule_ctx_t gpa_rule_ctx_t;

typedef struct st_gpa_rule_t {
    const char *id;
    unsigned dialects;
    gpa_scope_t scope;
    gpa_action_t action;
    void (*check)(gpa_rule_ctx_t *ctx);
    const char *doc;
} gpa_rule_t;

extern const gpa_rule_t gpa_rules[];
extern const size_t gpa_nrules;

/* Index of a rule id in gpa_rules, or -1. */
int gpa_rule_index(const char *id);

/*
 * Validates one object as written: every rule whose configured action is not off, on every Pod spec,
 * appending findings (with their configured action) to out. `inv` may be NULL (no infeasible rule).
 */
void gpa_validate_object(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, const gpa_object_t *obj,
                         gpa_violations_t *out);

/*
 * The container-level findings of one container other than shared-required, from rules whose action is deny.
 * Mutation uses it to decide whether a container may be mutated (only when this is 0) and shared-required
 * uses the same predicate, so the two never disagree. Rules at warn do not count: a rule rolled out as warn
 * must change nothing but the warnings (its containers are still made canonical). Appends to out when
 * out != NULL; returns the count.
 */
size_t gpa_validate_container(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_container_t *c,
                              gpa_violations_t *out);

#endif
