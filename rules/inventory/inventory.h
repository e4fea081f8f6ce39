/*
 * The cluster's GPU inventory (docs/allocator.md): nodes, their labels and devices (health, core, memory), and what
 * scheduled Pods already use. Loaded from any mix of documents; reference-counted so the webhook can swap a
 * reloaded inventory in under traffic.
 *
 * How it is built: loaders (gpa_inventory_parse) and hand-written code (tests, benchmarks) add *records* —
 * nodes, explicit devices, usages — with the gpa_inventory_add_* calls, then gpa_inventory_commit() resolves
 * every record into the read-only view below (nodes sorted by name, devices by minor, usage applied).
 * Records may arrive in any order and from any number of files: a Pod may be read before its Node.
 *
 * Ownership: the inventory copies every string it is given; everything the view returns is owned by the
 * inventory and valid until the next add/commit or the last release. Once shared (retained by a second
 * holder) an inventory must no longer be changed: it is read concurrently without locks.
 */
#ifndef GPA_INVENTORY_H
#define GPA_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kube/decode.h"
#include "inventory/dra_pools.h"
#include "kube/dra.h"
#include "kube/model.h"
#include "base/arena.h"
#include "document/value.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

/* An empty inventory, new (one reference). */
gpa_inventory_t *gpa_inventory_new(void);
/*
 * Adds every node, device and usage a text (JSON or YAML, any number of documents) describes, then commits.
 * Understood: Kubernetes Node, Device (scheduling.koordinator.sh) and Pod objects, bare or in a List; the
 * compact `kind: GPUInventory` form (docs/allocator.md); resource.k8s.io DeviceClasses, ResourceClaims and
 * ResourceClaimTemplates (gpa_inventory_dra), ResourceSlices accepted. Other kinds are skipped. On error the inventory is
 * unchanged (nothing half-loaded) and err says file, line and what.
 */
int gpa_inventory_parse(gpa_inventory_t *inv, const char *text, size_t len, const char *source, gpa_error_t *err);
gpa_inventory_t *gpa_inventory_retain(gpa_inventory_t *inv);
void gpa_inventory_release(gpa_inventory_t *inv); /* NULL is fine */

/* The same, with what decoding needs (kube/decode.h; NULL: the defaults): the HAMi names the configuration gives,
 * so that a cluster's renamed HAMi Pods read as holding what they hold. */
int gpa_inventory_parse_with(gpa_inventory_t *inv, const gpa_decode_opts_t *opts, const char *text, size_t len, const char *source,
                             gpa_error_t *err);

/*
 * An input its owner reads (no I/O here): read() puts up to n bytes in buf and returns how many (0 at the end, -1 on
 * a fault said in err); rewind() starts it again (0, or -1 with err). A List or a YAML stream is read a piece at a
 * time, so that a file costs its largest object and not its text; an input that must be read whole (see
 * document/stream.h) is read again, whole, up to max_bytes.
 */
typedef struct st_gpa_inventory_input_t {
    long (*read)(void *ctx, char *buf, size_t n, gpa_error_t *err);
    int (*rewind)(void *ctx, gpa_error_t *err);
    void *ctx;
    size_t max_bytes;
} gpa_inventory_input_t;

/* gpa_inventory_parse_with from an input. */
int gpa_inventory_parse_input(gpa_inventory_t *inv, const gpa_decode_opts_t *opts, const gpa_inventory_input_t *in,
                              const char *source, gpa_error_t *err);

/*
 * DRA (kube/dra.h): the DeviceClasses, ResourceClaims and ResourceClaimTemplates the inventory's files hold, one
 * known layer, complete for each kind it holds any object of (a dump of `kubectl get resourceclaims -A` is the
 * whole set); ResourceSlices make the DRA pools (gpa_inventory_dra_pools). gpa_inventory_add_dra reads one such
 * object (copied into the inventory; `path` names it in errors); it counts from the next commit, and a rollback drops
 * it. The layer is borrowed from the inventory (NULL for a NULL inventory) and never changes once the inventory is
 * shared.
 */
int gpa_inventory_add_dra(gpa_inventory_t *inv, const gpa_value_t *doc, const char *path, gpa_error_t *err);
/*
 * The same for a store that keeps ResourceSlices between inventories (the live view): gpa_inventory_read_slice reads
 * one (doc a ResourceSlice) into in->a as a copy that borrows nothing from doc (kube/dra_slice.h gpa_dra_slice_copy);
 * gpa_inventory_hold_slice adds such a slice as gpa_inventory_add_dra would have added the object, borrowed, not copied:
 * the inventory calls release(owner) once it no longer needs it (when it is freed, or rolls the slice back), so a
 * store shares its slices with every inventory made from it.
 */
int gpa_inventory_read_slice(gpa_intern_t *in, const gpa_value_t *doc, const char *path, const gpa_dra_slice_t **out,
                             gpa_error_t *err);
void gpa_inventory_hold_slice(gpa_inventory_t *inv, const gpa_dra_slice_t *slice, void (*release)(void *owner), void *owner);
/* Whether the inventory describes nodes: it holds a node, device or usage record (templates included), or no DRA
 * object nor ResourceSlice either (an empty inventory says "no GPU nodes"). An inventory of DRA objects alone says
 * what the cluster holds of DRA and nothing of its nodes, so `infeasible` does not run on it for device plugins. */
int gpa_inventory_has_nodes(const gpa_inventory_t *inv);
/* Marks the inventory as holding the cluster's whole set of `kind` even with none of it (the live view, once its list
 * of that kind is read). */
void gpa_inventory_dra_complete(gpa_inventory_t *inv, gpa_dra_kind_t kind);
const gpa_dra_known_t *gpa_inventory_dra(const gpa_inventory_t *inv);
/* The devices DRA drivers publish (inventory/dra_pools.h): the ResourceSlices of the inventory's files or the live
 * view, gathered at the last commit; NULL when none is published (or inv is NULL): the DRA rules then say nothing. */
const gpa_dra_pools_t *gpa_inventory_dra_pools(const gpa_inventory_t *inv);

/* ---- the resolved view ---- */

/* One GPU. Capacity is per device; the allocator never sums it over a node. */
typedef struct st_gpa_gpu_t {
    int32_t minor;
    int healthy;
    int64_t core;        /* total compute, percent (100 for a whole device) */
    int64_t memory;      /* total bytes; 0 = unknown (only whole-device requests can use it) */
    int64_t core_used;   /* what scheduled Pods hold (used with --now / NOT_NOW) */
    int64_t memory_used; /* bytes */
    int64_t pods;        /* share Pods holding part of it, mGPU share containers each (maxPodsPerDevice) */
    int whole_used;      /* held whole by a vendor Pod or a whole-device allocation */
    /*
     * What HAMi's device plugin registered (docs/allocator.md, "HAMi nodes"); other sources leave the defaults.
     * The UUID names the card, as a node's name names the node: it takes no part in the node's shape.
     */
    const char *uuid;   /* "" = not registered by HAMi */
    const char *type;   /* HAMi's card type ("NVIDIA-NVIDIA A10", "NVIDIA A10"), or "" */
    const char *mode;   /* hami-core, mig, mps, or "" */
    int32_t numa;       /* NUMA node, 0 when not said */
    int64_t slots;      /* vGPUs the card takes (HAMi's count); 0 = not said: HAMi's deviceSplitCount applies */
    int64_t slots_used; /* vGPUs on it (one per entry of a Pod's hami.io/vgpu-devices-allocated) */
} gpa_gpu_t;

typedef struct st_gpa_node_t {
    const char *name;
    gpa_pair_t *labels; /* sorted by key */
    size_t nlabels;
    unsigned dialects; /* GPA_DIALECT_* bits whose Pods this node's GPUs serve */
    int koordinator;   /* Koordinator manages it (Device object): the scheduler writes device-allocated */
    const char *model; /* GPU product, or "" */
    gpa_gpu_t *gpus;   /* sorted by minor */
    size_t ngpus;
    const char *source; /* where the node was first described */
    unsigned line;
    int is_template; /* a node template: one an autoscaler can create (below); holds no usage */
} gpa_node_t;

/* The committed nodes, sorted by name (borrowed). Node templates are not among them. */
const gpa_node_t *gpa_inventory_nodes(const gpa_inventory_t *inv, size_t *n);
/*
 * Node templates, sorted by name (borrowed): nodes an autoscaler can create (a cluster-autoscaler node group, a
 * Karpenter NodePool scaled to zero), declared in the compact form's `templates:`. They count for "could it ever
 * be placed", never for "room now"; usage never lands on them. An inventory's own templates, or those of the
 * inventory given to gpa_inventory_set_templates.
 */
const gpa_node_t *gpa_inventory_templates(const gpa_inventory_t *inv, size_t *n);
/*
 * Takes the templates of `from` (retained; NULL: inv's own again) in place of inv's own: a live cluster's nodes with the
 * templates of files given beside it. Set before inv is shared.
 */
void gpa_inventory_set_templates(gpa_inventory_t *inv, gpa_inventory_t *from);
/*
 * 0 when inv holds templates only (what files beside a live cluster may hold: the cluster has the nodes, and its
 * Pods the usage); else -1 with err at the first other record (a node, a Device object, a Pod's usage).
 */
int gpa_inventory_templates_only(const gpa_inventory_t *inv, gpa_error_t *err);
/* The node named `name`, or NULL (binary search; templates are not looked up). */
const gpa_node_t *gpa_inventory_find(const gpa_inventory_t *inv, const char *name);
/* The value of a node's label, or NULL. */
const char *gpa_node_label(const gpa_node_t *node, const char *key);

/*
 * One node per distinct shape, in name order: the first-named node of each group of nodes the allocator cannot
 * tell apart (same labels, dialects, model and devices; with `now`, the same usage too). Identity labels take no
 * part: a label key with more than 32 distinct values over the nodes (kubernetes.io/hostname) tells nodes apart
 * only for a Pod that selects on it. Whether a Pod that selects on no identity label could ever fit, and the
 * closest node's reason, depend only on these (docs/allocator.md). Borrowed.
 */
const gpa_node_t *const *gpa_inventory_shapes(const gpa_inventory_t *inv, int now, size_t *n);
/* The index in gpa_inventory_shapes(inv, now) of the shape of `node` (one of this inventory's nodes). */
size_t gpa_inventory_shape_of(const gpa_inventory_t *inv, const gpa_node_t *node, int now);
/* Whether `key` is an identity label of this inventory (see above). */
int gpa_inventory_identity_key(const gpa_inventory_t *inv, const char *key);

/*
 * An advisory inventory may be out of date (a live view whose watches are broken): the infeasible rule reports
 * what it finds as a warning that ends with `why`, never a denial. Set before the inventory is shared; NULL
 * clears it. gpa_inventory_advisory() returns it, or NULL (borrowed).
 */
void gpa_inventory_set_advisory(gpa_inventory_t *inv, const char *why);
const char *gpa_inventory_advisory(const gpa_inventory_t *inv);

/* ---- records (what loaders and tests add; nothing is visible until gpa_inventory_commit) ---- */

/*
 * A node. Devices are derived from count/memory/core (minors 0..count-1, healthy) unless a Device object
 * record names the node, in which case the Device object's devices are the node's devices.
 */
typedef struct st_gpa_node_desc_t {
    const char *name;
    const gpa_pair_t *labels; /* copied */
    size_t nlabels;
    unsigned dialects; /* 0 = derive: mgpu nodes serve mgpu, every other node vendor and koordinator */
    int mgpu;          /* labelled vke.node.gpu.schedule=mgpu */
    int koordinator;   /* Koordinator schedules it (writes device-allocated); a Device object implies it */
    int64_t count;     /* derived devices */
    int64_t memory;    /* bytes per derived device; 0 = unknown */
    int64_t core;      /* percent per derived device; 0 = 100 */
    const char *model; /* NULL = "" */
    const char *source;
    unsigned line;
    int is_template; /* a node template (gpa_inventory_templates); shares the nodes' names: one name, one record */
} gpa_node_desc_t;

/*
 * One device. `device_object` = read from a Koordinator Device object: the node's devices are exactly those
 * so recorded. Otherwise it overrides (or adds) the derived device of that minor (the compact form's
 * `devices:` entries).
 */
typedef struct st_gpa_gpu_desc_t {
    const char *node;
    int device_object;
    int32_t minor;
    int healthy;
    int64_t core;   /* 0 = 100 */
    int64_t memory; /* bytes; -1 = keep the derived value */
    const char *source;
    unsigned line;
    /* A card HAMi registered (gpa_gpu_t's fields of the same names); NULL strings and 0 for every other source. */
    const char *uuid, *type, *mode; /* copied; NULL = "" */
    int32_t numa;
    int64_t slots;
} gpa_gpu_desc_t;

/* What one scheduled Pod holds on one node. */
typedef struct st_gpa_usage_desc_t {
    const char *node;
    const char *pod;     /* "namespace/name": a Pod counts once per device toward maxPodsPerDevice */
    int32_t minor;       /* the device; ignored when whole_count > 0 */
    int whole;           /* the whole device `minor` */
    int64_t whole_count; /* > 0: that many whole devices, the lowest untouched minors (vendor Pods) */
    int64_t core;        /* percent */
    int64_t memory;      /* bytes, or -1 = from ratio */
    int64_t ratio;       /* percent of the device's memory, when memory is -1 */
    const char *source;
    unsigned line;
    /*
     * HAMi: the card is the node's card of this UUID (minor ignored; none: ignored), the entry never holds more
     * than that card's memory and compute, and it takes `slots` of its vGPU slots. NULL for other sources.
     */
    const char *uuid; /* copied */
    int64_t slots;
    /* mGPU: the share containers this record stands for on the device, each counting toward maxPodsPerDevice (Volcano's
     * mGPU plugin counts containers per card); 0: the Pod counts once per device, however many records it has */
    int64_t containers;
} gpa_usage_desc_t;

void gpa_inventory_add_node(gpa_inventory_t *inv, const gpa_node_desc_t *d);
void gpa_inventory_add_gpu(gpa_inventory_t *inv, const gpa_gpu_desc_t *d);
void gpa_inventory_add_usage(gpa_inventory_t *inv, const gpa_usage_desc_t *d);
/*
 * Resolves every record into the view. Errors (with the record's source and line): a node or template described twice,
 * a minor listed twice (in one Device object or one node's overrides), a device for a node nothing describes.
 * Nodes left without any GPU are not in the view (a Pod asking for GPUs can never go there). Usage on a node or device the
 * inventory does not know is ignored (Pods on nodes without GPUs), and so is usage naming a template. On error the records added
 * since the last successful commit are dropped and the previous view stays.
 */
int gpa_inventory_commit(gpa_inventory_t *inv, gpa_error_t *err);
/*
 * Reading one object at a time, for a live view that keeps each object's records and resolves them into a new
 * inventory when it changes (cluster/view.h). The same reading gpa_inventory_parse applies to each Node, Device
 * and Pod it meets (docs/allocator.md), handed to a sink instead of added to an inventory.
 */
typedef enum en_gpa_inventory_kind_t {
    GPA_INVENTORY_NODE,   /* v1 Node */
    GPA_INVENTORY_DEVICE, /* scheduling.koordinator.sh Device */
    GPA_INVENTORY_POD,    /* v1 Pod: what it holds if scheduled and not finished */
} gpa_inventory_kind_t;

/*
 * Receives records; every string in a desc is borrowed for the call only (copy what you keep). `warn` (may be
 * NULL) hears of each Pod that holds nothing because it could not be read, and of each Node whose HAMi register
 * annotation cannot be read (see gpa_inventory_read_object).
 */
typedef struct st_gpa_inventory_sink_t {
    void (*node)(void *ctx, const gpa_node_desc_t *d);
    void (*gpu)(void *ctx, const gpa_gpu_desc_t *d);
    void (*usage)(void *ctx, const gpa_usage_desc_t *d);
    void *ctx;
    void (*warn)(void *ctx, const gpa_error_t *why);
} gpa_inventory_sink_t;

/*
 * Reads one object of `kind` into records for `sink` (a Pod without GPU usage gives none). Scratch memory comes
 * from `a`. Returns 0, or -1 with err (path inside the object); records handed over before an error stand, so a
 * caller that keeps them per object drops that object's records on error.
 *
 * Pods are written by tenants, so a Pod never fails (docs/allocator.md, "Usage"): only a Pod with
 * spec.nodeName and a phase other than Succeeded/Failed holds anything; it holds at most what its own request
 * could hold (its devices, and per device its share), whatever its annotations claim, so its records are at most
 * as many as the devices its request spans; a Pod whose annotation or spec cannot be read holds nothing and is
 * handed to sink->warn (source, line, path, "Pod ns/name: why"). Its records reach the sink only once the whole
 * Pod was read.
 *
 * A Node whose HAMi register annotation (hami.io/node-nvidia-register) cannot be read does not fail either: it
 * contributes no HAMi cards and is handed to sink->warn ("Node name has no HAMi cards: why").
 */
int gpa_inventory_read_object(gpa_arena_t *a, gpa_inventory_kind_t kind, gpa_value_t *obj, const char *source,
                              const gpa_inventory_sink_t *sink, gpa_error_t *err);

/*
 * Objects read in part because something tenants or plugins write could not be read: Pods that hold nothing, Nodes
 * whose HAMi register annotation gives no cards (their warnings, in load order; the first GPA_INVENTORY_MAX_WARNINGS
 * are kept, *total counts them all). Borrowed; a failed load drops its own.
 */
#define GPA_INVENTORY_MAX_WARNINGS 100
const gpa_error_t *gpa_inventory_warnings(const gpa_inventory_t *inv, size_t *n, size_t *total);
/* Records one such warning (what gpa_inventory_parse's sink does; copied). */
void gpa_inventory_add_warning(gpa_inventory_t *inv, const gpa_error_t *why);

/*
 * For loaders: drops every record added since the last successful commit, so that a text that fails half-way
 * leaves nothing behind (gpa_inventory_parse calls it on its first error). The view is not touched.
 */
void gpa_inventory_rollback(gpa_inventory_t *inv);

#endif
