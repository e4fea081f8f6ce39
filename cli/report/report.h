/*
 * The one escape of every text report and of the CLI's error lines (validate, fit, audit, test), and printing a
 * verdict as text or as the JSON element of README.md#the-cli (validate, audit; fit names objects the same way).
 * Turning a document into objects is objects.h's.
 */
#ifndef GPA_CLI_REPORT_H
#define GPA_CLI_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/buf.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "document/value.h"

/*
 * Text reports are read on a terminal, and names and messages in them are written by whoever wrote the object
 * (a tenant, in `audit -A`). Every line of a text report goes out through gpa_report_line, which escapes what
 * could forge a line or drive the terminal (docs/decisions.md, "Escaped text output and initialised errors"):
 *   \n \t \r                 as written here;
 *   other C0 controls, DEL   \xNN (ESC is \x1b);
 *   C1 controls U+0080-9F    \u00NN (a terminal may take U+009B as CSI);
 *   a byte that is not part of valid UTF-8  \xNN (a Latin-1 terminal takes 0x9b as CSI).
 * Everything else, backslashes included, is printed as it is: a name reads as written.
 */

/* Length of the valid UTF-8 sequence at s (1..4) and its code point in *cp, or 0 when it is not one. */
size_t gpa_utf8_char(const unsigned char *s, unsigned *cp);

/* Appends s escaped as above to b. */
void gpa_report_escape(gpa_buf_t *b, const char *s);

/*
 * s escaped as above: s itself (borrowed) when nothing needs it, else a copy in `a`. For cells laid out in columns;
 * escaping is idempotent, so such a cell may go through gpa_report_line too.
 */
const char *gpa_report_printable(gpa_arena_t *a, const char *s);

/* printf of one line of a text report: the formatted text escaped as above, then "\n". */
void gpa_report_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An error as one escaped line, "file:line:column: path: message" (the parts that are known; gpa_error_format). */
void gpa_report_error(FILE *out, const gpa_error_t *err);

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
