/*
 * gpuadmit serve --register-webhooks (cluster/register.h): a thread that registers the webhook configurations once
 * this server is ready (/readyz would answer 200: serving, and the cluster inventory's first sync done), then keeps
 * them as their files say at every interval. Until the first registration it looks every second.
 *
 * The thread is started with SIGTERM and SIGINT blocked (gpa_server_run waits for them on its own thread).
 * Ownership: opts and its strings are borrowed until gpa_registrar_stop.
 */
#ifndef GPA_CLI_REGISTRAR_H
#define GPA_CLI_REGISTRAR_H
#include <stdint.h>

#include "base/error.h"
#include "kubeconfig.h"
#include "register.h"

typedef struct st_gpa_registrar_opts_t {
    gpa_register_opts_t reg;
    gpa_kube_options_t kube; /* --kubeconfig, --context */
    int64_t interval;        /* seconds between syncs once registered (default 60) */
} gpa_registrar_opts_t;

typedef struct st_gpa_registrar_t gpa_registrar_t;

/* Resolves the API server and starts the thread. Returns the new registrar, or NULL with err. */
gpa_registrar_t *gpa_registrar_start(const gpa_registrar_opts_t *opts, gpa_error_t *err);
/* Stops the thread (waiting for a sync under way) and frees it. NULL is fine. */
void gpa_registrar_stop(gpa_registrar_t *r);

#endif
