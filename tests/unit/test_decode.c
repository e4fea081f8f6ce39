#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/decode.h"
#include "kube/workloads.h"
#include "document/json.h"
#include "document/schema.h"
#include "document/docs.h"
#include "run.h"

static gpa_arena_t arena;

static void setup(void)
{
    gpa_arena_init(&arena);
}

static void teardown(void)
{
    gpa_arena_dispose(&arena);
}

/* Parses text (JSON or YAML) and decodes every object in it. */
static gpa_objects_t decode(const char *text)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_objects_t objs = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_docs_parse(&arena, text, strlen(text), &docs, &err) == 0, "parse: %s", err.message);
    for (size_t i = 0; i < docs.len; i++)
        ck_assert_msg(gpa_decode_document(&arena, docs.docs[i], &objs, &err) == 0, "decode: %s: %s", err.path, err.message);
    return objs;
}

static gpa_object_t *decode_one(const char *text)
{
    gpa_objects_t objs = decode(text);
    ck_assert_uint_eq(objs.len, 1);
    return objs.items[0];
}

/* Decoding must fail; returns the error. */
static gpa_error_t decode_error(const char *text)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_objects_t objs = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_docs_parse(&arena, text, strlen(text), &docs, &err), 0);
    ck_assert_uint_eq(docs.len, 1);
    ck_assert_int_eq(gpa_decode_document(&arena, docs.docs[0], &objs, &err), -1);
    return err;
}

START_TEST(pod_containers_and_amounts)
{
    gpa_object_t *o = decode_one("apiVersion: v1\n"
                                 "kind: Pod\n"
                                 "metadata: {name: trainer, namespace: ml, annotations: {a: b}}\n"
                                 "spec:\n"
                                 "  initContainers:\n"
                                 "  - name: warmup\n"
                                 "    resources: {limits: {nvidia.com/gpu: 1}}\n"
                                 "  containers:\n"
                                 "  - name: main\n"
                                 "    resources:\n"
                                 "      requests: {cpu: '1', koordinator.sh/gpu-core: '50', koordinator.sh/gpu-memory: 20Gi}\n"
                                 "      limits: {koordinator.sh/gpu-core: 60}\n"
                                 "  - name: sidecar\n");
    ck_assert_str_eq(o->kind, "Pod");
    ck_assert_str_eq(o->name, "trainer");
    ck_assert_str_eq(o->ns, "ml");
    ck_assert_uint_eq(o->npods, 1);
    gpa_podspec_t *p = &o->pods[0];
    ck_assert_str_eq(p->path, "spec");
    ck_assert_str_eq(p->pointer, "/spec");
    ck_assert_str_eq(p->annotations_path, "metadata.annotations");
    ck_assert_str_eq(gpa_pairs_get(p->annotations, p->nannotations, "a"), "b");
    ck_assert_uint_eq(p->ncontainers, 2);
    ck_assert_uint_eq(p->ninit_containers, 1);

    gpa_container_t *c = &p->containers[0];
    ck_assert_str_eq(c->name, "main");
    ck_assert_str_eq(c->path, "spec.containers[0]");
    ck_assert_str_eq(c->pointer, "/spec/containers/0");
    ck_assert(c->has_resources && c->has_requests && c->has_limits);
    ck_assert(gpa_container_request(c, GPA_R_GPU_CORE)->present);
    ck_assert_int_eq(gpa_container_request(c, GPA_R_GPU_CORE)->value, 50);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_CORE)->value, 60);
    ck_assert_int_eq(gpa_container_request(c, GPA_R_GPU_MEMORY)->value, 20LL << 30);
    ck_assert_int_eq(gpa_container_request(c, GPA_R_GPU_MEMORY)->suffix, GPA_QS_BINARY);
    ck_assert_str_eq(gpa_container_request(c, GPA_R_GPU_MEMORY)->text, "20Gi");
    ck_assert_str_eq(gpa_container_request(c, GPA_R_GPU_MEMORY)->path,
                     "spec.containers[0].resources.requests[\"koordinator.sh/gpu-memory\"]");
    ck_assert_uint_eq(gpa_container_request(c, GPA_R_GPU_MEMORY)->line, 11);
    ck_assert(!gpa_container_limit(c, GPA_R_GPU_MEMORY)->present);
    /* The request is what the engine reads; the limit only where no request is given. */
    ck_assert_ptr_eq(gpa_container_amount(c, GPA_R_GPU_CORE), gpa_container_request(c, GPA_R_GPU_CORE));
    ck_assert_ptr_eq(gpa_container_amount(c, GPA_R_GPU_MEMORY), gpa_container_request(c, GPA_R_GPU_MEMORY));
    ck_assert_ptr_null(gpa_container_amount(c, GPA_R_GPU_SHARED));

    gpa_container_t *side = &p->containers[1];
    ck_assert_str_eq(side->name, "sidecar");
    ck_assert(!side->has_resources && !side->has_requests && !side->has_limits);

    gpa_container_t *init = &p->init_containers[0];
    ck_assert(init->is_init);
    ck_assert_str_eq(init->path, "spec.initContainers[0]");
    ck_assert(!init->has_requests && init->has_limits);
    ck_assert_ptr_eq(gpa_container_amount(init, GPA_R_NVIDIA_GPU), gpa_container_limit(init, GPA_R_NVIDIA_GPU));
    ck_assert_int_eq(gpa_container_limit(init, GPA_R_NVIDIA_GPU)->value, 1);
}
END_TEST

START_TEST(escaped_keys_are_decoded_before_comparison)
{
    gpa_object_t *o = decode_one("{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":"
                                 "{\"koordinator.sh\\u002fgpu-core\":\"50\"}}}]}}");
    ck_assert(gpa_container_limit(&o->pods[0].containers[0], GPA_R_GPU_CORE)->present);
    ck_assert_int_eq(gpa_container_limit(&o->pods[0].containers[0], GPA_R_GPU_CORE)->value, 50);
}
END_TEST

START_TEST(bad_amounts_decode_with_a_status)
{
    gpa_object_t *o = decode_one("kind: Pod\nspec:\n  containers:\n  - name: c\n    resources:\n      limits:\n"
                                 "        koordinator.sh/gpu-core: 1.5\n        koordinator.sh/gpu-memory: [1]\n"
                                 "        nvidia.com/gpu: 1x\n        vke.volcengine.com/mgpu-core: 99999999999999999999\n");
    gpa_container_t *c = &o->pods[0].containers[0];
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_CORE)->status, GPA_Q_FRACTION);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_MEMORY)->status, GPA_Q_SYNTAX);
    ck_assert_str_eq(gpa_container_limit(c, GPA_R_GPU_MEMORY)->text, "");
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_NVIDIA_GPU)->status, GPA_Q_SYNTAX);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_MGPU_CORE)->status, GPA_Q_OVERFLOW);
}
END_TEST

/* Kubernetes trims white space around a quantity (Quantity.UnmarshalJSON: strings.TrimSpace), Unicode spaces
 * included; other bytes around it, and space inside it, are still syntax errors. */
START_TEST(amounts_are_trimmed_as_kubernetes_does)
{
    gpa_object_t *o =
        decode_one("{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":"
                   "{\"nvidia.com/gpu\":\" 2\\t\",\"koordinator.sh/gpu-core\":\"\\u00a0150\\u3000\","
                   "\"koordinator.sh/gpu-memory\":\"\\u2028 8Gi\\u0085\",\"koordinator.sh/gpu.shared\":\"1 0\","
                   "\"koordinator.sh/gpu-memory-ratio\":\"\\u00005\",\"vke.volcengine.com/mgpu-core\":\"5\\u00a1\"}}}]}}");
    gpa_container_t *c = &o->pods[0].containers[0];
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_NVIDIA_GPU)->status, GPA_Q_OK);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_NVIDIA_GPU)->value, 2);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_CORE)->status, GPA_Q_OK);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_CORE)->value, 150);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_MEMORY)->status, GPA_Q_OK);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_MEMORY)->value, 8LL << 30);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_SHARED)->status, GPA_Q_SYNTAX);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_GPU_MEMORY_RATIO)->status, GPA_Q_SYNTAX);
    ck_assert_int_eq(gpa_container_limit(c, GPA_R_MGPU_CORE)->status, GPA_Q_SYNTAX);
}
END_TEST

/* Every workload kind of docs/rules.md#objects: the template paths and pointers. */
START_TEST(workload_templates)
{
    static const struct {
        const char *doc;
        size_t npods;
        const char *first, *last;
    } cases[] = {
        {"{apiVersion: apps/v1, kind: Deployment, spec: {template: {spec: {containers: [{name: a}]}}}}", 1, "spec.template.spec",
         "spec.template.spec"},
        {"{apiVersion: apps/v1, kind: ReplicaSet, spec: {template: {spec: {containers: []}}}}", 1, "spec.template.spec", NULL},
        {"{apiVersion: apps/v1, kind: StatefulSet, spec: {template: {spec: {containers: []}}}}", 1, "spec.template.spec", NULL},
        {"{apiVersion: apps/v1, kind: DaemonSet, spec: {template: {spec: {containers: []}}}}", 1, "spec.template.spec", NULL},
        {"{apiVersion: batch/v1, kind: Job, spec: {template: {spec: {containers: []}}}}", 1, "spec.template.spec", NULL},
        {"{apiVersion: batch/v1, kind: CronJob, spec: {jobTemplate: {spec: {template: {spec: {containers: []}}}}}}", 1,
         "spec.jobTemplate.spec.template.spec", NULL},
        {"{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, spec: {tasks: [{template: {spec: {containers: []}}}, {template: "
         "{spec: {containers: []}}}]}}",
         2, "spec.tasks[0].template.spec", "spec.tasks[1].template.spec"},
        {"{apiVersion: ray.io/v1, kind: RayCluster, spec: {headGroupSpec: {template: {spec: {containers: []}}}, workerGroupSpecs: "
         "[{template: {spec: {containers: []}}}]}}",
         2, "spec.headGroupSpec.template.spec", "spec.workerGroupSpecs[0].template.spec"},
        {"{apiVersion: ray.io/v1, kind: RayJob, spec: {rayClusterSpec: {headGroupSpec: {template: {spec: {containers: []}}}, "
         "workerGroupSpecs: [{template: {spec: {containers: []}}}, {template: {spec: {containers: []}}}]}}}",
         3, "spec.rayClusterSpec.headGroupSpec.template.spec", "spec.rayClusterSpec.workerGroupSpecs[1].template.spec"},
        {"{apiVersion: v1, kind: ConfigMap, data: {a: b}}", 0, NULL, NULL},
        {"{apiVersion: example.com/v1, kind: RayCluster, spec: {headGroupSpec: {template: {spec: {containers: []}}}}}", 0, NULL,
         NULL},
        {"{apiVersion: apps/v1, kind: Deployment, spec: {replicas: 1}}", 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpa_object_t *o = decode_one(cases[i].doc);
        ck_assert_msg(o->npods == cases[i].npods, "case %zu: %zu pods", i, o->npods);
        if (cases[i].first != NULL)
            ck_assert_str_eq(o->pods[0].path, cases[i].first);
        if (cases[i].last != NULL)
            ck_assert_str_eq(o->pods[o->npods - 1].path, cases[i].last);
    }
    gpa_object_t *v = decode_one("{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, spec: {tasks: [{}, {template: "
                                 "{metadata: {annotations: {k: v}}, spec: {containers: [{name: x}]}}}]}}");
    ck_assert_uint_eq(v->npods, 1);
    ck_assert_str_eq(v->pods[0].pointer, "/spec/tasks/1/template/spec");
    ck_assert_str_eq(v->pods[0].containers[0].pointer, "/spec/tasks/1/template/spec/containers/0");
    ck_assert_str_eq(v->pods[0].annotations_path, "spec.tasks[1].template.metadata.annotations");
    ck_assert_str_eq(gpa_pairs_get(v->pods[0].annotations, v->pods[0].nannotations, "k"), "v");
}
END_TEST

START_TEST(lists_are_flattened)
{
    gpa_objects_t objs = decode(
        "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"containers\":[]}},"
        "{\"kind\":\"PodList\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"generateName\":\"b-\"},\"spec\":{\"containers\":[]}}]},"
        "{\"kind\":\"Service\"}]}");
    ck_assert_uint_eq(objs.len, 3);
    ck_assert_str_eq(objs.items[0]->name, "a");
    ck_assert_str_eq(objs.items[1]->name, "b-*"); /* generateName's pattern, not a name */
    ck_assert(objs.items[1]->generated_name && !objs.items[0]->generated_name);
    ck_assert_str_eq(objs.items[2]->kind, "Service");
    gpa_objects_t multi = decode("kind: Pod\nspec: {containers: []}\n---\nkind: Deployment\n---\n");
    ck_assert_uint_eq(multi.len, 2);
}
END_TEST

START_TEST(node_selection)
{
    gpa_object_t *o = decode_one("kind: Pod\nspec:\n  containers: []\n  nodeName: n1\n  nodeSelector: {gpu: a100}\n  affinity:\n"
                                 "    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                                 "        nodeSelectorTerms:\n        - matchExpressions:\n"
                                 "          - {key: zone, operator: In, values: [a, b]}\n"
                                 "          - {key: mem, operator: Gt, values: ['40000']}\n"
                                 "        - matchExpressions:\n          - {key: spot, operator: DoesNotExist}\n");
    gpa_podspec_t *p = &o->pods[0];
    ck_assert_str_eq(p->node_name, "n1");
    ck_assert_str_eq(gpa_pairs_get(p->node_selector, p->nnode_selector, "gpu"), "a100");
    ck_assert_uint_eq(p->nnode_terms, 2);
    ck_assert_uint_eq(p->node_terms[0].len, 2);
    ck_assert_int_eq(p->node_terms[0].requirements[0].op, GPA_MATCH_IN);
    ck_assert_uint_eq(p->node_terms[0].requirements[0].nvalues, 2);
    ck_assert_str_eq(p->node_terms[0].requirements[0].values[1], "b");
    ck_assert_int_eq(p->node_terms[0].requirements[1].op, GPA_MATCH_GT);
    ck_assert_int_eq(p->node_terms[1].requirements[0].op, GPA_MATCH_DOES_NOT_EXIST);
}
END_TEST

START_TEST(wrong_shapes_are_errors_with_location)
{
    gpa_error_t e = decode_error("kind: Pod\nspec:\n  containers: {name: a}\n");
    ck_assert_str_eq(e.path, "spec.containers");
    ck_assert_uint_eq(e.line, 3);
    ck_assert(strstr(e.message, "must be a list, not a mapping") != NULL);

    e = decode_error("kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: [1]}\n");
    ck_assert_str_eq(e.path, "spec.containers[0].resources.limits");

    e = decode_error("{\"kind\":\"List\",\"items\":[{\"kind\":\"Service\"},{\"kind\":\"Pod\",\"spec\":{\"containers\":[7]}}]}");
    ck_assert_str_eq(e.path, "items[1].spec.containers[0]");

    e = decode_error(
        "kind: Pod\nmetadata: {annotations: {vke.volcengine.com/container-multiple-gpu: 1}}\nspec: {containers: []}\n");
    ck_assert_str_eq(e.path, "metadata.annotations[\"vke.volcengine.com/container-multiple-gpu\"]");

    e = decode_error(
        "kind: Pod\nspec:\n  containers: []\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Near}]}]}}}\n");
    ck_assert(strstr(e.message, "Near") != NULL);

    e = decode_error("[1, 2]");
    ck_assert(strstr(e.message, "must be a mapping") != NULL);

    e = decode_error("kind: Pod\nmetadata: {namespace: [a]}\nspec: {containers: []}\n");
    ck_assert_str_eq(e.path, "metadata.namespace");
}
END_TEST

/* ---- the workloads table and its path walker ---- */

/* JSON for the members that put `leaf` at `path` (steps consumed from *path): {"a":{"b":[LEAF]}} for a.b[*]. */
static const char *nest(const char *path, const char *leaf)
{
    if (*path == '\0')
        return leaf;
    size_t n = strcspn(path, ".");
    const char *rest = path[n] == '.' ? path + n + 1 : path + n;
    const char *inner = nest(rest, leaf);
    if (n == 1 && path[0] == '*')
        return gpa_arena_printf(&arena, "{\"Worker\":%s}", inner);
    if (n > 3 && strncmp(path + n - 3, "[*]", 3) == 0)
        return gpa_arena_printf(&arena, "{\"%.*s\":[%s]}", (int)(n - 3), path, inner);
    return gpa_arena_printf(&arena, "{\"%.*s\":%s}", (int)n, path, inner);
}

/* The path the walker reports for one item of each step: [*] is [0], * the key Worker. */
static const char *concrete(const char *path)
{
    const char *out = "";
    while (*path != '\0') {
        size_t n = strcspn(path, ".");
        if (n == 1 && path[0] == '*')
            out = gpa_arena_printf(&arena, "%s.Worker", out);
        else if (n > 3 && strncmp(path + n - 3, "[*]", 3) == 0)
            out = gpa_arena_printf(&arena, "%s%s%.*s[0]", out, out[0] != '\0' ? "." : "", (int)(n - 3), path);
        else
            out = gpa_arena_printf(&arena, "%s%s%.*s", out, out[0] != '\0' ? "." : "", (int)n, path);
        path += path[n] == '.' ? n + 1 : n;
    }
    return out;
}

/* One object of `w`'s kind holding a GPU request at `path` only (a template, a PodSpec or a ResourceRequirements). */
static gpa_object_t *object_at(const gpa_workloads_t *extra, const gpa_workload_t *w, const char *path, const char *leaf)
{
    const char *api = w->group[0] != '\0' ? gpa_arena_printf(&arena, "%s/v9", w->group) : "v1";
    const char *body = nest(path, leaf);
    /* The object itself as the template (Pod): its members beside apiVersion and kind. */
    const char *text = gpa_arena_printf(&arena, "{\"apiVersion\":\"%s\",\"kind\":\"%s\",%s", api, w->kind, body + 1);
    gpa_value_t *doc;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_json_parse(&arena, text, strlen(text), &doc, &err) == 0, "%s: %s", text, err.message);
    ck_assert_msg(
        gpa_decode_object_with(&arena, &(gpa_decode_opts_t){.workloads = extra, .dialects = GPA_DIALECT_ALL}, doc, &obj, &err) == 0,
        "%s: %s: %s", text, err.path, err.message);
    return obj;
}

#define CONTAINER "{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}"

/* Every path of every kind of the table: an object holding a GPU request there alone yields that one Pod spec,
 * at the path the table names, with the amount found (kind and group matched, any version). */
static void check_table(const gpa_workloads_t *extra, const gpa_workloads_t *t)
{
    for (size_t i = 0; i < t->len; i++) {
        const gpa_workload_t *w = &t->items[i];
        for (size_t k = 0; w->pod_templates != NULL && w->pod_templates[k] != NULL; k++) {
            const char *p = w->pod_templates[k];
            gpa_object_t *o = object_at(extra, w, p, "{\"spec\":{\"containers\":[" CONTAINER "]}}");
            ck_assert_msg(o->npods == 1, "%s %s: %zu pods", w->kind, p, o->npods);
            ck_assert_str_eq(o->pods[0].path, gpa_schema_path(&arena, concrete(p), "spec"));
            ck_assert_str_eq(gpa_container_resources_path(&arena, &o->pods[0].containers[0]),
                             gpa_schema_path(&arena, concrete(p), "spec.containers[0].resources"));
            ck_assert(gpa_container_limit(&o->pods[0].containers[0], GPA_R_NVIDIA_GPU)->present);
        }
        for (size_t k = 0; w->pod_specs != NULL && w->pod_specs[k] != NULL; k++) {
            gpa_object_t *o = object_at(extra, w, w->pod_specs[k], "{\"containers\":[" CONTAINER "]}");
            ck_assert_uint_eq(o->npods, 1);
            ck_assert_str_eq(o->pods[0].path, concrete(w->pod_specs[k]));
        }
        for (size_t k = 0; w->resources != NULL && w->resources[k] != NULL; k++) {
            gpa_object_t *o = object_at(extra, w, w->resources[k], "{\"limits\":{\"nvidia.com/gpu\":\"1\"}}");
            ck_assert_uint_eq(o->npods, 1);
            const gpa_container_t *c = &o->pods[0].containers[0];
            ck_assert_str_eq(gpa_container_resources_path(&arena, c), concrete(w->resources[k]));
            ck_assert(gpa_container_limit(c, GPA_R_NVIDIA_GPU)->present);
        }
    }
}

START_TEST(every_kind_of_the_table_is_read_at_its_paths)
{
    ck_assert_uint_ge(gpa_workloads_builtin.len, 23);
    check_table(NULL, &gpa_workloads_builtin);
    const gpa_workload_t extra_items[] = {
        {"example.com", "Trainer", (const char *const[]){"spec.workers[*].template", NULL},
         (const char *const[]){"spec.launcher", NULL}, (const char *const[]){"spec.roles.*.resources", NULL}},
    };
    const gpa_workloads_t extra = {extra_items, 1};
    check_table(&extra, &extra);
}
END_TEST

START_TEST(kinds_are_matched_by_group_and_kind)
{
    ck_assert_ptr_nonnull(gpa_workload_find(NULL, "apps/v1", "Deployment"));
    ck_assert_ptr_nonnull(gpa_workload_find(NULL, "apps/v1beta2", "Deployment"));
    ck_assert_ptr_null(gpa_workload_find(NULL, "example.com/v1", "Deployment"));
    ck_assert_ptr_null(gpa_workload_find(NULL, "v1", "Deployment"));
    ck_assert_ptr_nonnull(gpa_workload_find(NULL, "v1", "Pod"));
    ck_assert_ptr_null(gpa_workload_find(NULL, "example.com/v1", "Pod"));
    ck_assert_ptr_nonnull(gpa_workload_find(NULL, "batch.volcano.sh/v1alpha1", "CronJob"));
    ck_assert_ptr_null(gpa_workload_find(NULL, "batch.volcano.sh/v1alpha1", "Deployment"));
    ck_assert_str_eq(gpa_workload_find(NULL, "batch/v1", "Job")->group, "batch");
    ck_assert_str_eq(gpa_workload_find(NULL, "batch.volcano.sh/v1alpha1", "Job")->group, "batch.volcano.sh");
    /* A configuration's entry replaces the built-in one of the same group and kind. */
    const gpa_workload_t mine[] = {{"apps", "Deployment", (const char *const[]){"spec.other", NULL}, NULL, NULL}};
    const gpa_workloads_t extra = {mine, 1};
    ck_assert_ptr_eq(gpa_workload_find(&extra, "apps/v1", "Deployment"), &mine[0]);
    ck_assert_ptr_nonnull(gpa_workload_find(&extra, "apps/v1", "StatefulSet"));
}
END_TEST

START_TEST(path_syntax)
{
    static const char *const good[] = {
        "", "spec", "spec.template", "spec.tasks[*].template", "spec.replicaSpecs.*.template", "a.*.*.b[*]", "spec.x-y_z"};
    static const char *const bad[] = {".spec",   "spec.",     "spec..template", "[*]",     "spec.[*]",
                                      "spec.a*", "spec.a[0]", "spec.a[*]b",     "spec.**", "spec.a]"};
    const char *why;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(gpa_workload_path_check(good[i], &why) == 0, "%s", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(gpa_workload_path_check(bad[i], &why) == -1, "%s passed", bad[i]);
}
END_TEST

typedef struct st_seen_t {
    const char *items[8];
    size_t len;
} seen_t;

static int remember(void *ctx, const gpa_workload_node_t *node)
{
    seen_t *s = ctx;
    s->items[s->len++] = gpa_arena_printf(&arena, "%s|%s|%s", node->path, node->pointer, node->owner);
    return 0;
}

static gpa_value_t *parse_json(const char *text)
{
    gpa_value_t *doc;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_json_parse(&arena, text, strlen(text), &doc, &err) == 0, "%s", err.message);
    return doc;
}

START_TEST(walker_visits_every_match_in_order)
{
    gpa_value_t *doc = parse_json("{\"spec\":{\"tasks\":[{\"t\":{\"a\":1}},{},null,{\"t\":{\"b\":2}}],"
                                  "\"roles\":{\"head\":{\"r\":{}},\"a/b~c\":{\"r\":{}},\"none\":null,\"empty\":{}}}}");
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    seen_t s = {0};
    ck_assert_int_eq(gpa_workload_walk(&arena, doc, "spec.tasks[*].t", remember, &s, &err), 0);
    ck_assert_uint_eq(s.len, 2);
    ck_assert_str_eq(s.items[0], "spec.tasks[0].t|/spec/tasks/0/t|tasks[0]");
    ck_assert_str_eq(s.items[1], "spec.tasks[3].t|/spec/tasks/3/t|tasks[3]");
    s.len = 0;
    ck_assert_int_eq(gpa_workload_walk(&arena, doc, "spec.roles.*.r", remember, &s, &err), 0);
    ck_assert_uint_eq(s.len, 2);
    ck_assert_str_eq(s.items[0], "spec.roles.head.r|/spec/roles/head/r|head");
    ck_assert_str_eq(s.items[1], "spec.roles[\"a/b~c\"].r|/spec/roles/a~1b~0c/r|a/b~c");
    s.len = 0;
    ck_assert_int_eq(gpa_workload_walk(&arena, doc, "", remember, &s, &err), 0);
    ck_assert_str_eq(s.items[0], "||");
}
END_TEST

START_TEST(walker_reports_a_bad_shape_on_its_path)
{
    static const struct {
        const char *doc, *path, *at, *message;
    } cases[] = {
        {"{\"spec\":7}", "spec.template", "spec", "must be a mapping, not a number"},
        {"{\"spec\":{\"tasks\":{}}}", "spec.tasks[*].template", "spec.tasks", "must be a list, not a mapping"},
        {"{\"spec\":{\"tasks\":[true]}}", "spec.tasks[*].template", "spec.tasks[0]", "must be a mapping, not a boolean"},
        {"{\"spec\":{\"m\":[1]}}", "spec.m.*.template", "spec.m", "must be a mapping, not a list"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpa_error_t err = {0};
        gpa_error_init(&err, "test");
        seen_t s = {0};
        ck_assert_int_eq(gpa_workload_walk(&arena, parse_json(cases[i].doc), cases[i].path, remember, &s, &err), -1);
        ck_assert_str_eq(err.path, cases[i].at);
        ck_assert_msg(strstr(err.message, cases[i].message) != NULL, "%s", err.message);
    }
    /* Missing or null steps name nothing: not an error. */
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    seen_t s = {0};
    ck_assert_int_eq(gpa_workload_walk(&arena, parse_json("{\"spec\":{\"tasks\":null}}"), "spec.tasks[*].t", remember, &s, &err),
                     0);
    ck_assert_int_eq(gpa_workload_walk(&arena, parse_json("{\"other\":1}"), "spec.a.*.b", remember, &s, &err), 0);
    ck_assert_uint_eq(s.len, 0);
}
END_TEST

/* Read only what is needed: shapes the API server would refuse, where no decision looks, are not errors. */
START_TEST(irrelevant_shapes_are_not_errors)
{
    gpa_object_t *o = decode_one("apiVersion: quota.koordinator.sh/v1alpha1\nkind: ElasticQuota\n"
                                 "metadata: {name: q, namespace: 7, labels: {a: true}, annotations: [1]}\nspec: [x]\n");
    ck_assert_uint_eq(o->npods, 0);
    ck_assert_uint_eq(o->nlabels, 0);
    o = decode_one("apiVersion: v1\nkind: Pod\nmetadata: {name: 2024, namespace: t, labels: {a: 1, b: c}, "
                   "annotations: {list: [1], s: x}}\nstatus: 7\n"
                   "spec:\n  nodeSelector: {gpu: 1, ok: 'yes', m: {a: b}}\n  containers: [{name: c}]\n");
    ck_assert_str_eq(o->name, "2024");
    ck_assert_uint_eq(o->nlabels, 1);
    ck_assert_str_eq(gpa_pairs_get(o->pods[0].annotations, o->pods[0].nannotations, "s"), "x");
    ck_assert_ptr_null(gpa_pairs_get(o->pods[0].annotations, o->pods[0].nannotations, "list"));
    /* A nodeSelector value that is not a string matches no node label. */
    ck_assert_str_eq(gpa_pairs_get(o->pods[0].node_selector, o->pods[0].nnode_selector, "gpu"), "1 (not a string)");
    ck_assert_str_eq(gpa_pairs_get(o->pods[0].node_selector, o->pods[0].nnode_selector, "ok"), "yes");
    ck_assert_str_eq(gpa_pairs_get(o->pods[0].node_selector, o->pods[0].nnode_selector, "m"), "(a mapping, not a string)");
    o = decode_one("{apiVersion: 7, kind: [Pod], spec: 1}");
    ck_assert_str_eq(o->kind, "");
    ck_assert_uint_eq(o->npods, 0);
}
END_TEST

START_TEST(a_pod_needs_its_containers)
{
    gpa_error_t e = decode_error("apiVersion: v1\nkind: Pod\nmetadata:\nspec:\ncontainers:\n- name: main\n");
    ck_assert_str_eq(e.path, "spec.containers");
    ck_assert_uint_eq(e.line, 6); /* the stray list itself */
    ck_assert(strstr(e.message, "indent it under spec") != NULL);
    e = decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    ck_assert_str_eq(e.path, "spec.containers");
    e = decode_error("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec: {initContainers: []}\n");
    ck_assert_str_eq(e.path, "spec.template.spec.containers");
    ck_assert(strstr(e.message, "missing") != NULL);
    /* A template that is absent is no template: a Deployment patch without one decodes with no Pod spec. */
    ck_assert_uint_eq(decode_one("apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: 2}\n")->npods, 0);
}
END_TEST

START_TEST(generate_name_is_a_pattern_until_the_request_names_it)
{
    gpa_object_t *o = decode_one("apiVersion: v1\nkind: Pod\nmetadata: {generateName: job-}\nspec: {containers: []}\n");
    ck_assert_str_eq(o->name, "job-*");
    gpa_object_set_request(o, "ns", "");
    ck_assert_str_eq(o->name, "job-*");
    gpa_object_set_request(o, "ns", "job-x7k2p");
    ck_assert_str_eq(o->name, "job-x7k2p");
}
END_TEST

static Suite *decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("decode");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pod_containers_and_amounts);
    tcase_add_test(tc, escaped_keys_are_decoded_before_comparison);
    tcase_add_test(tc, bad_amounts_decode_with_a_status);
    tcase_add_test(tc, amounts_are_trimmed_as_kubernetes_does);
    tcase_add_test(tc, workload_templates);
    tcase_add_test(tc, lists_are_flattened);
    tcase_add_test(tc, node_selection);
    tcase_add_test(tc, wrong_shapes_are_errors_with_location);
    tcase_add_test(tc, every_kind_of_the_table_is_read_at_its_paths);
    tcase_add_test(tc, kinds_are_matched_by_group_and_kind);
    tcase_add_test(tc, path_syntax);
    tcase_add_test(tc, walker_visits_every_match_in_order);
    tcase_add_test(tc, walker_reports_a_bad_shape_on_its_path);
    tcase_add_test(tc, irrelevant_shapes_are_not_errors);
    tcase_add_test(tc, a_pod_needs_its_containers);
    tcase_add_test(tc, generate_name_is_a_pattern_until_the_request_names_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(decode_suite());
}
