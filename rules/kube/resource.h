/*
 * The GPU resource and annotation names gpuadmit knows, interned as constant tokens at decode time so that
 * rules compare integers, never strings (h2o's token table).
 */
#ifndef GPA_RESOURCE_H
#define GPA_RESOURCE_H

#include <stddef.h>

typedef enum en_gpa_dialect_t {
    GPA_DIALECT_VENDOR = 1 << 0,
    GPA_DIALECT_KOORDINATOR = 1 << 1,
    GPA_DIALECT_MGPU = 1 << 2,
    GPA_DIALECT_HAMI = 1 << 3,
    GPA_DIALECT_ALL = 15,
} gpa_dialect_t;

typedef enum en_gpa_resource_t {
    GPA_R_NVIDIA_GPU,
    GPA_R_AMD_GPU,
    GPA_R_DCU_GPU,
    GPA_R_GPU_MEMORY,       /* koordinator.sh/gpu-memory, bytes */
    GPA_R_GPU_MEMORY_RATIO, /* koordinator.sh/gpu-memory-ratio, percent of one device */
    GPA_R_GPU_CORE,         /* koordinator.sh/gpu-core, percent of one device */
    GPA_R_GPU_SHARED,       /* koordinator.sh/gpu.shared, number of devices */
    GPA_R_GPU,              /* koordinator.sh/gpu (deprecated), percent of one device */
    GPA_R_MGPU_CORE,        /* vke.volcengine.com/mgpu-core, percent of one card */
    GPA_R_MGPU_MEMORY,      /* vke.volcengine.com/mgpu-memory, MiB */
    GPA_R__COUNT,
    GPA_R_UNKNOWN = GPA_R__COUNT,
} gpa_resource_t;

#define GPA_ANNOTATION_MULTIPLE_GPU "vke.volcengine.com/container-multiple-gpu"
#define GPA_ANNOTATION_DEVICE_ALLOCATED "scheduling.koordinator.sh/device-allocated"
#define GPA_ANNOTATION_GPU_INDEX_PREFIX "vke.volcengine.com/gpu-index-container-"

/* "koordinator.sh/gpu-core" etc.; static storage. */
const char *gpa_resource_name(gpa_resource_t r);
/* JSON-pointer-escaped name ("koordinator.sh~1gpu-core"); static storage. */
const char *gpa_resource_pointer_name(gpa_resource_t r);
/* The token for a (decoded) name, GPA_R_UNKNOWN for any other name. */
gpa_resource_t gpa_resource_lookup(const char *name, size_t len);
gpa_dialect_t gpa_resource_dialect(gpa_resource_t r);
/* The dialect whose domain a resource name is in (nvidia.com, amd.com, dcu.com: vendor; koordinator.sh:
 * Koordinator; vke.volcengine.com: mGPU; the domain compared ignoring case), 0 for a name in any other domain. */
gpa_dialect_t gpa_resource_domain(const char *name, size_t len);
/*
 * For a name that is no resource gpuadmit knows: the known resource it is a near miss of
 * (docs/rules.md#unknown-resource), or GPA_R_UNKNOWN. A near miss is in a domain of one of `dialects` and is
 * not a name other systems define (nvidia.com/gpu.shared, nvidia.com/mig-*, HAMi's gpumem, gpumem-percentage and
 * gpucores, koordinator.sh/rdma and fpga); it equals a known name of its domain ignoring case and the
 * separators - . _, or is within edit distance 2 of one, or (Koordinator, mGPU) starts with gpu / mgpu. The
 * resource returned is the closest known name of the domain.
 */
gpa_resource_t gpa_resource_near_miss(unsigned dialects, const char *name, size_t len);
/* "vendor", "koordinator", "mgpu" to the dialect; 0 for an unknown name. */
gpa_dialect_t gpa_dialect_parse(const char *name);
/* The name of one dialect bit (the configuration's `dialects` spelling; static), NULL for anything else. */
const char *gpa_dialect_name(unsigned dialect);

#endif
