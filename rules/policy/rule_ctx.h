/*
 * What the rule families (rules_common.c, rules_koord.c, rules_mgpu.c, rules_hami.c, rules_ray.c, rules_dra*.c,
 * rules_infeasible.c) share: the check
 * context and the helpers that word findings. How amounts are read is kube/gpu_request.h's (one convention for the rules, the
 * mutations and the allocator). Private to policy.
 */
#ifndef GPA_RULE_CTX_H
#define GPA_RULE_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "kube/gpu_request.h"
#include "kube/model.h"
#include "policy/config.h"
#include "policy/rule_checks.h"
#include "policy/verdict.h"
#include "alloc/placement.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

/* One check call. The container pass sets c; the Pod pass (scope POD, and BOTH after its containers) has c NULL. */
struct st_gpa_rule_ctx_t {
    gpa_arena_t *a;
    const gpa_config_t *cfg;
    const gpa_inventory_t *inv;   /* NULL: no inventory (infeasible does not run) */
    gpa_alloc_budget_t *budget;   /* the infeasible rule's search budget, shared by the object's Pod specs */
    const gpa_object_t *obj;      /* the object pod belongs to (KubeRay's rule reads its groups); NULL in the container predicate */
    const gpa_dra_known_t *known; /* what the cluster holds (kube/dra.h); NULL: nothing known */
    const gpa_podspec_t *pod;
    const gpa_pod_facts_t *facts;
    const gpa_container_t *c;
    const char *rule;      /* the rule's id (the table's, static): findings carry it */
    gpa_action_t action;   /* configured action of the rule; findings carry it */
    size_t container_hits; /* Pod pass of a BOTH rule: findings the rule had in this Pod's containers */
    gpa_violations_t *out; /* NULL: only count (gpa_validate_container without out) */
    size_t count;          /* findings reported through this context */
    /* What the other rules find in a container: the driver's predicate (validate.h, gpa_validate_container_facts),
     * handed in by the driver that runs the table, so that the families, which the table names, never name the
     * table back (shared-required, and malformed-quantity's guesses, ask it). */
    size_t (*container_findings)(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_pod_facts_t *facts,
                                 const gpa_container_t *c, gpa_violations_t *out);
};

/*
 * Reports one finding of ctx's rule with ctx's action. `container` may be NULL (a Pod-level finding); res0
 * and res1 are resource or annotation names (static storage), NULL when unused. The message is formatted
 * only when ctx->out is set; arena-owned and read-only: a message worded as the previous finding's is that
 * finding's own string (one copy for thousands of containers alike). Returns the finding (in ctx->out), or NULL
 * when only counting (no ctx->out, or ctx->out holds no more: gpa_violations_hold). Whatever a finding's action is
 * to be, ctx->action says it before the call: a finding that is not held cannot be changed afterwards.
 */
gpa_violation_t *gpa_rule_ctx_report(gpa_rule_ctx_t *ctx, const char *container, const char *path, const char *res0,
                                     const char *res1, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* What the other container-level rules at deny find in c (ctx's Pod): gpa_validate_container_facts through
 * ctx->container_findings. Appends to out when out != NULL; returns the count. */
size_t gpa_rule_ctx_container_findings(gpa_rule_ctx_t *ctx, const gpa_container_t *c, gpa_violations_t *out);

/* Exact text of a byte amount for messages: "256Mi", "4", "1500M"; arena-owned. */
const char *gpa_rule_ctx_bytes(gpa_arena_t *a, int64_t bytes);
/* The name of resource r as the configuration spells it (HAMi's names are configured); static or the
 * configuration's. */
static inline const char *gpa_rule_ctx_name(const gpa_rule_ctx_t *ctx, gpa_resource_t r)
{
    return gpa_resource_name_in(&ctx->cfg->hami, r);
}

#endif
