/*
 * The mutations of docs/rules.md#mutations as data: one table of {id, doc, function}. Each function edits the planned GPU
 * resources of one container (what its requests and limits will hold once the patch is applied); one diff then
 * turns every container's plan into the minimal JSON Patch (patch.h): a missing `resources`, `requests` or
 * `limits` map added whole, keys escaped, nothing else touched.
 *
 * Legend:
 *   id     stable mutation id, what verdicts (gpa_verdict_t.mutations) and test suites name
 *   doc    one line for listings and the README
 *   apply  edits ctx's plan for one container; returns 1 when it changed something, 0 otherwise
 *
 * Which containers: app and init containers of every Pod spec of the object, and only those for which
 * gpa_validate_container() (validate.h) finds nothing: a container that breaks a rule is left as written so that
 * validation can say why. A mutation the configuration switches off (`mutations`, config.h) is never run; the ids
 * follow mutation_ids.h. A user's own gpu.shared is never changed. The caller (gpa_check) decides when: a CREATE
 * is patched, an UPDATE is only judged as the mutations would leave it. Idempotent: mutating the patched object again yields an
 * empty patch, and after the patch every GPU resource the plan touches has request == limit.
 */
#ifndef GPA_MUTATE_H
#define GPA_MUTATE_H

#include <stddef.h>

#include "base/arena.h"
#include "policy/config.h"
#include "policy/verdict.h"
#include "kube/model.h"
#include "document/patch.h"

typedef struct st_gpa_mutate_ctx_t gpa_mutate_ctx_t; /* mutate.c: one container's plan */

typedef struct st_gpa_mutation_t {
    const char *id;
    const char *doc;
    int (*apply)(gpa_mutate_ctx_t *ctx);
} gpa_mutation_t;

extern const gpa_mutation_t gpa_mutations[];
extern const size_t gpa_nmutations;

/* Index of a mutation id in gpa_mutations, or -1. */
int gpa_mutation_index(const char *id);

/*
 * Mutates every eligible container of obj. Appends the patch operations to `patch`, one warning per container and
 * mutation to `warnings` where the mutation warns (expand-gpu; origin GPA_WARNING_MUTATION with the mutation's id,
 * through gpa_warnings_add), and the ids applied (each once, in table order) to `applied`. Never fails: values the plan cannot read
 * are left alone. Everything appended is arena-owned; obj and its tree are only read.
 */
void gpa_mutate(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_object_t *obj, gpa_patch_t *patch, gpa_warnings_t *warnings,
                gpa_strings_t *applied);

#endif
