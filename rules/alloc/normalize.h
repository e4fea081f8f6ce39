/*
 * The canonical request (docs/allocator.md): every dialect normalized to device groups. Validation (divisibility,
 * per-device limits, min-memory), mutation and the allocator all read this one form, so what validation
 * admits, placement can place.
 */
#ifndef GPA_NORMALIZE_H
#define GPA_NORMALIZE_H

#include <stdint.h>

#include "base/arena.h"
#include "kube/model.h"

typedef enum en_gpa_memory_kind_t {
    GPA_MEMORY_NONE,  /* no memory asked (vendor whole devices carry whole=1 instead) */
    GPA_MEMORY_BYTES, /* memory_bytes per device, placement-independent */
    GPA_MEMORY_RATIO, /* memory_ratio percent per device, converted on each device: ceil(ratio * M / 100) */
} gpa_memory_kind_t;

/* `count` devices, each carrying the same per-device share, for one container. */
typedef struct st_gpa_device_group_t {
    const gpa_container_t *container;
    gpa_dialect_t dialect;
    unsigned count; /* devices in the group; > 1 means distinct devices */
    int whole;      /* whole devices (vendor, or core 100 and all memory per device) */
    int64_t core;   /* per-device compute percent, 0..100 */
    gpa_memory_kind_t memory_kind;
    int64_t memory_bytes; /* GPA_MEMORY_BYTES: per device, ceil(total / count) */
    int64_t memory_ratio; /* GPA_MEMORY_RATIO: per-device percent */
} gpa_device_group_t;

typedef struct st_gpa_request_t {
    gpa_device_group_t *groups; /* app containers first (container order), then init containers */
    size_t ngroups;
    size_t napp_groups; /* groups[0..napp_groups) belong to app containers */
} gpa_request_t;

/*
 * Normalizes one Pod spec. Returns 0, or -1 when the spec is not normalizable (a rule would deny it: the
 * validation rules explain why; normalize does not repeat them). Only the dialects in `dialects` (GPA_DIALECT_* bits) count.
 */
int gpa_normalize(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_request_t *out);

#endif
