/*
 * Reading resource.k8s.io shapes (dra_read.h).
 */
#include "kube/dra_read.h"

#include "document/schema.h"

const char *gpa_dra_join(gpa_dra_reader_t *r, const char *parent, const char *key)
{
    return gpa_schema_path(r->a, parent, key);
}

const char *gpa_dra_index_path(gpa_dra_reader_t *r, const char *parent, size_t i)
{
    return gpa_arena_printf(r->a, "%s[%zu]", parent, i);
}

/* obj[key] when it has type t; *out NULL when absent or null; -1 with err when present with another type. */
int gpa_dra_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, gpa_vtype_t t, const char *path, gpa_value_t **out)
{
    gpa_value_t *v = gpa_value_get(obj, key);
    *out = NULL;
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    if (v->type != t)
        return gpa_schema_want(r->err, v, t, gpa_dra_join(r, path, key));
    *out = v;
    return 0;
}

int gpa_dra_string_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, const char **out)
{
    gpa_value_t *v;
    if (gpa_dra_field(r, obj, key, GPA_VSTRING, path, &v) != 0)
        return -1;
    *out = v != NULL ? v->u.str.ptr : NULL;
    return 0;
}

/* A list at obj[key] of at most `max` items: *items NULL and *n 0 when absent. */
int gpa_dra_list_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max,
                       gpa_value_t ***items, size_t *n)
{
    gpa_value_t *v;
    *items = NULL;
    *n = 0;
    if (gpa_dra_field(r, obj, key, GPA_VARRAY, path, &v) != 0)
        return -1;
    if (v == NULL)
        return 0;
    if (v->u.array.len > max)
        return gpa_schema_fail(r->err, v, gpa_dra_join(r, path, key), "at most %zu items (the API's limit), not %zu", max,
                               v->u.array.len);
    *items = v->u.array.items;
    *n = v->u.array.len;
    return 0;
}

int gpa_dra_map_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max, gpa_value_t **map)
{
    if (gpa_dra_field(r, obj, key, GPA_VOBJECT, path, map) != 0)
        return -1;
    if (*map != NULL && (*map)->u.object.len > max)
        return gpa_schema_fail(r->err, *map, gpa_dra_join(r, path, key), "at most %zu entries (the API's limit), not %zu", max,
                               (*map)->u.object.len);
    return 0;
}

/* A list of strings (a constraint's or config's `requests`). */
int gpa_dra_strings_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max,
                          const char ***out, size_t *n)
{
    gpa_value_t **items;
    if (gpa_dra_list_field(r, obj, key, path, max, &items, n) != 0)
        return -1;
    *out = NULL;
    if (*n == 0)
        return 0;
    const char *lp = gpa_dra_join(r, path, key);
    *out = gpa_arena_alloc(r->a, *n * sizeof(**out));
    for (size_t i = 0; i < *n; i++) {
        if (items[i]->type != GPA_VSTRING)
            return gpa_schema_want(r->err, items[i], GPA_VSTRING, gpa_dra_index_path(r, lp, i));
        (*out)[i] = items[i]->u.str.ptr;
    }
    return 0;
}

int gpa_dra_must_be_object(gpa_dra_reader_t *r, const gpa_value_t *v, const char *path)
{
    return gpa_schema_want(r->err, v, GPA_VOBJECT, path);
}

gpa_quantity_t gpa_dra_quantity(const gpa_value_t *v)
{
    if (v == NULL || (v->type != GPA_VSTRING && v->type != GPA_VNUMBER))
        return (gpa_quantity_t){.status = GPA_Q_SYNTAX};
    return gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
}
