/*
 * JSON (RFC 8259) straight into the arena tree: the webhook's hot path.
 *
 * One pass, recursive descent, no tokens in between. Children of the container being parsed are collected on
 * a scratch stack shared by all levels (a container's children are the top of the stack when it closes) and
 * copied once into an exact-size arena array, so no per-container growth happens in the arena. Lines are
 * counted only where newlines may legally appear (whitespace: strings cannot hold a raw newline), and the
 * column is the byte offset from the line's start, 1-based.
 */
#include "document/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64 always has SSE2; elsewhere the eight-bytes-at-a-time path below serves */
#endif

typedef struct st_filter_member_t filter_member_t;

struct st_gpa_json_filter_t {
    int whole;
    gpa_json_filter_t *any; /* `*`: every member not named below */
    filter_member_t *members;
};

struct st_filter_member_t {
    filter_member_t *next;
    const char *key;
    size_t key_len;
    gpa_json_filter_t *node;
};

typedef struct st_jparser_t {
    gpa_arena_t *a;
    const char *p, *end;
    const char *line_start;
    unsigned line;
    unsigned col_base; /* columns before the text's first byte on its first line (a value read out of a larger input) */
    unsigned depth;
    int short_input;                 /* the fault may be the end of the text: more text might make it valid */
    int check_only;                  /* read for faults only: no tree (every node is `scratch`), strings not kept */
    const gpa_json_filter_t *filter; /* what of the value being read to build; NULL: all of it */
    gpa_value_t scratch;
    gpa_error_t *err;
    /* Decoded strings and number literals of the whole document go to one block sized from the input (a
     * string's decoded text plus its NUL never exceeds its quoted source), and nodes come from small batches:
     * the hot path calls the arena a few times per document, not once per node. */
    char *sbuf;
    gpa_value_t *nodes;
    size_t nodes_left;
    /* Scratch stacks: children of the open arrays and objects. They start in the caller's stack frame and
     * move to the heap only when a document has more open children than that. */
    gpa_value_t **items;
    size_t nitems, capitems;
    gpa_member_t *members;
    size_t nmembers, capmembers;
    int items_heap, members_heap;
} jparser_t;

static unsigned column_of(const jparser_t *j, const char *at)
{
    size_t c = (size_t)(at - j->line_start) + 1 + j->col_base;
    return c > UINT32_MAX ? UINT32_MAX : (unsigned)c;
}

static int fail_at(jparser_t *j, const char *at, const char *what)
{
    if (at >= j->end)
        j->short_input = 1;
    if (at >= j->end)
        return gpa_error_set(j->err, j->line, column_of(j, at), NULL, "%s (at end of input)", what);
    unsigned char c = (unsigned char)*at;
    if (c >= 0x21 && c < 0x7f)
        return gpa_error_set(j->err, j->line, column_of(j, at), NULL, "%s (found '%c')", what, c);
    return gpa_error_set(j->err, j->line, column_of(j, at), NULL, "%s (found byte 0x%02x)", what, c);
}

static void skip_ws_slow(jparser_t *j)
{
    const char *p = j->p, *end = j->end;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
        } else if (c == '\n') {
            p++;
            j->line++;
            j->line_start = p;
            j->col_base = 0;
        } else {
            break;
        }
    }
    j->p = p;
}

/* Most whitespace in machine-written JSON is none or one space (", " and ": "): decide that inline. */
static inline void skip_ws(jparser_t *j)
{
    if (j->p < j->end && (unsigned char)*j->p > ' ')
        return;
    if (j->end - j->p >= 2 && j->p[0] == ' ' && (unsigned char)j->p[1] > ' ') {
        j->p++;
        return;
    }
    skip_ws_slow(j);
}

#define NODE_BATCH 32

static gpa_value_t *new_node(jparser_t *j, gpa_vtype_t type, const char *at)
{
    if (j->check_only)
        return &j->scratch;
    if (j->nodes_left == 0) {
        j->nodes = gpa_arena_alloc(j->a, NODE_BATCH * sizeof(gpa_value_t));
        j->nodes_left = NODE_BATCH;
    }
    gpa_value_t *v = j->nodes++;
    j->nodes_left--;
    v->type = type;
    v->line = j->line;
    v->column = column_of(j, at);
    return v;
}

/* Length of a valid UTF-8 sequence at p (lead byte >= 0x80), or 0 when invalid (overlong, surrogate, > U+10FFFF,
 * truncated). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    }
    return n;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes one escape at *pp (just past the backslash) into dst; advances *pp. Returns bytes written or -1. */
static int decode_escape(jparser_t *j, const char **pp, char *dst)
{
    const char *p = *pp;
    if (p >= j->end)
        return fail_at(j, p, "unterminated string");
    char c = *p++;
    *pp = p;
    switch (c) {
    case '"':
        *dst = '"';
        return 1;
    case '\\':
        *dst = '\\';
        return 1;
    case '/':
        *dst = '/';
        return 1;
    case 'b':
        *dst = '\b';
        return 1;
    case 'f':
        *dst = '\f';
        return 1;
    case 'n':
        *dst = '\n';
        return 1;
    case 'r':
        *dst = '\r';
        return 1;
    case 't':
        *dst = '\t';
        return 1;
    case 'u':
        break;
    default:
        return fail_at(j, p - 1, "invalid escape in string");
    }
    unsigned cp, lo;
    if (j->end - p < 4)
        j->short_input = 1;
    if (j->end - p < 4 || hex4(p, &cp) != 0)
        return fail_at(j, p - 2, "invalid \\u escape (four hex digits expected)");
    p += 4;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail_at(j, p - 6, "lone low surrogate in \\u escape");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (j->end - p < 6)
            j->short_input = 1;
        if (j->end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
            return fail_at(j, p - 6, "lone high surrogate in \\u escape (a low surrogate must follow)");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        p += 6;
    }
    *pp = p;
    return (int)put_utf8(dst, cp);
}

/* High bit set in each byte of v that is '"', '\\', below 0x20 or above 0x7f (the bytes a string scan must stop at).
 * The classic SWAR zero-byte test: borrows make false positives, but only in bytes above a true one, so the
 * lowest flagged byte (little-endian: the first in memory) is exact. */
static inline uint64_t special_mask(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t quote = v ^ (ones * '"'), bslash = v ^ (ones * '\\');
    uint64_t t = ((quote - ones) & ~quote) | ((bslash - ones) & ~bslash) | (v - ones * 0x20) | v;
    return t & highs;
}

#if defined(__SSE2__)
/* Copies sixteen bytes from p to d and says which of them a string scan must stop at: '"', '\\', or a byte
 * below 0x20 or above 0x7f (both are below 0x20 as signed bytes); bit i for byte i. */
static inline unsigned copy16(const char *p, char *d)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    _mm_storeu_si128((__m128i *)(void *)d, v);
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)), _mm_cmplt_epi8(v, space));
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* The string decoded into d[..] ends here (p on its closing quote): terminate it and hand it out. */
static inline int end_string(jparser_t *j, const char *p, char *d, const char **out, size_t *outlen)
{
    char *start = j->sbuf;
    *d = '\0';
    if (!j->check_only)
        j->sbuf = d + 1;
    j->p = p + 1;
    *out = start;
    *outlen = (size_t)(d - start);
    return 0;
}

/*
 * Goes on with a string from p (source) and d (its decoded bytes so far, in the string block): validates UTF-8
 * and control characters, decodes escapes, copies plain bytes sixteen (SSE2) or eight at a time where it can.
 * No slack is needed for the wide stores: a decoded string is never longer than its source, so d + 16 stays
 * within the block while 16 source bytes remain (the block has 8 bytes of slack for the SWAR stores).
 */
static int string_rest(jparser_t *j, const char *p, char *d, const char **out, size_t *outlen)
{
    const char *end = j->end;
    for (;;) {
#if defined(__SSE2__)
        while (end - p >= 16) {
            unsigned m = copy16(p, d);
            if (m != 0) {
                unsigned skip = (unsigned)__builtin_ctz(m);
                p += skip;
                d += skip;
                goto Special;
            }
            p += 16;
            d += 16;
        }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (end - p >= 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            memcpy(d, &v, 8);
            uint64_t m = special_mask(v);
            if (m != 0) {
                unsigned skip = (unsigned)__builtin_ctzll(m) / 8;
                p += skip;
                d += skip;
                break;
            }
            p += 8;
            d += 8;
        }
#endif
#if defined(__SSE2__)
    Special:
#endif
        if (p >= end)
            return fail_at(j, p, "unterminated string");
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            *d++ = (char)c;
            p++;
        } else if (c == '"') {
            return end_string(j, p, d, out, outlen);
        } else if (c == '\\') {
            p++;
            int w = decode_escape(j, &p, d);
            if (w < 0)
                return -1;
            d += w;
        } else if (c < 0x20) {
            return fail_at(j, p, "control character in string (must be escaped)");
        } else {
            size_t n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
            if (n == 0 && end - p < 4)
                j->short_input = 1; /* perhaps a sequence cut by the end of the text */
            if (n == 0)
                return fail_at(j, p, "invalid UTF-8 in string");
            memcpy(d, p, n);
            d += n;
            p += n;
        }
    }
}

/* Parses a string at j->p (on the opening quote) into the string block. Inline: most strings of a Kubernetes
 * object are plain ASCII shorter than sixteen bytes, settled by one wide compare. */
static inline int parse_string(jparser_t *j, const char **out, size_t *outlen)
{
    const char *p = j->p + 1;
#if defined(__SSE2__)
    if (j->end - p >= 16) {
        unsigned m = copy16(p, j->sbuf);
        if (m == 0)
            return string_rest(j, p + 16, j->sbuf + 16, out, outlen);
        unsigned n = (unsigned)__builtin_ctz(m);
        if (p[n] == '"')
            return end_string(j, p + n, j->sbuf + n, out, outlen);
        return string_rest(j, p + n, j->sbuf + n, out, outlen);
    }
#endif
    return string_rest(j, p, j->sbuf, out, outlen);
}

static const char *span_digits(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* RFC 8259 number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? ; the literal is kept as written. */
static int parse_number(jparser_t *j, gpa_value_t **out)
{
    const char *start = j->p, *p = start, *end = j->end, *q;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9')
            return fail_at(j, p, "invalid number (leading zero)");
    } else {
        q = span_digits(p, end);
        if (q == p)
            return fail_at(j, p, "invalid number (digit expected)");
        p = q;
    }
    if (p < end && *p == '.') {
        q = span_digits(p + 1, end);
        if (q == p + 1)
            return fail_at(j, q, "invalid number (digit expected after '.')");
        p = q;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        q = span_digits(p, end);
        if (q == p)
            return fail_at(j, p, "invalid number (digit expected in exponent)");
        p = q;
    }
    gpa_value_t *v = new_node(j, GPA_VNUMBER, start);
    size_t n = (size_t)(p - start);
    memcpy(j->sbuf, start, n);
    j->sbuf[n] = '\0';
    v->u.str.ptr = j->sbuf;
    v->u.str.len = n;
    if (!j->check_only)
        j->sbuf += n + 1;
    j->p = p;
    *out = v;
    return 0;
}

static int parse_literal(jparser_t *j, const char *word, size_t n, gpa_vtype_t type, int boolean, gpa_value_t **out)
{
    size_t have = (size_t)(j->end - j->p);
    if (have < n && memcmp(j->p, word, have) == 0)
        j->short_input = 1;
    if (have < n || memcmp(j->p, word, n) != 0)
        return fail_at(j, j->p, "invalid literal (expected a JSON value)");
    gpa_value_t *v = new_node(j, type, j->p);
    v->u.boolean = boolean;
    j->p += n;
    *out = v;
    return 0;
}

static int parse_value(jparser_t *j, gpa_value_t **out);

static void push_item(jparser_t *j, gpa_value_t *v)
{
    if (j->nitems == j->capitems) {
        gpa_value_t **grown = gpa_xmalloc(2 * j->capitems * sizeof(*j->items));
        memcpy(grown, j->items, j->nitems * sizeof(*j->items));
        if (j->items_heap)
            free(j->items);
        j->items = grown;
        j->capitems *= 2;
        j->items_heap = 1;
    }
    j->items[j->nitems++] = v;
}

static gpa_member_t *push_member(jparser_t *j)
{
    if (j->nmembers == j->capmembers) {
        gpa_member_t *grown = gpa_xmalloc(2 * j->capmembers * sizeof(*j->members));
        memcpy(grown, j->members, j->nmembers * sizeof(*j->members));
        if (j->members_heap)
            free(j->members);
        j->members = grown;
        j->capmembers *= 2;
        j->members_heap = 1;
    }
    return &j->members[j->nmembers++];
}

static int enter(jparser_t *j)
{
    if (++j->depth > GPA_MAX_DEPTH)
        return fail_at(j, j->p, "nesting too deep (more than 256 levels)");
    j->p++;
    skip_ws(j);
    return 0;
}

static int parse_array(jparser_t *j, gpa_value_t **out)
{
    gpa_value_t *v = new_node(j, GPA_VARRAY, j->p);
    size_t base = j->nitems;
    if (enter(j) != 0)
        return -1;
    if (j->p < j->end && *j->p == ']') {
        j->p++;
    } else {
        for (;;) {
            gpa_value_t *item;
            if (parse_value(j, &item) != 0)
                return -1;
            if (!j->check_only)
                push_item(j, item);
            skip_ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                skip_ws(j);
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                break;
            }
            return fail_at(j, j->p, "expected ',' or ']' in array");
        }
    }
    j->depth--;
    *out = v;
    if (j->check_only)
        return 0;
    size_t n = j->nitems - base;
    v->u.array.len = n;
    v->u.array.items = n ? gpa_arena_alloc(j->a, n * sizeof(gpa_value_t *)) : NULL;
    if (n)
        memcpy(v->u.array.items, j->items + base, n * sizeof(gpa_value_t *));
    j->nitems = base;
    return 0;
}

/* The node a member is read under: NULL to build it whole, `skip` to read it for faults only. */
static const gpa_json_filter_t skip_member;

static const gpa_json_filter_t *member_filter(const gpa_json_filter_t *f, const char *key, size_t len)
{
    const filter_member_t *m = f->members;
    while (m != NULL && (m->key_len != len || memcmp(m->key, key, len) != 0))
        m = m->next;
    const gpa_json_filter_t *node = m != NULL ? m->node : f->any;
    return node == NULL ? &skip_member : node->whole ? NULL : node;
}

static int parse_member(jparser_t *j)
{
    if (j->p >= j->end || *j->p != '"')
        return fail_at(j, j->p, "expected a string key in object");
    const char *key;
    size_t keylen;
    if (parse_string(j, &key, &keylen) != 0)
        return -1;
    skip_ws(j);
    if (j->p >= j->end || *j->p != ':')
        return fail_at(j, j->p, "expected ':' after object key");
    j->p++;
    skip_ws(j);
    const gpa_json_filter_t *outer = j->filter, *inner = outer != NULL && !j->check_only ? member_filter(outer, key, keylen) : NULL;
    gpa_value_t *value;
    int rc;
    if (inner == &skip_member) {
        j->sbuf = (char *)key; /* the key was the last string kept: give its bytes back */
        j->check_only = 1;
        rc = parse_value(j, &value);
        j->check_only = 0;
        return rc;
    }
    j->filter = inner;
    rc = parse_value(j, &value);
    j->filter = outer;
    if (rc != 0 || j->check_only)
        return rc;
    gpa_member_t *m = push_member(j);
    m->key = key;
    m->key_len = keylen;
    m->value = value;
    return 0;
}

static int parse_object(jparser_t *j, gpa_value_t **out)
{
    gpa_value_t *v = new_node(j, GPA_VOBJECT, j->p);
    size_t base = j->nmembers;
    if (enter(j) != 0)
        return -1;
    if (j->p < j->end && *j->p == '}') {
        j->p++;
    } else {
        for (;;) {
            if (parse_member(j) != 0)
                return -1;
            skip_ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                skip_ws(j);
                continue;
            }
            if (j->p < j->end && *j->p == '}') {
                j->p++;
                break;
            }
            return fail_at(j, j->p, "expected ',' or '}' in object");
        }
    }
    j->depth--;
    *out = v;
    if (j->check_only)
        return 0;
    size_t n = gpa_members_dedupe(j->members + base, j->nmembers - base);
    v->u.object.len = n;
    v->u.object.members = n ? gpa_arena_alloc(j->a, n * sizeof(gpa_member_t)) : NULL;
    if (n)
        memcpy(v->u.object.members, j->members + base, n * sizeof(gpa_member_t));
    j->nmembers = base;
    return 0;
}

static int parse_value(jparser_t *j, gpa_value_t **out)
{
    if (j->p >= j->end)
        return fail_at(j, j->p, "expected a JSON value");
    switch (*j->p) {
    case '{':
        return parse_object(j, out);
    case '[':
        return parse_array(j, out);
    case '"': {
        gpa_value_t *v = new_node(j, GPA_VSTRING, j->p);
        if (parse_string(j, &v->u.str.ptr, &v->u.str.len) != 0)
            return -1;
        *out = v;
        return 0;
    }
    case 't':
        return parse_literal(j, "true", 4, GPA_VBOOL, 1, out);
    case 'f':
        return parse_literal(j, "false", 5, GPA_VBOOL, 0, out);
    case 'n':
        return parse_literal(j, "null", 4, GPA_VNULL, 0, out);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return parse_number(j, out);
    default:
        return fail_at(j, j->p, "expected a JSON value");
    }
}

/* Sets up j over text[0..len) (from `at` when given), runs `body`, frees the scratch stacks. */
static int run(gpa_arena_t *a, const char *text, size_t len, const gpa_json_pos_t *at, int check_only,
               const gpa_json_filter_t *filter, gpa_error_t *err, int (*body)(jparser_t *j, void *arg), void *arg, jparser_t *out)
{
    gpa_value_t *stack_items[64];
    gpa_member_t stack_members[64];
    if (text == NULL)
        text = "", len = 0;
    jparser_t j = {.a = a,
                   .p = text,
                   .end = text + len,
                   .line_start = text,
                   .line = 1,
                   .err = err,
                   .check_only = check_only,
                   .filter = filter};
    if (at != NULL) {
        j.line = at->line;
        j.col_base = at->column > 0 ? at->column - 1 : 0;
        j.depth = at->depth;
    }
    j.items = stack_items;
    j.capitems = sizeof(stack_items) / sizeof(stack_items[0]);
    j.members = stack_members;
    j.capmembers = sizeof(stack_members) / sizeof(stack_members[0]);
    /* +1: a number ending the input has no delimiter to stand in for its NUL; +8: slack for 8-byte stores */
    j.sbuf = gpa_arena_alloc(a, len + 9);
    int ret = body(&j, arg);
    if (j.items_heap)
        free(j.items);
    if (j.members_heap)
        free(j.members);
    j.items = NULL, j.members = NULL;
    *out = j;
    return ret;
}

static int whole_text(jparser_t *j, void *arg)
{
    gpa_value_t **out = arg, *v;
    if (j->end - j->p >= 3 && memcmp(j->p, "\xef\xbb\xbf", 3) == 0) /* RFC 8259 §8.1: a BOM may be ignored */
        j->p = j->line_start = j->p + 3;
    skip_ws(j);
    if (parse_value(j, &v) != 0)
        return -1;
    skip_ws(j);
    if (j->p != j->end)
        return fail_at(j, j->p, "trailing data after the JSON value");
    *out = v;
    return 0;
}

int gpa_json_parse(gpa_arena_t *a, const char *text, size_t len, gpa_value_t **out, gpa_error_t *err)
{
    return gpa_json_parse_filtered(a, text, len, NULL, out, err);
}

int gpa_json_parse_filtered(gpa_arena_t *a, const char *text, size_t len, const gpa_json_filter_t *filter, gpa_value_t **out,
                            gpa_error_t *err)
{
    jparser_t j;
    return run(a, text, len, NULL, 0, filter != NULL && filter->whole ? NULL : filter, err, whole_text, out, &j);
}

/* ---- filters ---------------------------------------------------------------------------------------------------- */

gpa_json_filter_t *gpa_json_filter_new(gpa_arena_t *a)
{
    return gpa_arena_calloc(a, 1, sizeof(gpa_json_filter_t));
}

/* The node for one step (`key`, `key[*]` or `*`: s[0..n)) under f, made when missing. */
static gpa_json_filter_t *filter_step(gpa_arena_t *a, gpa_json_filter_t *f, const char *s, size_t n)
{
    if (n >= 3 && memcmp(s + n - 3, "[*]", 3) == 0)
        n -= 3;
    if (n == 1 && s[0] == '*')
        return f->any != NULL ? f->any : (f->any = gpa_json_filter_new(a));
    for (filter_member_t *m = f->members; m != NULL; m = m->next)
        if (m->key_len == n && memcmp(m->key, s, n) == 0)
            return m->node;
    filter_member_t *m = gpa_arena_alloc(a, sizeof(*m));
    *m = (filter_member_t){f->members, gpa_arena_strndup(a, s, n), n, gpa_json_filter_new(a)};
    f->members = m;
    return m->node;
}

gpa_json_filter_t *gpa_json_filter_path(gpa_arena_t *a, gpa_json_filter_t *f, const char *path)
{
    while (*path != '\0') {
        const char *dot = strchr(path, '.');
        size_t n = dot != NULL ? (size_t)(dot - path) : strlen(path);
        f = filter_step(a, f, path, n);
        path += dot != NULL ? n + 1 : n;
    }
    return f;
}

void gpa_json_filter_whole(gpa_json_filter_t *f)
{
    f->whole = 1;
}

/* Adds everything src keeps to dst. */
static void filter_merge(gpa_arena_t *a, gpa_json_filter_t *dst, const gpa_json_filter_t *src)
{
    dst->whole |= src->whole;
    for (const filter_member_t *m = src->members; m != NULL; m = m->next)
        filter_merge(a, filter_step(a, dst, m->key, m->key_len), m->node);
    if (src->any != NULL)
        filter_merge(a, dst->any != NULL ? dst->any : (dst->any = gpa_json_filter_new(a)), src->any);
}

void gpa_json_filter_seal(gpa_arena_t *a, gpa_json_filter_t *f)
{
    if (f->any != NULL) {
        for (filter_member_t *m = f->members; m != NULL; m = m->next)
            filter_merge(a, m->node, f->any);
        gpa_json_filter_seal(a, f->any);
    }
    for (filter_member_t *m = f->members; m != NULL; m = m->next)
        gpa_json_filter_seal(a, m->node);
}

void gpa_json_filter_keep(gpa_arena_t *a, gpa_json_filter_t *f, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gpa_json_filter_whole(gpa_json_filter_path(a, f, paths[i]));
}

static int one_value(jparser_t *j, void *arg)
{
    return parse_value(j, arg);
}

int gpa_json_parse_value(gpa_arena_t *a, const char *text, size_t len, gpa_json_pos_t *at, gpa_value_t **out, size_t *used,
                         int *short_input, gpa_error_t *err)
{
    jparser_t j;
    gpa_value_t *unused;
    int ret = run(a, text, len, at, out == NULL, NULL, err, one_value, out != NULL ? out : &unused, &j);
    *short_input = ret != 0 && j.short_input;
    if (ret == 0) {
        at->column = column_of(&j, j.p);
        at->line = j.line;
        *used = (size_t)(j.p - text);
    }
    return ret;
}
