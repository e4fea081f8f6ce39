/*
 * The skeleton validate, mutate and fit share (verb.h): options, loading, the walk over objects, the JSON
 * array and the exit code.
 */
#include "verb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kube/decode.h"
#include "input/input.h"
#include "input/objects.h"
#include "report/report.h"

int gpa_verb_templates_only(const char *verb, const gpa_inventory_t *files)
{
    gpa_error_t err = {0};
    if (files == NULL || gpa_inventory_templates_only(files, &err) == 0)
        return 0;
    char text[1024];
    gpa_error_format(&err, text, sizeof(text));
    gpa_report_line(stderr, "%s: %s (beside the cluster, --inventory adds node templates; the cluster has the nodes)", verb, text);
    return -1;
}

/* The loader's errors, escaped as every report line is: an inventory dump holds names tenants wrote. */
static void on_load_error(void *ctx, const gpa_error_t *err)
{
    (void)ctx;
    gpa_report_error(stderr, err);
}

/* Its warnings (a tenant's Pod that holds no GPU, a Node without its HAMi cards) alike, "warning: file:line:column: ...". */
static void on_load_warning(void *ctx, const gpa_error_t *why)
{
    (void)ctx;
    char line[1024];
    gpa_error_format(why, line, sizeof(line));
    gpa_report_line(stderr, "warning: %s", line);
}

void gpa_verb_set_inventory(gpa_verb_t *vb, gpa_inventory_t *inv)
{
    gpa_inventory_release(vb->inv);
    vb->inv = inv;
    vb->known.below = gpa_inventory_dra(inv); /* the old inventory's layer is gone with it */
}

int gpa_verb_init(gpa_verb_t *vb, const gpa_verb_opts_t *o, gpa_verb_object_cb on_object, void *ctx)
{
    gpa_load_report_t rep = {on_load_error, NULL, on_load_warning};
    vb->on_object = on_object;
    vb->ctx = ctx;
    gpa_arena_init(&vb->scratch);
    gpa_arena_init(&vb->known_arena_);
    gpa_dra_known_init(&vb->known, NULL);
    if (gpa_load_config(o->config, &vb->cfg, &rep) != 0)
        return -1;
    if (o->ninventories > 0 && gpa_load_inventory_with(vb->cfg, o->inventories, o->ninventories, &vb->inv, &rep) != 0)
        return -1;
    gpa_dra_known_init(&vb->known, gpa_inventory_dra(vb->inv));
    vb->decode = vb->cfg->decode;
    vb->decode.known = &vb->known;
    return 0;
}

void gpa_verb_dispose(gpa_verb_t *vb)
{
    free(vb->file_);
    free(vb->last_failed_file_);
    vb->file_ = vb->last_failed_file_ = NULL;
    gpa_arena_dispose(&vb->scratch);
    gpa_arena_dispose(&vb->known_arena_);
    gpa_inventory_release(vb->inv);
    gpa_config_release(vb->cfg);
    vb->inv = NULL;
    vb->cfg = NULL;
}

/* One more document (or object) of the current file that could not be read; its file counted once. */
static void count_unreadable(gpa_verb_t *vb)
{
    const char *file = vb->file_ != NULL ? vb->file_ : "";
    vb->unreadable++;
    vb->unreadable_docs++;
    if (vb->last_failed_file_ != NULL && strcmp(vb->last_failed_file_, file) == 0)
        return;
    free(vb->last_failed_file_);
    vb->last_failed_file_ = gpa_xstrdup(file);
    vb->unreadable_doc_files++;
}

/* A class, claim or template of the input becomes known (once: the input's own, over the inventory's version of it):
 * decoded again from a copy in the walk's long-lived arena. */
void gpa_verb_know(gpa_verb_t *vb, const gpa_object_t *obj)
{
    gpa_dra_known_t input = vb->known;
    input.below = NULL; /* this layer alone */
    if (obj->dra == NULL || obj->dra->kind >= GPA_DRA__KINDS ||
        gpa_dra_known_find(&input, obj->dra->kind, obj->dra->ns, obj->dra->name) != NULL)
        return;
    gpa_error_t err = {0};
    gpa_object_t *copy;
    if (gpa_decode_object_with(&vb->known_arena_, &vb->decode, gpa_value_clone(&vb->known_arena_, obj->root), &copy, &err) == 0 &&
        copy->dra != NULL) {
        gpa_dra_known_add(&vb->known_arena_, &vb->known, copy->dra);
    }
}

void gpa_verb_seal_known(gpa_verb_t *vb)
{
    gpa_dra_known_seal(&vb->known_arena_, &vb->known);
}

static void ignore_error(void *ctx, const gpa_error_t *err)
{
    (void)ctx, (void)err;
}

/* The first pass: the DRA objects of the files; what cannot be read is the second pass's to report. */
static int on_dra_document(void *ctx, const char *file, const char *source, long item, gpa_arena_t *a, gpa_value_t *doc)
{
    gpa_verb_t *vb = ctx;
    gpa_objects_t objs = {0};
    gpa_error_t err = {0};
    static const gpa_decode_opts_t only_dra = {.dialects = GPA_DIALECT_DRA};
    (void)source;
    if (strcmp(file, "-") == 0)
        return 0;
    int rc = item < 0 ? gpa_decode_document_with(a, &only_dra, doc, &objs, &err)
                      : gpa_decode_item(a, &only_dra, doc, (size_t)item, &objs, &err);
    for (size_t i = 0; rc == 0 && i < objs.len; i++)
        gpa_verb_know(vb, objs.items[i]);
    return 0;
}

/* Whether the file may hold a resource.k8s.io object: its bytes name the group (a Pod's claims never do). Most inputs
 * hold none, and a look at the bytes costs far less than parsing them twice. */
static int may_hold_dra(const char *file)
{
    gpa_error_t err = {0};
    size_t len = 0;
    char *text = gpa_read_file(file, &len, &err);
    int found = text != NULL && memmem(text, len, GPA_DRA_GROUP, strlen(GPA_DRA_GROUP)) != NULL;
    free(text);
    return found;
}

static void walk_known(gpa_verb_t *vb, char *const *paths, size_t npaths)
{
    static const gpa_load_report_t quiet = {ignore_error, NULL, ignore_error};
    gpa_load_files_t files = {0};
    for (size_t i = 0; i < npaths; i++)
        if (strcmp(paths[i], "-") != 0)
            gpa_load_files((const char *const *)&paths[i], 1, &files, &quiet);
    for (size_t i = 0; i < files.len; i++)
        if (may_hold_dra(files.items[i]))
            gpa_input_walk_with(&files.items[i], 1, on_dra_document, vb, NULL, &quiet);
    gpa_load_files_dispose(&files);
    gpa_dra_known_seal(&vb->known_arena_, &vb->known); /* stdin's, if any, are added after: found by a scan */
}

static int on_document(void *ctx, const char *file, const char *source, long item, gpa_arena_t *a, gpa_value_t *doc)
{
    gpa_verb_t *vb = ctx;
    gpa_objects_t objs = {0};
    if (vb->file_ == NULL || strcmp(vb->file_, file) != 0) {
        free(vb->file_);
        vb->file_ = gpa_xstrdup(file);
    }
    int rc =
        item < 0 ? gpa_cli_objects(a, &vb->decode, file, doc, &objs) : gpa_cli_item_objects(a, &vb->decode, file, doc, item, &objs);
    if (rc != 0) {
        count_unreadable(vb);
        return 0; /* reported; the next document is still read */
    }
    for (size_t i = 0; i < objs.len; i++) {
        if (strcmp(file, "-") == 0)
            gpa_verb_know(vb, objs.items[i]);
        vb->on_object(vb, source, objs.items[i]);
    }
    return 0;
}

void gpa_verb_walk(gpa_verb_t *vb, char *const *paths, size_t npaths)
{
    if (vb->json)
        fputs("[", stdout);
    if ((vb->cfg->dialects & GPA_DIALECT_DRA) != 0)
        walk_known(vb, paths, npaths);
    size_t files = 0;
    if (gpa_input_walk(paths, npaths, on_document, vb, &files) != 0)
        vb->unreadable++;
    vb->unreadable_files += files;
}

int gpa_verb_check(gpa_verb_t *vb, const char *source, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *verdict)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, source);
    gpa_arena_clear(&vb->scratch);
    gpa_check_opts_t o = *opts;
    if (o.known == NULL)
        o.known = &vb->known;
    if (gpa_check(&vb->scratch, vb->cfg, obj, &o, verdict, &err) != 0) {
        gpa_report_error(stderr, &err);
        count_unreadable(vb);
        return -1;
    }
    return 0;
}

void gpa_verb_print_json(gpa_verb_t *vb, json_t *el, const char *source, const char *what, const char *name)
{
    char *s = el != NULL ? json_dumps(el, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    if (s == NULL) { /* only text that is not UTF-8 gets here; say so rather than drop the element */
        gpa_report_line(stderr, "%s: cannot encode the %s of %s as JSON", source, what, name);
        count_unreadable(vb);
    } else {
        printf("%s%s", vb->printed++ > 0 ? ",\n" : "", s);
    }
    free(s);
    json_decref(el);
}

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* "; 1 file, and 2 documents in 1 other file, could not be read (see stderr)": a CI log shows how much. */
static void print_unreadable(const gpa_verb_t *vb)
{
    size_t f = vb->unreadable_files, d = vb->unreadable_docs, df = vb->unreadable_doc_files;
    if (f > 0 && d > 0)
        printf("; %zu file%s, and %zu document%s in %zu other file%s, could not be read", f, plural(f), d, plural(d), df,
               plural(df));
    else if (d > 0)
        printf("; %zu document%s in %zu file%s could not be read", d, plural(d), df, plural(df));
    else if (f > 0)
        printf("; %zu file%s could not be read", f, plural(f));
    else
        printf("; some input could not be read");
    printf(" (see stderr)");
}

int gpa_verb_finish(gpa_verb_t *vb, size_t refused, const char *summary)
{
    if (vb->json) {
        printf("%s]\n", vb->printed > 0 ? "\n" : "");
    } else if (summary != NULL) {
        printf("%s", summary);
        if (vb->unreadable > 0)
            print_unreadable(vb);
        printf("\n");
    }
    if (vb->unreadable > 0)
        return GPA_EXIT_USAGE;
    return refused > 0 ? GPA_EXIT_DENIED : GPA_EXIT_OK;
}
