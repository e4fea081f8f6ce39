/*
 * `gpuadmit fit` for DRA claims (docs/allocator.md#dra): a ResourceClaim, a ResourceClaimTemplate, or the claims a Pod
 * spec's templates make, placed on the inventory's ResourceSlices: on which node, and which device each request takes
 * (with what it consumes of a shared one); or why no node ever could (with --now, why none has room now).
 */
#ifndef GPA_CLI_FIT_DRA_H
#define GPA_CLI_FIT_DRA_H

#include <stddef.h>

#include "kube/model.h"
#include "verb.h"

typedef struct st_gpa_fit_dra_t {
    gpa_verb_t *vb; /* borrowed: its inventory, known objects, scratch arena and output */
    int now;
    size_t claims, misfits; /* placed so far, and of those, the ones no node takes */
} gpa_fit_dra_t;

/* A ResourceClaim or ResourceClaimTemplate (any other object: nothing). */
void gpa_fit_dra_object(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj);
/* The claims the templates of `pod` (of obj) make; a named claim is the cluster's (it may be allocated): not placed.
 * Two or more are placed together, as the scheduler allocates them on the Pod's node (each with its share of the
 * devices); when they never fit together, that is said first, then each is placed alone. */
void gpa_fit_dra_pod(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj, const gpa_podspec_t *pod);

#endif
