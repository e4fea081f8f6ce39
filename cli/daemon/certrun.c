/*
 * Self-managed certificates in the background (certrun.h).
 */
#include "daemon/certrun.h"

#include <string.h>
#include <unistd.h>

#include "daemon/thread.h"
#include "log.h"

static void log_sync(const gpa_certsync_opts_t *c, const gpa_certsync_result_t *r)
{
    if (!(r->created || r->renewed || r->ca_added || r->regenerated || r->bundle_written || r->files_written))
        return;
    gpa_log_line_t *l = gpa_log_begin(r->regenerated ? GPA_LOG_WARN : GPA_LOG_INFO, "certificates synced");
    gpa_log_str(l, "secret", c->secret);
    gpa_log_int(l, "created", r->created);
    gpa_log_int(l, "renewed", r->renewed);
    gpa_log_int(l, "caAdded", r->ca_added);
    gpa_log_int(l, "regenerated", r->regenerated);
    gpa_log_int(l, "caBundleWritten", r->bundle_written);
    gpa_log_int(l, "filesWritten", r->files_written);
    gpa_log_int(l, "notAfter", r->not_after);
    gpa_log_end(l);
}

/* 0 after a sync that found both webhook configurations, 1 when one was missing, -1 on failure. */
static int certsync_step(gpa_certrun_t *run)
{
    gpa_error_t err = {0};
    gpa_certsync_result_t res;
    char msg[1024];
    gpa_error_init(&err, NULL);
    if (gpa_certsync_once(run->client, run->opts, &res, &err) != 0) {
        gpa_error_format(&err, msg, sizeof(msg));
        gpa_log_msg(GPA_LOG_ERROR, "certificate sync failed", msg);
        return -1;
    }
    log_sync(run->opts, &res);
    return res.configs_found < 2;
}

static void *certsync_loop(void *arg)
{
    gpa_certrun_t *run = arg;
    /* Helm may create the webhook configurations after the Pods start: until both have their caBundle, look
     * again every few seconds for the first two minutes (one may be disabled: then the normal pace after). */
    int quick = 24, step = 1;
    while (!atomic_load(&run->stop)) {
        int64_t wait = step != 0 && quick > 0 && run->interval > 5 ? 5 : run->interval;
        quick -= wait == 5;
        for (int64_t tick = 0; tick < wait * 10 && !atomic_load(&run->stop); tick++)
            usleep(100000); /* 100 ms steps: a stop is seen quickly */
        if (!atomic_load(&run->stop))
            step = certsync_step(run);
    }
    return NULL;
}

void gpa_certrun_stop(gpa_certrun_t *run)
{
    atomic_store(&run->stop, 1);
    if (run->started)
        pthread_join(run->thread, NULL);
    gpa_kube_client_free(run->client);
    run->client = NULL;
}

int gpa_certrun_start(gpa_certrun_t *run, const gpa_kube_options_t *kube, const gpa_certsync_opts_t *opts, int64_t interval)
{
    gpa_kube_target_t target;
    gpa_error_t err = {0};
    char msg[1024];
    gpa_error_init(&err, NULL);
    memset(&target, 0, sizeof(target));
    if (gpa_kube_target_load(kube, &target, &err) != 0 || (run->client = gpa_kube_client_new(&target, &err)) == NULL) {
        gpa_error_format(&err, msg, sizeof(msg));
        gpa_log_msg(GPA_LOG_ERROR, "self-managed certificates: no API server", msg);
        gpa_kube_target_dispose(&target);
        return -1;
    }
    gpa_kube_target_dispose(&target);
    run->opts = opts;
    run->interval = interval;
    int tries = 0;
    while (certsync_step(run) < 0) {
        if (++tries >= 30)
            return -1;
        sleep(2);
    }
    if (gpa_thread_start(&run->thread, certsync_loop, run) != 0)
        return -1;
    run->started = 1;
    return 0;
}
