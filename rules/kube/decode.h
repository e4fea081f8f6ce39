/*
 * Decoding: from document trees (value.h) to the typed model (model.h).
 *
 * Which objects a document holds: the document itself; every item of a `List` (recursively); for an
 * AdmissionReview, use gpa_review_* (review.h) instead, which reads request.object/oldObject.
 * Which Pod specs an object holds (docs/rules.md#objects): Pod `spec`; Deployment, ReplicaSet, StatefulSet, DaemonSet, Job
 * `spec.template`; CronJob `spec.jobTemplate.spec.template`; Volcano Job (batch.volcano.sh) `spec.tasks[*].template`;
 * KubeRay RayCluster `spec.headGroupSpec.template` and `spec.workerGroupSpecs[*].template`, RayJob the same under
 * `spec.rayClusterSpec`. Any other kind decodes with no Pod specs (admitted untouched).
 *
 * Errors: a document whose shape Kubernetes would refuse on a path gpuadmit reads (containers that is not an
 * array, a resources map that is not an object, ...) fails with err at that node. A GPU value of the wrong
 * type is not a decode error: it decodes as an amount with status GPA_Q_SYNTAX and malformed-quantity reports it.
 * A GPU value is parsed as Kubernetes' Quantity.UnmarshalJSON does, white space around it trimmed (" 2" is 2).
 * All model memory comes from `a`, which must be the arena that owns the tree.
 */
#ifndef GPA_DECODE_H
#define GPA_DECODE_H

#include "kube/model.h"

typedef struct st_gpa_objects_t {
    gpa_object_t **items;
    size_t len, cap;
} gpa_objects_t;

/* Decodes one object (not a List). Returns 0 and sets *out, or -1 with err filled. */
int gpa_decode_object(gpa_arena_t *a, gpa_value_t *doc, gpa_object_t **out, gpa_error_t *err);
/* Appends the objects of one document (List items flattened, in order) to out. */
int gpa_decode_document(gpa_arena_t *a, gpa_value_t *doc, gpa_objects_t *out, gpa_error_t *err);
/* The same for item `index` of a List read one item at a time: as gpa_decode_document decodes that List's
 * items, errors' paths prefixed "items[index]". */
int gpa_decode_item(gpa_arena_t *a, gpa_value_t *item, size_t index, gpa_objects_t *out, gpa_error_t *err);

#endif
