/*
 * The webhook's HTTP routes (h2o handlers).
 *
 * Webhook port (HTTPS):
 *   POST /validate, POST /mutate   AdmissionReview (Content-Type application/json) → gpa_review(); 200 with the
 *                                  answer, 400 with gpa_review's one-line reason, 415 for another Content-Type
 *   GET  /healthz                  200 while the process runs, 503 while a worker or judge is stuck (judge.h)
 *   GET  /readyz                   200 while serving, 503 once shutdown has started or while stuck
 *   anything else                  404 (unknown path) or 405 (known path, wrong method, with Allow)
 * Metrics port (plain HTTP): GET /metrics (Prometheus text), /healthz, /readyz.
 *
 * Bodies larger than the configured cap get 413 from h2o before a handler runs: from the Content-Length alone, or
 * as soon as a chunked body reaches the cap. Framing that RFC 9112 forbids (Content-Length with
 * Transfer-Encoding, Content-Lengths that differ, several Transfer-Encodings) gets 400 and the connection closes,
 * on both ports. A review that arrives while the requests buffered across the server exceed max_inflight bytes
 * gets 503 with Retry-After and the connection closes. While the server drains, every answer carries
 * "Connection: close".
 *
 * Reviews are judged by judge.h: on the worker's loop, or on a judge thread when their search needs more (503
 * with Retry-After when every judge is busy and the queue is full).
 */
#ifndef GPA_WEBHOOK_ROUTES_H
#define GPA_WEBHOOK_ROUTES_H

#include <h2o.h>

/* Registers the webhook routes on host; a review body above max_body bytes is answered 413, a review that
 * arrives while more than max_inflight bytes are buffered 503. */
void gpa_routes_webhook(h2o_hostconf_t *host, size_t max_body, size_t max_inflight);
/* Registers the metrics-port routes on host. */
void gpa_routes_metrics(h2o_hostconf_t *host);

#endif
