/*
 * gpuadmit arena: a bump allocator that owns everything derived from one document or one request.
 *
 * Ownership: memory returned by gpa_arena_* belongs to the arena and lives until gpa_arena_clear() or
 * gpa_arena_dispose(). Nothing allocated from an arena is ever freed one by one.
 *
 * Out of memory: every allocation in gpuadmit (arena or heap) aborts the process with file:line on failure,
 * so callers carry no NULL checks (one policy, as h2o_mem_alloc and Redis' zmalloc).
 */
#ifndef GPA_ARENA_H
#define GPA_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct st_gpa_arena_chunk_t gpa_arena_chunk_t;

typedef struct st_gpa_arena_t {
    gpa_arena_chunk_t *chunks_; /* newest first */
    char *cur_;
    size_t left_;
    size_t held_; /* bytes of chunk data the arena holds now */
    size_t peak_; /* the most it held since init or dispose */
    size_t used_; /* bytes handed out since it was last empty */
} gpa_arena_t;

/* Heap allocation with the abort-on-failure policy. The caller frees with free(). */
#define gpa_xmalloc(n) gpa_xmalloc_((n), __FILE__, __LINE__)
#define gpa_xcalloc(n, s) gpa_xcalloc_((n), (s), __FILE__, __LINE__)
#define gpa_xrealloc(p, n) gpa_xrealloc_((p), (n), __FILE__, __LINE__)
#define gpa_xstrdup(s) gpa_xstrdup_((s), __FILE__, __LINE__)
void *gpa_xmalloc_(size_t n, const char *file, int line);
void *gpa_xcalloc_(size_t n, size_t size, const char *file, int line);
void *gpa_xrealloc_(void *p, size_t n, const char *file, int line);
char *gpa_xstrdup_(const char *s, const char *file, int line);

/* An empty arena; allocates nothing until first use. A zeroed gpa_arena_t is also a valid empty arena. */
void gpa_arena_init(gpa_arena_t *a);
/* Frees everything, keeping one chunk for reuse: the per-request pattern is init once, clear after each. */
void gpa_arena_clear(gpa_arena_t *a);
/* Frees everything; the arena is empty afterwards and may be reused. */
void gpa_arena_dispose(gpa_arena_t *a);

/*
 * Exact accounting, the measure of the per-review memory bounds (tests and fuzzers assert on it, never on
 * time): the bytes of chunk data the arena holds now, and the most it held since gpa_arena_init() or
 * gpa_arena_dispose() (gpa_arena_clear() lowers the first, never the second). Chunk headers and malloc's
 * own overhead are not counted.
 */
size_t gpa_arena_held(const gpa_arena_t *a);
size_t gpa_arena_peak(const gpa_arena_t *a);
/* The bytes handed out since the arena was last empty, each allocation rounded to the alignment: what the same
 * allocations made again need in one chunk (gpa_arena_reserve). */
size_t gpa_arena_used(const gpa_arena_t *a);
/* Room for n bytes of allocations to come in the current chunk: when fewer are left, a chunk of exactly n bytes
 * becomes the current one. For a copy of known size (gpa_arena_used of the first), held without a tail to spare. */
void gpa_arena_reserve(gpa_arena_t *a, size_t n);

/* `size` bytes aligned for any type; not zeroed. */
void *gpa_arena_alloc(gpa_arena_t *a, size_t size);
/* `n * size` zeroed bytes; aborts on multiplication overflow. */
void *gpa_arena_calloc(gpa_arena_t *a, size_t n, size_t size);
/* Grows an arena array: returns a copy of `old` (old_n elements) with room for new_n, the tail zeroed. */
void *gpa_arena_grow(gpa_arena_t *a, void *old, size_t old_n, size_t new_n, size_t size);
/* NUL-terminated copy of s[0..n). */
char *gpa_arena_strndup(gpa_arena_t *a, const char *s, size_t n);
char *gpa_arena_strdup(gpa_arena_t *a, const char *s);
/* printf into the arena. */
char *gpa_arena_printf(gpa_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *gpa_arena_vprintf(gpa_arena_t *a, const char *fmt, va_list ap);

/*
 * A growable array in an arena: `GPA_VEC(gpa_violation_t) v = {0}; *gpa_vec_push(a, &v) = x;`
 * Elements move when it grows: never keep pointers into a vector that is still growing.
 */
#define GPA_VEC(type)                                                                                                              \
    struct {                                                                                                                       \
        type *items;                                                                                                               \
        size_t len, cap;                                                                                                           \
    }
#define gpa_vec_push(arena, vec)                                                                                                   \
    ((vec)->len == (vec)->cap ? (void)((vec)->items = gpa_arena_grow((arena), (vec)->items, (vec)->cap,                            \
                                                                     (vec)->cap ? (vec)->cap * 2 : 4, sizeof(*(vec)->items)),      \
                                       (vec)->cap = (vec)->cap ? (vec)->cap * 2 : 4)                                               \
                              : (void)0,                                                                                           \
     &(vec)->items[(vec)->len++])

#endif
