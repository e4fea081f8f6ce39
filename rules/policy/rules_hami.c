/*
 * HAMi's rules (docs/rules.md#hami): its lines of memory-ratio-exclusive, non-positive, per-device-over-100,
 * min-memory and ambiguous-unit, and its own privileged-share and invalid-annotation. Amounts are read once, by
 * gpa_hami_view_container (kube/gpu_request.h); names are the configuration's (gpa_rule_ctx_name).
 */
#include "policy/rule_ctx.h"

#include <string.h>

#include "kube/quantity.h"

/* The container pass on a HAMi container: its view, else 0 (the Pod pass and other containers have none). */
static int hami_view(gpa_rule_ctx_t *ctx, gpa_hami_view_t *hv)
{
    return ctx->c != NULL && gpa_hami_view_container(ctx->cfg->dialects, ctx->c, hv) == 0;
}

static const char *name_of(gpa_rule_ctx_t *ctx, const gpa_hami_view_t *hv, gpa_hami_name_t n)
{
    return gpa_rule_ctx_name(ctx, hv->token[n]);
}

/* Both memory forms: HAMi silently takes the memory resource and drops the percentage. */
void gpa_rule_memory_ratio_exclusive_hami(gpa_rule_ctx_t *ctx)
{
    gpa_hami_view_t hv;
    int64_t mem, pct;
    if (!hami_view(ctx, &hv) || !gpa_amount_positive(hv.am[GPA_HAMI_MEMORY], &mem) ||
        !gpa_amount_positive(hv.am[GPA_HAMI_PERCENT], &pct))
        return;
    const char *m = name_of(ctx, &hv, GPA_HAMI_MEMORY), *p = name_of(ctx, &hv, GPA_HAMI_PERCENT);
    gpa_rule_ctx_report(ctx, ctx->c->name, gpa_container_resources_path(ctx->a, ctx->c), m, p,
                        "%s and %s together: HAMi takes %s: %s and silently ignores %s: %s; keep one memory form", m, p, m,
                        hv.am[GPA_HAMI_MEMORY]->text, p, hv.am[GPA_HAMI_PERCENT]->text);
}

/* The count given as 0 (HAMi takes the Pod and books nothing), the percentage given as 0. Negatives are the common
 * half's; the memory resource at 0 means unset in every HAMi version and is no finding. */
void gpa_rule_non_positive_hami(gpa_rule_ctx_t *ctx)
{
    gpa_hami_view_t hv;
    if (!hami_view(ctx, &hv))
        return;
    if (gpa_amount_zero(hv.am[GPA_HAMI_COUNT])) {
        const char *n = name_of(ctx, &hv, GPA_HAMI_COUNT);
        gpa_rule_ctx_report(
            ctx, ctx->c->name, hv.am[GPA_HAMI_COUNT]->path, n, NULL,
            "%s: 0 beside HAMi's %s: HAMi takes the Pod and books no GPU for it; ask for 1 or more vGPUs, "
            "or remove the HAMi resources",
            n,
            gpa_amount_zero(hv.am[GPA_HAMI_MEMORY]) || hv.am[GPA_HAMI_MEMORY] == NULL
                ? (hv.am[GPA_HAMI_PERCENT] != NULL ? name_of(ctx, &hv, GPA_HAMI_PERCENT) : name_of(ctx, &hv, GPA_HAMI_CORES))
                : name_of(ctx, &hv, GPA_HAMI_MEMORY));
    }
    if (gpa_amount_zero(hv.am[GPA_HAMI_PERCENT])) {
        const char *n = name_of(ctx, &hv, GPA_HAMI_PERCENT);
        gpa_rule_ctx_report(ctx, ctx->c->name, hv.am[GPA_HAMI_PERCENT]->path, n, NULL,
                            "%s: 0: HAMi before v2.10 books 0 MiB with no memory limit, since then the whole card; set a "
                            "percent of each card's memory (1-100) or remove it",
                            n);
    }
}

/* A percent of one card above 100: the percentage (more than the card: no card fits) or the cores (clamped to 100
 * silently before HAMi v2.10). A vGPU is always one card: more cards are more vGPUs. */
void gpa_rule_per_device_over_100_hami(gpa_rule_ctx_t *ctx)
{
    static const gpa_hami_name_t percents[] = {GPA_HAMI_PERCENT, GPA_HAMI_CORES};
    gpa_hami_view_t hv;
    if (!hami_view(ctx, &hv))
        return;
    for (size_t i = 0; i < sizeof(percents) / sizeof(percents[0]); i++) {
        int64_t x;
        if (!gpa_amount_positive(hv.am[percents[i]], &x) || x <= 100)
            continue;
        const char *n = name_of(ctx, &hv, percents[i]);
        gpa_rule_ctx_report(ctx, ctx->c->name, hv.am[percents[i]]->path, n, NULL,
                            "%s: %lld is more than one card (a percent of each vGPU's card%s); use at most 100, and ask "
                            "for more vGPUs with %s for more cards",
                            n, (long long)x, percents[i] == GPA_HAMI_CORES ? ": HAMi clamps it to 100 silently" : "",
                            name_of(ctx, &hv, GPA_HAMI_COUNT));
    }
}

/* An explicit memory per vGPU below minDeviceMemory: most often a size written in GiB where HAMi counts MiB. */
void gpa_rule_min_memory_hami(gpa_rule_ctx_t *ctx)
{
    gpa_hami_view_t hv;
    if (!hami_view(ctx, &hv) || hv.memory != GPA_HAMI_MEM_MIB || hv.memory_overflow)
        return;
    int64_t bytes;
    if (gpa_mul_i64(hv.memory_mib, GPA_MIB, &bytes) != 0 || bytes >= ctx->cfg->min_device_memory)
        return;
    const gpa_amount_t *am = hv.am[GPA_HAMI_MEMORY];
    const char *n = name_of(ctx, &hv, GPA_HAMI_MEMORY);
    /* A GiB hint only where one unit of the resource is one MiB (memoryFactor 1): else the value to write is not MiB. */
    const char *hint = hv.memory_mib <= 128 && hv.memory_mib == am->value
                           ? gpa_arena_printf(ctx->a, "; did you mean %lld (%lld GiB)?", (long long)(hv.memory_mib * 1024),
                                              (long long)hv.memory_mib)
                           : "";
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, n, NULL, "%s: %s is %lldMiB per vGPU (HAMi counts MiB), below %s%s", n,
                        am->text, (long long)hv.memory_mib, gpa_rule_ctx_bytes(ctx->a, ctx->cfg->min_device_memory), hint);
}

/* The memory resource written with a suffix (HAMi counts MiB: 16Gi is 17179869184 MiB), or beyond HAMi's 32-bit MiB. */
void gpa_rule_ambiguous_unit_hami(gpa_rule_ctx_t *ctx)
{
    gpa_hami_view_t hv;
    const gpa_amount_t *am;
    if (!hami_view(ctx, &hv) || (am = hv.am[GPA_HAMI_MEMORY]) == NULL || am->status != GPA_Q_OK || am->value <= 0)
        return;
    const char *n = name_of(ctx, &hv, GPA_HAMI_MEMORY);
    if (am->suffix != GPA_QS_NONE) {
        const char *fix = am->suffix == GPA_QS_BINARY && am->value % GPA_MIB == 0 && am->value / GPA_MIB <= GPA_HAMI_MIB_MAX
                              ? gpa_arena_printf(ctx->a, "write %lld for %s", (long long)(am->value / GPA_MIB), am->text)
                              : gpa_arena_printf(ctx->a, "write the MiB as a plain number (%lld if you meant %lld MiB)",
                                                 (long long)am->value, (long long)am->value);
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, n, NULL, "%s: \"%s\" means %lld MiB (HAMi counts MiB); %s", n, am->text,
                            (long long)am->value, fix);
        return;
    }
    if (!hv.memory_overflow)
        return;
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, n, NULL,
                        "%s: %s x memoryFactor %lld is above %lld MiB, more than HAMi can hold (before v2.10 it wraps, since "
                        "then it books nothing); ask for the MiB one vGPU needs",
                        n, am->text, (long long)hv.device->memory_factor, (long long)GPA_HAMI_MIB_MAX);
}

/* ---- Pod-level HAMi rules ---- */

/* A privileged container (app or init) in a Pod with a HAMi container: HAMi skips it before v2.10 (no limit is
 * enforced, and the Pod may miss hami-scheduler); v2.10 refuses the Pod. */
void gpa_rule_privileged_share(gpa_rule_ctx_t *ctx)
{
    if (ctx->c != NULL || ctx->facts->hami_containers == 0)
        return;
    const gpa_podspec_t *pod = ctx->pod;
    for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
        if (!c->privileged)
            continue;
        gpa_hami_view_t hv;
        int own = gpa_hami_view_container(ctx->cfg->dialects, c, &hv) == 0;
        gpa_rule_ctx_report(ctx, c->name, gpa_arena_printf(ctx->a, "%s.securityContext.privileged", c->path), NULL, NULL,
                            "container \"%s\" is privileged in a Pod that asks for HAMi resources%s: HAMi before v2.10 "
                            "skips it (no memory or compute limit), v2.10 refuses the Pod; drop privileged, or ask for "
                            "whole GPUs alone",
                            c->name, own ? "" : " (in another container)");
    }
}

/* ---- invalid-annotation ---- */

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Whether s[0..n) is one of words (NULL-terminated). */
static int one_of(const char *s, size_t n, const char *const *words)
{
    for (size_t i = 0; words[i] != NULL; i++)
        if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
            return 1;
    return 0;
}

/* One item of a comma list: [start, end) as written, [b, e) with the spaces around it trimmed. */
typedef struct st_item_t {
    const char *start, *end, *b, *e;
} item_t;

/* The item at *p; *p moves past it and its comma, to NULL after the last. */
static item_t next_item(const char **p)
{
    const char *comma = strchr(*p, ',');
    item_t it = {*p, comma != NULL ? comma : *p + strlen(*p), NULL, NULL};
    it.b = it.start;
    it.e = it.end;
    while (it.b < it.e && is_space(*it.b))
        it.b++;
    while (it.e > it.b && is_space(it.e[-1]))
        it.e--;
    *p = comma != NULL ? comma + 1 : NULL;
    return it;
}

/* What is wrong with a comma list's shape (static text), NULL when nothing: empty, an empty item, or (`padded`
 * not allowed: type and UUID lists) an item padded with spaces. */
static const char *list_fault(const char *value, int padded)
{
    if (value[0] == '\0')
        return "is empty";
    for (const char *p = value; p != NULL;) {
        item_t it = next_item(&p);
        if (it.b == it.e)
            return "has an empty item";
        if (!padded && (it.b != it.start || it.e != it.end))
            return "has an item padded with spaces (before HAMi v2.10 the spaces are part of the match)";
    }
    return NULL;
}

/* The first item of a list that is not one of words, trimmed (arena-owned), NULL when every item is. */
static const char *unknown_item(gpa_arena_t *a, const char *value, const char *const *words)
{
    for (const char *p = value; p != NULL;) {
        item_t it = next_item(&p);
        if (!one_of(it.b, (size_t)(it.e - it.b), words))
            return gpa_arena_strndup(a, it.b, (size_t)(it.e - it.b));
    }
    return NULL;
}

static void report_annotation(gpa_rule_ctx_t *ctx, const gpa_pair_t *pair, const char *fmt_fault, const char *fix)
{
    const char *path = gpa_arena_printf(ctx->a, "%s[\"%s\"]", ctx->pod->annotations_path, pair->key);
    gpa_rule_ctx_report(ctx, NULL, path, pair->key, NULL, "annotation %s: \"%s\" %s; %s", pair->key, pair->value, fmt_fault, fix);
}

static void check_policy(gpa_rule_ctx_t *ctx, const gpa_pair_t *pair, const char *const *words, const char *known, int list)
{
    const char *fault = list ? list_fault(pair->value, 1) : NULL, *bad = NULL;
    if (fault == NULL)
        bad = list                                              ? unknown_item(ctx->a, pair->value, words)
              : one_of(pair->value, strlen(pair->value), words) ? NULL
                                                                : pair->value;
    if (bad != NULL)
        fault = gpa_arena_printf(ctx->a, "names \"%s\", no policy HAMi knows (it silently acts as its default)", bad);
    if (fault != NULL)
        report_annotation(ctx, pair, fault, gpa_arena_printf(ctx->a, "use %s", known));
}

/* Go's strconv.ParseBool, which HAMi reads numa-bind with. */
static const char *const go_bools[] = {"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False", NULL};

static void check_vendor_annotation(gpa_rule_ctx_t *ctx, const gpa_pair_t *pair, gpa_hami_annotation_t which)
{
    static const char *const modes[] = {"hami-core", "mig", "mps", NULL};
    const char *fault;
    switch (which) {
    case GPA_HAMI_USE_TYPE:
    case GPA_HAMI_NOUSE_TYPE:
    case GPA_HAMI_USE_UUID:
    case GPA_HAMI_NOUSE_UUID:
        if ((fault = list_fault(pair->value, 0)) != NULL)
            report_annotation(ctx, pair, fault,
                              pair->value[0] == '\0'
                                  ? "remove it, or list items (before HAMi v2.10 an empty list refuses every card)"
                                  : "write the items comma-separated, without spaces or empty items");
        return;
    case GPA_HAMI_MODE:
        if (!one_of(pair->value, strlen(pair->value), modes))
            report_annotation(ctx, pair, "is not a mode HAMi knows", "use hami-core, mig or mps");
        return;
    case GPA_HAMI_NUMA_BIND:
        if (!one_of(pair->value, strlen(pair->value), go_bools))
            report_annotation(ctx, pair, "is not a boolean (HAMi silently reads it as false)", "use \"true\" or \"false\"");
        return;
    default:
        return;
    }
}

/* Whether the Pod asks HAMi for anything: a HAMi container, or a count a HAMi row reads (its vGPUs). */
static int asks_hami(const gpa_rule_ctx_t *ctx)
{
    if (ctx->facts->hami_containers > 0)
        return 1;
    const gpa_podspec_t *pod = ctx->pod;
    for (int v = 0; v < GPA_HAMI__VENDORS; v++) {
        gpa_resource_t count = gpa_hami_token(&ctx->cfg->hami, (gpa_hami_vendor_t)v, GPA_HAMI_COUNT);
        for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
            const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
            if (gpa_container_amount(c, count) != NULL)
                return 1;
        }
    }
    return 0;
}

/* Annotations HAMi's scheduler cannot use, on a Pod that asks HAMi for GPUs. */
void gpa_rule_invalid_annotation(gpa_rule_ctx_t *ctx)
{
    static const char *const gpu_policies[] = {"binpack", "spread", "topology-aware", "mutex", "numa", NULL};
    static const char *const node_policies[] = {"binpack", "spread", NULL};
    if (ctx->c != NULL || ctx->pod->nannotations == 0 || !asks_hami(ctx))
        return;
    for (size_t i = 0; i < ctx->pod->nannotations; i++) {
        const gpa_pair_t *pair = &ctx->pod->annotations[i];
        if (strcmp(pair->key, GPA_ANNOTATION_HAMI_GPU_POLICY) == 0)
            check_policy(ctx, pair, gpu_policies, "binpack, spread, topology-aware, mutex or numa, comma-separated", 1);
        else if (strcmp(pair->key, GPA_ANNOTATION_HAMI_NODE_POLICY) == 0)
            check_policy(ctx, pair, node_policies, "binpack or spread", 0);
        for (int v = 0; v < GPA_HAMI__VENDORS; v++)
            for (int k = 0; k < GPA_HAMI__ANNOTATIONS; k++)
                if (strcmp(pair->key, gpa_hami_annotation((gpa_hami_vendor_t)v, (gpa_hami_annotation_t)k)) == 0)
                    check_vendor_annotation(ctx, pair, (gpa_hami_annotation_t)k);
    }
}
