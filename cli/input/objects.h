/*
 * The objects an input document stands for, as validate, mutate and fit read them: a document's objects (List
 * items flattened), or an AdmissionReview's request.object read with the webhook's own envelope reader
 * (admission/envelope.h) and placed where the request says (gpa_object_set_request: request.namespace wins).
 */
#ifndef GPA_CLI_OBJECTS_H
#define GPA_CLI_OBJECTS_H

#include "base/arena.h"
#include "document/value.h"
#include "kube/decode.h"

/*
 * Appends the objects `doc` holds to out. An AdmissionReview stands for its request.object, checked like any
 * object (none for a DELETE or CONNECT review without one); a review the webhook would answer with HTTP 400 is
 * unreadable input, with the same reason. Returns 0, or -1 after printing "file:line:column: path: reason" on
 * stderr. `file` names the input in messages; everything lives in `a`. `opts`: what decoding needs (the
 * configuration's cfg->decode, borrowed; NULL for the defaults).
 */
int gpa_cli_objects(gpa_arena_t *a, const gpa_decode_opts_t *opts, const char *file, gpa_value_t *doc, gpa_objects_t *out);
/* The same for item `index` of a List read item by item (input.h): decoded as the List's items are (an
 * AdmissionReview item is an object like any other), errors naming the item (items[3].spec...). */
int gpa_cli_item_objects(gpa_arena_t *a, const gpa_decode_opts_t *opts, const char *file, gpa_value_t *item, long index,
                         gpa_objects_t *out);

#endif
