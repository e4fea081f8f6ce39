/*
 * The functions of the subset, looked up by name and arity (library.c). Private to rules/cel/.
 */
#ifndef GPA_CEL_LIBRARY_H
#define GPA_CEL_LIBRARY_H

#include "cel/value.h"

/* A function of the subset, called with its arguments evaluated (the receiver first). */
typedef gpa_cel_value_t (*gpa_cel_fn_t)(gpa_cel_eval_t *e, const char *name, const gpa_cel_value_t *args);
/* The function `name` of `nargs` arguments (the receiver counted) with *canonical its name, or NULL: outside the subset. */
gpa_cel_fn_t gpa_cel_function_(const char *name, size_t len, int receiver, size_t nargs, const char **canonical);

#endif
