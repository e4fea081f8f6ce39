/*
 * Where reviews are judged, so that no request waits behind a heavy one (docs/webhook.md#cpu).
 *
 * A review is first judged on its worker's event loop with a small slice of the allocator's budget (steps and a
 * few milliseconds): nearly every review ends there, answered at once. A review whose search needs more than the
 * slice is judged again from the start on one of a few judge threads, with the request's full budget (steps and
 * a deadline: alloc/placement.h), and its answer is posted back to the worker's loop through h2o's multithread
 * receiver; meanwhile the loop keeps serving its other connections. Reviews waiting for a judge are capped: one
 * more is answered 503 with Retry-After. A review whose client goes away stops being judged at the next look at
 * the clock.
 *
 * Health: every worker loop and judge stamps a heartbeat; gpa_judge_stuck() names a loop that has not turned, or
 * a judge that has run past its deadline, for longer than opts.stuck_ms (/healthz and /readyz fail then).
 *
 * Threads: gpa_judge_start/stop from the main thread; gpa_judge_attach/turned/detach and gpa_judge_review from
 * a worker thread (its loop); gpa_judge_stuck from any thread.
 */
#ifndef GPA_WEBHOOK_JUDGE_H
#define GPA_WEBHOOK_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include <h2o.h>

#include "base/arena.h"
#include "reload.h"
#include "admission/review.h"

typedef struct st_gpa_judge_opts_t {
    unsigned threads;     /* judge threads; 0 = none: every review is judged on its loop with the full budget */
    uint64_t steps;       /* a review's search steps (0 = GPA_ALLOC_BUDGET_STEPS) */
    uint64_t deadline_ms; /* a review's search deadline on a judge, from when the judge takes it */
    uint64_t slice_steps; /* steps a review may take on the event loop before it moves to a judge */
    uint64_t slice_ms;    /* ... and milliseconds */
    unsigned queue;       /* reviews waiting for a judge, at most (beyond: 503) */
    uint64_t stuck_ms;    /* a loop that has not turned, or a judge past its deadline, for this long is stuck */
} gpa_judge_opts_t;

/* The defaults of docs/webhook.md#limits: 2 judges, 20M steps, 2 s, a 100k-step / 20 ms slice, 4 waiting, 10 s. */
void gpa_judge_opts_init(gpa_judge_opts_t *o);
/* Starts the judge threads (none with threads 0). Call once, before the workers. */
void gpa_judge_start(const gpa_judge_opts_t *o);
/* Judges still running stop at their next look at the clock; waits for every judge thread. */
void gpa_judge_stop(void);

/* What one thread judges with: the configuration and inventory in force (reload.h), and what of a review the
 * engine reads under that configuration (gpa_review_filter), built again when its generation changes.
 * Zero-initialize. */
typedef struct st_gpa_judge_view_t {
    gpa_snapshot_t snapshot;
    gpa_arena_t filter_arena;
    gpa_json_filter_t *filter;
    uint64_t filter_generation;
} gpa_judge_view_t;

/* One worker's side: its receiver of answers, its slice's arena and view, its heartbeat. Owned by the worker
 * (kept as long as the process: answers may still be posted to it while the server stops). Zero-initialize. */
typedef struct st_gpa_judge_loop_t {
    h2o_multithread_queue_t *queue;
    h2o_multithread_receiver_t receiver;
    gpa_arena_t arena;
    gpa_judge_view_t view;
    size_t beat;
} gpa_judge_loop_t;

/* Registers the calling worker thread's loop (answers from judges arrive on it). */
void gpa_judge_attach(gpa_judge_loop_t *jl, h2o_loop_t *loop);
/* The worker's heartbeat: call after every turn of its loop. */
void gpa_judge_turned(void);
/* At the worker thread's end, after gpa_judge_stop: frees what the loop's side holds. */
void gpa_judge_detach(void);

/*
 * What the route does with an answer, on the worker's thread: r is the review (its memory lives until the call
 * returns), or NULL when every judge is busy and the queue is full (answer 503). micros: since the review began.
 */
typedef void (*gpa_judge_answer_cb)(h2o_req_t *req, gpa_webhook_t hook, const gpa_review_t *r, uint64_t micros);
/*
 * What the route does once the review's memory is given back (after its answer, or once a judge is done with a
 * review whose request went away), with the body's length: it may release what it reserved for it. On the worker's
 * thread.
 */
typedef void (*gpa_judge_done_cb)(size_t len);
/* Judges req's body as `hook`, building only what the engine reads (gpa_review_filter); `answer` is called once,
 * before this returns or later from the loop; then `done` (NULL: nothing to release) once. */
void gpa_judge_review(h2o_req_t *req, gpa_webhook_t hook, gpa_judge_answer_cb answer, gpa_judge_done_cb done);

/* Why the server is stuck at now_ms (CLOCK_MONOTONIC milliseconds), in buf, or NULL when it is not. */
const char *gpa_judge_stuck(uint64_t now_ms, char *buf, size_t size);
/* CLOCK_MONOTONIC in milliseconds. */
uint64_t gpa_judge_now_ms(void);

/* Heartbeats, for gpa_judge_stuck (and tests): a loop's or a judge's slot, stamped at `now_ms` (0 = idle judge). */
typedef enum en_gpa_judge_beat_kind_t {
    GPA_BEAT_LOOP,  /* stamped every turn: stuck once older than stuck_ms */
    GPA_BEAT_JUDGE, /* stamped when a judge takes a review: stuck once older than its deadline plus stuck_ms */
} gpa_judge_beat_kind_t;
size_t gpa_judge_beat_new(gpa_judge_beat_kind_t kind);
void gpa_judge_beat(size_t beat, uint64_t now_ms);

#endif
