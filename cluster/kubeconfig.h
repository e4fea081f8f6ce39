/*
 * gpuadmit cluster: where the Kubernetes API server is and how to prove who we are, read the way every
 * Kubernetes client reads it.
 *
 * Order: an explicit --kubeconfig; else, inside a Pod (KUBERNETES_SERVICE_HOST and _PORT set), the service
 * account under /var/run/secrets/kubernetes.io/serviceaccount; else $KUBECONFIG (first file of the list); else
 * ~/.kube/config. A kubeconfig field gpuadmit cannot honour (exec or auth-provider plugins, username/password,
 * impersonation) is an error naming the field, never a silent anonymous request.
 *
 * The service-account directory is /var/run/secrets/kubernetes.io/serviceaccount unless $GPA_SERVICEACCOUNT_DIR
 * names another (for tests). $KUBECONFIG may list several files separated by ':'; gpuadmit reads the first
 * (no merging). Relative file names in a kubeconfig are relative to the kubeconfig's directory.
 *
 * Ownership: a gpa_kube_target_t owns every string in it; gpa_kube_target_dispose() frees them. An error's
 * source (the kubeconfig's file name) stays valid until the next load on the same thread.
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
    char *server; /* "https://host:port", no trailing slash */
    char *ca_pem; /* CA bundle (PEM), or NULL for the system's roots */
    size_t ca_pem_len;
    int insecure_skip_verify; /* only when the kubeconfig says so */
    char *token;              /* a fixed bearer token, or NULL */
    char *token_file;         /* a token re-read when it rotates (and once after a 401), or NULL */
    char *client_cert_pem;    /* client certificate and key (PEM), or NULL */
    char *client_key_pem;
    char *ns; /* the context's or the service account's namespace, or NULL */
} gpa_kube_target_t;

/* Resolves the target as above. Returns 0, or -1 with err (file:line and the field for a kubeconfig fault). */
int gpa_kube_target_load(const gpa_kube_options_t *opts, gpa_kube_target_t *out, gpa_error_t *err);
void gpa_kube_target_dispose(gpa_kube_target_t *t);

/*
 * Reads a file a kubeconfig names (certificate-authority, client-certificate, client-key, tokenFile's first
 * read): 0 with *data (new, caller frees, NUL-terminated) and *len, or -1 with err.
 */
typedef int (*gpa_kube_read_fn)(void *ctx, const char *path, char **data, size_t *len, gpa_error_t *err);

/*
 * The kubeconfig reader without the file system (what gpa_kube_target_load runs, and the fuzz driver):
 * text is one kubeconfig (YAML), dir the directory relative file names are taken from, context NULL for
 * current-context. Files it names are read through read(read_ctx, ...). Returns 0 with *out filled, or -1 with
 * err (line and column of the field at fault; err's source is the caller's, see gpa_error_init).
 */
int gpa_kubeconfig_parse(const char *text, size_t len, const char *dir, const char *context, gpa_kube_read_fn read, void *read_ctx,
                         gpa_kube_target_t *out, gpa_error_t *err);

#endif
