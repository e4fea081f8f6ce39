/*
 * Loading by path (load.h): paths expanded into a list of files first, then each file read and parsed.
 */
#include "input/load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"

/* Directory recursion bound (symlink loops are caught before it, by device and inode). */
#define MAX_DIR_DEPTH 32

void gpa_load_report(const gpa_load_report_t *rep, const gpa_error_t *err)
{
    if (rep != NULL && rep->on_error != NULL) {
        rep->on_error(rep->ctx, err);
        return;
    }
    /* "file:line:column: reason" on stderr, the shape compilers use, so editors can jump to it. */
    char line[1024];
    gpa_error_format(err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
}

void gpa_load_warn(const gpa_load_report_t *rep, const gpa_error_t *why)
{
    if (rep != NULL && rep->on_warning != NULL) {
        rep->on_warning(rep->ctx, why);
        return;
    }
    char line[1024];
    gpa_error_format(why, line, sizeof(line));
    fprintf(stderr, "warning: %s\n", line);
}

void gpa_load_keep_first(void *ctx, const gpa_error_t *err)
{
    gpa_load_first_t *f = ctx;
    if (!f->set)
        gpa_error_format(err, f->buf, f->size);
    f->set = 1;
}

/* Reports "path: message" and returns -1. */
__attribute__((format(printf, 3, 4))) static int fail(const gpa_load_report_t *rep, const char *path, const char *fmt, ...)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, path);
    char msg[sizeof(err.message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gpa_error_set(&err, 0, 0, "", "%s", msg);
    gpa_load_report(rep, &err);
    return -1;
}

static void list_push(gpa_load_files_t *l, char *path)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = gpa_xrealloc(l->items, l->cap * sizeof(*l->items));
    }
    l->items[l->len++] = path;
}

void gpa_load_files_dispose(gpa_load_files_t *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
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

/* Adds the manifest files under path, recursively, each directory's entries in byte order. 0, or -1 reported. */
static int collect(const char *path, int explicit_, int depth, const ancestor_t *up, gpa_load_files_t *out,
                   const gpa_load_report_t *rep);

static int collect_dir(const char *dir, const struct stat *st, int depth, const ancestor_t *up, gpa_load_files_t *out,
                       const gpa_load_report_t *rep)
{
    for (const ancestor_t *a = up; a != NULL; a = a->up)
        if (a->dev == st->st_dev && a->ino == st->st_ino)
            return fail(rep, dir, "symlink loop (the directory contains itself); not read again");
    if (depth > MAX_DIR_DEPTH)
        return fail(rep, dir, "directories nested deeper than %d", MAX_DIR_DEPTH);
    DIR *d = opendir(dir);
    if (d == NULL)
        return fail(rep, dir, "cannot open directory: %s", strerror(errno));
    gpa_load_files_t names = {0};
    struct dirent *e;
    /* Every entry but "." and "..": `kubectl apply -f DIR` reads hidden manifests (.gpu.yaml) too, so
     * skipping them would pass in CI what the cluster is then given. */
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            list_push(&names, gpa_xstrdup(e->d_name));
    closedir(d);
    if (names.len > 1) /* an empty directory has no list at all: qsort(NULL, 0) is undefined */
        qsort(names.items, names.len, sizeof(*names.items), cmp_str);
    ancestor_t self = {st->st_dev, st->st_ino, up};
    int rc = 0;
    for (size_t i = 0; i < names.len; i++) {
        char *child = join_path(dir, names.items[i]);
        if (collect(child, 0, depth + 1, &self, out, rep) != 0)
            rc = -1;
        free(child);
    }
    gpa_load_files_dispose(&names);
    return rc;
}

static int collect(const char *path, int explicit_, int depth, const ancestor_t *up, gpa_load_files_t *out,
                   const gpa_load_report_t *rep)
{
    struct stat st;
    if (strcmp(path, "-") == 0) {
        list_push(out, gpa_xstrdup(path));
        return 0;
    }
    if (stat(path, &st) != 0) {
        /* An entry a directory listed that is gone by now (a file renamed into place, a temporary removed) was
         * never part of what is read: only a path named on the command line must exist. */
        if (!explicit_ && errno == ENOENT)
            return 0;
        return fail(rep, path, "cannot read: %s", strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return collect_dir(path, &st, depth, up, out, rep);
    /* A file named on the command line is read whatever its name; inside directories only manifests are. */
    if (explicit_ || has_manifest_ext(path))
        list_push(out, gpa_xstrdup(path));
    return 0;
}

int gpa_load_files(const char *const *paths, size_t npaths, gpa_load_files_t *out, const gpa_load_report_t *rep)
{
    int rc = 0;
    for (size_t i = 0; i < npaths; i++)
        if (collect(paths[i], 1, 0, NULL, out, rep) != 0)
            rc = -1;
    return rc;
}

/* What a file that is not a regular one is, for the error. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

FILE *gpa_open_regular(const char *path, size_t max, gpa_error_t *err)
{
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever, before fstat could refuse it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        gpa_error_set(err, 0, 0, "", "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        gpa_error_set(err, 0, 0, "", "%s, not a regular file: refused", file_kind(st.st_mode));
    } else if ((uintmax_t)st.st_size > max) {
        gpa_error_set(err, 0, 0, "", "%jd bytes, more than the %zu bytes an input may have: refused", (intmax_t)st.st_size, max);
    } else {
        int fl = fcntl(fd, F_GETFL);
        FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
        if (f != NULL)
            return f;
        gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno));
    }
    close(fd);
    return NULL;
}

char *gpa_read_file_max(const char *path, size_t max, size_t *len, gpa_error_t *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : gpa_open_regular(path, max, err);
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = gpa_xmalloc(cap + 1);
    for (;;) {
        /* One byte past max is asked for, so a file that grew (or a stdin) past it is told from one at it. */
        size_t want = (cap < max + 1 ? cap : max + 1) - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (n > max) {
            gpa_error_set(err, 0, 0, "", "more than the %zu bytes an input may have: refused", max);
            goto Error;
        }
        if (got == 0)
            break;
        if (n == cap) {
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

char *gpa_read_file(const char *path, size_t *len, gpa_error_t *err)
{
    return gpa_read_file_max(path, GPA_LOAD_MAX_BYTES, len, err);
}

int gpa_load_config(const char *path, gpa_config_t **out, const gpa_load_report_t *rep)
{
    if (path == NULL) {
        *out = gpa_config_default();
        return 0;
    }
    gpa_error_t err = {0};
    gpa_error_init(&err, path);
    size_t len = 0;
    char *text = gpa_read_file(path, &len, &err);
    int rc = text != NULL ? gpa_config_parse(text, len, path, out, &err) : -1;
    if (rc != 0)
        gpa_load_report(rep, &err);
    else if ((*out)->warning.set_)
        gpa_load_warn(rep, &(*out)->warning);
    free(text);
    return rc;
}

/* Whether files[i] is the same file (device and inode) as an earlier one. */
static int seen_before(const char *const *files, size_t i)
{
    struct stat a, b;
    if (strcmp(files[i], "-") == 0 || stat(files[i], &a) != 0)
        return 0;
    for (size_t j = 0; j < i; j++)
        if (strcmp(files[j], "-") != 0 && stat(files[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return 1;
    return 0;
}

/* Pods the inventory left out (they hold nothing): each named, and how many more were not kept. */
static void report_warnings(const gpa_inventory_t *inv, const gpa_load_report_t *rep)
{
    size_t n, total;
    const gpa_error_t *w = gpa_inventory_warnings(inv, &n, &total);
    for (size_t i = 0; i < n; i++)
        gpa_load_warn(rep, &w[i]);
    if (total > n) {
        gpa_error_t more = {0};
        gpa_error_init(&more, NULL);
        gpa_error_set(&more, 0, 0, NULL, "%zu more Pods hold no GPU because they cannot be read (not listed)", total - n);
        gpa_load_warn(rep, &more);
    }
}

int gpa_load_inventory_files(const char *const *files, size_t nfiles, gpa_inventory_t **out, const gpa_load_report_t *rep)
{
    return gpa_load_inventory_files_with(NULL, files, nfiles, out, rep);
}

/* A regular file as an inventory input (inventory.h): read a piece at a time, so that loading costs its largest object. */
static long file_read(void *ctx, char *buf, size_t n, gpa_error_t *err)
{
    size_t got = fread(buf, 1, n, ctx);
    if (got == 0 && ferror(ctx))
        return gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno)), -1;
    return (long)got;
}

static int file_rewind(void *ctx, gpa_error_t *err)
{
    if (fseek(ctx, 0, SEEK_SET) == 0)
        return 0;
    return gpa_error_set(err, 0, 0, "", "cannot read: %s", strerror(errno)), -1;
}

/* One inventory file (or stdin, read whole: it cannot be read twice) into inv; 0, or -1 with err. */
static int load_inventory_file(gpa_inventory_t *inv, const gpa_config_t *cfg, const char *path, gpa_error_t *err)
{
    const gpa_decode_opts_t *opts = cfg != NULL ? &cfg->decode : NULL;
    if (strcmp(path, "-") == 0) {
        size_t len = 0;
        char *text = gpa_read_file(path, &len, err);
        int rc = text != NULL ? gpa_inventory_parse_with(inv, opts, text, len, path, err) : -1;
        free(text);
        return rc;
    }
    FILE *f = gpa_open_regular(path, GPA_LOAD_MAX_BYTES, err);
    if (f == NULL)
        return -1;
    gpa_inventory_input_t in = {file_read, file_rewind, f, GPA_LOAD_MAX_BYTES};
    int rc = gpa_inventory_parse_input(inv, opts, &in, path, err);
    fclose(f);
    return rc;
}

int gpa_load_inventory_files_with(const gpa_config_t *cfg, const char *const *files, size_t nfiles, gpa_inventory_t **out,
                                  const gpa_load_report_t *rep)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        if (seen_before(files, i))
            continue;
        gpa_error_t err = {0};
        gpa_error_init(&err, files[i]);
        if (load_inventory_file(inv, cfg, files[i], &err) != 0) {
            gpa_load_report(rep, &err);
            rc = -1;
        }
    }
    if (rc != 0) {
        gpa_inventory_release(inv);
        return -1;
    }
    report_warnings(inv, rep);
    *out = inv;
    return 0;
}

int gpa_load_inventory(const char *const *paths, size_t npaths, gpa_inventory_t **out, const gpa_load_report_t *rep)
{
    return gpa_load_inventory_with(NULL, paths, npaths, out, rep);
}

int gpa_load_inventory_with(const gpa_config_t *cfg, const char *const *paths, size_t npaths, gpa_inventory_t **out,
                            const gpa_load_report_t *rep)
{
    gpa_load_files_t files = {0};
    int rc = gpa_load_files(paths, npaths, &files, rep);
    if (rc == 0)
        rc = gpa_load_inventory_files_with(cfg, (const char *const *)files.items, files.len, out, rep);
    gpa_load_files_dispose(&files);
    return rc;
}
