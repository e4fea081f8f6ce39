/*
 * ResourceSlices (docs/dra.md#inventory): where a driver's devices are, what each offers, and which counters they
 * share. Versions v1 and v1beta2 (devices flat) and v1beta1 (each device's fields under `basic`) read alike.
 *
 * What is read, as the allocator needs it: the pool (name, generation, slice count), where the devices are
 * (`nodeName`, `nodeSelector`, `allNodes`, or each device's own with `perDeviceNodeSelection`), each device's
 * attributes (typed: int, bool, string, version; list attributes kept as "other"), capacities with their request
 * policies, counter consumption, taints and whether it allows several allocations, and the slice's counter sets.
 * A field read must have its shape; a list beyond the API's limit is refused as the API server refuses it, so that a
 * slice costs what the API lets it hold. Quantities are exact integers (gpa_quantity_t: a fractional one keeps its
 * status, and the allocator treats what it cannot read as unknown).
 *
 * Ownership: everything lives in the arena it was read into and borrows strings from the document;
 * gpa_dra_slice_copy() makes a copy that borrows nothing, its equal parts shared (what an inventory keeps).
 */
#ifndef GPA_DRA_SLICE_H
#define GPA_DRA_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/intern.h"
#include "document/value.h"
#include "kube/quantity.h"

/* The API's limits (resource/v1 validation): what one slice may hold. */
#define GPA_DRA_MAX_SLICE_DEVICES 128
#define GPA_DRA_MAX_DEVICE_ATTRIBUTES 32 /* attributes and capacities of one device, together */
#define GPA_DRA_MAX_COUNTER_SETS 32      /* a 1.34 slice may hold 32; 1.35+ holds 8 */
#define GPA_DRA_MAX_COUNTERS 32          /* counters of one set (and of one consumption) */
#define GPA_DRA_MAX_CONSUMPTIONS 2       /* consumesCounters of one device (1.35+; 1.34 allowed 32 in all) */
#define GPA_DRA_MAX_TAINTS 16
#define GPA_DRA_MAX_VALID_VALUES 10

typedef enum en_gpa_dra_attr_type_t {
    GPA_DRA_ATTR_INT,
    GPA_DRA_ATTR_BOOL,
    GPA_DRA_ATTR_STRING,
    GPA_DRA_ATTR_VERSION,
    GPA_DRA_ATTR_OTHER, /* a list attribute (DRAListTypeAttributes) or none of the four: CEL reads it as unknown */
} gpa_dra_attr_type_t;

/* One attribute: `domain/id` as CEL reads it (device.attributes[domain].id); an unqualified name is the driver's. */
typedef struct st_gpa_dra_attribute_t {
    const char *domain, *id;
    gpa_dra_attr_type_t type;
    int64_t i;     /* INT */
    int b;         /* BOOL */
    const char *s; /* STRING, VERSION (the text as written) */
} gpa_dra_attribute_t;

/* A capacity's requestPolicy (KEP-5075): how a request is rounded, and what is consumed when none is named. */
typedef struct st_gpa_dra_policy_t {
    int has_default;
    gpa_quantity_t def;
    gpa_quantity_t *valid_values; /* ascending, at most GPA_DRA_MAX_VALID_VALUES; none: no list */
    size_t nvalid_values;
    int has_range, has_max, has_step;
    gpa_quantity_t min, max, step;
} gpa_dra_policy_t;

typedef struct st_gpa_dra_device_capacity_t {
    const char *domain, *id; /* as for attributes: device.capacity[domain].id */
    gpa_quantity_t value;
    const gpa_dra_policy_t *policy; /* requestPolicy, or NULL */
} gpa_dra_device_capacity_t;

typedef struct st_gpa_dra_counter_t {
    const char *name;
    gpa_quantity_t value;
} gpa_dra_counter_t;

/* A named set of counters (`sharedCounters[]`), or what a device consumes of one (`consumesCounters[]`). */
typedef struct st_gpa_dra_counter_set_t {
    const char *name; /* the set's name; for a consumption, the set it consumes from (`counterSet`) */
    gpa_dra_counter_t *counters;
    size_t ncounters;
} gpa_dra_counter_set_t;

typedef struct st_gpa_dra_taint_t {
    const char *key, *value, *effect; /* NULL when absent */
} gpa_dra_taint_t;

/* Where devices are: exactly one of the three is set on a slice (or, with perDeviceNodeSelection, on each device). */
typedef struct st_gpa_dra_nodes_t {
    const char *node_name; /* NULL when absent */
    int all_nodes;
    /* nodeSelector, a mapping as written (NULL when absent): read as a Pod's required node affinity is, by whoever
     * matches nodes against it (kube/decode.h gpa_decode_node_selector), with its path for the errors. */
    const gpa_value_t *selector;
    const char *selector_path;
} gpa_dra_nodes_t;

typedef struct st_gpa_dra_device_t {
    const char *name;
    const char *path; /* "spec.devices[3]" */
    /* each a record of its own, so that a copy shares the records equal across devices (most are: a uuid is not) */
    const gpa_dra_attribute_t **attributes;
    size_t nattributes;
    const gpa_dra_device_capacity_t **capacity;
    size_t ncapacity;
    gpa_dra_counter_set_t *consumes; /* consumesCounters */
    size_t nconsumes;
    gpa_dra_taint_t *taints;
    size_t ntaints;
    int allow_multiple;    /* allowMultipleAllocations: true */
    gpa_dra_nodes_t nodes; /* its own, with the slice's perDeviceNodeSelection */
} gpa_dra_device_t;

typedef struct st_gpa_dra_slice_t {
    const char *driver;
    const char *pool;          /* pool.name */
    int64_t generation;        /* pool.generation */
    int64_t slice_count;       /* pool.resourceSliceCount */
    gpa_dra_nodes_t nodes;     /* the slice's (unused with per_device) */
    int per_device;            /* perDeviceNodeSelection: true */
    gpa_dra_device_t *devices; /* at most GPA_DRA_MAX_SLICE_DEVICES */
    size_t ndevices;
    gpa_dra_counter_set_t *counter_sets; /* sharedCounters */
    size_t ncounter_sets;
} gpa_dra_slice_t;

/* Reads a ResourceSlice's spec (doc the whole object; `basic`: v1beta1's layout, each device's fields under `basic`).
 * Returns 0 with *out (arena-owned), or -1 with err at the first field of a bad shape. */
int gpa_dra_slice_decode(gpa_arena_t *a, const gpa_value_t *doc, int basic, gpa_dra_slice_t *out, gpa_error_t *err);

/*
 * A copy of src in in->a that borrows nothing from src or its document: strings and the records equal across
 * devices (attributes, capacities, policies, counters, taints, paths) stored once through `in`.
 */
void gpa_dra_slice_copy(gpa_intern_t *in, const gpa_dra_slice_t *src, gpa_dra_slice_t *dst);

/* The attribute `domain/id` of d (an unqualified `name` is looked up in the driver's domain), or NULL. */
const gpa_dra_attribute_t *gpa_dra_device_attribute(const gpa_dra_device_t *d, const char *domain, const char *id);
/* The capacity `domain/id` of d, or NULL. */
const gpa_dra_device_capacity_t *gpa_dra_device_capacity(const gpa_dra_device_t *d, const char *domain, const char *id);
/* The attribute a constraint names (`matchAttribute`: "domain/id", or an unqualified id in `driver`'s domain), or NULL. */
const gpa_dra_attribute_t *gpa_dra_device_attribute_named(const gpa_dra_device_t *d, const char *driver, const char *name);
/* The capacity a claim names (`capacity.requests`: "domain/id", or an unqualified id in `driver`'s domain), or NULL. */
const gpa_dra_device_capacity_t *gpa_dra_device_capacity_named(const gpa_dra_device_t *d, const char *driver, const char *name);

#endif
