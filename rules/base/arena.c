#include "base/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (16 * 1024 - 64)
#define ALIGN 16

struct st_gpa_arena_chunk_t {
    gpa_arena_chunk_t *next;
    size_t size;
    _Alignas(ALIGN) char data[];
};

static void die(const char *what, size_t n, const char *file, int line)
{
    fprintf(stderr, "%s:%d: out of memory (%s of %zu bytes)\n", file, line, what, n);
    abort();
}

void *gpa_xmalloc_(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        die("malloc", n, file, line);
    return p;
}

void *gpa_xcalloc_(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        die("calloc", n * size, file, line);
    return p;
}

void *gpa_xrealloc_(void *p, size_t n, const char *file, int line)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        die("realloc", n, file, line);
    return q;
}

char *gpa_xstrdup_(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    return memcpy(gpa_xmalloc_(n, file, line), s, n);
}

void gpa_arena_init(gpa_arena_t *a)
{
    memset(a, 0, sizeof(*a));
}

static void free_chunks(gpa_arena_chunk_t *c)
{
    while (c != NULL) {
        gpa_arena_chunk_t *next = c->next;
        free(c);
        c = next;
    }
}

size_t gpa_arena_held(const gpa_arena_t *a)
{
    return a->held_;
}

size_t gpa_arena_peak(const gpa_arena_t *a)
{
    return a->peak_;
}

size_t gpa_arena_used(const gpa_arena_t *a)
{
    return a->used_;
}

/* Records `size` more bytes of chunk data held. */
static void account(gpa_arena_t *a, size_t size)
{
    a->held_ += size;
    if (a->held_ > a->peak_)
        a->peak_ = a->held_;
}

void gpa_arena_reserve(gpa_arena_t *a, size_t n)
{
    n = (n + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
    if (n <= a->left_ || n > SIZE_MAX - sizeof(gpa_arena_chunk_t))
        return;
    gpa_arena_chunk_t *c = gpa_xmalloc(sizeof(*c) + n);
    c->size = n;
    account(a, n);
    c->next = a->chunks_;
    a->chunks_ = c;
    a->cur_ = c->data;
    a->left_ = n;
}

void gpa_arena_clear(gpa_arena_t *a)
{
    gpa_arena_chunk_t *keep = a->chunks_;
    if (keep == NULL)
        return;
    /* Keep the oldest standard-size chunk: it is the one a steady request load reuses. */
    gpa_arena_chunk_t *c = keep, *prev = NULL;
    while (c->next != NULL) {
        prev = c;
        c = c->next;
    }
    if (prev != NULL)
        prev->next = NULL;
    if (c != keep)
        free_chunks(keep);
    a->used_ = 0;
    if (c->size != CHUNK_SIZE) {
        free(c);
        a->chunks_ = NULL, a->cur_ = NULL, a->left_ = 0, a->held_ = 0;
        return;
    }
    a->held_ = CHUNK_SIZE;
    c->next = NULL;
    a->chunks_ = c;
    a->cur_ = c->data;
    a->left_ = c->size;
}

void gpa_arena_dispose(gpa_arena_t *a)
{
    free_chunks(a->chunks_);
    gpa_arena_init(a);
}

static void *alloc_slow(gpa_arena_t *a, size_t size)
{
    if (size > CHUNK_SIZE / 4) {
        /* A large block gets a chunk of its own, behind the current one so the current one stays in use. */
        if (size > SIZE_MAX - sizeof(gpa_arena_chunk_t))
            die("arena", size, __FILE__, __LINE__);
        gpa_arena_chunk_t *c = gpa_xmalloc(sizeof(*c) + size);
        c->size = size;
        account(a, size);
        if (a->chunks_ != NULL) {
            c->next = a->chunks_->next;
            a->chunks_->next = c;
        } else {
            c->next = NULL;
            a->chunks_ = c;
            a->cur_ = NULL;
            a->left_ = 0;
        }
        return c->data;
    }
    gpa_arena_chunk_t *c = gpa_xmalloc(sizeof(*c) + CHUNK_SIZE);
    c->size = CHUNK_SIZE;
    account(a, CHUNK_SIZE);
    c->next = a->chunks_;
    a->chunks_ = c;
    a->cur_ = c->data + size;
    a->left_ = CHUNK_SIZE - size;
    return c->data;
}

void *gpa_arena_alloc(gpa_arena_t *a, size_t size)
{
    size_t rounded = (size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
    if (rounded < size)
        die("arena", size, __FILE__, __LINE__);
    a->used_ += rounded;
    if (rounded <= a->left_) {
        void *p = a->cur_;
        a->cur_ += rounded;
        a->left_ -= rounded;
        return p;
    }
    return alloc_slow(a, rounded);
}

void *gpa_arena_calloc(gpa_arena_t *a, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        die("arena calloc", n, __FILE__, __LINE__);
    return memset(gpa_arena_alloc(a, n * size), 0, n * size);
}

/*
 * A block larger than a chunk always has a chunk of its own (alloc_slow): growing it reallocates that chunk in
 * place of copying it, so a vector doubling to n elements holds n, not the 2n of every size it went through.
 * NULL when `old` is not such a block.
 */
static void *grow_own_chunk(gpa_arena_t *a, void *old, size_t old_bytes, size_t new_bytes)
{
    if (old == NULL || old_bytes <= CHUNK_SIZE || new_bytes > SIZE_MAX - sizeof(gpa_arena_chunk_t))
        return NULL;
    for (gpa_arena_chunk_t **link = &a->chunks_; *link != NULL; link = &(*link)->next) {
        gpa_arena_chunk_t *c = *link;
        if (c->data != old)
            continue;
        a->held_ -= c->size; /* the block's rounded size, at least old_bytes */
        a->used_ += new_bytes - c->size;
        c = gpa_xrealloc(c, sizeof(*c) + new_bytes);
        c->size = new_bytes;
        account(a, new_bytes);
        memset(c->data + old_bytes, 0, new_bytes - old_bytes);
        *link = c; /* never the current chunk: a block of its own sits behind it (alloc_slow) or alone */
        if (a->chunks_ == c && a->cur_ != NULL)
            a->cur_ = NULL, a->left_ = 0;
        return c->data;
    }
    return NULL;
}

void *gpa_arena_grow(gpa_arena_t *a, void *old, size_t old_n, size_t new_n, size_t size)
{
    if (size != 0 && new_n > SIZE_MAX / size)
        die("arena grow", new_n, __FILE__, __LINE__);
    void *grown = old_n < new_n ? grow_own_chunk(a, old, old_n * size, new_n * size) : NULL;
    if (grown != NULL)
        return grown;
    char *p = gpa_arena_calloc(a, new_n, size);
    if (old_n != 0)
        memcpy(p, old, old_n * size);
    return p;
}

char *gpa_arena_strndup(gpa_arena_t *a, const char *s, size_t n)
{
    char *p = gpa_arena_alloc(a, n + 1);
    if (n != 0)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *gpa_arena_strdup(gpa_arena_t *a, const char *s)
{
    return gpa_arena_strndup(a, s, strlen(s));
}

char *gpa_arena_vprintf(gpa_arena_t *a, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, copy);
    va_end(copy);
    if (n < 0)
        return gpa_arena_strdup(a, "");
    char *p = gpa_arena_alloc(a, (size_t)n + 1);
    if ((size_t)n < sizeof(small))
        memcpy(p, small, (size_t)n + 1);
    else
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *gpa_arena_printf(gpa_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = gpa_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
