/*
 * Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity), parsed exactly into integers.
 *
 * Grammar: <sign>? <digits> ( "." <digits>? )? <suffix>?   |   <sign>? "." <digits> <suffix>?
 *   suffix: binary Ki Mi Gi Ti Pi Ei | decimal m "" k M G T P E | exponent e<int> or E<int>
 * gpuadmit only needs whole values (every GPU resource is counted in whole units), so a quantity that is
 * valid but fractional once the suffix is applied (e.g. "500m", "1.5", "0.5Ki" is whole: 512) is reported
 * as such, distinct from a syntax error; values beyond int64 are overflow. No floating point anywhere.
 */
#ifndef GPA_QUANTITY_H
#define GPA_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

typedef enum en_gpa_qstatus_t {
    GPA_Q_OK = 0,
    GPA_Q_SYNTAX,   /* not a Kubernetes quantity */
    GPA_Q_FRACTION, /* a valid quantity that is not a whole number */
    GPA_Q_OVERFLOW, /* whole, but outside int64 */
} gpa_qstatus_t;

typedef enum en_gpa_qsuffix_t {
    GPA_QS_NONE,    /* plain number */
    GPA_QS_BINARY,  /* Ki Mi Gi Ti Pi Ei */
    GPA_QS_DECIMAL, /* m k M G T P E */
    GPA_QS_EXPONENT,
} gpa_qsuffix_t;

typedef struct st_gpa_quantity_t {
    gpa_qstatus_t status;
    int64_t value;        /* exact value when status == GPA_Q_OK */
    gpa_qsuffix_t suffix; /* the suffix family as written (for messages such as ambiguous-unit) */
} gpa_quantity_t;

/* Parses text[0..len). Never fails in any other way than through q->status. */
gpa_quantity_t gpa_quantity_parse(const char *text, size_t len);
/* Human description of a non-OK status ("not a whole number", ...). */
const char *gpa_quantity_status_text(gpa_qstatus_t status);
/*
 * Canonical text of a whole value, as Kubernetes would print it: the largest binary suffix that divides it
 * exactly when `binary`, else the largest decimal one ("20Gi", "1500M", "100"). Writes at most 32 bytes.
 */
void gpa_quantity_format(int64_t value, int binary, char dst[32]);
/*
 * Bytes as people read them in a message: "20Gi", "512Mi", "12.5Gi" (the largest binary unit, one decimal,
 * rounded down when `up` is 0, up when 1), or plain bytes below 1Ki. Unlike gpa_quantity_format it is not
 * exact ("12.5Gi" may stand for a little more or less): for reasons and reports, never for values that are
 * read back. Writes at most 32 bytes.
 */
void gpa_bytes_format(int64_t bytes, int up, char dst[32]);

/* A whole value a malformed text most likely meant (gpa_quantity_guess) and its text to write instead. */
typedef struct st_gpa_quantity_guess_t {
    int64_t value; /* in the resource's own unit */
    char text[32]; /* canonical, as gpa_quantity_format writes it (a plain number when the unit is not bytes) */
} gpa_quantity_guess_t;

/*
 * What a text that is no quantity most likely meant, read the way people write sizes elsewhere: "20GB",
 * "1.5 GiB", "512mb", "50%", "100 // note". Reads the number the text starts with and the unit word after it
 * (any case, with or without B/iB: "GB" and "G" stand for G or Gi, "GiB" for Gi only, "B" for bytes); whatever
 * follows is ignored. `unit` is how many bytes one unit of the resource is: 1 for a byte count (the guesses
 * are written with suffixes: "20G", "20Gi", "1500M", "1536Mi"), 1048576 for a count of MiB (plain numbers: a
 * size that is not whole MiB gives none), 0 for a count that takes no unit (only a unitless whole number).
 * Fills out[0..2) and returns how many (0 when nothing sensible is found: no number, an unknown unit, a value
 * that is not whole or beyond 64 bits, or not positive). Never fails otherwise.
 */
size_t gpa_quantity_guess(const char *text, int64_t unit, gpa_quantity_guess_t out[2]);

/* Overflow-checked arithmetic: 0 on success, -1 on overflow (r untouched). */
int gpa_mul_i64(int64_t x, int64_t y, int64_t *r);
int gpa_add_i64(int64_t x, int64_t y, int64_t *r);
/* ceil(x / y) for x >= 0, y > 0. */
int64_t gpa_ceil_div(int64_t x, int64_t y);

/* x + y, INT64_MAX when it overflows: for accounting what is already used (decisions use gpa_add_i64). */
static inline int64_t gpa_sat_add_i64(int64_t x, int64_t y)
{
    int64_t r;
    return __builtin_add_overflow(x, y, &r) ? INT64_MAX : r;
}

/* ceil(x * y / d) for x, y >= 0, d > 0; -1 when x * y overflows. */
static inline int64_t gpa_mul_ceil_div_i64(int64_t x, int64_t y, int64_t d)
{
    int64_t p;
    if (__builtin_mul_overflow(x, y, &p))
        return -1;
    return p / d + (p % d != 0);
}

#endif
