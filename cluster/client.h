/*
 * gpuadmit cluster: one request to the Kubernetes API server, over TLS verified against the target's CA (libcurl).
 *
 * A client is used by one thread at a time (it keeps one connection alive between calls); threads that talk
 * to the API server concurrently make a client each.
 *
 * Ownership: the client copies what it needs from the target. A reply owns its body; gpa_kube_reply_dispose()
 * frees it.
 */
#ifndef GPA_CLUSTER_CLIENT_H
#define GPA_CLUSTER_CLIENT_H
#include <stddef.h>
#include "base/buf.h"
#include "base/error.h"
#include "kubeconfig.h"

typedef struct st_gpa_kube_client_t gpa_kube_client_t;

typedef struct st_gpa_kube_reply_t {
    long status;    /* HTTP status */
    gpa_buf_t body; /* the whole body */
} gpa_kube_reply_t;

gpa_kube_client_t *gpa_kube_client_new(const gpa_kube_target_t *target, gpa_error_t *err);
void gpa_kube_client_free(gpa_kube_client_t *c);

/*
 * One call: method "GET", "POST", "PUT", "PATCH" or "DELETE"; path with its query ("/api/v1/nodes?limit=500");
 * body and content_type may be NULL. Returns 0 when the server answered (whatever the status: the caller reads
 * reply->status), -1 with err when it could not be reached or the TLS check failed. A 401 re-reads the token
 * file once and retries before it is returned.
 */
int gpa_kube_call(gpa_kube_client_t *c, const char *method, const char *path, const char *content_type,
                  const void *body, size_t len, gpa_kube_reply_t *reply, gpa_error_t *err);
void gpa_kube_reply_dispose(gpa_kube_reply_t *r);

#endif
