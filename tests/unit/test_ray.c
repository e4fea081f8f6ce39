/* Check tests for kube/ray.c (KubeRay groups, what Ray advertises, the devices a Ray container gets), the rule
 * ray-num-gpus (rules_ray.c) and the mutations ray-num-gpus and ray-gpu-memory (mutate.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "inventory/inventory.h"
#include "kube/ray.h"
#include "policy/mutate.h"
#include "policy/validate.h"
#include "run.h"

/* A RayCluster with a head (no GPU) and one worker group: `params` its rayStartParams member text (or ""),
 * `limits` the Ray container's limits. */
#define RAY(kind, spec_open, spec_close, group_extra, limits)                                                                      \
    "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"" kind "\",\"metadata\":{\"name\":\"r\",\"namespace\":\"ml\"},\"spec\":" spec_open   \
    "{\"headGroupSpec\":{\"rayStartParams\":{},\"template\":{\"spec\":{\"containers\":[{\"name\":\"ray-head\",\"image\":\"ray\"}]" \
    "}}},"                                                                                                                         \
    "\"workerGroupSpecs\":[{\"groupName\":\"gpu\"" group_extra                                                                     \
    ",\"template\":{\"spec\":{\"containers\":[{\"name\":\"ray-worker\","                                                           \
    "\"image\":\"ray\",\"resources\":{\"limits\":" limits "}},{\"name\":\"sidecar\",\"image\":\"s\"}]}}}]}" spec_close "}"
#define CLUSTER(group_extra, limits) RAY("RayCluster", "", "", group_extra, limits)

#define SHARE2 "{\"koordinator.sh/gpu-memory\":\"40Gi\",\"koordinator.sh/gpu-core\":\"100\",\"koordinator.sh/gpu.shared\":\"2\"}"

/* Decoded with the configuration's workloads and HAMi names, as the front ends decode. */
static gpa_object_t *decode_cfg(gpa_value_t *doc)
{
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_decode_object_with(&arena, &cfg->decode, doc, &obj, &err) == 0, "decode: %s", err.message);
    return obj;
}

static gpa_object_t *object_cfg(const char *text)
{
    return decode_cfg(json(text));
}

static gpa_ray_group_t worker_group(gpa_object_t *obj)
{
    gpa_ray_group_t g;
    ck_assert_int_eq(obj->npods, 2);
    ck_assert_int_eq(gpa_ray_group(&arena, obj, &obj->pods[1], &g), 1);
    return g;
}

static gpa_ray_count_t advertised(const char *doc)
{
    gpa_ray_group_t g = worker_group(object_cfg(doc));
    gpa_ray_count_t count;
    gpa_ray_advertised(&arena, &g, &count);
    return count;
}

START_TEST(groups_of_every_kind)
{
    gpa_object_t *obj = object_cfg(CLUSTER("", "{}"));
    gpa_ray_group_t g;
    ck_assert_int_eq(gpa_ray_group(&arena, obj, &obj->pods[0], &g), 1);
    ck_assert_str_eq(g.name, "head");
    ck_assert_str_eq(g.pointer, "/spec/headGroupSpec");
    ck_assert_str_eq(g.path, "spec.headGroupSpec");
    g = worker_group(obj);
    ck_assert_str_eq(g.name, "gpu");
    ck_assert_str_eq(g.pointer, "/spec/workerGroupSpecs/0");
    ck_assert_str_eq(g.path, "spec.workerGroupSpecs[0]");
    ck_assert_str_eq(g.ray->name, "ray-worker");
    g = worker_group(object_cfg(RAY("RayJob", "{\"rayClusterSpec\":", "}", "", "{}")));
    ck_assert_str_eq(g.pointer, "/spec/rayClusterSpec/workerGroupSpecs/0");
    ck_assert_str_eq(g.path, "spec.rayClusterSpec.workerGroupSpecs[0]");
    g = worker_group(object_cfg(RAY("RayService", "{\"rayClusterConfig\":", "}", "", "{}")));
    ck_assert_str_eq(g.pointer, "/spec/rayClusterConfig/workerGroupSpecs/0");
    /* A Deployment's template is no group. */
    obj = object_cfg("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"template\":{\"spec\":{\"containers\":[]}}}}");
    ck_assert_int_eq(gpa_ray_group(&arena, obj, &obj->pods[0], &g), 0);
}
END_TEST

START_TEST(advertised_as_kuberay_derives)
{
    /* No count, no limit ending in gpu: nothing. */
    gpa_ray_count_t c = advertised(CLUSTER("", SHARE2));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_NONE);
    /* The first non-zero GPU limit in name order: a zero is skipped, amd.com/gpu comes before nvidia.com/gpu. */
    c = advertised(CLUSTER("", "{\"nvidia.com/gpu\":\"2\",\"amd.com/gpu\":\"0\",\"example.com/gpu\":\"3\"}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_LIMIT);
    ck_assert_int_eq(c.count, 3);
    ck_assert_str_eq(c.where, "example.com/gpu");
    c = advertised(CLUSTER("", "{\"koordinator.sh/gpu\":\"50\"}"));
    ck_assert_int_eq(c.count, 50);
    c = advertised(CLUSTER("", "{\"nvidia.com/mig-1g.10gb\":\"1\"}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_LIMIT);
    ck_assert_int_eq(c.count, 1);
    /* The group's own count wins: num-gpus, or a GPU key of its resources field (any case). */
    c = advertised(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"4\"}", "{\"nvidia.com/gpu\":\"2\"}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_OWN);
    ck_assert_int_eq(c.count, 4);
    ck_assert_str_eq(c.where, "rayStartParams.num-gpus");
    c = advertised(CLUSTER(",\"resources\":{\"CPU\":\"1\",\"gpu\":\"2\"}", "{}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_OWN);
    ck_assert_int_eq(c.count, 2);
    ck_assert_str_eq(c.where, "resources.gpu");
    c = advertised(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"0.5\"}", "{}"));
    ck_assert_int_eq(c.usable, 0);
    /* rayStartParams.resources that KubeRay cannot read: no count derived. Quotes around it are trimmed. */
    c = advertised(CLUSTER(",\"rayStartParams\":{\"resources\":\"\\\"{\\\\\\\"a\\\\\\\": 1}\\\"\"}", "{\"nvidia.com/gpu\":\"1\"}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_NONE);
    ck_assert_int_eq(c.resources_unparsed, 1);
    c = advertised(CLUSTER(",\"rayStartParams\":{\"resources\":\"'{\\\"a\\\": 1}'\"}", "{\"nvidia.com/gpu\":\"1\"}"));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_LIMIT);
    ck_assert_int_eq(c.count, 1);
}
END_TEST

static gpa_ray_devices_t devices(const char *doc)
{
    gpa_object_t *obj = object_cfg(doc);
    gpa_pod_facts_t facts;
    gpa_pod_facts_init(&arena, cfg->dialects, &obj->pods[1], &facts);
    gpa_ray_devices_t d;
    gpa_ray_devices(cfg->dialects, &facts, &obj->pods[1].containers[0], &d);
    return d;
}

START_TEST(devices_per_dialect)
{
    gpa_ray_devices_t d = devices(CLUSTER("", SHARE2));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_int_eq(d.share, 1);
    ck_assert_int_eq(d.memory, 40LL << 30);
    /* gpu.shared not written yet: the count inject-gpu-shared derives; a ratio gives no bytes. */
    d = devices(CLUSTER("", "{\"koordinator.sh/gpu-memory-ratio\":\"300\"}"));
    ck_assert_int_eq(d.devices, 3);
    ck_assert_int_eq(d.memory, 0);
    ck_assert_int_eq(d.ratio, 100); /* three whole cards' memory: bytes once the card is known */
    d = devices(CLUSTER("", "{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}"));
    ck_assert_int_eq(d.ratio, 50);
    /* Bytes split per device are rounded up: 3 devices of ceil(10Gi/3). */
    d = devices(CLUSTER("", "{\"koordinator.sh/gpu-memory\":\"10Gi\",\"koordinator.sh/gpu.shared\":\"3\"}"));
    ck_assert_int_eq(d.memory, ((10LL << 30) + 2) / 3 * 3);
    d = devices(CLUSTER("", "{\"vke.volcengine.com/mgpu-core\":\"30\",\"vke.volcengine.com/mgpu-memory\":\"4096\"}"));
    ck_assert_int_eq(d.devices, 1);
    ck_assert_int_eq(d.share, 1);
    ck_assert_int_eq(d.memory, 4096LL << 20);
    ck_assert_int_eq(d.ratio, 0);
    d = devices(CLUSTER("", "{\"vke.volcengine.com/mgpu-core\":\"200\"}"));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_int_eq(d.ratio, 100); /* whole cards */
    d = devices(CLUSTER("", "{\"vke.volcengine.com/mgpu-core\":\"30\"}"));
    ck_assert_int_eq(d.ratio, 0); /* part of a card's compute, no memory asked: nothing known */
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"2\"}"));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_int_eq(d.share, 0);
    /* Unsound requests count as none (their rules say why). */
    d = devices(CLUSTER("", "{\"koordinator.sh/gpu-core\":\"50\"}"));
    ck_assert_int_eq(d.devices, 0);
}
END_TEST

/* gpa_ray_resources_add_memory on a literal (its length taken as written, NULs included). */
#define MERGE(lit, bytes) gpa_ray_resources_add_memory(&arena, lit, sizeof(lit) - 1, bytes)

START_TEST(resources_merge_keeps_text)
{
    ck_assert_str_eq(gpa_ray_resources_add_memory(&arena, NULL, 0, 5), "'{\"gpu_memory\":5}'");
    ck_assert_str_eq(MERGE("'{\"Custom1\": 1}'", 5), "'{\"Custom1\": 1,\"gpu_memory\":5}'");
    ck_assert_str_eq(MERGE("{\"a\":1 }", 7), "{\"a\":1,\"gpu_memory\":7 }");
    ck_assert_str_eq(MERGE("{}", 7), "{\"gpu_memory\":7}");
    ck_assert_ptr_null(MERGE("{\"gpu_memory\":1}", 7));
    ck_assert_ptr_null(MERGE("not json", 7));
    ck_assert_ptr_null(MERGE("{\"a\":\"x\"}", 7));
}
END_TEST

START_TEST(resources_merge_exactly_one_object)
{
    /* a block scalar (`resources: |`): JSON whitespace around the object, kept where it was */
    ck_assert_str_eq(MERGE("{\"Custom1\": 1}\n", 9), "{\"Custom1\": 1,\"gpu_memory\":9}\n");
    ck_assert_str_eq(MERGE("\n\t{\"Custom1\": 1}\r\n", 9), "\n\t{\"Custom1\": 1,\"gpu_memory\":9}\r\n");
    ck_assert_int_eq(gpa_ray_resources_is_object(&arena, "{\"Custom1\": 1}\n", 15), 1);
    /* more than one object, or text after it: left alone */
    ck_assert_ptr_null(MERGE("{\"a\": 1}{\"b\": 2}", 9));
    ck_assert_ptr_null(MERGE("{\"a\": 1},", 9));
    ck_assert_ptr_null(MERGE("{\"a\": 1} x", 9));
    ck_assert_ptr_null(MERGE("", 9));
    ck_assert_ptr_null(MERGE("''", 9));
    /* a NUL anywhere is part of the value: never an object, whatever precedes it */
    ck_assert_ptr_null(MERGE("{\"a\": 1}\0junk", 9));
    ck_assert_ptr_null(MERGE("{\"a\": 1}\0", 9));
    ck_assert_int_eq(gpa_ray_resources_is_object(&arena, "{\"a\": 1}\0junk", 13), 0);
    ck_assert_ptr_null(MERGE("\"{\\\"a\\\": 1}\\u0000\"", 9)); /* a NUL inside the escaped form's string */
}
END_TEST

/* KubeRay's ray-job.resources.yaml: rayStartParams.resources: '"{\"resource1\": 2, \"resource2\": 3}"'. */
START_TEST(resources_merge_escaped_form)
{
    ck_assert_int_eq(gpa_ray_resources_is_object(&arena, "\"{\\\"resource1\\\": 2, \\\"resource2\\\": 3}\"", 38), 1);
    ck_assert_str_eq(MERGE("\"{\\\"resource1\\\": 2, \\\"resource2\\\": 3}\"", 5),
                     "\"{\\\"resource1\\\": 2, \\\"resource2\\\": 3,\\\"gpu_memory\\\":5}\"");
    /* single quotes around it (as a shell would take it) stay */
    ck_assert_str_eq(MERGE("'\"{\\\"a\\\": 2}\"'", 5), "'\"{\\\"a\\\": 2,\\\"gpu_memory\\\":5}\"'");
    ck_assert_ptr_null(MERGE("\"{\\\"gpu_memory\\\": 2}\"", 5)); /* already there */
    ck_assert_ptr_null(MERGE("\"not an object\"", 5));
}
END_TEST

/* ---- the rule ---- */

static gpa_violations_t findings(const char *doc)
{
    gpa_violations_t out = {0};
    gpa_validate_object(&arena, cfg, NULL, NULL, object_cfg(doc), &out);
    return out;
}

static const gpa_violation_t *ray_finding(const gpa_violations_t *v)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i].rule, "ray-num-gpus") == 0)
            return &v->items[i];
    return NULL;
}

static void set_config(const char *text)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    gpa_config_release(cfg);
    cfg = NULL;
    ck_assert_msg(gpa_config_parse(text, strlen(text), "test", &cfg, &err) == 0, "%s", err.message);
}

START_TEST(rule_fires_on_what_the_mutation_cannot_fix)
{
    /* Shares with no count: the mutation writes it, so the rule passes while the mutation is on. */
    gpa_violations_t v = findings(CLUSTER("", SHARE2));
    ck_assert_ptr_null(ray_finding(&v));
    /* A count the user wrote: 0, or more than the devices. */
    v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"0\"}", SHARE2));
    const gpa_violation_t *f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->container, "ray-worker");
    ck_assert_str_eq(f->path, "spec.workerGroupSpecs[0].rayStartParams.num-gpus");
    ck_assert_msg(strstr(f->message, "set rayStartParams.num-gpus: \"2\"") != NULL, "%s", f->message);
    v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"3\"}", SHARE2));
    ck_assert_ptr_nonnull(ray_finding(&v));
    v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"1\"}", SHARE2));
    ck_assert_ptr_null(ray_finding(&v));
    v = findings(CLUSTER(",\"resources\":{\"gpu\":\"3\"}", SHARE2));
    f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(strstr(f->message, "set resources.gpu: \"2\"") != NULL, "%s", f->message);
    v = findings(CLUSTER(",\"resources\":{\"GPU\":\"4\"}", SHARE2));
    f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(strstr(f->message, "set resources.GPU: \"2\"") != NULL, "%s", f->message);
    /* Vendor counts advertise right; a wrong count beside them is the user's. */
    v = findings(CLUSTER("", "{\"nvidia.com/gpu\":\"2\"}"));
    ck_assert_ptr_null(ray_finding(&v));
    v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"8\"}", "{\"nvidia.com/gpu\":\"2\"}"));
    ck_assert_ptr_nonnull(ray_finding(&v));
    /* No GPU at all: nothing to judge. A Deployment: not a group. */
    v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"8\"}", "{\"cpu\":\"1\"}"));
    ck_assert_ptr_null(ray_finding(&v));
}
END_TEST

START_TEST(rule_with_the_mutation_off)
{
    set_config("mutations: {ray-num-gpus: off}");
    gpa_violations_t v = findings(CLUSTER("", SHARE2));
    const gpa_violation_t *f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->path, "spec.workerGroupSpecs[0]");
    ck_assert_msg(strstr(f->message, "Ray advertises 0 GPUs") != NULL, "%s", f->message);
    /* koordinator.sh/gpu: 50 is half of one device, but KubeRay counts 50 GPUs. */
    v = findings(CLUSTER("", "{\"koordinator.sh/gpu\":\"50\"}"));
    f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->path, "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits[\"koordinator.sh/gpu\"]");
    ck_assert_msg(strstr(f->message, "advertise 50 GPUs") != NULL, "%s", f->message);
    /* bare YAML off reads as a boolean */
    set_config("mutations:\n  ray-num-gpus: off\n  ray-gpu-memory: on\n");
    ck_assert_uint_eq(cfg->mutations, 0x17u);
}
END_TEST

START_TEST(config_rejects_unknown_mutation)
{
    gpa_config_t *c = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    const char *text = "mutations: {ray-num-gpu: off}";
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "test", &c, &err), -1);
    ck_assert_msg(strstr(err.message, "unknown field \"ray-num-gpu\"; known: expand-gpu") != NULL, "%s", err.message);
    text = "mutations: {ray-num-gpus: maybe}";
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "test", &c, &err), -1);
}
END_TEST

/* ---- the mutations ---- */

/* Mutates doc: the patch must be `want`, the ids applied `ids`, and the patched object mutates to an empty patch
 * and passes the rule. */
static void check_ray_mutation(const char *doc, const char *want, const char *ids)
{
    gpa_value_t *root = json(doc);
    gpa_patch_t patch = {0};
    gpa_warnings_t warnings = {0};
    gpa_strings_t applied = {0};
    gpa_mutate(&arena, cfg, NULL, decode_cfg(root), &patch, &warnings, &applied);
    ck_assert_str_eq(patch_text(&patch), want);
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < applied.len; i++)
        gpa_buf_printf(&b, "%s%s", i ? "," : "", applied.items[i]);
    gpa_buf_putc(&b, '\0');
    ck_assert_str_eq(b.base, ids);
    gpa_buf_dispose(&b);
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert(gpa_patch_apply(&arena, &root, &patch, &err) == 0);
    gpa_patch_t again = {0};
    gpa_strings_t applied2 = {0};
    gpa_object_t *mutated = decode_cfg(root);
    gpa_mutate(&arena, cfg, NULL, mutated, &again, &warnings, &applied2);
    ck_assert_str_eq(patch_text(&again), "[]");
    gpa_violations_t v = {0};
    gpa_validate_object(&arena, cfg, NULL, NULL, mutated, &v);
    ck_assert_ptr_null(ray_finding(&v));
}

START_TEST(mutation_writes_num_gpus)
{
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", SHARE2),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/num-gpus\",\"value\":\"2\"}]",
                       "ray-num-gpus");
    /* No rayStartParams: added whole. */
    check_ray_mutation(CLUSTER("", SHARE2),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams\",\"value\":{\"num-gpus\":\"2\"}}]",
                       "ray-num-gpus");
    /* The group's resources field, where the group uses it. */
    check_ray_mutation(CLUSTER(",\"resources\":{\"CPU\":\"2\"}", SHARE2),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/resources/GPU\",\"value\":\"2\"}]", "ray-num-gpus");
    /* RayJob: under its cluster spec; the container mutations come first and the count is theirs. */
    check_ray_mutation(
        RAY("RayJob", "{\"rayClusterSpec\":", "}", "", "{\"koordinator.sh/gpu-memory-ratio\":\"200\"}"),
        "[{\"op\":\"add\",\"path\":\"/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/containers/0/resources/"
        "requests\",\"value\":{\"koordinator.sh/gpu.shared\":\"2\"}},"
        "{\"op\":\"add\",\"path\":\"/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/containers/0/resources/"
        "limits/koordinator.sh~1gpu.shared\",\"value\":\"2\"},"
        "{\"op\":\"add\",\"path\":\"/spec/rayClusterSpec/workerGroupSpecs/0/rayStartParams\",\"value\":{\"num-gpus\":"
        "\"2\"}}]",
        "inject-gpu-shared,ray-num-gpus");
    /* mGPU cards */
    check_ray_mutation(
        CLUSTER(",\"rayStartParams\":{}", "{\"vke.volcengine.com/mgpu-core\":\"30\",\"vke.volcengine.com/mgpu-memory\":\"4096\"}"),
        "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/num-gpus\",\"value\":\"1\"}]", "ray-num-gpus");
}
END_TEST

START_TEST(mutation_leaves_alone)
{
    /* The user's count, vendor counts, a container the rules refuse, a group that uses both places. */
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"1\"}", SHARE2), "[]", "");
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", "{\"nvidia.com/gpu\":\"1\"}"), "[]", "");
    gpa_patch_t patch = {0};
    gpa_warnings_t w = {0};
    gpa_strings_t applied = {0};
    gpa_mutate(&arena, cfg, NULL, object_cfg(CLUSTER(",\"rayStartParams\":{}", "{\"koordinator.sh/gpu-core\":\"50\"}")), &patch, &w,
               &applied);
    ck_assert_int_eq(patch.len, 0);
    gpa_mutate(&arena, cfg, NULL,
               object_cfg(CLUSTER(",\"resources\":{\"CPU\":\"1\"},\"rayStartParams\":{\"num-cpus\":\"1\"}", SHARE2)), &patch, &w,
               &applied);
    ck_assert_int_eq(patch.len, 0);
    /* Switched off. */
    set_config("mutations: {ray-num-gpus: off}");
    gpa_mutate(&arena, cfg, NULL, object_cfg(CLUSTER("", SHARE2)), &patch, &w, &applied);
    ck_assert_int_eq(patch.len, 0);
}
END_TEST

START_TEST(gpu_memory_mutation)
{
    set_config("mutations: {ray-gpu-memory: on}");
    /* Merged into rayStartParams.resources without disturbing it. */
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{\"resources\":\"'{\\\"Custom1\\\": 1}'\"}", SHARE2),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/num-gpus\",\"value\":\"2\"},"
                       "{\"op\":\"replace\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/resources\","
                       "\"value\":\"'{\\\"Custom1\\\": 1,\\\"gpu_memory\\\":42949672960}'\"}]",
                       "ray-num-gpus,ray-gpu-memory");
    /* A new rayStartParams with both keys; the user's count kept. */
    check_ray_mutation(CLUSTER("", SHARE2),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams\",\"value\":{\"num-gpus\":\"2\","
                       "\"resources\":\"'{\\\"gpu_memory\\\":42949672960}'\"}}]",
                       "ray-num-gpus,ray-gpu-memory");
    /* The resources field: an entry. mGPU memory is MiB. */
    check_ray_mutation(CLUSTER(",\"resources\":{\"GPU\":\"1\"}",
                               "{\"vke.volcengine.com/mgpu-core\":\"30\",\"vke.volcengine.com/mgpu-memory\":\"1024\"}"),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/resources/gpu_memory\",\"value\":\"1073741824\"}]",
                       "ray-gpu-memory");
    /* No bytes in the request (a ratio): nothing to advertise. */
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"1\"}",
                               "{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}"),
                       "[]", "");
}
END_TEST

/* ---- ray-gpu-memory from an inventory's card memory ---- */

#define RATIO_HALF                                                                                                                 \
    "{\"koordinator.sh/gpu-memory-ratio\":\"50\",\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}"
#define WORKER_PARAMS "/spec/workerGroupSpecs/0/rayStartParams"

/* 80Gi training nodes, a 40Gi inference node, a 32Gi mGPU node. */
static const char *const cards =
    "kind: GPUInventory\n"
    "nodes:\n"
    "- {name: a100, replicas: 2, labels: {pool: training}, dialects: [koordinator], gpus: {count: 8, memory: 80Gi}}\n"
    "- {name: a40, labels: {pool: inference}, dialects: [koordinator], gpus: {count: 4, memory: 40Gi}}\n"
    "- {name: mgpu, dialects: [mgpu], gpus: {count: 4, memory: 32Gi}}\n";

/* The patch the mutations make of doc with the inventory `yaml` (NULL: none); mutating its result again changes nothing. */
static const char *with_inventory(const char *doc, const char *yaml)
{
    gpa_inventory_t *inv = NULL;
    if (yaml != NULL) {
        gpa_error_t err = {0};
        inv = gpa_inventory_new();
        ck_assert_int_eq(gpa_inventory_parse(inv, yaml, strlen(yaml), "test", &err), 0);
    }
    gpa_mutate_env_t env = {.inventory = inv};
    gpa_value_t *root = json(doc);
    gpa_patch_t patch = {0}, again = {0};
    gpa_warnings_t w = {0};
    gpa_strings_t applied = {0};
    gpa_mutate(&arena, cfg, &env, decode_cfg(root), &patch, &w, &applied);
    gpa_error_t err = {0};
    ck_assert(gpa_patch_apply(&arena, &root, &patch, &err) == 0);
    gpa_mutate(&arena, cfg, &env, decode_cfg(root), &again, &w, &applied);
    ck_assert_str_eq(patch_text(&again), "[]");
    gpa_inventory_release(inv);
    return patch_text(&patch);
}

START_TEST(gpu_memory_from_card_memory)
{
    set_config("mutations: {ray-gpu-memory: on}");
    const char *num_gpus = "[{\"op\":\"add\",\"path\":\"" WORKER_PARAMS "/num-gpus\",\"value\":\"1\"}";
    /* Every node it can land on has 80Gi cards (the nodeSelector leaves out the 40Gi one): half is 40Gi. */
    ck_assert_str_eq(with_inventory(CLUSTER(",\"rayStartParams\":{}", RATIO_HALF),
                                    "kind: GPUInventory\nnodes:\n"
                                    "- {name: a100, replicas: 2, gpus: {count: 8, memory: 80Gi}}\n"),
                     gpa_arena_printf(&arena,
                                      "%s,{\"op\":\"add\",\"path\":\"" WORKER_PARAMS "/resources\","
                                      "\"value\":\"'{\\\"gpu_memory\\\":42949672960}'\"}]",
                                      num_gpus));
    /* 40Gi and 80Gi cards where it can land: no bytes, and nothing denied or written but the count. */
    ck_assert_str_eq(with_inventory(CLUSTER(",\"rayStartParams\":{}", RATIO_HALF), cards),
                     gpa_arena_printf(&arena, "%s]", num_gpus));
    /* No inventory: the same. */
    ck_assert_str_eq(with_inventory(CLUSTER(",\"rayStartParams\":{}", RATIO_HALF), NULL),
                     gpa_arena_printf(&arena, "%s]", num_gpus));
    /* Truncated per device, as koord-scheduler grants it: 33% of 80Gi is 28346784153.6 bytes. */
    ck_assert_str_eq(
        with_inventory(CLUSTER(",\"resources\":{\"GPU\":\"1\"}", "{\"koordinator.sh/gpu-memory-ratio\":\"33\",\"koordinator.sh/"
                                                                 "gpu-core\":\"33\",\"koordinator.sh/gpu.shared\":\"1\"}"),
                       "kind: GPUInventory\nnodes:\n- {name: a100, gpus: {count: 8, memory: 80Gi}}\n"),
        "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/resources/gpu_memory\",\"value\":\"28346784153\"}]");
    /* Two whole mGPU cards on the 32Gi mGPU node: 64Gi. */
    ck_assert_str_eq(
        with_inventory(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"2\"}", "{\"vke.volcengine.com/mgpu-core\":\"200\"}"), cards),
        "[{\"op\":\"add\",\"path\":\"" WORKER_PARAMS "/resources\",\"value\":\"'{\\\"gpu_memory\\\":68719476736}'\"}]");
    /* Switched off (the default), the inventory changes nothing. */
    set_config("mutations: {ray-gpu-memory: off}");
    ck_assert_str_eq(with_inventory(CLUSTER(",\"rayStartParams\":{}", RATIO_HALF),
                                    "kind: GPUInventory\nnodes:\n"
                                    "- {name: a100, gpus: {count: 8, memory: 80Gi}}\n"),
                     gpa_arena_printf(&arena, "%s]", num_gpus));
}
END_TEST

START_TEST(gpu_memory_where_the_group_lands)
{
    set_config("mutations: {ray-gpu-memory: on}");
    /* A nodeSelector that keeps the group on the 80Gi nodes: their card memory. */
    const char *selected =
        "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"r\",\"namespace\":\"ml\"},"
        "\"spec\":{\"headGroupSpec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"h\",\"image\":\"ray\"}]}}},"
        "\"workerGroupSpecs\":[{\"groupName\":\"gpu\",\"rayStartParams\":{\"num-gpus\":\"1\"},\"template\":{\"spec\":{"
        "\"nodeSelector\":{\"pool\":\"training\"},\"containers\":[{\"name\":\"ray-worker\",\"image\":\"ray\","
        "\"resources\":{\"limits\":" RATIO_HALF "}}]}}}]}}";
    ck_assert_str_eq(with_inventory(selected, cards), "[{\"op\":\"add\",\"path\":\"" WORKER_PARAMS
                                                      "/resources\",\"value\":\"'{\\\"gpu_memory\\\":42949672960}'\"}]");
}
END_TEST

/* ---- HAMi: a container's vGPUs are its devices ---- */

#define HAMI_MEM "{\"nvidia.com/gpumem\":\"10000\"}"
#define HAMI_2X25 "{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem-percentage\":\"25\"}"

START_TEST(hami_devices)
{
    /* No count: defaultGPUNum (1) vGPU, as HAMi's webhook adds it to the Pod; gpumem MiB per vGPU. */
    gpa_ray_devices_t d = devices(CLUSTER("", HAMI_MEM));
    ck_assert_int_eq(d.devices, 1);
    ck_assert_int_eq(d.share, 1);
    ck_assert_int_eq(d.count_default, 1);
    ck_assert_str_eq(d.count_name, "nvidia.com/gpu");
    ck_assert_int_eq(d.memory, 10000LL << 20);
    /* A count: that many vGPUs; memory in total over them. */
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem\":\"3000\",\"nvidia.com/gpucores\":\"30\"}"));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_int_eq(d.count_default, 0);
    ck_assert_int_eq(d.memory, 6000LL << 20);
    /* A percentage: bytes once the card is known, floored to MiB as HAMi computes them. */
    d = devices(CLUSTER("", HAMI_2X25));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_int_eq(d.memory, 0);
    ck_assert_int_eq(d.ratio, 25);
    ck_assert_int_eq(d.ratio_mib, 1);
    /* Cores alone: the whole card's memory. */
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpucores\":\"50\"}"));
    ck_assert_int_eq(d.ratio, 100);
    /* A count alone is the vendor's whole cards: KubeRay counts them already. */
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"2\"}"));
    ck_assert_int_eq(d.share, 0);
    ck_assert_ptr_null(d.count_name);
    /* Unsound, or no vGPU at all (count 0, defaultGPUNum 0): none. */
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"0\",\"nvidia.com/gpumem\":\"1000\"}"));
    ck_assert_int_eq(d.devices, 0);
    d = devices(CLUSTER("", "{\"nvidia.com/gpu\":\"x\",\"nvidia.com/gpumem\":\"1000\"}"));
    ck_assert_int_eq(d.devices, 0);
    set_config("hami: {defaultGPUNum: 0}");
    d = devices(CLUSTER("", HAMI_MEM));
    ck_assert_int_eq(d.devices, 0);
    /* The configuration's memoryFactor and names. */
    set_config("hami: {memoryFactor: 4, defaultGPUNum: 2, resourceCountName: hami.io/vgpu-number}");
    d = devices(CLUSTER("", HAMI_MEM));
    ck_assert_int_eq(d.devices, 2);
    ck_assert_str_eq(d.count_name, "hami.io/vgpu-number");
    ck_assert_int_eq(d.memory, 2 * 4 * (10000LL << 20));
    /* HAMi off: not a HAMi container. */
    set_config("dialects: [vendor, koordinator, mgpu]");
    d = devices(CLUSTER("", HAMI_MEM));
    ck_assert_int_eq(d.devices, 0);
}
END_TEST

START_TEST(hami_rule_and_count)
{
    /* KubeRay derives the count from nvidia.com/gpu, HAMi's default count name: right, nothing written. */
    gpa_ray_count_t c = advertised(CLUSTER("", HAMI_2X25));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_LIMIT);
    ck_assert_int_eq(c.count, 2);
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", HAMI_2X25), "[]", "");
    /* No count in the template: KubeRay derives nothing, the mutation writes defaultGPUNum. */
    c = advertised(CLUSTER("", HAMI_MEM));
    ck_assert_int_eq(c.source, GPA_RAY_COUNT_NONE);
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", HAMI_MEM),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/num-gpus\",\"value\":\"1\"}]",
                       "ray-num-gpus");
    /* A user's count above the vGPUs is the user's to fix. */
    gpa_violations_t v = findings(CLUSTER(",\"rayStartParams\":{\"num-gpus\":\"3\"}", HAMI_2X25));
    const gpa_violation_t *f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(strstr(f->message, "gets 2 devices (nvidia.com/gpu)") != NULL, "%s", f->message);
    /* A renamed count name that does not end in gpu: KubeRay derives 0, the mutation writes the count. */
    set_config("hami: {resourceCountName: hami.io/vgpu-number}");
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", "{\"hami.io/vgpu-number\":\"2\",\"nvidia.com/gpumem\":\"1000\"}"),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams/num-gpus\",\"value\":\"2\"}]",
                       "ray-num-gpus");
    /* One that ends in gpu: KubeRay counts it. */
    set_config("hami: {resourceCountName: example.com/vgpu}");
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", "{\"example.com/vgpu\":\"2\",\"nvidia.com/gpumem\":\"1000\"}"), "[]", "");
    /* With the mutation off, the rule says why the template has no count. */
    set_config("mutations: {ray-num-gpus: off}");
    v = findings(CLUSTER("", HAMI_MEM));
    f = ray_finding(&v);
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(strstr(f->message, "HAMi's webhook adds nvidia.com/gpu to the Pod, not to the template KubeRay reads") != NULL,
                  "%s", f->message);
    v = findings(CLUSTER("", HAMI_2X25));
    ck_assert_ptr_null(ray_finding(&v));
}
END_TEST

START_TEST(hami_gpu_memory)
{
    set_config("mutations: {ray-gpu-memory: on}");
    /* gpumem x count, in bytes; the count written beside it (none in the template). */
    check_ray_mutation(CLUSTER("", HAMI_MEM),
                       "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/rayStartParams\",\"value\":{\"num-gpus\":\"1\","
                       "\"resources\":\"'{\\\"gpu_memory\\\":10485760000}'\"}}]",
                       "ray-num-gpus,ray-gpu-memory");
    /* A percentage without an inventory: nothing known. */
    check_ray_mutation(CLUSTER(",\"rayStartParams\":{}", HAMI_2X25), "[]", "");
    /* With one card memory where it lands: floor(81920 MiB x 33 / 100) = 27033 MiB per vGPU, HAMi's arithmetic
     * (koord-scheduler's bytes would be 28346784153). */
    const char *hami_nodes = "kind: GPUInventory\nnodes:\n"
                             "- {name: h100, replicas: 2, dialects: [vendor, hami], gpus: {count: 4, memory: 80Gi}}\n";
    ck_assert_str_eq(with_inventory(CLUSTER(",\"resources\":{\"GPU\":\"2\"}",
                                            "{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem-percentage\":\"33\"}"),
                                    hami_nodes),
                     "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/resources/gpu_memory\",\"value\":\"56692310016\"}]");
    /* Cores alone: the whole card, 80Gi per vGPU. */
    ck_assert_str_eq(
        with_inventory(CLUSTER(",\"resources\":{\"GPU\":\"1\"}", "{\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpucores\":\"50\"}"),
                       hami_nodes),
        "[{\"op\":\"add\",\"path\":\"/spec/workerGroupSpecs/0/resources/gpu_memory\",\"value\":\"85899345920\"}]");
    /* Cards of two memories where it can land: nothing. */
    ck_assert_str_eq(with_inventory(CLUSTER(",\"resources\":{\"GPU\":\"2\"}", HAMI_2X25),
                                    "kind: GPUInventory\nnodes:\n"
                                    "- {name: a, dialects: [vendor, hami], gpus: {count: 4, memory: 80Gi}}\n"
                                    "- {name: b, dialects: [vendor, hami], gpus: {count: 4, memory: 40Gi}}\n"),
                     "[]");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ray");
    TCase *tc = tcase_create("ray");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, groups_of_every_kind);
    tcase_add_test(tc, advertised_as_kuberay_derives);
    tcase_add_test(tc, devices_per_dialect);
    tcase_add_test(tc, resources_merge_keeps_text);
    tcase_add_test(tc, resources_merge_exactly_one_object);
    tcase_add_test(tc, resources_merge_escaped_form);
    tcase_add_test(tc, rule_fires_on_what_the_mutation_cannot_fix);
    tcase_add_test(tc, rule_with_the_mutation_off);
    tcase_add_test(tc, config_rejects_unknown_mutation);
    tcase_add_test(tc, mutation_writes_num_gpus);
    tcase_add_test(tc, mutation_leaves_alone);
    tcase_add_test(tc, gpu_memory_mutation);
    tcase_add_test(tc, gpu_memory_from_card_memory);
    tcase_add_test(tc, gpu_memory_where_the_group_lands);
    tcase_add_test(tc, hami_devices);
    tcase_add_test(tc, hami_rule_and_count);
    tcase_add_test(tc, hami_gpu_memory);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
