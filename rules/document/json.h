/*
 * The JSON reader: text in, a value tree (value.h) out, in the caller's arena.
 */
#ifndef GPA_JSON_H
#define GPA_JSON_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"

/*
 * Parses one JSON text (RFC 8259; trailing garbage, invalid UTF-8, lone surrogates and nesting deeper than
 * GPA_MAX_DEPTH are errors). Returns 0 and sets *out, or -1 with err filled (line and column of the fault).
 */
int gpa_json_parse(gpa_arena_t *a, const char *text, size_t len, gpa_value_t **out, gpa_error_t *err);

#endif
