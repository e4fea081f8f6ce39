/*
 * gpuadmit cluster: the kinds gpuadmit reads from a cluster, and where the API server serves each.
 *
 * The audit's kinds are the workloads table's (kube/workloads.h: built in, and a configuration's `workloads`),
 * so a kind the decoder learns is audited too. The table names a group and a kind; where the API server serves
 * it is found by discovery (audit.c asks GET /apis/GROUP for the preferred version) and otherwise guessed: the
 * version from a list of known groups, the resource by Kubernetes' naming (lower case, plural "s"), cluster
 * scope for kinds named Cluster*.
 *
 * Objects in a list response carry no apiVersion and kind (only the list does): gpa_kube_kind_stamp() gives an
 * item its kind back so the decoder and the inventory loaders read it as they read a file.
 */
#ifndef GPA_CLUSTER_KINDS_H
#define GPA_CLUSTER_KINDS_H
#include <stddef.h>

#include "base/arena.h"
#include "client.h"
#include "document/value.h"
#include "kube/workloads.h"

typedef struct st_gpa_kube_kind_t {
    const char *group;       /* "" for the core group */
    const char *api_version; /* "v1", "apps/v1", "batch.volcano.sh/v1alpha1" */
    const char *kind;        /* "Deployment" */
    const char *resource;    /* "deployments" */
    int cluster_scoped;      /* listed without a namespace */
} gpa_kube_kind_t;

/* The inventory's kinds (static): Node, Koordinator Device, Pod; DRA's DeviceClass, ResourceClaimTemplate and
 * ResourceClaim (resource.k8s.io/v1). */
extern const gpa_kube_kind_t gpa_kube_kind_node, gpa_kube_kind_device, gpa_kube_kind_pod;
extern const gpa_kube_kind_t gpa_kube_kind_device_class, gpa_kube_kind_claim_template, gpa_kube_kind_claim, gpa_kube_kind_slice;

/*
 * Every kind of the workloads table (built in, then `extra`'s that the built-in table lacks; `extra` may be
 * NULL), api_version guessed as above. Returns the count; *out is arena-owned.
 */
size_t gpa_kube_audit_kinds(gpa_arena_t *a, const gpa_workloads_t *extra, gpa_kube_kind_t **out);

/*
 * The group's preferred version from discovery (GET /apis/GROUP: "resource.k8s.io/v1"), arena-owned, or NULL when
 * the server does not say (the core group, a 404, an unreadable answer): then a caller's guess stands.
 */
const char *gpa_kube_preferred_version(gpa_kube_client_t *c, gpa_arena_t *a, const char *group);

/* The collection's path: /api/v1/pods, /apis/apps/v1/namespaces/NS/deployments (ns NULL: every namespace). Arena-owned. */
const char *gpa_kube_kind_path(gpa_arena_t *a, const gpa_kube_kind_t *k, const char *ns);
/* The object with apiVersion and kind set as k says when it has none (a shallow copy in `a`), else obj itself. */
gpa_value_t *gpa_kube_kind_stamp(gpa_arena_t *a, const gpa_value_t *obj, const gpa_kube_kind_t *k);

#endif
