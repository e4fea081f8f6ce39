/* Shared checks for the parser fuzz drivers (header-only: each driver is its own program). */
#ifndef GPA_FUZZ_COMMON_H
#define GPA_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/value.h"
#include "document/emit.h"
#include "document/json.h"
#include "document/yaml.h"

static void fuzz_fail(const char *what, const gpa_buf_t *text)
{
    fprintf(stderr, "fuzz invariant broken: %s\n%.*s\n", what, (int)text->len, text->base);
    abort();
}

/* Same tree, except that a number on the left may come back as any number (or, for a float beyond float64
 * such as 1e400, as a string), and a null root has no document. */
static int fuzz_same_shape(const gpa_value_t *x, const gpa_value_t *y)
{
    if (x->type == GPA_VNUMBER)
        return y->type == GPA_VNUMBER || y->type == GPA_VSTRING;
    if (x->type != y->type)
        return 0;
    switch (x->type) {
    case GPA_VARRAY:
        if (x->u.array.len != y->u.array.len)
            return 0;
        for (size_t i = 0; i < x->u.array.len; i++) {
            if (!fuzz_same_shape(x->u.array.items[i], y->u.array.items[i]))
                return 0;
        }
        return 1;
    case GPA_VOBJECT:
        if (x->u.object.len != y->u.object.len)
            return 0;
        for (size_t i = 0; i < x->u.object.len; i++) {
            const gpa_member_t *m = &x->u.object.members[i], *n = &y->u.object.members[i];
            if (m->key_len != n->key_len || memcmp(m->key, n->key, m->key_len) != 0 || !fuzz_same_shape(m->value, n->value))
                return 0;
        }
        return 1;
    default:
        return gpa_value_equal(x, y);
    }
}

__attribute__((unused)) static void fuzz_check_json_round_trip(gpa_arena_t *a, const gpa_value_t *v, int indent)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_json(&b, v, indent);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_value_t *w;
    if (gpa_json_parse(a, b.base, b.len, &w, &err) != 0)
        fuzz_fail(err.message, &b);
    if (!gpa_value_equal(v, w))
        fuzz_fail("JSON round trip changed the tree", &b);
    gpa_buf_dispose(&b);
}

__attribute__((unused)) static void fuzz_check_yaml_round_trip(gpa_arena_t *a, const gpa_value_t *v, int loose_numbers)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_value_emit_yaml(&b, v);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_docs_t docs;
    if (gpa_yaml_parse(a, b.base, b.len, &docs, &err) != 0)
        fuzz_fail(err.message, &b);
    if (v->type == GPA_VNULL) {
        if (docs.len != 0)
            fuzz_fail("null document came back", &b);
    } else if (docs.len != 1) {
        fuzz_fail("YAML round trip gave another number of documents", &b);
    } else if (loose_numbers ? !fuzz_same_shape(v, docs.docs[0]) : !gpa_value_equal(v, docs.docs[0])) {
        fuzz_fail("YAML round trip changed the tree", &b);
    }
    gpa_buf_dispose(&b);
}

#endif
