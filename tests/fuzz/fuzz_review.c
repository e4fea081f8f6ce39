/*
 * libFuzzer driver for the webhook's entry (rules/admission/review.c, gpa_review): request body in, answer out,
 * as `gpuadmit serve` and `gpuadmit review` call it, for the mutating and the validating webhook, with the small
 * inventory of fuzz_workload.h so the infeasible rule runs too.
 * Invariants: nothing crashes, hangs or leaks; a 400 answer is one line saying why; a 200 answer is valid JSON
 * (read by jansson, not our reader), an AdmissionReview in the version asked whose response.uid is the request's;
 * allowed is a boolean and a denial carries status.code 403, or 400 naming the path of an object it cannot read;
 * the validating answer carries no patch and the mutating one denies only what it cannot read; a mutating
 * answer's patch (base64 of a JSON Patch) applies to request.object, and the review of the patched object
 * mutates nothing more (reinvocation-safe, docs/rules.md#mutations); the webhook's filtered reading
 * (gpa_review_with with a filter) answers byte for byte the same.
 * Seeds: tests/fuzz/seeds/review/ (AdmissionReviews from examples/ and tests/cases/, and the regressions found).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "admission/review.h"
#include "inventory/inventory.h"
#include "alloc/placement.h"
#include "kube/decode.h"
#include "fuzz_common.h"
#include "fuzz_workload.h"

static gpa_config_t *config;
static gpa_inventory_t *inventory;

static void fail_answer(const char *what, const gpa_review_t *r)
{
    gpa_buf_t b = {.base = r->body, .len = r->len};
    fuzz_fail(what, &b);
}

/* RFC 4648 base64 back to bytes; -1 on anything else. */
static int unbase64(const char *s, gpa_buf_t *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    if (n % 4 != 0)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0, pad = 0;
        for (size_t j = 0; j < 4; j++) {
            const char *p = s[i + j] != '\0' ? strchr(tab, s[i + j]) : NULL;
            if (s[i + j] == '=' && i + 4 == n && j >= 2)
                pad++;
            else if (p == NULL || pad != 0)
                return -1;
            v = v << 6 | (p != NULL ? (unsigned)(p - tab) : 0);
        }
        char bytes[3] = {(char)(v >> 16), (char)(v >> 8), (char)v};
        gpa_buf_append(out, bytes, 3 - pad);
    }
    return 0;
}

/* A JSON Patch document (our reader's tree) as the operations gpa_patch_apply takes; -1 when it is not one. */
static int read_patch(gpa_arena_t *a, const gpa_value_t *doc, gpa_patch_t *p)
{
    if (doc->type != GPA_VARRAY || doc->u.array.len == 0)
        return -1; /* an empty patch is never sent: patch and patchType are left out instead */
    for (size_t i = 0; i < doc->u.array.len; i++) {
        const gpa_value_t *item = doc->u.array.items[i];
        const char *op = gpa_value_string(gpa_value_get(item, "op"));
        const char *path = gpa_value_string(gpa_value_get(item, "path"));
        gpa_value_t *value = gpa_value_get(item, "value");
        if (op == NULL || path == NULL)
            return -1;
        if (strcmp(op, "add") == 0 && value != NULL)
            gpa_patch_push(a, p, GPA_PATCH_ADD, path, value);
        else if (strcmp(op, "replace") == 0 && value != NULL)
            gpa_patch_push(a, p, GPA_PATCH_REPLACE, path, value);
        else if (strcmp(op, "remove") == 0 && value == NULL)
            gpa_patch_push(a, p, GPA_PATCH_REMOVE, path, NULL);
        else
            return -1;
    }
    return 0;
}

/* The request of the input, with request.object replaced by `object`, written as JSON. */
static void with_object(gpa_value_t *review, gpa_value_t *object, gpa_buf_t *out)
{
    gpa_value_t *request = gpa_value_get(review, "request");
    for (size_t i = 0; i < request->u.object.len; i++) {
        const gpa_member_t *m = &request->u.object.members[i];
        if (m->key_len == strlen("object") && memcmp(m->key, "object", m->key_len) == 0)
            request->u.object.members[i].value = object;
    }
    gpa_value_emit_json(out, review, 0);
}

/* The mutating answer's patch applies to request.object, and the patched object needs no further mutation. */
static void check_patch(gpa_arena_t *a, const gpa_review_t *r, const char *patch64, const uint8_t *data, size_t size)
{
    gpa_buf_t raw = GPA_BUF_INIT;
    if (unbase64(patch64, &raw) != 0)
        fail_answer("the patch is not base64", r);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_value_t *doc, *review;
    gpa_patch_t patch = {0};
    if (gpa_json_parse(a, raw.base, raw.len, &doc, &err) != 0 || read_patch(a, doc, &patch) != 0)
        fuzz_fail("the patch is not a JSON Patch", &raw);
    if (gpa_json_parse(a, (const char *)data, size, &review, &err) != 0)
        fail_answer("a body that was answered 200 does not read again", r);
    gpa_value_t *object = gpa_value_get(gpa_value_get(review, "request"), "object");
    if (object == NULL || gpa_patch_apply(a, &object, &patch, &err) != 0)
        fuzz_fail("the patch does not apply to request.object", &raw);
    if (!gpa_value_equal(object, r->verdict.mutated))
        fuzz_fail("the patched object is not the engine's mutated object", &raw);
    gpa_buf_t again = GPA_BUF_INIT;
    with_object(review, object, &again);
    gpa_review_t second;
    gpa_review(a, config, inventory, GPA_WEBHOOK_MUTATE, again.base, again.len, &second);
    if (second.http_status != 200 || second.verdict.patch.len != 0)
        fuzz_fail("the review of the patched object is refused or mutates again", &again);
    gpa_buf_dispose(&again);
    gpa_buf_dispose(&raw);
}

/* The uid the request carries (our reader; the answer is checked against it). */
static const char *request_uid(gpa_arena_t *a, const uint8_t *data, size_t size)
{
    gpa_value_t *review;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    if (gpa_json_parse(a, (const char *)data, size, &review, &err) != 0)
        return NULL;
    return gpa_value_string(gpa_value_get(gpa_value_get(review, "request"), "uid"));
}

static int same_string(const json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

static void check_answer(gpa_arena_t *a, gpa_webhook_t hook, const gpa_review_t *r, const uint8_t *data, size_t size)
{
    if (r->http_status == 400) {
        if (r->len == 0 || memchr(r->body, '\n', r->len) != NULL || r->allowed)
            fail_answer("a 400 answer is not one line saying why", r);
        return;
    }
    if (r->http_status != 200)
        fail_answer("an answer is neither 200 nor 400", r);
    json_error_t jerr;
    json_t *root = json_loadb(r->body, r->len, JSON_ALLOW_NUL, &jerr);
    if (root == NULL)
        fail_answer(jerr.text, r);
    json_t *resp = json_object_get(root, "response");
    const char *uid = json_string_value(json_object_get(resp, "uid"));
    const char *asked = request_uid(a, data, size);
    json_t *allowed = json_object_get(resp, "allowed");
    if (!same_string(json_object_get(root, "kind"), "AdmissionReview") ||
        !same_string(json_object_get(root, "apiVersion"), r->api_version))
        fail_answer("the answer is not an AdmissionReview in the version asked", r);
    if (uid == NULL || asked == NULL || strcmp(uid, asked) != 0)
        fail_answer("the answer does not echo the request's uid", r);
    if (!json_is_boolean(allowed) || json_is_true(allowed) != (r->allowed != 0))
        fail_answer("response.allowed is not the verdict", r);
    /* A denial is 403 (findings) or 400 (an object it cannot read on a path it needs, said with that path). */
    json_t *status = json_object_get(resp, "status");
    json_int_t code = json_integer_value(json_object_get(status, "code"));
    const char *message = json_string_value(json_object_get(status, "message"));
    int unreadable = code == 400 && message != NULL && strncmp(message, "cannot read request.", 20) == 0;
    if (!r->allowed && code != 403 && !unreadable)
        fail_answer("a denial neither 403 nor 400 naming what it cannot read", r);
    const char *patch = json_string_value(json_object_get(resp, "patch"));
    if ((patch != NULL) != (json_object_get(resp, "patchType") != NULL))
        fail_answer("patch without patchType or the reverse", r);
    if (hook == GPA_WEBHOOK_VALIDATE && patch != NULL)
        fail_answer("the validating answer carries a patch", r);
    if (hook == GPA_WEBHOOK_MUTATE && !r->allowed && !unreadable)
        fail_answer("the mutating webhook denied for another reason than unreadable input", r);
    if (patch != NULL)
        check_patch(a, r, patch, data, size);
    json_decref(root);
}

/* What parsing the body and decoding request.object alone holds (the part of a review's peak that is the object;
 * 0 when the body does not parse). */
static size_t decoded_cost(const uint8_t *data, size_t size)
{
    gpa_arena_t d;
    gpa_arena_init(&d);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_value_t *review;
    gpa_object_t *obj;
    if (gpa_json_parse(&d, (const char *)data, size, &review, &err) == 0) {
        gpa_value_t *object = gpa_value_get(gpa_value_get(review, "request"), "object");
        if (object != NULL)
            (void)gpa_decode_object(&d, object, &obj, &err);
    }
    size_t peak = gpa_arena_peak(&d);
    gpa_arena_dispose(&d);
    return peak;
}

/* The memory ceiling (tests/unit/test_bounds.c): one review's arena peaks within the decoded object (twice: object
 * and oldObject), GPA_CHECK_MEMORY_BYTES, the body once more and a MiB for the envelope and the answer. */
static void check_ceiling(const gpa_arena_t *a, const gpa_review_t *r, size_t decoded, size_t size)
{
    if (gpa_arena_peak(a) > 2 * decoded + GPA_CHECK_MEMORY_BYTES + size + ((size_t)1 << 20))
        fail_answer("the review's arena passed the memory ceiling", r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (config == NULL) {
        config = gpa_config_default();
        inventory = fuzz_inventory_new();
    }
    gpa_webhook_t hooks[] = {GPA_WEBHOOK_MUTATE, GPA_WEBHOOK_VALIDATE};
    size_t decoded = decoded_cost(data, size);
    for (size_t i = 0; i < 2; i++) {
        gpa_arena_t a;
        gpa_arena_init(&a);
        gpa_review_t r;
        gpa_review(&a, config, inventory, hooks[i], (const char *)data, size, &r);
        check_ceiling(&a, &r, decoded, size);
        check_answer(&a, hooks[i], &r, data, size);
        /* The webhook builds only what the engine reads (gpa_review_filter): the same answer, byte for byte. */
        gpa_review_t filtered;
        gpa_review_with(&a, config, inventory, NULL, gpa_review_filter(&a, config), hooks[i], (const char *)data, size, &filtered);
        if (filtered.http_status != r.http_status || filtered.len != r.len || memcmp(filtered.body, r.body, r.len) != 0)
            fail_answer("the filtered review answers otherwise", &filtered);
        gpa_arena_dispose(&a);
    }
    return 0;
}
