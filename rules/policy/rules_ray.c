/*
 * The KubeRay family (docs/rules.md#ray-num-gpus): what Ray will advertise for a group of a RayCluster, RayJob or
 * RayService against the GPU devices its Ray container gets. How both are read is kube/ray.h's.
 */
#include <string.h>

#include "kube/ray.h"
#include "policy/mutations.h"
#include "policy/rule_ctx.h"

/* The resource the devices come from, for the finding (static storage, or the configuration's HAMi count name). */
static const char *device_resource(unsigned dialects, const gpa_container_t *c, const gpa_ray_devices_t *dev)
{
    if (dev->count_name != NULL)
        return dev->count_name; /* HAMi vGPUs */
    static const gpa_resource_t order[] = {GPA_R_NVIDIA_GPU, GPA_R_AMD_GPU, GPA_R_DCU_GPU, GPA_R_GPU_SHARED, GPA_R_MGPU_CORE};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (gpa_gpu_declared(dialects, c, order[i]))
            return gpa_resource_name(order[i]);
    /* Koordinator without gpu.shared yet: the count inject-gpu-shared derives. */
    return gpa_resource_name(GPA_R_GPU_SHARED);
}

/* Where the group keeps its count: the fix names it. */
static const char *count_key(const gpa_ray_group_t *g)
{
    return g->resources != NULL ? "resources.GPU" : "rayStartParams.num-gpus";
}

/* ray-num-gpus writes the count itself: a group that gets its devices through a share and gives no count of its
 * own passes, as it will once mutated (validate judges what Ray will advertise after the mutations). */
static int mutation_fixes(const gpa_rule_ctx_t *ctx, const gpa_ray_devices_t *dev, const gpa_ray_count_t *count)
{
    return (ctx->cfg->mutations & (1u << GPA_MUTATION_RAY_NUM_GPUS)) != 0 && dev->share && count->source != GPA_RAY_COUNT_OWN;
}

static const char *devices_text(gpa_arena_t *a, int64_t n)
{
    return gpa_arena_printf(a, "%lld device%s", (long long)n, n == 1 ? "" : "s");
}

void gpa_rule_ray_num_gpus(gpa_rule_ctx_t *ctx)
{
    gpa_ray_group_t g;
    if (ctx->c != NULL || ctx->obj == NULL || !gpa_ray_group(ctx->a, ctx->obj, ctx->pod, &g) || g.ray == NULL)
        return;
    gpa_ray_devices_t dev;
    gpa_ray_devices(ctx->cfg->dialects, ctx->facts, g.ray, &dev);
    if (dev.devices <= 0)
        return;
    gpa_ray_count_t count;
    gpa_ray_advertised(ctx->a, &g, &count);
    if (mutation_fixes(ctx, &dev, &count) || (count.source == GPA_RAY_COUNT_LIMIT && !count.usable))
        return;
    gpa_arena_t *a = ctx->a;
    const char *res = device_resource(ctx->cfg->dialects, g.ray, &dev), *gets = devices_text(a, dev.devices);
    /* The fix names the key the user wrote, or where the group keeps its count. */
    const char *key = count.source == GPA_RAY_COUNT_OWN ? count.where : count_key(&g);
    const char *fix = gpa_arena_printf(a, "set %s: \"%lld\"", key, (long long)dev.devices);
    if (count.source == GPA_RAY_COUNT_OWN) {
        const char *path = gpa_arena_printf(a, "%s.%s", g.path, count.where);
        if (!count.usable)
            gpa_rule_ctx_report(ctx, g.ray->name, path, res, NULL, "group %s: %s: \"%s\" is not a whole number of GPUs; %s", g.name,
                                count.where, count.text, fix);
        else if (count.count == 0)
            gpa_rule_ctx_report(ctx, g.ray->name, path, res, NULL,
                                "group %s: %s: \"%s\" makes Ray advertise 0 GPUs, but its Ray container gets %s (%s): Ray never "
                                "runs a GPU task there; %s",
                                g.name, count.where, count.text, gets, res, fix);
        else if (count.count > dev.devices)
            gpa_rule_ctx_report(ctx, g.ray->name, path, res, NULL,
                                "group %s: %s: \"%s\" makes Ray advertise %lld GPUs, but its Ray container gets %s (%s): Ray would "
                                "place more GPU tasks there than it has devices; %s",
                                g.name, count.where, count.text, (long long)count.count, gets, res, fix);
        return;
    }
    if (count.source == GPA_RAY_COUNT_LIMIT && count.count <= dev.devices)
        return;
    if (count.source == GPA_RAY_COUNT_LIMIT) {
        gpa_rule_ctx_report(
            ctx, g.ray->name, gpa_arena_printf(a, "%s.limits[\"%s\"]", gpa_container_resources_path(a, g.ray), count.where), res,
            NULL,
            "group %s: KubeRay makes Ray advertise %lld GPUs from limits[\"%s\"]: %s, but its Ray container gets %s "
            "(%s); %s",
            g.name, (long long)count.count, count.where, count.text, gets, res, fix);
        return;
    }
    const char *why =
        count.resources_escaped
            ? "rayStartParams.resources is in the escaped form ('\"{\\\"a\\\": 1}\"'), which KubeRay cannot unmarshal, so "
              "it derives no GPU count"
        : count.resources_unparsed ? "rayStartParams.resources is not a JSON object, so KubeRay derives no GPU count"
        : dev.count_default
            ? gpa_arena_printf(a, "HAMi's webhook adds %s to the Pod, not to the template KubeRay reads", dev.count_name)
            : "no limit of its Ray container has a name ending in gpu";
    gpa_rule_ctx_report(ctx, g.ray->name, g.path, res, NULL,
                        "group %s: Ray advertises 0 GPUs (%s), but its Ray container gets %s (%s): Ray never runs a GPU task "
                        "there and its autoscaler never scales the group for GPUs; %s",
                        g.name, why, gets, res, fix);
}
