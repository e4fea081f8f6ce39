/*
 * Reading a large input a piece at a time, so that memory is bounded by the largest piece, not by the input:
 * the documents of a YAML stream, or the items of a JSON `List` (what `kubectl get -o json` prints), each
 * parsed on its own (json.h, yaml.h) with the line and column it has in the whole input.
 *
 * No I/O: the caller feeds the bytes. The loop is
 *
 *     while ((st = gpa_stream_next(s, arena, &doc, &err)) != GPA_STREAM_END && st != GPA_STREAM_ERROR)
 *         if (st == GPA_STREAM_MORE) feed gpa_stream_want(s) bytes or more, or gpa_stream_end(s) at the end;
 *         else use doc;
 *
 * Which pieces (decided by the first byte that is not white space, as docs.h decides JSON or YAML):
 *   - YAML: every document of the stream (split at the "---" lines that start documents; empty documents are
 *     skipped), in order. Each is what gpa_yaml_parse would give for it.
 *   - JSON object: the items of its top-level "items" array, in order; the object's other members are read and
 *     checked but not handed out. Whether the object was a List (its kind ends in "List", wherever the kind
 *     stands, and "items" appears once) is known only at the end (gpa_stream_is_list): `kubectl get -o json`
 *     writes the kind after the items. A caller that must not act on the items of a non-List reads the input
 *     twice: once to learn it, once to use the items.
 *   - anything else (a JSON array): GPA_STREAM_WHOLE at once: the caller reads the input whole (docs.h).
 * Errors are the first fault in input order, worded as json.h and yaml.h word them, with the position in the
 * whole input. Memory: the bytes of the piece being read plus what was fed past it.
 */
#ifndef GPA_STREAM_H
#define GPA_STREAM_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"

typedef struct st_gpa_stream_t gpa_stream_t;

typedef enum en_gpa_stream_status_t {
    GPA_STREAM_PIECE, /* *out: the next document or item, in the caller's arena */
    GPA_STREAM_MORE,  /* feed more bytes (gpa_stream_want: how many), or call gpa_stream_end */
    GPA_STREAM_END,   /* the input is over and was read without fault */
    GPA_STREAM_ERROR, /* err filled; the stream is done */
    GPA_STREAM_WHOLE, /* not read piecewise: parse the input whole */
} gpa_stream_status_t;

/* A new reader (free with gpa_stream_free). */
gpa_stream_t *gpa_stream_new(void);
void gpa_stream_free(gpa_stream_t *s);

/* Appends n bytes (copied) to the input. */
void gpa_stream_feed(gpa_stream_t *s, const char *bytes, size_t n);
/* The same without the copy: room for n more bytes at the end of the input, to be filled by the caller and
 * then added with gpa_stream_commit (m <= n bytes). The room is valid until the next call on s. */
char *gpa_stream_space(gpa_stream_t *s, size_t n);
void gpa_stream_commit(gpa_stream_t *s, size_t m);
/* Says the input is complete. */
void gpa_stream_end(gpa_stream_t *s);
/* How many bytes the next feed should bring at least (grows while one piece does not fit). */
size_t gpa_stream_want(const gpa_stream_t *s);

/*
 * The next piece, parsed into `a` (the caller may clear `a` between calls: the reader keeps nothing in it).
 * Returns a gpa_stream_status_t; err is filled on GPA_STREAM_ERROR only.
 */
gpa_stream_status_t gpa_stream_next(gpa_stream_t *s, gpa_arena_t *a, gpa_value_t **out, gpa_error_t *err);

/* From now on the items of a JSON List are checked for faults only, not built (GPA_STREAM_PIECE with *out
 * NULL): a first reading that learns whether the input is a List, several times cheaper. */
void gpa_stream_check_only(gpa_stream_t *s);

/* 1 when the input is JSON (its pieces are List items), 0 when YAML; meaningful after the first piece or END. */
int gpa_stream_is_json(const gpa_stream_t *s);
/* After GPA_STREAM_END of a JSON input: 1 when it was a List as said above, else 0 (read it whole). */
int gpa_stream_is_list(const gpa_stream_t *s);

#endif
