/*
 * AdmissionReview in, AdmissionReview out: exactly what the webhook answers and `gpuadmit review` prints.
 *
 * Reads admission.k8s.io/v1 and v1beta1 reviews and answers in the version asked (uid echoed). The validating
 * answer never carries a patch; the mutating one carries patch and patchType together or neither, and never
 * denies for validation reasons. Denials carry status.code 403 and a message listing the violations; an object
 * (or oldObject) with a bad shape on a path gpuadmit needs is denied by both webhooks with status.code 400 and
 * "cannot read request.object.PATH: reason" (HTTP 200: the review itself is fine);
 * warnings are one line each, under 120 bytes. status.message and the warnings list show at most
 * GPA_REVIEW_MAX_FINDINGS findings each, then "and N more" (the CLI's own reports list every finding). DELETE and
 * CONNECT are admitted. Objects are checked with the request's operation (UPDATE against oldObject).
 */
#ifndef GPA_REVIEW_H
#define GPA_REVIEW_H

#include <stddef.h>

#include "base/arena.h"
#include "document/json.h"
#include "policy/config.h"
#include "policy/engine.h"

/* Findings an answer spells out, in status.message and in the warnings list each. */
#define GPA_REVIEW_MAX_FINDINGS 20

typedef enum en_gpa_webhook_t {
    GPA_WEBHOOK_VALIDATE,
    GPA_WEBHOOK_MUTATE,
} gpa_webhook_t;

typedef struct st_gpa_review_t {
    int http_status; /* 200 with an AdmissionReview body; 400 when the body is not an AdmissionReview (envelope.h) */
    char *body;      /* arena-owned, NUL-terminated: the response JSON, or for 400 a one-line reason */
    size_t len;
    /* Facts for logs and metrics (arena-owned or static; "" when unknown). */
    const char *api_version, *uid, *operation, *kind, *ns, *name;
    size_t uid_len; /* the uid may hold a NUL */
    int allowed;
    gpa_verdict_t verdict; /* what the engine found (empty for DELETE/CONNECT and 400) */
} gpa_review_t;

/* Never fails otherwise than through out->http_status; `inv` may be NULL. out->verdict holds every finding (a
 * test suite compares them). */
void gpa_review(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_webhook_t hook, const char *body,
                size_t len, gpa_review_t *out);
/* What of a review gpa_review builds under `cfg` (its workloads add paths): built into `a` (read-only once built;
 * it may serve any number of reviews under the same configuration, from any thread). */
gpa_json_filter_t *gpa_review_filter(gpa_arena_t *a, const gpa_config_t *cfg);
/*
 * gpa_review as the webhook runs it, with the same answer:
 * - out->verdict holds GPA_REVIEW_MAX_FINDINGS findings of each action, what the answer spells out, and counts the
 *   rest (gpa_violations_t.omitted): a review never builds findings it will not print;
 * - with the request's search budget (alloc/placement.h; borrowed, NULL = the default steps and no deadline);
 * - building from the body only what `filter` keeps (gpa_review_filter for the same configuration; NULL:
 *   everything). The answer is the same either way; only out->verdict.mutated holds just the parts kept. The rest
 *   of the body is read for JSON faults and skipped, so judging costs what the object's Pods and containers hold,
 *   not what its env, volumes or managedFields hold (docs/webhook.md#limits).
 */
void gpa_review_with(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget,
                     const gpa_json_filter_t *filter, gpa_webhook_t hook, const char *body, size_t len, gpa_review_t *out);

#endif
