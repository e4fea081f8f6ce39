/*
 * gpuadmit buffer: a growable byte string on the heap, for building output (response bodies, reports).
 *
 * Ownership: the buffer owns `base`; gpa_buf_dispose() frees it, gpa_buf_steal() hands it to the caller
 * (who frees it with free()). `base` is always NUL-terminated once anything was appended.
 */
#ifndef GPA_BUF_H
#define GPA_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct st_gpa_buf_t {
    char *base;
    size_t len, cap;
} gpa_buf_t;

#define GPA_BUF_INIT                                                                                                               \
    {                                                                                                                              \
        NULL, 0, 0                                                                                                                 \
    }

void gpa_buf_append(gpa_buf_t *b, const void *s, size_t n);
void gpa_buf_puts(gpa_buf_t *b, const char *s);
void gpa_buf_putc(gpa_buf_t *b, char c);
void gpa_buf_printf(gpa_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s[0..n) as a JSON string literal, quotes included. */
void gpa_buf_json_string(gpa_buf_t *b, const char *s, size_t n);
void gpa_buf_reset(gpa_buf_t *b);  /* len = 0, memory kept */
char *gpa_buf_steal(gpa_buf_t *b); /* caller frees; the buffer is empty afterwards */
void gpa_buf_dispose(gpa_buf_t *b);

#endif
