/*
 * rules/document/schema.c, and the promise it exists for: every closed-schema reader (configuration,
 * inventory, test suite) and the object decoder word the same fault the same way, as
 * `file:line:col: path: message` with an exact path (no stray leading dot) and a `known:` list.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite/suite.h"
#include "inventory/inventory.h"
#include "document/docs.h"
#include "document/schema.h"
#include "kube/decode.h"
#include "policy/config.h"
#include "run.h"

static char line_text[1024];

/* The error as the front ends print it. */
static const char *formatted(const gpa_error_t *err)
{
    gpa_error_format(err, line_text, sizeof(line_text));
    return line_text;
}

static gpa_value_t *parse(gpa_arena_t *a, const char *text)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t.yaml");
    ck_assert_int_eq(gpa_docs_parse(a, text, strlen(text), &docs, &err), 0);
    ck_assert_uint_eq(docs.len, 1);
    return docs.docs[0];
}

static const char *config_error(const char *text)
{
    gpa_config_t *cfg = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "config.yaml");
    ck_assert_int_eq(gpa_config_parse(text, strlen(text), "config.yaml", &cfg, &err), -1);
    ck_assert_msg(err.path[0] != '.', "stray dot: %s", err.path);
    return formatted(&err);
}

static const char *inventory_error(const char *text)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_inventory_parse(inv, text, strlen(text), "inventory.yaml", &err), -1);
    gpa_inventory_release(inv);
    ck_assert_msg(err.path[0] != '.', "stray dot: %s", err.path);
    return formatted(&err);
}

static const char *object_error(const char *text)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_objects_t objs = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "pod.yaml");
    ck_assert_int_eq(gpa_decode_document(&a, parse(&a, text), &objs, &err), -1);
    gpa_arena_dispose(&a);
    ck_assert_msg(err.path[0] != '.', "stray dot: %s", err.path);
    return formatted(&err);
}

/* The suite file's name is a temporary one: the returned text starts after it ("file" stands for it). */
static const char *suite_error(const char *text)
{
    char path[] = "/tmp/gpa-test-schema-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    gpa_suite_t s;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_suite_load(path, &s, &err), -1);
    ck_assert_msg(err.path[0] != '.', "stray dot: %s", err.path);
    ck_assert_str_eq(err.source, path);
    err.source = "suite.yaml";
    formatted(&err);
    gpa_suite_dispose(&s);
    unlink(path);
    return line_text;
}

#define SUITE_HEADER "apiVersion: gpuadmit.io/v1alpha1\nkind: Test\nname: t\n"

/* ---- the helpers ---- */

START_TEST(unknown_field_names_the_known_ones)
{
    static const char *const known[] = {"count", "memory", "core", NULL};
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, "x.yaml");
    ck_assert_int_eq(gpa_schema_fields(&err, parse(&a, "count: 1\nmemory: 8Gi\n"), "gpus", known), 0);
    ck_assert_int_eq(gpa_schema_fields(&err, parse(&a, "count: 1\ncolour: red\nshape: round\n"), "nodes[2].gpus", known), -1);
    ck_assert_str_eq(formatted(&err), "x.yaml:2:9: nodes[2].gpus: unknown field \"colour\"; known: count, memory, core");
    /* the first error wins */
    ck_assert_int_eq(gpa_schema_fields(&err, parse(&a, "shape: round\n"), "other", known), -1);
    ck_assert_str_eq(err.path, "nodes[2].gpus");
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(want_words_both_types)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_value_t *doc = parse(&a, "gpus: {count: 1}\nname: node\n");
    gpa_error_init(&err, "x.yaml");
    ck_assert_int_eq(gpa_schema_want(&err, gpa_value_get(doc, "name"), GPA_VSTRING, "name"), 0);
    ck_assert_int_eq(gpa_schema_want(&err, gpa_value_get(doc, "gpus"), GPA_VARRAY, "nodes[2].gpus"), -1);
    ck_assert_str_eq(formatted(&err), "x.yaml:1:7: nodes[2].gpus: must be a list, not a mapping");
    gpa_error_init(&err, "x.yaml");
    ck_assert_int_eq(gpa_schema_wrong_type(&err, gpa_value_get(doc, "name"), "a quantity (a string or a number)", "n"), -1);
    ck_assert_str_eq(err.message, "must be a quantity (a string or a number), not a string");
    gpa_error_init(&err, "x.yaml");
    ck_assert_int_eq(gpa_schema_want(&err, doc, GPA_VARRAY, ""), -1);
    ck_assert_str_eq(formatted(&err), "x.yaml:1:1: must be a list, not a mapping");
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(paths_never_start_with_a_dot)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    ck_assert_str_eq(gpa_schema_path(&a, "", "nodes"), "nodes");
    ck_assert_str_eq(gpa_schema_path(&a, "nodes[2]", "gpus"), "nodes[2].gpus");
    gpa_arena_dispose(&a);
}
END_TEST

/* ---- one wording across the readers ---- */

START_TEST(unknown_field_is_worded_alike)
{
    ck_assert_str_eq(config_error("minDeviceMemory: 1Gi\ncolour: blue\n"),
                     "config.yaml:2:9: unknown field \"colour\"; known: minDeviceMemory, maxPodsPerDevice, dialects, rules, "
                     "namespaces, placement, knownResources, mutations, workloads, hami, dra");
    ck_assert_str_eq(config_error("placement:\n  colour: blue\n"),
                     "config.yaml:2:11: placement: unknown field \"colour\"; known: strategy, coreWeight");
    ck_assert_str_eq(inventory_error("kind: GPUInventory\ncolour: blue\n"),
                     "inventory.yaml:2:9: unknown field \"colour\"; known: apiVersion, kind, metadata, nodes, templates");
    ck_assert_str_eq(inventory_error("kind: GPUInventory\nnodes:\n- name: a\n- name: b\n  gpus: {count: 1, colour: blue}\n"),
                     "inventory.yaml:5:28: nodes[1].gpus: unknown field \"colour\"; known: count, memory, core, model");
    ck_assert_str_eq(
        suite_error(SUITE_HEADER "colour: blue\n"),
        "suite.yaml:4:9: unknown field \"colour\"; known: apiVersion, kind, name, config, inventory, resources, cases");
    ck_assert_str_eq(
        suite_error(SUITE_HEADER "cases:\n- name: a\n  inline: {kind: Pod}\n  expect: {allowed: true, colour: blue}\n"),
        "suite.yaml:7:35: cases[0].expect: unknown field \"colour\"; known: allowed, rules, warnings, mutations, "
        "patched, placement");
}
END_TEST

START_TEST(wrong_type_is_worded_alike)
{
    ck_assert_str_eq(config_error("dialects: {vendor: 1}\n"), "config.yaml:1:11: dialects: must be a list, not a mapping");
    ck_assert_str_eq(config_error("placement: [spread]\n"), "config.yaml:1:12: placement: must be a mapping, not a list");
    ck_assert_str_eq(inventory_error("kind: GPUInventory\nnodes: {a: 1}\n"),
                     "inventory.yaml:2:8: nodes: must be a list, not a mapping");
    ck_assert_str_eq(inventory_error("kind: GPUInventory\nnodes:\n- name: a\n- name: b\n  devices: {minor: 1}\n"),
                     "inventory.yaml:5:12: nodes[1].devices: must be a list, not a mapping");
    ck_assert_str_eq(inventory_error("kind: GPUInventory\nnodes:\n- {name: a, devices: [{minor: 0, healthy: \"yes\"}]}\n"),
                     "inventory.yaml:3:43: nodes[0].devices[0].healthy: must be a boolean, not a string");
    ck_assert_str_eq(suite_error(SUITE_HEADER "cases: {a: 1}\n"), "suite.yaml:4:8: cases: must be a list, not a mapping");
    ck_assert_str_eq(object_error("kind: Pod\nspec:\n  containers: {name: a}\n"),
                     "pod.yaml:3:15: spec.containers: must be a list, not a mapping");
    ck_assert_str_eq(object_error("kind: List\nitems: {a: 1}\n"), "pod.yaml:2:8: items: must be a list, not a mapping");
    /* the document itself: no path at all */
    ck_assert_str_eq(config_error("- a\n"), "config.yaml:1:1: must be a mapping, not a list");
    ck_assert_str_eq(inventory_error("- a\n"), "inventory.yaml:1:1: must be a mapping, not a list");
    ck_assert_str_eq(suite_error("- a\n"), "suite.yaml:1:1: must be a mapping, not a list");
    ck_assert_str_eq(object_error("- a\n"), "pod.yaml:1:1: must be a mapping, not a list");
}
END_TEST

START_TEST(objects_in_a_list_keep_their_place)
{
    ck_assert_str_eq(inventory_error("kind: List\nitems:\n- kind: GPUInventory\n  nodes: 3\n"),
                     "inventory.yaml:4:10: items[0].nodes: must be a list, not a number");
    ck_assert_str_eq(
        inventory_error("kind: List\nitems:\n- {kind: GPUInventory, colour: blue}\n"),
        "inventory.yaml:3:32: items[0]: unknown field \"colour\"; known: apiVersion, kind, metadata, nodes, templates");
    ck_assert_str_eq(object_error("kind: List\nitems:\n- {kind: Service}\n- {kind: Pod, spec: {containers: 7}}\n"),
                     "pod.yaml:4:34: items[1].spec.containers: must be a list, not a number");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("helpers");
    tcase_add_test(tc, unknown_field_names_the_known_ones);
    tcase_add_test(tc, want_words_both_types);
    tcase_add_test(tc, paths_never_start_with_a_dot);
    suite_add_tcase(s, tc);
    tc = tcase_create("readers");
    tcase_add_test(tc, unknown_field_is_worded_alike);
    tcase_add_test(tc, wrong_type_is_worded_alike);
    tcase_add_test(tc, objects_in_a_list_keep_their_place);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
