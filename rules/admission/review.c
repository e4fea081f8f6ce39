#include "admission/review.h"

#include <stdio.h>
#include <string.h>

#include "admission/envelope.h"
#include "inventory/inventory.h"
#include "kube/decode.h"
#include "kube/ray.h"
#include "document/json.h"

/* ---- answering --------------------------------------------------------------------------------------------------- */

static void answer_400(gpa_arena_t *a, gpa_review_t *out, const char *reason)
{
    out->http_status = 400;
    out->body = gpa_arena_printf(a, "invalid AdmissionReview: %s", reason);
    out->len = strlen(out->body);
    out->allowed = 0;
}

static int bad(gpa_arena_t *a, gpa_review_t *out, const char *path, const char *what)
{
    answer_400(a, out, gpa_arena_printf(a, "%s: %s", path, what));
    return -1;
}

/* One base64 quantum: 1 to 3 bytes of s in, 4 characters out ('=' for the missing bytes). */
static void base64_quantum(gpa_buf_t *out, const unsigned char *s, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned v = (unsigned)s[0] << 16 | (n > 1 ? (unsigned)s[1] << 8 : 0) | (n > 2 ? s[2] : 0);
    char quad[4] = {tab[v >> 18], tab[(v >> 12) & 63], n > 1 ? tab[(v >> 6) & 63] : '=', n > 2 ? tab[v & 63] : '='};
    gpa_buf_append(out, quad, 4);
}

/* RFC 4648 base64 (the AdmissionResponse's patch is []byte, which JSON carries as standard base64). */
static void base64(gpa_buf_t *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 3)
        base64_quantum(out, (const unsigned char *)s + i, n - i < 3 ? n - i : 3);
}

static void put_string(gpa_buf_t *b, const char *s)
{
    gpa_buf_json_string(b, s, strlen(s));
}

/* The denial's status: 403 Forbidden for findings, 400 BadRequest for an object that cannot be read. */
static void put_status(gpa_buf_t *b, int code, const char *reason, const char *msg, size_t len)
{
    gpa_buf_puts(b, code == 400 ? ",\"status\":{\"code\":400" : ",\"status\":{\"code\":403");
    gpa_buf_puts(b, ",\"reason\":");
    put_string(b, reason);
    gpa_buf_puts(b, ",\"message\":");
    gpa_buf_json_string(b, msg != NULL ? msg : "", len);
    gpa_buf_putc(b, '}');
}

/* status.message: the deny findings, one "container: rule: message" each, joined with "; ", at most
 * GPA_REVIEW_MAX_FINDINGS of them and then "and N more" (an answer stays small whatever the object holds). */
static void put_denial(gpa_arena_t *a, gpa_buf_t *b, const gpa_verdict_t *v)
{
    gpa_buf_t msg = GPA_BUF_INIT;
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < v->violations.len; i++) {
        if (v->violations.items[i].action != GPA_ACTION_DENY)
            continue;
        if (shown == GPA_REVIEW_MAX_FINDINGS) {
            more++;
            continue;
        }
        if (shown++ != 0)
            gpa_buf_append(&msg, "; ", 2);
        gpa_buf_puts(&msg, gpa_violation_line(a, &v->violations.items[i]));
    }
    more += gpa_violations_omitted(&v->violations, GPA_ACTION_DENY);
    if (more != 0)
        gpa_buf_puts(&msg, gpa_arena_printf(a, "; and %zu more", more));
    put_status(b, 403, "Forbidden", msg.base, msg.len);
    gpa_buf_dispose(&msg);
}

/* The warnings, whatever their origin (mutation, warn finding, no room now): at most GPA_REVIEW_MAX_FINDINGS, then
 * one more saying how many were left out (warn findings only counted among them). */
static void put_warnings(gpa_arena_t *a, gpa_buf_t *b, const gpa_verdict_t *v)
{
    const gpa_warnings_t *w = &v->warnings;
    size_t total = w->len + gpa_violations_omitted(&v->violations, GPA_ACTION_WARN);
    if (total == 0)
        return;
    gpa_buf_puts(b, ",\"warnings\":[");
    size_t shown = w->len < GPA_REVIEW_MAX_FINDINGS ? w->len : GPA_REVIEW_MAX_FINDINGS;
    for (size_t i = 0; i < shown; i++) {
        if (i != 0)
            gpa_buf_putc(b, ',');
        put_string(b, w->items[i].text);
    }
    if (total > shown) {
        if (shown != 0)
            gpa_buf_putc(b, ',');
        put_string(b, gpa_arena_printf(a, "and %zu more", total - shown));
    }
    gpa_buf_putc(b, ']');
}

/* patch and patchType together or neither (kube-apiserver rejects anything else). */
static void put_patch(gpa_buf_t *b, const gpa_patch_t *p)
{
    if (p->len == 0)
        return;
    gpa_buf_t json = GPA_BUF_INIT;
    gpa_patch_encode(&json, p);
    gpa_buf_puts(b, ",\"patchType\":\"JSONPatch\",\"patch\":\"");
    base64(b, json.base, json.len);
    gpa_buf_putc(b, '"');
    gpa_buf_dispose(&json);
}

/* The AdmissionReview answer; `unreadable` (or NULL): why the object cannot be read, which denies with code 400. */
static void answer(gpa_arena_t *a, gpa_webhook_t hook, const gpa_envelope_t *req, const char *unreadable, gpa_review_t *out)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"apiVersion\":");
    put_string(&b, req->api_version);
    gpa_buf_puts(&b, ",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":");
    gpa_buf_json_string(&b, req->uid, req->uid_len); /* whole, a NUL escaped like any control character */
    gpa_buf_puts(&b, out->allowed ? ",\"allowed\":true" : ",\"allowed\":false");
    if (unreadable != NULL)
        put_status(&b, 400, "BadRequest", unreadable, strlen(unreadable));
    else if (!out->allowed)
        put_denial(a, &b, &out->verdict);
    put_warnings(a, &b, &out->verdict);
    if (hook == GPA_WEBHOOK_MUTATE)
        put_patch(&b, &out->verdict.patch);
    gpa_buf_puts(&b, "}}");
    out->http_status = 200;
    out->body = gpa_arena_strndup(a, b.base, b.len);
    out->len = b.len;
    gpa_buf_dispose(&b);
}

/*
 * Decodes request.<key>, placed where the request stores it (gpa_object_set_request). An object with a bad shape
 * on a path gpuadmit needs is a well-formed review all the same: it is denied (HTTP 200, code 400) with the
 * reason and its path, so kube-apiserver shows the user why whatever the failurePolicy (docs/webhook.md).
 */
static int decode(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_webhook_t hook,
                  const gpa_envelope_t *req, gpa_value_t *doc, const char *key, gpa_object_t **obj, gpa_review_t *out)
{
    gpa_error_t err = {0};
    gpa_decode_opts_t opts = cfg->decode; /* the inventory's DeviceClasses known: extended resources read as DRA */
    opts.known = gpa_inventory_dra(inv);
    gpa_error_init(&err, NULL);
    if (gpa_decode_object_with(a, &opts, doc, obj, &err) != 0) {
        gpa_decode_error_within(&err, gpa_arena_printf(a, "request.%s", key));
        const char *why = gpa_arena_printf(a, "cannot read %s: %s", err.path, err.message);
        out->allowed = 0;
        answer(a, hook, req, why, out);
        return -1;
    }
    gpa_object_set_request(*obj, req->ns, req->name);
    return 0;
}

static void check(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget, size_t keep,
                  gpa_webhook_t hook, const gpa_envelope_t *req, gpa_review_t *out)
{
    gpa_object_t *obj = NULL, *old = NULL;
    int judged = req->op == GPA_OP_CREATE || req->op == GPA_OP_UPDATE; /* DELETE and CONNECT: admitted as they are */
    if (judged && req->object != NULL && decode(a, cfg, inv, hook, req, req->object, "object", &obj, out) != 0)
        return;
    if (judged && req->old_object != NULL && decode(a, cfg, inv, hook, req, req->old_object, "oldObject", &old, out) != 0)
        return;
    const gpa_object_t *facts = obj != NULL ? obj : old;
    if (facts != NULL) {
        out->kind = facts->kind[0] != '\0' ? facts->kind : req->kind;
        out->ns = facts->ns;
        out->name = facts->name;
    }
    out->allowed = 1;
    if (judged) {
        gpa_check_opts_t opts = {.operation = req->op,
                                 .old_object = old,
                                 .mutate = hook == GPA_WEBHOOK_MUTATE,
                                 .validate = hook == GPA_WEBHOOK_VALIDATE,
                                 .inventory = inv,
                                 .known = gpa_inventory_dra(inv),
                                 .budget = budget,
                                 .keep_findings = keep};
        gpa_error_t err = {0};
        gpa_error_init(&err, NULL);
        if (gpa_check(a, cfg, obj, &opts, &out->verdict, &err) != 0) {
            bad(a, out, "request.object", gpa_arena_printf(a, "cannot be mutated: %s: %s", err.path, err.message));
            return;
        }
        /* The mutating webhook never denies for validation reasons: that is the validating webhook's answer. */
        out->allowed = hook == GPA_WEBHOOK_MUTATE ? 1 : out->verdict.allowed;
    }
    answer(a, hook, req, NULL, out);
}

gpa_json_filter_t *gpa_review_filter(gpa_arena_t *a, const gpa_config_t *cfg)
{
    gpa_json_filter_t *root = gpa_json_filter_new(a);
    gpa_envelope_filter(a, root);
    static const char *const objects[] = {"request.object", "request.oldObject"};
    for (size_t i = 0; i < 2; i++) {
        gpa_json_filter_t *object = gpa_json_filter_path(a, root, objects[i]);
        gpa_decode_filter(a, &cfg->decode, object);
        gpa_ray_filter(a, object); /* the ray-num-gpus rule and mutation read each group beside its template */
    }
    gpa_json_filter_seal(a, root);
    return root;
}

/* A review; `keep`: the findings of each action out->verdict holds whole (0: all), the rest only counted. */
static void review(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget,
                   const gpa_json_filter_t *filter, size_t keep, gpa_webhook_t hook, const char *body, size_t len,
                   gpa_review_t *out)
{
    memset(out, 0, sizeof(*out));
    out->api_version = out->uid = out->operation = out->kind = out->ns = out->name = "";
    gpa_value_t *root;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    if (body == NULL || gpa_json_parse_filtered(a, body, len, filter, &root, &err) != 0) {
        answer_400(
            a, out,
            gpa_arena_printf(a, "not JSON: line %u column %u: %s", err.line, err.column, body == NULL ? "no body" : err.message));
        return;
    }
    gpa_envelope_t req;
    int rc = gpa_envelope_read(root, &req, &err);
    out->api_version = req.api_version;
    out->uid = req.uid;
    out->uid_len = req.uid_len;
    out->operation = req.operation;
    if (rc != 0) {
        bad(a, out, err.path, err.message);
        return;
    }
    out->kind = req.kind;
    out->ns = req.ns;
    out->name = req.name;
    check(a, cfg, inv, budget, keep, hook, &req, out);
}

void gpa_review(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_webhook_t hook, const char *body,
                size_t len, gpa_review_t *out)
{
    review(a, cfg, inv, NULL, NULL, 0, hook, body, len, out);
}

void gpa_review_with(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_inventory_t *inv, gpa_alloc_budget_t *budget,
                     const gpa_json_filter_t *filter, gpa_webhook_t hook, const char *body, size_t len, gpa_review_t *out)
{
    review(a, cfg, inv, budget, filter, GPA_REVIEW_MAX_FINDINGS, hook, body, len, out);
}
