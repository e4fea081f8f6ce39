/*
 * Which kinds gpuadmit reads, and where in each it finds Pods (docs/rules.md#objects): one table of
 * {group, kind, paths}, built in, that a configuration extends (`workloads`, README.md#configuration).
 *
 * A kind is matched by API group and kind together, any version: `apps/v1` Deployment is a Deployment,
 * `example.com/v1` Deployment is not; an apiVersion without a slash (`v1`) is the core group "".
 *
 * Paths: steps joined by dots. A step is a mapping key (`template`), a key followed by `[*]` (every item of the
 * list under that key: `tasks[*]`), or `*` (every value of a mapping: `pytorchReplicaSpecs.*`). The empty path
 * names the object itself. Each path names one of:
 *   - a Pod template: a mapping with `metadata` (its annotations are the Pod's) and `spec` (a PodSpec);
 *   - a PodSpec: containers, initContainers, nodeSelector, affinity, with no metadata of its own;
 *   - a ResourceRequirements (requests, limits), read as one container (see gpa_workload_node_t.owner).
 *
 * Ownership: the built-in table is static; a configuration's table lives in the configuration's arena and is
 * borrowed by decode for the duration of a call.
 */
#ifndef GPA_WORKLOADS_H
#define GPA_WORKLOADS_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"
#include "kube/resource.h"

typedef struct st_gpa_workload_t {
    const char *group; /* "" for the core group */
    const char *kind;
    /* NULL-terminated lists of paths (NULL: none). */
    const char *const *pod_templates;
    const char *const *pod_specs;
    const char *const *resources;
} gpa_workload_t;

/* A table of kinds: the built-in one, or a configuration's (read besides it: kube/decode.h's gpa_decode_opts_t). */
typedef struct st_gpa_workloads_t {
    const gpa_workload_t *items;
    size_t len;
} gpa_workloads_t;

/* The built-in table: Pod, PodTemplate, the apps and batch workloads, Volcano, KubeRay, LeaderWorkerSet, JobSet,
 * Kubeflow training operators and Trainer. */
extern const gpa_workloads_t gpa_workloads_builtin;

/*
 * The entry for (apiVersion, kind): `extra` first (a configuration's entries replace built-in ones of the same
 * group and kind), then the built-in table. NULL when gpuadmit does not read the kind. `extra` may be NULL.
 */
const gpa_workload_t *gpa_workload_find(const gpa_workloads_t *extra, const char *api_version, const char *kind);

/* 0 when `path` is well formed (see above); else -1 with *why set to a static reason. */
int gpa_workload_path_check(const char *path, const char **why);

/* One node a path names, as the walker hands it over (strings arena-owned). */
typedef struct st_gpa_workload_node_t {
    gpa_value_t *value;  /* never NULL, never null */
    const char *path;    /* "spec.tasks[1].template" ("" for the object itself) */
    const char *pointer; /* "/spec/tasks/1/template" */
    /* The name of the step before the last ("trainer" in spec.trainer.resourcesPerNode; "workers[2]" after a
     * list step; the map key after `*`), or the last step's when there is no earlier one: the name of a
     * ResourceRequirements read as a container. */
    const char *owner;
} gpa_workload_node_t;

typedef int (*gpa_workload_visit_cb)(void *ctx, const gpa_workload_node_t *node);

/*
 * Calls visit for every node `path` (well formed, gpa_workload_path_check) names in `root`, in document order.
 * A step that is missing or null names nothing (not every template is present in every object). A step that is
 * present with the wrong shape (a key under something that is not a mapping, `[*]` on something that is not a
 * list, `*` on something that is not a mapping) is unreadable input: -1 with err at that node (document/schema.h
 * wording). Returns 0, -1, or the first non-zero value visit returns.
 */
int gpa_workload_walk(gpa_arena_t *a, gpa_value_t *root, const char *path, gpa_workload_visit_cb visit, void *ctx,
                      gpa_error_t *err);

#endif
