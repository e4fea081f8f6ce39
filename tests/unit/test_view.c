/*
 * The live view (cluster/view.h): objects applied one at a time resolve to the inventory the same objects make as
 * a file; relists replace; modifications and deletions undo what an object held; audit counts follow.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/inventory.h"
#include "base/buf.h"
#include "document/docs.h"
#include "document/json.h"
#include "input/load.h"
#include "run.h"
#include "kinds.h"
#include "view.h"

/* A file of the source tree (the one file reader, cli/input/load.h). */
static char *slurp(const char *rel, size_t *len)
{
    char path[1024];
    const char *dir = getenv("GPA_SOURCE_DIR");
    gpa_error_t err = {0};
    snprintf(path, sizeof(path), "%s/%s", dir != NULL ? dir : ".", rel);
    char *text = gpa_read_file(path, len, &err);
    ck_assert_msg(text != NULL, "%s: %s", path, err.message);
    return text;
}

static gpa_value_t *json_of(gpa_arena_t *a, const char *text)
{
    gpa_value_t *v;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_json_parse(a, text, strlen(text), &v, &err) == 0, "%s", err.message);
    return v;
}

static int kind_of(const gpa_value_t *doc, gpa_view_kind_t *out)
{
    const char *kind = gpa_value_string(gpa_value_get(doc, "kind"));
    if (kind == NULL)
        return 0;
    *out = strcmp(kind, "Node") == 0 ? GPA_VIEW_NODES : strcmp(kind, "Device") == 0 ? GPA_VIEW_DEVICES : GPA_VIEW_PODS;
    return strcmp(kind, "Node") == 0 || strcmp(kind, "Device") == 0 || strcmp(kind, "Pod") == 0;
}

/* Applies every object of doc; *warned counts those read in part (named in a warning, as a file names them). */
static void apply_doc(gpa_view_t *v, const gpa_value_t *doc, size_t *warned)
{
    const gpa_value_t *items = gpa_value_get(doc, "items");
    for (size_t i = 0; items != NULL && i < items->u.array.len; i++)
        apply_doc(v, items->u.array.items[i], warned);
    gpa_view_kind_t k;
    if (items != NULL || !kind_of(doc, &k))
        return;
    gpa_error_t err = {0};
    int rc = gpa_view_apply(v, k, GPA_WATCH_ADDED, doc, NULL, 0, &err);
    ck_assert_msg(rc >= 0, "%s", err.message);
    *warned += rc == 1;
}

static gpa_inventory_t *snapshot(gpa_view_t *v)
{
    gpa_error_t err = {0};
    gpa_inventory_t *inv = gpa_view_snapshot(v, &err);
    ck_assert_msg(inv != NULL, "%s", err.message);
    return inv;
}

static void assert_same_gpu(const char *node, const gpa_gpu_t *x, const gpa_gpu_t *y)
{
    ck_assert_msg(x->minor == y->minor && x->healthy == y->healthy && x->core == y->core && x->memory == y->memory &&
                      x->core_used == y->core_used && x->memory_used == y->memory_used && x->pods == y->pods &&
                      x->whole_used == y->whole_used,
                  "%s gpu %d differs", node, (int)x->minor);
    ck_assert_msg(strcmp(x->uuid, y->uuid) == 0 && strcmp(x->type, y->type) == 0 && strcmp(x->mode, y->mode) == 0 &&
                      x->numa == y->numa && x->slots == y->slots && x->slots_used == y->slots_used,
                  "%s gpu %d: HAMi fields differ", node, (int)x->minor);
}

static void assert_same(const gpa_inventory_t *x, const gpa_inventory_t *y)
{
    size_t nx, ny;
    const gpa_node_t *a = gpa_inventory_nodes(x, &nx), *b = gpa_inventory_nodes(y, &ny);
    ck_assert_uint_eq(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        ck_assert_str_eq(a[i].name, b[i].name);
        ck_assert_str_eq(a[i].model, b[i].model);
        ck_assert_uint_eq(a[i].dialects, b[i].dialects);
        ck_assert_int_eq(a[i].koordinator, b[i].koordinator);
        ck_assert_uint_eq(a[i].nlabels, b[i].nlabels);
        for (size_t l = 0; l < a[i].nlabels; l++) {
            ck_assert_str_eq(a[i].labels[l].key, b[i].labels[l].key);
            ck_assert_str_eq(a[i].labels[l].value, b[i].labels[l].value);
        }
        ck_assert_uint_eq(a[i].ngpus, b[i].ngpus);
        for (size_t g = 0; g < a[i].ngpus; g++)
            assert_same_gpu(a[i].name, &a[i].gpus[g], &b[i].gpus[g]);
    }
}

/* Every example inventory, object by object, resolves as the file does. */
START_TEST(same_as_the_file)
{
    static const char *const files[] = {"examples/inventory/kubectl-koordinator.json", "examples/inventory/gfd-nodes.yaml",
                                        "examples/inventory/mgpu-nodes.yaml", "examples/inventory/kubectl-hami.json",
                                        "tests/cli/data/hami-poisoned.json"};
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        size_t len;
        char *text = slurp(files[f], &len);
        gpa_inventory_t *file = gpa_inventory_new();
        gpa_error_t err = {0};
        ck_assert_msg(gpa_inventory_parse(file, text, len, files[f], &err) == 0, "%s", err.message);
        gpa_arena_t a = {0};
        gpa_docs_t docs;
        ck_assert(gpa_docs_parse(&a, text, len, &docs, &err) == 0);
        gpa_view_t *v = gpa_view_new();
        size_t warned = 0, nfile, total;
        for (size_t d = 0; d < docs.len; d++)
            apply_doc(v, docs.docs[d], &warned);
        gpa_inventory_warnings(file, &nfile, &total);
        ck_assert_uint_eq(warned, total); /* hami-poisoned.json: a Node and a Pod */
        gpa_inventory_t *live = snapshot(v);
        size_t n;
        gpa_inventory_nodes(file, &n);
        ck_assert_uint_gt(n, 0);
        assert_same(file, live);
        gpa_inventory_release(live);
        gpa_inventory_release(file);
        gpa_view_free(v);
        gpa_arena_dispose(&a);
        free(text);
    }
}
END_TEST

static const char node_a[] = "{\"metadata\":{\"name\":\"a\",\"labels\":{\"nvidia.com/gpu.memory\":\"16384\"}},"
                             "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"2\"}}}";
static const char node_b[] = "{\"metadata\":{\"name\":\"b\"},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"4\"}}}";
static const char pod_on_a[] =
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\","
    "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}";
static const char pod_done[] =
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\","
    "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]},\"status\":{\"phase\":\"Succeeded\"}}";
static const char pod_cpu[] = "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ml\"},\"spec\":{\"nodeName\":\"a\","
                              "\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}";

static void apply(gpa_view_t *v, gpa_arena_t *a, gpa_view_kind_t k, gpa_watch_event_t ev, const char *json)
{
    gpa_error_t err = {0};
    ck_assert_msg(gpa_view_apply(v, k, ev, json_of(a, json), NULL, 0, &err) == 0, "%s", err.message);
}

static int whole_used(gpa_view_t *v, const char *node)
{
    gpa_inventory_t *inv = snapshot(v);
    const gpa_node_t *n = gpa_inventory_find(inv, node);
    int used = 0;
    for (size_t i = 0; n != NULL && i < n->ngpus; i++)
        used += n->gpus[i].whole_used;
    gpa_inventory_release(inv);
    return used;
}

/* List items come without kind; a Pod's usage comes and goes with its phase and its deletion; CPU Pods cost nothing. */
START_TEST(pods_come_and_go)
{
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_ADDED, node_a);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_ADDED, pod_cpu);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 0);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_ADDED, pod_on_a);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 1);
    ck_assert_int_eq(whole_used(v, "a"), 1);
    uint64_t gen = gpa_view_generation(v);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, pod_done);
    ck_assert_uint_gt(gpa_view_generation(v), gen);
    ck_assert_int_eq(whole_used(v, "a"), 0);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 0);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, pod_on_a);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_DELETED, pod_on_a);
    ck_assert_int_eq(whole_used(v, "a"), 0);
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_DELETED, node_a);
    gpa_inventory_t *inv = snapshot(v);
    ck_assert_ptr_null(gpa_inventory_find(inv, "a"));
    gpa_inventory_release(inv);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

static const char dra_class[] = "{\"metadata\":{\"name\":\"gpu.nvidia.com\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":"
                                "\"device.driver == 'gpu.nvidia.com'\"}}]}}";
static const char dra_template[] = "{\"metadata\":{\"name\":\"one-gpu\",\"namespace\":\"ml\"},\"spec\":{\"spec\":{\"devices\":"
                                   "{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"gpu.nvidia.com\"}}]}}}}";
static const char dra_claim[] = "{\"metadata\":{\"name\":\"shared\",\"namespace\":\"ml\"},\"spec\":{\"devices\":"
                                "{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"gpu.nvidia.com\"}}]}}}";
/* A request's name must be a string: unreadable, as a file would be. */
static const char dra_claim_bad[] =
    "{\"metadata\":{\"name\":\"bad\",\"namespace\":\"ml\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":5}]}}}";

static int dra_known(gpa_view_t *v, gpa_dra_kind_t kind, const char *ns, const char *name, int *complete)
{
    gpa_inventory_t *inv = snapshot(v);
    const gpa_dra_known_t *k = gpa_inventory_dra(inv);
    int found = gpa_dra_known_find(k, kind, ns, name) != NULL;
    *complete = gpa_dra_known_complete(k, kind);
    gpa_inventory_release(inv);
    return found;
}

/* DRA objects: known by kind, namespace and name once listed (complete then, even empty); a deletion forgets one; a
 * kind the cluster does not serve (404) is empty and never complete; an unreadable object is refused, not kept. */
START_TEST(dra_objects_known)
{
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    int complete;
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLASS, NULL, "gpu.nvidia.com", &complete), 0);
    ck_assert_int_eq(complete, 0);
    gpa_view_begin_list(v, GPA_VIEW_DEVICE_CLASSES);
    apply(v, &a, GPA_VIEW_DEVICE_CLASSES, GPA_WATCH_ADDED, dra_class);
    gpa_view_end_list(v, GPA_VIEW_DEVICE_CLASSES);
    gpa_view_begin_list(v, GPA_VIEW_CLAIM_TEMPLATES);
    apply(v, &a, GPA_VIEW_CLAIM_TEMPLATES, GPA_WATCH_ADDED, dra_template);
    gpa_view_end_list(v, GPA_VIEW_CLAIM_TEMPLATES);
    gpa_view_begin_list(v, GPA_VIEW_CLAIMS);
    gpa_view_end_list(v, GPA_VIEW_CLAIMS);
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLASS, NULL, "gpu.nvidia.com", &complete), 1);
    ck_assert_int_eq(complete, 1);
    ck_assert_int_eq(dra_known(v, GPA_DRA_TEMPLATE, "ml", "one-gpu", &complete), 1);
    ck_assert_int_eq(dra_known(v, GPA_DRA_TEMPLATE, "other", "one-gpu", &complete), 0);
    ck_assert_int_eq(complete, 1);
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLAIM, "ml", "shared", &complete), 0);
    ck_assert_int_eq(complete, 1); /* listed, none: a claim named is known absent */
    apply(v, &a, GPA_VIEW_CLAIMS, GPA_WATCH_ADDED, dra_claim);
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLAIM, "ml", "shared", &complete), 1);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_CLAIMS), 1);
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_view_apply(v, GPA_VIEW_CLAIMS, GPA_WATCH_ADDED, json_of(&a, dra_claim_bad), NULL, 0, &err), -1);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_CLAIMS), 1);
    apply(v, &a, GPA_VIEW_CLAIMS, GPA_WATCH_DELETED, dra_claim);
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLAIM, "ml", "shared", &complete), 0);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_CLAIMS), 0);
    /* Not served: the relist empties the kind and leaves it incomplete (silence, never "unknown class"). */
    gpa_view_begin_list(v, GPA_VIEW_DEVICE_CLASSES);
    gpa_view_not_served(v, GPA_VIEW_DEVICE_CLASSES);
    gpa_view_end_list(v, GPA_VIEW_DEVICE_CLASSES);
    ck_assert_int_eq(dra_known(v, GPA_DRA_CLASS, NULL, "gpu.nvidia.com", &complete), 0);
    ck_assert_int_eq(complete, 0);
    ck_assert_str_eq(gpa_view_kind_name(GPA_VIEW_CLAIMS), "resourceclaims");
    ck_assert_str_eq(gpa_view_kind_path(GPA_VIEW_DEVICE_CLASSES), "/apis/resource.k8s.io/v1/deviceclasses");
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/* DRA's kinds are read at the version set (discovery's), one of those kube/dra.h decodes; the others stay. */
START_TEST(dra_version)
{
    gpa_view_t *v = gpa_view_new();
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_CLAIMS), "/apis/resource.k8s.io/v1/resourceclaims");
    ck_assert_int_eq(gpa_view_dra_version(v, "resource.k8s.io/v1alpha3"), -1);
    ck_assert_int_eq(gpa_view_dra_version(v, "resource.k8s.io/v1beta"), -1);
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_CLAIMS), "/apis/resource.k8s.io/v1/resourceclaims");
    ck_assert_int_eq(gpa_view_dra_version(v, "resource.k8s.io/v1beta1"), 0);
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_CLAIM_TEMPLATES), "/apis/resource.k8s.io/v1beta1/resourceclaimtemplates");
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_DEVICE_CLASSES), "/apis/resource.k8s.io/v1beta1/deviceclasses");
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_PODS), "/api/v1/pods");
    ck_assert_str_eq(gpa_view_path(v, GPA_VIEW_DEVICES), "/apis/scheduling.koordinator.sh/v1alpha1/devices");
    gpa_view_free(v);
}
END_TEST

/* A relist replaces the kind whole; until it ends, the old set stays in force. */
START_TEST(relist_replaces)
{
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    gpa_view_begin_list(v, GPA_VIEW_NODES);
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_ADDED, node_a);
    gpa_view_end_list(v, GPA_VIEW_NODES);
    gpa_view_begin_list(v, GPA_VIEW_NODES);
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_ADDED, node_b);
    gpa_inventory_t *inv = snapshot(v);
    ck_assert_ptr_nonnull(gpa_inventory_find(inv, "a"));
    ck_assert_ptr_null(gpa_inventory_find(inv, "b"));
    gpa_inventory_release(inv);
    gpa_view_end_list(v, GPA_VIEW_NODES);
    inv = snapshot(v);
    ck_assert_ptr_null(gpa_inventory_find(inv, "a"));
    ck_assert_ptr_nonnull(gpa_inventory_find(inv, "b"));
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_NODES), 1);
    gpa_inventory_release(inv);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

static void sum_counts(void *ctx, const char *rule, const char *ns, uint64_t pods)
{
    char *out = ctx;
    snprintf(out + strlen(out), 256 - strlen(out), "%s/%s=%llu;", rule, ns, (unsigned long long)pods);
}

static const char *counts(gpa_view_t *v, char *buf)
{
    buf[0] = '\0';
    gpa_view_audit_counts(v, sum_counts, buf);
    return buf;
}

/* Audit findings are counted per rule and namespace, and leave with the Pod or the finding. */
START_TEST(audit_counts_follow)
{
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    gpa_error_t err = {0};
    char buf[256];
    const char *r1[] = {"gpu-limit"}, *r2[] = {"gpu-limit", "mixed-share-apis"};
    ck_assert(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_ADDED, json_of(&a, pod_cpu), r1, 1, &err) == 0);
    ck_assert_str_eq(counts(v, buf), "gpu-limit/ml=1;");
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 1);
    ck_assert(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, json_of(&a, pod_cpu), r2, 2, &err) == 0);
    ck_assert_str_eq(counts(v, buf), "mixed-share-apis/ml=1;gpu-limit/ml=1;");
    ck_assert(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, json_of(&a, pod_cpu), NULL, 0, &err) == 0);
    ck_assert_str_eq(counts(v, buf), "");
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 0);
    /* A relist counts its Pods when it takes over, not before. */
    gpa_view_begin_list(v, GPA_VIEW_PODS);
    ck_assert(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_ADDED, json_of(&a, pod_on_a), r1, 1, &err) == 0);
    ck_assert_str_eq(counts(v, buf), "");
    gpa_view_end_list(v, GPA_VIEW_PODS);
    ck_assert_str_eq(counts(v, buf), "gpu-limit/ml=1;");
    ck_assert(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_DELETED, json_of(&a, pod_on_a), NULL, 0, &err) == 0);
    ck_assert_str_eq(counts(v, buf), "");
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/* An unreadable object is left out whole, and an earlier reading of it goes too. */
START_TEST(unreadable_objects_are_left_out)
{
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    gpa_error_t err = {0};
    const char *dup = "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"devices\":[{\"type\":\"gpu\",\"minor\":0,\"health\":true},"
                      "{\"type\":\"gpu\",\"minor\":0,\"health\":true}]}}";
    const char *good = "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"devices\":[{\"type\":\"gpu\",\"minor\":0,\"health\":true}]}}";
    ck_assert(gpa_view_apply(v, GPA_VIEW_DEVICES, GPA_WATCH_ADDED, json_of(&a, good), NULL, 0, &err) == 0);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_DEVICES), 1);
    ck_assert(gpa_view_apply(v, GPA_VIEW_DEVICES, GPA_WATCH_MODIFIED, json_of(&a, dup), NULL, 0, &err) == -1);
    ck_assert_msg(strstr(err.message, "minor 0 is listed twice") != NULL, "%s", err.message);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_DEVICES), 0);
    const char *bad_node = "{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"x\"}}}";
    ck_assert(gpa_view_apply(v, GPA_VIEW_NODES, GPA_WATCH_ADDED, json_of(&a, bad_node), NULL, 0, &err) == -1);
    ck_assert(gpa_view_apply(v, GPA_VIEW_NODES, GPA_WATCH_ADDED, json_of(&a, "{\"metadata\":{}}"), NULL, 0, &err) == -1);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_NODES), 0);
    gpa_inventory_release(snapshot(v));
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/*
 * Tenants' Pods, read the same way from a file and from the cluster (docs/allocator.md, "Usage"): a dump with Pods
 * that are unreadable, inflated, unscheduled, finished or on unknown devices resolves to the same inventory, names
 * the same Pods in warnings, and holds what their requests could hold.
 */
START_TEST(tenant_pods_same_as_the_file)
{
    static const char *const path = "tests/cli/data/poisoned-pods.json";
    size_t len;
    char *text = slurp(path, &len);
    gpa_inventory_t *file = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(file, text, len, path, &err) == 0, "%s", err.message);
    size_t nfile;
    const gpa_error_t *fw = gpa_inventory_warnings(file, &nfile, NULL);
    ck_assert_uint_eq(nfile, 3);
    gpa_arena_t a = {0};
    gpa_value_t *doc = json_of(&a, text);
    const gpa_value_t *items = gpa_value_get(doc, "items");
    gpa_view_t *v = gpa_view_new();
    size_t nview = 0;
    for (size_t i = 0; i < items->u.array.len; i++) {
        gpa_view_kind_t k;
        ck_assert(kind_of(items->u.array.items[i], &k));
        int rc = gpa_view_apply(v, k, GPA_WATCH_ADDED, items->u.array.items[i], NULL, 0, &err);
        ck_assert_msg(rc >= 0, "%s", err.message);
        if (rc == 1) { /* the same Pod, by namespace/name, as the file's warning */
            ck_assert_uint_lt(nview, nfile);
            const char *name = strstr(fw[nview].message, "Pod ");
            ck_assert_ptr_nonnull(name);
            ck_assert_msg(strncmp(strstr(err.message, "Pod "), name, strcspn(name, ":")) == 0, "%s vs %s", err.message, name);
            ck_assert_str_eq(err.path, strchr(fw[nview].path, '.') + 1); /* the file's says items[i]. first */
            nview++;
        }
    }
    ck_assert_uint_eq(nview, nfile);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 3); /* good, inflated, elsewhere */
    gpa_inventory_t *live = snapshot(v);
    assert_same(file, live);
    const gpa_node_t *k1 = gpa_inventory_find(live, "k1");
    ck_assert_uint_eq(k1->ngpus, 2);
    ck_assert_int_eq(k1->gpus[0].core_used, 60);                        /* good 50 + inflated 10 (its request), nothing else */
    ck_assert_int_eq(k1->gpus[0].memory_used, 8589934592 + 1717986919); /* 50% + 10% of 16Gi, each rounded up */
    ck_assert_int_eq(k1->gpus[0].pods, 2);
    ck_assert_int_eq(k1->gpus[1].core_used + k1->gpus[1].memory_used + k1->gpus[1].pods + k1->gpus[1].whole_used, 0);
    gpa_inventory_release(live);
    gpa_inventory_release(file);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
    free(text);
}
END_TEST

/* A Koordinator Pod of two containers of 50/50 (gpu.shared 1 each) holds at most 50/50 on each of two devices (one
 * Pod-level request, docs/allocator.md), read from a file and from the live view alike. */
START_TEST(koordinator_pod_level_same_as_the_file)
{
    static const char text[] =
        "{\"kind\":\"List\",\"items\":[" /* node a: 2 GPUs of 16Gi; the Pod claims 100/100 on device 0 */
        "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"labels\":{\"nvidia.com/gpu.memory\":\"16384\"}},"
        "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"2\"}}},"
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\",\"annotations\":{"
        "\"scheduling.koordinator.sh/device-allocated\":\"{\\\"gpu\\\":[{\\\"minor\\\":0,\\\"resources\\\":{"
        "\\\"koordinator.sh/gpu-core\\\":\\\"100\\\",\\\"koordinator.sh/gpu-memory-ratio\\\":\\\"100\\\"}}]}\"}},"
        "\"spec\":{\"nodeName\":\"a\",\"containers\":["
        "{\"name\":\"m\",\"resources\":{\"limits\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\","
        "\"koordinator.sh/gpu.shared\":\"1\"}}},"
        "{\"name\":\"s\",\"resources\":{\"limits\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory-ratio\":\"50\","
        "\"koordinator.sh/gpu.shared\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}]}";
    gpa_inventory_t *file = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(file, text, strlen(text), "test", &err) == 0, "%s", err.message);
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    size_t warned = 0;
    apply_doc(v, json_of(&a, text), &warned);
    ck_assert_int_eq(warned, 0);
    gpa_inventory_t *live = snapshot(v);
    assert_same(file, live);
    const gpa_node_t *n = gpa_inventory_find(live, "a");
    ck_assert_int_eq(n->gpus[0].core_used, 50);
    ck_assert_int_eq(n->gpus[0].memory_used, 8LL << 30);
    ck_assert_int_eq(n->gpus[1].core_used + n->gpus[1].memory_used + n->gpus[1].pods, 0);
    gpa_inventory_release(live);
    gpa_inventory_release(file);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/* A Pod that turns unreadable holds nothing from then on (no older reading lingers), and is named; it comes back. */
START_TEST(unreadable_pod_holds_nothing)
{
    static const char readable[] =
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"t\",\"annotations\":{\"scheduling.koordinator.sh/device-allocated\":"
        "\"{\\\"gpu\\\":[{\\\"minor\\\":0,\\\"resources\\\":{\\\"koordinator.sh/gpu-core\\\":\\\"100\\\"}}]}\"}},"
        "\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"koordinator.sh/gpu-core\":"
        "\"30\",\"koordinator.sh/gpu-memory-ratio\":\"30\"}}}]}}";
    static const char unreadable[] =
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"t\",\"annotations\":{\"scheduling.koordinator.sh/device-allocated\":"
        "\"[{\"}},\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{"
        "\"koordinator.sh/gpu-core\":\"30\",\"koordinator.sh/gpu-memory-ratio\":\"30\"}}}]}}";
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    gpa_error_t err = {0};
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_ADDED, node_a);
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_ADDED, readable);
    gpa_inventory_t *inv = snapshot(v);
    ck_assert_int_eq(gpa_inventory_find(inv, "a")->gpus[0].core_used, 30); /* its request, not the annotation's 100 */
    gpa_inventory_release(inv);
    const char *rules[] = {"min-memory"};
    ck_assert_int_eq(gpa_view_apply(v, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, json_of(&a, unreadable), rules, 1, &err), 1);
    ck_assert_msg(strstr(err.message, "Pod t/p holds no GPU: not JSON") != NULL, "%s", err.message);
    ck_assert_str_eq(err.source, "cluster Pod");
    inv = snapshot(v);
    ck_assert_int_eq(gpa_inventory_find(inv, "a")->gpus[0].core_used, 0);
    ck_assert_int_eq(gpa_inventory_find(inv, "a")->gpus[0].pods, 0);
    gpa_inventory_release(inv);
    ck_assert_uint_eq(gpa_view_held(v, GPA_VIEW_PODS), 1); /* kept for its audit finding, holding nothing */
    apply(v, &a, GPA_VIEW_PODS, GPA_WATCH_MODIFIED, readable);
    inv = snapshot(v);
    ck_assert_int_eq(gpa_inventory_find(inv, "a")->gpus[0].core_used, 30);
    gpa_inventory_release(inv);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/* A Node whose HAMi register annotation turns unreadable keeps no cards (no older reading lingers) and is named. */
START_TEST(hami_node_unreadable_has_no_cards)
{
    static const char good[] = "{\"metadata\":{\"name\":\"h\",\"annotations\":{\"hami.io/node-nvidia-register\":"
                               "\"GPU-a,10,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:\"}},"
                               "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"10\"}}}";
    static const char bad[] = "{\"metadata\":{\"name\":\"h\",\"annotations\":{\"hami.io/node-nvidia-register\":"
                              "\"[{\\\"id\\\":\\\"GPU-a\\\"\"}},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"10\"}}}";
    gpa_arena_t a = {0};
    gpa_view_t *v = gpa_view_new();
    gpa_error_t err = {0};
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_ADDED, good);
    gpa_inventory_t *inv = snapshot(v);
    ck_assert_uint_eq(gpa_inventory_find(inv, "h")->ngpus, 1); /* one card, not 10 slots */
    ck_assert_str_eq(gpa_inventory_find(inv, "h")->gpus[0].uuid, "GPU-a");
    gpa_inventory_release(inv);
    ck_assert_int_eq(gpa_view_apply(v, GPA_VIEW_NODES, GPA_WATCH_MODIFIED, json_of(&a, bad), NULL, 0, &err), 1);
    ck_assert_msg(strstr(err.message, "Node h has no HAMi cards: not JSON") != NULL, "%s", err.message);
    ck_assert_str_eq(err.source, "cluster Node");
    ck_assert_str_eq(err.path, "metadata.annotations[\"hami.io/node-nvidia-register\"]");
    inv = snapshot(v);
    ck_assert_ptr_null(gpa_inventory_find(inv, "h"));
    gpa_inventory_release(inv);
    apply(v, &a, GPA_VIEW_NODES, GPA_WATCH_MODIFIED, good);
    inv = snapshot(v);
    ck_assert_uint_eq(gpa_inventory_find(inv, "h")->ngpus, 1);
    gpa_inventory_release(inv);
    gpa_view_free(v);
    gpa_arena_dispose(&a);
}
END_TEST

/* ---- property: after any sequence of events and relists, the view resolves as the final objects do as a file ---- */

#define NNODES 6
#define NPODS 16
#define HISTORY_KINDS (GPA_VIEW_PODS + 1) /* the inventory's own kinds: Node, Device, Pod */

typedef struct st_truth_t {
    char *obj[HISTORY_KINDS][NPODS]; /* the object's JSON as the cluster now holds it, or NULL */
} truth_t;

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

static char *random_object(gpa_view_kind_t k, int i, unsigned *seed)
{
    char buf[1024];
    if (k == GPA_VIEW_NODES)
        snprintf(buf, sizeof(buf),
                 "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n%d\",\"labels\":{\"zone\":\"z%u\","
                 "\"nvidia.com/gpu.memory\":\"%u\"}},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"%u\"}}}",
                 i, rnd(seed) % 3, 1024 * (1 + rnd(seed) % 4), rnd(seed) % 5);
    else if (k == GPA_VIEW_DEVICES)
        snprintf(buf, sizeof(buf),
                 "{\"kind\":\"Device\",\"apiVersion\":\"scheduling.koordinator.sh/v1alpha1\",\"metadata\":{\"name\":"
                 "\"n%d\"},\"spec\":{\"devices\":[{\"type\":\"gpu\",\"minor\":0,\"health\":%s,\"resources\":{"
                 "\"koordinator.sh/gpu-core\":\"100\",\"koordinator.sh/gpu-memory\":\"%uGi\"}},{\"type\":\"gpu\",\"minor\":%u,"
                 "\"health\":true}]}}",
                 i, rnd(seed) % 2 ? "true" : "false", 8 + rnd(seed) % 16, 1 + rnd(seed) % 3);
    else
        snprintf(buf, sizeof(buf),
                 "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"ns\",\"annotations\":"
                 "{%s}},\"spec\":{\"nodeName\":\"n%u\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{%s}}}]},"
                 "\"status\":{\"phase\":\"%s\"}}",
                 i,
                 rnd(seed) % 2 ? "\"scheduling.koordinator.sh/device-allocated\":\"{\\\"gpu\\\":[{\\\"minor\\\":0,"
                                 "\\\"resources\\\":{\\\"koordinator.sh/gpu-core\\\":\\\"30\\\"}}]}\""
                               : "",
                 rnd(seed) % NNODES, rnd(seed) % 2 ? "\"nvidia.com/gpu\":\"1\"" : "\"cpu\":\"1\"",
                 rnd(seed) % 5 == 0 ? "Succeeded" : "Running");
    return strdup(buf);
}

static int count_of(gpa_view_kind_t k)
{
    return k == GPA_VIEW_PODS ? NPODS : NNODES;
}

static void apply_text(gpa_view_t *v, gpa_view_kind_t k, gpa_watch_event_t ev, const char *text)
{
    gpa_arena_t a = {0};
    gpa_error_t err = {0};
    ck_assert_msg(gpa_view_apply(v, k, ev, json_of(&a, text), NULL, 0, &err) == 0, "%s", err.message);
    gpa_arena_dispose(&a);
}

/* A relist of kind k: sometimes one that breaks off part-way first (the reflector starts it over). */
static void relist(gpa_view_t *v, truth_t *t, gpa_view_kind_t k, unsigned *seed)
{
    gpa_view_begin_list(v, k);
    if (rnd(seed) % 3 == 0) {
        for (int i = 0; i < count_of(k) / 2; i++)
            if (t->obj[k][i] != NULL)
                apply_text(v, k, GPA_WATCH_ADDED, t->obj[k][i]);
        gpa_view_begin_list(v, k);
    }
    for (int i = 0; i < count_of(k); i++)
        if (t->obj[k][i] != NULL)
            apply_text(v, k, GPA_WATCH_ADDED, t->obj[k][i]);
    gpa_view_end_list(v, k);
}

static void event(gpa_view_t *v, truth_t *t, unsigned *seed)
{
    gpa_view_kind_t k = (gpa_view_kind_t)(rnd(seed) % HISTORY_KINDS);
    int i = (int)(rnd(seed) % (unsigned)count_of(k));
    if (t->obj[k][i] != NULL && rnd(seed) % 3 == 0) {
        apply_text(v, k, GPA_WATCH_DELETED, t->obj[k][i]);
        free(t->obj[k][i]);
        t->obj[k][i] = NULL;
        return;
    }
    char *obj = random_object(k, i, seed);
    apply_text(v, k, t->obj[k][i] != NULL ? GPA_WATCH_MODIFIED : GPA_WATCH_ADDED, obj);
    free(t->obj[k][i]);
    t->obj[k][i] = obj;
}

static gpa_inventory_t *truth_inventory(const truth_t *t)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"kind\":\"List\",\"items\":[");
    int first = 1;
    for (int k = 0; k < HISTORY_KINDS; k++)
        for (int i = 0; i < count_of((gpa_view_kind_t)k); i++)
            if (t->obj[k][i] != NULL) {
                gpa_buf_printf(&b, "%s%s", first ? "" : ",", t->obj[k][i]);
                first = 0;
            }
    gpa_buf_puts(&b, "]}");
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_msg(gpa_inventory_parse(inv, b.base, b.len, "truth", &err) == 0, "%s", err.message);
    gpa_buf_dispose(&b);
    return inv;
}

START_TEST(any_history_resolves_as_the_final_objects)
{
    for (unsigned run = 1; run <= 200; run++) {
        unsigned seed = run;
        truth_t t = {0};
        gpa_view_t *v = gpa_view_new();
        for (int step = 0, steps = 20 + (int)(rnd(&seed) % 60); step < steps; step++) {
            if (rnd(&seed) % 10 == 0)
                relist(v, &t, (gpa_view_kind_t)(rnd(&seed) % HISTORY_KINDS), &seed);
            else
                event(v, &t, &seed);
        }
        gpa_inventory_t *want = truth_inventory(&t), *got = snapshot(v);
        assert_same(want, got);
        gpa_inventory_release(want);
        gpa_inventory_release(got);
        gpa_view_free(v);
        for (int k = 0; k < HISTORY_KINDS; k++)
            for (int i = 0; i < NPODS; i++)
                free(t.obj[k][i]);
    }
}
END_TEST

/* The audit's kinds follow the workloads table; where each is served. */
START_TEST(audit_kinds_follow_the_table)
{
    gpa_arena_t a = {0};
    gpa_kube_kind_t *kinds;
    size_t n = gpa_kube_audit_kinds(&a, NULL, &kinds);
    ck_assert_uint_eq(n, gpa_workloads_builtin.len);
    const gpa_kube_kind_t *deploy = NULL, *ctr = NULL, *pod = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(kinds[i].kind, "Deployment") == 0)
            deploy = &kinds[i];
        if (strcmp(kinds[i].kind, "ClusterTrainingRuntime") == 0)
            ctr = &kinds[i];
        if (strcmp(kinds[i].kind, "Pod") == 0)
            pod = &kinds[i];
    }
    ck_assert_ptr_nonnull(deploy);
    ck_assert_str_eq(gpa_kube_kind_path(&a, deploy, "ml"), "/apis/apps/v1/namespaces/ml/deployments");
    ck_assert_str_eq(gpa_kube_kind_path(&a, deploy, NULL), "/apis/apps/v1/deployments");
    ck_assert_str_eq(gpa_kube_kind_path(&a, pod, "ml"), "/api/v1/namespaces/ml/pods");
    ck_assert(ctr != NULL && ctr->cluster_scoped);
    ck_assert_str_eq(gpa_kube_kind_path(&a, ctr, "ml"), "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes");
    /* A configured kind is added; one that replaces a built-in kind is not listed twice. */
    static const char *const paths[] = {"spec.template", NULL};
    gpa_workload_t extra_items[] = {{"example.com", "Trainer", paths, NULL, NULL}, {"apps", "Deployment", paths, NULL, NULL}};
    gpa_workloads_t extra = {extra_items, 2};
    ck_assert_uint_eq(gpa_kube_audit_kinds(&a, &extra, &kinds), gpa_workloads_builtin.len + 1);
    ck_assert_str_eq(gpa_kube_kind_path(&a, &kinds[gpa_workloads_builtin.len], NULL), "/apis/example.com/v1/trainers");
    gpa_arena_dispose(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("view");
    TCase *tc = tcase_create("view");
    tcase_set_timeout(tc, 60); /* catches hangs; the property test ran past the default 4 s on a loaded machine */
    tcase_add_test(tc, same_as_the_file);
    tcase_add_test(tc, koordinator_pod_level_same_as_the_file);
    tcase_add_test(tc, pods_come_and_go);
    tcase_add_test(tc, relist_replaces);
    tcase_add_test(tc, dra_objects_known);
    tcase_add_test(tc, dra_version);
    tcase_add_test(tc, audit_counts_follow);
    tcase_add_test(tc, unreadable_objects_are_left_out);
    tcase_add_test(tc, tenant_pods_same_as_the_file);
    tcase_add_test(tc, unreadable_pod_holds_nothing);
    tcase_add_test(tc, hami_node_unreadable_has_no_cards);
    tcase_add_test(tc, any_history_resolves_as_the_final_objects);
    tcase_add_test(tc, audit_kinds_follow_the_table);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
