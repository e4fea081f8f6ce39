#include "policy/engine.h"

#include <string.h>

#include "kube/decode.h"
#include "policy/mutate.h"
#include "policy/validate.h"

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

static void add_warning(gpa_arena_t *a, gpa_strings_t *warnings, const char *line)
{
    const char *w = warning_line(a, line);
    if (w[0] == '\0')
        return;
    for (size_t i = 0; i < warnings->len; i++)
        if (strcmp(warnings->items[i], w) == 0)
            return; /* the same line from two templates says nothing new */
    *gpa_vec_push(a, warnings) = w;
}

static int same_str(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    return strcmp(x, y) == 0;
}

/* Whether the old object already had this finding (same rule, same container): it does not count on UPDATE. */
static int already_had(const gpa_violations_t *old, const gpa_violation_t *v)
{
    for (size_t i = 0; i < old->len; i++)
        if (strcmp(old->items[i].rule, v->rule) == 0 && same_str(old->items[i].container, v->container))
            return 1;
    return 0;
}

/* Mutates (CREATE): sets out->patch, out->mutations, out->mutated and, when `reread`, *target to the mutated object
 * decoded again (validation must read what the API server will store, not what was sent). */
static int run_mutations(gpa_arena_t *a, const gpa_config_t *cfg, gpa_object_t *obj, int reread, gpa_verdict_t *out,
                         gpa_strings_t *mutation_warnings, gpa_object_t **target, gpa_error_t *err)
{
    gpa_mutate(a, cfg, obj, &out->patch, mutation_warnings, &out->mutations);
    if (out->patch.len == 0)
        return 0;
    gpa_value_t *root = obj->root;
    if (gpa_patch_apply(a, &root, &out->patch, err) != 0)
        return -1;
    out->mutated = root;
    if (!reread)
        return 0; /* nothing validates the result (the mutating webhook): skip the second decode */
    gpa_object_t *mutated;
    if (gpa_decode_object(a, root, &mutated, err) != 0)
        return -1;
    /* Where the caller placed the object (an AdmissionReview's request.namespace, which wins) carries over. */
    gpa_object_set_request(mutated, obj->namespace_, obj->name);
    *target = mutated;
    return 0;
}

static void run_validation(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_check_opts_t *opts, const gpa_object_t *target,
                           gpa_verdict_t *out)
{
    gpa_violations_t found = {0}, old = {0};
    gpa_validate_object(a, cfg, opts->inventory, target, &found);
    int update = opts->operation == GPA_OP_UPDATE && opts->old_object != NULL;
    if (update && found.len != 0)
        gpa_validate_object(a, cfg, opts->inventory, opts->old_object, &old);
    for (size_t i = 0; i < found.len; i++) {
        const gpa_violation_t *v = &found.items[i];
        if (v->action == GPA_ACTION_OFF || (update && already_had(&old, v)))
            continue;
        *gpa_vec_push(a, &out->violations) = *v;
        if (v->action == GPA_ACTION_DENY)
            out->allowed = 0;
        else
            *gpa_vec_push(a, &out->warnings) = gpa_violation_line(a, v); /* made into warnings by gpa_check */
    }
}

int gpa_check(gpa_arena_t *a, const gpa_config_t *cfg, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *out,
              gpa_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->allowed = 1;
    out->mutated = obj->root;
    if (opts->operation == GPA_OP_DELETE || opts->operation == GPA_OP_CONNECT)
        return 0;
    if (gpa_config_excludes(cfg, obj->namespace_) || obj->npods == 0)
        return 0;
    gpa_object_t *target = obj;
    gpa_strings_t mutation_warnings = {0};
    if (opts->mutate && opts->operation == GPA_OP_CREATE &&
        run_mutations(a, cfg, obj, opts->validate, out, &mutation_warnings, &target, err) != 0)
        return -1;
    if (opts->validate)
        run_validation(a, cfg, opts, target, out);
    /* Mutation warnings first: they say what happened to the object before validation read it. */
    gpa_strings_t warnings = {0};
    for (size_t i = 0; i < mutation_warnings.len; i++)
        add_warning(a, &warnings, mutation_warnings.items[i]);
    for (size_t i = 0; i < out->warnings.len; i++)
        add_warning(a, &warnings, out->warnings.items[i]);
    out->warnings = warnings;
    return 0;
}
