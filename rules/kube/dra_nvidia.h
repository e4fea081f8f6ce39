/*
 * NVIDIA's DRA driver configuration (docs/rules.md#dra-opaque-config): the `opaque.parameters` of driver
 * `gpu.nvidia.com` decoded as the driver's strict decoder and its Normalize/Validate do
 * (`api/nvidia.com/resource/v1beta1` of kubernetes-sigs/dra-driver-nvidia-gpu): apiVersion
 * `resource.nvidia.com/v1beta1`; kinds GpuConfig, MigDeviceConfig, VfioDeviceConfig; no unknown field; the sharing
 * strategy, interval and IOMMU policy enums; defaultActiveThreadPercentage 0-100; pinned memory limits of at least
 * 1Mi; per-device keys an index or a GPU/MIG UUID; and, where the driver's feature gates are known, the strategy
 * against them. Pure over the value tree: no I/O.
 *
 * Ownership: faults and their texts are allocated in the arena passed in; nothing is retained.
 */
#ifndef GPA_DRA_NVIDIA_H
#define GPA_DRA_NVIDIA_H

#include <stddef.h>

#include "base/arena.h"
#include "document/value.h"

#define GPA_NVIDIA_GPU_DRIVER "gpu.nvidia.com"
#define GPA_NVIDIA_PARAMETERS_API "resource.nvidia.com/v1beta1"

/* The driver's gates that decide what a configuration may ask: each -1 (not known), 0 (off) or 1 (on). */
typedef struct st_gpa_nvidia_gates_t {
    signed char time_slicing; /* TimeSlicingSettings */
    signed char mps;          /* MPSSupport */
    signed char consumable;   /* ConsumableShares */
    signed char dynamic_mig;  /* DynamicMIG */
} gpa_nvidia_gates_t;

typedef enum en_gpa_nvidia_sharing_t {
    GPA_NVIDIA_SHARE_NONE,
    GPA_NVIDIA_SHARE_TIME_SLICING,
    GPA_NVIDIA_SHARE_MPS,
} gpa_nvidia_sharing_t;

/* One thing the driver would refuse: where (relative to the parameters: "sharing.strategy", "" for the whole) and
 * why, naming the field and the fix. */
typedef struct st_gpa_nvidia_fault_t {
    const char *path;
    const char *message;
} gpa_nvidia_fault_t;

/* The first GPA_NVIDIA_MAX_FAULTS faults are kept; the driver stops at its first, so more only help the fix. */
#define GPA_NVIDIA_MAX_FAULTS 8

/*
 * Checks `parameters` of a config for driver `gpu.nvidia.com` (the caller filters on the driver). Writes at most
 * `max` faults to out and returns how many there are (at most max). gates may be NULL (nothing known).
 */
size_t gpa_nvidia_check(gpa_arena_t *a, const gpa_value_t *parameters, const gpa_nvidia_gates_t *gates, gpa_nvidia_fault_t *out,
                        size_t max);

/* Whether the parameters (of driver gpu.nvidia.com) share their device: a GpuConfig or MigDeviceConfig of
 * resource.nvidia.com/v1beta1 whose sharing.strategy is TimeSlicing or MPS. */
gpa_nvidia_sharing_t gpa_nvidia_sharing(const gpa_value_t *parameters);
/* "TimeSlicing", "MPS", or NULL for NONE (static). */
const char *gpa_nvidia_sharing_name(gpa_nvidia_sharing_t s);

/* The kinds of NVIDIA device a configuration applies to and the driver chart's DeviceClasses select. */
typedef enum en_gpa_nvidia_device_t {
    GPA_NVIDIA_DEVICE_UNKNOWN,
    GPA_NVIDIA_DEVICE_GPU,  /* a full GPU: GpuConfig, class gpu.nvidia.com */
    GPA_NVIDIA_DEVICE_MIG,  /* a MIG device: MigDeviceConfig, class mig.nvidia.com */
    GPA_NVIDIA_DEVICE_VFIO, /* a GPU passed through by VFIO: VfioDeviceConfig, class vfio.gpu.nvidia.com */
} gpa_nvidia_device_t;

/* The device a configuration applies to, by its kind (resource.nvidia.com/v1beta1 only); UNKNOWN otherwise. The
 * driver refuses a configuration that names a request allocated a device of another kind ("cannot apply GpuConfig
 * to device ... of type mig"); one that names no request it applies to the devices of its own kind only. */
gpa_nvidia_device_t gpa_nvidia_config_device(const gpa_value_t *parameters);
/* The device the driver chart's class `class` selects (`device.attributes['gpu.nvidia.com'].type`); UNKNOWN for
 * any other class, or NULL: a cluster's own class may select anything. */
gpa_nvidia_device_t gpa_nvidia_class_device(const char *class);
/* The configuration kind for d ("GpuConfig", "MigDeviceConfig", "VfioDeviceConfig"; static), NULL for UNKNOWN. */
const char *gpa_nvidia_device_config_kind(gpa_nvidia_device_t d);
/* The chart's class for d ("gpu.nvidia.com", ...; static), NULL for UNKNOWN. */
const char *gpa_nvidia_device_class(gpa_nvidia_device_t d);

#endif
