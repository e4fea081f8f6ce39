/*
 * The webhook's TLS side: one SSL_CTX shared by every worker, and the serving certificate behind a lock so a
 * reload swaps it under traffic. The certificate is chosen per handshake (SSL_CTX_set_cert_cb), so a new
 * handshake gets the newest certificate while established connections keep theirs and are never dropped.
 *
 * Policy: TLS 1.2 minimum (1.3 when asked), ECDHE with AEAD ciphers only, no renegotiation or compression,
 * ALPN http/1.1 (and h2 only when HTTP/2 is enabled), optional client-certificate verification.
 */
#ifndef GPA_WEBHOOK_TLS_H
#define GPA_WEBHOOK_TLS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

typedef struct st_gpa_tls_t gpa_tls_t;

typedef struct st_gpa_tls_opts_t {
    const char *cert;      /* PEM: the serving certificate, then any intermediates (borrowed, kept for reloads) */
    const char *key;       /* PEM private key matching cert (borrowed, kept for reloads) */
    const char *client_ca; /* PEM bundle; when set, clients must present a certificate it signed (NULL: none) */
    int min_version;       /* TLS1_2_VERSION or TLS1_3_VERSION */
    int http2;             /* offer h2 in ALPN */
} gpa_tls_opts_t;

/*
 * Creates the context and loads the certificate pair. Returns a new gpa_tls_t (free with gpa_tls_free), or
 * NULL with a one-line reason in err (which file and what is wrong).
 */
gpa_tls_t *gpa_tls_new(const gpa_tls_opts_t *opts, char *err, size_t errsize);
/* The shared context (borrowed; lives as long as tls). */
SSL_CTX *gpa_tls_ctx(gpa_tls_t *tls);
/*
 * Loads the certificate and key files again. On success new handshakes use the new pair and 0 is returned; on
 * any failure (unreadable, not PEM, key does not match) the pair in force stays and -1 is returned with err.
 * Thread-safe against handshakes running on worker threads.
 */
int gpa_tls_reload(gpa_tls_t *tls, char *err, size_t errsize);
/* notAfter of the certificate in force, seconds since the epoch. */
int64_t gpa_tls_not_after(gpa_tls_t *tls);
/* Subject CN or first SAN-less description of the certificate in force, for logs (static buffer in tls). */
const char *gpa_tls_subject(gpa_tls_t *tls);
void gpa_tls_free(gpa_tls_t *tls); /* NULL is fine */

#endif
