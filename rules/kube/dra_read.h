/*
 * Reading resource.k8s.io shapes, for the files that read DRA objects (dra.c: claims, templates, classes, a Pod's
 * claims; dra_slice.c: ResourceSlices). Private to kube.
 *
 * A field the engine reads must have its shape (a list where a list is, a mapping where a mapping is, a string where a
 * string is): each reader fails with the path and the node of the first field that does not, and treats an absent
 * field and an explicit null alike (what Kubernetes' decoder does with omitempty fields). Paths are arena strings.
 */
#ifndef GPA_DRA_READ_H
#define GPA_DRA_READ_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"
#include "kube/quantity.h"

/* One reading: the arena, the first error, nothing else. */
typedef struct st_gpa_dra_reader_t {
    gpa_arena_t *a;
    gpa_error_t *err;
} gpa_dra_reader_t;

/* "parent.key" and "parent[i]". */
const char *gpa_dra_join(gpa_dra_reader_t *r, const char *parent, const char *key);
const char *gpa_dra_index_path(gpa_dra_reader_t *r, const char *parent, size_t i);

/* obj[key] when it has type t; *out NULL when absent or null; -1 with err when present with another type. */
int gpa_dra_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, gpa_vtype_t t, const char *path, gpa_value_t **out);
int gpa_dra_string_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, const char **out);
/* A list at obj[key] of at most `max` items (the API's limit): *items NULL and *n 0 when absent. */
int gpa_dra_list_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max,
                       gpa_value_t ***items, size_t *n);
/* A mapping at obj[key] of at most `max` entries (the API's limit): *map NULL when absent. */
int gpa_dra_map_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max,
                      gpa_value_t **map);
/* A list of strings at obj[key] (a constraint's or config's `requests`), at most `max`. */
int gpa_dra_strings_field(gpa_dra_reader_t *r, const gpa_value_t *obj, const char *key, const char *path, size_t max,
                          const char ***out, size_t *n);
/* A quantity node's exact value (a string or number, Kubernetes' Quantity), or status GPA_Q_SYNTAX for anything else
 * (v may be NULL): the API server's to refuse, unusable here. */
gpa_quantity_t gpa_dra_quantity(const gpa_value_t *v);
/* -1 with err unless v is a mapping. */
int gpa_dra_must_be_object(gpa_dra_reader_t *r, const gpa_value_t *v, const char *path);

#endif
