#include "document/patch.h"
#include "document/emit.h"

#include <stdio.h>
#include <stdint.h>
#include <string.h>

void gpa_patch_push(gpa_arena_t *a, gpa_patch_t *p, gpa_patch_kind_t kind, const char *path, gpa_value_t *value)
{
    if (p->len == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        p->ops = gpa_arena_grow(a, p->ops, p->cap, cap, sizeof(*p->ops));
        p->cap = cap;
    }
    gpa_patch_op_t *op = &p->ops[p->len++];
    op->kind = kind;
    op->path = path;
    op->value = kind == GPA_PATCH_REMOVE ? NULL : value;
}

/* ---- encoding ---------------------------------------------------------------------------------------------------- */

const char *gpa_patch_pointer(gpa_arena_t *a, const char *parent, const char *key)
{
    if (strpbrk(key, "~/") == NULL)
        return gpa_arena_printf(a, "%s/%s", parent, key);
    GPA_VEC(char) s = {0};
    for (const char *p = parent; *p != '\0'; p++)
        *gpa_vec_push(a, &s) = *p;
    *gpa_vec_push(a, &s) = '/';
    for (const char *p = key; *p != '\0'; p++) {
        if (*p == '~' || *p == '/')
            *gpa_vec_push(a, &s) = '~';
        *gpa_vec_push(a, &s) = *p == '~' ? '0' : *p == '/' ? '1' : *p;
    }
    *gpa_vec_push(a, &s) = '\0';
    return s.items;
}

void gpa_patch_encode(gpa_buf_t *out, const gpa_patch_t *p)
{
    static const char *const names[] = {"add", "remove", "replace"};
    gpa_buf_putc(out, '[');
    for (size_t i = 0; i < p->len; i++) {
        const gpa_patch_op_t *op = &p->ops[i];
        if (i != 0)
            gpa_buf_putc(out, ',');
        gpa_buf_puts(out, "{\"op\":\"");
        gpa_buf_puts(out, names[op->kind]);
        gpa_buf_puts(out, "\",\"path\":");
        gpa_buf_json_string(out, op->path, strlen(op->path));
        if (op->kind != GPA_PATCH_REMOVE) {
            gpa_buf_puts(out, ",\"value\":");
            gpa_value_emit_json(out, op->value, 0);
        }
        gpa_buf_putc(out, '}');
    }
    gpa_buf_putc(out, ']');
}

/* ---- applying ---------------------------------------------------------------------------------------------------- */

/*
 * Copy-on-write state: the containers copied during this apply. A node on a changed path is copied once (a
 * shallow copy: new member/item array, same children), and later operations edit the copy in place. Every
 * other node, including the caller's tree and the patch's own values, is shared and never written.
 */
typedef struct st_cow_t {
    gpa_arena_t *a;
    /* The copies, as an open-addressing set of pointers (a list scanned per lookup made a patch of n operations
     * cost n^2: seconds for a Pod of 10,000 containers). cap is 0 or a power of two, at most half full. */
    const gpa_value_t **fresh;
    size_t nfresh, cap;
    gpa_error_t *err;
    size_t op_index;
    const char *path;
} cow_t;

static size_t fresh_slot(const gpa_value_t *const *set, size_t cap, const gpa_value_t *v)
{
    size_t i = (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
    while (set[i] != NULL && set[i] != v)
        i = (i + 1) & (cap - 1);
    return i;
}

static int is_fresh(const cow_t *c, const gpa_value_t *v)
{
    return c->cap != 0 && c->fresh[fresh_slot(c->fresh, c->cap, v)] == v;
}

static void add_fresh(cow_t *c, const gpa_value_t *v)
{
    if (2 * (c->nfresh + 1) > c->cap) {
        size_t cap = c->cap != 0 ? 2 * c->cap : 64;
        const gpa_value_t **set = gpa_arena_calloc(c->a, cap, sizeof(*set));
        for (size_t i = 0; i < c->cap; i++)
            if (c->fresh[i] != NULL)
                set[fresh_slot(set, cap, c->fresh[i])] = c->fresh[i];
        c->fresh = set;
        c->cap = cap;
    }
    c->fresh[fresh_slot(c->fresh, c->cap, v)] = v;
    c->nfresh++;
}

/* A copy of container v that this apply may edit (scalars are replaced, never edited, so they are shared). */
static gpa_value_t *writable(cow_t *c, gpa_value_t *v)
{
    if ((v->type != GPA_VOBJECT && v->type != GPA_VARRAY) || is_fresh(c, v))
        return v;
    gpa_value_t *copy = gpa_arena_alloc(c->a, sizeof(*copy));
    *copy = *v;
    if (v->type == GPA_VOBJECT) {
        size_t n = v->u.object.len;
        copy->u.object.members = gpa_arena_grow(c->a, v->u.object.members, n, n, sizeof(gpa_member_t));
    } else if (v->type == GPA_VARRAY) {
        size_t n = v->u.array.len;
        copy->u.array.items = gpa_arena_grow(c->a, v->u.array.items, n, n, sizeof(gpa_value_t *));
    }
    add_fresh(c, copy);
    return copy;
}

static int fail(cow_t *c, const char *fmt, const char *detail)
{
    char where[64];
    snprintf(where, sizeof(where), "patch[%zu]", c->op_index);
    return gpa_error_set(c->err, 0, 0, where, fmt, c->path, detail);
}

/* One reference token of a pointer, unescaped (~1 → /, ~0 → ~). *next is where the following token starts. */
static int next_token(cow_t *c, const char *p, char **tok, size_t *len, const char **next)
{
    const char *end = strchr(p, '/');
    size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
    char *out = gpa_arena_alloc(c->a, n + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '~') {
            out[w++] = p[i];
            continue;
        }
        if (i + 1 >= n || (p[i + 1] != '0' && p[i + 1] != '1'))
            return fail(c, "path \"%s\": %s", "'~' must be followed by 0 or 1");
        out[w++] = p[++i] == '0' ? '~' : '/';
    }
    out[w] = '\0';
    *tok = out;
    *len = w;
    *next = end != NULL ? end + 1 : NULL;
    return 0;
}

static gpa_member_t *find_member(gpa_value_t *obj, const char *key, size_t len)
{
    for (size_t i = 0; i < obj->u.object.len; i++) {
        gpa_member_t *m = &obj->u.object.members[i];
        if (m->key_len == len && memcmp(m->key, key, len) == 0)
            return m;
    }
    return NULL;
}

/* An array index token: "0" or digits without a leading zero; "-" (append) only when allowed. -1 when invalid. */
static long long parse_index(const char *tok, size_t len, size_t array_len, int allow_end)
{
    if (allow_end && len == 1 && tok[0] == '-')
        return (long long)array_len;
    if (len == 0 || len > 18 || (tok[0] == '0' && len > 1))
        return -1;
    long long n = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return -1;
        n = n * 10 + (tok[i] - '0');
    }
    return n;
}

static int edit_object(cow_t *c, gpa_value_t *obj, gpa_patch_kind_t kind, const char *key, size_t len, gpa_value_t *value)
{
    gpa_member_t *m = find_member(obj, key, len);
    if (m == NULL && kind != GPA_PATCH_ADD)
        return fail(c, "path \"%s\": %s", "no such member");
    if (kind == GPA_PATCH_REMOVE) {
        size_t i = (size_t)(m - obj->u.object.members);
        memmove(m, m + 1, (obj->u.object.len - i - 1) * sizeof(*m));
        obj->u.object.len--;
    } else if (m != NULL) {
        m->value = value;
    } else {
        size_t n = obj->u.object.len;
        obj->u.object.members = gpa_arena_grow(c->a, obj->u.object.members, n, n + 1, sizeof(*m));
        obj->u.object.members[n] = (gpa_member_t){key, len, value};
        obj->u.object.len = n + 1;
    }
    return 0;
}

static int edit_array(cow_t *c, gpa_value_t *arr, gpa_patch_kind_t kind, const char *tok, size_t tlen, gpa_value_t *value)
{
    size_t n = arr->u.array.len;
    long long idx = parse_index(tok, tlen, n, kind == GPA_PATCH_ADD);
    if (idx < 0 || (size_t)idx > n || (kind != GPA_PATCH_ADD && (size_t)idx == n))
        return fail(c, "path \"%s\": %s", "array index out of range or not a number");
    size_t i = (size_t)idx;
    if (kind == GPA_PATCH_REPLACE) {
        arr->u.array.items[i] = value;
    } else if (kind == GPA_PATCH_REMOVE) {
        memmove(&arr->u.array.items[i], &arr->u.array.items[i + 1], (n - i - 1) * sizeof(gpa_value_t *));
        arr->u.array.len--;
    } else {
        arr->u.array.items = gpa_arena_grow(c->a, arr->u.array.items, n, n + 1, sizeof(gpa_value_t *));
        memmove(&arr->u.array.items[i + 1], &arr->u.array.items[i], (n - i) * sizeof(gpa_value_t *));
        arr->u.array.items[i] = value;
        arr->u.array.len = n + 1;
    }
    return 0;
}

/* The child of a container for one token, or NULL when it does not resolve. */
static gpa_value_t **child_slot(gpa_value_t *v, const char *tok, size_t len)
{
    if (v->type == GPA_VOBJECT) {
        gpa_member_t *m = find_member(v, tok, len);
        return m != NULL ? &m->value : NULL;
    }
    if (v->type == GPA_VARRAY) {
        long long i = parse_index(tok, len, v->u.array.len, 0);
        return i >= 0 && (size_t)i < v->u.array.len ? &v->u.array.items[i] : NULL;
    }
    return NULL;
}

static int apply_op(cow_t *c, gpa_value_t **root, const gpa_patch_op_t *op)
{
    c->path = op->path;
    if (op->path[0] == '\0') {
        if (op->kind == GPA_PATCH_REMOVE)
            return fail(c, "path \"%s\": %s", "the document root cannot be removed");
        *root = op->value;
        return 0;
    }
    if (op->path[0] != '/')
        return fail(c, "path \"%s\": %s", "a JSON pointer starts with '/'");
    if (op->kind != GPA_PATCH_REMOVE && op->value == NULL)
        return fail(c, "path \"%s\": %s", "add and replace need a value");
    /* Walk down, copying each container on the way, so the edit lands in a tree of our own. */
    gpa_value_t **slot = root;
    *slot = writable(c, *slot);
    const char *p = op->path + 1;
    for (;;) {
        char *tok = NULL;
        size_t len = 0;
        const char *next = NULL;
        if (next_token(c, p, &tok, &len, &next) != 0)
            return -1;
        gpa_value_t *cur = *slot;
        if (next == NULL) {
            if (cur->type == GPA_VOBJECT)
                return edit_object(c, cur, op->kind, tok, len, op->value);
            if (cur->type == GPA_VARRAY)
                return edit_array(c, cur, op->kind, tok, len, op->value);
            return fail(c, "path \"%s\": %s", "the parent is neither an object nor an array");
        }
        gpa_value_t **child = child_slot(cur, tok, len);
        if (child == NULL)
            return fail(c, "path \"%s\": %s", "a parent on the path does not exist");
        *child = writable(c, *child);
        slot = child;
        p = next;
    }
}

int gpa_patch_apply(gpa_arena_t *a, gpa_value_t **root, const gpa_patch_t *p, gpa_error_t *err)
{
    cow_t c = {.a = a, .err = err};
    gpa_value_t *result = *root;
    for (size_t i = 0; i < p->len; i++) {
        c.op_index = i;
        if (apply_op(&c, &result, &p->ops[i]) != 0)
            return -1;
    }
    *root = result;
    return 0;
}
