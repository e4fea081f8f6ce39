/*
 * Reading what the verbs are given, document by document: the paths are expanded into files as load.h says
 * (files, directories, "-" for stdin; given twice is an error: it can be read once), each parsed into documents.
 * An unreadable file or a document that does not parse is reported on stderr as "file:line: reason" and the
 * walk goes on with the next; the caller learns it from the return.
 */
#ifndef GPA_CLI_INPUT_H
#define GPA_CLI_INPUT_H

#include <stddef.h>

#include "base/arena.h"
#include "document/value.h"
#include "load.h"

/*
 * Called once per document. `source` is "file" for a file's only document and "file#N" (1-based) when the
 * file holds several; `doc` lives in `a`, which is cleared after the callback returns. A non-zero return stops
 * the walk and is returned.
 */
typedef int (*gpa_input_cb)(void *ctx, const char *file, const char *source, gpa_arena_t *a, gpa_value_t *doc);

/* Returns 0 when everything was read, 2 when any path could not be read or parsed (reported; each such path or
 * file counted in *unreadable, which may be NULL), or the callback's non-zero value. */
int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable);

#endif
