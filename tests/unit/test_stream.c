/* Check tests for document/stream.c: whatever the chunking, the pieces are what the whole-text parsers give
 * (same trees, same lines and columns, same first error), a List is told wherever its kind stands, and YAML
 * streams are cut where libyaml starts documents. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/json.h"
#include "document/stream.h"
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

#define MAX_PIECES 16

typedef struct st_result_t {
    gpa_value_t *pieces[MAX_PIECES];
    size_t n;
    gpa_stream_status_t last; /* END, ERROR or WHOLE */
    gpa_error_t err;
    int is_json, is_list;
} result_t;

/* Feeds text `chunk` bytes at a time (0: all at once) and collects the pieces (all in the test arena). */
static result_t read_stream_as(const char *text, size_t chunk, int check_only)
{
    result_t r = {0};
    size_t len = strlen(text), fed = 0;
    gpa_stream_t *s = gpa_stream_new();
    if (check_only)
        gpa_stream_check_only(s);
    gpa_error_init(&r.err, "t");
    gpa_value_t *v;
    for (;;) {
        gpa_stream_status_t st = gpa_stream_next(s, &arena, &v, &r.err);
        if (st == GPA_STREAM_MORE) {
            size_t n = chunk == 0 ? len - fed : (len - fed < chunk ? len - fed : chunk);
            if (n == 0)
                gpa_stream_end(s);
            gpa_stream_feed(s, text + fed, n);
            fed += n;
            continue;
        }
        if (st != GPA_STREAM_PIECE) {
            r.last = st;
            break;
        }
        ck_assert_uint_lt(r.n, MAX_PIECES);
        ck_assert(check_only ? v == NULL : v != NULL);
        r.pieces[r.n++] = v;
    }
    r.is_json = gpa_stream_is_json(s);
    r.is_list = gpa_stream_is_list(s);
    gpa_stream_free(s);
    return r;
}

static result_t read_stream(const char *text, size_t chunk)
{
    return read_stream_as(text, chunk, 0);
}

static const size_t chunks[] = {0, 1, 2, 3, 7, 64};
#define NCHUNKS (sizeof(chunks) / sizeof(chunks[0]))

/* The items of a JSON List, every chunking: equal to the whole parse's items, at the same positions. */
static void check_list_chunked(const char *text, int want_list, const size_t *chunks, size_t nchunks);

static void check_list(const char *text, int want_list)
{
    check_list_chunked(text, want_list, chunks, NCHUNKS);
}

static void check_list_chunked(const char *text, int want_list, const size_t *chunks, size_t nchunks)
{
    gpa_value_t *whole;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t");
    ck_assert_msg(gpa_json_parse(&arena, text, strlen(text), &whole, &err) == 0, "%s: %s", text, err.message);
    gpa_value_t *items = gpa_value_get(whole, "items");
    for (size_t c = 0; c < nchunks; c++) {
        result_t r = read_stream(text, chunks[c]);
        ck_assert_msg(r.last == GPA_STREAM_END, "%s (chunk %zu): status %d %s", text, chunks[c], r.last, r.err.message);
        ck_assert_int_eq(r.is_json, 1);
        ck_assert_int_eq(r.is_list, want_list);
        result_t checked = read_stream_as(text, chunks[c], 1);
        ck_assert_int_eq(checked.last, GPA_STREAM_END);
        ck_assert_int_eq(checked.is_list, want_list);
        if (!want_list)
            continue;
        ck_assert_uint_eq(checked.n, r.n);
        ck_assert_uint_eq(r.n, items->u.array.len);
        for (size_t i = 0; i < r.n; i++) {
            const gpa_value_t *w = items->u.array.items[i], *g = r.pieces[i];
            ck_assert_msg(gpa_value_equal(w, g), "%s (chunk %zu): item %zu differs", text, chunks[c], i);
            ck_assert_uint_eq(g->line, w->line);
            ck_assert_uint_eq(g->column, w->column);
        }
    }
}

START_TEST(test_json_list_items)
{
    check_list("{\"kind\": \"List\", \"items\": [{\"a\": 1}, {\"b\": [true, null, \"x\\u00e9\\ud83d\\ude00\"]}]}", 1);
    /* the kind after the items, as kubectl writes it; positions over several lines */
    check_list("{\"apiVersion\": \"v1\", \"items\": [\n  {\"kind\": \"Pod\",\n   \"metadata\": {\"name\": \"p\"}},\n"
               "  {\"kind\": \"Pod\", \"k\": 1, \"k\": 2}\n],\n \"kind\": \"PodList\", \"metadata\": {}}\n",
               1);
    /* numbers cut by a chunk edge stay whole */
    check_list("{\"items\":[1,23,456,-7.5e10],\"kind\":\"List\"}", 1);
    check_list("\xef\xbb\xbf {\"items\": [], \"kind\": \"List\"}", 1);
    check_list("{\"items\": [{}], \"kind\": \"Pod\"}", 0);                 /* not a List */
    check_list("{\"kind\": \"List\", \"items\": [{}], \"items\": []}", 0); /* items twice: the last wins */
    check_list("{\"kind\": \"List\", \"items\": null}", 0);
    check_list("{\"kind\": \"List\"}", 0);
    check_list("{}", 0);
    check_list("{\"kind\": \"List\", \"items\": [{}], \"kind\": \"Pod\"}", 0); /* the last kind counts */
}
END_TEST

/* Items far larger than the ones before them, and a number right where the reader's first try stops. */
START_TEST(test_json_list_growing_items)
{
    size_t n = 40000;
    char *text = malloc(2 * n + 256), *p = text;
    p += sprintf(p, "{\"items\": [{\"a\": 1}, {\"s\": \"");
    memset(p, 'x', n);
    p += n;
    p += sprintf(p, "\"}, [");
    for (size_t i = 0; i < n / 8; i++)
        p += sprintf(p, "%s1234567", i > 0 ? "," : "");
    p += sprintf(p, "], 12345678901234567890, {}], \"kind\": \"List\"}");
    static const size_t big_chunks[] = {0, 4093, 65536};
    check_list_chunked(text, 1, big_chunks, sizeof(big_chunks) / sizeof(big_chunks[0]));
    free(text);
}
END_TEST

START_TEST(test_json_array_is_whole)
{
    result_t r = read_stream("  [{\"kind\": \"Pod\"}]", 1);
    ck_assert_int_eq(r.last, GPA_STREAM_WHOLE);
    ck_assert_int_eq(r.is_json, 1);
}
END_TEST

/* A fault anywhere: the same first error (line, column, message) as the whole parse. */
static const char *const bad_json[] = {
    "{\"items\": [{\"a\": 1}, {\"a\": tru}], \"kind\": \"List\"}",
    "{\"items\": [{\"a\": 1},\n {\"a\": \"\\ud800\"}], \"kind\": \"List\"}",
    "{\"items\": [{\"a\": 1}\n {\"a\": 2}], \"kind\": \"List\"}",
    "{\"items\": [{\"a\": 1}], \"kind\": \"List\"} x",
    "{\"items\": [{\"a\": 1}], \"kind\" \"List\"}",
    "{\"items\": [{\"a\": 1}]",
    "{\"items\": [{\"a\": \"\xc3\"}]}",
    "{\"items\": [{\"a\": 01}]}",
    "{items: []}",
};

START_TEST(test_json_errors_as_whole_parse)
{
    const char *text = bad_json[_i];
    gpa_value_t *v;
    gpa_error_t want = {0};
    gpa_error_init(&want, "t");
    ck_assert_int_eq(gpa_json_parse(&arena, text, strlen(text), &v, &want), -1);
    for (size_t c = 0; c < 2 * NCHUNKS; c++) {
        result_t r = read_stream_as(text, chunks[c % NCHUNKS], c >= NCHUNKS);
        ck_assert_msg(r.last == GPA_STREAM_ERROR, "%s (chunk %zu): no error", text, chunks[c % NCHUNKS]);
        ck_assert_msg(r.err.line == want.line && r.err.column == want.column, "%s (chunk %zu): at %u:%u, want %u:%u", text,
                      chunks[c % NCHUNKS], r.err.line, r.err.column, want.line, want.column);
        ck_assert_str_eq(r.err.message, want.message);
    }
}
END_TEST

/* The documents of a YAML stream, every chunking: equal to gpa_yaml_parse's, on the same lines. */
static void check_yaml(const char *text)
{
    gpa_docs_t whole;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t");
    ck_assert_msg(gpa_yaml_parse(&arena, text, strlen(text), &whole, &err) == 0, "%s: %s", text, err.message);
    for (size_t c = 0; c < NCHUNKS; c++) {
        result_t r = read_stream(text, chunks[c]);
        ck_assert_msg(r.last == GPA_STREAM_END, "%s (chunk %zu): status %d %s", text, chunks[c], r.last, r.err.message);
        ck_assert_int_eq(r.is_json, 0);
        ck_assert_uint_eq(r.n, whole.len);
        for (size_t i = 0; i < r.n; i++) {
            ck_assert_msg(gpa_value_equal(whole.docs[i], r.pieces[i]), "%s (chunk %zu): doc %zu differs", text, chunks[c], i);
            ck_assert_uint_eq(r.pieces[i]->line, whole.docs[i]->line);
            ck_assert_uint_eq(r.pieces[i]->column, whole.docs[i]->column);
        }
    }
}

START_TEST(test_yaml_documents)
{
    check_yaml("a: 1\n---\nb: 2\n--- \nc: [1, 2]\n");
    check_yaml("---\n---\n# only a comment\n---\nkind: Pod\n...\n");      /* empty documents skipped */
    check_yaml("%YAML 1.1\n---\na: 1\n...\n%YAML 1.1\n---\nb: 2\n");      /* directives go with their document */
    check_yaml("--- |\n  text\n---\nx: \"a\n  --- b\"\n---\r\ny: 1\r\n"); /* block scalar, CRLF, --- not at column 0 */
    check_yaml("a: ---\nb: ---x\n---x: 1\n");                             /* "---" that starts no document */
    check_yaml("---\na: &x {k: 1}\nb: *x\n---\nc: 1\n");
    check_yaml("");
    check_yaml("\n\n");
    check_yaml("---");
}
END_TEST

START_TEST(test_yaml_error_line)
{
    const char *text = "a: 1\n---\nb: 2\n---\nc: [1,\n";
    gpa_docs_t docs;
    gpa_error_t want = {0};
    gpa_error_init(&want, "t");
    ck_assert_int_eq(gpa_yaml_parse(&arena, text, strlen(text), &docs, &want), -1);
    for (size_t c = 0; c < NCHUNKS; c++) {
        result_t r = read_stream(text, chunks[c]);
        ck_assert_int_eq(r.last, GPA_STREAM_ERROR);
        ck_assert_uint_eq(r.n, 2); /* the documents before the broken one */
        ck_assert_uint_eq(r.err.line, want.line);
        ck_assert_str_eq(r.err.message, want.message);
    }
}
END_TEST

/* A piece far larger than a feed: the reader asks for more, geometrically. */
START_TEST(test_large_piece)
{
    size_t n = 300000;
    char *text = malloc(n + 64);
    strcpy(text, "{\"items\": [{\"s\": \"");
    size_t at = strlen(text);
    memset(text + at, 'x', n);
    strcpy(text + at + n, "\"}], \"kind\": \"List\"}");
    gpa_stream_t *s = gpa_stream_new();
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "t");
    size_t fed = 0, len = strlen(text), feeds = 0;
    gpa_stream_status_t st;
    while ((st = gpa_stream_next(s, &arena, &v, &err)) == GPA_STREAM_MORE) {
        size_t want = gpa_stream_want(s), k = len - fed < want ? len - fed : want;
        ck_assert_uint_gt(want, 0);
        if (k == 0)
            gpa_stream_end(s);
        gpa_stream_feed(s, text + fed, k);
        fed += k;
        feeds++;
    }
    ck_assert_int_eq(st, GPA_STREAM_PIECE);
    ck_assert_uint_eq(gpa_value_get(v, "s")->u.str.len, n);
    ck_assert_uint_lt(feeds, 8);
    gpa_stream_free(s);
    free(text);
}
END_TEST

/* Small random edits of a List and of a YAML stream, read in random chunks: whenever the whole text parses,
 * the pieces are the whole parse's; whenever it does not, the reader fails too (JSON: with the same error). */
static unsigned long seed = 12;

static unsigned rnd(unsigned n)
{
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned)(seed >> 33) % n;
}

static void mutate(char *text, size_t len)
{
    static const char bytes[] = "{}[]\",:\\ \n-0e.u\xc3\xa9\x01#&*|>%";
    for (unsigned k = 1 + rnd(3); k > 0; k--)
        text[rnd((unsigned)len)] = bytes[rnd(sizeof(bytes) - 1)];
}

static result_t read_random_chunks(const char *text)
{
    result_t r = {0};
    size_t len = strlen(text), fed = 0;
    gpa_stream_t *s = gpa_stream_new();
    gpa_error_init(&r.err, "t");
    gpa_value_t *v;
    gpa_stream_status_t st;
    while ((st = gpa_stream_next(s, &arena, &v, &r.err)) == GPA_STREAM_MORE || st == GPA_STREAM_PIECE) {
        if (st == GPA_STREAM_PIECE) {
            ck_assert_uint_lt(r.n, MAX_PIECES);
            r.pieces[r.n++] = v;
            continue;
        }
        size_t n = 1 + rnd(40);
        n = n < len - fed ? n : len - fed;
        if (n == 0)
            gpa_stream_end(s);
        gpa_stream_feed(s, text + fed, n);
        fed += n;
    }
    r.last = st;
    r.is_list = gpa_stream_is_list(s);
    r.is_json = gpa_stream_is_json(s);
    gpa_stream_free(s);
    return r;
}

START_TEST(test_random_edits_json)
{
    const char *base = "{\"apiVersion\": \"v1\", \"items\": [{\"kind\": \"Pod\", \"a\": [1, 2.5, -3e4], \"s\": \"x\\u00e9\\n\"},\n"
                       " {\"kind\": \"Pod\", \"b\": {\"c\": null, \"d\": true}}, 42, \"str\"],\n \"kind\": \"List\"}";
    char text[512];
    for (int round = 0; round < 20000; round++) {
        strcpy(text, base);
        mutate(text, strlen(text));
        gpa_value_t *whole;
        gpa_error_t err = {0};
        gpa_error_init(&err, "t");
        int ok = gpa_json_parse(&arena, text, strlen(text), &whole, &err) == 0;
        result_t r = read_random_chunks(text);
        if (!r.is_json) { /* the edit took the brace away: YAML */
            gpa_arena_clear(&arena);
            continue;
        }
        if (!ok) {
            ck_assert_msg(r.last == GPA_STREAM_ERROR || r.last == GPA_STREAM_WHOLE, "%s: read without the fault", text);
            if (r.last == GPA_STREAM_ERROR)
                ck_assert_msg(r.err.line == err.line && r.err.column == err.column && strcmp(r.err.message, err.message) == 0,
                              "%s: %u:%u %s, want %u:%u %s", text, r.err.line, r.err.column, r.err.message, err.line, err.column,
                              err.message);
            continue;
        }
        if (r.last == GPA_STREAM_WHOLE || !r.is_list)
            continue;
        ck_assert_msg(r.last == GPA_STREAM_END, "%s: %s", text, r.err.message);
        gpa_value_t *items = gpa_value_get(whole, "items");
        ck_assert_uint_eq(r.n, items->u.array.len);
        for (size_t i = 0; i < r.n; i++)
            ck_assert_msg(gpa_value_equal(items->u.array.items[i], r.pieces[i]), "%s: item %zu", text, i);
        gpa_arena_clear(&arena);
    }
}
END_TEST

START_TEST(test_random_edits_yaml)
{
    const char *base =
        "a: 1\nb: [x, \"y\"]\n---\nkind: Pod\nspec:\n  c:\n  - name: m\n    v: |\n      text\n---\n# c\nd: &k {e: 1}\nf: *k\n";
    char text[512];
    for (int round = 0; round < 20000; round++) {
        strcpy(text, base);
        mutate(text, strlen(text));
        gpa_docs_t whole;
        gpa_error_t err = {0};
        gpa_error_init(&err, "t");
        int ok = gpa_yaml_parse(&arena, text, strlen(text), &whole, &err) == 0;
        result_t r = read_random_chunks(text);
        if (!ok || r.last == GPA_STREAM_WHOLE) {
            gpa_arena_clear(&arena);
            continue; /* a fault may be found in another document, or the edit made it JSON */
        }
        ck_assert_msg(r.last == GPA_STREAM_END, "%s: %s", text, r.err.message);
        ck_assert_uint_eq(r.n, whole.len);
        for (size_t i = 0; i < r.n; i++) {
            ck_assert_msg(gpa_value_equal(whole.docs[i], r.pieces[i]), "%s: doc %zu", text, i);
            ck_assert_uint_eq(whole.docs[i]->line, r.pieces[i]->line);
        }
        gpa_arena_clear(&arena);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_json_list_items);
    tcase_add_test(tc, test_json_list_growing_items);
    tcase_add_test(tc, test_json_array_is_whole);
    tcase_add_loop_test(tc, test_json_errors_as_whole_parse, 0, (int)(sizeof(bad_json) / sizeof(bad_json[0])));
    tcase_add_test(tc, test_yaml_documents);
    tcase_add_test(tc, test_yaml_error_line);
    tcase_add_test(tc, test_large_piece);
    tcase_add_test(tc, test_random_edits_json);
    tcase_add_test(tc, test_random_edits_yaml);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
