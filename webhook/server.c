#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <h2o.h>

#include "base/arena.h"
#include "conn.h"
#include "judge.h"
#include "metrics.h"
#include "reload.h"
#include "routes.h"
#include "tls.h"

enum { PHASE_SERVE, PHASE_DRAIN, PHASE_STOP };

typedef struct st_worker_t {
    pthread_t tid;
    int fd;         /* listening socket, handed to the loop */
    int is_metrics; /* plain HTTP, own connection cap, keeps answering while draining */
    h2o_globalconf_t *conf;
    SSL_CTX *ssl_ctx;
    h2o_context_t ctx;
    h2o_accept_ctx_t actx;
    h2o_socket_t *listener;
    gpa_conn_list_t conns;
    atomic_int closed_listener;
    h2o_timeout_t accept_pause; /* how long accepting pauses when accept(2) runs out of descriptors */
    h2o_timeout_entry_t resume; /* linked while paused */
    size_t buffered;            /* this worker's share of gpuadmit_inflight_bytes */
    int trim_pending;           /* past TRIM_AFTER(_CONNECTIONS): return memory once back down */
    gpa_judge_loop_t judge;     /* webhook workers: answers from judge threads, the heartbeat (judge.h) */
} worker_t;

/* Memory held for requests, or open connections (each with its TLS state), above which freed memory is handed
 * back to the system once they are back down. */
#define TRIM_AFTER (8u << 20)
#define TRIM_AFTER_CONNECTIONS 64
/* Connections the metrics port takes at once: a scraper and a few probes. */
#define METRICS_MAX_CONNECTIONS 16
/* How long accepting pauses when descriptors run out before it is tried again. */
#define ACCEPT_PAUSE_MS 100
/* Receive buffer of accepted webhook sockets: bounds what one read can add to a connection's buffer, so one
 * event-loop turn cannot overshoot the byte budget by more than this per connection. */
#define SOCKET_RCVBUF (64 * 1024)

static atomic_int phase;
static int64_t inflight_budget, max_connections;
static size_t max_body; /* the webhook port's (gpa_conn_refuse_oversized) */
static gpa_log_limit_t log_refused, log_shed, log_paused;
static h2o_globalconf_t webhook_conf, metrics_conf;
static worker_t *workers; /* kept for the process' life: connections left at exit stay reachable */
static size_t nworkers;

void gpa_server_opts_init(gpa_server_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->listen = ":9443";
    o->metrics_listen = ":8080";
    o->max_body = 4u << 20;
    o->request_timeout_ms = 30000;
    o->handshake_timeout_ms = 10000;
    o->shutdown_grace_ms = 10000;
    o->reload_interval_ms = 1000;
    o->max_connections = 128;
    o->max_inflight_bytes = 16u << 20;
    o->judge_threads = 0;
    o->search_deadline_ms = 2000;
}

/* ---- listening sockets ---------------------------------------------------------------------------------- */

/* "[host]:port", "host:port" or ":port" into host (empty for any) and port; -1 when malformed. */
static int split_listen(const char *spec, char *host, size_t hostsize, char *port, size_t portsize)
{
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || colon[1] == '\0' || strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(colon + 1) >= portsize)
        return -1;
    const char *h = spec;
    size_t hl = (size_t)(colon - spec);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    if (hl >= hostsize)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    return atoi(port) <= 65535 ? 0 : -1;
}

static int bind_one(const struct sockaddr *sa, socklen_t salen, char *err, size_t errsize)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), on = 1, off = 0;
    if (fd < 0) {
        snprintf(err, errsize, "socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on));
    int rcvbuf = SOCKET_RCVBUF; /* set before listen: accepted sockets inherit it, with a window scale to match */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    if (sa->sa_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)); /* ":port" serves IPv4 too */
    if (bind(fd, sa, salen) != 0 || listen(fd, SOMAXCONN) != 0) {
        snprintf(err, errsize, "bind: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Resolves spec into addr (the wildcard is IPv6 dual-stack when available). */
static int resolve(const char *spec, struct sockaddr_storage *addr, socklen_t *len, char *err, size_t errsize)
{
    char host[256], port[16];
    if (split_listen(spec, host, sizeof(host), port, sizeof(port)) != 0) {
        snprintf(err, errsize, "%s: not [host]:port", spec);
        return -1;
    }
    struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM}, *res;
    hints.ai_family = host[0] == '\0' ? AF_INET6 : AF_UNSPEC;
    int rc = getaddrinfo(host[0] == '\0' ? NULL : host, port, &hints, &res);
    if (rc != 0 && host[0] == '\0') {
        hints.ai_family = AF_INET;
        rc = getaddrinfo(NULL, port, &hints, &res);
    }
    if (rc != 0) {
        snprintf(err, errsize, "%s: %s", spec, gai_strerror(rc));
        return -1;
    }
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static void format_addr(int fd, char *dst, size_t size)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *s6 = (void *)&ss;
            inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
            port = ntohs(s6->sin6_port);
        } else {
            struct sockaddr_in *s4 = (void *)&ss;
            inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
            port = ntohs(s4->sin_port);
        }
    }
    snprintf(dst, size, strchr(host, ':') != NULL ? "[%s]:%d" : "%s:%d", host, port);
}

/*
 * n listening sockets on one address (SO_REUSEPORT: the kernel spreads connections over the workers). With port
 * 0, the first socket's port is used for the rest so every worker listens on the same free port.
 */
static int open_listeners(const char *spec, int *fds, size_t n, char *err, size_t errsize)
{
    struct sockaddr_storage addr;
    socklen_t len;
    if (resolve(spec, &addr, &len, err, errsize) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if ((fds[i] = bind_one((struct sockaddr *)&addr, len, err, errsize)) < 0) {
            while (i-- > 0)
                close(fds[i]);
            return -1;
        }
        if (i == 0) {
            struct sockaddr_storage bound;
            socklen_t bl = sizeof(bound);
            getsockname(fds[0], (struct sockaddr *)&bound, &bl);
            memcpy(&addr, &bound, bl);
            len = bl;
        }
    }
    return 0;
}

/* ---- worker threads ------------------------------------------------------------------------------------ */

static const char *errno_name(int err)
{
    return err == EMFILE ? "EMFILE" : err == ENFILE ? "ENFILE" : err == ENOBUFS ? "ENOBUFS" : "ENOMEM";
}

static void on_accept(h2o_socket_t *listener, const char *err);

/* Out of descriptors (or kernel memory): stop polling the listener for a while instead of spinning on it, while
 * the connections already open keep being served; pending connections wait in the kernel's backlog. */
static void pause_accepting(worker_t *w, int err)
{
    h2o_socket_read_stop(w->listener);
    if (!h2o_timeout_is_linked(&w->resume))
        h2o_timeout_link(w->ctx.loop, &w->accept_pause, &w->resume);
    gpa_metrics_accept_paused(err);
    gpa_log_line_t *l = gpa_log_begin_limited(&log_paused, GPA_LOG_WARN, "accepting paused: cannot accept a connection");
    gpa_log_str(l, "error", errno_name(err));
    gpa_log_str(l, "port", w->is_metrics ? "metrics" : "webhook");
    gpa_log_int(l, "connections", gpa_metrics_connections());
    gpa_log_int(l, "retryMs", ACCEPT_PAUSE_MS);
    gpa_log_end(l);
}

static void on_resume(h2o_timeout_entry_t *entry)
{
    worker_t *w = H2O_STRUCT_FROM_MEMBER(worker_t, resume, entry);
    if (w->listener != NULL)
        h2o_socket_read_start(w->listener, on_accept);
}

static void refuse(h2o_socket_t *sock, gpa_limit_t limit)
{
    gpa_metrics_refused(limit); /* counted before the peer can see the close */
    h2o_socket_close(sock);     /* nothing read, nothing allocated beyond the socket */
    gpa_log_line_t *l = gpa_log_begin_limited(&log_refused, GPA_LOG_WARN, "connection refused: limit reached");
    gpa_log_str(l, "limit", "max-connections");
    gpa_log_int(l, "connections", gpa_metrics_connections());
    gpa_log_int(l, "inflightBytes", gpa_metrics_inflight_bytes());
    gpa_log_end(l);
}

static void on_accept(h2o_socket_t *listener, const char *err)
{
    worker_t *w = listener->data;
    h2o_socket_t *sock;
    if (err != NULL)
        return;
    if ((sock = h2o_evloop_socket_accept(listener)) == NULL) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            pause_accepting(w, errno);
        return;
    }
    int on = 1;
    setsockopt(h2o_socket_get_fd(sock), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    /* Over the byte budget a connection is still accepted (within the connection cap): closing it here would be a
     * failure kube-apiserver never retries; its request, once arriving, is shed with a 503 (account, conn.h). */
    if (gpa_conn_track(&w->conns, sock) != 0) {
        refuse(sock, GPA_LIMIT_CONNECTIONS);
        return;
    }
    h2o_accept(&w->actx, sock);
}

/*
 * After every turn of the event loop: how much this worker holds for requests, connections shed when every worker
 * together holds more than the budget, and memory handed back to the system once a burst is over.
 */
static void account(worker_t *w)
{
    size_t mine = gpa_conn_buffered(&w->conns);
    gpa_metrics_inflight_bytes_add((int64_t)mine - (int64_t)w->buffered);
    w->buffered = mine;
    int64_t excess = gpa_metrics_inflight_bytes() - inflight_budget;
    if (excess > 0) {
        size_t n = gpa_conn_shed(&w->conns, (size_t)excess < mine ? (size_t)excess : mine);
        gpa_log_line_t *l =
            n != 0 ? gpa_log_begin_limited(&log_shed, GPA_LOG_WARN, "connections closed: max-inflight-bytes reached") : NULL;
        gpa_log_int(l, "closed", (int64_t)n);
        gpa_log_int(l, "inflightBytes", gpa_metrics_inflight_bytes());
        gpa_log_int(l, "maxInflightBytes", inflight_budget);
        gpa_log_end(l);
    }
    int64_t conns = gpa_metrics_connections();
    if (mine > TRIM_AFTER || conns > TRIM_AFTER_CONNECTIONS) {
        w->trim_pending = 1;
    } else if (w->trim_pending && gpa_metrics_inflight_bytes() < (int64_t)TRIM_AFTER / 2 && conns <= TRIM_AFTER_CONNECTIONS / 4) {
        /* Big buffers are mmap'ed (gpa_server_run) and go back when freed; this returns what smaller chunks left
         * spread over the heaps of every thread. */
        malloc_trim(0);
        w->trim_pending = 0;
    }
}

static void stop_listening(worker_t *w)
{
    if (atomic_load(&w->closed_listener))
        return;
    if (h2o_timeout_is_linked(&w->resume))
        h2o_timeout_unlink(&w->resume);
    h2o_socket_read_stop(w->listener);
    h2o_socket_close(w->listener); /* closes the descriptor: new connections are refused by the kernel */
    w->listener = NULL;
    h2o_context_request_shutdown(&w->ctx);
    atomic_store(&w->closed_listener, 1);
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    h2o_context_init(&w->ctx, h2o_evloop_create(), w->conf);
    w->actx.ctx = &w->ctx;
    w->actx.hosts = w->conf->hosts;
    w->actx.ssl_ctx = w->ssl_ctx;
    /* The metrics port has its own cap (not counted in gpuadmit_connections) and the same stall deadline. */
    gpa_conn_list_init(&w->conns, w->ctx.loop, w->conf->http1.req_timeout,
                       w->is_metrics ? METRICS_MAX_CONNECTIONS : max_connections, !w->is_metrics);
    h2o_timeout_init(w->ctx.loop, &w->accept_pause, ACCEPT_PAUSE_MS);
    w->resume.cb = on_resume;
    w->listener = h2o_evloop_socket_create(w->ctx.loop, w->fd, H2O_SOCKET_FLAG_DONT_READ);
    w->listener->data = w;
    h2o_socket_read_start(w->listener, on_accept);
    if (!w->is_metrics)
        gpa_judge_attach(&w->judge, w->ctx.loop);
    /* Wake every 100 ms so a phase change is seen without a cross-thread wake-up. */
    int p;
    while ((p = atomic_load(&phase)) != PHASE_STOP) {
        h2o_evloop_run(w->ctx.loop, 100);
        gpa_judge_turned();
        gpa_conn_watch_writes(&w->conns);
        if (!w->is_metrics) {
            gpa_conn_refuse_oversized(&w->conns, max_body);
            account(w);
        }
        if (p == PHASE_DRAIN && !w->is_metrics) {
            stop_listening(w);
            gpa_conn_close_idle(&w->conns);
        }
    }
    gpa_judge_detach();
    return NULL;
}

static void init_conf(h2o_globalconf_t *conf, const gpa_server_opts_t *o, int metrics)
{
    h2o_config_init(conf);
    conf->server_name = h2o_iovec_init(H2O_STRLIT("gpuadmit"));
    /* h2o refuses a Content-Length above its limit from the header alone (>), and a chunked body as soon as it
     * reaches the limit (>=): a chunked body may carry one byte less than the cap (docs/webhook.md#limits). */
    /* The webhook port's cap is gpa_conn_refuse_oversized's (a 413 written before the close, the rest of the body
     * dropped) and the handler's: h2o's own closes with the body unread (a reset), so it is out of reach here (h2o
     * reserves nothing from a Content-Length: a body's buffer grows as its bytes arrive). */
    conf->max_request_entity_size = metrics ? 65536 : SIZE_MAX / 2;
    conf->http1.req_timeout = o->request_timeout_ms;
    conf->http2.idle_timeout = o->request_timeout_ms;
    conf->handshake_timeout = o->handshake_timeout_ms;
    /* h2o's default answers an HTTP/2 preface ("PRI * HTTP/2.0", prior knowledge) and "Upgrade: h2c" on any
     * HTTP/1.1 connection, whatever ALPN agreed: HTTP/2 only through ALPN, and only with --http2 (tls.c). */
    conf->http1.upgrade_to_http2 = 0;
    h2o_hostconf_t *host = h2o_config_register_host(conf, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    if (metrics)
        gpa_routes_metrics(host);
    else
        gpa_routes_webhook(host, o->max_body, o->max_inflight_bytes);
}

static int start_workers(const gpa_server_opts_t *o, SSL_CTX *ssl_ctx, unsigned nthreads, char *addr, char *maddr, char *err,
                         size_t errsize)
{
    int with_metrics = o->metrics_listen != NULL && o->metrics_listen[0] != '\0';
    nworkers = nthreads + (with_metrics ? 1 : 0);
    workers = gpa_xcalloc(nworkers, sizeof(worker_t));
    int *fds = gpa_xcalloc(nworkers, sizeof(int));
    int rc = -1;
    if (open_listeners(o->listen, fds, nthreads, err, errsize) != 0)
        goto Exit;
    if (with_metrics && open_listeners(o->metrics_listen, fds + nthreads, 1, err, errsize) != 0) {
        for (unsigned i = 0; i < nthreads; i++)
            close(fds[i]);
        goto Exit;
    }
    format_addr(fds[0], addr, 64);
    if (with_metrics)
        format_addr(fds[nthreads], maddr, 64);
    for (size_t i = 0; i < nworkers; i++) {
        worker_t *w = &workers[i];
        w->fd = fds[i];
        w->is_metrics = i >= nthreads;
        w->conf = w->is_metrics ? &metrics_conf : &webhook_conf;
        w->ssl_ctx = w->is_metrics ? NULL : ssl_ctx;
        pthread_create(&w->tid, NULL, worker_main, w);
    }
    rc = 0;
Exit:
    free(fds);
    return rc;
}

/* ---- lifecycle ----------------------------------------------------------------------------------------- */

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits for SIGTERM/SIGINT, polling the watched files between waits; returns the signal. */
static int wait_for_signal(const sigset_t *set, uint64_t interval_ms)
{
    for (;;) {
        struct timespec ts = {(time_t)(interval_ms / 1000), (long)(interval_ms % 1000) * 1000000L};
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig > 0)
            return sig;
        gpa_reload_poll();
    }
}

static int all_listeners_closed(void)
{
    for (size_t i = 0; i < nworkers; i++)
        if (!workers[i].is_metrics && !atomic_load(&workers[i].closed_listener))
            return 0;
    return 1;
}

/* Drains until nothing is in flight and no client connection is left, or the grace period ends. */
static void drain(uint64_t grace_ms)
{
    uint64_t deadline = mono_ms() + grace_ms;
    while (!(all_listeners_closed() && gpa_metrics_inflight() == 0 && gpa_metrics_connections() == 0)) {
        if (mono_ms() >= deadline) {
            gpa_log_line_t *l = gpa_log_begin(GPA_LOG_WARN, "shutdown grace period over; closing what is left");
            gpa_log_int(l, "inFlight", gpa_metrics_inflight());
            gpa_log_int(l, "connections", gpa_metrics_connections());
            gpa_log_end(l);
            return;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void log_start(const gpa_server_opts_t *o, unsigned nthreads, const char *addr, const char *maddr, gpa_tls_t *tls)
{
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "serving");
    gpa_log_str(l, "version", GPA_VERSION);
    gpa_log_str(l, "listen", addr);
    gpa_log_str(l, "metricsListen", maddr[0] != '\0' ? maddr : NULL);
    gpa_log_int(l, "threads", nthreads);
    gpa_log_str(l, "tlsMinVersion", o->tls13_only ? "1.3" : "1.2");
    gpa_log_str(l, "alpn", o->http2 ? "h2,http/1.1" : "http/1.1");
    gpa_log_str(l, "clientCA", o->client_ca);
    gpa_log_str(l, "certificate", gpa_tls_subject(tls));
    gpa_log_str(l, "config", o->config);
    gpa_log_int(l, "inventoryFiles", (int64_t)o->ninventory);
    gpa_log_int(l, "maxConnections", o->max_connections);
    gpa_log_int(l, "maxInflightBytes", (int64_t)o->max_inflight_bytes);
    gpa_log_int(l, "judgeThreads", o->judge_threads != 0 ? o->judge_threads : nthreads);
    gpa_log_int(l, "searchDeadlineMs", (int64_t)o->search_deadline_ms);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        gpa_log_int(l, "openFileLimit", rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t)rl.rlim_cur);
    gpa_log_end(l);
    /* A body's buffer doubles as it grows: one at the cap takes up to twice the cap. */
    if (o->max_inflight_bytes < 2 * o->max_body) {
        l = gpa_log_begin(GPA_LOG_WARN, "--max-inflight-bytes is below twice --max-body-bytes: bodies near the cap are refused");
        gpa_log_int(l, "maxInflightBytes", (int64_t)o->max_inflight_bytes);
        gpa_log_int(l, "maxBodyBytes", (int64_t)o->max_body);
        gpa_log_end(l);
    }
}

static gpa_tls_t *load_all(const gpa_server_opts_t *o, gpa_reload_opts_t *ro)
{
    char err[768];
    gpa_tls_opts_t to = {o->cert, o->key, o->client_ca, o->tls13_only ? TLS1_3_VERSION : TLS1_2_VERSION, o->http2};
    gpa_tls_t *tls = gpa_tls_new(&to, err, sizeof(err));
    if (tls == NULL) {
        gpa_log_msg(GPA_LOG_ERROR, "cannot load the serving certificate", err);
        return NULL;
    }
    *ro = (gpa_reload_opts_t){o->loader, o->config, o->inventory, o->ninventory, o->cert, o->key};
    if (gpa_reload_init(ro, tls, err, sizeof(err)) != 0) {
        gpa_log_msg(GPA_LOG_ERROR, "cannot load configuration or inventory", err);
        gpa_tls_free(tls);
        return NULL;
    }
    gpa_metrics_set_cert_not_after(gpa_tls_not_after(tls));
    return tls;
}

/*
 * Process-wide settings for a server under load: as many descriptors as the hard limit allows (the soft limit is
 * often 1024), and buffers of 128 KiB or more mmap'ed so freeing one gives its pages back to the system (glibc
 * otherwise raises this threshold as big blocks are freed and keeps them in the heap: an attack's peak would stay
 * resident).
 */
static void tune_process(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
}

int gpa_server_run(const gpa_server_opts_t *o)
{
    if (o->http2) {
        /* h2o 2.2.5 buffers each HTTP/2 stream's body where no API reaches it (100 streams a connection, each up to
         * the body cap): the byte budget cannot count it, so HTTP/2 is refused rather than served unbounded. */
        gpa_log_msg(GPA_LOG_ERROR, "--http2 is refused",
                    "HTTP/2 request bodies cannot be counted in --max-inflight-bytes with h2o 2.2.5; kube-apiserver speaks "
                    "HTTP/1.1 to webhooks (docs/webhook.md#limits)");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a peer that closes mid-write must not kill the server */
    tune_process();
    max_connections = o->max_connections;
    max_body = o->max_body;
    inflight_budget = (int64_t)o->max_inflight_bytes;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by every thread: only sigtimedwait sees them */

    gpa_reload_opts_t ro;
    gpa_tls_t *tls = load_all(o, &ro);
    if (tls == NULL)
        return 2;
    init_conf(&webhook_conf, o, 0);
    init_conf(&metrics_conf, o, 1);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nthreads = o->threads != 0 ? o->threads : cores > 0 ? (unsigned)cores : 1;
    char addr[64] = "", maddr[64] = "", err[512];
    gpa_judge_opts_t jo;
    gpa_judge_opts_init(&jo);
    jo.threads = o->judge_threads != 0 ? o->judge_threads : nthreads;
    jo.deadline_ms = o->search_deadline_ms;
    jo.queue = 2 * jo.threads;
    gpa_judge_start(&jo);
    atomic_store(&phase, PHASE_SERVE);
    if (start_workers(o, gpa_tls_ctx(tls), nthreads, addr, maddr, err, sizeof(err)) != 0) {
        gpa_log_msg(GPA_LOG_ERROR, "cannot listen", err);
        gpa_judge_stop();
        gpa_reload_dispose();
        gpa_tls_free(tls);
        return 2;
    }
    gpa_metrics_set_ready(1);
    log_start(o, nthreads, addr, maddr, tls);

    int sig = wait_for_signal(&set, o->reload_interval_ms);
    gpa_metrics_set_ready(0);
    atomic_store(&phase, PHASE_DRAIN);
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "shutting down");
    gpa_log_str(l, "signal", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    gpa_log_int(l, "inFlight", gpa_metrics_inflight());
    gpa_log_int(l, "connections", gpa_metrics_connections());
    gpa_log_end(l);
    drain(o->shutdown_grace_ms);
    gpa_judge_stop(); /* before the workers end: no answer is posted to a loop that has stopped */
    atomic_store(&phase, PHASE_STOP);
    for (size_t i = 0; i < nworkers; i++)
        pthread_join(workers[i].tid, NULL);
    gpa_log_msg(GPA_LOG_INFO, "stopped", NULL);
    gpa_reload_dispose();
    gpa_tls_free(tls); /* connections left open hold their own references to the context */
    return 0;
}
