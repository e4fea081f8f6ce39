/*
 * How far apart two short texts are, for "did you mean" suggestions: the closest known name to a mistyped one
 * (a verb, a resource, a node label value). Pure functions: nothing allocated, nothing kept.
 */
#ifndef GPA_DISTANCE_H
#define GPA_DISTANCE_H

#include <stddef.h>

/* Texts are compared on at most this many bytes: every name suggested is far shorter. */
#define GPA_DISTANCE_MAX 64

/*
 * Levenshtein distance (insertions, deletions, substitutions) between x[0..xlen) and y[0..ylen), each cut to
 * GPA_DISTANCE_MAX bytes; with `fold_case`, ASCII letters compare without case. Never fails.
 */
size_t gpa_edit_distance(const char *x, size_t xlen, const char *y, size_t ylen, int fold_case);

/*
 * How near `typed` is to `known`, for ranking candidates (higher = nearer): equal without case first, then
 * fewer edits of the lowercased texts, then fewer edits as written. 0 for NULL `known`. Never fails.
 */
long gpa_text_nearness(const char *typed, const char *known);

#endif
