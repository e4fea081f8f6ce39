/*
 * The canonical request (docs/allocator.md). What a request means is kube/gpu_request.h's, which the rules and the
 * mutations read too (amounts, Koordinator forms, devices and per-device shares, mGPU cards), so a container
 * the rules admit normalizes and the two never disagree about counts or per-device amounts. A spec the rules would deny
 * structurally (whatever the configured actions) does not normalize: -1, and the rules say why.
 */
#include "kube/normalize.h"
#include "kube/gpu_request.h"

#include <string.h>

typedef GPA_VEC(gpa_device_group_t) groups_vec_t;

/* The groups so far, and the first count too large to be one (GPA_NORMALIZE_TOO_MANY). */
typedef struct st_groups_t {
    groups_vec_t vec;
    const gpa_container_t *too_many_container;
    int64_t too_many;
    size_t too_many_group;
} groups_t;

/* A group of `count` devices. A count beyond what a group counts is recorded, not truncated (2^32 + 1 devices is not
 * one device): the group still comes back, to be filled, but the request is not placeable. */
static gpa_device_group_t *push_group(gpa_arena_t *a, groups_t *v, const gpa_container_t *c, gpa_dialect_t d, int64_t count)
{
    if (count > GPA_NORMALIZE_MAX_DEVICES && v->too_many_container == NULL) {
        v->too_many_container = c;
        v->too_many = count;
        v->too_many_group = v->vec.len;
    }
    gpa_device_group_t *g = gpa_vec_push(a, &v->vec);
    memset(g, 0, sizeof(*g));
    g->container = c;
    g->ncontainers = 1;
    g->containers = c->name;
    g->dialect = d;
    g->count = count > GPA_NORMALIZE_MAX_DEVICES ? (unsigned)GPA_NORMALIZE_MAX_DEVICES : (unsigned)count;
    return g;
}

const char *gpa_normalize_asks(gpa_arena_t *a, const gpa_device_group_t *g)
{
    if (g->ncontainers > 1)
        return gpa_arena_printf(a, "the Pod's %zu containers ask", g->ncontainers);
    return gpa_arena_printf(a, "%scontainer %s asks", g->container->is_init ? "init " : "", g->container->name);
}

static const gpa_hami_select_t *count_only_select(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod,
                                                  const gpa_container_t *c);

static int vendor_groups(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, const gpa_container_t *c, groups_t *v)
{
    static const gpa_resource_t rs[] = {GPA_R_NVIDIA_GPU, GPA_R_AMD_GPU, GPA_R_DCU_GPU};
    for (size_t i = 0; i < 3; i++) {
        int64_t n;
        if (!gpa_gpu_value(dialects, c, rs[i], &n))
            continue;
        gpa_device_group_t *g = push_group(a, v, c, GPA_DIALECT_VENDOR, n);
        g->whole = 1;
        g->core = 100;
        g->memory_kind = GPA_MEMORY_NONE;
        if (rs[i] == GPA_R_NVIDIA_GPU)
            g->select = count_only_select(a, dialects, pod, c);
    }
    return 0;
}

/* ---- Koordinator: one group for the Pod (normalize.h) ---- */

#define KOORD_AMOUNTS 4 /* core, memory ratio, bytes, gpu.shared */

/* One container's contribution to the Pod's totals (koordinator.sh/gpu as compute and ratio); -1 when the container
 * is not sound on its own (a rule says why). */
static int koord_amounts(unsigned dialects, const gpa_container_t *c, int64_t out[KOORD_AMOUNTS])
{
    gpa_koord_view_t kv;
    gpa_koord_share_t share;
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_KOORDINATOR))
        return -1;
    gpa_koord_view_container(dialects, c, &kv);
    if (!gpa_koord_view_well_formed(&kv) || gpa_koord_view_share(&kv, &share) != 0)
        return -1;
    out[0] = gpa_koord_view_core(&kv);
    out[1] = kv.v[GPA_R_GPU_MEMORY] > 0 ? 0 : gpa_koord_view_ratio(&kv);
    out[2] = kv.v[GPA_R_GPU_MEMORY];
    out[3] = kv.v[GPA_R_GPU_SHARED];
    return 0;
}

/* The Pod's Koordinator containers (app, then init) and their totals by the PodRequests rule (saturated at
 * INT64_MAX: a total no device holds). */
typedef struct st_koord_pod_t {
    GPA_VEC(const gpa_container_t *) containers;
    int64_t app[KOORD_AMOUNTS], init[KOORD_AMOUNTS];
} koord_pod_t;

static int koord_add(gpa_arena_t *a, unsigned dialects, const gpa_container_t *c, koord_pod_t *k)
{
    int64_t x[KOORD_AMOUNTS];
    if (!gpa_gpu_any(dialects, c, GPA_DIALECT_KOORDINATOR))
        return 0;
    if (koord_amounts(dialects, c, x) != 0)
        return -1;
    *gpa_vec_push(a, &k->containers) = c;
    for (int i = 0; i < KOORD_AMOUNTS; i++) {
        if (c->is_init)
            k->init[i] = x[i] > k->init[i] ? x[i] : k->init[i];
        else
            k->app[i] = gpa_sat_add_i64(k->app[i], x[i]);
    }
    return 0;
}

/* The containers' names joined with ",", in one allocation: linear in the names, however many containers a Pod has. */
static const char *joined_names(gpa_arena_t *a, const koord_pod_t *k)
{
    size_t len = 0, at = 0;
    for (size_t i = 0; i < k->containers.len; i++)
        len += strlen(k->containers.items[i]->name) + 1;
    char *s = gpa_arena_alloc(a, len + 1);
    for (size_t i = 0; i < k->containers.len; i++) {
        size_t n = strlen(k->containers.items[i]->name);
        if (i > 0)
            s[at++] = ',';
        memcpy(s + at, k->containers.items[i]->name, n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

static int koord_pod_group(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, groups_t *v)
{
    koord_pod_t k = {0};
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (koord_add(a, dialects, &pod->containers[i], &k) != 0)
            return -1;
    for (size_t i = 0; i < pod->ninit_containers; i++)
        if (koord_add(a, dialects, &pod->init_containers[i], &k) != 0)
            return -1;
    if (k.containers.len == 0)
        return 0;
    gpa_koord_view_t total;
    gpa_koord_share_t share;
    static const gpa_resource_t rs[KOORD_AMOUNTS] = {GPA_R_GPU_CORE, GPA_R_GPU_MEMORY_RATIO, GPA_R_GPU_MEMORY, GPA_R_GPU_SHARED};
    memset(&total, 0, sizeof(total));
    for (int i = 0; i < KOORD_AMOUNTS; i++)
        total.v[rs[i]] = k.app[i] > k.init[i] ? k.app[i] : k.init[i];
    if (total.v[GPA_R_GPU_MEMORY] > 0 && total.v[GPA_R_GPU_MEMORY_RATIO] > 0)
        return -1; /* memory-ratio-exclusive on the Pod's totals */
    if (gpa_koord_view_share(&total, &share) != 0)
        return -1; /* multi-card-divisibility or per-device-over-100 on the Pod's totals */
    gpa_device_group_t *g = push_group(a, v, k.containers.items[0], GPA_DIALECT_KOORDINATOR, share.devices);
    g->ncontainers = k.containers.len;
    g->containers = joined_names(a, &k);
    g->core = share.core;
    if (share.memory > 0) {
        g->memory_kind = GPA_MEMORY_BYTES;
        g->memory_bytes = share.memory;
        g->memory_total = total.v[GPA_R_GPU_MEMORY];
    } else {
        g->memory_kind = GPA_MEMORY_RATIO;
        g->memory_ratio = share.ratio;
    }
    g->whole = g->core == 100 && g->memory_kind == GPA_MEMORY_RATIO && g->memory_ratio == 100;
    return 0;
}

static int mgpu_group(gpa_arena_t *a, unsigned dialects, const gpa_cards_t *cards, const gpa_container_t *c, groups_t *v)
{
    gpa_mgpu_share_t m;
    int64_t bytes;
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_MGPU) || gpa_mgpu_share(dialects, cards, c, &m) != 0 || m.faults != 0 ||
        gpa_mul_i64(m.card_memory, GPA_MIB, &bytes) != 0)
        return -1;
    gpa_device_group_t *g = push_group(a, v, c, GPA_DIALECT_MGPU, m.cards);
    g->whole = m.whole;
    g->core = m.card_core;
    g->memory_kind = m.whole || bytes == 0 ? GPA_MEMORY_NONE : GPA_MEMORY_BYTES;
    g->memory_bytes = g->memory_kind == GPA_MEMORY_BYTES ? bytes : 0;
    return 0;
}

/* ---- HAMi: per container, `count` vGPUs on different cards (docs/allocator.md#hami-placement) ---- */

/* The Pod's card selection as HAMi's scheduler reads it (arena-owned; the strings borrowed from the Pod spec). */
static const gpa_hami_select_t *hami_select(gpa_arena_t *a, const gpa_podspec_t *pod, const gpa_hami_view_t *hv)
{
    gpa_hami_select_t *sel = gpa_arena_calloc(a, 1, sizeof(*sel));
    const char **to[] = {&sel->use_type, &sel->nouse_type, &sel->use_uuid, &sel->nouse_uuid, &sel->mode};
    static const gpa_hami_annotation_t from[] = {GPA_HAMI_USE_TYPE, GPA_HAMI_NOUSE_TYPE, GPA_HAMI_USE_UUID, GPA_HAMI_NOUSE_UUID,
                                                 GPA_HAMI_MODE};
    size_t bytes = 0;
    for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
        *to[i] = gpa_pairs_get(pod->annotations, pod->nannotations, gpa_hami_annotation(hv->vendor, from[i]));
        bytes += *to[i] != NULL ? strlen(*to[i]) : 0;
    }
    sel->list_steps = bytes / 64;
    sel->policy = gpa_pairs_get(pod->annotations, pod->nannotations, GPA_ANNOTATION_HAMI_GPU_POLICY);
    sel->split_count = hv->device->device_split_count;
    return sel;
}

/* A count-only container's card selection when HAMi counts with the vendor's name: the Pod's lists, else NULL. */
static const gpa_hami_select_t *count_only_select(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod,
                                                  const gpa_container_t *c)
{
    const gpa_hami_names_t *names = c->hami != NULL ? c->hami : &gpa_hami_names_default;
    if ((dialects & GPA_DIALECT_HAMI) == 0 || gpa_hami_token(names, GPA_HAMI_NVIDIA, GPA_HAMI_COUNT) != GPA_R_NVIDIA_GPU)
        return NULL;
    gpa_hami_view_t hv = {.c = c, .vendor = GPA_HAMI_NVIDIA, .device = &names->device[GPA_HAMI_NVIDIA]};
    const gpa_hami_select_t *sel = hami_select(a, pod, &hv);
    int any =
        sel->use_type != NULL || sel->nouse_type != NULL || sel->use_uuid != NULL || sel->nouse_uuid != NULL || sel->mode != NULL;
    return any ? sel : NULL;
}

/* One HAMi container's group; 0 with no group when it asks for no vGPU (a count of 0: HAMi books nothing), -1 when
 * a rule denies what it asks (a memory HAMi cannot hold, a percentage above 100). */
static int hami_group(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, const gpa_container_t *c, groups_t *v)
{
    gpa_hami_view_t hv;
    int64_t bytes = 0;
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_HAMI) || gpa_hami_view_container(dialects, c, &hv) != 0 || hv.memory_overflow)
        return -1;
    if ((hv.memory == GPA_HAMI_MEM_MIB || hv.memory == GPA_HAMI_MEM_DEFAULT) &&
        (hv.memory_mib < 0 || gpa_mul_i64(hv.memory_mib, GPA_MIB, &bytes) != 0))
        return -1;
    if (hv.memory == GPA_HAMI_MEM_PERCENT && hv.percent > 100)
        return -1; /* per-device-over-100 */
    if (hv.count <= 0)
        return 0;
    gpa_device_group_t *g = push_group(a, v, c, GPA_DIALECT_HAMI, hv.count);
    g->core = hv.cores < 0 ? 0 : hv.cores > 100 ? 100 : hv.cores; /* HAMi's Fit clamps above 100 */
    switch (hv.memory) {
    case GPA_HAMI_MEM_MIB:
    case GPA_HAMI_MEM_DEFAULT:
        g->memory_kind = GPA_MEMORY_BYTES;
        g->memory_bytes = bytes;
        break;
    case GPA_HAMI_MEM_PERCENT:
        g->memory_kind = GPA_MEMORY_PERCENT_MIB;
        g->memory_ratio = hv.percent;
        break;
    case GPA_HAMI_MEM_WHOLE:
        g->memory_kind = GPA_MEMORY_CARD;
        break;
    }
    g->hami = hami_select(a, pod, &hv);
    return 0;
}

static int container_groups(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, const gpa_cards_t *cards,
                            const gpa_container_t *c, groups_t *v)
{
    if (gpa_hami_vendor(dialects, c) >= 0)
        return hami_group(a, dialects, pod, c, v);
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_VENDOR) || vendor_groups(a, dialects, pod, c, v) != 0)
        return -1;
    if (gpa_gpu_is_mgpu(dialects, c) && mgpu_group(a, dialects, cards, c, v) != 0)
        return -1;
    return 0;
}

/* The dialects declared anywhere in the Pod (GPA_DIALECT_* bits); a HAMi container's count is HAMi's, not the
 * vendor's (one resource: HAMi beside plain nvidia.com/gpu containers is no mix). */
static unsigned pod_dialects(unsigned dialects, const gpa_podspec_t *pod)
{
    unsigned d = 0;
    for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
        unsigned cd = 0;
        for (unsigned bit = GPA_DIALECT_VENDOR; bit <= GPA_DIALECT_MGPU; bit <<= 1)
            if (gpa_gpu_any(dialects, c, (gpa_dialect_t)bit))
                cd |= bit;
        if (gpa_gpu_is_mgpu(dialects, c))
            cd |= GPA_DIALECT_MGPU;
        if (gpa_hami_vendor(dialects, c) >= 0)
            cd = (cd & ~(unsigned)GPA_DIALECT_VENDOR) | GPA_DIALECT_HAMI;
        d |= cd;
    }
    return d;
}

int gpa_normalize(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_request_t *out)
{
    memset(out, 0, sizeof(*out));
    unsigned d = pod_dialects(dialects, pod);
    /* vendor-vs-share and mixed-share-apis: one Pod, one way of asking. */
    if ((d & GPA_DIALECT_VENDOR) != 0 && (d & ~(unsigned)(GPA_DIALECT_VENDOR | GPA_DIALECT_HAMI)) != 0)
        return -1;
    if ((d & GPA_DIALECT_KOORDINATOR) != 0 && (d & GPA_DIALECT_MGPU) != 0)
        return -1;
    if ((d & GPA_DIALECT_HAMI) != 0 && (d & (GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU)) != 0)
        return -1; /* mixed-share-apis */
    gpa_cards_t cards;
    gpa_cards_parse(a, dialects, pod, &cards);
    if (cards.text != NULL && !cards.usable)
        return -1; /* card-count-mismatch or invalid-card-count */
    groups_t v = {0};
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (container_groups(a, dialects, pod, &cards, &pod->containers[i], &v) != 0)
            return -1;
    if (koord_pod_group(a, dialects, pod, &v) != 0)
        return -1;
    size_t napp = v.vec.len;
    for (size_t i = 0; i < pod->ninit_containers; i++)
        if (container_groups(a, dialects, pod, &cards, &pod->init_containers[i], &v) != 0)
            return -1;
    out->groups = v.vec.items;
    out->ngroups = v.vec.len;
    out->napp_groups = napp;
    out->too_many_container = v.too_many_container;
    out->too_many = v.too_many;
    if (v.too_many_container != NULL)
        out->too_many_asks = gpa_normalize_asks(a, &v.vec.items[v.too_many_group]);
    return v.too_many_container != NULL ? GPA_NORMALIZE_TOO_MANY : 0;
}
