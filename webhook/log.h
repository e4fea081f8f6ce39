/*
 * Structured log lines for the webhook: one JSON object per line on stderr, written with a single write(2) so
 * lines from several threads never interleave.
 *
 *   {"ts":"2024-05-01T10:00:00.123Z","level":"info","msg":"denied","uid":"...","rules":["min-memory"]}
 *
 * A line is built with gpa_log_begin() / gpa_log_str() / gpa_log_int() / gpa_log_end(). Building costs nothing
 * when the level is filtered out (gpa_log_begin returns NULL and every other call accepts NULL).
 */
#ifndef GPA_WEBHOOK_LOG_H
#define GPA_WEBHOOK_LOG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef enum en_gpa_log_level_t {
    GPA_LOG_DEBUG,
    GPA_LOG_INFO,
    GPA_LOG_WARN,
    GPA_LOG_ERROR,
} gpa_log_level_t;

typedef struct st_gpa_log_line_t gpa_log_line_t;

/* Sets the least level that is written (default info). Not thread-safe: call before starting threads. */
void gpa_log_set_level(gpa_log_level_t level);
/* "debug" | "info" | "warn" | "error" → 0 with *out set, or -1. */
int gpa_log_parse_level(const char *s, gpa_log_level_t *out);
/* Starts a line (new, owned by the caller until gpa_log_end), or NULL when `level` is filtered out. */
gpa_log_line_t *gpa_log_begin(gpa_log_level_t level, const char *msg);
/* Adds "key": value; value is JSON-escaped (each byte of invalid UTF-8 becomes U+FFFD, so a line is always valid
 * JSON); NULL values are written as null. */
void gpa_log_str(gpa_log_line_t *l, const char *key, const char *value);
void gpa_log_strn(gpa_log_line_t *l, const char *key, const char *value, size_t len);
void gpa_log_int(gpa_log_line_t *l, const char *key, int64_t value);
/* Adds "key": [ ... ] of strings. */
void gpa_log_strs(gpa_log_line_t *l, const char *key, const char *const *values, size_t n);
/* Writes the line and frees it; NULL is fine. */
void gpa_log_end(gpa_log_line_t *l);

/*
 * A rate limit for one kind of line (a flood of refused connections must not become a flood of log lines):
 * zero-initialize one per kind, shared by every thread.
 */
typedef struct st_gpa_log_limit_t {
    atomic_int_least64_t last_ms;    /* monotonic time of the last line written */
    atomic_int_least64_t suppressed; /* lines dropped since */
} gpa_log_limit_t;

/*
 * gpa_log_begin, at most once a second per limiter: NULL (and the line counted as suppressed) when one was
 * written less than a second ago. The next line written carries "suppressed": how many were dropped.
 */
gpa_log_line_t *gpa_log_begin_limited(gpa_log_limit_t *limit, gpa_log_level_t level, const char *msg);

/* Shorthand for a line with only a message and one optional "error" field. */
void gpa_log_msg(gpa_log_level_t level, const char *msg, const char *error);

#endif
