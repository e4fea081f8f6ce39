/*
 * infeasible (docs/rules.md#infeasible), the one rule that calls the allocator: no node of the inventory could ever hold
 * the Pod (the device dialects, alloc/alloc.h), or allocate a DRA claim on the devices the cluster's drivers publish
 * (alloc/dra_fit.h: claims and templates on their own, and the claims a Pod's templates make). A search cut short, an
 * inventory that may be out of date, or a Pod that fits but not now, only ever warn.
 */
#include <stdint.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/dra_fit.h"
#include "document/schema.h"
#include "inventory/inventory.h"
#include "kube/dra.h"
#include "kube/normalize.h"
#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"

/* The claims a Pod's templates make (below, with the DRA half). */
static void infeasible_dra_pod(gpa_rule_ctx_t *ctx);

/* ---- the device dialects -------------------------------------------------------------------------------------------- */

/* A finding of ctx's rule at `path` reported as a warning, whatever the configured action. */
static gpa_violation_t *warn_at(gpa_rule_ctx_t *ctx, const char *path, const char *message)
{
    gpa_action_t configured = ctx->action;
    ctx->action = GPA_ACTION_WARN;
    gpa_violation_t *v = gpa_rule_ctx_report(ctx, NULL, path, NULL, NULL, "%s", message);
    ctx->action = configured;
    return v;
}

void gpa_rule_infeasible(gpa_rule_ctx_t *ctx)
{
    infeasible_dra_pod(ctx); /* the claims its templates make, on the devices DRA drivers publish */
    if (ctx->inv == NULL || !gpa_inventory_has_nodes(ctx->inv))
        return; /* no inventory of nodes (one of DRA objects only says nothing about them) */
    gpa_request_t req;
    /* A spec that does not normalize breaks another rule, which says why; an empty request needs no GPU. */
    int normalized = gpa_normalize(ctx->a, ctx->cfg->dialects, ctx->pod, &req);
    if (normalized < 0 || req.ngroups == 0)
        return;
    const char *reason = "";
    gpa_feasibility_t feasible = GPA_FEASIBLE_NEVER;
    if (normalized == GPA_NORMALIZE_TOO_MANY) /* more devices than any node has: never, on any inventory */
        reason = gpa_arena_printf(ctx->a, "%s for %lld devices", req.too_many_asks, (long long)req.too_many);
    else
        feasible = gpa_alloc_feasible(ctx->a, ctx->inv, &ctx->cfg->placement, ctx->pod, &req, ctx->budget, &reason);
    if (reason == NULL || reason[0] == '\0')
        reason = "no node has the devices it asks for";
    size_t nnodes, ntemplates; /* every node of the inventory has GPUs and was considered, and every template */
    gpa_inventory_nodes(ctx->inv, &nnodes);
    gpa_inventory_templates(ctx->inv, &ntemplates);
    const char *nodes = nnodes == 0 ? "" : gpa_arena_printf(ctx->a, "%zu GPU node%s", nnodes, nnodes == 1 ? "" : "s");
    const char *templates =
        ntemplates == 0 ? "" : gpa_arena_printf(ctx->a, "%zu node template%s", ntemplates, ntemplates == 1 ? "" : "s");
    const char *considered = nnodes + ntemplates == 0 ? ""
                                                      : gpa_arena_printf(ctx->a, " (%s%s%s)", nodes,
                                                                         nnodes > 0 && ntemplates > 0 ? ", " : "", templates);
    const char *advisory = gpa_inventory_advisory(ctx->inv);
    if (feasible == GPA_FEASIBLE_UNKNOWN) {
        /* The request's search budget ran out (docs/allocator.md#bounds): a search cut short never denies. */
        warn_at(
            ctx, ctx->pod->path,
            gpa_arena_printf(ctx->a, "could not prove this Pod fits a node%s: the search budget ran out; admitted", considered));
    } else if (feasible == GPA_FEASIBLE_NEVER && advisory != NULL) {
        /* An inventory that may be out of date proves nothing: say what it shows, deny nothing. */
        warn_at(ctx, ctx->pod->path,
                gpa_arena_printf(ctx->a, "%s; no node could ever hold this Pod%s: %s", advisory, considered, reason));
    } else if (feasible == GPA_FEASIBLE_NEVER) {
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, NULL, NULL, "no node could ever hold this Pod%s: %s", considered, reason);
    } else if (feasible == GPA_FEASIBLE_NOT_NOW) {
        /* Room may free up: a warning whatever the configured action (off never gets here). The reason (a template that
         * would hold it comes first) before the counts: the API server shows a webhook's warnings cut at 120 bytes. */
        gpa_violation_t *v =
            warn_at(ctx, ctx->pod->path, gpa_arena_printf(ctx->a, "no node has room for this Pod now: %s%s", reason, considered));
        if (v != NULL)
            v->not_now = 1;
    }
}

/* ---- DRA --------------------------------------------------------------------------------------------------------- */

/* Whether devices could ever be allocated; a search the budget cut short says so in a warning (never a denial). */
static gpa_dra_fit_t fit(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const gpa_dra_devices_t *devices, const char *path,
                         const char **reason)
{
    gpa_dra_fit_t f = gpa_dra_ever_fits(ctx->a, pools, ctx->known, devices, ctx->budget, reason);
    if (f == GPA_DRA_NEVER || gpa_alloc_budget_take(ctx->budget, 0) == 0)
        return f;
    warn_at(ctx, path,
            gpa_arena_printf(ctx->a,
                             "could not prove these devices can be allocated (%zu published devices): the search budget ran "
                             "out; admitted",
                             pools->ndevices));
    return GPA_DRA_UNKNOWN;
}

/* Devices that could be allocated on empty devices but not with what allocated claims hold: said in a warning, as
 * for every dialect (today's usage never denies). */
static const char *no_room_now(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const gpa_dra_devices_t *devices)
{
    const char *reason;
    if (pools->use == NULL || gpa_dra_fits_now(ctx->a, pools, ctx->known, devices, ctx->budget, &reason) != GPA_DRA_NEVER)
        return NULL;
    return reason;
}

void gpa_rule_infeasible_dra(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ctx->inv);
    const char *reason;
    if (pools == NULL || (o->kind != GPA_DRA_CLAIM && o->kind != GPA_DRA_TEMPLATE))
        return;
    gpa_dra_fit_t f = fit(ctx, pools, &o->devices, o->devices.path, &reason);
    if (f == GPA_DRA_NEVER) {
        gpa_rule_ctx_report(ctx, NULL, o->devices.path, NULL, NULL,
                            "no node could ever allocate this %s, even with every device free: %s; the Pods using it wait Pending",
                            gpa_dra_kind_name(o->kind), reason);
        return;
    }
    /* an allocated claim has its devices: the room it holds is its own */
    if (f == GPA_DRA_FITS && o->nallocated == 0 && (reason = no_room_now(ctx, pools, &o->devices)) != NULL)
        warn_at(ctx, o->devices.path,
                gpa_arena_printf(ctx->a, "no node has room for this %s now: %s; it waits until allocated claims free devices",
                                 gpa_dra_kind_name(o->kind), reason));
}

/*
 * The extended resources a DeviceClass serves (KEP-5004, docs/rules.md#dra-extended-resources): the scheduler makes the
 * Pod one claim of them, a request per container and resource for as many devices as the amount. Init containers are
 * left out (they run before the others: counting them beside would only refuse more).
 */
static void infeasible_dra_extended(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools)
{
    const gpa_podspec_t *pod = ctx->pod;
    size_t n = 0;
    for (size_t i = 0; i < pod->ncontainers; i++)
        n += pod->containers[i].nextended;
    if (n == 0)
        return;
    gpa_dra_request_t *reqs = gpa_arena_calloc(ctx->a, n, sizeof(*reqs));
    const char *first = NULL;
    n = 0;
    for (size_t i = 0; i < pod->ncontainers; i++)
        for (size_t k = 0; k < pod->containers[i].nextended; k++) {
            const gpa_dra_extended_use_t *u = &pod->containers[i].extended[k];
            if (u->amount.status != GPA_Q_OK || u->amount.value <= 0)
                continue; /* not a count: the rules on quantities say so */
            const char *name = gpa_arena_printf(ctx->a, "%s of container %s", u->resource, pod->containers[i].name);
            reqs[n++] = (gpa_dra_request_t){
                .name = name,
                .path = u->path,
                .has_exact = 1,
                .exact = {.name = name, .path = u->path, .class = u->class, .count = u->amount.value, .has_count = 1}};
            first = first != NULL ? first : u->path;
        }
    gpa_dra_devices_t devices = {.path = pod->path, .requests = reqs, .nrequests = n};
    const char *reason;
    gpa_dra_fit_t f = n != 0 ? fit(ctx, pools, &devices, first, &reason) : GPA_DRA_UNKNOWN;
    if (f == GPA_DRA_NEVER)
        gpa_rule_ctx_report(ctx, NULL, first, NULL, NULL,
                            "no node could ever allocate the extended resources DeviceClasses serve to this Pod, even with every "
                            "device free: %s; the Pod would wait Pending",
                            reason);
    else if (f == GPA_DRA_FITS && (reason = no_room_now(ctx, pools, &devices)) != NULL)
        warn_at(ctx, first,
                gpa_arena_printf(ctx->a, "no node has room now for the extended resources DeviceClasses serve to this Pod: %s",
                                 reason));
}

/*
 * The Pod's template claims together (each fits alone): the scheduler allocates every claim of a Pod on the one node it
 * picks, each device to one claim, so claims that each fit only where the others do not never all do. `names` and
 * `claims` hold the n that fit alone; `now`: one of them already has no room now (said), so together is not said.
 */
static void infeasible_dra_together(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const char **names,
                                    const gpa_dra_devices_t **claims, size_t n, int now)
{
    const gpa_dra_devices_t *all = n >= 2 ? gpa_dra_devices_merge(ctx->a, names, claims, n) : NULL;
    const char *reason, *at = gpa_arena_printf(ctx->a, "%s.resourceClaims", ctx->pod->path);
    gpa_dra_fit_t f = all != NULL ? fit(ctx, pools, all, at, &reason) : GPA_DRA_UNKNOWN;
    if (f == GPA_DRA_NEVER)
        gpa_rule_ctx_report(ctx, NULL, at, NULL, NULL,
                            "resourceClaims: each of its %zu claims from templates could be allocated alone, but no node could "
                            "ever allocate them all together (a Pod's claims are allocated on its node), even with every "
                            "device free: %s; the Pod would wait Pending",
                            n, reason);
    else if (f == GPA_DRA_FITS && !now && (reason = no_room_now(ctx, pools, all)) != NULL)
        warn_at(ctx, at,
                gpa_arena_printf(ctx->a, "resourceClaims: no node has room now for its %zu claims from templates together: %s", n,
                                 reason));
}

static void infeasible_dra_pod(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ctx->inv);
    const char **names = gpa_arena_calloc(ctx->a, ctx->pod->nclaims + 1, sizeof(*names));
    const gpa_dra_devices_t **alone = gpa_arena_calloc(ctx->a, ctx->pod->nclaims + 1, sizeof(*alone));
    size_t nalone = 0;
    int never = 0, now = 0;
    for (size_t i = 0; pools != NULL && i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        /* A named claim may already be allocated (it then fits where it is): only the template's new claim is judged. */
        const gpa_dra_object_t *t =
            pc->template != NULL ? gpa_dra_known_find(ctx->known, GPA_DRA_TEMPLATE, ctx->obj->ns, pc->template) : NULL;
        const char *reason;
        gpa_dra_fit_t f = t != NULL ? fit(ctx, pools, &t->devices, pc->path, &reason) : GPA_DRA_UNKNOWN;
        if (f == GPA_DRA_FITS && (reason = no_room_now(ctx, pools, &t->devices)) != NULL) {
            now = 1;
            warn_at(ctx, pc->path,
                    gpa_arena_printf(ctx->a,
                                     "resourceClaims \"%s\": no node has room now for a claim of ResourceClaimTemplate %s: %s; the "
                                     "Pod waits until allocated claims free devices",
                                     pc->name != NULL ? pc->name : "", pc->template, reason));
        }
        if (f == GPA_DRA_FITS)
            names[nalone] = pc->name != NULL ? pc->name : "", alone[nalone++] = &t->devices;
        if (f != GPA_DRA_NEVER)
            continue;
        never = 1;
        gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, pc->path, "resourceClaimTemplateName"), pc->template, NULL,
                            "resourceClaims \"%s\": no node could ever allocate a claim of ResourceClaimTemplate %s, even with "
                            "every device free: %s; the Pod would wait Pending",
                            pc->name != NULL ? pc->name : "", pc->template, reason);
    }
    if (pools != NULL && !never)
        infeasible_dra_together(ctx, pools, names, alone, nalone, now);
    if (pools != NULL)
        infeasible_dra_extended(ctx, pools);
}
