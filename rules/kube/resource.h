/*
 * The GPU resource and annotation names gpuadmit knows, interned as constant tokens at decode time so that
 * rules compare integers, never strings (h2o's token table).
 */
#ifndef GPA_RESOURCE_H
#define GPA_RESOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef enum en_gpa_dialect_t {
    GPA_DIALECT_VENDOR = 1 << 0,
    GPA_DIALECT_KOORDINATOR = 1 << 1,
    GPA_DIALECT_MGPU = 1 << 2,
    GPA_DIALECT_HAMI = 1 << 3,
    GPA_DIALECT_DRA = 1 << 4, /* resource.k8s.io claims, templates, classes; a Pod's claims (kube/dra.h) */
    GPA_DIALECT_ALL = 31,
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
    /* HAMi, NVIDIA (the row GPA_HAMI_NVIDIA of the HAMi table below): names as configured, never literals. */
    GPA_R_HAMI_NV_COUNT,   /* resourceCountName, when it is no vendor name (else the vendor token counts) */
    GPA_R_HAMI_NV_MEMORY,  /* resourceMemoryName (nvidia.com/gpumem): MiB per vGPU, x memoryFactor */
    GPA_R_HAMI_NV_PERCENT, /* resourceMemoryPercentageName (nvidia.com/gpumem-percentage) */
    GPA_R_HAMI_NV_CORES,   /* resourceCoreName (nvidia.com/gpucores): percent of each card's compute */
    GPA_R__COUNT,
    GPA_R_UNKNOWN = GPA_R__COUNT,
} gpa_resource_t;

#define GPA_ANNOTATION_MULTIPLE_GPU "vke.volcengine.com/container-multiple-gpu"
#define GPA_ANNOTATION_DEVICE_ALLOCATED "scheduling.koordinator.sh/device-allocated"
#define GPA_ANNOTATION_GPU_INDEX_PREFIX "vke.volcengine.com/gpu-index-container-"

/*
 * HAMi (docs/rules.md#hami): one row per device vendor HAMi shares (only NVIDIA today; Hygon, Cambricon, Metax
 * would each be one more row here, its tokens above and its memory unit). A row's names are HAMi's configuration
 * (the configuration's `hami` block fills them), so the names below are only defaults: decode interns the
 * configured ones (gpa_resource_intern), and nothing compares against a literal HAMi name outside resource.c.
 */
typedef enum en_gpa_hami_vendor_t {
    GPA_HAMI_NVIDIA,
    GPA_HAMI__VENDORS,
} gpa_hami_vendor_t;

/* The names of one row, as HAMi's device configuration spells its keys. */
typedef enum en_gpa_hami_name_t {
    GPA_HAMI_COUNT,    /* resourceCountName: vGPUs, each on a different card */
    GPA_HAMI_MEMORY,   /* resourceMemoryName: memory per vGPU, in the row's unit x memoryFactor */
    GPA_HAMI_PERCENT,  /* resourceMemoryPercentageName: percent of each card's memory */
    GPA_HAMI_CORES,    /* resourceCoreName: percent of each card's compute */
    GPA_HAMI_PRIORITY, /* resourcePriorityName: a task priority, known but no GPU amount (no token) */
    GPA_HAMI__NAMES,
} gpa_hami_name_t;

/* One row as configured: names and defaults (the keys of HAMi's device configuration section). */
typedef struct st_gpa_hami_device_t {
    const char *name[GPA_HAMI__NAMES]; /* NUL-terminated; static or the configuration's arena */
    size_t len[GPA_HAMI__NAMES];
    int64_t memory_factor;      /* memoryFactor: >= 1 */
    int64_t default_memory;     /* defaultMemory: MiB per vGPU when none is asked; 0 = the whole card */
    int64_t default_cores;      /* defaultCores */
    int64_t default_gpu_num;    /* defaultGPUNum: vGPUs when the count is absent; 0 = none (no HAMi request) */
    int64_t device_split_count; /* deviceSplitCount: slots per card where the inventory does not say */
} gpa_hami_device_t;

typedef struct st_gpa_hami_names_t {
    gpa_hami_device_t device[GPA_HAMI__VENDORS];
} gpa_hami_names_t;

/* HAMi's 32-bit MiB: a memory above it wraps (up to v2.9) or is dropped (v2.10). */
#define GPA_HAMI_MIB_MAX ((int64_t)2147483647)

/* HAMi's own defaults (static). */
extern const gpa_hami_names_t gpa_hami_names_default;
/* The token row `name` of vendor `v` interns to; for GPA_HAMI_COUNT, the vendor token when the configured count
 * name is a vendor's (HAMi's nvidia.com/gpu and the vendor's are one resource). GPA_R_UNKNOWN for the priority. */
gpa_resource_t gpa_hami_token(const gpa_hami_names_t *names, gpa_hami_vendor_t v, gpa_hami_name_t name);
/* Vendor row of a HAMi token (GPA_R_HAMI_*), or -1. */
int gpa_hami_vendor_of(gpa_resource_t r);
/* The memory unit of a row, in MiB (NVIDIA: 1). */
int64_t gpa_hami_memory_unit_mib(gpa_hami_vendor_t v);
/* Whether `name` is one of the configured names of any row (the priority included). */
int gpa_hami_names_has(const gpa_hami_names_t *names, const char *name, size_t len);
/* Sets row v's name n to `name` (borrowed: it must outlive the table), with its length. */
void gpa_hami_names_set(gpa_hami_names_t *names, gpa_hami_vendor_t v, gpa_hami_name_t n, const char *name);

/*
 * The annotations HAMi's scheduler reads on a Pod (docs/rules.md#invalid-annotation). The card-selection ones
 * belong to a vendor row (gpa_hami_annotation); the policies are HAMi's own.
 */
typedef enum en_gpa_hami_annotation_t {
    GPA_HAMI_USE_TYPE,   /* nvidia.com/use-gputype: comma list of card types (substring) */
    GPA_HAMI_NOUSE_TYPE, /* nvidia.com/nouse-gputype */
    GPA_HAMI_USE_UUID,   /* nvidia.com/use-gpuuuid: comma list of card UUIDs */
    GPA_HAMI_NOUSE_UUID, /* nvidia.com/nouse-gpuuuid */
    GPA_HAMI_MODE,       /* nvidia.com/vgpu-mode: hami-core, mig, mps */
    GPA_HAMI_NUMA_BIND,  /* nvidia.com/numa-bind: a boolean */
    GPA_HAMI__ANNOTATIONS,
} gpa_hami_annotation_t;
/* The annotation of row v (static storage). */
const char *gpa_hami_annotation(gpa_hami_vendor_t v, gpa_hami_annotation_t which);
/* Whether `key` is an annotation HAMi's scheduler reads (any row's, or a policy). */
int gpa_hami_annotation_known(const char *key);
#define GPA_ANNOTATION_HAMI_GPU_POLICY "hami.io/gpu-scheduler-policy"
#define GPA_ANNOTATION_HAMI_NODE_POLICY "hami.io/node-scheduler-policy"
/* The node hami-scheduler chose (its Filter writes it): the Pod went through HAMi's scheduler. */
#define GPA_ANNOTATION_HAMI_VGPU_NODE "hami.io/vgpu-node"

/* "koordinator.sh/gpu-core" etc.; static storage. For a HAMi token, HAMi's default name: messages use
 * gpa_resource_name_in with the configured names. */
const char *gpa_resource_name(gpa_resource_t r);
/* The name of r as `names` configure it (NULL: HAMi's defaults); static or borrowed from names. */
const char *gpa_resource_name_in(const gpa_hami_names_t *names, gpa_resource_t r);
/* JSON-pointer-escaped name ("koordinator.sh~1gpu-core"); static storage. */
const char *gpa_resource_pointer_name(gpa_resource_t r);
/* The token for a (decoded) name among the fixed names (vendor, Koordinator, mGPU), GPA_R_UNKNOWN for any other
 * name (HAMi's included: see gpa_resource_intern). */
gpa_resource_t gpa_resource_lookup(const char *name, size_t len);
/* The token for a name: the fixed names, then HAMi's as `names` configure them (NULL: HAMi's defaults). */
gpa_resource_t gpa_resource_intern(const gpa_hami_names_t *names, const char *name, size_t len);
gpa_dialect_t gpa_resource_dialect(gpa_resource_t r);
/* The dialect whose domain a resource name is in (nvidia.com, amd.com, dcu.com: vendor; koordinator.sh:
 * Koordinator; vke.volcengine.com: mGPU; the domain compared ignoring case), 0 for a name in any other domain. */
gpa_dialect_t gpa_resource_domain(const char *name, size_t len);
/*
 * For a name that is no resource gpuadmit knows: the known resource it is a near miss of
 * (docs/rules.md#unknown-resource), or GPA_R_UNKNOWN. A near miss is in a domain of one of `dialects` and is
 * not a name other systems define (nvidia.com/gpu.shared, nvidia.com/mig-*, koordinator.sh/rdma and fpga) nor one
 * of HAMi's as `names` configure them (NULL: HAMi's defaults; its priority included); it equals a known name of its
 * domain ignoring case and the separators - . _, or is within edit distance 2 of one, or (Koordinator, mGPU) starts
 * with gpu / mgpu. Known names are the fixed ones and, with the HAMi dialect enabled, HAMi's configured ones
 * (`nvidia.com/gpucore` is a near miss of nvidia.com/gpucores). The resource returned is the closest known name of
 * the domain.
 */
gpa_resource_t gpa_resource_near_miss(const gpa_hami_names_t *names, unsigned dialects, const char *name, size_t len);
/* "vendor", "koordinator", "mgpu", "hami", "dra" to the dialect; 0 for an unknown name. */
gpa_dialect_t gpa_dialect_parse(const char *name);
/* The name of one dialect bit (the configuration's `dialects` spelling; static), NULL for anything else. */
const char *gpa_dialect_name(unsigned dialect);

#endif
