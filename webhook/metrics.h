/*
 * Webhook metrics in Prometheus text format (exposition format 0.0.4). Counters are process-wide relaxed
 * atomics: every worker thread updates them without locks, a scrape reads a consistent-enough snapshot.
 *
 * Series:
 *   gpuadmit_requests_total{webhook,verdict}           verdict: allowed | denied | invalid (HTTP 400)
 *   gpuadmit_rule_findings_total{webhook,rule,action}  one per finding (action deny | warn)
 *   gpuadmit_http_rejections_total{code}               400 (framing), 404, 405, 415, 503 answered before the engine ran
 *   gpuadmit_request_duration_seconds{webhook}         histogram of the time spent answering a review
 *   gpuadmit_requests_in_flight, gpuadmit_connections  gauges
 *   gpuadmit_certificate_expiry_seconds                seconds until the serving certificate's notAfter
 *   gpuadmit_reloads_total{what,result}                what: certificate | config | inventory; result: success | failure
 *   gpuadmit_tls_handshake_failures_total              handshakes ended with a fatal alert from us
 *   gpuadmit_ready                                     1 while serving, 0 once shutdown started
 *   gpuadmit_connections_refused_total{limit}          closed at accept: max-connections | max-inflight-bytes
 *   gpuadmit_connections_shed_total                    closed mid-request to get back under max-inflight-bytes
 *   gpuadmit_inflight_bytes                            bytes of requests buffered now (the budget's measure)
 *   gpuadmit_accept_pauses_total{reason}               accepting paused for lack of descriptors: EMFILE | ENFILE
 *                                                      | ENOBUFS | ENOMEM
 *   gpuadmit_search_unproven_total{webhook}            reviews whose search budget ran out ("could not prove")
 *   gpuadmit_judge_handoffs_total                      reviews moved off the event loop to a judge (judge.h)
 *   gpuadmit_judge_queue_full_total                    reviews answered 503: every judge busy, the queue full
 *   gpuadmit_judge_queued                              reviews waiting for a judge now
 * and whatever a second source renders (gpa_metrics_set_source: serve --cluster-inventory, docs/cluster.md).
 */
#ifndef GPA_WEBHOOK_METRICS_H
#define GPA_WEBHOOK_METRICS_H

#include <stdint.h>
#include <time.h>

#include "base/buf.h"
#include "policy/engine.h"
#include "admission/review.h"

typedef enum en_gpa_metric_verdict_t {
    GPA_METRIC_ALLOWED,
    GPA_METRIC_DENIED,
    GPA_METRIC_INVALID,
} gpa_metric_verdict_t;

typedef enum en_gpa_reload_kind_t {
    GPA_RELOAD_CERTIFICATE,
    GPA_RELOAD_CONFIG,
    GPA_RELOAD_INVENTORY,
    GPA_RELOAD_NKINDS,
} gpa_reload_kind_t;

/* The limits that refuse work (docs/webhook.md#limits). */
typedef enum en_gpa_limit_t {
    GPA_LIMIT_CONNECTIONS,
    GPA_LIMIT_INFLIGHT_BYTES,
    GPA_NLIMITS,
} gpa_limit_t;

/* One answered review: verdict, findings per rule, and how long it took (microseconds). */
void gpa_metrics_review(gpa_webhook_t hook, const gpa_review_t *r, uint64_t micros);
/* A request refused before the engine ran (404, 405, 415). */
void gpa_metrics_http_rejection(int status);
/* A TLS handshake we ended with a fatal alert (bad client certificate, no shared cipher, ...). */
void gpa_metrics_tls_failure(void);
void gpa_metrics_inflight_add(int delta);
/* Counts one more webhook connection unless `max` are already open: 0 when counted, -1 when at the cap. */
int gpa_metrics_connections_try_add(int64_t max);
/* A connection refused at accept because of `limit`. */
void gpa_metrics_refused(gpa_limit_t limit);
/* A connection closed while its request was arriving, to get back under the byte budget. */
void gpa_metrics_shed(void);
/* Accepting paused because accept(2) failed with `err` (EMFILE, ENFILE, ENOBUFS or ENOMEM). */
void gpa_metrics_accept_paused(int err);
void gpa_metrics_inflight_bytes_add(int64_t delta);
int64_t gpa_metrics_inflight_bytes(void);
void gpa_metrics_connections_add(int delta);
int64_t gpa_metrics_inflight(void);
int64_t gpa_metrics_connections(void);
void gpa_metrics_reload(gpa_reload_kind_t what, int ok);
/* notAfter of the certificate now being served (seconds since the epoch). */
void gpa_metrics_set_cert_not_after(int64_t not_after);
void gpa_metrics_set_ready(int ready);
int gpa_metrics_ready(void);
/* A review whose search budget ran out (the infeasible rule warned "could not prove"). */
void gpa_metrics_search_unproven(gpa_webhook_t hook);
/* A review moved to a judge thread; one refused because the judges' queue was full; the queue's length. */
void gpa_metrics_judge_handoff(void);
void gpa_metrics_judge_full(void);
void gpa_metrics_judge_queued_add(int delta);
/* Appends the whole exposition to out; `now` is the wall clock used for the expiry gauge. */
void gpa_metrics_render(gpa_buf_t *out, time_t now);
/*
 * A second source of readiness and series (serve --cluster-inventory, docs/cluster.md): while `waiting` is
 * non-NULL, /readyz answers 503 with it (the first sync of the cluster inventory is not done); `render` appends
 * its series to every scrape. Either may be NULL. Set before the server starts; `waiting` is called from any
 * worker thread.
 */
typedef struct st_gpa_metrics_source_t {
    const char *(*waiting)(void *ctx); /* NULL when ready, else the reason */
    void (*render)(void *ctx, gpa_buf_t *out, time_t now);
    void *ctx;
} gpa_metrics_source_t;
void gpa_metrics_set_source(const gpa_metrics_source_t *source); /* borrowed until the server returns */
/* The source's reason not to be ready yet, or NULL. */
const char *gpa_metrics_waiting(void);

#endif
