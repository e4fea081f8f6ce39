/*
 * The drivers that run the rule table (validate.h): gpa_validate_object (every rule, every Pod spec) and
 * gpa_validate_container (the container-level predicate mutation and shared-required share).
 */
#include "policy/validate.h"

#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"
#include "policy/rules.h"

/* Whether rule i runs under cfg: its action is not off and one of its dialects is enabled. */
static int rule_runs(const gpa_config_t *cfg, size_t i)
{
    return cfg->actions[i] != GPA_ACTION_OFF && (gpa_rules[i].dialects & cfg->dialects) != 0;
}

/* The rules' DRA object checks on a resource.k8s.io object (a controller's claim is admitted untouched). */
static void run_on_dra(gpa_rule_ctx_t *base, const gpa_object_t *obj)
{
    if (obj->dra == NULL || obj->dra->generated)
        return;
    for (size_t i = 0; i < gpa_nrules; i++) {
        if (gpa_rules[i].on_dra == NULL || !rule_runs(base->cfg, i) || (gpa_rules[i].dialects & GPA_DIALECT_DRA) == 0)
            continue;
        gpa_rule_ctx_t ctx = *base;
        ctx.rule = gpa_rules[i].id;
        ctx.action = base->cfg->actions[i];
        gpa_rules[i].on_dra(&ctx);
    }
}

static void run_containers(const gpa_rule_t *rule, gpa_rule_ctx_t *ctx, const gpa_container_t *cs, const unsigned *masks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((masks[i] & rule->dialects) == 0)
            continue; /* none of the rule's resources appear in this container */
        ctx->c = &cs[i];
        rule->check(ctx);
    }
    ctx->c = NULL;
}

/* One rule on one Pod spec: its containers (app, then init), then the Pod pass. */
static void run_rule_on_pod(const gpa_rule_t *rule, gpa_rule_ctx_t *ctx)
{
    if (rule->scope != GPA_SCOPE_POD) {
        run_containers(rule, ctx, ctx->pod->containers, ctx->facts->app_dialects, ctx->pod->ncontainers);
        run_containers(rule, ctx, ctx->pod->init_containers, ctx->facts->init_dialects, ctx->pod->ninit_containers);
    }
    if (rule->scope != GPA_SCOPE_CONTAINER) {
        ctx->container_hits = ctx->count;
        rule->check(ctx);
    }
}

void gpa_validate_object(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget,
                         const gpa_object_t *obj, gpa_violations_t *out)
{
    gpa_validate_object_known(a, cfg, inv, NULL, budget, obj, out);
}

void gpa_validate_object_known(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, const gpa_dra_known_t *known,
                               gpa_alloc_budget_t *budget, const gpa_object_t *obj, gpa_violations_t *out)
{
    gpa_alloc_budget_t own = gpa_alloc_budget(0);
    gpa_rule_ctx_t base = {
        .a = a, .cfg = cfg, .inv = inv, .budget = budget != NULL ? budget : &own, .obj = obj, .known = known, .out = out};
    run_on_dra(&base, obj);
    if (obj->npods == 0)
        return;
    gpa_pod_facts_t *facts = gpa_arena_alloc(a, obj->npods * sizeof(*facts));
    for (size_t p = 0; p < obj->npods; p++)
        gpa_pod_facts_init(a, cfg->dialects, &obj->pods[p], &facts[p]);
    /* Rule-major order, so findings come out in table order, then in document order. */
    for (size_t i = 0; i < gpa_nrules; i++) {
        if (!rule_runs(cfg, i) || gpa_rules[i].check == NULL)
            continue;
        for (size_t p = 0; p < obj->npods; p++) {
            if ((gpa_rules[i].dialects & facts[p].dialects) == 0)
                continue;
            gpa_rule_ctx_t ctx = {.a = a,
                                  .cfg = cfg,
                                  .inv = inv,
                                  .budget = budget != NULL ? budget : &own,
                                  .obj = obj,
                                  .known = known,
                                  .pod = &obj->pods[p],
                                  .facts = &facts[p],
                                  .rule = gpa_rules[i].id,
                                  .action = cfg->actions[i],
                                  .out = out,
                                  .container_findings = gpa_validate_container_facts};
            run_rule_on_pod(&gpa_rules[i], &ctx);
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
        if (gpa_rules[i].check == gpa_rule_shared_required || gpa_rules[i].scope == GPA_SCOPE_POD ||
            gpa_rules[i].scope == GPA_SCOPE_OBJECT || gpa_rules[i].check == NULL || !rule_runs(cfg, i) ||
            cfg->actions[i] != GPA_ACTION_DENY)
            continue;
        gpa_rule_ctx_t ctx = {.a = a,
                              .cfg = cfg,
                              .pod = pod,
                              .facts = facts,
                              .c = c,
                              .rule = gpa_rules[i].id,
                              .action = cfg->actions[i],
                              .out = out,
                              .container_findings = gpa_validate_container_facts};
        gpa_rules[i].check(&ctx);
        count += ctx.count;
    }
    return count;
}
