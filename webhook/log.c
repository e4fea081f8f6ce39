#include "log.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"

struct st_gpa_log_line_t {
    gpa_buf_t buf;
};

static gpa_log_level_t min_level = GPA_LOG_INFO;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

void gpa_log_set_level(gpa_log_level_t level)
{
    min_level = level;
}

int gpa_log_parse_level(const char *s, gpa_log_level_t *out)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (gpa_log_level_t)i;
            return 0;
        }
    }
    return -1;
}

/* RFC 3339 UTC with milliseconds: what log collectors parse without configuration. */
static void put_timestamp(gpa_buf_t *b)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    gpa_buf_printf(b, "{\"ts\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\"", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                   tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

gpa_log_line_t *gpa_log_begin(gpa_log_level_t level, const char *msg)
{
    if (level < min_level)
        return NULL;
    gpa_log_line_t *l = gpa_xcalloc(1, sizeof(*l));
    put_timestamp(&l->buf);
    gpa_log_str(l, "level", level_names[level]);
    gpa_log_str(l, "msg", msg);
    return l;
}

gpa_log_line_t *gpa_log_begin_limited(gpa_log_limit_t *limit, gpa_log_level_t level, const char *msg)
{
    if (level < min_level)
        return NULL;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, last = atomic_load(&limit->last_ms);
    /* One thread wins the slot; the others count themselves as suppressed. */
    if ((last != 0 && now - last < 1000) || !atomic_compare_exchange_strong(&limit->last_ms, &last, now)) {
        atomic_fetch_add(&limit->suppressed, 1);
        return NULL;
    }
    gpa_log_line_t *l = gpa_log_begin(level, msg);
    int64_t dropped = atomic_exchange(&limit->suppressed, 0);
    if (dropped != 0)
        gpa_log_int(l, "suppressed", dropped);
    return l;
}

/* Length of the valid UTF-8 sequence at s[0..n) (lead byte >= 0x80), or 0 when it is not one (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t len;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* Appends s[0..n) JSON-escaped, without the quotes. */
static void put_escaped(gpa_buf_t *b, const char *s, size_t n)
{
    size_t start = b->len;
    gpa_buf_json_string(b, s, n);
    memmove(b->base + start, b->base + start + 1, b->len - start - 2);
    b->len -= 2;
    b->base[b->len] = '\0';
}

/* A JSON string literal that is valid UTF-8 whatever the bytes: file names, reasons and error texts may quote
 * hostile input. Each byte that does not start a valid sequence is written as U+FFFD (as Go's encoding/json does). */
static void put_string(gpa_buf_t *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;
    gpa_buf_putc(b, '"');
    while (i < n) {
        size_t len = u[i] < 0x80 ? 1 : utf8_seq(u + i, n - i);
        if (len != 0) {
            i += len;
            continue;
        }
        put_escaped(b, s + run, i - run);
        gpa_buf_puts(b, "\\ufffd");
        run = ++i;
    }
    put_escaped(b, s + run, n - run);
    gpa_buf_putc(b, '"');
}

static void put_key(gpa_log_line_t *l, const char *key)
{
    gpa_buf_putc(&l->buf, ',');
    put_string(&l->buf, key, strlen(key));
    gpa_buf_putc(&l->buf, ':');
}

void gpa_log_strn(gpa_log_line_t *l, const char *key, const char *value, size_t len)
{
    if (l == NULL)
        return;
    put_key(l, key);
    if (value == NULL)
        gpa_buf_puts(&l->buf, "null");
    else
        put_string(&l->buf, value, len);
}

void gpa_log_str(gpa_log_line_t *l, const char *key, const char *value)
{
    gpa_log_strn(l, key, value, value != NULL ? strlen(value) : 0);
}

void gpa_log_int(gpa_log_line_t *l, const char *key, int64_t value)
{
    if (l == NULL)
        return;
    put_key(l, key);
    gpa_buf_printf(&l->buf, "%" PRId64, value);
}

void gpa_log_strs(gpa_log_line_t *l, const char *key, const char *const *values, size_t n)
{
    if (l == NULL)
        return;
    put_key(l, key);
    gpa_buf_putc(&l->buf, '[');
    for (size_t i = 0; i < n; i++) {
        if (i != 0)
            gpa_buf_putc(&l->buf, ',');
        put_string(&l->buf, values[i], strlen(values[i]));
    }
    gpa_buf_putc(&l->buf, ']');
}

void gpa_log_end(gpa_log_line_t *l)
{
    if (l == NULL)
        return;
    gpa_buf_puts(&l->buf, "}\n");
    /* One write per line: stderr is unbuffered and lines from several threads must not interleave. */
    size_t off = 0;
    while (off < l->buf.len) {
        ssize_t n = write(STDERR_FILENO, l->buf.base + off, l->buf.len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    gpa_buf_dispose(&l->buf);
    free(l);
}

void gpa_log_msg(gpa_log_level_t level, const char *msg, const char *error)
{
    gpa_log_line_t *l = gpa_log_begin(level, msg);
    if (error != NULL)
        gpa_log_str(l, "error", error);
    gpa_log_end(l);
}
