#include "kinds.h"

#include <ctype.h>
#include <string.h>

#include "document/json.h"

const gpa_kube_kind_t gpa_kube_kind_node = {"", "v1", "Node", "nodes", 1};
const gpa_kube_kind_t gpa_kube_kind_device = {"scheduling.koordinator.sh", "scheduling.koordinator.sh/v1alpha1", "Device",
                                              "devices", 1};
const gpa_kube_kind_t gpa_kube_kind_pod = {"", "v1", "Pod", "pods", 0};
const gpa_kube_kind_t gpa_kube_kind_device_class = {"resource.k8s.io", "resource.k8s.io/v1", "DeviceClass", "deviceclasses", 1};
const gpa_kube_kind_t gpa_kube_kind_claim_template = {"resource.k8s.io", "resource.k8s.io/v1", "ResourceClaimTemplate",
                                                      "resourceclaimtemplates", 0};
const gpa_kube_kind_t gpa_kube_kind_claim = {"resource.k8s.io", "resource.k8s.io/v1", "ResourceClaim", "resourceclaims", 0};
const gpa_kube_kind_t gpa_kube_kind_slice = {"resource.k8s.io", "resource.k8s.io/v1", "ResourceSlice", "resourceslices", 1};

/* The version each known group serves its workloads at, when discovery does not say (docs/cluster.md). */
static const struct {
    const char *group, *version;
} versions[] = {
    {"", "v1"},
    {"apps", "v1"},
    {"batch", "v1"},
    {"batch.volcano.sh", "v1alpha1"},
    {"ray.io", "v1"},
    {"leaderworkerset.x-k8s.io", "v1"},
    {"jobset.x-k8s.io", "v1alpha2"},
    {"kubeflow.org", "v1"},
    {"trainer.kubeflow.org", "v1alpha1"},
};

static const char *version_of(const char *group)
{
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
        if (strcmp(versions[i].group, group) == 0)
            return versions[i].version;
    return "v1";
}

static void describe(gpa_arena_t *a, const gpa_workload_t *w, gpa_kube_kind_t *k)
{
    char *plural = gpa_arena_printf(a, "%ss", w->kind);
    for (char *p = plural; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    k->group = w->group;
    k->kind = w->kind;
    k->resource = plural;
    k->api_version = w->group[0] == '\0' ? "v1" : gpa_arena_printf(a, "%s/%s", w->group, version_of(w->group));
    k->cluster_scoped = strncmp(w->kind, "Cluster", 7) == 0;
}

size_t gpa_kube_audit_kinds(gpa_arena_t *a, const gpa_workloads_t *extra, gpa_kube_kind_t **out)
{
    const gpa_workloads_t *b = &gpa_workloads_builtin;
    size_t n = 0, nextra = extra != NULL ? extra->len : 0;
    *out = gpa_arena_calloc(a, b->len + nextra + 1, sizeof(**out));
    for (size_t i = 0; i < b->len; i++)
        describe(a, &b->items[i], &(*out)[n++]);
    for (size_t i = 0; i < nextra; i++) {
        size_t j = 0;
        while (j < b->len &&
               !(strcmp(b->items[j].group, extra->items[i].group) == 0 && strcmp(b->items[j].kind, extra->items[i].kind) == 0))
            j++;
        if (j == b->len) /* a kind of the table's, replaced: already listed */
            describe(a, &extra->items[i], &(*out)[n++]);
    }
    return n;
}

const char *gpa_kube_kind_path(gpa_arena_t *a, const gpa_kube_kind_t *k, const char *ns)
{
    const char *root = strchr(k->api_version, '/') == NULL ? "/api" : "/apis";
    if (ns == NULL || k->cluster_scoped)
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

const char *gpa_kube_preferred_version(gpa_kube_client_t *c, gpa_arena_t *a, const char *group)
{
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_value_t *doc;
    const char *version = NULL;
    gpa_error_init(&err, NULL);
    if (group[0] == '\0' || gpa_kube_call(c, "GET", gpa_arena_printf(a, "/apis/%s", group), NULL, NULL, 0, &reply, &err) != 0)
        return NULL;
    if (reply.status == 200 && gpa_json_parse(a, reply.body.base, reply.body.len, &doc, &err) == 0)
        version = gpa_value_string(gpa_value_get(gpa_value_get(doc, "preferredVersion"), "groupVersion"));
    if (version != NULL)
        version = gpa_arena_strdup(a, version);
    gpa_kube_reply_dispose(&reply);
    return version;
}
