/*
 * Shared by validate and fit (report.h): verdict → text or JSON.
 */
#include "report.h"

#include <string.h>

static const char *object_name(gpa_arena_t *a, const gpa_object_t *obj)
{
    const char *kind = obj->kind[0] != '\0' ? obj->kind : "<no kind>";
    if (obj->ns[0] == '\0')
        return gpa_arena_printf(a, "%s/%s", kind, obj->name);
    return gpa_arena_printf(a, "%s/%s/%s", kind, obj->ns, obj->name);
}

static void print_status(FILE *out, const char *source, const char *name, const gpa_verdict_t *v)
{
    fprintf(out, "%s %s: %s", source, name, v->allowed ? "allowed" : "denied");
    for (size_t i = 0; i < v->mutations.len; i++)
        fprintf(out, "%s%s", i == 0 ? " (mutated: " : ", ", v->mutations.items[i]);
    fputs(v->mutations.len > 0 ? ")\n" : "\n", out);
}

/* Where a finding is, unmistakably: `container "main"` (a name can look like a rule or a dialect), or `pod`. */
static const char *finding_place(gpa_arena_t *a, const gpa_violation_t *f)
{
    return f->container != NULL ? gpa_arena_printf(a, "container \"%s\"", f->container) : "pod";
}

void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v)
{
    const char *name = object_name(a, obj);
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        fprintf(out, "%s %s %s: %s: %s%s\n", source, name, finding_place(a, f), f->rule, f->message,
                f->action == GPA_ACTION_WARN ? " [warn]" : "");
    }
    /* Warnings of findings were printed as findings above; the others (mutations) are printed here. */
    for (size_t i = 0; i < v->warnings.len; i++)
        if (!gpa_warning_is_finding(&v->warnings.items[i]))
            fprintf(out, "%s %s: warning: %s\n", source, name, v->warnings.items[i].whole);
    print_status(out, source, name, v);
}

/* json_pack fails on a NULL "s": the model's strings are never NULL, but a report must not vanish if one is. */
static const char *safe(const char *s)
{
    return s != NULL ? s : "";
}

/* Every admission warning, whatever its origin, whole (the webhook cuts them at the API server's 120 bytes). */
static json_t *warnings_json(const gpa_warnings_t *w)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < w->len; i++)
        json_array_append_new(arr, json_string(safe(w->items[i].whole)));
    return arr;
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
                     safe(obj->ns), "name", safe(obj->name), "allowed", v->allowed, "violations", violations, "warnings",
                     warnings_json(&v->warnings), "mutations", strings_json(&v->mutations));
}
