/*
 * Reviews judged on the loop within a slice, or on a judge thread with the full budget (judge.h).
 *
 * A job handed to a judge borrows its request's body (req->entity, in the request's pool). The request may go
 * away first (an HTTP/2 stream reset, or the stall deadline shutting the connection; h2o does not read an HTTP/1.1
 * connection while its request is being answered, so a client that closes is noticed when the answer is
 * written): the pool's dispose callback
 * (on_request_gone, on the loop thread) marks the job gone, and when a judge is running it waits for the judge to
 * let go of the body; the judge's clock says "expired" as soon as the job is gone, so that wait is one poll of the
 * budget (at most a few thousand search steps) or the rest of a parse. The job itself is freed by the loop when
 * the judge's answer arrives.
 */
#include "judge.h"

#include <malloc.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "alloc/placement.h"

#define MAX_BEATS 512 /* --threads (256 at most) and --judge-threads (64) */
/* docs/webhook.md#limits (the pool's until gpa_judge_start, with no judge thread until then) */
#define DEFAULTS                                                                                                                   \
    {                                                                                                                              \
        .threads = 2, .steps = GPA_ALLOC_BUDGET_STEPS, .deadline_ms = 2000, .slice_steps = 100000, .slice_ms = 20, .queue = 4,     \
        .stuck_ms = 10000                                                                                                          \
    }

enum { QUEUED, RUNNING, DONE };

typedef struct st_job_t job_t;

/* In the request's pool: the link from the request to its job, cut when either is done. */
typedef struct st_job_link_t {
    job_t *job;
} job_link_t;

struct st_job_t {
    h2o_multithread_message_t super;
    h2o_req_t *req; /* NULL once the request is gone (loop thread only) */
    job_link_t *link;
    h2o_multithread_receiver_t *home;
    gpa_judge_answer_cb answer;
    gpa_judge_done_cb done;
    gpa_webhook_t hook;
    const char *body; /* borrowed from req->entity while the request lives */
    size_t len;
    uint64_t start_us, deadline_ms;
    int state;       /* QUEUED, RUNNING, DONE: under the pool's lock */
    atomic_int gone; /* the request went away: stop judging */
    gpa_arena_t arena;
    gpa_review_t r;
    gpa_alloc_budget_t budget;
    job_t *next;
};

static struct {
    gpa_judge_opts_t opts;
    pthread_mutex_t lock;
    pthread_cond_t work, idle; /* work: a job was queued, or stop; idle: a job is no longer RUNNING */
    job_t *head, *tail;
    unsigned queued;
    atomic_int stopping;
    pthread_t *tids;
    unsigned nthreads;
    atomic_uint_least64_t beats[MAX_BEATS];
    gpa_judge_beat_kind_t kinds[MAX_BEATS];
    atomic_size_t nbeats;
} pool = {.opts = DEFAULTS, .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER};

static __thread gpa_judge_loop_t *self;
static __thread gpa_judge_loop_t unattached; /* a thread that judges without a loop of its own (no judges then) */

void gpa_judge_opts_init(gpa_judge_opts_t *o)
{
    *o = (gpa_judge_opts_t)DEFAULTS;
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t gpa_judge_now_ms(void)
{
    return now_us() / 1000u;
}

/* ---- heartbeats ---- */

size_t gpa_judge_beat_new(gpa_judge_beat_kind_t kind)
{
    size_t i = atomic_fetch_add(&pool.nbeats, 1);
    if (i >= MAX_BEATS)
        abort(); /* more threads than --threads and --judge-threads allow */
    pool.kinds[i] = kind;
    atomic_store(&pool.beats[i], kind == GPA_BEAT_LOOP ? gpa_judge_now_ms() : 0);
    return i;
}

void gpa_judge_beat(size_t beat, uint64_t now_ms)
{
    atomic_store_explicit(&pool.beats[beat], now_ms, memory_order_relaxed);
}

const char *gpa_judge_stuck(uint64_t now_ms, char *buf, size_t size)
{
    const gpa_judge_opts_t *o = &pool.opts;
    size_t n = atomic_load(&pool.nbeats);
    for (size_t i = 0; i < n && i < MAX_BEATS; i++) {
        uint64_t at = atomic_load_explicit(&pool.beats[i], memory_order_relaxed);
        uint64_t limit = pool.kinds[i] == GPA_BEAT_LOOP ? o->stuck_ms : o->deadline_ms + o->stuck_ms;
        if (at == 0 || now_ms <= at || now_ms - at <= limit)
            continue;
        snprintf(buf, size, "%s %zu: %s for %llu ms\n", pool.kinds[i] == GPA_BEAT_LOOP ? "worker" : "judge", i,
                 pool.kinds[i] == GPA_BEAT_LOOP ? "event loop has not turned" : "judging one review",
                 (unsigned long long)(now_ms - at));
        return buf;
    }
    return NULL;
}

/* ---- judge threads ---- */

/* The judge's clock: past the deadline, or the request gone, or the server stopping. */
static int job_expired(void *ctx)
{
    job_t *job = ctx;
    return atomic_load(&job->gone) || atomic_load(&pool.stopping) || gpa_judge_now_ms() >= job->deadline_ms;
}

static job_t *take_job(void)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.head == NULL && !atomic_load(&pool.stopping))
        pthread_cond_wait(&pool.work, &pool.lock);
    job_t *job = pool.head;
    if (job != NULL) {
        pool.head = job->next;
        if (pool.head == NULL)
            pool.tail = NULL;
        pool.queued--;
        job->state = RUNNING;
        gpa_metrics_judge_queued_add(-1);
    }
    pthread_mutex_unlock(&pool.lock);
    return job;
}

/* Brings the view up to date (gpa_reload_refresh) and judges body with it. */
static void view_review(gpa_judge_view_t *v, gpa_arena_t *a, gpa_alloc_budget_t *budget, gpa_webhook_t hook, const char *body,
                        size_t len, gpa_review_t *out)
{
    gpa_reload_refresh(&v->snapshot);
    if (v->filter == NULL || v->filter_generation != v->snapshot.generation) {
        gpa_arena_clear(&v->filter_arena);
        v->filter = gpa_review_filter(&v->filter_arena, v->snapshot.config);
        v->filter_generation = v->snapshot.generation;
    }
    gpa_review_with(a, v->snapshot.config, v->snapshot.inventory, budget, v->filter, hook, body, len, out);
}

static void view_dispose(gpa_judge_view_t *v)
{
    gpa_arena_dispose(&v->filter_arena);
    v->filter = NULL;
    gpa_reload_forget(&v->snapshot);
}

static void judge(job_t *job, gpa_judge_view_t *view)
{
    job->deadline_ms = gpa_judge_now_ms() + pool.opts.deadline_ms;
    job->budget = gpa_alloc_budget(pool.opts.steps);
    job->budget.expired = job_expired;
    job->budget.expired_ctx = job;
    view_review(view, &job->arena, &job->budget, job->hook, job->body, job->len, &job->r);
}

static void *judge_main(void *arg)
{
    (void)arg;
    size_t beat = gpa_judge_beat_new(GPA_BEAT_JUDGE);
    gpa_judge_view_t view = {0};
    job_t *job;
    while ((job = take_job()) != NULL) {
        gpa_judge_beat(beat, gpa_judge_now_ms());
        if (!atomic_load(&job->gone))
            judge(job, &view);
        gpa_judge_beat(beat, 0);
        pthread_mutex_lock(&pool.lock);
        job->state = DONE;
        pthread_cond_broadcast(&pool.idle);
        pthread_mutex_unlock(&pool.lock);
        h2o_multithread_send_message(job->home, &job->super);
    }
    view_dispose(&view);
    return NULL;
}

void gpa_judge_start(const gpa_judge_opts_t *o)
{
    pool.opts = *o;
    pool.nthreads = o->threads;
    pool.tids = pool.nthreads != 0 ? gpa_xcalloc(pool.nthreads, sizeof(*pool.tids)) : NULL;
    for (unsigned i = 0; i < pool.nthreads; i++)
        pthread_create(&pool.tids[i], NULL, judge_main, NULL);
}

void gpa_judge_stop(void)
{
    pthread_mutex_lock(&pool.lock);
    atomic_store(&pool.stopping, 1);
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    for (unsigned i = 0; i < pool.nthreads; i++)
        pthread_join(pool.tids[i], NULL);
    free(pool.tids);
    pool.tids = NULL;
    pool.nthreads = 0;
}

/* ---- the loop's side ---- */

static void free_job(job_t *job)
{
    gpa_arena_dispose(&job->arena);
    /* A review judged off the loop is a heavy one: what its arena's chunks left in the judge thread's heap goes
     * back to the system now, not when the next burst happens to reuse it (docs/webhook.md#limits). */
    malloc_trim(0);
    if (job->done != NULL)
        job->done(job->len);
    free(job);
}

/* Answers from judges, on the worker's loop. */
static void on_answers(h2o_multithread_receiver_t *receiver, h2o_linklist_t *messages)
{
    (void)receiver;
    while (!h2o_linklist_is_empty(messages)) {
        job_t *job = H2O_STRUCT_FROM_MEMBER(job_t, super.link, messages->next);
        h2o_linklist_unlink(&job->super.link);
        if (job->req != NULL) {
            job->link->job = NULL;
            if (job->budget.unproven != 0)
                gpa_metrics_search_unproven(job->hook);
            job->answer(job->req, job->hook, &job->r, now_us() - job->start_us);
        }
        free_job(job);
    }
}

/* The request's pool is being disposed: the job must let go of its body. */
static void on_request_gone(void *p)
{
    job_t *job = ((job_link_t *)p)->job;
    if (job == NULL)
        return;
    job->req = NULL;
    atomic_store(&job->gone, 1);
    pthread_mutex_lock(&pool.lock);
    while (job->state == RUNNING)
        pthread_cond_wait(&pool.idle, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

/* Queues a review for a judge; 0, or -1 when the queue is full. */
static int hand_over(h2o_req_t *req, gpa_webhook_t hook, gpa_judge_answer_cb answer, gpa_judge_done_cb done, uint64_t start_us)
{
    pthread_mutex_lock(&pool.lock);
    if (pool.queued >= pool.opts.queue) {
        pthread_mutex_unlock(&pool.lock);
        return -1;
    }
    job_t *job = gpa_xcalloc(1, sizeof(*job));
    *job = (job_t){
        .req = req, .home = &self->receiver, .answer = answer, .done = done, .hook = hook, .start_us = start_us, .state = QUEUED};
    job->body = req->entity.base != NULL ? req->entity.base : "";
    job->len = req->entity.len;
    gpa_arena_init(&job->arena);
    job->link = h2o_mem_alloc_shared(&req->pool, sizeof(*job->link), on_request_gone);
    job->link->job = job;
    if (pool.tail != NULL)
        pool.tail->next = job;
    else
        pool.head = job;
    pool.tail = job;
    pool.queued++;
    gpa_metrics_judge_queued_add(1);
    pthread_cond_signal(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    return 0;
}

/* The loop's clock: the slice (or, without judges, the deadline) is over. */
static int loop_expired(void *ctx)
{
    return gpa_judge_now_ms() >= *(uint64_t *)ctx;
}

void gpa_judge_review(h2o_req_t *req, gpa_webhook_t hook, gpa_judge_answer_cb answer, gpa_judge_done_cb done)
{
    int judges = pool.nthreads != 0 && self != NULL;
    uint64_t start = now_us(), end = gpa_judge_now_ms() + (judges ? pool.opts.slice_ms : pool.opts.deadline_ms);
    gpa_alloc_budget_t budget = gpa_alloc_budget(judges ? pool.opts.slice_steps : pool.opts.steps);
    budget.expired = loop_expired;
    budget.expired_ctx = &end;
    gpa_judge_loop_t *jl = self != NULL ? self : &unattached;
    gpa_review_t r;
    view_review(&jl->view, &jl->arena, &budget, hook, req->entity.base != NULL ? req->entity.base : "", req->entity.len, &r);
    if (judges && budget.spent) {
        /* The slice was not enough: judged again from the start, off the loop, with the full budget. */
        gpa_arena_clear(&jl->arena);
        if (hand_over(req, hook, answer, done, start) == 0) {
            gpa_metrics_judge_handoff();
        } else {
            gpa_metrics_judge_full();
            answer(req, hook, NULL, now_us() - start);
            if (done != NULL)
                done(req->entity.len);
        }
        return;
    }
    if (budget.unproven != 0)
        gpa_metrics_search_unproven(hook);
    answer(req, hook, &r, now_us() - start);
    gpa_arena_clear(&jl->arena);
    if (done != NULL)
        done(req->entity.len);
}

void gpa_judge_attach(gpa_judge_loop_t *jl, h2o_loop_t *loop)
{
    self = jl;
    jl->queue = h2o_multithread_create_queue(loop);
    h2o_multithread_register_receiver(jl->queue, &jl->receiver, on_answers);
    gpa_arena_init(&jl->arena);
    jl->beat = gpa_judge_beat_new(GPA_BEAT_LOOP);
}

void gpa_judge_turned(void)
{
    if (self != NULL)
        gpa_judge_beat(self->beat, gpa_judge_now_ms());
}

void gpa_judge_detach(void)
{
    gpa_judge_loop_t *jl = self;
    if (jl == NULL)
        return;
    gpa_judge_beat(jl->beat, 0); /* a worker that has ended is not stuck */
    gpa_arena_dispose(&jl->arena);
    view_dispose(&jl->view);
    /* Answers not delivered (the grace period ended first) stay with the queue, which the worker keeps. */
    if (h2o_linklist_is_empty(&jl->receiver._messages)) {
        h2o_multithread_unregister_receiver(jl->queue, &jl->receiver);
        h2o_multithread_destroy_queue(jl->queue);
        jl->queue = NULL;
    }
    self = NULL;
}
