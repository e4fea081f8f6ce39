/*
 * Why a node does not fit (explain.h): one first reason per node, ranked by how close the node came, so the
 * infeasible rule can quote the closest. Messages name devices by minor and amounts as people read them
 * ("12Gi").
 */
#include "alloc/explain.h"
#include "base/distance.h"
#include "kube/quantity.h"
#include "kube/resource.h"

#include <inttypes.h>
#include <stdio.h>
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

/* ---- nodes that cannot take the Pod at all ---- */

static const char *op_name(gpa_match_op_t op)
{
    static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    return names[op];
}

/* "vendor, mgpu": the dialects of d, in bit order. */
static const char *dialect_list(gpa_arena_t *a, unsigned d)
{
    const char *list = "";
    for (unsigned bit = 1; bit <= GPA_DIALECT_ALL; bit <<= 1)
        if (d & bit)
            list = gpa_arena_printf(a, "%s%s%s", list, list[0] != '\0' ? ", " : "", gpa_dialect_name(bit));
    return list;
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

/* What one device of g gets: "50%" (compute and memory alike), "30% compute and 50% memory", "10Gi and 30% compute". */
static const char *share_text(gpa_arena_t *a, const gpa_device_group_t *g)
{
    char bytes[32];
    if (g->memory_kind == GPA_MEMORY_BYTES) {
        gpa_bytes_format(g->memory_bytes, 1, bytes);
        return g->core > 0 ? gpa_arena_printf(a, "%s and %" PRId64 "%% compute", bytes, g->core) : gpa_arena_strdup(a, bytes);
    }
    if (g->memory_kind != GPA_MEMORY_RATIO || g->core == g->memory_ratio)
        return gpa_arena_printf(a, "%" PRId64 "%%", g->core);
    if (g->core == 0)
        return gpa_arena_printf(a, "%" PRId64 "%% memory", g->memory_ratio);
    return gpa_arena_printf(a, "%" PRId64 "%% compute and %" PRId64 "%% memory", g->core, g->memory_ratio);
}

/* A group several containers make (a Koordinator Pod's): the Pod's total is what is placed, and the message says so:
 * "the Pod's 2 containers ask for 2 devices of 50% each". NULL for a container's own group. */
static const char *pod_asks(gpa_arena_t *a, const gpa_device_group_t *g)
{
    if (g->ncontainers < 2)
        return NULL;
    return gpa_arena_printf(a, "%s for %u device%s of %s%s", gpa_normalize_asks(a, g), g->count, g->count == 1 ? "" : "s",
                            share_text(a, g), g->count == 1 ? "" : " each");
}

/* The prefix of a reason about group g: the Pod's ask ("...: "), or the container's ("container c: ", or none). */
static const char *group_prefix(gpa_arena_t *a, const gpa_request_t *req, const gpa_device_group_t *g)
{
    const char *pod = pod_asks(a, g);
    return pod != NULL ? gpa_arena_printf(a, "%s: ", pod) : container_prefix(a, req, g);
}

static const char *labels_text(gpa_arena_t *a, const gpa_node_t *node, const gpa_nodes_refusal_t *why)
{
    if (why->stage == GPA_NODES_SELECTOR) {
        const char *v = gpa_node_label(node, why->selector->key);
        return gpa_arena_printf(a, "nodeSelector %s=%s: the node's label is %s", why->selector->key, why->selector->value,
                                v != NULL ? v : "absent");
    }
    const gpa_node_requirement_t *q = why->requirement;
    if (q == NULL)
        return "required node affinity: an empty term matches no node";
    const char *v = gpa_node_label(node, q->key);
    return gpa_arena_printf(a, "required node affinity: %s %s%s%s fails (the node's label is %s)", q->key, op_name(q->op),
                            q->nvalues > 0 ? " " : "", q->nvalues > 0 ? q->values[0] : "", v != NULL ? v : "absent");
}

/* Among nodes refused by their labels, how near the node's label value is to the one asked (a mistyped
 * nodeSelector value: "A100" for "a100" is nearest to a100, then to a40): equal without case first, then the
 * fewest edits. 0 for an absent label or an affinity operator that names no value. */
int64_t gpa_explain_labels_nearness(const gpa_node_t *node, const gpa_nodes_refusal_t *why)
{
    if (why->stage == GPA_NODES_SELECTOR)
        return gpa_text_nearness(why->selector->value, gpa_node_label(node, why->selector->key));
    const gpa_node_requirement_t *q = why->requirement;
    int64_t best = 0;
    for (size_t i = 0; q != NULL && q->op == GPA_MATCH_IN && i < q->nvalues; i++) {
        int64_t n = gpa_text_nearness(q->values[i], gpa_node_label(node, q->key));
        best = n > best ? n : best;
    }
    return best;
}

static const char *invalid_text(gpa_arena_t *a, const gpa_nodes_refusal_t *why)
{
    const gpa_device_group_t *g = why->group;
    if (why->stage == GPA_NODES_BAD_CORE)
        return gpa_arena_printf(a, "a per-device compute share of %" PRId64 "%% does not fit one device", g->core);
    if (why->stage == GPA_NODES_BAD_RATIO)
        return gpa_arena_printf(a, "a per-device memory ratio of %" PRId64 "%% does not fit one device", g->memory_ratio);
    return "a negative memory request";
}

static const char *too_few_text(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, const gpa_nodes_refusal_t *why)
{
    const gpa_device_group_t *g = why->group;
    const char *pod = pod_asks(a, g), *has = gpa_arena_printf(a, "the node has %zu healthy of %zu", why->healthy, node->ngpus);
    if (pod != NULL)
        return gpa_arena_printf(a, "%s%s, %s", pod, g->count > 1 ? ", each on a different device" : "", has);
    if (g->hami != NULL) /* HAMi: each vGPU of a container on a different card */
        return gpa_arena_printf(a, "%sasks for %u vGPUs, each on a different card, %s: ask for at most %zu",
                                container_prefix(a, req, g), g->count, has, why->healthy);
    if (g->count == 1)
        return gpa_arena_printf(a, "%sneeds 1 device, %s", container_prefix(a, req, g), has);
    return gpa_arena_printf(a, "%sneeds %u distinct devices, %s", container_prefix(a, req, g), g->count, has);
}

void gpa_explain_refusal(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, const gpa_nodes_refusal_t *why,
                         gpa_node_reason_t *r)
{
    switch (why->stage) {
    case GPA_NODES_OK:
        return;
    case GPA_NODES_SELECTOR:
    case GPA_NODES_AFFINITY:
        set_reason(r, RANK_LABELS, labels_text(a, node, why));
        r->near_ = gpa_explain_labels_nearness(node, why);
        return;
    case GPA_NODES_DIALECT:
        set_reason(
            r, RANK_DIALECT,
            gpa_arena_printf(a, "its GPUs serve %s Pods, not %s", dialect_list(a, node->dialects), dialect_list(a, why->missing)));
        return;
    case GPA_NODES_BAD_CORE:
    case GPA_NODES_BAD_RATIO:
    case GPA_NODES_BAD_MEMORY:
        set_reason(r, RANK_INVALID, gpa_arena_printf(a, "%s%s", group_prefix(a, req, why->group), invalid_text(a, why)));
        return;
    case GPA_NODES_TOO_FEW:
        set_reason(r, RANK_TOO_FEW, too_few_text(a, req, node, why));
        r->near_ = part_of((int64_t)why->healthy, (int64_t)why->group->count);
        return;
    }
}

/* ---- nodes whose devices cannot hold the shares ---- */

/* A value a tenant or a node wrote, as a message quotes it: whole up to GPA_EXPLAIN_QUOTE bytes, else its start and
 * how much more there is (a 250 KB UUID list is not copied into every node's reason). */
#define GPA_EXPLAIN_QUOTE 96
static const char *quoted(gpa_arena_t *a, const char *value)
{
    size_t len = strlen(value);
    if (len <= GPA_EXPLAIN_QUOTE)
        return value;
    size_t cut = GPA_EXPLAIN_QUOTE - 16;
    while (cut > 0 && ((unsigned char)value[cut] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
        cut--;
    return gpa_arena_printf(a, "%.*s... (%zu bytes)", (int)cut, value, len);
}

/* "nvidia.com/use-gputype \"A100\"": a card-selection annotation of the Pod and its value, as the message quotes it. */
static const char *selection(gpa_arena_t *a, gpa_hami_annotation_t which, const char *value)
{
    return gpa_arena_printf(a, "%s \"%s\"", gpa_hami_annotation(GPA_HAMI_NVIDIA, which), quoted(a, value));
}

/* Which of a pair of lists (use-, nouse-) refuses the card: the use- list unless the card passes it. */
static const char *list_failure(gpa_arena_t *a, int minor, const char *what, const char *card, const char *use,
                                gpa_hami_annotation_t use_which, const char *nouse, gpa_hami_annotation_t nouse_which)
{
    if (use != NULL && nouse != NULL) /* both given: the message names both; the fix is the card's own value */
        return gpa_arena_printf(a, "card %d's %s %s is not allowed by %s and %s", minor, what, card, selection(a, use_which, use),
                                selection(a, nouse_which, nouse));
    if (use != NULL)
        return gpa_arena_printf(a, "card %d's %s %s does not match %s", minor, what, card, selection(a, use_which, use));
    return gpa_arena_printf(a, "card %d's %s %s is excluded by %s", minor, what, card,
                            selection(a, nouse_which, nouse ? nouse : ""));
}

/* Which of the Pod's card-selection lists refuses the card (`why`: type, mode or UUID). */
static const char *selection_failure(gpa_arena_t *a, const gpa_gpu_t *gpu, const gpa_hami_select_t *sel, gpa_hami_check_t why)
{
    int minor = (int)gpu->minor;
    if (why == GPA_HAMI_CARD_TYPE)
        return list_failure(a, minor, "type", quoted(a, gpu->type), sel->use_type, GPA_HAMI_USE_TYPE, sel->nouse_type,
                            GPA_HAMI_NOUSE_TYPE);
    if (why == GPA_HAMI_CARD_MODE)
        return gpa_arena_printf(a, "card %d's mode %s is not in %s", minor, quoted(a, gpu->mode),
                                selection(a, GPA_HAMI_MODE, sel->mode));
    return list_failure(a, minor, "UUID", quoted(a, gpu->uuid), sel->use_uuid, GPA_HAMI_USE_UUID, sel->nouse_uuid,
                        GPA_HAMI_NOUSE_UUID);
}

/* The first of HAMi's checks card d fails for HAMi group g, in HAMi's words where it has them. */
static const char *hami_failure(gpa_arena_t *a, const gpa_search_dev_t *d, const gpa_device_group_t *g)
{
    const gpa_gpu_t *gpu = d->gpu;
    const gpa_hami_select_t *sel = g->hami;
    char free_[32], need[32];
    int64_t core, mem;
    int minor = (int)gpu->minor;
    gpa_hami_check_t why = gpa_search_hami_check(d, g, &core, &mem);
    switch (why) {
    case GPA_HAMI_CARD_FITS:
    case GPA_HAMI_CARD_UNHEALTHY:
        break;
    case GPA_HAMI_CARD_HELD:
        return gpa_arena_printf(a, "card %d is held whole by another Pod", minor);
    case GPA_HAMI_CARD_TYPE:
    case GPA_HAMI_CARD_MODE:
    case GPA_HAMI_CARD_UUID:
        return selection_failure(a, gpu, sel, why);
    case GPA_HAMI_CARD_SLOTS:
        return gpa_arena_printf(a, "card %d has all its %" PRId64 " vGPU slots taken", minor, gpa_search_hami_slots(d, g));
    case GPA_HAMI_CARD_MEMORY:
        if (gpu->memory <= 0) /* a card the inventory gives no memory (the compact form's without `memory`) */
            return gpa_arena_printf(a, "card %d's memory size is unknown", minor);
        gpa_bytes_format(mem, 1, need);
        if (mem > gpu->memory) {
            gpa_bytes_format(gpu->memory, 1, free_);
            return gpa_arena_printf(a, "card %d has %s in all, a vGPU asks for %s: ask for at most the card's memory", minor, free_,
                                    need);
        }
        gpa_bytes_format(d->mem_free > 0 ? d->mem_free : 0, 0, free_);
        return gpa_arena_printf(a, "card %d has %s free, a vGPU needs %s", minor, free_, need);
    case GPA_HAMI_CARD_CORES:
        return gpa_arena_printf(a, "card %d has %" PRId64 "%% compute free, a vGPU needs %" PRId64 "%%", minor, d->core_free, core);
    case GPA_HAMI_CARD_EXCLUSIVE:
        return gpa_arena_printf(a, "card %d holds other vGPUs, and gpucores 100 takes a card alone", minor);
    case GPA_HAMI_CARD_EXHAUSTED:
        return gpa_arena_printf(a, "card %d's compute is fully booked: it takes no vGPU, not even one asking 0 cores", minor);
    }
    return gpa_arena_printf(a, "card %d is unhealthy", minor);
}

/* The first check device d fails for group g (d does fail it). */
static const char *device_failure(gpa_arena_t *a, const gpa_search_t *s, const gpa_search_dev_t *d, const gpa_device_group_t *g)
{
    const gpa_gpu_t *gpu = d->gpu;
    char free_[32], need[32];
    int minor = (int)gpu->minor;
    if (g->hami != NULL)
        return hami_failure(a, d, g);
    if (!gpu->healthy)
        return gpa_arena_printf(a, "device %d is unhealthy", minor);
    if (d->whole_used)
        return gpa_arena_printf(a, "device %d is held whole by another Pod", minor);
    gpa_hami_check_t why;
    if (g->select != NULL && gpu->uuid[0] != '\0' && !gpa_search_hami_selected(g->select, gpu, &why))
        return selection_failure(a, gpu, g->select, why);
    if (g->whole && gpu->core < g->core)
        return gpa_arena_printf(a, "device %d has %" PRId64 "%% compute in all, a whole-device share needs %" PRId64 "%%", minor,
                                gpu->core, g->core);
    if (g->whole)
        return gpa_arena_printf(a, "device %d is shared by %" PRId64 " Pod(s), a whole device is needed", minor, d->pods);
    int64_t mem = gpa_search_share_memory(g, gpu);
    if (mem < 0 || (mem > 0 && gpu->memory <= 0))
        return gpa_arena_printf(a, "device %d's memory size is unknown", minor);
    if (d->pods >= s->max_pods)
        return gpa_arena_printf(a, "device %d holds %" PRId64 " %s (maxPodsPerDevice %" PRId64 ")", minor, d->pods,
                                g->dialect == GPA_DIALECT_MGPU ? "mGPU containers" : "Pods", s->max_pods);
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
static int64_t coverage(const gpa_search_t *s, const gpa_search_dev_t *d, const gpa_device_group_t *g)
{
    const gpa_gpu_t *gpu = d->gpu;
    if (!gpu->healthy || d->whole_used)
        return 0;
    if (g->hami != NULL) { /* only memory and compute fall short by a part; every other check refuses outright */
        int64_t core, mem;
        gpa_hami_check_t why = gpa_search_hami_check(d, g, &core, &mem);
        if ((why != GPA_HAMI_CARD_MEMORY && why != GPA_HAMI_CARD_CORES) || mem < 0 || (mem > 0 && gpu->memory <= 0))
            return 0;
        int64_t m = part_of(d->mem_free, mem), c = part_of(d->core_free, core);
        return m < c ? m : c;
    }
    if (g->whole) {
        int64_t m = part_of(d->mem_free, gpu->memory), c = part_of(d->core_free, gpu->core > g->core ? gpu->core : g->core);
        return m < c ? m : c;
    }
    int64_t mem = gpa_search_share_memory(g, gpu);
    if (mem < 0 || (mem > 0 && gpu->memory <= 0) || (gpa_search_counts_anew(d, g) && d->pods >= s->max_pods))
        return 0;
    int64_t m = part_of(d->mem_free, mem), c = part_of(d->core_free, g->core);
    return m < c ? m : c;
}

/* Healthy before unhealthy, free before held whole, then more free memory, then more free compute. */
static int closer(const gpa_search_dev_t *d, const gpa_search_dev_t *best)
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
static const gpa_search_dev_t *closest_device(const gpa_search_t *s, const gpa_device_group_t *g, size_t *nfit, int64_t *cover)
{
    const gpa_search_dev_t *best = NULL;
    *nfit = 0;
    *cover = 0;
    for (size_t i = 0; i < s->ndev; i++) {
        const gpa_search_dev_t *d = &s->dev[i];
        int64_t core, mem;
        if (gpa_alloc_budget_take(s->budget, gpa_search_fit_steps(g)) != 0)
            break; /* the request's budget is spent: the next node stops the search ("could not prove") */
        if (gpa_search_fits(s, d, g, &core, &mem)) {
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
static const char *group_failure(gpa_arena_t *a, gpa_search_t *s, size_t k, int64_t *near)
{
    const gpa_device_group_t *g = &s->req->groups[k];
    size_t nfit;
    int64_t cover;
    const gpa_search_dev_t *d = closest_device(s, g, &nfit, &cover);
    if (nfit >= g->count || d == NULL)
        return NULL;
    *near = part_of((int64_t)nfit, (int64_t)g->count) * 10001 + cover;
    const char *dev = device_failure(a, s, d, g), *pod = pod_asks(a, g), *have = nfit == 1 ? "has" : "have";
    if (g->count == 1)
        return gpa_arena_printf(a, "%s%s", group_prefix(a, s->req, g), dev);
    if (pod != NULL)
        return gpa_arena_printf(a, "%s, each on a different device: %zu %s room (%s)", pod, nfit, have, dev);
    return gpa_arena_printf(a, "%sneeds %u %s with room, %zu %s room (%s)", container_prefix(a, s->req, g), g->count,
                            g->hami != NULL ? "cards" : "devices", nfit, have, dev);
}

/* 1 with r filled when group k cannot fit the node's devices on its own (a capacity reason, with how near it came). */
static int capacity_failure(gpa_arena_t *a, gpa_search_t *s, size_t k, gpa_node_reason_t *r)
{
    int64_t near = 0;
    const char *why = group_failure(a, s, k, &near);
    if (why == NULL)
        return 0;
    set_reason(r, RANK_CAPACITY, why);
    r->near_ = near;
    return 1;
}

void gpa_explain_group(gpa_arena_t *a, gpa_search_t *s, const gpa_node_t *node, size_t k, gpa_node_reason_t *r)
{
    gpa_search_start(s, node);
    if (capacity_failure(a, s, k, r))
        return;
    set_reason(r, RANK_TOGETHER,
               gpa_arena_printf(a, "%sits shares do not fit on the devices together", group_prefix(a, s->req, &s->req->groups[k])));
}

void gpa_explain_app(gpa_arena_t *a, gpa_search_t *s, const gpa_node_t *node, gpa_node_reason_t *r)
{
    gpa_search_start(s, node);
    for (size_t k = 0; k < s->req->napp_groups; k++)
        if (capacity_failure(a, s, k, r))
            return;
    set_reason(r, RANK_TOGETHER, "each container fits alone, but not all of them together on this node's devices");
}

/* ---- the closest node ---- */

/* Whether r came closer to fitting than best: a later stage, or nearer within the same stage. */
static int nearer(const gpa_node_reason_t *r, const gpa_node_reason_t *best)
{
    if (r->rank_ != best->rank_)
        return r->rank_ > best->rank_;
    return r->near_ > best->near_;
}

/* The closest node's reason, or NULL. Reasons are in node name order (templates after nodes), so ties keep the
 * lowest name, and a node before a template. */
static const gpa_node_reason_t *closest(const gpa_placement_t *p)
{
    const gpa_node_reason_t *best = NULL;
    for (size_t i = 0; i < p->nreasons; i++)
        if (p->reasons[i].reason != NULL && (best == NULL || nearer(&p->reasons[i], best)))
            best = &p->reasons[i];
    return best;
}

static const char *reason_line(gpa_arena_t *a, const gpa_node_reason_t *r)
{
    return gpa_arena_printf(a, "%s%s: %s", r->is_template ? "template " : "", r->node, r->reason);
}

const char *gpa_explain_closest(gpa_arena_t *a, const gpa_placement_t *p)
{
    const gpa_node_reason_t *best = closest(p);
    return best != NULL ? reason_line(a, best) : "the inventory has no GPU nodes";
}

const char *gpa_explain_with_template(gpa_arena_t *a, const gpa_placement_t *p, const char *template_name)
{
    const gpa_node_reason_t *best = closest(p);
    const char *fits = gpa_arena_printf(a, "fits a new node of template %s", template_name);
    return best != NULL ? gpa_arena_printf(a, "%s; %s", fits, reason_line(a, best)) : fits;
}
