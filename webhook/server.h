/*
 * gpuadmit serve: the TLS admission webhook (README.md#the-cli). N worker threads, each with its own h2o event loop and
 * its own SO_REUSEPORT listener on --listen; one more thread serves the plain-HTTP metrics port; the calling
 * thread waits for signals and polls the watched files (reload.h).
 *
 * Lifecycle: start-up loads certificate, configuration and inventory (any failure: exit 2 before listening).
 * SIGTERM or SIGINT: /readyz fails at once, listeners close, in-flight requests finish (answers carry
 * "Connection: close"), idle keep-alive connections are closed, and gpa_server_run returns 0 once nothing is in
 * flight and no client connection is left, or when the shutdown grace period ends, whichever is first.
 *
 * HTTP/2 is never spoken: opts.http2 is refused (exit 2; h2o 2.2.5 buffers HTTP/2 request bodies where the byte
 * budget cannot count them), and h2o's own upgrade paths (a prior-knowledge preface, "Upgrade: h2c") are off on
 * both ports.
 *
 * Judge threads (judge.h) take the reviews whose search needs more than a slice of a worker's loop; /healthz fails
 * while a worker's loop or a judge is stuck.
 */
#ifndef GPA_WEBHOOK_SERVER_H
#define GPA_WEBHOOK_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "reload.h"

typedef struct st_gpa_server_opts_t {
    const char *listen;                /* "[host]:port"; ":9443" by default; port 0 picks a free port */
    const char *metrics_listen;        /* plain HTTP; ":8080" by default; NULL or "" disables it */
    const char *cert, *key;            /* PEM files (required) */
    const char *client_ca;             /* PEM bundle: require client certificates signed by it (NULL: none) */
    const gpa_reload_loader_t *loader; /* reads the configuration and inventory (required; reload.h) */
    const char *config;                /* NULL: the defaults */
    const char *const *inventory;      /* inventory files or directories (may be none) */
    size_t ninventory;
    unsigned threads;              /* worker threads; 0 = number of online CPUs */
    int tls13_only;                /* --tls-min-version 1.3 */
    int http2;                     /* asked for HTTP/2: refused (gpa_server_run returns 2) */
    size_t max_body;               /* request body cap in bytes (413 above) */
    uint64_t request_timeout_ms;   /* a request's headers and body must arrive within this; also the idle
                                      keep-alive timeout and the stall deadline of answers (conn.h) */
    uint64_t handshake_timeout_ms; /* TLS handshake deadline */
    uint64_t shutdown_grace_ms;    /* longest drain after SIGTERM */
    uint64_t reload_interval_ms;   /* how often watched files are checked */
    /* Limits under attack (docs/webhook.md#limits): above either, new connections are closed at once. */
    unsigned max_connections;  /* open webhook connections, TLS handshakes in progress included */
    size_t max_inflight_bytes; /* bytes buffered for requests across every connection */
    /* CPU under attack (docs/webhook.md#cpu): reviews whose search needs more than a slice of the event loop are
     * judged on judge threads, each within the search budget and this deadline. */
    unsigned judge_threads;      /* 0 = as many as worker threads */
    uint64_t search_deadline_ms; /* a review's search deadline on a judge */
} gpa_server_opts_t;

/* The defaults documented in docs/webhook.md (listen ":9443", metrics ":8080", 4 MiB, ...). */
void gpa_server_opts_init(gpa_server_opts_t *opts);
/*
 * Runs the server until SIGTERM/SIGINT. Returns 0 after a clean drain, 2 when it could not start (the reason
 * is logged: unreadable certificate, configuration or inventory, address in use, --http2, ...).
 */
int gpa_server_run(const gpa_server_opts_t *opts);

#endif
