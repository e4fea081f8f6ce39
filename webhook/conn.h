/*
 * Client connections of one worker, tracked so a draining server can close the idle keep-alive ones
 * (kube-apiserver keeps reusing them otherwise) without cutting a request that is being read or answered.
 *
 * A connection is "busy" while a request on it has not been fully answered (the request's pool is disposed only
 * after h2o has written the response; every request a handler sees is counted, not only reviews), or while h2o
 * has a write pending on it (answers h2o makes without a handler: 400, 413). It is "idle" when it is not busy and no byte of a next
 * request is waiting in the socket's input (h2o consumes a request's bytes only once it has been answered). Everything here runs on
 * the worker's own event-loop thread.
 */
#ifndef GPA_WEBHOOK_CONN_H
#define GPA_WEBHOOK_CONN_H

#include <stddef.h>

#include <h2o.h>

typedef struct st_gpa_conn_t gpa_conn_t;

/* The connections of one worker: initialize with gpa_conn_list_init, used only from that worker's thread. */
typedef struct st_gpa_conn_list_t {
    h2o_linklist_t conns;
    h2o_loop_t *loop;
    h2o_timeout_t stall; /* see gpa_conn_list_init */
    int64_t max_conns;   /* across every worker (the gauge gpuadmit_connections), or of this list alone */
    int counted;         /* connections counted in the gauge gpuadmit_connections (the webhook port) */
    int64_t open;        /* this list's connections, when not counted in the gauge */
} gpa_conn_list_t;

/*
 * Stall deadline: a busy connection on which no answer completes and no new request starts for stall_ms is shut
 * down (h2o has no write timeout, so a client that never reads its answer would otherwise hold the answer's
 * memory and the in-flight count forever; a client pipelining requests it never reads would keep its connection
 * slot). The list and its timer live as long as the loop. With counted, max_conns caps the connections of every
 * counted list together (the gauge gpuadmit_connections); without, it caps this list alone (the metrics port).
 */
void gpa_conn_list_init(gpa_conn_list_t *list, h2o_loop_t *loop, uint64_t stall_ms, int64_t max_conns, int counted);
/*
 * Starts tracking a just-accepted socket (before h2o_accept, so a TLS handshake in progress counts); forgets it
 * when h2o closes the socket. Returns -1, tracking nothing, when max_conns connections are open already (the
 * caller closes the socket).
 */
int gpa_conn_track(gpa_conn_list_t *list, h2o_socket_t *sock);
/*
 * Marks the request's connection busy until the request's pool is disposed (after the response is written).
 * Call once per request, first thing in the handler. Requests on untracked connections are simply not marked.
 */
void gpa_conn_hold(h2o_req_t *req);
/*
 * Starts the stall deadline of connections on which h2o has a write pending though no request is counted busy
 * (answers h2o makes itself), stops it once the write is done. Call after every turn of the event loop.
 */
void gpa_conn_watch_writes(gpa_conn_list_t *list);
/* Shuts down every idle connection of the list: the peer sees the close, h2o cleans up on its next read. */
size_t gpa_conn_close_idle(gpa_conn_list_t *list);

/*
 * Memory held for requests (docs/webhook.md#limits): the bytes allocated for each connection's input buffer,
 * where h2o keeps a request's head and body until its answer is written (HTTP/1.1; h2o frees the buffer once all
 * of it is consumed, so an idle connection holds none).
 */
size_t gpa_conn_buffered(const gpa_conn_list_t *list);
/*
 * Sheds connections whose request is still arriving (not yet handed to a handler), largest buffer first, until at
 * least `excess` bytes are freed: each one is answered 503 with Retry-After and Connection: close (never closed
 * without an answer: kube-apiserver retries a 503, not a reset), its input buffer is freed at once, and what the
 * peer still sends is read and dropped until it closes (h2o's request timeout bounds a peer that does not). Each
 * one is counted in gpuadmit_connections_shed_total. Returns how many were shed.
 */
size_t gpa_conn_shed(gpa_conn_list_t *list, size_t excess);

/*
 * Answers 413 (then closes, dropping what the client still sends, as gpa_conn_shed does) every request still arriving
 * whose Content-Length is over max_body, or of which more than a head and max_body have arrived (a chunked body);
 * counted in gpuadmit_http_rejections_total{code="413"}. h2o's own limit would close the connection with the body
 * unread: the kernel then resets it, and a client still writing never reads the answer. Called after every turn of
 * the webhook port's loop. Returns how many.
 */
size_t gpa_conn_refuse_oversized(gpa_conn_list_t *list, size_t max_body);

#endif
