/*
 * The mutations gpuadmit knows (docs/rules.md#mutations), as data: {id, default, doc}. What each one does is
 * mutate.c's (the table there follows this one row for row); the configuration switches them by id
 * (`mutations`, README.md#configuration).
 *
 * Legend:
 *   id    stable mutation id, what configurations, verdicts (gpa_verdict_t.mutations) and test suites name
 *   on    on by default (1) or off until a configuration turns it on (0)
 *   doc   one line for listings and the README
 *
 * Ownership: the table and its strings are static.
 */
#ifndef GPA_MUTATIONS_H
#define GPA_MUTATIONS_H

#include <stddef.h>

/* At least the number of rows of the table: configurations keep one bit per mutation. */
#define GPA_MUTATION_MAX 16

typedef struct st_gpa_mutation_t {
    const char *id;
    int on;
    const char *doc;
} gpa_mutation_t;

/* Rows, by index (mutate.c's functions follow this order). */
enum {
    GPA_MUTATION_EXPAND_GPU,
    GPA_MUTATION_INJECT_GPU_SHARED,
    GPA_MUTATION_MIRROR_LIMITS,
    GPA_MUTATION_RAY_NUM_GPUS,
    GPA_MUTATION_RAY_GPU_MEMORY,
};

extern const gpa_mutation_t gpa_mutations[];
extern const size_t gpa_nmutations;

/* Index of a mutation id in gpa_mutations, or -1. */
int gpa_mutation_index(const char *id);
/* The bits (1u << index) of the mutations on by default. */
unsigned gpa_mutations_default(void);

#endif
