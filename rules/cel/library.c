/*
 * The functions of the subset: CEL's own (`size`, `matches`), Kubernetes' strings (`lowerAscii`, `upperAscii`,
 * `startsWith`, `endsWith`, `contains`), quantity and semver libraries. One table, name and arity; a call it does not
 * hold is unknown and its arguments are never evaluated (so `cel.bind` and the comprehension macros, whose arguments
 * bind variables, are unknown as a whole).
 */
#include <regex.h>
#include <string.h>

#include "cel/library.h"
#include "kube/quantity.h"

static gpa_cel_value_t no_overload(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args, size_t n)
{
    return gpa_cel_error_(e->a, "no matching overload for '%s' applied to (%s%s%s)", name, gpa_cel_type_name_(&args[0]),
                          n > 1 ? ", " : "", n > 1 ? gpa_cel_type_name_(&args[1]) : "");
}

/* ---- strings ---- */

static int strings2(const gpa_cel_value_t *args)
{
    return args[0].kind == GPA_CEL_STRING && args[1].kind == GPA_CEL_STRING;
}

static gpa_cel_value_t fn_starts_with(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (!strings2(args))
        return no_overload(e, name, args, 2);
    size_t n = args[1].u.str.len;
    return gpa_cel_bool(args[0].u.str.len >= n && memcmp(args[0].u.str.ptr, args[1].u.str.ptr, n) == 0);
}

static gpa_cel_value_t fn_ends_with(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (!strings2(args))
        return no_overload(e, name, args, 2);
    size_t n = args[1].u.str.len, len = args[0].u.str.len;
    return gpa_cel_bool(len >= n && memcmp(args[0].u.str.ptr + len - n, args[1].u.str.ptr, n) == 0);
}

static gpa_cel_value_t fn_contains(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (!strings2(args))
        return no_overload(e, name, args, 2);
    size_t n = args[1].u.str.len, len = args[0].u.str.len;
    if (gpa_cel_pay_(e, len) != 0)
        return gpa_cel_unknown_();
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(args[0].u.str.ptr + i, args[1].u.str.ptr, n) == 0)
            return gpa_cel_bool(1);
    return gpa_cel_bool(0);
}

static gpa_cel_value_t ascii_case(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args, char from, char to)
{
    if (args[0].kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    size_t len = args[0].u.str.len;
    if (gpa_cel_pay_(e, len) != 0)
        return gpa_cel_unknown_();
    char *s = gpa_arena_alloc(e->a, len + 1);
    for (size_t i = 0; i < len; i++) {
        char c = args[0].u.str.ptr[i];
        s[i] = c >= from && c <= (char)(from + 25) ? (char)(c - from + to) : c;
    }
    s[len] = '\0';
    return gpa_cel_string(s, len);
}

static gpa_cel_value_t fn_lower_ascii(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return ascii_case(e, name, args, 'A', 'a');
}

static gpa_cel_value_t fn_upper_ascii(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return ascii_case(e, name, args, 'a', 'A');
}

static gpa_cel_value_t fn_size(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    const gpa_cel_value_t *v = &args[0];
    if (v->kind == GPA_CEL_LIST)
        return gpa_cel_int((int64_t)v->u.list.len);
    if (v->kind == GPA_CEL_MAP)
        return v->u.map.lookup != NULL ? gpa_cel_unknown_() : gpa_cel_int((int64_t)v->u.map.len);
    if (v->kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    int64_t points = 0; /* code points: every byte that does not continue a UTF-8 sequence */
    for (size_t i = 0; i < v->u.str.len; i++)
        points += ((unsigned char)v->u.str.ptr[i] & 0xC0) != 0x80;
    return gpa_cel_int(points);
}

/*
 * Whether a pattern means the same to POSIX ERE as to RE2 for a yes/no search, with no feature RE2 lacks or reads
 * otherwise: ASCII only (RE2's '.' is a code point, the C locale's a byte), no escape of a letter or digit (\d, \b,
 * backreferences), no "(?" (flags, non-capturing groups), no lazy quantifier, no counted repetition (RE2 caps its
 * counts; a large one costs POSIX memory).
 */
static int posix_covers(const char *re, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)re[i];
        if (c == 0 || c >= 0x80 || c == '{' || c == '}')
            return 0;
        char next = i + 1 < len ? (char)(re[i + 1] | 0x20) : 'a';
        if (c == '\\' && ((next >= 'a' && next <= 'z') || (re[i + 1] >= '0' && re[i + 1] <= '9')))
            return 0;
        if (c == '\\')
            i++;
        else if ((c == '(' || c == '*' || c == '+' || c == '?') && i + 1 < len && re[i + 1] == '?')
            return 0;
    }
    return 1;
}

#define GPA_CEL_MAX_REGEX 1024 /* bytes of a pattern evaluated (a longer one is unknown) */

static gpa_cel_value_t fn_matches(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (!strings2(args))
        return no_overload(e, name, args, 2);
    const gpa_cel_value_t *s = &args[0], *re = &args[1];
    if (re->u.str.len > GPA_CEL_MAX_REGEX || !posix_covers(re->u.str.ptr, re->u.str.len) ||
        memchr(s->u.str.ptr, '\0', s->u.str.len) != NULL || gpa_cel_pay_(e, s->u.str.len * re->u.str.len / 8 + 1) != 0)
        return gpa_cel_unknown_();
    for (size_t i = 0; i < s->u.str.len; i++)
        if ((unsigned char)s->u.str.ptr[i] >= 0x80)
            return gpa_cel_unknown_();
    regex_t rx;
    if (regcomp(&rx, re->u.str.ptr, REG_EXTENDED | REG_NOSUB) != 0)
        return gpa_cel_unknown_(); /* RE2 may still take it: not ours to call an error */
    int rc = regexec(&rx, s->u.str.ptr, 0, NULL, 0);
    regfree(&rx);
    return rc == 0 ? gpa_cel_bool(1) : rc == REG_NOMATCH ? gpa_cel_bool(0) : gpa_cel_unknown_();
}

/* ---- quantities ---- */

static gpa_cel_value_t fn_quantity(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (args[0].kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    gpa_quantity_t q = gpa_quantity_parse(args[0].u.str.ptr, args[0].u.str.len);
    if (q.status == GPA_Q_SYNTAX)
        return gpa_cel_error_(e->a, "quantities must match the regular expression "
                                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    return q.status == GPA_Q_OK ? gpa_cel_quantity(q.value) : gpa_cel_unknown_(); /* fractional or huge: not modelled */
}

static gpa_cel_value_t fn_is_quantity(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (args[0].kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    return gpa_cel_bool(gpa_quantity_parse(args[0].u.str.ptr, args[0].u.str.len).status != GPA_Q_SYNTAX);
}

static gpa_cel_value_t fn_as_integer(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return args[0].kind == GPA_CEL_QUANTITY ? gpa_cel_int(args[0].u.quantity) : no_overload(e, name, args, 1);
}

/* ---- semantic versions (Semantic Versioning 2.0.0, strict: three numbers, no leading zeros, no 'v') ---- */

/* A numeric identifier at s[*i]: digits, no leading zero (unless "0"). */
static int semver_number(const char *s, size_t len, size_t *i, uint64_t *out)
{
    size_t start = *i;
    uint64_t v = 0;
    for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[*i] - '0');
    }
    if (*i == start || (s[start] == '0' && *i - start > 1))
        return -1;
    *out = v;
    return 0;
}

/* Dot-separated identifiers of [0-9A-Za-z-] from s[*i] to a '+' or the end; numeric ones without leading zeros. */
static int semver_identifiers(const char *s, size_t len, size_t *i, int numeric_rule)
{
    size_t start = *i;
    for (;;) {
        size_t id = *i;
        int digits_only = 1;
        for (; *i < len && s[*i] != '.' && s[*i] != '+'; (*i)++) {
            char c = s[*i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
                return -1;
            digits_only &= c >= '0' && c <= '9';
        }
        if (*i == id || (numeric_rule && digits_only && s[id] == '0' && *i - id > 1))
            return -1;
        if (*i >= len || s[*i] != '.')
            return *i > start ? 0 : -1;
        (*i)++;
    }
}

gpa_cel_value_t gpa_cel_semver(gpa_arena_t *a, const char *s, size_t len)
{
    size_t i = 0, pre = 0, pre_end = 0;
    gpa_cel_value_t v = {.kind = GPA_CEL_SEMVER};
    int bad = semver_number(s, len, &i, &v.u.semver.major) != 0 || i >= len || s[i++] != '.' ||
              semver_number(s, len, &i, &v.u.semver.minor) != 0 || i >= len || s[i++] != '.' ||
              semver_number(s, len, &i, &v.u.semver.patch) != 0;
    if (!bad && i < len && s[i] == '-') {
        pre = ++i;
        bad = semver_identifiers(s, len, &i, 1) != 0;
        pre_end = i;
    }
    if (!bad && i < len && s[i] == '+') {
        i++;
        bad = semver_identifiers(s, len, &i, 0) != 0;
    }
    if (bad || i != len)
        return gpa_cel_error_(a, "invalid semver: %.64s", s);
    v.u.semver.pre = gpa_arena_strndup(a, s + pre, pre_end - pre);
    return v;
}

static gpa_cel_value_t fn_semver(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (args[0].kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    return gpa_cel_semver(e->a, args[0].u.str.ptr, args[0].u.str.len);
}

static gpa_cel_value_t fn_is_semver(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    if (args[0].kind != GPA_CEL_STRING)
        return no_overload(e, name, args, 1);
    return gpa_cel_bool(fn_semver(e, name, args).kind == GPA_CEL_SEMVER);
}

static gpa_cel_value_t semver_part(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args, int part)
{
    if (args[0].kind != GPA_CEL_SEMVER)
        return no_overload(e, name, args, 1);
    uint64_t v = part == 0 ? args[0].u.semver.major : part == 1 ? args[0].u.semver.minor : args[0].u.semver.patch;
    return v > INT64_MAX ? gpa_cel_error_(e->a, "integer overflow") : gpa_cel_int((int64_t)v);
}

static gpa_cel_value_t fn_major(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return semver_part(e, name, args, 0);
}

static gpa_cel_value_t fn_minor(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return semver_part(e, name, args, 1);
}

static gpa_cel_value_t fn_patch(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    return semver_part(e, name, args, 2);
}

/* ---- ordering of quantities and semvers ---- */

/* -1, 0, 1; or 2 when the two are not both quantities or both semvers. */
static int ordered(const gpa_cel_value_t *args)
{
    if (args[0].kind == GPA_CEL_QUANTITY && args[1].kind == GPA_CEL_QUANTITY)
        return (args[0].u.quantity > args[1].u.quantity) - (args[0].u.quantity < args[1].u.quantity);
    if (args[0].kind == GPA_CEL_SEMVER && args[1].kind == GPA_CEL_SEMVER)
        return gpa_cel_semver_compare_(&args[0], &args[1]);
    return 2;
}

static gpa_cel_value_t fn_compare_to(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    int c = ordered(args);
    return c == 2 ? no_overload(e, name, args, 2) : gpa_cel_int(c);
}

static gpa_cel_value_t fn_is_greater_than(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    int c = ordered(args);
    return c == 2 ? no_overload(e, name, args, 2) : gpa_cel_bool(c > 0);
}

static gpa_cel_value_t fn_is_less_than(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args)
{
    int c = ordered(args);
    return c == 2 ? no_overload(e, name, args, 2) : gpa_cel_bool(c < 0);
}

/* ---- the table ---- */

static const struct {
    const char *name;
    int receiver;
    size_t nargs; /* the receiver counted */
    gpa_cel_fn_t fn;
} functions[] = {
    {"size", 0, 1, fn_size},
    {"size", 1, 1, fn_size},
    {"matches", 0, 2, fn_matches},
    {"matches", 1, 2, fn_matches},
    {"startsWith", 1, 2, fn_starts_with},
    {"endsWith", 1, 2, fn_ends_with},
    {"contains", 1, 2, fn_contains},
    {"lowerAscii", 1, 1, fn_lower_ascii},
    {"upperAscii", 1, 1, fn_upper_ascii},
    {"quantity", 0, 1, fn_quantity},
    {"isQuantity", 0, 1, fn_is_quantity},
    {"asInteger", 1, 1, fn_as_integer},
    {"semver", 0, 1, fn_semver},
    {"isSemver", 0, 1, fn_is_semver},
    {"major", 1, 1, fn_major},
    {"minor", 1, 1, fn_minor},
    {"patch", 1, 1, fn_patch},
    {"compareTo", 1, 2, fn_compare_to},
    {"isGreaterThan", 1, 2, fn_is_greater_than},
    {"isLessThan", 1, 2, fn_is_less_than},
};

gpa_cel_fn_t gpa_cel_function_(const char *name, size_t len, int receiver, size_t nargs, const char **canonical)
{
    for (size_t k = 0; k < sizeof(functions) / sizeof(functions[0]); k++)
        if (functions[k].receiver == receiver && functions[k].nargs == nargs && strlen(functions[k].name) == len &&
            memcmp(functions[k].name, name, len) == 0) {
            *canonical = functions[k].name;
            return functions[k].fn;
        }
    return NULL;
}
