/*
 * The verdict's helpers (verdict.h).
 */
#include "policy/verdict.h"

#include <string.h>

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

/*
 * One AdmissionResponse warning from any line: control characters become spaces (one line, no newline), a
 * leading "Warning:" is dropped (the client adds its own), and a long line is cut on a UTF-8 boundary with
 * "..." so that the result stays under 120 bytes. Arena-owned.
 */
static const char *warning_line(gpa_arena_t *a, const char *line)
{
    while (starts_with_warning(line)) {
        line += 8;
        while (*line == ' ')
            line++;
    }
    size_t n = strlen(line);
    size_t keep = n <= WARNING_MAX ? n : utf8_prefix(line, n, WARNING_MAX - 3);
    char *out = gpa_arena_alloc(a, keep + 4);
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)line[i];
        out[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    if (keep < n) {
        memcpy(out + keep, "...", 3);
        keep += 3;
    }
    out[keep] = '\0';
    return out;
}

void gpa_warnings_add(gpa_arena_t *a, gpa_warnings_t *warnings, gpa_warning_origin_t origin, const char *line, const char *mutation,
                      size_t violation)
{
    const char *text = warning_line(a, line);
    if (text[0] == '\0')
        return;
    for (size_t i = 0; i < warnings->len; i++)
        if (strcmp(warnings->items[i].text, text) == 0)
            return; /* the same line from two templates says nothing new */
    *gpa_vec_push(a, warnings) = (gpa_warning_t){origin, text, mutation, violation};
}
