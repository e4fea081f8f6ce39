/*
 * The inventory: records in, a resolved view out (inventory.h). Records live in `rec_` (an arena that only
 * grows; a failed load truncates the record vectors back); each commit builds the view in a fresh arena and
 * swaps it in only when resolution succeeded, so a bad file never leaves a half-built view.
 */
#include "inventory/inventory.h"
#include "base/arena.h"
#include "base/intern.h"
#include "kube/dra_slice.h"
#include "kube/quantity.h"

#include <stdlib.h>
#include <string.h>

typedef GPA_VEC(gpa_node_desc_t) node_vec_t;
typedef GPA_VEC(gpa_gpu_desc_t) gpu_vec_t;
typedef GPA_VEC(gpa_usage_desc_t) usage_vec_t;
typedef GPA_VEC(gpa_error_t) warning_vec_t;
typedef struct st_held_t {
    void (*release)(void *owner);
    void *owner;
} held_t;
typedef GPA_VEC(held_t) held_vec_t;

struct st_gpa_inventory_t {
    int refcnt;
    gpa_arena_t rec_;
    node_vec_t nodes_rec;
    gpu_vec_t gpus_rec;
    usage_vec_t usages_rec;
    size_t committed_nodes, committed_gpus, committed_usages; /* record counts at the last good commit */
    gpa_arena_t *view_arena;
    gpa_node_t *nodes;
    size_t nnodes;
    gpa_node_t *templates; /* node templates (inventory.h), sorted by name; not in nodes, shapes or usage */
    size_t ntemplates;
    gpa_inventory_t *templates_from; /* one reference: whose templates count instead (gpa_inventory_set_templates) */
    const gpa_node_t **shapes[2];    /* [0]: one node per distinct empty shape; [1]: per shape with usage */
    size_t nshapes[2];
    size_t *shape_of[2];        /* [now][node index]: the index of its shape in shapes[now] */
    const char **identity_keys; /* label keys that tell nodes apart (sorted): no part of a shape */
    size_t nidentity_keys;
    char *advisory;         /* set once before sharing: the infeasible rule only warns (inventory.h) */
    warning_vec_t warnings; /* Pods left out (the first GPA_INVENTORY_MAX_WARNINGS); in rec_ */
    size_t nwarnings, committed_warnings, committed_nwarnings; /* all of them, and both at the last good commit */
    gpa_dra_known_t dra;                                       /* DeviceClasses, claims, templates (in rec_) */
    size_t committed_dra;
    unsigned committed_dra_complete;
    gpa_dra_pools_t dra_pools; /* ResourceSlices added (in rec_); pools and devices sealed in view_arena */
    size_t committed_slices;
    gpa_intern_t intern_; /* while records come: what slices share, in rec_ (its table freed at each commit) */
    held_vec_t held;      /* slices borrowed from their owners (gpa_inventory_hold_slice); in rec_ */
    size_t committed_held;
};

gpa_inventory_t *gpa_inventory_new(void)
{
    gpa_inventory_t *inv = gpa_xcalloc(1, sizeof(*inv));
    inv->refcnt = 1;
    gpa_intern_init(&inv->intern_, &inv->rec_);
    return inv;
}

gpa_inventory_t *gpa_inventory_retain(gpa_inventory_t *inv)
{
    __atomic_add_fetch(&inv->refcnt, 1, __ATOMIC_RELAXED);
    return inv;
}

static void release_held(gpa_inventory_t *inv, size_t keep);

void gpa_inventory_release(gpa_inventory_t *inv)
{
    if (inv == NULL || __atomic_sub_fetch(&inv->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    release_held(inv, 0);
    gpa_intern_dispose(&inv->intern_);
    gpa_arena_dispose(&inv->rec_);
    gpa_inventory_release(inv->templates_from);
    free(inv->advisory);
    if (inv->view_arena != NULL) {
        gpa_arena_dispose(inv->view_arena);
        free(inv->view_arena);
    }
    free(inv);
}

/* ---- records ---- */

static const char *dup_str(gpa_inventory_t *inv, const char *s)
{
    return s != NULL ? gpa_arena_strdup(&inv->rec_, s) : NULL;
}

void gpa_inventory_add_node(gpa_inventory_t *inv, const gpa_node_desc_t *d)
{
    gpa_node_desc_t *n = gpa_vec_push(&inv->rec_, &inv->nodes_rec);
    *n = *d;
    n->name = dup_str(inv, d->name);
    n->model = dup_str(inv, d->model != NULL ? d->model : "");
    n->source = dup_str(inv, d->source);
    gpa_pair_t *labels = gpa_arena_calloc(&inv->rec_, d->nlabels + 1, sizeof(*labels));
    for (size_t i = 0; i < d->nlabels; i++) {
        labels[i].key = dup_str(inv, d->labels[i].key);
        labels[i].value = dup_str(inv, d->labels[i].value);
        labels[i].line = d->labels[i].line;
        labels[i].column = d->labels[i].column;
    }
    n->labels = labels;
}

void gpa_inventory_add_gpu(gpa_inventory_t *inv, const gpa_gpu_desc_t *d)
{
    gpa_gpu_desc_t *g = gpa_vec_push(&inv->rec_, &inv->gpus_rec);
    *g = *d;
    g->node = dup_str(inv, d->node);
    g->source = dup_str(inv, d->source);
    g->uuid = dup_str(inv, d->uuid);
    g->type = dup_str(inv, d->type);
    g->mode = dup_str(inv, d->mode);
}

void gpa_inventory_add_usage(gpa_inventory_t *inv, const gpa_usage_desc_t *d)
{
    gpa_usage_desc_t *u = gpa_vec_push(&inv->rec_, &inv->usages_rec);
    *u = *d;
    u->node = dup_str(inv, d->node);
    u->pod = dup_str(inv, d->pod != NULL ? d->pod : "");
    u->source = dup_str(inv, d->source);
    u->uuid = dup_str(inv, d->uuid);
}

void gpa_inventory_add_warning(gpa_inventory_t *inv, const gpa_error_t *why)
{
    if (inv->nwarnings++ >= GPA_INVENTORY_MAX_WARNINGS)
        return;
    gpa_error_t *w = gpa_vec_push(&inv->rec_, &inv->warnings);
    *w = *why;
    w->source = dup_str(inv, why->source);
}

const gpa_error_t *gpa_inventory_warnings(const gpa_inventory_t *inv, size_t *n, size_t *total)
{
    *n = inv->warnings.len;
    if (total != NULL)
        *total = inv->nwarnings;
    return inv->warnings.items;
}

/* ---- the view ---- */

const gpa_node_t *gpa_inventory_nodes(const gpa_inventory_t *inv, size_t *n)
{
    *n = inv->nnodes;
    return inv->nodes;
}

const gpa_node_t *gpa_inventory_templates(const gpa_inventory_t *inv, size_t *n)
{
    if (inv->templates_from != NULL)
        return gpa_inventory_templates(inv->templates_from, n);
    *n = inv->ntemplates;
    return inv->templates;
}

void gpa_inventory_set_templates(gpa_inventory_t *inv, gpa_inventory_t *from)
{
    if (from != NULL)
        gpa_inventory_retain(from);
    gpa_inventory_release(inv->templates_from);
    inv->templates_from = from;
}

/* Records since the last good commit are not in the view: only committed ones are judged. */
int gpa_inventory_templates_only(const gpa_inventory_t *inv, gpa_error_t *err)
{
    const char *what = NULL, *name = NULL, *source = NULL;
    unsigned line = 0;
    for (size_t i = 0; what == NULL && i < inv->committed_nodes; i++) {
        const gpa_node_desc_t *d = &inv->nodes_rec.items[i];
        if (!d->is_template)
            what = "node", name = d->name, source = d->source, line = d->line;
    }
    for (size_t i = 0; what == NULL && i < inv->committed_gpus; i++) {
        const gpa_gpu_desc_t *g = &inv->gpus_rec.items[i];
        if (g->device_object)
            what = "Device object", name = g->node, source = g->source, line = g->line;
    }
    if (what == NULL && inv->committed_usages > 0) {
        const gpa_usage_desc_t *u = &inv->usages_rec.items[0];
        what = "usage of Pod", name = u->pod, source = u->source, line = u->line;
    }
    if (what == NULL)
        return 0;
    gpa_error_init(err, source);
    return gpa_error_set(err, line, 0, NULL, "%s %s: only node templates are read from inventory files beside a live cluster", what,
                         name);
}

static gpa_node_t *find_node(gpa_node_t *nodes, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(nodes[mid].name, name);
        if (c == 0)
            return &nodes[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const gpa_node_t *gpa_inventory_find(const gpa_inventory_t *inv, const char *name)
{
    return find_node(inv->nodes, inv->nnodes, name);
}

const char *gpa_node_label(const gpa_node_t *node, const char *key)
{
    size_t lo = 0, hi = node->nlabels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(node->labels[mid].key, key);
        if (c == 0)
            return node->labels[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static gpa_gpu_t *find_gpu(const gpa_node_t *node, int32_t minor)
{
    size_t lo = 0, hi = node->ngpus;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (node->gpus[mid].minor == minor)
            return &node->gpus[mid];
        if (node->gpus[mid].minor < minor)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The card HAMi registered under `uuid`, or NULL (a node has at most 1024 devices: a scan). */
static gpa_gpu_t *find_uuid(const gpa_node_t *node, const char *uuid)
{
    for (size_t i = 0; i < node->ngpus; i++)
        if (strcmp(node->gpus[i].uuid, uuid) == 0 && uuid[0] != '\0')
            return &node->gpus[i];
    return NULL;
}

/* ---- commit: records → view ---- */

typedef struct st_resolve_t {
    gpa_inventory_t *inv;
    gpa_arena_t *a;
    gpa_error_t *err;
    gpa_node_t *nodes;
    size_t nnodes;
    const gpa_node_desc_t **descs; /* per view node: its Node record, or NULL (Device object only) */
    const gpa_gpu_desc_t **gdescs; /* every gpu record, sorted by (node, minor, record order) */
    size_t ngdescs;
    gpa_node_t *templates; /* split off the nodes once built (split_templates) */
    size_t ntemplates;
} resolve_t;

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_pair(const void *x, const void *y)
{
    return strcmp(((const gpa_pair_t *)x)->key, ((const gpa_pair_t *)y)->key);
}

static int cmp_gpu_desc(const void *x, const void *y)
{
    const gpa_gpu_desc_t *a = *(const gpa_gpu_desc_t *const *)x, *b = *(const gpa_gpu_desc_t *const *)y;
    int c = strcmp(a->node, b->node);
    if (c != 0)
        return c;
    if (a->minor != b->minor)
        return a->minor < b->minor ? -1 : 1;
    return a < b ? -1 : a > b; /* record order */
}

static int cmp_gpu(const void *x, const void *y)
{
    const gpa_gpu_t *a = x, *b = y;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

static int cmp_usage(const void *x, const void *y)
{
    const gpa_usage_desc_t *a = *(const gpa_usage_desc_t *const *)x, *b = *(const gpa_usage_desc_t *const *)y;
    int c = strcmp(a->node, b->node);
    if (c == 0)
        c = (a->whole_count > 0) - (b->whole_count > 0); /* named devices first, then "any N whole" */
    if (c == 0)
        c = strcmp(a->pod, b->pod);
    if (c != 0)
        return c;
    return a < b ? -1 : a > b;
}

/* The sorted, de-duplicated names of every node: Node records and Device objects' nodes. */
static int collect_names(resolve_t *r)
{
    gpa_inventory_t *inv = r->inv;
    size_t cap = inv->nodes_rec.len + inv->gpus_rec.len;
    const char **names = gpa_arena_calloc(r->a, cap + 1, sizeof(*names));
    size_t n = 0;
    for (size_t i = 0; i < inv->nodes_rec.len; i++)
        names[n++] = inv->nodes_rec.items[i].name;
    for (size_t i = 0; i < inv->gpus_rec.len; i++)
        if (inv->gpus_rec.items[i].device_object)
            names[n++] = inv->gpus_rec.items[i].node;
    qsort(names, n, sizeof(*names), cmp_str_ptr);
    r->nodes = gpa_arena_calloc(r->a, n + 1, sizeof(*r->nodes));
    r->descs = gpa_arena_calloc(r->a, n + 1, sizeof(*r->descs));
    for (size_t i = 0; i < n; i++)
        if (r->nnodes == 0 || strcmp(r->nodes[r->nnodes - 1].name, names[i]) != 0)
            r->nodes[r->nnodes++].name = names[i];
    for (size_t i = 0; i < inv->nodes_rec.len; i++) {
        const gpa_node_desc_t *d = &inv->nodes_rec.items[i];
        gpa_node_t *node = find_node(r->nodes, r->nnodes, d->name);
        size_t k = (size_t)(node - r->nodes);
        if (r->descs[k] != NULL) {
            r->err->source = d->source;
            return gpa_error_set(r->err, d->line, 0, NULL, "%s %s is described twice (first at %s:%u)",
                                 d->is_template ? "template" : "node", d->name,
                                 r->descs[k]->source != NULL ? r->descs[k]->source : "<input>", r->descs[k]->line);
        }
        r->descs[k] = d;
    }
    return 0;
}

static void node_from_desc(gpa_node_t *node, const gpa_node_desc_t *d)
{
    node->labels = (gpa_pair_t *)d->labels;
    node->nlabels = d->nlabels;
    qsort(node->labels, node->nlabels, sizeof(*node->labels), cmp_pair);
    node->model = d->model;
    node->source = d->source;
    node->line = d->line;
    node->dialects = d->dialects;
    node->koordinator = d->koordinator;
    node->is_template = d->is_template;
    if (node->dialects == 0)
        node->dialects = d->mgpu ? GPA_DIALECT_MGPU : GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR;
}

/* A device no HAMi register describes: whole compute, no HAMi fields. */
static gpa_gpu_t plain_gpu(int32_t minor, int healthy, int64_t core, int64_t memory)
{
    return (gpa_gpu_t){.minor = minor, .healthy = healthy, .core = core, .memory = memory, .uuid = "", .type = "", .mode = ""};
}

static gpa_gpu_t gpu_from_desc(const gpa_gpu_desc_t *g, const gpa_gpu_t *base)
{
    gpa_gpu_t gpu = base != NULL ? *base : plain_gpu(0, 0, 100, 0);
    gpu.minor = g->minor;
    gpu.healthy = g->healthy;
    if (g->core > 0)
        gpu.core = g->core;
    if (g->memory >= 0)
        gpu.memory = g->memory;
    if (g->uuid != NULL) { /* a HAMi card */
        gpu.uuid = g->uuid;
        gpu.type = g->type != NULL ? g->type : "";
        gpu.mode = g->mode != NULL ? g->mode : "";
        gpu.numa = g->numa;
        gpu.slots = g->slots;
    }
    return gpu;
}

/* The node's devices: its Device object's, else derived from the Node record and overridden by compact ones. */
static int build_gpus(resolve_t *r, gpa_node_t *node, const gpa_node_desc_t *d, const gpa_gpu_desc_t **g, size_t ng)
{
    int device_object = 0;
    for (size_t i = 0; i < ng; i++)
        device_object |= g[i]->device_object;
    size_t nderived = (!device_object && d != NULL && d->count > 0) ? (size_t)d->count : 0;
    node->gpus = gpa_arena_calloc(r->a, nderived + ng + 1, sizeof(*node->gpus));
    for (size_t i = 0; i < nderived; i++)
        node->gpus[i] = plain_gpu((int32_t)i, 1, d->core > 0 ? d->core : 100, d->memory);
    node->ngpus = nderived;
    node->koordinator |= device_object;
    for (size_t i = 0; i < ng; i++) {
        if (device_object && !g[i]->device_object)
            continue; /* the Device object is the truth about this node's devices */
        gpa_gpu_t *same = i > 0 && g[i - 1]->minor == g[i]->minor ? find_gpu(node, g[i]->minor) : NULL;
        if (same != NULL && g[i - 1]->device_object == g[i]->device_object) {
            r->err->source = g[i]->source;
            return gpa_error_set(r->err, g[i]->line, 0, NULL, "node %s: device minor %d is listed twice", node->name,
                                 (int)g[i]->minor);
        }
        gpa_gpu_t *derived = (size_t)g[i]->minor < nderived && g[i]->minor >= 0 ? &node->gpus[g[i]->minor] : NULL;
        if (derived != NULL)
            *derived = gpu_from_desc(g[i], derived);
        else
            node->gpus[node->ngpus++] = gpu_from_desc(g[i], NULL);
    }
    qsort(node->gpus, node->ngpus, sizeof(*node->gpus), cmp_gpu);
    return 0;
}

static int build_nodes(resolve_t *r)
{
    size_t gi = 0;
    for (size_t k = 0; k < r->nnodes; k++) {
        gpa_node_t *node = &r->nodes[k];
        const gpa_node_desc_t *d = r->descs[k];
        if (d != NULL)
            node_from_desc(node, d);
        else
            node->model = "", node->dialects = GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR;
        while (gi < r->ngdescs && strcmp(r->gdescs[gi]->node, node->name) < 0) {
            r->err->source = r->gdescs[gi]->source;
            return gpa_error_set(r->err, r->gdescs[gi]->line, 0, NULL, "device for node %s, which no node describes",
                                 r->gdescs[gi]->node);
        }
        size_t start = gi;
        while (gi < r->ngdescs && strcmp(r->gdescs[gi]->node, node->name) == 0)
            gi++;
        if (build_gpus(r, node, d, r->gdescs + start, gi - start) != 0)
            return -1;
        if (node->koordinator)
            node->dialects |= GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR;
        if (node->source == NULL && gi > start)
            node->source = r->gdescs[start]->source, node->line = r->gdescs[start]->line;
    }
    if (gi < r->ngdescs) {
        r->err->source = r->gdescs[gi]->source;
        return gpa_error_set(r->err, r->gdescs[gi]->line, 0, NULL, "device for node %s, which no node describes",
                             r->gdescs[gi]->node);
    }
    return 0;
}

/* Keeps the nodes with GPUs, and moves templates (with GPUs) to their own list: both stay in name order. */
static void split_templates(resolve_t *r)
{
    size_t kept = 0;
    r->templates = gpa_arena_calloc(r->a, r->nnodes + 1, sizeof(*r->templates));
    for (size_t k = 0; k < r->nnodes; k++) {
        if (r->nodes[k].ngpus == 0)
            continue;
        if (r->nodes[k].is_template)
            r->templates[r->ntemplates++] = r->nodes[k];
        else
            r->nodes[kept++] = r->nodes[k];
    }
    r->nnodes = kept;
}

static int untouched(const gpa_gpu_t *g)
{
    return !g->whole_used && g->pods == 0 && g->core_used == 0 && g->memory_used == 0;
}

static void apply_share(gpa_gpu_t *g, const gpa_usage_desc_t *u, const char **last_pod)
{
    if (u->whole) {
        g->whole_used = 1;
        return;
    }
    /* Usage beyond capacity (an over-committed report) saturates, never overflows. */
    int64_t mem = u->memory >= 0 ? u->memory : gpa_mul_ceil_div_i64(u->ratio, g->memory, 100), core = u->core;
    if (mem < 0)
        mem = INT64_MAX;
    if (u->uuid != NULL) { /* a HAMi entry (tenant-written): never more than the card */
        mem = mem < g->memory ? mem : g->memory;
        core = core < g->core ? core : g->core;
        g->slots_used = gpa_sat_add_i64(g->slots_used, u->slots);
    }
    g->core_used = gpa_sat_add_i64(g->core_used, core);
    g->memory_used = gpa_sat_add_i64(g->memory_used, mem);
    if (u->containers > 0)
        g->pods = gpa_sat_add_i64(g->pods, u->containers);
    else if (*last_pod == NULL || strcmp(*last_pod, u->pod) != 0)
        g->pods++;
    *last_pod = u->pod;
}

static void apply_whole_count(gpa_node_t *node, const gpa_usage_desc_t *u)
{
    int64_t left = u->whole_count;
    for (size_t i = 0; i < node->ngpus && left > 0; i++)
        if (untouched(&node->gpus[i]) && node->gpus[i].healthy)
            node->gpus[i].whole_used = 1, left--;
}

static void apply_usages(resolve_t *r)
{
    gpa_inventory_t *inv = r->inv;
    size_t n = inv->usages_rec.len;
    const gpa_usage_desc_t **us = gpa_arena_calloc(r->a, n + 1, sizeof(*us));
    for (size_t i = 0; i < n; i++)
        us[i] = &inv->usages_rec.items[i];
    qsort(us, n, sizeof(*us), cmp_usage);
    /* The last Pod seen per device, so that a Pod with several containers on one device counts once. */
    const char **last = NULL;
    gpa_node_t *cur = NULL;
    const char *looked_up = NULL; /* usages come sorted by node: look each node up once */
    gpa_node_t *node = NULL;
    for (size_t i = 0; i < n; i++) {
        if (looked_up == NULL || strcmp(looked_up, us[i]->node) != 0)
            node = find_node(r->nodes, r->nnodes, looked_up = us[i]->node);
        if (node == NULL)
            continue; /* a Pod on a node without GPUs */
        if (node != cur) {
            cur = node;
            last = gpa_arena_calloc(r->a, node->ngpus + 1, sizeof(*last));
        }
        if (us[i]->whole_count > 0) {
            apply_whole_count(node, us[i]);
            continue;
        }
        gpa_gpu_t *g = us[i]->uuid != NULL ? find_uuid(node, us[i]->uuid) : find_gpu(node, us[i]->minor);
        if (g != NULL)
            apply_share(g, us[i], &last[g - node->gpus]);
    }
}

/* ---- distinct node shapes (inventory.h, gpa_inventory_shapes) ---- */

static uint64_t mix(uint64_t h, uint64_t x)
{
    return (h ^ x) * 0x100000001b3ULL;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++)
        h = mix(h, (unsigned char)*s);
    return mix(h, 0xff); /* a separator: ("ab","c") and ("a","bc") differ */
}

/* ---- identity labels: a key with more distinct values than IDENTITY_VALUES (kubernetes.io/hostname) ---- */

#define IDENTITY_VALUES 32

static int cmp_label_ptr(const void *x, const void *y)
{
    const gpa_pair_t *a = *(const gpa_pair_t *const *)x, *b = *(const gpa_pair_t *const *)y;
    int c = strcmp(a->key, b->key);
    return c != 0 ? c : strcmp(a->value, b->value);
}

static void find_identity_keys(gpa_inventory_t *inv, gpa_arena_t *a)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < inv->nnodes; i++)
        n += inv->nodes[i].nlabels;
    const gpa_pair_t **all = gpa_arena_calloc(a, n + 1, sizeof(*all));
    for (size_t i = 0; i < inv->nnodes; i++)
        for (size_t l = 0; l < inv->nodes[i].nlabels; l++)
            all[k++] = &inv->nodes[i].labels[l];
    qsort(all, n, sizeof(*all), cmp_label_ptr);
    inv->identity_keys = gpa_arena_calloc(a, n + 1, sizeof(*inv->identity_keys));
    inv->nidentity_keys = 0;
    for (size_t i = 0; i < n;) {
        size_t distinct = 1, j = i + 1;
        for (; j < n && strcmp(all[j]->key, all[i]->key) == 0; j++)
            distinct += strcmp(all[j]->value, all[j - 1]->value) != 0;
        if (distinct > IDENTITY_VALUES)
            inv->identity_keys[inv->nidentity_keys++] = all[i]->key;
        i = j;
    }
}

int gpa_inventory_identity_key(const gpa_inventory_t *inv, const char *key)
{
    size_t lo = 0, hi = inv->nidentity_keys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(inv->identity_keys[mid], key);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Everything the allocator reads of a node except its name and identity labels: labels, dialects, devices (and
 * usage when `now`). */
static uint64_t shape_hash(const gpa_inventory_t *inv, const gpa_node_t *n, int now)
{
    uint64_t h = mix_str(mix(mix(0xcbf29ce484222325ULL, n->dialects), (uint64_t)n->koordinator), n->model);
    for (size_t i = 0; i < n->nlabels; i++)
        if (!gpa_inventory_identity_key(inv, n->labels[i].key))
            h = mix_str(mix_str(h, n->labels[i].key), n->labels[i].value);
    for (size_t i = 0; i < n->ngpus; i++) {
        const gpa_gpu_t *g = &n->gpus[i];
        h = mix(mix(mix(mix(h, (uint64_t)g->minor), (uint64_t)g->healthy), (uint64_t)g->core), (uint64_t)g->memory);
        h = mix(mix(mix_str(mix_str(h, g->type), g->mode), (uint64_t)g->numa), (uint64_t)g->slots);
        if (now)
            h = mix(
                mix(mix(mix(mix(h, (uint64_t)g->core_used), (uint64_t)g->memory_used), (uint64_t)g->pods), (uint64_t)g->whole_used),
                (uint64_t)g->slots_used);
    }
    return h;
}

static int same_gpu(const gpa_gpu_t *x, const gpa_gpu_t *y, int now)
{
    if (x->minor != y->minor || x->healthy != y->healthy || x->core != y->core || x->memory != y->memory ||
        strcmp(x->type, y->type) != 0 || strcmp(x->mode, y->mode) != 0 || x->numa != y->numa || x->slots != y->slots)
        return 0; /* the UUID names the card: no part of the shape */
    return !now || (x->core_used == y->core_used && x->memory_used == y->memory_used && x->pods == y->pods &&
                    x->whole_used == y->whole_used && x->slots_used == y->slots_used);
}

/* The next label at or after *i that is not an identity label (its index), or the count when none is left. */
static size_t next_label(const gpa_inventory_t *inv, const gpa_node_t *n, size_t i)
{
    while (i < n->nlabels && gpa_inventory_identity_key(inv, n->labels[i].key))
        i++;
    return i;
}

static int same_labels(const gpa_inventory_t *inv, const gpa_node_t *x, const gpa_node_t *y)
{
    size_t i = next_label(inv, x, 0), j = next_label(inv, y, 0);
    for (; i < x->nlabels && j < y->nlabels; i = next_label(inv, x, i + 1), j = next_label(inv, y, j + 1))
        if (strcmp(x->labels[i].key, y->labels[j].key) != 0 || strcmp(x->labels[i].value, y->labels[j].value) != 0)
            return 0;
    return i == x->nlabels && j == y->nlabels;
}

static int same_shape(const gpa_inventory_t *inv, const gpa_node_t *x, const gpa_node_t *y, int now)
{
    if (x->dialects != y->dialects || x->koordinator != y->koordinator || strcmp(x->model, y->model) != 0 || x->ngpus != y->ngpus ||
        !same_labels(inv, x, y))
        return 0;
    for (size_t i = 0; i < x->ngpus; i++)
        if (!same_gpu(&x->gpus[i], &y->gpus[i], now))
            return 0;
    return 1;
}

/* The first node (in name order) of each distinct shape, in name order: an open-addressed set of shapes. */
static void build_shapes(gpa_inventory_t *inv, gpa_arena_t *a, int now)
{
    size_t cap = 16;
    while (cap < inv->nnodes * 2)
        cap *= 2;
    size_t *slots = gpa_arena_calloc(a, cap, sizeof(*slots)); /* index + 1 into the representatives; 0 = free */
    uint64_t *hashes = gpa_arena_calloc(a, inv->nnodes + 1, sizeof(*hashes));
    const gpa_node_t **reps = gpa_arena_calloc(a, inv->nnodes + 1, sizeof(*reps));
    size_t *shape_of = gpa_arena_calloc(a, inv->nnodes + 1, sizeof(*shape_of));
    size_t n = 0;
    for (size_t i = 0; i < inv->nnodes; i++) {
        const gpa_node_t *node = &inv->nodes[i];
        uint64_t h = shape_hash(inv, node, now);
        size_t k = h & (cap - 1);
        while (slots[k] != 0 && !(hashes[slots[k] - 1] == h && same_shape(inv, reps[slots[k] - 1], node, now)))
            k = (k + 1) & (cap - 1);
        if (slots[k] == 0) {
            hashes[n] = h;
            reps[n++] = node;
            slots[k] = n;
        }
        shape_of[i] = slots[k] - 1;
    }
    inv->shape_of[now] = shape_of;
    inv->shapes[now] = reps;
    inv->nshapes[now] = n;
}

const gpa_node_t *const *gpa_inventory_shapes(const gpa_inventory_t *inv, int now, size_t *n)
{
    *n = inv->nshapes[now != 0];
    return inv->shapes[now != 0];
}

size_t gpa_inventory_shape_of(const gpa_inventory_t *inv, const gpa_node_t *node, int now)
{
    return inv->shape_of[now != 0][node - inv->nodes];
}

void gpa_inventory_set_advisory(gpa_inventory_t *inv, const char *why)
{
    free(inv->advisory);
    inv->advisory = why != NULL ? gpa_xstrdup(why) : NULL;
}

const char *gpa_inventory_advisory(const gpa_inventory_t *inv)
{
    return inv->advisory;
}

int gpa_inventory_read_slice(gpa_intern_t *in, const gpa_value_t *doc, const char *path, const gpa_dra_slice_t **out,
                             gpa_error_t *err)
{
    static const gpa_decode_opts_t only_dra = {.dialects = GPA_DIALECT_DRA};
    gpa_arena_t scratch;
    gpa_object_t *obj;
    gpa_arena_init(&scratch);
    int rc = gpa_decode_object_with(&scratch, &only_dra, (gpa_value_t *)doc, &obj, err); /* read, not changed */
    if (rc == 0 && (obj->dra == NULL || obj->dra->slice == NULL))
        rc = gpa_error_set(err, doc->line, doc->column, "", "not a ResourceSlice");
    if (rc == 0) {
        gpa_dra_slice_t *copy = gpa_arena_alloc(in->a, sizeof(*copy));
        gpa_dra_slice_copy(in, obj->dra->slice, copy);
        *out = copy;
    } else if (path[0] != '\0') {
        gpa_decode_error_within(err, path); /* items[2].spec...: where the object sits in its List */
    }
    gpa_arena_dispose(&scratch);
    return rc;
}

void gpa_inventory_hold_slice(gpa_inventory_t *inv, const gpa_dra_slice_t *slice, void (*release)(void *owner), void *owner)
{
    *gpa_vec_push(&inv->rec_, &inv->held) = (held_t){release, owner};
    gpa_dra_pools_add(&inv->rec_, &inv->dra_pools, slice);
}

/* The holds past the first `keep`, released (their slices are no longer read). */
static void release_held(gpa_inventory_t *inv, size_t keep)
{
    while (inv->held.len > keep) {
        held_t *h = &inv->held.items[--inv->held.len];
        h->release(h->owner);
    }
}

/* A ResourceSlice is kept as its copy, which borrows nothing from the document and shares what is equal across slices:
 * what 10^5 devices cost is their few distinct values, not their JSON. */
static int add_slice(gpa_inventory_t *inv, const gpa_value_t *doc, const char *path, gpa_error_t *err)
{
    const gpa_dra_slice_t *slice;
    if (gpa_inventory_read_slice(&inv->intern_, doc, path, &slice, err) != 0)
        return -1;
    gpa_dra_pools_add(&inv->rec_, &inv->dra_pools, slice);
    return 0;
}

int gpa_inventory_add_dra(gpa_inventory_t *inv, const gpa_value_t *doc, const char *path, gpa_error_t *err)
{
    static const gpa_decode_opts_t only_dra = {.dialects = GPA_DIALECT_DRA};
    if (gpa_dra_kind_of(gpa_value_string(gpa_value_get(doc, "apiVersion")), gpa_value_string(gpa_value_get(doc, "kind"))) ==
        GPA_DRA_SLICE)
        return add_slice(inv, doc, path, err);
    gpa_object_t *obj;
    if (gpa_decode_object_with(&inv->rec_, &only_dra, gpa_value_clone(&inv->rec_, doc), &obj, err) != 0) {
        if (path[0] != '\0')
            gpa_decode_error_within(err, path);
        return -1;
    }
    if (obj->dra == NULL || obj->dra->kind >= GPA_DRA__KINDS)
        return 0;
    gpa_dra_known_add(&inv->rec_, &inv->dra, obj->dra);
    gpa_dra_known_set_complete(&inv->dra, obj->dra->kind);
    return 0;
}

int gpa_inventory_has_nodes(const gpa_inventory_t *inv)
{
    int dra = inv->dra.len_ != 0 || inv->committed_slices != 0;
    return !dra || inv->committed_nodes != 0 || inv->committed_gpus != 0 || inv->committed_usages != 0;
}

void gpa_inventory_dra_complete(gpa_inventory_t *inv, gpa_dra_kind_t kind)
{
    gpa_dra_known_set_complete(&inv->dra, kind);
}

const gpa_dra_known_t *gpa_inventory_dra(const gpa_inventory_t *inv)
{
    return inv != NULL ? &inv->dra : NULL;
}

const gpa_dra_pools_t *gpa_inventory_dra_pools(const gpa_inventory_t *inv)
{
    return inv != NULL && inv->dra_pools.ndevices != 0 ? &inv->dra_pools : NULL;
}

/* An incomplete pool, named among the inventory's warnings once (every commit gathers the pools again). */
static void pool_warning(void *ctx, const char *message)
{
    gpa_inventory_t *inv = ctx;
    for (size_t i = 0; i < inv->warnings.len; i++)
        if (strcmp(inv->warnings.items[i].message, message) == 0)
            return;
    gpa_error_t w;
    gpa_error_init(&w, NULL);
    gpa_error_set(&w, 0, 0, "", "%s", message);
    gpa_inventory_add_warning(ctx, &w);
}

void gpa_inventory_rollback(gpa_inventory_t *inv)
{
    release_held(inv, inv->committed_held);
    inv->dra.len_ = inv->committed_dra;
    if (inv->dra.indexed_ > inv->dra.len_)
        inv->dra.nslots_ = inv->dra.indexed_ = 0; /* the index names dropped entries: unused until the next seal */
    inv->dra.complete = inv->committed_dra_complete;
    inv->nodes_rec.len = inv->committed_nodes;
    inv->gpus_rec.len = inv->committed_gpus;
    inv->usages_rec.len = inv->committed_usages;
    inv->warnings.len = inv->committed_warnings;
    inv->nwarnings = inv->committed_nwarnings;
    inv->dra_pools.added_.len = inv->committed_slices;
}

/* What the inventory's allocated claims hold of its devices (dra_pools.h gpa_dra_pools_use), in the view's arena. */
static void use_claims(gpa_inventory_t *inv, gpa_arena_t *a)
{
    const gpa_dra_object_t **claims = gpa_arena_alloc(a, (inv->dra.len_ + 1) * sizeof(*claims));
    size_t n = 0;
    for (size_t i = 0; i < inv->dra.len_; i++)
        if (inv->dra.entries_[i].object->nallocated != 0)
            claims[n++] = inv->dra.entries_[i].object;
    if (n != 0 && inv->dra_pools.ndevices != 0)
        gpa_dra_pools_use(a, &inv->dra_pools, claims, n);
}

int gpa_inventory_commit(gpa_inventory_t *inv, gpa_error_t *err)
{
    gpa_arena_t *a = gpa_xcalloc(1, sizeof(*a));
    resolve_t r = {.inv = inv, .a = a, .err = err};
    r.ngdescs = inv->gpus_rec.len;
    r.gdescs = gpa_arena_calloc(a, r.ngdescs + 1, sizeof(*r.gdescs));
    for (size_t i = 0; i < r.ngdescs; i++)
        r.gdescs[i] = &inv->gpus_rec.items[i];
    qsort(r.gdescs, r.ngdescs, sizeof(*r.gdescs), cmp_gpu_desc);
    if (collect_names(&r) != 0 || build_nodes(&r) != 0) {
        gpa_arena_dispose(a);
        free(a);
        gpa_inventory_rollback(inv);
        return -1;
    }
    split_templates(&r);
    apply_usages(&r);
    if (inv->view_arena != NULL) {
        gpa_arena_dispose(inv->view_arena);
        free(inv->view_arena);
    }
    inv->view_arena = a;
    gpa_dra_known_seal(&inv->rec_, &inv->dra);
    gpa_dra_pools_seal(a, &inv->dra_pools, pool_warning, inv);
    use_claims(inv, a);
    inv->committed_slices = inv->dra_pools.added_.len;
    gpa_intern_dispose(&inv->intern_); /* the table only: what was interned stays in rec_ */
    inv->committed_held = inv->held.len;
    inv->committed_dra = inv->dra.len_;
    inv->committed_dra_complete = inv->dra.complete;
    inv->nodes = r.nodes;
    inv->nnodes = r.nnodes;
    inv->templates = r.templates;
    inv->ntemplates = r.ntemplates;
    find_identity_keys(inv, a);
    build_shapes(inv, a, 0);
    build_shapes(inv, a, 1);
    inv->committed_nodes = inv->nodes_rec.len;
    inv->committed_gpus = inv->gpus_rec.len;
    inv->committed_usages = inv->usages_rec.len;
    inv->committed_warnings = inv->warnings.len;
    inv->committed_nwarnings = inv->nwarnings;
    return 0;
}
