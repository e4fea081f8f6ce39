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

/*
 * What of a JSON text to build (gpa_json_parse_filtered): a tree of member names, for readers that need a few
 * paths of a large document. A value under a filter node is built as follows: an object keeps only the members
 * the node names (or, with `*`, every member), each read under that member's node; an array keeps every item,
 * each read under the same node (lists are transparent: `containers[*].name` and `containers.name` are one path);
 * a scalar is kept as it is. A node marked whole keeps its value whole. Members not kept are still read for faults
 * (the same faults, found the same way) but nothing of them is built: no nodes, no strings.
 *
 * Ownership: nodes live in the arena they were made in; a filter is only read by the parser, so one filter may
 * serve any number of parses (and threads) once built.
 */
typedef struct st_gpa_json_filter_t gpa_json_filter_t;

/* A filter node that keeps its value and none of its members. */
gpa_json_filter_t *gpa_json_filter_new(gpa_arena_t *a);
/*
 * The node under f that `path` names, made (and kept by f) when missing: steps joined by dots, each a member name,
 * a member name followed by `[*]` (the same as the name alone), or `*` (every member); "" names f itself.
 */
gpa_json_filter_t *gpa_json_filter_path(gpa_arena_t *a, gpa_json_filter_t *f, const char *path);
/* Keeps the node's value whole (everything below it). */
void gpa_json_filter_whole(gpa_json_filter_t *f);
/* Keeps f's paths whole (each a path as in gpa_json_filter_path). */
void gpa_json_filter_keep(gpa_arena_t *a, gpa_json_filter_t *f, const char *const *paths, size_t n);

/*
 * Makes a member that is both named and covered by `*` keep what either keeps (a member is read under one node):
 * call once, after the last path is added and before the filter is used.
 */
void gpa_json_filter_seal(gpa_arena_t *a, gpa_json_filter_t *f);

/*
 * gpa_json_parse, building only what `filter` (sealed) keeps (NULL: everything). The text is checked whole: a fault in a
 * part not built fails the parse as it would without the filter, with the same line, column and message.
 */
int gpa_json_parse_filtered(gpa_arena_t *a, const char *text, size_t len, const gpa_json_filter_t *filter, gpa_value_t **out,
                            gpa_error_t *err);

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
