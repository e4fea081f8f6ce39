/*
 * A device as DRA selectors read it (dra_device.h).
 */
#include "inventory/dra_device.h"

#include <string.h>

/* What one map of the binding serves: the device itself, or one domain's attributes or capacities. */
typedef enum en_view_t { VIEW_DEVICE, VIEW_ATTRIBUTES, VIEW_CAPACITY, VIEW_DOMAIN_ATTRIBUTES, VIEW_DOMAIN_CAPACITY } view_t;

typedef struct st_lookup_t lookup_t;

/* The lookups of one evaluation: on the caller's stack, since no value outlives it that points to them (a selector's
 * outcome is a bool or an error message), so 10^5 devices evaluated cost no arena memory; the arena only past these. */
#define POOL_SIZE 16
typedef struct st_pool_t {
    lookup_t *slots;
    size_t used;
} pool_t;

struct st_lookup_t {
    view_t view;
    const char *driver;
    const gpa_dra_device_t *device;
    const char *domain; /* VIEW_DOMAIN_*: borrowed from the key (arena or expression: it outlives the evaluation) */
    pool_t *pool;
};

static int lookup(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out);

static gpa_cel_value_t map_of(gpa_arena_t *a, const lookup_t *from, view_t view, const char *domain)
{
    pool_t *pool = from->pool;
    lookup_t *l = pool->used < POOL_SIZE ? &pool->slots[pool->used++] : gpa_arena_alloc(a, sizeof(*l));
    *l = (lookup_t){view, from->driver, from->device, domain, pool};
    return gpa_cel_lookup_map(lookup, l);
}

static gpa_cel_value_t attribute_value(gpa_arena_t *a, const gpa_dra_attribute_t *at)
{
    switch (at->type) {
    case GPA_DRA_ATTR_INT:
        return gpa_cel_int(at->i);
    case GPA_DRA_ATTR_BOOL:
        return gpa_cel_bool(at->b);
    case GPA_DRA_ATTR_STRING:
        return gpa_cel_string(at->s, strlen(at->s));
    case GPA_DRA_ATTR_VERSION:
        return gpa_cel_semver(a, at->s, strlen(at->s));
    default:
        return (gpa_cel_value_t){.kind = GPA_CEL_UNKNOWN};
    }
}

static int device_field(gpa_arena_t *a, const lookup_t *l, const char *name, gpa_cel_value_t *out)
{
    if (strcmp(name, "driver") == 0)
        *out = gpa_cel_string(l->driver, strlen(l->driver));
    else if (strcmp(name, "attributes") == 0)
        *out = map_of(a, l, VIEW_ATTRIBUTES, NULL);
    else if (strcmp(name, "capacity") == 0)
        *out = map_of(a, l, VIEW_CAPACITY, NULL);
    else if (strcmp(name, "allowMultipleAllocations") == 0)
        *out = gpa_cel_bool(l->device->allow_multiple);
    else
        return 0;
    return 1;
}

static int lookup(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out)
{
    const lookup_t *l = ctx;
    if (key->kind != GPA_CEL_STRING || memchr(key->u.str.ptr, '\0', key->u.str.len) != NULL)
        return 0;
    const char *name = key->u.str.ptr;
    switch (l->view) {
    case VIEW_DEVICE:
        return device_field(a, l, name, out);
    case VIEW_ATTRIBUTES: /* any domain is present: an unknown one is an empty map */
        *out = map_of(a, l, VIEW_DOMAIN_ATTRIBUTES, name);
        return 1;
    case VIEW_CAPACITY:
        *out = map_of(a, l, VIEW_DOMAIN_CAPACITY, name);
        return 1;
    case VIEW_DOMAIN_ATTRIBUTES: {
        const gpa_dra_attribute_t *at = gpa_dra_device_attribute(l->device, l->domain, name);
        if (at != NULL)
            *out = attribute_value(a, at);
        return at != NULL;
    }
    case VIEW_DOMAIN_CAPACITY: {
        const gpa_dra_device_capacity_t *c = gpa_dra_device_capacity(l->device, l->domain, name);
        if (c == NULL)
            return 0;
        *out = c->value.status == GPA_Q_OK ? gpa_cel_quantity(c->value.value) : (gpa_cel_value_t){.kind = GPA_CEL_UNKNOWN};
        return 1;
    }
    }
    return 0;
}

const gpa_cel_node_t **gpa_dra_selectors_parse(gpa_arena_t *a, const char *const *texts, const char *const *paths, size_t n,
                                               void (*bad)(void *ctx, size_t i, const gpa_error_t *err), void *ctx)
{
    const gpa_cel_node_t **out = gpa_arena_calloc(a, n + 1, sizeof(*out));
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        gpa_error_t err;
        gpa_error_init(&err, NULL);
        if (texts[i] == NULL) {
            ok = 0; /* a selector without cel.expression: the API server's to refuse */
            continue;
        }
        if (gpa_cel_parse(a, texts[i], strlen(texts[i]), paths != NULL ? paths[i] : "", &out[i], &err) == 0)
            continue;
        ok = 0;
        if (bad != NULL)
            bad(ctx, i, &err);
    }
    return ok ? out : NULL;
}

gpa_cel_outcome_t gpa_dra_select(gpa_arena_t *a, const gpa_cel_node_t *const *selectors, size_t n, const char *driver,
                                 const gpa_dra_device_t *d, uint64_t *cost, size_t *which, const char **why)
{
    lookup_t slots[POOL_SIZE];
    pool_t pool = {slots, 0};
    lookup_t root = {VIEW_DEVICE, driver, d, NULL, &pool};
    gpa_cel_binding_t device = {"device", map_of(a, &root, VIEW_DEVICE, NULL)};
    for (size_t i = 0; i < n; i++) {
        gpa_cel_value_t v = gpa_cel_eval(a, selectors[i], &device, 1, cost);
        gpa_cel_outcome_t o = gpa_cel_outcome(&v, why);
        *which = i;
        if (o != GPA_CEL_MATCH)
            return o;
    }
    return GPA_CEL_MATCH;
}
