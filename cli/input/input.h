/*
 * Reading what the verbs are given, document by document: the paths are expanded into files as load.h says
 * (files, directories, "-" for stdin; given twice is an error: it can be read once), each read a piece at a
 * time (document/stream.h): the documents of a YAML stream one by one, and the items of a JSON List one by one,
 * so memory is bounded by the largest document or item, not by the file. A file is read in bounded chunks;
 * stdin that is not a regular file and holds JSON is copied to a temporary file (a JSON List is read twice: once
 * to learn that it is a List, since `kubectl get -o json` writes the kind after the items, once to judge it).
 * Other JSON (one object, an array, a file that is not valid JSON) is read whole as before (document/docs.h).
 *
 * An unreadable file or a document that does not parse is reported on stderr as "file:line: reason" and the
 * walk goes on with the next file; the caller learns it from the return. The documents of a YAML stream before
 * a broken one are still handed out (they were judged before the fault was found).
 */
#ifndef GPA_CLI_INPUT_H
#define GPA_CLI_INPUT_H

#include <stddef.h>

#include "base/arena.h"
#include "document/value.h"
#include "input/load.h"

/*
 * Called once per document. `source` is "file" for a file's only document and "file#N" (1-based) when the
 * file holds several; `item` is -1 for a document, or the index of `doc` in the items of the List that is
 * the file's document (read one at a time: such a document is never handed out whole). `doc` lives in `a`,
 * which is cleared after the callback returns. A non-zero return stops the walk and is returned.
 */
typedef int (*gpa_input_cb)(void *ctx, const char *file, const char *source, long item, gpa_arena_t *a, gpa_value_t *doc);

/* Returns 0 when everything was read, 2 when any path could not be read or parsed (reported; each such path or
 * file counted in *unreadable, which may be NULL), or the callback's non-zero value. */
int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable);
/* The same, with errors handed to `rep` (cli/input/load.h; NULL: on stderr): a first pass that must not report twice. */
int gpa_input_walk_with(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable,
                        const gpa_load_report_t *rep);

#endif
