/*
 * Dynamic Resource Allocation (docs/rules.md#dra): the model of `resource.k8s.io` objects (ResourceClaim,
 * ResourceClaimTemplate, DeviceClass; versions v1, v1beta2 and v1beta1 read alike), of a Pod's claims
 * (`spec.resourceClaims[]`, containers' `resources.claims[]`), and the "known objects" through which the same
 * input, inventory files and the live view tell the engine what the cluster holds.
 *
 * One reading of a request: v1 and v1beta2 put an ExactDeviceRequest under `exactly` (or alternatives under
 * `firstAvailable`); v1beta1 puts the same fields on the request itself. Either way the model holds one
 * gpa_dra_exact_t per alternative, so no rule knows which version it read.
 *
 * Read only what is needed, as decode does (kube/decode.h): a field the rules read must have its shape (a list
 * where a list is, a mapping where a mapping is, a string where a string is); any other field is the API
 * server's to refuse. Selectors are kept as text (the CEL evaluator reads them), opaque parameters as the value
 * tree (the driver decoders read them).
 *
 * Ownership: everything is built in the arena of the document it was decoded from and borrows strings and
 * values from that document. A gpa_dra_known_t borrows the objects added to it: they must outlive it.
 */
#ifndef GPA_DRA_H
#define GPA_DRA_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"
#include "kube/quantity.h"

#define GPA_DRA_GROUP "resource.k8s.io"
/* Claims a controller made: from a template (the Pod's claim name) or by the scheduler (an extended resource). */
#define GPA_DRA_ANNOTATION_POD_CLAIM "resource.kubernetes.io/pod-claim-name"
#define GPA_DRA_ANNOTATION_EXTENDED_CLAIM "resource.kubernetes.io/extended-resource-claim"
/* The implicit extended resource of every class: this prefix followed by the class name. */
#define GPA_DRA_IMPLICIT_PREFIX "deviceclass.resource.kubernetes.io/"

/* The API's own limits (docs/rules.md#dra): a review at these stays within the engine's ceilings. */
#define GPA_DRA_MAX_REQUESTS 32
#define GPA_DRA_MAX_SELECTORS 32
#define GPA_DRA_MAX_SELECTOR_BYTES 10240
#define GPA_DRA_MAX_SUBREQUESTS 8
#define GPA_DRA_MAX_CONSTRAINTS 32
#define GPA_DRA_MAX_CONFIGS 32
#define GPA_DRA_MAX_PARAMETER_BYTES 10240
#define GPA_DRA_MAX_POD_CLAIMS 256
#define GPA_DRA_MAX_CONSUMERS 256 /* status.reservedFor: Pods that may share one ResourceClaim */

typedef enum en_gpa_dra_kind_t {
    GPA_DRA_CLASS,    /* DeviceClass (cluster-scoped) */
    GPA_DRA_CLAIM,    /* ResourceClaim */
    GPA_DRA_TEMPLATE, /* ResourceClaimTemplate */
    GPA_DRA__KINDS,
    GPA_DRA_SLICE = GPA_DRA__KINDS, /* ResourceSlice (kube/dra_slice.h): read for the inventory, never a known object */
    GPA_DRA_NONE,                   /* any other kind */
} gpa_dra_kind_t;

typedef enum en_gpa_dra_version_t {
    GPA_DRA_V1,
    GPA_DRA_V1BETA2,
    GPA_DRA_V1BETA1,
    GPA_DRA_V1ALPHA3,
    GPA_DRA_V1ALPHA2,
    GPA_DRA_VOTHER, /* any other version string */
} gpa_dra_version_t;

typedef enum en_gpa_dra_mode_t {
    GPA_DRA_EXACT_COUNT, /* the default */
    GPA_DRA_ALL,
    GPA_DRA_MODE_OTHER, /* any other text: the API server refuses it */
} gpa_dra_mode_t;

/* One `capacity.requests` entry: a capacity name and the quantity asked of each device. */
typedef struct st_gpa_dra_capacity_t {
    const char *name;
    const char *text;      /* as written ("4Gi"); "" when not a string or number */
    gpa_quantity_t amount; /* parsed exactly; status says why it is unusable */
    const char *path;      /* "spec.devices.requests[0].exactly.capacity.requests.memory" */
} gpa_dra_capacity_t;

typedef struct st_gpa_dra_toleration_t {
    const char *key, *op, *value, *effect; /* NULL when absent */
} gpa_dra_toleration_t;

/* An ExactDeviceRequest: a request's `exactly`, one `firstAvailable` alternative, or a v1beta1 request itself. */
typedef struct st_gpa_dra_exact_t {
    const char *name;       /* the request's name, or the subrequest's */
    const char *path;       /* where its fields are: "spec.devices.requests[0].exactly" */
    const char *class;      /* deviceClassName, NULL when absent */
    const char **selectors; /* selectors[].cel.expression, as written (NULL for a selector without one) */
    const char **selector_paths;
    size_t nselectors;
    gpa_dra_mode_t mode;
    int64_t count;                /* count as written, 1 when absent */
    int has_count;                /* count was written */
    gpa_dra_capacity_t *capacity; /* capacity.requests */
    size_t ncapacity;
    gpa_dra_toleration_t *tolerations;
    size_t ntolerations;
    int admin_access; /* adminAccess: true */
} gpa_dra_exact_t;

typedef struct st_gpa_dra_request_t {
    const char *name; /* NULL when absent */
    const char *path; /* "spec.devices.requests[0]" */
    /* exactly (v1beta1: the request itself) when nalternatives is 0 and has_exact; else firstAvailable's. */
    int has_exact;
    gpa_dra_exact_t exact;
    gpa_dra_exact_t *alternatives; /* firstAvailable, in order */
    size_t nalternatives;
} gpa_dra_request_t;

typedef struct st_gpa_dra_constraint_t {
    const char **requests; /* empty: every request */
    size_t nrequests;
    const char *match_attribute;    /* NULL when absent */
    const char *distinct_attribute; /* NULL when absent */
    const char *path;
} gpa_dra_constraint_t;

/* One `config[]` entry (a claim's, or a class's): opaque configuration for one driver. */
typedef struct st_gpa_dra_opaque_t {
    const char **requests; /* empty: every request (a class's: always empty) */
    size_t nrequests;
    const char *driver;            /* opaque.driver, NULL when absent */
    const gpa_value_t *parameters; /* opaque.parameters, as written; NULL when absent */
    const char *path;              /* "spec.devices.config[0].opaque" */
} gpa_dra_opaque_t;

/* A ResourceClaimSpec's devices (a claim's `spec`, a template's `spec.spec`). */
typedef struct st_gpa_dra_devices_t {
    const char *path; /* "spec.devices", "spec.spec.devices" */
    gpa_dra_request_t *requests;
    size_t nrequests;
    gpa_dra_constraint_t *constraints;
    size_t nconstraints;
    gpa_dra_opaque_t *configs;
    size_t nconfigs;
    size_t max_results; /* devices the allocation may hold: 0 for a claim's GPA_DRA_MAX_RESULTS (gpa_dra_devices_merge) */
} gpa_dra_devices_t;

/* A DeviceClass's spec. */
typedef struct st_gpa_dra_class_t {
    const char **selectors; /* selectors[].cel.expression */
    const char **selector_paths;
    size_t nselectors;
    gpa_dra_opaque_t *configs;
    size_t nconfigs;
    const char *extended_resource_name; /* extendedResourceName, NULL when absent */
} gpa_dra_class_t;

/* A capacity amount by name (a claim's consumedCapacity). */
typedef struct st_gpa_dra_amount_t {
    const char *name;
    gpa_quantity_t value;
} gpa_dra_amount_t;

/* The API's limit on a claim's allocation results (resource/v1 AllocationResultsMaxSize). */
#define GPA_DRA_MAX_RESULTS 32

/* A device an allocated claim holds: one of `status.allocation.devices.results` (the scheduler's). */
typedef struct st_gpa_dra_result_t {
    const char *request, *driver, *pool, *device;
    gpa_dra_amount_t *consumed; /* consumedCapacity of a device allocated several times */
    size_t nconsumed;
} gpa_dra_result_t;

/* A resource.k8s.io object as read (gpa_object_t.dra). */
typedef struct st_gpa_dra_object_t {
    gpa_dra_kind_t kind;
    gpa_dra_version_t version;
    const char *ns;   /* the object's namespace ("" for a class) */
    const char *name; /* the object's name */
    /* A ResourceClaim a controller made (annotated GPA_DRA_ANNOTATION_POD_CLAIM or _EXTENDED_CLAIM): admitted
     * untouched, nothing else read. */
    int generated;
    gpa_dra_devices_t devices; /* claims and templates */
    /* A claim's status.allocation.devices.results, read whether or not a controller made the claim (what it holds is
     * the inventory's usage); a status of a shape the API server does not write is not read (no results), never an
     * error: only the API server writes it. */
    gpa_dra_result_t *allocated;
    size_t nallocated;
    gpa_dra_class_t cls;                    /* classes */
    const struct st_gpa_dra_slice_t *slice; /* slices (kube/dra_slice.h), NULL for the other kinds */
} gpa_dra_object_t;

/* A Pod's `spec.resourceClaims[]` entry. */
typedef struct st_gpa_dra_pod_claim_t {
    const char *name;     /* NULL when absent */
    const char *claim;    /* resourceClaimName, NULL when absent */
    const char *template; /* resourceClaimTemplateName, NULL when absent */
    /* The `source:` wrapper removed in 1.31 (dra-claim-source): what it held, NULL when absent. */
    int has_source;
    const char *source_claim, *source_template;
    const char *path; /* "spec.resourceClaims[0]" */
    unsigned line, column;
} gpa_dra_pod_claim_t;

/* A container's `resources.claims[]` entry. */
typedef struct st_gpa_dra_container_claim_t {
    const char *name;    /* the Pod claim it uses, NULL when absent */
    const char *request; /* `request` ("req" or "req/sub"), NULL when absent: every request of the claim */
    const char *path;    /* "spec.containers[0].resources.claims[1]" */
} gpa_dra_container_claim_t;

/* A container's use of an extended resource that a DeviceClass serves (docs/rules.md#dra-extended-resources). */
typedef struct st_gpa_dra_extended_use_t {
    const char *resource; /* the name as written ("nvidia.com/gpu", "deviceclass.resource.kubernetes.io/gpu.example.com") */
    const char *class;    /* the class that serves it */
    const char *text;     /* the amount as written */
    gpa_quantity_t amount;
    const char *path;
} gpa_dra_extended_use_t;

/* ---- reading ---------------------------------------------------------------------------------------------------- */

/* The kind of (apiVersion, kind) in resource.k8s.io (any version), GPA_DRA_NONE for anything else. */
gpa_dra_kind_t gpa_dra_kind_of(const char *api_version, const char *kind);
/* The version part of an apiVersion ("resource.k8s.io/v1beta1" -> GPA_DRA_V1BETA1). */
gpa_dra_version_t gpa_dra_version_of(const char *api_version);
/* "v1", "v1beta2", ... (static); "" for GPA_DRA_VOTHER. */
const char *gpa_dra_version_name(gpa_dra_version_t v);
/* "DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice" (static). */
const char *gpa_dra_kind_name(gpa_dra_kind_t k);

/*
 * Reads a resource.k8s.io object (doc, of kind `kind` as gpa_dra_kind_of said, not NONE) whose metadata the caller
 * decoded (ns, name; `generated`: annotated as a controller's claim, then nothing more is read). Returns 0 and sets
 * *out (arena-owned), or -1 with err at the node of a bad shape on a needed path.
 */
int gpa_dra_decode(gpa_arena_t *a, const gpa_value_t *doc, gpa_dra_kind_t kind, const char *api_version, const char *ns,
                   const char *name, int generated, gpa_dra_object_t **out, gpa_error_t *err);
/* A Pod spec's `resourceClaims` (spec a mapping; spec_path "spec.template.spec"): appends to *out, sets *n. */
int gpa_dra_decode_pod_claims(gpa_arena_t *a, const gpa_value_t *spec, const char *spec_path, gpa_dra_pod_claim_t **out, size_t *n,
                              gpa_error_t *err);
/* A ResourceRequirements' `claims` (resources a mapping; resources_path "spec.containers[0].resources"). */
int gpa_dra_decode_container_claims(gpa_arena_t *a, const gpa_value_t *resources, const char *resources_path,
                                    gpa_dra_container_claim_t **out, size_t *n, gpa_error_t *err);

/* The ExactDeviceRequests of req, in order: its `exactly` (v1beta1: the request itself), or its firstAvailable
 * alternatives (decoding reads one form, never both). k < gpa_dra_request_nexact(req). */
size_t gpa_dra_request_nexact(const gpa_dra_request_t *req);
const gpa_dra_exact_t *gpa_dra_request_exact(const gpa_dra_request_t *req, size_t k);
/* The request `name` ("req", or "req/sub" for a firstAvailable alternative) of devices, or NULL. *alt is set to the
 * alternative for "req/sub" (NULL otherwise). */
const gpa_dra_request_t *gpa_dra_devices_request(const gpa_dra_devices_t *devices, const char *name, const gpa_dra_exact_t **alt);

/* ---- known objects ---------------------------------------------------------------------------------------------- */

/*
 * What the engine knows the cluster holds (docs/rules.md#dra-known): a stack of layers, each borrowing the one
 * below (`below`): the objects of the same input on top of an inventory's or the live view's. A layer lists
 * objects by kind, namespace and name, and says for which kinds it holds the cluster's whole set
 * (`complete`: only an inventory file that holds objects of that kind, or the live view): where no layer is
 * complete for a kind, nothing is known to be absent, and the rules that need absence stay silent.
 *
 * Ownership: a layer is the caller's (stack or heap); its entries live in the arena passed to gpa_dra_known_add and
 * borrow the objects added. Lookups are read-only, so a layer shared by threads is only ever read once filled.
 */
typedef struct st_gpa_dra_known_entry_t {
    const gpa_dra_object_t *object;
    uint64_t hash_; /* of (kind, namespace, name) */
} gpa_dra_known_entry_t;

typedef struct st_gpa_dra_known_t {
    const struct st_gpa_dra_known_t *below; /* NULL: the bottom layer */
    gpa_dra_known_entry_t *entries_;
    size_t len_, cap_;
    unsigned complete; /* bit (1u << kind): this layer holds the cluster's whole set of that kind */
    /* gpa_dra_known_seal's index of entries_[0 .. indexed_): slots of 1 + entry index (0 empty), nslots_ a power of 2 */
    uint32_t *slots_;
    size_t nslots_, indexed_;
} gpa_dra_known_t;

/* An empty layer on top of `below` (NULL: none). */
void gpa_dra_known_init(gpa_dra_known_t *k, const gpa_dra_known_t *below);
/* Adds a class, claim or template (the object borrowed; a ResourceSlice or NONE is ignored). The first of two
 * entries of one kind, namespace and name is the one found. */
void gpa_dra_known_add(gpa_arena_t *a, gpa_dra_known_t *k, const gpa_dra_object_t *obj);
/* Indexes the entries added so far (hashing, in `a`), so that a find costs O(1) in them whatever the layer's size (the
 * live view's thousands of claims); entries added later are still found, by a scan of those alone. Call it once a
 * layer is filled (gpa_inventory_commit does), never while another thread reads the layer. */
void gpa_dra_known_seal(gpa_arena_t *a, gpa_dra_known_t *k);
/* Marks this layer as holding the cluster's whole set of `kind`. */
void gpa_dra_known_set_complete(gpa_dra_known_t *k, gpa_dra_kind_t kind);
/* The object of `kind` named `name` in namespace `ns` ("" for classes), searching from k down; NULL when no layer has
 * it (k may be NULL). */
const gpa_dra_object_t *gpa_dra_known_find(const gpa_dra_known_t *k, gpa_dra_kind_t kind, const char *ns, const char *name);
/* Whether some layer from k down holds the whole set of `kind`: only then is a missing object known to be absent. */
int gpa_dra_known_complete(const gpa_dra_known_t *k, gpa_dra_kind_t kind);
/* The class that serves extended resource `name` (len bytes): the latest-listed known class whose
 * extendedResourceName is that name, searching from k down; NULL when none. The implicit
 * GPA_DRA_IMPLICIT_PREFIX<class> names are the decoder's (any class), not looked up here. */
const gpa_dra_object_t *gpa_dra_known_extended(const gpa_dra_known_t *k, const char *name, size_t len);

#endif
