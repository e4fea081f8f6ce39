/*
 * Kubernetes quantities in exact integer arithmetic.
 *
 * A quantity is evaluated as  sign * D * 10^e * 2^b  where D is the string of significant decimal digits
 * (integer and fraction part run together, leading and trailing zeros stripped into e), e the decimal
 * exponent (suffix, exponent notation, minus the fraction digits) and b the binary exponent (Ki = 10 ... Ei =
 * 60). D is multiplied by 2^b as a decimal digit string, trailing zeros stripped again: the value is whole
 * exactly when e >= 0 afterwards (a digit string not ending in 0 times 10^-k, k > 0, is never whole). The
 * digit string is small (at most MAX_SIG digits) so this never allocates and never loops on long input.
 */
#include "kube/quantity.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Significant digits kept for the exact path; beyond this the answer follows from magnitude alone. */
#define MAX_SIG 128
/* Exponents are clamped here: far beyond anything that can matter for int64 and far from int64 limits. */
#define EXP_CLAMP 1000000000LL

typedef struct st_parsed_t {
    int negative;
    const char *int_digits, *frac_digits;
    size_t int_len, frac_len;
    int64_t exp10; /* from the suffix (k, m, ...) or exponent notation */
    int exp2;      /* from a binary suffix */
    gpa_qsuffix_t suffix;
} parsed_t;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t span_digits(const char *s, size_t i, size_t len)
{
    while (i < len && is_digit(s[i]))
        i++;
    return i;
}

/* Saturating addition of exponents, so that absurd input cannot overflow the bookkeeping. */
static int64_t exp_add(int64_t x, int64_t y)
{
    int64_t r = x + y; /* both within +-3*EXP_CLAMP, cannot overflow */
    if (r > EXP_CLAMP)
        return EXP_CLAMP;
    if (r < -EXP_CLAMP)
        return -EXP_CLAMP;
    return r;
}

static int64_t clamp_size(size_t n)
{
    return n > (size_t)EXP_CLAMP ? EXP_CLAMP : (int64_t)n;
}

/* "e<int>" / "E<int>": an optional sign and at least one digit. Returns 0 or -1. */
static int parse_exponent(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == len || span_digits(s, i, len) != len)
        return -1;
    int64_t v = 0;
    for (; i < len; i++) {
        if (v < EXP_CLAMP)
            v = v * 10 + (s[i] - '0');
    }
    if (v > EXP_CLAMP)
        v = EXP_CLAMP;
    *out = neg ? -v : v;
    return 0;
}

static int parse_suffix(const char *s, size_t len, parsed_t *p)
{
    static const struct {
        const char *text;
        int exp10, exp2;
        gpa_qsuffix_t family;
    } table[] = {
        {"", 0, 0, GPA_QS_NONE},      {"n", -9, 0, GPA_QS_DECIMAL}, {"u", -6, 0, GPA_QS_DECIMAL}, {"m", -3, 0, GPA_QS_DECIMAL},
        {"k", 3, 0, GPA_QS_DECIMAL},  {"M", 6, 0, GPA_QS_DECIMAL},  {"G", 9, 0, GPA_QS_DECIMAL},  {"T", 12, 0, GPA_QS_DECIMAL},
        {"P", 15, 0, GPA_QS_DECIMAL}, {"E", 18, 0, GPA_QS_DECIMAL}, {"Ki", 0, 10, GPA_QS_BINARY}, {"Mi", 0, 20, GPA_QS_BINARY},
        {"Gi", 0, 30, GPA_QS_BINARY}, {"Ti", 0, 40, GPA_QS_BINARY}, {"Pi", 0, 50, GPA_QS_BINARY}, {"Ei", 0, 60, GPA_QS_BINARY},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strlen(table[i].text) == len && memcmp(table[i].text, s, len) == 0) {
            p->exp10 = table[i].exp10;
            p->exp2 = table[i].exp2;
            p->suffix = table[i].family;
            return 0;
        }
    }
    /* Exponent notation needs at least one digit: "1e" is not a quantity, "1E" is one exa. */
    if (len >= 2 && (s[0] == 'e' || s[0] == 'E') && parse_exponent(s + 1, len - 1, &p->exp10) == 0) {
        p->suffix = GPA_QS_EXPONENT;
        return 0;
    }
    return -1;
}

/* Splits the text into sign, digits, fraction and suffix. Returns 0 or -1 (syntax). */
static int parse_syntax(const char *s, size_t len, parsed_t *p)
{
    memset(p, 0, sizeof(*p));
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        p->negative = s[i++] == '-';
    p->int_digits = s + i;
    size_t j = span_digits(s, i, len);
    p->int_len = j - i;
    i = j;
    if (i < len && s[i] == '.') {
        i++;
        p->frac_digits = s + i;
        j = span_digits(s, i, len);
        p->frac_len = j - i;
        i = j;
    }
    if (p->int_len + p->frac_len == 0) /* "", "-", ".", "Gi", ".Ki": a mantissa needs a digit */
        return -1;
    return parse_suffix(s + i, len - i, p);
}

/* A digit string, least significant digit first, with room to be doubled up to 60 times. */
typedef struct st_digits_t {
    unsigned char d[MAX_SIG + 24];
    size_t n;
} digits_t;

static void digits_double(digits_t *x)
{
    unsigned carry = 0;
    for (size_t i = 0; i < x->n; i++) {
        unsigned v = x->d[i] * 2u + carry;
        x->d[i] = (unsigned char)(v % 10);
        carry = v / 10;
    }
    if (carry != 0)
        x->d[x->n++] = (unsigned char)carry;
}

/* Collects the significant digits of D into x (least significant first); adjusts *e for stripped zeros.
 * Returns the count of significant digits, which may exceed MAX_SIG (then x is not filled). */
static size_t collect_digits(const parsed_t *p, digits_t *x, int64_t *e)
{
    /* The mantissa as one virtual string: int digits then fraction digits. */
    size_t total = p->int_len + p->frac_len, lo = 0, hi = total;
#define DIGIT_AT(k) ((k) < p->int_len ? p->int_digits[(k)] : p->frac_digits[(k)-p->int_len])
    while (lo < hi && DIGIT_AT(lo) == '0')
        lo++;
    while (hi > lo && DIGIT_AT(hi - 1) == '0')
        hi--;
    *e = exp_add(*e, clamp_size(total - hi));
    size_t n = hi - lo;
    x->n = 0;
    if (n <= MAX_SIG) {
        for (size_t k = hi; k > lo; k--)
            x->d[x->n++] = (unsigned char)(DIGIT_AT(k - 1) - '0');
    }
#undef DIGIT_AT
    return n;
}

static gpa_quantity_t result(gpa_qstatus_t status, int64_t value, gpa_qsuffix_t suffix)
{
    gpa_quantity_t q = {status, value, suffix};
    return q;
}

/* Value of D * 10^e once it is known whole (e >= 0) and at most 19 digits long. */
static gpa_quantity_t finish(const digits_t *x, int64_t e, int negative, gpa_qsuffix_t suffix)
{
    if ((int64_t)x->n + e > 19)
        return result(GPA_Q_OVERFLOW, 0, suffix);
    uint64_t u = 0;
    for (size_t i = x->n; i > 0; i--)
        u = u * 10 + x->d[i - 1];
    for (int64_t k = 0; k < e; k++)
        u *= 10; /* at most 19 digits in all: below 2^64 */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (u > limit)
        return result(GPA_Q_OVERFLOW, 0, suffix);
    if (!negative)
        return result(GPA_Q_OK, (int64_t)u, suffix);
    return result(GPA_Q_OK, u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u, suffix);
}

gpa_quantity_t gpa_quantity_parse(const char *text, size_t len)
{
    parsed_t p;
    if (text == NULL || parse_syntax(text, len, &p) != 0)
        return result(GPA_Q_SYNTAX, 0, GPA_QS_NONE);
    int64_t e = exp_add(p.exp10, -clamp_size(p.frac_len));
    digits_t x;
    size_t n = collect_digits(&p, &x, &e);
    if (n == 0)
        return result(GPA_Q_OK, 0, p.suffix);
    if (n > MAX_SIG) {
        /* More integer digits than int64 holds means overflow whatever the fraction; otherwise the value
         * has over 100 fraction digits, which 2^b (b <= 60) can never make whole. */
        return result((int64_t)n + e > 0 ? GPA_Q_OVERFLOW : GPA_Q_FRACTION, 0, p.suffix);
    }
    if (e >= 0 && (int64_t)n + e > 19)
        return result(GPA_Q_OVERFLOW, 0, p.suffix); /* 2^b only makes it larger */
    for (int k = 0; k < p.exp2; k++)
        digits_double(&x);
    size_t z = 0;
    while (z < x.n && x.d[z] == 0)
        z++;
    if (z != 0) {
        memmove(x.d, x.d + z, x.n - z);
        x.n -= z;
        e = exp_add(e, (int64_t)z);
    }
    if (e < 0)
        return result(GPA_Q_FRACTION, 0, p.suffix);
    return finish(&x, e, p.negative, p.suffix);
}

const char *gpa_quantity_status_text(gpa_qstatus_t status)
{
    switch (status) {
    case GPA_Q_OK:
        return "ok";
    case GPA_Q_SYNTAX:
        return "not a Kubernetes quantity";
    case GPA_Q_FRACTION:
        return "not a whole number";
    case GPA_Q_OVERFLOW:
        return "too large (beyond 64 bits)";
    }
    return "invalid quantity";
}

/* Writes magnitude u / base^k with the suffix; used by gpa_quantity_format. */
static void format_scaled(uint64_t u, int negative, uint64_t base, const char *const *suffixes, int nsuffixes, char dst[32])
{
    int k = 0;
    while (k < nsuffixes && u != 0 && u % base == 0) {
        u /= base;
        k++;
    }
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    char *out = dst;
    if (negative)
        *out++ = '-';
    while (n > 0)
        *out++ = tmp[--n];
    size_t sl = strlen(suffixes[k]);
    memcpy(out, suffixes[k], sl + 1);
}

void gpa_quantity_format(int64_t value, int binary, char dst[32])
{
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    static const char *const dec[] = {"", "k", "M", "G", "T", "P", "E"};
    int negative = value < 0;
    uint64_t u = negative ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    /* As Kubernetes: a binary value below 1024 in magnitude prints in decimal form. */
    if (binary && u >= 1024)
        format_scaled(u, negative, 1024, bin, 6, dst);
    else
        format_scaled(u, negative, 1000, dec, 6, dst);
}

void gpa_bytes_format(int64_t bytes, int up, char dst[32])
{
    static const char *const units[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (bytes < 1024) {
        snprintf(dst, 32, "%" PRId64, bytes);
        return;
    }
    int u = 0;
    while (u < 5 && bytes >> (10 * (u + 2)) != 0)
        u++;
    uint64_t unit = (uint64_t)1 << (10 * (u + 1)), whole = (uint64_t)bytes / unit, rem = (uint64_t)bytes % unit;
    if (rem == 0) {
        snprintf(dst, 32, "%" PRIu64 "%s", whole, units[u]);
        return;
    }
    uint64_t tenths = rem * 10 / unit; /* rem < 2^60: no overflow */
    if (up && rem * 10 % unit != 0 && ++tenths == 10)
        whole++, tenths = 0;
    char tmp[64];
    int n = snprintf(tmp, sizeof(tmp), "%" PRIu64 ".%u%s", whole, (unsigned)(tenths % 10), units[u]);
    memcpy(dst, tmp, (size_t)(n < 31 ? n : 31));
    dst[n < 31 ? n : 31] = '\0';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * A unit word as people write sizes: "" or "B" (none; *letter = 0), "G"/"GB" (decimal or binary: *binary_only
 * = 0), "Gi"/"GiB" (binary only), any case. Returns 0, or -1 for a word that is no size unit.
 */
static int unit_word(const char *w, size_t n, char *letter, int *binary_only)
{
    static const char letters[] = "kmgtpe", canonical[] = "kMGTPE";
    *letter = '\0';
    *binary_only = 0;
    if (n == 0 || (n == 1 && lower(w[0]) == 'b'))
        return 0;
    const char *at = strchr(letters, lower(w[0]));
    if (at == NULL)
        return -1;
    if (n == 1 || (n == 2 && lower(w[1]) == 'b'))
        *binary_only = 0;
    else if (lower(w[1]) == 'i' && (n == 2 || (n == 3 && lower(w[2]) == 'b')))
        *binary_only = 1;
    else
        return -1;
    *letter = canonical[at - letters];
    return 0;
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One guess: the mantissa with `suffix`, as a whole positive value in the resource's unit. Returns 0 or -1. */
static int guess_one(const char *mantissa, size_t mlen, const char *suffix, int plain, int64_t unit, gpa_quantity_guess_t *g)
{
    char buf[64];
    int n = snprintf(buf, sizeof(buf), "%.*s%s", (int)mlen, mantissa, suffix);
    gpa_quantity_t q = gpa_quantity_parse(buf, (size_t)n);
    if (q.status != GPA_Q_OK || q.value <= 0)
        return -1;
    if (plain) { /* a number without a unit word is in the resource's own unit */
        g->value = q.value;
        snprintf(g->text, sizeof(g->text), "%" PRId64, q.value);
        return 0;
    }
    if (unit <= 0 || q.value % unit != 0)
        return -1;
    g->value = q.value / unit;
    if (unit == 1)
        gpa_quantity_format(g->value, suffix[0] != '\0' && suffix[1] == 'i', g->text);
    else
        snprintf(g->text, sizeof(g->text), "%" PRId64, g->value);
    return 0;
}

size_t gpa_quantity_guess(const char *text, int64_t unit, gpa_quantity_guess_t out[2])
{
    size_t i = 0;
    while (text[i] == ' ' || text[i] == '\t')
        i++;
    const char *mantissa = text + i;
    size_t m = strspn(mantissa, "0123456789");
    if (m == 0)
        return 0;
    if (mantissa[m] == '.' && is_digit(mantissa[m + 1]))
        m += 1 + strspn(mantissa + m + 1, "0123456789");
    if (m > 40)
        return 0;
    const char *w = mantissa + m;
    while (*w == ' ' || *w == '\t')
        w++;
    size_t wn = 0;
    while (is_alpha(w[wn]))
        wn++;
    const char *rest = w + wn;
    while (*rest == ' ' || *rest == '\t')
        rest++;
    char letter;
    int binary_only;
    if (is_digit(*rest) || *rest == '.' || unit_word(w, wn, &letter, &binary_only) != 0)
        return 0; /* "1 2", "1.5.2", "100 GPUs": no one reading */
    size_t n = 0;
    if (letter == '\0')
        return guess_one(mantissa, m, "", wn == 0, unit, &out[0]) == 0 ? 1 : 0;
    const char dec[2] = {letter, '\0'}, bin[3] = {letter == 'k' ? 'K' : letter, 'i', '\0'};
    if (!binary_only && guess_one(mantissa, m, dec, 0, unit, &out[n]) == 0)
        n++;
    if (guess_one(mantissa, m, bin, 0, unit, &out[n]) == 0)
        n++;
    return n;
}

int gpa_mul_i64(int64_t x, int64_t y, int64_t *r)
{
    int64_t t;
    if (__builtin_mul_overflow(x, y, &t))
        return -1;
    *r = t;
    return 0;
}

int gpa_add_i64(int64_t x, int64_t y, int64_t *r)
{
    int64_t t;
    if (__builtin_add_overflow(x, y, &t))
        return -1;
    *r = t;
    return 0;
}

int64_t gpa_ceil_div(int64_t x, int64_t y)
{
    return x / y + (x % y != 0);
}
