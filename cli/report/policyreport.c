/*
 * audit -o policyreport (policyreport.h): the report is built as a jansson tree, then read back into the engine's
 * value tree and written with the one YAML emitter every YAML output of the CLI uses.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "document/emit.h"
#include "document/json.h"
#include "report/policyreport.h"

int gpa_report_api_parse(const char *name, gpa_report_api_t *api)
{
    if (strcmp(name, "wgpolicyk8s") == 0 || strcmp(name, "wgpolicyk8s.io") == 0)
        *api = GPA_REPORT_API_WGPOLICY;
    else if (strcmp(name, "openreports") == 0 || strcmp(name, "openreports.io") == 0)
        *api = GPA_REPORT_API_OPENREPORTS;
    else
        return -1;
    return 0;
}

static const char *str_at(const gpa_value_t *v, const char *a, const char *b)
{
    return gpa_value_string(gpa_value_get(gpa_value_get(v, a), b));
}

/* The object as an ObjectReference: apiVersion, kind, namespace (when namespaced), name, uid (when known). */
static json_t *object_ref(const gpa_object_t *obj, const char *uid, int with_ns)
{
    json_t *ref = json_pack("{s:s, s:s}", "apiVersion", obj->api_version, "kind", obj->kind);
    if (with_ns)
        json_object_set_new(ref, "namespace", json_string(obj->ns));
    json_object_set_new(ref, "name", json_string(obj->name));
    if (uid != NULL)
        json_object_set_new(ref, "uid", json_string(uid));
    return ref;
}

static json_t *result_json(const gpa_violation_t *f, int64_t now)
{
    int fail = gpa_violation_denies(f);
    gpa_buf_t resources = GPA_BUF_INIT;
    for (size_t i = 0; i < f->nresources; i++)
        gpa_buf_printf(&resources, "%s%s", i > 0 ? "," : "", f->resources[i]);
    gpa_buf_putc(&resources, '\0');
    json_t *props = json_pack("{s:s, s:s}", "path", f->path != NULL ? f->path : "", "resources", resources.base);
    if (f->container != NULL)
        json_object_set_new(props, "container", json_string(f->container));
    gpa_buf_dispose(&resources);
    /* A warn result is "not met, not scored" (the convention's meaning of warn): scored is left out, i.e. false. */
    json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:I, s:i}, s:o}", "source", "gpuadmit", "policy", "gpuadmit", "rule",
                          f->rule, "result", fail ? "fail" : "warn", "message", f->message != NULL ? f->message : "", "timestamp",
                          "seconds", (json_int_t)now, "nanos", 0, "properties", props);
    if (fail)
        json_object_set_new(r, "scored", json_true());
    return r;
}

/* metadata.name: the object's UID, as Kyverno names its reports; without one (not from a cluster), kind-name. */
static json_t *metadata(gpa_arena_t *a, const gpa_object_t *obj, const char *uid, int namespaced)
{
    const char *name = uid;
    if (name == NULL) {
        char *n = gpa_arena_printf(a, "gpuadmit-%s-%s", obj->kind, obj->name);
        for (char *p = n; *p != '\0'; p++)
            *p = (char)tolower((unsigned char)*p);
        name = n;
    }
    json_t *md = json_pack("{s:s}", "name", name);
    if (namespaced)
        json_object_set_new(md, "namespace", json_string(obj->ns));
    json_object_set_new(md, "labels", json_pack("{s:s}", "app.kubernetes.io/managed-by", "gpuadmit"));
    if (uid != NULL) /* the garbage collector deletes the report with its object */
        json_object_set_new(
            md, "ownerReferences",
            json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", obj->api_version, "kind", obj->kind, "name", obj->name, "uid", uid));
    return md;
}

static json_t *report_json(gpa_arena_t *a, gpa_report_api_t api, const gpa_object_t *obj, const gpa_verdict_t *v, int64_t now)
{
    const char *uid = str_at(obj->root, "metadata", "uid");
    int namespaced = obj->ns != NULL && obj->ns[0] != '\0';
    int open = api == GPA_REPORT_API_OPENREPORTS;
    json_t *results = json_array();
    json_int_t fail = 0, warn = 0;
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        fail += gpa_violation_denies(f);
        warn += !gpa_violation_denies(f);
        json_array_append_new(results, result_json(f, now));
    }
    json_t *r = json_pack("{s:s, s:s, s:o}", "apiVersion", open ? "openreports.io/v1alpha1" : "wgpolicyk8s.io/v1alpha2", "kind",
                          open ? (namespaced ? "Report" : "ClusterReport") : (namespaced ? "PolicyReport" : "ClusterPolicyReport"),
                          "metadata", metadata(a, obj, uid, namespaced));
    if (open)
        json_object_set_new(r, "source", json_string("gpuadmit"));
    json_object_set_new(r, "scope", object_ref(obj, uid, namespaced));
    json_object_set_new(r, "summary",
                        json_pack("{s:i, s:I, s:I, s:i, s:i}", "pass", 0, "fail", fail, "warn", warn, "error", 0, "skip", 0));
    json_object_set_new(r, "results", results);
    return r;
}

int gpa_policyreport_print(FILE *out, gpa_arena_t *a, gpa_report_api_t api, const gpa_object_t *obj, const gpa_verdict_t *v,
                           int64_t now)
{
    if (v->violations.len == 0)
        return 0;
    json_t *r = report_json(a, api, obj, v, now);
    char *text = r != NULL ? json_dumps(r, JSON_COMPACT) : NULL;
    json_decref(r);
    gpa_value_t *doc;
    gpa_error_t err = {0};
    gpa_error_init(&err, "policyreport");
    int rc = text != NULL && gpa_json_parse(a, text, strlen(text), &doc, &err) == 0 ? 1 : -1;
    free(text);
    if (rc < 0) { /* a string that is not UTF-8: jansson refuses it; say so rather than print half a report */
        fprintf(stderr, "audit: cannot write the policy report of %s/%s\n", obj->ns, obj->name);
        return 0;
    }
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "---\n");
    gpa_value_emit_yaml(&b, doc);
    fwrite(b.base, 1, b.len, out);
    gpa_buf_dispose(&b);
    return 1;
}
