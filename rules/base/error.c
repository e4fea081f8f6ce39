#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gpa_error_init(gpa_error_t *err, const char *source)
{
    if (err == NULL)
        return;
    memset(err, 0, sizeof(*err));
    err->source = source;
}

int gpa_error_set(gpa_error_t *err, unsigned line, unsigned column, const char *path, const char *fmt, ...)
{
    if (err == NULL || err->set_)
        return -1;
    err->set_ = 1;
    err->line = line;
    err->column = column;
    snprintf(err->path, sizeof(err->path), "%s", path != NULL ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return -1;
}

void gpa_error_format(const gpa_error_t *err, char *dst, unsigned long size)
{
    char where[128] = "";
    if (err->line != 0 && err->column != 0)
        snprintf(where, sizeof(where), ":%u:%u", err->line, err->column);
    else if (err->line != 0)
        snprintf(where, sizeof(where), ":%u", err->line);
    snprintf(dst, size, "%s%s: %s%s%s", err->source != NULL ? err->source : "<input>", where, err->path,
             err->path[0] != '\0' ? ": " : "", err->message);
}
