/*
 * The YAML reader (libyaml underneath): a stream in, its documents as value trees (value.h) out.
 */
#ifndef GPA_YAML_H
#define GPA_YAML_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"

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
/* The same for a text that starts on line `first_line` of a larger stream: lines of nodes and errors count
 * from there (a stream read document by document, stream.h). */
int gpa_yaml_parse_at(gpa_arena_t *a, const char *text, size_t len, unsigned first_line, gpa_docs_t *out, gpa_error_t *err);

/*
 * What gpa_yaml_parse would make of s[0..n) written as an untagged plain scalar: GPA_VNULL, GPA_VBOOL,
 * GPA_VNUMBER or GPA_VSTRING; -1 when it would be an error or not a plain value (.inf, .nan, the merge key
 * <<). The YAML emitter quotes every string for which this is not GPA_VSTRING.
 */
int gpa_yaml_plain_type(const char *s, size_t n);

#endif
