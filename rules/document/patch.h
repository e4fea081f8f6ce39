/*
 * JSON Patch (RFC 6902) as mutations produce it: a list of operations appended by the mutators and encoded
 * by one function. Paths are JSON pointers with keys already escaped (~0, ~1).
 *
 * Ownership: operations, paths and values belong to the arena they were added with.
 */
#ifndef GPA_PATCH_H
#define GPA_PATCH_H

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "document/value.h"

typedef enum en_gpa_patch_kind_t {
    GPA_PATCH_ADD,
    GPA_PATCH_REMOVE,
    GPA_PATCH_REPLACE,
} gpa_patch_kind_t;

typedef struct st_gpa_patch_op_t {
    gpa_patch_kind_t kind;
    const char *path;   /* JSON pointer */
    gpa_value_t *value; /* add/replace; NULL for remove */
} gpa_patch_op_t;

typedef struct st_gpa_patch_t {
    gpa_patch_op_t *ops;
    size_t len, cap;
} gpa_patch_t;

void gpa_patch_push(gpa_arena_t *a, gpa_patch_t *p, gpa_patch_kind_t kind, const char *path, gpa_value_t *value);
/* The pointer `parent` + "/" + `key` escaped as RFC 6901 says ('~' as ~0, '/' as ~1), arena-owned:
 * gpa_patch_pointer(a, "/spec/limits", "nvidia.com/gpumem") is "/spec/limits/nvidia.com~1gpumem". */
const char *gpa_patch_pointer(gpa_arena_t *a, const char *parent, const char *key);
/* Appends the patch as a JSON array ("[]" when empty). */
void gpa_patch_encode(gpa_buf_t *out, const gpa_patch_t *p);
/*
 * Applies the patch to a copy of *root (copy-on-write: only the nodes on changed paths are copied, the input
 * tree is never modified) and sets *root to the result. Fails, with err, when a path does not resolve as RFC
 * 6902 requires.
 */
int gpa_patch_apply(gpa_arena_t *a, gpa_value_t **root, const gpa_patch_t *p, gpa_error_t *err);

#endif
