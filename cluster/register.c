/*
 * The server registers its own webhook configurations once it can answer them (register.h says what and why).
 */
#include "register.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/arena.h"
#include "base/buf.h"
#include "certs.h"
#include "document/docs.h"
#include "document/emit.h"
#include "document/json.h"

#define MAX_ATTEMPTS 5 /* conflicts in a row before a sync gives up (the next sync starts over) */
#define MAX_FILE (1 << 20)

/* ---- the value tree: reading and setting members ------------------------------------------------------- */

static int is_object(const gpa_value_t *v)
{
    return v != NULL && v->type == GPA_VOBJECT;
}

/* obj[key] = value, replacing a member of that name or adding one (obj is an object). */
static void set_member(gpa_arena_t *a, gpa_value_t *obj, const char *key, gpa_value_t *value)
{
    size_t n = obj->u.object.len;
    for (size_t i = 0; i < n; i++)
        if (strcmp(obj->u.object.members[i].key, key) == 0) {
            obj->u.object.members[i].value = value;
            return;
        }
    obj->u.object.members = gpa_arena_grow(a, obj->u.object.members, n, n + 1, sizeof(gpa_member_t));
    obj->u.object.members[n].key = gpa_arena_strdup(a, key);
    obj->u.object.members[n].key_len = strlen(key);
    obj->u.object.members[n].value = value;
    obj->u.object.len = n + 1;
}

/* obj[key], made an empty object first when it is not one. */
static gpa_value_t *object_at(gpa_arena_t *a, gpa_value_t *obj, const char *key)
{
    gpa_value_t *v = gpa_value_get(obj, key);
    if (!is_object(v)) {
        v = gpa_value_new_object(a, 0);
        set_member(a, obj, key, v);
    }
    return v;
}

static gpa_value_t *str(gpa_arena_t *a, const char *s)
{
    return gpa_value_new_string(a, s, strlen(s));
}

static size_t array_len(const gpa_value_t *v)
{
    return v != NULL && v->type == GPA_VARRAY ? v->u.array.len : 0;
}

/* ---- the API -------------------------------------------------------------------------------------------- */

static int api_fail(const char *method, const char *path, const gpa_kube_reply_t *r, gpa_error_t *err)
{
    int n = r->body.len > 300 ? 300 : (int)r->body.len;
    return gpa_error_set(err, 0, 0, "", "%s %s: HTTP %ld: %.*s", method, path, r->status, n,
                         r->body.base != NULL ? r->body.base : "");
}

/*
 * A call whose answer, when 200 or 201, is parsed into *out (arena a); 404 and 409 leave *out NULL for the caller
 * to judge; any other status is an error with the server's message.
 */
static int call_json(gpa_kube_client_t *c, gpa_arena_t *a, const char *method, const char *path, const gpa_buf_t *body,
                     long *status, gpa_value_t **out, gpa_error_t *err)
{
    gpa_kube_reply_t r;
    memset(&r, 0, sizeof(r));
    *out = NULL;
    int rc = gpa_kube_call(c, method, path, body != NULL ? "application/json" : NULL, body != NULL ? body->base : NULL,
                           body != NULL ? body->len : 0, &r, err);
    *status = r.status;
    if (rc == 0 && (r.status == 200 || r.status == 201) && gpa_json_parse(a, r.body.base, r.body.len, out, NULL) != 0)
        rc = gpa_error_set(err, 0, 0, "", "%s %s: the answer is not JSON", method, path);
    else if (rc == 0 && r.status != 200 && r.status != 201 && r.status != 404 && r.status != 409)
        rc = api_fail(method, path, &r, err);
    gpa_kube_reply_dispose(&r);
    return rc;
}

/* A GET that must answer 200 (404 allowed when missing_ok: *out stays NULL). */
static int get(gpa_kube_client_t *c, gpa_arena_t *a, const char *path, int missing_ok, gpa_value_t **out, gpa_error_t *err)
{
    long status;
    if (call_json(c, a, "GET", path, NULL, &status, out, err) != 0)
        return -1;
    if (status == 200 || (status == 404 && missing_ok))
        return 0;
    return gpa_error_set(err, 0, 0, "", "GET %s: HTTP %ld", path, status);
}

/* Whether one endpoint of an EndpointSlice serves: addresses, and not marked unready (absent means ready). */
static int endpoint_ready(const gpa_value_t *ep)
{
    const gpa_value_t *ready = gpa_value_get(gpa_value_get(ep, "conditions"), "ready");
    return array_len(gpa_value_get(ep, "addresses")) > 0 && !(ready != NULL && ready->type == GPA_VBOOL && !ready->u.boolean);
}

/* Whether the Service has a ready endpoint in any of its EndpointSlices. */
static int service_ready(gpa_kube_client_t *c, gpa_arena_t *a, const gpa_register_opts_t *o, int *ready, gpa_error_t *err)
{
    const char *path = gpa_arena_printf(a, "/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices?labelSelector=%s%s", o->ns,
                                        "kubernetes.io%2Fservice-name%3D", o->service);
    gpa_value_t *list;
    *ready = 0;
    if (get(c, a, path, 0, &list, err) != 0)
        return -1;
    const gpa_value_t *items = gpa_value_get(list, "items");
    for (size_t i = 0; i < array_len(items) && !*ready; i++) {
        const gpa_value_t *eps = gpa_value_get(items->u.array.items[i], "endpoints");
        for (size_t j = 0; j < array_len(eps) && !*ready; j++)
            *ready = endpoint_ready(eps->u.array.items[j]);
    }
    return 0;
}

/* The owner's ownerReferences entry (a list of one), from the ClusterRole's uid. */
static int owner_refs(gpa_kube_client_t *c, gpa_arena_t *a, const char *owner, gpa_value_t **out, const char **uid,
                      gpa_error_t *err)
{
    const char *path = gpa_arena_printf(a, "/apis/rbac.authorization.k8s.io/v1/clusterroles/%s", owner);
    gpa_value_t *role;
    if (get(c, a, path, 1, &role, err) != 0)
        return -1;
    *uid = gpa_value_string(gpa_value_get(gpa_value_get(role, "metadata"), "uid"));
    if (*uid == NULL)
        return gpa_error_set(err, 0, 0, "", "ClusterRole %s (the webhook configurations' owner) %s: not registering", owner,
                             role == NULL ? "does not exist" : "has no uid");
    gpa_value_t *ref = gpa_value_new_object(a, 0);
    set_member(a, ref, "apiVersion", str(a, "rbac.authorization.k8s.io/v1"));
    set_member(a, ref, "kind", str(a, "ClusterRole"));
    set_member(a, ref, "name", str(a, owner));
    set_member(a, ref, "uid", str(a, *uid));
    gpa_value_t *list = gpa_arena_alloc(a, sizeof(*list));
    memset(list, 0, sizeof(*list));
    list->type = GPA_VARRAY;
    list->u.array.items = gpa_arena_alloc(a, sizeof(gpa_value_t *));
    list->u.array.items[0] = ref;
    list->u.array.len = 1;
    *out = list;
    return 0;
}

/* ---- the files ------------------------------------------------------------------------------------------ */

static int wanted_file(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return 0; /* a ConfigMap volume's ..data and timestamped directories */
    return (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The file names of dir to register, sorted, in arena a; *n how many. */
static int list_files(gpa_arena_t *a, const char *dir, const char ***names, size_t *n, gpa_error_t *err)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return gpa_error_set(err, 0, 0, "", "%s: %s", dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    *names = NULL;
    *n = 0;
    while ((e = readdir(d)) != NULL) {
        if (!wanted_file(e->d_name))
            continue;
        if (*n == cap) {
            *names = gpa_arena_grow(a, *names, cap, cap * 2 + 4, sizeof(**names));
            cap = cap * 2 + 4;
        }
        (*names)[(*n)++] = gpa_arena_strdup(a, e->d_name);
    }
    closedir(d);
    if (*n > 0)
        qsort(*names, *n, sizeof(**names), by_name);
    return 0;
}

/* A whole file into b (at most MAX_FILE bytes). */
static int read_file(const char *path, gpa_buf_t *b, gpa_error_t *err)
{
    FILE *f = fopen(path, "rb");
    char chunk[4096];
    size_t got;
    if (f == NULL)
        return gpa_error_set(err, 0, 0, "", "%s: %s", path, strerror(errno));
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0 && b->len <= MAX_FILE)
        gpa_buf_append(b, chunk, got);
    fclose(f);
    if (b->len > MAX_FILE)
        return gpa_error_set(err, 0, 0, "", "%s: larger than %d bytes", path, MAX_FILE);
    return 0;
}

/* The caBundle from ca_file (base64 of its PEM, new), or NULL when there is none to read. */
static char *ca_bundle(const char *ca_file)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_error_t ignored = {0};
    gpa_error_init(&ignored, NULL);
    char *out = NULL;
    if (ca_file != NULL && read_file(ca_file, &b, &ignored) == 0 && b.len > 0)
        out = gpa_certs_base64(b.base, b.len);
    gpa_buf_dispose(&b);
    return out;
}

/* Hex SHA-256 of the file's text and the owner's uid, in arena a. */
static const char *digest(gpa_arena_t *a, const gpa_buf_t *text, const char *uid)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 || EVP_DigestUpdate(ctx, text->base, text->len) != 1 ||
        EVP_DigestUpdate(ctx, "\n", 1) != 1 || EVP_DigestUpdate(ctx, uid, strlen(uid)) != 1 ||
        EVP_DigestFinal_ex(ctx, md, &len) != 1)
        len = 0;
    EVP_MD_CTX_free(ctx);
    char *hex = gpa_arena_alloc(a, 2 * (size_t)len + 1);
    for (unsigned int i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    hex[2 * len] = '\0';
    return hex;
}

/* ---- one configuration ---------------------------------------------------------------------------------- */

typedef struct st_wanted_t {
    gpa_value_t *obj;       /* the file's configuration, with owner and digest set */
    const char *collection; /* validatingwebhookconfigurations | mutatingwebhookconfigurations */
    const char *name;
    const char *digest;
} wanted_t;

/* Reads one file into w; the configuration's kind decides its collection. */
static int load_wanted(gpa_arena_t *a, const char *path, const char *uid, gpa_value_t *refs, wanted_t *w, gpa_error_t *err)
{
    gpa_buf_t text = GPA_BUF_INIT;
    gpa_docs_t docs = {0};
    int rc = read_file(path, &text, err);
    if (rc == 0 && (rc = gpa_docs_parse(a, text.base != NULL ? text.base : "", text.len, &docs, err)) != 0) {
        char why[sizeof(err->message)];
        snprintf(why, sizeof(why), "%s", err->message); /* the file's name into the message: err->source would dangle */
        snprintf(err->message, sizeof(err->message), "%.200s: %.300s", path, why);
    } else if (rc == 0 && (docs.len != 1 || !is_object(docs.docs[0])))
        rc = gpa_error_set(err, 0, 0, "", "%s: one webhook configuration object per file", path);
    if (rc == 0) {
        w->obj = docs.docs[0];
        const char *kind = gpa_value_string(gpa_value_get(w->obj, "kind"));
        gpa_value_t *meta = gpa_value_get(w->obj, "metadata");
        w->name = gpa_value_string(gpa_value_get(meta, "name"));
        w->collection = kind == NULL                                          ? NULL
                        : strcmp(kind, "ValidatingWebhookConfiguration") == 0 ? "validatingwebhookconfigurations"
                        : strcmp(kind, "MutatingWebhookConfiguration") == 0   ? "mutatingwebhookconfigurations"
                                                                              : NULL;
        if (w->collection == NULL || w->name == NULL || !is_object(meta))
            rc = gpa_error_set(err, 0, 0, "", "%s: not a Validating/MutatingWebhookConfiguration with a metadata.name", path);
    }
    if (rc == 0) {
        gpa_value_t *meta = gpa_value_get(w->obj, "metadata");
        w->digest = digest(a, &text, uid);
        set_member(a, meta, "ownerReferences", refs);
        set_member(a, object_at(a, meta, "annotations"), GPA_REGISTER_DIGEST_ANNOTATION, str(a, w->digest));
    }
    gpa_buf_dispose(&text);
    return rc;
}

/*
 * caBundle of each webhook of want: the file's own; else the live webhook's of the same name; else ca (may be
 * NULL). Returns how many webhooks got one that the live object lacks (the live one must be written).
 */
static int fill_bundles(gpa_arena_t *a, gpa_value_t *want, const gpa_value_t *live, const char *ca)
{
    gpa_value_t *hooks = gpa_value_get(want, "webhooks");
    const gpa_value_t *live_hooks = gpa_value_get(live, "webhooks");
    int missing = 0;
    for (size_t i = 0; i < array_len(hooks); i++) {
        gpa_value_t *cc = gpa_value_get(hooks->u.array.items[i], "clientConfig");
        const char *name = gpa_value_string(gpa_value_get(hooks->u.array.items[i], "name"));
        if (!is_object(cc) || gpa_value_get(cc, "caBundle") != NULL)
            continue;
        const char *have = NULL;
        for (size_t j = 0; j < array_len(live_hooks) && have == NULL; j++)
            if (name != NULL && gpa_value_string(gpa_value_get(live_hooks->u.array.items[j], "name")) != NULL &&
                strcmp(gpa_value_string(gpa_value_get(live_hooks->u.array.items[j], "name")), name) == 0)
                have = gpa_value_string(gpa_value_get(gpa_value_get(live_hooks->u.array.items[j], "clientConfig"), "caBundle"));
        if (have != NULL && have[0] != '\0')
            set_member(a, cc, "caBundle", str(a, have));
        else if (ca != NULL) {
            set_member(a, cc, "caBundle", str(a, ca));
            missing++;
        }
    }
    return missing;
}

/* One look at a configuration: create it, replace it, or leave it; *conflict when it changed under us. */
static int apply_once(gpa_kube_client_t *c, gpa_arena_t *a, const wanted_t *w, const char *ca, gpa_register_result_t *res,
                      int *conflict, gpa_error_t *err)
{
    const char *base = gpa_arena_printf(a, "/apis/admissionregistration.k8s.io/v1/%s", w->collection);
    const char *path = gpa_arena_printf(a, "%s/%s", base, w->name);
    gpa_value_t *live, *answer;
    *conflict = 0;
    if (get(c, a, path, 1, &live, err) != 0)
        return -1;
    gpa_value_t *meta = gpa_value_get(w->obj, "metadata");
    const gpa_value_t *live_meta = gpa_value_get(live, "metadata");
    const char *had = gpa_value_string(gpa_value_get(gpa_value_get(live_meta, "annotations"), GPA_REGISTER_DIGEST_ANNOTATION));
    int missing = fill_bundles(a, w->obj, live, ca);
    if (live != NULL && had != NULL && strcmp(had, w->digest) == 0 && missing == 0) {
        res->unchanged++;
        return 0;
    }
    const char *rv = gpa_value_string(gpa_value_get(live_meta, "resourceVersion"));
    if (rv != NULL)
        set_member(a, meta, "resourceVersion", str(a, rv));
    gpa_buf_t body = GPA_BUF_INIT;
    gpa_value_emit_json(&body, w->obj, 0);
    long status;
    const char *method = live == NULL ? "POST" : "PUT";
    int rc = call_json(c, a, method, live == NULL ? base : path, &body, &status, &answer, err);
    gpa_buf_dispose(&body);
    if (rc == 0 && status == 409)
        *conflict = 1; /* created or changed by another replica meanwhile: read it again */
    else if (rc == 0 && status == 404)
        rc = gpa_error_set(err, 0, 0, "", "%s %s: HTTP 404 (deleted meanwhile?)", method, path);
    else if (rc == 0 && live == NULL)
        res->created++;
    else if (rc == 0)
        res->updated++;
    return rc;
}

/* One file's configuration; a conflict reads the file and the live object again (fill_bundles edits what it read). */
static int apply_file(gpa_kube_client_t *c, gpa_arena_t *a, const char *path, const char *uid, gpa_value_t *refs, const char *ca,
                      gpa_register_result_t *res, gpa_error_t *err)
{
    int conflict = 1;
    wanted_t w;
    for (int attempt = 0; attempt < MAX_ATTEMPTS && conflict; attempt++)
        if (load_wanted(a, path, uid, refs, &w, err) != 0 || apply_once(c, a, &w, ca, res, &conflict, err) != 0)
            return -1;
    if (conflict)
        return gpa_error_set(err, 0, 0, "", "%s %s: still conflicting after %d attempts", w.collection, w.name, MAX_ATTEMPTS);
    return 0;
}

int gpa_register_once(gpa_kube_client_t *c, const gpa_register_opts_t *opts, gpa_register_result_t *res, gpa_error_t *err)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    memset(res, 0, sizeof(*res));
    const char **names = NULL, *uid = NULL;
    size_t n = 0;
    int ready = 0;
    char *ca = NULL;
    gpa_value_t *refs = NULL;
    int rc = list_files(&a, opts->dir, &names, &n, err);
    if (rc == 0)
        rc = service_ready(c, &a, opts, &ready, err);
    res->waiting = rc == 0 && !ready;
    if (rc == 0 && ready && n > 0) {
        rc = owner_refs(c, &a, opts->owner, &refs, &uid, err);
        ca = rc == 0 ? ca_bundle(opts->ca_file) : NULL;
    }
    for (size_t i = 0; rc == 0 && ready && i < n; i++)
        rc = apply_file(c, &a, gpa_arena_printf(&a, "%s/%s", opts->dir, names[i]), uid, refs, ca, res, err);
    free(ca);
    gpa_arena_dispose(&a);
    return rc;
}
