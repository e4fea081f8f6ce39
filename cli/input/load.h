/*
 * Loading what gpuadmit is given by path, one way for every front end: the CLI verbs, and the webhook's first
 * load and its reloads (cli/serve.c hands gpa_load_files, gpa_load_config and gpa_load_inventory_files to
 * webhook/reload.h as its loader; the webhook itself neither includes this header nor links this library).
 *
 * A path is a file (read whatever its name), a directory (recursively: its .yaml, .yml and .json files, hidden
 * ones too as `kubectl apply -f DIR` reads them, each directory's entries in byte order of their names; a
 * directory reached again through a symlink loop is an error, not followed) or "-" for stdin.
 *
 * Errors: each is handed to a gpa_load_report_t as a gpa_error_t naming the file (and line, column, path when
 * known); a NULL report prints "file:line:column: path: reason" on stderr. A walk goes on after an unreadable
 * path, so every problem is reported, and then fails as a whole: nothing is half-loaded.
 */
#ifndef GPA_CLI_LOAD_H
#define GPA_CLI_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "inventory/inventory.h"
#include "base/error.h"
#include "policy/config.h"

typedef struct st_gpa_load_report_t {
    void (*on_error)(void *ctx, const gpa_error_t *err);
    void *ctx;
    void (*on_warning)(void *ctx, const gpa_error_t *why); /* NULL: on stderr, "warning: file:line:column: ..." */
} gpa_load_report_t;

/* Hands err to rep (NULL: prints it on stderr as "file:line:column: path: reason"). */
void gpa_load_report(const gpa_load_report_t *rep, const gpa_error_t *err);
/* Hands a warning to rep (NULL, or no on_warning: prints "warning: file:line:column: path: reason" on stderr). */
void gpa_load_warn(const gpa_load_report_t *rep, const gpa_error_t *why);

/* A report that keeps the first error as one line ("file:line:column: path: reason") in buf (borrowed; NULL with
 * set already 1 keeps nothing): pass gpa_load_keep_first as on_error and this as ctx. */
typedef struct st_gpa_load_first_t {
    char *buf;
    size_t size;
    int set; /* an error came */
} gpa_load_first_t;
void gpa_load_keep_first(void *ctx, const gpa_error_t *err);

/* A list of file names, each new (gpa_load_files_dispose frees them and the list). */
typedef struct st_gpa_load_files_t {
    char **items;
    size_t len, cap;
} gpa_load_files_t;

/*
 * Appends to *out the files that `paths` stand for, in the order given (a directory's files sorted as above).
 * Returns 0, or -1 when any path could not be read (each reported; the readable ones are still appended).
 */
int gpa_load_files(const char *const *paths, size_t npaths, gpa_load_files_t *out, const gpa_load_report_t *rep);
void gpa_load_files_dispose(gpa_load_files_t *files);

/* The most the CLI reads from one input (a file or stdin): no manifest, inventory or configuration comes near
 * it, and /dev/zero given as stdin stops here instead of filling memory. */
#define GPA_LOAD_MAX_BYTES ((size_t)256 << 20)

/*
 * Opens path for reading when it is a regular file, else NULL with err saying what it is ("a FIFO", "a
 * device", "a directory"...): the open itself never blocks (a FIFO without a writer), and what is read is the
 * file that was checked (fstat on the open descriptor). A file larger than max bytes is refused here too. The
 * caller closes the FILE. "-" is not handled here (see gpa_read_file).
 */
FILE *gpa_open_regular(const char *path, size_t max, gpa_error_t *err);

/* Whole file ("-" = stdin) into a new NUL-terminated heap buffer (caller frees); NULL with err on failure: not a
 * regular file (stdin may be a pipe), or more than GPA_LOAD_MAX_BYTES. */
char *gpa_read_file(const char *path, size_t *len, gpa_error_t *err);
/* As gpa_read_file, with at most max bytes (at most GPA_LOAD_MAX_BYTES is sensible). */
char *gpa_read_file_max(const char *path, size_t max, size_t *len, gpa_error_t *err);

/* A configuration from one file (--config F), new; the defaults when path is NULL. Returns 0 or -1 (reported). */
int gpa_load_config(const char *path, gpa_config_t **out, const gpa_load_report_t *rep);

/*
 * One new inventory from every file listed (as gpa_load_files lists them). A file reached twice (the same device
 * and inode, e.g. through the `..data` symlink of a mounted ConfigMap) is read once. Returns 0, or -1 when any
 * file cannot be read or parsed (reported: the first such file; *out untouched). Pods left out because they cannot
 * be read (they hold nothing; the inventory loads) are handed to rep's on_warning, each once.
 */
int gpa_load_inventory_files(const char *const *files, size_t nfiles, gpa_inventory_t **out, const gpa_load_report_t *rep);
/* --inventory PATH (repeatable): gpa_load_files then gpa_load_inventory_files. */
int gpa_load_inventory(const char *const *paths, size_t npaths, gpa_inventory_t **out, const gpa_load_report_t *rep);
/* The same two, Pods decoded as `cfg` says (its HAMi names: cfg->decode; NULL: the defaults). An inventory depends on
 * the configuration it was read with: load it again when the configuration changes. */
int gpa_load_inventory_files_with(const gpa_config_t *cfg, const char *const *files, size_t nfiles, gpa_inventory_t **out,
                                  const gpa_load_report_t *rep);
int gpa_load_inventory_with(const gpa_config_t *cfg, const char *const *paths, size_t npaths, gpa_inventory_t **out,
                            const gpa_load_report_t *rep);

#endif
