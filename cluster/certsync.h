/*
 * gpuadmit cluster: self-managed webhook certificates (`gpuadmit serve --cert-secret`, the chart's default).
 *
 * The CA and the serving certificate live in one Secret that every replica shares. One sync (gpa_certsync_once):
 *   1. the Secret: read it; create it when missing (POST; a 409 means another replica won the race: read
 *      theirs); renew or remake it when due or unusable (PUT carrying the resourceVersion that was read, so of
 *      two replicas racing only one write lands and the other reads the winner's);
 *   2. the caBundle: written into every webhook of the ValidatingWebhookConfiguration and the
 *      MutatingWebhookConfiguration named opts->webhook_config (PUT with the resourceVersion read; a
 *      configuration that does not exist is skipped, one that changed under us is read again);
 *   3. the files: tls.crt and tls.key in opts->dir for the webhook's reloader, switched together as the kubelet
 *      switches a mounted Secret (a new directory, then one rename of the `..data` symlink they point through).
 * The bundle is written before the files, so a replica never serves a certificate the bundle it wrote does not
 * trust. The bundle (PEM) is also written to ca-bundle.crt in opts->dir, for the webhook registration
 * (register.h) to give configurations it creates.
 *
 * Secret keys (PEM): ca.crt and ca.key (the CA that signs new serving certificates), tls.crt and tls.key (the
 * serving certificate), ca-bundle.crt (every CA to trust: the signing CA first, then the previous one while a
 * change is under way), and ca-switch-after (seconds since the epoch, while a new CA waits to be served from).
 *
 * Rotation, docs/deploy.md#certificates:
 * - the serving certificate is renewed from the same CA when less than renew_before remains: the bundle does
 *   not change, so each replica may switch whenever it syncs;
 * - the CA is renewed when it would not outlive a new serving certificate by renew_before. In two steps: first
 *   the new CA joins the bundle (signing CA = new, serving certificate still the old CA's), and only when
 *   switch_delay has passed is a serving certificate issued by the new CA; by then every replica has written
 *   the bundle holding both CAs, so no request meets a certificate its caller does not trust;
 * - a Secret that is unusable (edited by hand: missing keys, a certificate that does not parse, a key that does
 *   not match, a serving certificate for other names or from another CA) is remade at once with a new CA; CAs
 *   of the old bundle that still parse and have not expired stay in the bundle.
 *
 * Errors are values: -1 with err (the API call, its status and the server's message); nothing is printed.
 */
#ifndef GPA_CLUSTER_CERTSYNC_H
#define GPA_CLUSTER_CERTSYNC_H
#include <stdint.h>
#include "base/error.h"
#include "client.h"

typedef struct st_gpa_certsync_opts_t {
    const char *secret;         /* the Secret's name */
    const char *ns;             /* its namespace, and the Service's */
    const char *service;        /* the Service kube-apiserver calls: the certificate's names (certs/options.h) */
    const char *webhook_config; /* the name of both webhook configurations */
    const char *dir;            /* where tls.crt and tls.key are written (made when missing; its parent must exist) */
    int days;                   /* serving certificate lifetime, days (default 365) */
    int ca_days;                /* CA lifetime, days (default 3650) */
    int64_t renew_before;       /* seconds: renew what has less than this left (default 30 days) */
    int64_t switch_delay;       /* seconds between trusting a new CA and serving from it (default 300) */
} gpa_certsync_opts_t;

/* What one sync did (each 0 or 1), for the log and the tests. */
typedef struct st_gpa_certsync_result_t {
    int created;        /* this call created the Secret */
    int renewed;        /* this call issued a new serving certificate into the Secret */
    int ca_added;       /* this call added a new CA to the bundle (first step of a CA change) */
    int regenerated;    /* the Secret was unusable and this call remade it */
    int bundle_written; /* at least one webhook configuration got a new caBundle */
    int files_written;  /* tls.crt and tls.key in dir changed */
    int configs_found;  /* how many of the two webhook configurations exist (a missing one is skipped) */
    int64_t not_after;  /* the serving certificate's expiry, seconds since the epoch */
} gpa_certsync_result_t;

/* Fills opts with the defaults above; the names and dir stay NULL. */
void gpa_certsync_opts_init(gpa_certsync_opts_t *opts);

/* One sync, as described above. Returns 0, or -1 with err; *res says what changed (also after a failure). */
int gpa_certsync_once(gpa_kube_client_t *c, const gpa_certsync_opts_t *opts, gpa_certsync_result_t *res, gpa_error_t *err);

#endif
