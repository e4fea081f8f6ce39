/*
 * Private to the allocator (alloc.c): what the scheduler would write on a Pod it placed — Koordinator's
 * device-allocated (one entry per device, the Pod's shares on it summed) or mGPU's gpu-index-container-<name>
 * (the card minors per container).
 */
#ifndef GPA_ANNOTATE_H
#define GPA_ANNOTATE_H

#include <stdint.h>

#include "base/arena.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "alloc/placement.h"

/*
 * Sets out->annotations (arena-owned) for the shares out holds on `node` (app containers') and the init containers'
 * shares `init` (n of them, borrowed); none when nothing is held. Each is byte for byte what that scheduler writes
 * (docs/allocator.md#annotations-fit-reports): Koordinator's device-allocated with koord-scheduler's arithmetic
 * (below) and Go's JSON (resources in sorted key order, quantities in canonical form); mGPU's
 * gpu-index-container-<name> (cards joined by ",") and assumed "true"; HAMi's vgpu-node, vgpu-devices-to-allocate
 * and vgpu-devices-allocated (per card `UUID,NVIDIA,<MiB>,<cores>:`, per container of `pod` `;`, init containers
 * first, then app containers, in spec order).
 */
void gpa_annotate_placement(gpa_arena_t *a, const gpa_podspec_t *pod, const gpa_request_t *req, const gpa_node_t *node,
                            const gpa_share_t *init, size_t ninit, gpa_placement_t *out);

/* Bytes of a ratio (percent) of a device of `total` bytes, as koord-scheduler writes them: floor(ratio × total /
 * 100), exact (INT64_MAX beyond int64). Feasibility rounds up instead (search.h): never less than asked. */
int64_t gpa_annotate_ratio_bytes(int64_t ratio, int64_t total);
/* The percent of a device of `total` bytes that `bytes` are, as koord-scheduler writes it: the float64 quotient
 * times 100, truncated (2320Mi of 8000Mi is 28, not 29); 0 when total is not positive. */
int64_t gpa_annotate_bytes_ratio(int64_t bytes, int64_t total);

#endif
