/*
 * One request to the API server over libcurl (docs/decisions.md says why libcurl; docs/cluster.md how it
 * authenticates, rotates tokens and times out).
 */
#include "client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"

#define CONNECT_TIMEOUT_MS 10000L
#define CALL_TIMEOUT_MS 60000L
/* A body larger than this is refused rather than held (a list is paged far below it). */
#define MAX_BODY ((size_t)512 << 20)

struct st_gpa_kube_client_t {
    CURL *curl;
    CURLM *multi;             /* streams run here, so gpa_kube_client_wakeup can interrupt their wait */
    gpa_kube_target_t target; /* a copy, owned */
    struct stat token_seen;   /* the token file as it was when last read */
    int token_read;           /* token_seen is valid */
    long timeout_ms;
    long connect_timeout_ms;
    char curl_error[CURL_ERROR_SIZE];
};

/* One transfer's state, handed to libcurl's callbacks. */
typedef struct st_transfer_t {
    gpa_kube_client_t *client;
    gpa_kube_reply_t *reply;
    const gpa_kube_stream_t *stream; /* NULL for a call: the whole body goes to reply */
    int too_big;
} transfer_t;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

/*
 * Once per process. libcurl runs with CURLOPT_NOSIGNAL (threads), so it does not mask SIGPIPE around its writes,
 * and OpenSSL writing to a connection the API server closed would raise it: ignored, unless the program chose
 * a handler of its own.
 */
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? gpa_xstrdup(s) : NULL;
}

static char *dup_blob(const char *s, size_t len)
{
    if (s == NULL)
        return NULL;
    char *copy = gpa_xmalloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static void copy_target(gpa_kube_target_t *dst, const gpa_kube_target_t *src)
{
    dst->server = dup_or_null(src->server);
    dst->ca_pem = dup_blob(src->ca_pem, src->ca_pem_len);
    dst->ca_pem_len = src->ca_pem_len;
    dst->insecure_skip_verify = src->insecure_skip_verify;
    dst->token = dup_or_null(src->token);
    dst->token_file = dup_or_null(src->token_file);
    dst->client_cert_pem = dup_or_null(src->client_cert_pem);
    dst->client_key_pem = dup_or_null(src->client_key_pem);
    dst->ns = dup_or_null(src->ns);
}

/* CONNECT_TIMEOUT_MS, or $GPA_KUBE_CONNECT_TIMEOUT_MS when it is a positive number (client.h: for tests). */
static long connect_timeout(void)
{
    const char *env = getenv("GPA_KUBE_CONNECT_TIMEOUT_MS");
    if (env == NULL)
        return CONNECT_TIMEOUT_MS;
    char *end;
    long ms = strtol(env, &end, 10);
    return end != env && *end == '\0' && ms > 0 ? ms : CONNECT_TIMEOUT_MS;
}

gpa_kube_client_t *gpa_kube_client_new(const gpa_kube_target_t *target, gpa_error_t *err)
{
    if (target->server == NULL) {
        gpa_error_set(err, 0, 0, NULL, "no API server to talk to");
        return NULL;
    }
    pthread_once(&curl_once, init_curl);
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        gpa_error_set(err, 0, 0, NULL, "libcurl could not start");
        return NULL;
    }
    gpa_kube_client_t *c = gpa_xcalloc(1, sizeof(*c));
    c->curl = curl;
    c->multi = curl_multi_init();
    if (c->multi == NULL) {
        curl_easy_cleanup(curl);
        free(c);
        gpa_error_set(err, 0, 0, NULL, "libcurl could not start");
        return NULL;
    }
    c->timeout_ms = CALL_TIMEOUT_MS;
    c->connect_timeout_ms = connect_timeout();
    copy_target(&c->target, target);
    return c;
}

void gpa_kube_client_free(gpa_kube_client_t *c)
{
    if (c == NULL)
        return;
    curl_multi_cleanup(c->multi);
    curl_easy_cleanup(c->curl);
    gpa_kube_target_dispose(&c->target);
    free(c);
}

void gpa_kube_client_wakeup(gpa_kube_client_t *c)
{
    curl_multi_wakeup(c->multi);
}

void gpa_kube_client_set_timeout(gpa_kube_client_t *c, long ms)
{
    c->timeout_ms = ms;
}

void gpa_kube_reply_dispose(gpa_kube_reply_t *r)
{
    gpa_buf_dispose(&r->body);
    r->status = 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * Re-reads the token file when it changed since the last read (bound tokens rotate; kubelet replaces the file),
 * or always when `force`. Returns 1 when the token changed, 0 otherwise; an unreadable file keeps the old token.
 */
static int refresh_token(gpa_kube_client_t *c, int force)
{
    if (c->target.token_file == NULL)
        return 0;
    struct stat st;
    if (stat(c->target.token_file, &st) != 0)
        return 0;
    if (!force && c->token_read && same_file(&st, &c->token_seen))
        return 0;
    FILE *f = fopen(c->target.token_file, "rb");
    if (f == NULL)
        return 0;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    c->token_seen = st;
    c->token_read = 1;
    if (n == 0 || (c->target.token != NULL && strcmp(c->target.token, buf) == 0))
        return 0;
    free(c->target.token);
    c->target.token = gpa_xstrdup(buf);
    return 1;
}

static size_t on_write(char *data, size_t size, size_t n, void *userdata)
{
    transfer_t *t = userdata;
    size_t len = size * n;
    if (t->stream != NULL) {
        long status = 0;
        curl_easy_getinfo(t->client->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status >= 200 && status < 300)
            return t->stream->on_data(t->stream->ctx, data, len) == 0 ? len : 0;
    }
    if (t->reply->body.len + len > MAX_BODY) {
        t->too_big = 1;
        return 0;
    }
    gpa_buf_append(&t->reply->body, data, len);
    return len;
}

static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    const transfer_t *t = userdata;
    return t->stream != NULL && t->stream->stop != NULL && t->stream->stop(t->stream->ctx) ? 1 : 0;
}

static struct curl_slist *headers_for(const gpa_kube_client_t *c, const char *content_type)
{
    struct curl_slist *h = NULL;
    char line[16384];
    h = curl_slist_append(h, "Accept: application/json");
    h = curl_slist_append(h, "Expect:"); /* no 100-continue round trip before a body */
    if (content_type != NULL) {
        snprintf(line, sizeof(line), "Content-Type: %s", content_type);
        h = curl_slist_append(h, line);
    }
    /* A token with a line break would add headers of its own: never sent (the server then says 401). */
    if (c->target.token != NULL && c->target.token[0] != '\0' && strpbrk(c->target.token, "\r\n") == NULL) {
        snprintf(line, sizeof(line), "Authorization: Bearer %s", c->target.token);
        h = curl_slist_append(h, line);
    }
    return h;
}

static void set_tls(gpa_kube_client_t *c)
{
    CURL *curl = c->curl;
    if (c->target.insecure_skip_verify) {
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (c->target.ca_pem != NULL) {
        struct curl_blob ca = {c->target.ca_pem, c->target.ca_pem_len, CURL_BLOB_COPY};
        curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    }
    if (c->target.client_cert_pem != NULL && c->target.client_key_pem != NULL) {
        struct curl_blob cert = {c->target.client_cert_pem, strlen(c->target.client_cert_pem), CURL_BLOB_COPY};
        struct curl_blob key = {c->target.client_key_pem, strlen(c->target.client_key_pem), CURL_BLOB_COPY};
        curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
        curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
        curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    }
}

/*
 * A stream's transfer, on the client's multi handle: the wait for data ends when data comes, after a second
 * at most, or at once on gpa_kube_client_wakeup; the stop function is asked each time.
 */
static CURLcode perform_stream(gpa_kube_client_t *c, const gpa_kube_stream_t *s)
{
    if (curl_multi_add_handle(c->multi, c->curl) != CURLM_OK)
        return CURLE_FAILED_INIT;
    CURLcode rc = CURLE_OK;
    int running = 1;
    while (running) {
        if (curl_multi_perform(c->multi, &running) != CURLM_OK) {
            rc = CURLE_FAILED_INIT;
            break;
        }
        if (running && s->stop != NULL && s->stop(s->ctx)) {
            rc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (running && curl_multi_poll(c->multi, NULL, 0, 1000, NULL) != CURLM_OK) {
            rc = CURLE_FAILED_INIT;
            break;
        }
    }
    int left;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(c->multi, &left)) != NULL)
        if (msg->msg == CURLMSG_DONE && rc == CURLE_OK)
            rc = msg->data.result;
    curl_multi_remove_handle(c->multi, c->curl);
    return rc;
}

/* A server on the loopback (kubectl proxy, the tests' fake) is never reached through $HTTPS_PROXY, as in client-go. */
static int on_loopback(const char *server)
{
    static const char *const loopback[] = {"https://127.", "https://localhost:", "https://localhost/", "https://[::1]", NULL};
    for (const char *const *l = loopback; *l != NULL; l++)
        if (strncmp(server, *l, strlen(*l)) == 0 || strcmp(server, "https://localhost") == 0)
            return 1;
    return 0;
}

/* One attempt: options reset (the connection stays alive in the handle), sent, answered. */
static int perform(gpa_kube_client_t *c, const char *method, const char *path, const char *content_type, const void *body,
                   size_t len, transfer_t *t, long timeout_ms, gpa_error_t *err)
{
    CURL *curl = c->curl;
    curl_easy_reset(curl);
    gpa_buf_t url = GPA_BUF_INIT;
    gpa_buf_printf(&url, "%s%s", c->target.server, path);
    curl_easy_setopt(curl, CURLOPT_URL, url.base);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for name lookups */
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "gpuadmit/" GPA_VERSION);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, c->curl_error);
    if (on_loopback(c->target.server))
        curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    set_tls(c);
    struct curl_slist *headers = headers_for(c, content_type);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (strcmp(method, "GET") != 0)
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    if (body != NULL) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, t);
    if (t->stream != NULL) {
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, t);
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }
    c->curl_error[0] = '\0';
    CURLcode rc = t->stream != NULL ? perform_stream(c, t->stream) : curl_easy_perform(curl);
    curl_slist_free_all(headers);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &t->reply->status);
    curl_off_t retry_after = 0;
    if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
        t->reply->retry_after_s = retry_after > 86400 ? 86400 : (long)retry_after;
    if (rc == CURLE_OK) {
        gpa_buf_dispose(&url);
        return 0;
    }
    if (t->too_big)
        gpa_error_set(err, 0, 0, NULL, "%s %s: the answer is larger than %zu bytes", method, url.base, MAX_BODY);
    else
        gpa_error_set(err, 0, 0, NULL, "%s %s: %s", method, url.base,
                      c->curl_error[0] != '\0' ? c->curl_error : curl_easy_strerror(rc));
    gpa_buf_dispose(&url);
    return -1;
}

/* Sends, and after a 401 re-reads the token file once and sends again when the token changed. */
static int send_with_token(gpa_kube_client_t *c, const char *method, const char *path, const char *content_type, const void *body,
                           size_t len, transfer_t *t, long timeout_ms, gpa_error_t *err)
{
    refresh_token(c, 0);
    if (perform(c, method, path, content_type, body, len, t, timeout_ms, err) != 0)
        return -1;
    if (t->reply->status != 401 || !refresh_token(c, 1))
        return 0;
    gpa_buf_reset(&t->reply->body);
    return perform(c, method, path, content_type, body, len, t, timeout_ms, err);
}

int gpa_kube_call(gpa_kube_client_t *c, const char *method, const char *path, const char *content_type, const void *body,
                  size_t len, gpa_kube_reply_t *reply, gpa_error_t *err)
{
    memset(reply, 0, sizeof(*reply));
    transfer_t t = {c, reply, NULL, 0};
    return send_with_token(c, method, path, content_type, body, len, &t, c->timeout_ms, err);
}

int gpa_kube_stream(gpa_kube_client_t *c, const char *path, const gpa_kube_stream_t *s, gpa_kube_reply_t *reply, gpa_error_t *err)
{
    memset(reply, 0, sizeof(*reply));
    transfer_t t = {c, reply, s, 0};
    return send_with_token(c, "GET", path, NULL, NULL, 0, &t, s->timeout_ms, err);
}
