/*
 * Private to the allocator (alloc.c): what the scheduler would write on a Pod it placed — Koordinator's
 * device-allocated (one entry per device, the Pod's shares on it summed) or mGPU's gpu-index-container-<name>
 * (the card minors per container).
 */
#ifndef GPA_ANNOTATE_H
#define GPA_ANNOTATE_H

#include "base/arena.h"
#include "alloc/inventory.h"
#include "alloc/normalize.h"
#include "alloc/placement.h"

/* Sets out->annotations (arena-owned) for the shares out holds on `node`; none when out holds no share. */
void gpa_annotate_placement(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, gpa_placement_t *out);

#endif
