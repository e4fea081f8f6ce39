/*
 * Edit distances (distance.h).
 */
#include "base/distance.h"

#include <string.h>

static char fold(char c, int fold_case)
{
    return fold_case && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Two rows of the dynamic programme, at most GPA_DISTANCE_MAX + 1 wide. */
size_t gpa_edit_distance(const char *x, size_t xlen, const char *y, size_t ylen, int fold_case)
{
    size_t prev[GPA_DISTANCE_MAX + 1], cur[GPA_DISTANCE_MAX + 1];
    xlen = xlen < GPA_DISTANCE_MAX ? xlen : GPA_DISTANCE_MAX;
    ylen = ylen < GPA_DISTANCE_MAX ? ylen : GPA_DISTANCE_MAX;
    for (size_t j = 0; j <= ylen; j++)
        prev[j] = j;
    for (size_t i = 1; i <= xlen; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= ylen; j++) {
            size_t best = prev[j - 1] + (fold(x[i - 1], fold_case) != fold(y[j - 1], fold_case));
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, (ylen + 1) * sizeof(prev[0]));
    }
    return prev[ylen];
}

long gpa_text_nearness(const char *typed, const char *known)
{
    if (typed == NULL || known == NULL)
        return 0;
    size_t tl = strlen(typed), kl = strlen(known);
    size_t folded = gpa_edit_distance(typed, tl, known, kl, 1), exact = gpa_edit_distance(typed, tl, known, kl, 0);
    /* Both distances are at most GPA_DISTANCE_MAX: one number, folded edits first. */
    return (long)((GPA_DISTANCE_MAX + 1) * (GPA_DISTANCE_MAX + 1)) - (long)(folded * (GPA_DISTANCE_MAX + 1) + exact);
}
