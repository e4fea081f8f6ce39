/*
 * The fixture the engine's unit tests share: one arena and the default configuration per test, and helpers
 * that turn test text into trees and objects (a test fails with the parser's message when its input is bad).
 * Header-only: each test program includes it once; helpers are static inline so unused ones cost nothing.
 */
#ifndef GPA_TEST_FIXTURE_H
#define GPA_TEST_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "policy/config.h"
#include "kube/decode.h"
#include "document/patch.h"
#include "document/value.h"
#include "document/json.h"

static gpa_arena_t arena;
static gpa_config_t *cfg; /* a test may replace it: teardown releases whatever it holds */

static void setup(void)
{
    gpa_arena_init(&arena);
    cfg = gpa_config_default();
}

static void teardown(void)
{
    gpa_config_release(cfg);
    gpa_arena_dispose(&arena);
}

/* The whole of file `rel` (a path from the source directory, where the tests run), NUL-terminated, in the arena; *len
 * its size (len may be NULL). Fails the test when it cannot be read. */
static inline const char *fixture_file(const char *rel, size_t *len)
{
    FILE *f = fopen(rel, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", rel);
    gpa_buf_t b = GPA_BUF_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) != 0)
        gpa_buf_append(&b, chunk, n);
    ck_assert_msg(!ferror(f), "cannot read %s", rel);
    fclose(f);
    const char *text = gpa_arena_strndup(&arena, b.base != NULL ? b.base : "", b.len);
    if (len != NULL)
        *len = b.len;
    gpa_buf_dispose(&b);
    return text;
}

static inline gpa_value_t *json(const char *text)
{
    gpa_value_t *v = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_json_parse(&arena, text, strlen(text), &v, &err) == 0, "parse %s: %s", text, err.message);
    return v;
}

static inline gpa_object_t *decode(gpa_value_t *doc)
{
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_decode_object(&arena, doc, &obj, &err) == 0, "decode: %s: %s", err.path, err.message);
    return obj;
}

static inline gpa_object_t *object(const char *text)
{
    return decode(json(text));
}

/* The patch as JSON text, in the arena. */
static inline const char *patch_text(const gpa_patch_t *p)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_patch_encode(&b, p);
    const char *s = gpa_arena_strndup(&arena, b.base, b.len);
    gpa_buf_dispose(&b);
    return s;
}

#endif
