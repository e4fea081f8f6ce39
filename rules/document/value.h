/*
 * gpuadmit documents: one small tree type for everything read from JSON or YAML, with source locations.
 *
 * Both parsers build this tree in an arena; every later stage (decode into the typed model, patch, emit)
 * reads it. It is our own type so that the engine's public API carries no JSON-library types.
 *
 * Ownership: every node, key and string belongs to the arena passed to the parser.
 *
 * Strings are decoded (JSON escapes, YAML escapes and folding) before anyone compares them, so a key written
 * "koordinator.sh\u002fgpu-core" reads as "koordinator.sh/gpu-core". Numbers keep their literal text.
 * Duplicate keys in one object: the last one wins and the earlier ones are removed by the parser (what
 * kube-apiserver's decoder does), so an object never holds the same key twice.
 */
#ifndef GPA_VALUE_H
#define GPA_VALUE_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

/* Deepest nesting either parser accepts (an error beyond it, never a stack overflow). */
#define GPA_MAX_DEPTH 256

typedef enum en_gpa_vtype_t {
    GPA_VNULL,
    GPA_VBOOL,
    GPA_VNUMBER,
    GPA_VSTRING,
    GPA_VARRAY,
    GPA_VOBJECT,
} gpa_vtype_t;

typedef struct st_gpa_value_t gpa_value_t;

typedef struct st_gpa_member_t {
    const char *key; /* decoded, NUL-terminated (may contain NUL before key_len) */
    size_t key_len;
    gpa_value_t *value;
} gpa_member_t;

struct st_gpa_value_t {
    gpa_vtype_t type;
    unsigned line, column; /* 1-based position of the node's first character in its source; 0 = made, not read */
    union {
        int boolean;
        /* GPA_VSTRING: decoded text; GPA_VNUMBER: the literal as written. NUL-terminated either way. */
        struct {
            const char *ptr;
            size_t len;
        } str;
        struct {
            gpa_value_t **items;
            size_t len;
        } array;
        struct {
            gpa_member_t *members;
            size_t len;
        } object;
    } u;
};

/* A stream of documents (a YAML file may hold several; JSON holds one). */
typedef struct st_gpa_docs_t {
    gpa_value_t **docs;
    size_t len;
} gpa_docs_t;

/* Lookups: NULL when absent or when `v` is not of the right type. */
gpa_value_t *gpa_value_get(const gpa_value_t *obj, const char *key);
gpa_value_t *gpa_value_at(const gpa_value_t *array, size_t index);
/* The string of a GPA_VSTRING node, else NULL. */
const char *gpa_value_string(const gpa_value_t *v);

/* Constructors (arena-owned; line/column 0). */
gpa_value_t *gpa_value_new_string(gpa_arena_t *a, const char *s, size_t len);
gpa_value_t *gpa_value_new_object(gpa_arena_t *a, size_t nmembers); /* members zeroed; fill them */
/*
 * Removes duplicate keys from members[0..n) in place: for each key only the last occurrence stays, at its
 * own position, and the order of the survivors is kept. Returns the new count. O(n log n) on large objects
 * (the parsers call it on every object they build; exposed for code that builds objects by hand).
 */
size_t gpa_members_dedupe(gpa_member_t *members, size_t n);
/* "null", "a boolean", "a number", "a string", "a list", "a mapping": for "must be X, not Y" messages (schema.h). */
const char *gpa_vtype_name(gpa_vtype_t type);
/* A deep copy of v in `a` (keys and strings copied; positions kept). Recursion follows v's depth, which the parsers
 * bound by GPA_MAX_DEPTH. */
gpa_value_t *gpa_value_clone(gpa_arena_t *a, const gpa_value_t *v);
/* Deep equality (numbers compared by literal text; object members compared as sets, order ignored). */
int gpa_value_equal(const gpa_value_t *x, const gpa_value_t *y);

#endif
