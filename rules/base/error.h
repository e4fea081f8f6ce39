/*
 * gpuadmit errors are values: a function that can fail returns 0 or -1 and fills a gpa_error_t that says what
 * went wrong and where (the jansson json_error_t convention; the first error wins).
 *
 * Because the first error wins, a callee reads `set_` of the error it is handed: initialise every gpa_error_t
 * where it is declared (`gpa_error_t err = {0};`, or gpa_error_init before the first call), never leave one to
 * the callee.
 */
#ifndef GPA_ERROR_H
#define GPA_ERROR_H

typedef struct st_gpa_error_t {
    const char *source; /* borrowed: file name, "-" for stdin, or NULL */
    unsigned line;      /* 1-based; 0 when unknown */
    unsigned column;    /* 1-based; 0 when unknown */
    char path[256];     /* where in the object: "spec.containers[1].resources" ("" when none) */
    char message[512];  /* what is wrong, one line */
    int set_;
} gpa_error_t;

/* Clears err (may be NULL) and names the source that later locations refer to. */
void gpa_error_init(gpa_error_t *err, const char *source);
/* Fills err unless it already holds an error; always returns -1 so callers can `return gpa_error_set(...)`. */
int gpa_error_set(gpa_error_t *err, unsigned line, unsigned column, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "source:line:column: path: message" into dst (the parts that are known). */
void gpa_error_format(const gpa_error_t *err, char *dst, unsigned long size);

#endif
