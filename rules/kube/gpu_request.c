/*
 * What a GPU request means, per dialect (gpu_request.h): reading amounts, the Koordinator arithmetic, the mGPU
 * cards annotation, and the facts of a Pod spec computed once.
 */
#include "kube/gpu_request.h"

#include <string.h>

#include "kube/quantity.h"

#define SHARED GPA_R_GPU_SHARED
#define RATIO GPA_R_GPU_MEMORY_RATIO
#define CORE GPA_R_GPU_CORE
#define GPU GPA_R_GPU
#define ANN GPA_ANNOTATION_MULTIPLE_GPU
#define MAX_CARDS 1000000 /* beyond any node; keeps k * 100 and friends far from overflow */

int gpa_gpu_any(unsigned dialects, const gpa_container_t *c, gpa_dialect_t d)
{
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (gpa_resource_dialect((gpa_resource_t)r) == d && gpa_gpu_declared(dialects, c, (gpa_resource_t)r))
            return 1;
    return 0;
}

int gpa_gpu_is_mgpu(unsigned dialects, const gpa_container_t *c)
{
    return gpa_gpu_amount(dialects, c, GPA_R_MGPU_CORE) != NULL || gpa_gpu_amount(dialects, c, GPA_R_MGPU_MEMORY) != NULL;
}

int gpa_gpu_sound(unsigned dialects, const gpa_container_t *c, gpa_dialect_t d)
{
    for (int r = 0; r < GPA_R__COUNT; r++) {
        if (gpa_resource_dialect((gpa_resource_t)r) != d || (dialects & (unsigned)d) == 0)
            continue;
        const gpa_amount_t *req = gpa_container_request(c, (gpa_resource_t)r), *lim = gpa_container_limit(c, (gpa_resource_t)r);
        if ((req->present && (req->status != GPA_Q_OK || req->value < 0)) ||
            (lim->present && (lim->status != GPA_Q_OK || lim->value < 0)))
            return 0;
        if (req->present && lim->present && req->value != lim->value)
            return 0;
    }
    return 1;
}

/* PodRequests for one resource: max(sum over app containers, largest init container); -1 on overflow. */
static int64_t pod_total(unsigned dialects, const gpa_podspec_t *pod, gpa_resource_t r)
{
    int64_t sum = 0, init_max = 0, v;
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (gpa_gpu_value(dialects, &pod->containers[i], r, &v) && gpa_add_i64(sum, v, &sum) != 0)
            return -1;
    for (size_t i = 0; i < pod->ninit_containers; i++)
        if (gpa_gpu_value(dialects, &pod->init_containers[i], r, &v) && v > init_max)
            init_max = v;
    return sum > init_max ? sum : init_max;
}

/* ---- names that are no GPU resource ---- */

/* The requests (0) or limits (1) map of c as written; NULL when absent. */
static const gpa_value_t *resource_map(const gpa_container_t *c, int limits)
{
    if (c->resources == NULL)
        return NULL;
    const gpa_value_t *map = gpa_value_get(c->resources, limits ? "limits" : "requests");
    return map != NULL && map->type == GPA_VOBJECT ? map : NULL;
}

/* Whether c's name (len bytes) is an extended resource a DeviceClass serves (decode read it as a DRA use). */
static int extended_use(const gpa_container_t *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->nextended; i++)
        if (strlen(c->extended[i].resource) == len && memcmp(c->extended[i].resource, name, len) == 0)
            return 1;
    return 0;
}

/* The enabled dialect whose domain m's name is in, when it is no known resource (and, in limits, not in the
 * requests as well: one name is one stray); else 0. */
static gpa_dialect_t stray_dialect(unsigned dialects, const gpa_container_t *c, const gpa_value_t *requests, const gpa_member_t *m,
                                   int in_limits)
{
    /* Known names first: in a GPU container they are most of the names with a domain. HAMi's as configured are
     * known, its priority too (no token: no GPU amount); so is a name a DeviceClass serves (DRA). */
    if (gpa_resource_intern(c->hami, m->key, m->key_len) != GPA_R_UNKNOWN || gpa_hami_names_has(c->hami, m->key, m->key_len) ||
        extended_use(c, m->key, m->key_len))
        return 0;
    gpa_dialect_t d = gpa_resource_domain(m->key, m->key_len);
    if ((dialects & (unsigned)d) == 0)
        return 0;
    if (in_limits && requests != NULL && strlen(m->key) == m->key_len && gpa_value_get(requests, m->key) != NULL)
        return 0;
    return d;
}

size_t gpa_gpu_strays(gpa_arena_t *a, unsigned dialects, const gpa_container_t *c, gpa_stray_t **out)
{
    GPA_VEC(gpa_stray_t) strays = {0};
    const gpa_value_t *requests = resource_map(c, 0);
    for (int limits = 0; limits < 2; limits++) {
        const gpa_value_t *map = resource_map(c, limits);
        for (size_t i = 0; map != NULL && i < map->u.object.len; i++) {
            const gpa_member_t *m = &map->u.object.members[i];
            if (stray_dialect(dialects, c, requests, m, limits) == 0)
                continue;
            *gpa_vec_push(a, &strays) =
                (gpa_stray_t){m->key, m->key_len, limits ? "limits" : "requests", m->value->line, m->value->column};
        }
    }
    *out = strays.items;
    return strays.len;
}

const char *gpa_gpu_stray_path(gpa_arena_t *a, const gpa_container_t *c, const gpa_stray_t *s)
{
    return gpa_arena_printf(a, "%s.resources.%s[\"%s\"]", c->path, s->map, s->name);
}

/* The enabled dialects whose resources, or names in whose domain (strays), appear in c's requests or limits. */
static unsigned present_dialects(unsigned dialects, const gpa_container_t *c)
{
    unsigned d = 0;
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (gpa_container_request(c, (gpa_resource_t)r)->present || gpa_container_limit(c, (gpa_resource_t)r)->present)
            d |= (unsigned)gpa_resource_dialect((gpa_resource_t)r);
    for (int limits = 0; limits < 2; limits++) {
        const gpa_value_t *map = resource_map(c, limits);
        for (size_t i = 0; map != NULL && i < map->u.object.len; i++)
            d |= (unsigned)stray_dialect(dialects, c, NULL, &map->u.object.members[i], limits);
    }
    if (c->nclaims != 0 || c->nextended != 0)
        d |= GPA_DIALECT_DRA;
    return d & dialects;
}

static unsigned *container_dialects(gpa_arena_t *a, unsigned dialects, const gpa_container_t *cs, size_t n, unsigned *all)
{
    unsigned *masks = gpa_arena_alloc(a, (n != 0 ? n : 1) * sizeof(*masks));
    for (size_t i = 0; i < n; i++)
        *all |= masks[i] = present_dialects(dialects, &cs[i]);
    return masks;
}

/* The enabled dialects a Pod's annotations speak: a key that is a GPU resource name (resource-in-annotation), or
 * one of HAMi's annotations (invalid-annotation). */
static unsigned annotation_dialects(unsigned dialects, const gpa_podspec_t *pod)
{
    unsigned d = 0;
    for (size_t i = 0; i < pod->nannotations; i++) {
        const char *key = pod->annotations[i].key;
        gpa_resource_t r = gpa_resource_intern(pod->hami, key, strlen(key));
        if (r != GPA_R_UNKNOWN)
            d |= (unsigned)gpa_resource_dialect(r);
        else if (gpa_hami_annotation_known(key))
            d |= GPA_DIALECT_HAMI;
    }
    return d & dialects;
}

void gpa_pod_facts_init(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_pod_facts_t *out)
{
    memset(out, 0, sizeof(*out));
    out->app_dialects = container_dialects(a, dialects, pod->containers, pod->ncontainers, &out->dialects);
    out->init_dialects = container_dialects(a, dialects, pod->init_containers, pod->ninit_containers, &out->dialects);
    gpa_cards_parse(a, dialects, pod, &out->cards);
    if (out->cards.text != NULL)
        out->dialects |= GPA_DIALECT_MGPU;
    out->dialects |= annotation_dialects(dialects, pod);
    if (pod->nclaims != 0)
        out->dialects |= dialects & GPA_DIALECT_DRA;
    if (out->dialects == 0)
        return; /* no GPU resource: no rule reads anything else */
    for (int r = 0; r < GPA_R__COUNT; r++)
        out->total[r] = pod_total(dialects, pod, (gpa_resource_t)r);
    for (size_t i = 0; i < pod->ncontainers; i++)
        out->koord_containers += gpa_gpu_any(dialects, &pod->containers[i], GPA_DIALECT_KOORDINATOR);
    for (size_t i = 0; i < pod->ninit_containers; i++)
        out->koord_containers += gpa_gpu_any(dialects, &pod->init_containers[i], GPA_DIALECT_KOORDINATOR);
    if ((out->dialects & GPA_DIALECT_HAMI) == 0)
        return;
    for (size_t i = 0; i < pod->ncontainers; i++)
        out->hami_containers += gpa_hami_vendor(dialects, &pod->containers[i]) >= 0;
    for (size_t i = 0; i < pod->ninit_containers; i++)
        out->hami_containers += gpa_hami_vendor(dialects, &pod->init_containers[i]) >= 0;
}

/* ---- HAMi ---- */

int gpa_hami_vendor(unsigned dialects, const gpa_container_t *c)
{
    static const gpa_hami_name_t asks[] = {GPA_HAMI_MEMORY, GPA_HAMI_PERCENT, GPA_HAMI_CORES};
    if ((dialects & GPA_DIALECT_HAMI) == 0)
        return -1;
    for (int v = 0; v < GPA_HAMI__VENDORS; v++)
        for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++)
            if (gpa_container_amount(c, gpa_hami_token(c->hami, (gpa_hami_vendor_t)v, asks[i])) != NULL)
                return v;
    return -1;
}

/* An amount that parsed and is not negative, else NULL (read as absent). */
static const gpa_amount_t *usable(const gpa_amount_t *am)
{
    return am != NULL && am->status == GPA_Q_OK && am->value >= 0 ? am : NULL;
}

static void hami_memory(gpa_hami_view_t *hv)
{
    int64_t mem, pct, mib;
    const gpa_amount_t *pct_am = usable(hv->am[GPA_HAMI_PERCENT]);
    if (gpa_amount_positive(usable(hv->am[GPA_HAMI_MEMORY]), &mem)) {
        hv->memory = GPA_HAMI_MEM_MIB;
        if (gpa_mul_i64(mem, gpa_hami_memory_unit_mib(hv->vendor), &mib) != 0 ||
            gpa_mul_i64(mib, hv->device->memory_factor, &mib) != 0)
            mib = INT64_MAX;
        hv->memory_mib = mib;
        hv->memory_overflow = mib > GPA_HAMI_MIB_MAX;
    } else if (gpa_amount_positive(pct_am, &pct)) {
        hv->memory = GPA_HAMI_MEM_PERCENT;
        hv->percent = pct;
    } else if (hv->device->default_memory != 0) {
        hv->memory = GPA_HAMI_MEM_DEFAULT;
        hv->memory_mib = hv->device->default_memory;
    } else {
        hv->memory = GPA_HAMI_MEM_WHOLE;
    }
}

int gpa_hami_view_container(unsigned dialects, const gpa_container_t *c, gpa_hami_view_t *hv)
{
    memset(hv, 0, sizeof(*hv));
    int v = gpa_hami_vendor(dialects, c);
    if (v < 0)
        return -1;
    const gpa_hami_names_t *names = c->hami != NULL ? c->hami : &gpa_hami_names_default;
    hv->c = c;
    hv->vendor = (gpa_hami_vendor_t)v;
    hv->device = &names->device[v];
    for (int n = 0; n < GPA_HAMI__NAMES; n++) {
        hv->token[n] = gpa_hami_token(names, hv->vendor, (gpa_hami_name_t)n);
        hv->am[n] = hv->token[n] != GPA_R_UNKNOWN ? gpa_container_amount(c, hv->token[n]) : NULL;
    }
    const gpa_amount_t *count = usable(hv->am[GPA_HAMI_COUNT]);
    hv->count = count != NULL ? count->value : hv->am[GPA_HAMI_COUNT] == NULL ? hv->device->default_gpu_num : 0;
    hami_memory(hv);
    /* Cores: gpucores; else 100 where the memory is the whole card (no memory resource given at all, and no
     * percentage or 100: HAMi's webhook writes gpucores: 100 there); else defaultCores. */
    const gpa_amount_t *cores = usable(hv->am[GPA_HAMI_CORES]), *pct = usable(hv->am[GPA_HAMI_PERCENT]);
    int whole = hv->am[GPA_HAMI_MEMORY] == NULL && (pct == NULL || pct->value == 100);
    hv->cores = cores != NULL ? cores->value : whole ? 100 : hv->device->default_cores;
    return 0;
}

/* ---- Koordinator ---- */

#define MEM GPA_R_GPU_MEMORY
#define BIT(r) (1u << (r))

_Static_assert(GPA_R__COUNT <= 32, "a view keeps one bit per resource");

void gpa_koord_view_values(unsigned dialects, const gpa_gpu_value_t values[GPA_R__COUNT], gpa_koord_view_t *kv)
{
    memset(kv, 0, sizeof(*kv));
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_gpu_value_t *x = &values[r];
        if (!x->present || (dialects & (unsigned)gpa_resource_dialect((gpa_resource_t)r)) == 0)
            continue;
        kv->present |= BIT(r);
        if (!(x->ok && x->value == 0))
            kv->declared |= BIT(r);
        if (x->ok && x->value > 0)
            kv->v[r] = x->value;
    }
    kv->shared_unusable = (kv->present & BIT(SHARED)) != 0 && kv->v[SHARED] == 0;
}

void gpa_koord_view_container(unsigned dialects, const gpa_container_t *c, gpa_koord_view_t *kv)
{
    gpa_gpu_value_t values[GPA_R__COUNT];
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const gpa_amount_t *am = gpa_container_amount(c, (gpa_resource_t)r);
        values[r] = (gpa_gpu_value_t){am != NULL, am != NULL && am->status == GPA_Q_OK, am != NULL ? am->value : 0};
    }
    gpa_koord_view_values(dialects, values, kv);
    kv->c = c;
}

gpa_resource_t gpa_koord_view_mixed_with(const gpa_koord_view_t *kv)
{
    static const gpa_resource_t others[] = {MEM, RATIO, CORE, SHARED};
    if (!gpa_koord_view_declared(kv, GPU))
        return GPA_R_UNKNOWN;
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        if (gpa_koord_view_declared(kv, others[i]))
            return others[i];
    return GPA_R_UNKNOWN;
}

unsigned gpa_koord_view_faults(const gpa_koord_view_t *kv)
{
    unsigned f = 0;
    int memory = gpa_koord_view_has_memory(kv);
    if (gpa_koord_view_declared(kv, MEM) && gpa_koord_view_declared(kv, RATIO))
        f |= GPA_KOORD_MEMORY_AND_RATIO;
    if (gpa_koord_view_declared(kv, CORE) && !memory)
        f |= GPA_KOORD_CORE_WITHOUT_MEMORY;
    if (gpa_koord_view_declared(kv, SHARED) && !memory)
        f |= GPA_KOORD_SHARED_WITHOUT_MEMORY;
    if (gpa_koord_view_mixed_with(kv) != GPA_R_UNKNOWN)
        f |= GPA_KOORD_DEPRECATED_MIXED;
    if ((gpa_koord_view_present(kv, SHARED) && !gpa_koord_view_declared(kv, SHARED)) ||
        (gpa_koord_view_present(kv, GPU) && !gpa_koord_view_declared(kv, GPU)))
        f |= GPA_KOORD_ZERO_COUNT;
    return f;
}

int gpa_koord_view_well_formed(const gpa_koord_view_t *kv)
{
    return gpa_koord_view_faults(kv) == 0 && (gpa_koord_view_declared(kv, GPU) || gpa_koord_view_has_memory(kv));
}

int gpa_koord_view_deprecated_alone(const gpa_koord_view_t *kv)
{
    return kv->v[GPU] > 0 && gpa_koord_view_mixed_with(kv) == GPA_R_UNKNOWN && !gpa_koord_view_present(kv, SHARED);
}

int gpa_koord_view_needs_shared(const gpa_koord_view_t *kv)
{
    return (kv->v[MEM] > 0 || kv->v[RATIO] > 0) && !gpa_koord_view_present(kv, SHARED);
}

int64_t gpa_koord_view_core(const gpa_koord_view_t *kv)
{
    return kv->v[CORE] != 0 ? kv->v[CORE] : kv->v[GPU];
}

int64_t gpa_koord_view_ratio(const gpa_koord_view_t *kv)
{
    return kv->v[RATIO] != 0 ? kv->v[RATIO] : kv->v[GPU];
}

int64_t gpa_koord_view_devices(const gpa_koord_view_t *kv)
{
    if (kv->v[SHARED] > 0)
        return kv->v[SHARED];
    if (kv->shared_unusable)
        return 0;
    int64_t ratio = gpa_koord_view_ratio(kv), core = gpa_koord_view_core(kv);
    if (ratio >= 100 && ratio % 100 == 0)
        return ratio / 100;
    if (ratio == 0 && core >= 100 && core % 100 == 0)
        return core / 100;
    return 1;
}

const char *gpa_koord_gpu_percent_note(gpa_arena_t *a, int64_t n)
{
    if (n < 1 || n > GPA_UNIT_HINT_GPU_MAX)
        return NULL;
    if (n == 1)
        return "1% of one device; one whole device is 100";
    return gpa_arena_printf(a, "%lld%% of one device; %lld devices are %lld", (long long)n, (long long)n, (long long)(n * 100));
}

int gpa_koord_view_share(const gpa_koord_view_t *kv, gpa_koord_share_t *out)
{
    int64_t n = gpa_koord_view_devices(kv), core = gpa_koord_view_core(kv), ratio = gpa_koord_view_ratio(kv), mem = kv->v[MEM];
    memset(out, 0, sizeof(*out));
    if (n <= 0)
        return -1;
    if (kv->v[SHARED] == 0 && ((core > 100 && core % 100 != 0) || (ratio > 100 && ratio % 100 != 0)))
        return -1; /* without gpu.shared, above one device only whole devices */
    if (core % n != 0 || ratio % n != 0 || gpa_over_100(core, n) || gpa_over_100(ratio, n))
        return -1;
    out->devices = n;
    out->core = core / n;
    if (mem > 0)
        out->memory = gpa_ceil_div(mem, n);
    else
        out->ratio = ratio / n;
    return 0;
}

/* ---- Volcano mGPU ---- */

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* A whole number >= 0 written in decimal digits, or -1. */
static int64_t parse_entry(const char *s, size_t n)
{
    if (n == 0)
        return -1;
    int64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        k = k * 10 + (s[i] - '0');
        if (k > MAX_CARDS)
            return -1;
    }
    return k;
}

static void split_entries(gpa_arena_t *a, const char *text, gpa_cards_t *out)
{
    size_t n = 1;
    for (const char *p = text; *p != '\0'; p++)
        n += *p == ',';
    out->entries = gpa_arena_alloc(a, n * sizeof(*out->entries));
    out->k = gpa_arena_alloc(a, n * sizeof(*out->k));
    const char *p = text;
    for (size_t i = 0; i < n; i++) {
        const char *end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && is_blank(*b))
            b++;
        while (e > b && is_blank(e[-1]))
            e--;
        out->entries[i] = gpa_arena_strndup(a, b, (size_t)(e - b));
        out->k[i] = parse_entry(b, (size_t)(e - b));
        p = *end == ',' ? end + 1 : end;
    }
    out->len = n;
}

void gpa_cards_parse(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_cards_t *out)
{
    memset(out, 0, sizeof(*out));
    if ((dialects & GPA_DIALECT_MGPU) == 0)
        return;
    out->text = gpa_pairs_get(pod->annotations, pod->nannotations, ANN);
    if (out->text == NULL)
        return;
    split_entries(a, out->text, out);
    out->count_ok = out->len == pod->ncontainers;
    out->entries_ok = 1;
    for (size_t i = 0; i < out->len; i++) {
        int zero_for_mgpu = out->k[i] == 0 && i < pod->ncontainers && gpa_gpu_is_mgpu(dialects, &pod->containers[i]);
        if (out->k[i] < 0 || zero_for_mgpu)
            out->entries_ok = 0;
    }
    out->usable = out->count_ok && out->entries_ok;
}

int64_t gpa_cards_for(const gpa_cards_t *cards, const gpa_container_t *c)
{
    if (!cards->usable || c->is_init || c->index >= cards->len || cards->k[c->index] <= 0)
        return 0;
    return cards->k[c->index];
}

int gpa_mgpu_share(unsigned dialects, const gpa_cards_t *cards, const gpa_container_t *c, gpa_mgpu_share_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!gpa_gpu_is_mgpu(dialects, c) || !gpa_gpu_value(dialects, c, GPA_R_MGPU_CORE, &out->core))
        return -1;
    int64_t core = out->core, k = out->k = gpa_cards_for(cards, c);
    gpa_gpu_value(dialects, c, GPA_R_MGPU_MEMORY, &out->memory);
    if (k > 0)
        out->cards = k;
    else
        out->cards = core > 100 && core % 100 == 0 ? core / 100 : 1; /* whole cards, else one card */
    out->card_core = core / out->cards;
    out->card_memory = out->memory / out->cards;
    out->whole = core % out->cards == 0 && out->card_core == 100;
    if (k == 0 && core > 100 && core % 100 != 0)
        out->faults |= GPA_MGPU_PARTIAL_CARDS;
    if (k > 0 && core % k != 0)
        out->faults |= GPA_MGPU_CORE_UNEVEN;
    if (k > 0 && out->memory % k != 0)
        out->faults |= GPA_MGPU_MEMORY_UNEVEN;
    if (k > 0 && gpa_over_100(core, k))
        out->faults |= GPA_MGPU_OVER_100;
    if (out->whole && gpa_gpu_declared(dialects, c, GPA_R_MGPU_MEMORY))
        out->faults |= GPA_MGPU_WHOLE_WITH_MEMORY;
    if (gpa_mgpu_memory_ambiguous(gpa_gpu_amount(dialects, c, GPA_R_MGPU_MEMORY)))
        out->faults |= GPA_MGPU_AMBIGUOUS_MEMORY;
    return 0;
}
