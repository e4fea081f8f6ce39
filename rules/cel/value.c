/*
 * CEL's values and the rules every part of the evaluation shares: the constructors, the strict-call rule (unknown
 * before error), heterogeneous equality, semver precedence, the cost budget, and what a selector's value means.
 */
#include <stdarg.h>
#include <string.h>

#include "cel/value.h"

gpa_cel_value_t gpa_cel_string(const char *s, size_t len)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_STRING, .u.str = {s, len}};
}

gpa_cel_value_t gpa_cel_int(int64_t i)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_INT, .u.i = i};
}

gpa_cel_value_t gpa_cel_bool(int b)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_BOOL, .u.boolean = b != 0};
}

gpa_cel_value_t gpa_cel_quantity(int64_t q)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_QUANTITY, .u.quantity = q};
}

gpa_cel_value_t gpa_cel_lookup_map(gpa_cel_lookup_fn lookup, void *ctx)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_MAP, .u.map = {.lookup = lookup, .ctx = ctx}};
}

gpa_cel_value_t gpa_cel_unknown_(void)
{
    return (gpa_cel_value_t){.kind = GPA_CEL_UNKNOWN};
}

gpa_cel_value_t gpa_cel_error_(gpa_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = gpa_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return (gpa_cel_value_t){.kind = GPA_CEL_ERROR, .u.str = {msg, strlen(msg)}};
}

const char *gpa_cel_type_name_(const gpa_cel_value_t *v)
{
    static const char *const names[] = {"null_type", "bool",     "int",    "uint",  "string", "list",
                                        "map",       "Quantity", "Semver", "error", "unknown"};
    return names[v->kind];
}

int gpa_cel_pending_(const gpa_cel_value_t *v)
{
    return v->kind == GPA_CEL_ERROR || v->kind == GPA_CEL_UNKNOWN;
}

gpa_cel_value_t gpa_cel_strict_(const gpa_cel_value_t *args, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (args[i].kind == GPA_CEL_UNKNOWN)
            return args[i];
    for (size_t i = 0; i < n; i++)
        if (args[i].kind == GPA_CEL_ERROR)
            return args[i];
    return (gpa_cel_value_t){.kind = GPA_CEL_NULL};
}

/* ---- equality and order ---- */

/* -1, 0, 1 for two numbers of kinds int or uint, exactly across the two. */
int gpa_cel_compare_numbers_(const gpa_cel_value_t *x, const gpa_cel_value_t *y)
{
    if (x->kind == y->kind)
        return x->kind == GPA_CEL_INT ? (x->u.i > y->u.i) - (x->u.i < y->u.i) : (x->u.u > y->u.u) - (x->u.u < y->u.u);
    if (x->kind == GPA_CEL_INT)
        return x->u.i < 0 ? -1 : ((uint64_t)x->u.i > y->u.u) - ((uint64_t)x->u.i < y->u.u);
    return -gpa_cel_compare_numbers_(y, x);
}

int gpa_cel_is_number_(const gpa_cel_value_t *v)
{
    return v->kind == GPA_CEL_INT || v->kind == GPA_CEL_UINT;
}

int gpa_cel_compare_bytes_(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c != 0 ? (c > 0) - (c < 0) : (alen > blen) - (alen < blen);
}

/* 1 equal, 0 not, -1 unknown (a host map, or an unknown inside a list or map). */
int gpa_cel_equal_(const gpa_cel_value_t *x, const gpa_cel_value_t *y)
{
    if (x->kind == GPA_CEL_UNKNOWN || y->kind == GPA_CEL_UNKNOWN)
        return -1;
    if (gpa_cel_is_number_(x) && gpa_cel_is_number_(y))
        return gpa_cel_compare_numbers_(x, y) == 0;
    if (x->kind != y->kind)
        return 0;
    switch (x->kind) {
    case GPA_CEL_NULL:
        return 1;
    case GPA_CEL_BOOL:
        return x->u.boolean == y->u.boolean;
    case GPA_CEL_STRING:
        return x->u.str.len == y->u.str.len && memcmp(x->u.str.ptr, y->u.str.ptr, x->u.str.len) == 0;
    case GPA_CEL_QUANTITY:
        return x->u.quantity == y->u.quantity;
    case GPA_CEL_SEMVER:
        return gpa_cel_semver_compare_(x, y) == 0;
    case GPA_CEL_LIST: {
        if (x->u.list.len != y->u.list.len)
            return 0;
        int all = 1;
        for (size_t i = 0; i < x->u.list.len; i++) {
            int e = gpa_cel_equal_(&x->u.list.items[i], &y->u.list.items[i]);
            if (e == 0)
                return 0;
            all &= e == 1;
        }
        return all ? 1 : -1;
    }
    default: /* maps: rare in selectors; not modelled */
        return -1;
    }
}

/* One pre-release identifier against another: numeric ones by value and below alphanumeric ones, those by bytes. */
static int compare_identifier(const char *a, size_t alen, const char *b, size_t blen)
{
    int an = strspn(a, "0123456789") >= alen, bn = strspn(b, "0123456789") >= blen;
    if (an != bn)
        return an ? -1 : 1;
    if (an && alen != blen) /* no leading zeros: the longer number is the larger */
        return alen < blen ? -1 : 1;
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c != 0 ? (c > 0) - (c < 0) : (alen > blen) - (alen < blen);
}

int gpa_cel_semver_compare_(const gpa_cel_value_t *x, const gpa_cel_value_t *y)
{
    const uint64_t xs[3] = {x->u.semver.major, x->u.semver.minor, x->u.semver.patch},
                   ys[3] = {y->u.semver.major, y->u.semver.minor, y->u.semver.patch};
    for (int i = 0; i < 3; i++)
        if (xs[i] != ys[i])
            return xs[i] < ys[i] ? -1 : 1;
    const char *a = x->u.semver.pre, *b = y->u.semver.pre;
    if (*a == '\0' || *b == '\0') /* a release ranks above its pre-releases */
        return (*a == '\0') - (*b == '\0');
    for (;;) {
        size_t alen = strcspn(a, "."), blen = strcspn(b, ".");
        int c = compare_identifier(a, alen, b, blen);
        if (c != 0)
            return c;
        a += alen, b += blen;
        if (*a == '\0' || *b == '\0')
            return (*a != '\0') - (*b != '\0');
        a++, b++;
    }
}

int gpa_cel_pay_(gpa_cel_eval_t *e, uint64_t units)
{
    if (*e->cost < units) {
        *e->cost = 0;
        return -1;
    }
    *e->cost -= units;
    return 0;
}

gpa_cel_outcome_t gpa_cel_outcome(const gpa_cel_value_t *v, const char **why)
{
    if (why != NULL)
        *why = NULL;
    switch (v->kind) {
    case GPA_CEL_BOOL:
        return v->u.boolean ? GPA_CEL_MATCH : GPA_CEL_NO_MATCH;
    case GPA_CEL_UNKNOWN:
        return GPA_CEL_MAYBE;
    case GPA_CEL_ERROR:
        if (why != NULL)
            *why = v->u.str.ptr;
        return GPA_CEL_FAILS;
    default:
        if (why != NULL)
            *why = "the expression's value is no bool";
        return GPA_CEL_FAILS;
    }
}
