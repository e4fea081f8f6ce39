/*
 * Self-managed webhook certificates in the background (`serve --cert-secret`, docs/deploy.md#certificates): the first
 * sync before the server starts (retried for about a minute: the server cannot start without a certificate), then a
 * thread started as serve's others are (daemon/thread.h: SIGTERM and SIGINT blocked, so a signal always reaches the
 * server's graceful drain) that syncs every interval, quickly at first while Helm may still be creating the webhook
 * configurations. The syncing itself is cluster/certsync.h's.
 *
 * Ownership: the run is the caller's (zeroed before start); it borrows opts until gpa_certrun_stop.
 */
#ifndef GPA_CERTRUN_H
#define GPA_CERTRUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "certsync.h"
#include "client.h"
#include "kubeconfig.h"

typedef struct st_gpa_certrun_t {
    gpa_kube_client_t *client;
    const gpa_certsync_opts_t *opts;
    int64_t interval; /* seconds */
    pthread_t thread;
    int started;
    atomic_int stop; /* set when the server has stopped: the thread ends before the process tears down */
} gpa_certrun_t;

/* Connects with kube (--kubeconfig, --context), syncs once, and starts the background syncs every interval seconds.
 * Returns 0, or -1 (logged) when no API server can be reached or the first sync keeps failing. */
int gpa_certrun_start(gpa_certrun_t *run, const gpa_kube_options_t *kube, const gpa_certsync_opts_t *opts, int64_t interval);
/* Ends the background sync (waiting for one under way) and frees the client; a run never started is left alone. */
void gpa_certrun_stop(gpa_certrun_t *run);

#endif
