/*
 * YAML into the arena tree, from libyaml's event parser.
 *
 * Plain scalars resolve as sigs.k8s.io/yaml (go-yaml v2) resolves them when decoding into interface{}, which
 * is how kubectl and kube-apiserver read YAML:
 *   - "", ~, null, Null, NULL                             -> null
 *   - y Y yes Yes YES on On ON true True TRUE (and the n/no/off/false forms) -> bool
 *   - integers (underscores ignored; decimal, 0x hex, 0o or leading-0 octal, 0b binary, optional sign)
 *     -> numbers, their text rewritten to plain decimal so that the tree is always valid JSON
 *   - floats ([-+]?(.d+|d+(.d*)?)([eE][-+]?d+)?) -> numbers, their text minimally rewritten to valid JSON
 *     ("+1.5" -> "1.5", ".5" -> "0.5", "007.0" -> "7.0", "1." -> "1"); digits are otherwise kept as written
 *     (go-yaml would reformat through float64, e.g. "1.0" -> 1; we never round-trip through floating point).
 *     A decimal integer beyond 64 bits is such a float: it keeps its digits. A float beyond float64's range
 *     stays a string, as in go-yaml.
 *   - .inf, .nan and their forms are errors: Kubernetes cannot encode them as JSON either.
 *   - everything else, timestamps included (go-yaml v2 keeps those as strings for interface{}), -> string.
 * Quoted and block scalars are strings. Keys that resolve to another type become their JSON text ("true",
 * "1", "null"); a collection as a key is an error.
 *
 * Aliases share the anchored node. Expansion is bounded (MAX_ALIAS_EXPANSION nodes seen through aliases per
 * document, and depth GPA_MAX_DEPTH of the expanded tree) so an alias bomb is an error, not a hang. Merge
 * keys (plain `<<`) merge a mapping or a list of mappings as go-yaml v2 does: entries apply in document order
 * and the last write of a key wins (a key before the `<<` is overwritten by a merged one, a key after it
 * wins); within a list of sources, earlier sources win over later.
 * Tags: the core schema's (!!str !!int !!float !!bool !!null !!map !!seq) and the non-specific "!"; any other
 * tag is an error.
 */
#include "document/yaml.h"

#include "base/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_ALIAS_EXPANSION 1000000
#define TAG_PREFIX "tag:yaml.org,2002:"

/* The plain `<<` key is told apart from a quoted "<<" by pointing at this very string. */
static const char MERGE_KEY[] = "<<";

typedef struct st_anchor_t {
    const char *name;
    gpa_value_t *node; /* NULL while the anchored collection is still open */
    size_t weight;     /* nodes in its expansion */
    unsigned height;
} anchor_t;

typedef struct st_frame_t {
    gpa_value_t *node;
    size_t base;     /* first child on the scratch stack */
    size_t weight;   /* 1 + the children's weights */
    unsigned height; /* 1 + the children's largest height */
    long anchor;     /* index into anchors, or -1 */
} frame_t;

typedef GPA_VEC(gpa_member_t) members_vec_t;
typedef GPA_VEC(gpa_value_t *) docs_vec_t;

typedef struct st_yparser_t {
    gpa_arena_t *a;
    gpa_error_t *err;
    const char *text;
    size_t len;
    unsigned line_base; /* lines before the text (a document read out of a larger stream) */
    yaml_parser_t parser;
    /* scratch: children of open collections (mapping children alternate key, value) with their weights */
    gpa_value_t **items;
    size_t *weights;
    unsigned *heights;
    size_t nitems, capitems;
    frame_t *frames;
    size_t nframes, capframes;
    anchor_t *anchors;
    size_t nanchors, capanchors;
    size_t *slots; /* open-addressing hash of anchor names -> index + 1 (0 = empty) */
    size_t nslots;
    size_t expansion; /* nodes seen through aliases in this document */
    gpa_value_t *root;
    size_t root_weight;
    unsigned root_height;
} yparser_t;

/* The 1-based line of a mark in the whole stream. */
static unsigned line_of(const yparser_t *y, yaml_mark_t mark)
{
    return y->line_base + (unsigned)mark.line + 1;
}

static int fail_mark(yparser_t *y, yaml_mark_t mark, const char *fmt, const char *arg)
{
    return gpa_error_set(y->err, line_of(y, mark), (unsigned)mark.column + 1, NULL, fmt, arg);
}

static gpa_value_t *new_node(yparser_t *y, gpa_vtype_t type, yaml_mark_t mark)
{
    gpa_value_t *v = gpa_arena_calloc(y->a, 1, sizeof(*v));
    v->type = type;
    v->line = line_of(y, mark);
    v->column = (unsigned)mark.column + 1;
    return v;
}

/* ---- anchors ---------------------------------------------------------------------------------------- */

static size_t hash_name(const char *s)
{
    return (size_t)gpa_hash_string(s);
}

static size_t *anchor_slot(yparser_t *y, const char *name)
{
    size_t mask = y->nslots - 1, i = hash_name(name) & mask;
    while (y->slots[i] != 0 && strcmp(y->anchors[y->slots[i] - 1].name, name) != 0)
        i = (i + 1) & mask;
    return &y->slots[i];
}

static void rehash(yparser_t *y)
{
    free(y->slots);
    y->nslots = y->nslots ? y->nslots * 2 : 64;
    y->slots = gpa_xcalloc(y->nslots, sizeof(*y->slots));
    for (size_t k = 0; k < y->nanchors; k++) {
        size_t *slot = anchor_slot(y, y->anchors[k].name);
        if (*slot == 0 || *slot < k + 1)
            *slot = k + 1;
    }
}

/* Defines (or redefines: YAML allows it, later aliases see the newest) an anchor; returns its index. */
static long anchor_define(yparser_t *y, const char *name)
{
    if (y->nanchors == y->capanchors) {
        y->capanchors = y->capanchors ? y->capanchors * 2 : 16;
        y->anchors = gpa_xrealloc(y->anchors, y->capanchors * sizeof(*y->anchors));
    }
    anchor_t *an = &y->anchors[y->nanchors++];
    an->name = gpa_arena_strdup(y->a, name);
    an->node = NULL;
    an->weight = 0;
    an->height = 0;
    if (y->nanchors * 2 > y->nslots)
        rehash(y);
    else
        *anchor_slot(y, name) = y->nanchors;
    return (long)y->nanchors - 1;
}

static anchor_t *anchor_find(yparser_t *y, const char *name)
{
    if (y->nslots == 0)
        return NULL;
    size_t slot = *anchor_slot(y, name);
    return slot ? &y->anchors[slot - 1] : NULL;
}

static void anchor_close(yparser_t *y, long index, gpa_value_t *node, size_t weight, unsigned height)
{
    if (index < 0)
        return;
    y->anchors[index].node = node;
    y->anchors[index].weight = weight;
    y->anchors[index].height = height;
}

/* ---- building --------------------------------------------------------------------------------------- */

/* Hands a finished node to its parent collection, or makes it the document's root. */
static int add_node(yparser_t *y, gpa_value_t *v, size_t weight, unsigned height, yaml_mark_t mark)
{
    if (y->nframes == 0) {
        y->root = v;
        y->root_weight = weight;
        y->root_height = height;
        return 0;
    }
    frame_t *f = &y->frames[y->nframes - 1];
    f->weight += weight;
    if (height + 1 > f->height)
        f->height = height + 1;
    if (f->height > GPA_MAX_DEPTH)
        return gpa_error_set(y->err, line_of(y, mark), (unsigned)mark.column + 1, NULL,
                             "nesting too deep once aliases are expanded (more than %d levels)", GPA_MAX_DEPTH);
    if (y->nitems == y->capitems) {
        y->capitems = y->capitems ? y->capitems * 2 : 64;
        y->items = gpa_xrealloc(y->items, y->capitems * sizeof(*y->items));
        y->weights = gpa_xrealloc(y->weights, y->capitems * sizeof(*y->weights));
        y->heights = gpa_xrealloc(y->heights, y->capitems * sizeof(*y->heights));
    }
    y->items[y->nitems] = v;
    y->weights[y->nitems] = weight;
    y->heights[y->nitems] = height;
    y->nitems++;
    return 0;
}

static int check_tag(yparser_t *y, const yaml_char_t *tag, const char *const *allowed, yaml_mark_t mark)
{
    if (tag == NULL || strcmp((const char *)tag, "!") == 0)
        return 0;
    const char *t = (const char *)tag;
    if (strncmp(t, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
        for (; *allowed != NULL; allowed++) {
            if (strcmp(t + strlen(TAG_PREFIX), *allowed) == 0)
                return 0;
        }
    }
    return fail_mark(y, mark, "unsupported YAML tag %s", t);
}

static int open_collection(yparser_t *y, gpa_vtype_t type, const yaml_char_t *anchor, const yaml_char_t *tag, yaml_mark_t mark)
{
    static const char *const map_tags[] = {"map", NULL}, *const seq_tags[] = {"seq", NULL};
    if (check_tag(y, tag, type == GPA_VOBJECT ? map_tags : seq_tags, mark) != 0)
        return -1;
    if (y->nframes >= GPA_MAX_DEPTH)
        return gpa_error_set(y->err, line_of(y, mark), (unsigned)mark.column + 1, NULL, "nesting too deep (more than %d levels)",
                             GPA_MAX_DEPTH);
    if (y->nframes == y->capframes) {
        y->capframes = y->capframes ? y->capframes * 2 : 16;
        y->frames = gpa_xrealloc(y->frames, y->capframes * sizeof(*y->frames));
    }
    frame_t *f = &y->frames[y->nframes++];
    f->node = new_node(y, type, mark);
    f->base = y->nitems;
    f->weight = 1;
    f->height = 1;
    f->anchor = anchor != NULL ? anchor_define(y, (const char *)anchor) : -1;
    return 0;
}

static int close_sequence(yparser_t *y, yaml_mark_t mark)
{
    frame_t f = y->frames[--y->nframes];
    size_t n = y->nitems - f.base;
    f.node->u.array.len = n;
    if (n != 0) {
        f.node->u.array.items = gpa_arena_alloc(y->a, n * sizeof(gpa_value_t *));
        memcpy(f.node->u.array.items, y->items + f.base, n * sizeof(gpa_value_t *));
    }
    y->nitems = f.base;
    anchor_close(y, f.anchor, f.node, f.weight, f.height);
    return add_node(y, f.node, f.weight, f.height, mark);
}

/* The JSON text of a scalar key of another type; collections cannot be keys. */
static int key_text(yparser_t *y, const gpa_value_t *k, gpa_member_t *m)
{
    switch (k->type) {
    case GPA_VSTRING:
    case GPA_VNUMBER:
        m->key = k->u.str.ptr;
        m->key_len = k->u.str.len;
        return 0;
    case GPA_VBOOL:
        m->key = k->u.boolean ? "true" : "false";
        m->key_len = strlen(m->key);
        return 0;
    case GPA_VNULL:
        m->key = "null";
        m->key_len = 4;
        return 0;
    default:
        return gpa_error_set(y->err, k->line, k->column, NULL, "a mapping key must be a scalar, not a %s",
                             k->type == GPA_VOBJECT ? "mapping" : "sequence");
    }
}

/* Appends the members a merge key brings (a mapping, or a list of mappings, later ones first). */
static int merge_sources(yparser_t *y, const gpa_value_t *v, members_vec_t *out)
{
    if (v->type == GPA_VOBJECT) {
        for (size_t i = 0; i < v->u.object.len; i++)
            *gpa_vec_push(y->a, out) = v->u.object.members[i];
        return 0;
    }
    if (v->type == GPA_VARRAY) {
        for (size_t i = v->u.array.len; i > 0; i--) {
            const gpa_value_t *src = v->u.array.items[i - 1];
            if (src->type != GPA_VOBJECT)
                return gpa_error_set(y->err, src->line, src->column, NULL, "a merge (<<) list may only hold mappings");
            for (size_t k = 0; k < src->u.object.len; k++)
                *gpa_vec_push(y->a, out) = src->u.object.members[k];
        }
        return 0;
    }
    return gpa_error_set(y->err, v->line, v->column, NULL, "a merge (<<) value must be a mapping or a list of mappings");
}

static int is_merge_key(const gpa_value_t *k)
{
    return k->type == GPA_VSTRING && k->u.str.ptr == MERGE_KEY;
}

/*
 * Members in document order, a merge key standing for the members it brings, then duplicates removed keeping
 * the last: go-yaml v2 (and so kubectl) writes each entry into the map in turn, so a key given before a `<<`
 * that brings the same key is overwritten by the merged value, and one given after it wins.
 */
static int close_mapping(yparser_t *y, yaml_mark_t mark)
{
    frame_t f = y->frames[--y->nframes];
    size_t n = (y->nitems - f.base) / 2, nmerge = 0;
    for (size_t i = 0; i < n; i++)
        nmerge += is_merge_key(y->items[f.base + 2 * i]);
    members_vec_t all = {0};
    gpa_member_t *own = n ? gpa_arena_alloc(y->a, n * sizeof(gpa_member_t)) : NULL;
    size_t nown = 0;
    for (size_t i = 0; i < n; i++) {
        const gpa_value_t *k = y->items[f.base + 2 * i];
        gpa_value_t *v = y->items[f.base + 2 * i + 1];
        if (is_merge_key(k)) {
            if (merge_sources(y, v, &all) != 0)
                return -1;
            continue;
        }
        gpa_member_t *m = nmerge != 0 ? gpa_vec_push(y->a, &all) : &own[nown++];
        m->value = v;
        if (key_text(y, k, m) != 0)
            return -1;
    }
    y->nitems = f.base;
    if (nmerge != 0) {
        own = all.items;
        nown = all.len;
    }
    f.node->u.object.len = gpa_members_dedupe(own, nown);
    f.node->u.object.members = f.node->u.object.len ? own : NULL;
    anchor_close(y, f.anchor, f.node, f.weight, f.height);
    return add_node(y, f.node, f.weight, f.height, mark);
}

static int on_alias(yparser_t *y, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    anchor_t *an = anchor_find(y, name);
    if (an == NULL)
        return fail_mark(y, ev->start_mark, "unknown alias *%s", name);
    if (an->node == NULL)
        return fail_mark(y, ev->start_mark, "alias *%s refers to a collection that contains it", name);
    y->expansion += an->weight;
    if (y->expansion > MAX_ALIAS_EXPANSION)
        return fail_mark(y, ev->start_mark, "too much aliasing: the document expands beyond 1000000 nodes (at *%s)", name);
    return add_node(y, an->node, an->weight, an->height, ev->start_mark);
}

/* ---- scalars ---------------------------------------------------------------------------------------- */

static int is_one_of(const char *s, size_t n, const char *const *words)
{
    for (; *words != NULL; words++) {
        if (strlen(*words) == n && memcmp(*words, s, n) == 0)
            return 1;
    }
    return 0;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/*
 * Go's strconv.ParseInt(s, 0, 64), falling back to ParseUint for large positive values. Writes the decimal
 * text to dst (room for 21 bytes) and returns its length, or 0 when s is not such an integer.
 */
static size_t resolve_int(const char *s, size_t n, char *dst)
{
    size_t i = 0;
    int neg = 0, base = 10;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (n - i >= 2 && s[i] == '0') {
        char c = s[i + 1];
        if (c == 'x' || c == 'X')
            base = 16, i += 2;
        else if (c == 'o' || c == 'O')
            base = 8, i += 2;
        else if (c == 'b' || c == 'B')
            base = 2, i += 2;
        else
            base = 8, i += 1;
    }
    if (i == n)
        return 0;
    uint64_t u = 0;
    for (; i < n; i++) {
        int d = digit_value(s[i]);
        if (d >= base)
            return 0;
        if (u > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return 0; /* beyond 64 bits */
        u = u * (uint64_t)base + (uint64_t)d;
    }
    if (neg && u > (uint64_t)INT64_MAX + 1)
        return 0;
    char tmp[24];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    size_t len = 0;
    if (neg && !(k == 1 && tmp[0] == '0'))
        dst[len++] = '-';
    while (k > 0)
        dst[len++] = tmp[--k];
    dst[len] = '\0';
    return len;
}

/*
 * go-yaml's float pattern [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? rewritten to JSON number text
 * in dst (room for n + 2 bytes). Returns the length, or 0 when s does not match or is beyond float64.
 */
static size_t resolve_float(const char *s, size_t n, char *dst)
{
    size_t i = 0, len = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (s[i] == '-')
            dst[len++] = '-';
        i++;
    }
    size_t int_start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t int_end = i, frac_start = i, frac_end = i;
    if (i < n && s[i] == '.') {
        frac_start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        frac_end = i;
    }
    if (int_end == int_start && frac_end == frac_start)
        return 0; /* no digit at all */
    long exp = 0;
    size_t exp_start = i;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
            i++;
        }
        if (i == d)
            return 0;
        if (eneg)
            exp = -exp;
    }
    if (i != n)
        return 0;
    /* Beyond float64 (about 1.8e308) Go's ParseFloat fails and go-yaml keeps the text as a string. */
    size_t lead = int_start;
    while (lead < int_end && s[lead] == '0')
        lead++;
    if (lead < int_end && (long)(int_end - lead) - 1 + exp > 308)
        return 0;
    if (lead == int_end) { /* integer part zero: the first significant fraction digit decides */
        size_t f = frac_start;
        while (f < frac_end && s[f] == '0')
            f++;
        if (f < frac_end && exp - (long)(f - frac_start) - 1 > 308)
            return 0;
    }
    if (lead == int_end && frac_end == frac_start && exp_start == n)
        len = 0; /* "-0." is the integer 0: written "0", which reads back as itself ("-0" would not) */
    if (lead == int_end)
        dst[len++] = '0';
    memcpy(dst + len, s + lead, int_end - lead);
    len += int_end - lead;
    if (frac_end > frac_start) {
        dst[len++] = '.';
        memcpy(dst + len, s + frac_start, frac_end - frac_start);
        len += frac_end - frac_start;
    }
    memcpy(dst + len, s + exp_start, n - exp_start);
    len += n - exp_start;
    dst[len] = '\0';
    return len;
}

static gpa_value_t *number_node(yparser_t *y, const char *text, size_t len, yaml_mark_t mark)
{
    gpa_value_t *v = new_node(y, GPA_VNUMBER, mark);
    v->u.str.ptr = gpa_arena_strndup(y->a, text, len);
    v->u.str.len = len;
    return v;
}

/* Resolves a plain scalar's number forms; NULL when it is not one. */
static gpa_value_t *resolve_number(yparser_t *y, const char *s, size_t n, yaml_mark_t mark)
{
    char *plain = gpa_arena_alloc(y->a, n + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            plain[m++] = s[i];
    }
    char num[32];
    size_t len = resolve_int(plain, m, num);
    if (len != 0)
        return number_node(y, num, len, mark);
    char *fl = gpa_arena_alloc(y->a, m + 3);
    len = resolve_float(plain, m, fl);
    if (len != 0)
        return number_node(y, fl, len, mark);
    /* go-yaml's own binary fallback for "-0b..." is covered by resolve_int's prefix handling. */
    return NULL;
}

static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const trues[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
static const char *const falses[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
static const char *const specials[] = {".nan",  ".NaN",  ".NAN",  ".inf",  ".Inf",  ".INF", "+.inf",
                                       "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", NULL};

static int starts_number(const char *s, size_t n)
{
    return n != 0 && ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+' || s[0] == '.');
}

int gpa_yaml_plain_type(const char *s, size_t n)
{
    if (is_one_of(s, n, nulls))
        return GPA_VNULL;
    if (is_one_of(s, n, trues) || is_one_of(s, n, falses))
        return GPA_VBOOL;
    if (is_one_of(s, n, specials) || (n == 2 && memcmp(s, "<<", 2) == 0))
        return -1;
    if (!starts_number(s, n))
        return GPA_VSTRING;
    /* room for the underscore-free copy and, after it, resolve_float's output (n + 2 bytes) */
    char small[256], *plain = 2 * n + 3 <= sizeof(small) ? small : gpa_xmalloc(2 * n + 3), num[32];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            plain[m++] = s[i];
    }
    int number = resolve_int(plain, m, num) != 0 || resolve_float(plain, m, plain + m) != 0;
    if (plain != small)
        free(plain);
    return number ? GPA_VNUMBER : GPA_VSTRING;
}

/* Whether a plain scalar could be one of the words above: all are at most 5 bytes and start with one of these. */
static int may_be_word(const char *s, size_t n)
{
    return n == 0 || (n <= 5 && strchr("~nNtTfFyYoO.+-", s[0]) != NULL);
}

static int resolve_plain(yparser_t *y, const char *s, size_t n, yaml_mark_t mark, gpa_value_t **out)
{
    *out = NULL;
    if (!may_be_word(s, n)) {
        /* Most scalars are names, images and quantities: one test decides they are not null, bool or special. */
        if (starts_number(s, n))
            *out = resolve_number(y, s, n, mark);
        return 0;
    }
    if (is_one_of(s, n, nulls)) {
        *out = new_node(y, GPA_VNULL, mark);
        return 0;
    }
    if (is_one_of(s, n, trues) || is_one_of(s, n, falses)) {
        *out = new_node(y, GPA_VBOOL, mark);
        (*out)->u.boolean = is_one_of(s, n, trues);
        return 0;
    }
    if (is_one_of(s, n, specials))
        return fail_mark(y, mark, "%s cannot be represented in JSON (Kubernetes rejects infinities and NaN)",
                         gpa_arena_strndup(y->a, s, n));
    *out = NULL;
    if (starts_number(s, n))
        *out = resolve_number(y, s, n, mark);
    return 0;
}

static gpa_value_t *string_node(yparser_t *y, const char *s, size_t n, yaml_mark_t mark)
{
    gpa_value_t *v = new_node(y, GPA_VSTRING, mark);
    v->u.str.ptr = gpa_arena_strndup(y->a, s, n);
    v->u.str.len = n;
    return v;
}

/* A scalar with an explicit core tag must read as that type. */
static int tagged_scalar(yparser_t *y, const char *tag, const char *s, size_t n, yaml_mark_t mark, gpa_value_t **out)
{
    if (strcmp(tag, "str") == 0) {
        *out = string_node(y, s, n, mark);
        return 0;
    }
    if (resolve_plain(y, s, n, mark, out) != 0)
        return -1;
    gpa_vtype_t want = strcmp(tag, "null") == 0 ? GPA_VNULL : strcmp(tag, "bool") == 0 ? GPA_VBOOL : GPA_VNUMBER;
    int ok = *out != NULL && (*out)->type == want;
    if (ok && strcmp(tag, "int") == 0) {
        char plain[64], num[32];
        size_t m = 0;
        for (size_t i = 0; i < n && m < sizeof(plain); i++) {
            if (s[i] != '_')
                plain[m++] = s[i];
        }
        ok = m < sizeof(plain) && resolve_int(plain, m, num) != 0;
    }
    if (!ok)
        return fail_mark(y, mark, "the value cannot be read as !!%s", tag);
    return 0;
}

static int on_scalar(yparser_t *y, const yaml_event_t *ev)
{
    static const char *const scalar_tags[] = {"str", "int", "float", "bool", "null", NULL};
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const yaml_char_t *tag = ev->data.scalar.tag;
    yaml_mark_t mark = ev->start_mark;
    if (check_tag(y, tag, scalar_tags, mark) != 0)
        return -1;
    gpa_value_t *v = NULL;
    if (tag != NULL && strcmp((const char *)tag, "!") != 0) {
        if (tagged_scalar(y, (const char *)tag + strlen(TAG_PREFIX), s, n, mark, &v) != 0)
            return -1;
    } else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == NULL) {
        if (n == 2 && memcmp(s, "<<", 2) == 0 && y->nframes != 0 && y->frames[y->nframes - 1].node->type == GPA_VOBJECT &&
            (y->nitems - y->frames[y->nframes - 1].base) % 2 == 0) {
            v = new_node(y, GPA_VSTRING, mark);
            v->u.str.ptr = MERGE_KEY;
            v->u.str.len = 2;
        } else if (resolve_plain(y, s, n, mark, &v) != 0) {
            return -1;
        }
    }
    if (v == NULL)
        v = string_node(y, s, n, mark);
    if (ev->data.scalar.anchor != NULL) {
        long k = anchor_define(y, (const char *)ev->data.scalar.anchor);
        anchor_close(y, k, v, 1, 0);
    }
    return add_node(y, v, 1, 0, mark);
}

/* ---- the event loop --------------------------------------------------------------------------------- */

static int parser_error(yparser_t *y)
{
    const yaml_parser_t *p = &y->parser;
    yaml_mark_t mark = p->problem_mark;
    const char *problem = p->problem != NULL ? p->problem : "invalid YAML";
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors (bad encoding) carry a byte offset, not a mark: find its line and column. */
        size_t off = p->problem_offset < y->len ? p->problem_offset : y->len;
        unsigned line = y->line_base + 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (y->text[i] == '\n')
                line++, col = 1;
            else
                col++;
        }
        return gpa_error_set(y->err, line, col, NULL, "%s (byte 0x%02x)", problem, (unsigned)p->problem_value & 0xffu);
    }
    if (p->context != NULL)
        return gpa_error_set(y->err, line_of(y, mark), (unsigned)mark.column + 1, NULL, "%s %s (from line %u)", problem, p->context,
                             line_of(y, p->context_mark));
    return gpa_error_set(y->err, line_of(y, mark), (unsigned)mark.column + 1, NULL, "%s", problem);
}

static void reset_document(yparser_t *y)
{
    y->nanchors = 0;
    if (y->slots != NULL)
        memset(y->slots, 0, y->nslots * sizeof(*y->slots));
    y->expansion = 0;
    y->root = NULL;
}

/* Handles one event; sets *done at the end of the stream. */
static int on_event(yparser_t *y, const yaml_event_t *ev, docs_vec_t *docs, int *done)
{
    switch (ev->type) {
    case YAML_STREAM_END_EVENT:
        *done = 1;
        return 0;
    case YAML_DOCUMENT_START_EVENT:
        reset_document(y);
        return 0;
    case YAML_DOCUMENT_END_EVENT:
        if (y->root != NULL && y->root->type != GPA_VNULL) /* empty documents are skipped */
            *gpa_vec_push(y->a, docs) = y->root;
        return 0;
    case YAML_ALIAS_EVENT:
        return on_alias(y, ev);
    case YAML_SCALAR_EVENT:
        return on_scalar(y, ev);
    case YAML_SEQUENCE_START_EVENT:
        return open_collection(y, GPA_VARRAY, ev->data.sequence_start.anchor, ev->data.sequence_start.tag, ev->start_mark);
    case YAML_SEQUENCE_END_EVENT:
        return close_sequence(y, ev->start_mark);
    case YAML_MAPPING_START_EVENT:
        return open_collection(y, GPA_VOBJECT, ev->data.mapping_start.anchor, ev->data.mapping_start.tag, ev->start_mark);
    case YAML_MAPPING_END_EVENT:
        return close_mapping(y, ev->start_mark);
    default:
        return 0;
    }
}

int gpa_yaml_parse(gpa_arena_t *a, const char *text, size_t len, gpa_docs_t *out, gpa_error_t *err)
{
    return gpa_yaml_parse_at(a, text, len, 1, out, err);
}

int gpa_yaml_parse_at(gpa_arena_t *a, const char *text, size_t len, unsigned first_line, gpa_docs_t *out, gpa_error_t *err)
{
    if (text == NULL)
        text = "", len = 0;
    yparser_t y = {.a = a, .err = err, .text = text, .len = len, .line_base = first_line > 0 ? first_line - 1 : 0};
    docs_vec_t docs = {0};
    int ret = -1, done = 0;
    if (!yaml_parser_initialize(&y.parser))
        return gpa_error_set(err, 0, 0, NULL, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&y.parser, YAML_UTF8_ENCODING);
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&y.parser, &ev)) {
            parser_error(&y);
            goto Exit;
        }
        int r = on_event(&y, &ev, &docs, &done);
        yaml_event_delete(&ev);
        if (r != 0)
            goto Exit;
    }
    out->docs = docs.items;
    out->len = docs.len;
    ret = 0;
Exit:
    yaml_parser_delete(&y.parser);
    free(y.items);
    free(y.weights);
    free(y.heights);
    free(y.frames);
    free(y.anchors);
    free(y.slots);
    return ret;
}
