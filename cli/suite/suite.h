/*
 * Test suites (`gpuadmit test`, README.md#the-cli, issue 5): files named gpuadmit-test.yaml that pair objects with the
 * verdict the cluster must give them. This module reads a suite (every reference resolved, every file read and
 * parsed up front, so a broken suite fails before anything runs), runs its cases through the engine exactly as
 * the cluster would (gpa_decode_object + gpa_check; an AdmissionReview case through the webhook's own
 * gpa_review, HTTP 400s included), and compares what the engine said with what was expected.
 * Printing (table, JSON, JUnit) is cli/test.c's job.
 *
 * Format (docs/testing.md is the manual):
 *
 *   apiVersion: gpuadmit.io/v1alpha1
 *   kind: Test
 *   name: team-a-gpu-requests
 *   config: config.yaml              # optional (README.md#configuration); every path is relative to the suite file
 *   inventory: cluster.yaml          # optional: a path or a list of paths (one inventory)
 *   resources: [pods.yaml]           # optional: files whose objects cases name as Kind/namespace/name
 *   cases:
 *   - name: trainer
 *     object: Pod/default/trainer    # or object: {file: F} / {inline: {...}}, or file: F, or inline: {...}
 *     operation: CREATE              # CREATE (default) | UPDATE (needs oldObject, given the same ways) |
 *                                    # DELETE | CONNECT; an AdmissionReview file brings its own
 *     mutate: true                   # default true: mutation first (CREATE), as the cluster runs it
 *     webhook: validate              # AdmissionReview cases only: answered by this webhook alone (default:
 *                                    # mutating then validating, as the cluster calls them)
 *     expect:
 *       allowed: false               # required
 *       rules: [memory-ratio-exclusive]  # optional: exactly this set of rule ids (deny and warn findings)
 *       warnings: ["deprecated"]     # optional: each a substring of some warning
 *       mutations: [inject-gpu-shared]   # optional: exactly this set of mutation ids
 *       patched: trainer-patched.yaml    # optional: the object after mutation equals this one (as trees)
 *       placement:                   # optional: what `gpuadmit fit` would choose for the object's one Pod template,
 *                                    # or (DRA) for a ResourceClaim, a template, or the claims a Pod's templates make
 *         now: false                 # default false: nodes taken empty (fit); true: current usage counts (fit --now)
 *         node: node-a               # required: the node chosen, or null when no node takes the Pod (DRA: never)
 *         minors: [0, 1]             # optional: the minors of the Pod's device shares, in fit's order
 *         annotations: {k: v}        # optional: each annotation fit prints equals this value
 *         devices: [pool/device]     # optional (DRA): the devices fit names, claim by claim, request by request
 *         reason: "at most 8"        # optional (DRA, node null): a substring of why fit says no node ever takes it
 *
 * Files: every path is relative to the suite file's directory and must resolve under it (see
 * gpa_suite_load_from for the folders that may be allowed besides).
 *
 * Errors: an unknown field, a wrong type, a missing file, a file outside the suite's directory, a reference to no object (or to
 * two), an unknown rule or mutation id all fail the load with gpa_error_t naming the file, line and column.
 *
 * Ownership: a gpa_suite_t owns an arena holding every document and string it read, and one reference to
 * its configuration and inventory; gpa_suite_dispose() releases all of it.
 */
#ifndef GPA_CLI_SUITE_H
#define GPA_CLI_SUITE_H

#include <stddef.h>

#include "base/arena.h"
#include "policy/config.h"
#include "policy/engine.h"
#include "base/error.h"
#include "inventory/inventory.h"
#include "document/value.h"

#define GPA_SUITE_API_VERSION "gpuadmit.io/v1alpha1"
#define GPA_SUITE_KIND "Test"
#define GPA_SUITE_FILE_NAME "gpuadmit-test.yaml"

#define GPA_SUITE_HOOK_MUTATE 1u
#define GPA_SUITE_HOOK_VALIDATE 2u

/* A list of strings from the suite (arena-owned). */
typedef struct st_gpa_suite_strs_t {
    const char **items;
    size_t len;
} gpa_suite_strs_t;

typedef struct st_gpa_suite_expect_t {
    int allowed;
    int has_rules; /* `rules:` given (an empty list means "no findings at all") */
    gpa_suite_strs_t rules;
    gpa_suite_strs_t warnings; /* substrings; empty = not checked */
    int has_mutations;
    gpa_suite_strs_t mutations;
    const char *patched_file; /* as resolved (relative to the working directory), or NULL */
    gpa_value_t *patched;     /* its one object */
    int has_placement;        /* `placement:` given: checked against gpa_alloc_place, as `gpuadmit fit` places */
    int placement_now;        /* count current usage (fit --now) */
    const char *node;         /* the node expected, or NULL: no node takes the Pod */
    int has_minors;
    gpa_suite_strs_t minors;   /* decimal minors as written (validated integers), in fit's order */
    gpa_suite_strs_t ann_keys; /* annotations expected (each equal), keys and values index by index */
    gpa_suite_strs_t ann_values;
    int has_devices;
    gpa_suite_strs_t devices; /* DRA: "pool/device" as fit names them, in its order */
    const char *reason;       /* DRA, node NULL: a substring of each claim's reason, or NULL */
} gpa_suite_expect_t;

typedef struct st_gpa_suite_case_t {
    const char *name;
    unsigned line;           /* of the case in the suite file */
    const char *object_desc; /* "Pod/default/trainer", "file pod.yaml", "inline" (for messages) */
    gpa_value_t *object;     /* the object (NULL only for an AdmissionReview without one, or one that does not read) */
    const char *object_file; /* the file it was read from (the suite file for inline objects) */
    gpa_value_t *old_object; /* UPDATE/DELETE: the old object, else NULL */
    const char *old_file;
    const char *ns; /* an AdmissionReview's request.namespace, else NULL (the object's own) */
    gpa_operation_t operation;
    int mutate;
    gpa_value_t *review; /* an AdmissionReview case: the review, answered by gpa_review (review.h); else NULL */
    unsigned hooks;      /* AdmissionReview cases: GPA_SUITE_HOOK_* bits, the webhooks that answer, mutating first */
    gpa_suite_expect_t expect;
} gpa_suite_case_t;

typedef struct st_gpa_suite_t {
    const char *file; /* the suite file as given */
    const char *name;
    gpa_config_t *config;       /* one reference (the defaults when the suite names none) */
    gpa_inventory_t *inventory; /* one reference, or NULL */
    gpa_suite_case_t *cases;
    size_t ncases;
    gpa_arena_t arena; /* owns the documents, cases and strings */
} gpa_suite_t;

/*
 * Reads and resolves the suite at `path`. Returns 0 with *suite filled, or -1 with err set (file, line,
 * column, place in the suite, message). err->source may point into the suite's arena: format the error before
 * calling gpa_suite_dispose(), which the caller calls in either case.
 */
int gpa_suite_load(const char *path, gpa_suite_t *suite, gpa_error_t *err);

/* The most bytes one file a suite reads may have (the suite file, its config, inventory, resources, objects). */
#define GPA_SUITE_MAX_FILE_BYTES ((size_t)16 << 20)

/*
 * As gpa_suite_load, with more folders a suite may read from. By default a suite reads only regular files
 * under its own directory: every path it names (relative, absolute, through `..` or a symlink) is resolved
 * (realpath) and must lie under the suite file's directory, or under one of the `allow` folders (borrowed,
 * nallow of them; `gpuadmit test --allow-read DIR`), so that a suite in a pull request cannot make CI read
 * and print a file of the runner (docs/decisions.md). A path outside, a file that is not a regular one, or
 * one larger than GPA_SUITE_MAX_FILE_BYTES fails the load, naming the path and never its content.
 */
int gpa_suite_load_from(const char *path, const char *const *allow, size_t nallow, gpa_suite_t *suite, gpa_error_t *err);
/* Releases everything the suite holds; a zeroed or already-disposed suite is fine. */
void gpa_suite_dispose(gpa_suite_t *suite);

/* What one case gave, and whether that is what it expected. */
typedef struct st_gpa_suite_result_t {
    const gpa_suite_t *suite;   /* borrowed */
    const gpa_suite_case_t *tc; /* borrowed */
    int passed;
    int error;                    /* the engine could not decode or check the object (see differences) */
    int http_status;              /* AdmissionReview cases: 400 when a webhook refused the review (then not allowed) */
    int allowed;                  /* the verdict (when !error) */
    gpa_suite_strs_t rules;       /* rule ids found (deny and warn), sorted, each once */
    gpa_suite_strs_t warnings;    /* the verdict's warnings, in order */
    gpa_suite_strs_t mutations;   /* mutation ids applied, sorted */
    gpa_suite_strs_t findings;    /* one line per finding: "path container: rule: message" */
    gpa_suite_strs_t differences; /* one line per unmet expectation; empty when passed */
    const char *expected;         /* "deny [rule-a, rule-b]" summary for tables */
    const char *got;              /* the same for what the engine said, or "error" */
} gpa_suite_result_t;

/*
 * Runs one case through the engine with the suite's configuration and inventory and compares. An AdmissionReview
 * case is answered by gpa_review, the webhook's own function: by the mutating webhook, then the validating one on
 * the patched object (or the one `webhook` names). Its verdict is the last answer's allowed and findings, the
 * warnings of both, the mutating answer's mutations and object; an HTTP 400 counts as not allowed, no findings. A case with
 * expect.placement also places the admitted (mutated) object's one Pod template with gpa_alloc_place, as `gpuadmit fit`
 * does (the suite's inventory and configuration; current usage when `now`), and compares node, minors and annotations;
 * a DRA claim or template, or each claim a Pod's templates make, with gpa_dra_place, comparing node and devices.
 * Everything in
 * *out is allocated from `a` (the caller's, one per run), which must outlive the result; the case's documents
 * are copied into `a` before decoding, so the suite is never modified.
 */
void gpa_suite_run_case(gpa_arena_t *a, const gpa_suite_t *suite, const gpa_suite_case_t *tc, gpa_suite_result_t *out);

/*
 * The suite files under each path: a file is taken as a suite whatever its name; a directory is searched
 * recursively for files named gpuadmit-test.yaml (or .yml), in sorted order. Appends heap paths (caller frees
 * each and the array) to *files. Returns 0, or -1 with err when a path does not exist or cannot be read.
 */
int gpa_suite_find(const char *path, char ***files, size_t *nfiles, gpa_error_t *err);

#endif
