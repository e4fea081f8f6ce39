/*
 * Pieces of a large input (stream.h). The pending bytes sit in one buffer that is compacted on each feed; a
 * piece is parsed only once all its bytes are in, and a parse cut short by the end of the buffer is retried
 * after the next feed (the buffer grows geometrically while one piece does not fit, so retries stay linear).
 *
 * JSON: a small state machine walks the top-level object (keys, ':' and ',') and hands each value to
 * gpa_json_parse_value, the one JSON parser: items are returned, other members are parsed in a scratch arena
 * and dropped (only the kind is kept, to tell a List). YAML: the stream is cut at the lines that start a
 * document ("---" at column 0 followed by white space or the end of a line: libyaml ends any scalar there too)
 * and each cut is parsed with gpa_yaml_parse_at, which needs an explicit "---" before every document but the
 * first. Where libyaml reads the text otherwise than the cuts suggest ('%' directive lines, line breaks other
 * than LF), a cut that does not parse is retried trimmed or joined to the next one (parse_cut), and a cut that
 * holds several documents hands them out one per call.
 */
#include "document/stream.h"

#include <stdlib.h>
#include <string.h>

#include "document/json.h"
#include "document/yaml.h"

#define DEFAULT_WANT (64 * 1024)
#define MIN_GUESS (8 * 1024)

typedef enum en_state_t {
    ST_START,
    ST_YAML,
    ST_MEMBER_FIRST, /* after '{' */
    ST_MEMBER,       /* a key is due */
    ST_COLON,
    ST_VALUE,
    ST_AFTER_MEMBER,
    ST_ITEM_FIRST, /* after the '[' of "items" */
    ST_ITEM,
    ST_AFTER_ITEM,
    ST_TRAIL,
    ST_DONE,
} state_t;

typedef enum en_member_key_t {
    KEY_OTHER,
    KEY_ITEMS,
    KEY_KIND,
} member_key_t;

struct st_gpa_stream_t {
    char *buf;
    size_t start, len, cap; /* pending bytes: buf[start..len) */
    int eof;
    size_t want;
    size_t guess; /* how much text to hand the JSON parser for the next value (see json_value) */
    state_t st;
    int json;
    int check_only;        /* items are checked for faults, not built */
    unsigned line, column; /* position of buf[start] */
    /* JSON */
    member_key_t key;    /* the member being read */
    unsigned items_keys; /* "items" members seen */
    int items_array;     /* the first "items" was an array (streamed) */
    char *kind;          /* the last "kind" member's string (heap), or NULL */
    gpa_arena_t scratch; /* keys and the other members' values */
    /* YAML */
    size_t cut_doc; /* documents of the current cut already handed out */
    size_t cut_len; /* the current cut's length once known (0: not yet) */
};

gpa_stream_t *gpa_stream_new(void)
{
    gpa_stream_t *s = gpa_xcalloc(1, sizeof(*s));
    s->want = DEFAULT_WANT;
    s->guess = MIN_GUESS;
    s->line = 1;
    s->column = 1;
    gpa_arena_init(&s->scratch);
    return s;
}

void gpa_stream_free(gpa_stream_t *s)
{
    if (s == NULL)
        return;
    free(s->buf);
    free(s->kind);
    gpa_arena_dispose(&s->scratch);
    free(s);
}

char *gpa_stream_space(gpa_stream_t *s, size_t n)
{
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, s->len - s->start);
        s->len -= s->start;
        s->start = 0;
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : DEFAULT_WANT;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->buf = gpa_xrealloc(s->buf, cap);
        s->cap = cap;
    }
    return s->buf + s->len;
}

void gpa_stream_commit(gpa_stream_t *s, size_t n)
{
    s->len += n;
    s->buf[s->len] = '\0';
}

void gpa_stream_feed(gpa_stream_t *s, const char *bytes, size_t n)
{
    memcpy(gpa_stream_space(s, n), bytes, n);
    gpa_stream_commit(s, n);
}

void gpa_stream_end(gpa_stream_t *s)
{
    s->eof = 1;
}

size_t gpa_stream_want(const gpa_stream_t *s)
{
    return s->want;
}

void gpa_stream_check_only(gpa_stream_t *s)
{
    s->check_only = 1;
}

int gpa_stream_is_json(const gpa_stream_t *s)
{
    return s->json;
}

int gpa_stream_is_list(const gpa_stream_t *s)
{
    if (!s->json || s->st != ST_DONE || s->items_keys != 1 || !s->items_array || s->kind == NULL)
        return 0;
    size_t n = strlen(s->kind);
    return n >= 4 && strcmp(s->kind + n - 4, "List") == 0;
}

static size_t avail(const gpa_stream_t *s)
{
    return s->len - s->start;
}

/* Not enough bytes for the next step: ask for more (twice what is pending, so a large piece is re-read
 * a logarithmic number of times), or fail at the end of the input. */
static gpa_stream_status_t need_more(gpa_stream_t *s, gpa_error_t *err, const char *what)
{
    if (s->eof) {
        s->st = ST_DONE;
        gpa_error_set(err, s->line, s->column, NULL, "%s (at end of input)", what);
        return GPA_STREAM_ERROR;
    }
    if (2 * avail(s) > s->want)
        s->want = 2 * avail(s);
    return GPA_STREAM_MORE;
}

static gpa_stream_status_t fail_here(gpa_stream_t *s, gpa_error_t *err, const char *what)
{
    unsigned char c = (unsigned char)s->buf[s->start];
    s->st = ST_DONE;
    if (c >= 0x21 && c < 0x7f)
        gpa_error_set(err, s->line, s->column, NULL, "%s (found '%c')", what, c);
    else
        gpa_error_set(err, s->line, s->column, NULL, "%s (found byte 0x%02x)", what, c);
    return GPA_STREAM_ERROR;
}

/* Skips JSON white space; 1 when a byte follows, 0 when the pending bytes ran out. */
static int skip_ws(gpa_stream_t *s)
{
    while (s->start < s->len) {
        char c = s->buf[s->start];
        if (c == '\n') {
            s->line++;
            s->column = 1;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            s->column++;
        } else {
            return 1;
        }
        s->start++;
    }
    return 0;
}

static void take_byte(gpa_stream_t *s)
{
    s->start++;
    s->column++;
}

static int ends_in_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses the JSON value at buf[start] into `a`. GPA_STREAM_PIECE on success (consumed), else MORE or ERROR. */
static gpa_stream_status_t json_value(gpa_stream_t *s, gpa_arena_t *a, unsigned depth, gpa_value_t **out, gpa_error_t *err)
{
    /* The parser sizes its string block from the text it is given: give it about twice the last piece's size,
     * not everything pending, and more only when the value runs past that. */
    size_t limit = s->guess < avail(s) ? s->guess : avail(s);
    for (;;) {
        gpa_json_pos_t at = {s->line, s->column, depth};
        size_t used = 0;
        int short_input = 0;
        gpa_error_t e = {0};
        gpa_error_init(&e, err != NULL ? err->source : NULL);
        int rc = gpa_json_parse_value(a, s->buf + s->start, limit, &at, out, &used, &short_input, &e);
        /* Cut short by the limit (a number that ends there may go on too): try again with more. */
        if (limit < avail(s) && ((rc != 0 && short_input) || (rc == 0 && used == limit))) {
            limit = 2 * limit < avail(s) ? 2 * limit : avail(s);
            continue;
        }
        if (rc != 0) {
            if (short_input && !s->eof)
                return need_more(s, err, "");
            s->st = ST_DONE;
            if (err != NULL && !err->set_)
                *err = e;
            return GPA_STREAM_ERROR;
        }
        /* A number that ends the pending bytes may go on in the next feed. */
        if (s->start + used == s->len && !s->eof && ends_in_digit(s->buf[s->start + used - 1]))
            return need_more(s, err, "");
        s->start += used;
        s->line = at.line;
        s->column = at.column;
        s->want = DEFAULT_WANT;
        s->guess = 2 * used > MIN_GUESS ? 2 * used : MIN_GUESS;
        return GPA_STREAM_PIECE;
    }
}

static gpa_stream_status_t json_key(gpa_stream_t *s, gpa_error_t *err)
{
    if (s->buf[s->start] != '"')
        return fail_here(s, err, "expected a string key in object");
    gpa_value_t *key;
    gpa_stream_status_t st = json_value(s, &s->scratch, 1, &key, err);
    if (st != GPA_STREAM_PIECE)
        return st;
    s->key = strcmp(key->u.str.ptr, "items") == 0 && key->u.str.len == 5  ? KEY_ITEMS
             : strcmp(key->u.str.ptr, "kind") == 0 && key->u.str.len == 4 ? KEY_KIND
                                                                          : KEY_OTHER;
    gpa_arena_clear(&s->scratch);
    s->st = ST_COLON;
    return GPA_STREAM_MORE; /* not returned: the caller's loop goes on */
}

/* A member other than the streamed items: parsed, checked and dropped (the kind is kept). */
static gpa_stream_status_t json_member_value(gpa_stream_t *s, gpa_error_t *err)
{
    if (s->key == KEY_ITEMS && s->items_keys++ == 0 && s->buf[s->start] == '[') {
        s->items_array = 1;
        take_byte(s);
        s->st = ST_ITEM_FIRST;
        return GPA_STREAM_MORE;
    }
    gpa_value_t *v;
    gpa_stream_status_t st = json_value(s, &s->scratch, 1, &v, err);
    if (st != GPA_STREAM_PIECE)
        return st;
    if (s->key == KEY_KIND) {
        free(s->kind);
        s->kind = v->type == GPA_VSTRING ? gpa_xstrdup(v->u.str.ptr) : NULL;
    }
    gpa_arena_clear(&s->scratch);
    s->st = ST_AFTER_MEMBER;
    return GPA_STREAM_MORE;
}

/* What the JSON reader says when the input ends where the state wants a byte (json.c's words). */
static const char *expected(state_t st)
{
    switch (st) {
    case ST_MEMBER_FIRST:
    case ST_MEMBER:
        return "expected a string key in object";
    case ST_COLON:
        return "expected ':' after object key";
    case ST_AFTER_MEMBER:
        return "expected ',' or '}' in object";
    case ST_AFTER_ITEM:
        return "expected ',' or ']' in array";
    default:
        return "expected a JSON value";
    }
}

/* After '{' or '[': the closing byte (to `closed`), or the first member or item (to `next`). */
static int first(gpa_stream_t *s, char c, char close, state_t closed, state_t next)
{
    if (c == close)
        take_byte(s);
    s->st = c == close ? closed : next;
    return -1;
}

/* After a member or an item: ',' (to `next`) or the closing byte (to `closed`). */
static int separator(gpa_stream_t *s, char c, char close, state_t next, state_t closed, gpa_error_t *err)
{
    if (c != ',' && c != close)
        return fail_here(s, err, expected(s->st));
    take_byte(s);
    s->st = c == ',' ? next : closed;
    return -1;
}

/* One step of the JSON walk: PIECE with an item, MORE to be fed, END, ERROR, or -1 to take another step. */
static int json_step(gpa_stream_t *s, gpa_arena_t *a, gpa_value_t **out, gpa_error_t *err)
{
    if (s->st == ST_TRAIL) {
        if (skip_ws(s))
            return fail_here(s, err, "trailing data after the JSON value");
        if (!s->eof)
            return GPA_STREAM_MORE;
        s->st = ST_DONE;
        return GPA_STREAM_END;
    }
    if (!skip_ws(s))
        return need_more(s, err, expected(s->st));
    char c = s->buf[s->start];
    gpa_stream_status_t st;
    switch (s->st) {
    case ST_MEMBER_FIRST:
        return first(s, c, '}', ST_TRAIL, ST_MEMBER);
    case ST_MEMBER:
        st = json_key(s, err);
        return st == GPA_STREAM_MORE && s->st == ST_COLON ? -1 : (int)st;
    case ST_COLON:
        if (c != ':')
            return fail_here(s, err, "expected ':' after object key");
        take_byte(s);
        s->st = ST_VALUE;
        return -1;
    case ST_VALUE:
        st = json_member_value(s, err);
        return st == GPA_STREAM_MORE && s->st != ST_VALUE ? -1 : (int)st;
    case ST_AFTER_MEMBER:
        return separator(s, c, '}', ST_MEMBER, ST_TRAIL, err);
    case ST_ITEM_FIRST:
        return first(s, c, ']', ST_AFTER_MEMBER, ST_ITEM);
    case ST_ITEM:
        if (s->check_only)
            *out = NULL;
        st = json_value(s, a, 2, s->check_only ? NULL : out, err);
        if (st == GPA_STREAM_PIECE)
            s->st = ST_AFTER_ITEM;
        return (int)st;
    case ST_AFTER_ITEM:
        return separator(s, c, ']', ST_ITEM, ST_AFTER_MEMBER, err);
    default:
        return GPA_STREAM_END;
    }
}

/* JSON or YAML, from the first byte that is not white space (as docs.h decides). */
static gpa_stream_status_t start(gpa_stream_t *s)
{
    size_t i = s->start;
    if (avail(s) >= 3 && memcmp(s->buf + i, "\xef\xbb\xbf", 3) == 0)
        i += 3;
    else if (avail(s) > 0 && avail(s) < 3 && !s->eof && memcmp(s->buf + i, "\xef\xbb\xbf", avail(s)) == 0)
        return GPA_STREAM_MORE;
    while (i < s->len && (s->buf[i] == ' ' || s->buf[i] == '\t' || s->buf[i] == '\r' || s->buf[i] == '\n'))
        i++;
    if (i == s->len && !s->eof)
        return GPA_STREAM_MORE;
    if (i == s->len || (s->buf[i] != '{' && s->buf[i] != '[')) {
        s->st = ST_YAML;
        return GPA_STREAM_PIECE;
    }
    s->json = 1;
    if (s->buf[i] == '[') {
        s->st = ST_DONE;
        return GPA_STREAM_WHOLE;
    }
    if (avail(s) >= 3 && memcmp(s->buf + s->start, "\xef\xbb\xbf", 3) == 0)
        s->start += 3; /* the column counts from after the mark, as in json.c */
    skip_ws(s);
    take_byte(s); /* '{' */
    s->st = ST_MEMBER_FIRST;
    return GPA_STREAM_PIECE;
}

/* ---- YAML ---------------------------------------------------------------------------------------------- */

/* Whether the line at buf[i] is the marker "---" (a document starts) or "..." (one ends): the three bytes then
 * white space or the end of the line. -1: the pending bytes end before that can be told. */
static int marker_line(const gpa_stream_t *s, size_t i, const char *marker)
{
    if (s->len - i < 4) {
        if (!s->eof)
            return -1;
        return s->len - i == 3 && memcmp(s->buf + i, marker, 3) == 0;
    }
    char c = s->buf[i + 3];
    return memcmp(s->buf + i, marker, 3) == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

/* The start of the line before the one that starts at buf[at] (at > start). */
static size_t line_before(const gpa_stream_t *s, size_t from, size_t at)
{
    size_t prev = at - 1; /* the '\n' ending that line */
    while (prev > from && s->buf[prev - 1] != '\n')
        prev--;
    return prev;
}

/* Whether the line at buf[i] holds only white space or a comment. */
static int blank_or_comment(const gpa_stream_t *s, size_t i)
{
    while (i < s->len && (s->buf[i] == ' ' || s->buf[i] == '\t'))
        i++;
    return i == s->len || s->buf[i] == '\n' || s->buf[i] == '\r' || s->buf[i] == '#';
}

/* The end of the document that starts at buf[from]: the start of the next "---" line, or len at the end of
 * the input; 0 when the pending bytes end first. */
static size_t document_end(const gpa_stream_t *s, size_t from)
{
    size_t i = from;
    for (;;) {
        const char *nl = memchr(s->buf + i, '\n', s->len - i);
        if (nl == NULL)
            return s->eof ? s->len : 0;
        i = (size_t)(nl - s->buf) + 1;
        int d = marker_line(s, i, "---");
        if (d != 0)
            return d < 0 ? 0 : i;
    }
}

/* The start of the '%' lines (with blank and comment lines among them) that end buf[start..end), or end when
 * there are none: "%YAML 1.1" directives of the next document, when libyaml takes them so. */
static size_t trailing_directives(const gpa_stream_t *s, size_t end)
{
    size_t cut = end, at = end;
    while (at > s->start) {
        size_t prev = line_before(s, s->start, at);
        if (s->buf[prev] == '%')
            cut = prev;
        else if (!blank_or_comment(s, prev))
            break;
        at = prev;
    }
    return cut;
}

/* Line breaks in p[0..n) as libyaml counts them (its marks are what positions are made of): LF, CR LF, a
 * lone CR, and NEL, LS, PS in UTF-8. */
static unsigned count_lines(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    unsigned lines = 0;
    if (memchr(p, '\r', n) == NULL && memchr(p, 0xc2, n) == NULL && memchr(p, 0xe2, n) == NULL) {
        for (const char *q = p, *end = p + n; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
            lines++;
        return lines; /* LF only: the common case, at memchr's speed */
    }
    for (size_t i = 0; i < n; i++) {
        if (u[i] == '\n' || (u[i] == '\r' && (i + 1 == n || u[i + 1] != '\n')))
            lines++;
        else if (u[i] == 0xc2 && i + 1 < n && u[i + 1] == 0x85)
            lines++, i++;
        else if (u[i] == 0xe2 && i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
            lines++, i += 2;
    }
    return lines;
}

/* Whether buf[start..end) parses (into `a`, docs); sets s->cut_len when it does. */
static int try_cut(gpa_stream_t *s, gpa_arena_t *a, size_t end, gpa_docs_t *docs, gpa_error_t *err)
{
    if (end <= s->start || gpa_yaml_parse_at(a, s->buf + s->start, end - s->start, s->line, docs, err) != 0)
        return 0;
    s->cut_len = end - s->start;
    return 1;
}

/*
 * Parses the document that starts at buf[start] and ends at `end` (a "---" line) into `a`. A '%' line at
 * column 0 is a directive of the next document or, rarely, content (a plain scalar's next line): libyaml
 * decides by context, so when the cut does not parse it is tried without its trailing '%' lines, then with the
 * next cut added (and that without its trailing '%' lines). When none parses, the first error stands.
 * 0 with s->cut_len set, 1 when more input is needed, -1.
 */
static int parse_cut(gpa_stream_t *s, gpa_arena_t *a, size_t end, gpa_docs_t *docs, gpa_error_t *err)
{
    gpa_error_t first, other;
    gpa_error_init(&first, err != NULL ? err->source : NULL);
    if (try_cut(s, a, end, docs, &first))
        return 0;
    gpa_error_init(&other, NULL);
    if (trailing_directives(s, end) < end && try_cut(s, a, trailing_directives(s, end), docs, &other))
        return 0;
    size_t next = end < s->len ? document_end(s, end) : end;
    if (next == 0)
        return 1;
    gpa_error_init(&other, NULL);
    if (next > end && try_cut(s, a, next, docs, &other))
        return 0;
    gpa_error_init(&other, NULL);
    if (next > end && trailing_directives(s, next) > end && try_cut(s, a, trailing_directives(s, next), docs, &other))
        return 0;
    if (err != NULL && !err->set_)
        *err = first;
    return -1;
}

static gpa_stream_status_t yaml_next(gpa_stream_t *s, gpa_arena_t *a, gpa_value_t **out, gpa_error_t *err)
{
    for (;;) {
        if (avail(s) == 0 && s->eof) {
            s->st = ST_DONE;
            return GPA_STREAM_END;
        }
        size_t end = s->cut_len != 0 ? s->start + s->cut_len : document_end(s, s->start);
        gpa_docs_t docs = {0};
        int rc = end == 0 ? 1 : parse_cut(s, a, end, &docs, err);
        if (rc > 0) {
            if (2 * avail(s) > s->want)
                s->want = 2 * avail(s);
            return GPA_STREAM_MORE;
        }
        if (rc < 0) {
            s->st = ST_DONE;
            return GPA_STREAM_ERROR;
        }
        end = s->start + s->cut_len;
        /* A cut holds several documents where a "---" follows a line break other than LF (a lone CR, NEL) or
         * two cuts were joined: each is handed out from a new parse of the cut, so that every piece lives in
         * the arena of its own call. */
        if (s->cut_doc + 1 < docs.len) {
            *out = docs.docs[s->cut_doc++];
            return GPA_STREAM_PIECE;
        }
        size_t k = s->cut_doc;
        s->cut_doc = 0;
        s->cut_len = 0;
        s->line += count_lines(s->buf + s->start, end - s->start);
        s->start = end;
        s->want = DEFAULT_WANT;
        if (k < docs.len) {
            *out = docs.docs[k];
            return GPA_STREAM_PIECE;
        }
    }
}

gpa_stream_status_t gpa_stream_next(gpa_stream_t *s, gpa_arena_t *a, gpa_value_t **out, gpa_error_t *err)
{
    if (s->st == ST_DONE)
        return GPA_STREAM_END;
    if (s->st == ST_START) {
        gpa_stream_status_t st = start(s);
        if (st != GPA_STREAM_PIECE)
            return st;
    }
    if (s->st == ST_YAML)
        return yaml_next(s, a, out, err);
    int st;
    while ((st = json_step(s, a, out, err)) < 0)
        ;
    return (gpa_stream_status_t)st;
}
