/*
 * Private to the allocator's files (inventory.c, fit_load.c, alloc.c): helpers that are not part of any
 * public contract. Front ends include inventory.h and alloc.h, never this.
 */
#ifndef GPA_FIT_H
#define GPA_FIT_H

#include <stdint.h>

#include "inventory.h"

/* Drops every record added since the last successful commit (a loader that failed half-way). */
void gpa_inventory_rollback_(gpa_inventory_t *inv);

/* Bytes as people read them: "20Gi", "512Mi", "12.5Gi" (one decimal, rounded down when `up` is 0, up when 1),
 * or plain bytes below 1Ki. Writes at most 32 bytes. */
void gpa_fit_format_bytes(int64_t bytes, int up, char dst[32]);

/* Overflow-saturating helpers for accounting (decisions use the checked forms). */
static inline int64_t gpa_fit_sat_add(int64_t x, int64_t y)
{
    int64_t r;
    return __builtin_add_overflow(x, y, &r) ? INT64_MAX : r;
}

/* ceil(x * y / d) for x, y >= 0, d > 0; -1 when x * y overflows. */
static inline int64_t gpa_fit_mul_ceil_div(int64_t x, int64_t y, int64_t d)
{
    int64_t p;
    if (__builtin_mul_overflow(x, y, &p))
        return -1;
    return p / d + (p % d != 0);
}

#endif
