#include "conn.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "base/arena.h"
#include "metrics.h"

struct st_gpa_conn_t {
    h2o_linklist_t link;
    gpa_conn_list_t *list;
    h2o_timeout_entry_t stall; /* linked while busy */
    h2o_socket_t *sock;        /* NULL once h2o closed it */
    int fd;
    unsigned busy;          /* requests not yet fully answered */
    int shut;               /* shutdown(2) already called, or the connection shed (answered 503, its input discarded) */
    h2o_socket_cb h2o_read; /* h2o's read callback, kept while shed: it is given the peer's close */
};

typedef struct st_hold_t {
    gpa_conn_t *conn;
} hold_t;

void gpa_conn_list_init(gpa_conn_list_t *list, h2o_loop_t *loop, uint64_t stall_ms, int64_t max_conns, int counted)
{
    list->counted = counted;
    list->open = 0;
    h2o_linklist_init_anchor(&list->conns);
    list->loop = loop;
    list->max_conns = max_conns;
    h2o_timeout_init(loop, &list->stall, stall_ms);
}

/* An answer not yet taken by the peer: a request counted busy, or a write h2o still has pending. */
static int pending(gpa_conn_t *c)
{
    return c->sock != NULL && (c->busy != 0 || h2o_socket_is_writing(c->sock));
}

/* Restarts the stall deadline while the connection is busy; stops it when it is not. */
static void rearm(gpa_conn_t *c)
{
    if (h2o_timeout_is_linked(&c->stall))
        h2o_timeout_unlink(&c->stall);
    if (pending(c))
        h2o_timeout_link(c->list->loop, &c->list->stall, &c->stall);
}

static void on_stall(h2o_timeout_entry_t *entry)
{
    gpa_conn_t *c = H2O_STRUCT_FROM_MEMBER(gpa_conn_t, stall, entry);
    if (c->sock == NULL || c->shut)
        return;
    /* As for idle connections: h2o's pending write fails, it closes the socket and disposes the request. */
    shutdown(c->fd, SHUT_RDWR);
    c->shut = 1;
}

static void conn_free_if_done(gpa_conn_t *c)
{
    if (c->sock == NULL && c->busy == 0)
        free(c);
}

static void on_close(void *data)
{
    gpa_conn_t *c = data;
    h2o_linklist_unlink(&c->link);
    c->sock = NULL;
    rearm(c); /* stops the deadline: nothing left to shut down */
    if (c->list->counted)
        gpa_metrics_connections_add(-1);
    else
        c->list->open--;
    conn_free_if_done(c); /* a request disposed after its socket keeps the record alive until then */
}

int gpa_conn_track(gpa_conn_list_t *list, h2o_socket_t *sock)
{
    if (list->counted ? gpa_metrics_connections_try_add(list->max_conns) != 0 : list->open >= list->max_conns)
        return -1;
    if (!list->counted)
        list->open++;
    gpa_conn_t *c = gpa_xcalloc(1, sizeof(*c));
    c->list = list;
    c->stall.cb = on_stall;
    c->sock = sock;
    c->fd = h2o_socket_get_fd(sock);
    sock->on_close.cb = on_close;
    sock->on_close.data = c;
    h2o_linklist_insert(&list->conns, &c->link);
    return 0;
}

static void on_hold_dispose(void *p)
{
    gpa_conn_t *c = ((hold_t *)p)->conn;
    c->busy--;
    rearm(c); /* an answer completed: progress */
    conn_free_if_done(c);
}

void gpa_conn_hold(h2o_req_t *req)
{
    h2o_socket_t *sock = req->conn->callbacks->get_socket != NULL ? req->conn->callbacks->get_socket(req->conn) : NULL;
    if (sock == NULL || sock->on_close.cb != on_close)
        return;
    gpa_conn_t *c = sock->on_close.data;
    hold_t *h = h2o_mem_alloc_shared(&req->pool, sizeof(*h), on_hold_dispose);
    h->conn = c;
    c->busy++;
    rearm(c);
}

void gpa_conn_watch_writes(gpa_conn_list_t *list)
{
    for (h2o_linklist_t *l = list->conns.next; l != &list->conns; l = l->next) {
        gpa_conn_t *c = H2O_STRUCT_FROM_MEMBER(gpa_conn_t, link, l);
        /* A busy connection's deadline runs from its last progress (rearm); only the others are looked at. */
        if (c->busy == 0 && pending(c) != h2o_timeout_is_linked(&c->stall))
            rearm(c);
    }
}

size_t gpa_conn_close_idle(gpa_conn_list_t *list)
{
    size_t n = 0;
    for (h2o_linklist_t *l = list->conns.next; l != &list->conns; l = l->next) {
        gpa_conn_t *c = H2O_STRUCT_FROM_MEMBER(gpa_conn_t, link, l);
        /*
         * h2o keeps a request's bytes in sock->input until its answer is written (HTTP/1.1), so an empty input means
         * no request is being read or answered. (sock->bytes_read is only the size of the last read, not a count.)
         */
        if (c->shut || pending(c) || c->sock->input->size != 0)
            continue;
        /* Not close(): h2o owns the descriptor; after shutdown its next read fails and it closes cleanly. */
        shutdown(c->fd, SHUT_RDWR);
        c->shut = 1;
        n++;
    }
    return n;
}

/* Bytes allocated for the socket's input (a buffer not yet allocated points at h2o's shared prototype). */
static size_t input_bytes(const h2o_socket_t *sock)
{
    return sock->input != NULL && sock->input->bytes != NULL ? sock->input->capacity : 0;
}

size_t gpa_conn_buffered(const gpa_conn_list_t *list)
{
    size_t n = 0;
    for (h2o_linklist_t *l = list->conns.next; l != &list->conns; l = l->next)
        n += input_bytes(H2O_STRUCT_FROM_MEMBER(gpa_conn_t, link, l)->sock);
    return n;
}

/* Answers to a request still arriving, written by hand (no handler has seen it, so nothing of it is echoed). */
#define EARLY_ANSWER(status, extra, length)                                                                                        \
    "HTTP/1.1 " status "\r\nServer: gpuadmit\r\n" extra "Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"         \
    "Content-Length: " #length "\r\n\r\n"
#define SHED_BODY "too many request bytes in flight; retry\n"
#define TOO_LARGE_BODY "request body is over --max-body-bytes\n"
static const char shed_answer[] = EARLY_ANSWER("503 Service Unavailable", "Retry-After: 1\r\n", 40) SHED_BODY;
static const char too_large_answer[] = EARLY_ANSWER("413 Request Entity Too Large", "", 38) TOO_LARGE_BODY;
_Static_assert(sizeof(SHED_BODY) - 1 == 40 && sizeof(TOO_LARGE_BODY) - 1 == 38, "Content-Length of the early answers");

/* While shed: whatever the peer still sends is dropped as it arrives; its close (or a read error) goes to h2o,
 * which closes the connection as for any peer that hangs up (h2o's request timeout bounds a peer that never does). */
static void on_discard(h2o_socket_t *sock, const char *err)
{
    gpa_conn_t *c = sock->on_close.data;
    if (err != NULL) {
        c->h2o_read(sock, err); /* may close the socket and free c */
        return;
    }
    if (sock->input->size != 0)
        h2o_buffer_consume(&sock->input, sock->input->size); /* frees the buffer (all of it consumed) */
}

/* The answer is out: a FIN after it, so the peer reads the answer and then the end of the connection. */
static void on_answer_written(h2o_socket_t *sock, const char *err)
{
    if (err == NULL)
        shutdown(h2o_socket_get_fd(sock), SHUT_WR);
}

/* Whether c can be shed: a request still arriving (not handed to a handler), which h2o is reading, nothing being
 * written on it. */
static int sheddable(const gpa_conn_t *c)
{
    return c->busy == 0 && !c->shut && c->sock->input->size != 0 && c->sock->_cb.read != NULL && !h2o_socket_is_writing(c->sock);
}

/* Answers c's arriving request with `text`, takes its reads over from h2o and frees its input at once. */
static void answer_early(gpa_conn_t *c, const char *text, size_t len)
{
    h2o_socket_t *sock = c->sock;
    c->h2o_read = sock->_cb.read;
    c->shut = 1;
    h2o_socket_read_stop(sock);
    h2o_buffer_consume(&sock->input, sock->input->size);
    h2o_iovec_t answer = h2o_iovec_init(text, len);
    h2o_socket_write(sock, &answer, 1, on_answer_written);
    h2o_socket_read_start(sock, on_discard);
}

size_t gpa_conn_shed(gpa_conn_list_t *list, size_t excess)
{
    size_t n = 0, freed = 0;
    while (freed < excess) {
        gpa_conn_t *worst = NULL;
        for (h2o_linklist_t *l = list->conns.next; l != &list->conns; l = l->next) {
            gpa_conn_t *c = H2O_STRUCT_FROM_MEMBER(gpa_conn_t, link, l);
            /* Only a request still arriving: one being answered frees its buffer once the answer is taken (or
             * the stall deadline closes it). */
            if (sheddable(c) && (worst == NULL || input_bytes(c->sock) > input_bytes(worst->sock)))
                worst = c;
        }
        if (worst == NULL)
            break;
        freed += input_bytes(worst->sock);
        gpa_metrics_shed(); /* counted before the peer can see the answer */
        answer_early(worst, shed_answer, sizeof(shed_answer) - 1);
        n++;
    }
    return n;
}

/* The value of the Content-Length header of the request head at the start of in, capped just above max (-1 when the
 * head has none, or has not all arrived: then the bytes that arrive tell). */
static int64_t content_length(const h2o_buffer_t *in, size_t max)
{
    static const char name[] = "content-length:";
    const char *p = in->bytes, *end = p + (in->size < H2O_MAX_REQLEN ? in->size : H2O_MAX_REQLEN), *nl;
    if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
        return -1;
    for (p = nl + 1; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
        size_t len = (size_t)(nl - p);
        if (len == 0 || (len == 1 && *p == '\r'))
            return -1; /* the end of the head */
        if (len <= sizeof(name) - 1 || strncasecmp(p, name, sizeof(name) - 1) != 0)
            continue;
        const char *d = p + sizeof(name) - 1;
        uint64_t v = 0;
        while (d < nl && (*d == ' ' || *d == '\t'))
            d++;
        for (; d < nl && *d >= '0' && *d <= '9' && v <= max; d++)
            v = v * 10 + (uint64_t)(*d - '0');
        return (int64_t)v; /* a malformed length is h2o's to refuse (400) */
    }
    return -1;
}

size_t gpa_conn_refuse_oversized(gpa_conn_list_t *list, size_t max_body)
{
    size_t n = 0;
    for (h2o_linklist_t *l = list->conns.next; l != &list->conns; l = l->next) {
        gpa_conn_t *c = H2O_STRUCT_FROM_MEMBER(gpa_conn_t, link, l);
        if (!sheddable(c))
            continue;
        int64_t length = content_length(c->sock->input, max_body);
        if (c->sock->input->size <= max_body + H2O_MAX_REQLEN && (length < 0 || (uint64_t)length <= max_body))
            continue; /* a chunked body tells by the bytes that arrived: a head and the cap at most */
        gpa_metrics_http_rejection(413);
        answer_early(c, too_large_answer, sizeof(too_large_answer) - 1);
        n++;
    }
    return n;
}
