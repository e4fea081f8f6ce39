/*
 * gpuadmit cluster: the kinds gpuadmit reads from a cluster, and where the API server serves each.
 *
 * The audit kinds are the kinds whose Pod specs the decoder reads (docs/rules.md#objects; kube/decode.h). When
 * the decoder's kinds become a data table, gpa_kube_audit_kinds() is the one place that must follow it.
 *
 * Objects in a list response carry no apiVersion and kind (only the list does): gpa_kube_kind_stamp() gives an
 * item its kind back so the decoder and the inventory loaders read it as they read a file.
 */
#ifndef GPA_CLUSTER_KINDS_H
#define GPA_CLUSTER_KINDS_H
#include <stddef.h>

#include "base/arena.h"
#include "document/value.h"

typedef struct st_gpa_kube_kind_t {
    const char *api_version; /* "v1", "apps/v1", "batch.volcano.sh/v1alpha1" */
    const char *kind;        /* "Deployment" */
    const char *resource;    /* "deployments" */
    int crd;                 /* served only where its CustomResourceDefinition is installed */
} gpa_kube_kind_t;

/* Every kind `audit` lists (static table). */
const gpa_kube_kind_t *gpa_kube_audit_kinds(size_t *n);
/* The inventory's kinds (static): Node, Koordinator Device, Pod. */
extern const gpa_kube_kind_t gpa_kube_kind_node, gpa_kube_kind_device, gpa_kube_kind_pod;

/* The collection's path: /api/v1/pods, /apis/apps/v1/namespaces/NS/deployments (ns NULL: every namespace). Arena-owned. */
const char *gpa_kube_kind_path(gpa_arena_t *a, const gpa_kube_kind_t *k, const char *ns);
/* The object with apiVersion and kind set as k says when it has none (a shallow copy in `a`), else obj itself. */
gpa_value_t *gpa_kube_kind_stamp(gpa_arena_t *a, const gpa_value_t *obj, const gpa_kube_kind_t *k);

#endif
