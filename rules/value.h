/*
 * gpuadmit documents: one small tree type for everything read from JSON or YAML, with source locations.
 *
 * Both parsers build this tree in an arena; every later stage (decode into the typed model, patch, emit)
 * reads it. It is our own type so that the engine's public API carries no JSON-library types.
 *
 * Ownership: every node, key and string belongs to the arena passed to the parser.
 *
 * Strings are decoded (JSON escapes, YAML escapes and folding) before anyone compares them, so a key written
 * "koordinator.sh\u002fgpu-core" reads as "koordinator.sh/gpu-core". Numbers keep their literal text.
 * Duplicate keys in one object: the last one wins and the earlier ones are removed by the parser (what
 * kube-apiserver's decoder does), so an object never holds the same key twice.
 */
#ifndef GPA_VALUE_H
#define GPA_VALUE_H

#include <stddef.h>

#include "arena.h"
#include "buf.h"
#include "error.h"

typedef enum en_gpa_vtype_t {
    GPA_VNULL,
    GPA_VBOOL,
    GPA_VNUMBER,
    GPA_VSTRING,
    GPA_VARRAY,
    GPA_VOBJECT,
} gpa_vtype_t;

typedef struct st_gpa_value_t gpa_value_t;

typedef struct st_gpa_member_t {
    const char *key; /* decoded, NUL-terminated (may contain NUL before key_len) */
    size_t key_len;
    gpa_value_t *value;
} gpa_member_t;

struct st_gpa_value_t {
    gpa_vtype_t type;
    unsigned line, column; /* 1-based position of the node's first character in its source; 0 = made, not read */
    union {
        int boolean;
        /* GPA_VSTRING: decoded text; GPA_VNUMBER: the literal as written. NUL-terminated either way. */
        struct {
            const char *ptr;
            size_t len;
        } str;
        struct {
            gpa_value_t **items;
            size_t len;
        } array;
        struct {
            gpa_member_t *members;
            size_t len;
        } object;
    } u;
};

/* A stream of documents (a YAML file may hold several; JSON holds one). */
typedef struct st_gpa_docs_t {
    gpa_value_t **docs;
    size_t len;
} gpa_docs_t;

/*
 * Parses one JSON text (RFC 8259; trailing garbage, invalid UTF-8, lone surrogates and nesting deeper than
 * GPA_MAX_DEPTH are errors). Returns 0 and sets *out, or -1 with err filled (line and column of the fault).
 */
#define GPA_MAX_DEPTH 256
int gpa_json_parse(gpa_arena_t *a, const char *text, size_t len, gpa_value_t **out, gpa_error_t *err);

/*
 * Parses a YAML stream (libyaml) into its documents; empty documents (and documents that are just null) are
 * skipped. Plain scalars resolve as Kubernetes' YAML reader (sigs.k8s.io/yaml, go-yaml v2) does: null, ~ and
 * empty are null; true/false, yes/no, on/off, y/n (three capitalisations) are booleans; integers (0x, 0o, 0
 * octal, 0b, underscores) and floats are numbers whose text is rewritten to valid JSON (integers to decimal,
 * floats minimally: "+1.5" -> "1.5", ".5" -> "0.5"; a decimal integer beyond 64 bits keeps its digits);
 * .inf and .nan are errors (JSON, and so Kubernetes, cannot hold them); everything else is a string, and
 * quoted or block scalars always are. Keys of another type become their JSON text ("true", "16", "null").
 * Aliases share the anchored node (expansion bounded: an alias bomb is an error); merge keys (<<) apply in
 * document order, the last write of a key winning, as in go-yaml v2 (a key written before a `<<` that brings
 * it is overwritten); tags other than the core schema's are errors. Line and column come from libyaml's marks.
 */
int gpa_yaml_parse(gpa_arena_t *a, const char *text, size_t len, gpa_docs_t *out, gpa_error_t *err);

/*
 * What gpa_yaml_parse would make of s[0..n) written as an untagged plain scalar: GPA_VNULL, GPA_VBOOL,
 * GPA_VNUMBER or GPA_VSTRING; -1 when it would be an error or not a plain value (.inf, .nan, the merge key
 * <<). The YAML emitter quotes every string for which this is not GPA_VSTRING.
 */
int gpa_yaml_plain_type(const char *s, size_t n);

/* JSON when the first non-blank byte is '{' or '[', YAML otherwise. Text that starts like JSON but is not
 * JSON is read as YAML (a flow mapping such as "{kind: Pod}"); when that fails too, err holds the JSON error. */
int gpa_docs_parse(gpa_arena_t *a, const char *text, size_t len, gpa_docs_t *out, gpa_error_t *err);

/* Lookups: NULL when absent or when `v` is not of the right type. */
gpa_value_t *gpa_value_get(const gpa_value_t *obj, const char *key);
gpa_value_t *gpa_value_at(const gpa_value_t *array, size_t index);
/* The string of a GPA_VSTRING node, else NULL. */
const char *gpa_value_string(const gpa_value_t *v);

/* Constructors (arena-owned; line/column 0). */
gpa_value_t *gpa_value_new_string(gpa_arena_t *a, const char *s, size_t len);
gpa_value_t *gpa_value_new_object(gpa_arena_t *a, size_t nmembers); /* members zeroed; fill them */
/*
 * Removes duplicate keys from members[0..n) in place: for each key only the last occurrence stays, at its
 * own position, and the order of the survivors is kept. Returns the new count. O(n log n) on large objects
 * (the parsers call it on every object they build; exposed for code that builds objects by hand).
 */
size_t gpa_members_dedupe(gpa_member_t *members, size_t n);
/* "null", "a boolean", "a number", "a string", "a list", "a mapping": for "must be X, not Y" messages. */
const char *gpa_vtype_name(gpa_vtype_t type);
/* The first member of mapping `obj` whose key is not in `known` (NULL-terminated), or NULL when all are known:
 * every reader of a closed schema (config, suites, inventories) refuses unknown keys with this. */
const gpa_member_t *gpa_value_unknown_member(const gpa_value_t *obj, const char *const *known);
/* Deep equality (numbers compared by literal text; object members compared as sets, order ignored). */
int gpa_value_equal(const gpa_value_t *x, const gpa_value_t *y);

/* Emitters: append the tree to `out`. JSON is compact unless `indent` > 0; YAML is block style. */
void gpa_value_emit_json(gpa_buf_t *out, const gpa_value_t *v, int indent);
void gpa_value_emit_yaml(gpa_buf_t *out, const gpa_value_t *v);

#endif
