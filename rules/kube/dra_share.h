/*
 * Whether an opaque configuration shares its device (dra-template-sharing): the one question the rules ask a
 * driver's configuration. Driver `gpu.nvidia.com`: its decoder (kube/dra_nvidia.h) answers it (a GpuConfig or
 * MigDeviceConfig of resource.nvidia.com/v1beta1 with `sharing.strategy` TimeSlicing or MPS).
 *
 * Ownership: the returned string is static.
 */
#ifndef GPA_DRA_SHARE_H
#define GPA_DRA_SHARE_H

#include "kube/dra.h"

/* The sharing strategy `cfg` sets ("TimeSlicing", "MPS"), or NULL when it shares nothing or gpuadmit cannot tell
 * (a driver it does not know, parameters of another shape). */
const char *gpa_dra_sharing_strategy(const gpa_dra_opaque_t *cfg);

#endif
