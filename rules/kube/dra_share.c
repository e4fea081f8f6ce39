/*
 * Whether an opaque configuration shares its device (dra_share.h).
 */
#include "kube/dra_share.h"

#include <string.h>

#define NVIDIA_PARAMETERS_GROUP "resource.nvidia.com/"

/* NVIDIA's GpuConfig or MigDeviceConfig: {apiVersion: resource.nvidia.com/..., kind, sharing: {strategy}}. */
const char *gpa_dra_sharing_strategy(const gpa_dra_opaque_t *cfg)
{
    static const char *const strategies[] = {"TimeSlicing", "MPS"};
    const gpa_value_t *p = cfg->parameters;
    const char *api = gpa_value_string(gpa_value_get(p, "apiVersion")), *kind = gpa_value_string(gpa_value_get(p, "kind"));
    if (api == NULL || kind == NULL || strncmp(api, NVIDIA_PARAMETERS_GROUP, strlen(NVIDIA_PARAMETERS_GROUP)) != 0 ||
        (strcmp(kind, "GpuConfig") != 0 && strcmp(kind, "MigDeviceConfig") != 0))
        return NULL;
    const char *strategy = gpa_value_string(gpa_value_get(gpa_value_get(p, "sharing"), "strategy"));
    for (size_t i = 0; strategy != NULL && i < sizeof(strategies) / sizeof(strategies[0]); i++)
        if (strcmp(strategy, strategies[i]) == 0)
            return strategies[i];
    return NULL;
}
