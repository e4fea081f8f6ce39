/*
 * CEL's values as the evaluation shares them (value.c), and its state; library.c and eval.c build on it: the evaluation's state and
 * CEL's value rules. Private to rules/cel/ (a trailing
 * `_` on each name says so).
 */
#ifndef GPA_CEL_VALUE_H
#define GPA_CEL_VALUE_H

#include "cel/cel.h"

typedef struct st_gpa_cel_eval_t {
    gpa_arena_t *a;
    const gpa_cel_binding_t *vars;
    size_t nvars;
    uint64_t *cost; /* budget left */
} gpa_cel_eval_t;

gpa_cel_value_t gpa_cel_unknown_(void);
gpa_cel_value_t gpa_cel_error_(gpa_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CEL's name of a value's type, for messages ("int", "string", "Quantity"). */
const char *gpa_cel_type_name_(const gpa_cel_value_t *v);
/* An error or an unknown: what a strict call passes on. */
int gpa_cel_pending_(const gpa_cel_value_t *v);
/* For a strict call's arguments: the first unknown, else the first error, else a NULL value (nothing pending). */
gpa_cel_value_t gpa_cel_strict_(const gpa_cel_value_t *args, size_t n);
/* CEL's heterogeneous equality: 1 equal, 0 not, -1 unknown. */
int gpa_cel_equal_(const gpa_cel_value_t *x, const gpa_cel_value_t *y);
/* Takes `units` from the budget: -1 (and the budget empty) when there are not that many. */
int gpa_cel_pay_(gpa_cel_eval_t *e, uint64_t units);
/* Semantic Versioning 2.0 precedence of two semvers: -1, 0, 1. */
int gpa_cel_semver_compare_(const gpa_cel_value_t *x, const gpa_cel_value_t *y);
/* Two numbers of kinds int or uint: -1, 0, 1, exactly across the two kinds. */
int gpa_cel_compare_numbers_(const gpa_cel_value_t *x, const gpa_cel_value_t *y);
int gpa_cel_is_number_(const gpa_cel_value_t *v);
/* Byte order of two strings: -1, 0, 1 (UTF-8's byte order is its code points' order). */
int gpa_cel_compare_bytes_(const char *a, size_t alen, const char *b, size_t blen);

#endif
