/*
 * gpuadmit cluster: the server registers its own webhook configurations (`gpuadmit serve --register-webhooks`, the
 * chart's default; docs/deploy.md#how-the-webhooks-are-registered, docs/decisions.md says why).
 *
 * The chart renders the Validating/MutatingWebhookConfiguration into a ConfigMap instead of creating them; the
 * server, once it is ready, creates or updates them from those files. So no configuration exists before a ready
 * server can answer it: not at install, not while a bad configuration keeps every replica from starting.
 *
 * One sync (gpa_register_once):
 *   1. the gate: the Service kube-apiserver calls must have a ready endpoint (its EndpointSlices), so a
 *      configuration never points at a Service with nobody behind it; until then nothing is written;
 *   2. the owner: the ClusterRole named opts->owner is read for its uid; every configuration is written with an
 *      ownerReference to it, so deleting the release (which deletes the ClusterRole) garbage-collects them. A
 *      missing owner is an error and nothing is written (a configuration without one would outlive the release);
 *   3. each file of opts->dir (`*.json`, `*.yaml`, `*.yml`, in name order; one configuration each): created
 *      when missing (POST), replaced when it differs from the file (PUT with the resourceVersion read; a 409
 *      reads it again). "Differs" is told by an annotation holding the SHA-256 of the file and the owner's uid,
 *      so an unchanged configuration is never rewritten.
 * caBundle: a webhook whose file gives one gets it; otherwise the one the live object holds is kept (written by
 * certsync or cert-manager's injector); otherwise the PEM of opts->ca_file (when set and readable), base64.
 *
 * Errors are values: -1 with err (the file or API call, its status and the server's message); nothing is printed.
 * Ownership: opts and its strings are borrowed.
 */
#ifndef GPA_CLUSTER_REGISTER_H
#define GPA_CLUSTER_REGISTER_H
#include "base/error.h"
#include "client.h"

typedef struct st_gpa_register_opts_t {
    const char *dir;     /* the rendered configurations, one per file */
    const char *owner;   /* the ClusterRole that owns them (deleted with the release) */
    const char *ns;      /* the Service's namespace */
    const char *service; /* the Service the configurations point at: its ready endpoints gate registration */
    const char *ca_file; /* PEM: the caBundle where neither the file nor the live object has one (NULL: none) */
} gpa_register_opts_t;

/* What one sync did, for the log and the tests. */
typedef struct st_gpa_register_result_t {
    int waiting;   /* the Service had no ready endpoint: nothing was written */
    int created;   /* configurations created */
    int updated;   /* configurations replaced */
    int unchanged; /* configurations already as their file says */
} gpa_register_result_t;

/* Annotation carrying what a configuration was last written from. */
#define GPA_REGISTER_DIGEST_ANNOTATION "gpuadmit.io/registered-from"

/* One sync, as described above. Returns 0, or -1 with err; *res says what was done (also after a failure). */
int gpa_register_once(gpa_kube_client_t *c, const gpa_register_opts_t *opts, gpa_register_result_t *res, gpa_error_t *err);

#endif
