/*
 * The check function of every rule (the table in rules.c names them): gpa_rule_<id>, the id's dashes as
 * underscores. A rule that spans dialects has one function per half (_koord, _mgpu, _hami; non_positive's common half
 * covers vendor and Koordinator), joined in rules.c. Each appends its findings through ctx (rule_ctx.h).
 * Private to policy.
 */
#ifndef GPA_RULE_CHECKS_H
#define GPA_RULE_CHECKS_H

typedef struct st_gpa_rule_ctx_t gpa_rule_ctx_t;

/* rules_common.c */
void gpa_rule_malformed_quantity(gpa_rule_ctx_t *ctx);
void gpa_rule_request_limit_mismatch(gpa_rule_ctx_t *ctx);
void gpa_rule_vendor_vs_share(gpa_rule_ctx_t *ctx);
void gpa_rule_mixed_share_apis(gpa_rule_ctx_t *ctx);
void gpa_rule_non_positive_common(gpa_rule_ctx_t *ctx);
void gpa_rule_unknown_resource(gpa_rule_ctx_t *ctx);
void gpa_rule_unit_hint(gpa_rule_ctx_t *ctx);
void gpa_rule_node_name_set(gpa_rule_ctx_t *ctx);
void gpa_rule_resource_in_annotation(gpa_rule_ctx_t *ctx);

/* rules_infeasible.c: the device dialects' Pod check (DRA claims of its templates included), the DRA on_dra check */
void gpa_rule_infeasible(gpa_rule_ctx_t *ctx);
void gpa_rule_infeasible_dra(gpa_rule_ctx_t *ctx);

/* rules_koord.c */
void gpa_rule_memory_ratio_exclusive(gpa_rule_ctx_t *ctx);
void gpa_rule_core_without_memory(gpa_rule_ctx_t *ctx);
void gpa_rule_shared_without_memory(gpa_rule_ctx_t *ctx);
void gpa_rule_shared_required(gpa_rule_ctx_t *ctx);
void gpa_rule_deprecated_gpu_mixed(gpa_rule_ctx_t *ctx);
void gpa_rule_multi_card_divisibility_koord(gpa_rule_ctx_t *ctx);
void gpa_rule_per_device_over_100_koord(gpa_rule_ctx_t *ctx);
void gpa_rule_min_memory_koord(gpa_rule_ctx_t *ctx);

/* rules_mgpu.c */
void gpa_rule_non_positive_mgpu(gpa_rule_ctx_t *ctx);
void gpa_rule_multi_card_divisibility_mgpu(gpa_rule_ctx_t *ctx);
void gpa_rule_per_device_over_100_mgpu(gpa_rule_ctx_t *ctx);
void gpa_rule_min_memory_mgpu(gpa_rule_ctx_t *ctx);
void gpa_rule_full_card_memory(gpa_rule_ctx_t *ctx);
void gpa_rule_card_count_mismatch(gpa_rule_ctx_t *ctx);
void gpa_rule_invalid_card_count(gpa_rule_ctx_t *ctx);
void gpa_rule_ambiguous_unit(gpa_rule_ctx_t *ctx);

/* rules_hami.c */
void gpa_rule_memory_ratio_exclusive_hami(gpa_rule_ctx_t *ctx);
void gpa_rule_non_positive_hami(gpa_rule_ctx_t *ctx);
void gpa_rule_per_device_over_100_hami(gpa_rule_ctx_t *ctx);
void gpa_rule_min_memory_hami(gpa_rule_ctx_t *ctx);
void gpa_rule_ambiguous_unit_hami(gpa_rule_ctx_t *ctx);
void gpa_rule_privileged_share(gpa_rule_ctx_t *ctx);
void gpa_rule_invalid_annotation(gpa_rule_ctx_t *ctx);

/* rules_ray.c */
void gpa_rule_ray_num_gpus(gpa_rule_ctx_t *ctx);

/* rules_dra.c: Pod checks, and on_dra checks (rules.h) on claims, templates and classes */
void gpa_rule_dra_unknown_class(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_unknown_class_container(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_api_version(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_claim_source(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_unknown_claim(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_unknown_request(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_shared_claim(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_opaque_config(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_template_sharing(gpa_rule_ctx_t *ctx);
/* rules_dra_cel.c: on_dra */
void gpa_rule_dra_cel(gpa_rule_ctx_t *ctx);
/* rules_dra_capacity.c: on_dra */
void gpa_rule_dra_capacity_unshared(gpa_rule_ctx_t *ctx);
void gpa_rule_dra_capacity_rounding(gpa_rule_ctx_t *ctx);
void gpa_rule_non_positive_dra(gpa_rule_ctx_t *ctx);
void gpa_rule_non_positive_dra_container(gpa_rule_ctx_t *ctx);
void gpa_rule_node_name_set_dra(gpa_rule_ctx_t *ctx);

#endif
