/*
 * Placement strategies by name, and each dialect's scheduler default (docs/allocator.md#strategies): a
 * configuration that names no strategy or coreWeight places each request as its own scheduler would score it.
 *
 * Ownership: names are static storage; policies are returned by value.
 */
#ifndef GPA_STRATEGY_H
#define GPA_STRATEGY_H

#include "alloc/placement.h"

/* "binpack" or "spread" (static storage); "scheduler" for GPA_STRATEGY_SCHEDULER. */
const char *gpa_strategy_name(gpa_strategy_t s);
/* The strategy named `name` (binpack, spread): 0 with *out set, -1 for any other name. */
int gpa_strategy_parse(const char *name, gpa_strategy_t *out);

/*
 * The policy a request of `dialects` (GPA_DIALECT_* bits of its device groups) is placed with: pol's strategy and
 * coreWeight where pol sets them, each unset one (GPA_STRATEGY_SCHEDULER, GPA_CORE_WEIGHT_SCHEDULER) from the
 * default of that dialect's scheduler — Koordinator spread on memory alone (coreWeight 0), mGPU binpack with
 * coreWeight 20, vendor binpack with coreWeight 20. A request of no known dialect (or none) takes the vendor
 * row; of several (normalize never makes one), the first in the table's order. The result always has a
 * strategy (binpack or spread) and a coreWeight in 0..100; maxPodsPerDevice is pol's.
 */
gpa_alloc_policy_t gpa_alloc_policy_for(const gpa_alloc_policy_t *pol, unsigned dialects);

#endif
