/*
 * Ray on Kubernetes (docs/ray.md, docs/rules.md#ray-num-gpus): the groups of a KubeRay object (RayCluster, RayJob,
 * RayService: the head and every worker group), the number of GPUs Ray will advertise for a group, read the way
 * KubeRay derives it, and the GPU devices and memory its Ray container gets from Kubernetes.
 *
 * KubeRay starts each Ray node with `ray start --num-gpus=N`. N is the group's own count when it gives one
 * (`rayStartParams.num-gpus`, or `GPU` in the group's `resources` field); else the integer value of the first
 * non-zero limit of the Ray container (the template's first container), in name order, whose name ends in `gpu`
 * or starts with `nvidia.com/mig-`; and nothing at all when `rayStartParams.resources` is given and is not a JSON
 * object (KubeRay fails to read it and derives no count).
 *
 * Ownership: everything returned borrows from the object's tree and model, or lives in the arena passed in.
 */
#ifndef GPA_RAY_H
#define GPA_RAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "document/json.h"
#include "kube/gpu_request.h"
#include "kube/model.h"

/* The name of the custom resource ray-gpu-memory advertises, in bytes. */
#define GPA_RAY_GPU_MEMORY "gpu_memory"

/* One group of a KubeRay object. */
typedef struct st_gpa_ray_group_t {
    const char *path;                /* "spec.workerGroupSpecs[1]", "spec.rayClusterSpec.headGroupSpec" */
    const char *pointer;             /* "/spec/workerGroupSpecs/1" */
    const char *name;                /* "head", or the worker group's groupName ("workerGroupSpecs[1]" when it has none) */
    const gpa_value_t *start_params; /* rayStartParams when it is a mapping, else NULL */
    const gpa_value_t *resources;    /* the group's `resources` field when it is a non-empty mapping, else NULL */
    const gpa_container_t *ray;      /* the Ray container: the template's first container; NULL when none */
} gpa_ray_group_t;

/* 1 with *out set when `pod` is the template of a group of a KubeRay object `obj`; 0 otherwise. */
int gpa_ray_group(gpa_arena_t *a, const gpa_object_t *obj, const gpa_podspec_t *pod, gpa_ray_group_t *out);
/* What gpa_ray_group reads of an object beside its Pod templates (each group's groupName, rayStartParams and
 * resources), added to a decode filter (document/json.h; gpa_decode_filter keeps the templates). */
void gpa_ray_filter(gpa_arena_t *a, gpa_json_filter_t *object);

typedef enum en_gpa_ray_source_t {
    GPA_RAY_COUNT_NONE,  /* KubeRay passes no count: Ray advertises 0 GPUs (it sees no device of its own) */
    GPA_RAY_COUNT_OWN,   /* the group's own count: rayStartParams.num-gpus, or GPU in its resources field */
    GPA_RAY_COUNT_LIMIT, /* derived from a limit of the Ray container */
} gpa_ray_source_t;

/* What Ray will advertise for a group. */
typedef struct st_gpa_ray_count_t {
    gpa_ray_source_t source;
    int usable;             /* the count is a whole number >= 0 (always for LIMIT; NONE counts 0) */
    int64_t count;          /* when usable */
    const char *text;       /* the count as written (OWN) or the limit's value (LIMIT); NULL for NONE */
    const char *where;      /* "rayStartParams.num-gpus", "resources.GPU", or the limit's name; NULL for NONE */
    int resources_unparsed; /* rayStartParams.resources is given and is not a JSON object: nothing is derived */
    int resources_escaped;  /* ... because it is the escaped form ('"{\"a\": 2}"'), which KubeRay cannot read */
} gpa_ray_count_t;

/* What Ray will advertise for group g, read as KubeRay derives it (above). */
void gpa_ray_advertised(gpa_arena_t *a, const gpa_ray_group_t *g, gpa_ray_count_t *out);

/* The GPU devices a container gets from Kubernetes, read as kube/gpu_request.h reads any request. */
typedef struct st_gpa_ray_devices_t {
    int64_t devices;        /* devices (cards) it gets; 0 when none, or when the request cannot be read (the rules say why) */
    int share;              /* through a share (Koordinator gpu.shared, mGPU cards, HAMi vGPUs): Ray's derivation may miss them */
    int64_t memory;         /* bytes of GPU memory in total over its devices, when the request gives them; else 0 */
    int64_t ratio;          /* when the request gives no bytes but a part of each device's memory: that percent (Koordinator
                               gpu-memory-ratio per device; HAMi gpumem-percentage; whole cards 100), bytes only once the card
                               is known; else 0 */
    int ratio_mib;          /* HAMi: a ratio gives each device floor(M x ratio / 100) MiB of a card of M MiB (HAMi's own
                               arithmetic); else floor(ratio x M / 100) bytes of a card of M bytes (koord-scheduler's) */
    const char *count_name; /* HAMi: the count name the vGPUs come from (configured; NUL-terminated): KubeRay derives the
                               count right from that limit when its name ends in gpu. NULL for other dialects */
    int count_default;      /* HAMi: the count is absent and defaultGPUNum stands for it */
} gpa_ray_devices_t;

/*
 * The devices of container c of a Pod spec whose facts are `facts`: vendor counts (nvidia.com/gpu, ...: their
 * names end in `gpu`, so KubeRay's derivation already counts them), Koordinator's gpu.shared (or the count
 * inject-gpu-shared derives), mGPU's cards (the container-multiple-gpu entry, else whole cards of mgpu-core above
 * 100, else one), a HAMi container's vGPUs (its count, else defaultGPUNum when the count is absent: HAMi's webhook
 * adds it to the Pod, never to the template KubeRay reads). A container whose request is not sound counts as none.
 * HAMi memory: gpumem x memoryFactor MiB, else defaultMemory MiB, per vGPU; a percentage, or the whole card, as a
 * ratio (ratio_mib).
 */
void gpa_ray_devices(unsigned dialects, const gpa_pod_facts_t *facts, const gpa_container_t *c, gpa_ray_devices_t *out);

/*
 * rayStartParams.resources (text, len bytes: a NUL in it is part of the value) read as exactly one JSON object of
 * numbers: quotes, backticks and spaces around it allowed as KubeRay trims them, then JSON whitespace; or KubeRay's
 * escaped form, a JSON string holding the object ('"{\"resource1\": 2}"', ray-job.resources.yaml). Anything more
 * (text after the object, a NUL, a second object) is not one: 0.
 */
int gpa_ray_resources_is_object(gpa_arena_t *a, const char *text, size_t len);

/*
 * That value with "gpu_memory":bytes added before the object's closing brace, the rest of the text kept byte for
 * byte (the escaped form stays a JSON string, re-escaped), no space added (the value ends up on the `ray start`
 * command line): arena-owned. `text` NULL: a new object written as KubeRay writes one, '{"gpu_memory":bytes}'.
 * NULL when the value is not one object of numbers (gpa_ray_resources_is_object) or already names gpu_memory.
 */
const char *gpa_ray_resources_add_memory(gpa_arena_t *a, const char *text, size_t len, int64_t bytes);

#endif
