/*
 * A published device as DRA selectors read it (the CEL variable `device`, Kubernetes' cel/compile.go): `driver`,
 * `attributes[domain].id` (int, bool, string, or a semver for a `version` attribute; a list attribute is unknown),
 * `capacity[domain].id` (a quantity) and `allowMultipleAllocations`. As in Kubernetes, an unknown domain is an empty
 * map, so reading an attribute a device does not publish is a run-time error ("no such key: index"), and `has()` of
 * it is false. The binding lives on the stack of one evaluation: a device costs no memory unless its selector builds values.
 *
 * Selectors are evaluated as the scheduler evaluates them: in order, the first that does not match ends it; an error
 * there stops the scheduler for the Pod. Ownership: everything lives in the arena passed in; the device is borrowed.
 */
#ifndef GPA_DRA_DEVICE_H
#define GPA_DRA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "cel/cel.h"
#include "kube/dra_slice.h"

/*
 * Selector texts (`selectors[].cel.expression`, NULL for one without) parsed in a, in order: the array, or NULL when
 * one is missing or does not parse; each that does not parse is handed to bad(ctx, i, err) when bad is not NULL (err
 * at paths[i], paths NULL for ""). The one reading of a selector list, for the rules and the allocator alike.
 */
const gpa_cel_node_t **gpa_dra_selectors_parse(gpa_arena_t *a, const char *const *texts, const char *const *paths, size_t n,
                                               void (*bad)(void *ctx, size_t i, const gpa_error_t *err), void *ctx);

/*
 * selectors[0..n) on d, in order: MATCH when all match; NO_MATCH at the first false; MAYBE at the first unknown (what
 * follows may or may not run); FAILS at the first run-time error, with *which its index and *why its message. *cost is
 * the CEL budget left (cel.h), shared by the calls that pass it.
 */
gpa_cel_outcome_t gpa_dra_select(gpa_arena_t *a, const gpa_cel_node_t *const *selectors, size_t n, const char *driver,
                                 const gpa_dra_device_t *d, uint64_t *cost, size_t *which, const char **why);

#endif
