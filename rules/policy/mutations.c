#include "policy/mutations.h"

#include <string.h>

const gpa_mutation_t gpa_mutations[] = {
    [GPA_MUTATION_EXPAND_GPU] = {"expand-gpu", 1,
                                 "koordinator.sh/gpu: N alone becomes gpu-core: N and gpu-memory-ratio: N (deprecated name)"},
    [GPA_MUTATION_INJECT_GPU_SHARED] = {"inject-gpu-shared", 1,
                                        "a Koordinator memory request without gpu.shared gets the gpu.shared it implies"},
    [GPA_MUTATION_MIRROR_LIMITS] = {"mirror-limits", 1,
                                    "a GPU request without a limit gets the same limit (extended resources need both)"},
    [GPA_MUTATION_RAY_NUM_GPUS] = {"ray-num-gpus", 1,
                                   "a KubeRay group whose Ray container gets GPUs through a share tells Ray how many (num-gpus)"},
    [GPA_MUTATION_RAY_GPU_MEMORY] = {"ray-gpu-memory", 0,
                                     "a KubeRay group advertises the GPU memory its Ray container gets as Ray resource gpu_memory"},
};
const size_t gpa_nmutations = sizeof(gpa_mutations) / sizeof(gpa_mutations[0]);

_Static_assert(sizeof(gpa_mutations) / sizeof(gpa_mutations[0]) <= GPA_MUTATION_MAX, "raise GPA_MUTATION_MAX");

int gpa_mutation_index(const char *id)
{
    for (size_t i = 0; i < gpa_nmutations; i++)
        if (strcmp(gpa_mutations[i].id, id) == 0)
            return (int)i;
    return -1;
}

unsigned gpa_mutations_default(void)
{
    unsigned bits = 0;
    for (size_t i = 0; i < gpa_nmutations; i++)
        if (gpa_mutations[i].on)
            bits |= 1u << i;
    return bits;
}
