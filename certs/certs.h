/*
 * gpuadmit certificates: a self-signed CA and a serving certificate for the webhook's Service, made with
 * OpenSSL 3's API (never the openssl command), and the expiry of a certificate for the webhook's metrics.
 *
 * Files in the output directory (PEM):
 *   ca.crt   the CA certificate (mode 0644): its base64 is the webhook configurations' caBundle
 *   ca.key   the CA key (mode 0600): keep it out of the cluster; it lets the next rotation keep the same CA
 *   tls.crt  the serving certificate (mode 0644), signed by the CA
 *   tls.key  the serving key (mode 0600)
 * Every file is written to a temporary file in the same directory and renamed over the old one, so a watcher
 * (the webhook's reloader, a kubelet syncing a Secret) never reads half a file.
 *
 * Rotation: when ca.crt and ca.key already exist and hold a usable CA (it parses, is a CA with keyCertSign,
 * the key matches, it is valid now and until the new serving certificate expires), it is reused unchanged, so
 * clients that trust the old caBundle trust the new serving certificate. An existing but unusable CA is an
 * error naming the file and the reason; it is never silently replaced (that would break trust). Delete
 * ca.crt and ca.key to start over with a new CA.
 *
 * Errors: functions return 0 or -1 and fill a gpa_error_t whose message names the file and the reason.
 * No function prints anything or exits.
 */
#ifndef GPA_CERTS_H
#define GPA_CERTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* OpenSSL's X509 (struct x509_st), declared here so this header does not pull in OpenSSL's. */
struct x509_st;

typedef enum en_gpa_certs_key_t {
    GPA_CERTS_KEY_ECDSA_P256, /* default */
    GPA_CERTS_KEY_RSA_2048,
} gpa_certs_key_t;

#define GPA_CERTS_DEFAULT_DAYS 365
#define GPA_CERTS_DEFAULT_CA_DAYS 3650
#define GPA_CERTS_MAX_DAYS 36500 /* 100 years; also keeps every time computation far from overflow */
#define GPA_CERTS_MAX_EXTRA_SANS 64

typedef struct st_gpa_certs_options_t {
    const char *service;           /* Kubernetes Service name (DNS-1035 label), required */
    const char *namespace_;        /* its namespace (DNS-1123 label), required */
    const char *out_dir;           /* created (mode 0755) when missing; its parent must exist */
    int days;                      /* serving certificate lifetime, 1..GPA_CERTS_MAX_DAYS */
    int ca_days;                   /* lifetime of a new CA, days..GPA_CERTS_MAX_DAYS (raised to `days` if lower) */
    const char *const *extra_sans; /* more names: an IPv4/IPv6 address becomes an IP SAN, anything else must
                                      be a DNS name (a leading "*." wildcard is allowed) */
    size_t nextra_sans;
    gpa_certs_key_t key_type; /* of the serving key, and of the CA key when a new CA is made */
} gpa_certs_options_t;

typedef struct st_gpa_certs_result_t {
    int ca_reused;     /* 1 when an existing CA was kept, 0 when a new one was made */
    char *ca_bundle;   /* new (caller frees, or gpa_certs_result_dispose): base64 of ca.crt, one line */
    char *sans;        /* new: the serving certificate's names, comma-separated, for a log line */
    int64_t not_after; /* the serving certificate's expiry, seconds since the epoch (UTC) */
} gpa_certs_result_t;

/* Fills opts with the defaults: no service/namespace/dir, 365 days, CA 3650 days, ECDSA P-256. */
void gpa_certs_options_init(gpa_certs_options_t *opts);

/*
 * Checks the options without touching the file system: names, day counts, each extra SAN. On error the message
 * says which option is wrong and why (the CLI turns that into exit 2).
 */
int gpa_certs_check_options(const gpa_certs_options_t *opts, gpa_error_t *err);

/*
 * Makes (or reuses) the CA and makes a new serving certificate and key in opts->out_dir, as described above.
 * On success fills *res (dispose it with gpa_certs_result_dispose). On failure *res is left empty and files
 * already renamed into place stay there (each file is whole; a CA is only written when it was new).
 */
int gpa_certs_generate(const gpa_certs_options_t *opts, gpa_certs_result_t *res, gpa_error_t *err);

/* Frees what *res owns; res may be NULL or already disposed. */
void gpa_certs_result_dispose(gpa_certs_result_t *res);

/*
 * The expiry (notAfter) of a certificate, as seconds since the epoch (UTC), exact (no floating point).
 * - gpa_certs_not_after_file: the first certificate in a PEM file (e.g. the webhook's --cert).
 * - gpa_certs_not_after_pem: the first certificate in a PEM buffer of `len` bytes.
 * - gpa_certs_not_after_x509: a parsed certificate (borrowed), e.g. SSL_CTX_get0_certificate()'s.
 * The webhook's "seconds until the serving certificate expires" metric is *out minus the current time.
 */
int gpa_certs_not_after_file(const char *path, int64_t *out, gpa_error_t *err);
int gpa_certs_not_after_pem(const char *pem, size_t len, int64_t *out, gpa_error_t *err);
int gpa_certs_not_after_x509(const struct x509_st *cert, int64_t *out, gpa_error_t *err);

#endif
