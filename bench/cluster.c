/*
 * bench-cluster: the API client's figures against the fake API server (tests/fakeapi) holding a cluster of
 * NODES GPU nodes and PODS Pods (half with GPU shares): one paged list of each, a reflector's first sync, and
 * watch events applied per second with the reflector thread's CPU time per event. Prints a table; never fails
 * on a figure.
 *
 * usage: gpuadmit-bench-cluster FAKEAPI [NODES [PODS [EVENTS]]]   (defaults 5000 100000 20000)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKEAPI_CHECK(cond, ...)                                                                                                   \
    do {                                                                                                                           \
        if (!(cond)) {                                                                                                             \
            fprintf(stderr, "bench-cluster: " __VA_ARGS__);                                                                        \
            fputc('\n', stderr);                                                                                                   \
            exit(2);                                                                                                               \
        }                                                                                                                          \
    } while (0)
#include "../tests/unit/fakeapi.h"
#include "reflector.h"

#define BATCH 1000

typedef struct st_counter_t {
    atomic_long applied;
    atomic_int lists;
    atomic_long bytes_seen;              /* a touch of every object, so nothing is optimized away */
    struct timespec cpu_first, cpu_last; /* the reflector thread's CPU at the first and last watch event */
    struct timespec cpu_begin, cpu_end;  /* ... at begin_list and end_list */
    long watch_target;                   /* events to count before taking cpu_last (0: none) */
} counter_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_diff_us(const struct timespec *a, const struct timespec *b)
{
    return ((double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec)) / 1e3;
}

static void on_begin(void *ctx)
{
    counter_t *c = ctx;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu_begin);
}

static void on_apply(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    counter_t *c = ctx;
    const char *name = gpa_value_string(gpa_value_get(gpa_value_get(object, "metadata"), "name"));
    atomic_fetch_add(&c->bytes_seen, name != NULL ? (long)strlen(name) : 0);
    long n = atomic_fetch_add(&c->applied, 1) + 1;
    if (event == GPA_WATCH_MODIFIED && c->watch_target > 0) {
        if (n == 1)
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu_first);
        if (n == c->watch_target)
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu_last);
    }
}

static void on_end(void *ctx)
{
    counter_t *c = ctx;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu_end);
    atomic_fetch_add(&c->lists, 1);
}

static void on_broken(void *ctx, int not_served, const char *why)
{
    (void)ctx;
    (void)not_served;
    fprintf(stderr, "bench-cluster: broken: %s\n", why);
}

static gpa_reflector_sink_t sink_of(counter_t *c)
{
    return (gpa_reflector_sink_t){on_begin, on_apply, on_end, on_broken, c};
}

static void node_json(gpa_buf_t *b, long i)
{
    gpa_buf_printf(
        b,
        "{\"resource\": \"nodes\", \"object\": {\"metadata\": {\"name\": \"gpu-node-%05ld\", \"labels\": "
        "{\"kubernetes.io/hostname\": \"gpu-node-%05ld\", \"node.kubernetes.io/instance-type\": \"a100x8\"}}, "
        "\"status\": {\"capacity\": {\"cpu\": \"96\", \"memory\": \"1Ti\", \"koordinator.sh/gpu-core\": \"800\", "
        "\"koordinator.sh/gpu-memory\": \"640Gi\", \"koordinator.sh/gpu-memory-ratio\": \"800\", \"nvidia.com/gpu\": \"8\"}, "
        "\"allocatable\": {\"cpu\": \"94\", \"memory\": \"1000Gi\", \"koordinator.sh/gpu-core\": \"800\", "
        "\"koordinator.sh/gpu-memory\": \"640Gi\", \"koordinator.sh/gpu-memory-ratio\": \"800\", \"nvidia.com/gpu\": \"8\"}}}}",
        i, i);
}

static void pod_json(gpa_buf_t *b, long i, long nodes, const char *version)
{
    const char *gpu = i % 2 == 0 ? ", \"koordinator.sh/gpu-memory-ratio\": \"50\", \"koordinator.sh/gpu-core\": \"50\"" : "";
    gpa_buf_printf(
        b,
        "{\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"pod-%06ld\", \"namespace\": \"team-%ld\", "
        "\"labels\": {\"app\": \"app-%ld\", \"v\": \"%s\"}}, \"spec\": {\"nodeName\": \"gpu-node-%05ld\", \"containers\": "
        "[{\"name\": \"main\", \"image\": \"registry.example/app:1\", \"resources\": {\"requests\": {\"cpu\": \"1\", "
        "\"memory\": \"2Gi\"%s}, \"limits\": {\"cpu\": \"1\", \"memory\": \"2Gi\"%s}}}]}, \"status\": {\"phase\": \"Running\"}}}",
        i, i % 50, i % 1000, version, i % nodes, gpu, gpu);
}

/* Objects into the fake in batches: kind 0 nodes, 1 pods. */
static void load(const fakeapi_t *f, long n, long nodes, int kind, const char *version)
{
    for (long start = 0; start < n; start += BATCH) {
        gpa_buf_t b = GPA_BUF_INIT;
        gpa_buf_putc(&b, '[');
        for (long i = start; i < n && i < start + BATCH; i++) {
            if (i > start)
                gpa_buf_putc(&b, ',');
            if (kind == 0)
                node_json(&b, i);
            else
                pod_json(&b, i, nodes, version);
        }
        gpa_buf_putc(&b, ']');
        fakeapi_control(f, "apply", b.base);
        gpa_buf_dispose(&b);
    }
}

static double timed_list(const gpa_kube_target_t *t, const char *path, long *objects)
{
    counter_t c = {0};
    gpa_reflector_sink_t sink = sink_of(&c);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    double start = now_s();
    FAKEAPI_CHECK(gpa_kube_list(t, path, &sink, &err) == 0, "%s", err.message);
    *objects = atomic_load(&c.applied);
    return now_s() - start;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gpuadmit-bench-cluster FAKEAPI [NODES [PODS [EVENTS]]]\n");
        return 2;
    }
    setenv("GPA_FAKEAPI", argv[1], 1);
    long nodes = argc > 2 ? atol(argv[2]) : 5000, pods = argc > 3 ? atol(argv[3]) : 100000;
    long events = argc > 4 ? atol(argv[4]) : 20000;
    if (events > pods)
        events = pods;
    fakeapi_t fake;
    fakeapi_start(&fake, (const char *const[]){"-bookmark-ms", "60000", NULL});
    double start = now_s();
    load(&fake, nodes, nodes, 0, "1");
    load(&fake, pods, nodes, 1, "1");
    printf("fake cluster: %ld nodes, %ld pods (half with GPU shares), loaded in %.1f s\n\n", nodes, pods, now_s() - start);

    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    printf("| what | objects | seconds | objects/s |\n|---|---|---|---|\n");
    long n;
    double s = timed_list(&t, "/api/v1/nodes", &n);
    printf("| gpa_kube_list nodes (pages of 500) | %ld | %.2f | %.0f |\n", n, s, (double)n / s);
    s = timed_list(&t, "/api/v1/pods", &n);
    printf("| gpa_kube_list pods (pages of 500) | %ld | %.2f | %.0f |\n", n, s, (double)n / s);

    /* A reflector's first sync of the pods, then EVENTS pods modified at once and streamed to it. */
    counter_t c = {0};
    gpa_reflector_sink_t sink = sink_of(&c);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    start = now_s();
    gpa_reflector_t *r = gpa_reflector_start(&t, "/api/v1/pods", &sink, &err);
    FAKEAPI_CHECK(r != NULL, "%s", err.message);
    while (atomic_load(&c.lists) == 0)
        fakeapi_sleep_ms(5);
    s = now_s() - start;
    printf("| reflector first sync (pods) | %ld | %.2f | %.0f |\n", (long)atomic_load(&c.applied), s,
           (double)atomic_load(&c.applied) / s);
    fakeapi_sleep_ms(300); /* the watch is open */
    atomic_store(&c.applied, 0);
    c.watch_target = events;
    start = now_s();
    load(&fake, events, nodes, 1, "2");
    while (atomic_load(&c.applied) < events)
        fakeapi_sleep_ms(1);
    s = now_s() - start;
    printf("| watch events applied (MODIFIED pods, incl. the fake's writes) | %ld | %.2f | %.0f |\n\n", events, s,
           (double)events / s);
    printf("reflector thread CPU per listed object (first sync: receive, parse, apply): %.2f us\n",
           cpu_diff_us(&c.cpu_begin, &c.cpu_end) / (double)pods);
    printf("reflector thread CPU per watch event (receive, parse, apply): %.2f us\n",
           cpu_diff_us(&c.cpu_first, &c.cpu_last) / (double)(events - 1));
    gpa_reflector_stop(r);
    gpa_kube_target_dispose(&t);
    fakeapi_stop(&fake);
    return 0;
}
