/*
 * The thread behind serve --register-webhooks (registrar.h).
 */
#include "daemon/registrar.h"
#include "daemon/thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "log.h"
#include "metrics.h"

struct st_gpa_registrar_t {
    gpa_registrar_opts_t opts;
    gpa_kube_client_t *client;
    pthread_t thread;
    atomic_int stop;
};

/* What /readyz says: serving, and no source (the cluster inventory) still waiting. */
static int server_ready(void)
{
    return gpa_metrics_ready() && gpa_metrics_waiting() == NULL;
}

static void log_result(const gpa_registrar_t *r, const gpa_register_result_t *res, int *said_waiting)
{
    if (res->waiting && !*said_waiting)
        gpa_log_msg(GPA_LOG_INFO, "webhook registration waits for a ready endpoint of the Service", r->opts.reg.service);
    *said_waiting = res->waiting;
    if (res->created == 0 && res->updated == 0)
        return;
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_INFO, "webhook configurations registered");
    gpa_log_int(l, "created", res->created);
    gpa_log_int(l, "updated", res->updated);
    gpa_log_int(l, "unchanged", res->unchanged);
    gpa_log_end(l);
}

/* 1 once the configurations are in place (created, updated or already so), 0 to look again soon. */
static int step(gpa_registrar_t *r, int *said_waiting)
{
    gpa_register_result_t res;
    gpa_error_t err = {0};
    char msg[1024];
    if (!server_ready())
        return 0;
    gpa_error_init(&err, NULL);
    if (gpa_register_once(r->client, &r->opts.reg, &res, &err) != 0) {
        gpa_error_format(&err, msg, sizeof(msg));
        gpa_log_msg(GPA_LOG_ERROR, "webhook registration failed", msg);
        return 0;
    }
    log_result(r, &res, said_waiting);
    return !res.waiting;
}

static void *loop(void *arg)
{
    gpa_registrar_t *r = arg;
    int64_t interval = r->opts.interval > 0 ? r->opts.interval : 60, wait = 0;
    int registered = 0, said_waiting = 0;
    while (!atomic_load(&r->stop)) {
        for (int64_t tick = 0; tick < wait * 10 && !atomic_load(&r->stop); tick++)
            usleep(100000); /* 100 ms steps: a stop is seen quickly */
        if (atomic_load(&r->stop))
            break;
        registered = step(r, &said_waiting) || (registered && server_ready());
        wait = registered ? interval : 1;
    }
    return NULL;
}

gpa_registrar_t *gpa_registrar_start(const gpa_registrar_opts_t *opts, gpa_error_t *err)
{
    gpa_kube_options_t ko = opts->kube;
    gpa_kube_target_t target;
    memset(&target, 0, sizeof(target));
    gpa_registrar_t *r = gpa_xcalloc(1, sizeof(*r));
    r->opts = *opts;
    if (gpa_kube_target_load(&ko, &target, err) == 0)
        r->client = gpa_kube_client_new(&target, err);
    gpa_kube_target_dispose(&target);
    int started = r->client != NULL && gpa_thread_start(&r->thread, loop, r) == 0;
    if (!started) {
        if (r->client != NULL)
            gpa_error_set(err, 0, 0, "", "cannot start the webhook registration thread");
        gpa_kube_client_free(r->client);
        free(r);
        return NULL;
    }
    return r;
}

void gpa_registrar_stop(gpa_registrar_t *r)
{
    if (r == NULL)
        return;
    atomic_store(&r->stop, 1);
    pthread_join(r->thread, NULL);
    gpa_kube_client_free(r->client);
    free(r);
}
