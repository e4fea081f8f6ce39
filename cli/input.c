/*
 * Reading the verbs' inputs (input.h): paths expanded into a list of files first (load.h), then each file read,
 * parsed into documents in one arena, and handed to the callback document by document.
 */
#include "input.h"

#include "cli.h"
#include "document/docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads, parses and walks one file. Returns 0, 2 (reported), or the callback's non-zero value. */
static int walk_file(const char *file, gpa_arena_t *a, gpa_input_cb cb, void *ctx)
{
    gpa_error_t err;
    gpa_error_init(&err, file);
    size_t len = 0;
    char *text = gpa_read_file(file, &len, &err);
    if (text == NULL) {
        gpa_load_report(NULL, &err);
        return GPA_EXIT_USAGE;
    }
    gpa_docs_t docs = {0};
    int rc = 0;
    if (gpa_docs_parse(a, text, len, &docs, &err) != 0) {
        gpa_load_report(NULL, &err);
        rc = GPA_EXIT_USAGE;
        goto Exit;
    }
    for (size_t i = 0; i < docs.len && rc == 0; i++) {
        const char *source = docs.len == 1 ? file : gpa_arena_printf(a, "%s#%zu", file, i + 1);
        rc = cb(ctx, file, source, a, docs.docs[i]);
    }
Exit:
    free(text);
    gpa_arena_clear(a);
    return rc;
}

int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable)
{
    gpa_load_files_t files = {0};
    int rc = 0;
    int stdin_seen = 0;
    size_t failed = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (strcmp(paths[i], "-") == 0 && stdin_seen++) {
            fprintf(stderr, "-: stdin given more than once (it can be read only once)\n");
            rc = GPA_EXIT_USAGE;
            failed++;
            continue;
        }
        if (gpa_load_files((const char *const *)&paths[i], 1, &files, NULL) != 0) {
            rc = GPA_EXIT_USAGE;
            failed++;
        }
    }
    gpa_arena_t a;
    gpa_arena_init(&a);
    for (size_t i = 0; i < files.len; i++) {
        int r = walk_file(files.items[i], &a, cb, ctx);
        if (r == GPA_EXIT_USAGE) {
            rc = GPA_EXIT_USAGE; /* reported; the other files are still read */
            failed++;
        } else if (r != 0) {
            rc = r;
            break;
        }
    }
    gpa_arena_dispose(&a);
    gpa_load_files_dispose(&files);
    if (unreadable != NULL)
        *unreadable += failed;
    return rc;
}
