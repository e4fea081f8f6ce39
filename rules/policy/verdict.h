/*
 * What the engine says about one object (gpa_check, engine.h): the findings of the rules, the warnings with
 * where each came from, the mutations applied and the patch. Every front end (webhook, validate, mutate,
 * review, test) reads this one type and selects what it prints by a warning's origin, never by its text.
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
    const char *pod;                                    /* the Pod spec's path ("spec.template.spec"): with rule and container,
                                                           what a finding is (gpa_violation_same) */
    const char *path;                                   /* exact path in the object: "spec.containers[1].resources.requests" */
    const char *resources[GPA_VIOLATION_MAX_RESOURCES]; /* the resource/annotation names involved */
    size_t nresources;
    const char *message; /* one line: what is wrong and how to fix it */
    int not_now;         /* infeasible only: no node has room right now (always a warning, whatever the action) */
} gpa_violation_t;

/* Findings of one rule at one action that a vector counted but did not hold (gpa_violations_hold). */
typedef struct st_gpa_omitted_t {
    const char *rule; /* the rule's id (static) */
    gpa_action_t action;
    size_t count;
} gpa_omitted_t;

/*
 * Findings. With keep == 0 (a zeroed vector) every finding is held in items. With keep != 0 at most `keep` of each
 * action (deny, warn) are held and the rest are only counted, by rule and action, in omitted: an answer that
 * spells out 20 findings does not build the other 48,780, yet its verdict, its "and N more" and the metrics
 * count every one (docs/webhook.md#limits).
 */
typedef struct st_gpa_violations_t {
    gpa_violation_t *items;
    size_t len, cap;
    size_t keep;
    size_t held[2]; /* [action]: findings held, deny and warn (counted when keep != 0) */
    GPA_VEC(gpa_omitted_t) omitted;
} gpa_violations_t;

/* Whether a finding of `rule` at `action` is to be held in v (push it then); if not, it is counted as omitted. */
int gpa_violations_hold(gpa_arena_t *a, gpa_violations_t *v, const char *rule, gpa_action_t action);
/* Findings at `action` that v counted without holding them. */
size_t gpa_violations_omitted(const gpa_violations_t *v, gpa_action_t action);

typedef struct st_gpa_strings_t {
    const char **items;
    size_t len, cap;
} gpa_strings_t;

/* Where an admission warning came from. */
typedef enum en_gpa_warning_origin_t {
    GPA_WARNING_MUTATION, /* a mutation that warns (expand-gpu): .mutation is its id */
    GPA_WARNING_RULE,     /* a finding of a rule whose action is warn: .violation indexes verdict.violations */
    GPA_WARNING_NOT_NOW,  /* the allocator: no node has room right now (infeasible); .violation as for RULE */
} gpa_warning_origin_t;

/* One AdmissionResponse warning and its origin. */
typedef struct st_gpa_warning_t {
    gpa_warning_origin_t origin;
    const char *text;     /* one line, < 120 bytes, no "Warning:" prefix: what the API server shows */
    const char *mutation; /* MUTATION: the mutation's id (static); else NULL */
    size_t violation;     /* RULE, NOT_NOW: index of the finding in gpa_verdict_t.violations */
    const char *whole;    /* the same line uncut (one line, no "Warning:" prefix): what the CLI prints; the 120-byte
                             limit is kube-apiserver's, for the webhook's answers only */
} gpa_warning_t;

typedef struct st_gpa_warnings_t {
    gpa_warning_t *items;
    size_t len, cap;
    size_t *index_, nindex_; /* gpa_warnings_add's: 1 + the position of each whole line, by its hash (NULL: none yet) */
} gpa_warnings_t;

typedef struct st_gpa_verdict_t {
    int allowed;                 /* no finding with action deny */
    gpa_violations_t violations; /* every finding that counts (deny and warn), in rule-table then path order */
    gpa_warnings_t warnings;     /* AdmissionResponse warnings, mutation warnings first, each line once */
    gpa_strings_t mutations;     /* ids of the mutations applied, each once, in table order */
    gpa_patch_t patch;           /* the JSON Patch the mutations produce (empty when none) */
    gpa_value_t *mutated;        /* the object after the patch (the input root when the patch is empty) */
} gpa_verdict_t;

/* Whether a finding blocks: action deny (a "no room now" finding is always a warning). */
static inline int gpa_violation_denies(const gpa_violation_t *v)
{
    return v->action == GPA_ACTION_DENY && !v->not_now;
}

/* Whether two findings are the same finding of two versions of an object (UPDATE): the same rule, on the same Pod
 * spec path, in the same container or both at the Pod level. Messages and exact paths may differ. */
int gpa_violation_same(const gpa_violation_t *x, const gpa_violation_t *y);

/* "container: rule: message" for a finding, or "rule: message" with no container; arena-owned. */
const char *gpa_violation_line(gpa_arena_t *a, const gpa_violation_t *v);

/* Whether a warning repeats a finding of verdict.violations (origin RULE or NOT_NOW): a report that lists the
 * findings already says it. */
static inline int gpa_warning_is_finding(const gpa_warning_t *w)
{
    return w->origin == GPA_WARNING_RULE || w->origin == GPA_WARNING_NOT_NOW;
}

/*
 * Appends a warning with its origin: `line` becomes one AdmissionResponse warning (control characters become
 * spaces, a leading "Warning:" is dropped, a long line is cut on a UTF-8 boundary with "..." to stay under 120
 * bytes) in .text, and stays whole in .whole. A line that comes out empty, or whose whole line is already in
 * `warnings`, is not added (the same line from two templates says nothing new). Both texts are arena-owned.
 */
void gpa_warnings_add(gpa_arena_t *a, gpa_warnings_t *warnings, gpa_warning_origin_t origin, const char *line, const char *mutation,
                      size_t violation);

#endif
