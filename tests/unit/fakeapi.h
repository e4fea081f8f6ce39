/*
 * The fake Kubernetes API server (tests/fakeapi, built by tests/cluster.cmake) for the cluster tests: start one
 * per test, point a target at it, inject objects and faults through the /_fake/ endpoints (docs/testing.md).
 *
 * The tests that need it exit 77 (skipped) when $GPA_FAKEAPI is not an executable (no Go toolchain).
 *
 * Every failure is FAKEAPI_CHECK(cond, fmt, ...): Check's assertion in the unit tests; a program without Check
 * (bench/cluster.c) defines it before including this header.
 */
#ifndef GPA_TEST_FAKEAPI_H
#define GPA_TEST_FAKEAPI_H

#ifndef FAKEAPI_CHECK
#include <check.h>
#define FAKEAPI_CHECK(cond, ...) ck_assert_msg(cond, __VA_ARGS__)
#endif
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "document/json.h"

typedef struct st_fakeapi_t {
    pid_t pid;
    int stdin_fd; /* closing it ends the fake, even when the test dies */
    char dir[64];
    char url[128];
} fakeapi_t;

static inline int fakeapi_available(void)
{
    const char *bin = getenv("GPA_FAKEAPI");
    return bin != NULL && access(bin, X_OK) == 0;
}

static inline void fakeapi_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline const char *fakeapi_file(const fakeapi_t *f, const char *name)
{
    static char buf[4][192];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, sizeof(buf[0]), "%s/%s", f->dir, name);
    return p;
}

/* Starts the fake with extra flags (NULL-terminated, may be NULL) and waits for its URL. */
static inline void fakeapi_start(fakeapi_t *f, const char *const *flags)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/gpa-fakeapi-XXXXXX");
    FAKEAPI_CHECK(mkdtemp(f->dir) != NULL, "mkdtemp %s", f->dir);
    int fds[2];
    FAKEAPI_CHECK(pipe(fds) == 0, "pipe");
    const char *argv[16] = {getenv("GPA_FAKEAPI"), "-dir", f->dir, "-exit-on-stdin-eof"};
    int n = 4;
    for (; flags != NULL && *flags != NULL && n < 15; flags++)
        argv[n++] = *flags;
    argv[n] = NULL;
    f->pid = fork();
    FAKEAPI_CHECK(f->pid >= 0, "fork");
    if (f->pid == 0) {
        dup2(fds[0], 0);
        close(fds[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[0]);
    f->stdin_fd = fds[1];
    for (int i = 0; i < 1000; i++) {
        FILE *u = fopen(fakeapi_file(f, "url"), "r");
        if (u != NULL) {
            size_t got = fread(f->url, 1, sizeof(f->url) - 1, u);
            fclose(u);
            f->url[got] = '\0';
            if (got > 0)
                return;
        }
        fakeapi_sleep_ms(10);
    }
    FAKEAPI_CHECK(0, "the fake API server did not start");
}

static inline int fakeapi_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void fakeapi_stop(fakeapi_t *f)
{
    if (f->pid > 0) {
        close(f->stdin_fd);
        kill(f->pid, SIGTERM);
        waitpid(f->pid, NULL, 0);
        f->pid = 0;
    }
    nftw(f->dir, fakeapi_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline char *fakeapi_read(const char *path)
{
    FILE *file = fopen(path, "rb");
    FAKEAPI_CHECK(file != NULL, "%s missing", path);
    static char text[65536];
    size_t n = fread(text, 1, sizeof(text) - 1, file);
    fclose(file);
    text[n] = '\0';
    return text;
}

/* A target for the fake: its URL, its CA, and token (may be NULL). Dispose with gpa_kube_target_dispose. */
static inline void fakeapi_target(const fakeapi_t *f, gpa_kube_target_t *t, const char *token)
{
    memset(t, 0, sizeof(*t));
    t->server = strdup(f->url);
    t->ca_pem = strdup(fakeapi_read(fakeapi_file(f, "ca.crt")));
    t->ca_pem_len = strlen(t->ca_pem);
    t->token = token != NULL ? strdup(token) : NULL;
}

static inline void fakeapi_write(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    FAKEAPI_CHECK(file != NULL, "cannot write %s", path);
    fputs(text, file);
    fclose(file);
}

/* POSTs json to /_fake/<what> (apply, fault): asserts it was taken. */
static inline void fakeapi_control(const fakeapi_t *f, const char *what, const char *json)
{
    gpa_kube_target_t t;
    fakeapi_target(f, &t, NULL);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_kube_client_t *c = gpa_kube_client_new(&t, &err);
    FAKEAPI_CHECK(c != NULL, "%s", err.message);
    char path[64];
    snprintf(path, sizeof(path), "/_fake/%s", what);
    gpa_kube_reply_t reply;
    FAKEAPI_CHECK(gpa_kube_call(c, "POST", path, "application/json", json, strlen(json), &reply, &err) == 0, "%s", err.message);
    FAKEAPI_CHECK(reply.status == 200, "/_fake/%s: %ld %s", what, reply.status, reply.body.base);
    gpa_kube_reply_dispose(&reply);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}

/* How many requests of a kind the fake saw (list, watch, unauthorized, gone, expired, failed, cutMidEvent...). */
static inline long fakeapi_count(const fakeapi_t *f, const char *kind)
{
    gpa_kube_target_t t;
    fakeapi_target(f, &t, NULL);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_kube_client_t *c = gpa_kube_client_new(&t, &err);
    gpa_kube_reply_t reply;
    FAKEAPI_CHECK(gpa_kube_call(c, "POST", "/_fake/state", NULL, NULL, 0, &reply, &err) == 0, "%s", err.message);
    gpa_arena_t arena;
    gpa_arena_init(&arena);
    gpa_value_t *state;
    FAKEAPI_CHECK(gpa_json_parse(&arena, reply.body.base, reply.body.len, &state, &err) == 0, "%s", err.message);
    const gpa_value_t *n = gpa_value_get(gpa_value_get(state, "counts"), kind);
    long count = n != NULL ? atol(n->u.str.ptr) : 0;
    gpa_arena_dispose(&arena);
    gpa_kube_reply_dispose(&reply);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
    return count;
}

#endif
