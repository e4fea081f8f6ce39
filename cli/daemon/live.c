/*
 * serve --cluster-inventory (live.h): reflector sinks into the view, the publisher thread, staleness, metrics.
 */
#include "daemon/live.h"
#include "daemon/thread.h"

#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/arena.h"
#include "kinds.h"
#include "kube/decode.h"
#include "input/load.h"
#include "log.h"
#include "metrics.h"
#include "policy/engine.h"
#include "reflector.h"
#include "reload.h"
#include "view.h"

/*
 * Between two snapshots at least this long, and at least BUILD_SHARE times as long as the last one took to build:
 * a burst of events makes one new inventory, not one each, and building takes at most a fifth of a core.
 */
#define PUBLISH_EVERY_MS 100
#define BUILD_SHARE 4
/*
 * A watch that reconnected says nothing until it fails again; failures repeat at least every backoff cap (30 s,
 * cluster/reflector.h). Silence for twice that after a failure means the watch is up again.
 */
#define QUIET_MS 60000
#define MAX_FINDINGS 32 /* distinct rules counted per Pod */
/*
 * Pods per list page. A Pod's annotations may reach 256 KiB (the API server's limit), and a page is held whole
 * while it is read: 50 such Pods are 12.5 MiB, where the reflectors' default of 500 would be 125 MiB.
 */
#define POD_PAGE_LIMIT 50
/* ResourceSlices per list page: a slice holds up to 128 devices of 32 attributes and capacities (up to the 1.5 MiB an
 * object may have; about 70 KB as NVIDIA's driver writes 100 devices): 20 are at most 30 MiB, about 1.4 MB in practice,
 * where 500 of 70 KB held 35 MB of text and four times that parsed. */
#define SLICE_PAGE_LIMIT 20

typedef struct st_kind_state_t {
    struct st_gpa_live_t *live;
    gpa_view_kind_t kind;
    gpa_reflector_t *reflector;
    int listed; /* a list completed at least once */
    uint64_t lists, restarts, events, rejected, warned;
    int64_t last_sync;     /* wall clock, seconds */
    uint64_t broken_since; /* monotonic ms of the first failure since the view was last current; 0 = current */
    uint64_t last_broken;  /* monotonic ms of the latest failure */
    gpa_arena_t judge;     /* the Pod reflector's scratch for judging */
} kind_state_t;

struct st_gpa_live_t {
    gpa_live_opts_t opts;
    gpa_kube_target_t target;
    gpa_view_t *view;
    kind_state_t kinds[GPA_VIEW_NKINDS];
    pthread_mutex_t lock; /* the counters and flags above and below */
    pthread_cond_t wake;
    int stopping, started;
    atomic_int closing; /* gpa_live_stop began: a Pod sink waiting for the configuration gives up */
    pthread_t publisher;
    int synced, stale; /* as last published */
    uint64_t published_gen;
    uint64_t snapshots[2];                   /* failed, built */
    uint64_t build_ns;                       /* how long the last new inventory took to build */
    uint64_t stale_ms;                       /* longest broken watch, as last computed */
    atomic_uint_least64_t apply_ns, applied; /* time spent applying watch events to the view */
    gpa_metrics_source_t source;
    uint64_t templates_state;   /* the template files as last read (templates_state); the publisher's own */
    uint64_t templates_checked; /* monotonic ms of the last look at them */
    int templates_changed;      /* new templates not yet published */
};

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- judging a watched Pod as `gpuadmit audit` does (gpuadmit_audit_violations) ---- */

gpa_check_opts_t gpa_audit_check_opts(int mutate)
{
    return (gpa_check_opts_t){.operation = GPA_OP_CREATE, .mutate = mutate, .as_written = !mutate, .validate = 1};
}

/* The distinct rules the Pod breaks under the configuration in force (waited for: the server loads it after the
 * reflectors start); 0 when the live inventory stops first. */
static size_t judge_pod(kind_state_t *k, const gpa_value_t *obj, const char **rules)
{
    gpa_config_t *cfg = gpa_reload_config();
    size_t n = 0;
    /* The reflectors start before the server reads its configuration: a Pod listed meanwhile waits for it, else it
     * would count under no rule until the next relist. */
    while (cfg == NULL && !atomic_load_explicit(&k->live->closing, memory_order_acquire)) {
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
        cfg = gpa_reload_config();
    }
    if (cfg == NULL)
        return 0;
    gpa_arena_clear(&k->judge);
    gpa_value_t *doc = gpa_kube_kind_stamp(&k->judge, obj, &gpa_kube_kind_pod);
    gpa_object_t *o;
    gpa_error_t err = {0};
    gpa_verdict_t v;
    gpa_check_opts_t opts = gpa_audit_check_opts(1); /* as created now: a legacy Pod the mutations complete is fine */
    gpa_error_init(&err, NULL);
    if (gpa_decode_object_with(&k->judge, &cfg->decode, doc, &o, &err) == 0 && gpa_check(&k->judge, cfg, o, &opts, &v, &err) == 0)
        for (size_t i = 0; i < v.violations.len && n < MAX_FINDINGS; i++) {
            const char *id = v.violations.items[i].rule;
            size_t j = 0;
            while (j < n && strcmp(rules[j], id) != 0)
                j++;
            if (j == n)
                rules[n++] = id;
        }
    gpa_config_release(cfg);
    return n;
}

/* ---- the reflectors' sinks ---- */

static void on_begin_list(void *ctx)
{
    kind_state_t *k = ctx;
    gpa_view_begin_list(k->live->view, k->kind);
}

static void log_rejected(kind_state_t *k, const gpa_value_t *obj, const gpa_error_t *err)
{
    char why[512];
    gpa_error_format(err, why, sizeof(why));
    gpa_log_line_t *l = gpa_log_begin(GPA_LOG_WARN, "cluster object not read; left out of the inventory");
    gpa_log_str(l, "kind", gpa_view_kind_name(k->kind));
    gpa_log_str(l, "name", gpa_value_string(gpa_value_get(gpa_value_get(obj, "metadata"), "name")));
    gpa_log_str(l, "error", why);
    gpa_log_end(l);
}

/* A Pod that holds nothing because its annotation or spec cannot be read (docs/allocator.md, "Usage"), or a Node
 * whose HAMi register annotation cannot be read: it has no HAMi cards. */
static void log_warned(const kind_state_t *k, const gpa_error_t *err)
{
    char why[512];
    gpa_error_format(err, why, sizeof(why));
    gpa_log_msg(GPA_LOG_WARN,
                k->kind == GPA_VIEW_NODES
                    ? "cluster Node has no HAMi cards in the inventory: its register annotation cannot be read"
                    : "cluster Pod holds no GPU in the inventory: it cannot be read",
                why);
}

static void on_apply(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    kind_state_t *k = ctx;
    gpa_live_t *live = k->live;
    const char *rules[MAX_FINDINGS];
    uint64_t start = mono_ns();
    size_t nrules = k->kind == GPA_VIEW_PODS && event != GPA_WATCH_DELETED ? judge_pod(k, object, rules) : 0;
    gpa_error_t err = {0};
    int rc = gpa_view_apply(live->view, k->kind, event, object, rules, nrules, &err);
    atomic_fetch_add_explicit(&live->apply_ns, mono_ns() - start, memory_order_relaxed);
    atomic_fetch_add_explicit(&live->applied, 1, memory_order_relaxed);
    pthread_mutex_lock(&live->lock);
    k->events++;
    k->rejected += rc < 0;
    k->warned += rc > 0;
    k->broken_since = 0; /* an event arrived: the watch is up */
    pthread_mutex_unlock(&live->lock);
    if (rc < 0)
        log_rejected(k, object, &err);
    else if (rc > 0)
        log_warned(k, &err);
}

static void on_end_list(void *ctx)
{
    kind_state_t *k = ctx;
    gpa_live_t *live = k->live;
    gpa_view_end_list(live->view, k->kind);
    pthread_mutex_lock(&live->lock);
    k->listed = 1;
    k->lists++;
    k->last_sync = (int64_t)time(NULL);
    k->broken_since = 0;
    pthread_cond_signal(&live->wake);
    pthread_mutex_unlock(&live->lock);
}

static void on_broken(void *ctx, int unserved, const char *why)
{
    kind_state_t *k = ctx;
    gpa_live_t *live = k->live;
    /* unserved: the resource is absent (404) and its empty view is true, not stale (nor complete: view.h). */
    if (unserved)
        gpa_view_not_served(live->view, k->kind);
    pthread_mutex_lock(&live->lock);
    uint64_t now = mono_ms();
    k->restarts++;
    if (!unserved && k->broken_since == 0)
        k->broken_since = now;
    k->last_broken = now;
    pthread_mutex_unlock(&live->lock);
    gpa_log_line_t *l = gpa_log_begin(unserved ? GPA_LOG_INFO : GPA_LOG_WARN, "cluster watch interrupted; retrying");
    gpa_log_str(l, "kind", gpa_view_kind_name(k->kind));
    gpa_log_str(l, "reason", why);
    gpa_log_end(l);
}

/* ---- node templates from files beside the cluster (live.h) ---- */

static uint64_t mix(uint64_t h, uint64_t x)
{
    return (h ^ x) * 0x100000001b3ULL;
}

/*
 * The template files as they are now: which files the paths stand for and each one's device, inode, size and
 * modification time (a mounted ConfigMap's update swaps a symlink: another inode). 0 when they cannot be listed.
 */
static uint64_t templates_state(const gpa_live_t *live, gpa_load_files_t *files, const gpa_load_report_t *rep)
{
    if (gpa_load_files(live->opts.template_paths, live->opts.ntemplate_paths, files, rep) != 0)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < files->len; i++) {
        struct stat st;
        for (const char *c = files->items[i]; *c != '\0'; c++)
            h = mix(h, (unsigned char)*c);
        if (stat(files->items[i], &st) == 0)
            h = mix(
                mix(mix(mix(mix(h, (uint64_t)st.st_dev), (uint64_t)st.st_ino), (uint64_t)st.st_size), (uint64_t)st.st_mtim.tv_sec),
                (uint64_t)st.st_mtim.tv_nsec);
    }
    return h | 1;
}

/* Reads the templates again when their files changed (publisher thread, lock not held): the new ones in force, or
 * the previous kept and the fault logged once per state of the files. */
static void reload_templates(gpa_live_t *live)
{
    char why[768] = "";
    gpa_load_first_t f = {why, sizeof(why), 0};
    gpa_load_report_t rep = {gpa_load_keep_first, &f, NULL};
    gpa_load_files_t files = {0};
    uint64_t state = templates_state(live, &files, &rep);
    if (state != live->templates_state) {
        gpa_inventory_t *inv = NULL;
        gpa_error_t err = {0};
        live->templates_state = state;
        if (state != 0 && gpa_load_inventory_files((const char *const *)files.items, files.len, &inv, &rep) == 0 &&
            gpa_inventory_templates_only(inv, &err) == 0) {
            gpa_inventory_release(live->opts.templates);
            live->opts.templates = inv;
            live->templates_changed = 1;
            gpa_log_msg(GPA_LOG_INFO, "node templates reloaded", NULL);
        } else {
            if (!f.set)
                gpa_error_format(&err, why, sizeof(why));
            gpa_inventory_release(inv);
            gpa_log_msg(GPA_LOG_ERROR, "node templates not reloaded; keeping the previous ones", why);
        }
    }
    gpa_load_files_dispose(&files);
}

/* ---- the publisher ---- */

/*
 * DRA's kinds are optional: a cluster (or a ServiceAccount without the chart's newer RBAC) that does not let them be
 * listed leaves them incomplete, so the DRA rules stay silent, and neither holds back readiness nor makes the
 * inventory stale. Only once their first list has failed, though: while it is under way readiness waits for it, as for
 * any kind (else the first answers would come from an inventory that knows no DeviceClass yet). Once listed, a broken
 * watch of theirs counts as any other's.
 */
static int optional_kind(const kind_state_t *k)
{
    return k->kind >= GPA_VIEW_DEVICE_CLASSES && !k->listed && k->restarts > 0;
}

/* Under the lock: whether every kind was listed, and the longest time a watch has been broken (ms). */
static int synced_locked(gpa_live_t *live, uint64_t now, uint64_t *broken_ms)
{
    int synced = 1;
    *broken_ms = 0;
    for (int i = 0; i < GPA_VIEW_NKINDS; i++) {
        kind_state_t *k = &live->kinds[i];
        if (optional_kind(k))
            continue;
        synced &= k->listed;
        if (k->broken_since != 0 && now - k->last_broken > QUIET_MS)
            k->broken_since = 0;
        if (k->broken_since != 0 && now - k->broken_since > *broken_ms)
            *broken_ms = now - k->broken_since;
    }
    return synced;
}

static void log_stale(int stale, uint64_t broken_ms, uint64_t limit_ms)
{
    gpa_log_line_t *l =
        gpa_log_begin(stale ? GPA_LOG_WARN : GPA_LOG_INFO, stale ? "cluster inventory stale: infeasible warns and denies nothing"
                                                                 : "cluster inventory current again: infeasible enforced");
    gpa_log_int(l, "brokenSeconds", (int64_t)(broken_ms / 1000));
    gpa_log_int(l, "limitSeconds", (int64_t)(limit_ms / 1000));
    gpa_log_end(l);
}

/* A new inventory from the view, advisory when stale; NULL (logged) when it does not resolve. */
static gpa_inventory_t *snapshot(gpa_live_t *live, int stale, uint64_t broken_ms)
{
    gpa_error_t err = {0};
    gpa_inventory_t *inv = gpa_view_snapshot(live->view, &err);
    if (inv == NULL) {
        char why[512];
        gpa_error_format(&err, why, sizeof(why));
        gpa_log_msg(GPA_LOG_ERROR, "cluster inventory does not resolve; keeping the previous one", why);
        return NULL;
    }
    if (live->opts.templates != NULL)
        gpa_inventory_set_templates(inv, live->opts.templates); /* the autoscaled pools' nodes-to-be */
    if (stale) {
        char note[96];
        snprintf(note, sizeof(note), "not enforced: cluster inventory stale for %" PRIu64 "s", broken_ms / 1000);
        gpa_inventory_set_advisory(inv, note);
    }
    return inv;
}

static void publish_once(gpa_live_t *live)
{
    uint64_t broken_ms;
    int synced = synced_locked(live, mono_ms(), &broken_ms);
    int stale = synced && broken_ms > live->opts.stale_after_ms;
    uint64_t gen = gpa_view_generation(live->view);
    live->stale_ms = broken_ms;
    if (!synced || (synced == live->synced && stale == live->stale && gen == live->published_gen && !live->templates_changed))
        return;
    live->templates_changed = 0;
    if (stale != live->stale)
        log_stale(stale, broken_ms, live->opts.stale_after_ms);
    if (!live->synced)
        gpa_log_msg(GPA_LOG_INFO, "cluster inventory synced", NULL);
    live->synced = 1;
    live->stale = stale;
    live->published_gen = gen;
    pthread_mutex_unlock(&live->lock);
    uint64_t start = mono_ns();
    gpa_inventory_t *inv = snapshot(live, stale, broken_ms);
    uint64_t took = mono_ns() - start;
    if (inv != NULL)
        gpa_reload_set_inventory(inv);
    /* The snapshot replaced, and the list pages read since the last: their memory back to the system (a 1,000-slice
     * list leaves tens of MB of freed heap that glibc would otherwise keep). */
    malloc_trim(0);
    pthread_mutex_lock(&live->lock);
    live->snapshots[inv != NULL]++;
    live->build_ns = took;
}

static void *publisher(void *arg)
{
    gpa_live_t *live = arg;
    pthread_mutex_lock(&live->lock);
    while (!live->stopping) {
        if (live->opts.ntemplate_paths > 0 && mono_ms() - live->templates_checked >= live->opts.reload_every_ms) {
            pthread_mutex_unlock(&live->lock); /* file reads: never while the reflectors wait */
            reload_templates(live);
            live->templates_checked = mono_ms();
            pthread_mutex_lock(&live->lock);
        }
        publish_once(live);
        uint64_t pause_ns = (uint64_t)PUBLISH_EVERY_MS * 1000000u;
        if (live->build_ns * BUILD_SHARE > pause_ns)
            pause_ns = live->build_ns * BUILD_SHARE;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)(pause_ns / 1000000000u);
        until.tv_nsec += (long)(pause_ns % 1000000000u);
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        if (!live->stopping)
            pthread_cond_timedwait(&live->wake, &live->lock, &until);
    }
    pthread_mutex_unlock(&live->lock);
    return NULL;
}

/* ---- readiness and metrics ---- */

static const char *waiting(void *ctx)
{
    gpa_live_t *live = ctx;
    pthread_mutex_lock(&live->lock);
    int synced = live->synced;
    pthread_mutex_unlock(&live->lock);
    return synced || live->opts.serve_before_sync ? NULL : "waiting for the first sync of the cluster inventory\n";
}

static void on_count(void *ctx, const char *rule, const char *ns, uint64_t pods)
{
    gpa_buf_printf(ctx, "gpuadmit_audit_violations{rule=\"%s\",namespace=\"%s\"} %" PRIu64 "\n", rule, ns, pods);
}

static void render_kinds(gpa_live_t *live, gpa_buf_t *out)
{
    static const struct {
        const char *name, *type, *help;
    } series[] = {
        {"gpuadmit_cluster_objects", "gauge", "Objects the live inventory holds records for, by kind."},
        {"gpuadmit_cluster_last_sync_timestamp_seconds", "gauge", "When each kind was last listed in full."},
        {"gpuadmit_cluster_relists_total", "counter", "Full lists after the first, by kind."},
        {"gpuadmit_cluster_watch_restarts_total", "counter", "Watches that failed and were retried, by kind."},
        {"gpuadmit_cluster_events_total", "counter", "Objects applied to the live inventory, by kind."},
        {"gpuadmit_cluster_objects_rejected_total", "counter", "Objects that could not be read, by kind."},
        {"gpuadmit_cluster_objects_unreadable_total", "counter",
         "Objects kept, read in part because an annotation or spec could not be read (Pods holding no GPU, Nodes "
         "without their HAMi cards), by kind."},
    };
    for (size_t s = 0; s < sizeof(series) / sizeof(series[0]); s++) {
        gpa_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", series[s].name, series[s].help, series[s].name, series[s].type);
        for (int i = 0; i < GPA_VIEW_NKINDS; i++) {
            const kind_state_t *k = &live->kinds[i];
            uint64_t v[] = {gpa_view_held(live->view, k->kind),
                            (uint64_t)k->last_sync,
                            k->lists > 0 ? k->lists - 1 : 0,
                            k->restarts,
                            k->events,
                            k->rejected,
                            k->warned};
            gpa_buf_printf(out, "%s{kind=\"%s\"} %" PRIu64 "\n", series[s].name, gpa_view_kind_name(k->kind), v[s]);
        }
    }
}

static void render(void *ctx, gpa_buf_t *out, time_t now)
{
    gpa_live_t *live = ctx;
    (void)now;
    pthread_mutex_lock(&live->lock);
    render_kinds(live, out);
    uint64_t applied = atomic_load(&live->applied), ns = atomic_load(&live->apply_ns);
    gpa_buf_printf(out,
                   "# HELP gpuadmit_cluster_stale_seconds How long the longest-broken watch has been broken.\n"
                   "# TYPE gpuadmit_cluster_stale_seconds gauge\ngpuadmit_cluster_stale_seconds %" PRIu64 ".%03" PRIu64 "\n"
                   "# HELP gpuadmit_cluster_stale 1 while the inventory is stale and infeasible denies nothing.\n"
                   "# TYPE gpuadmit_cluster_stale gauge\ngpuadmit_cluster_stale %d\n"
                   "# HELP gpuadmit_cluster_synced 1 once every kind was listed.\n"
                   "# TYPE gpuadmit_cluster_synced gauge\ngpuadmit_cluster_synced %d\n"
                   "# HELP gpuadmit_cluster_snapshots_total New inventories built from the live view, by result.\n"
                   "# TYPE gpuadmit_cluster_snapshots_total counter\n"
                   "gpuadmit_cluster_snapshots_total{result=\"success\"} %" PRIu64 "\n"
                   "gpuadmit_cluster_snapshots_total{result=\"failure\"} %" PRIu64 "\n"
                   "# HELP gpuadmit_cluster_snapshot_build_seconds How long the last new inventory took to build.\n"
                   "# TYPE gpuadmit_cluster_snapshot_build_seconds gauge\n"
                   "gpuadmit_cluster_snapshot_build_seconds %" PRIu64 ".%09" PRIu64 "\n"
                   "# HELP gpuadmit_cluster_apply_seconds Time spent applying watch events (judging included).\n"
                   "# TYPE gpuadmit_cluster_apply_seconds summary\n"
                   "gpuadmit_cluster_apply_seconds_sum %" PRIu64 ".%09" PRIu64 "\ngpuadmit_cluster_apply_seconds_count %" PRIu64
                   "\n",
                   live->stale_ms / 1000, live->stale_ms % 1000, live->stale, live->synced, live->snapshots[1], live->snapshots[0],
                   live->build_ns / 1000000000u, live->build_ns % 1000000000u, ns / 1000000000u, ns % 1000000000u, applied);
    pthread_mutex_unlock(&live->lock);
    gpa_buf_puts(out, "# HELP gpuadmit_audit_violations Watched Pods that break a rule if created now, by rule and namespace.\n"
                      "# TYPE gpuadmit_audit_violations gauge\n");
    gpa_view_audit_counts(live->view, on_count, out);
}

/* ---- start and stop ---- */

static int start_reflectors(gpa_live_t *live, gpa_error_t *err)
{
    gpa_view_discover(live->view, &live->target); /* DRA's version: v1, or v1beta2/v1beta1 where only those are served */
    for (int i = 0; i < GPA_VIEW_NKINDS; i++) {
        kind_state_t *k = &live->kinds[i];
        gpa_reflector_sink_t sink = {on_begin_list, on_apply, on_end_list, on_broken, k};
        gpa_reflector_options_t opts = {.page_limit = i == GPA_VIEW_PODS     ? POD_PAGE_LIMIT
                                                      : i == GPA_VIEW_SLICES ? SLICE_PAGE_LIMIT
                                                                             : 0};
        k->live = live;
        k->kind = (gpa_view_kind_t)i;
        k->reflector = gpa_reflector_start_with(&live->target, gpa_view_path(live->view, k->kind), &sink, &opts, err);
        if (k->reflector == NULL)
            return -1;
    }
    return 0;
}

typedef struct st_start_t {
    gpa_live_t *live;
    gpa_error_t *err;
} start_t;

static int start_threads(void *arg)
{
    start_t *st = arg;
    int rc = start_reflectors(st->live, st->err);
    if (rc == 0)
        st->live->started = pthread_create(&st->live->publisher, NULL, publisher, st->live) == 0;
    return rc;
}

gpa_live_t *gpa_live_start(const gpa_live_opts_t *opts, gpa_error_t *err)
{
    gpa_live_t *live = gpa_xcalloc(1, sizeof(*live));
    live->opts = *opts;
    if (opts->templates != NULL)
        gpa_inventory_retain(opts->templates);
    if (opts->ntemplate_paths > 0) { /* the files as the caller just read them (and reported any fault) */
        gpa_load_first_t reported = {NULL, 0, 1};
        gpa_load_files_t files = {0};
        live->templates_state = templates_state(live, &files, &(gpa_load_report_t){gpa_load_keep_first, &reported, NULL});
        live->templates_checked = mono_ms();
        gpa_load_files_dispose(&files);
    }
    pthread_mutex_init(&live->lock, NULL);
    pthread_cond_init(&live->wake, NULL);
    live->view = gpa_view_new();
    live->source = (gpa_metrics_source_t){waiting, render, live};
    if (gpa_kube_target_load(&opts->kube, &live->target, err) != 0) {
        gpa_live_stop(live);
        return NULL;
    }
    /* The reflectors' threads and the publisher, started with the server's signals blocked (thread.h). */
    start_t st = {live, err};
    int rc = gpa_thread_masked(start_threads, &st);
    if (rc != 0) {
        gpa_live_stop(live);
        return NULL;
    }
    gpa_metrics_set_source(&live->source);
    return live;
}

void gpa_live_stop(gpa_live_t *live)
{
    if (live == NULL)
        return;
    gpa_metrics_set_source(NULL);
    atomic_store_explicit(&live->closing, 1, memory_order_release); /* before the reflectors' threads are joined */
    for (int i = 0; i < GPA_VIEW_NKINDS; i++)
        if (live->kinds[i].reflector != NULL)
            gpa_reflector_stop(live->kinds[i].reflector);
    pthread_mutex_lock(&live->lock);
    live->stopping = 1;
    pthread_cond_signal(&live->wake);
    pthread_mutex_unlock(&live->lock);
    if (live->started)
        pthread_join(live->publisher, NULL);
    gpa_reload_set_inventory(NULL); /* one the publisher put in force after the server let go of its own */
    for (int i = 0; i < GPA_VIEW_NKINDS; i++)
        gpa_arena_dispose(&live->kinds[i].judge);
    gpa_view_free(live->view);
    gpa_kube_target_dispose(&live->target);
    gpa_inventory_release(live->opts.templates);
    pthread_cond_destroy(&live->wake);
    pthread_mutex_destroy(&live->lock);
    free(live);
}
