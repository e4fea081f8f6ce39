/*
 * Shared by the verbs (report.h): text escaped for a terminal; verdict → text or JSON.
 */
#include "report/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping (report.h) ---- */

size_t gpa_utf8_char(const unsigned char *s, unsigned *cp)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0)
        return 0;
    unsigned c = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* The escape of the character at s (its length in *n), or NULL when it prints as it is. */
static const char *escape_of(const unsigned char *s, size_t *n, char tmp[16])
{
    unsigned cp = 0;
    *n = gpa_utf8_char(s, &cp);
    if (*n == 0) {
        *n = 1;
        snprintf(tmp, 16, "\\x%02x", s[0]);
        return tmp;
    }
    if (cp == '\n' || cp == '\t' || cp == '\r')
        return cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : "\\r";
    if (cp < 0x20 || cp == 0x7F)
        return snprintf(tmp, 16, "\\x%02x", cp), tmp;
    if (cp >= 0x80 && cp <= 0x9F)
        return snprintf(tmp, 16, "\\u%04x", cp), tmp;
    return NULL;
}

void gpa_report_escape(gpa_buf_t *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s != '\0') {
        char tmp[16];
        size_t n;
        const char *e = escape_of(s, &n, tmp);
        if (e != NULL)
            gpa_buf_puts(b, e);
        else
            gpa_buf_append(b, s, n);
        s += n;
    }
}

const char *gpa_report_printable(gpa_arena_t *a, const char *s)
{
    char tmp[16];
    size_t n;
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0' && escape_of(p, &n, tmp) == NULL)
        p += n;
    if (*p == '\0')
        return s;
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_report_escape(&b, s);
    const char *copy = gpa_arena_strdup(a, b.base);
    gpa_buf_dispose(&b);
    return copy;
}

void gpa_report_line(FILE *out, const char *fmt, ...)
{
    char small[512], *text = small;
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n >= (int)sizeof(small)) {
        text = gpa_xmalloc((size_t)n + 1);
        vsnprintf(text, (size_t)n + 1, fmt, copy);
    }
    va_end(copy);
    va_end(ap);
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_report_escape(&b, n >= 0 ? text : "");
    gpa_buf_putc(&b, '\n');
    fwrite(b.base, 1, b.len, out);
    gpa_buf_dispose(&b);
    if (text != small)
        free(text);
}

void gpa_report_error(FILE *out, const gpa_error_t *err)
{
    char line[1024];
    gpa_error_format(err, line, sizeof(line));
    gpa_report_line(out, "%s", line);
}

/* ---- verdicts ---- */

static const char *object_name(gpa_arena_t *a, const gpa_object_t *obj)
{
    const char *kind = obj->kind[0] != '\0' ? obj->kind : "<no kind>";
    if (obj->ns[0] == '\0')
        return gpa_arena_printf(a, "%s/%s", kind, obj->name);
    return gpa_arena_printf(a, "%s/%s/%s", kind, obj->ns, obj->name);
}

static void print_status(FILE *out, gpa_arena_t *a, const char *source, const char *name, const gpa_verdict_t *v)
{
    const char *mutated = "";
    for (size_t i = 0; i < v->mutations.len; i++)
        mutated = gpa_arena_printf(a, "%s%s%s", mutated, i == 0 ? " (mutated: " : ", ", v->mutations.items[i]);
    gpa_report_line(out, "%s %s: %s%s%s", source, name, v->allowed ? "allowed" : "denied", mutated,
                    v->mutations.len > 0 ? ")" : "");
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

/* Where a finding is, unmistakably: `container "main"` (a name can look like a rule or a dialect), `pod`, or
 * `object` (a resource.k8s.io object, which has no Pod);
 * in an object of several Pod templates, which one (`container "worker" in spec.workerGroupSpecs[1].template
 * "big"`): two templates may hold containers of the same name. */
static const char *finding_place(gpa_arena_t *a, const gpa_object_t *obj, const gpa_violation_t *f)
{
    if (obj->npods == 0 && f->container == NULL)
        return "object"; /* a claim, template or class: its own finding */
    const char *where = template_of(a, obj, f->path != NULL ? f->path : "");
    return f->container != NULL ? gpa_arena_printf(a, "container \"%s\"%s", f->container, where)
                                : gpa_arena_printf(a, "pod%s", where);
}

void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v)
{
    const char *name = object_name(a, obj);
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        gpa_report_line(out, "%s %s %s: %s: %s%s", source, name, finding_place(a, obj, f), f->rule, f->message,
                        f->action == GPA_ACTION_WARN ? " [warn]" : "");
    }
    /* Warnings of findings were printed as findings above; the others (mutations) are printed here. */
    for (size_t i = 0; i < v->warnings.len; i++)
        if (!gpa_warning_is_finding(&v->warnings.items[i]))
            gpa_report_line(out, "%s %s: warning: %s", source, name, v->warnings.items[i].whole);
    print_status(out, a, source, name, v);
}

void gpa_report_text_excluded(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj)
{
    gpa_report_line(out, "%s %s: allowed (namespace %s is excluded by the configuration's namespaces.exclude: not checked)", source,
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
