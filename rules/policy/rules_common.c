/*
 * Rules that read every dialect: malformed-quantity, request-limit-mismatch, vendor-vs-share,
 * mixed-share-apis, non-positive (the part common to all dialects) and infeasible.
 */
#include "alloc/alloc.h"
#include "alloc/inventory.h"
#include "alloc/normalize.h"
#include "policy/rule_ctx.h"

#include <stdint.h>
#include <string.h>

static int enabled(const gpa_config_t *cfg, gpa_resource_t r)
{
    return (cfg->dialects & (unsigned)gpa_resource_dialect(r)) != 0;
}

/* A plausible whole value for the fix part of a message. */
static const char *example_value(gpa_resource_t r)
{
    switch (r) {
    case GPA_R_GPU_MEMORY:
        return "8Gi";
    case GPA_R_MGPU_MEMORY:
        return "8192";
    case GPA_R_GPU_CORE:
    case GPA_R_GPU_MEMORY_RATIO:
    case GPA_R_GPU:
    case GPA_R_MGPU_CORE:
        return "50";
    default:
        return "1";
    }
}

static void malformed_one(gpa_rule_ctx_t *ctx, gpa_resource_t r, const gpa_amount_t *am)
{
    const char *name = gpa_resource_name(r);
    if (!am->present || am->status == GPA_Q_OK)
        return;
    if (am->text[0] == '\0')
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                            "%s: value is not a string or number; write a quantity such as \"%s\"", name, example_value(r));
    else
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: \"%s\" is %s; use a whole number such as \"%s\"", name,
                            am->text, gpa_quantity_status_text(am->status), example_value(r));
}

void gpa_rule_malformed_quantity(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        if (!enabled(ctx->cfg, (gpa_resource_t)r))
            continue;
        const gpa_amount_t *req = &ctx->c->requests[r], *lim = &ctx->c->limits[r];
        malformed_one(ctx, (gpa_resource_t)r, req);
        /* The same bad text in request and limit is one mistake: reported once, at the request. */
        if (!(req->present && lim->present && req->status == lim->status && strcmp(req->text, lim->text) == 0))
            malformed_one(ctx, (gpa_resource_t)r, lim);
    }
}

void gpa_rule_request_limit_mismatch(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_amount_t *req = &ctx->c->requests[r], *lim = &ctx->c->limits[r];
        if (!enabled(ctx->cfg, (gpa_resource_t)r) || !req->present || !lim->present)
            continue;
        /* Unparsable values are malformed-quantity's; "1" and "1000m" are the same quantity. */
        if (req->status != GPA_Q_OK || lim->status != GPA_Q_OK || req->value == lim->value)
            continue;
        const char *name = gpa_resource_name((gpa_resource_t)r);
        gpa_rule_ctx_report(ctx, ctx->c->name, req->path, name, NULL,
                            "%s: request %s differs from limit %s; set both to the same value", name, req->text, lim->text);
    }
}

/* The first resource of dialect mask `d` declared in any container of the Pod; *in is that container. */
static gpa_resource_t first_declared(const gpa_config_t *cfg, const gpa_podspec_t *pod, unsigned d, const gpa_container_t **in)
{
    for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
        for (int r = 0; r < GPA_R__COUNT; r++) {
            if (((unsigned)gpa_resource_dialect((gpa_resource_t)r) & d) != 0 &&
                gpa_gpu_declared(cfg->dialects, c, (gpa_resource_t)r)) {
                *in = c;
                return (gpa_resource_t)r;
            }
        }
    }
    *in = NULL;
    return GPA_R_UNKNOWN;
}

/* Reports two dialects meeting in one Pod: at the container when one container holds both, else at the Pod. */
static void report_pair(gpa_rule_ctx_t *ctx, unsigned d0, unsigned d1, const char *fix)
{
    const gpa_container_t *c0, *c1;
    gpa_resource_t r0 = first_declared(ctx->cfg, ctx->pod, d0, &c0);
    gpa_resource_t r1 = first_declared(ctx->cfg, ctx->pod, d1, &c1);
    if (r0 == GPA_R_UNKNOWN || r1 == GPA_R_UNKNOWN)
        return;
    const char *n0 = gpa_resource_name(r0), *n1 = gpa_resource_name(r1);
    if (c0 == c1)
        gpa_rule_ctx_report(ctx, c0->name, gpa_rule_ctx_resources_path(ctx->a, c0), n0, n1, "%s with %s; %s", n0, n1, fix);
    else
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, n0, n1, "%s (in %s) and %s (in %s); %s", n0, c0->name, n1, c1->name, fix);
}

void gpa_rule_vendor_vs_share(gpa_rule_ctx_t *ctx)
{
    report_pair(ctx, GPA_DIALECT_VENDOR, GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU, "use whole GPUs or a share");
}

void gpa_rule_mixed_share_apis(gpa_rule_ctx_t *ctx)
{
    report_pair(ctx, GPA_DIALECT_KOORDINATOR, GPA_DIALECT_MGPU, "use one share API");
}

/* Negative values anywhere; gpu.shared and the deprecated gpu declared as 0. mGPU's core is rules_mgpu.c's. */
void gpa_rule_non_positive_common(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, (gpa_resource_t)r);
        if (am == NULL || am->status != GPA_Q_OK || am->value > 0)
            continue;
        const char *name = gpa_resource_name((gpa_resource_t)r);
        if (am->value < 0)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: %s is negative; GPU resources are counts >= %d", name,
                                am->text, r == GPA_R_GPU_SHARED ? 1 : 0);
        else if (r == GPA_R_GPU_SHARED)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                                "%s: 0 devices; set the number of devices to share (>= 1) or remove it", name);
        else if (r == GPA_R_GPU)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                                "%s: 0 asks for nothing; set a percent (e.g. 50) or remove it", name);
    }
}

void gpa_rule_infeasible(gpa_rule_ctx_t *ctx)
{
    if (ctx->inv == NULL)
        return;
    gpa_request_t req;
    /* A spec that does not normalize breaks another rule, which says why; an empty request needs no GPU. */
    if (gpa_normalize(ctx->a, ctx->cfg->dialects, ctx->pod, &req) != 0 || req.ngroups == 0)
        return;
    const char *reason = "";
    gpa_feasibility_t feasible = gpa_alloc_feasible(ctx->a, ctx->inv, &ctx->cfg->placement, ctx->pod, &req, &reason);
    if (reason == NULL || reason[0] == '\0')
        reason = "no node has the devices it asks for";
    size_t nnodes; /* every node of the inventory has GPUs and was considered */
    gpa_inventory_nodes(ctx->inv, &nnodes);
    const char *considered = nnodes == 0 ? "" : gpa_arena_printf(ctx->a, " (%zu GPU node%s)", nnodes, nnodes == 1 ? "" : "s");
    const char *advisory = gpa_inventory_advisory(ctx->inv);
    if (feasible == GPA_FEASIBLE_NEVER && advisory != NULL) {
        /* An inventory that may be out of date proves nothing: say what it shows, deny nothing. */
        gpa_action_t configured = ctx->action;
        ctx->action = GPA_ACTION_WARN;
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, NULL, NULL, "%s; no node could ever hold this Pod%s: %s", advisory,
                            considered, reason);
        ctx->action = configured;
    } else if (feasible == GPA_FEASIBLE_NEVER) {
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, NULL, NULL, "no node could ever hold this Pod%s: %s", considered, reason);
    } else if (feasible == GPA_FEASIBLE_NOT_NOW) {
        /* Room may free up: a warning whatever the configured action (off never gets here). */
        gpa_action_t configured = ctx->action;
        ctx->action = GPA_ACTION_WARN;
        gpa_violation_t *v = gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, NULL, NULL, "no node has room for this Pod now%s: %s",
                                                 considered, reason);
        if (v != NULL)
            v->not_now = 1;
        ctx->action = configured;
    }
}
