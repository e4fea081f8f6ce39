/*
 * The front door for documents: any text a user hands gpuadmit (JSON or YAML, one document or a stream)
 * becomes value trees. Readers of files call this, never the JSON or YAML reader directly.
 */
#ifndef GPA_DOCS_H
#define GPA_DOCS_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "document/value.h"

/* JSON when the first non-blank byte is '{' or '[', YAML otherwise. Text that starts like JSON but is not
 * JSON is read as YAML (a flow mapping such as "{kind: Pod}"); when that fails too, err holds the JSON error. */
int gpa_docs_parse(gpa_arena_t *a, const char *text, size_t len, gpa_docs_t *out, gpa_error_t *err);

#endif
