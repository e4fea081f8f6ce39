/*
 * gpuadmit cluster: one request to the Kubernetes API server, over TLS verified against the target's CA (libcurl).
 *
 * A client is used by one thread at a time (it keeps one connection alive between calls); threads that talk
 * to the API server concurrently make a client each.
 *
 * Every request carries the target's bearer token (a token file is re-read whenever it changed, and once more
 * after a 401) or its client certificate; TLS is verified against the target's CA unless the kubeconfig said
 * insecure-skip-tls-verify. Timeouts: 10 s to connect, 60 s for a whole call (gpa_kube_client_set_timeout). The
 * connect timeout (TLS handshake included) is $GPA_KUBE_CONNECT_TIMEOUT_MS milliseconds when that is set to a
 * positive number, for tests: under Valgrind on a loaded machine a handshake takes longer than 10 s.
 * docs/cluster.md ("The client") says why libcurl and how each path behaves.
 *
 * The first client ignores SIGPIPE for the process (unless a handler is set): a connection the server closed
 * must not kill a program that talks to it.
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
    long status;        /* HTTP status */
    long retry_after_s; /* the server's Retry-After (with 429 or 503), in seconds; 0 when it sent none */
    gpa_buf_t body;     /* the whole body */
} gpa_kube_reply_t;

gpa_kube_client_t *gpa_kube_client_new(const gpa_kube_target_t *target, gpa_error_t *err);
void gpa_kube_client_free(gpa_kube_client_t *c);

/*
 * One call: method "GET", "POST", "PUT", "PATCH" or "DELETE"; path with its query ("/api/v1/nodes?limit=500");
 * body and content_type may be NULL. Returns 0 when the server answered (whatever the status: the caller reads
 * reply->status), -1 with err when it could not be reached or the TLS check failed. A 401 re-reads the token
 * file once and retries before it is returned.
 */
int gpa_kube_call(gpa_kube_client_t *c, const char *method, const char *path, const char *content_type, const void *body,
                  size_t len, gpa_kube_reply_t *reply, gpa_error_t *err);
void gpa_kube_reply_dispose(gpa_kube_reply_t *r);

/* The limit for one whole gpa_kube_call, in milliseconds (default 60000; 0: none). */
void gpa_kube_client_set_timeout(gpa_kube_client_t *c, long ms);

/*
 * A streamed GET (a watch, or a list page too large to hold twice). The body of a 2xx answer goes to on_data as
 * it arrives (in pieces of any size); any other status's body is kept in reply->body instead, and the 401 rule
 * of gpa_kube_call applies. stop (may be NULL) is asked between pieces, about once a second while the
 * server is silent, and at once after gpa_kube_client_wakeup: when it returns nonzero the transfer ends.
 * timeout_ms bounds the whole transfer (0: none).
 */
typedef struct st_gpa_kube_stream_t {
    int (*on_data)(void *ctx, const char *data, size_t len); /* 0 to go on, -1 to end the transfer */
    int (*stop)(void *ctx);
    void *ctx;
    long timeout_ms;
} gpa_kube_stream_t;

/*
 * Returns 0 when the answer ended as HTTP says it should (reply->status set), -1 with err when the server could
 * not be reached, the stream was cut (a chunked body without its end), timed out, or on_data/stop ended it.
 */
int gpa_kube_stream(gpa_kube_client_t *c, const char *path, const gpa_kube_stream_t *s, gpa_kube_reply_t *reply, gpa_error_t *err);

/*
 * Safe from any thread while another uses the client: a gpa_kube_stream waiting for data asks its stop
 * function at once (rather than within the second it otherwise takes). For stopping a reflector promptly.
 */
void gpa_kube_client_wakeup(gpa_kube_client_t *c);

#endif
