/*
 * serve's background threads (the live view's reflectors and publisher, the webhook registrar, the certificate
 * sync), started one way: with SIGTERM and SIGINT blocked, so that the server's own thread alone takes them and a
 * SIGTERM always ends in the graceful drain, whichever moment of the start it arrives at.
 */
#ifndef GPA_CLI_THREAD_H
#define GPA_CLI_THREAD_H

#include <pthread.h>

/* pthread_create(t, NULL, fn, arg) with SIGTERM and SIGINT blocked in the new thread (the caller's mask is kept).
 * Returns 0, or pthread_create's error. */
int gpa_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* Runs start(arg) with SIGTERM and SIGINT blocked, so that every thread it creates inherits the mask; returns its
 * result. For code that starts threads of its own (the reflectors). */
int gpa_thread_masked(int (*start)(void *arg), void *arg);

#endif
