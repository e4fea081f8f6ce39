/*
 * gpuadmit cluster: the live inventory. Nodes, Koordinator Devices and Pods arrive one object at a time (from
 * reflectors, reflector.h, or one list each for `fit --cluster`); each is read the way an inventory file reads
 * it (gpa_inventory_read_object, docs/allocator.md) and only its records are kept: per Node its labels and
 * devices, per Device object its GPUs, per Pod what it holds on which device. A Pod that holds no GPU and has
 * no audit finding is not kept at all. gpa_view_snapshot() resolves the records into a new, immutable
 * inventory that the webhook swaps in as it does a reloaded file.
 *
 * A relist (begin_list … end_list) fills a fresh set for its kind while the old one stays in force; end_list
 * replaces it whole, so after any sequence of disconnects the view equals a fresh list.
 *
 * DRA: DeviceClasses, ResourceClaimTemplates and ResourceClaims are checked as an inventory file reads them, and
 * a copy of each one read is kept (the API server bounds an object: 1.5 MiB of JSON); a snapshot's
 * gpa_inventory_dra() knows them, each kind listed at least once complete (a missing object is known absent).
 *
 * Audit findings: each Pod may carry the ids of the rules it breaks as stored (given by the caller, who judges
 * it); the view keeps their count per rule and namespace, up to date through modifications and deletions.
 *
 * Thread-safety: every call takes the view's one lock; reflectors of different kinds may call concurrently.
 * Ownership: the view copies what it keeps; objects passed in are borrowed for the call.
 */
#ifndef GPA_CLUSTER_VIEW_H
#define GPA_CLUSTER_VIEW_H
#include <stddef.h>
#include <stdint.h>

#include "inventory/inventory.h"
#include "base/error.h"
#include "document/value.h"
#include "reflector.h"

typedef enum en_gpa_view_kind_t {
    GPA_VIEW_NODES,
    GPA_VIEW_DEVICES,
    GPA_VIEW_PODS,
    /* DRA (resource.k8s.io/v1): each object kept whole (a copy), for the engine's known objects (kube/dra.h). */
    GPA_VIEW_DEVICE_CLASSES,
    GPA_VIEW_CLAIM_TEMPLATES,
    GPA_VIEW_CLAIMS,
    GPA_VIEW_SLICES, /* the devices DRA drivers publish (inventory/dra_pools.h) */
    GPA_VIEW_NKINDS,
} gpa_view_kind_t;

typedef struct st_gpa_view_t gpa_view_t;

/* The collection each kind is read from, and its name in metrics ("nodes", "devices", "pods", "deviceclasses",
 * "resourceclaimtemplates", "resourceclaims"). */
const char *gpa_view_kind_path(gpa_view_kind_t kind);
const char *gpa_view_kind_name(gpa_view_kind_t kind);

gpa_view_t *gpa_view_new(void); /* new, empty; gpa_view_free() frees */

/*
 * Where this view reads DRA's kinds, before its first list: "resource.k8s.io/v1" (the default), ".../v1beta2" or
 * ".../v1beta1" (a cluster before 1.34); returns -1 for another version, and the view's stays.
 * gpa_view_discover() sets the version the cluster prefers (GET /apis/resource.k8s.io), when it says one of those.
 */
int gpa_view_dra_version(gpa_view_t *v, const char *group_version);
void gpa_view_discover(gpa_view_t *v, const gpa_kube_target_t *target);
/* The collection this view reads a kind from (gpa_view_kind_path, DRA's at the view's version). */
const char *gpa_view_path(const gpa_view_t *v, gpa_view_kind_t kind);
void gpa_view_free(gpa_view_t *v);

void gpa_view_begin_list(gpa_view_t *v, gpa_view_kind_t kind);
/*
 * Applies one watch event. For Pods, `rules` (borrowed, may be NULL) are the ids of the rules the Pod breaks as
 * stored. Returns 0; 1 with err a warning naming a Pod (namespace/name) that holds nothing because its annotation
 * or spec cannot be read (docs/allocator.md, "Usage": it stays in the view with its findings, holding no GPU); or
 * -1 with err when the object cannot be read: it is then absent from the view (an unreadable object never leaves
 * an older reading behind). A Pod's records are at most as many as the devices its request spans, whatever its
 * annotations say.
 */
int gpa_view_apply(gpa_view_t *v, gpa_view_kind_t kind, gpa_watch_event_t event, const gpa_value_t *object,
                   const char *const *rules, size_t nrules, gpa_error_t *err);
void gpa_view_end_list(gpa_view_t *v, gpa_view_kind_t kind);
/* The list in progress found the kind not served (404): its end_list empties it without making it complete. */
void gpa_view_not_served(gpa_view_t *v, gpa_view_kind_t kind);

/*
 * A new inventory (one reference, the caller releases) from every record in force, or NULL with err when the
 * records do not resolve (the caller keeps the previous one).
 */
gpa_inventory_t *gpa_view_snapshot(gpa_view_t *v, gpa_error_t *err);

/* Moves on with every change that alters a snapshot (to tell when a new one is due). */
uint64_t gpa_view_generation(gpa_view_t *v);
/* Objects of a kind the view holds records for (Pods: those holding GPUs or with findings). */
size_t gpa_view_held(gpa_view_t *v, gpa_view_kind_t kind);
/* Calls fn for every (rule, namespace) with a non-zero count of Pods breaking it. */
void gpa_view_audit_counts(gpa_view_t *v, void (*fn)(void *ctx, const char *rule, const char *ns, uint64_t pods), void *ctx);

/* What a caller of gpa_view_list_all hears of the objects listed (each callback may be NULL). */
typedef struct st_gpa_view_listener_t {
    /* An object that cannot be read (kept 0: left out), or a Pod kept with a warning (kept 1: gpa_view_apply returned 1). */
    void (*on_problem)(void *ctx, const gpa_error_t *why, int kept);
    /* Every object listed, once the view has taken it (explain keeps the Pods it explains). Borrowed for the call. */
    void (*on_object)(void *ctx, gpa_view_kind_t kind, const gpa_value_t *object);
    void *ctx;
} gpa_view_listener_t;

/*
 * One list of each kind into the view, no watch (fit --cluster, explain), told to `listener` (may be NULL); DRA's at
 * the version the cluster prefers (gpa_view_discover).
 * Returns 0, or -1 with err when a list failed (a kind the cluster does not serve is an empty list).
 */
int gpa_view_list_all(gpa_view_t *v, const gpa_kube_target_t *target, const gpa_view_listener_t *listener, gpa_error_t *err);

#endif
