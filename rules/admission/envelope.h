/*
 * The AdmissionReview envelope (admission.k8s.io/v1 and v1beta1), read once, one way, for every front end: the
 * webhook's answer (review.h), the CLI reading an AdmissionReview file (validate, mutate, fit) and test suites.
 *
 * What it requires is what the webhook answers HTTP 400 without: apiVersion v1 or v1beta1, kind
 * AdmissionReview, a request object with a non-empty uid and an operation (CREATE, UPDATE, DELETE, CONNECT);
 * namespace, name and kind.kind strings when given; request.object an object for CREATE and UPDATE,
 * request.oldObject an object for UPDATE (an object, null or absent otherwise). DELETE and CONNECT are taken
 * whatever else they carry: their object and oldObject are set only when they are objects.
 *
 * Strings are compared by length, never up to a NUL: "AdmissionReview\u0000x" is not AdmissionReview. The uid
 * may hold any character and is echoed whole (uid_len); request.namespace and request.name must not hold a NUL
 * (no Kubernetes name can), so the C strings the engine compares (an excluded namespace) mean what they say.
 *
 * Ownership: every pointer in gpa_envelope_t borrows from the tree read (strings and subtrees) or is static.
 */
#ifndef GPA_ENVELOPE_H
#define GPA_ENVELOPE_H

#include "base/arena.h"
#include "base/error.h"
#include "document/json.h"
#include "document/value.h"
#include "policy/engine.h"

#define GPA_ADMISSION_V1 "admission.k8s.io/v1"
#define GPA_ADMISSION_V1BETA1 "admission.k8s.io/v1beta1"

typedef struct st_gpa_envelope_t {
    const char *api_version; /* GPA_ADMISSION_V1 or GPA_ADMISSION_V1BETA1 (static) */
    const char *uid;
    size_t uid_len;        /* the uid may hold a NUL: echo uid_len bytes */
    const char *operation; /* "CREATE", ... (static) */
    gpa_operation_t op;
    const char *ns;          /* request.namespace, "" when absent */
    const char *name;        /* request.name, "" when absent */
    const char *kind;        /* request.kind.kind, "" when absent */
    gpa_value_t *object;     /* request.object, or NULL (DELETE, CONNECT) */
    gpa_value_t *old_object; /* request.oldObject, or NULL */
    int dry_run;             /* request.dryRun is true */
} gpa_envelope_t;

/* Adds to `root` (a review's filter, json.h) the fields gpa_envelope_read reads, request.object and
 * request.oldObject aside (the caller says what of those to build). */
void gpa_envelope_filter(gpa_arena_t *a, gpa_json_filter_t *root);

/* Whether a document says it is an AdmissionReview (kind: AdmissionReview), whatever else it holds. */
int gpa_envelope_is_review(const gpa_value_t *doc);

/*
 * Reads the envelope of `root`. Returns 0 with *out filled, or -1 with err set: the offending node's line and
 * column, its path ("request.uid", "(root)") and what is wrong ("must be a non-empty string"). Fields read
 * before the failure are set in *out (api_version and uid, for logs), the others are "" or NULL.
 */
int gpa_envelope_read(const gpa_value_t *root, gpa_envelope_t *out, gpa_error_t *err);

#endif
