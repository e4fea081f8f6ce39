/*
 * Shared by validate and mutate (report.h): document → objects, and verdict → text or JSON.
 */
#include "report.h"

#include <string.h>

static int is_admission_review(const gpa_value_t *doc)
{
    const char *kind = gpa_value_string(gpa_value_get(doc, "kind"));
    return kind != NULL && strcmp(kind, "AdmissionReview") == 0;
}

/*
 * The object an AdmissionReview asks about: 1 with *request and *doc (request.object) set, 0 for a DELETE or
 * CONNECT review without an object (nothing to judge), -1 with err set when the review has no request, or a
 * CREATE or UPDATE review carries no object (the webhook answers both with HTTP 400).
 */
static int review_object(gpa_value_t **doc, const gpa_value_t **request, gpa_error_t *err)
{
    const gpa_value_t *req = gpa_value_get(*doc, "request");
    if (req == NULL || req->type != GPA_VOBJECT)
        return gpa_error_set(err, (*doc)->line, (*doc)->column, "request", "an AdmissionReview needs a request (a mapping)");
    gpa_value_t *obj = gpa_value_get(req, "object");
    if (obj != NULL && obj->type == GPA_VOBJECT) {
        *doc = obj;
        *request = req;
        return 1;
    }
    const char *op = gpa_value_string(gpa_value_get(req, "operation"));
    if (op != NULL && (strcmp(op, "DELETE") == 0 || strcmp(op, "CONNECT") == 0))
        return 0;
    return gpa_error_set(err, req->line, req->column, "request.object",
                         "missing or not a mapping: a %s review carries the object to judge", op != NULL ? op : "CREATE or UPDATE");
}

int gpa_cli_decode(gpa_arena_t *a, const char *file, gpa_value_t *doc, gpa_objects_t *out)
{
    gpa_error_t err;
    gpa_error_init(&err, file);
    const gpa_value_t *request = NULL;
    int judge = is_admission_review(doc) ? review_object(&doc, &request, &err) : 1;
    if (judge == 0)
        return 0;
    size_t first = out->len;
    if (judge > 0 && gpa_decode_document(a, doc, out, &err) == 0) {
        for (size_t i = first; request != NULL && i < out->len; i++)
            gpa_object_set_request(out->items[i], gpa_value_string(gpa_value_get(request, "namespace")),
                                   gpa_value_string(gpa_value_get(request, "name")));
        return 0;
    }
    char line[1024];
    gpa_error_format(&err, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
    return -1;
}

/* "Kind/namespace/name", or "Kind/name" when the object has no namespace; arena-owned. */
static const char *object_name(gpa_arena_t *a, const gpa_object_t *obj)
{
    const char *kind = obj->kind[0] != '\0' ? obj->kind : "<no kind>";
    if (obj->namespace_[0] == '\0')
        return gpa_arena_printf(a, "%s/%s", kind, obj->name);
    return gpa_arena_printf(a, "%s/%s/%s", kind, obj->namespace_, obj->name);
}

/* Whether an admission warning only repeats a warn finding already printed (the engine words warn findings as
 * warnings too); those mention the rule id. */
static int repeats_finding(const gpa_verdict_t *v, const char *warning)
{
    for (size_t i = 0; i < v->violations.len; i++)
        if (v->violations.items[i].action == GPA_ACTION_WARN && strstr(warning, v->violations.items[i].rule) != NULL)
            return 1;
    return 0;
}

static void print_status(FILE *out, const char *source, const char *name, const gpa_verdict_t *v)
{
    fprintf(out, "%s %s: %s", source, name, v->allowed ? "allowed" : "denied");
    for (size_t i = 0; i < v->mutations.len; i++)
        fprintf(out, "%s%s", i == 0 ? " (mutated: " : ", ", v->mutations.items[i]);
    fputs(v->mutations.len > 0 ? ")\n" : "\n", out);
}

void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v)
{
    const char *name = object_name(a, obj);
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        fprintf(out, "%s %s %s%s\n", source, name, gpa_violation_line(a, f), f->action == GPA_ACTION_WARN ? " [warn]" : "");
    }
    for (size_t i = 0; i < v->warnings.len; i++)
        if (!repeats_finding(v, v->warnings.items[i]))
            fprintf(out, "%s %s: warning: %s\n", source, name, v->warnings.items[i]);
    print_status(out, source, name, v);
}

/* json_pack fails on a NULL "s": the model's strings are never NULL, but a report must not vanish if one is. */
static const char *safe(const char *s)
{
    return s != NULL ? s : "";
}

static json_t *strings_json(const gpa_strings_t *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < s->len; i++)
        json_array_append_new(arr, json_string(safe(s->items[i])));
    return arr;
}

static json_t *violation_json(const gpa_violation_t *f)
{
    json_t *resources = json_array();
    for (size_t i = 0; i < f->nresources; i++)
        json_array_append_new(resources, json_string(safe(f->resources[i])));
    return json_pack("{s:s, s:s?, s:s, s:o, s:s, s:s}", "rule", safe(f->rule), "container", f->container, "path", safe(f->path),
                     "resources", resources, "message", safe(f->message), "action", f->action == GPA_ACTION_WARN ? "warn" : "deny");
}

json_t *gpa_report_json(const char *source, const gpa_object_t *obj, const gpa_verdict_t *v)
{
    json_t *violations = json_array();
    for (size_t i = 0; i < v->violations.len; i++)
        json_array_append_new(violations, violation_json(&v->violations.items[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:o}", "source", safe(source), "kind", safe(obj->kind), "namespace",
                     safe(obj->namespace_), "name", safe(obj->name), "allowed", v->allowed, "violations", violations, "warnings",
                     strings_json(&v->warnings), "mutations", strings_json(&v->mutations));
}
