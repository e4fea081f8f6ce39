/*
 * libFuzzer driver for rules/quantity.c.
 * Invariants: parsing never crashes or loops; an OK value's canonical text (binary and decimal) parses back
 * to the same value; a plain run of up to 18 digits agrees with strtoll.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    gpa_quantity_t q = gpa_quantity_parse(s, size);
    if (q.status != GPA_Q_OK && q.status != GPA_Q_SYNTAX && q.status != GPA_Q_FRACTION && q.status != GPA_Q_OVERFLOW)
        abort();
    if (q.status == GPA_Q_OK) {
        for (int binary = 0; binary < 2; binary++) {
            char text[32];
            gpa_quantity_format(q.value, binary, text);
            gpa_quantity_t back = gpa_quantity_parse(text, strlen(text));
            if (back.status != GPA_Q_OK || back.value != q.value)
                abort();
        }
    }
    if (size > 0 && size <= 18) {
        size_t i = 0;
        while (i < size && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == size) {
            char buf[20];
            memcpy(buf, s, size);
            buf[size] = '\0';
            if (q.status != GPA_Q_OK || q.value != strtoll(buf, NULL, 10))
                abort();
        }
    }
    return 0;
}
