/*
 * libFuzzer driver for the YAML reader (rules/yaml.c) and the emitters (rules/emit.c).
 * Invariants: reading never crashes, hangs or leaks; every document that reads is written by
 * gpa_value_emit_json as valid JSON that parses to an equal tree (so YAML numbers are always valid JSON
 * text), and by gpa_value_emit_yaml as YAML that reads back to an equal tree (strings stay strings).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "document/emit.h"
#include "document/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_docs_t docs;
    if (gpa_yaml_parse(&a, (const char *)data, size, &docs, &err) == 0) {
        for (size_t i = 0; i < docs.len; i++) {
            fuzz_check_json_round_trip(&a, docs.docs[i], 0);
            fuzz_check_yaml_round_trip(&a, docs.docs[i], 0);
        }
    } else if (err.message[0] == '\0') {
        abort();
    }
    gpa_arena_dispose(&a);
    return 0;
}
