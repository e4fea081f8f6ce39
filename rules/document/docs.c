#include "document/docs.h"

#include <string.h>

#include "document/json.h"
#include "document/yaml.h"

int gpa_docs_parse(gpa_arena_t *a, const char *text, size_t len, gpa_docs_t *out, gpa_error_t *err)
{
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (i >= len || (text[i] != '{' && text[i] != '['))
        return gpa_yaml_parse(a, text, len, out, err);
    gpa_value_t *v;
    gpa_error_t jerr, yerr;
    gpa_error_init(&jerr, err != NULL ? err->source : NULL);
    if (gpa_json_parse(a, text, len, &v, &jerr) == 0) {
        out->docs = gpa_arena_alloc(a, sizeof(gpa_value_t *));
        out->docs[0] = v;
        out->len = 1;
        return 0;
    }
    /* A YAML flow collection ("{kind: Pod}") starts the same way: it gets its chance before the JSON error
     * (the precise one for a broken JSON file) is reported. */
    gpa_error_init(&yerr, NULL);
    if (gpa_yaml_parse(a, text, len, out, &yerr) == 0)
        return 0;
    if (err != NULL && !err->set_)
        *err = jerr;
    return -1;
}
