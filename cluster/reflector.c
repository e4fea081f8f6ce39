/*
 * List + watch of one collection, kept current on a thread of its own (docs/cluster.md, "The client": the
 * paths a watch takes when the server cuts it, refuses it, or forgets the resourceVersion).
 */
#include "reflector.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "client.h"
#include "document/json.h"

#define DEFAULT_BACKOFF_MIN_MS 800L
#define DEFAULT_BACKOFF_MAX_MS 30000L
#define DEFAULT_PAGE_LIMIT 500u
#define DEFAULT_WATCH_TIMEOUT_S 300L
/* A watch event larger than this is a broken stream, not an object (etcd refuses objects over 1.5 MiB). */
#define MAX_EVENT ((size_t)64 << 20)
/* Expired continue tokens (410 part-way through a list): lists started over before giving up. */
#define LIST_ATTEMPTS 3
/* One page of a list, at most (a page is a few hundred objects). */
#define LIST_PAGE_TIMEOUT_MS 120000L

struct st_gpa_reflector_t {
    gpa_kube_client_t *client;
    char *path;
    gpa_reflector_sink_t sink;
    gpa_reflector_options_t opts;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int stopping;
    char *rv;          /* where the next watch starts (the last list's or event's resourceVersion) */
    gpa_arena_t arena; /* one event or one list page; cleared after the sink saw it */
    gpa_buf_t line;    /* the watch stream's bytes not yet ending in a newline */
    int relist;        /* the watch said 410 Gone */
    int applied;       /* the current watch delivered something: it was healthy */
    char why[400];     /* why the current watch ended early */
    unsigned seed;     /* jitter */
    long backoff_ms;
    long retry_after_ms; /* the server asked for at least this pause (Retry-After), 0 when it did not */
};

static int stopping(void *ctx)
{
    gpa_reflector_t *r = ctx;
    return atomic_load(&r->stopping);
}

/* ---- list ---- */

/* Appends s percent-encoded (continue tokens and resourceVersions are opaque). */
static void put_escaped(gpa_buf_t *b, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
            c == '~')
            gpa_buf_putc(b, (char)c);
        else
            gpa_buf_printf(b, "%%%02X", c);
    }
}

static const char *query_sep(const char *path)
{
    return strchr(path, '?') != NULL ? "&" : "?";
}

/* "reason: message" of a Status body, or the start of the body. */
static void describe_status(const gpa_kube_reply_t *reply, gpa_arena_t *arena, char *dst, size_t size)
{
    char pause[64] = "";
    if (reply->retry_after_s > 0)
        snprintf(pause, sizeof(pause), " (retry after %ld s)", reply->retry_after_s);
    gpa_value_t *status = NULL;
    gpa_error_t ignored = {0};
    gpa_error_init(&ignored, NULL);
    if (reply->body.len > 0 && gpa_json_parse(arena, reply->body.base, reply->body.len, &status, &ignored) == 0) {
        const char *message = gpa_value_string(gpa_value_get(status, "message"));
        if (message != NULL) {
            snprintf(dst, size, "HTTP %ld: %.300s%s", reply->status, message, pause);
            return;
        }
    }
    snprintf(dst, size, "HTTP %ld%s", reply->status, pause);
}

static const char *metadata_string(const gpa_value_t *obj, const char *key)
{
    return gpa_value_string(gpa_value_get(gpa_value_get(obj, "metadata"), key));
}

/* One page: its items applied as ADDED; *next set to the continue token (arena-owned, "" on the last page). */
static int apply_page(const gpa_buf_t *body, gpa_arena_t *arena, const gpa_reflector_sink_t *sink, char **rv, const char **next,
                      gpa_error_t *err)
{
    gpa_value_t *list;
    gpa_error_t parse = {0};
    gpa_error_init(&parse, NULL);
    if (gpa_json_parse(arena, body->base != NULL ? body->base : "", body->len, &list, &parse) != 0)
        return gpa_error_set(err, 0, 0, NULL, "the list is not JSON: %u:%u: %s", parse.line, parse.column, parse.message);
    const gpa_value_t *items = gpa_value_get(list, "items");
    if (items != NULL && items->type == GPA_VNULL)
        items = NULL; /* an empty list, as some servers write it */
    if (items != NULL && items->type != GPA_VARRAY)
        return gpa_error_set(err, 0, 0, "items", "must be a list");
    for (size_t i = 0; items != NULL && i < items->u.array.len; i++)
        sink->apply(sink->ctx, GPA_WATCH_ADDED, items->u.array.items[i]);
    const char *version = metadata_string(list, "resourceVersion");
    if (version != NULL) {
        free(*rv);
        *rv = gpa_xstrdup(version);
    }
    const char *cont = metadata_string(list, "continue");
    *next = cont != NULL ? cont : "";
    return 0;
}

/* Who may end a list early (the reflector's stop flag), or NULL. */
typedef struct st_stop_t {
    int (*stop)(void *ctx);
    void *ctx;
} stop_t;

/* A page being received. */
typedef struct st_page_t {
    gpa_buf_t *body;
    const stop_t *stop;
} page_t;

static int append_body(void *ctx, const char *data, size_t len)
{
    page_t *page = ctx;
    gpa_buf_append(page->body, data, len);
    return 0;
}

static int page_stopped(void *ctx)
{
    const page_t *page = ctx;
    return page->stop->stop != NULL && page->stop->stop(page->stop->ctx);
}

/* One page of the list into body (streamed, so a stopping reflector need not wait for a slow server). */
static int get_page(gpa_kube_client_t *client, const char *path, unsigned limit, const char *token, const stop_t *stop,
                    gpa_buf_t *body, gpa_kube_reply_t *reply, gpa_error_t *err)
{
    gpa_buf_t url = GPA_BUF_INIT;
    gpa_buf_printf(&url, "%s%slimit=%u", path, query_sep(path), limit);
    if (token[0] != '\0') {
        gpa_buf_puts(&url, "&continue=");
        put_escaped(&url, token);
    }
    page_t page = {body, stop};
    gpa_kube_stream_t stream = {append_body, page_stopped, &page, LIST_PAGE_TIMEOUT_MS};
    int rc = gpa_kube_stream(client, url.base, &stream, reply, err);
    gpa_buf_dispose(&url);
    return rc;
}

/*
 * A whole paged list, delivered as begin_list, items, end_list. Returns 0 (with *rv the list's resourceVersion),
 * or -1 with *status the HTTP status of the failure (0 when the server was not reached) and err. An expired
 * continue token starts the list over. A 404 returns -1 with status 404 after begin_list: the caller decides
 * what an absent resource means.
 */
static int list_all(gpa_kube_client_t *client, const char *path, unsigned limit, const gpa_reflector_sink_t *sink,
                    const stop_t *stop, gpa_arena_t *arena, char **rv, long *status, long *retry_after_s, gpa_error_t *err)
{
    for (int attempt = 0; attempt < LIST_ATTEMPTS; attempt++) {
        sink->begin_list(sink->ctx);
        char *token = gpa_xstrdup("");
        int rc = 0;
        for (;;) {
            gpa_kube_reply_t reply;
            gpa_buf_t body = GPA_BUF_INIT;
            rc = get_page(client, path, limit, token, stop, &body, &reply, err);
            *status = reply.status;
            *retry_after_s = reply.retry_after_s;
            const char *next = "";
            if (rc == 0 && reply.status == 200) {
                rc = apply_page(&body, arena, sink, rv, &next, err);
            } else if (rc == 0) {
                char why[512];
                describe_status(&reply, arena, why, sizeof(why));
                rc = gpa_error_set(err, 0, 0, NULL, "list %s: %s", path, why);
            }
            free(token);
            token = gpa_xstrdup(next);
            gpa_buf_dispose(&body);
            gpa_kube_reply_dispose(&reply);
            gpa_arena_clear(arena);
            if (rc != 0 || token[0] == '\0')
                break;
        }
        free(token);
        if (rc == 0) {
            sink->end_list(sink->ctx);
            return 0;
        }
        if (*status != 410 || attempt + 1 == LIST_ATTEMPTS)
            return -1;
        if (err != NULL)
            err->set_ = 0; /* the continue token expired: a fresh list, as kube-apiserver asks */
    }
    return -1;
}

int gpa_kube_list(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink, gpa_error_t *err)
{
    gpa_kube_client_t *client = gpa_kube_client_new(target, err);
    if (client == NULL)
        return -1;
    gpa_arena_t arena;
    gpa_arena_init(&arena);
    char *rv = NULL;
    long status = 0, retry_after_s = 0;
    gpa_error_t local = {0};
    gpa_error_init(&local, NULL);
    stop_t never = {NULL, NULL};
    int rc = list_all(client, path, DEFAULT_PAGE_LIMIT, sink, &never, &arena, &rv, &status, &retry_after_s, &local);
    if (rc != 0 && status == 404) {
        if (sink->broken != NULL)
            sink->broken(sink->ctx, 1, local.message);
        sink->end_list(sink->ctx); /* a resource the cluster does not serve holds nothing */
        rc = 0;
    } else if (rc != 0 && err != NULL && !err->set_) {
        local.source = err->source;
        *err = local;
    }
    free(rv);
    gpa_arena_dispose(&arena);
    gpa_kube_client_free(client);
    return rc;
}

/* ---- the reflector's thread ---- */

/* Sleeps ms unless stopped first; returns nonzero when stopping. */
static int pause_for(gpa_reflector_t *r, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&r->lock);
    while (!atomic_load(&r->stopping) && pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
        ;
    pthread_mutex_unlock(&r->lock);
    return atomic_load(&r->stopping);
}

/* The capped exponential backoff with jitter (a random pause between half and all of the current step). */
static int back_off(gpa_reflector_t *r)
{
    long step = r->backoff_ms;
    long half = step / 2;
    long ms = half + (half > 0 ? (long)(rand_r(&r->seed) % (unsigned)(half + 1)) : 0);
    if (ms < r->retry_after_ms)
        ms = r->retry_after_ms;
    r->retry_after_ms = 0;
    r->backoff_ms = step * 2 > r->opts.backoff_max_ms ? r->opts.backoff_max_ms : step * 2;
    return pause_for(r, ms);
}

/* The next pause lasts at least what the server asked for, within the backoff's cap. */
static void honour_retry_after(gpa_reflector_t *r, long seconds)
{
    long ms = seconds > r->opts.backoff_max_ms / 1000 ? r->opts.backoff_max_ms : seconds * 1000;
    if (ms > r->retry_after_ms)
        r->retry_after_ms = ms;
}

static void report_as(gpa_reflector_t *r, int not_served, const char *fmt, const char *detail)
{
    char why[1024];
    snprintf(why, sizeof(why), fmt, r->path, detail);
    if (r->sink.broken != NULL)
        r->sink.broken(r->sink.ctx, not_served, why);
}

static void report(gpa_reflector_t *r, const char *fmt, const char *detail)
{
    report_as(r, 0, fmt, detail);
}

/* One event line of the watch stream. Returns 0 to read on, -1 to end this watch (r->relist or r->why set). */
static int handle_event(gpa_reflector_t *r, const char *text, size_t len)
{
    gpa_value_t *event;
    gpa_error_t parse = {0};
    gpa_error_init(&parse, NULL);
    if (gpa_json_parse(&r->arena, text, len, &event, &parse) != 0) {
        snprintf(r->why, sizeof(r->why), "an event that is not JSON (%.300s)", parse.message);
        return -1;
    }
    const char *type = gpa_value_string(gpa_value_get(event, "type"));
    const gpa_value_t *object = gpa_value_get(event, "object");
    if (type == NULL || object == NULL || object->type != GPA_VOBJECT) {
        snprintf(r->why, sizeof(r->why), "an event without type or object");
        return -1;
    }
    if (strcmp(type, "ERROR") == 0) {
        const gpa_value_t *code = gpa_value_get(object, "code");
        if (code != NULL && code->type == GPA_VNUMBER && strcmp(code->u.str.ptr, "410") == 0) {
            r->relist = 1;
            return -1;
        }
        const char *message = gpa_value_string(gpa_value_get(object, "message"));
        snprintf(r->why, sizeof(r->why), "an ERROR event: %.300s", message != NULL ? message : "(no message)");
        return -1;
    }
    gpa_watch_event_t kind;
    if (strcmp(type, "ADDED") == 0)
        kind = GPA_WATCH_ADDED;
    else if (strcmp(type, "MODIFIED") == 0)
        kind = GPA_WATCH_MODIFIED;
    else if (strcmp(type, "DELETED") == 0)
        kind = GPA_WATCH_DELETED;
    else if (strcmp(type, "BOOKMARK") != 0) {
        snprintf(r->why, sizeof(r->why), "an event of unknown type \"%.64s\"", type);
        return -1;
    }
    if (strcmp(type, "BOOKMARK") != 0)
        r->sink.apply(r->sink.ctx, kind, object);
    const char *version = metadata_string(object, "resourceVersion");
    if (version != NULL) {
        free(r->rv);
        r->rv = gpa_xstrdup(version);
    }
    r->applied = 1;
    return 0;
}

/* Bytes of the stream: every complete line is an event, applied now; the rest waits for more. */
static int on_watch_data(void *ctx, const char *data, size_t len)
{
    gpa_reflector_t *r = ctx;
    if (atomic_load(&r->stopping))
        return -1;
    gpa_buf_append(&r->line, data, len);
    size_t start = 0;
    int rc = 0;
    for (size_t i = r->line.len - len; i < r->line.len && rc == 0; i++) {
        if (r->line.base[i] != '\n')
            continue;
        size_t n = i - start;
        if (n > 0 && !(n == 1 && r->line.base[start] == '\r'))
            rc = handle_event(r, r->line.base + start, n);
        gpa_arena_clear(&r->arena);
        start = i + 1;
    }
    if (rc == 0 && r->line.len - start > MAX_EVENT) {
        snprintf(r->why, sizeof(r->why), "an event larger than %zu bytes", MAX_EVENT);
        rc = -1;
    }
    if (start > 0) {
        memmove(r->line.base, r->line.base + start, r->line.len - start);
        r->line.len -= start;
    }
    return rc;
}

/* Lists (and on 404 says the resource holds nothing). Returns 0 when the view is current, -1 to pause first. */
static int relist(gpa_reflector_t *r)
{
    long status = 0, retry_after_s = 0;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    stop_t stop = {stopping, r};
    if (list_all(r->client, r->path, r->opts.page_limit, &r->sink, &stop, &r->arena, &r->rv, &status, &retry_after_s, &err) == 0) {
        r->backoff_ms = r->opts.backoff_min_ms;
        return 0;
    }
    if (atomic_load(&r->stopping))
        return -1;
    if (status == 404) {
        report_as(r, 1, "%s: %s (not served by this cluster; asked again later)", err.message);
        r->sink.end_list(r->sink.ctx);
        r->backoff_ms = r->opts.backoff_max_ms;
        return -1;
    }
    report(r, "%s: %s", err.message);
    honour_retry_after(r, retry_after_s);
    return -1;
}

/* What follows a watch. */
typedef enum en_next_t {
    WATCH_AGAIN,      /* it ended as watches end (the server's timeout): go on from the last resourceVersion */
    LIST_AGAIN,       /* 410 Gone: only a fresh list is complete */
    PAUSE_THEN_WATCH, /* dropped, cut or refused: back off, then watch from the last resourceVersion */
    PAUSE_THEN_LIST,  /* the resource is gone (404): back off, then list (an empty list, until it is back) */
} next_t;

/* One watch from r->rv. */
static next_t watch_once(gpa_reflector_t *r)
{
    long timeout_s = r->opts.watch_timeout_s + (long)(rand_r(&r->seed) % (unsigned)(r->opts.watch_timeout_s + 1));
    gpa_buf_t url = GPA_BUF_INIT;
    gpa_buf_printf(&url, "%s%swatch=1&allowWatchBookmarks=true&timeoutSeconds=%ld", r->path, query_sep(r->path), timeout_s);
    if (r->rv != NULL && r->rv[0] != '\0') {
        gpa_buf_puts(&url, "&resourceVersion=");
        put_escaped(&url, r->rv);
    }
    gpa_kube_stream_t stream = {on_watch_data, stopping, r, (timeout_s + 30) * 1000};
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    r->relist = 0;
    r->applied = 0;
    r->why[0] = '\0';
    gpa_buf_reset(&r->line);
    int rc = gpa_kube_stream(r->client, url.base, &stream, &reply, &err);
    gpa_buf_dispose(&url);
    gpa_arena_clear(&r->arena);
    next_t next = PAUSE_THEN_WATCH;
    if (atomic_load(&r->stopping))
        next = PAUSE_THEN_WATCH;
    else if (r->relist || reply.status == 410)
        next = LIST_AGAIN;
    else if (r->why[0] != '\0')
        report(r, "%s: watch ended: %s", r->why);
    else if (rc != 0)
        report(r, "%s: watch dropped: %s", err.message);
    else if (reply.status == 200) {
        /* The server's timeout: go on from where it ended; a watch that ended having said nothing (not even a
         * bookmark) waits a little first, so a server that ends every watch at once is not asked in a loop. */
        next = r->applied ? WATCH_AGAIN : PAUSE_THEN_WATCH;
        if (r->line.len > 0) {
            next = PAUSE_THEN_WATCH;
            report(r, "%s: watch ended part-way through an event%s", "");
        }
    } else {
        char why[512];
        describe_status(&reply, &r->arena, why, sizeof(why));
        gpa_arena_clear(&r->arena);
        report(r, "%s: watch refused: %s", why);
        honour_retry_after(r, reply.retry_after_s);
        if (reply.status == 404) {
            next = PAUSE_THEN_LIST;
            r->backoff_ms = r->opts.backoff_max_ms;
        }
    }
    if (r->applied && next != PAUSE_THEN_LIST)
        r->backoff_ms = r->opts.backoff_min_ms;
    gpa_kube_reply_dispose(&reply);
    return next;
}

static void *run(void *arg)
{
    gpa_reflector_t *r = arg;
    int need_list = 1;
    while (!atomic_load(&r->stopping)) {
        if (need_list) {
            if (relist(r) != 0) {
                if (back_off(r))
                    break;
                continue;
            }
            need_list = 0;
        }
        next_t next = watch_once(r);
        if ((next == PAUSE_THEN_WATCH || next == PAUSE_THEN_LIST) && back_off(r))
            break;
        need_list = next == LIST_AGAIN || next == PAUSE_THEN_LIST;
    }
    return NULL;
}

static void fill_defaults(gpa_reflector_options_t *o)
{
    if (o->backoff_min_ms <= 0)
        o->backoff_min_ms = DEFAULT_BACKOFF_MIN_MS;
    if (o->backoff_max_ms <= 0)
        o->backoff_max_ms = DEFAULT_BACKOFF_MAX_MS;
    if (o->backoff_max_ms < o->backoff_min_ms)
        o->backoff_max_ms = o->backoff_min_ms;
    if (o->page_limit == 0)
        o->page_limit = DEFAULT_PAGE_LIMIT;
    if (o->watch_timeout_s <= 0)
        o->watch_timeout_s = DEFAULT_WATCH_TIMEOUT_S;
}

gpa_reflector_t *gpa_reflector_start_with(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink,
                                          const gpa_reflector_options_t *opts, gpa_error_t *err)
{
    gpa_kube_client_t *client = gpa_kube_client_new(target, err);
    if (client == NULL)
        return NULL;
    gpa_reflector_t *r = gpa_xcalloc(1, sizeof(*r));
    r->client = client;
    r->path = gpa_xstrdup(path);
    r->sink = *sink;
    if (opts != NULL)
        r->opts = *opts;
    fill_defaults(&r->opts);
    r->backoff_ms = r->opts.backoff_min_ms;
    r->seed = (unsigned)time(NULL) ^ (unsigned)(size_t)r;
    gpa_arena_init(&r->arena);
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&r->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&r->thread, NULL, run, r) != 0) {
        gpa_error_set(err, 0, 0, NULL, "cannot start the reflector's thread for %s", path);
        gpa_reflector_stop(r);
        return NULL;
    }
    r->started = 1;
    return r;
}

gpa_reflector_t *gpa_reflector_start(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink,
                                     gpa_error_t *err)
{
    return gpa_reflector_start_with(target, path, sink, NULL, err);
}

void gpa_reflector_stop(gpa_reflector_t *r)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    atomic_store(&r->stopping, 1);
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
    gpa_kube_client_wakeup(r->client);
    if (r->started)
        pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->lock);
    gpa_kube_client_free(r->client);
    gpa_arena_dispose(&r->arena);
    gpa_buf_dispose(&r->line);
    free(r->rv);
    free(r->path);
    free(r);
}
