/*
 * Test suites: reading a gpuadmit-test.yaml (every file it names read and every reference resolved up front,
 * every error at the file, line and column where it lies), and finding suite files under a path. See suite.h
 * for the format and contracts; running a case is suite_run.c's job.
 */
#include "suite/suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input/input.h"
#include "policy/mutate.h"
#include "admission/envelope.h"
#include "policy/rules.h"
#include "document/docs.h"
#include "document/schema.h"

/* An object of the suite's resources, found by Kind/namespace/name. */
typedef struct st_indexed_t {
    const char *kind, *ns, *name;
    gpa_value_t *doc;
    const char *file;
} indexed_t;

typedef struct st_loader_t {
    gpa_suite_t *s;
    gpa_arena_t *a;
    const char *file;         /* the suite file */
    const char *dir;          /* its directory with a trailing '/', or "" */
    const char *const *roots; /* the folders files may be read from, resolved (realpath): the suite's first */
    size_t nroots;
    gpa_error_t *err;
    GPA_VEC(indexed_t) index;
} loader_t;

typedef GPA_VEC(gpa_value_t *) docvec_t;

/* Where an object came from, while a case is being read. */
typedef struct st_objref_t {
    gpa_value_t *doc;
    const char *desc;
    const char *file;
} objref_t;

/* Fails the load at `node` of the suite file (line and column of the node, `path` its place in the suite). */
static int fail(loader_t *l, const gpa_value_t *node, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(loader_t *l, const gpa_value_t *node, const char *path, const char *fmt, ...)
{
    gpa_error_init(l->err, l->file);
    va_list ap;
    va_start(ap, fmt);
    int rc = gpa_schema_vfail(l->err, node, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* The mapping's keys must all be among `allowed` (NULL-terminated). */
static int check_fields(loader_t *l, const gpa_value_t *obj, const char *path, const char *const *allowed)
{
    gpa_error_t e = {0};
    gpa_error_init(&e, l->file);
    if (gpa_schema_fields(&e, obj, path, allowed) == 0)
        return 0;
    *l->err = e;
    return -1;
}

static int want_type(loader_t *l, const gpa_value_t *v, gpa_vtype_t t, const char *path)
{
    if (v->type == t)
        return 0;
    gpa_error_init(l->err, l->file);
    return gpa_schema_want(l->err, v, t, path);
}

/* A non-empty string field; *out stays NULL when the field is absent and not required. */
static int get_string(loader_t *l, const gpa_value_t *obj, const char *key, const char *path, int required, const char **out)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    *out = NULL;
    if (v == NULL)
        return required ? fail(l, obj, path, "missing required field \"%s\"", key) : 0;
    const char *sub = gpa_arena_printf(l->a, "%s%s%s", path, path[0] ? "." : "", key);
    if (want_type(l, v, GPA_VSTRING, sub) != 0)
        return -1;
    if (v->u.str.len == 0 || strlen(v->u.str.ptr) != v->u.str.len)
        return fail(l, v, sub, "must be a non-empty string without NUL bytes");
    *out = v->u.str.ptr;
    return 0;
}

/* A list of strings, or a single string taken as a list of one when `scalar_ok`. */
static int get_strings(loader_t *l, const gpa_value_t *v, const char *path, int scalar_ok, gpa_suite_strs_t *out)
{
    if (scalar_ok && v->type == GPA_VSTRING) {
        out->items = gpa_arena_alloc(l->a, sizeof(*out->items));
        out->items[0] = v->u.str.ptr;
        out->len = 1;
        return 0;
    }
    if (want_type(l, v, GPA_VARRAY, path) != 0)
        return -1;
    out->len = v->u.array.len;
    out->items = gpa_arena_calloc(l->a, out->len + 1, sizeof(*out->items));
    for (size_t i = 0; i < out->len; i++) {
        const gpa_value_t *item = v->u.array.items[i];
        if (item->type != GPA_VSTRING || item->u.str.len == 0)
            return fail(l, item, gpa_arena_printf(l->a, "%s[%zu]", path, i), "must be a non-empty string");
        out->items[i] = item->u.str.ptr;
    }
    return 0;
}

/* A path named in the suite, relative to the suite file's directory unless absolute. */
static const char *resolve(loader_t *l, const char *rel)
{
    return rel[0] == '/' ? rel : gpa_arena_printf(l->a, "%s%s", l->dir, rel);
}

/* Whether the resolved path real lies under the resolved folder root (or is it). */
static int is_under(const char *real, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return 1;
    return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* Reads a file named at `node`, when it resolves under one of the allowed folders (the symlinks it goes through
 * included: the file read is the resolved one); a failure is reported at the node, in the suite file. */
static char *read_named(loader_t *l, const gpa_value_t *node, const char *path, const char *file, size_t *len)
{
    char *real = realpath(file, NULL);
    if (real == NULL) {
        fail(l, node, path, "cannot read %s: %s", file, strerror(errno));
        return NULL;
    }
    size_t i = 0;
    while (i < l->nroots && !is_under(real, l->roots[i]))
        i++;
    char *text = NULL;
    if (i == l->nroots) {
        fail(l, node, path, "%s is outside the suite's directory (%s): not read (gpuadmit test --allow-read DIR)", file,
             l->roots[0]);
    } else {
        gpa_error_t rerr = {0};
        gpa_error_init(&rerr, file);
        text = gpa_read_file_max(real, GPA_SUITE_MAX_FILE_BYTES, len, &rerr);
        if (text == NULL)
            fail(l, node, path, "cannot read %s: %s", file, rerr.message);
    }
    free(real);
    return text;
}

/* Reads and parses a file named at `node` into its documents (in the suite's arena). */
static int parse_named(loader_t *l, const gpa_value_t *node, const char *path, const char *file, gpa_docs_t *docs)
{
    size_t len;
    char *text = read_named(l, node, path, file, &len);
    if (text == NULL)
        return -1;
    gpa_error_init(l->err, file);
    int rc = gpa_docs_parse(l->a, text, len, docs, l->err);
    free(text);
    return rc;
}

static const char *doc_string(const gpa_value_t *doc, const char *key)
{
    const char *s = gpa_value_string(gpa_value_get(doc, key));
    return s != NULL ? s : "";
}

static const char *doc_meta(const gpa_value_t *doc, const char *key)
{
    const char *s = gpa_value_string(gpa_value_get(gpa_value_get(doc, "metadata"), key));
    return s != NULL ? s : "";
}

/* The objects of a document: itself, or the items of a List (recursively), as `kubectl get -o json` prints. */
static void flatten(gpa_arena_t *a, gpa_value_t *doc, docvec_t *out, int depth)
{
    const gpa_value_t *items = gpa_value_get(doc, "items");
    if (depth < 8 && strcmp(doc_string(doc, "kind"), "List") == 0 && items != NULL && items->type == GPA_VARRAY) {
        for (size_t i = 0; i < items->u.array.len; i++)
            flatten(a, items->u.array.items[i], out, depth + 1);
        return;
    }
    *gpa_vec_push(a, out) = doc;
}

/* An object without a namespace is matched as "default", where kubectl would create it. */
static const char *effective_namespace(const char *ns)
{
    return ns[0] != '\0' ? ns : "default";
}

static int load_resources(loader_t *l, const gpa_value_t *list, const char *path)
{
    gpa_suite_strs_t files = {0};
    if (get_strings(l, list, path, 1, &files) != 0)
        return -1;
    for (size_t i = 0; i < files.len; i++) {
        const char *file = resolve(l, files.items[i]);
        gpa_docs_t docs;
        const gpa_value_t *node = list->type == GPA_VARRAY ? list->u.array.items[i] : list;
        if (parse_named(l, node, gpa_arena_printf(l->a, "%s[%zu]", path, i), file, &docs) != 0)
            return -1;
        docvec_t objs = {0};
        for (size_t d = 0; d < docs.len; d++)
            flatten(l->a, docs.docs[d], &objs, 0);
        for (size_t k = 0; k < objs.len; k++) {
            gpa_value_t *o = objs.items[k];
            if (o->type != GPA_VOBJECT)
                continue;
            indexed_t *x = gpa_vec_push(l->a, &l->index);
            *x = (indexed_t){doc_string(o, "kind"), effective_namespace(doc_meta(o, "namespace")), doc_meta(o, "name"), o, file};
        }
    }
    return 0;
}

/* "Kind/namespace/name" or "Kind/name" (namespace default) among the resources; exactly one must match. */
static int find_ref(loader_t *l, const gpa_value_t *node, const char *path, objref_t *out)
{
    const char *ref = node->u.str.ptr;
    const char *s1 = strchr(ref, '/');
    const char *s2 = s1 != NULL ? strchr(s1 + 1, '/') : NULL;
    if (s1 == NULL || s1 == ref || s1[1] == '\0' || (s2 != NULL && (s2 == s1 + 1 || s2[1] == '\0' || strchr(s2 + 1, '/'))))
        return fail(l, node, path, "\"%s\" is not Kind/namespace/name or Kind/name", ref);
    const char *kind = gpa_arena_strndup(l->a, ref, (size_t)(s1 - ref));
    const char *ns = s2 != NULL ? gpa_arena_strndup(l->a, s1 + 1, (size_t)(s2 - s1 - 1)) : "default";
    const char *name = s2 != NULL ? s2 + 1 : s1 + 1;
    const indexed_t *found = NULL;
    for (size_t i = 0; i < l->index.len; i++) {
        const indexed_t *x = &l->index.items[i];
        if (strcmp(x->kind, kind) != 0 || strcmp(x->ns, ns) != 0 || strcmp(x->name, name) != 0)
            continue;
        if (found != NULL)
            return fail(l, node, path, "%s names two objects: %s:%u and %s:%u", ref, found->file, found->doc->line, x->file,
                        x->doc->line);
        found = x;
    }
    if (found == NULL)
        return fail(l, node, path, "object %s not found in the suite's resources (%zu objects)", ref, l->index.len);
    *out = (objref_t){found->doc, ref, found->file};
    return 0;
}

/* `file: F`: the one object a file holds (a List of one, or an AdmissionReview, counts as one). */
static int load_object_file(loader_t *l, const gpa_value_t *node, const char *path, objref_t *out)
{
    const char *file = resolve(l, node->u.str.ptr);
    gpa_docs_t docs;
    if (parse_named(l, node, path, file, &docs) != 0)
        return -1;
    docvec_t objs = {0};
    for (size_t d = 0; d < docs.len; d++)
        flatten(l->a, docs.docs[d], &objs, 0);
    if (objs.len != 1)
        return fail(l, node, path, "%s holds %zu objects, not one: list it under resources and name one as Kind/namespace/name",
                    file, objs.len);
    if (objs.items[0]->type != GPA_VOBJECT)
        return fail(l, node, path, "%s does not hold an object (a mapping)", file);
    *out = (objref_t){objs.items[0], gpa_arena_printf(l->a, "file %s", node->u.str.ptr), file};
    return 0;
}

static int load_inline(loader_t *l, gpa_value_t *v, const char *path, objref_t *out)
{
    if (want_type(l, v, GPA_VOBJECT, path) != 0)
        return -1;
    docvec_t objs = {0};
    flatten(l->a, v, &objs, 0); /* a List of one is that one object, as in a file */
    if (objs.len != 1 || objs.items[0]->type != GPA_VOBJECT)
        return fail(l, v, path, "holds %zu objects, not one", objs.len);
    *out = (objref_t){objs.items[0], "inline", l->file};
    return 0;
}

/* An object given as a reference string, or as a mapping {file: F} or {inline: {...}}. */
static int load_objref(loader_t *l, gpa_value_t *v, const char *path, objref_t *out)
{
    static const char *const fields[] = {"file", "inline", NULL};
    if (v->type == GPA_VSTRING)
        return find_ref(l, v, path, out);
    if (v->type != GPA_VOBJECT)
        return fail(l, v, path, "must be Kind/namespace/name, {file: F} or {inline: {...}}");
    if (check_fields(l, v, path, fields) != 0)
        return -1;
    gpa_value_t *file = gpa_value_get(v, "file"), *in = gpa_value_get(v, "inline");
    if ((file != NULL) == (in != NULL))
        return fail(l, v, path, "give exactly one of file and inline");
    if (file != NULL)
        return want_type(l, file, GPA_VSTRING, path) != 0 ? -1 : load_object_file(l, file, path, out);
    return load_inline(l, in, gpa_arena_printf(l->a, "%s.inline", path), out);
}

static int parse_operation(loader_t *l, const gpa_value_t *v, const char *path, gpa_operation_t *op)
{
    static const char *const names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    const char *s = gpa_value_string(v);
    for (size_t i = 0; s != NULL && i < 4; i++) {
        if (strcmp(s, names[i]) == 0) {
            *op = (gpa_operation_t)i;
            return 0;
        }
    }
    return fail(l, v, path, "operation must be CREATE, UPDATE, DELETE or CONNECT");
}

/*
 * An AdmissionReview case is answered by the webhook's own gpa_review: the case keeps the review, and what its
 * envelope says (operation, object, oldObject, namespace) when it reads. One that does not read stays a case: the
 * webhook answers it HTTP 400, and so does the case.
 */
static int unwrap_review(loader_t *l, gpa_suite_case_t *tc, const gpa_value_t *at, const char *path, int op_given,
                         const objref_t *ref)
{
    gpa_envelope_t env;
    gpa_error_t err = {0};
    gpa_error_init(&err, ref->file);
    tc->review = ref->doc;
    tc->object = NULL;
    if (gpa_envelope_read(ref->doc, &env, &err) != 0)
        return 0;
    if (op_given && env.op != tc->operation)
        return fail(l, at, path, "operation differs from the AdmissionReview's request.operation");
    tc->operation = env.op;
    tc->object = env.object;
    tc->old_object = env.old_object;
    tc->ns = env.ns;
    return 0;
}

/* object | file | inline (exactly one), and oldObject. */
static int load_case_objects(loader_t *l, gpa_suite_case_t *tc, gpa_value_t *c, const char *path, int op_given)
{
    gpa_value_t *obj = gpa_value_get(c, "object"), *file = gpa_value_get(c, "file"), *in = gpa_value_get(c, "inline");
    if ((obj != NULL) + (file != NULL) + (in != NULL) != 1)
        return fail(l, c, path, "give exactly one of object, file and inline");
    objref_t ref;
    const char *sub = gpa_arena_printf(l->a, "%s.%s", path, obj != NULL ? "object" : file != NULL ? "file" : "inline");
    int rc = obj != NULL    ? load_objref(l, obj, sub, &ref)
             : file != NULL ? (want_type(l, file, GPA_VSTRING, sub) != 0 ? -1 : load_object_file(l, file, sub, &ref))
                            : load_inline(l, in, sub, &ref);
    if (rc != 0)
        return -1;
    tc->object_desc = ref.desc;
    tc->object = ref.doc;
    tc->object_file = ref.file;
    gpa_value_t *oldv = gpa_value_get(c, "oldObject");
    if (strcmp(doc_string(ref.doc, "kind"), "AdmissionReview") == 0) {
        if (oldv != NULL)
            return fail(l, oldv, path, "an AdmissionReview brings its own oldObject");
        return unwrap_review(l, tc, obj != NULL ? obj : file != NULL ? file : in, sub, op_given, &ref);
    }
    if (oldv == NULL)
        return tc->operation == GPA_OP_UPDATE ? fail(l, c, path, "operation UPDATE needs oldObject") : 0;
    if (tc->operation != GPA_OP_UPDATE && tc->operation != GPA_OP_DELETE)
        return fail(l, oldv, path, "oldObject is only for UPDATE and DELETE");
    objref_t old;
    if (load_objref(l, oldv, gpa_arena_printf(l->a, "%s.oldObject", path), &old) != 0)
        return -1;
    tc->old_object = old.doc;
    tc->old_file = old.file;
    return 0;
}

static int check_rule_ids(loader_t *l, const gpa_value_t *list, const char *path, const gpa_suite_strs_t *ids, int mutations)
{
    for (size_t i = 0; i < ids->len; i++) {
        int known = mutations ? gpa_mutation_index(ids->items[i]) >= 0 : gpa_rule_index(ids->items[i]) >= 0;
        if (!known)
            return fail(l, list->u.array.items[i], gpa_arena_printf(l->a, "%s[%zu]", path, i), "unknown %s id \"%s\"",
                        mutations ? "mutation" : "rule", ids->items[i]);
    }
    return 0;
}

static int load_patched(loader_t *l, gpa_suite_expect_t *e, const gpa_value_t *v, const char *path)
{
    if (want_type(l, v, GPA_VSTRING, path) != 0)
        return -1;
    objref_t ref;
    if (load_object_file(l, v, path, &ref) != 0)
        return -1;
    e->patched_file = ref.file;
    e->patched = ref.doc;
    return 0;
}

/* A device minor as written: a plain decimal integer 0..2^31-1 (compared with the minors fit prints). */
static int load_minor(loader_t *l, const gpa_value_t *v, const char *path, const char **out)
{
    const char *t = v->type == GPA_VNUMBER ? v->u.str.ptr : "";
    size_t n = strspn(t, "0123456789");
    if (n == 0 || n != strlen(t) || n > 10 || (n > 1 && t[0] == '0') || strtoll(t, NULL, 10) > INT32_MAX)
        return fail(l, v, path, "must be a device minor (an integer 0 or more, written plainly)");
    *out = t;
    return 0;
}

/* `placement:` what `gpuadmit fit` would choose (suite.h). */
static int load_placement(loader_t *l, gpa_suite_expect_t *e, const gpa_value_t *v, const char *path)
{
    static const char *const fields[] = {"now", "node", "minors", "annotations", "devices", "reason", NULL};
    if (want_type(l, v, GPA_VOBJECT, path) != 0 || check_fields(l, v, path, fields) != 0)
        return -1;
    const gpa_value_t *now = gpa_value_get(v, "now"), *node = gpa_value_get(v, "node");
    const gpa_value_t *minors = gpa_value_get(v, "minors"), *ann = gpa_value_get(v, "annotations");
    e->has_placement = 1;
    if (now != NULL) {
        if (want_type(l, now, GPA_VBOOL, gpa_arena_printf(l->a, "%s.now", path)) != 0)
            return -1;
        e->placement_now = now->u.boolean;
    }
    if (node == NULL)
        return fail(l, v, path, "missing required field \"node\" (null: no node takes the Pod)");
    if (node->type != GPA_VNULL && get_string(l, v, "node", path, 1, &e->node) != 0)
        return -1;
    if (minors != NULL) {
        const char *p = gpa_arena_printf(l->a, "%s.minors", path);
        if (want_type(l, minors, GPA_VARRAY, p) != 0)
            return -1;
        e->has_minors = 1;
        e->minors.len = minors->u.array.len;
        e->minors.items = gpa_arena_calloc(l->a, e->minors.len + 1, sizeof(char *));
        for (size_t i = 0; i < e->minors.len; i++)
            if (load_minor(l, minors->u.array.items[i], gpa_arena_printf(l->a, "%s[%zu]", p, i), &e->minors.items[i]) != 0)
                return -1;
    }
    if (gpa_value_get(v, "reason") != NULL && get_string(l, v, "reason", path, 1, &e->reason) != 0)
        return -1;
    if (e->reason != NULL && e->node != NULL)
        return fail(l, gpa_value_get(v, "reason"), gpa_arena_printf(l->a, "%s.reason", path),
                    "a reason is why no node takes the object: for node null only");
    const gpa_value_t *devices = gpa_value_get(v, "devices");
    if (devices != NULL) {
        e->has_devices = 1;
        if (get_strings(l, devices, gpa_arena_printf(l->a, "%s.devices", path), 0, &e->devices) != 0)
            return -1;
    }
    if (ann == NULL)
        return 0;
    const char *p = gpa_arena_printf(l->a, "%s.annotations", path);
    if (want_type(l, ann, GPA_VOBJECT, p) != 0)
        return -1;
    size_t n = ann->u.object.len;
    e->ann_keys = (gpa_suite_strs_t){gpa_arena_calloc(l->a, n + 1, sizeof(char *)), n};
    e->ann_values = (gpa_suite_strs_t){gpa_arena_calloc(l->a, n + 1, sizeof(char *)), n};
    for (size_t i = 0; i < n; i++) {
        const gpa_member_t *m = &ann->u.object.members[i];
        if (want_type(l, m->value, GPA_VSTRING, gpa_arena_printf(l->a, "%s.%s", p, m->key)) != 0)
            return -1;
        e->ann_keys.items[i] = m->key;
        e->ann_values.items[i] = m->value->u.str.ptr;
    }
    return 0;
}

static int load_expect(loader_t *l, gpa_suite_expect_t *e, const gpa_value_t *v, const char *path)
{
    static const char *const fields[] = {"allowed", "rules", "warnings", "mutations", "patched", "placement", NULL};
    if (want_type(l, v, GPA_VOBJECT, path) != 0 || check_fields(l, v, path, fields) != 0)
        return -1;
    const gpa_value_t *allowed = gpa_value_get(v, "allowed"), *rules = gpa_value_get(v, "rules");
    const gpa_value_t *warnings = gpa_value_get(v, "warnings"), *muts = gpa_value_get(v, "mutations");
    const gpa_value_t *patched = gpa_value_get(v, "patched");
    if (allowed == NULL)
        return fail(l, v, path, "missing required field \"allowed\"");
    if (want_type(l, allowed, GPA_VBOOL, gpa_arena_printf(l->a, "%s.allowed", path)) != 0)
        return -1;
    e->allowed = allowed->u.boolean;
    const char *p;
    if (rules != NULL) {
        p = gpa_arena_printf(l->a, "%s.rules", path);
        if (get_strings(l, rules, p, 0, &e->rules) != 0 || check_rule_ids(l, rules, p, &e->rules, 0) != 0)
            return -1;
        e->has_rules = 1;
    }
    if (warnings != NULL && get_strings(l, warnings, gpa_arena_printf(l->a, "%s.warnings", path), 0, &e->warnings) != 0)
        return -1;
    if (muts != NULL) {
        p = gpa_arena_printf(l->a, "%s.mutations", path);
        if (get_strings(l, muts, p, 0, &e->mutations) != 0 || check_rule_ids(l, muts, p, &e->mutations, 1) != 0)
            return -1;
        e->has_mutations = 1;
    }
    const gpa_value_t *placement = gpa_value_get(v, "placement");
    if (placement != NULL && load_placement(l, e, placement, gpa_arena_printf(l->a, "%s.placement", path)) != 0)
        return -1;
    return patched != NULL ? load_patched(l, e, patched, gpa_arena_printf(l->a, "%s.patched", path)) : 0;
}

/* `webhook: validate | mutate`: an AdmissionReview case answered by that webhook alone. */
static int load_webhook(loader_t *l, gpa_suite_case_t *tc, const gpa_value_t *v, const char *path)
{
    const char *s = gpa_value_string(v);
    if (tc->review == NULL)
        return fail(l, v, path, "webhook is for AdmissionReview cases");
    if (s != NULL && strcmp(s, "validate") == 0)
        tc->hooks = GPA_SUITE_HOOK_VALIDATE;
    else if (s != NULL && strcmp(s, "mutate") == 0)
        tc->hooks = GPA_SUITE_HOOK_MUTATE;
    else
        return fail(l, v, path, "webhook must be validate or mutate");
    return 0;
}

static int load_case(loader_t *l, gpa_suite_case_t *tc, gpa_value_t *c, const char *path)
{
    static const char *const fields[] = {"name",      "object", "file",   "inline",  "oldObject",
                                         "operation", "mutate", "expect", "webhook", NULL};
    if (want_type(l, c, GPA_VOBJECT, path) != 0 || check_fields(l, c, path, fields) != 0)
        return -1;
    tc->line = c->line;
    if (get_string(l, c, "name", path, 1, &tc->name) != 0)
        return -1;
    const gpa_value_t *op = gpa_value_get(c, "operation"), *mutate = gpa_value_get(c, "mutate");
    const gpa_value_t *expect = gpa_value_get(c, "expect");
    tc->operation = GPA_OP_CREATE;
    if (op != NULL && parse_operation(l, op, gpa_arena_printf(l->a, "%s.operation", path), &tc->operation) != 0)
        return -1;
    tc->mutate = 1;
    if (mutate != NULL) {
        if (want_type(l, mutate, GPA_VBOOL, gpa_arena_printf(l->a, "%s.mutate", path)) != 0)
            return -1;
        tc->mutate = mutate->u.boolean;
    }
    if (load_case_objects(l, tc, c, path, op != NULL) != 0)
        return -1;
    /* AdmissionReview cases: mutating then validating webhook, as the cluster calls them (validating alone without
     * mutation), unless `webhook` names one. */
    tc->hooks = tc->mutate ? GPA_SUITE_HOOK_MUTATE | GPA_SUITE_HOOK_VALIDATE : GPA_SUITE_HOOK_VALIDATE;
    const gpa_value_t *hook = gpa_value_get(c, "webhook");
    if (hook != NULL && load_webhook(l, tc, hook, gpa_arena_printf(l->a, "%s.webhook", path)) != 0)
        return -1;
    if (expect == NULL)
        return fail(l, c, path, "missing required field \"expect\"");
    if (load_expect(l, &tc->expect, expect, gpa_arena_printf(l->a, "%s.expect", path)) != 0)
        return -1;
    if (tc->expect.has_placement && (tc->review != NULL || tc->operation == GPA_OP_DELETE))
        return fail(l, gpa_value_get(expect, "placement"), gpa_arena_printf(l->a, "%s.expect.placement", path),
                    "placement is for objects a Pod is created from (not AdmissionReview or DELETE cases)");
    return 0;
}

static int load_cases(loader_t *l, gpa_value_t *cases)
{
    if (cases == NULL)
        return fail(l, NULL, "", "missing required field \"cases\"");
    if (want_type(l, cases, GPA_VARRAY, "cases") != 0)
        return -1;
    if (cases->u.array.len == 0)
        return fail(l, cases, "cases", "a suite needs at least one case");
    l->s->ncases = cases->u.array.len;
    l->s->cases = gpa_arena_calloc(l->a, l->s->ncases, sizeof(*l->s->cases));
    for (size_t i = 0; i < l->s->ncases; i++) {
        gpa_value_t *c = cases->u.array.items[i];
        if (load_case(l, &l->s->cases[i], c, gpa_arena_printf(l->a, "cases[%zu]", i)) != 0)
            return -1;
        for (size_t k = 0; k < i; k++)
            if (strcmp(l->s->cases[k].name, l->s->cases[i].name) == 0)
                return fail(l, c, gpa_arena_printf(l->a, "cases[%zu]", i), "case name \"%s\" is used twice (line %u)",
                            l->s->cases[i].name, l->s->cases[k].line);
    }
    return 0;
}

static int load_config(loader_t *l, const gpa_value_t *v)
{
    if (v == NULL) {
        l->s->config = gpa_config_default();
        return 0;
    }
    if (want_type(l, v, GPA_VSTRING, "config") != 0)
        return -1;
    const char *file = resolve(l, v->u.str.ptr);
    size_t len;
    char *text = read_named(l, v, "config", file, &len);
    if (text == NULL)
        return -1;
    gpa_error_init(l->err, file);
    int rc = gpa_config_parse(text, len, file, &l->s->config, l->err);
    free(text);
    if (rc != 0 && l->err->source == NULL)
        l->err->source = file;
    return rc;
}

static int load_inventory(loader_t *l, const gpa_value_t *v)
{
    gpa_suite_strs_t files = {0};
    if (v == NULL)
        return 0;
    if (get_strings(l, v, "inventory", 1, &files) != 0)
        return -1;
    l->s->inventory = gpa_inventory_new();
    for (size_t i = 0; i < files.len; i++) {
        const char *file = resolve(l, files.items[i]);
        const gpa_value_t *node = v->type == GPA_VARRAY ? v->u.array.items[i] : v;
        size_t len;
        char *text = read_named(l, node, "inventory", file, &len);
        if (text == NULL)
            return -1;
        gpa_error_init(l->err, file);
        int rc = gpa_inventory_parse(l->s->inventory, text, len, file, l->err);
        free(text);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int load_header(loader_t *l, gpa_value_t *root)
{
    static const char *const fields[] = {"apiVersion", "kind", "name", "config", "inventory", "resources", "cases", NULL};
    const char *api, *kind;
    if (want_type(l, root, GPA_VOBJECT, "") != 0 || check_fields(l, root, "", fields) != 0)
        return -1;
    if (get_string(l, root, "apiVersion", "", 1, &api) != 0 || get_string(l, root, "kind", "", 1, &kind) != 0)
        return -1;
    if (strcmp(api, GPA_SUITE_API_VERSION) != 0)
        return fail(l, gpa_value_get(root, "apiVersion"), "apiVersion", "apiVersion must be %s", GPA_SUITE_API_VERSION);
    if (strcmp(kind, GPA_SUITE_KIND) != 0)
        return fail(l, gpa_value_get(root, "kind"), "kind", "kind must be %s", GPA_SUITE_KIND);
    return get_string(l, root, "name", "", 1, &l->s->name);
}

static int load_root(loader_t *l, gpa_value_t *root)
{
    if (load_header(l, root) != 0 || load_config(l, gpa_value_get(root, "config")) != 0)
        return -1;
    if (load_inventory(l, gpa_value_get(root, "inventory")) != 0)
        return -1;
    const gpa_value_t *res = gpa_value_get(root, "resources");
    if (res != NULL && load_resources(l, res, "resources") != 0)
        return -1;
    return load_cases(l, gpa_value_get(root, "cases"));
}

/* The allowed folders, resolved into the arena: the suite's own directory first, then each of allow. */
static int resolve_roots(loader_t *l, const char *const *allow, size_t nallow)
{
    const char **roots = gpa_arena_calloc(l->a, nallow + 1, sizeof(*roots));
    for (size_t i = 0; i <= nallow; i++) {
        const char *dir = i == 0 ? (l->dir[0] != '\0' ? l->dir : ".") : allow[i - 1];
        char *real = realpath(dir, NULL);
        if (real == NULL)
            return gpa_error_set(l->err, 0, 0, "", "cannot resolve the folder %s: %s", dir, strerror(errno));
        roots[i] = gpa_arena_strdup(l->a, real);
        free(real);
    }
    l->roots = roots;
    l->nroots = nallow + 1;
    return 0;
}

int gpa_suite_load(const char *path, gpa_suite_t *suite, gpa_error_t *err)
{
    return gpa_suite_load_from(path, NULL, 0, suite, err);
}

int gpa_suite_load_from(const char *path, const char *const *allow, size_t nallow, gpa_suite_t *suite, gpa_error_t *err)
{
    memset(suite, 0, sizeof(*suite));
    gpa_arena_init(&suite->arena);
    loader_t l = {suite, &suite->arena, NULL, "", NULL, 0, err, {0}};
    l.file = suite->file = gpa_arena_strdup(l.a, path);
    const char *slash = strrchr(path, '/');
    if (slash != NULL)
        l.dir = gpa_arena_strndup(l.a, path, (size_t)(slash - path) + 1);
    gpa_error_init(err, l.file);
    if (resolve_roots(&l, allow, nallow) != 0)
        return -1;
    size_t len;
    char *text = gpa_read_file_max(path, GPA_SUITE_MAX_FILE_BYTES, &len, err);
    if (text == NULL)
        return -1;
    gpa_docs_t docs;
    int rc = gpa_docs_parse(l.a, text, len, &docs, err);
    free(text);
    if (rc != 0)
        return -1;
    if (docs.len != 1)
        return fail(&l, docs.len > 1 ? docs.docs[1] : NULL, "", "a suite file holds one document, not %zu", docs.len);
    return load_root(&l, docs.docs[0]);
}

void gpa_suite_dispose(gpa_suite_t *suite)
{
    gpa_config_release(suite->config);
    gpa_inventory_release(suite->inventory);
    suite->config = NULL;
    suite->inventory = NULL;
    gpa_arena_dispose(&suite->arena);
    suite->cases = NULL;
    suite->ncases = 0;
}

/* ---- finding suites ---- */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int is_suite_name(const char *name)
{
    return strcmp(name, GPA_SUITE_FILE_NAME) == 0 || strcmp(name, "gpuadmit-test.yml") == 0;
}

static void push_file(char ***files, size_t *n, const char *path)
{
    *files = gpa_xrealloc(*files, (*n + 1) * sizeof(**files));
    (*files)[(*n)++] = gpa_xstrdup(path);
}

/* Directory entries in sorted order (heap; caller frees each and the array). */
static char **list_dir(DIR *d, size_t *n)
{
    char **names = NULL;
    struct dirent *e;
    *n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", and hidden folders such as .git */
        push_file(&names, n, e->d_name);
    }
    if (*n > 1)
        qsort(names, *n, sizeof(*names), cmp_str);
    return names;
}

static int find_in(const char *path, char ***files, size_t *nfiles, gpa_error_t *err, int depth, int top)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return gpa_error_set(err, 0, 0, NULL, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (top || is_suite_name(strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path))
            push_file(files, nfiles, path);
        return 0;
    }
    if (depth > 32)
        return gpa_error_set(err, 0, 0, NULL, "%s: folders nested too deep (a symbolic link loop?)", path);
    DIR *d = opendir(path);
    if (d == NULL)
        return gpa_error_set(err, 0, 0, NULL, "%s: %s", path, strerror(errno));
    size_t n;
    char **names = list_dir(d, &n);
    closedir(d);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(path);
        char *child = gpa_xmalloc(plen + strlen(names[i]) + 2);
        sprintf(child, "%s%s%s", path, plen > 0 && path[plen - 1] == '/' ? "" : "/", names[i]);
        if (rc == 0)
            rc = find_in(child, files, nfiles, err, depth + 1, 0);
        free(child);
        free(names[i]);
    }
    free(names);
    return rc;
}

int gpa_suite_find(const char *path, char ***files, size_t *nfiles, gpa_error_t *err)
{
    gpa_error_init(err, NULL);
    return find_in(path, files, nfiles, err, 0, 1);
}
