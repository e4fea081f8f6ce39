/*
 * The document tree: lookups, constructors, equality and duplicate-key removal.
 */
#include "document/value.h"

#include <stdlib.h>
#include <string.h>

/* Objects up to this size are handled by pairwise comparison; above it, by sorting (no O(n^2) blow-up). */
#define SMALL_OBJECT 16

static inline int key_eq(const gpa_member_t *x, const gpa_member_t *y)
{
    /* Length and first byte settle almost every comparison. A zero-length key may be NULL (unfilled member). */
    if (x->key_len != y->key_len)
        return 0;
    return x->key_len == 0 || (x->key[0] == y->key[0] && memcmp(x->key, y->key, x->key_len) == 0);
}

static int key_cmp(const char *x, size_t xl, const char *y, size_t yl)
{
    int c = xl == 0 || yl == 0 ? 0 : memcmp(x, y, xl < yl ? xl : yl);
    if (c != 0)
        return c;
    return xl < yl ? -1 : xl > yl;
}

typedef struct st_keyref_t {
    const gpa_member_t *m;
    size_t index;
} keyref_t;

/* Sorts by key, then by position, so the last occurrence of a key ends each run of equals. */
static int keyref_cmp(const void *pa, const void *pb)
{
    const keyref_t *a = pa, *b = pb;
    int c = key_cmp(a->m->key, a->m->key_len, b->m->key, b->m->key_len);
    if (c != 0)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

static size_t dedupe_small(gpa_member_t *m, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = i + 1;
        while (k < n && !key_eq(&m[i], &m[k]))
            k++;
        if (k == n) /* no later duplicate: keep */
            m[out++] = m[i];
    }
    return out;
}

static size_t dedupe_sorted(gpa_member_t *m, size_t n)
{
    keyref_t *refs = gpa_xmalloc(n * sizeof(*refs));
    unsigned char *drop = gpa_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        refs[i].m = &m[i];
        refs[i].index = i;
    }
    qsort(refs, n, sizeof(*refs), keyref_cmp);
    int any = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (key_eq(refs[i].m, refs[i + 1].m)) {
            drop[refs[i].index] = 1;
            any = 1;
        }
    }
    size_t out = n;
    if (any) {
        out = 0;
        for (size_t i = 0; i < n; i++) {
            if (!drop[i])
                m[out++] = m[i];
        }
    }
    free(drop);
    free(refs);
    return out;
}

size_t gpa_members_dedupe(gpa_member_t *members, size_t n)
{
    if (n < 2)
        return n;
    return n <= SMALL_OBJECT ? dedupe_small(members, n) : dedupe_sorted(members, n);
}

gpa_value_t *gpa_value_get(const gpa_value_t *obj, const char *key)
{
    if (obj == NULL || obj->type != GPA_VOBJECT || key == NULL)
        return NULL;
    size_t len = strlen(key);
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const gpa_member_t *m = &obj->u.object.members[i];
        if (m->key_len == len && memcmp(m->key, key, len) == 0)
            return m->value;
    }
    return NULL;
}

gpa_value_t *gpa_value_at(const gpa_value_t *array, size_t index)
{
    if (array == NULL || array->type != GPA_VARRAY || index >= array->u.array.len)
        return NULL;
    return array->u.array.items[index];
}

const char *gpa_value_string(const gpa_value_t *v)
{
    return v != NULL && v->type == GPA_VSTRING ? v->u.str.ptr : NULL;
}

gpa_value_t *gpa_value_new_string(gpa_arena_t *a, const char *s, size_t len)
{
    gpa_value_t *v = gpa_arena_calloc(a, 1, sizeof(*v));
    v->type = GPA_VSTRING;
    v->u.str.ptr = gpa_arena_strndup(a, s, len);
    v->u.str.len = len;
    return v;
}

gpa_value_t *gpa_value_new_object(gpa_arena_t *a, size_t nmembers)
{
    gpa_value_t *v = gpa_arena_calloc(a, 1, sizeof(*v));
    v->type = GPA_VOBJECT;
    v->u.object.len = nmembers;
    v->u.object.members = nmembers ? gpa_arena_calloc(a, nmembers, sizeof(gpa_member_t)) : NULL;
    return v;
}

static int member_ptr_cmp(const void *pa, const void *pb)
{
    const gpa_member_t *a = *(const gpa_member_t *const *)pa, *b = *(const gpa_member_t *const *)pb;
    return key_cmp(a->key, a->key_len, b->key, b->key_len);
}

static const gpa_member_t **sorted_members(const gpa_value_t *obj)
{
    size_t n = obj->u.object.len;
    const gpa_member_t **p = gpa_xmalloc(n * sizeof(*p));
    for (size_t i = 0; i < n; i++)
        p[i] = &obj->u.object.members[i];
    qsort(p, n, sizeof(*p), member_ptr_cmp);
    return p;
}

/* Objects as sets of members. Keys are unique within a parsed object (dedupe), so sorted order pairs them. */
static int objects_equal(const gpa_value_t *x, const gpa_value_t *y)
{
    size_t n = x->u.object.len;
    if (n != y->u.object.len)
        return 0;
    if (n <= SMALL_OBJECT) {
        for (size_t i = 0; i < n; i++) {
            const gpa_member_t *mx = &x->u.object.members[i];
            size_t k = 0;
            while (k < n && !key_eq(mx, &y->u.object.members[k]))
                k++;
            if (k == n || !gpa_value_equal(mx->value, y->u.object.members[k].value))
                return 0;
        }
        return 1;
    }
    const gpa_member_t **sx = sorted_members(x), **sy = sorted_members(y);
    int eq = 1;
    for (size_t i = 0; i < n && eq; i++)
        eq = key_eq(sx[i], sy[i]) && gpa_value_equal(sx[i]->value, sy[i]->value);
    free(sx);
    free(sy);
    return eq;
}

int gpa_value_equal(const gpa_value_t *x, const gpa_value_t *y)
{
    if (x == y)
        return 1; /* also shared YAML alias nodes */
    if (x == NULL || y == NULL || x->type != y->type)
        return 0;
    switch (x->type) {
    case GPA_VNULL:
        return 1;
    case GPA_VBOOL:
        return !x->u.boolean == !y->u.boolean;
    case GPA_VNUMBER:
    case GPA_VSTRING:
        return x->u.str.len == y->u.str.len && memcmp(x->u.str.ptr, y->u.str.ptr, x->u.str.len) == 0;
    case GPA_VARRAY:
        if (x->u.array.len != y->u.array.len)
            return 0;
        for (size_t i = 0; i < x->u.array.len; i++) {
            if (!gpa_value_equal(x->u.array.items[i], y->u.array.items[i]))
                return 0;
        }
        return 1;
    case GPA_VOBJECT:
        return objects_equal(x, y);
    }
    return 0;
}

const char *gpa_vtype_name(gpa_vtype_t type)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "a list", "a mapping"};
    return (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

gpa_value_t *gpa_value_clone(gpa_arena_t *a, const gpa_value_t *v)
{
    gpa_value_t *c = gpa_arena_alloc(a, sizeof(*c));
    *c = *v;
    switch (v->type) {
    case GPA_VSTRING:
    case GPA_VNUMBER:
        c->u.str.ptr = gpa_arena_strndup(a, v->u.str.ptr, v->u.str.len);
        break;
    case GPA_VARRAY:
        c->u.array.items = gpa_arena_calloc(a, v->u.array.len + 1, sizeof(*c->u.array.items));
        for (size_t i = 0; i < v->u.array.len; i++)
            c->u.array.items[i] = gpa_value_clone(a, v->u.array.items[i]);
        break;
    case GPA_VOBJECT:
        c->u.object.members = gpa_arena_calloc(a, v->u.object.len + 1, sizeof(*c->u.object.members));
        for (size_t i = 0; i < v->u.object.len; i++) {
            const gpa_member_t *m = &v->u.object.members[i];
            c->u.object.members[i] =
                (gpa_member_t){gpa_arena_strndup(a, m->key, m->key_len), m->key_len, gpa_value_clone(a, m->value)};
        }
        break;
    default:
        break;
    }
    return c;
}
