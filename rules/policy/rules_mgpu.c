/*
 * Volcano mGPU rules (seed 003, the Volcano mGPU design): the multiple-gpu annotation (card-count-mismatch,
 * invalid-card-count), full-card-memory, ambiguous-unit, and the mGPU half of non-positive,
 * multi-card-divisibility, per-device-over-100 and min-memory.
 *
 * What an mGPU container asks for (its cards, what each card gets, whole cards or a share) is one reading,
 * kube/gpu_request.h's gpa_mgpu_share, which normalization reads too; the rules here say why it does not split.
 */
#include "policy/rule_ctx.h"

#include <string.h>

#define MCORE GPA_R_MGPU_CORE
#define MMEM GPA_R_MGPU_MEMORY
#define ANN GPA_ANNOTATION_MULTIPLE_GPU

static const char *annotation_path(gpa_arena_t *a, const gpa_podspec_t *pod)
{
    return gpa_arena_printf(a, "%s[\"%s\"]", pod->annotations_path != NULL ? pod->annotations_path : "metadata.annotations", ANN);
}

void gpa_rule_card_count_mismatch(gpa_rule_ctx_t *ctx)
{
    const gpa_cards_t *cards = &ctx->facts->cards;
    if (cards->text == NULL || cards->count_ok)
        return;
    gpa_rule_ctx_report(ctx, NULL, annotation_path(ctx->a, ctx->pod), ANN, NULL,
                        "multiple-gpu annotation \"%s\" has %zu entr%s for %zu container%s; list one per container", cards->text,
                        cards->len, cards->len == 1 ? "y" : "ies", ctx->pod->ncontainers, ctx->pod->ncontainers == 1 ? "" : "s");
}

void gpa_rule_invalid_card_count(gpa_rule_ctx_t *ctx)
{
    const gpa_cards_t *cards = &ctx->facts->cards;
    const gpa_podspec_t *pod = ctx->pod;
    if (cards->text == NULL)
        return;
    for (size_t i = 0; i < cards->len; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : NULL;
        const char *name = c != NULL ? c->name : NULL;
        if (cards->k[i] < 0)
            gpa_rule_ctx_report(ctx, name, annotation_path(ctx->a, pod), ANN, NULL,
                                "multiple-gpu annotation entry %zu \"%s\" is not a whole number of cards; use 0, 1, 2, ...", i + 1,
                                cards->entries[i]);
        else if (cards->k[i] == 0 && c != NULL && gpa_gpu_is_mgpu(ctx->cfg->dialects, c))
            gpa_rule_ctx_report(ctx, name, annotation_path(ctx->a, pod), ANN, NULL,
                                "multiple-gpu annotation entry %zu is 0 but container %s uses mGPU; give it 1 or more cards", i + 1,
                                c->name);
    }
}

/* The start of a finding about an mGPU app container that was checked as one card only because the annotation is
 * unusable: without it the finding reads as a second mistake. First, so that a warning cut to 120 bytes keeps it;
 * "" otherwise. */
static const char *one_card_note(const gpa_rule_ctx_t *ctx)
{
    const gpa_cards_t *cards = &ctx->facts->cards;
    if (cards->text == NULL || cards->usable || ctx->c == NULL || ctx->c->is_init)
        return "";
    return "as one card (the multiple-gpu annotation is unusable): ";
}

/* The reading of ctx's mGPU container (gpa_mgpu_share); 0 when there is none (the Pod pass, not mGPU, no core). */
static int mgpu_share(const gpa_rule_ctx_t *ctx, gpa_mgpu_share_t *m)
{
    return ctx->c != NULL && gpa_mgpu_share(ctx->cfg->dialects, &ctx->facts->cards, ctx->c, m) == 0;
}

static const char *amount_path(const gpa_rule_ctx_t *ctx, gpa_resource_t r)
{
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, r);
    return am != NULL ? am->path : gpa_container_resources_path(ctx->a, ctx->c);
}

void gpa_rule_non_positive_mgpu(gpa_rule_ctx_t *ctx)
{
    if (!gpa_gpu_is_mgpu(ctx->cfg->dialects, ctx->c))
        return;
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, MCORE);
    if (am == NULL)
        gpa_rule_ctx_report(ctx, ctx->c->name, gpa_container_resources_path(ctx->a, ctx->c), gpa_resource_name(MCORE), NULL,
                            "%s missing; set a core percent (e.g. 30; 100 is a whole card)", gpa_resource_name(MCORE));
    else if (am->status == GPA_Q_OK && am->value == 0)
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MCORE), NULL,
                            "%s: 0; set a core percent (e.g. 30; 100 is a whole card)", gpa_resource_name(MCORE));
}

/* "mgpu-core: 130 does not split evenly over 3 cards; use a multiple of 3". */
static void report_uneven(gpa_rule_ctx_t *ctx, gpa_resource_t r, int64_t x, int64_t k)
{
    gpa_rule_ctx_report(ctx, ctx->c->name, amount_path(ctx, r), gpa_resource_name(r), ANN,
                        "%s: %lld does not split evenly over %lld cards; use a multiple of %lld", gpa_resource_name(r),
                        (long long)x, (long long)k, (long long)k);
}

void gpa_rule_multi_card_divisibility_mgpu(gpa_rule_ctx_t *ctx)
{
    gpa_mgpu_share_t m;
    if (!mgpu_share(ctx, &m))
        return;
    if (m.faults & GPA_MGPU_PARTIAL_CARDS)
        gpa_rule_ctx_report(ctx, ctx->c->name, amount_path(ctx, MCORE), gpa_resource_name(MCORE), NULL,
                            "%s%s: %lld is over one card but not whole cards; use below 100, or 100, 200, ...", one_card_note(ctx),
                            gpa_resource_name(MCORE), (long long)m.core);
    if (m.faults & GPA_MGPU_CORE_UNEVEN)
        report_uneven(ctx, MCORE, m.core, m.k);
    if (m.faults & GPA_MGPU_MEMORY_UNEVEN)
        report_uneven(ctx, MMEM, m.memory, m.k);
}

void gpa_rule_per_device_over_100_mgpu(gpa_rule_ctx_t *ctx)
{
    gpa_mgpu_share_t m;
    if (!mgpu_share(ctx, &m) || !(m.faults & GPA_MGPU_OVER_100))
        return;
    gpa_rule_ctx_report(ctx, ctx->c->name, amount_path(ctx, MCORE), gpa_resource_name(MCORE), ANN,
                        "%s: %lld over %lld cards is over 100 per card; use at most %lld, or %lld cards or more",
                        gpa_resource_name(MCORE), (long long)m.core, (long long)m.k, (long long)(100 * m.k),
                        (long long)gpa_ceil_div(m.core, 100));
}

void gpa_rule_full_card_memory(gpa_rule_ctx_t *ctx)
{
    gpa_mgpu_share_t m;
    if (!mgpu_share(ctx, &m) || !(m.faults & GPA_MGPU_WHOLE_WITH_MEMORY))
        return;
    gpa_rule_ctx_report(ctx, ctx->c->name, amount_path(ctx, MMEM), gpa_resource_name(MMEM), gpa_resource_name(MCORE),
                        "%s%s with whole cards (mgpu-core %lld); drop it, whole cards get all memory", one_card_note(ctx),
                        gpa_resource_name(MMEM), (long long)m.core);
}

/* The largest card memory a unit hint suggests, in MiB (80 GiB: the largest cards mGPU shares, A100/H100 80GB;
 * docs/decisions.md): a value read as GiB is suggested only when one card could hold it. */
#define PLAUSIBLE_CARD_MIB ((int64_t)80 * 1024)

/* The fix part of a min-memory message for a value written without a suffix: "; did you mean 4096 (4 GiB)?" when
 * the value read as GiB per card is at least the minimum and fits one card, else a reminder of the unit. */
static const char *mib_hint(gpa_arena_t *a, const gpa_amount_t *am, int64_t mib_per_card, int64_t min_mib)
{
    int64_t as_gib, total;
    if (am->suffix != GPA_QS_NONE)
        return "";
    if (gpa_mul_i64(mib_per_card, 1024, &as_gib) == 0 && as_gib >= min_mib && as_gib <= PLAUSIBLE_CARD_MIB &&
        gpa_mul_i64(am->value, 1024, &total) == 0)
        return gpa_arena_printf(a, "; did you mean %lld (%lld GiB)?", (long long)total, (long long)am->value);
    return "; the unit is MiB (8192 is 8 GiB)";
}

void gpa_rule_min_memory_mgpu(gpa_rule_ctx_t *ctx)
{
    gpa_mgpu_share_t m;
    if (!mgpu_share(ctx, &m) || m.card_core >= 100)
        return; /* whole cards (or over 100 per card, another rule's): the card's memory is all theirs */
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, MMEM);
    if (am != NULL && (am->status != GPA_Q_OK || am->value < 0))
        return; /* malformed-quantity or non-positive says what is wrong */
    int64_t mib = m.card_memory, bytes, min = ctx->cfg->min_device_memory;
    if (gpa_mul_i64(mib, GPA_MIB, &bytes) != 0 || bytes >= min)
        return;
    int64_t min_mib = gpa_ceil_div(min, GPA_MIB);
    if (am == NULL || am->value == 0) {
        gpa_rule_ctx_report(ctx, ctx->c->name, amount_path(ctx, MMEM), gpa_resource_name(MMEM), NULL,
                            "%s%s missing on a shared card (mgpu-core %lld); set at least %lld (MiB) per card", one_card_note(ctx),
                            gpa_resource_name(MMEM), (long long)m.core, (long long)min_mib);
        return;
    }
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MMEM), NULL, "%s%s: %lldMiB per card is below %lldMiB%s",
                        one_card_note(ctx), gpa_resource_name(MMEM), (long long)mib, (long long)min_mib,
                        mib_hint(ctx->a, am, mib, min_mib));
}

void gpa_rule_ambiguous_unit(gpa_rule_ctx_t *ctx)
{
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, MMEM);
    if (!gpa_mgpu_memory_ambiguous(am))
        return;
    if (am->value % GPA_MIB == 0)
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MMEM), NULL,
                            "%s: \"%s\" means %lld MiB (the unit is MiB); write %lld", gpa_resource_name(MMEM), am->text,
                            (long long)am->value, (long long)(am->value / GPA_MIB));
    else
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MMEM), NULL,
                            "%s: \"%s\" means %lld MiB (the unit is MiB); write the MiB as a plain number", gpa_resource_name(MMEM),
                            am->text, (long long)am->value);
}
