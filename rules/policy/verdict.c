/*
 * The verdict's helpers (verdict.h).
 */
#include "policy/verdict.h"

const char *gpa_violation_line(gpa_arena_t *a, const gpa_violation_t *v)
{
    if (v->container != NULL && v->container[0] != '\0')
        return gpa_arena_printf(a, "%s: %s: %s", v->container, v->rule, v->message);
    return gpa_arena_printf(a, "%s: %s", v->rule, v->message);
}
