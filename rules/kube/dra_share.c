/*
 * Whether an opaque configuration shares its device (dra_share.h): asked of the driver decoders gpuadmit has.
 */
#include "kube/dra_share.h"

#include <string.h>

#include "kube/dra_nvidia.h"

const char *gpa_dra_sharing_strategy(const gpa_dra_opaque_t *cfg)
{
    if (cfg->driver == NULL || strcmp(cfg->driver, GPA_NVIDIA_GPU_DRIVER) != 0)
        return NULL; /* a driver gpuadmit does not know: left alone */
    return gpa_nvidia_sharing_name(gpa_nvidia_sharing(cfg->parameters));
}
