/*
 * Values stored once: equal strings (or equal records of bytes) share one copy, for what holds many of the same
 * (a DRA inventory's 10^5 devices carry a few dozen distinct attribute names, paths and profile values).
 *
 * Ownership: the copies live in the arena given to gpa_intern_init and outlive the interner; the interner's table
 * is its own heap memory (gpa_intern_dispose). Interning is an economy, never a meaning: when a value's probe runs
 * longer than GPA_INTERN_MAX_PROBE (a table fed colliding values), it is copied without being shared, so what one
 * value costs stays bounded whatever the input.
 */
#ifndef GPA_INTERN_H
#define GPA_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

#define GPA_INTERN_MAX_PROBE 32

typedef struct st_gpa_intern_entry_t gpa_intern_entry_t;

typedef struct st_gpa_intern_t {
    gpa_arena_t *a;
    gpa_intern_entry_t *slots_;
    size_t nslots_, len_;
} gpa_intern_t;

void gpa_intern_init(gpa_intern_t *in, gpa_arena_t *a);
/* Frees the table; the copies stay in the arena. The interner may be initialised again. */
void gpa_intern_dispose(gpa_intern_t *in);

/* The one copy of s (NUL-terminated; NULL gives NULL). */
const char *gpa_intern_string(gpa_intern_t *in, const char *s);
/* The one copy of the n bytes at p, aligned for any type: for records whose bytes are their meaning (zero their
 * padding, and intern what they point to first). */
const void *gpa_intern_bytes(gpa_intern_t *in, const void *p, size_t n);

#endif
