/*
 * The DRA rules that read the devices the cluster's drivers publish (an inventory's ResourceSlices): `infeasible` for
 * claims, templates and the Pods that use templates (docs/rules.md#infeasible), `dra-capacity-unshared` and
 * `dra-capacity-rounding` (docs/rules.md#dra-capacity-unshared). Without published devices they say nothing.
 */
#include <string.h>

#include "alloc/dra_fit.h"
#include "inventory/inventory.h"
#include "document/schema.h"
#include "kube/dra.h"
#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"

static const gpa_dra_pools_t *published(const gpa_rule_ctx_t *ctx)
{
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ctx->inv);
    return pools != NULL && pools->ndevices != 0 ? pools : NULL;
}

/* ---- infeasible ---------------------------------------------------------------------------------------------------- */

/* Whether devices could ever be allocated; a search the budget cut short says so in a warning (never a denial). */
static gpa_dra_fit_t fit(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const gpa_dra_devices_t *devices, const char *path,
                         const char **reason)
{
    gpa_dra_fit_t f = gpa_dra_ever_fits(ctx->a, pools, ctx->known, devices, ctx->budget, reason);
    if (f == GPA_DRA_NEVER || gpa_alloc_budget_take(ctx->budget, 0) == 0)
        return f;
    gpa_action_t configured = ctx->action;
    ctx->action = GPA_ACTION_WARN;
    gpa_rule_ctx_report(ctx, NULL, path, NULL, NULL,
                        "could not prove these devices can be allocated (%zu published devices): the search budget ran out; "
                        "admitted",
                        pools->ndevices);
    ctx->action = configured;
    return GPA_DRA_UNKNOWN;
}

void gpa_rule_infeasible_dra(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    const gpa_dra_pools_t *pools = published(ctx);
    const char *reason;
    if (pools == NULL || (o->kind != GPA_DRA_CLAIM && o->kind != GPA_DRA_TEMPLATE) ||
        fit(ctx, pools, &o->devices, o->devices.path, &reason) != GPA_DRA_NEVER)
        return;
    gpa_rule_ctx_report(ctx, NULL, o->devices.path, NULL, NULL,
                        "no node could ever allocate this %s, even with every device free: %s; the Pods using it wait Pending",
                        gpa_dra_kind_name(o->kind), reason);
}

void gpa_rule_infeasible_dra_pod(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_pools_t *pools = published(ctx);
    for (size_t i = 0; pools != NULL && i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        /* A named claim may already be allocated (it then fits where it is): only the template's new claim is judged. */
        const gpa_dra_object_t *t =
            pc->template != NULL ? gpa_dra_known_find(ctx->known, GPA_DRA_TEMPLATE, ctx->obj->ns, pc->template) : NULL;
        const char *reason;
        if (t == NULL || fit(ctx, pools, &t->devices, pc->path, &reason) != GPA_DRA_NEVER)
            continue;
        gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, pc->path, "resourceClaimTemplateName"), pc->template, NULL,
                            "resourceClaims \"%s\": no node could ever allocate a claim of ResourceClaimTemplate %s, even with "
                            "every device free: %s; the Pod would wait Pending",
                            pc->name != NULL ? pc->name : "", pc->template, reason);
    }
}

/* ---- capacity ------------------------------------------------------------------------------------------------------ */

/* Calls fn for every ExactDeviceRequest asking capacity of the claim or template ctx judges, with the devices it admits. */
static void each_capacity_request(gpa_rule_ctx_t *ctx, void (*fn)(gpa_rule_ctx_t *ctx, const gpa_dra_exact_t *e,
                                                                  const gpa_dra_placed_t *const *devices, size_t n))
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    const gpa_dra_pools_t *pools = published(ctx);
    if (pools == NULL || (o->kind != GPA_DRA_CLAIM && o->kind != GPA_DRA_TEMPLATE))
        return;
    for (size_t i = 0; i < o->devices.nrequests; i++) {
        const gpa_dra_request_t *req = &o->devices.requests[i];
        size_t nalts = req->nalternatives != 0 ? req->nalternatives : (size_t)req->has_exact;
        for (size_t k = 0; k < nalts; k++) {
            const gpa_dra_exact_t *e = req->nalternatives != 0 ? &req->alternatives[k] : &req->exact;
            const gpa_dra_placed_t **devices;
            size_t n = e->ncapacity != 0 ? gpa_dra_admitted(ctx->a, pools, ctx->known, e, ctx->budget, &devices) : 0;
            if (n != 0)
                fn(ctx, e, devices, n);
        }
    }
}

static void unshared(gpa_rule_ctx_t *ctx, const gpa_dra_exact_t *e, const gpa_dra_placed_t *const *devices, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (devices[i]->device->allow_multiple)
            return;
    gpa_rule_ctx_report(ctx, NULL, e->capacity[0].path, NULL, NULL,
                        "request %s asks for %s %s, but none of the %zu devices it admits allows several allocations: the "
                        "amount only filters, and each allocation takes a whole device (its driver must publish "
                        "allowMultipleAllocations for a share)",
                        e->name != NULL ? e->name : "", e->capacity[0].text, e->capacity[0].name, n);
}

void gpa_rule_dra_capacity_unshared(gpa_rule_ctx_t *ctx)
{
    each_capacity_request(ctx, unshared);
}

/* The capacity c of placed device p that capacity request w names, or NULL. */
static const gpa_dra_device_capacity_t *named(gpa_rule_ctx_t *ctx, const gpa_dra_placed_t *p, const gpa_dra_capacity_t *w)
{
    const char *slash = strchr(w->name, '/');
    if (slash == NULL)
        return gpa_dra_device_capacity(p->device, p->pool->driver, w->name);
    return gpa_dra_device_capacity(p->device, gpa_arena_strndup(ctx->a, w->name, (size_t)(slash - w->name)), slash + 1);
}

static void rounding(gpa_rule_ctx_t *ctx, const gpa_dra_exact_t *e, const gpa_dra_placed_t *const *devices, size_t n)
{
    int64_t pct = ctx->cfg->dra.rounding_warn_percent;
    for (size_t k = 0; k < e->ncapacity; k++) {
        const gpa_dra_capacity_t *w = &e->capacity[k];
        for (size_t i = 0; i < n && w->amount.status == GPA_Q_OK && w->amount.value > 0; i++) {
            const gpa_dra_device_capacity_t *c = named(ctx, devices[i], w);
            int64_t consumed, asked, got;
            const char *why;
            if (c == NULL || !devices[i]->device->allow_multiple || !c->has_policy ||
                gpa_dra_consumed(ctx->a, c, 1, &w->amount, &consumed, &why) != 0)
                continue;
            /* more than pct percent above the request: consumed * 100 > amount * (100 + pct), exactly (a product past
             * int64 on the left is above any on the right) */
            if (__builtin_mul_overflow(w->amount.value, 100 + pct, &asked) ||
                (!__builtin_mul_overflow(consumed, 100, &got) && got <= asked))
                continue;
            char buf[32];
            gpa_quantity_format(consumed, 1, buf);
            gpa_rule_ctx_report(ctx, NULL, w->path, NULL, NULL,
                                "%s %s is rounded up by the requestPolicy of device %s/%s to %s (more than %lld%% above what was "
                                "asked): each allocation consumes %s; ask for %s",
                                w->name, w->text, devices[i]->pool->name, devices[i]->device->name, buf, (long long)pct, buf, buf);
            break;
        }
    }
}

void gpa_rule_dra_capacity_rounding(gpa_rule_ctx_t *ctx)
{
    each_capacity_request(ctx, rounding);
}
