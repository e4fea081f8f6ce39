/*
 * Strategies by name and the schedulers' defaults (strategy.h). One row per dialect: a new dialect's scheduler
 * default is one row here.
 */
#include "alloc/strategy.h"
#include "kube/resource.h"

#include <string.h>

static const char *const names[] = {
    [GPA_STRATEGY_BINPACK] = "binpack", [GPA_STRATEGY_SPREAD] = "spread", [GPA_STRATEGY_SCHEDULER] = "scheduler"};

const char *gpa_strategy_name(gpa_strategy_t s)
{
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : names[GPA_STRATEGY_SCHEDULER];
}

int gpa_strategy_parse(const char *name, gpa_strategy_t *out)
{
    for (gpa_strategy_t s = GPA_STRATEGY_BINPACK; s <= GPA_STRATEGY_SPREAD; s++)
        if (strcmp(name, names[s]) == 0) {
            *out = s;
            return 0;
        }
    return -1;
}

/*
 * Each dialect's scheduler default, first match wins (docs/allocator.md#strategies).
 *   dialect      the GPA_DIALECT_* bit the row is for
 *   strategy     how that scheduler picks devices by default
 *   core_weight  percent weight of compute in the score (memory takes the rest)
 * The vendor row is the fallback and stays last. HAMi's nodes binpack (node-scheduler-policy) is a node-level choice
 * the per-device score does not model: `fit` picks the node whose cards score best (docs/allocator.md#hami-placement).
 */
static const struct {
    unsigned dialect;
    gpa_strategy_t strategy;
    int64_t core_weight;
} defaults[] = {
    /* koord-scheduler's deviceshare: LeastAllocated, weighing gpu-memory and gpu-memory-ratio, not gpu-core */
    {GPA_DIALECT_KOORDINATOR, GPA_STRATEGY_SPREAD, 0},
    /* Volcano's mGPU plugin: MGPUPolicy binpack, MGPUWeightOfCore 20 */
    {GPA_DIALECT_MGPU, GPA_STRATEGY_BINPACK, 20},
    /* hami-scheduler: gpu-scheduler-policy spread (its default); cards scored on compute and memory alike */
    {GPA_DIALECT_HAMI, GPA_STRATEGY_SPREAD, 50},
    /* whole devices: kubelet's device manager picks them; binpack keeps the other devices whole for the next Pod */
    {GPA_DIALECT_VENDOR, GPA_STRATEGY_BINPACK, 20},
};

gpa_alloc_policy_t gpa_alloc_policy_for(const gpa_alloc_policy_t *pol, unsigned dialects)
{
    size_t n = sizeof(defaults) / sizeof(defaults[0]), row = n - 1; /* the vendor row */
    for (size_t i = 0; i < n; i++)
        if ((dialects & defaults[i].dialect) != 0) {
            row = i;
            break;
        }
    gpa_alloc_policy_t out = *pol;
    if (out.strategy != GPA_STRATEGY_BINPACK && out.strategy != GPA_STRATEGY_SPREAD)
        out.strategy = defaults[row].strategy;
    if (out.core_weight == GPA_CORE_WEIGHT_SCHEDULER)
        out.core_weight = defaults[row].core_weight;
    out.core_weight = out.core_weight < 0 ? 0 : out.core_weight > 100 ? 100 : out.core_weight;
    return out;
}
