/* Interning (intern.h): open addressing over the values' FNV-1a hashes, the table at most half full. */
#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

struct st_gpa_intern_entry_t {
    const void *p; /* NULL: an empty slot */
    size_t n;
    uint64_t hash;
};

void gpa_intern_init(gpa_intern_t *in, gpa_arena_t *a)
{
    *in = (gpa_intern_t){.a = a};
}

void gpa_intern_dispose(gpa_intern_t *in)
{
    free(in->slots_);
    *in = (gpa_intern_t){.a = in->a};
}

static void grow(gpa_intern_t *in)
{
    size_t n = in->nslots_ != 0 ? in->nslots_ * 2 : 256;
    gpa_intern_entry_t *slots = gpa_xcalloc(n, sizeof(*slots));
    for (size_t i = 0; i < in->nslots_; i++) {
        const gpa_intern_entry_t *e = &in->slots_[i];
        if (e->p == NULL)
            continue;
        size_t k = e->hash & (n - 1);
        for (size_t probe = 0; probe < GPA_INTERN_MAX_PROBE && slots[k].p != NULL; probe++)
            k = (k + 1) & (n - 1);
        if (slots[k].p == NULL)
            slots[k] = *e; /* past the probe limit the entry is dropped: its copy stays valid, only unshared */
    }
    free(in->slots_);
    in->slots_ = slots;
    in->nslots_ = n;
}

static const void *copy(gpa_intern_t *in, const void *p, size_t n)
{
    void *c = gpa_arena_alloc(in->a, n != 0 ? n : 1);
    memcpy(c, p, n);
    return c;
}

const void *gpa_intern_bytes(gpa_intern_t *in, const void *p, size_t n)
{
    if (2 * (in->len_ + 1) > in->nslots_)
        grow(in);
    uint64_t hash = gpa_hash_bytes(GPA_HASH_START, p, n);
    size_t k = hash & (in->nslots_ - 1);
    for (size_t probe = 0; probe < GPA_INTERN_MAX_PROBE; probe++, k = (k + 1) & (in->nslots_ - 1)) {
        gpa_intern_entry_t *e = &in->slots_[k];
        if (e->p == NULL) {
            *e = (gpa_intern_entry_t){copy(in, p, n), n, hash};
            in->len_++;
            return e->p;
        }
        if (e->hash == hash && e->n == n && memcmp(e->p, p, n) == 0)
            return e->p;
    }
    return copy(in, p, n);
}

const char *gpa_intern_string(gpa_intern_t *in, const char *s)
{
    return s != NULL ? gpa_intern_bytes(in, s, strlen(s) + 1) : NULL;
}
