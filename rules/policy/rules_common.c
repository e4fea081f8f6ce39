/*
 * Rules that read every dialect: malformed-quantity, request-limit-mismatch, vendor-vs-share,
 * mixed-share-apis, non-positive (the part common to all dialects), unknown-resource, unit-hint (infeasible, the rule
 * that calls the allocator, has its own file: rules_infeasible.c).
 */
#include "policy/rule_ctx.h"

#include <stdint.h>
#include <string.h>

static int enabled(const gpa_config_t *cfg, gpa_resource_t r)
{
    return (cfg->dialects & (unsigned)gpa_resource_dialect(r)) != 0;
}

/* A plausible whole value for the fix part of a message. */
static const char *example_value(gpa_resource_t r)
{
    switch (r) {
    case GPA_R_GPU_MEMORY:
        return "8Gi";
    case GPA_R_MGPU_MEMORY:
        return "8192";
    case GPA_R_GPU_CORE:
    case GPA_R_GPU_MEMORY_RATIO:
    case GPA_R_GPU:
    case GPA_R_MGPU_CORE:
        return "50";
    default:
        return "1";
    }
}

/* How many bytes one unit of r is, for gpa_quantity_guess: 1 for bytes, 1Mi for MiB, 0 for a count. */
static int64_t byte_unit(gpa_resource_t r)
{
    return r == GPA_R_GPU_MEMORY ? 1 : r == GPA_R_MGPU_MEMORY ? GPA_MIB : 0;
}

/* Writes guess g into an amount that read `text`. */
static void amount_set(gpa_amount_t *am, const char *text, const gpa_quantity_guess_t *g)
{
    if (!am->present || strcmp(am->text, text) != 0)
        return;
    am->status = GPA_Q_OK;
    am->value = g->value;
    am->text = g->text;
    am->suffix = gpa_quantity_parse(g->text, strlen(g->text)).suffix;
}

/*
 * Whether the rules accept guess g for resource r of the container: the container with g written for every
 * amount of r that reads `text` gets no denying finding about r. Other malformed amounts are left out of the
 * copy (each gets its own message), so the check never recurses.
 */
static int accepted(gpa_rule_ctx_t *ctx, gpa_resource_t r, const char *text, const gpa_quantity_guess_t *g)
{
    gpa_container_t fixed = *ctx->c; /* with every amount in place (the model keeps only those written) */
    fixed.requests_ = gpa_arena_calloc(ctx->a, GPA_R__COUNT, sizeof(*fixed.requests_));
    fixed.limits_ = gpa_arena_calloc(ctx->a, GPA_R__COUNT, sizeof(*fixed.limits_));
    for (int q = 0; q < GPA_R__COUNT; q++) {
        fixed.requests_[q] = *gpa_container_request(ctx->c, (gpa_resource_t)q);
        fixed.limits_[q] = *gpa_container_limit(ctx->c, (gpa_resource_t)q);
        fixed.request_at_[q] = fixed.limit_at_[q] = (unsigned char)(q + 1);
        if (fixed.requests_[q].present && fixed.requests_[q].status != GPA_Q_OK && q != (int)r)
            fixed.requests_[q].present = 0;
        if (fixed.limits_[q].present && fixed.limits_[q].status != GPA_Q_OK && q != (int)r)
            fixed.limits_[q].present = 0;
    }
    amount_set(&fixed.requests_[r], text, g);
    amount_set(&fixed.limits_[r], text, g);
    gpa_violations_t found = {0};
    gpa_rule_ctx_container_findings(ctx, &fixed, &found);
    const char *name = gpa_rule_ctx_name(ctx, r);
    for (size_t i = 0; i < found.len; i++)
        for (size_t k = 0; k < found.items[i].nresources; k++)
            if (found.items[i].action == GPA_ACTION_DENY && strcmp(found.items[i].resources[k], name) == 0)
                return 0;
    return 1;
}

/* "; write \"20G\" or \"20Gi\"": what a malformed text most likely meant, among the values the rules then
 * accept for that resource in this container; "" when none. */
static const char *guess_fix(gpa_rule_ctx_t *ctx, gpa_resource_t r, const char *text)
{
    gpa_quantity_guess_t *g = gpa_arena_alloc(ctx->a, 2 * sizeof(*g)); /* the copy's amounts point into it */
    size_t n = gpa_quantity_guess(text, byte_unit(r), g);
    const char *fix = "";
    for (size_t i = 0; i < n; i++)
        if (accepted(ctx, r, text, &g[i]))
            fix = gpa_arena_printf(ctx->a, "%s%s\"%s\"", fix, fix[0] == '\0' ? "; write " : " or ", g[i].text);
    return fix;
}

/* The likely cause of a value that is no quantity, as real manifests write them; NULL when none is recognized. */
static const char *malformed_cause(const char *text)
{
    if (strstr(text, "${") != NULL || strstr(text, "{{") != NULL || strstr(text, "$(") != NULL)
        return "an unexpanded template variable; render the template (helm, envsubst) first";
    if (strstr(text, "//") != NULL)
        return "// is no YAML comment but part of the value";
    if (strchr(text, '#') != NULL)
        return "# starts a YAML comment only after a space and outside quotes";
    if (strchr(text, '%') != NULL)
        return "percents are written without %";
    if (strpbrk(text, " \t") != NULL)
        return "a quantity has no spaces";
    size_t len = strlen(text);
    if (len >= 2 && (text[len - 1] == 'B' || text[len - 1] == 'b'))
        return "Kubernetes suffixes have no B (8G or 8Gi)";
    return NULL;
}

static void malformed_one(gpa_rule_ctx_t *ctx, gpa_resource_t r, const gpa_amount_t *am)
{
    const char *name = gpa_rule_ctx_name(ctx, r);
    if (!am->present || am->status == GPA_Q_OK)
        return;
    if (am->text[0] == '\0') {
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                            "%s: value is not a string or number; write a quantity such as \"%s\"", name, example_value(r));
        return;
    }
    const char *cause = am->status == GPA_Q_SYNTAX ? malformed_cause(am->text) : NULL;
    const char *fix = am->status == GPA_Q_SYNTAX && ctx->out != NULL ? guess_fix(ctx, r, am->text) : "";
    if (cause == NULL && fix[0] == '\0') {
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: \"%s\" is %s; use a whole number such as \"%s\"", name,
                            am->text, gpa_quantity_status_text(am->status), example_value(r));
        return;
    }
    /* The cause first (a warning is cut at the API server's length), then what the text most likely meant. */
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: \"%s\": %s%s", name, am->text,
                        cause != NULL ? cause : gpa_quantity_status_text(am->status), fix);
}

void gpa_rule_malformed_quantity(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        if (!enabled(ctx->cfg, (gpa_resource_t)r))
            continue;
        const gpa_amount_t *req = gpa_container_request(ctx->c, (gpa_resource_t)r),
                           *lim = gpa_container_limit(ctx->c, (gpa_resource_t)r);
        malformed_one(ctx, (gpa_resource_t)r, req);
        /* The same bad text in request and limit is one mistake: reported once, at the request. */
        if (!(req->present && lim->present && req->status == lim->status && strcmp(req->text, lim->text) == 0))
            malformed_one(ctx, (gpa_resource_t)r, lim);
    }
}

void gpa_rule_request_limit_mismatch(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_amount_t *req = gpa_container_request(ctx->c, (gpa_resource_t)r),
                           *lim = gpa_container_limit(ctx->c, (gpa_resource_t)r);
        if (!enabled(ctx->cfg, (gpa_resource_t)r) || !req->present || !lim->present)
            continue;
        /* Unparsable values are malformed-quantity's; "1" and "1000m" are the same quantity. */
        if (req->status != GPA_Q_OK || lim->status != GPA_Q_OK || req->value == lim->value)
            continue;
        const char *name = gpa_rule_ctx_name(ctx, (gpa_resource_t)r);
        gpa_rule_ctx_report(ctx, ctx->c->name, req->path, name, NULL,
                            "%s: request %s differs from limit %s; set both to the same value", name, req->text, lim->text);
    }
}

/* The first resource of dialect mask `d` declared in any container of the Pod; *in is that container. A HAMi
 * container's count is HAMi's, not a vendor's (HAMi's nvidia.com/gpu and the vendor's are one resource): its
 * vendor resources are not seen. */
static gpa_resource_t first_declared(const gpa_config_t *cfg, const gpa_podspec_t *pod, unsigned d, const gpa_container_t **in)
{
    for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
        if (d == GPA_DIALECT_VENDOR && gpa_hami_vendor(cfg->dialects, c) >= 0)
            continue;
        for (int r = 0; r < GPA_R__COUNT; r++) {
            if (((unsigned)gpa_resource_dialect((gpa_resource_t)r) & d) != 0 &&
                gpa_gpu_declared(cfg->dialects, c, (gpa_resource_t)r)) {
                *in = c;
                return (gpa_resource_t)r;
            }
        }
    }
    *in = NULL;
    return GPA_R_UNKNOWN;
}

/* Reports two dialects meeting in one Pod: at the container when one container holds both, else at the Pod.
 * Returns whether it reported. */
static int report_pair(gpa_rule_ctx_t *ctx, unsigned d0, unsigned d1, const char *fix)
{
    const gpa_container_t *c0, *c1;
    gpa_resource_t r0 = first_declared(ctx->cfg, ctx->pod, d0, &c0);
    gpa_resource_t r1 = first_declared(ctx->cfg, ctx->pod, d1, &c1);
    if (r0 == GPA_R_UNKNOWN || r1 == GPA_R_UNKNOWN)
        return 0;
    const char *n0 = gpa_rule_ctx_name(ctx, r0), *n1 = gpa_rule_ctx_name(ctx, r1);
    if (c0 == c1)
        gpa_rule_ctx_report(ctx, c0->name, gpa_container_resources_path(ctx->a, c0), n0, n1, "%s with %s; %s", n0, n1, fix);
    else
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, n0, n1, "%s (in container \"%s\") and %s (in container \"%s\"); %s", n0,
                            c0->name, n1, c1->name, fix);
    return 1;
}

/* HAMi is no share of a vendor's Pod: its nvidia.com/gpu is the vendor's (a HAMi container's count is not seen). */
void gpa_rule_vendor_vs_share(gpa_rule_ctx_t *ctx)
{
    report_pair(ctx, GPA_DIALECT_VENDOR, GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU, "use whole GPUs or a share");
}

/* The first pair of share dialects met, once per Pod. */
void gpa_rule_mixed_share_apis(gpa_rule_ctx_t *ctx)
{
    static const unsigned pairs[][2] = {{GPA_DIALECT_KOORDINATOR, GPA_DIALECT_MGPU},
                                        {GPA_DIALECT_KOORDINATOR, GPA_DIALECT_HAMI},
                                        {GPA_DIALECT_MGPU, GPA_DIALECT_HAMI}};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (report_pair(ctx, pairs[i][0], pairs[i][1], "use one share API"))
            return;
}

/* Negative values anywhere; gpu.shared and the deprecated gpu declared as 0. mGPU's core is rules_mgpu.c's. */
void gpa_rule_non_positive_common(gpa_rule_ctx_t *ctx)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, (gpa_resource_t)r);
        if (am == NULL || am->status != GPA_Q_OK || am->value > 0)
            continue;
        const char *name = gpa_rule_ctx_name(ctx, (gpa_resource_t)r);
        if (am->value < 0)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: %s is negative; GPU resources are counts >= %d", name,
                                am->text, r == GPA_R_GPU_SHARED ? 1 : 0);
        else if (r == GPA_R_GPU_SHARED)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                                "%s: 0 devices; set the number of devices to share (>= 1) or remove it", name);
        else if (r == GPA_R_GPU)
            gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                                "%s: 0 asks for nothing; set a percent (e.g. 50) or remove it", name);
    }
}

/* A name in a GPU domain that is no resource gpuadmit knows, but close to one: no node offers it. */
void gpa_rule_unknown_resource(gpa_rule_ctx_t *ctx)
{
    gpa_stray_t *strays;
    size_t n = gpa_gpu_strays(ctx->a, ctx->cfg->dialects, ctx->c, &strays);
    for (size_t i = 0; i < n; i++) {
        const gpa_stray_t *s = &strays[i];
        if (gpa_config_knows_resource(ctx->cfg, s->name, s->len))
            continue;
        gpa_resource_t closest = gpa_resource_near_miss(&ctx->cfg->hami, ctx->cfg->dialects, s->name, s->len);
        if (closest == GPA_R_UNKNOWN)
            continue;
        const char *name = gpa_arena_strdup(ctx->a, s->name), *known = gpa_rule_ctx_name(ctx, closest);
        gpa_rule_ctx_report(ctx, ctx->c->name, gpa_gpu_stray_path(ctx->a, ctx->c, s), name, known,
                            "%s: no such resource; did you mean %s?", name, known);
    }
}

void gpa_rule_unit_hint(gpa_rule_ctx_t *ctx)
{
    int64_t n;
    const char *note;
    if (gpa_gpu_value(ctx->cfg->dialects, ctx->c, GPA_R_GPU, &n) && (note = gpa_koord_gpu_percent_note(ctx->a, n)) != NULL) {
        const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, GPA_R_GPU);
        const char *name = gpa_resource_name(GPA_R_GPU);
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL, "%s: %lld is a percent, %s", name, (long long)n, note);
    }
    static const gpa_resource_t vendors[] = {GPA_R_NVIDIA_GPU, GPA_R_AMD_GPU, GPA_R_DCU_GPU};
    for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++) {
        if (!gpa_gpu_value(ctx->cfg->dialects, ctx->c, vendors[i], &n) || n <= GPA_UNIT_HINT_VENDOR_MAX)
            continue;
        const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, vendors[i]);
        const char *name = gpa_resource_name(vendors[i]);
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, name, NULL,
                            "%s: %lld is %lld whole devices (a count, not a percent); one device is 1", name, (long long)n,
                            (long long)n);
    }
}

/* ---- rules of every share dialect ---- */

/* The first share resource the Pod asks for (Koordinator, mGPU, HAMi), GPA_R_UNKNOWN when none. */
static gpa_resource_t share_asked(const gpa_rule_ctx_t *ctx)
{
    const gpa_container_t *c;
    gpa_resource_t r = first_declared(ctx->cfg, ctx->pod, GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU | GPA_DIALECT_HAMI, &c);
    if (r != GPA_R_UNKNOWN)
        return r;
    /* Present but 0 (mgpu-core: 0, gpumem: 0) still makes the container the share dialect's. */
    for (size_t i = 0; i < ctx->pod->ncontainers + ctx->pod->ninit_containers; i++) {
        c = i < ctx->pod->ncontainers ? &ctx->pod->containers[i] : &ctx->pod->init_containers[i - ctx->pod->ncontainers];
        if (gpa_gpu_is_mgpu(ctx->cfg->dialects, c))
            return gpa_gpu_amount(ctx->cfg->dialects, c, GPA_R_MGPU_CORE) != NULL ? GPA_R_MGPU_CORE : GPA_R_MGPU_MEMORY;
        gpa_hami_view_t hv;
        if (gpa_hami_view_container(ctx->cfg->dialects, c, &hv) == 0)
            for (int n = GPA_HAMI_MEMORY; n <= GPA_HAMI_CORES; n++)
                if (hv.am[n] != NULL)
                    return hv.token[n];
    }
    return GPA_R_UNKNOWN;
}

/* A Pod the scheduler has already placed (read from a cluster: `kubectl get -o json`, audit): its nodeName is the
 * scheduler's. Running, Succeeded, Failed or Unknown, or a share scheduler's allocation annotation on it (Koordinator's
 * device-allocated, HAMi's vgpu-node, mGPU's gpu-index-container-*). */
static int already_placed(const gpa_rule_ctx_t *ctx)
{
    const char *phase = ctx->obj != NULL ? ctx->obj->phase : NULL;
    if (phase != NULL && phase[0] != '\0' && strcmp(phase, "Pending") != 0)
        return 1;
    if (gpa_pairs_get(ctx->pod->annotations, ctx->pod->nannotations, GPA_ANNOTATION_DEVICE_ALLOCATED) != NULL ||
        gpa_pairs_get(ctx->pod->annotations, ctx->pod->nannotations, GPA_ANNOTATION_HAMI_VGPU_NODE) != NULL)
        return 1;
    for (size_t i = 0; i < ctx->pod->nannotations; i++)
        if (strncmp(ctx->pod->annotations[i].key, GPA_ANNOTATION_GPU_INDEX_PREFIX, strlen(GPA_ANNOTATION_GPU_INDEX_PREFIX)) == 0)
            return 1;
    return 0;
}

/* spec.nodeName on a Pod that asks for a share: it skips the scheduler that assigns devices. */
void gpa_rule_node_name_set(gpa_rule_ctx_t *ctx)
{
    if (ctx->c != NULL || ctx->pod->node_name == NULL || ctx->pod->node_name[0] == '\0' || already_placed(ctx))
        return;
    gpa_resource_t r = share_asked(ctx);
    if (r == GPA_R_UNKNOWN)
        return;
    const char *name = gpa_rule_ctx_name(ctx, r);
    gpa_rule_ctx_report(ctx, NULL, gpa_arena_printf(ctx->a, "%s.nodeName", ctx->pod->path), name, NULL,
                        "spec.nodeName: %s skips the scheduler that assigns GPU shares, so the Pod asking for %s gets no "
                        "device; select the node with nodeSelector kubernetes.io/hostname: %s instead",
                        ctx->pod->node_name, name, ctx->pod->node_name);
}

/* A GPU resource name written as an annotation key: no scheduler reads it there. */
void gpa_rule_resource_in_annotation(gpa_rule_ctx_t *ctx)
{
    if (ctx->c != NULL)
        return;
    for (size_t i = 0; i < ctx->pod->nannotations; i++) {
        const gpa_pair_t *pair = &ctx->pod->annotations[i];
        gpa_resource_t r = gpa_resource_intern(&ctx->cfg->hami, pair->key, strlen(pair->key));
        if (r == GPA_R_UNKNOWN || !enabled(ctx->cfg, r))
            continue;
        const char *path = gpa_arena_printf(ctx->a, "%s[\"%s\"]", ctx->pod->annotations_path, pair->key);
        gpa_rule_ctx_report(ctx, NULL, path, pair->key, NULL,
                            "annotation %s: \"%s\" is no resource request: no scheduler reads it there, so the container "
                            "gets a whole card or none; move it to the container's resources.limits",
                            pair->key, pair->value);
    }
}
