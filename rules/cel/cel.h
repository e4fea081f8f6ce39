/*
 * gpuadmit CEL: the Common Expression Language as Kubernetes writes it (DRA device selectors first), parsed in full
 * and evaluated over a subset, everything beyond the subset being *unknown*. It knows CEL, not DRA: the variables an
 * expression reads (`device`) are bindings the caller hands in, maps of which may be served by a lookup callback so
 * that nothing is built per device.
 *
 * What is evaluated (docs/cel.md): literals (int, uint, string, bool, null, lists, maps); identifiers bound by the
 * caller; field selection and indexing of maps and lists; `==` `!=` on every value (different types are unequal,
 * numbers compare across int and uint), `<` `<=` `>` `>=` on int, uint, string, bool; `in` a list or a map;
 * `&&` `||` with CEL's commutative absorption of errors and unknowns, `!`, `? :`; `has()`; `size()`;
 * `quantity()` with `compareTo`, `isGreaterThan`, `isLessThan`, `asInteger`; `semver()` with `compareTo`,
 * `isGreaterThan`, `isLessThan`, `major`, `minor`, `patch`; `lowerAscii`, `upperAscii`, `startsWith`, `endsWith`,
 * `contains`, `matches` (the part of RE2 that POSIX ERE covers; an RE2-only pattern is unknown, never an error).
 * Everything else that parses (arithmetic, doubles, bytes, comprehensions, `cel.bind`, optionals, messages, other
 * functions) evaluates to unknown: a caller that denies only on what was fully evaluated is never wrong.
 *
 * Bounds: an expression of at most GPA_CEL_MAX_SOURCE bytes nesting at most GPA_CEL_MAX_DEPTH deep (a parse error
 * beyond, never a stack overflow); evaluation pays into a cost budget (one unit per node, string work by length) and
 * a budget spent makes the result unknown.
 *
 * Ownership: the syntax tree and every value an evaluation returns live in the arena passed in.
 */
#ifndef GPA_CEL_H
#define GPA_CEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

#define GPA_CEL_MAX_SOURCE (64 * 1024) /* bytes of one expression (Kubernetes allows 10 KiB for a selector) */
#define GPA_CEL_MAX_DEPTH 128          /* nesting of one expression (cel-go's parser stops at 250 recursions) */

typedef struct st_gpa_cel_node_t gpa_cel_node_t; /* a parsed expression (cel_ast.h); opaque */

/*
 * Parses src[0..len) as a CEL expression. Returns 0 with *out, or -1 with err: a syntax error at its column
 * ("column" counts bytes from 1; line is 0), under `path`.
 */
int gpa_cel_parse(gpa_arena_t *a, const char *src, size_t len, const char *path, const gpa_cel_node_t **out, gpa_error_t *err);

typedef enum en_gpa_cel_kind_t {
    GPA_CEL_NULL,
    GPA_CEL_BOOL,
    GPA_CEL_INT,
    GPA_CEL_UINT,
    GPA_CEL_STRING,
    GPA_CEL_LIST,
    GPA_CEL_MAP,
    GPA_CEL_QUANTITY, /* a Kubernetes quantity (whole values only: a fractional one evaluates to unknown) */
    GPA_CEL_SEMVER,
    GPA_CEL_ERROR,   /* what the expression raises at run time: u.str holds the message */
    GPA_CEL_UNKNOWN, /* outside the subset, or the budget was spent: could be anything */
} gpa_cel_kind_t;

typedef struct st_gpa_cel_value_t gpa_cel_value_t;

/* A map served by its owner: fills *out and returns 1 when `key` is present, 0 when absent. */
typedef int (*gpa_cel_lookup_fn)(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out);

struct st_gpa_cel_value_t {
    gpa_cel_kind_t kind;
    union {
        int boolean;
        int64_t i;
        uint64_t u;
        struct {
            const char *ptr; /* NUL-terminated; may hold NUL before len */
            size_t len;
        } str; /* STRING; ERROR: the message */
        struct {
            const gpa_cel_value_t *items;
            size_t len;
        } list;
        struct {
            const gpa_cel_value_t *keys, *values; /* len entries, when lookup is NULL */
            size_t len;
            gpa_cel_lookup_fn lookup; /* else every key goes through it (size() and `in` then unknown) */
            void *ctx;
        } map;
        int64_t quantity;
        struct {
            uint64_t major, minor, patch;
            const char *pre; /* pre-release identifiers joined by '.', "" when none (build metadata dropped) */
        } semver;
    } u;
};

/* Values to bind: strings are borrowed (they must outlive the evaluation). */
gpa_cel_value_t gpa_cel_string(const char *s, size_t len);
gpa_cel_value_t gpa_cel_int(int64_t i);
gpa_cel_value_t gpa_cel_bool(int b);
gpa_cel_value_t gpa_cel_quantity(int64_t q);
gpa_cel_value_t gpa_cel_lookup_map(gpa_cel_lookup_fn lookup, void *ctx);
/* A semantic version as semver() reads it (Kubernetes' DRA `version` attributes are such values), or an error value. */
gpa_cel_value_t gpa_cel_semver(gpa_arena_t *a, const char *s, size_t len);

/* A variable an expression may read. */
typedef struct st_gpa_cel_binding_t {
    const char *name;
    gpa_cel_value_t value;
} gpa_cel_binding_t;

/*
 * Evaluates `expr` with the variables vars[0..nvars) (an identifier bound to nothing is an error, as the API
 * server's compiler would refuse it). *cost is the budget left: each step takes from it, and once it is 0 the
 * result is unknown. Never fails otherwise.
 */
gpa_cel_value_t gpa_cel_eval(gpa_arena_t *a, const gpa_cel_node_t *expr, const gpa_cel_binding_t *vars, size_t nvars,
                             uint64_t *cost);

/* What a selector says of one device. */
typedef enum en_gpa_cel_outcome_t {
    GPA_CEL_MATCH,    /* true */
    GPA_CEL_NO_MATCH, /* false */
    GPA_CEL_MAYBE,    /* unknown: counts as a match for a caller that must never deny wrongly */
    GPA_CEL_FAILS,    /* a run-time error, or a result that is no bool: the scheduler stops on it */
} gpa_cel_outcome_t;

/* The outcome of a selector's value; for GPA_CEL_FAILS, *why (may be NULL) is the error's message. */
gpa_cel_outcome_t gpa_cel_outcome(const gpa_cel_value_t *v, const char **why);

#endif
