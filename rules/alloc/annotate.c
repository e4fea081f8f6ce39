/*
 * What the scheduler would write for a placement (annotate.h): the annotation formats are docs/allocator.md's.
 */
#include "alloc/annotate.h"
#include "inventory/inventory_hami.h"
#include "base/buf.h"
#include "kube/gpu_request.h"
#include "kube/quantity.h"
#include "kube/resource.h"

#include <float.h>
#include <inttypes.h>
#include <stdlib.h>

typedef GPA_VEC(gpa_pair_t) pair_vec_t;

#define ANNOTATION_MGPU_ASSUMED "vke.volcengine.com/assumed"

static void annotate_mgpu(gpa_arena_t *a, const gpa_placement_t *p, pair_vec_t *out)
{
    for (size_t i = 0; i < p->nshares; i++) {
        const gpa_container_t *c = p->shares[i].container;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= p->shares[j].container == c;
        if (seen || c == NULL)
            continue;
        gpa_buf_t b = GPA_BUF_INIT;
        for (size_t j = i; j < p->nshares; j++)
            if (p->shares[j].container == c)
                gpa_buf_printf(&b, "%s%d", b.len > 0 ? "," : "", (int)p->shares[j].minor);
        gpa_pair_t *pair = gpa_vec_push(a, out);
        pair->key = gpa_arena_printf(a, "%s%s", GPA_ANNOTATION_GPU_INDEX_PREFIX, c->name);
        pair->value = gpa_arena_strdup(a, b.base != NULL ? b.base : "");
        gpa_buf_dispose(&b);
    }
    if (out->len > 0) { /* Volcano's mGPU plugin marks the Pod it placed */
        gpa_pair_t *pair = gpa_vec_push(a, out);
        pair->key = ANNOTATION_MGPU_ASSUMED;
        pair->value = "true";
    }
}

/* What one device's entry of device-allocated carries: this Pod's shares on it, as koord-scheduler reckons them. */
typedef struct st_minor_sum_t {
    int32_t minor;
    int64_t score; /* the device's score with this Pod on it: the scheduler lists the best first */
    int64_t total; /* the device's memory, bytes (0: unknown) */
    int has_core;  /* a share asked for compute (the scheduler writes gpu-core only then) */
    int64_t core;  /* percent, as asked */
    int64_t ratio; /* percent of the device's memory, from shares asked as a ratio (or whole devices) */
    int64_t bytes; /* bytes, from shares asked in bytes */
    int has_ratio, has_bytes;
} minor_sum_t;

/* koord-scheduler's order: the best-scored device first, ties to the lower minor. */
static int cmp_minor_sum(const void *x, const void *y)
{
    const minor_sum_t *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

int64_t gpa_annotate_ratio_bytes(int64_t ratio, int64_t total)
{
    if (ratio <= 0 || total <= 0)
        return 0;
    /* floor(ratio × total / 100), exact without the product: total = 100q + r */
    int64_t q = total / 100, r = total % 100, whole, part;
    if (gpa_mul_i64(ratio, q, &whole) != 0 || gpa_mul_i64(ratio, r, &part) != 0)
        return INT64_MAX;
    return gpa_sat_add_i64(whole, part / 100);
}

/*
 * koord-scheduler computes this in float64 and truncates, and so must the annotation to read as it writes: the
 * quotient and the product each rounded to the nearest double, as Go rounds them (no fused operation: there is no
 * addition). Output formatting only: no decision reads it (docs/decisions.md).
 */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gpa_annotate_bytes_ratio needs double arithmetic evaluated in double precision (FLT_EVAL_METHOD 0), as Go's float64"
#endif
int64_t gpa_annotate_bytes_ratio(int64_t bytes, int64_t total)
{
    if (total <= 0)
        return 0;
    double quotient = (double)bytes / (double)total;
    double percent = quotient * 100.0;
    if (!(percent > -9.2e18 && percent < 9.2e18))
        return percent > 0 ? INT64_MAX : 0; /* never for a share that fits its device (at most 100) */
    return (int64_t)percent;
}

/* The entry of `minor` in sums[0..*n), added when new. */
static minor_sum_t *sum_of(minor_sum_t *sums, size_t *n, int32_t minor, const gpa_node_t *node)
{
    for (size_t j = 0; j < *n; j++)
        if (sums[j].minor == minor)
            return &sums[j];
    minor_sum_t *m = &sums[(*n)++];
    *m = (minor_sum_t){.minor = minor};
    for (size_t d = 0; d < node->ngpus; d++)
        if (node->gpus[d].minor == minor)
            m->total = node->gpus[d].memory;
    return m;
}

/* One share as koord-scheduler's per-device request: a whole device (vendor, or 100/100) is core 100 and ratio
 * 100; else the group's core (written only when asked) and its ratio or bytes. */
static void add_share(minor_sum_t *m, const gpa_device_group_t *g)
{
    if (g->whole || g->memory_kind == GPA_MEMORY_RATIO) {
        m->ratio = gpa_sat_add_i64(m->ratio, g->whole ? 100 : g->memory_ratio);
        m->has_ratio = 1;
    } else if (g->memory_kind == GPA_MEMORY_BYTES) {
        /* koord-scheduler's total / count, truncated (a group built by hand has no total: its per-device bytes) */
        int by_total = g->memory_total > 0 && g->count > 0;
        m->bytes = gpa_sat_add_i64(m->bytes, by_total ? g->memory_total / (int64_t)g->count : g->memory_bytes);
        m->has_bytes = 1;
    }
    if (g->whole || g->core > 0) {
        m->core = gpa_sat_add_i64(m->core, g->whole ? 100 : g->core);
        m->has_core = 1;
    }
}

/* One entry: {"minor":N,"resources":{...}}, the resources in the order Go writes a map (sorted keys). */
static void put_entry(gpa_buf_t *b, const minor_sum_t *m)
{
    char core[32], mem[32], ratio[32];
    /* the form asked for is written as asked; the other is converted as fillGPUTotalMem does */
    int64_t bytes = m->has_bytes ? m->bytes : 0, percent = m->has_ratio ? m->ratio : 0;
    if (m->has_ratio)
        bytes = gpa_sat_add_i64(bytes, gpa_annotate_ratio_bytes(m->ratio, m->total));
    if (m->has_bytes)
        percent = gpa_sat_add_i64(percent, gpa_annotate_bytes_ratio(m->bytes, m->total));
    gpa_quantity_format(m->core, 0, core);
    /* bytes, asked or converted, are a new binary-SI quantity in the scheduler: "40G" is written "39062500Ki" */
    gpa_quantity_format(bytes, 1, mem);
    gpa_quantity_format(percent, 0, ratio);
    gpa_buf_printf(b, "{\"minor\":%d,\"resources\":{", (int)m->minor);
    if (m->has_core)
        gpa_buf_printf(b, "\"%s\":\"%s\",", gpa_resource_name(GPA_R_GPU_CORE), core);
    gpa_buf_printf(b, "\"%s\":\"%s\",\"%s\":\"%s\"}}", gpa_resource_name(GPA_R_GPU_MEMORY), mem,
                   gpa_resource_name(GPA_R_GPU_MEMORY_RATIO), ratio);
}

/* Koordinator's device-allocated: one entry per device, the Pod's shares on it summed, in the scheduler's order. */
static const char *device_allocated(gpa_arena_t *a, const gpa_request_t *req, const gpa_placement_t *p, const gpa_node_t *node)
{
    minor_sum_t *sums = gpa_arena_calloc(a, p->nshares + 1, sizeof(*sums));
    size_t n = 0;
    for (size_t i = 0; i < p->nshares; i++) {
        minor_sum_t *m = sum_of(sums, &n, p->shares[i].minor, node);
        add_share(m, &req->groups[p->shares[i].group]);
        m->score = p->shares[i].score; /* shares come in search order: the last one's has all this Pod's on it */
    }
    qsort(sums, n, sizeof(*sums), cmp_minor_sum);
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"gpu\":[");
    for (size_t j = 0; j < n; j++) {
        if (j > 0)
            gpa_buf_puts(&b, ",");
        put_entry(&b, &sums[j]);
    }
    gpa_buf_puts(&b, "]}");
    const char *s = gpa_arena_strdup(a, b.base);
    gpa_buf_dispose(&b);
    return s;
}

/* ---- HAMi: the allocation its scheduler's Filter writes ---- */

/* The device type HAMi's NVIDIA row writes in an allocation (another HAMi vendor: its own). */
#define HAMI_NVIDIA_TYPE "NVIDIA"

/* Container c's cards: `UUID,NVIDIA,<MiB>,<cores>:` for each of its shares in shares[0..n), in device order. */
static void hami_container(gpa_buf_t *b, const gpa_container_t *c, const gpa_request_t *req, const gpa_share_t *shares, size_t n,
                           const gpa_node_t *node)
{
    for (size_t i = 0; i < n; i++) {
        if (req->groups[shares[i].group].container != c)
            continue;
        const char *uuid = "";
        for (size_t d = 0; d < node->ngpus; d++)
            if (node->gpus[d].minor == shares[i].minor)
                uuid = node->gpus[d].uuid;
        gpa_buf_printf(b, "%s,%s,%" PRId64 ",%" PRId64 ":", uuid, HAMI_NVIDIA_TYPE, shares[i].memory_bytes / GPA_MIB,
                       shares[i].core);
    }
}

static void annotate_hami(gpa_arena_t *a, const gpa_podspec_t *pod, const gpa_request_t *req, const gpa_node_t *node,
                          const gpa_share_t *init, size_t ninit, const gpa_placement_t *p, pair_vec_t *out)
{
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < pod->ninit_containers; i++) {
        hami_container(&b, &pod->init_containers[i], req, init, ninit, node);
        gpa_buf_puts(&b, ";");
    }
    for (size_t i = 0; i < pod->ncontainers; i++) {
        hami_container(&b, &pod->containers[i], req, p->shares, p->nshares, node);
        gpa_buf_puts(&b, ";");
    }
    const char *allocation = gpa_arena_strdup(a, b.base != NULL ? b.base : "");
    gpa_buf_dispose(&b);
    const char *keys[] = {GPA_HAMI_ANNOTATION_NODE, GPA_HAMI_ANNOTATION_TO_ALLOCATE, GPA_HAMI_ANNOTATION_ALLOCATED};
    const char *values[] = {node->name, allocation, allocation};
    for (size_t i = 0; i < 3; i++) {
        gpa_pair_t *pair = gpa_vec_push(a, out);
        pair->key = keys[i];
        pair->value = values[i];
    }
}

void gpa_annotate_placement(gpa_arena_t *a, const gpa_podspec_t *pod, const gpa_request_t *req, const gpa_node_t *node,
                            const gpa_share_t *init, size_t ninit, gpa_placement_t *out)
{
    pair_vec_t pairs = {0};
    unsigned d = 0;
    for (size_t k = 0; k < req->ngroups; k++)
        d |= (unsigned)req->groups[k].dialect;
    if (out->nshares == 0 && ninit == 0)
        return;
    /* whole cards on a node HAMi registered (and Koordinator does not schedule): hami-scheduler places count-only
     * containers too */
    int hami_cards = (node->dialects & GPA_DIALECT_HAMI) && !node->koordinator && node->ngpus > 0 && node->gpus[0].uuid[0] != '\0';
    if ((d & GPA_DIALECT_HAMI) || (hami_cards && d == GPA_DIALECT_VENDOR))
        annotate_hami(a, pod, req, node, init, ninit, out, &pairs);
    else if (out->nshares == 0)
        return;
    else if (d & GPA_DIALECT_MGPU)
        annotate_mgpu(a, out, &pairs);
    else if ((d & GPA_DIALECT_KOORDINATOR) || node->koordinator) {
        gpa_pair_t *p = gpa_vec_push(a, &pairs);
        p->key = GPA_ANNOTATION_DEVICE_ALLOCATED;
        p->value = device_allocated(a, req, out, node);
    }
    out->annotations = pairs.items;
    out->nannotations = pairs.len;
}
