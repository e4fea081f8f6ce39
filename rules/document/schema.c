/*
 * One wording for closed-schema faults (schema.h).
 */
#include "document/schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"

static int is_known(const char *key, const char *const *known)
{
    for (size_t k = 0; known[k] != NULL; k++)
        if (strcmp(known[k], key) == 0)
            return 1;
    return 0;
}

int gpa_schema_unknown_field(gpa_error_t *err, const gpa_member_t *m, const char *path, const char *const *known)
{
    gpa_buf_t list = GPA_BUF_INIT;
    for (size_t k = 0; known[k] != NULL; k++)
        gpa_buf_printf(&list, "%s%s", k > 0 ? ", " : "", known[k]);
    gpa_error_set(err, m->value->line, m->value->column, path, "unknown field \"%s\"; known: %s", m->key,
                  list.base != NULL ? list.base : "");
    gpa_buf_dispose(&list);
    return -1;
}

int gpa_schema_fields(gpa_error_t *err, const gpa_value_t *obj, const char *path, const char *const *known)
{
    for (size_t i = 0; obj->type == GPA_VOBJECT && i < obj->u.object.len; i++)
        if (!is_known(obj->u.object.members[i].key, known))
            return gpa_schema_unknown_field(err, &obj->u.object.members[i], path, known);
    return 0;
}

int gpa_schema_wrong_type(gpa_error_t *err, const gpa_value_t *v, const char *want, const char *path)
{
    if (v == NULL)
        return gpa_error_set(err, 0, 0, path, "must be %s, not missing", want);
    return gpa_error_set(err, v->line, v->column, path, "must be %s, not %s", want, gpa_vtype_name(v->type));
}

int gpa_schema_want(gpa_error_t *err, const gpa_value_t *v, gpa_vtype_t type, const char *path)
{
    if (v != NULL && v->type == type)
        return 0;
    return gpa_schema_wrong_type(err, v, gpa_vtype_name(type), path);
}

const char *gpa_schema_path(gpa_arena_t *a, const char *parent, const char *key)
{
    return parent[0] != '\0' ? gpa_arena_printf(a, "%s.%s", parent, key) : gpa_arena_strdup(a, key);
}

int gpa_schema_vfail(gpa_error_t *err, const gpa_value_t *v, const char *path, const char *fmt, va_list ap)
{
    char msg[400];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    return gpa_error_set(err, v != NULL ? v->line : 0, v != NULL ? v->column : 0, path, "%s", msg);
}

int gpa_schema_fail(gpa_error_t *err, const gpa_value_t *v, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = gpa_schema_vfail(err, v, path, fmt, ap);
    va_end(ap);
    return rc;
}
