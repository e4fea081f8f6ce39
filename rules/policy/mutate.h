/*
 * The mutations of docs/rules.md#mutations (their ids, defaults and docs: mutations.h). A container mutation edits the planned GPU
 * resources of one container (what its requests and limits will hold once the patch is applied); one diff then
 * turns every container's plan into the minimal JSON Patch (patch.h): a missing `resources`, `requests` or
 * `limits` map added whole, keys escaped, nothing else touched.
 *
 * A container mutation edits ctx's plan for one container and returns 1 when it changed something. The KubeRay
 * mutations (ray-num-gpus, ray-gpu-memory) edit a group of a RayCluster, RayJob or RayService instead: they add
 * keys the group lacks to its rayStartParams (or to its `resources` field when the group uses that field), judged
 * from its Ray container as the container mutations leave it (kube/ray.h). A mutation the configuration switches
 * off (`mutations`) does not run.
 *
 * Which containers: app and init containers of every Pod spec of the object, and only those for which
 * gpa_validate_container() (validate.h) finds nothing: a container that breaks a rule is left as written so that
 * validation can say why. A mutation the configuration switches off (`mutations`, config.h) is never run; the ids
 * are mutations.h's. A user's own gpu.shared is never changed. The caller (gpa_check) decides when: a CREATE
 * is patched, an UPDATE is only judged as the mutations would leave it. Idempotent: mutating the patched object again yields an
 * empty patch, and after the patch every GPU resource the plan touches has request == limit.
 */
#ifndef GPA_MUTATE_H
#define GPA_MUTATE_H

#include <stddef.h>

#include "base/arena.h"
#include "policy/config.h"
#include "policy/mutations.h"
#include "policy/verdict.h"
#include "kube/model.h"
#include "document/patch.h"
#include "alloc/placement.h"

typedef struct st_gpa_inventory_t gpa_inventory_t; /* inventory.h */

/* What the mutations may read beside the object and the configuration. */
typedef struct st_gpa_mutate_env_t {
    const gpa_inventory_t *inventory; /* ray-gpu-memory: the card memory where a group takes a part of each card by
                                         ratio (alloc/landing.h); NULL = no inventory (such a group gets nothing) */
    gpa_alloc_budget_t *budget;       /* borrowed: the request's search budget; NULL = a budget of the call's own */
} gpa_mutate_env_t;

/*
 * Mutates every eligible container of obj (env may be NULL: no inventory). Appends the patch operations to `patch`, one warning per
 * container and mutation to `warnings` where the mutation warns (expand-gpu; origin GPA_WARNING_MUTATION with the mutation's id,
 * through gpa_warnings_add), and the ids applied (each once, in table order) to `applied`. Never fails: values the plan cannot read
 * are left alone. Everything appended is arena-owned; obj and its tree are only read.
 */
void gpa_mutate(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_mutate_env_t *env, const gpa_object_t *obj, gpa_patch_t *patch,
                gpa_warnings_t *warnings, gpa_strings_t *applied);

#endif
