#include "base/buf.h"
#include "base/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(gpa_buf_t *b, size_t extra)
{
    if (b->cap - b->len > extra)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= extra) {
        if (cap > ((size_t)-1) / 2)
            gpa_xmalloc((size_t)-1); /* aborts: no buffer of that size */
        cap *= 2;
    }
    b->base = gpa_xrealloc(b->base, cap);
    b->cap = cap;
}

void gpa_buf_append(gpa_buf_t *b, const void *s, size_t n)
{
    reserve(b, n);
    if (n != 0)
        memcpy(b->base + b->len, s, n);
    b->len += n;
    b->base[b->len] = '\0';
}

void gpa_buf_puts(gpa_buf_t *b, const char *s)
{
    gpa_buf_append(b, s, strlen(s));
}

void gpa_buf_putc(gpa_buf_t *b, char c)
{
    gpa_buf_append(b, &c, 1);
}

void gpa_buf_printf(gpa_buf_t *b, const char *fmt, ...)
{
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    reserve(b, 128);
    int n = vsnprintf(b->base + b->len, b->cap - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        reserve(b, (size_t)n);
        n = vsnprintf(b->base + b->len, b->cap - b->len, fmt, copy);
    }
    va_end(copy);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

void gpa_buf_json_string(gpa_buf_t *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    reserve(b, n + 2);
    gpa_buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
            continue;
        gpa_buf_append(b, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
            gpa_buf_append(b, "\\\"", 2);
            break;
        case '\\':
            gpa_buf_append(b, "\\\\", 2);
            break;
        case '\n':
            gpa_buf_append(b, "\\n", 2);
            break;
        case '\r':
            gpa_buf_append(b, "\\r", 2);
            break;
        case '\t':
            gpa_buf_append(b, "\\t", 2);
            break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            gpa_buf_append(b, esc, 6);
        }
        }
    }
    gpa_buf_append(b, s + run, n - run);
    gpa_buf_putc(b, '"');
}

void gpa_buf_reset(gpa_buf_t *b)
{
    b->len = 0;
    if (b->base != NULL)
        b->base[0] = '\0';
}

char *gpa_buf_steal(gpa_buf_t *b)
{
    char *p = b->base;
    if (p == NULL)
        p = gpa_xstrdup("");
    b->base = NULL;
    b->len = b->cap = 0;
    return p;
}

void gpa_buf_dispose(gpa_buf_t *b)
{
    free(b->base);
    b->base = NULL;
    b->len = b->cap = 0;
}
