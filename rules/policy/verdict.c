/*
 * The verdict's helpers (verdict.h).
 */
#include "policy/verdict.h"

#include <string.h>

#include "base/hash.h"

static int same_str(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    return strcmp(x, y) == 0;
}

int gpa_violation_same(const gpa_violation_t *x, const gpa_violation_t *y)
{
    return strcmp(x->rule, y->rule) == 0 && same_str(x->pod, y->pod) && same_str(x->container, y->container);
}

int gpa_violations_hold(gpa_arena_t *a, gpa_violations_t *v, const char *rule, gpa_action_t action)
{
    size_t at = action == GPA_ACTION_DENY ? 0 : 1;
    if (v->keep == 0 || v->held[at] < v->keep) {
        v->held[at]++;
        return 1;
    }
    for (size_t i = 0; i < v->omitted.len; i++)
        if (v->omitted.items[i].rule == rule && v->omitted.items[i].action == action) {
            v->omitted.items[i].count++;
            return 0;
        }
    *gpa_vec_push(a, &v->omitted) = (gpa_omitted_t){rule, action, 1};
    return 0;
}

size_t gpa_violations_omitted(const gpa_violations_t *v, gpa_action_t action)
{
    size_t n = 0;
    for (size_t i = 0; i < v->omitted.len; i++)
        if (v->omitted.items[i].action == action)
            n += v->omitted.items[i].count;
    return n;
}

const char *gpa_violation_line(gpa_arena_t *a, const gpa_violation_t *v)
{
    if (v->container != NULL && v->container[0] != '\0')
        return gpa_arena_printf(a, "%s: %s: %s", v->container, v->rule, v->message);
    return gpa_arena_printf(a, "%s: %s", v->rule, v->message);
}

/* kube-apiserver's limits for an AdmissionResponse warning (reference/formats.md). */
#define WARNING_MAX 119 /* bytes, so every warning is < 120 */

/* Length of the longest prefix of s[0..n) that is at most max bytes and does not cut a UTF-8 sequence. */
static size_t utf8_prefix(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t len = max;
    while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
        len--; /* s[len] continues a sequence: cut before the sequence's first byte */
    return len;
}

static int starts_with_warning(const char *s)
{
    static const char prefix[] = "warning:";
    for (size_t i = 0; i < sizeof(prefix) - 1; i++)
        if (s[i] == '\0' || (s[i] | 0x20) != prefix[i])
            return 0;
    return 1;
}

/* A line as one warning: control characters become spaces, a leading "Warning:" is dropped. Arena-owned. */
static const char *warning_whole(gpa_arena_t *a, const char *line)
{
    while (starts_with_warning(line)) {
        line += 8;
        while (*line == ' ')
            line++;
    }
    char *out = gpa_arena_strdup(a, line);
    for (char *p = out; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return out;
}

/* The AdmissionResponse warning of a whole line: cut on a UTF-8 boundary with "..." so that it stays under 120
 * bytes. Arena-owned (the line itself when it is short). */
static const char *warning_cut(gpa_arena_t *a, const char *whole)
{
    size_t n = strlen(whole);
    if (n <= WARNING_MAX)
        return whole;
    size_t keep = utf8_prefix(whole, n, WARNING_MAX - 3);
    return gpa_arena_printf(a, "%.*s...", (int)keep, whole);
}

/* The slot of `whole` in w's index: the one holding it, or the empty one where it goes (the index is never full). */
static size_t *index_slot(const gpa_warnings_t *w, const char *whole)
{
    size_t mask = w->nindex_ - 1, i = (size_t)gpa_hash_string(whole) & mask;
    while (w->index_[i] != 0 && strcmp(w->items[w->index_[i] - 1].whole, whole) != 0)
        i = (i + 1) & mask;
    return &w->index_[i];
}

/* Keeps the index at most half full, so that thousands of warn findings cost one lookup each, not a scan each. */
static void index_reserve(gpa_arena_t *a, gpa_warnings_t *w)
{
    if (w->index_ != NULL && (w->len + 1) * 2 <= w->nindex_)
        return;
    w->nindex_ = w->nindex_ != 0 ? w->nindex_ * 2 : 16;
    w->index_ = gpa_arena_calloc(a, w->nindex_, sizeof(*w->index_));
    for (size_t i = 0; i < w->len; i++)
        *index_slot(w, w->items[i].whole) = i + 1;
}

void gpa_warnings_add(gpa_arena_t *a, gpa_warnings_t *warnings, gpa_warning_origin_t origin, const char *line, const char *mutation,
                      size_t violation)
{
    const char *whole = warning_whole(a, line);
    if (whole[0] == '\0')
        return;
    index_reserve(a, warnings);
    size_t *slot = index_slot(warnings, whole);
    if (*slot != 0)
        return; /* the same line from two templates says nothing new */
    *gpa_vec_push(a, warnings) = (gpa_warning_t){origin, warning_cut(a, whole), mutation, violation, whole};
    *slot = warnings->len;
}
