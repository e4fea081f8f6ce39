/*
 * One hash for the engine's tables (anchors, known objects, warnings, interned values) and the files the server
 * watches: 64-bit FNV-1a. Not for anything an
 * attacker's collisions could turn into a cost beyond the table's own bound.
 */
#ifndef GPA_HASH_H
#define GPA_HASH_H

#include <stdint.h>

#include <stddef.h>

#define GPA_HASH_START UINT64_C(14695981039346656037)
#define GPA_HASH_PRIME UINT64_C(1099511628211)

/* h (GPA_HASH_START to begin) continued over the NUL-terminated s. */
static inline uint64_t gpa_hash_more(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * GPA_HASH_PRIME;
    return h;
}

/* h (GPA_HASH_START to begin) continued over the n bytes at p. */
static inline uint64_t gpa_hash_bytes(uint64_t h, const void *p, size_t n)
{
    for (const unsigned char *b = p, *end = b + n; b < end; b++)
        h = (h ^ *b) * GPA_HASH_PRIME;
    return h;
}

/* The hash of s alone. */
static inline uint64_t gpa_hash_string(const char *s)
{
    return gpa_hash_more(GPA_HASH_START, s);
}

#endif
