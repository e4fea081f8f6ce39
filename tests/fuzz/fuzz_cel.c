/*
 * libFuzzer driver for rules/cel/: the parser and the evaluator on any bytes.
 * Invariants: parsing never crashes, loops or overflows the stack (GPA_CEL_MAX_DEPTH); a parse error names a column
 * inside the input (or 0 for one past the size cap); evaluation of what parses, with a bound `x`, ends within its
 * budget (never more cost spent than given) with a value of a known kind, and an error always carries a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_error_t err = {0};
    gpa_error_init(&err, "fuzz");
    const gpa_cel_node_t *expr;
    if (gpa_cel_parse(&a, (const char *)data, size, "", &expr, &err) != 0) {
        if (err.column > size + 1 || err.message[0] == '\0')
            abort();
        gpa_arena_dispose(&a);
        return 0;
    }
    gpa_cel_binding_t vars[] = {{"x", gpa_cel_int(7)}, {"s", gpa_cel_string("abc", 3)}};
    uint64_t budget = 10000, cost = budget;
    gpa_cel_value_t v = gpa_cel_eval(&a, expr, vars, 2, &cost);
    if (cost > budget || v.kind > GPA_CEL_UNKNOWN || (v.kind == GPA_CEL_ERROR && (v.u.str.ptr == NULL || v.u.str.len == 0)))
        abort();
    const char *why;
    gpa_cel_outcome_t o = gpa_cel_outcome(&v, &why);
    if (o == GPA_CEL_FAILS && why == NULL)
        abort();
    gpa_arena_dispose(&a);
    return 0;
}
