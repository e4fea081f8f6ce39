/*
 * The typed model the rules read: objects, their Pod specs (a Pod's own, or the templates of workloads),
 * containers and their GPU amounts, each carrying where it was found.
 *
 * Ownership: a model is built by gpa_decode_*() into an arena and borrows strings from the document tree in
 * the same arena. Nothing here is freed on its own.
 *
 * Paths: `path` fields are human paths for messages ("spec.template.spec.containers[1]"); `pointer` fields are
 * RFC 6901 JSON pointers to the same node ("/spec/template/spec/containers/1"), the base of patch paths.
 */
#ifndef GPA_MODEL_H
#define GPA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kube/dra.h"
#include "kube/quantity.h"
#include "kube/resource.h"
#include "document/value.h"

/* One GPU amount, as a request or a limit. */
typedef struct st_gpa_amount_t {
    /* Bit-fields and positions first: a container holds GPA_R__COUNT of these per GPU map (40 bytes each). */
    unsigned present : 1;     /* the name appears in the map */
    gpa_qstatus_t status : 8; /* GPA_Q_OK, or why `value` is unusable (a value that is not a string or number: SYNTAX) */
    gpa_qsuffix_t suffix : 8;
    unsigned line, column;
    int64_t value;    /* exact whole value when status == GPA_Q_OK */
    const char *text; /* the value as written ("20Gi", "4"); "" when not a string or number */
    const char *path; /* "spec.containers[0].resources.limits[\"koordinator.sh/gpu-core\"]" */
} gpa_amount_t;

typedef struct st_gpa_container_t {
    const char *name;
    int is_init;
    size_t index;        /* position in containers or initContainers */
    const char *path;    /* "spec.containers[1]" */
    const char *pointer; /* "/spec/containers/1" */
    /* Where its ResourceRequirements is when that is not path + ".resources" (a ResourceRequirements read as a
     * container, TrainJob's resourcesPerNode: the node itself); else NULL. Read with gpa_container_resources_path
     * and gpa_container_resources_pointer (a container costs these two strings only when a finding names them). */
    const char *resources_path_;
    const char *resources_pointer_;
    int has_resources; /* "resources" map present */
    int has_requests;  /* "resources.requests" map present (patches add a missing map whole) */
    int has_limits;
    const gpa_value_t *resources; /* the "resources" map as written, NULL when absent: names that are no GPU
                                     resource are read from it (gpa_gpu_strays, gpu_request.h) */
    /* The GPU amounts of requests and limits, only those written (a container costs its amounts only where it
     * has some: docs/webhook.md#limits); read them with gpa_container_request and gpa_container_limit. request_at_[r]
     * is 1 + the index of resource r's amount in requests_, 0 when absent (a zeroed container has none). */
    gpa_amount_t *requests_, *limits_;
    unsigned char request_at_[GPA_R__COUNT], limit_at_[GPA_R__COUNT];
    int privileged; /* securityContext.privileged is true (privileged-share) */
    /* DRA (kube/dra.h): resources.claims[], and the extended resources a known DeviceClass serves (those names are
     * not read as vendor or HAMi amounts: they have no token here). Empty when the dra dialect is off. */
    gpa_dra_container_claim_t *claims;
    size_t nclaims;
    gpa_dra_extended_use_t *extended;
    size_t nextended;
    /* HAMi's names as the decoding configuration spelt them (NULL: HAMi's defaults), borrowed: what the tokens of
     * this container were interned from, so that names read beside them (gpa_gpu_strays) agree. */
    const gpa_hami_names_t *hami;
    unsigned line, column;
} gpa_container_t;

/* "spec.containers[1].resources" and "/spec/containers/1/resources": where c's ResourceRequirements is (or would be
 * added); the container's own strings or new ones in a. */
const char *gpa_container_resources_path(gpa_arena_t *a, const gpa_container_t *c);
const char *gpa_container_resources_pointer(gpa_arena_t *a, const gpa_container_t *c);

/* An amount that is not present (what the accessors below return for a name not written). */
extern const gpa_amount_t gpa_amount_absent;

/* Resource r in c's requests (limits): its amount, or &gpa_amount_absent (never NULL). */
static inline const gpa_amount_t *gpa_container_request(const gpa_container_t *c, gpa_resource_t r)
{
    return c->request_at_[r] != 0 ? &c->requests_[c->request_at_[r] - 1] : &gpa_amount_absent;
}
static inline const gpa_amount_t *gpa_container_limit(const gpa_container_t *c, gpa_resource_t r)
{
    return c->limit_at_[r] != 0 ? &c->limits_[c->limit_at_[r] - 1] : &gpa_amount_absent;
}

/* A key/value pair of a string map (labels, annotations, nodeSelector). A nodeSelector value that is not a string
 * is kept as its text followed by " (not a string)", which no node label can equal (docs/decisions.md). */
typedef struct st_gpa_pair_t {
    const char *key;
    const char *value;
    unsigned line, column;
} gpa_pair_t;

typedef enum en_gpa_match_op_t {
    GPA_MATCH_IN,
    GPA_MATCH_NOT_IN,
    GPA_MATCH_EXISTS,
    GPA_MATCH_DOES_NOT_EXIST,
    GPA_MATCH_GT,
    GPA_MATCH_LT,
} gpa_match_op_t;

typedef struct st_gpa_node_requirement_t {
    const char *key;
    gpa_match_op_t op;
    const char **values;
    size_t nvalues;
} gpa_node_requirement_t;

/* A nodeSelectorTerm: its matchExpressions (on labels), ANDed. */
typedef struct st_gpa_node_term_t {
    gpa_node_requirement_t *requirements;
    size_t len;
} gpa_node_term_t;

typedef struct st_gpa_podspec_t {
    const char *path;    /* "spec.template.spec" ("spec" for a Pod) */
    const char *pointer; /* "/spec/template/spec" */
    gpa_container_t *containers;
    size_t ncontainers;
    gpa_container_t *init_containers;
    size_t ninit_containers;
    /* The Pod's annotations (a template's metadata.annotations; a Pod's own metadata.annotations; none for a
     * PodSpec or ResourceRequirements path). Values that are not strings are left out, except the mGPU
     * annotation's, which the rules need: that one is unreadable input. */
    gpa_pair_t *annotations;
    size_t nannotations;
    const char *annotations_path; /* "spec.template.metadata.annotations" */
    gpa_pair_t *node_selector;
    size_t nnode_selector;
    /* requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, ORed; none = any node. */
    gpa_node_term_t *node_terms;
    size_t nnode_terms;
    const char *node_name;       /* spec.nodeName, or NULL */
    gpa_dra_pod_claim_t *claims; /* spec.resourceClaims[] (DRA; empty when the dra dialect is off) */
    size_t nclaims;
    const gpa_hami_names_t *hami; /* HAMi's names it was decoded with (gpa_container_t.hami), NULL: the defaults */
} gpa_podspec_t;

#define GPA_REPLICAS_UNKNOWN ((int64_t)-1)
#define GPA_REPLICAS_MANY INT64_MAX

typedef struct st_gpa_object_t {
    const char *api_version; /* "" when absent */
    const char *kind;        /* "" when absent */
    const char *ns;          /* metadata.namespace, "" when absent */
    const char *name;        /* metadata.name, else metadata.generateName followed by '*' ("trainer-*"), else "" */
    int generated_name;      /* name is generateName's pattern: a name the request gives replaces it */
    const char *phase;       /* status.phase, or NULL */
    /* Not read for a decision, so never an input error: pairs whose value is not a string are left out. */
    gpa_pair_t *labels;
    size_t nlabels;
    gpa_pair_t *annotations; /* the object's own metadata.annotations */
    size_t nannotations;
    /* Pod specs read from this object: one for a Pod, one per template for workloads, none for other kinds. */
    gpa_podspec_t *pods;
    size_t npods;
    gpa_value_t *root; /* the document this object was decoded from */
    /* A resource.k8s.io object (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice), NULL for any other
     * kind or when the dra dialect is off. */
    const gpa_dra_object_t *dra;
    /* How many Pods the object's templates make at once (dra-shared-claim, dra-template-sharing): 1 for a Pod;
     * spec.replicas of a Deployment, ReplicaSet or StatefulSet (default 1); spec.parallelism of a Job or a
     * CronJob's Job (default 1); GPA_REPLICAS_MANY for a DaemonSet; GPA_REPLICAS_UNKNOWN for any other kind. */
    int64_t replicas;
    unsigned line, column;
} gpa_object_t;

/*
 * Places an object where an admission request stores it: the request's namespace (where the object is stored)
 * wins over the object's own metadata.namespace, so an object cannot claim an excluded namespace; an object
 * without a name, or with only generateName's pattern, takes the request's. NULL or "" leaves a field as decoded.
 */
void gpa_object_set_request(gpa_object_t *obj, const char *ns, const char *name);
/* The value of annotation `key` among pairs, or NULL. */
const char *gpa_pairs_get(const gpa_pair_t *pairs, size_t n, const char *key);
/* The amount the engine reads for resource r: the request, or the limit where no request is given.
 * NULL when neither is present. */
const gpa_amount_t *gpa_container_amount(const gpa_container_t *c, gpa_resource_t r);

#endif
