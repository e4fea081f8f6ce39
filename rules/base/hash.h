/*
 * One string hash for the engine's tables (anchors, known objects, warnings): 64-bit FNV-1a. Not for anything an
 * attacker's collisions could turn into a cost beyond the table's own bound.
 */
#ifndef GPA_HASH_H
#define GPA_HASH_H

#include <stdint.h>

#define GPA_HASH_START UINT64_C(14695981039346656037)

/* h (GPA_HASH_START to begin) continued over the NUL-terminated s. */
static inline uint64_t gpa_hash_more(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

/* The hash of s alone. */
static inline uint64_t gpa_hash_string(const char *s)
{
    return gpa_hash_more(GPA_HASH_START, s);
}

#endif
