/*
 * Writing value trees back out as JSON or YAML, byte-exact for numbers (their literal text is kept).
 */
#ifndef GPA_EMIT_H
#define GPA_EMIT_H

#include <stddef.h>

#include "base/buf.h"
#include "document/value.h"

/* Emitters: append the tree to `out`. JSON is compact unless `indent` > 0; YAML is block style. */
void gpa_value_emit_json(gpa_buf_t *out, const gpa_value_t *v, int indent);
void gpa_value_emit_yaml(gpa_buf_t *out, const gpa_value_t *v);

#endif
