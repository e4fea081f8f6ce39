/*
 * CEL's grammar (cel-spec langdef.md), by recursive descent with one function per precedence level:
 *
 *   Expr     = Or ["?" Or ":" Expr]          Or  = And {"||" And}          And = Rel {"&&" Rel}
 *   Rel      = Add {("<"|"<="|">="|">"|"=="|"!="|"in") Add}              Add = Mul {("+"|"-") Mul}
 *   Mul      = Unary {("*"|"/"|"%") Unary}   Unary = Member | "!"{"!"} Member | "-"{"-"} Member
 *   Member   = Primary {"." ["?"] IDENT ["(" [Exprs] ")"] | "[" ["?"] Expr "]"} ["{" Fields "}" after a name]
 *   Primary  = ["."] IDENT ["(" [Exprs] ")"] | "(" Expr ")" | "[" [Exprs] [","] "]" | "{" [Entries] [","] "}" | Literal
 *
 * Every recursion passes through Expr, which counts the depth: no input nests deeper than GPA_CEL_MAX_DEPTH.
 */
#include <string.h>

#include "cel/cel_ast.h"

typedef enum en_tok_t {
    T_END,
    T_IDENT,
    T_INT, /* value.u holds the magnitude; `big` when it is 2^63 exactly (only valid negated) */
    T_UINT,
    T_DOUBLE, /* outside the subset: a literal of unknown value */
    T_STRING,
    T_BYTES, /* outside the subset */
    T_PUNCT, /* text[0..len) is the operator */
} tok_t;

typedef GPA_VEC(char) text_t;

typedef struct st_parser_t {
    gpa_arena_t *a;
    const char *src;
    size_t len, pos;
    const char *path;
    gpa_error_t *err;
    int depth;
    /* the current token */
    tok_t tok;
    size_t at, tlen; /* where it starts, its length in the source */
    uint64_t num;
    int big;
    const char *str; /* T_STRING, T_BYTES: decoded */
    size_t slen;
} parser_t;

static int fail(parser_t *p, size_t at, const char *what)
{
    return gpa_error_set(p->err, 0, (unsigned)at + 1, p->path, "CEL syntax error at column %zu: %s", at + 1, what);
}

/* ---- the lexer ---- */

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void put_utf8(text_t *out, gpa_arena_t *a, uint32_t cp)
{
    if (cp < 0x80) {
        *gpa_vec_push(a, out) = (char)cp;
    } else if (cp < 0x800) {
        *gpa_vec_push(a, out) = (char)(0xC0 | (cp >> 6));
        *gpa_vec_push(a, out) = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *gpa_vec_push(a, out) = (char)(0xE0 | (cp >> 12));
        *gpa_vec_push(a, out) = (char)(0x80 | ((cp >> 6) & 0x3F));
        *gpa_vec_push(a, out) = (char)(0x80 | (cp & 0x3F));
    } else {
        *gpa_vec_push(a, out) = (char)(0xF0 | (cp >> 18));
        *gpa_vec_push(a, out) = (char)(0x80 | ((cp >> 12) & 0x3F));
        *gpa_vec_push(a, out) = (char)(0x80 | ((cp >> 6) & 0x3F));
        *gpa_vec_push(a, out) = (char)(0x80 | (cp & 0x3F));
    }
}

/* One escape after the backslash at s[*i - 1]; appends what it stands for. */
static int lex_escape(parser_t *p, size_t *i, int bytes, text_t *out)
{
    static const char simple_in[] = "abfnrtv\\'\"`?", simple_out[] = "\a\b\f\n\r\t\v\\'\"`?";
    const char *s = p->src;
    if (*i >= p->len)
        return fail(p, *i, "unterminated escape");
    char c = s[(*i)++];
    const char *k = c != '\0' ? strchr(simple_in, c) : NULL;
    if (k != NULL) {
        *gpa_vec_push(p->a, out) = simple_out[k - simple_in];
        return 0;
    }
    int digits = c == 'x' || c == 'X' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    uint32_t cp = 0;
    if (digits == 0) {
        if (c < '0' || c > '3' || *i + 2 > p->len || s[*i] < '0' || s[*i] > '7' || s[*i + 1] < '0' || s[*i + 1] > '7')
            return fail(p, *i - 1, "invalid escape sequence");
        cp = (uint32_t)((c - '0') * 64 + (s[*i] - '0') * 8 + (s[*i + 1] - '0'));
        *i += 2;
    } else {
        for (int d = 0; d < digits; d++, (*i)++) {
            int h = *i < p->len ? hex_value(s[*i]) : -1;
            if (h < 0)
                return fail(p, *i, "invalid hexadecimal escape");
            cp = cp * 16 + (uint32_t)h;
        }
    }
    if (bytes && digits <= 2) { /* a byte, not a code point */
        *gpa_vec_push(p->a, out) = (char)cp;
        return 0;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(p, *i - 1, "escape is not a Unicode code point");
    put_utf8(out, p->a, cp);
    return 0;
}

/* A string or bytes literal whose prefix (r, b, both) ends before s[i], quote at s[i]. */
static int lex_string(parser_t *p, size_t i, int raw, int bytes)
{
    const char *s = p->src;
    char q = s[i];
    int triple = i + 2 < p->len && s[i + 1] == q && s[i + 2] == q;
    size_t start = p->at;
    i += triple ? 3 : 1;
    text_t out = {0};
    for (;;) {
        if (i >= p->len)
            return fail(p, start, "unterminated string");
        if (s[i] == q && (!triple || (i + 2 < p->len && s[i + 1] == q && s[i + 2] == q))) {
            i += triple ? 3 : 1;
            break;
        }
        if (!triple && (s[i] == '\n' || s[i] == '\r'))
            return fail(p, i, "newline in a string literal (use a triple-quoted string)");
        if (s[i] == '\\' && !raw) {
            i++;
            if (lex_escape(p, &i, bytes, &out) != 0)
                return -1;
            continue;
        }
        *gpa_vec_push(p->a, &out) = s[i++];
    }
    *gpa_vec_push(p->a, &out) = '\0';
    p->tok = bytes ? T_BYTES : T_STRING;
    p->str = out.items;
    p->slen = out.len - 1;
    p->pos = i;
    return 0;
}

/* Digits of a double from s[i] on (the fraction after '.', then an exponent): outside the subset, skipped. */
static int lex_double(parser_t *p, size_t start, size_t i)
{
    const char *s = p->src;
    if (i < p->len && s[i] == '.')
        for (i++; i < p->len && is_digit(s[i]); i++)
            ;
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(s[i]))
            return fail(p, start, "exponent with no digits");
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    p->tok = T_DOUBLE;
    p->pos = i;
    return 0;
}

/* A number at s[i]: int, uint (u suffix), hex int, or a double (fraction or exponent: outside the subset). */
static int lex_number(parser_t *p, size_t i)
{
    const char *s = p->src;
    size_t start = i;
    uint64_t v = 0;
    int overflow = 0;
    if (s[i] == '.')
        return lex_double(p, start, i);
    if (s[i] == '0' && i + 1 < p->len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        if (i >= p->len || hex_value(s[i]) < 0)
            return fail(p, start, "hexadecimal literal with no digits");
        for (; i < p->len && hex_value(s[i]) >= 0; i++) {
            overflow |= v > (UINT64_MAX >> 4);
            v = v * 16 + (uint64_t)hex_value(s[i]);
        }
    } else {
        for (; i < p->len && is_digit(s[i]); i++) {
            uint64_t d = (uint64_t)(s[i] - '0');
            overflow |= v > (UINT64_MAX - d) / 10;
            v = v * 10 + d;
        }
        if ((i + 1 < p->len && s[i] == '.' && is_digit(s[i + 1])) || (i < p->len && (s[i] == 'e' || s[i] == 'E')))
            return lex_double(p, start, i);
    }
    if (overflow)
        return fail(p, start, "integer literal out of range");
    p->tok = T_INT;
    if (i < p->len && (s[i] == 'u' || s[i] == 'U')) {
        p->tok = T_UINT;
        i++;
    } else if (v > (uint64_t)INT64_MAX) {
        if (v != (uint64_t)INT64_MAX + 1)
            return fail(p, start, "integer literal out of range");
        p->big = 1;
    }
    p->num = v;
    p->pos = i;
    return 0;
}

static int lex_punct(parser_t *p, size_t i)
{
    static const char *const two[] = {"<=", ">=", "==", "!=", "&&", "||", ".?", "[?"};
    static const char one[] = "()[]{}.,:?!-+*/%<>";
    for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++)
        if (i + 1 < p->len && p->src[i] == two[k][0] && p->src[i + 1] == two[k][1]) {
            p->tok = T_PUNCT, p->tlen = 2, p->pos = i + 2;
            return 0;
        }
    if (p->src[i] == '\0' || strchr(one, p->src[i]) == NULL)
        return fail(p, i, "unexpected character");
    p->tok = T_PUNCT, p->tlen = 1, p->pos = i + 1;
    return 0;
}

/* Skips blanks and // comments, then reads the next token. */
static int lex(parser_t *p)
{
    const char *s = p->src;
    size_t i = p->pos;
    for (;;) {
        while (i < p->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f'))
            i++;
        if (i + 1 < p->len && s[i] == '/' && s[i + 1] == '/') {
            while (i < p->len && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    p->at = i, p->big = 0;
    if (i >= p->len) {
        p->tok = T_END, p->tlen = 0, p->pos = i;
        return 0;
    }
    char c = s[i];
    if (is_ident_start(c)) {
        size_t j = i;
        while (j < p->len && (is_ident_start(s[j]) || is_digit(s[j])))
            j++;
        int r = 0, b = 0; /* a string's prefix: r (raw), b (bytes), or both, in either order and case */
        for (size_t k = i; k < j && j - i <= 2; k++) {
            r += s[k] == 'r' || s[k] == 'R';
            b += s[k] == 'b' || s[k] == 'B';
        }
        if (r <= 1 && b <= 1 && (size_t)(r + b) == j - i && j < p->len && (s[j] == '"' || s[j] == '\''))
            return lex_string(p, j, r, b);
        p->tok = T_IDENT, p->tlen = j - i, p->pos = j;
        return 0;
    }
    if (is_digit(c) || (c == '.' && i + 1 < p->len && is_digit(s[i + 1])))
        return lex_number(p, i);
    if (c == '"' || c == '\'')
        return lex_string(p, i, 0, 0);
    return lex_punct(p, i);
}

/* The next token; after an error the current one is the end, so that nothing reads a token that was not read. */
static int next(parser_t *p)
{
    if (lex(p) == 0)
        return 0;
    p->tok = T_END, p->tlen = 0;
    return -1;
}

static int is_punct(const parser_t *p, const char *op)
{
    size_t n = strlen(op);
    return p->tok == T_PUNCT && p->tlen == n && memcmp(p->src + p->at, op, n) == 0;
}

static int is_word(const parser_t *p, const char *w)
{
    size_t n = strlen(w);
    return p->tok == T_IDENT && p->tlen == n && memcmp(p->src + p->at, w, n) == 0;
}

static int expect(parser_t *p, const char *op)
{
    if (!is_punct(p, op))
        return fail(p, p->at, gpa_arena_printf(p->a, "expected '%s'", op));
    return next(p);
}

/* ---- the tree ---- */

static gpa_cel_node_t *node(parser_t *p, gpa_cel_node_kind_t kind, size_t at)
{
    gpa_cel_node_t *n = gpa_arena_calloc(p->a, 1, sizeof(*n));
    n->kind = kind;
    n->column = (unsigned)at + 1;
    return n;
}

static gpa_cel_node_t *call(parser_t *p, gpa_cel_op_t op, size_t at, const gpa_cel_node_t *x, const gpa_cel_node_t *y)
{
    gpa_cel_node_t *n = node(p, GPA_CEL_N_CALL, at);
    n->op = op;
    n->nargs = y != NULL ? 2 : 1;
    const gpa_cel_node_t **args = gpa_arena_calloc(p->a, n->nargs, sizeof(*args));
    args[0] = x;
    if (y != NULL)
        args[1] = y;
    n->args = args;
    return n;
}

typedef GPA_VEC(const gpa_cel_node_t *) nodes_t;

static void set_args(gpa_cel_node_t *n, const nodes_t *v)
{
    n->args = v->items;
    n->nargs = v->len;
}

static const gpa_cel_node_t *expr(parser_t *p);

/* Expressions separated by commas up to `close`, into v; a list literal (`trailing`) allows a trailing comma and
 * optional elements (`?e`). */
static int list_until(parser_t *p, const char *close, int trailing, nodes_t *v)
{
    while (!is_punct(p, close)) {
        if (trailing && is_punct(p, "?") && next(p) != 0)
            return -1;
        const gpa_cel_node_t *e = expr(p);
        if (e == NULL)
            return -1;
        *gpa_vec_push(p->a, v) = e;
        if (!is_punct(p, ","))
            break;
        if (next(p) != 0)
            return -1;
        if (!trailing && is_punct(p, close))
            return fail(p, p->at, "expression expected after ','");
    }
    return expect(p, close);
}

/* The has() macro takes one field selection: has(m.f) tests presence, evaluating nothing else. */
static const gpa_cel_node_t *macro_has(parser_t *p, gpa_cel_node_t *n)
{
    if (n->nargs != 1 || n->args[0]->kind != GPA_CEL_N_SELECT || n->args[0]->optional)
        return fail(p, n->column - 1, "has() takes one field selection, such as has(m.f)"), NULL;
    gpa_cel_node_t *sel = gpa_arena_calloc(p->a, 1, sizeof(*sel));
    *sel = *n->args[0];
    sel->test = 1;
    return sel;
}

/* An identifier, a global call, or a message literal; `dot` when it was written with a leading '.'. */
static const gpa_cel_node_t *ident_or_call(parser_t *p, size_t at, int dot)
{
    static const char *const reserved[] = {"as",  "break", "const",   "continue",  "else",   "for", "function", "if", "import",
                                           "let", "loop",  "package", "namespace", "return", "var", "void",     "in"};
    if (p->tok != T_IDENT)
        return fail(p, p->at, "identifier expected"), NULL;
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (is_word(p, reserved[i]))
            return fail(p, p->at, gpa_arena_printf(p->a, "'%s' is a reserved word", reserved[i])), NULL;
    gpa_cel_node_t *n = node(p, GPA_CEL_N_IDENT, at);
    n->name = gpa_arena_strndup(p->a, p->src + p->at - (size_t)dot, p->tlen + (size_t)dot);
    n->name_len = p->tlen + (size_t)dot;
    if (next(p) != 0)
        return NULL;
    if (!is_punct(p, "("))
        return n;
    nodes_t args = {0};
    if (next(p) != 0 || list_until(p, ")", 0, &args) != 0)
        return NULL;
    n->kind = GPA_CEL_N_CALL;
    n->op = GPA_CEL_OP_CALL;
    set_args(n, &args);
    if (!dot && n->name_len == 3 && memcmp(n->name, "has", 3) == 0)
        return macro_has(p, n);
    return n;
}

/* { key: value, ... } with optional `?key` entries; or, after a name, { field: value } (a message). */
static const gpa_cel_node_t *entries(parser_t *p, gpa_cel_node_t *n)
{
    nodes_t kv = {0};
    if (next(p) != 0)
        return NULL;
    while (!is_punct(p, "}")) {
        if (is_punct(p, "?") && next(p) != 0)
            return NULL;
        const gpa_cel_node_t *k = n->kind == GPA_CEL_N_STRUCT ? ident_or_call(p, p->at, 0) : expr(p), *v;
        if (k == NULL || expect(p, ":") != 0 || (v = expr(p)) == NULL)
            return NULL;
        *gpa_vec_push(p->a, &kv) = k;
        *gpa_vec_push(p->a, &kv) = v;
        if (!is_punct(p, ","))
            break;
        if (next(p) != 0)
            return NULL;
    }
    if (expect(p, "}") != 0)
        return NULL;
    set_args(n, &kv);
    return n;
}

static const gpa_cel_node_t *literal(parser_t *p)
{
    gpa_cel_node_t *n = node(p, GPA_CEL_N_LITERAL, p->at);
    switch (p->tok) {
    case T_INT:
        if (p->big)
            return fail(p, p->at, "integer literal out of range"), NULL;
        n->value = gpa_cel_int((int64_t)p->num);
        break;
    case T_UINT:
        n->value = (gpa_cel_value_t){.kind = GPA_CEL_UINT, .u.u = p->num};
        break;
    case T_STRING:
        n->value = gpa_cel_string(p->str, p->slen);
        break;
    default: /* doubles and bytes: parsed, not evaluated */
        n->value = (gpa_cel_value_t){.kind = GPA_CEL_UNKNOWN};
        break;
    }
    return next(p) != 0 ? NULL : n;
}

static const gpa_cel_node_t *primary(parser_t *p)
{
    size_t at = p->at;
    if (p->tok == T_IDENT) {
        if (is_word(p, "true") || is_word(p, "false") || is_word(p, "null")) {
            gpa_cel_node_t *n = node(p, GPA_CEL_N_LITERAL, at);
            n->value = is_word(p, "null") ? (gpa_cel_value_t){.kind = GPA_CEL_NULL} : gpa_cel_bool(is_word(p, "true"));
            return next(p) != 0 ? NULL : n;
        }
        return ident_or_call(p, at, 0);
    }
    if (p->tok != T_PUNCT)
        return p->tok == T_END ? (fail(p, at, "unexpected end of expression"), NULL) : literal(p);
    if (is_punct(p, ".")) {
        if (next(p) != 0)
            return NULL;
        return ident_or_call(p, at, 1);
    }
    if (is_punct(p, "(")) {
        const gpa_cel_node_t *e;
        if (next(p) != 0 || (e = expr(p)) == NULL || expect(p, ")") != 0)
            return NULL;
        return e;
    }
    if (is_punct(p, "[") || is_punct(p, "[?")) {
        gpa_cel_node_t *n = node(p, GPA_CEL_N_LIST, at);
        nodes_t items = {0};
        p->pos = p->at + 1; /* "[?e": the '?' is the first element's */
        if (next(p) != 0 || list_until(p, "]", 1, &items) != 0)
            return NULL;
        set_args(n, &items);
        return n;
    }
    if (is_punct(p, "{"))
        return entries(p, node(p, GPA_CEL_N_MAP, at));
    return fail(p, at, "expression expected"), NULL;
}

/* Whether n is a name (an identifier, or a select chain of them): only a name may start a message literal. */
static int is_name(const gpa_cel_node_t *n)
{
    while (n->kind == GPA_CEL_N_SELECT && !n->optional)
        n = n->args[0];
    return n->kind == GPA_CEL_N_IDENT;
}

static const gpa_cel_node_t *member(parser_t *p)
{
    const gpa_cel_node_t *n = primary(p);
    while (n != NULL) {
        size_t at = p->at;
        if (is_punct(p, ".") || is_punct(p, ".?")) {
            int optional = p->tlen == 2;
            if (next(p) != 0 || p->tok != T_IDENT)
                return p->tok != T_IDENT ? (fail(p, p->at, "field name expected"), NULL) : NULL;
            gpa_cel_node_t *s = node(p, GPA_CEL_N_SELECT, at);
            s->optional = optional;
            s->name = gpa_arena_strndup(p->a, p->src + p->at, p->tlen);
            s->name_len = p->tlen;
            if (next(p) != 0)
                return NULL;
            nodes_t args = {0};
            *gpa_vec_push(p->a, &args) = n;
            if (!optional && is_punct(p, "(")) { /* a receiver call: target.name(args) */
                if (next(p) != 0 || list_until(p, ")", 0, &args) != 0)
                    return NULL;
                s->kind = GPA_CEL_N_CALL;
                s->receiver = 1;
            }
            set_args(s, &args);
            n = s;
        } else if (is_punct(p, "[") || is_punct(p, "[?")) {
            gpa_cel_node_t *x = node(p, GPA_CEL_N_INDEX, at);
            x->optional = p->tlen == 2;
            const gpa_cel_node_t *i;
            if (next(p) != 0 || (i = expr(p)) == NULL || expect(p, "]") != 0)
                return NULL;
            const gpa_cel_node_t **args = gpa_arena_calloc(p->a, 2, sizeof(*args));
            args[0] = n, args[1] = i;
            x->args = args, x->nargs = 2;
            n = x;
        } else if (is_punct(p, "{") && is_name(n)) {
            gpa_cel_node_t *m = node(p, GPA_CEL_N_STRUCT, at);
            const gpa_cel_node_t **args = gpa_arena_calloc(p->a, 1, sizeof(*args));
            args[0] = n;
            m->args = args, m->nargs = 1;
            n = entries(p, m);
        } else {
            break;
        }
    }
    return n;
}

static const gpa_cel_node_t *unary(parser_t *p)
{
    size_t at = p->at;
    if ((is_punct(p, "!") || is_punct(p, "-")) && ++p->depth > GPA_CEL_MAX_DEPTH)
        return fail(p, p->at, "expression nests too deeply"), NULL;
    if (is_punct(p, "!")) {
        const gpa_cel_node_t *x;
        if (next(p) != 0 || (x = unary(p)) == NULL)
            return NULL;
        p->depth--;
        return call(p, GPA_CEL_OP_NOT, at, x, NULL);
    }
    if (is_punct(p, "-")) {
        if (next(p) != 0)
            return NULL;
        p->depth--;
        if (p->tok == T_INT) { /* a negative literal: -9223372036854775808 is the one int written past INT64_MAX */
            gpa_cel_node_t *n = node(p, GPA_CEL_N_LITERAL, at);
            n->value = gpa_cel_int(p->big ? INT64_MIN : -(int64_t)p->num);
            return next(p) != 0 ? NULL : n;
        }
        p->depth++;
        const gpa_cel_node_t *x = unary(p);
        p->depth--;
        return x != NULL ? call(p, GPA_CEL_OP_NEG, at, x, NULL) : NULL;
    }
    return member(p);
}

typedef struct st_level_t {
    const char *op;
    gpa_cel_op_t code;
} level_t;

static const level_t mul_ops[] = {{"*", GPA_CEL_OP_MUL}, {"/", GPA_CEL_OP_DIV}, {"%", GPA_CEL_OP_MOD}, {NULL, 0}};
static const level_t add_ops[] = {{"+", GPA_CEL_OP_ADD}, {"-", GPA_CEL_OP_SUB}, {NULL, 0}};
static const level_t rel_ops[] = {{"<=", GPA_CEL_OP_LE}, {">=", GPA_CEL_OP_GE}, {"==", GPA_CEL_OP_EQ}, {"!=", GPA_CEL_OP_NE},
                                  {"<", GPA_CEL_OP_LT},  {">", GPA_CEL_OP_GT},  {"in", GPA_CEL_OP_IN}, {NULL, 0}};
static const level_t and_ops[] = {{"&&", GPA_CEL_OP_AND}, {NULL, 0}};
static const level_t or_ops[] = {{"||", GPA_CEL_OP_OR}, {NULL, 0}};
static const level_t *const levels[] = {or_ops, and_ops, rel_ops, add_ops, mul_ops};

/* Binary operators of levels[k] and below, left-associative. */
static const gpa_cel_node_t *binary(parser_t *p, size_t k)
{
    if (k == sizeof(levels) / sizeof(levels[0]))
        return unary(p);
    const gpa_cel_node_t *x = binary(p, k + 1);
    while (x != NULL) {
        const level_t *l = levels[k];
        while (l->op != NULL && !(strcmp(l->op, "in") == 0 ? is_word(p, "in") : is_punct(p, l->op)))
            l++;
        if (l->op == NULL)
            return x;
        size_t at = p->at;
        const gpa_cel_node_t *y;
        if (next(p) != 0 || (y = binary(p, k + 1)) == NULL)
            return NULL;
        x = call(p, l->code, at, x, y);
    }
    return NULL;
}

static const gpa_cel_node_t *expr(parser_t *p)
{
    if (++p->depth > GPA_CEL_MAX_DEPTH)
        return fail(p, p->at, "expression nests too deeply"), NULL;
    const gpa_cel_node_t *c = binary(p, 0);
    if (c != NULL && is_punct(p, "?")) {
        size_t at = p->at;
        const gpa_cel_node_t *t, *f;
        if (next(p) != 0 || (t = binary(p, 0)) == NULL || expect(p, ":") != 0 || (f = expr(p)) == NULL)
            return NULL;
        gpa_cel_node_t *n = node(p, GPA_CEL_N_CALL, at);
        const gpa_cel_node_t **args = gpa_arena_calloc(p->a, 3, sizeof(*args));
        args[0] = c, args[1] = t, args[2] = f;
        n->op = GPA_CEL_OP_COND, n->args = args, n->nargs = 3;
        c = n;
    }
    p->depth--;
    return c;
}

int gpa_cel_parse(gpa_arena_t *a, const char *src, size_t len, const char *path, const gpa_cel_node_t **out, gpa_error_t *err)
{
    parser_t p = {.a = a, .src = src, .len = len, .path = path != NULL ? path : "", .err = err};
    *out = NULL;
    if (len > GPA_CEL_MAX_SOURCE)
        return gpa_error_set(err, 0, 0, p.path, "CEL expression of %zu bytes: longer than %d", len, GPA_CEL_MAX_SOURCE);
    if (next(&p) != 0)
        return -1;
    const gpa_cel_node_t *e = expr(&p);
    if (e == NULL)
        return -1;
    if (p.tok != T_END)
        return fail(&p, p.at, "unexpected text after the expression");
    *out = e;
    return 0;
}
