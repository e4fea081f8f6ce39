/*
 * What the rule families (rules_common.c, rules_koord.c, rules_mgpu.c) share: the check context, the facts
 * computed once per Pod spec, and the helpers that read amounts the way SPEC §3 says. Private to rules/.
 *
 * Reading amounts (one convention for every rule):
 *   - an amount is the request, else the limit (gpa_container_amount);
 *   - resources of dialects the configuration disables are not seen at all;
 *   - "declared" means present and not an exact 0: a resource declared as 0 counts as not declared, except in
 *     non-positive, which looks at the raw amounts itself;
 *   - arithmetic only ever uses values that parsed (GPA_Q_OK) and are > 0; malformed-quantity and non-positive
 *     report the others, so the arithmetic rules skip them instead of reporting them twice.
 */
#ifndef GPA_RULES_IMPL_H
#define GPA_RULES_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "policy/config.h"
#include "policy/engine.h"
#include "kube/model.h"
#include "policy/rules.h"
#include "kube/gpu_request.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

/* gpa_validate_container (rules.h) with the Pod's facts already computed: callers that visit every container of a
 * Pod compute them once, not once per container (which made a Pod of n containers cost n^2). */
size_t gpa_validate_container_facts(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, const gpa_pod_facts_t *facts,
                                    const gpa_container_t *c, gpa_violations_t *out);

/* One check call. The container pass sets c; the Pod pass (scope POD, and BOTH after its containers) has c NULL. */
struct st_gpa_rule_ctx_t {
    gpa_arena_t *a;
    const gpa_config_t *cfg;
    const gpa_inventory_t *inv; /* NULL: no inventory (infeasible does not run) */
    const gpa_podspec_t *pod;
    const gpa_pod_facts_t *facts;
    const gpa_container_t *c;
    size_t rule;           /* index in gpa_rules */
    gpa_action_t action;   /* configured action of the rule; findings carry it */
    size_t container_hits; /* Pod pass of a BOTH rule: findings the rule had in this Pod's containers */
    gpa_violations_t *out; /* NULL: only count (gpa_validate_container without out) */
    size_t count;          /* findings reported through this context */
};

/*
 * Reports one finding of ctx's rule with ctx's action. `container` may be NULL (a Pod-level finding); res0
 * and res1 are resource or annotation names (static storage), NULL when unused. The message is formatted
 * only when ctx->out is set.
 */
void gpa_rule_report(gpa_rule_ctx_t *ctx, const char *container, const char *path, const char *res0, const char *res1,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Exact text of a byte amount for messages: "256Mi", "4", "1500M"; arena-owned. */
const char *gpa_rule_bytes(gpa_arena_t *a, int64_t bytes);
/* "spec.containers[1].resources": where a finding about several resources of one container points. */
const char *gpa_rule_resources_path(gpa_arena_t *a, const gpa_container_t *c);

/* ---- the checks: one per rule (rules.c holds the table) ---- */

void gpa_check_malformed_quantity(gpa_rule_ctx_t *ctx);
void gpa_check_request_limit_mismatch(gpa_rule_ctx_t *ctx);
void gpa_check_vendor_vs_share(gpa_rule_ctx_t *ctx);
void gpa_check_mixed_share_apis(gpa_rule_ctx_t *ctx);
void gpa_check_non_positive(gpa_rule_ctx_t *ctx);
void gpa_check_infeasible(gpa_rule_ctx_t *ctx);

void gpa_check_memory_ratio_exclusive(gpa_rule_ctx_t *ctx);
void gpa_check_core_without_memory(gpa_rule_ctx_t *ctx);
void gpa_check_shared_without_memory(gpa_rule_ctx_t *ctx);
void gpa_check_shared_required(gpa_rule_ctx_t *ctx);
void gpa_check_deprecated_gpu_mixed(gpa_rule_ctx_t *ctx);
void gpa_koord_divisibility(gpa_rule_ctx_t *ctx);
void gpa_koord_per_device(gpa_rule_ctx_t *ctx);
void gpa_koord_min_memory(gpa_rule_ctx_t *ctx);

void gpa_mgpu_non_positive(gpa_rule_ctx_t *ctx);
void gpa_mgpu_divisibility(gpa_rule_ctx_t *ctx);
void gpa_mgpu_per_device(gpa_rule_ctx_t *ctx);
void gpa_mgpu_min_memory(gpa_rule_ctx_t *ctx);
void gpa_check_full_card_memory(gpa_rule_ctx_t *ctx);
void gpa_check_card_count_mismatch(gpa_rule_ctx_t *ctx);
void gpa_check_invalid_card_count(gpa_rule_ctx_t *ctx);
void gpa_check_ambiguous_unit(gpa_rule_ctx_t *ctx);

#endif
