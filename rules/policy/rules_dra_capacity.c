/*
 * dra-capacity-unshared and dra-capacity-rounding (docs/rules.md#dra-capacity-unshared): what a capacity request does on
 * the devices the cluster's drivers publish (an inventory's ResourceSlices). Without published devices they say nothing.
 */
#include <string.h>

#include "alloc/dra_fit.h"
#include "inventory/inventory.h"
#include "kube/dra.h"
#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"

/* ---- capacity ------------------------------------------------------------------------------------------------------ */

/* Calls fn for every ExactDeviceRequest asking capacity of the claim or template ctx judges, with the devices it admits. */
static void each_capacity_request(gpa_rule_ctx_t *ctx, void (*fn)(gpa_rule_ctx_t *ctx, const gpa_dra_exact_t *e,
                                                                  const gpa_dra_placed_t *const *devices, size_t n))
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ctx->inv);
    if (pools == NULL || (o->kind != GPA_DRA_CLAIM && o->kind != GPA_DRA_TEMPLATE))
        return;
    for (size_t i = 0; i < o->devices.nrequests; i++) {
        const gpa_dra_request_t *req = &o->devices.requests[i];
        for (size_t k = 0; k < gpa_dra_request_nexact(req); k++) {
            const gpa_dra_exact_t *e = gpa_dra_request_exact(req, k);
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

static void rounding(gpa_rule_ctx_t *ctx, const gpa_dra_exact_t *e, const gpa_dra_placed_t *const *devices, size_t n)
{
    int64_t pct = ctx->cfg->dra.rounding_warn_percent;
    for (size_t k = 0; k < e->ncapacity; k++) {
        const gpa_dra_capacity_t *w = &e->capacity[k];
        for (size_t i = 0; i < n && w->amount.status == GPA_Q_OK && w->amount.value > 0; i++) {
            const gpa_dra_device_capacity_t *c =
                gpa_dra_device_capacity_named(devices[i]->device, devices[i]->pool->driver, w->name);
            int64_t consumed, asked, got;
            const char *why;
            if (c == NULL || !devices[i]->device->allow_multiple || c->policy == NULL ||
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
