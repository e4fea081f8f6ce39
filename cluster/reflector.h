/*
 * gpuadmit cluster: keeps a view of one kind of object current, as every Kubernetes controller does: list
 * (paged with limit + continue), then watch from the list's resourceVersion with bookmarks; a 410 Gone (status
 * or ERROR event) lists again; a dropped stream or a 5xx reconnects after a capped, jittered backoff; a
 * resource the server does not serve (404: no such CRD) is retried later, never fatal.
 *
 * The reflector runs on its own thread and calls the sink from that thread, in order. Every list (the first
 * and every relist) is delivered as begin_list, one apply(ADDED) per item, end_list: the sink replaces its
 * whole view at end_list, so after any sequence of disconnects the view equals a fresh list. A list that fails
 * part-way is abandoned: the next begin_list starts it over (drop what arrived since the last begin_list). A
 * resource the server does not serve (404) is delivered as an empty list (what a fresh list would say), then
 * reported through broken() and listed again after the backoff's cap.
 *
 * Ownership: an object passed to apply() lives in an arena the reflector resets after the call: copy what you
 * keep. The sink and its ctx must outlive the reflector. Every callback but broken (may be NULL) is required; none
 * may call gpa_reflector_stop on its own reflector (the stop waits for the thread that runs them).
 */
#ifndef GPA_CLUSTER_REFLECTOR_H
#define GPA_CLUSTER_REFLECTOR_H
#include "document/value.h"
#include "kubeconfig.h"

typedef enum en_gpa_watch_event_t {
    GPA_WATCH_ADDED,
    GPA_WATCH_MODIFIED,
    GPA_WATCH_DELETED,
} gpa_watch_event_t;

typedef struct st_gpa_reflector_sink_t {
    void (*begin_list)(void *ctx);
    void (*apply)(void *ctx, gpa_watch_event_t event, const gpa_value_t *object);
    void (*end_list)(void *ctx); /* the view is complete (first sync, or a relist) */
    /* The watch failed and will be retried (for logs and metrics); `not_served` when the server answered 404 (no
     * such resource: the CRD is not installed), whose empty view is true rather than stale. A 404 is told before
     * the end_list of the empty list it makes (also by gpa_kube_list), so a sink can tell "listed, none" from
     * "not served". */
    void (*broken)(void *ctx, int not_served, const char *why);
    void *ctx;
} gpa_reflector_sink_t;

typedef struct st_gpa_reflector_t gpa_reflector_t;

/* path: the collection, e.g. "/api/v1/pods" or "/apis/scheduling.koordinator.sh/v1alpha1/devices". */
gpa_reflector_t *gpa_reflector_start(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink,
                                     gpa_error_t *err);
/* Pauses and sizes; zero fields take the defaults (docs/cluster.md). */
typedef struct st_gpa_reflector_options_t {
    long backoff_min_ms;  /* the first pause after a failure (default 800); doubles per failure */
    long backoff_max_ms;  /* its cap, and the pause before a 404 is asked again (default 30000) */
    unsigned page_limit;  /* items per list page (default 500) */
    long watch_timeout_s; /* asked of the server per watch, jittered up to twice that (default 300) */
} gpa_reflector_options_t;

/* gpa_reflector_start with options (NULL: the defaults). */
gpa_reflector_t *gpa_reflector_start_with(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink,
                                          const gpa_reflector_options_t *opts, gpa_error_t *err);

/* Stops the thread (interrupting a blocked watch) and frees the reflector. */
void gpa_reflector_stop(gpa_reflector_t *r);

/* One paged list, no watch, on the calling thread (fit --cluster, audit). Returns 0 or -1 with err; 404 is an
 * empty list. */
int gpa_kube_list(const gpa_kube_target_t *target, const char *path, const gpa_reflector_sink_t *sink, gpa_error_t *err);

#endif
