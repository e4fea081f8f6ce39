/*
 * The validation rules as data (docs/rules.md#rules): one table of {id, dialects, scope, default action, check, doc}.
 * Adding a rule is one row in rules.c and one check function, gpa_rule_<id> (rule_checks.h), in the file of
 * its family. The drivers that run the table are validate.h's; configurations index actions by the table.
 *
 * Legend:
 *   id        stable rule id, what configurations, messages and tests name
 *   dialects  the GPA_DIALECT_* bits whose resources the rule reads (a rule runs when any is enabled)
 *   scope     CONTAINER: checked per container (app and init); POD: checked once per Pod spec; BOTH: per
 *             container, then once on the Pod-level totals (Kubernetes' PodRequests rule, the scheduler's view);
 *             OBJECT: only on resource.k8s.io objects (no Pod spec; `check` NULL)
 *   action    the default action (deny unless stated otherwise)
 *   check     appends findings through gpa_rule_ctx_t (rule_ctx.h, private to policy)
 *   doc       one line for `gpuadmit rules`-style listings and the README
 *   on_dra    optional: checked once on a resource.k8s.io object (gpa_object_t.dra set, the claim a controller made
 *             excepted), with no Pod spec (ctx->pod NULL): where a rule's DRA part judges claims, templates, classes
 *
 * Ownership: the table and its strings are static.
 */
#ifndef GPA_RULES_H
#define GPA_RULES_H

#include <stddef.h>

#include "policy/verdict.h"

typedef enum en_gpa_scope_t {
    GPA_SCOPE_CONTAINER,
    GPA_SCOPE_POD,
    GPA_SCOPE_BOTH,
    GPA_SCOPE_OBJECT,
} gpa_scope_t;

typedef struct st_gpa_rule_ctx_t gpa_rule_ctx_t;

typedef struct st_gpa_rule_t {
    const char *id;
    unsigned dialects;
    gpa_scope_t scope;
    gpa_action_t action;
    void (*check)(gpa_rule_ctx_t *ctx);
    const char *doc;
    void (*on_dra)(gpa_rule_ctx_t *ctx);
} gpa_rule_t;

extern const gpa_rule_t gpa_rules[];
extern const size_t gpa_nrules;

/* Index of a rule id in gpa_rules, or -1. */
int gpa_rule_index(const char *id);

#endif
