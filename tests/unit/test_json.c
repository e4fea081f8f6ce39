/* Check tests for rules/json.c and rules/value.c: RFC 8259 parsing into the tree, errors with positions,
 * duplicate keys, lookups, equality. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/value.h"
#include "document/docs.h"
#include "document/json.h"
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

static gpa_value_t *parse_ok(const char *text)
{
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t.json");
    int r = gpa_json_parse(&arena, text, strlen(text), &v, &err);
    ck_assert_msg(r == 0, "%s: unexpected error %u:%u %s", text, err.line, err.column, err.message);
    ck_assert_ptr_nonnull(v);
    return v;
}

static gpa_error_t parse_fail_n(const char *text, size_t len)
{
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t.json");
    int r = gpa_json_parse(&arena, text, len, &v, &err);
    ck_assert_msg(r == -1, "accepted invalid JSON: %.*s", (int)len, text);
    ck_assert_msg(err.message[0] != '\0', "no message for %.*s", (int)len, text);
    return err;
}

static gpa_error_t parse_fail(const char *text)
{
    return parse_fail_n(text, strlen(text));
}

START_TEST(test_scalars)
{
    gpa_value_t *v = parse_ok("null");
    ck_assert_int_eq(v->type, GPA_VNULL);
    v = parse_ok(" true ");
    ck_assert_int_eq(v->type, GPA_VBOOL);
    ck_assert_int_eq(v->u.boolean, 1);
    v = parse_ok("false");
    ck_assert_int_eq(v->u.boolean, 0);
    const char *numbers[] = {"0", "-0", "12", "-12", "1.5", "1e10", "1E+2", "-0.0e-0", "123456789012345678901234567890"};
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        v = parse_ok(numbers[i]);
        ck_assert_int_eq(v->type, GPA_VNUMBER);
        ck_assert_str_eq(v->u.str.ptr, numbers[i]); /* literal kept as written */
        ck_assert_uint_eq(v->u.str.len, strlen(numbers[i]));
    }
    v = parse_ok("\"20Gi\"");
    ck_assert_int_eq(v->type, GPA_VSTRING);
    ck_assert_str_eq(gpa_value_string(v), "20Gi");
    ck_assert_ptr_null(gpa_value_string(parse_ok("2")));
}
END_TEST

START_TEST(test_escapes)
{
    gpa_value_t *v = parse_ok("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
    ck_assert_str_eq(v->u.str.ptr, "a\"b\\c/d\b\f\n\r\t");
    v = parse_ok("\"koordinator.sh\\u002fgpu-core\"");
    ck_assert_str_eq(v->u.str.ptr, "koordinator.sh/gpu-core");
    v = parse_ok("\"\\u00e9\\u20AC\\ud83d\\ude00\"");
    ck_assert_str_eq(v->u.str.ptr, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    v = parse_ok("\"x\\u0000y\"");
    ck_assert_uint_eq(v->u.str.len, 3);
    ck_assert_int_eq(memcmp(v->u.str.ptr, "x\0y", 3), 0);
    v = parse_ok("\"raw \xc3\xa9 \xf0\x9f\x98\x80 and a long run of plain ascii text to use the wide path\"");
    ck_assert_str_eq(v->u.str.ptr, "raw \xc3\xa9 \xf0\x9f\x98\x80 and a long run of plain ascii text to use the wide path");
}
END_TEST

START_TEST(test_containers_and_positions)
{
    const char *text = "{\n  \"a\": [1, 2, {\"b\": null}],\n  \"c\": {\"d\": \"e\"}\n}";
    gpa_value_t *v = parse_ok(text);
    ck_assert_int_eq(v->type, GPA_VOBJECT);
    ck_assert_uint_eq(v->line, 1);
    ck_assert_uint_eq(v->column, 1);
    gpa_value_t *a = gpa_value_get(v, "a");
    ck_assert_int_eq(a->type, GPA_VARRAY);
    ck_assert_uint_eq(a->u.array.len, 3);
    ck_assert_uint_eq(a->line, 2);
    ck_assert_uint_eq(a->column, 8);
    ck_assert_str_eq(gpa_value_at(a, 1)->u.str.ptr, "2");
    ck_assert_uint_eq(gpa_value_at(a, 1)->column, 12);
    ck_assert_ptr_null(gpa_value_at(a, 3));
    ck_assert_int_eq(gpa_value_get(gpa_value_at(a, 2), "b")->type, GPA_VNULL);
    gpa_value_t *d = gpa_value_get(gpa_value_get(v, "c"), "d");
    ck_assert_str_eq(gpa_value_string(d), "e");
    ck_assert_uint_eq(d->line, 3);
    ck_assert_uint_eq(d->column, 14);
    ck_assert_ptr_null(gpa_value_get(v, "zz"));
    ck_assert_ptr_null(gpa_value_get(a, "a"));
    ck_assert_ptr_null(gpa_value_get(NULL, "a"));
    ck_assert_ptr_null(gpa_value_at(v, 0));
    v = parse_ok("[]");
    ck_assert_uint_eq(v->u.array.len, 0);
    v = parse_ok("{}");
    ck_assert_uint_eq(v->u.object.len, 0);
    v = parse_ok("\xef\xbb\xbf{\"bom\": 1}");
    ck_assert_ptr_nonnull(gpa_value_get(v, "bom"));
}
END_TEST

typedef struct st_bad_t {
    const char *text;
    unsigned line, column;
} bad_t;

static const bad_t bad[] = {
    {"", 1, 1},
    {"   ", 1, 4},
    {"{", 1, 2},
    {"[1,]", 1, 4},
    {"[1 2]", 1, 4},
    {"{\"a\" 1}", 1, 6},
    {"{\"a\":1,}", 1, 8},
    {"{a:1}", 1, 2},
    {"{\"a\":1}x", 1, 8},
    {"{\"a\":1} {}", 1, 9},
    {"01", 1, 2},
    {"1.", 1, 3},
    {".5", 1, 1},
    {"-", 1, 2},
    {"+1", 1, 1},
    {"1e", 1, 3},
    {"1e+", 1, 4},
    {"0x10", 1, 2},
    {"NaN", 1, 1},
    {"Infinity", 1, 1},
    {"tru", 1, 1},
    {"nul", 1, 1},
    {"\"abc", 1, 5},
    {"\"a\nb\"", 1, 3},
    {"\"a\tb\"", 1, 3},
    {"\"\\x\"", 1, 3},
    {"\"\\u12\"", 1, 2},
    {"\"\\ud800\"", 1, 2},
    {"\"\\ud800\\u0041\"", 1, 2},
    {"\"\\udc00\"", 1, 2},
    {"\"\xff\"", 1, 2},
    {"\"\xc0\xaf\"", 1, 2},
    {"\"\xed\xa0\x80\"", 1, 2},
    {"\"\xf4\x90\x80\x80\"", 1, 2},
    {"\"\xe2\x82\"", 1, 2},
    {"[\n1,\n\n  ?]", 4, 3},
    {"'a'", 1, 1},
    {"{\"a\":1 /* c */}", 1, 8},
};

START_TEST(test_errors_with_positions)
{
    const bad_t *b = &bad[_i];
    gpa_error_t err = parse_fail(b->text);
    ck_assert_msg(err.line == b->line && err.column == b->column, "%s: error at %u:%u, want %u:%u (%s)", b->text, err.line,
                  err.column, b->line, b->column, err.message);
}
END_TEST

START_TEST(test_nul_and_depth)
{
    parse_fail_n("[1]\0", 4);
    parse_fail_n("\"a\0b\"", 5);
    char deep[2 * GPA_MAX_DEPTH + 8];
    size_t n = 0;
    for (int i = 0; i < GPA_MAX_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i < GPA_MAX_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    parse_ok(deep); /* exactly the limit */
    char *deeper = malloc(100002);
    memset(deeper, '[', 100000);
    deeper[100000] = '\0';
    gpa_error_t err = parse_fail(deeper);
    ck_assert_ptr_nonnull(strstr(err.message, "deep"));
    ck_assert_uint_eq(err.column, GPA_MAX_DEPTH + 1);
    free(deeper);
}
END_TEST

START_TEST(test_duplicate_keys_last_wins)
{
    gpa_value_t *v = parse_ok("{\"a\": 1, \"b\": 2, \"a\": 3, \"c\": 4, \"b\": 5}");
    ck_assert_uint_eq(v->u.object.len, 3);
    ck_assert_str_eq(v->u.object.members[0].key, "a");
    ck_assert_str_eq(v->u.object.members[0].value->u.str.ptr, "3");
    ck_assert_str_eq(v->u.object.members[1].key, "c");
    ck_assert_str_eq(v->u.object.members[2].key, "b");
    ck_assert_str_eq(gpa_value_get(v, "b")->u.str.ptr, "5");
    /* escaped and plain spellings of one key are one key */
    v = parse_ok("{\"a/b\": 1, \"a\\/b\": 2}");
    ck_assert_uint_eq(v->u.object.len, 1);
    ck_assert_str_eq(gpa_value_get(v, "a/b")->u.str.ptr, "2");
}
END_TEST

START_TEST(test_many_keys)
{
    /* 20000 keys, every one written twice: linearithmic dedupe, last wins, order of survivors kept */
    size_t nkeys = 20000;
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_putc(&b, '{');
    for (size_t round = 0; round < 2; round++) {
        for (size_t i = 0; i < nkeys; i++)
            gpa_buf_printf(&b, "%s\"k%zu\": %zu", round == 0 && i == 0 ? "" : ",", i, round * nkeys + i);
    }
    gpa_buf_putc(&b, '}');
    gpa_value_t *v = parse_ok(b.base);
    ck_assert_uint_eq(v->u.object.len, nkeys);
    ck_assert_str_eq(v->u.object.members[0].key, "k0");
    ck_assert_str_eq(v->u.object.members[0].value->u.str.ptr, "20000");
    ck_assert_str_eq(v->u.object.members[nkeys - 1].key, "k19999");
    /* equality of big objects is order-independent and linearithmic too */
    gpa_value_t *w = parse_ok(b.base);
    ck_assert(gpa_value_equal(v, w));
    gpa_buf_dispose(&b);
}
END_TEST

START_TEST(test_equal)
{
    gpa_value_t *x = parse_ok("{\"a\": [1, \"x\", true, null], \"b\": {\"c\": 1.0}}");
    gpa_value_t *y = parse_ok("{\"b\": {\"c\": 1.0}, \"a\": [1, \"x\", true, null]}");
    ck_assert(gpa_value_equal(x, y));
    ck_assert(!gpa_value_equal(x, parse_ok("{\"b\": {\"c\": 1}, \"a\": [1, \"x\", true, null]}")));
    ck_assert(!gpa_value_equal(x, parse_ok("{\"b\": {\"c\": 1.0}, \"a\": [1, \"x\", false, null]}")));
    ck_assert(!gpa_value_equal(x, parse_ok("{\"b\": {\"c\": 1.0}, \"a\": [1, \"x\", true]}")));
    ck_assert(!gpa_value_equal(x, parse_ok("{\"b\": {\"c\": 1.0}, \"d\": [1, \"x\", true, null]}")));
    ck_assert(!gpa_value_equal(parse_ok("\"1\""), parse_ok("1")));
    ck_assert(!gpa_value_equal(x, NULL));
    ck_assert(gpa_value_equal(NULL, NULL));
}
END_TEST

START_TEST(test_constructors)
{
    gpa_value_t *s = gpa_value_new_string(&arena, "ab\0c", 4);
    ck_assert_int_eq(s->type, GPA_VSTRING);
    ck_assert_uint_eq(s->u.str.len, 4);
    ck_assert_uint_eq(s->line, 0);
    gpa_value_t *o = gpa_value_new_object(&arena, 2);
    ck_assert_uint_eq(o->u.object.len, 2);
    ck_assert_ptr_null(o->u.object.members[1].key);
    o->u.object.members[0] = (gpa_member_t){"k", 1, s};
    o->u.object.members[1] = (gpa_member_t){"j", 1, gpa_value_new_string(&arena, "v", 1)};
    ck_assert_ptr_eq(gpa_value_get(o, "k"), s);
    ck_assert(gpa_value_equal(o, parse_ok("{\"j\": \"v\", \"k\": \"ab\\u0000c\"}")));
}
END_TEST

START_TEST(test_docs_parse_switch)
{
    gpa_docs_t docs;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    const char *json = "  \n[1, 2]";
    ck_assert_int_eq(gpa_docs_parse(&arena, json, strlen(json), &docs, &err), 0);
    ck_assert_uint_eq(docs.len, 1);
    ck_assert_int_eq(docs.docs[0]->type, GPA_VARRAY);
    const char *yaml = "a: 1\n---\nb: 2\n";
    ck_assert_int_eq(gpa_docs_parse(&arena, yaml, strlen(yaml), &docs, &err), 0);
    ck_assert_uint_eq(docs.len, 2);
    const char *badjson = "{\"a\": ]";
    ck_assert_int_eq(gpa_docs_parse(&arena, badjson, strlen(badjson), &docs, &err), -1);
    ck_assert_uint_eq(err.column, 7); /* the JSON error, not YAML's */
    ck_assert_str_eq(err.message, "expected a JSON value (found ']')");
    const char *flow = "{kind: Pod, spec: {containers: [{name: a}]}}";
    ck_assert_int_eq(gpa_docs_parse(&arena, flow, strlen(flow), &docs, &err), 0);
    ck_assert_uint_eq(docs.len, 1);
    ck_assert_str_eq(gpa_value_string(gpa_value_get(docs.docs[0], "kind")), "Pod");
}
END_TEST

/* Every fault is found the same way with a filter: the bad inputs wrapped in a member the filter skips (and in one it
 * keeps) fail at the same line and column with the same message as without. */
START_TEST(test_filter_same_faults)
{
    const bad_t *b = &bad[_i];
    gpa_json_filter_t *f = gpa_json_filter_new(&arena);
    gpa_json_filter_path(&arena, f, "kept");
    gpa_json_filter_seal(&arena, f);
    static const char *const wraps[] = {"{\"skipped\":%s}", "{\"kept\":%s}", "[{\"skipped\":[%s]}]"};
    for (size_t w = 0; w < sizeof(wraps) / sizeof(wraps[0]); w++) {
        char text[512];
        int n = snprintf(text, sizeof(text), wraps[w], b->text);
        gpa_value_t *v;
        gpa_error_t whole, filtered;
        gpa_error_init(&whole, NULL);
        gpa_error_init(&filtered, NULL);
        int rw = gpa_json_parse(&arena, text, (size_t)n, &v, &whole);
        int rf = gpa_json_parse_filtered(&arena, text, (size_t)n, f, &v, &filtered);
        ck_assert_int_eq(rw, rf);
        if (rw != 0) {
            ck_assert_msg(whole.line == filtered.line && whole.column == filtered.column, "%s", text);
            ck_assert_str_eq(whole.message, filtered.message);
        }
    }
}
END_TEST

/* A filter keeps the members it names (lists transparent, `*` for every member, whole subtrees) and builds nothing
 * of the others; positions of what it keeps are those of the whole parse. */
START_TEST(test_filter_keeps_only_paths)
{
    const char *text = "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"K\",\"value\":\"v\"}],"
                       "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}},{\"name\":\"b\"}],\"volumes\":[1,2,3]},"
                       "\"replicas\":{\"w\":{\"template\":1,\"other\":2},\"x\":{\"template\":[true]}},\"big\":\"dropped\","
                       "\"spec\":{\"containers\":[{\"name\":\"last\",\"resources\":{}}]}}";
    gpa_json_filter_t *f = gpa_json_filter_new(&arena);
    static const char *const keep[] = {"spec.containers[*].resources"};
    gpa_json_filter_keep(&arena, f, keep, 1);
    gpa_json_filter_path(&arena, f, "spec.containers.name");
    gpa_json_filter_whole(gpa_json_filter_path(&arena, f, "replicas.*.template"));
    gpa_json_filter_whole(gpa_json_filter_path(&arena, f, "replicas.w.other")); /* named and under `*` */
    gpa_json_filter_seal(&arena, f);
    gpa_value_t *v, *whole;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_json_parse_filtered(&arena, text, strlen(text), f, &v, &err), 0);
    ck_assert_int_eq(gpa_json_parse(&arena, text, strlen(text), &whole, &err), 0);
    ck_assert_uint_eq(v->u.object.len, 2); /* spec (the last one wins, as without a filter) and replicas */
    ck_assert_ptr_null(gpa_value_get(v, "big"));
    const gpa_value_t *c = gpa_value_at(gpa_value_get(gpa_value_get(v, "spec"), "containers"), 0);
    ck_assert_str_eq(gpa_value_string(gpa_value_get(c, "name")), "last");
    ck_assert_uint_eq(c->u.object.len, 2);
    const gpa_value_t *r = gpa_value_get(v, "replicas");
    ck_assert(gpa_value_equal(gpa_value_get(gpa_value_get(r, "w"), "template"),
                              gpa_value_get(gpa_value_get(gpa_value_get(whole, "replicas"), "w"), "template")));
    ck_assert_ptr_nonnull(gpa_value_get(gpa_value_get(r, "w"), "other"));
    ck_assert_uint_eq(gpa_value_get(gpa_value_get(r, "x"), "template")->u.array.len, 1);
    ck_assert_uint_eq(gpa_value_get(r, "x")->line, gpa_value_get(gpa_value_get(whole, "replicas"), "x")->line);
    ck_assert_uint_eq(gpa_value_get(r, "x")->column, gpa_value_get(gpa_value_get(whole, "replicas"), "x")->column);

    /* The first spec: containers kept with name and resources only. */
    const char *first = "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"K\"}],"
                        "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}},{\"name\":\"b\"}],\"volumes\":[1,2,3]}}";
    ck_assert_int_eq(gpa_json_parse_filtered(&arena, first, strlen(first), f, &v, &err), 0);
    const gpa_value_t *spec = gpa_value_get(v, "spec");
    ck_assert_uint_eq(spec->u.object.len, 1);
    const gpa_value_t *list = gpa_value_get(spec, "containers");
    ck_assert_uint_eq(list->u.array.len, 2);
    ck_assert_uint_eq(gpa_value_at(list, 0)->u.object.len, 2);
    ck_assert_str_eq(gpa_value_string(gpa_value_get(gpa_value_get(gpa_value_get(gpa_value_at(list, 0), "resources"), "limits"),
                                                    "nvidia.com/gpu")),
                     "1");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(gpa_value_at(list, 1), "name")), "b");
}
END_TEST

START_TEST(test_bench_review)
{
    /* Parses the benchmark AdmissionReview when it is around (no timing assertion: the figure is reported). */
    FILE *f = fopen("/work/shared/bench/review-pod-5k.json", "rb");
    if (f == NULL)
        return;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_json_parse(&arena, buf, n, &v, &err), 0);
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "kind")), "AdmissionReview");
    ck_assert_ptr_nonnull(gpa_value_string(gpa_value_get(gpa_value_get(v, "request"), "uid")));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scalars);
    tcase_add_test(tc, test_escapes);
    tcase_add_test(tc, test_containers_and_positions);
    tcase_add_loop_test(tc, test_errors_with_positions, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, test_nul_and_depth);
    tcase_add_test(tc, test_duplicate_keys_last_wins);
    tcase_add_test(tc, test_many_keys);
    tcase_add_test(tc, test_equal);
    tcase_add_test(tc, test_constructors);
    tcase_add_test(tc, test_docs_parse_switch);
    tcase_add_test(tc, test_bench_review);
    tcase_add_loop_test(tc, test_filter_same_faults, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, test_filter_keeps_only_paths);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
