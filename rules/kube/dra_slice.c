/*
 * Reading ResourceSlices (dra_slice.h).
 */
#include "kube/dra_slice.h"

#include <string.h>

#include "document/schema.h"
#include "kube/dra_read.h"

/* ---- names and amounts ------------------------------------------------------------------------------------------ */

/* "domain/id" split; an unqualified name is in the driver's domain (what CEL's device.attributes[driver] reads). */
static void qualified(gpa_dra_reader_t *r, const gpa_member_t *m, const char *driver, const char **domain, const char **id)
{
    const char *slash = memchr(m->key, '/', m->key_len);
    if (slash == NULL) {
        *domain = driver != NULL ? driver : "";
        *id = m->key;
        return;
    }
    *domain = gpa_arena_strndup(r->a, m->key, (size_t)(slash - m->key));
    *id = slash + 1;
}

/* obj[key] as a quantity; *has 0 when absent. */
static int quantity_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, int *has,
                          gpa_quantity_t *out)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    *has = v != NULL && v->type != GPA_VNULL;
    if (!*has)
        return 0;
    if (v->type != GPA_VSTRING && v->type != GPA_VNUMBER)
        return gpa_schema_want(r->err, v, GPA_VSTRING, gpa_dra_join(r, path, key));
    *out = gpa_dra_quantity(v);
    return 0;
}

/* ---- counters ------------------------------------------------------------------------------------------------------ */

/* counters: {name: {value: quantity}}. */
static int read_counters(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_counter_set_t *set)
{
    gpa_value_t *map;
    if (gpa_dra_map_field(r, obj, "counters", path, GPA_DRA_MAX_COUNTERS, &map) != 0)
        return -1;
    if (map == NULL)
        return 0;
    const char *mp = gpa_dra_join(r, path, "counters");
    set->counters = gpa_arena_calloc(r->a, map->u.object.len, sizeof(*set->counters));
    for (size_t i = 0; i < map->u.object.len; i++) {
        const gpa_member_t *m = &map->u.object.members[i];
        const char *cp = gpa_dra_join(r, mp, m->key);
        int has;
        if (gpa_dra_must_be_object(r, m->value, cp) != 0 ||
            quantity_field(r, m->value, "value", cp, &has, &set->counters[i].value) != 0)
            return -1;
        if (!has)
            set->counters[i].value = (gpa_quantity_t){.status = GPA_Q_SYNTAX};
        set->counters[i].name = m->key;
    }
    set->ncounters = map->u.object.len;
    return 0;
}

/* sharedCounters[] ({name, counters}) or consumesCounters[] ({counterSet, counters}). */
static int read_counter_sets(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *name_key, size_t max,
                             const char *path, gpa_dra_counter_set_t **out, size_t *n)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, obj, key, path, max, &items, n) != 0)
        return -1;
    if (*n == 0)
        return 0;
    const char *lp = gpa_dra_join(r, path, key);
    *out = gpa_arena_calloc(r->a, *n, sizeof(**out));
    for (size_t i = 0; i < *n; i++) {
        const char *ip = gpa_dra_index_path(r, lp, i);
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 || gpa_dra_string_field(r, items[i], name_key, ip, &(*out)[i].name) != 0 ||
            read_counters(r, items[i], ip, &(*out)[i]) != 0)
            return -1;
        if ((*out)[i].name == NULL)
            (*out)[i].name = "";
    }
    return 0;
}

/* ---- devices ------------------------------------------------------------------------------------------------------- */

/* attributes: {name: {int | bool | string | version}}. */
static int read_attributes(gpa_dra_reader_t *r, const gpa_value_t *dev, const char *path, const char *driver, gpa_dra_device_t *d)
{
    gpa_value_t *map;
    if (gpa_dra_map_field(r, dev, "attributes", path, GPA_DRA_MAX_DEVICE_ATTRIBUTES, &map) != 0)
        return -1;
    if (map == NULL)
        return 0;
    const char *mp = gpa_dra_join(r, path, "attributes");
    d->attributes = gpa_arena_calloc(r->a, map->u.object.len, sizeof(*d->attributes));
    for (size_t i = 0; i < map->u.object.len; i++) {
        const gpa_member_t *m = &map->u.object.members[i];
        gpa_dra_attribute_t *at = gpa_arena_calloc(r->a, 1, sizeof(*at));
        d->attributes[i] = at;
        const char *ap = gpa_dra_join(r, mp, m->key);
        if (gpa_dra_must_be_object(r, m->value, ap) != 0)
            return -1;
        qualified(r, m, driver, &at->domain, &at->id);
        const gpa_value_t *v;
        at->type = GPA_DRA_ATTR_OTHER;
        if ((v = gpa_value_get(m->value, "int")) != NULL && v->type == GPA_VNUMBER) {
            gpa_quantity_t q = gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
            if (q.status == GPA_Q_OK && q.suffix == GPA_QS_NONE)
                at->type = GPA_DRA_ATTR_INT, at->i = q.value;
        } else if ((v = gpa_value_get(m->value, "bool")) != NULL && v->type == GPA_VBOOL) {
            at->type = GPA_DRA_ATTR_BOOL, at->b = v->u.boolean;
        } else if ((v = gpa_value_get(m->value, "string")) != NULL && v->type == GPA_VSTRING) {
            at->type = GPA_DRA_ATTR_STRING, at->s = v->u.str.ptr;
        } else if ((v = gpa_value_get(m->value, "version")) != NULL && v->type == GPA_VSTRING) {
            at->type = GPA_DRA_ATTR_VERSION, at->s = v->u.str.ptr;
        }
    }
    d->nattributes = map->u.object.len;
    return 0;
}

static int read_policy(gpa_dra_reader_t *r, const gpa_value_t *pol, const char *path, gpa_dra_policy_t *p)
{
    gpa_value_t **values, *range;
    size_t n;
    if (gpa_dra_must_be_object(r, pol, path) != 0 || quantity_field(r, pol, "default", path, &p->has_default, &p->def) != 0 ||
        gpa_dra_list_field(r, pol, "validValues", path, GPA_DRA_MAX_VALID_VALUES, &values, &n) != 0 ||
        gpa_dra_field(r, pol, "validRange", GPA_VOBJECT, path, &range) != 0)
        return -1;
    if (n != 0) {
        p->valid_values = gpa_arena_calloc(r->a, n, sizeof(*p->valid_values));
        for (size_t i = 0; i < n; i++)
            p->valid_values[i] = gpa_dra_quantity(values[i]);
        p->nvalid_values = n;
    }
    if (range == NULL)
        return 0;
    const char *rp = gpa_dra_join(r, path, "validRange");
    int has_min;
    p->has_range = 1;
    if (quantity_field(r, range, "min", rp, &has_min, &p->min) != 0 ||
        quantity_field(r, range, "max", rp, &p->has_max, &p->max) != 0 ||
        quantity_field(r, range, "step", rp, &p->has_step, &p->step) != 0)
        return -1;
    if (!has_min)
        p->min = (gpa_quantity_t){.status = GPA_Q_SYNTAX}; /* required by the API: unreadable here */
    return 0;
}

/* capacity: {name: {value, requestPolicy}}. */
static int read_capacity(gpa_dra_reader_t *r, const gpa_value_t *dev, const char *path, const char *driver, gpa_dra_device_t *d)
{
    gpa_value_t *map;
    if (gpa_dra_map_field(r, dev, "capacity", path, GPA_DRA_MAX_DEVICE_ATTRIBUTES, &map) != 0)
        return -1;
    if (map == NULL)
        return 0;
    if (map->u.object.len + d->nattributes > GPA_DRA_MAX_DEVICE_ATTRIBUTES)
        return gpa_schema_fail(r->err, map, gpa_dra_join(r, path, "capacity"),
                               "at most %d attributes and capacities together (the API's limit)", GPA_DRA_MAX_DEVICE_ATTRIBUTES);
    const char *mp = gpa_dra_join(r, path, "capacity");
    d->capacity = gpa_arena_calloc(r->a, map->u.object.len, sizeof(*d->capacity));
    for (size_t i = 0; i < map->u.object.len; i++) {
        const gpa_member_t *m = &map->u.object.members[i];
        gpa_dra_device_capacity_t *c = gpa_arena_calloc(r->a, 1, sizeof(*c));
        d->capacity[i] = c;
        const char *cp = gpa_dra_join(r, mp, m->key);
        gpa_value_t *pol;
        int has;
        if (gpa_dra_must_be_object(r, m->value, cp) != 0 || quantity_field(r, m->value, "value", cp, &has, &c->value) != 0 ||
            gpa_dra_field(r, m->value, "requestPolicy", GPA_VOBJECT, cp, &pol) != 0)
            return -1;
        if (!has)
            c->value = (gpa_quantity_t){.status = GPA_Q_SYNTAX};
        qualified(r, m, driver, &c->domain, &c->id);
        if (pol == NULL)
            continue;
        gpa_dra_policy_t *p = gpa_arena_calloc(r->a, 1, sizeof(*p));
        c->policy = p;
        if (read_policy(r, pol, gpa_dra_join(r, cp, "requestPolicy"), p) != 0)
            return -1;
    }
    d->ncapacity = map->u.object.len;
    return 0;
}

static int read_taints(gpa_dra_reader_t *r, const gpa_value_t *dev, const char *path, gpa_dra_device_t *d)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, dev, "taints", path, GPA_DRA_MAX_TAINTS, &items, &d->ntaints) != 0)
        return -1;
    if (d->ntaints == 0)
        return 0;
    const char *lp = gpa_dra_join(r, path, "taints");
    d->taints = gpa_arena_calloc(r->a, d->ntaints, sizeof(*d->taints));
    for (size_t i = 0; i < d->ntaints; i++) {
        const char *ip = gpa_dra_index_path(r, lp, i);
        gpa_dra_taint_t *t = &d->taints[i];
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 || gpa_dra_string_field(r, items[i], "key", ip, &t->key) != 0 ||
            gpa_dra_string_field(r, items[i], "value", ip, &t->value) != 0 ||
            gpa_dra_string_field(r, items[i], "effect", ip, &t->effect) != 0)
            return -1;
    }
    return 0;
}

/* nodeName, nodeSelector, allNodes: of a slice, or of a device with perDeviceNodeSelection. */
static int read_nodes(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_nodes_t *n)
{
    gpa_value_t *sel, *all;
    if (gpa_dra_string_field(r, obj, "nodeName", path, &n->node_name) != 0 ||
        gpa_dra_field(r, obj, "allNodes", GPA_VBOOL, path, &all) != 0 ||
        gpa_dra_field(r, obj, "nodeSelector", GPA_VOBJECT, path, &sel) != 0)
        return -1;
    n->all_nodes = all != NULL && all->u.boolean;
    n->selector = sel;
    n->selector_path = sel != NULL ? gpa_dra_join(r, path, "nodeSelector") : NULL;
    return 0;
}

static int read_device(gpa_dra_reader_t *r, const gpa_value_t *item, const char *path, int basic, const gpa_dra_slice_t *s,
                       gpa_dra_device_t *d)
{
    gpa_value_t *body = (gpa_value_t *)item, *multi;
    const char *bp = path;
    d->path = path;
    if (gpa_dra_must_be_object(r, item, path) != 0 || gpa_dra_string_field(r, item, "name", path, &d->name) != 0)
        return -1;
    if (d->name == NULL)
        d->name = "";
    if (basic) { /* v1beta1: the device's fields under `basic` */
        if (gpa_dra_field(r, item, "basic", GPA_VOBJECT, path, &body) != 0)
            return -1;
        if (body == NULL)
            return 0;
        bp = gpa_dra_join(r, path, "basic");
    }
    if (read_attributes(r, body, bp, s->driver, d) != 0 || read_capacity(r, body, bp, s->driver, d) != 0 ||
        read_counter_sets(r, body, "consumesCounters", "counterSet", GPA_DRA_MAX_COUNTER_SETS, bp, &d->consumes, &d->nconsumes) !=
            0 ||
        read_taints(r, body, bp, d) != 0 || gpa_dra_field(r, body, "allowMultipleAllocations", GPA_VBOOL, bp, &multi) != 0)
        return -1;
    d->allow_multiple = multi != NULL && multi->u.boolean;
    return s->per_device ? read_nodes(r, body, bp, &d->nodes) : 0;
}

/* ---- the slice ----------------------------------------------------------------------------------------------------- */

static int read_pool(gpa_dra_reader_t *r, const gpa_value_t *spec, gpa_dra_slice_t *s)
{
    gpa_value_t *pool;
    if (gpa_dra_string_field(r, spec, "driver", "spec", &s->driver) != 0 ||
        gpa_dra_field(r, spec, "pool", GPA_VOBJECT, "spec", &pool) != 0)
        return -1;
    s->slice_count = 1;
    if (pool == NULL)
        return 0;
    gpa_value_t *gen, *count;
    if (gpa_dra_string_field(r, pool, "name", "spec.pool", &s->pool) != 0 ||
        gpa_dra_field(r, pool, "generation", GPA_VNUMBER, "spec.pool", &gen) != 0 ||
        gpa_dra_field(r, pool, "resourceSliceCount", GPA_VNUMBER, "spec.pool", &count) != 0)
        return -1;
    gpa_quantity_t g = gpa_dra_quantity(gen), c = gpa_dra_quantity(count);
    if (gen != NULL && (g.status != GPA_Q_OK || g.suffix != GPA_QS_NONE || g.value < 0))
        return gpa_schema_fail(r->err, gen, "spec.pool.generation", "a whole number >= 0");
    if (count != NULL && (c.status != GPA_Q_OK || c.suffix != GPA_QS_NONE || c.value < 1))
        return gpa_schema_fail(r->err, count, "spec.pool.resourceSliceCount", "a whole number >= 1");
    s->generation = gen != NULL ? g.value : 0;
    s->slice_count = count != NULL ? c.value : 1;
    return 0;
}

int gpa_dra_slice_decode(gpa_arena_t *a, const gpa_value_t *doc, int basic, gpa_dra_slice_t *out, gpa_error_t *err)
{
    gpa_dra_reader_t r = {a, err};
    gpa_value_t *spec, *per_device, **devices;
    memset(out, 0, sizeof(*out));
    out->driver = out->pool = "";
    if (gpa_dra_field(&r, doc, "spec", GPA_VOBJECT, "", &spec) != 0)
        return -1;
    if (spec == NULL)
        return 0;
    if (read_pool(&r, spec, out) != 0 || read_nodes(&r, spec, "spec", &out->nodes) != 0 ||
        gpa_dra_field(&r, spec, "perDeviceNodeSelection", GPA_VBOOL, "spec", &per_device) != 0 ||
        read_counter_sets(&r, spec, "sharedCounters", "name", GPA_DRA_MAX_COUNTER_SETS, "spec", &out->counter_sets,
                          &out->ncounter_sets) != 0 ||
        gpa_dra_list_field(&r, spec, "devices", "spec", GPA_DRA_MAX_SLICE_DEVICES, &devices, &out->ndevices) != 0)
        return -1;
    if (out->driver == NULL)
        out->driver = "";
    if (out->pool == NULL)
        out->pool = "";
    out->per_device = per_device != NULL && per_device->u.boolean;
    if (out->ndevices == 0)
        return 0;
    out->devices = gpa_arena_calloc(a, out->ndevices, sizeof(*out->devices));
    for (size_t i = 0; i < out->ndevices; i++)
        if (read_device(&r, devices[i], gpa_dra_index_path(&r, "spec.devices", i), basic, out, &out->devices[i]) != 0)
            return -1;
    return 0;
}

/* ---- the copy an inventory keeps ---------------------------------------------------------------------------------- */

/* Interning compares bytes: each record is built in zeroed memory, field by field, so its padding is zero too. */
#define ZEROED(type, name)                                                                                                         \
    type name;                                                                                                                     \
    memset(&name, 0, sizeof(name))

static void copy_quantity(gpa_quantity_t *dst, const gpa_quantity_t *src)
{
    dst->status = src->status;
    dst->value = src->value;
    dst->suffix = src->suffix;
}

/* n records of `size` bytes at p, interned as one array (the elements already are what they should be). */
static const void *intern_array(gpa_intern_t *in, const void *p, size_t n, size_t size)
{
    return n != 0 ? gpa_intern_bytes(in, p, n * size) : NULL;
}

static const gpa_dra_attribute_t *copy_attribute(gpa_intern_t *in, const gpa_dra_attribute_t *src)
{
    ZEROED(gpa_dra_attribute_t, at);
    at.domain = gpa_intern_string(in, src->domain);
    at.id = gpa_intern_string(in, src->id);
    at.type = src->type;
    at.i = src->i;
    at.b = src->b;
    at.s = gpa_intern_string(in, src->s);
    return gpa_intern_bytes(in, &at, sizeof(at));
}

static const gpa_dra_policy_t *copy_policy(gpa_intern_t *in, const gpa_dra_policy_t *src)
{
    if (src == NULL)
        return NULL;
    gpa_quantity_t values[GPA_DRA_MAX_VALID_VALUES];
    memset(values, 0, sizeof(values));
    for (size_t i = 0; i < src->nvalid_values; i++)
        copy_quantity(&values[i], &src->valid_values[i]);
    ZEROED(gpa_dra_policy_t, p);
    p.has_default = src->has_default;
    copy_quantity(&p.def, &src->def);
    p.valid_values = (gpa_quantity_t *)intern_array(in, values, src->nvalid_values, sizeof(values[0]));
    p.nvalid_values = src->nvalid_values;
    p.has_range = src->has_range, p.has_max = src->has_max, p.has_step = src->has_step;
    copy_quantity(&p.min, &src->min);
    copy_quantity(&p.max, &src->max);
    copy_quantity(&p.step, &src->step);
    return gpa_intern_bytes(in, &p, sizeof(p));
}

static const gpa_dra_device_capacity_t *copy_capacity(gpa_intern_t *in, const gpa_dra_device_capacity_t *src)
{
    ZEROED(gpa_dra_device_capacity_t, c);
    c.domain = gpa_intern_string(in, src->domain);
    c.id = gpa_intern_string(in, src->id);
    copy_quantity(&c.value, &src->value);
    c.policy = copy_policy(in, src->policy);
    return gpa_intern_bytes(in, &c, sizeof(c));
}

/* Counter sets (a slice's sharedCounters, a device's consumesCounters): the array and each set's counters interned. */
static gpa_dra_counter_set_t *copy_counter_sets(gpa_intern_t *in, const gpa_dra_counter_set_t *src, size_t n)
{
    gpa_dra_counter_set_t sets[GPA_DRA_MAX_COUNTER_SETS];
    gpa_dra_counter_t counters[GPA_DRA_MAX_COUNTERS];
    memset(sets, 0, sizeof(sets));
    for (size_t i = 0; i < n; i++) {
        memset(counters, 0, sizeof(counters));
        for (size_t k = 0; k < src[i].ncounters; k++) {
            counters[k].name = gpa_intern_string(in, src[i].counters[k].name);
            copy_quantity(&counters[k].value, &src[i].counters[k].value);
        }
        sets[i].name = gpa_intern_string(in, src[i].name);
        sets[i].counters = (gpa_dra_counter_t *)intern_array(in, counters, src[i].ncounters, sizeof(counters[0]));
        sets[i].ncounters = src[i].ncounters;
    }
    return (gpa_dra_counter_set_t *)intern_array(in, sets, n, sizeof(sets[0]));
}

static void copy_nodes(gpa_intern_t *in, const gpa_dra_nodes_t *src, gpa_dra_nodes_t *dst)
{
    dst->node_name = gpa_intern_string(in, src->node_name);
    dst->all_nodes = src->all_nodes;
    dst->selector = src->selector != NULL ? gpa_value_clone(in->a, src->selector) : NULL;
    dst->selector_path = gpa_intern_string(in, src->selector_path);
}

static void copy_device(gpa_intern_t *in, const gpa_dra_device_t *src, gpa_dra_device_t *d)
{
    const void *records[GPA_DRA_MAX_DEVICE_ATTRIBUTES];
    d->name = gpa_intern_string(in, src->name);
    d->path = gpa_intern_string(in, src->path);
    for (size_t i = 0; i < src->nattributes; i++)
        records[i] = copy_attribute(in, src->attributes[i]);
    d->attributes = (const gpa_dra_attribute_t **)intern_array(in, records, src->nattributes, sizeof(records[0]));
    d->nattributes = src->nattributes;
    for (size_t i = 0; i < src->ncapacity; i++)
        records[i] = copy_capacity(in, src->capacity[i]);
    d->capacity = (const gpa_dra_device_capacity_t **)intern_array(in, records, src->ncapacity, sizeof(records[0]));
    d->ncapacity = src->ncapacity;
    d->consumes = copy_counter_sets(in, src->consumes, src->nconsumes);
    d->nconsumes = src->nconsumes;
    gpa_dra_taint_t taints[GPA_DRA_MAX_TAINTS];
    memset(taints, 0, sizeof(taints));
    for (size_t i = 0; i < src->ntaints; i++) {
        taints[i].key = gpa_intern_string(in, src->taints[i].key);
        taints[i].value = gpa_intern_string(in, src->taints[i].value);
        taints[i].effect = gpa_intern_string(in, src->taints[i].effect);
    }
    d->taints = (gpa_dra_taint_t *)intern_array(in, taints, src->ntaints, sizeof(taints[0]));
    d->ntaints = src->ntaints;
    d->allow_multiple = src->allow_multiple;
    copy_nodes(in, &src->nodes, &d->nodes);
}

void gpa_dra_slice_copy(gpa_intern_t *in, const gpa_dra_slice_t *src, gpa_dra_slice_t *dst)
{
    memset(dst, 0, sizeof(*dst));
    dst->driver = gpa_intern_string(in, src->driver);
    dst->pool = gpa_intern_string(in, src->pool);
    dst->generation = src->generation;
    dst->slice_count = src->slice_count;
    copy_nodes(in, &src->nodes, &dst->nodes);
    dst->per_device = src->per_device;
    dst->devices = gpa_arena_calloc(in->a, src->ndevices + 1, sizeof(*dst->devices));
    for (size_t i = 0; i < src->ndevices; i++)
        copy_device(in, &src->devices[i], &dst->devices[i]);
    dst->ndevices = src->ndevices;
    dst->counter_sets = copy_counter_sets(in, src->counter_sets, src->ncounter_sets);
    dst->ncounter_sets = src->ncounter_sets;
}

/* ---- lookups ------------------------------------------------------------------------------------------------------- */

const gpa_dra_attribute_t *gpa_dra_device_attribute(const gpa_dra_device_t *d, const char *domain, const char *id)
{
    for (size_t i = 0; i < d->nattributes; i++)
        if (strcmp(d->attributes[i]->id, id) == 0 && strcmp(d->attributes[i]->domain, domain) == 0)
            return d->attributes[i];
    return NULL;
}

const gpa_dra_device_capacity_t *gpa_dra_device_capacity(const gpa_dra_device_t *d, const char *domain, const char *id)
{
    for (size_t i = 0; i < d->ncapacity; i++)
        if (strcmp(d->capacity[i]->id, id) == 0 && strcmp(d->capacity[i]->domain, domain) == 0)
            return d->capacity[i];
    return NULL;
}

/* Whether domain/id is `name`: "domain/id", or an unqualified id in the driver's domain. */
static int is_named(const char *domain, const char *id, const char *driver, const char *name)
{
    const char *slash = strchr(name, '/');
    if (slash == NULL)
        return strcmp(id, name) == 0 && strcmp(domain, driver) == 0;
    size_t n = (size_t)(slash - name);
    return strcmp(id, slash + 1) == 0 && strncmp(domain, name, n) == 0 && domain[n] == '\0';
}

const gpa_dra_device_capacity_t *gpa_dra_device_capacity_named(const gpa_dra_device_t *d, const char *driver, const char *name)
{
    for (size_t i = 0; i < d->ncapacity; i++)
        if (is_named(d->capacity[i]->domain, d->capacity[i]->id, driver, name))
            return d->capacity[i];
    return NULL;
}

const gpa_dra_attribute_t *gpa_dra_device_attribute_named(const gpa_dra_device_t *d, const char *driver, const char *name)
{
    for (size_t i = 0; i < d->nattributes; i++)
        if (is_named(d->attributes[i]->domain, d->attributes[i]->id, driver, name))
            return d->attributes[i];
    return NULL;
}
