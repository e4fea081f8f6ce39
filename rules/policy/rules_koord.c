/*
 * Koordinator GPU-share rules (seed 004, Koordinator's device-share API): memory-ratio-exclusive,
 * core-without-memory, shared-without-memory, shared-required, deprecated-gpu-mixed, and the Koordinator half
 * of multi-card-divisibility, per-device-over-100 and min-memory.
 *
 * The arithmetic rules read a "view": one container's values, or the Pod's totals (the scheduler sums a Pod's
 * containers, Kubernetes' PodRequests rule). A Pod-level finding is reported only when at least two containers
 * carry Koordinator resources and no container already had a finding of the same rule: a single container's
 * problem is reported once, at the container.
 */
#include "policy/rule_ctx.h"

#include <stdarg.h>
#include <string.h>

#define MEM GPA_R_GPU_MEMORY
#define RATIO GPA_R_GPU_MEMORY_RATIO
#define CORE GPA_R_GPU_CORE
#define SHARED GPA_R_GPU_SHARED
#define GPU GPA_R_GPU

/* The Pod's totals, or 0 when there is no Pod-level view to check (see the file comment). */
static int view_pod(gpa_rule_ctx_t *ctx, gpa_koord_view_t *kv)
{
    if (ctx->container_hits != 0 || ctx->facts->koord_containers < 2)
        return 0;
    memset(kv, 0, sizeof(*kv));
    for (int r = 0; r < GPA_R__COUNT; r++) {
        if (ctx->facts->total[r] < 0)
            return 0; /* a sum beyond 64 bits: nothing sensible to say about the split */
        kv->v[r] = ctx->facts->total[r];
    }
    return 1;
}

/* The view of the container a check is on. */
static void view_container(const gpa_rule_ctx_t *ctx, gpa_koord_view_t *kv)
{
    gpa_koord_view_container(ctx->cfg->dialects, ctx->c, kv);
}

static int view_of(gpa_rule_ctx_t *ctx, gpa_koord_view_t *kv)
{
    if (ctx->c == NULL)
        return view_pod(ctx, kv);
    if (!gpa_gpu_any(ctx->cfg->dialects, ctx->c, GPA_DIALECT_KOORDINATOR))
        return 0;
    view_container(ctx, kv);
    return 1;
}

/* A finding about resource r of a view: at the amount for a container, at the Pod spec for the totals. */
static void kreport(gpa_rule_ctx_t *ctx, const gpa_koord_view_t *kv, gpa_resource_t r, gpa_resource_t r2, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void kreport(gpa_rule_ctx_t *ctx, const gpa_koord_view_t *kv, gpa_resource_t r, gpa_resource_t r2, const char *fmt, ...)
{
    const char *n2 = r2 != GPA_R_UNKNOWN ? gpa_resource_name(r2) : NULL;
    const char *msg = "";
    if (ctx->out != NULL) {
        va_list ap;
        va_start(ap, fmt);
        msg = gpa_arena_vprintf(ctx->a, fmt, ap);
        va_end(ap);
    }
    if (kv->c == NULL) {
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, gpa_resource_name(r), n2, "Pod total %s", msg);
        return;
    }
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, kv->c, r);
    const char *path = am != NULL ? am->path : gpa_container_resources_path(ctx->a, kv->c);
    gpa_rule_ctx_report(ctx, kv->c->name, path, gpa_resource_name(r), n2, "%s", msg);
}

void gpa_rule_memory_ratio_exclusive(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    if (ctx->c != NULL) {
        view_container(ctx, &kv);
        if (gpa_koord_view_faults(&kv) & GPA_KOORD_MEMORY_AND_RATIO)
            gpa_rule_ctx_report(ctx, ctx->c->name, gpa_container_resources_path(ctx->a, ctx->c), gpa_resource_name(MEM),
                                gpa_resource_name(RATIO), "%s and %s together; keep one memory form", gpa_resource_name(MEM),
                                gpa_resource_name(RATIO));
        return;
    }
    if (view_pod(ctx, &kv) && kv.v[MEM] > 0 && gpa_koord_view_ratio(&kv) > 0) /* koordinator.sh/gpu is a ratio too */
        gpa_rule_ctx_report(ctx, NULL, ctx->pod->path, gpa_resource_name(MEM), gpa_resource_name(RATIO),
                            "Pod mixes gpu-memory and gpu-memory-ratio across containers; use one memory form");
}

/* A resource r given with no memory form beside it (fault, from gpa_koord_view_faults). */
static void without_memory(gpa_rule_ctx_t *ctx, gpa_resource_t r, unsigned fault)
{
    gpa_koord_view_t kv;
    view_container(ctx, &kv);
    if ((gpa_koord_view_faults(&kv) & fault) == 0)
        return;
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, r);
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(r), NULL,
                        "%s without GPU memory; add gpu-memory (e.g. 8Gi) or gpu-memory-ratio", gpa_resource_name(r));
}

void gpa_rule_core_without_memory(gpa_rule_ctx_t *ctx)
{
    without_memory(ctx, CORE, GPA_KOORD_CORE_WITHOUT_MEMORY);
}

void gpa_rule_shared_without_memory(gpa_rule_ctx_t *ctx)
{
    without_memory(ctx, SHARED, GPA_KOORD_SHARED_WITHOUT_MEMORY);
}

void gpa_rule_shared_required(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    view_container(ctx, &kv);
    if (!gpa_koord_view_has_memory(&kv) || gpa_koord_view_present(&kv, SHARED))
        return;
    /* The same predicate mutation uses: only a container that is otherwise valid is told to add gpu.shared. */
    if (gpa_rule_ctx_container_findings(ctx, ctx->c, NULL) != 0)
        return;
    gpa_rule_ctx_report(ctx, ctx->c->name, gpa_container_resources_path(ctx->a, ctx->c), gpa_resource_name(SHARED), NULL,
                        "%s missing; add koordinator.sh/gpu.shared: \"%lld\" (devices to spread over)", gpa_resource_name(SHARED),
                        (long long)gpa_koord_view_devices(&kv));
}

/* Appends `item` to a comma-separated list. */
static const char *list_add(gpa_arena_t *a, const char *list, const char *item)
{
    return list[0] == '\0' ? item : gpa_arena_printf(a, "%s, %s", list, item);
}

/* What to write instead of koordinator.sh/gpu: N beside other share resources: keep what the user wrote in the
 * current names, add what N stood for and is missing (N percent of compute, N percent of memory when no
 * memory form is given), and gpu.shared as inject-gpu-shared would derive it from the result. */
static const char *deprecated_fix(gpa_arena_t *a, const gpa_koord_view_t *kv)
{
    int64_t n = kv->v[GPU];
    const char *pct = n > 0 ? gpa_arena_printf(a, ": %lld", (long long)n) : "";
    const char *keep = "", *add = "";
    gpa_koord_view_t fixed = *kv;
    fixed.v[GPU] = 0;
    if (gpa_koord_view_declared(kv, MEM))
        keep = list_add(a, keep, "gpu-memory");
    if (gpa_koord_view_declared(kv, RATIO))
        keep = list_add(a, keep, "gpu-memory-ratio");
    if (!gpa_koord_view_has_memory(kv)) {
        add = list_add(a, add, gpa_arena_printf(a, "gpu-memory-ratio%s", pct));
        fixed.v[RATIO] = n;
    }
    if (gpa_koord_view_declared(kv, CORE)) {
        keep = list_add(a, keep, "gpu-core");
    } else {
        add = list_add(a, add, gpa_arena_printf(a, "gpu-core%s", pct));
        fixed.v[CORE] = n;
    }
    if (gpa_koord_view_present(kv, SHARED))
        keep = list_add(a, keep, "gpu.shared");
    else
        add = list_add(a, add, gpa_arena_printf(a, "gpu.shared: %lld", (long long)gpa_koord_view_devices(&fixed)));
    return gpa_arena_printf(a, "drop it%s%s%s%s", keep[0] != '\0' ? ", keep " : "", keep, add[0] != '\0' ? ", add " : "", add);
}

void gpa_rule_deprecated_gpu_mixed(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    view_container(ctx, &kv);
    gpa_resource_t other = gpa_koord_view_mixed_with(&kv);
    if (other == GPA_R_UNKNOWN)
        return;
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, GPU);
    /* Short enough to stay whole as a warning (120 bytes): the finding lists the resources involved. */
    gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(GPU), gpa_resource_name(other), "%s is deprecated: %s",
                        gpa_resource_name(GPU), ctx->out != NULL ? deprecated_fix(ctx->a, &kv) : "");
}

/* With gpu.shared = n: core and ratio must be multiples of n. */
static void divisible_by_shared(gpa_rule_ctx_t *ctx, const gpa_koord_view_t *kv, int64_t n)
{
    static const gpa_resource_t rs[] = {CORE, RATIO};
    for (size_t i = 0; i < 2; i++) {
        int64_t x = kv->v[rs[i]];
        if (x != 0 && x % n != 0)
            kreport(ctx, kv, rs[i], SHARED, "%s: %lld does not split over gpu.shared %lld; use a multiple of %lld",
                    gpa_resource_name(rs[i]), (long long)x, (long long)n, (long long)n);
    }
}

/* The most devices a suggested gpu.shared spreads over: a node holds no more (8 is the common maximum). */
#define SHARED_SUGGEST_MAX 16

/*
 * The smallest gpu.shared, from `from` on, that a container's view passes with: gpu-core and gpu-memory-ratio
 * multiples of it and at most 100 on each device, gpu-memory at least minDeviceMemory on each; 0 when none
 * (also for a Pod's totals, which no one gpu.shared sets, and beside the deprecated gpu).
 */
static int64_t shared_that_fits(const gpa_config_t *cfg, const gpa_koord_view_t *kv, int64_t from)
{
    if (kv->c == NULL || kv->v[GPU] != 0 || !gpa_koord_view_has_memory(kv))
        return 0;
    int64_t core = kv->v[CORE], ratio = kv->v[RATIO], top = core > ratio ? core : ratio;
    int64_t n = gpa_ceil_div(top, 100);
    for (n = n > from ? n : from; n <= SHARED_SUGGEST_MAX && n <= top; n++) {
        if (core % n != 0 || ratio % n != 0)
            continue;
        if (kv->v[MEM] > 0 && gpa_ceil_div(kv->v[MEM], n) < cfg->min_device_memory)
            return 0; /* more devices only get less memory each */
        return n;
    }
    return 0;
}

/* Without gpu.shared: above 100 only whole devices, and core must split over the devices the ratio implies. */
static void divisible_by_100(gpa_rule_ctx_t *ctx, const gpa_koord_view_t *kv)
{
    static const gpa_resource_t rs[] = {GPU, CORE, RATIO};
    int64_t n = gpa_koord_view_devices(kv), fits = shared_that_fits(ctx->cfg, kv, 1);
    const char *or_shared =
        fits > 0 && ctx->out != NULL ? gpa_arena_printf(ctx->a, " or set gpu.shared: %lld", (long long)fits) : "";
    for (size_t i = 0; i < 3; i++) {
        int64_t x = kv->v[rs[i]];
        if (x > 100 && x % 100 != 0)
            kreport(ctx, kv, rs[i], GPA_R_UNKNOWN, "%s: %lld is over one device but not whole devices; use 100, 200, ...%s",
                    gpa_resource_name(rs[i]), (long long)x, or_shared);
        else if (rs[i] == CORE && x != 0 && n > 1 && x % n != 0)
            kreport(ctx, kv, CORE, RATIO,
                    "%s: %lld does not split over the %lld devices gpu-memory-ratio asks; use a multiple of %lld",
                    gpa_resource_name(CORE), (long long)x, (long long)n, (long long)n);
    }
}

void gpa_rule_multi_card_divisibility_koord(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    if (!view_of(ctx, &kv) || kv.shared_unusable)
        return;
    if (kv.v[SHARED] > 0)
        divisible_by_shared(ctx, &kv, kv.v[SHARED]);
    else
        divisible_by_100(ctx, &kv);
}

void gpa_rule_per_device_over_100_koord(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    if (!view_of(ctx, &kv))
        return;
    int64_t n = gpa_koord_view_devices(&kv);
    if (n <= 0)
        return;
    int explicit_n = kv.v[SHARED] > 0;
    const gpa_resource_t rs[] = {CORE, RATIO};
    const int64_t xs[] = {explicit_n ? kv.v[CORE] : gpa_koord_view_core(&kv), explicit_n ? kv.v[RATIO] : gpa_koord_view_ratio(&kv)};
    for (size_t i = 0; i < 2; i++) {
        int64_t x = xs[i];
        /* Without gpu.shared a value above 100 that is not whole devices is multi-card-divisibility's. */
        if (x == 0 || !gpa_over_100(x, n) || (!explicit_n && x > 100 && x % 100 != 0))
            continue;
        gpa_resource_t r = kv.v[rs[i]] != 0 ? rs[i] : GPU;
        int64_t fits = explicit_n ? shared_that_fits(ctx->cfg, &kv, n + 1) : 0;
        if (fits > 0)
            kreport(ctx, &kv, r, SHARED, "%s: %lld over gpu.shared %lld is over 100 per device; use gpu.shared: %lld",
                    gpa_resource_name(r), (long long)x, (long long)n, (long long)fits);
        else if (explicit_n)
            kreport(ctx, &kv, r, SHARED, "%s: %lld over gpu.shared %lld is over 100 per device; use gpu.shared %lld or more",
                    gpa_resource_name(r), (long long)x, (long long)n, (long long)gpa_ceil_div(x, 100));
        else
            kreport(ctx, &kv, r, RATIO, "%s: %lld on the %lld device(s) the memory asks is over 100 per device; set gpu.shared",
                    gpa_resource_name(r), (long long)x, (long long)n);
    }
}

/* The fix part of a min-memory message: "; did you mean 4Gi?" when the value was written without a unit and
 * that unit makes it enough, else the total to ask for (the minimum on each of n devices). */
static const char *unit_hint(gpa_arena_t *a, const gpa_amount_t *am, int64_t n, int64_t min)
{
    int64_t need;
    const char *at_least =
        gpa_mul_i64(min, n, &need) == 0 ? gpa_arena_printf(a, "; ask for %s or more", gpa_rule_ctx_bytes(a, need)) : "";
    if (am->suffix != GPA_QS_NONE)
        return at_least;
    int64_t unit = am->value < 1024 ? GPA_GIB : GPA_MIB, scaled;
    if (gpa_mul_i64(am->value, unit, &scaled) != 0 || gpa_ceil_div(scaled, n) < min)
        return at_least;
    return gpa_arena_printf(a, "; did you mean %s%s?", am->text, unit == GPA_GIB ? "Gi" : "Mi");
}

void gpa_rule_min_memory_koord(gpa_rule_ctx_t *ctx)
{
    gpa_koord_view_t kv;
    if (ctx->c == NULL || !view_of(ctx, &kv) || kv.v[MEM] == 0)
        return;
    int64_t n = gpa_koord_view_devices(&kv), min = ctx->cfg->min_device_memory;
    if (n <= 0)
        return;
    int64_t per = gpa_ceil_div(kv.v[MEM], n);
    if (per >= min)
        return;
    const gpa_amount_t *am = gpa_gpu_amount(ctx->cfg->dialects, ctx->c, MEM);
    if (ctx->out == NULL) {
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MEM), NULL, "%s", "");
        return;
    }
    const char *minq = gpa_rule_ctx_bytes(ctx->a, min), *hint = unit_hint(ctx->a, am, n, min);
    if (n > 1)
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MEM), NULL,
                            "%s: %s / %lld devices = %s each, below %s%s", gpa_resource_name(MEM), am->text, (long long)n,
                            gpa_rule_ctx_bytes(ctx->a, per), minq, hint);
    else if (am->suffix == GPA_QS_NONE)
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MEM), NULL,
                            "%s: %s is %s bytes, below the %s minimum per device%s", gpa_resource_name(MEM), am->text, am->text,
                            minq, hint);
    else
        gpa_rule_ctx_report(ctx, ctx->c->name, am->path, gpa_resource_name(MEM), NULL,
                            "%s: %s is below the %s minimum per device%s", gpa_resource_name(MEM), am->text, minq, hint);
}
