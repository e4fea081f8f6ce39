#include "tls.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <h2o.h>

#include "base/arena.h"
#include "base/error.h"
#include "expiry.h"
#include "log.h"
#include "pem.h"
#include "metrics.h"

/* One loaded certificate pair; immutable once built, freed when replaced (the SSL objects hold own refs). */
typedef struct st_keypair_t {
    X509 *cert;
    STACK_OF(X509) * chain;
    EVP_PKEY *key;
    int64_t not_after;
    char subject[256];
} keypair_t;

struct st_gpa_tls_t {
    SSL_CTX *ctx;
    const char *cert_path, *key_path;
    pthread_mutex_t lock; /* guards current */
    keypair_t *current;
};

static const char tls12_ciphers[] = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                                    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                                    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

static const h2o_iovec_t http1_alpn[] = {{H2O_STRLIT("http/1.1")}, {NULL, 0}};

static void keypair_free(keypair_t *kp)
{
    if (kp == NULL)
        return;
    X509_free(kp->cert);
    sk_X509_pop_free(kp->chain, X509_free);
    EVP_PKEY_free(kp->key);
    free(kp);
}

/* The oldest OpenSSL error as text, then the queue cleared so the next failure starts clean. */
static const char *ssl_reason(void)
{
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;
    return r != NULL ? r : "no PEM data";
}

static int read_chain(keypair_t *kp, const char *path, char *err, size_t errsize)
{
    BIO *b = BIO_new_file(path, "r");
    if (b == NULL) {
        snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    kp->cert = gpa_pem_cert(b);
    if (kp->cert == NULL) {
        snprintf(err, errsize, "%s: not a PEM certificate (%s)", path, ssl_reason());
        BIO_free(b);
        return -1;
    }
    kp->chain = sk_X509_new_null();
    X509 *x;
    while ((x = gpa_pem_cert(b)) != NULL)
        sk_X509_push(kp->chain, x);
    ERR_clear_error(); /* the loop ends on "no start line": not an error */
    BIO_free(b);
    return 0;
}

static int read_key(keypair_t *kp, const char *path, char *err, size_t errsize)
{
    BIO *b = BIO_new_file(path, "r");
    if (b == NULL) {
        snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    kp->key = gpa_pem_key(b);
    BIO_free(b);
    if (kp->key == NULL) {
        snprintf(err, errsize, "%s: not a PEM private key (%s)", path, ssl_reason());
        return -1;
    }
    return 0;
}

static int describe(keypair_t *kp, const char *cert_path, char *err, size_t errsize)
{
    gpa_error_t e = {0};
    gpa_error_init(&e, cert_path);
    if (gpa_certs_not_after_x509(kp->cert, &kp->not_after, &e) != 0) {
        gpa_error_format(&e, err, errsize);
        return -1;
    }
    X509_NAME_oneline(X509_get_subject_name(kp->cert), kp->subject, sizeof(kp->subject));
    return 0;
}

/* Reads and checks a pair; NULL with err when anything is wrong, so a broken file is never put in force. */
static keypair_t *keypair_load(const char *cert_path, const char *key_path, char *err, size_t errsize)
{
    keypair_t *kp = gpa_xcalloc(1, sizeof(*kp));
    if (read_chain(kp, cert_path, err, errsize) != 0 || read_key(kp, key_path, err, errsize) != 0)
        goto Error;
    if (X509_check_private_key(kp->cert, kp->key) != 1) {
        snprintf(err, errsize, "%s does not match the certificate in %s", key_path, cert_path);
        ERR_clear_error();
        goto Error;
    }
    if (describe(kp, cert_path, err, errsize) != 0)
        goto Error;
    return kp;
Error:
    keypair_free(kp);
    return NULL;
}

/* Called for every handshake before the cipher is chosen: serve the pair in force now. */
static int on_cert(SSL *ssl, void *arg)
{
    gpa_tls_t *tls = arg;
    int ok = 0;
    pthread_mutex_lock(&tls->lock);
    keypair_t *kp = tls->current;
    if (kp != NULL && SSL_use_certificate(ssl, kp->cert) == 1 && SSL_use_PrivateKey(ssl, kp->key) == 1 &&
        SSL_set1_chain(ssl, kp->chain) == 1)
        ok = 1;
    pthread_mutex_unlock(&tls->lock);
    return ok;
}

/* Logs the fatal alerts we send: a failed handshake is otherwise invisible (h2o closes silently). */
static void on_info(const SSL *ssl, int where, int ret)
{
    (void)ssl;
    if ((where & SSL_CB_WRITE_ALERT) == 0 || (ret >> 8) != SSL3_AL_FATAL)
        return;
    gpa_metrics_tls_failure();
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_WARN, "TLS handshake failed");
    gpa_log_str(l, "alert", SSL_alert_desc_string_long(ret));
    gpa_log_end(l);
}

static int configure(gpa_tls_t *tls, const gpa_tls_opts_t *opts, char *err, size_t errsize)
{
    SSL_CTX *ctx = tls->ctx;
    SSL_CTX_set_min_proto_version(ctx, opts->min_version);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (SSL_CTX_set_cipher_list(ctx, tls12_ciphers) != 1) {
        snprintf(err, errsize, "cipher list rejected: %s", ssl_reason());
        return -1;
    }
    SSL_CTX_set_cert_cb(ctx, on_cert, tls);
    SSL_CTX_set_info_callback(ctx, on_info);
    h2o_ssl_register_alpn_protocols(ctx, opts->http2 ? h2o_http2_alpn_protocols : http1_alpn);
    if (opts->client_ca == NULL)
        return 0;
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(opts->client_ca);
    if (names == NULL || SSL_CTX_load_verify_locations(ctx, opts->client_ca, NULL) != 1) {
        snprintf(err, errsize, "%s: cannot load client CA (%s)", opts->client_ca, ssl_reason());
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        return -1;
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    return 0;
}

gpa_tls_t *gpa_tls_new(const gpa_tls_opts_t *opts, char *err, size_t errsize)
{
    gpa_tls_t *tls = gpa_xcalloc(1, sizeof(*tls));
    pthread_mutex_init(&tls->lock, NULL);
    tls->cert_path = opts->cert;
    tls->key_path = opts->key;
    if ((tls->ctx = SSL_CTX_new(TLS_server_method())) == NULL) {
        snprintf(err, errsize, "SSL_CTX_new: %s", ssl_reason());
        goto Error;
    }
    if (configure(tls, opts, err, errsize) != 0 || gpa_tls_reload(tls, err, errsize) != 0)
        goto Error;
    return tls;
Error:
    gpa_tls_free(tls);
    return NULL;
}

SSL_CTX *gpa_tls_ctx(gpa_tls_t *tls)
{
    return tls->ctx;
}

int gpa_tls_reload(gpa_tls_t *tls, char *err, size_t errsize)
{
    keypair_t *kp = keypair_load(tls->cert_path, tls->key_path, err, errsize);
    if (kp == NULL)
        return -1;
    pthread_mutex_lock(&tls->lock);
    keypair_t *old = tls->current;
    tls->current = kp;
    pthread_mutex_unlock(&tls->lock);
    /* Handshakes that took the old pair hold their own references (SSL_use_* up-ref). */
    keypair_free(old);
    return 0;
}

int64_t gpa_tls_not_after(gpa_tls_t *tls)
{
    pthread_mutex_lock(&tls->lock);
    int64_t t = tls->current != NULL ? tls->current->not_after : 0;
    pthread_mutex_unlock(&tls->lock);
    return t;
}

const char *gpa_tls_subject(gpa_tls_t *tls)
{
    /* Only the reloading thread replaces current, and only it asks: no lock needed for the caller's read. */
    return tls->current != NULL ? tls->current->subject : "";
}

void gpa_tls_free(gpa_tls_t *tls)
{
    if (tls == NULL)
        return;
    SSL_CTX_free(tls->ctx);
    keypair_free(tls->current);
    pthread_mutex_destroy(&tls->lock);
    free(tls);
}
