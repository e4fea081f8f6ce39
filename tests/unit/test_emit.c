/* Check tests for rules/emit.c: JSON and YAML writers, round trips parse -> emit -> parse, quoting of strings
 * that would otherwise read back as other types. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/value.h"
#include "document/emit.h"
#include "document/json.h"
#include "document/yaml.h"
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

static gpa_value_t *json_ok(const char *text, size_t len)
{
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    int r = gpa_json_parse(&arena, text, len, &v, &err);
    ck_assert_msg(r == 0, "%s: %u:%u %s", text, err.line, err.column, err.message);
    return v;
}

static gpa_value_t *yaml_ok(const char *text, size_t len)
{
    gpa_docs_t docs = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    int r = gpa_yaml_parse(&arena, text, len, &docs, &err);
    ck_assert_msg(r == 0, "--- YAML ---\n%s\n---: %u:%u %s", text, err.line, err.column, err.message);
    ck_assert_uint_eq(docs.len, 1);
    return docs.docs[0];
}

static const char *const documents[] = {
    "{}",
    "[]",
    "{\"a\":1}",
    "[1,-2,3.5,1e10,-0.5E-3,123456789012345678901234567890]",
    "{\"s\":\"x\",\"n\":null,\"t\":true,\"f\":false,\"e\":{},\"l\":[],\"ll\":[[],[{}]]}",
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"annotations\":{\"vke.volcengine.com/"
    "container-multiple-gpu\":\"2,1\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{"
    "\"koordinator.sh/gpu-memory\":\"20Gi\",\"koordinator.sh/gpu-core\":50}}}]}}",
    "{\"ctl\":\"\\u0000\\u0001\\u001f\\u007f\\t\\n\\r\\\"\\\\\",\"uni\":\"\\u00e9\\u4e2d\\ud83d\\ude00\"}",
    "\"top\"",
    "42",
    "null",
};

START_TEST(test_json_round_trip_exact)
{
    const char *doc = documents[_i];
    gpa_value_t *v = json_ok(doc, strlen(doc));
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_json(&b, v, 0);
    gpa_value_t *w = json_ok(b.base, b.len);
    ck_assert(gpa_value_equal(v, w));
    /* compact output of compact input with no escapes to normalise is the input itself */
    if (strchr(doc, '\\') == NULL)
        ck_assert_str_eq(b.base, doc);
    gpa_buf_reset(&b);
    gpa_value_emit_json(&b, v, 2);
    ck_assert(gpa_value_equal(v, json_ok(b.base, b.len)));
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_json_pretty)
{
    const char *doc = "{\"a\":[1,{\"b\":null}],\"c\":{},\"d\":[]}";
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_json(&b, json_ok(doc, strlen(doc)), 2);
    ck_assert_str_eq(b.base, "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}");
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_yaml_round_trip_of_json)
{
    const char *doc = documents[_i];
    gpa_value_t *v = json_ok(doc, strlen(doc));
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_yaml(&b, v);
    if (v->type == GPA_VNULL) { /* a null document reads back as no document at all (empty ones are skipped) */
        ck_assert_str_eq(b.base, "null\n");
        gpa_buf_dispose(&b);
        return;
    }
    gpa_value_t *w = yaml_ok(b.base, b.len);
    ck_assert_msg(gpa_value_equal(v, w), "not equal after YAML:\n%s", b.base);
    gpa_buf_dispose(&b);
}
END_TEST

/* Strings that are easy to get wrong: each must come back as the same string, as value and as key. */
static const char *const tricky[] = {
    "true",
    "True",
    "yes",
    "y",
    "N",
    "on",
    "off",
    "null",
    "~",
    "",
    "1",
    "-1",
    "+1",
    "0x10",
    "0o17",
    "0b1",
    "017",
    "1_000",
    "1.5",
    ".5",
    "1e3",
    "1.",
    ".inf",
    "-.Inf",
    ".nan",
    "<<",
    "- x",
    "-",
    "a: b",
    "a:b",
    "#c",
    "x #c",
    "multi\nline\n",
    "multi\nline",
    "trailing\n\n",
    "  lead",
    "trail  ",
    "\t",
    "\x01",
    "\x7f",
    "\xc3\xa9",
    "@x",
    "`x",
    "'q'",
    "\"dq\"",
    "%x",
    "!x",
    "&x",
    "*x",
    "? x",
    "{x}",
    "[x]",
    "|",
    ">",
    ",",
    "2001-12-14",
    "20Gi",
    "500m",
    "---",
    "...",
    "a\\b",
    ("\xef\xbb\xbf"
     "bom"),
    "x\0y",
};

START_TEST(test_yaml_tricky_strings)
{
    const char *s = tricky[_i];
    size_t n = strlen(s);
    if (s[0] == 'x' && s[1] == '\0')
        n = 3; /* "x\0y" */
    gpa_value_t *obj = gpa_value_new_object(&arena, 2);
    obj->u.object.members[0] = (gpa_member_t){"k", 1, gpa_value_new_string(&arena, s, n)};
    obj->u.object.members[1] = (gpa_member_t){s, n, gpa_value_new_string(&arena, "v", 1)};
    gpa_value_t *arr = gpa_arena_calloc(&arena, 1, sizeof(*arr));
    arr->type = GPA_VARRAY;
    arr->u.array.len = 2;
    arr->u.array.items = gpa_arena_calloc(&arena, 2, sizeof(gpa_value_t *));
    arr->u.array.items[0] = obj;
    arr->u.array.items[1] = gpa_value_new_string(&arena, s, n);
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_yaml(&b, arr);
    gpa_value_t *w = yaml_ok(b.base, b.len);
    ck_assert_msg(gpa_value_equal(arr, w), "string %d not preserved; YAML was:\n%s", _i, b.base);
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_yaml_round_trip_of_yaml)
{
    const char *doc = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels: {app: x, \"on\": \"yes\"}\n"
                      "spec:\n  replicas: 0x3\n  template:\n    spec:\n      containers:\n      - name: c\n"
                      "        args: [\"1\", 2, ~, '', yes]\n        command:\n        - |\n          echo hi\n"
                      "          echo there\n        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
                      "            koordinator.sh/gpu-memory: 20Gi\n      nodeSelector:\n        x: &v shared\n"
                      "        y2: *v\n";
    gpa_value_t *v = yaml_ok(doc, strlen(doc));
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_yaml(&b, v);
    gpa_value_t *w = yaml_ok(b.base, b.len);
    ck_assert_msg(gpa_value_equal(v, w), "not equal:\n%s", b.base);
    /* block style, and no document markers */
    ck_assert_ptr_nonnull(strstr(b.base, "kind: Deployment\n"));
    ck_assert_ptr_null(strstr(b.base, "---"));
    ck_assert_ptr_null(strstr(b.base, "{"));
    /* and YAML -> JSON -> YAML */
    gpa_buf_t j = GPA_BUF_INIT;
    gpa_value_emit_json(&j, v, 0);
    ck_assert(gpa_value_equal(v, json_ok(j.base, j.len)));
    gpa_buf_dispose(&j);
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_yaml_invalid_utf8_falls_back)
{
    gpa_value_t *obj = gpa_value_new_object(&arena, 1);
    obj->u.object.members[0] = (gpa_member_t){"k", 1, gpa_value_new_string(&arena, "\xff", 1)};
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "prefix\n");
    gpa_value_emit_yaml(&b, obj);
    ck_assert_ptr_nonnull(strstr(b.base, "prefix\n{"));
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_emit_appends)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "x=");
    gpa_value_emit_json(&b, json_ok("[1]", 3), 0);
    ck_assert_str_eq(b.base, "x=[1]");
    gpa_buf_reset(&b);
    gpa_value_emit_yaml(&b, json_ok("{\"a\": [1, \"true\"]}", 18));
    ck_assert_str_eq(b.base, "a:\n- 1\n- \"true\"\n");
    gpa_buf_dispose(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("emit");
    TCase *tc = tcase_create("emit");
    tcase_add_checked_fixture(tc, setup, teardown);
    int ndocs = (int)(sizeof(documents) / sizeof(documents[0]));
    tcase_add_loop_test(tc, test_json_round_trip_exact, 0, ndocs);
    tcase_add_test(tc, test_json_pretty);
    tcase_add_loop_test(tc, test_yaml_round_trip_of_json, 0, ndocs);
    tcase_add_loop_test(tc, test_yaml_tricky_strings, 0, (int)(sizeof(tricky) / sizeof(tricky[0])));
    tcase_add_test(tc, test_yaml_round_trip_of_yaml);
    tcase_add_test(tc, test_yaml_invalid_utf8_falls_back);
    tcase_add_test(tc, test_emit_appends);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
