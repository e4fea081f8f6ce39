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
    GPA_MEMORY_NONE,        /* no memory asked (vendor whole devices carry whole=1 instead) */
    GPA_MEMORY_BYTES,       /* memory_bytes per device, placement-independent */
    GPA_MEMORY_RATIO,       /* memory_ratio percent per device, converted on each device: ceil(ratio * M / 100) */
    GPA_MEMORY_PERCENT_MIB, /* HAMi's percentage: memory_ratio percent of the card, floor(M MiB * p / 100) MiB */
    GPA_MEMORY_CARD,        /* HAMi's whole card: the card's registered memory (one slot; not whole: shares slots) */
} gpa_memory_kind_t;

/*
 * A HAMi group's card selection (docs/allocator.md#hami-placement): the Pod's annotations as HAMi's scheduler
 * reads them (v2.10: comma lists, items trimmed, empty items ignored; a blank list is no constraint), and the
 * slots of a card whose register annotation does not say. Strings borrowed from the Pod spec; NULL = absent.
 */
typedef struct st_gpa_hami_select_t {
    const char *use_type, *nouse_type; /* card type contains an item, case-insensitive */
    const char *use_uuid, *nouse_uuid; /* card UUID equals an item */
    const char *mode;                  /* vgpu-mode: the card is kept when the value contains its mode */
    const char *policy;                /* hami.io/gpu-scheduler-policy: binpack or spread (a chain: its first of them) */
    int64_t split_count;               /* deviceSplitCount */
    uint64_t list_steps;               /* what testing one card against the lists costs, in search steps (a step per
                                          64 bytes of them): a 250 KB UUID list pays for its scans */
} gpa_hami_select_t;

/*
 * `count` devices, each carrying the same per-device share: for one container (vendor, mGPU), or for the whole Pod
 * (Koordinator: koord-scheduler reserves a Pod's devices as one request, its containers' totals by Kubernetes'
 * PodRequests rule, so every container with a Koordinator resource is in the one group; docs/allocator.md).
 */
typedef struct st_gpa_device_group_t {
    const gpa_container_t *container; /* the (first) container the group is for */
    size_t ncontainers;               /* containers the group is for: 1, or a Koordinator Pod's (app, then init) */
    const char *containers;           /* their names joined with "," (borrowed or arena-owned) */
    gpa_dialect_t dialect;
    unsigned count; /* devices in the group; > 1 means distinct devices */
    int whole;      /* whole devices (vendor, or core 100 and all memory per device) */
    int64_t core;   /* per-device compute percent, 0..100 */
    gpa_memory_kind_t memory_kind;
    int64_t memory_bytes; /* GPA_MEMORY_BYTES: per device, ceil(total / count) */
    /* GPA_MEMORY_BYTES, as the scheduler writes it (annotations only, never fit): the bytes asked in all (it
     * writes total / count per device, truncated, as a new binary-SI quantity: "40G" becomes "39062500Ki") */
    int64_t memory_total;
    int64_t memory_ratio;          /* GPA_MEMORY_RATIO, GPA_MEMORY_PERCENT_MIB: per-device percent */
    const gpa_hami_select_t *hami; /* dialect GPA_DIALECT_HAMI: the card selection (arena-owned); else NULL */
    /* A vendor count of HAMi's count resource (nvidia.com/gpu alone): hami-scheduler places it too, so the Pod's card
     * selection applies on the cards HAMi registered (whole cards still); NULL when the Pod selects nothing. */
    const gpa_hami_select_t *select;
} gpa_device_group_t;

typedef struct st_gpa_request_t {
    gpa_device_group_t *groups; /* app containers first (container order), then init containers */
    size_t ngroups;
    size_t napp_groups; /* groups[0..napp_groups) belong to app containers */
    /* GPA_NORMALIZE_TOO_MANY: the first container that asks for more devices than a group counts, and how many */
    const gpa_container_t *too_many_container;
    int64_t too_many;
    const char *too_many_asks; /* who asks, as messages say it: "container a asks", "the Pod's 2 containers ask" */
} gpa_request_t;

/* A group counts at most this many devices; no node has as many. */
#define GPA_NORMALIZE_MAX_DEVICES ((int64_t)UINT32_MAX)
/* gpa_normalize's answer for a sound request with a count above GPA_NORMALIZE_MAX_DEVICES: nothing can hold it. */
#define GPA_NORMALIZE_TOO_MANY 1

/*
 * Normalizes one Pod spec. Returns 0; -1 when the spec is not normalizable (a rule would deny it: the validation
 * rules explain why; normalize does not repeat them); or GPA_NORMALIZE_TOO_MANY when the spec is sound but a
 * container asks for 2^32 devices or more (a vendor count, gpu.shared, mGPU cards; a Koordinator Pod's total
 * gpu.shared): no node could ever hold it, and out->too_many_container, out->too_many and out->too_many_asks say which
 * and how many (the groups are not usable). Only the dialects in `dialects` (GPA_DIALECT_* bits) count.
 *
 * Koordinator: one group for the Pod, app containers' groups' place (a Pod asks in one dialect). Per resource the
 * larger of the sum over app containers and the largest init container (koordinator.sh/gpu counting as its
 * compute and memory ratio); n = total gpu.shared (none given: total ratio/100 when a multiple of 100 from 100 up,
 * else 1) distinct devices, each total core/n, total ratio/n or ceil(total bytes/n). Each container must be sound on
 * its own too, and the totals must split (memory-ratio-exclusive, multi-card-divisibility, per-device-over-100 on
 * the Pod's totals), else -1.
 */
int gpa_normalize(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_request_t *out);

/* Who asks for a group, as messages say it: "container a asks", "init container a asks", "the Pod's 2 containers ask"
 * (arena-owned). */
const char *gpa_normalize_asks(gpa_arena_t *a, const gpa_device_group_t *g);

#endif
