/*
 * The mutations' ids, in the order of the mutation table (mutate.h, which checks that it follows this list): what
 * the configuration's `mutations` switches name. Header only, so that the configuration (config.h) and the table
 * (mutate.c) share the ids without depending on each other.
 *
 * Ownership: the ids are static strings.
 */
#ifndef GPA_MUTATION_IDS_H
#define GPA_MUTATION_IDS_H

#include <stddef.h>
#include <string.h>

typedef enum en_gpa_mutation_id_t {
    GPA_MUTATION_EXPAND_GPU,
    GPA_MUTATION_INJECT_GPU_SHARED,
    GPA_MUTATION_MIRROR_LIMITS,
    GPA_MUTATION__COUNT,
} gpa_mutation_id_t;

/* The id of mutation m ("inject-gpu-shared"). */
static inline const char *gpa_mutation_id(gpa_mutation_id_t m)
{
    static const char *const ids[GPA_MUTATION__COUNT] = {"expand-gpu", "inject-gpu-shared", "mirror-limits"};
    return ids[m];
}

/* The mutation named `id` (len bytes), or -1. */
static inline int gpa_mutation_id_find(const char *id, size_t len)
{
    for (int m = 0; m < GPA_MUTATION__COUNT; m++)
        if (strlen(gpa_mutation_id((gpa_mutation_id_t)m)) == len && memcmp(gpa_mutation_id((gpa_mutation_id_t)m), id, len) == 0)
            return m;
    return -1;
}

#endif
