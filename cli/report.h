/*
 * Printing a verdict as text or as the JSON element of README.md#the-cli (validate; fit names objects the same way).
 * Turning a document into objects is objects.h's.
 */
#ifndef GPA_CLI_REPORT_H
#define GPA_CLI_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "base/arena.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "document/value.h"

/*
 * The text report of one object (README, "validate -o text"):
 *   SOURCE KIND/NS/NAME container "C": RULE: MESSAGE      one line per finding ("[warn]" appended for warn);
 *   SOURCE KIND/NS/NAME pod: RULE: MESSAGE                `pod` for a Pod-level finding
 * NAME is metadata.name, or generateName's pattern ("trainer-*"); "KIND/NAME" without a namespace.
 *   SOURCE KIND/NS/NAME: warning: TEXT                    admission warnings that are not findings (by origin)
 *   SOURCE KIND/NS/NAME: allowed|denied [(mutated: ids)]  one status line per object
 */
void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v);

/* The status line of an object whose namespace the configuration excludes (namespaces.exclude): admitted
 * unchecked, and the report says why ("SOURCE KIND/NS/NAME: allowed (namespace NS is excluded: ...)"). */
void gpa_report_text_excluded(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj);

/* The README.md#the-cli JSON element of one object; new reference (caller json_decref()s). */
json_t *gpa_report_json(const char *source, const gpa_object_t *obj, const gpa_verdict_t *v);

#endif
