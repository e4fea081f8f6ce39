/*
 * dra-cel (docs/rules.md#dra-cel): a DRA selector that does not parse as CEL, or, with the devices the cluster's
 * drivers publish (an inventory's ResourceSlices), one that fails at run time on a device its class admits. The
 * scheduler evaluates a class's selectors, then the request's, in order on every device it considers; the first error
 * stops it for the Pod on every node. So a finding is sound only where every selector before the failing one certainly
 * matched the device: an unknown (outside gpuadmit's CEL subset) before it ends the search for that device.
 */
#include <string.h>

#include "alloc/dra_fit.h"
#include "inventory/inventory.h"
#include "cel/cel.h"
#include "inventory/dra_device.h"
#include "inventory/dra_pools.h"
#include "kube/dra.h"
#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"

/* A selector of the object judged that does not parse: its finding. */
typedef struct st_unparsed_t {
    gpa_rule_ctx_t *ctx;
    const char *const *paths;
} unparsed_t;

static void report_unparsed(void *arg, size_t i, const gpa_error_t *err)
{
    const unparsed_t *u = arg;
    gpa_rule_ctx_report(u->ctx, NULL, u->paths[i], NULL, NULL,
                        "selector does not parse as CEL: %s; the API server refuses the object", err->message);
}

/* Parsed selectors; NULL when one does not parse (reported when `report`: the object's own, not its class's). */
static const gpa_cel_node_t **parse_all(gpa_rule_ctx_t *ctx, const char *const *texts, const char *const *paths, size_t n,
                                        int report)
{
    unparsed_t u = {ctx, paths};
    return gpa_dra_selectors_parse(ctx->a, texts, paths, n, report ? report_unparsed : NULL, &u);
}

static void report_failure(gpa_rule_ctx_t *ctx, const char *path, const char *whose, const gpa_dra_placed_t *p, const char *why)
{
    gpa_rule_ctx_report(ctx, NULL, path, NULL, NULL,
                        "selector fails on device %s/%s/%s, which %s: %s; the scheduler stops on this error for the Pod on "
                        "every node (test with has() first, or select on an attribute the driver publishes)",
                        p->pool->driver, p->pool->name, p->device->name, whose, why != NULL ? why : "error");
}

/* Where selectors first fail: the device and the selector's index (p NULL: nowhere, or not judged). */
typedef struct st_failure_t {
    const gpa_dra_placed_t *p;
    size_t which;
    const char *why;
} failure_t;

/* The first device on which `sel` (after `class_sel`, which must match it) fails. */
static failure_t find_failure(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const gpa_cel_node_t *const *class_sel,
                              size_t nclass, const gpa_cel_node_t *const *sel, size_t n)
{
    for (size_t d = 0; d < pools->ndevices; d++) {
        const gpa_dra_placed_t *p = &pools->devices[d];
        gpa_dra_selected_t s;
        if (gpa_dra_selected(ctx->a, class_sel, nclass, sel, n, p, ctx->budget, &s) != 0)
            break;
        if (s.cls != GPA_CEL_MATCH)
            continue; /* not admitted (or not surely): its class's own selectors are the class's to judge */
        if (s.req == GPA_CEL_FAILS)
            return (failure_t){p, s.which, s.why};
    }
    return (failure_t){NULL, 0, NULL};
}

/* Requests judged so far in the object, so that one asking what another asked (the class and selector texts) costs
 * nothing more: 32 requests of one selector are judged once, each reported at its own path. */
typedef struct st_judged_t {
    const gpa_dra_exact_t *e;
    failure_t f;
} judged_t;

static int same_selectors(const gpa_dra_exact_t *x, const gpa_dra_exact_t *y)
{
    if (strcmp(x->class, y->class) != 0 || x->nselectors != y->nselectors)
        return 0;
    for (size_t i = 0; i < x->nselectors; i++)
        if (x->selectors[i] == NULL || y->selectors[i] == NULL || strcmp(x->selectors[i], y->selectors[i]) != 0)
            return 0;
    return 1;
}

static void check_exact(gpa_rule_ctx_t *ctx, const gpa_dra_pools_t *pools, const gpa_dra_exact_t *e, judged_t *judged,
                        size_t *njudged)
{
    const gpa_cel_node_t **sel = parse_all(ctx, e->selectors, e->selector_paths, e->nselectors, 1);
    if (sel == NULL || pools == NULL || e->nselectors == 0 || e->class == NULL)
        return;
    const gpa_dra_object_t *cls = gpa_dra_known_find(ctx->known, GPA_DRA_CLASS, "", e->class);
    if (cls == NULL)
        return; /* dra-unknown-class says so where classes are known */
    const gpa_cel_node_t **class_sel = parse_all(ctx, cls->cls.selectors, cls->cls.selector_paths, cls->cls.nselectors, 0);
    if (class_sel == NULL && cls->cls.nselectors != 0)
        return;
    size_t i = 0;
    while (i < *njudged && !same_selectors(judged[i].e, e))
        i++;
    if (i == *njudged) {
        judged[i] = (judged_t){e, find_failure(ctx, pools, class_sel, cls->cls.nselectors, sel, e->nselectors)};
        (*njudged)++;
    }
    if (judged[i].f.p != NULL)
        report_failure(ctx, e->selector_paths[judged[i].f.which], gpa_arena_printf(ctx->a, "its DeviceClass %s admits", e->class),
                       judged[i].f.p, judged[i].f.why);
}

void gpa_rule_dra_cel(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ctx->inv);
    if (o->kind == GPA_DRA_CLASS) {
        const gpa_cel_node_t **sel = parse_all(ctx, o->cls.selectors, o->cls.selector_paths, o->cls.nselectors, 1);
        failure_t f = sel != NULL && pools != NULL && o->cls.nselectors != 0
                          ? find_failure(ctx, pools, NULL, 0, sel, o->cls.nselectors)
                          : (failure_t){NULL, 0, NULL};
        if (f.p != NULL)
            report_failure(ctx, o->cls.selector_paths[f.which], "the cluster publishes", f.p, f.why);
        return;
    }
    const gpa_dra_devices_t *devices = &o->devices;
    size_t total = 0, njudged = 0;
    for (size_t i = 0; i < devices->nrequests; i++)
        total += gpa_dra_request_nexact(&devices->requests[i]);
    judged_t *judged = gpa_arena_calloc(ctx->a, total + 1, sizeof(*judged));
    for (size_t i = 0; i < devices->nrequests; i++) {
        const gpa_dra_request_t *req = &devices->requests[i];
        for (size_t k = 0; k < gpa_dra_request_nexact(req); k++)
            check_exact(ctx, pools, gpa_dra_request_exact(req, k), judged, &njudged);
    }
}
