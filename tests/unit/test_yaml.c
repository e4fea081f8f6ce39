/* Check tests for rules/yaml.c: go-yaml v2 scalar resolution, documents, positions, aliases, merge keys, tags,
 * errors, and JSON/YAML equivalence of trees. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/value.h"
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

static gpa_docs_t yaml_ok(const char *text)
{
    gpa_docs_t docs = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "t.yaml");
    int r = gpa_yaml_parse(&arena, text, strlen(text), &docs, &err);
    ck_assert_msg(r == 0, "%s: unexpected error %u:%u %s", text, err.line, err.column, err.message);
    return docs;
}

static gpa_value_t *yaml_one(const char *text)
{
    gpa_docs_t docs = yaml_ok(text);
    ck_assert_uint_eq(docs.len, 1);
    return docs.docs[0];
}

static gpa_error_t yaml_fail(const char *text)
{
    gpa_docs_t docs = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "t.yaml");
    int r = gpa_yaml_parse(&arena, text, strlen(text), &docs, &err);
    ck_assert_msg(r == -1, "accepted: %s", text);
    ck_assert_msg(err.message[0] != '\0', "no message: %s", text);
    return err;
}

static gpa_value_t *json_one(const char *text)
{
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_json_parse(&arena, text, strlen(text), &v, &err), 0);
    return v;
}

typedef struct st_scase_t {
    const char *scalar; /* plain scalar as written in `v: <scalar>` */
    gpa_vtype_t type;
    const char *text; /* resulting string or number text; "1"/"0" for bools */
} scase_t;

static const scase_t scalars[] = {
    {"~", GPA_VNULL, NULL},
    {"null", GPA_VNULL, NULL},
    {"Null", GPA_VNULL, NULL},
    {"NULL", GPA_VNULL, NULL},
    {"nULL", GPA_VSTRING, "nULL"},
    {"true", GPA_VBOOL, "1"},
    {"True", GPA_VBOOL, "1"},
    {"TRUE", GPA_VBOOL, "1"},
    {"yes", GPA_VBOOL, "1"},
    {"Yes", GPA_VBOOL, "1"},
    {"on", GPA_VBOOL, "1"},
    {"ON", GPA_VBOOL, "1"},
    {"y", GPA_VBOOL, "1"},
    {"false", GPA_VBOOL, "0"},
    {"no", GPA_VBOOL, "0"},
    {"Off", GPA_VBOOL, "0"},
    {"N", GPA_VBOOL, "0"},
    {"tRUE", GPA_VSTRING, "tRUE"},
    {"2", GPA_VNUMBER, "2"},
    {"-2", GPA_VNUMBER, "-2"},
    {"+2", GPA_VNUMBER, "2"},
    {"007", GPA_VNUMBER, "7"},
    {"0755", GPA_VNUMBER, "493"},
    {"0o17", GPA_VNUMBER, "15"},
    {"0x1F", GPA_VNUMBER, "31"},
    {"-0x10", GPA_VNUMBER, "-16"},
    {"0b101", GPA_VNUMBER, "5"},
    {"1_000", GPA_VNUMBER, "1000"},
    {"09", GPA_VNUMBER, "9"},
    {"-0", GPA_VNUMBER, "0"},
    {"9223372036854775807", GPA_VNUMBER, "9223372036854775807"},
    {"-9223372036854775808", GPA_VNUMBER, "-9223372036854775808"},
    {"18446744073709551615", GPA_VNUMBER, "18446744073709551615"},
    {"99999999999999999999999", GPA_VNUMBER, "99999999999999999999999"},
    {"0x1FFFFFFFFFFFFFFFFF", GPA_VSTRING, "0x1FFFFFFFFFFFFFFFFF"},
    {"1.5", GPA_VNUMBER, "1.5"},
    {"+1.5", GPA_VNUMBER, "1.5"},
    {".5", GPA_VNUMBER, "0.5"},
    {"-.5", GPA_VNUMBER, "-0.5"},
    {"1.", GPA_VNUMBER, "1"},
    {"-0.", GPA_VNUMBER, "0"},
    {"-0.0", GPA_VNUMBER, "-0.0"},
    {"1e3", GPA_VNUMBER, "1e3"},
    {"1.5E-3", GPA_VNUMBER, "1.5E-3"},
    {"1e400", GPA_VSTRING, "1e400"},
    {"20Gi", GPA_VSTRING, "20Gi"},
    {"500m", GPA_VSTRING, "500m"},
    {"1.2.3", GPA_VSTRING, "1.2.3"},
    {"0x", GPA_VSTRING, "0x"},
    {"+", GPA_VSTRING, "+"},
    {"-x", GPA_VSTRING, "-x"},
    {".", GPA_VSTRING, "."},
    {"2001-12-14", GPA_VSTRING, "2001-12-14"},
    {"e3", GPA_VSTRING, "e3"},
    {"hello world", GPA_VSTRING, "hello world"},
    {"'2'", GPA_VSTRING, "2"},
    {"\"true\"", GPA_VSTRING, "true"},
    {"\"\"", GPA_VSTRING, ""},
    {"''", GPA_VSTRING, ""},
    {"!!str 2", GPA_VSTRING, "2"},
    {"!!int \"2\"", GPA_VNUMBER, "2"},
    {"!!float 2", GPA_VNUMBER, "2"},
    {"!!bool yes", GPA_VBOOL, "1"},
    {"!!null ~", GPA_VNULL, NULL},
    {"! 2", GPA_VSTRING, "2"},
};

START_TEST(test_scalar_resolution)
{
    const scase_t *c = &scalars[_i];
    char text[128];
    snprintf(text, sizeof(text), "v: %s\n", c->scalar);
    gpa_value_t *v = gpa_value_get(yaml_one(text), "v");
    ck_assert_ptr_nonnull(v);
    ck_assert_msg(v->type == c->type, "%s: type %d, want %d", c->scalar, v->type, c->type);
    if (c->type == GPA_VBOOL)
        ck_assert_int_eq(v->u.boolean, c->text[0] == '1');
    else if (c->type != GPA_VNULL)
        ck_assert_str_eq(v->u.str.ptr, c->text);
    if (c->type == GPA_VNUMBER) { /* always valid JSON number text */
        gpa_value_t *j = json_one(v->u.str.ptr);
        ck_assert_int_eq(j->type, GPA_VNUMBER);
    }
}
END_TEST

START_TEST(test_empty_value_is_null)
{
    gpa_value_t *v = yaml_one("a:\nb: ''\n");
    ck_assert_int_eq(gpa_value_get(v, "a")->type, GPA_VNULL);
    ck_assert_int_eq(gpa_value_get(v, "b")->type, GPA_VSTRING);
}
END_TEST

START_TEST(test_documents)
{
    gpa_docs_t d = yaml_ok("");
    ck_assert_uint_eq(d.len, 0);
    d = yaml_ok("# only a comment\n");
    ck_assert_uint_eq(d.len, 0);
    d = yaml_ok("---\n---\na: 1\n---\n# nothing\n---\n- x\n...\n---\nnull\n");
    ck_assert_uint_eq(d.len, 2);
    ck_assert_int_eq(d.docs[0]->type, GPA_VOBJECT);
    ck_assert_int_eq(d.docs[1]->type, GPA_VARRAY);
    ck_assert_uint_eq(d.docs[0]->line, 3);
}
END_TEST

START_TEST(test_positions)
{
    gpa_value_t *v = yaml_one("apiVersion: v1\nspec:\n  containers:\n  - name: a\n    resources:\n      limits: {x: 2}\n");
    gpa_value_t *c = gpa_value_at(gpa_value_get(gpa_value_get(v, "spec"), "containers"), 0);
    ck_assert_uint_eq(c->line, 4);
    ck_assert_uint_eq(c->column, 5);
    gpa_value_t *name = gpa_value_get(c, "name");
    ck_assert_uint_eq(name->line, 4);
    ck_assert_uint_eq(name->column, 11);
    gpa_value_t *x = gpa_value_get(gpa_value_get(gpa_value_get(c, "resources"), "limits"), "x");
    ck_assert_uint_eq(x->line, 6);
    ck_assert_uint_eq(x->column, 19);
}
END_TEST

START_TEST(test_keys)
{
    gpa_value_t *v = yaml_one("1: a\ntrue: b\n~: c\n0x10: d\n\"q\": e\n");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "1")), "a");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "true")), "b");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "null")), "c");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "16")), "d");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "q")), "e");
    /* duplicates: last wins */
    v = yaml_one("a: 1\nb: 2\na: 3\n");
    ck_assert_uint_eq(v->u.object.len, 2);
    ck_assert_str_eq(gpa_value_get(v, "a")->u.str.ptr, "3");
    yaml_fail("? [a]\n: 1\n");
    yaml_fail("{[a]: 1}\n");
}
END_TEST

START_TEST(test_aliases_and_merge)
{
    gpa_value_t *v = yaml_one("base: &b {cpu: 1, gpu: 2}\nuse: *b\n");
    ck_assert_ptr_eq(gpa_value_get(v, "base"), gpa_value_get(v, "use"));
    v = yaml_one("s: &s hello\nt: *s\n");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "t")), "hello");
    /* merge: explicit keys win, earlier sources win over later */
    v = yaml_one("a: &a {p: 1, q: 1}\nb: &b {q: 2, r: 2}\nc:\n  <<: [*a, *b]\n  p: 9\n");
    gpa_value_t *c = gpa_value_get(v, "c");
    ck_assert_uint_eq(c->u.object.len, 3);
    ck_assert_str_eq(gpa_value_get(c, "p")->u.str.ptr, "9");
    ck_assert_str_eq(gpa_value_get(c, "q")->u.str.ptr, "1");
    ck_assert_str_eq(gpa_value_get(c, "r")->u.str.ptr, "2");
    /* go-yaml v2 reads the key y as the boolean true */
    ck_assert_ptr_nonnull(gpa_value_get(yaml_one("y: 1\n"), "true"));
    /* go-yaml v2 (kubectl's reader) applies entries in document order: a key written before the `<<` that
     * brings it is overwritten, so a GPU amount cannot hide behind an explicit key the cluster never sees */
    v = yaml_one("a: &a {x: 1}\nc:\n  x: 0\n  <<: *a\n");
    ck_assert_str_eq(gpa_value_get(gpa_value_get(v, "c"), "x")->u.str.ptr, "1");
    v = yaml_one("a: &a {x: 1}\nb: &b {x: 3}\nc:\n  x: 0\n  <<: [*a, *b]\n");
    ck_assert_str_eq(gpa_value_get(gpa_value_get(v, "c"), "x")->u.str.ptr, "1");
    v = yaml_one("c: {<<: {x: 1}, x: 2, <<: {x: 3}}\n");
    ck_assert_uint_eq(gpa_value_get(v, "c")->u.object.len, 1);
    ck_assert_str_eq(gpa_value_get(gpa_value_get(v, "c"), "x")->u.str.ptr, "3");
    /* a merged mapping brings what it resolved to: its own later merge overwrote its explicit key */
    v = yaml_one("a: &a {x: 1, <<: {x: 2}}\nc: {<<: *a}\n");
    ck_assert_str_eq(gpa_value_get(gpa_value_get(v, "c"), "x")->u.str.ptr, "2");
    /* a quoted "<<" is an ordinary key */
    v = yaml_one("\"<<\": 1\n");
    ck_assert_ptr_nonnull(gpa_value_get(v, "<<"));
    yaml_fail("a: {<<: 1}\n");
    yaml_fail("a: {<<: [1]}\n");
    yaml_fail("a: *nope\n");
    yaml_fail("a: &x [1, *x]\n");
}
END_TEST

START_TEST(test_alias_bomb)
{
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                       "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    gpa_error_t err = yaml_fail(bomb);
    ck_assert_ptr_nonnull(strstr(err.message, "alias"));
    /* ordinary reuse is fine */
    yaml_one("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
}
END_TEST

START_TEST(test_depth)
{
    char *deep = malloc(4 * GPA_MAX_DEPTH + 8);
    size_t n = 0;
    for (int i = 0; i < GPA_MAX_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i < GPA_MAX_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    yaml_one(deep);
    deep[0] = '\0';
    n = 0;
    for (int i = 0; i <= GPA_MAX_DEPTH; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    yaml_fail(deep);
    /* depth grown through aliases */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "a0: &a0 [x]\n");
    for (int i = 1; i < 40; i++) {
        gpa_buf_printf(&b, "a%d: &a%d ", i, i);
        for (int k = 0; k < 10; k++)
            gpa_buf_putc(&b, '[');
        gpa_buf_printf(&b, "*a%d", i - 1);
        for (int k = 0; k < 10; k++)
            gpa_buf_putc(&b, ']');
        gpa_buf_putc(&b, '\n');
    }
    gpa_error_t err = yaml_fail(b.base);
    ck_assert_ptr_nonnull(strstr(err.message, "deep"));
    gpa_buf_dispose(&b);
    free(deep);
}
END_TEST

START_TEST(test_tags_and_errors)
{
    gpa_error_t err = yaml_fail("a: !custom 1\n");
    ck_assert_ptr_nonnull(strstr(err.message, "tag"));
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 4);
    yaml_fail("a: !!binary aGk=\n");
    yaml_fail("a: !!int abc\n");
    yaml_fail("a: !!bool 1\n");
    yaml_fail("a: !!map [1]\n");
    yaml_fail("a: !!seq {}\n");
    err = yaml_fail("a: .inf\n");
    ck_assert_ptr_nonnull(strstr(err.message, "JSON"));
    yaml_fail("a: -.INF\n");
    yaml_fail("a: .NaN\n");
    err = yaml_fail("a: b\n c: d\n  e\n");
    ck_assert_uint_ne(err.line, 0);
    err = yaml_fail("a: [1, 2\nb: 3\n");
    ck_assert_uint_ne(err.line, 0);
    err = yaml_fail("a:\n\tb: 1\n");
    ck_assert_uint_eq(err.line, 2);
    err = yaml_fail("a: 1\nb: \"\xff\"\n");
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 5);
}
END_TEST

START_TEST(test_json_yaml_equal)
{
    const char *json = "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"labels\": {\"on\": \"yes\"}},"
                       " \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": {\"koordinator.sh/gpu-memory\":"
                       " \"20Gi\", \"koordinator.sh/gpu-core\": 50, \"x\": 1.5}}, \"args\": [\"a\", \"\", null, true, false]}]}}";
    const char *yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    \"on\": \"yes\"\nspec:\n  containers:\n"
                       "  - name: c\n    resources:\n      limits:\n        koordinator.sh/gpu-memory: 20Gi\n"
                       "        koordinator.sh/gpu-core: 50\n        x: 1.5\n    args: [a, '', ~, true, false]\n";
    ck_assert(gpa_value_equal(json_one(json), yaml_one(yaml)));
    /* JSON is YAML too */
    ck_assert(gpa_value_equal(json_one(json), yaml_one(json)));
    ck_assert(!gpa_value_equal(json_one(json), yaml_one("apiVersion: v1\n")));
}
END_TEST

START_TEST(test_strings)
{
    gpa_value_t *v = yaml_one("a: \"x\\ty\\u00e9\\0z\"\nb: |\n  line1\n  line2\nc: >\n  folded\n  text\n");
    gpa_value_t *a = gpa_value_get(v, "a");
    ck_assert_uint_eq(a->u.str.len, 7);
    ck_assert_int_eq(memcmp(a->u.str.ptr, "x\ty\xc3\xa9\0z", 7), 0);
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "b")), "line1\nline2\n");
    ck_assert_str_eq(gpa_value_string(gpa_value_get(v, "c")), "folded text\n");
    v = yaml_one("|\n  2\n");
    ck_assert_int_eq(v->type, GPA_VSTRING);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("yaml");
    TCase *tc = tcase_create("yaml");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_scalar_resolution, 0, (int)(sizeof(scalars) / sizeof(scalars[0])));
    tcase_add_test(tc, test_empty_value_is_null);
    tcase_add_test(tc, test_documents);
    tcase_add_test(tc, test_positions);
    tcase_add_test(tc, test_keys);
    tcase_add_test(tc, test_aliases_and_merge);
    tcase_add_test(tc, test_alias_bomb);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_tags_and_errors);
    tcase_add_test(tc, test_json_yaml_equal);
    tcase_add_test(tc, test_strings);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
