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

#include "arena.h"
#include "config.h"
#include "engine.h"
#include "model.h"
#include "rules.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

#define GPA_MIB ((int64_t)1 << 20)
#define GPA_GIB ((int64_t)1 << 30)

/*
 * The mGPU annotation vke.volcengine.com/container-multiple-gpu, parsed once per Pod spec. Entries follow the
 * app containers in order; init containers are always one-card requests.
 */
typedef struct st_gpa_cards_t {
    const char *text;     /* the annotation's value; NULL when absent or the mgpu dialect is disabled */
    size_t len;           /* entries ("2, 1,3" has 3) */
    const char **entries; /* each entry as written, spaces trimmed (arena-owned) */
    int64_t *k;           /* each entry's value, -1 when it is not a whole number >= 0 */
    int count_ok;         /* len equals the number of app containers */
    int entries_ok;       /* every entry is a whole number, and none is 0 for a container that requests mGPU */
    int usable;           /* present, count_ok and entries_ok: only then do entries count */
} gpa_cards_t;

/* Parses the annotation of `pod` (arena-owned results). Never fails: what is wrong shows in the flags. */
void gpa_cards_parse(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, gpa_cards_t *out);
/* Cards the annotation gives container c: k > 0 when the annotation is usable and c is an app container with a
 * positive entry, else 0 (a one-card request). */
int64_t gpa_cards_for(const gpa_cards_t *cards, const gpa_container_t *c);

/* Facts about one Pod spec that several rules read, computed once per spec. */
typedef struct st_gpa_pod_facts_t {
    gpa_cards_t cards;
    /* Kubernetes PodRequests totals of declared, parsed, positive values: per resource, the larger of the sum
     * over app containers and the largest init container; -1 when a sum overflows. */
    int64_t total[GPA_R__COUNT];
    size_t koord_containers; /* containers (app and init) declaring any Koordinator resource */
    /* Enabled dialects whose resources appear (even as 0 or malformed) in the Pod, the annotation counting as
     * mGPU; per container likewise. A rule skips Pods and containers none of its dialects appear in. */
    unsigned dialects;
    unsigned *app_dialects, *init_dialects;
} gpa_pod_facts_t;

void gpa_pod_facts_init(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_podspec_t *pod, gpa_pod_facts_t *out);
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

/* ---- reading amounts ---- */

/* The amount (request, else limit) of r in c, or NULL when absent or r's dialect is disabled. */
static inline const gpa_amount_t *gpa_rc_amount(const gpa_config_t *cfg, const gpa_container_t *c, gpa_resource_t r)
{
    if ((cfg->dialects & (unsigned)gpa_resource_dialect(r)) == 0)
        return NULL;
    return gpa_container_amount(c, r);
}

/* Declared: present, and not an exact 0. */
static inline int gpa_rc_declared(const gpa_config_t *cfg, const gpa_container_t *c, gpa_resource_t r)
{
    const gpa_amount_t *am = gpa_rc_amount(cfg, c, r);
    return am != NULL && !(am->status == GPA_Q_OK && am->value == 0);
}

/* The value of a declared amount that parsed and is positive (1, *v set), else 0 (*v = 0). */
static inline int gpa_rc_value(const gpa_config_t *cfg, const gpa_container_t *c, gpa_resource_t r, int64_t *v)
{
    const gpa_amount_t *am = gpa_rc_amount(cfg, c, r);
    *v = 0;
    if (am == NULL || am->status != GPA_Q_OK || am->value <= 0)
        return 0;
    *v = am->value;
    return 1;
}

/* Any resource of dialect d declared in c. */
int gpa_rc_any(const gpa_config_t *cfg, const gpa_container_t *c, gpa_dialect_t d);
/* mGPU container: mgpu-core or mgpu-memory appears in its requests or limits (even as 0), dialect enabled. */
int gpa_rc_is_mgpu(const gpa_config_t *cfg, const gpa_container_t *c);

/* ---- Koordinator arithmetic, shared by the rules and gpa_normalize ---- */

/* Compute percent (gpu-core, else the deprecated gpu) and memory ratio (gpu-memory-ratio, else gpu). */
int64_t gpa_koord_core(const gpa_config_t *cfg, const gpa_container_t *c);
int64_t gpa_koord_ratio(const gpa_config_t *cfg, const gpa_container_t *c);
/*
 * Devices a Koordinator request spreads over: gpu.shared when declared (0 when declared but unusable: negative
 * or malformed), else the derivation inject-gpu-shared writes: ratio/100 when ratio is a multiple of 100
 * (>= 100); else, with no ratio, core/100 when core is a multiple of 100 (>= 100); else 1.
 */
int64_t gpa_koord_devices(const gpa_config_t *cfg, const gpa_container_t *c);
/* Per-device share above 100 percent: x / n > 100, exactly. */
static inline int gpa_over_100(int64_t x, int64_t n)
{
    return x / n > 100 || (x / n == 100 && x % n != 0);
}

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
