/*
 * What the allocator says besides "here": why a node is out (one first reason per node, ranked by how close
 * the node came, so the infeasible rule can quote the closest), and the annotations a scheduler would write
 * for a placement. Messages name devices by minor and amounts as people read them ("12Gi").
 */
#include "alloc/search.h"
#include "kube/quantity.h"
#include "kube/resource.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    RANK_LABELS = 0,   /* the Pod may not go there at all */
    RANK_DIALECT = 1,  /* its GPUs serve other dialects */
    RANK_INVALID = 1,  /* the request is not placeable anywhere */
    RANK_TOO_FEW = 2,  /* not enough healthy devices */
    RANK_CAPACITY = 3, /* a container's share does not fit any device */
    RANK_TOGETHER = 4, /* each fits alone, not all together */
};

static void set_reason(gpa_node_reason_t *r, int rank, const char *reason)
{
    r->rank_ = rank;
    r->near_ = 0;
    r->reason = reason;
}

/* `have` of `need` in 1/10000, capped at 10000 (all of it); no floating point, no overflow. */
static int64_t part_of(int64_t have, int64_t need)
{
    int64_t p;
    if (need <= 0 || have >= need)
        return 10000;
    if (have <= 0)
        return 0;
    if (__builtin_mul_overflow(have, 10000, &p))
        return have / (need / 10000); /* need > have > 9.2e14: need / 10000 > 0 */
    return p / need;
}

/* ---- labels ---- */

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

static int requirement_matches(const gpa_node_t *node, const gpa_node_requirement_t *q)
{
    const char *v = gpa_node_label(node, q->key);
    int64_t have, want;
    switch (q->op) {
    case GPA_MATCH_EXISTS:
        return v != NULL;
    case GPA_MATCH_DOES_NOT_EXIST:
        return v == NULL;
    case GPA_MATCH_GT:
    case GPA_MATCH_LT:
        if (q->nvalues != 1 || parse_i64(v, &have) != 0 || parse_i64(q->values[0], &want) != 0)
            return 0;
        return q->op == GPA_MATCH_GT ? have > want : have < want;
    case GPA_MATCH_IN:
    case GPA_MATCH_NOT_IN:
        for (size_t i = 0; v != NULL && i < q->nvalues; i++)
            if (strcmp(q->values[i], v) == 0)
                return q->op == GPA_MATCH_IN;
        return q->op == GPA_MATCH_NOT_IN;
    }
    return 0;
}

static const char *op_name(gpa_match_op_t op)
{
    static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    return names[op];
}

/* A term with no requirement matches no node (Kubernetes' rule for an empty nodeSelectorTerm). */
static const gpa_node_requirement_t *term_failure(const gpa_node_t *node, const gpa_node_term_t *t, int *matches)
{
    *matches = t->len > 0;
    for (size_t i = 0; i < t->len; i++)
        if (!requirement_matches(node, &t->requirements[i])) {
            *matches = 0;
            return &t->requirements[i];
        }
    return NULL;
}

static const char *labels_reason(gpa_arena_t *a, const gpa_podspec_t *pod, const gpa_node_t *node)
{
    for (size_t i = 0; i < pod->nnode_selector; i++) {
        const char *v = gpa_node_label(node, pod->node_selector[i].key);
        if (v == NULL || strcmp(v, pod->node_selector[i].value) != 0)
            return gpa_arena_printf(a, "nodeSelector %s=%s: the node's label is %s", pod->node_selector[i].key,
                                    pod->node_selector[i].value, v != NULL ? v : "absent");
    }
    const gpa_node_requirement_t *first = NULL;
    for (size_t t = 0; t < pod->nnode_terms; t++) {
        int ok;
        const gpa_node_requirement_t *q = term_failure(node, &pod->node_terms[t], &ok);
        if (ok)
            return NULL;
        if (first == NULL)
            first = q;
    }
    if (pod->nnode_terms == 0)
        return NULL;
    if (first == NULL)
        return "required node affinity: an empty term matches no node";
    const char *v = gpa_node_label(node, first->key);
    return gpa_arena_printf(a, "required node affinity: %s %s%s%s fails (the node's label is %s)", first->key, op_name(first->op),
                            first->nvalues > 0 ? " " : "", first->nvalues > 0 ? first->values[0] : "", v != NULL ? v : "absent");
}

/* ---- prechecks ---- */

static const char *dialect_list(gpa_arena_t *a, unsigned d)
{
    return gpa_arena_printf(
        a, "%s%s%s%s%s", d & GPA_DIALECT_VENDOR ? "vendor" : "",
        (d & GPA_DIALECT_VENDOR) && (d & ~GPA_DIALECT_VENDOR & 7) ? ", " : "", d & GPA_DIALECT_KOORDINATOR ? "koordinator" : "",
        (d & GPA_DIALECT_KOORDINATOR) && (d & GPA_DIALECT_MGPU) ? ", " : "", d & GPA_DIALECT_MGPU ? "mgpu" : "");
}

static const char *container_prefix(gpa_arena_t *a, const gpa_request_t *req, const gpa_device_group_t *g)
{
    int several = 0;
    for (size_t k = 0; k < req->ngroups; k++)
        several |= req->groups[k].container != g->container;
    if (!several || g->container == NULL)
        return "";
    return gpa_arena_printf(a, "%scontainer %s: ", g->container->is_init ? "init " : "", g->container->name);
}

static const char *invalid_group(gpa_arena_t *a, const gpa_device_group_t *g)
{
    if (g->core < 0 || g->core > 100)
        return gpa_arena_printf(a, "a per-device compute share of %" PRId64 "%% does not fit one device", g->core);
    if (g->memory_kind == GPA_MEMORY_RATIO && (g->memory_ratio < 0 || g->memory_ratio > 100))
        return gpa_arena_printf(a, "a per-device memory ratio of %" PRId64 "%% does not fit one device", g->memory_ratio);
    if (g->memory_kind == GPA_MEMORY_BYTES && g->memory_bytes < 0)
        return "a negative memory request";
    return NULL;
}

int gpa_fit_precheck(gpa_arena_t *a, const gpa_fit_search_t *s, const gpa_alloc_policy_t *pol, const gpa_podspec_t *pod,
                     const gpa_node_t *node, gpa_node_reason_t *r)
{
    (void)pol;
    const gpa_request_t *req = s->req;
    const char *why = labels_reason(a, pod, node);
    if (why != NULL)
        return set_reason(r, RANK_LABELS, why), -1;
    unsigned want = gpa_fit_request_dialects(req);
    if ((want & node->dialects) != want)
        return set_reason(r, RANK_DIALECT,
                          gpa_arena_printf(a, "its GPUs serve %s Pods, not %s", dialect_list(a, node->dialects),
                                           dialect_list(a, want & ~node->dialects))),
               -1;
    size_t healthy = 0;
    for (size_t i = 0; i < node->ngpus; i++)
        healthy += node->gpus[i].healthy != 0;
    for (size_t k = 0; k < req->ngroups; k++) {
        const gpa_device_group_t *g = &req->groups[k];
        if ((why = invalid_group(a, g)) != NULL)
            return set_reason(r, RANK_INVALID, gpa_arena_printf(a, "%s%s", container_prefix(a, req, g), why)), -1;
        if (g->count > healthy) {
            set_reason(r, RANK_TOO_FEW,
                       gpa_arena_printf(a, "%sneeds %u distinct devices, the node has %zu healthy of %zu",
                                        container_prefix(a, req, g), g->count, healthy, node->ngpus));
            r->near_ = part_of((int64_t)healthy, (int64_t)g->count);
            return -1;
        }
    }
    return 0;
}

/* ---- explanations ---- */

/* The first check device d fails for group g (d does fail it). */
static const char *device_failure(gpa_arena_t *a, const gpa_fit_search_t *s, const gpa_fit_dev_t *d, const gpa_device_group_t *g)
{
    const gpa_gpu_t *gpu = d->gpu;
    char free_[32], need[32];
    int minor = (int)gpu->minor;
    if (!gpu->healthy)
        return gpa_arena_printf(a, "device %d is unhealthy", minor);
    if (d->whole_used)
        return gpa_arena_printf(a, "device %d is held whole by another Pod", minor);
    if (g->whole)
        return gpa_arena_printf(a, "device %d is shared by %" PRId64 " Pod(s), a whole device is needed", minor, d->pods);
    int64_t mem = gpa_fit_share_memory(g, gpu);
    if (mem < 0 || (mem > 0 && gpu->memory <= 0))
        return gpa_arena_printf(a, "device %d's memory size is unknown", minor);
    if (d->pods >= s->max_pods)
        return gpa_arena_printf(a, "device %d holds %" PRId64 " Pods (maxPodsPerDevice %" PRId64 ")", minor, d->pods, s->max_pods);
    if (mem > d->mem_free) {
        gpa_bytes_format(d->mem_free > 0 ? d->mem_free : 0, 0, free_);
        gpa_bytes_format(mem, 1, need);
        return gpa_arena_printf(a, "device %d has %s free, needs %s", minor, free_, need);
    }
    return gpa_arena_printf(a, "device %d has %" PRId64 "%% compute free, needs %" PRId64 "%%", minor, d->core_free, g->core);
}

/*
 * How much of share g device d (which fails it) could hold, in 1/10000: the smaller of its free memory and
 * free compute over what the share needs there; 0 when no share can go there (unhealthy, held whole, memory
 * size unknown, maxPodsPerDevice reached). A whole-device share needs the whole device.
 */
static int64_t coverage(const gpa_fit_search_t *s, const gpa_fit_dev_t *d, const gpa_device_group_t *g)
{
    const gpa_gpu_t *gpu = d->gpu;
    if (!gpu->healthy || d->whole_used)
        return 0;
    if (g->whole) {
        int64_t m = part_of(d->mem_free, gpu->memory), c = part_of(d->core_free, gpu->core);
        return m < c ? m : c;
    }
    int64_t mem = gpa_fit_share_memory(g, gpu);
    if (mem < 0 || (mem > 0 && gpu->memory <= 0) || (!d->touched && d->pods >= s->max_pods))
        return 0;
    int64_t m = part_of(d->mem_free, mem), c = part_of(d->core_free, g->core);
    return m < c ? m : c;
}

/* Healthy before unhealthy, free before held whole, then more free memory, then more free compute. */
static int closer(const gpa_fit_dev_t *d, const gpa_fit_dev_t *best)
{
    if (d->gpu->healthy != best->gpu->healthy)
        return d->gpu->healthy;
    if (d->whole_used != best->whole_used)
        return !d->whole_used;
    if (d->mem_free != best->mem_free)
        return d->mem_free > best->mem_free;
    return d->core_free > best->core_free;
}

/* Devices that fail: the one that could hold most of the share (coverage), then healthy, not held whole, most
 * free memory, most free compute, then the lowest minor. *cover gets its coverage. */
static const gpa_fit_dev_t *closest_device(const gpa_fit_search_t *s, const gpa_device_group_t *g, size_t *nfit, int64_t *cover)
{
    const gpa_fit_dev_t *best = NULL;
    *nfit = 0;
    *cover = 0;
    for (size_t i = 0; i < s->ndev; i++) {
        const gpa_fit_dev_t *d = &s->dev[i];
        int64_t core, mem;
        if (gpa_fit_check(s, d, g, &core, &mem)) {
            (*nfit)++;
            continue;
        }
        int64_t c = coverage(s, d, g);
        if (best == NULL || c > *cover || (c == *cover && closer(d, best)))
            best = d, *cover = c;
    }
    return best;
}

/* Why group k cannot take its devices on the node alone; NULL when it can. *near: how near it came (the part
 * of its devices with room, then the closest device's coverage). */
static const char *group_failure(gpa_arena_t *a, gpa_fit_search_t *s, size_t k, int64_t *near)
{
    const gpa_device_group_t *g = &s->req->groups[k];
    size_t nfit;
    int64_t cover;
    const gpa_fit_dev_t *d = closest_device(s, g, &nfit, &cover);
    if (nfit >= g->count || d == NULL)
        return NULL;
    *near = part_of((int64_t)nfit, (int64_t)g->count) * 10001 + cover;
    const char *dev = device_failure(a, s, d, g);
    if (g->count == 1)
        return gpa_arena_printf(a, "%s%s", container_prefix(a, s->req, g), dev);
    return gpa_arena_printf(a, "%sneeds %u devices with room, %zu have room (%s)", container_prefix(a, s->req, g), g->count, nfit,
                            dev);
}

void gpa_fit_explain_group(gpa_arena_t *a, gpa_fit_search_t *s, const gpa_node_t *node, size_t k, gpa_node_reason_t *r)
{
    s->ndev = node->ngpus;
    gpa_fit_state_init(s->dev, node, s->now);
    int64_t near = 0;
    const char *why = group_failure(a, s, k, &near);
    if (why != NULL) {
        set_reason(r, RANK_CAPACITY, why);
        r->near_ = near;
        return;
    }
    set_reason(
        r, RANK_TOGETHER,
        gpa_arena_printf(a, "%sits shares do not fit on the devices together", container_prefix(a, s->req, &s->req->groups[k])));
}

void gpa_fit_explain_app(gpa_arena_t *a, gpa_fit_search_t *s, const gpa_node_t *node, gpa_node_reason_t *r)
{
    s->ndev = node->ngpus;
    gpa_fit_state_init(s->dev, node, s->now);
    for (size_t k = 0; k < s->req->napp_groups; k++) {
        int64_t near = 0;
        const char *why = group_failure(a, s, k, &near);
        if (why != NULL) {
            set_reason(r, RANK_CAPACITY, why);
            r->near_ = near;
            return;
        }
    }
    set_reason(r, RANK_TOGETHER, "each container fits alone, but not all of them together on this node's devices");
}

/* ---- annotations ---- */

typedef GPA_VEC(gpa_pair_t) pair_vec_t;

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
}

typedef struct st_minor_sum_t {
    int32_t minor;
    int64_t core, mem, total;
} minor_sum_t;

static int cmp_minor_sum(const void *x, const void *y)
{
    const minor_sum_t *a = x, *b = y;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

/* Koordinator's device-allocated: one entry per device, the Pod's shares on it summed. */
static const char *device_allocated(gpa_arena_t *a, const gpa_placement_t *p, const gpa_node_t *node)
{
    minor_sum_t *sums = gpa_arena_calloc(a, p->nshares + 1, sizeof(*sums));
    size_t n = 0;
    for (size_t i = 0; i < p->nshares; i++) {
        size_t j = 0;
        while (j < n && sums[j].minor != p->shares[i].minor)
            j++;
        if (j == n) {
            sums[n++] = (minor_sum_t){.minor = p->shares[i].minor};
            for (size_t d = 0; d < node->ngpus; d++)
                if (node->gpus[d].minor == p->shares[i].minor)
                    sums[j].total = node->gpus[d].memory;
        }
        sums[j].core += p->shares[i].core;
        sums[j].mem = gpa_sat_add_i64(sums[j].mem, p->shares[i].memory_bytes);
    }
    qsort(sums, n, sizeof(*sums), cmp_minor_sum);
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"gpu\":[");
    for (size_t j = 0; j < n; j++) {
        char mem[32];
        int64_t ratio = sums[j].total > 0 ? gpa_mul_ceil_div_i64(sums[j].mem, 100, sums[j].total) : 100;
        gpa_quantity_format(sums[j].mem, 1, mem);
        gpa_buf_printf(&b,
                       "%s{\"minor\":%d,\"resources\":{\"koordinator.sh/gpu-core\":\"%" PRId64
                       "\",\"koordinator.sh/gpu-memory\":\"%s\",\"koordinator.sh/gpu-memory-ratio\":\"%" PRId64 "\"}}",
                       j > 0 ? "," : "", (int)sums[j].minor, sums[j].core, mem, ratio);
    }
    gpa_buf_puts(&b, "]}");
    const char *s = gpa_arena_strdup(a, b.base);
    gpa_buf_dispose(&b);
    return s;
}

void gpa_fit_annotate(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, gpa_placement_t *out)
{
    pair_vec_t pairs = {0};
    unsigned d = 0;
    for (size_t k = 0; k < req->napp_groups; k++)
        d |= (unsigned)req->groups[k].dialect;
    if (out->nshares == 0)
        return;
    if (d & GPA_DIALECT_MGPU)
        annotate_mgpu(a, out, &pairs);
    else if ((d & GPA_DIALECT_KOORDINATOR) || node->koordinator) {
        gpa_pair_t *p = gpa_vec_push(a, &pairs);
        p->key = GPA_ANNOTATION_DEVICE_ALLOCATED;
        p->value = device_allocated(a, out, node);
    }
    out->annotations = pairs.items;
    out->nannotations = pairs.len;
}
