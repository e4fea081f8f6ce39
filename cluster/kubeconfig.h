/*
 * gpuadmit cluster: where the Kubernetes API server is and how to prove who we are, read the way every
 * Kubernetes client reads it.
 *
 * Order: an explicit --kubeconfig; else, inside a Pod (KUBERNETES_SERVICE_HOST and _PORT set), the service
 * account under /var/run/secrets/kubernetes.io/serviceaccount; else $KUBECONFIG (first file of the list); else
 * ~/.kube/config. A kubeconfig field gpuadmit cannot honour (exec or auth-provider plugins, username/password,
 * impersonation) is an error naming the field, never a silent anonymous request.
 *
 * Ownership: a gpa_kube_target_t owns every string in it; gpa_kube_target_dispose() frees them.
 */
#ifndef GPA_CLUSTER_KUBECONFIG_H
#define GPA_CLUSTER_KUBECONFIG_H
#include <stddef.h>
#include "base/error.h"

typedef struct st_gpa_kube_options_t {
    const char *kubeconfig; /* --kubeconfig, or NULL */
    const char *context;    /* --context, or NULL for current-context */
} gpa_kube_options_t;

typedef struct st_gpa_kube_target_t {
    char *server;             /* "https://host:port", no trailing slash */
    char *ca_pem;             /* CA bundle (PEM), or NULL for the system's roots */
    size_t ca_pem_len;
    int insecure_skip_verify; /* only when the kubeconfig says so */
    char *token;              /* a fixed bearer token, or NULL */
    char *token_file;         /* a token re-read when it rotates (and once after a 401), or NULL */
    char *client_cert_pem;    /* client certificate and key (PEM), or NULL */
    char *client_key_pem;
    char *ns;                 /* the context's or the service account's namespace, or NULL */
} gpa_kube_target_t;

/* Resolves the target as above. Returns 0, or -1 with err (file:line and the field for a kubeconfig fault). */
int gpa_kube_target_load(const gpa_kube_options_t *opts, gpa_kube_target_t *out, gpa_error_t *err);
void gpa_kube_target_dispose(gpa_kube_target_t *t);

#endif
