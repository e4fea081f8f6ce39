/* Check tests for rules/patch.c: pointer escaping, the encoder, and RFC 6902 apply with copy-on-write. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "document/patch.h"
#include "run.h"

static gpa_value_t *str(const char *s)
{
    return gpa_value_new_string(&arena, s, strlen(s));
}

/* Applies and checks the result equals `want`, and that the input is unchanged (deep-compared with a fresh parse). */
static void check_apply(const char *doc, const gpa_patch_t *p, const char *want)
{
    gpa_value_t *root = json(doc), *orig = root;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_patch_apply(&arena, &root, p, &err) == 0, "apply: %s: %s", err.path, err.message);
    ck_assert_msg(gpa_value_equal(root, json(want)), "result differs from %s", want);
    ck_assert_msg(gpa_value_equal(orig, json(doc)), "input tree was modified");
}

static void check_fails(const char *doc, const gpa_patch_t *p, const char *needle)
{
    gpa_value_t *root = json(doc), *orig = root;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_patch_apply(&arena, &root, p, &err), -1);
    ck_assert_ptr_eq(root, orig);
    ck_assert_msg(strstr(err.message, needle) != NULL, "message \"%s\" lacks \"%s\"", err.message, needle);
    ck_assert_msg(gpa_value_equal(orig, json(doc)), "input tree was modified");
}

START_TEST(encode_ops)
{
    gpa_patch_t p = {0};
    ck_assert_str_eq(patch_text(&p), "[]");
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/a~1b", str("50"));
    gpa_patch_push(&arena, &p, GPA_PATCH_REMOVE, "/x", str("ignored"));
    gpa_patch_push(&arena, &p, GPA_PATCH_REPLACE, "/q\"", json("{\"k\":[1,true,null,\"v\\n\"]}"));
    ck_assert_str_eq(patch_text(&p), "[{\"op\":\"add\",\"path\":\"/a~1b\",\"value\":\"50\"},"
                                     "{\"op\":\"remove\",\"path\":\"/x\"},"
                                     "{\"op\":\"replace\",\"path\":\"/q\\\"\",\"value\":{\"k\":[1,true,null,\"v\\n\"]}}]");
}
END_TEST

START_TEST(apply_object_ops)
{
    gpa_patch_t p = {0};
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/spec/limits", json("{\"koordinator.sh/gpu-core\":\"50\"}"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/spec/requests/koordinator.sh~1gpu.shared", str("1"));
    gpa_patch_push(&arena, &p, GPA_PATCH_REMOVE, "/spec/requests/koordinator.sh~1gpu", NULL);
    gpa_patch_push(&arena, &p, GPA_PATCH_REPLACE, "/spec/requests/cpu", str("2"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/spec/limits/x~0y", str("1"));
    check_apply("{\"spec\":{\"requests\":{\"cpu\":\"1\",\"koordinator.sh/gpu\":\"50\"}},\"other\":[1]}", &p,
                "{\"spec\":{\"requests\":{\"cpu\":\"2\",\"koordinator.sh/gpu.shared\":\"1\"},"
                "\"limits\":{\"koordinator.sh/gpu-core\":\"50\",\"x~y\":\"1\"}},\"other\":[1]}");
}
END_TEST

START_TEST(apply_add_replaces_existing_and_null)
{
    gpa_patch_t p = {0};
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/resources", json("{\"limits\":{}}"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/n", str("v"));
    check_apply("{\"resources\":null,\"n\":1}", &p, "{\"resources\":{\"limits\":{}},\"n\":\"v\"}");
}
END_TEST

START_TEST(apply_arrays)
{
    gpa_patch_t p = {0};
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/a/-", str("end"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/a/0", str("first"));
    gpa_patch_push(&arena, &p, GPA_PATCH_REMOVE, "/a/2", NULL);
    gpa_patch_push(&arena, &p, GPA_PATCH_REPLACE, "/a/1/k", str("w"));
    check_apply("{\"a\":[{\"k\":\"v\"},\"x\"]}", &p, "{\"a\":[\"first\",{\"k\":\"w\"},\"end\"]}");
}
END_TEST

START_TEST(apply_root)
{
    gpa_patch_t p = {0};
    gpa_patch_push(&arena, &p, GPA_PATCH_REPLACE, "", json("{\"b\":2}"));
    check_apply("{\"a\":1}", &p, "{\"b\":2}");
}
END_TEST

START_TEST(apply_second_edit_of_a_copied_node)
{
    /* Two adds to the same map: the second edits the copy the first made, and neither touches the input. */
    gpa_patch_t p = {0};
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/m/a", str("1"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/m/b", str("2"));
    gpa_patch_push(&arena, &p, GPA_PATCH_ADD, "/m/c", str("3"));
    check_apply("{\"m\":{}}", &p, "{\"m\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}}");
}
END_TEST

START_TEST(apply_errors)
{
    gpa_patch_t p1 = {0}, p2 = {0}, p3 = {0}, p4 = {0}, p5 = {0}, p6 = {0}, p7 = {0}, p8 = {0};
    gpa_patch_push(&arena, &p1, GPA_PATCH_ADD, "/missing/key", str("1"));
    check_fails("{\"a\":{}}", &p1, "does not exist");
    gpa_patch_push(&arena, &p2, GPA_PATCH_REMOVE, "/a/nope", NULL);
    check_fails("{\"a\":{}}", &p2, "no such member");
    gpa_patch_push(&arena, &p3, GPA_PATCH_REPLACE, "/a/nope", str("1"));
    check_fails("{\"a\":{}}", &p3, "no such member");
    gpa_patch_push(&arena, &p4, GPA_PATCH_ADD, "/a/5", str("1"));
    check_fails("{\"a\":[1]}", &p4, "index");
    gpa_patch_push(&arena, &p5, GPA_PATCH_ADD, "/a/01", str("1"));
    check_fails("{\"a\":[1,2]}", &p5, "index");
    gpa_patch_push(&arena, &p6, GPA_PATCH_ADD, "/a~2", str("1"));
    check_fails("{}", &p6, "'~'");
    gpa_patch_push(&arena, &p7, GPA_PATCH_ADD, "nope", str("1"));
    check_fails("{}", &p7, "starts with '/'");
    gpa_patch_push(&arena, &p8, GPA_PATCH_ADD, "/s/x", str("1"));
    check_fails("{\"s\":\"text\"}", &p8, "neither an object nor an array");
    /* A failing op after a successful one leaves the input untouched too. */
    gpa_patch_t p9 = {0};
    gpa_patch_push(&arena, &p9, GPA_PATCH_ADD, "/a/x", str("1"));
    gpa_patch_push(&arena, &p9, GPA_PATCH_REMOVE, "/a/y", NULL);
    check_fails("{\"a\":{}}", &p9, "no such member");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("patch");
    TCase *tc = tcase_create("patch");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, encode_ops);
    tcase_add_test(tc, apply_object_ops);
    tcase_add_test(tc, apply_add_replaces_existing_and_null);
    tcase_add_test(tc, apply_arrays);
    tcase_add_test(tc, apply_root);
    tcase_add_test(tc, apply_second_edit_of_a_copied_node);
    tcase_add_test(tc, apply_errors);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
