/*
 * The live inventory (view.h): per kind, a hash map from the object's key to the records it stands for. Records
 * are copied out of the reflector's arena into one heap block per object; everything else of the object is
 * dropped as soon as it was read.
 */
#include "view.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "kinds.h"

/* ---- one object's records ---- */

/*
 * Immutable once in the map: a change replaces the whole block. Reference-counted so that a snapshot can hold
 * every block while it copies them out, without holding the view's lock.
 */
typedef struct st_records_t {
    atomic_int refs;
    char *key;             /* the object's: name, or namespace/name */
    gpa_node_desc_t *node; /* a Node's, or NULL */
    gpa_gpu_desc_t *gpus;  /* a Device object's */
    size_t ngpus;
    gpa_usage_desc_t *usages; /* a Pod's */
    size_t nusages;
    char **rules; /* a Pod's audit findings (rule ids), and its namespace for their counts */
    size_t nrules;
    char *ns;
    gpa_arena_t *dra_arena; /* a DRA object's: its copy, stamped with its kind, or a ResourceSlice's as read */
    gpa_value_t *dra;
    const gpa_dra_slice_t *slice; /* a ResourceSlice's (in dra_arena), which keeps no object tree */
} records_t;

typedef struct st_entry_t {
    struct st_entry_t *next;
    uint64_t hash;
    records_t *rec; /* one reference */
} entry_t;

typedef struct st_map_t {
    entry_t **slots;
    size_t cap, len;
} map_t;

typedef struct st_count_t {
    struct st_count_t *next;
    char *rule, *ns;
    uint64_t pods;
} count_t;

struct st_gpa_view_t {
    pthread_mutex_t lock;
    map_t live[GPA_VIEW_NKINDS];
    map_t pending[GPA_VIEW_NKINDS]; /* a relist in progress fills this */
    int listing[GPA_VIEW_NKINDS];
    int listed[GPA_VIEW_NKINDS];     /* the last list ended, served: the kind's set is complete */
    int not_served[GPA_VIEW_NKINDS]; /* the list in progress answered 404 */
    count_t *counts;                 /* audit findings per (rule, namespace); few distinct pairs */
    uint64_t generation;
    /* Where each kind is read: the static tables', DRA's at the version set (gpa_view_dra_version). Fixed before
     * the first list. */
    gpa_kube_kind_t kind_at[GPA_VIEW_NKINDS];
    char path_at[GPA_VIEW_NKINDS][64];
};

/* resource.k8s.io's versions the view reads, newest first (what kube/dra.h decodes). */
static const char *const dra_versions[] = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"};

static const gpa_kube_kind_t *const kinds[GPA_VIEW_NKINDS] = {
    &gpa_kube_kind_node,           &gpa_kube_kind_device, &gpa_kube_kind_pod,  &gpa_kube_kind_device_class,
    &gpa_kube_kind_claim_template, &gpa_kube_kind_claim,  &gpa_kube_kind_slice};
static const char *const kind_paths[GPA_VIEW_NKINDS] = {
    "/api/v1/nodes",
    "/apis/scheduling.koordinator.sh/v1alpha1/devices",
    "/api/v1/pods",
    "/apis/resource.k8s.io/v1/deviceclasses",
    "/apis/resource.k8s.io/v1/resourceclaimtemplates",
    "/apis/resource.k8s.io/v1/resourceclaims",
    "/apis/resource.k8s.io/v1/resourceslices",
};
static const char *const kind_names[GPA_VIEW_NKINDS] = {
    "nodes", "devices", "pods", "deviceclasses", "resourceclaimtemplates", "resourceclaims", "resourceslices"};
/* The `source` of every record: where a resolution error points. */
static const char *const kind_sources[GPA_VIEW_NKINDS] = {
    "cluster Node",          "cluster Device",       "cluster Pod", "cluster DeviceClass", "cluster ResourceClaimTemplate",
    "cluster ResourceClaim", "cluster ResourceSlice"};
/* The DRA kind a view kind holds; GPA_DRA_NONE for the inventory's own. */
static const gpa_dra_kind_t dra_kinds[GPA_VIEW_NKINDS] = {GPA_DRA_NONE,     GPA_DRA_NONE,  GPA_DRA_NONE, GPA_DRA_CLASS,
                                                          GPA_DRA_TEMPLATE, GPA_DRA_CLAIM, GPA_DRA_SLICE};

const char *gpa_view_kind_path(gpa_view_kind_t kind)
{
    return kind_paths[kind];
}

const char *gpa_view_kind_name(gpa_view_kind_t kind)
{
    return kind_names[kind];
}

static void records_dispose(records_t *r)
{
    if (r->node != NULL) {
        for (size_t i = 0; i < r->node->nlabels; i++) {
            free((char *)r->node->labels[i].key);
            free((char *)r->node->labels[i].value);
        }
        free((void *)r->node->labels);
        free((char *)r->node->name);
        free((char *)r->node->model);
        free(r->node);
    }
    for (size_t i = 0; i < r->ngpus; i++) {
        free((char *)r->gpus[i].node);
        free((char *)r->gpus[i].uuid);
        free((char *)r->gpus[i].type);
        free((char *)r->gpus[i].mode);
    }
    free(r->gpus);
    for (size_t i = 0; i < r->nusages; i++) {
        free((char *)r->usages[i].node);
        free((char *)r->usages[i].uuid);
    }
    free(r->usages);
    for (size_t i = 0; i < r->nrules; i++)
        free(r->rules[i]);
    free(r->rules);
    free(r->ns);
    free(r->key);
    if (r->dra_arena != NULL) {
        gpa_arena_dispose(r->dra_arena);
        free(r->dra_arena);
    }
    memset(r, 0, sizeof(*r));
}

static void records_release(records_t *r)
{
    if (atomic_fetch_sub(&r->refs, 1) == 1) {
        records_dispose(r);
        free(r);
    }
}

/* ---- the map ---- */

static entry_t **slot_of(map_t *m, const char *key, uint64_t h)
{
    if (m->cap == 0)
        return NULL;
    entry_t **p = &m->slots[h & (m->cap - 1)];
    while (*p != NULL && ((*p)->hash != h || strcmp((*p)->rec->key, key) != 0))
        p = &(*p)->next;
    return p;
}

static void map_grow(map_t *m)
{
    size_t cap = m->cap != 0 ? m->cap * 2 : 64;
    entry_t **slots = gpa_xcalloc(cap, sizeof(*slots));
    for (size_t i = 0; i < m->cap; i++)
        for (entry_t *e = m->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            e->next = slots[e->hash & (cap - 1)];
            slots[e->hash & (cap - 1)] = e;
        }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

static void entry_free(entry_t *e)
{
    records_release(e->rec);
    free(e);
}

static void map_dispose(map_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        for (entry_t *e = m->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            entry_free(e);
        }
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

/* ---- audit counts ---- */

static void count_add(gpa_view_t *v, const char *rule, const char *ns, int delta)
{
    count_t *c = v->counts;
    while (c != NULL && (strcmp(c->rule, rule) != 0 || strcmp(c->ns, ns) != 0))
        c = c->next;
    if (c == NULL) {
        c = gpa_xcalloc(1, sizeof(*c));
        c->rule = gpa_xstrdup(rule);
        c->ns = gpa_xstrdup(ns);
        c->next = v->counts;
        v->counts = c;
    }
    c->pods += (uint64_t)(int64_t)delta;
}

/* The counts follow the Pods of the live set only: a relist's Pods count when they take over. */
static void count_records(gpa_view_t *v, const records_t *r, int delta)
{
    for (size_t i = 0; i < r->nrules; i++)
        count_add(v, r->rules[i], r->ns != NULL ? r->ns : "", delta);
}

static void count_map(gpa_view_t *v, const map_t *m, int delta)
{
    for (size_t i = 0; i < m->cap; i++)
        for (const entry_t *e = m->slots[i]; e != NULL; e = e->next)
            count_records(v, e->rec, delta);
}

/* Replaces (or with rec NULL, removes) the entry of `key`; takes rec's reference. */
static void map_put(gpa_view_t *v, map_t *m, int counted, const char *key, records_t *rec)
{
    uint64_t h = gpa_hash_string(key);
    if (rec != NULL && (m->cap == 0 || m->len >= m->cap))
        map_grow(m);
    entry_t **p = slot_of(m, key, h);
    entry_t *e = p != NULL ? *p : NULL;
    if (e != NULL) {
        if (counted)
            count_records(v, e->rec, -1);
        if (rec == NULL) {
            *p = e->next;
            m->len--;
            entry_free(e);
            return;
        }
        records_release(e->rec);
    } else {
        if (rec == NULL)
            return;
        e = gpa_xcalloc(1, sizeof(*e));
        e->hash = h;
        *p = e;
        m->len++;
    }
    e->rec = rec;
    if (counted)
        count_records(v, e->rec, 1);
}

/* ---- reading one object into records ---- */

typedef struct st_reader_t {
    records_t rec;
    const char *pod; /* the key, shared by the Pod's usages */
    int bad_node;    /* a Device object lists a minor twice */
    int32_t dup_minor;
    int warned; /* a Pod that holds nothing because it could not be read: why */
    gpa_error_t warning;
} reader_t;

static void on_node(void *ctx, const gpa_node_desc_t *d)
{
    reader_t *r = ctx;
    if (r->rec.node != NULL)
        return; /* one Node object, one node */
    gpa_node_desc_t *n = gpa_xmalloc(sizeof(*n));
    *n = *d;
    n->name = gpa_xstrdup(d->name);
    n->model = gpa_xstrdup(d->model != NULL ? d->model : "");
    n->source = kind_sources[GPA_VIEW_NODES];
    n->line = 0;
    gpa_pair_t *labels = gpa_xcalloc(d->nlabels + 1, sizeof(*labels));
    for (size_t i = 0; i < d->nlabels; i++)
        labels[i] = (gpa_pair_t){.key = gpa_xstrdup(d->labels[i].key), .value = gpa_xstrdup(d->labels[i].value)};
    n->labels = labels;
    r->rec.node = n;
}

static char *dup_opt(const char *s)
{
    return s != NULL ? gpa_xstrdup(s) : NULL;
}

static void on_gpu(void *ctx, const gpa_gpu_desc_t *d)
{
    reader_t *r = ctx;
    for (size_t i = 0; i < r->rec.ngpus; i++)
        if (r->rec.gpus[i].minor == d->minor)
            r->bad_node = 1, r->dup_minor = d->minor;
    r->rec.gpus = gpa_xrealloc(r->rec.gpus, (r->rec.ngpus + 1) * sizeof(*r->rec.gpus));
    gpa_gpu_desc_t *g = &r->rec.gpus[r->rec.ngpus++];
    *g = *d;
    g->node = gpa_xstrdup(d->node);
    g->uuid = dup_opt(d->uuid); /* a HAMi card, from its Node */
    g->type = dup_opt(d->type);
    g->mode = dup_opt(d->mode);
    g->source = d->uuid != NULL ? kind_sources[GPA_VIEW_NODES] : kind_sources[GPA_VIEW_DEVICES];
    g->line = 0;
}

static void on_usage(void *ctx, const gpa_usage_desc_t *d)
{
    reader_t *r = ctx;
    r->rec.usages = gpa_xrealloc(r->rec.usages, (r->rec.nusages + 1) * sizeof(*r->rec.usages));
    gpa_usage_desc_t *u = &r->rec.usages[r->rec.nusages++];
    *u = *d;
    u->node = gpa_xstrdup(d->node);
    u->uuid = dup_opt(d->uuid);
    u->pod = NULL; /* the entry's key, set when the snapshot is built */
    u->source = kind_sources[GPA_VIEW_PODS];
    u->line = 0;
}

static void on_warn(void *ctx, const gpa_error_t *why)
{
    reader_t *r = ctx;
    if (!r->warned)
        r->warning = *why;
    r->warned = 1;
}

/* The object's key: name, or namespace/name for Pods; NULL when it has no name. */
static char *key_of(gpa_view_kind_t kind, const gpa_value_t *obj, char **ns)
{
    const gpa_value_t *meta = gpa_value_get(obj, "metadata");
    const char *name = gpa_value_string(gpa_value_get(meta, "name"));
    *ns = NULL;
    if (name == NULL || name[0] == '\0')
        return NULL;
    if (kinds[kind]->cluster_scoped)
        return gpa_xstrdup(name);
    const char *n = gpa_value_string(gpa_value_get(meta, "namespace"));
    *ns = gpa_xstrdup(n != NULL ? n : "");
    size_t len = strlen(*ns) + strlen(name) + 2;
    char *key = gpa_xmalloc(len);
    snprintf(key, len, "%s/%s", *ns, name);
    return key;
}

static const gpa_inventory_kind_t inventory_kinds[GPA_VIEW_NKINDS] = {GPA_INVENTORY_NODE, GPA_INVENTORY_DEVICE, GPA_INVENTORY_POD};

/* Reads the object's records into r; 0, 1 with err a warning (a Pod that holds nothing), or -1 with err (r then
 * holds nothing). */
static int read_object(gpa_view_kind_t kind, const gpa_value_t *obj, const char *key, reader_t *r, gpa_error_t *err)
{
    gpa_arena_t a;
    gpa_inventory_sink_t sink = {on_node, on_gpu, on_usage, r, on_warn};
    gpa_arena_init(&a);
    gpa_value_t *doc = gpa_kube_kind_stamp(&a, obj, kinds[kind]); /* list items come without their kind */
    int rc = gpa_inventory_read_object(&a, inventory_kinds[kind], doc, kind_sources[kind], &sink, err);
    gpa_arena_dispose(&a);
    if (rc == 0 && r->bad_node)
        rc = gpa_error_set(err, 0, 0, "spec.devices", "Device %s: minor %d is listed twice", key, (int)r->dup_minor);
    if (rc != 0) {
        records_dispose(&r->rec);
        return rc;
    }
    if (r->warned) {
        *err = r->warning;
        err->source = kind_sources[kind]; /* the reader's source is the view's own, not a borrowed one */
        return 1;
    }
    return 0;
}

/* A ResourceSlice: read as an inventory file reads it, and kept as read (a few hundred bytes a device, where its object
 * tree took kilobytes), copied a second time into one chunk of the size the first copy took: a record lives as long as
 * its slice, and the tails of the arena's standard chunks were a fifth of the live view. 0, or -1 with err (r then holds
 * nothing). */
static int read_slice(gpa_arena_t *a, const gpa_value_t *obj, const gpa_kube_kind_t *at, const char *key, reader_t *r,
                      gpa_error_t *err)
{
    gpa_arena_t first;
    gpa_intern_t in;
    const gpa_dra_slice_t *read;
    gpa_arena_init(&first);
    gpa_intern_init(&in, &first);
    int rc = gpa_inventory_read_slice(&in, gpa_kube_kind_stamp(&first, obj, at), key, &read, err);
    gpa_intern_dispose(&in);
    if (rc == 0) {
        gpa_arena_reserve(a, gpa_arena_used(&first));
        gpa_intern_init(&in, a);
        gpa_dra_slice_t *copy = gpa_arena_alloc(a, sizeof(*copy));
        gpa_dra_slice_copy(&in, read, copy);
        gpa_intern_dispose(&in);
        r->rec.slice = copy;
        r->rec.dra_arena = a;
    } else {
        gpa_arena_dispose(a);
        free(a);
    }
    gpa_arena_dispose(&first);
    return rc == 0 ? 0 : -1;
}

/*
 * A DRA object: checked as an inventory file reads it (kube/dra.h, through a scratch inventory), then copied whole
 * into r. 0, or -1 with err (r then holds nothing).
 */
static int read_dra(const gpa_kube_kind_t *at, const gpa_value_t *obj, const char *key, reader_t *r, gpa_error_t *err)
{
    gpa_arena_t *a = gpa_xmalloc(sizeof(*a));
    gpa_arena_init(a);
    if (strcmp(at->kind, "ResourceSlice") == 0)
        return read_slice(a, obj, at, key, r, err);
    gpa_value_t *doc = gpa_value_clone(a, gpa_kube_kind_stamp(a, obj, at));
    gpa_inventory_t *check = gpa_inventory_new();
    int rc = gpa_inventory_add_dra(check, doc, key, err);
    gpa_inventory_release(check);
    if (rc != 0) {
        gpa_arena_dispose(a);
        free(a);
        return -1;
    }
    r->rec.dra_arena = a;
    r->rec.dra = doc;
    return 0;
}

static int records_empty(const records_t *r)
{
    return r->node == NULL && r->ngpus == 0 && r->nusages == 0 && r->nrules == 0 && r->dra == NULL && r->slice == NULL;
}

int gpa_view_apply(gpa_view_t *v, gpa_view_kind_t kind, gpa_watch_event_t event, const gpa_value_t *object,
                   const char *const *rules, size_t nrules, gpa_error_t *err)
{
    char *ns;
    char *key = key_of(kind, object, &ns);
    gpa_error_init(err, kind_sources[kind]);
    if (key == NULL)
        return gpa_error_set(err, 0, 0, "metadata.name", "%s", "an object without a name");
    reader_t r = {0};
    int rc = 0;
    if (event != GPA_WATCH_DELETED) {
        rc = dra_kinds[kind] != GPA_DRA_NONE ? read_dra(&v->kind_at[kind], object, key, &r, err)
                                             : read_object(kind, object, key, &r, err);
        if (rc >= 0 && kind == GPA_VIEW_PODS && nrules > 0) {
            r.rec.rules = gpa_xcalloc(nrules, sizeof(*r.rec.rules));
            for (size_t i = 0; i < nrules; i++)
                r.rec.rules[r.rec.nrules++] = gpa_xstrdup(rules[i]);
        }
    }
    r.rec.ns = ns;
    r.rec.key = key;
    records_t *rec = NULL;
    if (!records_empty(&r.rec)) {
        rec = gpa_xmalloc(sizeof(*rec));
        *rec = r.rec;
        atomic_init(&rec->refs, 1);
    }
    pthread_mutex_lock(&v->lock);
    int pending = v->listing[kind];
    map_put(v, pending ? &v->pending[kind] : &v->live[kind], !pending, key, rec);
    if (!pending)
        v->generation++;
    pthread_mutex_unlock(&v->lock);
    if (rec == NULL)
        records_dispose(&r.rec); /* frees key and ns */
    return rc;
}

/* ---- lists ---- */

void gpa_view_begin_list(gpa_view_t *v, gpa_view_kind_t kind)
{
    pthread_mutex_lock(&v->lock);
    map_dispose(&v->pending[kind]); /* an interrupted earlier list */
    v->listing[kind] = 1;
    v->not_served[kind] = 0;
    pthread_mutex_unlock(&v->lock);
}

void gpa_view_not_served(gpa_view_t *v, gpa_view_kind_t kind)
{
    pthread_mutex_lock(&v->lock);
    v->not_served[kind] = 1;
    pthread_mutex_unlock(&v->lock);
}

void gpa_view_end_list(gpa_view_t *v, gpa_view_kind_t kind)
{
    pthread_mutex_lock(&v->lock);
    count_map(v, &v->live[kind], -1);
    map_dispose(&v->live[kind]);
    v->live[kind] = v->pending[kind];
    memset(&v->pending[kind], 0, sizeof(v->pending[kind]));
    count_map(v, &v->live[kind], 1);
    v->listing[kind] = 0;
    v->listed[kind] = !v->not_served[kind];
    v->generation++;
    pthread_mutex_unlock(&v->lock);
}

/* ---- the view as a whole ---- */

gpa_view_t *gpa_view_new(void)
{
    gpa_view_t *v = gpa_xcalloc(1, sizeof(*v));
    pthread_mutex_init(&v->lock, NULL);
    for (int k = 0; k < GPA_VIEW_NKINDS; k++) {
        v->kind_at[k] = *kinds[k];
        snprintf(v->path_at[k], sizeof(v->path_at[k]), "%s", kind_paths[k]);
    }
    return v;
}

int gpa_view_dra_version(gpa_view_t *v, const char *group_version)
{
    size_t i = 0, n = sizeof(dra_versions) / sizeof(dra_versions[0]);
    while (i < n && strcmp(dra_versions[i], group_version) != 0)
        i++;
    if (i == n)
        return -1;
    for (int k = 0; k < GPA_VIEW_NKINDS; k++)
        if (dra_kinds[k] != GPA_DRA_NONE) {
            v->kind_at[k].api_version = dra_versions[i];
            snprintf(v->path_at[k], sizeof(v->path_at[k]), "/apis/%s/%s", dra_versions[i], kinds[k]->resource);
        }
    return 0;
}

void gpa_view_discover(gpa_view_t *v, const gpa_kube_target_t *target)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_kube_client_t *c = gpa_kube_client_new(target, &err);
    if (c == NULL)
        return; /* the lists will say why */
    gpa_arena_t a;
    gpa_arena_init(&a);
    const char *version = gpa_kube_preferred_version(c, &a, gpa_kube_kind_claim.group);
    if (version != NULL)
        gpa_view_dra_version(v, version);
    gpa_arena_dispose(&a);
    gpa_kube_client_free(c);
}

const char *gpa_view_path(const gpa_view_t *v, gpa_view_kind_t kind)
{
    return v->path_at[kind];
}

void gpa_view_free(gpa_view_t *v)
{
    if (v == NULL)
        return;
    for (int k = 0; k < GPA_VIEW_NKINDS; k++) {
        map_dispose(&v->live[k]);
        map_dispose(&v->pending[k]);
    }
    for (count_t *c = v->counts, *next; c != NULL; c = next) {
        next = c->next;
        free(c->rule);
        free(c->ns);
        free(c);
    }
    pthread_mutex_destroy(&v->lock);
    free(v);
}

/* A record an inventory held a ResourceSlice of (gpa_inventory_hold_slice), given back. */
static void release_held(void *owner)
{
    records_release(owner);
}

/* Adds what r stands for; -1 with err when a DRA object no longer reads (it was checked when it came in). A
 * ResourceSlice is lent, not copied: the inventory holds a reference to its record while it reads it. */
static int add_records(gpa_inventory_t *inv, records_t *r, gpa_error_t *err)
{
    if (r->slice != NULL) {
        atomic_fetch_add(&r->refs, 1);
        gpa_inventory_hold_slice(inv, r->slice, release_held, r);
        return 0;
    }
    if (r->dra != NULL)
        return gpa_inventory_add_dra(inv, r->dra, r->key, err);
    if (r->node != NULL)
        gpa_inventory_add_node(inv, r->node);
    for (size_t i = 0; i < r->ngpus; i++)
        gpa_inventory_add_gpu(inv, &r->gpus[i]);
    for (size_t i = 0; i < r->nusages; i++) {
        gpa_usage_desc_t u = r->usages[i];
        u.pod = r->key;
        gpa_inventory_add_usage(inv, &u);
    }
    return 0;
}

/* Every block in force, each with a reference taken, and the DRA kinds listed (bit per gpa_dra_kind_t): the lock is
 * held for this pass only. */
static records_t **hold_all(gpa_view_t *v, size_t *n, unsigned *dra_listed)
{
    pthread_mutex_lock(&v->lock);
    *dra_listed = 0;
    for (int i = 0; i < GPA_VIEW_NKINDS; i++)
        if (v->listed[i] && dra_kinds[i] != GPA_DRA_NONE)
            *dra_listed |= 1u << dra_kinds[i];
    size_t total = 0, k = 0;
    for (int i = 0; i < GPA_VIEW_NKINDS; i++)
        total += v->live[i].len;
    records_t **all = gpa_xcalloc(total + 1, sizeof(*all));
    for (int i = 0; i < GPA_VIEW_NKINDS; i++)
        for (size_t s = 0; s < v->live[i].cap; s++)
            for (entry_t *e = v->live[i].slots[s]; e != NULL; e = e->next) {
                atomic_fetch_add(&e->rec->refs, 1);
                all[k++] = e->rec;
            }
    pthread_mutex_unlock(&v->lock);
    *n = k;
    return all;
}

gpa_inventory_t *gpa_view_snapshot(gpa_view_t *v, gpa_error_t *err)
{
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_init(err, "cluster");
    size_t n;
    unsigned dra_listed;
    records_t **all = hold_all(v, &n, &dra_listed);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_records(inv, all[i], err);
        records_release(all[i]);
    }
    free(all);
    for (int k = 0; k < GPA_DRA__KINDS; k++)
        if ((dra_listed >> k) & 1u)
            gpa_inventory_dra_complete(inv, (gpa_dra_kind_t)k);
    if (rc != 0 || gpa_inventory_commit(inv, err) != 0) {
        gpa_inventory_release(inv);
        return NULL;
    }
    return inv;
}

uint64_t gpa_view_generation(gpa_view_t *v)
{
    pthread_mutex_lock(&v->lock);
    uint64_t g = v->generation;
    pthread_mutex_unlock(&v->lock);
    return g;
}

size_t gpa_view_held(gpa_view_t *v, gpa_view_kind_t kind)
{
    pthread_mutex_lock(&v->lock);
    size_t n = v->live[kind].len;
    pthread_mutex_unlock(&v->lock);
    return n;
}

void gpa_view_audit_counts(gpa_view_t *v, void (*fn)(void *ctx, const char *rule, const char *ns, uint64_t pods), void *ctx)
{
    pthread_mutex_lock(&v->lock);
    for (const count_t *c = v->counts; c != NULL; c = c->next)
        if (c->pods != 0)
            fn(ctx, c->rule, c->ns, c->pods);
    pthread_mutex_unlock(&v->lock);
}

/* ---- one list of each kind ---- */

typedef struct st_lister_t {
    gpa_view_t *v;
    gpa_view_kind_t kind;
    const gpa_view_listener_t *listener;
} lister_t;

static void list_begin(void *ctx)
{
    lister_t *l = ctx;
    gpa_view_begin_list(l->v, l->kind);
}

static void list_apply(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    lister_t *l = ctx;
    const gpa_view_listener_t *to = l->listener;
    gpa_error_t why = {0};
    int rc = gpa_view_apply(l->v, l->kind, event, object, NULL, 0, &why);
    if (rc != 0 && to != NULL && to->on_problem != NULL)
        to->on_problem(to->ctx, &why, rc > 0);
    if (to != NULL && to->on_object != NULL)
        to->on_object(to->ctx, l->kind, object);
}

static void list_not_served(void *ctx, int not_served, const char *why)
{
    lister_t *l = ctx;
    (void)why;
    if (not_served)
        gpa_view_not_served(l->v, l->kind);
}

static void list_end(void *ctx)
{
    lister_t *l = ctx;
    gpa_view_end_list(l->v, l->kind);
}

int gpa_view_list_all(gpa_view_t *v, const gpa_kube_target_t *target, const gpa_view_listener_t *listener, gpa_error_t *err)
{
    gpa_view_discover(v, target);
    for (int k = 0; k < GPA_VIEW_NKINDS; k++) {
        lister_t l = {v, (gpa_view_kind_t)k, listener};
        gpa_reflector_sink_t sink = {list_begin, list_apply, list_end, list_not_served, &l};
        if (gpa_kube_list(target, v->path_at[k], &sink, err) != 0)
            return -1;
    }
    return 0;
}
