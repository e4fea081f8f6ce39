/*
 * cli/suite/suite.c and cli/test.c: the suite parser on good and broken suites (errors with their line numbers),
 * expectation matching through the engine, suite discovery, and `gpuadmit test`'s exit codes and output
 * formats (the built binary, found through GPA_BINARY_DIR as ctest sets it).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suite/suite.h"
#include "run.h"

/* ---- fixtures: a temporary folder per test ---- */

static char tmpdir[256];

static void setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/gpa-test-suite-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Writes tmpdir/name (making its folder) and returns the path (static buffer, valid until the next call). */
static const char *put(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    for (char *p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0'; /* every folder on the way */
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define HEADER "apiVersion: gpuadmit.io/v1alpha1\nkind: Test\nname: t\n"
#define POD_CORE_ONLY                                                                                                              \
    "    apiVersion: v1\n    kind: Pod\n    metadata: {name: p, namespace: ns}\n    spec:\n      containers:\n"                    \
    "      - name: main\n        image: x\n        resources:\n          limits: {koordinator.sh/gpu-core: \"50\"}\n"
#define POD_RATIO                                                                                                                  \
    "    apiVersion: v1\n    kind: Pod\n    metadata: {name: q, namespace: ns}\n    spec:\n      containers:\n"                    \
    "      - name: main\n        image: x\n        resources:\n          limits: {koordinator.sh/gpu-memory-ratio: \"30\"}\n"

/* Loads a suite expected to be broken; returns the formatted error. */
static const char *load_error(const char *text)
{
    static char msg[1024];
    gpa_suite_t s;
    gpa_error_t err = {0};
    const char *path = put("gpuadmit-test.yaml", text);
    ck_assert_int_eq(gpa_suite_load(path, &s, &err), -1);
    gpa_error_format(&err, msg, sizeof(msg));
    gpa_suite_dispose(&s);
    return msg;
}

static void assert_contains(const char *haystack, const char *needle)
{
    ck_assert_msg(strstr(haystack, needle) != NULL, "\"%s\" does not contain \"%s\"", haystack, needle);
}

/* ---- the parser: good suites ---- */

START_TEST(test_load_example_suite)
{
    gpa_suite_t s;
    gpa_error_t err = {0};
    int rc = gpa_suite_load("examples/tests/koordinator/gpuadmit-test.yaml", &s, &err);
    char msg[1024];
    gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(rc == 0, "%s", msg);
    ck_assert_str_eq(s.name, "koordinator");
    ck_assert_uint_gt(s.ncases, 10);
    ck_assert_ptr_nonnull(s.config);
    ck_assert_ptr_null(s.inventory);
    const gpa_suite_case_t *c = &s.cases[0];
    ck_assert_str_eq(c->name, "notebook-gets-gpu-shared");
    ck_assert_str_eq(c->object_desc, "Pod/team-a/notebook");
    ck_assert_int_eq(c->operation, GPA_OP_CREATE);
    ck_assert_int_eq(c->mutate, 1);
    ck_assert_int_eq(c->expect.allowed, 1);
    ck_assert_int_eq(c->expect.has_rules, 1);
    ck_assert_uint_eq(c->expect.rules.len, 0);
    ck_assert_int_eq(c->expect.has_mutations, 1);
    ck_assert_str_eq(c->expect.mutations.items[0], "inject-gpu-shared");
    ck_assert_ptr_nonnull(c->expect.patched);
    gpa_suite_dispose(&s);
}
END_TEST

START_TEST(test_load_every_object_form)
{
    put("objs.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n"
                     "- apiVersion: v1\n  kind: Pod\n  metadata: {name: b, namespace: x}\n");
    put("one.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: one}\n");
    const char *path =
        put("gpuadmit-test.yaml", HEADER "resources: objs.yaml\ncases:\n"
                                         "- name: ref-default-namespace\n  object: Pod/a\n  expect: {allowed: true}\n"
                                         "- name: ref-full\n  object: Pod/x/b\n  expect: {allowed: true}\n"
                                         "- name: file\n  file: one.yaml\n  expect: {allowed: true}\n"
                                         "- name: object-file\n  object: {file: one.yaml}\n  expect: {allowed: true}\n"
                                         "- name: update\n  object: Pod/default/a\n  operation: UPDATE\n"
                                         "  oldObject: {inline: {apiVersion: v1, kind: Pod, metadata: {name: a}}}\n"
                                         "  mutate: false\n  expect: {allowed: true}\n");
    gpa_suite_t s;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_suite_load(path, &s, &err), 0);
    ck_assert_uint_eq(s.ncases, 5);
    ck_assert_str_eq(s.cases[0].object_desc, "Pod/a");
    ck_assert_ptr_nonnull(s.cases[2].object);
    ck_assert_str_eq(s.cases[3].object_desc, "file one.yaml");
    ck_assert_int_eq(s.cases[4].operation, GPA_OP_UPDATE);
    ck_assert_int_eq(s.cases[4].mutate, 0);
    ck_assert_ptr_nonnull(s.cases[4].old_object);
    gpa_suite_dispose(&s);
}
END_TEST

/* ---- the parser: broken suites, each with its line ---- */

START_TEST(test_unknown_field)
{
    const char *msg = load_error(HEADER "cases:\n- name: a\n  inline: {kind: Pod}\n  expect:\n    allowed: true\n    rule: [x]\n");
    assert_contains(msg, "gpuadmit-test.yaml:9:");
    assert_contains(msg, ":9:11: cases[0].expect: unknown field \"rule\"; known: allowed, rules, warnings, mutations, patched");
}
END_TEST

START_TEST(test_unknown_top_level_field)
{
    const char *msg = load_error(HEADER "namespace: x\ncases: []\n");
    assert_contains(msg, ":4:");
    assert_contains(msg, ":4:12: unknown field \"namespace\"; known: apiVersion, kind, name, config, inventory, resources, cases");
}
END_TEST

START_TEST(test_missing_file)
{
    const char *msg = load_error(HEADER "cases:\n- name: a\n  file: nowhere.yaml\n  expect: {allowed: true}\n");
    assert_contains(msg, "gpuadmit-test.yaml:6:");
    assert_contains(msg, "nowhere.yaml");
}
END_TEST

START_TEST(test_missing_resource_and_config)
{
    const char *msg = load_error(HEADER "resources:\n- gone.yaml\ncases:\n- name: a\n  inline: {}\n  expect: {allowed: true}\n");
    assert_contains(msg, ":5:");
    assert_contains(msg, "gone.yaml");
    msg = load_error(HEADER "config: gone.yaml\ncases:\n- name: a\n  inline: {}\n  expect: {allowed: true}\n");
    assert_contains(msg, ":4:");
}
END_TEST

START_TEST(test_object_not_found)
{
    put("pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: here, namespace: ns}\n");
    const char *msg =
        load_error(HEADER "resources: [pods.yaml]\ncases:\n- name: a\n  object: Pod/ns/missing\n  expect: {allowed: true}\n");
    assert_contains(msg, ":7:");
    assert_contains(msg, "Pod/ns/missing not found");
    msg = load_error(HEADER "resources: [pods.yaml]\ncases:\n- name: a\n  object: Pod\n  expect: {allowed: true}\n");
    assert_contains(msg, "not Kind/namespace/name");
}
END_TEST

START_TEST(test_ambiguous_object)
{
    put("pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: twin}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: twin}\n");
    const char *msg =
        load_error(HEADER "resources: [pods.yaml]\ncases:\n- name: a\n  object: Pod/twin\n  expect: {allowed: true}\n");
    assert_contains(msg, "names two objects");
}
END_TEST

START_TEST(test_bad_header)
{
    assert_contains(load_error("apiVersion: v1\nkind: Test\nname: t\ncases: []\n"), "apiVersion must be gpuadmit.io/v1alpha1");
    assert_contains(load_error("apiVersion: gpuadmit.io/v1alpha1\nkind: Pod\nname: t\ncases: []\n"), "kind must be Test");
    assert_contains(load_error("apiVersion: gpuadmit.io/v1alpha1\nkind: Test\ncases: []\n"), "\"name\"");
    assert_contains(load_error(HEADER "cases: []\n"), "at least one case");
    assert_contains(load_error("- a\n- b\n"), "gpuadmit-test.yaml:1:1: must be a mapping, not a list");
    assert_contains(load_error(HEADER "cases: [1]\n---\nx: 1\n"), "one document");
}
END_TEST

START_TEST(test_bad_cases)
{
    const char *obj = "  inline: {kind: Pod}\n";
    char text[1024];
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true}\n- name: a\n%s  expect: {allowed: true}\n",
             obj, obj);
    assert_contains(load_error(text), "used twice");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  operation: UPDATE\n  expect: {allowed: true}\n", obj);
    assert_contains(load_error(text), "UPDATE needs oldObject");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  operation: PATCH\n  expect: {allowed: true}\n", obj);
    assert_contains(load_error(text), "operation must be");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true, rules: [no-such-rule]}\n", obj);
    const char *msg = load_error(text);
    assert_contains(msg, "unknown rule id \"no-such-rule\"");
    assert_contains(msg, ":7:");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true, mutations: [shrink]}\n", obj);
    assert_contains(load_error(text), "unknown mutation id");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {rules: []}\n", obj);
    assert_contains(load_error(text), "\"allowed\"");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: \"yes\"}\n", obj);
    assert_contains(load_error(text), "must be a boolean");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  file: x.yaml\n  expect: {allowed: true}\n", obj);
    assert_contains(load_error(text), "exactly one of object, file and inline");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s", obj);
    assert_contains(load_error(text), "\"expect\"");
}
END_TEST

START_TEST(test_bad_placement)
{
    const char *obj = "  inline: {kind: Pod}\n";
    char text[1024];
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true, placement: {node: x, minor: [0]}}\n", obj);
    assert_contains(load_error(text), "unknown field \"minor\"; known: now, node, minors, annotations");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true, placement: {now: true}}\n", obj);
    assert_contains(load_error(text), "missing required field \"node\"");
    snprintf(text, sizeof(text), HEADER "cases:\n- name: a\n%s  expect: {allowed: true, placement: {node: x, minors: [-1]}}\n",
             obj);
    assert_contains(load_error(text), "minors[0]: must be a device minor");
    snprintf(text, sizeof(text),
             HEADER "cases:\n- name: a\n%s  expect: {allowed: true, placement: {node: x, minors: [0, \"1\"]}}\n", obj);
    assert_contains(load_error(text), "minors[1]: must be a device minor");
    snprintf(text, sizeof(text),
             HEADER "cases:\n- name: a\n%s  expect: {allowed: true, placement: {node: x, annotations: {k: 1}}}\n", obj);
    assert_contains(load_error(text), "annotations.k: must be a string");
    snprintf(text, sizeof(text),
             HEADER "cases:\n- name: a\n%s  operation: DELETE\n  oldObject: {inline: {kind: Pod}}\n"
                    "  expect: {allowed: true, placement: {node: null}}\n",
             obj);
    assert_contains(load_error(text), "placement is for objects a Pod is created from");
}
END_TEST

START_TEST(test_file_with_two_objects)
{
    put("two.yaml", "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n");
    const char *msg = load_error(HEADER "cases:\n- name: a\n  file: two.yaml\n  expect: {allowed: true}\n");
    assert_contains(msg, "holds 2 objects");
}
END_TEST

START_TEST(test_unparsable_object_file)
{
    put("bad.yaml", "kind: Pod\nmetadata: {name: [\n");
    const char *msg = load_error(HEADER "cases:\n- name: a\n  file: bad.yaml\n  expect: {allowed: true}\n");
    assert_contains(msg, "bad.yaml:");
}
END_TEST

/* ---- running and matching ---- */

static void run_one(const char *suite_text, size_t index, gpa_suite_result_t *r, gpa_arena_t *a, gpa_suite_t *s)
{
    gpa_error_t err = {0};
    const char *path = put("gpuadmit-test.yaml", suite_text);
    char msg[1024];
    int rc = gpa_suite_load(path, s, &err);
    gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(rc == 0, "%s", msg);
    gpa_suite_run_case(a, s, &s->cases[index], r);
}

START_TEST(test_matching_passes)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: false, rules: [core-without-memory]}\n", 0,
            &r, &a, &s);
    ck_assert_int_eq(r.passed, 1);
    ck_assert_int_eq(r.error, 0);
    ck_assert_uint_eq(r.differences.len, 0);
    ck_assert_str_eq(r.expected, "deny [core-without-memory]");
    ck_assert_str_eq(r.got, "deny [core-without-memory]");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_matching_reports_differences)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_CORE_ONLY
                   "  expect: {allowed: true, rules: [min-memory], warnings: [zzz], mutations: [mirror-limits]}\n",
            0, &r, &a, &s);
    ck_assert_int_eq(r.passed, 0);
    ck_assert_uint_eq(r.differences.len, 4);
    ck_assert_str_eq(r.differences.items[0], "allowed: expected true, got false");
    ck_assert_str_eq(r.differences.items[1], "rules: missing min-memory; unexpected core-without-memory");
    assert_contains(r.differences.items[2], "warnings: none contains \"zzz\"");
    ck_assert_str_eq(r.differences.items[3], "mutations: missing mirror-limits");
    ck_assert_uint_eq(r.findings.len, 1);
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_rules_are_a_set)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    /* An empty list means "no findings"; an absent one is not checked. */
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_RATIO "  expect: {allowed: true, rules: []}\n"
                   "- name: b\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: false}\n"
                   "- name: c\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: false, rules: []}\n",
            0, &r, &a, &s);
    ck_assert_int_eq(r.passed, 1);
    gpa_suite_run_case(&a, &s, &s.cases[1], &r);
    ck_assert_int_eq(r.passed, 1);
    gpa_suite_run_case(&a, &s, &s.cases[2], &r);
    ck_assert_int_eq(r.passed, 0);
    ck_assert_str_eq(r.differences.items[0], "rules: unexpected core-without-memory");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_mutation_and_patched)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    put("good.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: ns}\nspec:\n  containers:\n  - name: main\n"
        "    image: x\n    resources:\n      limits: {koordinator.sh/gpu-memory-ratio: \"30\", koordinator.sh/gpu.shared: \"1\"}\n"
        "      requests: {koordinator.sh/gpu.shared: \"1\"}\n");
    put("wrong.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: ns}\nspec:\n  containers:\n  - name: main\n"
        "    image: x\n    resources:\n      limits: {koordinator.sh/gpu-memory-ratio: \"30\", koordinator.sh/gpu.shared: \"2\"}\n"
        "      requests: {koordinator.sh/gpu.shared: \"1\"}\n");
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_RATIO
                   "  expect: {allowed: true, rules: [], mutations: [inject-gpu-shared], patched: good.yaml}\n"
                   "- name: b\n  inline:\n" POD_RATIO "  expect: {allowed: true, patched: wrong.yaml}\n"
                   "- name: c\n  inline:\n" POD_RATIO "  mutate: false\n  expect: {allowed: false, rules: [shared-required]}\n",
            0, &r, &a, &s);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    ck_assert_str_eq(r.mutations.items[0], "inject-gpu-shared");
    gpa_suite_run_case(&a, &s, &s.cases[1], &r);
    ck_assert_int_eq(r.passed, 0);
    assert_contains(r.differences.items[0],
                    "spec.containers[0].resources.limits[\"koordinator.sh/gpu.shared\"]: expected string \"2\"");
    gpa_suite_run_case(&a, &s, &s.cases[2], &r);
    ck_assert_int_eq(r.passed, 1);
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_update_against_old_object)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    put("old.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers:\n  - name: main\n"
                    "    image: x\n    resources:\n      limits: {koordinator.sh/gpu-core: \"50\"}\n");
    put("fine.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers:\n  - name: main\n"
                     "    image: x\n");
    /* The old object already had core-without-memory: the update passes; from a clean old object it does not. */
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_CORE_ONLY "  operation: UPDATE\n  oldObject: {file: old.yaml}\n"
                   "  expect: {allowed: true, rules: []}\n"
                   "- name: b\n  inline:\n" POD_CORE_ONLY "  operation: UPDATE\n  oldObject: {file: fine.yaml}\n"
                   "  expect: {allowed: false, rules: [core-without-memory]}\n",
            0, &r, &a, &s);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    gpa_suite_run_case(&a, &s, &s.cases[1], &r);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_undecodable_object_is_an_error_result)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(HEADER "cases:\n- name: a\n  inline: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: 7}}\n"
                   "  expect: {allowed: true}\n",
            0, &r, &a, &s);
    ck_assert_int_eq(r.passed, 0);
    ck_assert_int_eq(r.error, 1);
    ck_assert_str_eq(r.got, "error");
    assert_contains(r.differences.items[0], "gpuadmit-test.yaml:6:");
    assert_contains(r.differences.items[0], "spec.containers");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

/* ---- discovery ---- */

/* A share of 50% on two 16Gi GPUs, minor 0 half used: binpack puts it on minor 0 (now) or minor 0 (empty nodes). */
#define PLACE_INVENTORY                                                                                                            \
    "kind: GPUInventory\nnodes:\n- name: gpu-a\n  dialects: [koordinator]\n  gpus: {count: 2, memory: 16Gi}\n"                     \
    "  used: [{minor: 0, core: 50, ratio: 50, pod: t/x}]\n"
#define POD_HALF(name)                                                                                                             \
    "    apiVersion: v1\n    kind: Pod\n    metadata: {name: " name ", namespace: ns}\n    spec:\n      containers:\n"             \
    "      - name: main\n        image: x\n        resources:\n          limits: {koordinator.sh/gpu-core: \"50\", "               \
    "koordinator.sh/gpu-memory-ratio: \"50\", koordinator.sh/gpu.shared: \"1\"}\n"
#define POD_WHOLE                                                                                                                  \
    "    apiVersion: v1\n    kind: Pod\n    metadata: {name: w, namespace: ns}\n    spec:\n      containers:\n"                    \
    "      - name: main\n        image: x\n        resources:\n          limits: {koordinator.sh/gpu-core: \"200\", "              \
    "koordinator.sh/gpu-memory-ratio: \"200\", koordinator.sh/gpu.shared: \"2\"}\n"
#define ALLOCATED_MINOR0                                                                                                           \
    "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu-memory\":\"8Gi\","              \
    "\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}"

/* Runs case `index` of a loaded suite and checks it failed with exactly this one difference. */
static void assert_one_difference(gpa_arena_t *a, const gpa_suite_t *s, size_t index, const char *difference)
{
    gpa_suite_result_t r;
    gpa_suite_run_case(a, s, &s->cases[index], &r);
    ck_assert_int_eq(r.passed, 0);
    ck_assert_uint_eq(r.differences.len, 1);
    ck_assert_str_eq(r.differences.items[0], difference);
}

START_TEST(test_placement)
{
    put("inv.yaml", PLACE_INVENTORY);
    put("binpack.yaml", "placement: {strategy: binpack}\n");
    static const char text[] =
        HEADER "inventory: inv.yaml\nconfig: binpack.yaml\ncases:\n"
               "- name: fits\n  inline:\n" POD_HALF(
                   "a") "  expect:\n    allowed: true\n    placement:\n      now: true\n"
                        "      node: gpu-a\n      minors: [0]\n      annotations:\n"
                        "        scheduling.koordinator.sh/device-allocated: '" ALLOCATED_MINOR0 "'\n"
                        "- name: wrong-minor\n  inline:\n" POD_HALF(
                            "b") "  expect: {allowed: true, placement: {now: true, node: gpu-a, minors: [1]}}\n"
                                 "- name: wrong-node-and-annotation\n  inline:\n" POD_HALF(
                                     "c") "  expect:\n    allowed: true\n"
                                          "    placement: {node: gpu-b, annotations: {k: v}}\n"
                                          "- name: no-room-now\n  inline:\n" POD_WHOLE
                                          "  expect: {allowed: true, placement: {now: true, node: null}}\n"
                                          "- name: fits-empty\n  inline:\n" POD_WHOLE
                                          "  expect: {allowed: true, placement: {node: null}}\n"
                                          "- name: no-gpu\n  inline: {apiVersion: v1, kind: Pod, metadata: {name: d}, spec: "
                                          "{containers: [{name: m, image: x}]}}\n"
                                          "  expect: {allowed: true, placement: {node: null}}\n";
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(text, 0, &r, &a, &s);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    assert_one_difference(&a, &s, 1, "placement: expected minors [1], got node gpu-a minors [0]");
    gpa_suite_run_case(&a, &s, &s.cases[2], &r);
    ck_assert_uint_eq(r.differences.len, 2);
    ck_assert_str_eq(r.differences.items[0], "placement: expected node gpu-b, got node gpu-a minors [0]");
    ck_assert_str_eq(r.differences.items[1], "placement: annotation k: expected 'v', got none");
    gpa_suite_run_case(&a, &s, &s.cases[3], &r); /* two whole GPUs: minor 0 is shared now */
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    /* ... but the empty node holds them */
    assert_one_difference(&a, &s, 4, "placement: expected node none, got node gpu-a minors [0, 1]");
    assert_one_difference(&a, &s, 5, "placement: the Pod has no GPU request that normalizes");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

/* DRA: a claim placed on ResourceSlices, as `gpuadmit fit` places it: node, devices, or why never. */
#define DRA_INVENTORY                                                                                                              \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"                                                   \
    "spec: {selectors: [{cel: {expression: \"device.driver == 'd.example.com'\"}}]}\n---\n"                                        \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"                                                   \
    "spec: {driver: d.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 1}, "                         \
    "devices: [{name: gpu-0}, {name: gpu-1}]}\n"
#define DRA_CLAIM(name, count)                                                                                                     \
    "  inline: {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: " name ", namespace: ns}, "                  \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: " count "}}]}}}\n"
#define DRA_CASE(name, count, expect) "- name: " name "\n" DRA_CLAIM(name, count) "  expect: " expect "\n"

START_TEST(test_dra_placement)
{
    put("inv.yaml", DRA_INVENTORY);
    static const char text[] = HEADER "inventory: inv.yaml\ncases:\n" DRA_CASE(
        "two", "2", "{allowed: true, placement: {node: n1, devices: [n1/gpu-0, n1/gpu-1]}}")
        DRA_CASE("wrong-devices", "1", "{allowed: true, placement: {node: n1, devices: [n1/gpu-1]}}")
            DRA_CASE("never", "3", "{allowed: false, placement: {node: null, reason: \"at most 2\"}}")
                DRA_CASE("wrong-reason", "3", "{allowed: false, placement: {node: null, reason: \"x\"}}")
                    DRA_CASE("expected-a-node", "3", "{allowed: false, placement: {node: n1}}");
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(text, 0, &r, &a, &s);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    assert_one_difference(&a, &s, 1, "placement: expected devices [n1/gpu-1], got [n1/gpu-0]");
    gpa_suite_run_case(&a, &s, &s.cases[2], &r);
    ck_assert_msg(r.passed, "%s", r.differences.len ? r.differences.items[0] : "");
    assert_one_difference(&a, &s, 3,
                          "placement: expected never because of x, got never: request r: 3 devices on one node asked, at most 2 on "
                          "any node");
    assert_one_difference(&a, &s, 4,
                          "placement: expected node n1, got never: request r: 3 devices on one node asked, at most 2 on any node");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
    assert_contains(load_error(HEADER "cases:\n- name: a\n" DRA_CLAIM(
                        "a", "1") "  expect: {allowed: true, placement: {node: n1, reason: x}}\n"),
                    "a reason is why no node takes the object: for node null only");
}
END_TEST

START_TEST(test_placement_needs_inventory)
{
    gpa_arena_t a = {0};
    gpa_suite_t s;
    gpa_suite_result_t r;
    run_one(HEADER "cases:\n- name: a\n  inline:\n" POD_HALF("a") "  expect: {allowed: true, placement: {node: null}}\n", 0, &r, &a,
            &s);
    assert_one_difference(&a, &s, 0, "placement: the suite has no inventory");
    gpa_suite_dispose(&s);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(test_find_recursive_sorted)
{
    put("b/gpuadmit-test.yaml", "x");
    put("a/deeper/gpuadmit-test.yaml", "x");
    put("a/other.yaml", "x");
    put(".hidden/gpuadmit-test.yaml", "x");
    char **files = NULL;
    size_t n = 0;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_suite_find(tmpdir, &files, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    assert_contains(files[0], "/a/deeper/gpuadmit-test.yaml");
    assert_contains(files[1], "/b/gpuadmit-test.yaml");
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    files = NULL;
    n = 0;
    ck_assert_int_eq(gpa_suite_find("/nonexistent/gpa", &files, &n, &err), -1);
    assert_contains(err.message, "/nonexistent/gpa");
    free(files);
}
END_TEST

/* ---- the binary: exit codes and formats ---- */

/* Runs `gpuadmit test ARGS` (stdout to tmpdir/out); returns the exit code. */
static int run_bin(const char *args)
{
    const char *bin = getenv("GPA_BINARY_DIR");
    ck_assert_msg(bin != NULL, "GPA_BINARY_DIR is not set (run through ctest)");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "'%s/gpuadmit' test %s > '%s/out' 2> '%s/err'", bin, args, tmpdir, tmpdir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static char *slurp(const char *name)
{
    static char buf[65536];
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(test_exit_codes)
{
    char args[600];
    put("pass/gpuadmit-test.yaml", HEADER "cases:\n- name: ok\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: false}\n");
    put("fail/gpuadmit-test.yaml", HEADER "cases:\n- name: wrong\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: true}\n");
    put("broken/gpuadmit-test.yaml", HEADER "cases:\n- name: x\n  bogus: 1\n");
    put("empty/readme.txt", "no suites here\n");
    snprintf(args, sizeof(args), "'%s/pass'", tmpdir);
    ck_assert_int_eq(run_bin(args), 0);
    assert_contains(slurp("out"), "1 passed, 0 failed");
    snprintf(args, sizeof(args), "'%s/fail'", tmpdir);
    ck_assert_int_eq(run_bin(args), 1);
    char *out = slurp("out");
    assert_contains(out, "SUITE");
    assert_contains(out, "--- FAIL: t/wrong");
    assert_contains(out, "allowed: expected true, got false");
    assert_contains(out, "0 passed, 1 failed\n");
    snprintf(args, sizeof(args), "'%s/empty'", tmpdir);
    ck_assert_int_eq(run_bin(args), 2);
    assert_contains(slurp("err"), "no test found");
    snprintf(args, sizeof(args), "'%s/broken' '%s/pass'", tmpdir, tmpdir);
    ck_assert_int_eq(run_bin(args), 2);
    assert_contains(slurp("err"), "broken/gpuadmit-test.yaml:6:");
    snprintf(args, sizeof(args), "--run '^nomatch$' '%s/pass'", tmpdir);
    ck_assert_int_eq(run_bin(args), 2);
    snprintf(args, sizeof(args), "--run 't/ok' '%s'", tmpdir);
    ck_assert_int_eq(run_bin(args), 2); /* the broken suite still counts */
    snprintf(args, sizeof(args), "--run '^t/o' '%s/pass' '%s/fail'", tmpdir, tmpdir);
    ck_assert_int_eq(run_bin(args), 0);
    snprintf(args, sizeof(args), "--run '(' '%s/pass'", tmpdir);
    ck_assert_int_eq(run_bin(args), 2);
    ck_assert_int_eq(run_bin("-o xml ."), 2);
    ck_assert_int_eq(run_bin(""), 2);
    ck_assert_int_eq(run_bin("--help"), 0);
    ck_assert_int_eq(run_bin("/nonexistent/gpa"), 2);
}
END_TEST

START_TEST(test_junit_and_json)
{
    char args[600];
    put("s/gpuadmit-test.yaml", "apiVersion: gpuadmit.io/v1alpha1\nkind: Test\nname: \"a<b & \\\"c\\\"\"\ncases:\n"
                                "- name: \"x]]>y\"\n  inline:\n" POD_CORE_ONLY "  expect: {allowed: true}\n");
    snprintf(args, sizeof(args), "-o junit '%s/s'", tmpdir);
    ck_assert_int_eq(run_bin(args), 1);
    char *xml = slurp("out");
    assert_contains(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    assert_contains(xml, "<testsuites name=\"gpuadmit\" tests=\"1\" failures=\"1\" errors=\"0\">");
    assert_contains(xml, "name=\"a&#60;b &#38; &#34;c&#34;\"");
    assert_contains(xml, "name=\"x]]&#62;y\"");
    assert_contains(xml, "<failure message=\"allowed: expected true, got false\"");
    ck_assert_ptr_null(strstr(xml, "a<b"));
    snprintf(args, sizeof(args), "--output=json '%s/s'", tmpdir);
    ck_assert_int_eq(run_bin(args), 1);
    char *json = slurp("out");
    assert_contains(json, "{\"passed\":0,\"failed\":1,\"results\":[");
    assert_contains(json, "\"suite\":\"a<b & \\\"c\\\"\"");
    assert_contains(json, "\"differences\":[\"allowed: expected true, got false\"]");
}
END_TEST

/* ---- what a suite may read: regular files under its own directory, capped ---- */

#define CASE_FILE(f) HEADER "cases:\n- name: a\n  file: " f "\n  expect: {allowed: true}\n"
#define SECRET_POD "apiVersion: v1\nkind: Pod\nmetadata: {name: TOKEN-abc123, namespace: ns}\nspec: {containers: []}\n"

/* Loads tmpdir/s/gpuadmit-test.yaml with the given extra folders; returns the error ("" when it loads). */
static const char *load_in_s(const char *text, const char *const *allow, size_t nallow)
{
    static char msg[1024];
    char path[600];
    snprintf(path, sizeof(path), "%s", put("s/gpuadmit-test.yaml", text));
    gpa_suite_t s;
    gpa_error_t err = {0};
    msg[0] = '\0';
    if (gpa_suite_load_from(path, allow, nallow, &s, &err) != 0)
        gpa_error_format(&err, msg, sizeof(msg));
    gpa_suite_dispose(&s);
    return msg;
}

START_TEST(test_reads_only_under_its_directory)
{
    put("outside/pod.yaml", SECRET_POD);
    put("s/inside/pod.yaml", SECRET_POD);
    char text[1024], link[600], target[600];
    /* ../ and an absolute path: refused, the path named, the content never */
    const char *msg = load_in_s(CASE_FILE("../outside/pod.yaml"), NULL, 0);
    assert_contains(msg, "gpuadmit-test.yaml:6:");
    assert_contains(msg, "../outside/pod.yaml is outside the suite's directory");
    ck_assert_ptr_null(strstr(msg, "TOKEN"));
    snprintf(text, sizeof(text), CASE_FILE("%s/outside/pod.yaml"), tmpdir);
    assert_contains(load_in_s(text, NULL, 0), "is outside the suite's directory");
    /* a symlink inside pointing outside: resolved, then refused */
    snprintf(link, sizeof(link), "%s/s/link.yaml", tmpdir);
    snprintf(target, sizeof(target), "%s/outside/pod.yaml", tmpdir);
    ck_assert_int_eq(symlink(target, link), 0);
    assert_contains(load_in_s(CASE_FILE("link.yaml"), NULL, 0), "link.yaml is outside the suite's directory");
    /* a subfolder and a ../ that comes back inside are fine */
    ck_assert_str_eq(load_in_s(CASE_FILE("inside/pod.yaml"), NULL, 0), "");
    ck_assert_str_eq(load_in_s(CASE_FILE("inside/../inside/pod.yaml"), NULL, 0), "");
    /* a folder allowed by name lets the same suite read there */
    char allowed[600];
    snprintf(allowed, sizeof(allowed), "%s/outside", tmpdir);
    const char *allow[] = {allowed};
    ck_assert_str_eq(load_in_s(CASE_FILE("../outside/pod.yaml"), allow, 1), "");
    ck_assert_str_eq(load_in_s(CASE_FILE("link.yaml"), allow, 1), "");
    /* a sibling whose name starts like the suite's folder is not under it */
    put("s2/pod.yaml", SECRET_POD);
    assert_contains(load_in_s(CASE_FILE("../s2/pod.yaml"), NULL, 0), "is outside the suite's directory");
}
END_TEST

START_TEST(test_reads_only_regular_files_capped)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/s/fifo.yaml", tmpdir);
    put("s/placeholder", "");
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    /* a FIFO with no writer: refused at once, not waited on */
    assert_contains(load_in_s(CASE_FILE("fifo.yaml"), NULL, 0), "a FIFO, not a regular file: refused");
    assert_contains(load_in_s(CASE_FILE("."), NULL, 0), "a directory, not a regular file");
    /* a device, through a symlink inside an allowed folder */
    snprintf(path, sizeof(path), "%s/s/zero.yaml", tmpdir);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    const char *dev[] = {"/dev"};
    assert_contains(load_in_s(CASE_FILE("zero.yaml"), dev, 1), "a device, not a regular file: refused");
    /* one byte over the cap (a sparse file: nothing is written) */
    snprintf(path, sizeof(path), "%s", put("s/big.yaml", ""));
    ck_assert_int_eq(truncate(path, (off_t)GPA_SUITE_MAX_FILE_BYTES + 1), 0);
    assert_contains(load_in_s(CASE_FILE("big.yaml"), NULL, 0), "more than the 16777216 bytes an input may have");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("suite");
    TCase *parse = tcase_create("parse");
    tcase_add_checked_fixture(parse, setup, teardown);
    tcase_add_test(parse, test_load_example_suite);
    tcase_add_test(parse, test_load_every_object_form);
    tcase_add_test(parse, test_unknown_field);
    tcase_add_test(parse, test_unknown_top_level_field);
    tcase_add_test(parse, test_missing_file);
    tcase_add_test(parse, test_missing_resource_and_config);
    tcase_add_test(parse, test_object_not_found);
    tcase_add_test(parse, test_ambiguous_object);
    tcase_add_test(parse, test_bad_header);
    tcase_add_test(parse, test_bad_cases);
    tcase_add_test(parse, test_bad_placement);
    tcase_add_test(parse, test_file_with_two_objects);
    tcase_add_test(parse, test_unparsable_object_file);
    tcase_add_test(parse, test_reads_only_under_its_directory);
    tcase_add_test(parse, test_reads_only_regular_files_capped);
    suite_add_tcase(s, parse);
    TCase *run = tcase_create("run");
    tcase_add_checked_fixture(run, setup, teardown);
    tcase_add_test(run, test_matching_passes);
    tcase_add_test(run, test_matching_reports_differences);
    tcase_add_test(run, test_rules_are_a_set);
    tcase_add_test(run, test_mutation_and_patched);
    tcase_add_test(run, test_update_against_old_object);
    tcase_add_test(run, test_undecodable_object_is_an_error_result);
    tcase_add_test(run, test_placement);
    tcase_add_test(run, test_placement_needs_inventory);
    tcase_add_test(run, test_dra_placement);
    tcase_add_test(run, test_find_recursive_sorted);
    suite_add_tcase(s, run);
    TCase *bin = tcase_create("binary");
    tcase_add_checked_fixture(bin, setup, teardown);
    tcase_set_timeout(bin, 60);
    tcase_add_test(bin, test_exit_codes);
    tcase_add_test(bin, test_junit_and_json);
    suite_add_tcase(s, bin);
    return s;
}

int main(void)
{
    return gpa_test_run(suite());
}
