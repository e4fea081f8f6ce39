#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "policy/config.h"
#include "policy/rules.h"

/* Histogram upper bounds in microseconds (le labels are printed in seconds from these exact integers). */
static const uint64_t bucket_us[] = {100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 1000000};
#define NBUCKETS (sizeof(bucket_us) / sizeof(bucket_us[0]))
#define NHOOKS 2
#define NVERDICTS 3

static const char *const hook_names[NHOOKS] = {"validate", "mutate"};
static const char *const verdict_names[NVERDICTS] = {"allowed", "denied", "invalid"};
static const char *const reload_names[GPA_RELOAD_NKINDS] = {"certificate", "config", "inventory"};
static const int rejection_codes[] = {400, 404, 405, 413, 415, 503};
static const char *const limit_names[GPA_NLIMITS] = {"max-connections", "max-inflight-bytes"};
static const int pause_errnos[] = {EMFILE, ENFILE, ENOBUFS, ENOMEM};
static const char *const pause_names[] = {"EMFILE", "ENFILE", "ENOBUFS", "ENOMEM"};
#define NPAUSES (sizeof(pause_errnos) / sizeof(pause_errnos[0]))
#define NREJECTIONS (sizeof(rejection_codes) / sizeof(rejection_codes[0]))

static struct {
    atomic_uint_least64_t requests[NHOOKS][NVERDICTS];
    atomic_uint_least64_t findings[NHOOKS][GPA_RULE_MAX][2]; /* [action]: deny, warn */
    atomic_uint_least64_t buckets[NHOOKS][NBUCKETS];         /* not cumulative; summed when rendered */
    atomic_uint_least64_t sum_us[NHOOKS], count[NHOOKS];
    atomic_uint_least64_t rejections[NREJECTIONS];
    atomic_uint_least64_t tls_failures;
    atomic_uint_least64_t reloads[GPA_RELOAD_NKINDS][2]; /* [ok] */
    atomic_uint_least64_t refused[GPA_NLIMITS], shed, pauses[NPAUSES];
    atomic_int_least64_t inflight, connections, cert_not_after, inflight_bytes;
    atomic_int ready;
    atomic_uint_least64_t unproven[NHOOKS], handoffs, judges_full;
    atomic_int_least64_t judge_queued;
} m;

static void inc(atomic_uint_least64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static uint64_t get(atomic_uint_least64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static void count_findings(unsigned h, const gpa_verdict_t *v)
{
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        int idx = f->rule != NULL ? gpa_rule_index(f->rule) : -1;
        if (idx < 0 || idx >= GPA_RULE_MAX)
            continue;
        inc(&m.findings[h][idx][f->action == GPA_ACTION_WARN ? 1 : 0]);
    }
    for (size_t i = 0; i < v->violations.omitted.len; i++) { /* counted, not held (gpa_review_with) */
        const gpa_omitted_t *o = &v->violations.omitted.items[i];
        int idx = gpa_rule_index(o->rule);
        if (idx >= 0 && idx < GPA_RULE_MAX)
            atomic_fetch_add_explicit(&m.findings[h][idx][o->action == GPA_ACTION_WARN ? 1 : 0], o->count, memory_order_relaxed);
    }
}

void gpa_metrics_review(gpa_webhook_t hook, const gpa_review_t *r, uint64_t micros)
{
    unsigned h = hook == GPA_WEBHOOK_MUTATE ? 1 : 0;
    gpa_metric_verdict_t verdict = r->http_status != 200 ? GPA_METRIC_INVALID : r->allowed ? GPA_METRIC_ALLOWED : GPA_METRIC_DENIED;
    inc(&m.requests[h][verdict]);
    if (r->http_status == 200)
        count_findings(h, &r->verdict);
    size_t b = 0;
    while (b < NBUCKETS && micros > bucket_us[b])
        b++;
    if (b < NBUCKETS)
        inc(&m.buckets[h][b]);
    atomic_fetch_add_explicit(&m.sum_us[h], micros, memory_order_relaxed);
    inc(&m.count[h]);
}

void gpa_metrics_http_rejection(int status)
{
    for (size_t i = 0; i < NREJECTIONS; i++)
        if (rejection_codes[i] == status)
            inc(&m.rejections[i]);
}

void gpa_metrics_tls_failure(void)
{
    inc(&m.tls_failures);
}

void gpa_metrics_inflight_add(int delta)
{
    atomic_fetch_add_explicit(&m.inflight, delta, memory_order_relaxed);
}

void gpa_metrics_connections_add(int delta)
{
    atomic_fetch_add_explicit(&m.connections, delta, memory_order_relaxed);
}

int gpa_metrics_connections_try_add(int64_t max)
{
    /* Compare-and-swap, not add-then-undo: the gauge must never show more than max, even for an instant. */
    int64_t n = atomic_load_explicit(&m.connections, memory_order_relaxed);
    do {
        if (n >= max)
            return -1;
    } while (!atomic_compare_exchange_weak_explicit(&m.connections, &n, n + 1, memory_order_relaxed, memory_order_relaxed));
    return 0;
}

void gpa_metrics_refused(gpa_limit_t limit)
{
    if (limit < GPA_NLIMITS)
        inc(&m.refused[limit]);
}

void gpa_metrics_shed(void)
{
    inc(&m.shed);
}

void gpa_metrics_accept_paused(int err)
{
    for (size_t i = 0; i < NPAUSES; i++)
        if (pause_errnos[i] == err)
            inc(&m.pauses[i]);
}

void gpa_metrics_inflight_bytes_add(int64_t delta)
{
    atomic_fetch_add_explicit(&m.inflight_bytes, delta, memory_order_relaxed);
}

int64_t gpa_metrics_inflight_bytes(void)
{
    return atomic_load_explicit(&m.inflight_bytes, memory_order_relaxed);
}

int64_t gpa_metrics_inflight(void)
{
    return atomic_load(&m.inflight);
}

int64_t gpa_metrics_connections(void)
{
    return atomic_load(&m.connections);
}

void gpa_metrics_reload(gpa_reload_kind_t what, int ok)
{
    if (what < GPA_RELOAD_NKINDS)
        inc(&m.reloads[what][ok ? 1 : 0]);
}

void gpa_metrics_set_cert_not_after(int64_t not_after)
{
    atomic_store(&m.cert_not_after, not_after);
}

void gpa_metrics_set_ready(int ready)
{
    atomic_store(&m.ready, ready);
}

int gpa_metrics_ready(void)
{
    return atomic_load(&m.ready);
}

/* Seconds from an integer count of microseconds, exactly: "0.000250". */
static void put_seconds(gpa_buf_t *out, uint64_t us)
{
    gpa_buf_printf(out, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

static void render_requests(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_requests_total AdmissionReviews answered, by webhook and verdict.\n"
                      "# TYPE gpuadmit_requests_total counter\n");
    for (unsigned h = 0; h < NHOOKS; h++)
        for (unsigned v = 0; v < NVERDICTS; v++)
            gpa_buf_printf(out, "gpuadmit_requests_total{webhook=\"%s\",verdict=\"%s\"} %" PRIu64 "\n", hook_names[h],
                           verdict_names[v], get(&m.requests[h][v]));
}

static void render_findings(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_rule_findings_total Findings reported, by webhook, rule and action.\n"
                      "# TYPE gpuadmit_rule_findings_total counter\n");
    static const char *const actions[2] = {"deny", "warn"};
    for (unsigned h = 0; h < NHOOKS; h++)
        for (size_t r = 0; r < gpa_nrules && r < GPA_RULE_MAX; r++)
            for (unsigned a = 0; a < 2; a++)
                gpa_buf_printf(out, "gpuadmit_rule_findings_total{webhook=\"%s\",rule=\"%s\",action=\"%s\"} %" PRIu64 "\n",
                               hook_names[h], gpa_rules[r].id, actions[a], get(&m.findings[h][r][a]));
}

static void render_histogram(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_request_duration_seconds Time to answer one AdmissionReview.\n"
                      "# TYPE gpuadmit_request_duration_seconds histogram\n");
    for (unsigned h = 0; h < NHOOKS; h++) {
        uint64_t cum = 0, count = get(&m.count[h]);
        for (size_t b = 0; b < NBUCKETS; b++) {
            cum += get(&m.buckets[h][b]);
            gpa_buf_printf(out, "gpuadmit_request_duration_seconds_bucket{webhook=\"%s\",le=\"", hook_names[h]);
            put_seconds(out, bucket_us[b]);
            gpa_buf_printf(out, "\"} %" PRIu64 "\n", cum);
        }
        /* +Inf must not be below the last bucket even though the counters are read one by one. */
        gpa_buf_printf(out, "gpuadmit_request_duration_seconds_bucket{webhook=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", hook_names[h],
                       count > cum ? count : cum);
        gpa_buf_printf(out, "gpuadmit_request_duration_seconds_sum{webhook=\"%s\"} ", hook_names[h]);
        put_seconds(out, get(&m.sum_us[h]));
        gpa_buf_printf(out, "\ngpuadmit_request_duration_seconds_count{webhook=\"%s\"} %" PRIu64 "\n", hook_names[h],
                       count > cum ? count : cum);
    }
}

static void render_gauges(gpa_buf_t *out, time_t now)
{
    gpa_buf_puts(out, "# HELP gpuadmit_http_rejections_total Requests refused before review (400, 404, 405, 413, 415, 503).\n"
                      "# TYPE gpuadmit_http_rejections_total counter\n");
    for (size_t i = 0; i < NREJECTIONS; i++)
        gpa_buf_printf(out, "gpuadmit_http_rejections_total{code=\"%d\"} %" PRIu64 "\n", rejection_codes[i], get(&m.rejections[i]));
    gpa_buf_printf(out,
                   "# HELP gpuadmit_tls_handshake_failures_total TLS handshakes ended with a fatal alert.\n"
                   "# TYPE gpuadmit_tls_handshake_failures_total counter\ngpuadmit_tls_handshake_failures_total %" PRIu64 "\n",
                   get(&m.tls_failures));
    gpa_buf_printf(out,
                   "# HELP gpuadmit_requests_in_flight Reviews being answered now.\n"
                   "# TYPE gpuadmit_requests_in_flight gauge\ngpuadmit_requests_in_flight %" PRId64 "\n"
                   "# HELP gpuadmit_connections Open client connections on the webhook port.\n"
                   "# TYPE gpuadmit_connections gauge\ngpuadmit_connections %" PRId64 "\n",
                   gpa_metrics_inflight(), gpa_metrics_connections());
    int64_t not_after = atomic_load(&m.cert_not_after);
    gpa_buf_printf(out,
                   "# HELP gpuadmit_certificate_expiry_seconds Seconds until the serving certificate expires.\n"
                   "# TYPE gpuadmit_certificate_expiry_seconds gauge\ngpuadmit_certificate_expiry_seconds %" PRId64 "\n",
                   not_after - (int64_t)now);
    gpa_buf_printf(out,
                   "# HELP gpuadmit_ready 1 while serving, 0 once shutdown has started.\n"
                   "# TYPE gpuadmit_ready gauge\ngpuadmit_ready %d\n",
                   gpa_metrics_ready());
}

static void render_limits(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_connections_refused_total Connections closed at accept, by the limit reached.\n"
                      "# TYPE gpuadmit_connections_refused_total counter\n");
    for (unsigned i = 0; i < GPA_NLIMITS; i++)
        gpa_buf_printf(out, "gpuadmit_connections_refused_total{limit=\"%s\"} %" PRIu64 "\n", limit_names[i], get(&m.refused[i]));
    gpa_buf_printf(out,
                   "# HELP gpuadmit_connections_shed_total Connections closed mid-request to stay within max-inflight-bytes.\n"
                   "# TYPE gpuadmit_connections_shed_total counter\ngpuadmit_connections_shed_total %" PRIu64 "\n"
                   "# HELP gpuadmit_inflight_bytes Bytes of requests buffered now (what max-inflight-bytes bounds).\n"
                   "# TYPE gpuadmit_inflight_bytes gauge\ngpuadmit_inflight_bytes %" PRId64 "\n",
                   get(&m.shed), gpa_metrics_inflight_bytes());
    gpa_buf_puts(out, "# HELP gpuadmit_accept_pauses_total Times accepting paused for lack of descriptors or memory.\n"
                      "# TYPE gpuadmit_accept_pauses_total counter\n");
    for (size_t i = 0; i < NPAUSES; i++)
        gpa_buf_printf(out, "gpuadmit_accept_pauses_total{reason=\"%s\"} %" PRIu64 "\n", pause_names[i], get(&m.pauses[i]));
}

static void render_reloads(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_reloads_total Reloads of watched files, by file kind and result.\n"
                      "# TYPE gpuadmit_reloads_total counter\n");
    for (unsigned k = 0; k < GPA_RELOAD_NKINDS; k++)
        for (unsigned ok = 0; ok < 2; ok++)
            gpa_buf_printf(out, "gpuadmit_reloads_total{what=\"%s\",result=\"%s\"} %" PRIu64 "\n", reload_names[k],
                           ok ? "success" : "failure", get(&m.reloads[k][ok]));
}

/* ---- the allocator's budget and the judges (judge.h) ---- */

void gpa_metrics_search_unproven(gpa_webhook_t hook)
{
    inc(&m.unproven[hook == GPA_WEBHOOK_MUTATE ? 1 : 0]);
}

void gpa_metrics_judge_handoff(void)
{
    inc(&m.handoffs);
}

void gpa_metrics_judge_full(void)
{
    inc(&m.judges_full);
}

void gpa_metrics_judge_queued_add(int delta)
{
    atomic_fetch_add_explicit(&m.judge_queued, delta, memory_order_relaxed);
}

static void render_judges(gpa_buf_t *out)
{
    gpa_buf_puts(out, "# HELP gpuadmit_search_unproven_total Reviews whose search budget ran out: infeasible warned \"could not "
                      "prove\" instead of deciding.\n"
                      "# TYPE gpuadmit_search_unproven_total counter\n");
    for (unsigned h = 0; h < NHOOKS; h++)
        gpa_buf_printf(out, "gpuadmit_search_unproven_total{webhook=\"%s\"} %" PRIu64 "\n", hook_names[h], get(&m.unproven[h]));
    gpa_buf_printf(out,
                   "# HELP gpuadmit_judge_handoffs_total Reviews that needed more than the event loop's slice, judged on a "
                   "judge thread.\n"
                   "# TYPE gpuadmit_judge_handoffs_total counter\ngpuadmit_judge_handoffs_total %" PRIu64 "\n"
                   "# HELP gpuadmit_judge_queue_full_total Reviews answered 503 because every judge was busy and the queue "
                   "full.\n"
                   "# TYPE gpuadmit_judge_queue_full_total counter\ngpuadmit_judge_queue_full_total %" PRIu64 "\n"
                   "# HELP gpuadmit_judge_queued Reviews waiting for a judge now.\n"
                   "# TYPE gpuadmit_judge_queued gauge\ngpuadmit_judge_queued %" PRId64 "\n",
                   get(&m.handoffs), get(&m.judges_full), (int64_t)atomic_load(&m.judge_queued));
}

/* ---- a second source (serve --cluster-inventory) ---- */

static const gpa_metrics_source_t *source;

void gpa_metrics_set_source(const gpa_metrics_source_t *s)
{
    source = s;
}

const char *gpa_metrics_waiting(void)
{
    return source != NULL && source->waiting != NULL ? source->waiting(source->ctx) : NULL;
}

void gpa_metrics_render(gpa_buf_t *out, time_t now)
{
    render_requests(out);
    render_findings(out);
    render_histogram(out);
    render_gauges(out, now);
    render_reloads(out);
    render_limits(out);
    render_judges(out);
    if (source != NULL && source->render != NULL)
        source->render(source->ctx, out, now);
}
