/*
 * The kinds gpuadmit reads and the path walker (workloads.h). The table is the one place a kind is added
 * (docs/DEVELOPERS.md, "How to add a kind"); docs/rules.md#objects lists it for users.
 */
#include "kube/workloads.h"

#include "document/patch.h"
#include "document/schema.h"

#include <string.h>

#define PATHS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* KubeRay's cluster spec, at the root of RayCluster's spec and under RayJob's and RayService's. */
#define RAY_CLUSTER(under) PATHS(under ".headGroupSpec.template", under ".workerGroupSpecs[*].template")
#define APPS(k)                                                                                                                    \
    {                                                                                                                              \
        "apps", k, PATHS("spec.template"), NULL, NULL                                                                              \
    }
#define KUBEFLOW(k, key)                                                                                                           \
    {                                                                                                                              \
        "kubeflow.org", k, PATHS("spec." key ".*.template"), NULL, NULL                                                            \
    }
#define TRAINER_RUNTIME(k)                                                                                                         \
    {                                                                                                                              \
        "trainer.kubeflow.org", k, PATHS("spec.template.spec.replicatedJobs[*].template.spec.template"), NULL, NULL                \
    }

static const gpa_workload_t builtin[] = {
    {"", "Pod", PATHS(""), NULL, NULL},
    {"", "PodTemplate", PATHS("template"), NULL, NULL},
    APPS("Deployment"),
    APPS("ReplicaSet"),
    APPS("StatefulSet"),
    APPS("DaemonSet"),
    {"batch", "Job", PATHS("spec.template"), NULL, NULL},
    {"batch", "CronJob", PATHS("spec.jobTemplate.spec.template"), NULL, NULL},
    {"batch.volcano.sh", "Job", PATHS("spec.tasks[*].template"), NULL, NULL},
    {"batch.volcano.sh", "CronJob", PATHS("spec.jobTemplate.spec.tasks[*].template"), NULL, NULL},
    {"ray.io", "RayCluster", RAY_CLUSTER("spec"), NULL, NULL},
    {"ray.io", "RayJob", RAY_CLUSTER("spec.rayClusterSpec"), NULL, NULL},
    {"ray.io", "RayService", RAY_CLUSTER("spec.rayClusterConfig"), NULL, NULL},
    {"leaderworkerset.x-k8s.io", "LeaderWorkerSet",
     PATHS("spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate"), NULL, NULL},
    {"jobset.x-k8s.io", "JobSet", PATHS("spec.replicatedJobs[*].template.spec.template"), NULL, NULL},
    KUBEFLOW("PyTorchJob", "pytorchReplicaSpecs"),
    KUBEFLOW("TFJob", "tfReplicaSpecs"),
    KUBEFLOW("XGBoostJob", "xgbReplicaSpecs"),
    KUBEFLOW("PaddleJob", "paddleReplicaSpecs"),
    KUBEFLOW("MPIJob", "mpiReplicaSpecs"),
    TRAINER_RUNTIME("TrainingRuntime"),
    TRAINER_RUNTIME("ClusterTrainingRuntime"),
    {"trainer.kubeflow.org", "TrainJob", NULL, NULL, PATHS("spec.trainer.resourcesPerNode")},
};

const gpa_workloads_t gpa_workloads_builtin = {builtin, sizeof(builtin) / sizeof(builtin[0])};

/* Whether apiVersion names `group` ("apps/v1" names apps; "v1", with no slash, names the core group ""). */
static int group_is(const char *api_version, const char *group)
{
    const char *slash = strchr(api_version, '/');
    size_t n = slash != NULL ? (size_t)(slash - api_version) : 0;
    return strlen(group) == n && strncmp(api_version, group, n) == 0;
}

static const gpa_workload_t *find_in(const gpa_workloads_t *t, const char *api_version, const char *kind)
{
    for (size_t i = 0; t != NULL && i < t->len; i++)
        if (strcmp(t->items[i].kind, kind) == 0 && group_is(api_version, t->items[i].group))
            return &t->items[i];
    return NULL;
}

const gpa_workload_t *gpa_workload_find(const gpa_workloads_t *extra, const char *api_version, const char *kind)
{
    const gpa_workload_t *w = find_in(extra, api_version, kind);
    return w != NULL ? w : find_in(&gpa_workloads_builtin, api_version, kind);
}

/* ---- paths ----------------------------------------------------------------------------------------------------- */

/* Length of the step that starts `s` (up to the next dot or the end). */
static size_t step_len(const char *s)
{
    return strcspn(s, ".");
}

static int is_list_step(const char *s, size_t n)
{
    return n > 3 && memcmp(s + n - 3, "[*]", 3) == 0;
}

int gpa_workload_path_check(const char *path, const char **why)
{
    if (path[0] == '\0')
        return 0; /* the object itself */
    for (const char *s = path;; s++) {
        size_t n = step_len(s);
        size_t key = is_list_step(s, n) ? n - 3 : n;
        if (n == 0)
            return *why = "has an empty step (two dots, or a dot at either end)", -1;
        if (!(n == 1 && s[0] == '*') && strcspn(s, ".[]*") < key)
            return *why = "a step is a key, a key followed by [*], or *", -1;
        if (key == 0)
            return *why = "[*] must follow a key (spec.tasks[*])", -1;
        s += n;
        if (*s == '\0')
            return 0;
    }
}

typedef struct st_walk_t {
    gpa_arena_t *a;
    gpa_workload_visit_cb visit;
    void *ctx;
    gpa_error_t *err;
} walk_t;

/* A map key as a path step: `.key`, or `["key"]` when it holds anything but letters, digits, '-' and '_'. */
static const char *path_key(gpa_arena_t *a, const char *parent, const char *key)
{
    if (key[strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")] != '\0')
        return gpa_arena_printf(a, "%s[\"%s\"]", parent, key);
    return gpa_schema_path(a, parent, key);
}

static int walk(walk_t *w, gpa_value_t *v, const char *rest, const gpa_workload_node_t *at, const char *prev);

/* Walks on from `child`, found under `at` by the step named `name` (path and pointer already built). */
static int descend(walk_t *w, gpa_value_t *child, const char *rest, const char *path, const char *pointer, const char *name,
                   const gpa_workload_node_t *at)
{
    if (child == NULL || child->type == GPA_VNULL)
        return 0; /* absent here: this object has no such template */
    gpa_workload_node_t next = {child, path, pointer, name};
    return walk(w, child, rest, &next, at->owner);
}

/* `*`: every value of the mapping v. */
static int walk_values(walk_t *w, gpa_value_t *v, const char *rest, const gpa_workload_node_t *at)
{
    if (v->type != GPA_VOBJECT)
        return gpa_schema_want(w->err, v, GPA_VOBJECT, at->path);
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        int rc =
            descend(w, m->value, rest, path_key(w->a, at->path, m->key), gpa_patch_pointer(w->a, at->pointer, m->key), m->key, at);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* `key[*]`: every item of the list under key. */
static int walk_items(walk_t *w, gpa_value_t *v, const char *key, const char *rest, const gpa_workload_node_t *at)
{
    gpa_value_t *list = gpa_value_get(v, key);
    if (list == NULL || list->type == GPA_VNULL)
        return 0;
    const char *list_path = gpa_schema_path(w->a, at->path, key);
    if (list->type != GPA_VARRAY)
        return gpa_schema_want(w->err, list, GPA_VARRAY, list_path);
    for (size_t i = 0; i < list->u.array.len; i++) {
        const char *path = gpa_arena_printf(w->a, "%s[%zu]", list_path, i);
        const char *pointer = gpa_arena_printf(w->a, "%s/%s/%zu", at->pointer, key, i);
        int rc = descend(w, list->u.array.items[i], rest, path, pointer, gpa_arena_printf(w->a, "%s[%zu]", key, i), at);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* v is the node at `at`; `rest` the steps still to take; `prev` the name of the step before at's. */
static int walk(walk_t *w, gpa_value_t *v, const char *rest, const gpa_workload_node_t *at, const char *prev)
{
    if (*rest == '\0') {
        gpa_workload_node_t node = *at;
        node.owner = prev != NULL ? prev : at->owner != NULL ? at->owner : "";
        return w->visit(w->ctx, &node);
    }
    size_t n = step_len(rest);
    const char *after = rest[n] == '.' ? rest + n + 1 : rest + n;
    if (n == 1 && rest[0] == '*')
        return walk_values(w, v, after, at);
    if (v->type != GPA_VOBJECT)
        return gpa_schema_want(w->err, v, GPA_VOBJECT, at->path);
    if (is_list_step(rest, n))
        return walk_items(w, v, gpa_arena_strndup(w->a, rest, n - 3), after, at);
    const char *key = gpa_arena_strndup(w->a, rest, n);
    return descend(w, gpa_value_get(v, key), after, gpa_schema_path(w->a, at->path, key),
                   gpa_arena_printf(w->a, "%s/%s", at->pointer, key), key, at);
}

int gpa_workload_walk(gpa_arena_t *a, gpa_value_t *root, const char *path, gpa_workload_visit_cb visit, void *ctx, gpa_error_t *err)
{
    walk_t w = {a, visit, ctx, err};
    gpa_workload_node_t top = {root, "", "", NULL};
    if (root == NULL || root->type == GPA_VNULL)
        return 0;
    return walk(&w, root, path, &top, NULL);
}
