/*
 * Reading the verbs' inputs (input.h): paths expanded into a list of files first (load.h), then each file read
 * through the piecewise reader (document/stream.h) in bounded chunks, and handed to the callback piece by piece.
 */
#include "input/input.h"

#include "cli.h"
#include "base/buf.h"
#include "document/docs.h"
#include "document/stream.h"
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK (64 * 1024)
/* What one document, the whole of a file read at once, or all of a file or stdin may take: as load.c's
 * gpa_read_file. A regular file is measured when opened; stdin (a pipe) is counted as it is read. */
#define MAX_PIECE_BYTES GPA_LOAD_MAX_BYTES

typedef struct st_reader_t {
    const char *file;
    FILE *f;
    size_t taken; /* bytes read from f so far: a pipe has no size to check up front */
    FILE *tee;    /* a pipe's bytes are copied here until it is known whether they must be read twice */
    char *chunk;  /* CHUNK bytes */
    gpa_arena_t arenas[2];
    gpa_input_cb cb;
    void *ctx;
    const gpa_load_report_t *rep; /* NULL: errors on stderr */
} reader_t;

static int report(const reader_t *r, const gpa_error_t *err)
{
    if (r->rep != NULL)
        gpa_load_report(r->rep, err);
    else
        gpa_report_error(stderr, err);
    return GPA_EXIT_USAGE;
}

static int report_errno(const reader_t *r, const char *file, const char *what)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, file);
    gpa_error_set(&err, 0, 0, "", "%s: %s", what, strerror(errno));
    return report(r, &err);
}

/* The next piece of the stream, feeding it from the file as it asks. */
static gpa_stream_status_t pull(reader_t *r, gpa_stream_t *s, gpa_arena_t *a, gpa_value_t **doc, gpa_error_t *err)
{
    gpa_stream_status_t st;
    while ((st = gpa_stream_next(s, a, doc, err)) == GPA_STREAM_MORE) {
        size_t want = gpa_stream_want(s), fed = 0, got;
        if (want > MAX_PIECE_BYTES) {
            gpa_error_set(err, 0, 0, "", "a document larger than %zu bytes", MAX_PIECE_BYTES);
            return GPA_STREAM_ERROR;
        }
        char *room;
        while (fed < want && (got = fread(room = gpa_stream_space(s, CHUNK), 1, CHUNK, r->f)) > 0) {
            gpa_stream_commit(s, got);
            fed += got;
            if ((r->taken += got) > MAX_PIECE_BYTES) {
                gpa_error_set(err, 0, 0, "", "more than the %zu bytes an input may have: refused", MAX_PIECE_BYTES);
                return GPA_STREAM_ERROR;
            }
            if (r->tee != NULL && fwrite(room, 1, got, r->tee) != got)
                break;
        }
        if (ferror(r->f) || (r->tee != NULL && ferror(r->tee))) {
            gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno));
            return GPA_STREAM_ERROR;
        }
        if (fed < want)
            gpa_stream_end(s);
    }
    return st;
}

static int rewind_file(reader_t *r)
{
    if (fseek(r->f, 0, SEEK_SET) != 0)
        return report_errno(r, r->file, "cannot read");
    return 0;
}

/* Any JSON but a List, and JSON that does not parse (which may still be YAML): the whole file at once. */
static int walk_whole(reader_t *r)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, r->file);
    if (rewind_file(r) != 0)
        return GPA_EXIT_USAGE;
    gpa_buf_t text = GPA_BUF_INIT;
    size_t got;
    while (text.len <= MAX_PIECE_BYTES && (got = fread(r->chunk, 1, CHUNK, r->f)) > 0)
        gpa_buf_append(&text, r->chunk, got);
    int rc = 0;
    gpa_arena_t *a = &r->arenas[0];
    gpa_docs_t docs = {0};
    if (ferror(r->f))
        rc = report_errno(r, r->file, "cannot read");
    else if (text.len > MAX_PIECE_BYTES && gpa_error_set(&err, 0, 0, "", "larger than %zu bytes", MAX_PIECE_BYTES) != 0)
        rc = report(r, &err);
    else if (gpa_docs_parse(a, text.base != NULL ? text.base : "", text.len, &docs, &err) != 0)
        rc = report(r, &err);
    for (size_t i = 0; i < docs.len && rc == 0; i++) {
        const char *source = docs.len == 1 ? r->file : gpa_arena_printf(a, "%s#%zu", r->file, i + 1);
        rc = r->cb(r->ctx, r->file, source, -1, a, docs.docs[i]);
    }
    gpa_arena_clear(a);
    gpa_buf_dispose(&text);
    return rc;
}

/* A JSON List, known to read without fault: its items one by one. */
static int walk_items(reader_t *r)
{
    if (rewind_file(r) != 0)
        return GPA_EXIT_USAGE;
    gpa_stream_t *s = gpa_stream_new();
    gpa_arena_t *a = &r->arenas[0];
    gpa_error_t err = {0};
    gpa_error_init(&err, r->file);
    gpa_value_t *item;
    gpa_stream_status_t st;
    int rc = 0;
    for (long i = 0; rc == 0 && (st = pull(r, s, a, &item, &err)) == GPA_STREAM_PIECE; i++) {
        rc = r->cb(r->ctx, r->file, r->file, i, a, item);
        gpa_arena_clear(a);
    }
    if (rc == 0 && st == GPA_STREAM_ERROR) /* the file changed since the first reading */
        rc = report(r, &err);
    gpa_stream_free(s);
    return rc;
}

/* The documents of a YAML stream, one by one; the next one is read before one is handed out, to name it
 * "file" when it is the only one and "file#N" otherwise. */
static int walk_yaml(reader_t *r, gpa_stream_t *s, gpa_value_t *first, gpa_error_t *err)
{
    gpa_arena_t *held_arena = &r->arenas[0], *next_arena = &r->arenas[1];
    gpa_value_t *held = first, *doc;
    size_t n = 1;
    int rc = 0;
    gpa_stream_status_t st;
    while (rc == 0 && (st = pull(r, s, next_arena, &doc, err)) == GPA_STREAM_PIECE) {
        rc = r->cb(r->ctx, r->file, gpa_arena_printf(held_arena, "%s#%zu", r->file, n), -1, held_arena, held);
        gpa_arena_clear(held_arena);
        gpa_arena_t *t = held_arena;
        held_arena = next_arena;
        next_arena = t;
        held = doc;
        n++;
    }
    if (rc != 0)
        return rc;
    const char *source = n == 1 && st == GPA_STREAM_END ? r->file : gpa_arena_printf(held_arena, "%s#%zu", r->file, n);
    rc = r->cb(r->ctx, r->file, source, -1, held_arena, held);
    if (rc == 0 && st == GPA_STREAM_ERROR)
        rc = report(r, err);
    return rc;
}

/* A pipe holding JSON: the rest of it into the copy, which is read from its start instead. 0 or -1 (errno). */
static int switch_to_copy(reader_t *r)
{
    size_t got;
    while ((got = fread(r->chunk, 1, CHUNK, r->f)) > 0) {
        if ((r->taken += got) > MAX_PIECE_BYTES)
            return -1;
        if (fwrite(r->chunk, 1, got, r->tee) != got)
            return -1;
    }
    if (ferror(r->f) || fflush(r->tee) != 0 || fseek(r->tee, 0, SEEK_SET) != 0)
        return -1;
    r->f = r->tee;
    r->tee = NULL;
    r->taken = 0; /* the copy is read from its start */
    return 0;
}

/* Reads the open file r->f. Returns 0, 2 (reported), or the callback's non-zero value. */
static int walk_stream(reader_t *r)
{
    gpa_stream_t *s = gpa_stream_new();
    gpa_arena_t *a = &r->arenas[0];
    gpa_error_t err = {0};
    gpa_error_init(&err, r->file);
    gpa_value_t *doc;
    gpa_stream_status_t st = pull(r, s, a, &doc, &err);
    if (r->tee != NULL && gpa_stream_is_json(s)) { /* a pipe of JSON may be read twice: from the copy */
        gpa_stream_free(s);
        gpa_arena_clear(a);
        if (switch_to_copy(r) != 0 && r->taken > MAX_PIECE_BYTES) {
            gpa_error_set(&err, 0, 0, "", "more than the %zu bytes an input may have: refused", MAX_PIECE_BYTES);
            return report(r, &err);
        } else if (r->tee != NULL) { /* switch_to_copy failed otherwise: errno says why */
            return report_errno(r, r->file, "cannot read");
        }
        return walk_stream(r);
    }
    if (r->tee != NULL) { /* YAML is read once: no copy needed */
        fclose(r->tee);
        r->tee = NULL;
    }
    int rc = 0;
    if (!gpa_stream_is_json(s)) {
        if (st == GPA_STREAM_PIECE)
            rc = walk_yaml(r, s, doc, &err);
        else if (st == GPA_STREAM_ERROR)
            rc = report(r, &err);
    } else {
        /* First reading: is it a List that reads without fault? Items are checked, not built. */
        gpa_stream_check_only(s);
        while (st == GPA_STREAM_PIECE) {
            gpa_arena_clear(a);
            st = pull(r, s, a, &doc, &err);
        }
        rc = st == GPA_STREAM_END && gpa_stream_is_list(s) ? walk_items(r) : walk_whole(r);
    }
    gpa_stream_free(s);
    gpa_arena_clear(&r->arenas[0]);
    gpa_arena_clear(&r->arenas[1]);
    return rc;
}

static int walk_file(reader_t *r, const char *file)
{
    int is_stdin = strcmp(file, "-") == 0;
    struct stat st;
    r->file = file;
    r->taken = 0;
    gpa_error_t err = {0};
    gpa_error_init(&err, file);
    r->f = is_stdin ? stdin : gpa_open_regular(file, MAX_PIECE_BYTES, &err);
    if (r->f == NULL)
        return report(r, &err);
    /* stdin that is not a regular file cannot be read twice: its bytes are copied as they are read, until the
     * first piece tells JSON (which may need a second reading: from the copy) from YAML (which does not). */
    if (is_stdin && (fstat(fileno(stdin), &st) != 0 || !S_ISREG(st.st_mode)) && (r->tee = tmpfile()) == NULL)
        return report_errno(r, file, "cannot read");
    int rc = walk_stream(r);
    if (r->f != stdin)
        fclose(r->f);
    if (r->tee != NULL)
        fclose(r->tee);
    r->tee = NULL;
    return rc;
}

int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable)
{
    return gpa_input_walk_with(paths, npaths, cb, ctx, unreadable, NULL);
}

int gpa_input_walk_with(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx, size_t *unreadable,
                        const gpa_load_report_t *rep)
{
    gpa_load_files_t files = {0};
    int rc = 0;
    int stdin_seen = 0;
    size_t failed = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (strcmp(paths[i], "-") == 0 && stdin_seen++) {
            if (rep == NULL)
                fprintf(stderr, "-: stdin given more than once (it can be read only once)\n");
            rc = GPA_EXIT_USAGE;
            failed++;
            continue;
        }
        if (gpa_load_files((const char *const *)&paths[i], 1, &files, rep) != 0) {
            rc = GPA_EXIT_USAGE;
            failed++;
        }
    }
    reader_t r = {.cb = cb, .ctx = ctx, .rep = rep, .chunk = gpa_xmalloc(CHUNK)};
    gpa_arena_init(&r.arenas[0]);
    gpa_arena_init(&r.arenas[1]);
    for (size_t i = 0; i < files.len; i++) {
        int ret = walk_file(&r, files.items[i]);
        if (ret == GPA_EXIT_USAGE) {
            rc = GPA_EXIT_USAGE; /* reported; the other files are still read */
            failed++;
        } else if (ret != 0) {
            rc = ret;
            break;
        }
    }
    gpa_arena_dispose(&r.arenas[0]);
    gpa_arena_dispose(&r.arenas[1]);
    free(r.chunk);
    gpa_load_files_dispose(&files);
    if (unreadable != NULL)
        *unreadable += failed;
    return rc;
}
