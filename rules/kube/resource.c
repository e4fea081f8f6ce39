#include "kube/resource.h"

#include <string.h>

static const struct {
    const char *name;
    const char *pointer_name;
    gpa_dialect_t dialect;
} table[GPA_R__COUNT] = {
    [GPA_R_NVIDIA_GPU] = {"nvidia.com/gpu", "nvidia.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_AMD_GPU] = {"amd.com/gpu", "amd.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_DCU_GPU] = {"dcu.com/gpu", "dcu.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_GPU_MEMORY] = {"koordinator.sh/gpu-memory", "koordinator.sh~1gpu-memory", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_MEMORY_RATIO] = {"koordinator.sh/gpu-memory-ratio", "koordinator.sh~1gpu-memory-ratio", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_CORE] = {"koordinator.sh/gpu-core", "koordinator.sh~1gpu-core", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_SHARED] = {"koordinator.sh/gpu.shared", "koordinator.sh~1gpu.shared", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU] = {"koordinator.sh/gpu", "koordinator.sh~1gpu", GPA_DIALECT_KOORDINATOR},
    [GPA_R_MGPU_CORE] = {"vke.volcengine.com/mgpu-core", "vke.volcengine.com~1mgpu-core", GPA_DIALECT_MGPU},
    [GPA_R_MGPU_MEMORY] = {"vke.volcengine.com/mgpu-memory", "vke.volcengine.com~1mgpu-memory", GPA_DIALECT_MGPU},
};

const char *gpa_resource_name(gpa_resource_t r)
{
    return r < GPA_R__COUNT ? table[r].name : "";
}

const char *gpa_resource_pointer_name(gpa_resource_t r)
{
    return r < GPA_R__COUNT ? table[r].pointer_name : "";
}

gpa_resource_t gpa_resource_lookup(const char *name, size_t len)
{
    /* Every known name is longer than 10 bytes and has a '/' among its first 20; most keys (cpu, memory) are
     * rejected by the length test alone. */
    if (len < 11 || len > 31)
        return GPA_R_UNKNOWN;
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (strlen(table[r].name) == len && memcmp(table[r].name, name, len) == 0)
            return (gpa_resource_t)r;
    return GPA_R_UNKNOWN;
}

gpa_dialect_t gpa_resource_dialect(gpa_resource_t r)
{
    return r < GPA_R__COUNT ? table[r].dialect : 0;
}

gpa_dialect_t gpa_dialect_parse(const char *name)
{
    if (strcmp(name, "vendor") == 0)
        return GPA_DIALECT_VENDOR;
    if (strcmp(name, "koordinator") == 0)
        return GPA_DIALECT_KOORDINATOR;
    if (strcmp(name, "mgpu") == 0)
        return GPA_DIALECT_MGPU;
    return 0;
}
