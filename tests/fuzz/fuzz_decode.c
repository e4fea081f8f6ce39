/*
 * libFuzzer driver for the decode path: document (JSON or YAML) -> typed model (rules/decode.c) -> gpa_check
 * (rules/engine.c: rules, mutations, patch), as `gpuadmit validate` and the webhook run it.
 * Invariants: nothing crashes, hangs or leaks; a decode error says what and where; a verdict is the same
 * when the document is written out as JSON or as YAML and read again (the readers and writers agree on
 * everything the rules see); the mutated object is the input with the patch applied; mutating the mutated
 * object again yields an empty patch (reinvocation-safe, docs/rules.md#mutations).
 * Seeds: tests/fuzz/seeds/decode/ and, on the command line, examples/ and tests/cases/ (their .yaml/.json).
 */
#include <stdint.h>
#include <stdlib.h>

#include "alloc/placement.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "fuzz_common.h"
#include "document/docs.h"
#include "document/emit.h"
#include "document/json.h"
#include "document/yaml.h"

static gpa_config_t *config;

/* The rule ids of a verdict, in order, and whether it admits: what must not change across a round trip. */
static void verdict_key(gpa_buf_t *out, const gpa_verdict_t *v)
{
    gpa_buf_printf(out, "%s", v->allowed ? "allowed" : "denied");
    for (size_t i = 0; i < v->violations.len; i++)
        gpa_buf_printf(out, " %s@%s", v->violations.items[i].rule,
                       v->violations.items[i].container != NULL ? v->violations.items[i].container : "-");
}

static int same_key(const gpa_buf_t *x, const gpa_buf_t *y)
{
    return x->len == y->len && (x->len == 0 || memcmp(x->base, y->base, x->len) == 0);
}

static int check(gpa_arena_t *a, gpa_object_t *obj, int mutate, gpa_verdict_t *out)
{
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = mutate, .validate = 1};
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    /* The memory ceiling (tests/unit/test_bounds.c): past what the arena holds when the check starts (the decoded
     * object), a new peak stays within GPA_CHECK_MEMORY_BYTES and a MiB of slack. */
    size_t held = gpa_arena_held(a), peak = gpa_arena_peak(a);
    int rc = gpa_check(a, config, obj, &opts, out, &err);
    if (gpa_arena_peak(a) > peak && gpa_arena_peak(a) - held > GPA_CHECK_MEMORY_BYTES + ((size_t)1 << 20))
        abort();
    return rc;
}

/* Decodes one document tree and checks it; the verdict key goes to `key` ("error" when it does not decode). */
static void run_doc(gpa_arena_t *a, gpa_value_t *doc, gpa_buf_t *key, int first)
{
    gpa_objects_t objs = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    if (gpa_decode_document(a, doc, &objs, &err) != 0) {
        if (first && err.message[0] == '\0')
            abort(); /* every decode error says what is wrong */
        gpa_buf_puts(key, "error;");
        return;
    }
    for (size_t i = 0; i < objs.len; i++) {
        gpa_verdict_t v;
        if (check(a, objs.items[i], 0, &v) != 0)
            abort(); /* validation alone never fails */
        verdict_key(key, &v);
        gpa_buf_putc(key, '|');
        if (check(a, objs.items[i], 1, &v) != 0) {
            gpa_buf_puts(key, "mutate-error;");
            continue;
        }
        verdict_key(key, &v);
        gpa_buf_putc(key, ';');
        if (!first)
            continue;
        /* the mutated object is the input with the patch applied */
        gpa_value_t *root = objs.items[i]->root;
        if (gpa_patch_apply(a, &root, &v.patch, &err) != 0 || !gpa_value_equal(root, v.mutated))
            abort();
        /* mutating the mutated object again changes nothing */
        gpa_object_t *again;
        gpa_verdict_t w;
        if (v.patch.len != 0 && gpa_decode_object(a, v.mutated, &again, &err) == 0 && check(a, again, 1, &w) == 0 &&
            w.patch.len != 0) {
            gpa_buf_t b = GPA_BUF_INIT;
            gpa_patch_encode(&b, &w.patch);
            fuzz_fail("mutating the mutated object gave another patch", &b);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (config == NULL)
        config = gpa_config_default();
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_docs_t docs;
    if (gpa_docs_parse(&a, (const char *)data, size, &docs, &err) == 0) {
        for (size_t i = 0; i < docs.len; i++) {
            gpa_buf_t key = GPA_BUF_INIT, json_key = GPA_BUF_INIT, yaml_key = GPA_BUF_INIT;
            run_doc(&a, docs.docs[i], &key, 1);
            /* the same tree written as JSON, and as YAML, and read again, gets the same verdicts */
            gpa_buf_t text = GPA_BUF_INIT;
            gpa_value_emit_json(&text, docs.docs[i], 0);
            gpa_value_t *w;
            if (gpa_json_parse(&a, text.base, text.len, &w, &err) != 0)
                fuzz_fail(err.message, &text);
            run_doc(&a, w, &json_key, 0);
            if (!same_key(&key, &json_key))
                fuzz_fail("the verdict changed when the document was written as JSON", &text);
            gpa_buf_reset(&text);
            gpa_value_emit_yaml(&text, docs.docs[i]);
            gpa_docs_t back;
            if (gpa_yaml_parse(&a, text.base, text.len, &back, &err) != 0)
                fuzz_fail(err.message, &text);
            if (back.len == 1) {
                run_doc(&a, back.docs[0], &yaml_key, 0);
                if (!same_key(&key, &yaml_key))
                    fuzz_fail("the verdict changed when the document was written as YAML", &text);
            }
            gpa_buf_dispose(&text);
            gpa_buf_dispose(&key);
            gpa_buf_dispose(&json_key);
            gpa_buf_dispose(&yaml_key);
        }
    } else if (err.message[0] == '\0') {
        abort();
    }
    gpa_arena_dispose(&a);
    return 0;
}
