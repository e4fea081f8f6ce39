/*
 * The AdmissionReview envelope (envelope.h).
 */
#include "admission/envelope.h"

#include <string.h>

static int bad(gpa_error_t *err, const gpa_value_t *at, const char *path, const char *what)
{
    return gpa_error_set(err, at != NULL ? at->line : 0, at != NULL ? at->column : 0, path, "%s", what);
}

/* Whether v is the string `lit`, compared by length (a NUL inside v does not end it). */
static int string_is(const gpa_value_t *v, const char *lit)
{
    size_t n = strlen(lit);
    return v != NULL && v->type == GPA_VSTRING && v->u.str.len == n && memcmp(v->u.str.ptr, lit, n) == 0;
}

int gpa_envelope_is_review(const gpa_value_t *doc)
{
    return string_is(gpa_value_get(doc, "kind"), "AdmissionReview");
}

/* An optional string member: "" when absent or null; -1 when of another type. */
static int opt_string(const gpa_value_t *obj, const char *key, const char *path, const char **dst, gpa_error_t *err)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    *dst = "";
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    if (v->type != GPA_VSTRING)
        return bad(err, v, path, "must be a string");
    if (memchr(v->u.str.ptr, '\0', v->u.str.len) != NULL)
        return bad(err, v, path, "must not contain a NUL character");
    *dst = v->u.str.ptr;
    return 0;
}

static int read_operation(const gpa_value_t *request, gpa_envelope_t *out, gpa_error_t *err)
{
    static const struct {
        const char *name;
        gpa_operation_t op;
    } ops[] = {{"CREATE", GPA_OP_CREATE}, {"UPDATE", GPA_OP_UPDATE}, {"DELETE", GPA_OP_DELETE}, {"CONNECT", GPA_OP_CONNECT}};
    const gpa_value_t *v = gpa_value_get(request, "operation");
    const char *s = gpa_value_string(v);
    if (s == NULL)
        return bad(err, v != NULL ? v : request, "request.operation", "must be a string: CREATE, UPDATE, DELETE or CONNECT");
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (string_is(v, ops[i].name)) {
            out->operation = ops[i].name;
            out->op = ops[i].op;
            return 0;
        }
    return gpa_error_set(err, v->line, v->column, "request.operation", "\"%.40s\" is not CREATE, UPDATE, DELETE or CONNECT", s);
}

/* request.object / request.oldObject: an object when `required_for` names the operation, else an object, null or
 * absent. */
static int read_object(const gpa_value_t *request, const char *key, const char *path, const char *required_for, gpa_value_t **dst,
                       gpa_error_t *err)
{
    gpa_value_t *v = gpa_value_get(request, key);
    *dst = NULL;
    if (v != NULL && v->type == GPA_VOBJECT) {
        *dst = v;
        return 0;
    }
    if (v == NULL || v->type == GPA_VNULL) {
        if (required_for == NULL)
            return 0;
        return gpa_error_set(err, request->line, request->column, path, "missing (required for %s)", required_for);
    }
    return bad(err, v, path, "must be an object");
}

static int read_head(const gpa_value_t *root, const gpa_value_t **request, gpa_envelope_t *out, gpa_error_t *err)
{
    if (root->type != GPA_VOBJECT)
        return bad(err, root, "(root)", "an AdmissionReview must be a JSON object");
    const gpa_value_t *api = gpa_value_get(root, "apiVersion");
    if (!string_is(api, GPA_ADMISSION_V1) && !string_is(api, GPA_ADMISSION_V1BETA1))
        return bad(err, root, "apiVersion", "must be \"" GPA_ADMISSION_V1 "\" or \"" GPA_ADMISSION_V1BETA1 "\"");
    out->api_version = string_is(api, GPA_ADMISSION_V1) ? GPA_ADMISSION_V1 : GPA_ADMISSION_V1BETA1;
    if (!gpa_envelope_is_review(root))
        return bad(err, root, "kind", "must be \"AdmissionReview\"");
    *request = gpa_value_get(root, "request");
    if (*request == NULL)
        return bad(err, root, "request", "missing");
    if ((*request)->type != GPA_VOBJECT)
        return bad(err, *request, "request", "must be an object");
    return 0;
}

void gpa_envelope_filter(gpa_arena_t *a, gpa_json_filter_t *root)
{
    static const char *const read[] = {"apiVersion",        "kind",         "request.uid",       "request.operation",
                                       "request.namespace", "request.name", "request.kind.kind", "request.dryRun"};
    gpa_json_filter_keep(a, root, read, sizeof(read) / sizeof(read[0]));
}

int gpa_envelope_read(const gpa_value_t *root, gpa_envelope_t *out, gpa_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->api_version = out->uid = out->operation = out->ns = out->name = out->kind = "";
    const gpa_value_t *request = NULL;
    if (read_head(root, &request, out, err) != 0)
        return -1;
    const gpa_value_t *uid = gpa_value_get(request, "uid");
    if (gpa_value_string(uid) == NULL || uid->u.str.len == 0)
        return bad(err, uid != NULL ? uid : request, "request.uid", "must be a non-empty string");
    out->uid = uid->u.str.ptr;
    out->uid_len = uid->u.str.len;
    if (read_operation(request, out, err) != 0)
        return -1;
    const gpa_value_t *kind = gpa_value_get(request, "kind");
    if (opt_string(request, "namespace", "request.namespace", &out->ns, err) != 0 ||
        opt_string(request, "name", "request.name", &out->name, err) != 0 ||
        (kind != NULL && kind->type == GPA_VOBJECT && opt_string(kind, "kind", "request.kind.kind", &out->kind, err) != 0))
        return -1;
    const gpa_value_t *dry = gpa_value_get(request, "dryRun");
    out->dry_run = dry != NULL && dry->type == GPA_VBOOL && dry->u.boolean;
    if (out->op != GPA_OP_CREATE && out->op != GPA_OP_UPDATE) {
        /* DELETE and CONNECT are taken whatever they carry. */
        gpa_value_t *obj = gpa_value_get(request, "object"), *old = gpa_value_get(request, "oldObject");
        out->object = obj != NULL && obj->type == GPA_VOBJECT ? obj : NULL;
        out->old_object = old != NULL && old->type == GPA_VOBJECT ? old : NULL;
        return 0;
    }
    return read_object(request, "object", "request.object", out->operation, &out->object, err) != 0 ||
                   read_object(request, "oldObject", "request.oldObject", out->op == GPA_OP_UPDATE ? "UPDATE" : NULL,
                               &out->old_object, err) != 0
               ? -1
               : 0;
}
