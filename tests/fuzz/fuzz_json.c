/*
 * libFuzzer driver for the JSON parser (rules/json.c) and the emitters (rules/emit.c).
 * Invariants: parsing never crashes or leaks; whatever parses is written back by gpa_value_emit_json (compact
 * and pretty) as JSON that parses to an equal tree, and by gpa_value_emit_yaml as YAML that reads back to
 * the same shape (numbers may be re-spelt by YAML resolution, e.g. -0 -> 0, so they match loosely).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "document/emit.h"
#include "document/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_value_t *v;
    if (gpa_json_parse(&a, (const char *)data, size, &v, &err) == 0) {
        fuzz_check_json_round_trip(&a, v, 0);
        fuzz_check_json_round_trip(&a, v, 2);
        fuzz_check_yaml_round_trip(&a, v, 1);
    } else if (err.message[0] == '\0' || err.line == 0 || err.column == 0) {
        abort(); /* every JSON error says what and where */
    }
    gpa_arena_dispose(&a);
    return 0;
}
