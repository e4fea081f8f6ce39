/*
 * Reading what the verbs are given: files, directories (recursive: .yaml, .yml, .json, hidden ones too, in
 * sorted order; a directory reached again through a symlink loop is an error), or "-" for stdin (given twice is
 * an error: it can be read once), each parsed into documents. An unreadable file or a document that does not parse is reported
 * on stderr as "file:line: reason" and the walk goes on with the next; the caller learns it from the return.
 */
#ifndef GPA_CLI_INPUT_H
#define GPA_CLI_INPUT_H

#include <stddef.h>

#include "base/arena.h"
#include "policy/config.h"
#include "base/error.h"
#include "alloc/inventory.h"
#include "document/value.h"

/*
 * Called once per document. `source` is "file" for a file's only document and "file#N" (1-based) when the
 * file holds several; `doc` lives in `a`, which is cleared after the callback returns. A non-zero return stops
 * the walk and is returned.
 */
typedef int (*gpa_input_cb)(void *ctx, const char *file, const char *source, gpa_arena_t *a, gpa_value_t *doc);

/* Returns 0 when everything was read, 2 when any path could not be read or parsed (reported), or the
 * callback's non-zero value. */
int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx);

/* Whole file ("-" = stdin) into a new NUL-terminated heap buffer (caller frees); NULL with err on failure. */
char *gpa_read_file(const char *path, size_t *len, gpa_error_t *err);

/* --config F: the defaults when path is NULL. Reports "file:line: reason" on stderr and returns -1 on error. */
int gpa_cli_load_config(const char *path, gpa_config_t **out);
/* --inventory F (repeatable: every path adds to one inventory). Reports errors on stderr, returns -1. */
int gpa_cli_load_inventory(char *const *paths, size_t npaths, gpa_inventory_t **out);

#endif
