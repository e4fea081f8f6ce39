/*
 * Reading resource.k8s.io objects and a Pod's claims into the DRA model (dra.h), and the known-objects layers.
 */
#include "kube/dra.h"

#include <string.h>

#include "base/hash.h"
#include "document/schema.h"
#include "kube/dra_read.h"
#include "kube/dra_slice.h"

/* ---- kinds and versions ---------------------------------------------------------------------------------------- */

static const char *const kind_names[] = {
    [GPA_DRA_CLASS] = "DeviceClass",
    [GPA_DRA_CLAIM] = "ResourceClaim",
    [GPA_DRA_TEMPLATE] = "ResourceClaimTemplate",
    [GPA_DRA_SLICE] = "ResourceSlice",
};

static const char *const version_names[] = {
    [GPA_DRA_V1] = "v1",
    [GPA_DRA_V1BETA2] = "v1beta2",
    [GPA_DRA_V1BETA1] = "v1beta1",
    [GPA_DRA_V1ALPHA3] = "v1alpha3",
    [GPA_DRA_V1ALPHA2] = "v1alpha2",
    [GPA_DRA_VOTHER] = "",
};

gpa_dra_kind_t gpa_dra_kind_of(const char *api_version, const char *kind)
{
    size_t g = strlen(GPA_DRA_GROUP);
    if (api_version == NULL || kind == NULL || strncmp(api_version, GPA_DRA_GROUP, g) != 0 || api_version[g] != '/')
        return GPA_DRA_NONE;
    for (size_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
        if (strcmp(kind, kind_names[k]) == 0)
            return (gpa_dra_kind_t)k;
    return GPA_DRA_NONE;
}

gpa_dra_version_t gpa_dra_version_of(const char *api_version)
{
    const char *slash = api_version != NULL ? strchr(api_version, '/') : NULL;
    const char *v = slash != NULL ? slash + 1 : "";
    for (size_t i = 0; i < GPA_DRA_VOTHER; i++)
        if (strcmp(v, version_names[i]) == 0)
            return (gpa_dra_version_t)i;
    return GPA_DRA_VOTHER;
}

const char *gpa_dra_version_name(gpa_dra_version_t v)
{
    return v <= GPA_DRA_VOTHER ? version_names[v] : "";
}

const char *gpa_dra_kind_name(gpa_dra_kind_t k)
{
    return k <= GPA_DRA_SLICE ? kind_names[k] : "";
}

/* ---- requests ---------------------------------------------------------------------------------------------------- */

/* selectors[].cel.expression: kept as text for the CEL evaluator; a selector without one holds NULL. */
static int read_selectors(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, const char ***texts, const char ***paths,
                          size_t *n)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, obj, "selectors", path, GPA_DRA_MAX_SELECTORS, &items, n) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, path, "selectors");
    *texts = *n != 0 ? gpa_arena_calloc(r->a, *n, sizeof(**texts)) : NULL;
    *paths = *n != 0 ? gpa_arena_calloc(r->a, *n, sizeof(**paths)) : NULL;
    for (size_t i = 0; i < *n; i++) {
        const char *ip = gpa_dra_index_path(r, lp, i);
        gpa_value_t *cel;
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 || gpa_dra_field(r, items[i], "cel", GPA_VOBJECT, ip, &cel) != 0)
            return -1;
        (*paths)[i] = gpa_dra_join(r, gpa_dra_join(r, ip, "cel"), "expression");
        if (cel != NULL && gpa_dra_string_field(r, cel, "expression", gpa_dra_join(r, ip, "cel"), &(*texts)[i]) != 0)
            return -1;
        if ((*texts)[i] != NULL && strlen((*texts)[i]) > GPA_DRA_MAX_SELECTOR_BYTES)
            return gpa_schema_fail(r->err, gpa_value_get(cel, "expression"), (*paths)[i], "at most %d bytes (the API's limit)",
                                   GPA_DRA_MAX_SELECTOR_BYTES);
    }
    return 0;
}

/* capacity.requests: {name: quantity}. */
static int read_capacity(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_exact_t *e)
{
    gpa_value_t *cap, *reqs = NULL;
    const char *cp = gpa_dra_join(r, path, "capacity");
    if (gpa_dra_field(r, obj, "capacity", GPA_VOBJECT, path, &cap) != 0 ||
        (cap != NULL && gpa_dra_field(r, cap, "requests", GPA_VOBJECT, cp, &reqs) != 0))
        return -1;
    if (reqs == NULL)
        return 0;
    const char *rp = gpa_dra_join(r, cp, "requests");
    e->ncapacity = reqs->u.object.len;
    e->capacity = gpa_arena_calloc(r->a, e->ncapacity + 1, sizeof(*e->capacity));
    for (size_t i = 0; i < e->ncapacity; i++) {
        const gpa_member_t *m = &reqs->u.object.members[i];
        gpa_dra_capacity_t *c = &e->capacity[i];
        c->name = m->key;
        c->path = gpa_dra_join(r, rp, m->key);
        int scalar = m->value->type == GPA_VSTRING || m->value->type == GPA_VNUMBER;
        c->text = scalar ? m->value->u.str.ptr : "";
        c->amount = gpa_dra_quantity(m->value);
    }
    return 0;
}

static int read_tolerations(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_exact_t *e)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, obj, "tolerations", path, 16, &items, &e->ntolerations) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, path, "tolerations");
    e->tolerations = e->ntolerations != 0 ? gpa_arena_calloc(r->a, e->ntolerations, sizeof(*e->tolerations)) : NULL;
    for (size_t i = 0; i < e->ntolerations; i++) {
        const char *ip = gpa_dra_index_path(r, lp, i);
        gpa_dra_toleration_t *t = &e->tolerations[i];
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 || gpa_dra_string_field(r, items[i], "key", ip, &t->key) != 0 ||
            gpa_dra_string_field(r, items[i], "operator", ip, &t->op) != 0 ||
            gpa_dra_string_field(r, items[i], "value", ip, &t->value) != 0 ||
            gpa_dra_string_field(r, items[i], "effect", ip, &t->effect) != 0)
            return -1;
    }
    return 0;
}

static int read_mode_count(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_exact_t *e)
{
    const char *mode;
    gpa_value_t *count;
    if (gpa_dra_string_field(r, obj, "allocationMode", path, &mode) != 0 ||
        gpa_dra_field(r, obj, "count", GPA_VNUMBER, path, &count) != 0)
        return -1;
    e->mode = mode == NULL || strcmp(mode, "ExactCount") == 0 ? GPA_DRA_EXACT_COUNT
              : strcmp(mode, "All") == 0                      ? GPA_DRA_ALL
                                                              : GPA_DRA_MODE_OTHER;
    e->count = 1;
    if (count == NULL)
        return 0;
    gpa_quantity_t q = gpa_quantity_parse(count->u.str.ptr, count->u.str.len);
    if (q.status != GPA_Q_OK || q.suffix != GPA_QS_NONE)
        return gpa_schema_fail(r->err, count, gpa_dra_join(r, path, "count"), "must be a whole number, not %s", count->u.str.ptr);
    e->count = q.value;
    e->has_count = 1;
    return 0;
}

/* The fields of an ExactDeviceRequest in `obj` (a request's `exactly`, an alternative, or a v1beta1 request). */
static int read_exact(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, const char *name, gpa_dra_exact_t *e)
{
    memset(e, 0, sizeof(*e));
    e->name = name;
    e->path = path;
    gpa_value_t *admin;
    if (gpa_dra_string_field(r, obj, "deviceClassName", path, &e->class) != 0 ||
        read_selectors(r, obj, path, &e->selectors, &e->selector_paths, &e->nselectors) != 0 ||
        read_mode_count(r, obj, path, e) != 0 || read_capacity(r, obj, path, e) != 0 || read_tolerations(r, obj, path, e) != 0 ||
        gpa_dra_field(r, obj, "adminAccess", GPA_VBOOL, path, &admin) != 0)
        return -1;
    e->admin_access = admin != NULL && admin->u.boolean;
    return 0;
}

static int read_alternatives(gpa_dra_reader_t *r, const gpa_value_t *req, const char *path, gpa_dra_request_t *out)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, req, "firstAvailable", path, GPA_DRA_MAX_SUBREQUESTS, &items, &out->nalternatives) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, path, "firstAvailable");
    out->alternatives = out->nalternatives != 0 ? gpa_arena_alloc(r->a, out->nalternatives * sizeof(*out->alternatives)) : NULL;
    for (size_t i = 0; i < out->nalternatives; i++) {
        const char *ip = gpa_dra_index_path(r, lp, i), *name;
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 || gpa_dra_string_field(r, items[i], "name", ip, &name) != 0 ||
            read_exact(r, items[i], ip, name, &out->alternatives[i]) != 0)
            return -1;
    }
    return 0;
}

/* One request: v1 and v1beta2 under `exactly` or `firstAvailable`; v1beta1 (and v1alpha3, which dra-api-version
 * flags) on the request itself (or firstAvailable). */
static int read_request(gpa_dra_reader_t *r, const gpa_value_t *req, const char *path, gpa_dra_version_t version,
                        gpa_dra_request_t *out)
{
    memset(out, 0, sizeof(*out));
    out->path = path;
    if (gpa_dra_must_be_object(r, req, path) != 0 || gpa_dra_string_field(r, req, "name", path, &out->name) != 0 ||
        read_alternatives(r, req, path, out) != 0)
        return -1;
    if (out->nalternatives != 0)
        return 0;
    gpa_value_t *exactly;
    if (version == GPA_DRA_V1BETA1 || version == GPA_DRA_V1ALPHA3) { /* the request's fields on the request itself */
        out->has_exact = 1;
        return read_exact(r, req, path, out->name, &out->exact);
    }
    if (gpa_dra_field(r, req, "exactly", GPA_VOBJECT, path, &exactly) != 0)
        return -1;
    out->has_exact = exactly != NULL;
    return exactly != NULL ? read_exact(r, exactly, gpa_dra_join(r, path, "exactly"), out->name, &out->exact) : 0;
}

static int read_constraints(gpa_dra_reader_t *r, const gpa_value_t *devices, const char *path, gpa_dra_devices_t *out)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, devices, "constraints", path, GPA_DRA_MAX_CONSTRAINTS, &items, &out->nconstraints) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, path, "constraints");
    out->constraints = out->nconstraints != 0 ? gpa_arena_calloc(r->a, out->nconstraints, sizeof(*out->constraints)) : NULL;
    for (size_t i = 0; i < out->nconstraints; i++) {
        gpa_dra_constraint_t *c = &out->constraints[i];
        c->path = gpa_dra_index_path(r, lp, i);
        if (gpa_dra_must_be_object(r, items[i], c->path) != 0 ||
            gpa_dra_strings_field(r, items[i], "requests", c->path, GPA_DRA_MAX_REQUESTS, &c->requests, &c->nrequests) != 0 ||
            gpa_dra_string_field(r, items[i], "matchAttribute", c->path, &c->match_attribute) != 0 ||
            gpa_dra_string_field(r, items[i], "distinctAttribute", c->path, &c->distinct_attribute) != 0)
            return -1;
    }
    return 0;
}

/* config[]: {requests, opaque: {driver, parameters}} (a class's entries have no requests). */
static int read_configs(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *path, gpa_dra_opaque_t **out, size_t *n)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, obj, "config", path, GPA_DRA_MAX_CONFIGS, &items, n) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, path, "config");
    *out = *n != 0 ? gpa_arena_calloc(r->a, *n, sizeof(**out)) : NULL;
    for (size_t i = 0; i < *n; i++) {
        gpa_dra_opaque_t *c = &(*out)[i];
        const char *ip = gpa_dra_index_path(r, lp, i);
        gpa_value_t *opaque;
        if (gpa_dra_must_be_object(r, items[i], ip) != 0 ||
            gpa_dra_strings_field(r, items[i], "requests", ip, GPA_DRA_MAX_REQUESTS, &c->requests, &c->nrequests) != 0 ||
            gpa_dra_field(r, items[i], "opaque", GPA_VOBJECT, ip, &opaque) != 0)
            return -1;
        c->path = gpa_dra_join(r, ip, "opaque");
        if (opaque != NULL && gpa_dra_string_field(r, opaque, "driver", c->path, &c->driver) != 0)
            return -1;
        c->parameters = opaque != NULL ? gpa_value_get(opaque, "parameters") : NULL;
    }
    return 0;
}

static int read_devices(gpa_dra_reader_t *r, const gpa_value_t *spec, const char *spec_path, gpa_dra_version_t version,
                        gpa_dra_devices_t *out)
{
    gpa_value_t *devices, **items;
    out->path = gpa_dra_join(r, spec_path, "devices");
    if (gpa_dra_field(r, spec, "devices", GPA_VOBJECT, spec_path, &devices) != 0)
        return -1;
    if (devices == NULL)
        return 0;
    if (gpa_dra_list_field(r, devices, "requests", out->path, GPA_DRA_MAX_REQUESTS, &items, &out->nrequests) != 0)
        return -1;
    const char *lp = gpa_dra_join(r, out->path, "requests");
    out->requests = out->nrequests != 0 ? gpa_arena_alloc(r->a, out->nrequests * sizeof(*out->requests)) : NULL;
    for (size_t i = 0; i < out->nrequests; i++)
        if (read_request(r, items[i], gpa_dra_index_path(r, lp, i), version, &out->requests[i]) != 0)
            return -1;
    if (read_constraints(r, devices, out->path, out) != 0)
        return -1;
    return read_configs(r, devices, out->path, &out->configs, &out->nconfigs);
}

static int read_class(gpa_dra_reader_t *r, const gpa_value_t *spec, gpa_dra_class_t *out)
{
    return read_selectors(r, spec, "spec", &out->selectors, &out->selector_paths, &out->nselectors) != 0 ||
                   read_configs(r, spec, "spec", &out->configs, &out->nconfigs) != 0 ||
                   gpa_dra_string_field(r, spec, "extendedResourceName", "spec", &out->extended_resource_name) != 0
               ? -1
               : 0;
}

/* consumedCapacity: {name: quantity}. */
static int read_consumed(gpa_dra_reader_t *r, const gpa_value_t *item, const char *path, gpa_dra_result_t *res)
{
    gpa_value_t *map;
    if (gpa_dra_map_field(r, item, "consumedCapacity", path, 32, &map) != 0) /* no more than a device may have */
        return -1;
    if (map == NULL)
        return 0;
    res->consumed = gpa_arena_calloc(r->a, map->u.object.len + 1, sizeof(*res->consumed));
    for (size_t i = 0; i < map->u.object.len; i++) {
        const gpa_member_t *m = &map->u.object.members[i];
        if (m->value->type != GPA_VSTRING && m->value->type != GPA_VNUMBER)
            return -1;
        res->consumed[i] = (gpa_dra_amount_t){m->key, gpa_dra_quantity(m->value)};
    }
    res->nconsumed = map->u.object.len;
    return 0;
}

/* status.allocation.devices.results of a claim (see gpa_dra_object_t.allocated). */
static void read_allocation(gpa_arena_t *a, const gpa_value_t *doc, gpa_dra_object_t *o)
{
    gpa_error_t quiet = {0};
    gpa_dra_reader_t r = {a, &quiet};
    const gpa_value_t *alloc = gpa_value_get(gpa_value_get(doc, "status"), "allocation");
    const gpa_value_t *devices = gpa_value_get(alloc, "devices");
    gpa_value_t **items;
    size_t n;
    if (devices == NULL || gpa_dra_list_field(&r, devices, "results", "", GPA_DRA_MAX_RESULTS, &items, &n) != 0 || n == 0)
        return;
    gpa_dra_result_t *res = gpa_arena_calloc(a, n, sizeof(*res));
    for (size_t i = 0; i < n; i++)
        if (gpa_dra_must_be_object(&r, items[i], "") != 0 ||
            gpa_dra_string_field(&r, items[i], "request", "", &res[i].request) != 0 ||
            gpa_dra_string_field(&r, items[i], "driver", "", &res[i].driver) != 0 ||
            gpa_dra_string_field(&r, items[i], "pool", "", &res[i].pool) != 0 ||
            gpa_dra_string_field(&r, items[i], "device", "", &res[i].device) != 0 ||
            read_consumed(&r, items[i], "", &res[i]) != 0 || res[i].driver == NULL || res[i].pool == NULL || res[i].device == NULL)
            return;
    o->allocated = res;
    o->nallocated = n;
}

int gpa_dra_decode(gpa_arena_t *a, const gpa_value_t *doc, gpa_dra_kind_t kind, const char *api_version, const char *ns,
                   const char *name, int generated, gpa_dra_object_t **out, gpa_error_t *err)
{
    gpa_dra_reader_t r = {a, err};
    gpa_dra_object_t *o = gpa_arena_calloc(a, 1, sizeof(*o));
    o->kind = kind;
    o->version = gpa_dra_version_of(api_version);
    o->ns = kind == GPA_DRA_CLASS || ns == NULL ? "" : ns;
    o->name = name != NULL ? name : "";
    o->generated = generated && kind == GPA_DRA_CLAIM;
    *out = o;
    if (kind == GPA_DRA_CLAIM && o->version != GPA_DRA_V1ALPHA2 && o->version != GPA_DRA_VOTHER)
        read_allocation(a, doc, o);
    if (o->generated || o->version == GPA_DRA_V1ALPHA2 || o->version == GPA_DRA_VOTHER)
        return 0; /* a controller's, or a version whose shape is another (dra-api-version says so) */
    if (kind == GPA_DRA_SLICE) {
        gpa_dra_slice_t *slice = gpa_arena_calloc(a, 1, sizeof(*slice));
        o->slice = slice;
        return gpa_dra_slice_decode(a, doc, o->version == GPA_DRA_V1BETA1, slice, err);
    }
    gpa_value_t *spec, *inner;
    if (gpa_dra_field(&r, doc, "spec", GPA_VOBJECT, "", &spec) != 0)
        return -1;
    if (spec == NULL)
        return 0;
    if (kind == GPA_DRA_CLASS)
        return read_class(&r, spec, &o->cls);
    if (kind == GPA_DRA_CLAIM)
        return read_devices(&r, spec, "spec", o->version, &o->devices);
    if (gpa_dra_field(&r, spec, "spec", GPA_VOBJECT, "spec", &inner) != 0)
        return -1;
    return inner != NULL ? read_devices(&r, inner, "spec.spec", o->version, &o->devices) : 0;
}

/* ---- a Pod's claims ------------------------------------------------------------------------------------------------ */

static int read_source(gpa_dra_reader_t *r, const gpa_value_t *item, const char *path, gpa_dra_pod_claim_t *c)
{
    gpa_value_t *source;
    if (gpa_dra_field(r, item, "source", GPA_VOBJECT, path, &source) != 0)
        return -1;
    if (source == NULL)
        return 0;
    const char *sp = gpa_dra_join(r, path, "source");
    c->has_source = 1;
    return gpa_dra_string_field(r, source, "resourceClaimName", sp, &c->source_claim) != 0 ||
                   gpa_dra_string_field(r, source, "resourceClaimTemplateName", sp, &c->source_template) != 0
               ? -1
               : 0;
}

int gpa_dra_decode_pod_claims(gpa_arena_t *a, const gpa_value_t *spec, const char *spec_path, gpa_dra_pod_claim_t **out, size_t *n,
                              gpa_error_t *err)
{
    gpa_dra_reader_t r = {a, err};
    gpa_value_t **items;
    if (gpa_dra_list_field(&r, spec, "resourceClaims", spec_path, GPA_DRA_MAX_POD_CLAIMS, &items, n) != 0)
        return -1;
    const char *lp = gpa_dra_join(&r, spec_path, "resourceClaims");
    *out = *n != 0 ? gpa_arena_calloc(a, *n, sizeof(**out)) : NULL;
    for (size_t i = 0; i < *n; i++) {
        gpa_dra_pod_claim_t *c = &(*out)[i];
        c->path = gpa_dra_index_path(&r, lp, i);
        c->line = items[i]->line;
        c->column = items[i]->column;
        if (gpa_dra_must_be_object(&r, items[i], c->path) != 0 ||
            gpa_dra_string_field(&r, items[i], "name", c->path, &c->name) != 0 ||
            gpa_dra_string_field(&r, items[i], "resourceClaimName", c->path, &c->claim) != 0 ||
            gpa_dra_string_field(&r, items[i], "resourceClaimTemplateName", c->path, &c->template) != 0 ||
            read_source(&r, items[i], c->path, c) != 0)
            return -1;
    }
    return 0;
}

int gpa_dra_decode_container_claims(gpa_arena_t *a, const gpa_value_t *resources, const char *resources_path,
                                    gpa_dra_container_claim_t **out, size_t *n, gpa_error_t *err)
{
    gpa_dra_reader_t r = {a, err};
    gpa_value_t **items;
    if (gpa_dra_list_field(&r, resources, "claims", resources_path, GPA_DRA_MAX_POD_CLAIMS, &items, n) != 0)
        return -1;
    if (*n == 0)
        return 0; /* every container passes here: no path is built for claims it does not have */
    const char *lp = gpa_dra_join(&r, resources_path, "claims");
    *out = gpa_arena_calloc(a, *n, sizeof(**out));
    for (size_t i = 0; i < *n; i++) {
        gpa_dra_container_claim_t *c = &(*out)[i];
        c->path = gpa_dra_index_path(&r, lp, i);
        if (gpa_dra_must_be_object(&r, items[i], c->path) != 0 ||
            gpa_dra_string_field(&r, items[i], "name", c->path, &c->name) != 0 ||
            gpa_dra_string_field(&r, items[i], "request", c->path, &c->request) != 0)
            return -1;
    }
    return 0;
}

size_t gpa_dra_request_nexact(const gpa_dra_request_t *req)
{
    return req->nalternatives != 0 ? req->nalternatives : (size_t)req->has_exact;
}

const gpa_dra_exact_t *gpa_dra_request_exact(const gpa_dra_request_t *req, size_t k)
{
    return req->nalternatives != 0 ? &req->alternatives[k] : &req->exact;
}

const gpa_dra_request_t *gpa_dra_devices_request(const gpa_dra_devices_t *devices, const char *name, const gpa_dra_exact_t **alt)
{
    const char *slash = strchr(name, '/');
    size_t n = slash != NULL ? (size_t)(slash - name) : strlen(name);
    *alt = NULL;
    for (size_t i = 0; i < devices->nrequests; i++) {
        const gpa_dra_request_t *req = &devices->requests[i];
        if (req->name == NULL || strlen(req->name) != n || memcmp(req->name, name, n) != 0)
            continue;
        if (slash == NULL)
            return req;
        for (size_t k = 0; k < req->nalternatives; k++)
            if (req->alternatives[k].name != NULL && strcmp(req->alternatives[k].name, slash + 1) == 0) {
                *alt = &req->alternatives[k];
                return req;
            }
        return NULL;
    }
    return NULL;
}

/* ---- known objects ------------------------------------------------------------------------------------------------- */

/* h continued over s and a separator no string holds: ("ab","c") and ("a","bc") differ. */
static uint64_t hash_field(uint64_t h, const char *s)
{
    return gpa_hash_more(gpa_hash_more(h, s), "\xff");
}

static uint64_t key_hash(gpa_dra_kind_t kind, const char *ns, const char *name)
{
    return hash_field(hash_field(GPA_HASH_START ^ (uint64_t)kind, ns), name);
}

void gpa_dra_known_init(gpa_dra_known_t *k, const gpa_dra_known_t *below)
{
    memset(k, 0, sizeof(*k));
    k->below = below;
}

void gpa_dra_known_add(gpa_arena_t *a, gpa_dra_known_t *k, const gpa_dra_object_t *obj)
{
    if (obj == NULL || obj->kind >= GPA_DRA__KINDS)
        return;
    if (k->len_ == k->cap_) {
        size_t cap = k->cap_ != 0 ? k->cap_ * 2 : 8;
        k->entries_ = gpa_arena_grow(a, k->entries_, k->len_, cap, sizeof(*k->entries_));
        k->cap_ = cap;
    }
    k->entries_[k->len_++] = (gpa_dra_known_entry_t){obj, key_hash(obj->kind, obj->ns, obj->name)};
}

void gpa_dra_known_seal(gpa_arena_t *a, gpa_dra_known_t *k)
{
    size_t n = 16;
    while (n < 2 * k->len_)
        n *= 2;
    uint32_t *slots = gpa_arena_calloc(a, n, sizeof(*slots));
    for (size_t i = 0; i < k->len_; i++) {
        size_t s = (size_t)k->entries_[i].hash_ & (n - 1);
        while (slots[s] != 0)
            s = (s + 1) & (n - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    k->slots_ = slots;
    k->nslots_ = n;
    k->indexed_ = k->len_;
}

static int entry_is(const gpa_dra_known_entry_t *e, uint64_t h, gpa_dra_kind_t kind, const char *ns, const char *name)
{
    const gpa_dra_object_t *o = e->object;
    return e->hash_ == h && o->kind == kind && strcmp(o->ns, ns) == 0 && strcmp(o->name, name) == 0;
}

/* The first entry of one layer that is (kind, ns, name): through the index, then among the entries added after it. */
static const gpa_dra_object_t *layer_find(const gpa_dra_known_t *k, uint64_t h, gpa_dra_kind_t kind, const char *ns,
                                          const char *name)
{
    const gpa_dra_known_entry_t *best = NULL;
    for (size_t s = (size_t)h & (k->nslots_ - 1); k->nslots_ != 0 && k->slots_[s] != 0; s = (s + 1) & (k->nslots_ - 1)) {
        const gpa_dra_known_entry_t *e = &k->entries_[k->slots_[s] - 1];
        if (entry_is(e, h, kind, ns, name) && (best == NULL || e < best))
            best = e;
    }
    for (size_t i = k->indexed_; best == NULL && i < k->len_; i++)
        if (entry_is(&k->entries_[i], h, kind, ns, name))
            best = &k->entries_[i];
    return best != NULL ? best->object : NULL;
}

void gpa_dra_known_set_complete(gpa_dra_known_t *k, gpa_dra_kind_t kind)
{
    if (kind < GPA_DRA__KINDS)
        k->complete |= 1u << kind;
}

const gpa_dra_object_t *gpa_dra_known_find(const gpa_dra_known_t *k, gpa_dra_kind_t kind, const char *ns, const char *name)
{
    if (name == NULL)
        return NULL;
    if (kind == GPA_DRA_CLASS || ns == NULL)
        ns = kind == GPA_DRA_CLASS ? "" : ns;
    if (ns == NULL)
        return NULL;
    uint64_t h = key_hash(kind, ns, name);
    for (; k != NULL; k = k->below) {
        const gpa_dra_object_t *o = layer_find(k, h, kind, ns, name);
        if (o != NULL)
            return o;
    }
    return NULL;
}

int gpa_dra_known_complete(const gpa_dra_known_t *k, gpa_dra_kind_t kind)
{
    for (; k != NULL; k = k->below)
        if (kind < GPA_DRA__KINDS && (k->complete & (1u << kind)) != 0)
            return 1;
    return 0;
}

const gpa_dra_object_t *gpa_dra_known_extended(const gpa_dra_known_t *k, const char *name, size_t len)
{
    for (; k != NULL; k = k->below)
        for (size_t i = k->len_; i-- > 0;) {
            const gpa_dra_object_t *o = k->entries_[i].object;
            const char *ext = o->kind == GPA_DRA_CLASS ? o->cls.extended_resource_name : NULL;
            if (ext != NULL && strlen(ext) == len && memcmp(ext, name, len) == 0)
                return o;
        }
    return NULL;
}
