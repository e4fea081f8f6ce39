/*
 * gpuadmit certificates: a self-signed CA and a serving certificate for the webhook's Service, made with
 * OpenSSL 3's API (never the openssl command). What to make is a gpa_certs_options_t (options.h); a
 * certificate's expiry, for the webhook's metrics too, is expiry.h's.
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
#include "options.h"

typedef struct st_gpa_certs_result_t {
    int ca_reused;     /* 1 when an existing CA was kept, 0 when a new one was made */
    char *ca_bundle;   /* new (caller frees, or gpa_certs_result_dispose): base64 of ca.crt, one line */
    char *sans;        /* new: the serving certificate's names, comma-separated, for a log line */
    int64_t not_after; /* the serving certificate's expiry, seconds since the epoch (UTC) */
} gpa_certs_result_t;

/*
 * Makes (or reuses) the CA and makes a new serving certificate and key in opts->out_dir, as described above.
 * On success fills *res (dispose it with gpa_certs_result_dispose). On failure *res is left empty and files
 * already renamed into place stay there (each file is whole; a CA is only written when it was new).
 */
int gpa_certs_generate(const gpa_certs_options_t *opts, gpa_certs_result_t *res, gpa_error_t *err);

/* Frees what *res owns; res may be NULL or already disposed. */
void gpa_certs_result_dispose(gpa_certs_result_t *res);

/* base64 of data[0..len) on one line, as a caBundle and a Secret's data hold it; new (caller frees). */
char *gpa_certs_base64(const void *data, size_t len);

#endif
