#include "routes.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/arena.h"
#include "base/buf.h"
#include "conn.h"
#include "judge.h"
#include "log.h"
#include "metrics.h"
#include "reload.h"
#include "admission/review.h"

/*
 * Judging a review costs memory beyond its body (the tree of what the engine reads, the model, the findings): a
 * review above LARGE_REVIEW bytes is judged only while no other one is (a second one meanwhile gets 503 with
 * Retry-After), and while it is judged JUDGE_FACTOR times its body is counted in gpuadmit_inflight_bytes, so the
 * other workers shed arriving bodies and answer 503 instead of growing next to it (docs/webhook.md#limits).
 * Afterwards its memory goes back to the system (malloc_trim: the arenas' chunks are freed into the threads' heaps).
 */
#define LARGE_REVIEW (1u << 20)
#define JUDGE_FACTOR 4
static atomic_int judging_large;

/* A large review's memory is given back (gpa_judge_done_cb): its reservation and its turn end. */
static void large_done(size_t len)
{
    malloc_trim(0);
    gpa_metrics_inflight_bytes_add(-(int64_t)len * JUDGE_FACTOR);
    atomic_store(&judging_large, 0);
}

typedef struct st_inflight_t {
    int unused;
} inflight_t;

typedef struct st_webhook_handler_t {
    h2o_handler_t super;
    size_t max_body, max_inflight;
} webhook_handler_t;

static int path_is(h2o_req_t *req, const char *path)
{
    return h2o_memis(req->path_normalized.base, req->path_normalized.len, path, strlen(path));
}

static int method_is(h2o_req_t *req, const char *method)
{
    return h2o_memis(req->method.base, req->method.len, method, strlen(method));
}

static void respond(h2o_req_t *req, int status, const char *reason, const char *type, const char *body, size_t len)
{
    req->res.status = status;
    req->res.reason = reason;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, type, strlen(type));
    /* A draining server answers and closes, so clients move to a replica that keeps running. */
    if (!gpa_metrics_ready())
        req->http1_is_persistent = 0;
    req->res.content_length = len; /* h2o_send_inline would otherwise answer chunked */
    h2o_send_inline(req, body, len);
}

static void respond_text(h2o_req_t *req, int status, const char *reason, const char *text)
{
    respond(req, status, reason, "text/plain; charset=utf-8", text, strlen(text));
}

static int refuse(h2o_req_t *req, int status, const char *reason, const char *text)
{
    gpa_metrics_http_rejection(status);
    respond_text(req, status, reason, text);
    return 0;
}

static int method_not_allowed(h2o_req_t *req, const char *allow)
{
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, NULL, allow, strlen(allow));
    return refuse(req, 405, "Method Not Allowed", "method not allowed\n");
}

/* 400 or 503 and close: the connection's next bytes cannot be trusted to start a request, or the server sheds. */
static int refuse_and_close(h2o_req_t *req, int status, const char *reason, const char *text)
{
    req->http1_is_persistent = 0;
    return refuse(req, status, reason, text);
}

/* s[0..n) without leading and trailing spaces and tabs. */
static h2o_iovec_t trim_ows(const char *s, size_t n)
{
    while (n != 0 && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n != 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return h2o_iovec_init(s, n);
}

/*
 * What RFC 9112 (section 6.3) makes a server reject, or NULL: Content-Length with Transfer-Encoding, Content-Lengths
 * that differ, more than one Transfer-Encoding. h2o folds these headers away from req->headers (it frames the body
 * with the last Transfer-Encoding or the first Content-Length), so the request head is read as it arrived: h2o
 * keeps an HTTP/1.1 request's bytes at the start of the socket's input until its answer is written.
 */
static const char *framing_fault(h2o_req_t *req)
{
    h2o_socket_t *sock =
        req->version < 0x200 && req->conn->callbacks->get_socket != NULL ? req->conn->callbacks->get_socket(req->conn) : NULL;
    if (sock == NULL || sock->input == NULL || sock->input->size == 0)
        return NULL;
    const char *p = sock->input->bytes, *end = p + sock->input->size, *nl;
    h2o_iovec_t length = {NULL, 0};
    unsigned nlength = 0, ncoding = 0;
    if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
        return NULL;
    for (p = nl + 1; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
        size_t len = (size_t)(nl - p) - (nl > p && nl[-1] == '\r');
        if (len == 0)
            break; /* the blank line ends the head */
        const char *colon = memchr(p, ':', len);
        if (colon == NULL)
            continue;
        h2o_iovec_t value = trim_ows(colon + 1, len - (size_t)(colon + 1 - p));
        if (h2o_lcstris(p, (size_t)(colon - p), H2O_STRLIT("transfer-encoding"))) {
            ncoding++;
        } else if (h2o_lcstris(p, (size_t)(colon - p), H2O_STRLIT("content-length"))) {
            if (nlength++ != 0 && !h2o_memis(length.base, length.len, value.base, value.len))
                return "conflicting Content-Length headers\n";
            length = value;
        }
    }
    if (ncoding != 0 && nlength != 0)
        return "Content-Length together with Transfer-Encoding\n";
    return ncoding > 1 ? "more than one Transfer-Encoding header\n" : NULL;
}

/* GET/HEAD /healthz and /readyz; returns -1 when the path is neither. */
static int health(h2o_req_t *req)
{
    int ready = path_is(req, "/readyz");
    if (!ready && !path_is(req, "/healthz"))
        return -1;
    if (!method_is(req, "GET") && !method_is(req, "HEAD"))
        return method_not_allowed(req, "GET, HEAD");
    const char *waiting = ready ? gpa_metrics_waiting() : NULL;
    char why[128];
    const char *stuck = gpa_judge_stuck(gpa_judge_now_ms(), why, sizeof(why));
    if (ready && !gpa_metrics_ready())
        respond_text(req, 503, "Service Unavailable", "shutting down\n");
    else if (waiting != NULL || stuck != NULL)
        respond_text(req, 503, "Service Unavailable", stuck != NULL ? stuck : waiting);
    else
        respond_text(req, 200, "OK", "ok\n");
    return 0;
}

/* application/json, any case, with or without parameters (charset=utf-8). */
static int is_json(h2o_req_t *req)
{
    ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_CONTENT_TYPE, -1);
    if (i < 0)
        return 0;
    h2o_iovec_t v = req->headers.entries[i].value;
    static const char json[] = "application/json";
    size_t n = sizeof(json) - 1;
    if (v.len < n || strncasecmp(v.base, json, n) != 0)
        return 0;
    return v.len == n || v.base[n] == ';' || v.base[n] == ' ' || v.base[n] == '\t';
}

static void on_inflight_done(void *p)
{
    (void)p;
    gpa_metrics_inflight_add(-1);
}

/* Counts the review in flight until its pool is disposed, i.e. until its answer has been written. (Its
 * connection is held busy by the handler, as for every request.) */
static void hold(h2o_req_t *req)
{
    gpa_metrics_inflight_add(1);
    h2o_mem_alloc_shared(&req->pool, sizeof(inflight_t), on_inflight_done);
}

static void log_denial(gpa_webhook_t hook, const gpa_review_t *r)
{
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "denied");
    if (l == NULL)
        return;
    const char *rules[32];
    size_t n = 0;
    for (size_t i = 0; i < r->verdict.violations.len && n < 32; i++)
        if (r->verdict.violations.items[i].action == GPA_ACTION_DENY)
            rules[n++] = r->verdict.violations.items[i].rule;
    for (size_t i = 0; i < r->verdict.violations.omitted.len && n < 32; i++) /* counted, not held */
        if (r->verdict.violations.omitted.items[i].action == GPA_ACTION_DENY)
            rules[n++] = r->verdict.violations.omitted.items[i].rule;
    gpa_log_str(l, "webhook", hook == GPA_WEBHOOK_MUTATE ? "mutate" : "validate");
    gpa_log_strn(l, "uid", r->uid, r->uid_len);
    gpa_log_str(l, "operation", r->operation);
    gpa_log_str(l, "kind", r->kind);
    gpa_log_str(l, "namespace", r->ns);
    gpa_log_str(l, "name", r->name);
    gpa_log_strs(l, "rules", rules, n);
    gpa_log_end(l);
}

static void log_invalid(gpa_webhook_t hook, const gpa_review_t *r)
{
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_WARN, "unreadable AdmissionReview");
    gpa_log_str(l, "webhook", hook == GPA_WEBHOOK_MUTATE ? "mutate" : "validate");
    gpa_log_strn(l, "uid", r->uid, r->uid_len);
    gpa_log_strn(l, "reason", r->body, r->len);
    gpa_log_end(l);
}

/* The review's answer (r NULL: every judge busy, the queue full), on the worker's loop. */
static void answered(h2o_req_t *req, gpa_webhook_t hook, const gpa_review_t *r, uint64_t micros)
{
    if (r == NULL) {
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_RETRY_AFTER, NULL, H2O_STRLIT("1"));
        refuse(req, 503, "Service Unavailable", "every judge is busy; retry\n");
        return;
    }
    if (r->http_status == 200)
        respond(req, 200, "OK", "application/json", r->body, r->len);
    else
        respond(req, r->http_status, "Bad Request", "text/plain; charset=utf-8", r->body, r->len);
    gpa_metrics_review(hook, r, micros);
    if (r->http_status != 200)
        log_invalid(hook, r);
    else if (!r->allowed)
        log_denial(hook, r);
}

static int review(h2o_req_t *req, gpa_webhook_t hook, const webhook_handler_t *h)
{
    size_t max_body = h->max_body;
    if (!method_is(req, "POST"))
        return method_not_allowed(req, "POST");
    if (!is_json(req))
        return refuse(req, 415, "Unsupported Media Type", "Content-Type must be application/json\n");
    if (req->entity.len > max_body)
        return refuse(req, 413, "Request Entity Too Large", "request entity is too large\n");
    if (gpa_metrics_inflight_bytes() > (int64_t)h->max_inflight) {
        /* Closing frees this connection's buffer too; kube-apiserver retries on a new connection. */
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_RETRY_AFTER, NULL, H2O_STRLIT("1"));
        return refuse_and_close(req, 503, "Service Unavailable", "too many request bytes in flight; retry\n");
    }
    int large = req->entity.len > LARGE_REVIEW;
    if (large && atomic_exchange(&judging_large, 1) != 0) {
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_RETRY_AFTER, NULL, H2O_STRLIT("1"));
        return refuse_and_close(req, 503, "Service Unavailable", "another large review is being judged; retry\n");
    }
    int64_t reserved = large ? (int64_t)req->entity.len * JUDGE_FACTOR : 0;
    gpa_metrics_inflight_bytes_add(reserved);
    hold(req);
    /* on this loop, or on a judge thread and answered later (judge.h) */
    gpa_judge_review(req, hook, answered, large ? large_done : NULL);
    return 0;
}

static int on_webhook(h2o_handler_t *self, h2o_req_t *req)
{
    const webhook_handler_t *h = (const webhook_handler_t *)self;
    gpa_conn_hold(req); /* every answer, not only a review's: a client that never reads them meets the deadline */
    const char *fault = framing_fault(req);
    if (fault != NULL)
        return refuse_and_close(req, 400, "Bad Request", fault);
    if (path_is(req, "/validate"))
        return review(req, GPA_WEBHOOK_VALIDATE, h);
    if (path_is(req, "/mutate"))
        return review(req, GPA_WEBHOOK_MUTATE, h);
    if (health(req) == 0)
        return 0;
    return refuse(req, 404, "Not Found", "not found\n");
}

static int on_metrics(h2o_handler_t *self, h2o_req_t *req)
{
    (void)self;
    gpa_conn_hold(req);
    const char *fault = framing_fault(req);
    if (fault != NULL)
        return refuse_and_close(req, 400, "Bad Request", fault);
    if (health(req) == 0)
        return 0;
    if (!path_is(req, "/metrics"))
        return refuse(req, 404, "Not Found", "not found\n");
    if (!method_is(req, "GET") && !method_is(req, "HEAD"))
        return method_not_allowed(req, "GET, HEAD");
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_metrics_render(&b, time(NULL));
    respond(req, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", b.base, b.len);
    gpa_buf_dispose(&b);
    return 0;
}

void gpa_routes_webhook(h2o_hostconf_t *host, size_t max_body, size_t max_inflight)
{
    h2o_pathconf_t *pc = h2o_config_register_path(host, "/", 0);
    webhook_handler_t *h = (webhook_handler_t *)h2o_create_handler(pc, sizeof(webhook_handler_t));
    h->super.on_req = on_webhook;
    h->max_body = max_body;
    h->max_inflight = max_inflight;
}

void gpa_routes_metrics(h2o_hostconf_t *host)
{
    h2o_pathconf_t *pc = h2o_config_register_path(host, "/", 0);
    h2o_create_handler(pc, sizeof(h2o_handler_t))->on_req = on_metrics;
}
