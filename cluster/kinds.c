#include "kinds.h"

#include <string.h>

const gpa_kube_kind_t gpa_kube_kind_node = {"v1", "Node", "nodes", 0};
const gpa_kube_kind_t gpa_kube_kind_device = {"scheduling.koordinator.sh/v1alpha1", "Device", "devices", 1};
const gpa_kube_kind_t gpa_kube_kind_pod = {"v1", "Pod", "pods", 0};

/* The kinds kube/decode.c reads Pod specs from, in the order docs/rules.md#objects lists them. */
static const gpa_kube_kind_t audit_kinds[] = {
    {"v1", "Pod", "pods", 0},
    {"apps/v1", "Deployment", "deployments", 0},
    {"apps/v1", "ReplicaSet", "replicasets", 0},
    {"apps/v1", "StatefulSet", "statefulsets", 0},
    {"apps/v1", "DaemonSet", "daemonsets", 0},
    {"batch/v1", "Job", "jobs", 0},
    {"batch/v1", "CronJob", "cronjobs", 0},
    {"batch.volcano.sh/v1alpha1", "Job", "jobs", 1},
    {"ray.io/v1", "RayCluster", "rayclusters", 1},
    {"ray.io/v1", "RayJob", "rayjobs", 1},
};

const gpa_kube_kind_t *gpa_kube_audit_kinds(size_t *n)
{
    *n = sizeof(audit_kinds) / sizeof(audit_kinds[0]);
    return audit_kinds;
}

const char *gpa_kube_kind_path(gpa_arena_t *a, const gpa_kube_kind_t *k, const char *ns)
{
    const char *root = strchr(k->api_version, '/') == NULL ? "/api" : "/apis";
    if (ns == NULL)
        return gpa_arena_printf(a, "%s/%s/%s", root, k->api_version, k->resource);
    return gpa_arena_printf(a, "%s/%s/namespaces/%s/%s", root, k->api_version, ns, k->resource);
}

static gpa_member_t string_member(gpa_arena_t *a, const char *key, const char *value)
{
    return (gpa_member_t){.key = key, .key_len = strlen(key), .value = gpa_value_new_string(a, value, strlen(value))};
}

gpa_value_t *gpa_kube_kind_stamp(gpa_arena_t *a, const gpa_value_t *obj, const gpa_kube_kind_t *k)
{
    if (obj->type != GPA_VOBJECT || gpa_value_get(obj, "kind") != NULL)
        return (gpa_value_t *)obj; /* the decoder reads, never writes, the tree */
    size_t n = obj->u.object.len;
    gpa_value_t *v = gpa_value_new_object(a, n + 2);
    v->line = obj->line, v->column = obj->column;
    v->u.object.members[0] = string_member(a, "apiVersion", k->api_version);
    v->u.object.members[1] = string_member(a, "kind", k->kind);
    for (size_t i = 0; i < n; i++)
        v->u.object.members[i + 2] = obj->u.object.members[i];
    return v;
}
