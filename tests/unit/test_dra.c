/* Check tests for kube/dra.c (reading claims, templates, classes and a Pod's claims; the known layers), decode's DRA
 * parts (the dialect switch, extended resources, replicas) and the DRA rules (rules_dra.c) through gpa_check. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "document/docs.h"
#include "kube/dra.h"
#include "kube/dra_share.h"
#include "policy/engine.h"
#include "run.h"

static gpa_value_t *yaml(const char *text)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_docs_parse(&arena, text, strlen(text), &docs, &err) == 0 && docs.len == 1, "parse: %s", err.message);
    return docs.docs[0];
}

/* Decoded as the front ends decode, with `known` (may be NULL) known. */
static gpa_object_t *read_with(const char *text, const gpa_dra_known_t *known)
{
    gpa_decode_opts_t opts = cfg->decode;
    opts.known = known;
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_decode_object_with(&arena, &opts, yaml(text), &obj, &err) == 0, "decode: %s: %s", err.path, err.message);
    return obj;
}

/* The decode error's "path: message" for text. */
static const char *read_error(const char *text)
{
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_decode_object_with(&arena, &cfg->decode, yaml(text), &obj, &err), -1);
    return gpa_arena_printf(&arena, "%s: %s", err.path, err.message);
}

/* gpa_check as CREATE (or UPDATE from old), validation only, with `known`; the rules that fired, "a b" (action
 * deny marked "!"), in order. */
static const char *rules_of(gpa_object_t *obj, gpa_object_t *old, const gpa_dra_known_t *known, int *allowed)
{
    gpa_check_opts_t opts = {
        .operation = old != NULL ? GPA_OP_UPDATE : GPA_OP_CREATE, .old_object = old, .validate = 1, .known = known};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    const char *out = "";
    for (size_t i = 0; i < v.violations.len; i++)
        out = gpa_arena_printf(&arena, "%s%s%s%s", out, i > 0 ? " " : "", v.violations.items[i].rule,
                               v.violations.items[i].action == GPA_ACTION_DENY ? "!" : "");
    if (allowed != NULL)
        *allowed = v.allowed;
    return out;
}

static const char *rules_on(const char *text, const gpa_dra_known_t *known)
{
    return rules_of(read_with(text, known), NULL, known, NULL);
}

/* ---- reading ---- */

#define TEMPLATE_HEAD                                                                                                              \
    "apiVersion: resource.k8s.io/%s\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec:\n  spec:\n"
#define REQUEST_FIELDS                                                                                                             \
    "deviceClassName: gpu.nvidia.com\n"                                                                                            \
    "%*sallocationMode: ExactCount\n%*scount: 2\n"                                                                                 \
    "%*sselectors: [{cel: {expression: \"device.attributes['gpu.nvidia.com'].productName == 'A100'\"}}]\n"                         \
    "%*scapacity: {requests: {memory: 4Gi}}\n"                                                                                     \
    "%*stolerations: [{key: maintenance, operator: Exists, effect: NoSchedule}]\n"

/* One template whose request carries every field, in a version: v1 and v1beta2 under exactly, v1beta1 flat. */
static const char *full_template(const char *version, int flat)
{
    int in = flat ? 8 : 10; /* the request's fields' indentation */
    const char *head = gpa_arena_printf(&arena, TEMPLATE_HEAD, version);
    const char *fields = gpa_arena_printf(&arena, REQUEST_FIELDS, in, "", in, "", in, "", in, "", in, "");
    const char *req = flat ? gpa_arena_printf(&arena, "      - name: gpu\n        %s", fields)
                           : gpa_arena_printf(&arena, "      - name: gpu\n        exactly:\n          %s", fields);
    return gpa_arena_printf(
        &arena,
        "%s    devices:\n      requests:\n%s"
        "      constraints: [{requests: [gpu], matchAttribute: gpu.nvidia.com/parentUUID}]\n"
        "      config:\n      - requests: [gpu]\n        opaque:\n          driver: gpu.nvidia.com\n"
        "          parameters: {apiVersion: resource.nvidia.com/v1beta1, kind: GpuConfig, sharing: {strategy: MPS}}\n",
        head, req);
}

START_TEST(three_versions_read_alike)
{
    static const struct {
        const char *version;
        int flat;
        gpa_dra_version_t v;
    } versions[] = {{"v1", 0, GPA_DRA_V1}, {"v1beta2", 0, GPA_DRA_V1BETA2}, {"v1beta1", 1, GPA_DRA_V1BETA1}};
    for (size_t i = 0; i < 3; i++) {
        gpa_object_t *obj = read_with(full_template(versions[i].version, versions[i].flat), NULL);
        const gpa_dra_object_t *t = obj->dra;
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(t->kind, GPA_DRA_TEMPLATE);
        ck_assert_int_eq(t->version, versions[i].v);
        ck_assert_str_eq(t->ns, "ns");
        ck_assert_uint_eq(t->devices.nrequests, 1);
        const gpa_dra_request_t *r = &t->devices.requests[0];
        ck_assert(r->has_exact);
        ck_assert_str_eq(r->exact.class, "gpu.nvidia.com");
        ck_assert_int_eq(r->exact.mode, GPA_DRA_EXACT_COUNT);
        ck_assert_int_eq(r->exact.count, 2);
        ck_assert_uint_eq(r->exact.nselectors, 1);
        ck_assert_str_eq(r->exact.selectors[0], "device.attributes['gpu.nvidia.com'].productName == 'A100'");
        ck_assert_uint_eq(r->exact.ncapacity, 1);
        ck_assert_str_eq(r->exact.capacity[0].name, "memory");
        ck_assert_int_eq(r->exact.capacity[0].amount.value, 4LL << 30);
        ck_assert_uint_eq(r->exact.ntolerations, 1);
        ck_assert_str_eq(r->exact.tolerations[0].op, "Exists");
        ck_assert_uint_eq(t->devices.nconstraints, 1);
        ck_assert_str_eq(t->devices.constraints[0].match_attribute, "gpu.nvidia.com/parentUUID");
        ck_assert_uint_eq(t->devices.nconfigs, 1);
        ck_assert_str_eq(t->devices.configs[0].driver, "gpu.nvidia.com");
        ck_assert_str_eq(gpa_dra_sharing_strategy(&t->devices.configs[0]), "MPS");
        ck_assert_str_eq(t->devices.path, "spec.spec.devices");
        ck_assert_str_eq(r->exact.path,
                         versions[i].flat ? "spec.spec.devices.requests[0]" : "spec.spec.devices.requests[0].exactly");
    }
}
END_TEST

START_TEST(alternatives_classes_and_lookups)
{
    gpa_object_t *obj = read_with("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n"
                                  "spec:\n  devices:\n    requests:\n    - name: gpu\n      firstAvailable:\n"
                                  "      - {name: mig, deviceClassName: mig.nvidia.com, allocationMode: All}\n"
                                  "      - {name: whole, deviceClassName: gpu.nvidia.com, count: 1}\n",
                                  NULL);
    const gpa_dra_devices_t *d = &obj->dra->devices;
    ck_assert(!d->requests[0].has_exact);
    ck_assert_uint_eq(d->requests[0].nalternatives, 2);
    ck_assert_int_eq(d->requests[0].alternatives[0].mode, GPA_DRA_ALL);
    const gpa_dra_exact_t *alt;
    ck_assert_ptr_eq(gpa_dra_devices_request(d, "gpu/whole", &alt), &d->requests[0]);
    ck_assert_ptr_eq(alt, &d->requests[0].alternatives[1]);
    ck_assert_ptr_eq(gpa_dra_devices_request(d, "gpu", &alt), &d->requests[0]);
    ck_assert_ptr_null(alt);
    ck_assert_ptr_null(gpa_dra_devices_request(d, "gpu/a100", &alt));
    ck_assert_ptr_null(gpa_dra_devices_request(d, "gp", &alt));

    gpa_object_t *cls = read_with("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\n"
                                  "spec:\n  extendedResourceName: nvidia.com/gpu\n"
                                  "  selectors: [{cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}}]\n",
                                  NULL);
    ck_assert_int_eq(cls->dra->kind, GPA_DRA_CLASS);
    ck_assert_str_eq(cls->dra->cls.extended_resource_name, "nvidia.com/gpu");
    ck_assert_uint_eq(cls->dra->cls.nselectors, 1);
    ck_assert_int_eq(gpa_dra_kind_of("resource.k8s.io/v1alpha3", "ResourceSlice"), GPA_DRA_SLICE);
    ck_assert_int_eq(gpa_dra_kind_of("example.com/v1", "ResourceClaim"), GPA_DRA_NONE);
    ck_assert_int_eq(gpa_dra_kind_of("resource.k8s.io", "ResourceClaim"), GPA_DRA_NONE);
}
END_TEST

START_TEST(bad_shapes_are_unreadable)
{
    ck_assert_str_eq(read_error("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                                "spec: {devices: {requests: {name: gpu}}}\n"),
                     "spec.devices.requests: must be a list, not a mapping");
    ck_assert_str_eq(read_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                "spec:\n  resourceClaims: [{name: 3}]\n  containers: [{name: c}]\n"),
                     "spec.resourceClaims[0].name: must be a string, not a number");
    ck_assert_str_eq(read_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                "spec:\n  containers: [{name: c, resources: {claims: {name: gpu}}}]\n"),
                     "spec.containers[0].resources.claims: must be a list, not a mapping");
    ck_assert_str_eq(read_error("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                                "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: x, count: 1.5}}]}}\n"),
                     "spec.devices.requests[0].exactly.count: must be a whole number, not 1.5");
}
END_TEST

START_TEST(pod_claims_and_replicas)
{
    gpa_object_t *obj = read_with("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\n"
                                  "spec:\n  replicas: 3\n  template:\n    spec:\n      resourceClaims:\n"
                                  "      - {name: a, resourceClaimTemplateName: t}\n"
                                  "      - {name: b, source: {resourceClaimName: c}}\n"
                                  "      containers:\n      - name: app\n        resources:\n"
                                  "          claims: [{name: a, request: gpu}, {name: b}]\n",
                                  NULL);
    ck_assert_int_eq(obj->replicas, 3);
    const gpa_podspec_t *pod = &obj->pods[0];
    ck_assert_uint_eq(pod->nclaims, 2);
    ck_assert_str_eq(pod->claims[0].template, "t");
    ck_assert(!pod->claims[0].has_source);
    ck_assert(pod->claims[1].has_source);
    ck_assert_str_eq(pod->claims[1].source_claim, "c");
    ck_assert_str_eq(pod->claims[1].path, "spec.template.spec.resourceClaims[1]");
    ck_assert_uint_eq(pod->containers[0].nclaims, 2);
    ck_assert_str_eq(pod->containers[0].claims[0].request, "gpu");
    ck_assert_ptr_null(pod->containers[0].claims[1].request);
    ck_assert_str_eq(pod->containers[0].claims[1].path, "spec.template.spec.containers[0].resources.claims[1]");

    static const struct {
        const char *text;
        int64_t replicas;
    } kinds[] = {
        {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n", 1},
        {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c}]}}}\n", 1},
        {"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c}]}}}\n",
         GPA_REPLICAS_MANY},
        {"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 8, template: {spec: {containers: [{name: "
         "c}]}}}\n",
         8},
        {"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: j}\n"
         "spec: {jobTemplate: {spec: {parallelism: 2, template: {spec: {containers: [{name: c}]}}}}}\n",
         2},
        {"apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t}\ntemplate: {spec: {containers: [{name: c}]}}\n",
         GPA_REPLICAS_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        ck_assert_int_eq(read_with(kinds[i].text, NULL)->replicas, kinds[i].replicas);
}
END_TEST

START_TEST(dialect_off_reads_nothing)
{
    gpa_config_release(cfg);
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_config_parse("dialects: [vendor, hami]\n", 25, "c.yaml", &cfg, &err), 0);
    ck_assert_uint_eq(cfg->decode.dialects & GPA_DIALECT_DRA, 0);
    gpa_object_t *obj = read_with("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                                  "spec: {devices: {requests: 7}}\n",
                                  NULL);
    ck_assert_ptr_null(obj->dra);
    obj = read_with("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                    "spec: {nodeName: node-1, resourceClaims: [{name: a, source: {}}], containers: [{name: c}]}\n",
                    NULL);
    ck_assert_uint_eq(obj->pods[0].nclaims, 0);
    ck_assert_str_eq(rules_of(obj, NULL, NULL, NULL), "");
}
END_TEST

/* ---- known ---- */

static const gpa_dra_object_t *dra_of(const char *text)
{
    return read_with(text, NULL)->dra;
}

#define CLASS(name, ext)                                                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\nspec: {extendedResourceName: " ext "}\n"
#define TEMPLATE(name, req)                                                                                                        \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: " name ", namespace: ns}\n"                     \
    "spec: {spec: {devices: {requests: [{name: " req ", exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n"

START_TEST(known_layers)
{
    gpa_dra_known_t bottom, top;
    gpa_dra_known_init(&bottom, NULL);
    gpa_dra_known_init(&top, &bottom);
    gpa_dra_known_add(&arena, &bottom, dra_of(CLASS("gpu.nvidia.com", "nvidia.com/gpu")));
    gpa_dra_known_add(&arena, &bottom, dra_of(CLASS("gpu.example.com", "nvidia.com/gpu")));
    gpa_dra_known_set_complete(&bottom, GPA_DRA_CLASS);
    gpa_dra_known_add(&arena, &top, dra_of(TEMPLATE("t", "gpu")));
    ck_assert_ptr_nonnull(gpa_dra_known_find(&top, GPA_DRA_CLASS, "", "gpu.nvidia.com"));
    ck_assert_ptr_nonnull(gpa_dra_known_find(&top, GPA_DRA_TEMPLATE, "ns", "t"));
    ck_assert_ptr_null(gpa_dra_known_find(&top, GPA_DRA_TEMPLATE, "other", "t"));
    ck_assert_ptr_null(gpa_dra_known_find(&top, GPA_DRA_CLAIM, "ns", "t"));
    ck_assert_ptr_null(gpa_dra_known_find(&bottom, GPA_DRA_TEMPLATE, "ns", "t"));
    ck_assert(gpa_dra_known_complete(&top, GPA_DRA_CLASS));
    ck_assert(!gpa_dra_known_complete(&top, GPA_DRA_TEMPLATE));
    ck_assert(!gpa_dra_known_complete(NULL, GPA_DRA_CLASS));
    /* two classes map one name: the later listed serves it */
    ck_assert_str_eq(gpa_dra_known_extended(&top, "nvidia.com/gpu", 14)->name, "gpu.example.com");
    ck_assert_ptr_null(gpa_dra_known_extended(&top, "amd.com/gpu", 11));
}
END_TEST

/* A sealed layer finds through its index what it held, and by a scan what came after; the first of twins wins. */
START_TEST(known_index)
{
    gpa_dra_known_t k;
    gpa_dra_known_init(&k, NULL);
    gpa_dra_object_t *objs = gpa_arena_calloc(&arena, 2002, sizeof(*objs));
    for (size_t i = 0; i < 2000; i++) {
        objs[i] =
            (gpa_dra_object_t){.kind = GPA_DRA_CLAIM, .ns = i % 2 ? "a" : "b", .name = gpa_arena_printf(&arena, "c%zu", i / 2)};
        gpa_dra_known_add(&arena, &k, &objs[i]);
    }
    gpa_dra_known_seal(&arena, &k);
    objs[2000] = (gpa_dra_object_t){.kind = GPA_DRA_CLAIM, .ns = "a", .name = "late"};
    objs[2001] = (gpa_dra_object_t){.kind = GPA_DRA_CLAIM, .ns = "a", .name = "c7"}; /* a twin of objs[15] */
    gpa_dra_known_add(&arena, &k, &objs[2000]);
    gpa_dra_known_add(&arena, &k, &objs[2001]);
    for (size_t i = 0; i < 2000; i++)
        ck_assert_ptr_eq(gpa_dra_known_find(&k, GPA_DRA_CLAIM, objs[i].ns, objs[i].name), &objs[i]);
    ck_assert_ptr_eq(gpa_dra_known_find(&k, GPA_DRA_CLAIM, "a", "late"), &objs[2000]);
    ck_assert_ptr_eq(gpa_dra_known_find(&k, GPA_DRA_CLAIM, "a", "c7"), &objs[15]);
    ck_assert_ptr_null(gpa_dra_known_find(&k, GPA_DRA_CLAIM, "c", "c7"));
    ck_assert_ptr_null(gpa_dra_known_find(&k, GPA_DRA_TEMPLATE, "a", "c7"));
}
END_TEST

/* ---- the rules ---- */

static gpa_dra_known_t *known_of(int complete_classes, const char *const *texts, size_t n)
{
    gpa_dra_known_t *k = gpa_arena_calloc(&arena, 1, sizeof(*k));
    gpa_dra_known_init(k, NULL);
    for (size_t i = 0; i < n; i++) {
        const gpa_dra_object_t *o = dra_of(texts[i]);
        gpa_dra_known_add(&arena, k, o);
        gpa_dra_known_set_complete(k, o->kind);
    }
    if (complete_classes)
        gpa_dra_known_set_complete(k, GPA_DRA_CLASS);
    return k;
}

#define POD(claims, cclaims)                                                                                                       \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  resourceClaims: " claims                              \
    "\n  containers: [{name: app, resources: {claims: " cclaims "}}]\n"
#define DEPLOY(replicas, claims)                                                                                                   \
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  replicas: " replicas                      \
    "\n  template:\n    spec:\n      resourceClaims: " claims "\n      containers: [{name: app}]\n"

START_TEST(unknown_class_claim_request)
{
    const char *texts[] = {CLASS("gpu.nvidia.com", "nvidia.com/gpu"), TEMPLATE("t", "gpu")};
    gpa_dra_known_t *k = known_of(1, texts, 2);
    ck_assert_str_eq(rules_on(TEMPLATE("u", "gpu"), k), "");
    ck_assert_str_eq(rules_on("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n"
                              "spec: {devices: {requests: [{name: a, firstAvailable: [{name: x, deviceClassName: nope}]}]}}\n",
                              k),
                     "dra-unknown-class");
    /* classes not complete: silent */
    ck_assert_str_eq(rules_on("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n"
                              "spec: {devices: {requests: [{name: a, exactly: {deviceClassName: nope}}]}}\n",
                              known_of(0, texts + 1, 1)),
                     "");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimTemplateName: t}]", "[{name: g, request: gpu}]"), k), "");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimTemplateName: tt}]", "[{name: g, request: gpu}]"), k),
                     "dra-unknown-claim");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimTemplateName: t}]", "[{name: g, request: gpus}]"), k),
                     "dra-unknown-request!");
    /* claims not complete (no ResourceClaim known): silent on a claim name */
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimName: c}]", "[{name: g, request: x}]"), k), "");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimTemplateName: t}]", "[{name: g, request: gpu}]"), NULL), "");
}
END_TEST

START_TEST(claim_source_and_api_version)
{
    ck_assert_str_eq(rules_on(POD("[{name: g, source: {resourceClaimTemplateName: t}}]", "[{name: g}]"), NULL),
                     "dra-claim-source!");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimTemplateName: t}]", "[{name: g}]"), NULL), "");
    const char *beta = "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                       "spec: {devices: {requests: [{name: a, deviceClassName: x}]}}\n";
    ck_assert_str_eq(rules_on(beta, NULL), "");
    ck_assert_str_eq(rules_on("apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata: {name: c}\nspec: {}\n", NULL),
                     "dra-api-version");
    gpa_config_release(cfg);
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_config_parse("dra: {kubernetesVersion: \"1.38\"}\n", 33, "c.yaml", &cfg, &err), 0);
    ck_assert_uint_eq(cfg->dra.kube_minor, 38);
    ck_assert_str_eq(rules_on(beta, NULL), "dra-api-version");
    ck_assert_str_eq(rules_on("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {}\n", NULL), "");
}
END_TEST

START_TEST(config_dra_block)
{
    gpa_config_t *c = NULL;
    gpa_error_t err = {0};
    const char *text =
        "dra:\n  kubernetesVersion: v1.35.2\n  nvidia:\n    featureGates: {MPSSupport: true, TimeSlicingSettings: false, "
        "IMEXDaemonsWithDNSNames: true}\n";
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "c.yaml", &c, &err), 0);
    ck_assert_uint_eq(c->dra.kube_minor, 35);
    ck_assert_int_eq(gpa_config_nvidia_gate(&c->dra, GPA_NVIDIA_GATE_MPS), 1);
    ck_assert_int_eq(gpa_config_nvidia_gate(&c->dra, GPA_NVIDIA_GATE_TIME_SLICING), 0);
    ck_assert_int_eq(gpa_config_nvidia_gate(&c->dra, GPA_NVIDIA_GATE_DYNAMIC_MIG), 0);
    gpa_config_release(c);
    ck_assert_int_eq(gpa_config_nvidia_gate(&cfg->dra, GPA_NVIDIA_GATE_MPS), -1);
    static const char *const bad[] = {"dra: {kubernetesVersion: \"2.1\"}\n", "dra: {kubernetesVersion: 1.36}\n",
                                      "dra: {nvidia: {featureGates: {MPSSupport: yes-please}}}\n", "dra: {colour: blue}\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gpa_error_t e = {0};
        c = NULL;
        ck_assert_msg(gpa_config_parse(bad[i], strlen(bad[i]), "c.yaml", &c, &e) == -1, "%s", bad[i]);
    }
}
END_TEST

START_TEST(sharing_across_replicas)
{
    const char *ts = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: ts, namespace: ns}\n"
                     "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}],\n"
                     "  config: [{opaque: {driver: gpu.nvidia.com, parameters: {apiVersion: resource.nvidia.com/v1beta1, "
                     "kind: GpuConfig, sharing: {strategy: TimeSlicing}}}}]}}}\n";
    gpa_dra_known_t *k = known_of(0, &ts, 1);
    ck_assert_str_eq(rules_on(DEPLOY("4", "[{name: g, resourceClaimTemplateName: ts}]"), k), "dra-template-sharing");
    ck_assert_str_eq(rules_on(DEPLOY("1", "[{name: g, resourceClaimTemplateName: ts}]"), k), "");
    ck_assert_str_eq(rules_on(DEPLOY("4", "[{name: g, resourceClaimTemplateName: ts}]"), NULL), "");
    ck_assert_str_eq(rules_on(DEPLOY("2", "[{name: g, resourceClaimName: c}]"), NULL), "dra-shared-claim");
    ck_assert_str_eq(rules_on(DEPLOY("256", "[{name: g, resourceClaimName: c}]"), NULL), "dra-shared-claim");
    ck_assert_str_eq(rules_on(DEPLOY("257", "[{name: g, resourceClaimName: c}]"), NULL), "dra-shared-claim!");
    ck_assert_str_eq(rules_on(POD("[{name: g, resourceClaimName: c}]", "[{name: g}]"), NULL), "");
}
END_TEST

START_TEST(node_name_and_non_positive)
{
    ck_assert_str_eq(rules_on("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: node-1, resourceClaims: [{name: g, "
                              "resourceClaimTemplateName: t}], containers: [{name: c}]}\n",
                              NULL),
                     "node-name-set!");
    ck_assert_str_eq(rules_on("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: node-1, resourceClaims: [{name: g, "
                              "resourceClaimTemplateName: t}], containers: [{name: c}]}\n"
                              "status: {conditions: [{type: PodScheduled, status: \"True\"}]}\n",
                              NULL),
                     "");
    const char *neg =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns%s}\n"
        "spec: {devices: {requests: [{name: a, exactly: {deviceClassName: x, capacity: {requests: {memory: %s}}}}]}}\n";
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, neg, "", "\"-1\""), NULL), "non-positive!");
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, neg, "", "\"0\""), NULL), "");
    /* a claim a controller made is admitted untouched */
    ck_assert_str_eq(
        rules_on(gpa_arena_printf(&arena, neg, ", annotations: {resource.kubernetes.io/pod-claim-name: g}", "\"-1\""), NULL), "");
}
END_TEST

START_TEST(extended_resources_served_by_a_class)
{
    const char *texts[] = {CLASS("gpu.nvidia.com", "nvidia.com/gpu")};
    gpa_dra_known_t *k = known_of(1, texts, 1);
    const char *pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                      "spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"%s\"}}}]}\n";
    /* without the class: the vendor's count; with it: a DRA use of the class, no vendor amount */
    gpa_object_t *plain = read_with(gpa_arena_printf(&arena, pod, "2"), NULL);
    ck_assert(gpa_container_amount(&plain->pods[0].containers[0], GPA_R_NVIDIA_GPU) != NULL);
    ck_assert_uint_eq(plain->pods[0].containers[0].nextended, 0);
    gpa_object_t *dra = read_with(gpa_arena_printf(&arena, pod, "2"), k);
    const gpa_container_t *c = &dra->pods[0].containers[0];
    ck_assert_ptr_null(gpa_container_amount(c, GPA_R_NVIDIA_GPU));
    ck_assert_uint_eq(c->nextended, 1);
    ck_assert_str_eq(c->extended[0].class, "gpu.nvidia.com");
    ck_assert_int_eq(c->extended[0].amount.value, 2);
    ck_assert_str_eq(c->extended[0].path, "spec.containers[0].resources.limits[\"nvidia.com/gpu\"]");
    /* the vendor's rules no longer apply: 20 is no unit-hint; a negative count is DRA's non-positive */
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, pod, "20"), NULL), "unit-hint");
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, pod, "20"), k), "");
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, pod, "-1"), k), "non-positive!");
    /* the implicit name of a class the cluster does not have */
    const char *implicit_pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: "
                               "{limits: {deviceclass.resource.kubernetes.io/%s: 1}}}]}\n";
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, implicit_pod, "gpu.nvidia.com"), k), "");
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, implicit_pod, "gpu.example.com"), k), "dra-unknown-class");
    ck_assert_str_eq(rules_on(gpa_arena_printf(&arena, implicit_pod, "gpu.example.com"), NULL), "");
    /* the implicit name, for any class, known or not */
    gpa_object_t *implicit = read_with("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: "
                                       "{requests: {deviceclass.resource.kubernetes.io/gpu.example.com: 1}}}]}\n",
                                       NULL);
    ck_assert_uint_eq(implicit->pods[0].containers[0].nextended, 1);
    ck_assert_str_eq(implicit->pods[0].containers[0].extended[0].class, "gpu.example.com");
}
END_TEST

START_TEST(update_excuses_what_was_there)
{
    const char *old_text = POD("[{name: g, source: {resourceClaimTemplateName: t}}]", "[{name: g}]");
    gpa_object_t *old = read_with(old_text, NULL), *same = read_with(old_text, NULL);
    int allowed;
    ck_assert_str_eq(rules_of(same, old, NULL, &allowed), "");
    ck_assert(allowed);
    gpa_object_t *clean = read_with(POD("[{name: g, resourceClaimTemplateName: t}]", "[{name: g}]"), NULL);
    gpa_object_t *worse = read_with("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {nodeName: node-1, "
                                    "resourceClaims: [{name: g, resourceClaimTemplateName: t}], containers: [{name: app}]}\n",
                                    NULL);
    ck_assert_str_eq(rules_of(worse, clean, NULL, &allowed), "node-name-set!");
    ck_assert(!allowed);
}
END_TEST

/* ---- bounds ---- */

START_TEST(api_limits_read_and_judged)
{
    /* 256 Pod claims, each used by a container with a request the template lacks: 256 findings, one each */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_printf(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"
                       "\"spec\":{\"resourceClaims\":[");
    for (int i = 0; i < GPA_DRA_MAX_POD_CLAIMS; i++)
        gpa_buf_printf(&b, "%s{\"name\":\"c%d\",\"resourceClaimTemplateName\":\"t\"}", i ? "," : "", i);
    gpa_buf_printf(&b, "],\"containers\":[{\"name\":\"app\",\"resources\":{\"claims\":[");
    for (int i = 0; i < GPA_DRA_MAX_POD_CLAIMS; i++)
        gpa_buf_printf(&b, "%s{\"name\":\"c%d\",\"request\":\"x\"}", i ? "," : "", i);
    gpa_buf_printf(&b, "]}}]}}");
    const char *texts[] = {TEMPLATE("t", "gpu")};
    gpa_dra_known_t *k = known_of(0, texts, 1);
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .validate = 1, .known = k};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_object_t *obj = read_with(gpa_arena_strndup(&arena, b.base, b.len), k);
    ck_assert_int_eq(gpa_check(&arena, cfg, obj, &opts, &v, &err), 0);
    ck_assert_uint_eq(v.violations.len, GPA_DRA_MAX_POD_CLAIMS);
    /* one more is beyond the API's limit: unreadable, not judged */
    gpa_buf_reset(&b);
    gpa_buf_printf(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"resourceClaims\":[");
    for (int i = 0; i <= GPA_DRA_MAX_POD_CLAIMS; i++)
        gpa_buf_printf(&b, "%s{\"name\":\"c%d\",\"resourceClaimTemplateName\":\"t\"}", i ? "," : "", i);
    gpa_buf_printf(&b, "],\"containers\":[{\"name\":\"app\"}]}}");
    ck_assert_str_eq(read_error(gpa_arena_strndup(&arena, b.base, b.len)),
                     "spec.resourceClaims: at most 256 items (the API's limit), not 257");

    /* 32 requests of 32 selectors of 10 KiB: read whole, selectors kept as the document's text */
    gpa_buf_reset(&b);
    char *sel = gpa_arena_alloc(&arena, GPA_DRA_MAX_SELECTOR_BYTES + 1);
    memset(sel, 'a', GPA_DRA_MAX_SELECTOR_BYTES);
    sel[GPA_DRA_MAX_SELECTOR_BYTES] = '\0';
    gpa_buf_printf(&b, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\"},"
                       "\"spec\":{\"devices\":{\"requests\":[");
    for (int r = 0; r < GPA_DRA_MAX_REQUESTS; r++) {
        gpa_buf_printf(&b, "%s{\"name\":\"r%d\",\"exactly\":{\"deviceClassName\":\"x\",\"selectors\":[", r ? "," : "", r);
        for (int s = 0; s < GPA_DRA_MAX_SELECTORS; s++)
            gpa_buf_printf(&b, "%s{\"cel\":{\"expression\":\"%s\"}}", s ? "," : "", sel);
        gpa_buf_printf(&b, "]}}");
    }
    gpa_buf_printf(&b, "]}}}");
    gpa_object_t *big = read_with(gpa_arena_strndup(&arena, b.base, b.len), NULL);
    ck_assert_uint_eq(big->dra->devices.nrequests, GPA_DRA_MAX_REQUESTS);
    ck_assert_uint_eq(big->dra->devices.requests[31].exact.nselectors, GPA_DRA_MAX_SELECTORS);
    ck_assert_uint_eq(strlen(big->dra->devices.requests[31].exact.selectors[31]), GPA_DRA_MAX_SELECTOR_BYTES);
    gpa_buf_dispose(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dra");
    TCase *tc = tcase_create("dra");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, three_versions_read_alike);
    tcase_add_test(tc, alternatives_classes_and_lookups);
    tcase_add_test(tc, bad_shapes_are_unreadable);
    tcase_add_test(tc, pod_claims_and_replicas);
    tcase_add_test(tc, dialect_off_reads_nothing);
    tcase_add_test(tc, known_layers);
    tcase_add_test(tc, known_index);
    tcase_add_test(tc, unknown_class_claim_request);
    tcase_add_test(tc, claim_source_and_api_version);
    tcase_add_test(tc, config_dra_block);
    tcase_add_test(tc, sharing_across_replicas);
    tcase_add_test(tc, node_name_and_non_positive);
    tcase_add_test(tc, extended_resources_served_by_a_class);
    tcase_add_test(tc, update_excuses_what_was_there);
    tcase_add_test(tc, api_limits_read_and_judged);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
