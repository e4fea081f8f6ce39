/*
 * HAMi's inventory (docs/allocator.md, "HAMi nodes"), for the loaders of inventory_load.c: the cards a Node's
 * register annotation lists, and what a Pod's hami.io/vgpu-devices-allocated says it holds. Both are read
 * defensively: a Node's annotation comes from a device plugin, a Pod's from tenants (who can write it by hand),
 * so neither ever fails a load; the caller names the object in a warning instead.
 *
 * Another HAMi vendor (Hygon DCU, Cambricon MLU...) is one row of the vendor table in inventory_hami.c: its
 * register annotation, the dialects its cards serve, and its memory unit.
 */
#ifndef GPA_INVENTORY_HAMI_H
#define GPA_INVENTORY_HAMI_H

#include "inventory/inventory.h"
#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"
#include "kube/model.h"

/* The cards HAMi registers on one node at most; an annotation listing more is not read (a typo, not a server). */
#define GPA_HAMI_MAX_CARDS 1024

#define GPA_HAMI_ANNOTATION_ALLOCATED "hami.io/vgpu-devices-allocated"
#define GPA_HAMI_ANNOTATION_NODE "hami.io/vgpu-node"
#define GPA_HAMI_ANNOTATION_TO_ALLOCATE "hami.io/vgpu-devices-to-allocate" /* what fit writes beside the two above */

/* One card of a register annotation. Strings are arena-owned. */
typedef struct st_gpa_hami_card_t {
    const char *uuid, *type, *mode;
    int64_t index, numa, count, devmem, devcore; /* devmem: MiB */
    int healthy;
} gpa_hami_card_t;

/*
 * Reads a register annotation in either format HAMi wrote (the JSON array of v2.8+, the colon-terminated list of
 * 7 or 9 fields before) into *cards (arena-owned, *n of them). 0, or -1 with why (its message only) when the text
 * is not a register annotation gpuadmit can read: not one of the formats, a number that is not a whole number in
 * range, a card without a UUID, a UUID twice, more than GPA_HAMI_MAX_CARDS cards.
 */
int gpa_hami_read_register(gpa_arena_t *a, const char *text, size_t len, gpa_hami_card_t **cards, size_t *n, gpa_error_t *why);

/*
 * A Node's HAMi cards: when one of the vendors' register annotations is in `annotations` (its metadata.annotations), the node's
 * devices are its cards (d->count and d->memory are cleared: on a HAMi node the allocatable nvidia.com/gpu counts slots, not cards)
 * and it serves the vendor's dialects; each card goes to sink->gpu (minor = index, or the card's position when the indices are not
 * distinct, as in v2.4's list). Returns 0 when no register annotation is there (d untouched), 1 when the cards were read, -1 with
 * why (path, message) when the annotation cannot be read: the node then has no HAMi cards, and the caller names it in a warning.
 * d->name must be set.
 */
int gpa_hami_node(gpa_arena_t *a, const gpa_value_t *annotations, gpa_node_desc_t *d, const gpa_inventory_sink_t *sink,
                  gpa_error_t *why);

/*
 * What a Pod holds by its hami.io/vgpu-devices-allocated. Returns 0 when it has no such annotation (other readings
 * apply), 1 when read: a Pod that is not finished holds, on the node hami.io/vgpu-node names (else spec.nodeName),
 * each entry's MiB and cores and one slot of the card of that UUID, at most as many entries as the vGPUs and whole
 * cards its own request counts (normalized: init containers included), each entry at most what one of its vGPUs asks
 * (its gpumem, its cores; the card's memory for a percentage or a whole card); the records go to sink->usage once the
 * whole annotation was read. -1 with why (path, message) when the annotation or the Pod's request cannot be read: the
 * Pod holds nothing.
 */
int gpa_hami_pod(gpa_arena_t *a, const gpa_object_t *obj, const char *source, unsigned line, const gpa_inventory_sink_t *sink,
                 gpa_error_t *why);

#endif
