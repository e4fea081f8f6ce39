/*
 * Reading the verbs' inputs (input.h): paths expanded into a sorted list of files first, then each file read,
 * parsed into documents in one arena, and handed to the callback document by document.
 */
#include "input.h"

#include "cli.h"
#include "document/docs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Inputs bigger than this are refused rather than read: no manifest or inventory comes near it. */
#define MAX_INPUT_BYTES ((size_t)1 << 30)
/* Directory recursion bound (symlink loops are caught before it, by device and inode). */
#define MAX_DIR_DEPTH 32

typedef struct st_file_list_t {
    char **items;
    size_t len, cap;
} file_list_t;

static void list_push(file_list_t *l, char *path)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = gpa_xrealloc(l->items, l->cap * sizeof(*l->items));
    }
    l->items[l->len++] = path;
}

static void list_dispose(file_list_t *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int has_manifest_ext(const char *name)
{
    size_t n = strlen(name);
    static const char *const exts[] = {".yaml", ".yml", ".json"};
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(name + n - e, exts[i]) == 0)
            return 1;
    }
    return 0;
}

static char *join_path(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    int slash = dl > 0 && dir[dl - 1] == '/';
    char *p = gpa_xmalloc(dl + nl + 2);
    memcpy(p, dir, dl);
    if (!slash)
        p[dl++] = '/';
    memcpy(p + dl, name, nl + 1);
    return p;
}

/* The directories being walked, innermost first: a directory that is its own ancestor (through a symlink)
 * is a loop. */
typedef struct st_ancestor_t {
    dev_t dev;
    ino_t ino;
    const struct st_ancestor_t *up;
} ancestor_t;

/* Adds the manifest files under path, recursively, each directory's entries in byte order. 0, or 2 reported. */
static int collect(const char *path, int explicit_, int depth, const ancestor_t *up, file_list_t *out);

static int collect_dir(const char *dir, const struct stat *st, int depth, const ancestor_t *up, file_list_t *out)
{
    for (const ancestor_t *a = up; a != NULL; a = a->up) {
        if (a->dev == st->st_dev && a->ino == st->st_ino) {
            fprintf(stderr, "%s: symlink loop (the directory contains itself); not read again\n", dir);
            return GPA_EXIT_USAGE;
        }
    }
    if (depth > MAX_DIR_DEPTH) {
        fprintf(stderr, "%s: directories nested deeper than %d\n", dir, MAX_DIR_DEPTH);
        return GPA_EXIT_USAGE;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "%s: cannot open directory: %s\n", dir, strerror(errno));
        return GPA_EXIT_USAGE;
    }
    file_list_t names = {0};
    struct dirent *e;
    /* Every entry but "." and "..": `kubectl apply -f DIR` reads hidden manifests (.gpu.yaml) too, so
     * skipping them would pass in CI what the cluster is then given. */
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            list_push(&names, gpa_xstrdup(e->d_name));
    closedir(d);
    qsort(names.items, names.len, sizeof(*names.items), cmp_str);
    ancestor_t self = {st->st_dev, st->st_ino, up};
    int rc = 0;
    for (size_t i = 0; i < names.len; i++) {
        char *child = join_path(dir, names.items[i]);
        if (collect(child, 0, depth + 1, &self, out) != 0)
            rc = GPA_EXIT_USAGE;
        free(child);
    }
    list_dispose(&names);
    return rc;
}

static int collect(const char *path, int explicit_, int depth, const ancestor_t *up, file_list_t *out)
{
    struct stat st;
    if (strcmp(path, "-") == 0) {
        list_push(out, gpa_xstrdup(path));
        return 0;
    }
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
        return GPA_EXIT_USAGE;
    }
    if (S_ISDIR(st.st_mode))
        return collect_dir(path, &st, depth, up, out);
    /* A file named on the command line is read whatever its name; inside directories only manifests are. */
    if (explicit_ || has_manifest_ext(path))
        list_push(out, gpa_xstrdup(path));
    return 0;
}

char *gpa_read_file(const char *path, size_t *len, gpa_error_t *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (f == NULL) {
        gpa_error_set(err, 0, 0, "", "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = gpa_xmalloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            if (cap >= MAX_INPUT_BYTES) {
                gpa_error_set(err, 0, 0, "", "larger than %zu bytes", MAX_INPUT_BYTES);
                goto Error;
            }
            cap *= 2;
            buf = gpa_xrealloc(buf, cap + 1);
        }
    }
    if (ferror(f)) {
        gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno));
        goto Error;
    }
    if (!is_stdin)
        fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
Error:
    if (!is_stdin)
        fclose(f);
    free(buf);
    return NULL;
}

/* "file:line:column: reason" on stderr, the shape compilers use, so editors can jump to it. */
static void report(const gpa_error_t *err)
{
    char line[1024];
    gpa_error_format(err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
}

/* Reads, parses and walks one file. Returns 0, 2 (reported), or the callback's non-zero value. */
static int walk_file(const char *file, gpa_arena_t *a, gpa_input_cb cb, void *ctx)
{
    gpa_error_t err;
    gpa_error_init(&err, file);
    size_t len = 0;
    char *text = gpa_read_file(file, &len, &err);
    if (text == NULL) {
        report(&err);
        return GPA_EXIT_USAGE;
    }
    gpa_docs_t docs = {0};
    int rc = 0;
    if (gpa_docs_parse(a, text, len, &docs, &err) != 0) {
        report(&err);
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

int gpa_input_walk(char *const *paths, size_t npaths, gpa_input_cb cb, void *ctx)
{
    file_list_t files = {0};
    int rc = 0;
    int stdin_seen = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (strcmp(paths[i], "-") == 0 && stdin_seen++) {
            fprintf(stderr, "-: stdin given more than once (it can be read only once)\n");
            rc = GPA_EXIT_USAGE;
            continue;
        }
        if (collect(paths[i], 1, 0, NULL, &files) != 0)
            rc = GPA_EXIT_USAGE;
    }
    gpa_arena_t a;
    gpa_arena_init(&a);
    for (size_t i = 0; i < files.len; i++) {
        int r = walk_file(files.items[i], &a, cb, ctx);
        if (r == GPA_EXIT_USAGE) {
            rc = GPA_EXIT_USAGE; /* reported; the other files are still read */
        } else if (r != 0) {
            rc = r;
            break;
        }
    }
    gpa_arena_dispose(&a);
    list_dispose(&files);
    return rc;
}

int gpa_cli_load_config(const char *path, gpa_config_t **out)
{
    if (path == NULL) {
        *out = gpa_config_default();
        return 0;
    }
    gpa_error_t err;
    gpa_error_init(&err, path);
    size_t len = 0;
    char *text = gpa_read_file(path, &len, &err);
    int rc = text != NULL ? gpa_config_parse(text, len, path, out, &err) : -1;
    if (rc != 0)
        report(&err);
    free(text);
    return rc;
}

int gpa_cli_load_inventory(char *const *paths, size_t npaths, gpa_inventory_t **out)
{
    file_list_t files = {0};
    int rc = 0;
    for (size_t i = 0; i < npaths; i++)
        if (collect(paths[i], 1, 0, NULL, &files) != 0)
            rc = -1;
    gpa_inventory_t *inv = gpa_inventory_new();
    for (size_t i = 0; i < files.len && rc == 0; i++) {
        gpa_error_t err;
        gpa_error_init(&err, files.items[i]);
        size_t len = 0;
        char *text = gpa_read_file(files.items[i], &len, &err);
        if (text == NULL || gpa_inventory_parse(inv, text, len, files.items[i], &err) != 0) {
            report(&err);
            rc = -1;
        }
        free(text);
    }
    list_dispose(&files);
    if (rc != 0) {
        gpa_inventory_release(inv);
        return -1;
    }
    *out = inv;
    return 0;
}
