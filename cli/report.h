/*
 * What validate and mutate share: turning one parsed document into the objects to check, and printing a
 * verdict as text or as the JSON element of SPEC §6.
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
 * The objects one document holds (List items flattened); an AdmissionReview stands for its request.object,
 * checked like any object (none for a DELETE or CONNECT review without one; an error when a CREATE or UPDATE
 * review has none, or the review has no request). Returns 0, or -1 after printing "file:line:column: path: reason" on stderr.
 * `file` names the input in messages; everything lives in `a`.
 */
int gpa_cli_decode(gpa_arena_t *a, const char *file, gpa_value_t *doc, gpa_objects_t *out);

/*
 * The text report of one object (README, "validate -o text"):
 *   SOURCE KIND/NS/NAME CONTAINER: RULE: MESSAGE          one line per finding ("[warn]" appended for warn)
 *   SOURCE KIND/NS/NAME: warning: TEXT                    admission warnings not already printed as findings
 *   SOURCE KIND/NS/NAME: allowed|denied [(mutated: ids)]  one status line per object
 */
void gpa_report_text(FILE *out, gpa_arena_t *a, const char *source, const gpa_object_t *obj, const gpa_verdict_t *v);

/* The SPEC §6 JSON element of one object; new reference (caller json_decref()s). */
json_t *gpa_report_json(const char *source, const gpa_object_t *obj, const gpa_verdict_t *v);

#endif
