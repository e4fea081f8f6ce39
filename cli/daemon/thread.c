#include "daemon/thread.h"

#include <signal.h>

int gpa_thread_masked(int (*start)(void *arg), void *arg)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    int rc = start(arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

typedef struct st_create_t {
    pthread_t *t;
    void *(*fn)(void *);
    void *arg;
} create_t;

static int create(void *arg)
{
    create_t *c = arg;
    return pthread_create(c->t, NULL, c->fn, c->arg);
}

int gpa_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    create_t c = {t, fn, arg};
    return gpa_thread_masked(create, &c);
}
