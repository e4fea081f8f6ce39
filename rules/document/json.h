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

/* Where a text starts inside a larger input, and how deep: positions and the depth limit count from there. */
typedef struct st_gpa_json_pos_t {
    unsigned line, column; /* 1-based */
    unsigned depth;        /* containers open around the text */
} gpa_json_pos_t;

/*
 * Parses the one JSON value at the start of text[0..len) (no white space before it; what follows it is not
 * looked at), for readers that take a large input a value at a time. *at gives the position of text[0] and is
 * advanced to the byte after the value; *used is the value's length. Returns 0, or -1 with err filled and
 * *short_input set when the fault may be the end of the text (a value cut short: more text may complete it).
 * A number that ends the text is complete only if the input ends there: callers check the byte after it.
 * With `out` NULL the value is only checked for faults (the same faults, found the same way) and no tree is
 * built (no nodes, arrays or kept strings: about 40% fewer instructions), for a first reading that only
 * needs to know the input is sound.
 */
int gpa_json_parse_value(gpa_arena_t *a, const char *text, size_t len, gpa_json_pos_t *at, gpa_value_t **out, size_t *used,
                         int *short_input, gpa_error_t *err);

#endif
