/*
 * Shared by validate and fit (report.h): verdict → text or JSON.
 */
#include "report.h"

#include <stdlib.h>
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

/* The value at a JSON pointer's segments ("/spec/workerGroupSpecs/1"; no ~ escapes needed for a template's
 * path), NULL when absent. */
static const gpa_value_t *value_at_pointer(const gpa_value_t *v, const char *pointer, size_t len)
{
    char seg[256];
    for (size_t i = 0; v != NULL && i < len;) {
        size_t n = strcspn(pointer + i + 1, "/");
        if (n >= sizeof(seg) || i + 1 + n > len)
            return NULL;
        memcpy(seg, pointer + i + 1, n);
        seg[n] = '\0';
        const gpa_value_t *next = gpa_value_get(v, seg);
        if (next == NULL && n > 0 && strspn(seg, "0123456789") == n)
            next = gpa_value_at(v, (size_t)strtoul(seg, NULL, 10));
        v = next;
        i += 1 + n;
    }
    return v;
}

/* Which of several Pod templates a finding is in: its path ("spec.workerGroupSpecs[1].template") and the name
 * its group gives it (a RayCluster's groupName, a JobSet's replicatedJobs[].name), or "" for an object of one
 * Pod spec. Arena-owned. */
static const char *template_of(gpa_arena_t *a, const gpa_object_t *obj, const char *path)
{
    const gpa_podspec_t *best = NULL;
    for (size_t i = 0; obj->npods > 1 && i < obj->npods; i++) {
        size_t n = strlen(obj->pods[i].path);
        if (strncmp(path, obj->pods[i].path, n) == 0 && (path[n] == '\0' || path[n] == '.' || path[n] == '[') &&
            (best == NULL || n > strlen(best->path)))
            best = &obj->pods[i];
    }
    if (best == NULL)
        return "";
    static const char tail[] = "/template/spec";
    size_t pl = strlen(best->pointer), tl = sizeof(tail) - 1;
    const char *shown = best->path, *group = NULL;
    if (pl > tl && strcmp(best->pointer + pl - tl, tail) == 0) {
        shown = gpa_arena_printf(a, "%.*s", (int)(strlen(best->path) - 5), best->path); /* without ".spec" */
        const gpa_value_t *holder = value_at_pointer(obj->root, best->pointer, pl - tl);
        group = gpa_value_string(gpa_value_get(holder, "groupName"));
        if (group == NULL)
            group = gpa_value_string(gpa_value_get(holder, "name"));
    }
    return group != NULL ? gpa_arena_printf(a, " in %s \"%s\"", shown, group) : gpa_arena_printf(a, " in %s", shown);
}

/* Where a finding is, unmistakably: `container "main"` (a name can look like a rule or a dialect), or `pod`;
 * in an object of several Pod templates, which one (`container "worker" in spec.workerGroupSpecs[1].template
 * "big"`): two templates may hold containers of the same name. */
static const char *finding_place(gpa_arena_t *a, const gpa_object_t *obj, const gpa_violation_t *f)
{
    const char *where = template_of(a, obj, f->path != NULL ? f->path : "");
    return f->container != NULL ? gpa_arena_printf(a, "container \"%s\"%s", f->container, where)
                                : gpa_arena_printf(a, "pod%s", where);
}

void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v)
{
    const char *name = object_name(a, obj);
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        fprintf(out, "%s %s %s: %s: %s%s\n", source, name, finding_place(a, obj, f), f->rule, f->message,
                f->action == GPA_ACTION_WARN ? " [warn]" : "");
    }
    /* Warnings of findings were printed as findings above; the others (mutations) are printed here. */
    for (size_t i = 0; i < v->warnings.len; i++)
        if (!gpa_warning_is_finding(&v->warnings.items[i]))
            fprintf(out, "%s %s: warning: %s\n", source, name, v->warnings.items[i].whole);
    print_status(out, source, name, v);
}

void gpa_report_text_excluded(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj)
{
    fprintf(out, "%s %s: allowed (namespace %s is excluded by the configuration's namespaces.exclude: not checked)\n", source,
            object_name(a, obj), obj->ns);
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
