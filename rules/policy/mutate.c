#include "policy/mutate.h"

#include <string.h>

#include "alloc/landing.h"
#include "kube/normalize.h"
#include "document/patch.h"
#include "kube/gpu_request.h"
#include "kube/quantity.h"
#include "kube/ray.h"
#include "policy/validate.h"

/* What one resource of one map (requests or limits) will hold once the patch is applied. */
typedef struct st_planned_t {
    int present;
    int usable; /* a whole number the mutations may compute with (status OK in the document, or ours) */
    int64_t value;
    int binary;  /* written with a binary suffix: keep that family when the value is copied */
    int changed; /* differs from, or is absent in, the document: the diff writes `text` */
    const char *text;
} planned_t;

typedef struct st_gpa_mutate_ctx_t {
    gpa_arena_t *a;
    const gpa_config_t *cfg;
    const gpa_container_t *c;
    planned_t req[GPA_R__COUNT];
    planned_t lim[GPA_R__COUNT];
    const gpa_value_t *priority; /* mirror-limits: HAMi's priority request to copy into limits, or NULL */
    const char *mutation;        /* id of the mutation being planned */
    gpa_warnings_t *warnings;    /* planned: raw lines, kept only when the container is mutated */
} gpa_mutate_ctx_t;

/* ---- the plan ---------------------------------------------------------------------------------------------------- */

static void plan_from(const gpa_amount_t *amount, planned_t *p)
{
    memset(p, 0, sizeof(*p));
    p->present = amount->present;
    p->usable = amount->present && amount->status == GPA_Q_OK;
    p->value = amount->value;
    p->binary = amount->suffix == GPA_QS_BINARY;
    p->text = amount->text;
}

/* The planned amount the engine reads for r (the request, else the limit), or NULL. */
static const planned_t *effective(const gpa_mutate_ctx_t *ctx, gpa_resource_t r)
{
    if (ctx->req[r].present)
        return &ctx->req[r];
    return ctx->lim[r].present ? &ctx->lim[r] : NULL;
}

/* What the plan will mean once patched, read the one way kube/gpu_request.h reads any request. */
static void plan_view(const gpa_mutate_ctx_t *ctx, gpa_koord_view_t *kv)
{
    gpa_gpu_value_t values[GPA_R__COUNT];
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const planned_t *p = effective(ctx, (gpa_resource_t)r);
        values[r] = p != NULL ? (gpa_gpu_value_t){1, p->usable, p->value} : (gpa_gpu_value_t){0, 0, 0};
    }
    gpa_koord_view_values(ctx->cfg->dialects, values, kv);
}

static void plan_set(gpa_mutate_ctx_t *ctx, planned_t *p, int64_t value, int binary)
{
    if (p->present && p->usable && p->value == value)
        return; /* already equal: the document's own spelling stays */
    char text[32];
    gpa_quantity_format(value, binary, text);
    *p = (planned_t){1, 1, value, binary, 1, gpa_arena_strdup(ctx->a, text)};
}

static void plan_set_both(gpa_mutate_ctx_t *ctx, gpa_resource_t r, int64_t value)
{
    plan_set(ctx, &ctx->req[r], value, 0);
    plan_set(ctx, &ctx->lim[r], value, 0);
}

static void plan_drop(gpa_mutate_ctx_t *ctx, gpa_resource_t r)
{
    ctx->req[r] = (planned_t){0};
    ctx->lim[r] = (planned_t){0};
}

static int dialect_on(const gpa_mutate_ctx_t *ctx, gpa_dialect_t d)
{
    return (ctx->cfg->dialects & (unsigned)d) != 0;
}

static void warn(gpa_mutate_ctx_t *ctx, const char *line)
{
    *gpa_vec_push(ctx->a, ctx->warnings) = (gpa_warning_t){GPA_WARNING_MUTATION, line, ctx->mutation, 0, line};
}

/* ---- the mutations ----------------------------------------------------------------------------------------------- */

/* koordinator.sh/gpu: N alone → gpu-core: N and gpu-memory-ratio: N (seed 004). With any other Koordinator
 * share resource beside it the container breaks deprecated-gpu-mixed, and we never guess which one wins. */
static int expand_gpu(gpa_mutate_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    plan_view(ctx, &kv);
    if (!gpa_koord_view_deprecated_alone(&kv))
        return 0;
    int64_t n = kv.v[GPA_R_GPU];
    plan_set_both(ctx, GPA_R_GPU_CORE, n);
    plan_set_both(ctx, GPA_R_GPU_MEMORY_RATIO, n);
    plan_drop(ctx, GPA_R_GPU);
    const char *text = ctx->req[GPA_R_GPU_CORE].text;
    /* A small N was most likely meant as a count of devices (docs/rules.md#unit-hint): what it means comes first,
     * so that a warning cut to the API server's length keeps it. */
    const char *note = gpa_koord_gpu_percent_note(ctx->a, n);
    if (note != NULL)
        warn(ctx, gpa_arena_printf(ctx->a, "%s: koordinator.sh/gpu: %s is %s; deprecated, now gpu-core: %s, gpu-memory-ratio: %s",
                                   ctx->c->name, text, note, text, text));
    else
        warn(ctx, gpa_arena_printf(ctx->a, "%s: koordinator.sh/gpu is deprecated; rewritten as gpu-core: %s, gpu-memory-ratio: %s",
                                   ctx->c->name, text, text));
    return 1;
}

/* A memory request without gpu.shared gets the number of devices it means (gpa_koord_view_devices, seed 004). A
 * user's own gpu.shared is never changed. */
static int inject_gpu_shared(gpa_mutate_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    plan_view(ctx, &kv);
    if (!gpa_koord_view_needs_shared(&kv))
        return 0;
    plan_set_both(ctx, GPA_R_GPU_SHARED, gpa_koord_view_devices(&kv));
    return 1;
}

/* The configured HAMi priority name written in requests with no limit: its request as written, else NULL. It has no
 * token (no GPU amount), so it is read from the map itself. */
static const gpa_value_t *priority_unmirrored(const gpa_mutate_ctx_t *ctx)
{
    if (!dialect_on(ctx, GPA_DIALECT_HAMI))
        return NULL;
    const char *name = ctx->cfg->hami.device[GPA_HAMI_NVIDIA].name[GPA_HAMI_PRIORITY];
    const gpa_value_t *req = gpa_value_get(gpa_value_get(ctx->c->resources, "requests"), name);
    if (req == NULL || (req->type != GPA_VSTRING && req->type != GPA_VNUMBER))
        return NULL;
    return gpa_value_get(gpa_value_get(ctx->c->resources, "limits"), name) == NULL ? req : NULL;
}

/* A request with no limit fails the API server's validation of extended resources; give it the same limit. Every
 * name of every dialect, HAMi's as configured (HAMi's quota guide writes requests alone). */
static int mirror_limits(gpa_mutate_ctx_t *ctx)
{
    int changed = 0;
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const planned_t *req = &ctx->req[r];
        if (!dialect_on(ctx, gpa_resource_dialect((gpa_resource_t)r)) || !req->usable || ctx->lim[r].present)
            continue;
        ctx->lim[r] = *req; /* spelt as the request is: `gpumem: 2000` is no `2k` (a suffix HAMi misreads) */
        ctx->lim[r].changed = 1;
        changed = 1;
    }
    ctx->priority = priority_unmirrored(ctx);
    return changed || ctx->priority != NULL;
}

/* The container mutations, by the index of their row in gpa_mutations (mutations.h); NULL for a group's. */
static int (*const container_mutations[GPA_MUTATION_MAX])(gpa_mutate_ctx_t *ctx) = {
    [GPA_MUTATION_EXPAND_GPU] = expand_gpu,
    [GPA_MUTATION_INJECT_GPU_SHARED] = inject_gpu_shared,
    [GPA_MUTATION_MIRROR_LIMITS] = mirror_limits,
};

/* ---- from plan to patch ------------------------------------------------------------------------------------------ */

static gpa_value_t *string_value(gpa_arena_t *a, const char *s)
{
    gpa_value_t *v = gpa_arena_calloc(a, 1, sizeof(*v));
    v->type = GPA_VSTRING;
    v->u.str.ptr = s;
    v->u.str.len = strlen(s);
    return v;
}

static gpa_value_t *object_value(gpa_arena_t *a, size_t cap)
{
    gpa_value_t *v = gpa_arena_calloc(a, 1, sizeof(*v));
    v->type = GPA_VOBJECT;
    v->u.object.members = gpa_arena_calloc(a, cap, sizeof(gpa_member_t));
    return v;
}

static void object_add(gpa_value_t *obj, const char *key, gpa_value_t *value)
{
    obj->u.object.members[obj->u.object.len++] = (gpa_member_t){key, strlen(key), value};
}

/* A whole requests or limits map for a document that has none: every planned entry is ours (HAMi's under the
 * configured names), and `extra` (a name and its value) when given. NULL when empty. */
static gpa_value_t *whole_map(gpa_arena_t *a, const gpa_hami_names_t *names, const planned_t *plan, const char *extra,
                              gpa_value_t *extra_value)
{
    gpa_value_t *map = object_value(a, GPA_R__COUNT + 1);
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (plan[r].present)
            object_add(map, gpa_resource_name_in(names, (gpa_resource_t)r), string_value(a, plan[r].text));
    if (extra != NULL)
        object_add(map, extra, extra_value);
    return map->u.object.len != 0 ? map : NULL;
}

static int plan_changed(const planned_t *plan, const gpa_amount_t *doc)
{
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (plan[r].changed || plan[r].present != doc[r].present)
            return 1;
    return 0;
}

/* Edits of one existing map, key by key: only the entries the plan changed. */
static void diff_map(gpa_arena_t *a, const gpa_hami_names_t *names, gpa_patch_t *patch, const char *map_pointer,
                     const planned_t *plan, const gpa_amount_t *doc)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const char *path = NULL;
        if (doc[r].present != plan[r].present || plan[r].changed)
            path = gpa_patch_pointer(a, map_pointer, gpa_resource_name_in(names, (gpa_resource_t)r));
        if (doc[r].present && !plan[r].present)
            gpa_patch_push(a, patch, GPA_PATCH_REMOVE, path, NULL);
        else if (!doc[r].present && plan[r].present)
            gpa_patch_push(a, patch, GPA_PATCH_ADD, path, string_value(a, plan[r].text));
        else if (plan[r].present && plan[r].changed)
            gpa_patch_push(a, patch, GPA_PATCH_REPLACE, path, string_value(a, plan[r].text));
    }
}

/* One map's edits; `extra` (limits only: HAMi's priority) is added under its name beside the planned entries. */
static void emit_map(gpa_mutate_ctx_t *ctx, gpa_patch_t *patch, const char *key, int has_map, const planned_t *plan,
                     const gpa_amount_t *doc, const char *extra, gpa_value_t *extra_value)
{
    gpa_arena_t *a = ctx->a;
    const gpa_hami_names_t *names = &ctx->cfg->hami;
    int changed = plan_changed(plan, doc);
    if (!changed && extra == NULL)
        return; /* most containers: no path built */
    const char *pointer = gpa_arena_printf(a, "%s/%s", gpa_container_resources_pointer(a, ctx->c), key);
    if (!has_map) {
        gpa_value_t *map = whole_map(a, names, plan, extra, extra_value);
        if (map != NULL)
            gpa_patch_push(a, patch, GPA_PATCH_ADD, pointer, map);
        return;
    }
    if (changed)
        diff_map(a, names, patch, pointer, plan, doc);
    if (extra != NULL)
        gpa_patch_push(a, patch, GPA_PATCH_ADD, gpa_patch_pointer(a, pointer, extra), extra_value);
}

static void emit_container(gpa_mutate_ctx_t *ctx, gpa_patch_t *patch)
{
    const gpa_container_t *c = ctx->c;
    const char *priority = ctx->priority != NULL ? ctx->cfg->hami.device[GPA_HAMI_NVIDIA].name[GPA_HAMI_PRIORITY] : NULL;
    gpa_value_t *priority_value = priority != NULL ? string_value(ctx->a, ctx->priority->u.str.ptr) : NULL;
    if (c->has_resources) {
        gpa_amount_t req[GPA_R__COUNT], lim[GPA_R__COUNT]; /* as written, indexed by resource */
        for (int r = 0; r < GPA_R__COUNT; r++) {
            req[r] = *gpa_container_request(c, (gpa_resource_t)r);
            lim[r] = *gpa_container_limit(c, (gpa_resource_t)r);
        }
        emit_map(ctx, patch, "requests", c->has_requests, ctx->req, req, NULL, NULL);
        emit_map(ctx, patch, "limits", c->has_limits, ctx->lim, lim, priority, priority_value);
        return;
    }
    /* No resources map at all: add it whole (a container with no resources has nothing to mutate today, but
     * the diff must stay correct for any plan). */
    gpa_value_t *req = whole_map(ctx->a, &ctx->cfg->hami, ctx->req, NULL, NULL),
                *lim = whole_map(ctx->a, &ctx->cfg->hami, ctx->lim, NULL, NULL);
    if (req == NULL && lim == NULL)
        return;
    gpa_value_t *res = object_value(ctx->a, 2);
    if (req != NULL)
        object_add(res, "requests", req);
    if (lim != NULL)
        object_add(res, "limits", lim);
    gpa_patch_push(ctx->a, patch, GPA_PATCH_ADD, gpa_container_resources_pointer(ctx->a, c), res);
}

static void mutate_container(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_pod_facts_t *facts,
                             const gpa_container_t *c, gpa_patch_t *patch, gpa_warnings_t *warnings, unsigned *applied)
{
    gpa_warnings_t planned_warnings = {0};
    gpa_mutate_ctx_t ctx = {.a = a, .cfg = cfg, .c = c, .warnings = &planned_warnings};
    for (int r = 0; r < GPA_R__COUNT; r++) {
        plan_from(gpa_container_request(c, (gpa_resource_t)r), &ctx.req[r]);
        plan_from(gpa_container_limit(c, (gpa_resource_t)r), &ctx.lim[r]);
    }
    unsigned planned = 0;
    for (size_t i = 0; i < gpa_nmutations; i++) {
        if (container_mutations[i] == NULL || !gpa_config_mutation_on(cfg, i))
            continue;
        ctx.mutation = gpa_mutations[i].id;
        if (container_mutations[i](&ctx))
            planned |= 1u << i;
    }
    /* Plan first, ask the rules only when there is something to change: most containers need no mutation, and
     * the container's validation is the expensive half. */
    if (planned == 0 || gpa_validate_container_facts(a, cfg, pod, facts, c, NULL) != 0)
        return; /* nothing to do, or left as written: validation says why */
    *applied |= planned;
    for (size_t i = 0; i < planned_warnings.len; i++)
        gpa_warnings_add(a, warnings, GPA_WARNING_MUTATION, planned_warnings.items[i].text, planned_warnings.items[i].mutation, 0);
    emit_container(&ctx, patch);
}

/* ---- KubeRay groups ---------------------------------------------------------------------------------------------- */

/* What a group will get: each NULL when it gets nothing. */
typedef struct st_ray_plan_t {
    const char *num_gpus;  /* the count of devices, as text */
    const char *memory;    /* bytes, as text: an entry of the group's resources field */
    const char *resources; /* rayStartParams.resources with gpu_memory merged in */
    int resources_present; /* rayStartParams.resources exists: replace it */
    int resources_kept;    /* it exists and is not one JSON object: left alone (a warning says so) */
} ray_plan_t;

/* KubeRay refuses a group that gives these in rayStartParams and uses its resources field too: left alone. */
static int uses_both(const gpa_ray_group_t *g)
{
    static const char *const keys[] = {"num-cpus", "num-gpus", "memory", "resources"};
    for (size_t i = 0; g->resources != NULL && i < sizeof(keys) / sizeof(keys[0]); i++)
        if (gpa_value_get(g->start_params, keys[i]) != NULL)
            return 1;
    return 0;
}

/*
 * The bytes the Ray container of a group whose template is `pod` gets, in total over its devices: from its request;
 * else, for a part of each card by ratio, from the one card memory of every node and template the group can land
 * on (alloc/landing.h), each device's bytes truncated as koord-scheduler truncates them, or for HAMi floored to whole
 * MiB of the card's MiB as HAMi computes them (docs/decisions.md). 0 when not known: no inventory, nodes of
 * different card memory, or none that can hold it.
 */
static int64_t ray_memory(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_mutate_env_t *env, const gpa_podspec_t *pod,
                          const gpa_ray_devices_t *dev)
{
    gpa_request_t req;
    gpa_landing_t land;
    int64_t part, total;
    if (dev->memory > 0)
        return dev->memory;
    if (env == NULL || env->inventory == NULL || dev->ratio <= 0 || gpa_normalize(a, cfg->dialects, pod, &req) != 0)
        return 0;
    gpa_alloc_landing(a, env->inventory, &cfg->placement, pod, &req, env->budget, &land);
    int64_t unit = dev->ratio_mib ? GPA_MIB : 1; /* HAMi: floor(M MiB x ratio / 100) MiB */
    if (land.card_memory <= 0 || gpa_mul_i64(dev->ratio, land.card_memory / unit, &part) != 0 ||
        gpa_mul_i64(part / 100, unit, &part) != 0 || gpa_mul_i64(part, dev->devices, &total) != 0)
        return 0;
    return total;
}

/* KubeRay derives the count from the very limit the devices come from (a HAMi count name ending in gpu), and it is
 * right: nothing to write, as for vendor counts. */
static int derived_right(const gpa_ray_count_t *count, const gpa_ray_devices_t *dev)
{
    return count->source == GPA_RAY_COUNT_LIMIT && count->usable && count->count == dev->devices && dev->count_name != NULL &&
           strcmp(count->where, dev->count_name) == 0;
}

static void plan_ray(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_mutate_env_t *env, const gpa_podspec_t *pod,
                     const gpa_ray_group_t *g, const gpa_ray_devices_t *dev, ray_plan_t *plan)
{
    gpa_ray_count_t count;
    gpa_ray_advertised(a, g, &count);
    if (gpa_config_mutation_on(cfg, GPA_MUTATION_RAY_NUM_GPUS) && count.source != GPA_RAY_COUNT_OWN && !derived_right(&count, dev))
        plan->num_gpus = gpa_arena_printf(a, "%lld", (long long)dev->devices);
    if (!gpa_config_mutation_on(cfg, GPA_MUTATION_RAY_GPU_MEMORY))
        return;
    const gpa_value_t *old =
        g->resources != NULL ? gpa_value_get(g->resources, GPA_RAY_GPU_MEMORY) : gpa_value_get(g->start_params, "resources");
    if (g->resources != NULL && old != NULL)
        return; /* the group's own gpu_memory stays */
    if (g->resources == NULL && old != NULL && gpa_value_string(old) == NULL)
        return; /* a rayStartParams.resources that is no string is left alone */
    int64_t memory = ray_memory(a, cfg, env, pod, dev);
    if (memory <= 0)
        return;
    if (g->resources != NULL) {
        plan->memory = gpa_arena_printf(a, "%lld", (long long)memory);
        return;
    }
    const char *text = gpa_value_string(old);
    size_t len = text != NULL ? old->u.str.len : 0;
    plan->resources_present = old != NULL;
    plan->resources = gpa_ray_resources_add_memory(a, text, len, memory);
    plan->resources_kept = text != NULL && !gpa_ray_resources_is_object(a, text, len);
}

static void emit_ray(gpa_arena_t *a, const gpa_ray_group_t *g, const ray_plan_t *plan, gpa_patch_t *patch)
{
    if (g->resources != NULL) {
        if (plan->num_gpus != NULL)
            gpa_patch_push(a, patch, GPA_PATCH_ADD, gpa_arena_printf(a, "%s/resources/GPU", g->pointer),
                           string_value(a, plan->num_gpus));
        if (plan->memory != NULL)
            gpa_patch_push(a, patch, GPA_PATCH_ADD, gpa_arena_printf(a, "%s/resources/%s", g->pointer, GPA_RAY_GPU_MEMORY),
                           string_value(a, plan->memory));
        return;
    }
    if (g->start_params == NULL) {
        /* No rayStartParams mapping: add it whole. */
        gpa_value_t *params = object_value(a, 2);
        if (plan->num_gpus != NULL)
            object_add(params, "num-gpus", string_value(a, plan->num_gpus));
        if (plan->resources != NULL)
            object_add(params, "resources", string_value(a, plan->resources));
        if (params->u.object.len != 0)
            gpa_patch_push(a, patch, GPA_PATCH_ADD, gpa_arena_printf(a, "%s/rayStartParams", g->pointer), params);
        return;
    }
    if (plan->num_gpus != NULL)
        gpa_patch_push(a, patch, GPA_PATCH_ADD, gpa_arena_printf(a, "%s/rayStartParams/num-gpus", g->pointer),
                       string_value(a, plan->num_gpus));
    if (plan->resources != NULL)
        gpa_patch_push(a, patch, plan->resources_present ? GPA_PATCH_REPLACE : GPA_PATCH_ADD,
                       gpa_arena_printf(a, "%s/rayStartParams/resources", g->pointer), string_value(a, plan->resources));
}

/* ray-num-gpus and ray-gpu-memory on the group whose template `pod` is, when it is one (docs/rules.md#ray-num-gpus). */
static void mutate_ray_group(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_mutate_env_t *env, const gpa_object_t *obj,
                             const gpa_podspec_t *pod, const gpa_pod_facts_t *facts, gpa_patch_t *patch, gpa_warnings_t *warnings,
                             unsigned *applied)
{
    gpa_ray_group_t g;
    gpa_ray_devices_t dev;
    if (!gpa_config_mutation_on(cfg, GPA_MUTATION_RAY_NUM_GPUS) && !gpa_config_mutation_on(cfg, GPA_MUTATION_RAY_GPU_MEMORY))
        return;
    if (!gpa_ray_group(a, obj, pod, &g) || g.ray == NULL || uses_both(&g))
        return;
    gpa_ray_devices(cfg->dialects, facts, g.ray, &dev);
    /* Only devices that come through a share (vendor counts advertise right), of a container the rules find sound. */
    if (!dev.share || dev.devices <= 0 || gpa_validate_container_facts(a, cfg, pod, facts, g.ray, NULL) != 0)
        return;
    ray_plan_t plan = {0};
    plan_ray(a, cfg, env, pod, &g, &dev, &plan);
    if (plan.num_gpus != NULL)
        *applied |= 1u << GPA_MUTATION_RAY_NUM_GPUS;
    if (plan.memory != NULL || plan.resources != NULL)
        *applied |= 1u << GPA_MUTATION_RAY_GPU_MEMORY;
    if (plan.resources_kept) /* the value is not quoted: it is the tenant's, of any length */
        gpa_warnings_add(a, warnings, GPA_WARNING_MUTATION,
                         gpa_arena_printf(a,
                                          "group %s: rayStartParams.resources is not exactly one JSON object of numbers: "
                                          "gpu_memory not merged into it, left as written",
                                          g.name),
                         gpa_mutations[GPA_MUTATION_RAY_GPU_MEMORY].id, 0);
    emit_ray(a, &g, &plan, patch);
}

void gpa_mutate(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_mutate_env_t *env, const gpa_object_t *obj, gpa_patch_t *patch,
                gpa_warnings_t *warnings, gpa_strings_t *applied)
{
    unsigned mask = 0;
    for (size_t p = 0; p < obj->npods; p++) {
        const gpa_podspec_t *pod = &obj->pods[p];
        gpa_pod_facts_t facts;
        gpa_pod_facts_init(a, cfg->dialects, pod, &facts);
        for (size_t i = 0; i < pod->ncontainers; i++)
            mutate_container(a, cfg, pod, &facts, &pod->containers[i], patch, warnings, &mask);
        for (size_t i = 0; i < pod->ninit_containers; i++)
            mutate_container(a, cfg, pod, &facts, &pod->init_containers[i], patch, warnings, &mask);
        mutate_ray_group(a, cfg, env, obj, pod, &facts, patch, warnings, &mask);
    }
    for (size_t i = 0; i < gpa_nmutations; i++)
        if (mask & (1u << i))
            *gpa_vec_push(a, applied) = gpa_mutations[i].id;
}
