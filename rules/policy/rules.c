/*
 * The rule table (SPEC §3) and the two drivers that run it: gpa_validate_object (every rule, every Pod spec)
 * and gpa_validate_container (the container-level predicate mutation and shared-required share).
 */
#include "policy/rules.h"
#include "policy/rule_ctx.h"

#include <stdarg.h>
#include <string.h>

#define ALL GPA_DIALECT_ALL
#define KOORD GPA_DIALECT_KOORDINATOR
#define MGPU GPA_DIALECT_MGPU
#define SHARE (GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU)

/* Rules that span dialects: the Koordinator half, then the mGPU half. */
static void check_non_positive(gpa_rule_ctx_t *ctx)
{
    gpa_check_non_positive(ctx);
    gpa_mgpu_non_positive(ctx);
}

static void check_divisibility(gpa_rule_ctx_t *ctx)
{
    gpa_koord_divisibility(ctx);
    gpa_mgpu_divisibility(ctx);
}

static void check_per_device(gpa_rule_ctx_t *ctx)
{
    gpa_koord_per_device(ctx);
    gpa_mgpu_per_device(ctx);
}

static void check_min_memory(gpa_rule_ctx_t *ctx)
{
    gpa_koord_min_memory(ctx);
    gpa_mgpu_min_memory(ctx);
}

/*
 * The table. Columns as the legend in rules.h says: id, dialects, scope, default action, check, doc.
 * Order matters: findings are reported in this order, and configurations index actions by it.
 */
const gpa_rule_t gpa_rules[] = {
    {"malformed-quantity", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_malformed_quantity,
     "a GPU resource value does not parse, is not a whole number, or overflows 64 bits"},
    {"request-limit-mismatch", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_request_limit_mismatch,
     "a GPU resource's request and limit are both given and differ"},
    {"vendor-vs-share", ALL, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_check_vendor_vs_share,
     "one Pod declares a vendor resource and any share resource (Koordinator or mGPU)"},
    {"mixed-share-apis", SHARE, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_check_mixed_share_apis,
     "one Pod declares both Koordinator share resources and mGPU resources"},
    {"memory-ratio-exclusive", KOORD, GPA_SCOPE_BOTH, GPA_ACTION_DENY, gpa_check_memory_ratio_exclusive,
     "a container (or the Pod's totals) declares both gpu-memory and gpu-memory-ratio"},
    {"core-without-memory", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_core_without_memory,
     "a container declares gpu-core but neither gpu-memory nor gpu-memory-ratio"},
    {"shared-without-memory", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_shared_without_memory,
     "a container declares gpu.shared but neither gpu-memory nor gpu-memory-ratio"},
    {"shared-required", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_shared_required,
     "a container declares a memory form but no gpu.shared, and breaks no other rule"},
    {"deprecated-gpu-mixed", KOORD, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_deprecated_gpu_mixed,
     "koordinator.sh/gpu appears with another Koordinator share resource"},
    {"non-positive", ALL, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, check_non_positive,
     "a GPU resource is negative, gpu.shared or gpu is 0, or an mGPU container's mgpu-core is 0 or absent"},
    {"multi-card-divisibility", SHARE, GPA_SCOPE_BOTH, GPA_ACTION_DENY, check_divisibility,
     "a multi-device request does not split evenly over its devices"},
    {"per-device-over-100", SHARE, GPA_SCOPE_BOTH, GPA_ACTION_DENY, check_per_device,
     "a per-device share of core or memory ratio exceeds 100"},
    {"min-memory", SHARE, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, check_min_memory,
     "the memory one device would get is below minDeviceMemory"},
    {"full-card-memory", MGPU, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_full_card_memory,
     "mGPU: whole cards requested (core per card 100) and mgpu-memory set as well"},
    {"card-count-mismatch", MGPU, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_check_card_count_mismatch,
     "mGPU: the multiple-gpu annotation has a different number of entries than there are containers"},
    {"invalid-card-count", MGPU, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_check_invalid_card_count,
     "mGPU: an annotation entry is not a whole number >= 0, or is 0 for a container that requests mGPU"},
    {"ambiguous-unit", MGPU, GPA_SCOPE_CONTAINER, GPA_ACTION_DENY, gpa_check_ambiguous_unit,
     "mGPU: mgpu-memory (MiB) written with a binary suffix"},
    {"infeasible", ALL, GPA_SCOPE_POD, GPA_ACTION_DENY, gpa_check_infeasible,
     "an inventory is configured and no node in it could ever hold the Pod"},
};
const size_t gpa_nrules = sizeof(gpa_rules) / sizeof(gpa_rules[0]);

_Static_assert(sizeof(gpa_rules) / sizeof(gpa_rules[0]) <= GPA_RULE_MAX, "GPA_RULE_MAX too small for the rule table");

int gpa_rule_index(const char *id)
{
    for (size_t i = 0; i < gpa_nrules; i++)
        if (strcmp(gpa_rules[i].id, id) == 0)
            return (int)i;
    return -1;
}

void gpa_rule_report(gpa_rule_ctx_t *ctx, const char *container, const char *path, const char *res0, const char *res1,
                     const char *fmt, ...)
{
    ctx->count++;
    if (ctx->out == NULL)
        return;
    gpa_violation_t *v = gpa_vec_push(ctx->a, ctx->out);
    memset(v, 0, sizeof(*v));
    v->rule = gpa_rules[ctx->rule].id;
    v->action = ctx->action;
    v->container = container;
    v->path = path != NULL ? path : "";
    if (res0 != NULL)
        v->resources[v->nresources++] = res0;
    if (res1 != NULL)
        v->resources[v->nresources++] = res1;
    va_list ap;
    va_start(ap, fmt);
    v->message = gpa_arena_vprintf(ctx->a, fmt, ap);
    va_end(ap);
}

const char *gpa_rule_bytes(gpa_arena_t *a, int64_t bytes)
{
    char buf[32];
    gpa_quantity_format(bytes, 1, buf);
    return gpa_arena_strdup(a, buf);
}

const char *gpa_rule_resources_path(gpa_arena_t *a, const gpa_container_t *c)
{
    return gpa_arena_printf(a, "%s.resources", c->path);
}

/* Whether rule i runs under cfg: its action is not off and one of its dialects is enabled. */
static int rule_runs(const gpa_config_t *cfg, size_t i)
{
    return cfg->actions[i] != GPA_ACTION_OFF && (gpa_rules[i].dialects & cfg->dialects) != 0;
}

static void run_containers(gpa_rule_ctx_t *ctx, const gpa_container_t *cs, const unsigned *masks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((masks[i] & gpa_rules[ctx->rule].dialects) == 0)
            continue; /* none of the rule's resources appear in this container */
        ctx->c = &cs[i];
        gpa_rules[ctx->rule].check(ctx);
    }
    ctx->c = NULL;
}

/* One rule on one Pod spec: its containers (app, then init), then the Pod pass. */
static void run_rule_on_pod(gpa_rule_ctx_t *ctx)
{
    gpa_scope_t scope = gpa_rules[ctx->rule].scope;
    if (scope != GPA_SCOPE_POD) {
        run_containers(ctx, ctx->pod->containers, ctx->facts->app_dialects, ctx->pod->ncontainers);
        run_containers(ctx, ctx->pod->init_containers, ctx->facts->init_dialects, ctx->pod->ninit_containers);
    }
    if (scope != GPA_SCOPE_CONTAINER) {
        ctx->container_hits = ctx->count;
        gpa_rules[ctx->rule].check(ctx);
    }
}

void gpa_validate_object(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, const gpa_object_t *obj,
                         gpa_violations_t *out)
{
    if (obj->npods == 0)
        return;
    gpa_pod_facts_t *facts = gpa_arena_alloc(a, obj->npods * sizeof(*facts));
    for (size_t p = 0; p < obj->npods; p++)
        gpa_pod_facts_init(a, cfg->dialects, &obj->pods[p], &facts[p]);
    /* Rule-major order, so findings come out in table order, then in document order. */
    for (size_t i = 0; i < gpa_nrules; i++) {
        if (!rule_runs(cfg, i))
            continue;
        for (size_t p = 0; p < obj->npods; p++) {
            if ((gpa_rules[i].dialects & facts[p].dialects) == 0)
                continue;
            gpa_rule_ctx_t ctx = {.a = a,
                                  .cfg = cfg,
                                  .inv = inv,
                                  .pod = &obj->pods[p],
                                  .facts = &facts[p],
                                  .rule = i,
                                  .action = cfg->actions[i],
                                  .out = out};
            run_rule_on_pod(&ctx);
        }
    }
}

size_t gpa_validate_container(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_container_t *c,
                              gpa_violations_t *out)
{
    gpa_pod_facts_t facts;
    gpa_pod_facts_init(a, cfg->dialects, pod, &facts);
    return gpa_validate_container_facts(a, cfg, pod, &facts, c, out);
}

size_t gpa_validate_container_facts(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_pod_facts_t *facts,
                                    const gpa_container_t *c, gpa_violations_t *out)
{
    size_t count = 0;
    for (size_t i = 0; i < gpa_nrules; i++) {
        /* shared-required is the one rule this predicate is about, so it never counts itself. */
        if (gpa_rules[i].check == gpa_check_shared_required || gpa_rules[i].scope == GPA_SCOPE_POD || !rule_runs(cfg, i) ||
            cfg->actions[i] != GPA_ACTION_DENY)
            continue;
        gpa_rule_ctx_t ctx = {
            .a = a, .cfg = cfg, .pod = pod, .facts = facts, .c = c, .rule = i, .action = cfg->actions[i], .out = out};
        gpa_rules[i].check(&ctx);
        count += ctx.count;
    }
    return count;
}
