/*
 * libFuzzer driver for the piecewise reader (rules/document/stream.c), differential: the first byte picks how
 * many bytes each feed brings (1 to 64), the rest is the input. Invariants, whatever the chunking:
 *   - JSON: when the whole text parses, the reader ends without fault (items equal to the whole parse's "items"
 *     when it says List); when it does not, the reader fails with the same first error (line, column, message),
 *     or hands the text back whole (an array); the check-only reading agrees.
 *   - YAML: when gpa_yaml_parse takes the whole text, the reader's documents are its documents, on its lines.
 * Built and registered by tests/stream.cmake (with GPA_FUZZ); seeds in tests/fuzz/seeds/stream.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "document/json.h"
#include "document/stream.h"
#include "document/yaml.h"

#define MAX_PIECES 4096

typedef struct st_read_t {
    gpa_value_t *pieces[MAX_PIECES];
    size_t n;
    gpa_stream_status_t last;
    gpa_error_t err;
    int is_json, is_list;
} read_t;

static void read_all(gpa_arena_t *a, const char *text, size_t len, size_t chunk, int check_only, read_t *r)
{
    gpa_stream_t *s = gpa_stream_new();
    if (check_only)
        gpa_stream_check_only(s);
    gpa_error_init(&r->err, "f");
    r->n = 0;
    size_t fed = 0;
    gpa_value_t *v;
    gpa_stream_status_t st;
    while ((st = gpa_stream_next(s, a, &v, &r->err)) == GPA_STREAM_MORE || st == GPA_STREAM_PIECE) {
        if (st == GPA_STREAM_PIECE) {
            if (r->n < MAX_PIECES)
                r->pieces[r->n++] = v;
            continue;
        }
        size_t n = chunk < len - fed ? chunk : len - fed;
        if (n == 0)
            gpa_stream_end(s);
        gpa_stream_feed(s, text + fed, n);
        fed += n;
    }
    r->last = st;
    r->is_json = gpa_stream_is_json(s);
    r->is_list = gpa_stream_is_list(s);
    gpa_stream_free(s);
}

static void check_json(gpa_arena_t *a, const char *text, size_t len, const read_t *r, const read_t *checked)
{
    gpa_value_t *whole;
    gpa_error_t err = {0};
    gpa_error_init(&err, "f");
    if (gpa_json_parse(a, text, len, &whole, &err) != 0) {
        if (r->last == GPA_STREAM_END || checked->last != r->last)
            abort(); /* a fault the reader did not see */
        if (r->last == GPA_STREAM_ERROR && (r->err.line != err.line || r->err.column != err.column ||
                                            strcmp(r->err.message, err.message) != 0 || checked->err.line != err.line))
            abort(); /* another first error */
        return;
    }
    if (r->last == GPA_STREAM_ERROR || checked->last == GPA_STREAM_ERROR || checked->is_list != r->is_list)
        abort();
    if (r->last != GPA_STREAM_END || !r->is_list)
        return;
    const gpa_value_t *items = gpa_value_get(whole, "items");
    if (items == NULL || items->u.array.len != r->n || checked->n != r->n)
        abort();
    for (size_t i = 0; i < r->n && i < MAX_PIECES; i++)
        if (!gpa_value_equal(items->u.array.items[i], r->pieces[i]) || items->u.array.items[i]->line != r->pieces[i]->line)
            abort();
}

static void check_yaml(gpa_arena_t *a, const char *text, size_t len, const read_t *r)
{
    gpa_docs_t whole;
    gpa_error_t err = {0};
    gpa_error_init(&err, "f");
    if (gpa_yaml_parse(a, text, len, &whole, &err) != 0)
        return; /* the reader may find the fault in a later document, or the same one */
    if (r->last != GPA_STREAM_END || r->n != whole.len)
        abort();
    for (size_t i = 0; i < r->n; i++)
        if (!gpa_value_equal(whole.docs[i], r->pieces[i]) || whole.docs[i]->line != r->pieces[i]->line)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    size_t chunk = 1 + data[0] % 64, len = size - 1;
    char *text = malloc(len + 1);
    memcpy(text, data + 1, len);
    text[len] = '\0';
    static read_t r, checked;
    gpa_arena_t a;
    gpa_arena_init(&a);
    read_all(&a, text, len, chunk, 0, &r);
    if (r.is_json) {
        read_all(&a, text, len, chunk, 1, &checked);
        check_json(&a, text, len, &r, &checked);
    } else {
        check_yaml(&a, text, len, &r);
    }
    gpa_arena_dispose(&a);
    free(text);
    return 0;
}
