/*
 * Input documents to objects (objects.h).
 */
#include "input/objects.h"

#include <stdio.h>

#include "admission/envelope.h"
#include "report/report.h"

static int report(const gpa_error_t *err)
{
    gpa_report_error(stderr, err);
    return -1;
}

int gpa_cli_item_objects(gpa_arena_t *a, const gpa_decode_opts_t *opts, const char *file, gpa_value_t *item, long index,
                         gpa_objects_t *out)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, file);
    return gpa_decode_item(a, opts, item, (size_t)index, out, &err) != 0 ? report(&err) : 0;
}

int gpa_cli_objects(gpa_arena_t *a, const gpa_decode_opts_t *opts, const char *file, gpa_value_t *doc, gpa_objects_t *out)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, file);
    gpa_envelope_t env;
    int review = gpa_envelope_is_review(doc);
    if (review && gpa_envelope_read(doc, &env, &err) != 0)
        goto Error;
    if (review && env.object == NULL)
        return 0; /* DELETE or CONNECT without an object: nothing to judge */
    size_t first = out->len;
    if (gpa_decode_document_with(a, opts, review ? env.object : doc, out, &err) != 0) {
        if (review)
            gpa_decode_error_within(&err, "request.object"); /* the path the webhook's denial names too */
        goto Error;
    }
    for (size_t i = first; review && i < out->len; i++)
        gpa_object_set_request(out->items[i], env.ns, env.name);
    return 0;
Error:
    return report(&err);
}
