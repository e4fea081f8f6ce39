/*
 * Test suites: running one case of a loaded suite through the engine (gpa_decode_object + gpa_check, as the
 * cluster runs them; an AdmissionReview case through gpa_review, as the webhook answers it) and matching what it
 * said against the case's expectations. See suite.h for the contracts;
 * loading a suite is suite.c's job.
 */
#include "suite/suite.h"

#include <stdlib.h>
#include <string.h>

#include "admission/review.h"
#include "alloc/alloc.h"
#include "alloc/dra_fit.h"
#include "base/buf.h"
#include "document/emit.h"
#include "kube/decode.h"

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

typedef GPA_VEC(const char *) strvec_t;

/* A deep copy in the case's arena, so decoding and mutation never touch the suite's documents. */
static gpa_value_t *clone(gpa_arena_t *a, const gpa_value_t *v)
{
    return gpa_value_clone(a, v);
}

static int decode(gpa_arena_t *a, const gpa_suite_t *s, const gpa_value_t *doc, const char *file, const char *ns,
                  gpa_object_t **out, gpa_error_t *err)
{
    gpa_error_init(err, file);
    gpa_decode_opts_t opts = s->config->decode; /* the suite inventory's DeviceClasses known (DRA) */
    opts.known = gpa_inventory_dra(s->inventory);
    if (gpa_decode_object_with(a, &opts, clone(a, doc), out, err) != 0)
        return -1;
    gpa_object_set_request(*out, ns, NULL);
    return 0;
}

/* gpa_decode_object + gpa_check, as the cluster runs them for this request. */
static int check_case(gpa_arena_t *a, const gpa_suite_t *s, const gpa_suite_case_t *tc, gpa_verdict_t *v, gpa_error_t *err)
{
    gpa_object_t *obj = NULL, *old = NULL;
    if (tc->old_object != NULL && decode(a, s, tc->old_object, tc->old_file, tc->ns, &old, err) != 0)
        return -1;
    if (tc->object != NULL && decode(a, s, tc->object, tc->object_file, tc->ns, &obj, err) != 0)
        return -1;
    gpa_check_opts_t opts = {.operation = tc->operation,
                             .old_object = old,
                             .mutate = tc->mutate,
                             .validate = 1,
                             .inventory = s->inventory,
                             .known = gpa_inventory_dra(s->inventory)};
    gpa_error_init(err, tc->object_file);
    /* DELETE carries only the old object; the engine admits it whatever it holds. */
    return gpa_check(a, s->config, obj != NULL ? obj : old, &opts, v, err);
}

/* The webhook's answer to a review, through the function the webhook calls (the review as JSON on the wire). */
static void answer(gpa_arena_t *a, const gpa_suite_t *s, gpa_webhook_t hook, const gpa_value_t *review, gpa_review_t *r)
{
    gpa_buf_t body = GPA_BUF_INIT;
    gpa_value_emit_json(&body, review, 0);
    gpa_review(a, s->config, s->inventory, hook, body.base, body.len, r);
    gpa_buf_dispose(&body);
}

/* request.object of a review tree, replaced by `object` (the mutating answer's result, for the validating webhook). */
static void set_request_object(gpa_value_t *review, gpa_value_t *object)
{
    gpa_value_t *req = gpa_value_get(review, "request");
    for (size_t i = 0; req != NULL && req->type == GPA_VOBJECT && i < req->u.object.len; i++)
        if (strcmp(req->u.object.members[i].key, "object") == 0)
            req->u.object.members[i].value = object;
}

static void add_warnings(gpa_arena_t *a, gpa_warnings_t *to, const gpa_warnings_t *from)
{
    for (size_t i = 0; i < from->len; i++)
        *gpa_vec_push(a, to) = from->items[i];
}

/*
 * An AdmissionReview case, answered as the cluster calls the webhooks: mutating, then validating on the patched
 * object (suite.h). Returns the HTTP status: 200, or 400 with *reason set (then *v is not allowed, no findings).
 */
static int review_case(gpa_arena_t *a, const gpa_suite_t *s, const gpa_suite_case_t *tc, gpa_verdict_t *v, const char **reason)
{
    gpa_value_t *review = clone(a, tc->review);
    gpa_value_t *req = gpa_value_get(review, "request");
    memset(v, 0, sizeof(*v));
    v->allowed = 1;
    v->mutated = req != NULL ? gpa_value_get(req, "object") : NULL;
    gpa_review_t r;
    if (tc->hooks & GPA_SUITE_HOOK_MUTATE) {
        answer(a, s, GPA_WEBHOOK_MUTATE, review, &r);
        if (r.http_status != 200)
            goto Refused;
        v->allowed = r.allowed;
        v->mutations = r.verdict.mutations;
        v->patch = r.verdict.patch;
        add_warnings(a, &v->warnings, &r.verdict.warnings);
        if (r.verdict.patch.len != 0) {
            v->mutated = r.verdict.mutated;
            set_request_object(review, r.verdict.mutated);
        }
    }
    if (tc->hooks & GPA_SUITE_HOOK_VALIDATE) {
        answer(a, s, GPA_WEBHOOK_VALIDATE, review, &r);
        if (r.http_status != 200)
            goto Refused;
        v->allowed = r.allowed;
        v->violations = r.verdict.violations;
        add_warnings(a, &v->warnings, &r.verdict.warnings);
    }
    return 200;
Refused:
    memset(v, 0, sizeof(*v));
    *reason = r.body != NULL ? r.body : "";
    return r.http_status;
}

static void sort_unique(gpa_suite_strs_t *x)
{
    if (x->len > 1)
        qsort(x->items, x->len, sizeof(*x->items), cmp_str);
    size_t n = 0;
    for (size_t i = 0; i < x->len; i++)
        if (n == 0 || strcmp(x->items[n - 1], x->items[i]) != 0)
            x->items[n++] = x->items[i];
    x->len = n;
}

static gpa_suite_strs_t strs_copy(gpa_arena_t *a, const char *const *items, size_t len)
{
    gpa_suite_strs_t x = {gpa_arena_calloc(a, len + 1, sizeof(*x.items)), len};
    for (size_t i = 0; i < len; i++)
        x.items[i] = items[i];
    return x;
}

static void collect(gpa_arena_t *a, const gpa_verdict_t *v, gpa_suite_result_t *r)
{
    r->allowed = v->allowed;
    r->rules = (gpa_suite_strs_t){gpa_arena_calloc(a, v->violations.len + 1, sizeof(char *)), v->violations.len};
    r->findings = (gpa_suite_strs_t){gpa_arena_calloc(a, v->violations.len + 1, sizeof(char *)), v->violations.len};
    for (size_t i = 0; i < v->violations.len; i++) {
        const gpa_violation_t *f = &v->violations.items[i];
        r->rules.items[i] = f->rule;
        r->findings.items[i] =
            gpa_arena_printf(a, "%s%s%s", f->action == GPA_ACTION_WARN ? "(warn) " : "", gpa_violation_line(a, f),
                             f->path != NULL && f->path[0] ? gpa_arena_printf(a, " [at %s]", f->path) : "");
    }
    sort_unique(&r->rules);
    /* Every admission warning, whatever its origin: what the cluster would show for this request. */
    r->warnings = (gpa_suite_strs_t){gpa_arena_calloc(a, v->warnings.len + 1, sizeof(char *)), v->warnings.len};
    for (size_t i = 0; i < v->warnings.len; i++)
        r->warnings.items[i] = v->warnings.items[i].whole;
    r->mutations = strs_copy(a, v->mutations.items, v->mutations.len);
    sort_unique(&r->mutations);
}

static int contains(const gpa_suite_strs_t *x, const char *s)
{
    for (size_t i = 0; i < x->len; i++)
        if (strcmp(x->items[i], s) == 0)
            return 1;
    return 0;
}

static const char *join(gpa_arena_t *a, const gpa_suite_strs_t *x)
{
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < x->len; i++)
        gpa_buf_printf(&b, "%s%s", i ? ", " : "", x->items[i]);
    const char *s = gpa_arena_strdup(a, b.base != NULL ? b.base : "");
    gpa_buf_dispose(&b);
    return s;
}

/* "missing a, b; unexpected c" for two sets, or NULL when they are the same set. */
static const char *set_diff(gpa_arena_t *a, const gpa_suite_strs_t *want, const gpa_suite_strs_t *got)
{
    gpa_suite_strs_t missing = {gpa_arena_calloc(a, want->len + 1, sizeof(char *)), 0};
    gpa_suite_strs_t extra = {gpa_arena_calloc(a, got->len + 1, sizeof(char *)), 0};
    for (size_t i = 0; i < want->len; i++)
        if (!contains(got, want->items[i]) && !contains(&missing, want->items[i]))
            missing.items[missing.len++] = want->items[i];
    for (size_t i = 0; i < got->len; i++)
        if (!contains(want, got->items[i]))
            extra.items[extra.len++] = got->items[i];
    if (missing.len == 0 && extra.len == 0)
        return NULL;
    return gpa_arena_printf(a, "%s%s%s%s%s", missing.len ? "missing " : "", join(a, &missing), missing.len && extra.len ? "; " : "",
                            extra.len ? "unexpected " : "", join(a, &extra));
}

/* A short description of a node for a difference line. */
static const char *describe(gpa_arena_t *a, const gpa_value_t *v)
{
    switch (v->type) {
    case GPA_VNULL:
        return "null";
    case GPA_VBOOL:
        return v->u.boolean ? "true" : "false";
    case GPA_VNUMBER:
        return gpa_arena_printf(a, "number %.*s", (int)(v->u.str.len > 60 ? 60 : v->u.str.len), v->u.str.ptr);
    case GPA_VSTRING:
        return gpa_arena_printf(a, "string \"%.*s\"%s", (int)(v->u.str.len > 60 ? 60 : v->u.str.len), v->u.str.ptr,
                                v->u.str.len > 60 ? "..." : "");
    case GPA_VARRAY:
        return gpa_arena_printf(a, "a list of %zu", v->u.array.len);
    default:
        return gpa_arena_printf(a, "a mapping of %zu keys", v->u.object.len);
    }
}

static const char *child_path(gpa_arena_t *a, const char *path, const char *key)
{
    int plain = key[0] != '\0';
    for (const char *p = key; *p; p++)
        if (!(*p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            plain = 0;
    if (plain)
        return gpa_arena_printf(a, "%s%s%s", path, path[0] ? "." : "", key);
    return gpa_arena_printf(a, "%s[\"%s\"]", path, key);
}

static const char *first_diff(gpa_arena_t *a, const gpa_value_t *want, const gpa_value_t *got, const char *path);

static const char *object_diff(gpa_arena_t *a, const gpa_value_t *want, const gpa_value_t *got, const char *path)
{
    for (size_t i = 0; i < want->u.object.len; i++) {
        const gpa_member_t *m = &want->u.object.members[i];
        const gpa_value_t *g = gpa_value_get(got, m->key);
        const char *p = child_path(a, path, m->key);
        if (g == NULL)
            return gpa_arena_printf(a, "%s: expected %s, got nothing", p, describe(a, m->value));
        const char *d = first_diff(a, m->value, g, p);
        if (d != NULL)
            return d;
    }
    for (size_t i = 0; i < got->u.object.len; i++) {
        const gpa_member_t *m = &got->u.object.members[i];
        if (gpa_value_get(want, m->key) == NULL)
            return gpa_arena_printf(a, "%s: not expected, got %s", child_path(a, path, m->key), describe(a, m->value));
    }
    return NULL;
}

/* Where two trees first differ ("spec.containers[0].resources.limits[\"koordinator.sh/gpu.shared\"]: ..."). */
static const char *first_diff(gpa_arena_t *a, const gpa_value_t *want, const gpa_value_t *got, const char *path)
{
    const char *at = path[0] ? path : "(root)";
    if (want->type != got->type)
        return gpa_arena_printf(a, "%s: expected %s, got %s", at, describe(a, want), describe(a, got));
    switch (want->type) {
    case GPA_VOBJECT:
        return object_diff(a, want, got, path);
    case GPA_VARRAY:
        if (want->u.array.len != got->u.array.len)
            return gpa_arena_printf(a, "%s: expected %s, got %s", at, describe(a, want), describe(a, got));
        for (size_t i = 0; i < want->u.array.len; i++) {
            const char *d = first_diff(a, want->u.array.items[i], got->u.array.items[i], gpa_arena_printf(a, "%s[%zu]", path, i));
            if (d != NULL)
                return d;
        }
        return NULL;
    default:
        return gpa_value_equal(want, got) ? NULL
                                          : gpa_arena_printf(a, "%s: expected %s, got %s", at, describe(a, want), describe(a, got));
    }
}

static void compare(gpa_arena_t *a, const gpa_suite_case_t *tc, const gpa_verdict_t *v, gpa_suite_result_t *r, strvec_t *d)
{
    const gpa_suite_expect_t *e = &tc->expect;
    const char *s;
    if (e->allowed != r->allowed)
        *gpa_vec_push(a, d) =
            gpa_arena_printf(a, "allowed: expected %s, got %s", e->allowed ? "true" : "false", r->allowed ? "true" : "false");
    if (e->has_rules && (s = set_diff(a, &e->rules, &r->rules)) != NULL)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "rules: %s", s);
    for (size_t i = 0; i < e->warnings.len; i++) {
        size_t k = 0;
        while (k < r->warnings.len && strstr(r->warnings.items[k], e->warnings.items[i]) == NULL)
            k++;
        if (k == r->warnings.len)
            *gpa_vec_push(a, d) =
                gpa_arena_printf(a, "warnings: none contains \"%s\" (%zu warnings)", e->warnings.items[i], r->warnings.len);
    }
    if (e->has_mutations && (s = set_diff(a, &e->mutations, &r->mutations)) != NULL)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "mutations: %s", s);
    if (e->patched != NULL && v->mutated == NULL)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "patched: expected %s, got no object", e->patched_file);
    else if (e->patched != NULL && (s = first_diff(a, e->patched, v->mutated, "")) != NULL)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "patched: the mutated object differs from %s at %s", e->patched_file, s);
}

/* What fit chose, for a difference line: "node-a minors [0, 1]" or "no node". */
static const char *describe_placement(gpa_arena_t *a, const gpa_placement_t *p)
{
    if (!p->feasible || p->node == NULL)
        return p->template_name != NULL ? gpa_arena_printf(a, "a new node of template %s", p->template_name) : "no node";
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < p->nshares; i++)
        gpa_buf_printf(&b, "%s%d", i ? ", " : "", (int)p->shares[i].minor);
    const char *s = gpa_arena_printf(a, "node %s minors [%s]", p->node, b.base != NULL ? b.base : "");
    gpa_buf_dispose(&b);
    return s;
}

static const char *placed_annotation(const gpa_placement_t *p, const char *key)
{
    for (size_t i = 0; i < p->nannotations; i++)
        if (strcmp(p->annotations[i].key, key) == 0)
            return p->annotations[i].value;
    return NULL;
}

static void compare_placement(gpa_arena_t *a, const gpa_suite_expect_t *e, const gpa_placement_t *p, strvec_t *d)
{
    const char *got = describe_placement(a, p);
    const char *node = p->feasible ? p->node : NULL;
    if ((e->node == NULL) != (node == NULL) || (node != NULL && strcmp(e->node, node) != 0))
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "placement: expected node %s, got %s", e->node != NULL ? e->node : "none", got);
    else if (e->has_minors && node != NULL) {
        int same = e->minors.len == p->nshares;
        for (size_t i = 0; same && i < p->nshares; i++)
            same = strcmp(e->minors.items[i], gpa_arena_printf(a, "%d", (int)p->shares[i].minor)) == 0;
        if (!same)
            *gpa_vec_push(a, d) = gpa_arena_printf(a, "placement: expected minors [%s], got %s", join(a, &e->minors), got);
    }
    for (size_t i = 0; i < e->ann_keys.len; i++) {
        const char *v = node != NULL ? placed_annotation(p, e->ann_keys.items[i]) : NULL;
        if (v == NULL || strcmp(v, e->ann_values.items[i]) != 0)
            *gpa_vec_push(a, d) =
                gpa_arena_printf(a, "placement: annotation %s: expected '%s', got %s%s%s", e->ann_keys.items[i],
                                 e->ann_values.items[i], v != NULL ? "'" : "", v != NULL ? v : "none", v != NULL ? "'" : "");
    }
}

/* One DRA claim's placement, as a difference line says it: "node n [pool/device, ...]", "never: why", ... */
static const char *describe_dra(gpa_arena_t *a, const gpa_dra_placement_t *p)
{
    if (p->fit == GPA_DRA_UNKNOWN)
        return "cannot say";
    if (p->fit == GPA_DRA_NEVER)
        return gpa_arena_printf(a, "%s: %s", p->no_room_now ? "no room now" : "never", p->reason);
    if (p->npicks == 0)
        return gpa_arena_printf(a, "no node named: %s", p->reason);
    const char *list = "";
    for (size_t i = 0; i < p->npicks; i++)
        for (size_t k = 0; k < p->picks[i].ndevices; k++)
            list = gpa_arena_printf(a, "%s%s%s/%s", list, list[0] != '\0' ? ", " : "", p->picks[i].devices[k]->pool->name,
                                    p->picks[i].devices[k]->device->name);
    return gpa_arena_printf(a, "node %s [%s]", p->node != NULL ? p->node : "(any)", list);
}

/* A ResourceClaim's or ResourceClaimTemplate's devices, or NULL. */
static const gpa_dra_devices_t *claim_spec(const gpa_object_t *obj)
{
    const gpa_dra_object_t *o = obj->dra;
    return o != NULL && (o->kind == GPA_DRA_CLAIM || o->kind == GPA_DRA_TEMPLATE) ? &o->devices : NULL;
}

/* The object's DRA placements as `gpuadmit fit` makes them (cli/fit_dra.c): its own spec (a ResourceClaim or
 * template), or the claims its Pod's templates make (a named claim is the cluster's, already allocated or not: not
 * placed), two or more together when that answers (gpa_dra_place_together), else each alone. Returns how many. */
static size_t dra_placements_of(gpa_arena_t *a, const gpa_suite_t *s, const gpa_object_t *obj, int now, gpa_dra_placement_t **out)
{
    const gpa_dra_devices_t *spec = claim_spec(obj);
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(s->inventory);
    const gpa_dra_known_t *known = gpa_inventory_dra(s->inventory);
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    const gpa_dra_devices_t **claims = NULL;
    const char **names = NULL;
    size_t n = 0;
    if (spec != NULL) {
        claims = gpa_arena_alloc(a, sizeof(*claims));
        claims[n++] = spec;
    } else if (obj->npods == 1 && obj->pods[0].nclaims != 0) {
        const gpa_podspec_t *pod = &obj->pods[0];
        names = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*names));
        claims = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*claims));
        for (size_t i = 0; i < pod->nclaims; i++) {
            const char *t = pod->claims[i].template;
            const gpa_dra_object_t *tpl = t != NULL ? gpa_dra_known_find(known, GPA_DRA_TEMPLATE, obj->ns, t) : NULL;
            if (tpl != NULL)
                names[n] = pod->claims[i].name != NULL ? pod->claims[i].name : "", claims[n++] = &tpl->devices;
        }
    }
    *out = gpa_arena_calloc(a, n + 1, sizeof(**out));
    if (gpa_dra_place_together(a, pools, known, names, claims, n, now, &budget, &(*out)[0]))
        return 1;
    for (size_t i = 0; i < n; i++) {
        budget = gpa_alloc_budget(0);
        gpa_dra_place(a, pools, known, claims[i], now, &budget, &(*out)[i]);
    }
    return n;
}

/* `placement` for DRA: each placement fit makes, all on the node expected (null: each never fits), with the devices
 * expected, claim after claim. */
static void check_dra_placement(gpa_arena_t *a, const gpa_suite_case_t *tc, const gpa_dra_placement_t *placements, size_t n,
                                strvec_t *d)
{
    const gpa_suite_expect_t *e = &tc->expect;
    const char *got = "", *devices = "", *want = "";
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        const gpa_dra_placement_t *p = &placements[i];
        got = gpa_arena_printf(a, "%s%s%s", got, i > 0 ? "; " : "", describe_dra(a, p));
        if (e->node == NULL)
            same &= p->fit == GPA_DRA_NEVER && (e->reason == NULL || strstr(p->reason, e->reason) != NULL);
        else
            same &= p->fit == GPA_DRA_FITS && p->npicks != 0 && p->node != NULL && strcmp(p->node, e->node) == 0;
        for (size_t r = 0; r < p->npicks; r++)
            for (size_t k = 0; k < p->picks[r].ndevices; k++)
                devices = gpa_arena_printf(a, "%s%s%s/%s", devices, devices[0] != '\0' ? ", " : "",
                                           p->picks[r].devices[k]->pool->name, p->picks[r].devices[k]->device->name);
    }
    for (size_t i = 0; i < e->devices.len; i++)
        want = gpa_arena_printf(a, "%s%s%s", want, i > 0 ? ", " : "", e->devices.items[i]);
    if (!same)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "placement: expected %s%s%s%s, got %s", e->node != NULL ? "node " : "never",
                                               e->node != NULL ? e->node : "", e->reason != NULL ? " because of " : "",
                                               e->reason != NULL ? e->reason : "", got);
    else if (e->has_devices && strcmp(want, devices) != 0)
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "placement: expected devices [%s], got [%s]", want, devices);
    if (e->has_minors || e->ann_keys.len != 0)
        *gpa_vec_push(a, d) = "placement: minors and annotations are the device plugins' (a DRA claim names devices)";
}

/* The expectation `placement`: the object as admitted (mutated) placed as `gpuadmit fit` places it. */
static void check_placement(gpa_arena_t *a, const gpa_suite_t *s, const gpa_suite_case_t *tc, const gpa_verdict_t *v, strvec_t *d)
{
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_request_t req;
    const gpa_value_t *doc = v->mutated != NULL ? v->mutated : tc->object;
    gpa_dra_placement_t *placements;
    size_t nplacements;
    if (doc == NULL || decode(a, s, doc, tc->object_file, tc->ns, &obj, &err) != 0 ||
        (obj->npods != 1 && claim_spec(obj) == NULL)) {
        *gpa_vec_push(a, d) = gpa_arena_printf(a, "placement: the object is not one Pod template nor a DRA claim (%zu Pods)",
                                               obj != NULL ? obj->npods : 0);
        return;
    }
    if (s->inventory == NULL) {
        *gpa_vec_push(a, d) = "placement: the suite has no inventory";
        return;
    }
    if ((nplacements = dra_placements_of(a, s, obj, tc->expect.placement_now, &placements)) != 0) {
        check_dra_placement(a, tc, placements, nplacements, d);
        return;
    }
    if (tc->expect.has_devices) {
        *gpa_vec_push(a, d) = "placement: devices are a DRA claim's (the object places no claim)";
        return;
    }
    if (gpa_normalize(a, s->config->dialects, &obj->pods[0], &req) != 0 || req.ngroups == 0) {
        *gpa_vec_push(a, d) = "placement: the Pod has no GPU request that normalizes";
        return;
    }
    gpa_alloc_opts_t opts = {.now = tc->expect.placement_now};
    gpa_placement_t p;
    gpa_alloc_place(a, s->inventory, &s->config->placement, &obj->pods[0], &req, &opts, &p);
    compare_placement(a, &tc->expect, &p, d);
}

static const char *summary(gpa_arena_t *a, int allowed, const gpa_suite_strs_t *rules, int show_rules)
{
    if (!show_rules || rules->len == 0)
        return show_rules ? (allowed ? "allow []" : "deny []") : (allowed ? "allow" : "deny");
    return gpa_arena_printf(a, "%s [%s]", allowed ? "allow" : "deny", join(a, rules));
}

void gpa_suite_run_case(gpa_arena_t *a, const gpa_suite_t *suite, const gpa_suite_case_t *tc, gpa_suite_result_t *out)
{
    memset(out, 0, sizeof(*out));
    out->suite = suite;
    out->tc = tc;
    gpa_suite_strs_t want = strs_copy(a, tc->expect.rules.items, tc->expect.rules.len);
    sort_unique(&want);
    out->expected = summary(a, tc->expect.allowed, &want, tc->expect.has_rules);
    strvec_t diffs = {0};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    const char *reason = NULL;
    if (tc->review != NULL && (out->http_status = review_case(a, suite, tc, &v, &reason)) != 200) {
        collect(a, &v, out);
        out->findings = strs_copy(a, (const char *[]){gpa_arena_printf(a, "HTTP %d: %s", out->http_status, reason)}, 1);
        out->got = gpa_arena_printf(a, "HTTP %d", out->http_status);
        compare(a, tc, &v, out, &diffs);
    } else if (tc->review == NULL && check_case(a, suite, tc, &v, &err) != 0) {
        char msg[1024];
        gpa_error_format(&err, msg, sizeof(msg));
        out->error = 1;
        out->got = "error";
        *gpa_vec_push(a, &diffs) = gpa_arena_printf(a, "error: %s", msg);
    } else {
        collect(a, &v, out);
        out->got = summary(a, out->allowed, &out->rules, 1);
        compare(a, tc, &v, out, &diffs);
        if (tc->expect.has_placement)
            check_placement(a, suite, tc, &v, &diffs);
    }
    out->differences = (gpa_suite_strs_t){diffs.items, diffs.len};
    out->passed = diffs.len == 0;
}
