/*
 * Closed schemas (configuration, inventories, test suites, and the shapes decode reads): one wording for the
 * same fault wherever it happens, so that every front end prints `file:line:col: path: message` alike:
 *
 *     nodes[2]: unknown field "gpu"; known: count, memory, core, model
 *     nodes[2].gpus: must be a mapping, not a list
 *
 * `path` is where the fault is in the document, written as a reader would look it up (`a.b[2].c`, never with a
 * leading dot; "" for the document itself): for an unknown field, the mapping that holds it; for a wrong type,
 * the value. The error's line and column are those of the offending value; its source is the one err was
 * initialized with (gpa_error_init). Like gpa_error_set, every function leaves an error already set alone.
 */
#ifndef GPA_SCHEMA_H
#define GPA_SCHEMA_H

#include <stdarg.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"

/*
 * 0 when every member of mapping `obj` is in `known` (NULL-terminated); else -1 with err at the first unknown
 * member's value: `unknown field "x"; known: a, b, c`.
 */
int gpa_schema_fields(gpa_error_t *err, const gpa_value_t *obj, const char *path, const char *const *known);
/* The same fault for a member the caller already found unknown (readers that dispatch on each key). Returns -1. */
int gpa_schema_unknown_field(gpa_error_t *err, const gpa_member_t *m, const char *path, const char *const *known);
/* 0 when v is of `type`; else -1 with err at v: `must be a list, not a mapping` (gpa_vtype_name's words). */
int gpa_schema_want(gpa_error_t *err, const gpa_value_t *v, gpa_vtype_t type, const char *path);
/*
 * The same fault when what is wanted is not one type ("a quantity (a string or a number)", "true or false"):
 * `must be <want>, not <v's type>`. Returns -1. A NULL v reads as missing (line and column 0).
 */
int gpa_schema_wrong_type(gpa_error_t *err, const gpa_value_t *v, const char *want, const char *path);
/* Any other fault of a value: err at v (its line and column, 0 for a NULL v), the message formatted. Returns -1. */
int gpa_schema_fail(gpa_error_t *err, const gpa_value_t *v, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int gpa_schema_vfail(gpa_error_t *err, const gpa_value_t *v, const char *path, const char *fmt, va_list ap);
/* `parent.key`, or `key` when parent is "" (arena-owned): paths never start with a dot. */
const char *gpa_schema_path(gpa_arena_t *a, const char *parent, const char *key);

#endif
