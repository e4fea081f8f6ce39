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

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

typedef enum en_gpa_operation_t {
    GPA_OP_CREATE,
    GPA_OP_UPDATE,
    GPA_OP_DELETE,
    GPA_OP_CONNECT,
} gpa_operation_t;

#define GPA_VIOLATION_MAX_RESOURCES 4

/* One finding of one rule. */
typedef struct st_gpa_violation_t {
    const char *rule;                                   /* rule id (static) */
    gpa_action_t action;                                /* GPA_ACTION_DENY or GPA_ACTION_WARN (rules that are off report nothing) */
    const char *container;                              /* the container's name, or NULL for a Pod-level finding not tied to one */
    const char *path;                                   /* exact path in the object: "spec.containers[1].resources.requests" */
    const char *resources[GPA_VIOLATION_MAX_RESOURCES]; /* the resource/annotation names involved */
    size_t nresources;
    const char *message; /* one line: what is wrong and how to fix it */
} gpa_violation_t;

typedef struct st_gpa_violations_t {
    gpa_violation_t *items;
    size_t len, cap;
} gpa_violations_t;

typedef struct st_gpa_strings_t {
    const char **items;
    size_t len, cap;
} gpa_strings_t;

typedef struct st_gpa_verdict_t {
    int allowed;                 /* no finding with action deny */
    gpa_violations_t violations; /* every finding that counts (deny and warn), in rule-table then path order */
    gpa_strings_t warnings;      /* AdmissionResponse warnings: one line each, < 120 bytes, no "Warning:" prefix */
    gpa_strings_t mutations;     /* ids of the mutations applied, each once, in table order */
    gpa_patch_t patch;           /* the JSON Patch the mutations produce (empty when none) */
    gpa_value_t *mutated;        /* the object after the patch (the input root when the patch is empty) */
} gpa_verdict_t;

typedef struct st_gpa_check_opts_t {
    gpa_operation_t operation;        /* DELETE and CONNECT are always admitted with no findings */
    gpa_object_t *old_object;         /* UPDATE: a finding the old object already had (same rule, same container) does
                                         not count */
    int mutate;                       /* apply the mutations first (CREATE only), then validate the mutated object */
    int validate;                     /* run the validation rules */
    const gpa_inventory_t *inventory; /* enables the infeasible rule; NULL = no inventory */
} gpa_check_opts_t;

/*
 * Checks one object. Returns 0 with *out filled, or -1 with err when the mutated object cannot be re-read
 * (an internal fault, never a verdict). Objects in excluded namespaces and objects with no Pod spec come back
 * allowed, untouched, with no findings.
 */
int gpa_check(gpa_arena_t *a, const gpa_config_t *cfg, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *out,
              gpa_error_t *err);

/* "container: rule: message" for a finding, or "rule: message" with no container; arena-owned. */
const char *gpa_violation_line(gpa_arena_t *a, const gpa_violation_t *v);

#endif
