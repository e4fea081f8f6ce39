/*
 * Inventory loaders (inventory.h, gpa_inventory_parse): Kubernetes Node, Device and Pod objects as kubectl
 * prints them, and the compact `kind: GPUInventory` form. Each document is read into records; the inventory
 * then commits them all at once, or rolls every record of this text back on the first error.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "kube/decode.h"
#include "kube/normalize.h"
#include "inventory/inventory.h"
#include "inventory/inventory_hami.h"
#include "kube/quantity.h"
#include "kube/resource.h"
#include "document/docs.h"
#include "document/schema.h"
#include "document/json.h"
#include "document/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((int64_t)1 << 20)
#define MAX_DEVICES 1024 /* per node; more is a typo, not a server */

typedef struct st_loader_t {
    const gpa_inventory_sink_t *sink; /* where records go: an inventory, or a live view's per-object store */
    gpa_arena_t *a;
    gpa_error_t *err;
    const char *source;
    gpa_inventory_t *inv;          /* gpa_inventory_parse's: where DRA objects go (NULL: read one object at a time) */
    const gpa_decode_opts_t *opts; /* how Pods are decoded (NULL: the defaults) */
} loader_t;

static int fail(loader_t *l, const gpa_value_t *at, const char *path, const char *fmt, const char *what)
{
    return gpa_error_set(l->err, at != NULL ? at->line : 0, at != NULL ? at->column : 0, path, fmt, what);
}

/* A whole non-negative quantity from a string or number node. */
static int quantity_of(loader_t *l, const gpa_value_t *v, const char *path, int64_t *out)
{
    if (v == NULL || (v->type != GPA_VSTRING && v->type != GPA_VNUMBER))
        return gpa_schema_wrong_type(l->err, v, "a quantity (a string or a number)", path);
    gpa_quantity_t q = gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
    if (q.status != GPA_Q_OK)
        return gpa_error_set(l->err, v->line, v->column, path, "\"%s\": %s", v->u.str.ptr, gpa_quantity_status_text(q.status));
    if (q.value < 0)
        return gpa_error_set(l->err, v->line, v->column, path, "\"%s\" must not be negative", v->u.str.ptr);
    *out = q.value;
    return 0;
}

/* An optional quantity member: *out untouched when absent. */
static int opt_quantity(loader_t *l, const gpa_value_t *obj, const char *key, const char *path, int64_t *out)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    return quantity_of(l, v, gpa_schema_path(l->a, path, key), out);
}

/* The first present quantity among two names (the Koordinator name, then the older kubernetes.io one). */
static int opt_quantity2(loader_t *l, const gpa_value_t *obj, const char *k1, const char *k2, const char *path, int64_t *out)
{
    if (gpa_value_get(obj, k1) != NULL)
        return opt_quantity(l, obj, k1, path, out);
    return opt_quantity(l, obj, k2, path, out);
}

static const char *str_of(const gpa_value_t *obj, const char *key)
{
    return gpa_value_string(gpa_value_get(obj, key));
}

/* A string map (labels) into pairs (arena-owned). Non-string values are skipped: labels are strings. */
static gpa_pair_t *pairs_of(loader_t *l, const gpa_value_t *obj, size_t *n)
{
    *n = 0;
    if (obj == NULL || obj->type != GPA_VOBJECT)
        return NULL;
    gpa_pair_t *p = gpa_arena_calloc(l->a, obj->u.object.len + 1, sizeof(*p));
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const gpa_member_t *m = &obj->u.object.members[i];
        const char *v = gpa_value_string(m->value);
        if (v != NULL)
            p[(*n)++] = (gpa_pair_t){.key = m->key, .value = v, .line = m->value->line, .column = m->value->column};
    }
    return p;
}

/* ---- Node ---- */

/* Label as a whole number, 0 when absent; an unreadable label is an error at the Node. */
static int label_number(loader_t *l, const gpa_value_t *labels, const char *key, const char *path, int64_t *out)
{
    *out = 0;
    const gpa_value_t *v = gpa_value_get(labels, key);
    if (v == NULL)
        return 0;
    return quantity_of(l, v, gpa_arena_printf(l->a, "%s[\"%s\"]", path, key), out);
}

/* Splits `total` over `count` devices, rounding down (a device never has more than the node reports). */
static int64_t per_device(int64_t total, int64_t count)
{
    return count > 0 ? total / count : 0;
}

static int load_node_devices(loader_t *l, const gpa_value_t *labels, const gpa_value_t *alloc, gpa_node_desc_t *d)
{
    const char *lp = "metadata.labels", *ap = "status.allocatable";
    int64_t core = 0, memory = 0, n = 0;
    if (d->mgpu) {
        /* mGPU: mgpu-core is 100 per card; mgpu-memory counts MiB over all cards, split evenly. */
        if (opt_quantity(l, alloc, "vke.volcengine.com/mgpu-core", ap, &core) != 0 ||
            opt_quantity(l, alloc, "vke.volcengine.com/mgpu-memory", ap, &memory) != 0)
            return -1;
        d->count = core / 100;
        d->memory = per_device(memory, d->count) * MIB;
        return 0;
    }
    if (opt_quantity2(l, alloc, "koordinator.sh/gpu-core", "kubernetes.io/gpu-core", ap, &core) != 0 ||
        opt_quantity2(l, alloc, "koordinator.sh/gpu-memory", "kubernetes.io/gpu-memory", ap, &memory) != 0)
        return -1;
    if (core >= 100) {
        d->count = core / 100;
        d->memory = per_device(memory, d->count);
        d->koordinator = 1;
    }
    if (label_number(l, labels, "nvidia.com/gpu.count", lp, &n) != 0)
        return -1;
    if (n == 0 && (opt_quantity(l, alloc, "nvidia.com/gpu", ap, &n) != 0 || opt_quantity(l, alloc, "amd.com/gpu", ap, &n) != 0 ||
                   opt_quantity(l, alloc, "dcu.com/gpu", ap, &n) != 0))
        return -1;
    if (d->count == 0)
        d->count = n;
    if (d->memory == 0) {
        int64_t mib = 0;
        if (label_number(l, labels, "nvidia.com/gpu.memory", lp, &mib) != 0)
            return -1;
        if (__builtin_mul_overflow(mib, MIB, &d->memory))
            return fail(l, gpa_value_get(labels, "nvidia.com/gpu.memory"), lp, "%s", "nvidia.com/gpu.memory is too large");
    }
    return 0;
}

static void warn_object(loader_t *l, const gpa_value_t *doc, const char *path, const gpa_error_t *why, const char *what);

static int load_node(loader_t *l, const gpa_value_t *doc, const char *path)
{
    const gpa_value_t *meta = gpa_value_get(doc, "metadata");
    const gpa_value_t *labels = gpa_value_get(meta, "labels");
    const gpa_value_t *alloc = gpa_value_get(gpa_value_get(doc, "status"), "allocatable");
    gpa_node_desc_t d = {.name = str_of(meta, "name"), .source = l->source, .line = doc->line};
    if (d.name == NULL || d.name[0] == '\0')
        return fail(l, doc, "metadata.name", "%s", "a Node needs a name");
    d.labels = pairs_of(l, labels, &d.nlabels);
    const char *sched = str_of(labels, "vke.node.gpu.schedule");
    d.mgpu = sched != NULL && strcmp(sched, "mgpu") == 0;
    d.model = str_of(labels, "nvidia.com/gpu.product");
    if (d.model == NULL)
        d.model = str_of(labels, "node.koordinator.sh/gpu-model");
    if (load_node_devices(l, labels, alloc, &d) != 0)
        return -1;
    if (d.count > MAX_DEVICES)
        return fail(l, doc, d.name, "%s", "more than 1024 GPUs on one node");
    gpa_error_t why = {0};
    gpa_error_init(&why, l->source);
    if (gpa_hami_node(l->a, gpa_value_get(meta, "annotations"), &d, l->sink, &why) < 0)
        warn_object(l, doc, path, &why, gpa_arena_printf(l->a, "Node %s has no HAMi cards", d.name));
    l->sink->node(l->sink->ctx, &d);
    return 0;
}

/* ---- Device (scheduling.koordinator.sh) ---- */

static int load_device_entry(loader_t *l, const char *node, const gpa_value_t *v, const char *path)
{
    const char *type = str_of(v, "type");
    if (type == NULL || strcmp(type, "gpu") != 0)
        return 0; /* rdma, fpga, ...: not ours */
    gpa_gpu_desc_t g = {.node = node, .device_object = 1, .source = l->source, .line = v->line};
    int64_t minor = -1;
    if (opt_quantity(l, v, "minor", path, &minor) != 0)
        return -1;
    if (minor < 0 || minor > INT32_MAX)
        return fail(l, v, path, "%s", "a GPU device needs a minor number");
    g.minor = (int32_t)minor;
    /* Health is a Go bool with omitempty: absent means false, as Koordinator reads it. */
    const gpa_value_t *health = gpa_value_get(v, "health");
    g.healthy = health != NULL && health->type == GPA_VBOOL && health->u.boolean;
    const gpa_value_t *res = gpa_value_get(v, "resources");
    const char *rp = gpa_arena_printf(l->a, "%s.resources", path);
    g.memory = 0;
    if (opt_quantity2(l, res, "koordinator.sh/gpu-core", "kubernetes.io/gpu-core", rp, &g.core) != 0 ||
        opt_quantity2(l, res, "koordinator.sh/gpu-memory", "kubernetes.io/gpu-memory", rp, &g.memory) != 0)
        return -1;
    l->sink->gpu(l->sink->ctx, &g);
    return 0;
}

static int load_device(loader_t *l, const gpa_value_t *doc)
{
    const char *node = str_of(gpa_value_get(doc, "metadata"), "name");
    if (node == NULL || node[0] == '\0')
        return fail(l, doc, "metadata.name", "%s", "a Device object is named after its node and needs a name");
    const gpa_value_t *devs = gpa_value_get(gpa_value_get(doc, "spec"), "devices");
    if (devs != NULL && gpa_schema_want(l->err, devs, GPA_VARRAY, "spec.devices") != 0)
        return -1;
    for (size_t i = 0; devs != NULL && i < devs->u.array.len; i++)
        if (load_device_entry(l, node, devs->u.array.items[i], gpa_arena_printf(l->a, "spec.devices[%zu]", i)) != 0)
            return -1;
    return 0;
}

/* ---- Pod usage (docs/allocator.md, "Usage"): tenants write Pods, so a Pod is read defensively ---- */

/* What a Pod's own request could hold: at most `devices` devices, and on each at most this share. */
typedef struct st_claim_t {
    int64_t devices;
    int64_t core;  /* percent per device */
    int64_t bytes; /* memory per device, bytes */
    int64_t ratio; /* percent of a device's memory */
} claim_t;

typedef GPA_VEC(gpa_usage_desc_t) usages_t;

typedef struct st_pod_ctx_t {
    loader_t *l; /* its err is the Pod's own: a Pod never fails the load, it is named in a warning */
    const gpa_podspec_t *spec;
    const char *pod; /* namespace/name */
    const gpa_value_t *at;
    gpa_request_t req;
    claim_t claim;
    int from_request; /* the records' amounts are the request's own (mGPU): nothing to cut */
    usages_t held;    /* merged per device; handed to the sink once the whole Pod was read */
} pod_ctx_t;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The Pod's claim: app groups add up (they may share a device), the largest init container stands alone. A Koordinator
 * Pod is one group already (normalize.h: the Pod's totals over n distinct devices), so it holds at most its per-device
 * share on each of n devices, as koord-scheduler reserves it. */
static claim_t claim_of(const gpa_request_t *r)
{
    claim_t app = {0}, init = {0};
    for (size_t i = 0; i < r->ngroups; i++) {
        const gpa_device_group_t *g = &r->groups[i];
        claim_t c = {.devices = g->count,
                     .core = g->whole ? 100 : g->core,
                     .bytes = g->memory_kind == GPA_MEMORY_BYTES ? g->memory_bytes : 0,
                     .ratio = g->whole                             ? 100
                              : g->memory_kind == GPA_MEMORY_RATIO ? g->memory_ratio
                                                                   : 0};
        if (i < r->napp_groups) {
            app.devices = gpa_sat_add_i64(app.devices, c.devices);
            app.core = min64(100, gpa_sat_add_i64(app.core, c.core));
            app.bytes = gpa_sat_add_i64(app.bytes, c.bytes);
            app.ratio = min64(100, gpa_sat_add_i64(app.ratio, c.ratio));
        } else {
            init = (claim_t){max64(init.devices, c.devices), max64(init.core, c.core), max64(init.bytes, c.bytes),
                             max64(init.ratio, c.ratio)};
        }
    }
    return (claim_t){min64(MAX_DEVICES, max64(app.devices, init.devices)), max64(app.core, init.core), max64(app.bytes, init.bytes),
                     max64(app.ratio, init.ratio)};
}

/* Adds what an annotation says the Pod holds on device `minor`: merged with the device's earlier entries, and
 * ignored once the Pod names more devices than its request spans. */
static void hold(pod_ctx_t *p, const gpa_usage_desc_t *d)
{
    for (size_t i = 0; i < p->held.len; i++) {
        gpa_usage_desc_t *u = &p->held.items[i];
        if (u->minor != d->minor)
            continue;
        u->core = gpa_sat_add_i64(u->core, d->core);
        u->memory = d->memory < 0 ? u->memory : u->memory < 0 ? d->memory : gpa_sat_add_i64(u->memory, d->memory);
        u->ratio = gpa_sat_add_i64(u->ratio, d->ratio);
        u->whole |= d->whole;
        u->containers = gpa_sat_add_i64(u->containers, d->containers);
        return;
    }
    if ((int64_t)p->held.len < p->claim.devices)
        *gpa_vec_push(p->l->a, &p->held) = *d;
}

/*
 * Hands the Pod's records to the sink, each cut down to the claim: core and memory per device at most what the
 * request asked. Memory is counted the way the request asks it (a ratio of each device, or bytes); a Pod whose
 * containers ask both ways holds both on each device.
 */
static void settle(pod_ctx_t *p)
{
    const claim_t *c = &p->claim;
    for (size_t i = 0; i < p->held.len; i++) {
        const gpa_usage_desc_t *u = &p->held.items[i];
        if (p->from_request) {
            p->l->sink->usage(p->l->sink->ctx, u);
            continue;
        }
        int said = u->memory > 0 || u->ratio > 0; /* the annotation gives the device some memory */
        gpa_usage_desc_t v = *u;
        v.core = min64(u->core, c->core);
        v.memory = -1;
        v.ratio = min64(u->ratio > 0 ? u->ratio : said ? c->ratio : 0, c->ratio);
        if (c->ratio == 0) {
            v.memory = min64(u->memory >= 0 ? u->memory : said ? c->bytes : 0, c->bytes);
            v.ratio = 0;
        }
        p->l->sink->usage(p->l->sink->ctx, &v);
        if (c->ratio > 0 && c->bytes > 0 && !u->whole) {
            gpa_usage_desc_t b = *u;
            b.core = 0, b.ratio = 0;
            b.memory = min64(u->memory >= 0 ? u->memory : said ? c->bytes : 0, c->bytes);
            p->l->sink->usage(p->l->sink->ctx, &b);
        }
    }
}

static int amount_of(const gpa_container_t *c, gpa_resource_t r, int64_t *out)
{
    const gpa_amount_t *am = gpa_container_amount(c, r);
    *out = 0;
    if (am == NULL)
        return 0;
    if (am->status != GPA_Q_OK || am->value < 0)
        return -1;
    *out = am->value;
    return 0;
}

/*
 * An allocation's minor as koord-scheduler's Go decoder reads it into an int32: a JSON integer literal within
 * int32; absent or null leaves it 0. Anything else (the string "0", 1.5, 1e2) fails its json.Unmarshal of the
 * whole annotation, so the Pod holds nothing for the scheduler: -1 here, and the Pod is named in a warning.
 */
static int allocation_minor(loader_t *l, const gpa_value_t *alloc, const char *path, int32_t *out)
{
    const gpa_value_t *v = gpa_value_get(alloc, "minor");
    *out = 0;
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    const char *at = gpa_schema_path(l->a, path, "minor");
    if (v->type != GPA_VNUMBER)
        return gpa_schema_wrong_type(l->err, v, "an integer (koord-scheduler reads an int32)", at);
    const char *s = v->u.str.ptr;
    size_t i = s[0] == '-';
    int64_t m = 0;
    for (; i < v->u.str.len; i++) {
        if (s[i] < '0' || s[i] > '9' || (m = m * 10 + (s[i] - '0')) > (int64_t)INT32_MAX + 1)
            return gpa_error_set(l->err, v->line, v->column, at, "%.32s is not an int32 (koord-scheduler cannot read it)", s);
    }
    if (s[0] == '-')
        m = -m;
    if (m > INT32_MAX)
        return gpa_error_set(l->err, v->line, v->column, at, "%.32s is not an int32 (koord-scheduler cannot read it)", s);
    *out = (int32_t)m; /* a minor the node does not have is ignored where usage is added, as any unknown device */
    return 0;
}

/* One allocation of device-allocated: {"minor": 0, "resources": {...}}. */
static int load_allocation(pod_ctx_t *p, const gpa_value_t *v, const char *path)
{
    loader_t *l = p->l;
    gpa_usage_desc_t u = {.node = p->spec->node_name, .pod = p->pod, .memory = -1, .source = l->source, .line = p->at->line};
    const gpa_value_t *res = gpa_value_get(v, "resources");
    if (allocation_minor(l, v, path, &u.minor) != 0 ||
        opt_quantity2(l, res, "koordinator.sh/gpu-core", "kubernetes.io/gpu-core", path, &u.core) != 0 ||
        opt_quantity2(l, res, "koordinator.sh/gpu-memory", "kubernetes.io/gpu-memory", path, &u.memory) != 0 ||
        opt_quantity2(l, res, "koordinator.sh/gpu-memory-ratio", "kubernetes.io/gpu-memory-ratio", path, &u.ratio) != 0)
        return -1;
    hold(p, &u);
    return 0;
}

static int load_device_allocated(pod_ctx_t *p, const char *text)
{
    loader_t *l = p->l;
    gpa_value_t *root;
    gpa_error_t jerr = {0};
    const char *path = "metadata.annotations[\"" GPA_ANNOTATION_DEVICE_ALLOCATED "\"]";
    gpa_error_init(&jerr, NULL);
    if (gpa_json_parse(l->a, text, strlen(text), &root, &jerr) != 0)
        return gpa_error_set(l->err, 0, 0, path, "not JSON: %s", jerr.message);
    const gpa_value_t *gpus = gpa_value_get(root, "gpu");
    if (gpus == NULL)
        return 0;
    if (gpa_schema_want(l->err, gpus, GPA_VARRAY, gpa_schema_path(l->a, path, "gpu")) != 0)
        return -1;
    for (size_t i = 0; i < gpus->u.array.len; i++)
        if (load_allocation(p, gpus->u.array.items[i], gpa_arena_printf(l->a, "%s.gpu[%zu]", path, i)) != 0)
            return -1;
    return 0;
}

/* The container's mGPU group of the normalized request, or NULL (it asks for no mGPU share). */
static const gpa_device_group_t *mgpu_group_of(const pod_ctx_t *p, const char *name)
{
    for (size_t i = 0; i < p->req.ngroups; i++)
        if (p->req.groups[i].dialect == GPA_DIALECT_MGPU && strcmp(p->req.groups[i].container->name, name) == 0)
            return &p->req.groups[i];
    return NULL;
}

/*
 * vke.volcengine.com/gpu-index-container-<name>: "1,0": the cards that container's share is on. The annotation
 * says where, the request how much: each listed card (the first as many distinct cards as the container asks)
 * holds the container's per-card share.
 */
static int load_mgpu_index(pod_ctx_t *p, const gpa_pair_t *ann)
{
    loader_t *l = p->l;
    const char *cname = ann->key + strlen(GPA_ANNOTATION_GPU_INDEX_PREFIX);
    const char *path = gpa_arena_printf(l->a, "metadata.annotations[\"%s\"]", ann->key);
    const gpa_device_group_t *g = mgpu_group_of(p, cname);
    int32_t cards[MAX_DEVICES];
    int64_t k = 0, listed = 0;
    for (const char *s = ann->value; *s != '\0';) {
        char *end;
        while (*s == ' ')
            s++;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0 || v > INT32_MAX)
            return gpa_error_set(l->err, 0, 0, path, "\"%.64s\" is not a list of card indices", ann->value);
        if (++listed > MAX_DEVICES) /* no node has more cards: a list this long is not one gpuadmit reads */
            return gpa_error_set(l->err, 0, 0, path, "%s", "more than 1024 card indices");
        int64_t seen = 0;
        while (seen < k && cards[seen] != (int32_t)v)
            seen++;
        if (g != NULL && seen == k && k < (int64_t)g->count && k < MAX_DEVICES)
            cards[k++] = (int32_t)v;
        for (s = end; *s == ' '; s++)
            ;
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return gpa_error_set(l->err, 0, 0, path, "\"%.64s\" is not a list of card indices", ann->value);
    }
    for (int64_t i = 0; i < k; i++) {
        gpa_usage_desc_t u = {.node = p->spec->node_name,
                              .pod = p->pod,
                              .minor = cards[i],
                              .whole = g->whole,
                              .core = g->core,
                              .memory = g->memory_kind == GPA_MEMORY_BYTES ? g->memory_bytes : 0,
                              .source = l->source,
                              .line = p->at->line,
                              .containers = 1};
        hold(p, &u);
    }
    return 0;
}

/* Whole vendor devices a Pod holds: Kubernetes' PodRequests (max of the app sum and the largest init). */
static int64_t vendor_devices(const gpa_podspec_t *s)
{
    static const gpa_resource_t vendors[] = {GPA_R_NVIDIA_GPU, GPA_R_AMD_GPU, GPA_R_DCU_GPU};
    int64_t app = 0, init = 0, v;
    for (size_t r = 0; r < 3; r++) {
        for (size_t i = 0; i < s->ncontainers; i++)
            if (amount_of(&s->containers[i], vendors[r], &v) == 0)
                app = gpa_sat_add_i64(app, v);
        for (size_t i = 0; i < s->ninit_containers; i++)
            if (amount_of(&s->init_containers[i], vendors[r], &v) == 0 && v > init)
                init = v;
    }
    return app > init ? app : init;
}

static int has_share_annotation(const gpa_object_t *obj)
{
    size_t plen = strlen(GPA_ANNOTATION_GPU_INDEX_PREFIX);
    for (size_t i = 0; i < obj->nannotations; i++)
        if (strcmp(obj->annotations[i].key, GPA_ANNOTATION_DEVICE_ALLOCATED) == 0 ||
            strncmp(obj->annotations[i].key, GPA_ANNOTATION_GPU_INDEX_PREFIX, plen) == 0)
            return 1;
    return 0;
}

/* Reads what a scheduled, running Pod holds into p->held (or the sink, for vendor devices); -1 with l->err. */
static int read_pod(pod_ctx_t *p, const gpa_object_t *obj)
{
    loader_t *l = p->l;
    if (has_share_annotation(obj)) {
        if (gpa_normalize(l->a, GPA_DIALECT_ALL, p->spec, &p->req) != 0)
            return gpa_error_set(l->err, 0, 0, "spec", "%s", "its request is not one gpuadmit can read");
        p->claim = claim_of(&p->req);
    }
    const char *allocated = gpa_pairs_get(obj->annotations, obj->nannotations, GPA_ANNOTATION_DEVICE_ALLOCATED);
    if (allocated != NULL)
        return load_device_allocated(p, allocated);
    size_t plen = strlen(GPA_ANNOTATION_GPU_INDEX_PREFIX);
    p->from_request = 1;
    for (size_t i = 0; i < obj->nannotations; i++)
        if (strncmp(obj->annotations[i].key, GPA_ANNOTATION_GPU_INDEX_PREFIX, plen) == 0 &&
            load_mgpu_index(p, &obj->annotations[i]) != 0)
            return -1;
    int64_t whole = vendor_devices(p->spec);
    if (whole > 0) {
        gpa_usage_desc_t u = {
            .node = p->spec->node_name, .pod = p->pod, .whole_count = whole, .source = l->source, .line = p->at->line};
        l->sink->usage(l->sink->ctx, &u);
    }
    return 0;
}

/* "namespace/name" from the object itself (arena-owned; "?" for a missing part). */
static const char *pod_name(loader_t *l, const gpa_value_t *doc)
{
    const gpa_value_t *meta = gpa_value_get(doc, "metadata");
    const char *ns = str_of(meta, "namespace"), *name = str_of(meta, "name");
    return gpa_arena_printf(l->a, "%s/%s", ns != NULL ? ns : "", name != NULL ? name : "?");
}

/* An object read in part is named in a warning, "what: why" (at the object; path within its List). */
static void warn_object(loader_t *l, const gpa_value_t *doc, const char *path, const gpa_error_t *why, const char *what)
{
    gpa_error_t w = {0};
    gpa_error_init(&w, l->source);
    const char *at = why->path;
    if (path[0] != '\0')
        at = why->path[0] != '\0' ? gpa_arena_printf(l->a, "%s.%s", path, why->path) : path;
    gpa_error_set(&w, doc->line, doc->column, at, "%s: %s", what, why->message);
    if (l->sink->warn != NULL)
        l->sink->warn(l->sink->ctx, &w);
}

/* A Pod that could not be read holds nothing and is named in a warning. */
static void warn_pod(loader_t *l, const gpa_value_t *doc, const char *path, const gpa_error_t *why)
{
    warn_object(l, doc, path, why, gpa_arena_printf(l->a, "Pod %s holds no GPU", pod_name(l, doc)));
}

static int load_pod(loader_t *l, gpa_value_t *doc, const char *path)
{
    gpa_error_t why = {0};
    loader_t pl = *l;
    pl.err = &why;
    gpa_error_init(&why, l->source);
    gpa_object_t *obj;
    if (gpa_decode_object_with(l->a, l->opts, doc, &obj, &why) != 0) {
        warn_pod(l, doc, path, &why);
        return 0;
    }
    int hami = gpa_hami_pod(l->a, obj, l->source, doc->line, l->sink, &why); /* HAMi's allocation: read as HAMi's */
    if (hami != 0) {
        if (hami < 0)
            warn_pod(l, doc, path, &why);
        return 0;
    }
    if (obj->npods != 1 || obj->pods[0].node_name == NULL || obj->pods[0].node_name[0] == '\0')
        return 0; /* not scheduled: holds nothing */
    if (obj->phase != NULL && (strcmp(obj->phase, "Succeeded") == 0 || strcmp(obj->phase, "Failed") == 0))
        return 0; /* finished: holds nothing */
    pod_ctx_t p = {.l = &pl, .spec = &obj->pods[0], .at = doc};
    p.pod = gpa_arena_printf(l->a, "%s/%s", obj->ns, obj->name);
    if (read_pod(&p, obj) != 0) {
        warn_pod(l, doc, path, &why);
        return 0;
    }
    settle(&p);
    return 0;
}

/* ---- dispatch ---- */

/* ---- the compact form (docs/allocator.md) ---- */

static int check_keys(loader_t *l, const gpa_value_t *obj, const char *path, const char *const *known)
{
    return gpa_schema_want(l->err, obj, GPA_VOBJECT, path) != 0 ? -1 : gpa_schema_fields(l->err, obj, path, known);
}

static const gpa_value_t *array_member(loader_t *l, const gpa_value_t *obj, const char *key, const char *path, int *bad)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    *bad = 0;
    if (v == NULL || v->type == GPA_VNULL)
        return NULL;
    if (gpa_schema_want(l->err, v, GPA_VARRAY, gpa_schema_path(l->a, path, key)) != 0) {
        *bad = 1;
        return NULL;
    }
    return v;
}

static int opt_bool(loader_t *l, const gpa_value_t *obj, const char *key, const char *path, int *out)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    if (gpa_schema_want(l->err, v, GPA_VBOOL, gpa_schema_path(l->a, path, key)) != 0)
        return -1;
    *out = v->u.boolean;
    return 0;
}

static int opt_minor(loader_t *l, const gpa_value_t *obj, const char *path, int32_t *out)
{
    int64_t m = -1;
    if (opt_quantity(l, obj, "minor", path, &m) != 0)
        return -1;
    if (m < 0 || m >= MAX_DEVICES)
        return fail(l, obj, path, "%s", "needs a minor between 0 and 1023");
    *out = (int32_t)m;
    return 0;
}

static int compact_dialects(loader_t *l, const gpa_value_t *node, const char *path, unsigned *out)
{
    int bad;
    const gpa_value_t *v = array_member(l, node, "dialects", path, &bad);
    *out = GPA_DIALECT_ALL;
    if (v == NULL)
        return -bad;
    *out = 0;
    for (size_t i = 0; i < v->u.array.len; i++) {
        const char *name = gpa_value_string(v->u.array.items[i]);
        gpa_dialect_t d = name != NULL ? gpa_dialect_parse(name) : 0;
        if (d == 0)
            return fail(l, v->u.array.items[i], gpa_arena_printf(l->a, "%s.dialects[%zu]", path, i), "%s",
                        "must be vendor, koordinator, mgpu or hami");
        *out |= (unsigned)d;
    }
    return 0;
}

static int compact_gpus(loader_t *l, const gpa_value_t *node, const char *path, gpa_node_desc_t *d)
{
    static const char *const keys[] = {"count", "memory", "core", "model", NULL};
    const gpa_value_t *g = gpa_value_get(node, "gpus");
    const char *gp = gpa_arena_printf(l->a, "%s.gpus", path);
    if (g == NULL)
        return 0;
    if (check_keys(l, g, gp, keys) != 0 || opt_quantity(l, g, "count", gp, &d->count) != 0 ||
        opt_quantity(l, g, "memory", gp, &d->memory) != 0 || opt_quantity(l, g, "core", gp, &d->core) != 0)
        return -1;
    if (d->count > MAX_DEVICES)
        return fail(l, gpa_value_get(g, "count"), gp, "%s", "more than 1024 GPUs on one node");
    d->model = str_of(g, "model");
    return 0;
}

static int compact_devices(loader_t *l, const gpa_value_t *node, const char *name, const char *path)
{
    static const char *const keys[] = {"minor", "healthy", "memory", "core", NULL};
    int bad;
    const gpa_value_t *v = array_member(l, node, "devices", path, &bad);
    for (size_t i = 0; v != NULL && i < v->u.array.len; i++) {
        const gpa_value_t *e = v->u.array.items[i];
        const char *ep = gpa_arena_printf(l->a, "%s.devices[%zu]", path, i);
        gpa_gpu_desc_t g = {.node = name, .healthy = 1, .memory = -1, .source = l->source, .line = e->line};
        if (check_keys(l, e, ep, keys) != 0 || opt_minor(l, e, ep, &g.minor) != 0 ||
            opt_bool(l, e, "healthy", ep, &g.healthy) != 0 || opt_quantity(l, e, "memory", ep, &g.memory) != 0 ||
            opt_quantity(l, e, "core", ep, &g.core) != 0)
            return -1;
        l->sink->gpu(l->sink->ctx, &g);
    }
    return -bad;
}

static int compact_used(loader_t *l, const gpa_value_t *node, const char *name, const char *path)
{
    static const char *const keys[] = {"minor", "core", "memory", "ratio", "whole", "wholeDevices", "pod", NULL};
    int bad;
    const gpa_value_t *v = array_member(l, node, "used", path, &bad);
    for (size_t i = 0; v != NULL && i < v->u.array.len; i++) {
        const gpa_value_t *e = v->u.array.items[i];
        const char *ep = gpa_arena_printf(l->a, "%s.used[%zu]", path, i);
        gpa_usage_desc_t u = {.node = name, .memory = -1, .source = l->source, .line = e->line};
        if (check_keys(l, e, ep, keys) != 0 || opt_quantity(l, e, "wholeDevices", ep, &u.whole_count) != 0)
            return -1;
        u.pod = str_of(e, "pod");
        if (u.pod == NULL)
            u.pod = gpa_arena_printf(l->a, "%s#%zu", name, i); /* each anonymous entry is its own Pod */
        if (u.whole_count == 0 && (opt_minor(l, e, ep, &u.minor) != 0 || opt_quantity(l, e, "core", ep, &u.core) != 0 ||
                                   opt_quantity(l, e, "memory", ep, &u.memory) != 0 ||
                                   opt_quantity(l, e, "ratio", ep, &u.ratio) != 0 || opt_bool(l, e, "whole", ep, &u.whole) != 0))
            return -1;
        l->sink->usage(l->sink->ctx, &u);
    }
    return -bad;
}

/* A node's or template's name, labels, dialects and derived devices (the fields both have). */
static int compact_desc(loader_t *l, const gpa_value_t *node, const char *path, const char *noun, gpa_node_desc_t *d)
{
    if (compact_dialects(l, node, path, &d->dialects) != 0 || compact_gpus(l, node, path, d) != 0)
        return -1;
    d->name = str_of(node, "name");
    if (d->name == NULL || d->name[0] == '\0')
        return fail(l, node, gpa_schema_path(l->a, path, "name"), "every %s needs a name", noun);
    const gpa_value_t *labels = gpa_value_get(node, "labels");
    if (labels != NULL && labels->type != GPA_VNULL &&
        gpa_schema_want(l->err, labels, GPA_VOBJECT, gpa_schema_path(l->a, path, "labels")) != 0)
        return -1;
    d->labels = pairs_of(l, labels, &d->nlabels);
    d->koordinator = (d->dialects & GPA_DIALECT_KOORDINATOR) != 0;
    return 0;
}

/* One `nodes[]` entry; `replicas: N` stamps N copies named <name>-<i>, zero-padded so names sort numerically. */
static int compact_node(loader_t *l, const gpa_value_t *node, const char *path)
{
    static const char *const keys[] = {"name", "replicas", "labels", "dialects", "gpus", "devices", "used", NULL};
    gpa_node_desc_t d = {.source = l->source, .line = node->line};
    int64_t replicas = 0;
    if (check_keys(l, node, path, keys) != 0 || opt_quantity(l, node, "replicas", path, &replicas) != 0 ||
        compact_desc(l, node, path, "node", &d) != 0)
        return -1;
    const char *name = d.name;
    if (replicas > 100000)
        return fail(l, gpa_value_get(node, "replicas"), path, "%s", "replicas above 100000");
    int width = snprintf(NULL, 0, "%lld", (long long)(replicas > 0 ? replicas - 1 : 0));
    for (int64_t r = 0; r < (replicas > 0 ? replicas : 1); r++) {
        d.name = replicas > 0 ? gpa_arena_printf(l->a, "%s-%0*lld", name, width, (long long)r) : name;
        l->sink->node(l->sink->ctx, &d);
        if (compact_devices(l, node, d.name, path) != 0 || compact_used(l, node, d.name, path) != 0)
            return -1;
    }
    return 0;
}

/* One `templates[]` entry: a node an autoscaler can create. Nothing runs there yet (no `used`), and one template
 * stands for any number of new nodes (no `replicas`). */
static int compact_template(loader_t *l, const gpa_value_t *node, const char *path)
{
    static const char *const keys[] = {"name", "labels", "dialects", "gpus", "devices", NULL};
    gpa_node_desc_t d = {.source = l->source, .line = node->line, .is_template = 1};
    if (check_keys(l, node, path, keys) != 0 || compact_desc(l, node, path, "template", &d) != 0)
        return -1;
    l->sink->node(l->sink->ctx, &d);
    return compact_devices(l, node, d.name, path);
}

static int load_compact(loader_t *l, const gpa_value_t *doc)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "nodes", "templates", NULL};
    int bad;
    if (check_keys(l, doc, "", keys) != 0)
        return -1;
    const gpa_value_t *nodes = array_member(l, doc, "nodes", "", &bad);
    for (size_t i = 0; nodes != NULL && i < nodes->u.array.len; i++)
        if (compact_node(l, nodes->u.array.items[i], gpa_arena_printf(l->a, "nodes[%zu]", i)) != 0)
            return -1;
    if (bad)
        return -1;
    const gpa_value_t *templates = array_member(l, doc, "templates", "", &bad);
    for (size_t i = 0; templates != NULL && i < templates->u.array.len; i++)
        if (compact_template(l, templates->u.array.items[i], gpa_arena_printf(l->a, "templates[%zu]", i)) != 0)
            return -1;
    return -bad;
}

static int load_doc(loader_t *l, gpa_value_t *doc, const char *path);

static int load_list(loader_t *l, gpa_value_t *doc, const char *path)
{
    const gpa_value_t *items = gpa_value_get(doc, "items");
    if (items == NULL || items->type == GPA_VNULL)
        return 0;
    if (gpa_schema_want(l->err, items, GPA_VARRAY, gpa_schema_path(l->a, path, "items")) != 0)
        return -1;
    for (size_t i = 0; i < items->u.array.len; i++)
        if (load_doc(l, items->u.array.items[i], gpa_arena_printf(l->a, "%s[%zu]", gpa_schema_path(l->a, path, "items"), i)) != 0)
            return -1;
    return 0;
}

/* Prefixes an error's path with where the object sits in its List: items[3] and spec.x make items[3].spec.x. */
static int located(loader_t *l, const char *path, int rc)
{
    size_t n = strlen(path);
    char *at = l->err->path;
    if (rc == 0 || n == 0 || (strncmp(at, path, n) == 0 && (at[n] == '\0' || at[n] == '.')))
        return rc;
    const char *full = gpa_arena_printf(l->a, "%s%s%s", path, at[0] != '\0' ? "." : "", at);
    snprintf(at, sizeof(l->err->path), "%s", full);
    return rc;
}

static int load_doc(loader_t *l, gpa_value_t *doc, const char *path)
{
    if (gpa_schema_want(l->err, doc, GPA_VOBJECT, path) != 0)
        return -1;
    const char *kind = str_of(doc, "kind");
    if (kind == NULL)
        kind = "";
    if (strcmp(kind, "List") == 0 || (strlen(kind) > 4 && strcmp(kind + strlen(kind) - 4, "List") == 0))
        return load_list(l, doc, path);
    if (strcmp(kind, "Node") == 0)
        return located(l, path, load_node(l, doc, path));
    if (strcmp(kind, "Device") == 0)
        return located(l, path, load_device(l, doc));
    if (strcmp(kind, "Pod") == 0)
        return load_pod(l, doc, path);
    if (strcmp(kind, "GPUInventory") == 0)
        return located(l, path, load_compact(l, doc));
    if (l->inv != NULL && gpa_dra_kind_of(str_of(doc, "apiVersion"), kind) != GPA_DRA_NONE)
        return gpa_inventory_add_dra(l->inv, doc, path, l->err);
    return 0; /* any other kind: not inventory */
}

static void to_inventory_node(void *ctx, const gpa_node_desc_t *d)
{
    gpa_inventory_add_node(ctx, d);
}

static void to_inventory_gpu(void *ctx, const gpa_gpu_desc_t *d)
{
    gpa_inventory_add_gpu(ctx, d);
}

static void to_inventory_usage(void *ctx, const gpa_usage_desc_t *d)
{
    gpa_inventory_add_usage(ctx, d);
}

static void to_inventory_warning(void *ctx, const gpa_error_t *why)
{
    gpa_inventory_add_warning(ctx, why);
}

int gpa_inventory_parse(gpa_inventory_t *inv, const char *text, size_t len, const char *source, gpa_error_t *err)
{
    return gpa_inventory_parse_with(inv, NULL, text, len, source, err);
}

/* Bytes read into the stream at a time: what a file costs beyond its largest object. */
#define FEED_BYTES ((size_t)1 << 20)

/*
 * A JSON List or a YAML stream read a piece at a time (document/stream.h), each piece's tree dropped once its records
 * are taken: what loading costs is the largest object, not the file (10^5 devices are a 69 MB List). 1 when the input
 * must be read whole instead: a JSON array, a JSON object that turned out not to be a List (its "items" are not
 * objects to load), or a JSON piece that failed, which the whole reading reports as it always has. 0 when loaded;
 * -1 with l->err.
 */
static int load_pieces(loader_t *l, const gpa_inventory_input_t *in)
{
    gpa_stream_t *s = gpa_stream_new();
    gpa_value_t *piece;
    gpa_stream_status_t st;
    size_t i = 0, total = 0;
    int rc = 0;
    while (rc == 0 && (st = gpa_stream_next(s, l->a, &piece, l->err)) != GPA_STREAM_END && st != GPA_STREAM_ERROR &&
           st != GPA_STREAM_WHOLE) {
        if (st == GPA_STREAM_MORE) {
            size_t want = gpa_stream_want(s) > FEED_BYTES ? gpa_stream_want(s) : FEED_BYTES;
            long got = in->read(in->ctx, gpa_stream_space(s, want), want, l->err);
            if (got < 0 || (total += (size_t)got) > in->max_bytes) {
                if (got >= 0)
                    gpa_error_set(l->err, 0, 0, "", "more than the %zu bytes an input may have: refused", in->max_bytes);
                rc = -1;
                break;
            }
            gpa_stream_commit(s, (size_t)got);
            if (got == 0)
                gpa_stream_end(s);
            continue;
        }
        int json = gpa_stream_is_json(s);
        rc = load_doc(l, piece, json ? gpa_arena_printf(l->a, "items[%zu]", i++) : "");
        gpa_arena_clear(l->a);
        if (rc != 0 && json)
            rc = 1;
    }
    if (rc == 0 && st == GPA_STREAM_ERROR)
        rc = gpa_stream_is_json(s) ? 1 : -1; /* JSON that does not parse may still be YAML: as gpa_docs_parse decides */
    if (rc == 0 && (st == GPA_STREAM_WHOLE || (gpa_stream_is_json(s) && !gpa_stream_is_list(s))))
        rc = 1;
    gpa_stream_free(s);
    return rc;
}

/* The input again, whole (NUL-terminated heap text), or NULL with err. */
static char *read_whole(const gpa_inventory_input_t *in, size_t *len, gpa_error_t *err)
{
    if (in->rewind(in->ctx, err) != 0)
        return NULL;
    gpa_buf_t b = GPA_BUF_INIT;
    char chunk[1 << 16];
    long got;
    while ((got = in->read(in->ctx, chunk, sizeof(chunk), err)) > 0 && b.len + (size_t)got <= in->max_bytes)
        gpa_buf_append(&b, chunk, (size_t)got);
    if (got != 0) {
        if (got > 0)
            gpa_error_set(err, 0, 0, "", "more than the %zu bytes an input may have: refused", in->max_bytes);
        gpa_buf_dispose(&b);
        return NULL;
    }
    gpa_buf_putc(&b, '\0');
    *len = b.len - 1;
    return b.base;
}

int gpa_inventory_parse_input(gpa_inventory_t *inv, const gpa_decode_opts_t *opts, const gpa_inventory_input_t *in,
                              const char *source, gpa_error_t *err)
{
    gpa_arena_t a;
    gpa_docs_t docs;
    gpa_inventory_sink_t sink = {to_inventory_node, to_inventory_gpu, to_inventory_usage, inv, to_inventory_warning};
    loader_t l = {.sink = &sink, .a = &a, .err = err, .source = source, .inv = inv, .opts = opts};
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    gpa_arena_init(&a);
    gpa_error_init(err, source);
    int pieces = load_pieces(&l, in);
    if (pieces != 0)
        gpa_inventory_rollback(inv); /* what the pieces added: nothing, or read again whole */
    if (pieces < 0)
        goto Exit;
    if (pieces > 0) {
        gpa_error_init(err, source);
        if ((text = read_whole(in, &len, err)) == NULL || gpa_docs_parse(&a, text, len, &docs, err) != 0)
            goto Exit;
        for (size_t i = 0; i < docs.len; i++)
            if (load_doc(&l, docs.docs[i], "") != 0) {
                gpa_inventory_rollback(inv);
                goto Exit;
            }
    }
    rc = gpa_inventory_commit(inv, err);
Exit:
    free(text);
    gpa_arena_dispose(&a);
    return rc;
}

/* Text in memory as an input. */
typedef struct st_memory_t {
    const char *text;
    size_t len, at;
} memory_t;

static long memory_read(void *ctx, char *buf, size_t n, gpa_error_t *err)
{
    memory_t *m = ctx;
    (void)err;
    size_t k = m->len - m->at < n ? m->len - m->at : n;
    memcpy(buf, m->text + m->at, k);
    m->at += k;
    return (long)k;
}

static int memory_rewind(void *ctx, gpa_error_t *err)
{
    (void)err;
    ((memory_t *)ctx)->at = 0;
    return 0;
}

int gpa_inventory_parse_with(gpa_inventory_t *inv, const gpa_decode_opts_t *opts, const char *text, size_t len, const char *source,
                             gpa_error_t *err)
{
    memory_t m = {text, len, 0};
    gpa_inventory_input_t in = {memory_read, memory_rewind, &m, len};
    return gpa_inventory_parse_input(inv, opts, &in, source, err);
}

int gpa_inventory_read_object(gpa_arena_t *a, gpa_inventory_kind_t kind, gpa_value_t *obj, const char *source,
                              const gpa_inventory_sink_t *sink, gpa_error_t *err)
{
    loader_t l = {.sink = sink, .a = a, .err = err, .source = source};
    gpa_error_init(err, source);
    if (gpa_schema_want(err, obj, GPA_VOBJECT, "") != 0)
        return -1;
    switch (kind) {
    case GPA_INVENTORY_NODE:
        return load_node(&l, obj, "");
    case GPA_INVENTORY_DEVICE:
        return load_device(&l, obj);
    case GPA_INVENTORY_POD:
        return load_pod(&l, obj, "");
    }
    return 0;
}
