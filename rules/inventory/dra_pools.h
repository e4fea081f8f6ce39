/*
 * The devices DRA drivers publish (docs/dra.md#inventory), gathered from ResourceSlices as Kubernetes' allocator
 * gathers them: a pool (driver, pool name) counts at its highest generation, and only once every one of that
 * generation's `resourceSliceCount` slices is present (an incomplete pool is named in a warning and holds nothing);
 * counter sets are joined across the pool's slices, so 1.34's combined layout and 1.35's split layout (counters in
 * one slice, the devices consuming them in others) read alike.
 *
 * Ownership: slices are borrowed (they must outlive the pools); what gpa_dra_pools_seal builds lives in the arena it
 * is given. Sealed pools are read-only and may be read by any number of threads.
 */
#ifndef GPA_DRA_POOLS_H
#define GPA_DRA_POOLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "kube/dra.h"
#include "kube/dra_slice.h"

typedef struct st_gpa_dra_pool_t {
    const char *driver, *name;
    int64_t generation;  /* the highest seen */
    int64_t slice_count; /* resourceSliceCount of that generation */
    size_t nslices;      /* slices of that generation present */
    int complete;        /* nslices == slice_count: its devices count */
    const gpa_dra_slice_t **slices;
    gpa_dra_counter_set_t *counter_sets; /* sharedCounters of its slices, joined (the first of one name wins) */
    size_t ncounter_sets;
    /* What the devices allocated claims hold consume of each counter (gpa_dra_pools_use): used[i][k] of
     * counter_sets[i].counters[k] (saturating); NULL when none of the pool's devices is held. */
    int64_t **used;
} gpa_dra_pool_t;

/* A device of a complete pool, with where it is (the slice's nodes, or its own with perDeviceNodeSelection). */
typedef struct st_gpa_dra_placed_t {
    const gpa_dra_device_t *device;
    const gpa_dra_pool_t *pool;
    const gpa_dra_nodes_t *nodes;
} gpa_dra_placed_t;

/* What allocated claims hold of one device (gpa_dra_pools_use). */
typedef struct st_gpa_dra_use_t {
    unsigned allocations;       /* results naming the device */
    const char *by;             /* the first claim holding it, "namespace/name" */
    gpa_dra_amount_t *consumed; /* consumedCapacity summed by capacity name (saturating) */
    size_t nconsumed;
} gpa_dra_use_t;

/* The devices on one node: pools->devices[first .. first + n). */
typedef struct st_gpa_dra_node_run_t {
    const char *node;
    size_t first, n;
} gpa_dra_node_run_t;

typedef struct st_gpa_dra_pools_t {
    GPA_VEC(const gpa_dra_slice_t *) added_;
    gpa_dra_pool_t *pools; /* sealed: by driver, then pool name */
    size_t npools;
    /* sealed: the devices of complete pools, those offered to any node (no nodeName: allNodes, a node selector) first,
     * then node by node (by name); within those, pool by pool in slice order. An allocator goes node by node and stops
     * at the first that serves. */
    gpa_dra_placed_t *devices;
    size_t ndevices;
    size_t nanywhere;         /* devices[0 .. nanywhere): offered to any node */
    gpa_dra_node_run_t *runs; /* the nodes the others name, by name */
    size_t nruns;
    gpa_dra_use_t *use; /* by device index (gpa_dra_pools_use), NULL when no claim holds a device */
} gpa_dra_pools_t;

/* An empty set (a zeroed one is empty too). */
void gpa_dra_pools_init(gpa_dra_pools_t *p);
/* Adds a slice (borrowed). Slices added after gpa_dra_pools_seal count only after the next seal. */
void gpa_dra_pools_add(gpa_arena_t *a, gpa_dra_pools_t *p, const gpa_dra_slice_t *slice);
/* Gathers the slices added into pools and devices, in a; calls warn(ctx, message) once per incomplete pool. */
void gpa_dra_pools_seal(gpa_arena_t *a, gpa_dra_pools_t *p, void (*warn)(void *ctx, const char *message), void *ctx);
/*
 * What the allocated claims among `claims` (n objects of any kind; claims' gpa_dra_object_t.allocated) hold of the sealed
 * devices, in a: a result naming no published device (a pool since replaced, a driver gone) holds nothing. Call after
 * gpa_dra_pools_seal; p->use is NULL when no result names a device.
 */
void gpa_dra_pools_use(gpa_arena_t *a, gpa_dra_pools_t *p, const gpa_dra_object_t *const *claims, size_t n);
/* What is left of counter `counter` of the pool's set `set`: the whole value, less what the devices allocated claims
 * hold consume of it when `held` (gpa_dra_pools_use); INT64_MIN when the set or counter is not the pool's, or its value
 * cannot be read. */
int64_t gpa_dra_pool_counter_left(const gpa_dra_pool_t *pool, const char *set, const char *counter, int held);

/* Whether `driver` has published at least one complete pool: before it has, nothing is known to be missing. */
int gpa_dra_pools_driver_known(const gpa_dra_pools_t *p, const char *driver);
/* The counter set `name` of pool, or NULL. */
const gpa_dra_counter_set_t *gpa_dra_pool_counter_set(const gpa_dra_pool_t *pool, const char *name);

#endif
