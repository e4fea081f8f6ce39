/*
 * What the engine says about one object (gpa_check, engine.h): the findings of the rules, the warnings, the
 * mutations applied and the patch. Every front end (webhook, validate, mutate, review, test) reads this type.
 *
 * Ownership: everything a verdict points to lives in the arena gpa_check was given (or is static: rule and
 * mutation ids).
 */
#ifndef GPA_VERDICT_H
#define GPA_VERDICT_H

#include <stddef.h>

#include "base/arena.h"
#include "document/patch.h"
#include "document/value.h"

typedef enum en_gpa_action_t {
    GPA_ACTION_DENY,
    GPA_ACTION_WARN,
    GPA_ACTION_OFF,
} gpa_action_t;

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

/* "container: rule: message" for a finding, or "rule: message" with no container; arena-owned. */
const char *gpa_violation_line(gpa_arena_t *a, const gpa_violation_t *v);

#endif
