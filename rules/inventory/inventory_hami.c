/*
 * HAMi's inventory (inventory_hami.h): the register annotation's cards and a Pod's allocation, read without ever
 * failing a load. Formats: docs/allocator.md, "HAMi nodes".
 */
#include "inventory/inventory_hami.h"
#include "kube/normalize.h"
#include "document/json.h"
#include "kube/quantity.h"
#include "kube/resource.h"

#include <stdio.h>
#include <string.h>

#define MIB ((int64_t)1 << 20)
#define MAX_NUMBER ((int64_t)1 << 40) /* any count, MiB, percent or index HAMi writes is far below */

/* The HAMi vendors gpuadmit reads: one row each (another vendor is a row, its annotation and memory unit). */
static const struct {
    const char *register_annotation;
    unsigned dialects;     /* what its cards serve: HAMi's requests, and the vendor's own whole-card resource */
    int64_t memory_unit;   /* bytes per unit of the register's devmem and the allocation's memory */
    const char *list_mode; /* the mode of a card in the colon-terminated list's 7-field form */
} vendors[] = {
    {"hami.io/node-nvidia-register", GPA_DIALECT_VENDOR | GPA_DIALECT_HAMI, MIB, "hami-core"},
};

/* A whole number 0..MAX_NUMBER written in decimal digits (HAMi's strconv); -1 for anything else. */
static int64_t whole_number(const char *s, size_t len)
{
    int64_t v = 0;
    if (len == 0 || len > 13)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= MAX_NUMBER ? v : -1;
}

/* Go's strconv.ParseBool, which HAMi's list decoder uses: anything else is false (an unhealthy card). */
static int parse_bool(const char *s, size_t len)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strlen(yes[i]) == len && memcmp(yes[i], s, len) == 0)
            return 1;
    return 0;
}

/* ---- the JSON array (v2.8+): every field omitempty, health absent = unhealthy ---- */

static int json_number(const gpa_value_t *v, const char *field, size_t i, int64_t *out, gpa_error_t *why)
{
    *out = v->type == GPA_VNUMBER ? whole_number(v->u.str.ptr, v->u.str.len) : -1;
    if (*out < 0)
        return gpa_error_set(why, 0, 0, NULL, "card %zu: %s is not a whole number", i, field);
    return 0;
}

static int json_string(const gpa_value_t *v, const char *field, size_t i, const char **out, gpa_error_t *why)
{
    if (v->type != GPA_VSTRING || strlen(v->u.str.ptr) != v->u.str.len)
        return gpa_error_set(why, 0, 0, NULL, "card %zu: %s is not a string", i, field);
    *out = v->u.str.ptr;
    return 0;
}

/* One card object; fields HAMi may add later (migProfiles, ...) are skipped. */
static int json_card(const gpa_value_t *v, size_t i, gpa_hami_card_t *c, gpa_error_t *why)
{
    if (v->type != GPA_VOBJECT)
        return gpa_error_set(why, 0, 0, NULL, "card %zu is not an object", i);
    *c = (gpa_hami_card_t){.uuid = "", .type = "", .mode = ""};
    for (size_t m = 0; m < v->u.object.len; m++) {
        const char *k = v->u.object.members[m].key;
        const gpa_value_t *f = v->u.object.members[m].value;
        int rc = 0;
        if (f->type == GPA_VNULL)
            continue; /* Go reads null as the zero value */
        if (strcmp(k, "id") == 0)
            rc = json_string(f, k, i, &c->uuid, why);
        else if (strcmp(k, "type") == 0)
            rc = json_string(f, k, i, &c->type, why);
        else if (strcmp(k, "mode") == 0)
            rc = json_string(f, k, i, &c->mode, why);
        else if (strcmp(k, "index") == 0)
            rc = json_number(f, k, i, &c->index, why);
        else if (strcmp(k, "numa") == 0)
            rc = json_number(f, k, i, &c->numa, why);
        else if (strcmp(k, "count") == 0)
            rc = json_number(f, k, i, &c->count, why);
        else if (strcmp(k, "devmem") == 0)
            rc = json_number(f, k, i, &c->devmem, why);
        else if (strcmp(k, "devcore") == 0)
            rc = json_number(f, k, i, &c->devcore, why);
        else if (strcmp(k, "health") == 0) {
            if (f->type != GPA_VBOOL)
                return gpa_error_set(why, 0, 0, NULL, "card %zu: health is not true or false", i);
            c->healthy = f->u.boolean;
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int read_json(gpa_arena_t *a, const char *text, size_t len, gpa_hami_card_t **cards, size_t *n, gpa_error_t *why)
{
    gpa_value_t *root;
    gpa_error_t jerr = {0};
    gpa_error_init(&jerr, NULL);
    if (gpa_json_parse(a, text, len, &root, &jerr) != 0)
        return gpa_error_set(why, 0, 0, NULL, "not JSON: %s", jerr.message);
    if (root->type == GPA_VNULL)
        return 0; /* Go reads null as no cards */
    if (root->type != GPA_VARRAY)
        return gpa_error_set(why, 0, 0, NULL, "%s", "not a list of cards");
    if (root->u.array.len > GPA_HAMI_MAX_CARDS)
        return gpa_error_set(why, 0, 0, NULL, "more than %d cards", GPA_HAMI_MAX_CARDS);
    *cards = gpa_arena_calloc(a, root->u.array.len + 1, sizeof(**cards));
    for (size_t i = 0; i < root->u.array.len; i++)
        if (json_card(root->u.array.items[i], i, &(*cards)[(*n)++], why) != 0)
            return -1;
    return 0;
}

/* ---- the colon-terminated list (up to v2.7): UUID,count,devmem,devcore,type,numa,health[,index,mode]: ---- */

typedef struct st_span_t {
    const char *p;
    size_t len;
} span_t;

/* Splits s[0..len) at `sep` into at most max spans; the number of spans, or max + 1 when there are more. */
static size_t split(const char *s, size_t len, char sep, span_t *out, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != sep)
            continue;
        if (n == max)
            return max + 1;
        out[n++] = (span_t){s + start, i - start};
        start = i + 1;
    }
    return n;
}

static const char *span_dup(gpa_arena_t *a, span_t s)
{
    return gpa_arena_strndup(a, s.p, s.len);
}

static int list_card(gpa_arena_t *a, span_t seg, size_t i, const char *list_mode, gpa_hami_card_t *c, gpa_error_t *why)
{
    span_t f[9];
    size_t nf = split(seg.p, seg.len, ',', f, 9);
    if (nf != 7 && nf != 9)
        return gpa_error_set(why, 0, 0, NULL, "card %zu has %s fields, not 7 or 9", i,
                             nf > 9 ? "more than 9" : gpa_arena_printf(a, "%zu", nf));
    *c = (gpa_hami_card_t){.uuid = span_dup(a, f[0]), .type = span_dup(a, f[4]), .mode = list_mode};
    static const char *const names[] = {"count", "devmem", "devcore", "numa", "index"};
    int64_t *to[] = {&c->count, &c->devmem, &c->devcore, &c->numa, &c->index};
    span_t from[] = {f[1], f[2], f[3], f[5], nf == 9 ? f[7] : (span_t){"0", 1}};
    for (size_t k = 0; k < 5; k++)
        if ((*to[k] = whole_number(from[k].p, from[k].len)) < 0)
            return gpa_error_set(why, 0, 0, NULL, "card %zu: %s \"%.*s\" is not a whole number", i, names[k],
                                 (int)(from[k].len > 32 ? 32 : from[k].len), from[k].p);
    c->healthy = parse_bool(f[6].p, f[6].len);
    if (nf == 9)
        c->mode = span_dup(a, f[8]);
    return 0;
}

/* The next non-empty segment of text[*at..len) ended by `sep` (or the end); 0 when none is left. */
static int next_segment(const char *text, size_t len, char sep, size_t *at, span_t *out)
{
    while (*at < len) {
        const char *end = memchr(text + *at, sep, len - *at);
        size_t stop = end != NULL ? (size_t)(end - text) : len;
        *out = (span_t){text + *at, stop - *at};
        *at = stop + 1;
        if (out->len > 0)
            return 1;
    }
    return 0;
}

static int read_list(gpa_arena_t *a, const char *text, size_t len, const char *list_mode, gpa_hami_card_t **cards, size_t *n,
                     gpa_error_t *why)
{
    size_t ncards = 0, at = 0;
    span_t seg;
    while (next_segment(text, len, ':', &at, &seg))
        if (++ncards > GPA_HAMI_MAX_CARDS)
            return gpa_error_set(why, 0, 0, NULL, "more than %d cards", GPA_HAMI_MAX_CARDS);
    *cards = gpa_arena_calloc(a, ncards + 1, sizeof(**cards));
    for (at = 0; next_segment(text, len, ':', &at, &seg); (*n)++)
        if (list_card(a, seg, *n, list_mode, &(*cards)[*n], why) != 0)
            return -1;
    return 0;
}

static int check_cards(const gpa_hami_card_t *cards, size_t n, gpa_error_t *why)
{
    for (size_t i = 0; i < n; i++) {
        if (cards[i].uuid[0] == '\0')
            return gpa_error_set(why, 0, 0, NULL, "card %zu has no id", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(cards[i].uuid, cards[j].uuid) == 0)
                return gpa_error_set(why, 0, 0, NULL, "card %.64s is registered twice", cards[i].uuid);
    }
    return 0;
}

static int read_register(gpa_arena_t *a, const char *text, size_t len, const char *list_mode, gpa_hami_card_t **cards, size_t *n,
                         gpa_error_t *why)
{
    size_t skip = 0;
    *cards = NULL, *n = 0;
    while (skip < len && (text[skip] == ' ' || text[skip] == '\n' || text[skip] == '\t' || text[skip] == '\r'))
        skip++;
    int rc = skip < len && (text[skip] == '[' || text[skip] == '{' || text[skip] == 'n')
                 ? read_json(a, text, len, cards, n, why)
                 : read_list(a, text, len, list_mode, cards, n, why);
    if (rc == 0)
        rc = check_cards(*cards, *n, why);
    if (rc != 0)
        *n = 0;
    return rc;
}

int gpa_hami_read_register(gpa_arena_t *a, const char *text, size_t len, gpa_hami_card_t **cards, size_t *n, gpa_error_t *why)
{
    return read_register(a, text, len, vendors[0].list_mode, cards, n, why);
}

/* Minor numbers: the indices when they are distinct, else the positions (v2.4's list says index 0 for all). */
static int distinct_indices(const gpa_hami_card_t *cards, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cards[i].index >= GPA_HAMI_MAX_CARDS)
            return 0;
    unsigned char seen[GPA_HAMI_MAX_CARDS] = {0};
    for (size_t i = 0; i < n; i++)
        if (seen[cards[i].index]++)
            return 0;
    return 1;
}

int gpa_hami_node(gpa_arena_t *a, const gpa_value_t *annotations, gpa_node_desc_t *d, const gpa_inventory_sink_t *sink,
                  gpa_error_t *why)
{
    for (size_t v = 0; v < sizeof(vendors) / sizeof(vendors[0]); v++) {
        const gpa_value_t *ann = gpa_value_get(annotations, vendors[v].register_annotation);
        if (ann == NULL)
            continue;
        gpa_hami_card_t *cards;
        size_t n;
        d->count = 0, d->memory = 0; /* the allocatable nvidia.com/gpu of a HAMi node counts slots, not cards */
        d->dialects = vendors[v].dialects | (d->koordinator ? GPA_DIALECT_KOORDINATOR : 0);
        if (ann->type != GPA_VSTRING)
            gpa_error_set(why, 0, 0, NULL, "%s", "not a string");
        if (ann->type != GPA_VSTRING ||
            read_register(a, ann->u.str.ptr, ann->u.str.len, vendors[v].list_mode, &cards, &n, why) != 0) {
            snprintf(why->path, sizeof(why->path), "metadata.annotations[\"%s\"]", vendors[v].register_annotation);
            return -1;
        }
        int by_index = distinct_indices(cards, n);
        for (size_t i = 0; i < n; i++) {
            const gpa_hami_card_t *c = &cards[i];
            gpa_gpu_desc_t g = {.node = d->name,
                                .minor = by_index ? (int32_t)c->index : (int32_t)i,
                                .healthy = c->healthy,
                                .core = c->devcore,
                                .memory = c->devmem * vendors[v].memory_unit, /* MAX_NUMBER MiB fits in 2^60 */
                                .source = d->source,
                                .line = d->line,
                                .uuid = c->uuid,
                                .type = c->type,
                                .mode = c->mode,
                                .numa = (int32_t)(c->numa > INT32_MAX ? INT32_MAX : c->numa),
                                .slots = c->count};
            sink->gpu(sink->ctx, &g);
        }
        return 1;
    }
    return 0;
}

/* ---- a Pod's hami.io/vgpu-devices-allocated: per card UUID,type,MiB,cores: per container ; ---- */

/* What the Pod's own request could hold (docs/allocator.md, "HAMi nodes"): entries, and per entry bytes and cores. */
typedef struct st_entry_bound_t {
    int64_t entries; /* the vGPUs and whole cards its containers ask for, init containers included */
    int64_t memory;  /* the largest vGPU's bytes; INT64_MAX where one takes a share of the card (percentage, whole) */
    int64_t core;    /* the largest vGPU's compute, percent */
} entry_bound_t;

/* The bound of the Pod's request as normalization reads it; -1 when it cannot be read (the Pod then holds nothing). */
static int entry_bound(gpa_arena_t *a, const gpa_podspec_t *s, entry_bound_t *b)
{
    gpa_request_t req;
    *b = (entry_bound_t){0};
    if (gpa_normalize(a, GPA_DIALECT_ALL, s, &req) != 0)
        return -1;
    for (size_t k = 0; k < req.ngroups; k++) {
        const gpa_device_group_t *g = &req.groups[k];
        int64_t mem = g->hami != NULL && g->memory_kind == GPA_MEMORY_BYTES ? g->memory_bytes : INT64_MAX;
        int64_t core = g->whole ? 100 : g->core;
        b->entries = gpa_sat_add_i64(b->entries, g->count);
        b->memory = mem > b->memory ? mem : b->memory;
        b->core = core > b->core ? core : b->core;
    }
    b->entries = b->entries < GPA_HAMI_MAX_CARDS ? b->entries : GPA_HAMI_MAX_CARDS;
    return 0;
}

typedef GPA_VEC(gpa_usage_desc_t) usage_vec_t;

/* One card entry of the allocation into u (MiB in bytes); -1 with why. */
static int read_entry(gpa_arena_t *a, span_t e, size_t i, gpa_usage_desc_t *u, gpa_error_t *why)
{
    span_t f[8];
    size_t nf = split(e.p, e.len, ',', f, 8);
    int64_t mib, cores;
    if (nf < 4 || nf > 8)
        return gpa_error_set(why, 0, 0, NULL, "entry %zu is not UUID,type,memory,cores", i);
    if (f[0].len == 0 || (mib = whole_number(f[2].p, f[2].len)) < 0 || (cores = whole_number(f[3].p, f[3].len)) < 0)
        return gpa_error_set(why, 0, 0, NULL, "entry %zu is not UUID,type,memory,cores", i);
    u->uuid = span_dup(a, f[0]);
    u->memory = mib * vendors[0].memory_unit;
    u->core = cores < 100 ? cores : 100; /* a vGPU's compute is a percent of one card */
    u->slots = 1;
    return 0;
}

static int read_allocated(gpa_arena_t *a, const char *text, const entry_bound_t *max, const gpa_usage_desc_t *base,
                          usage_vec_t *held, gpa_error_t *why)
{
    size_t len = strlen(text), entries = 0;
    for (size_t start = 0, i = 0; i <= len; i++) {
        if (i < len && text[i] != ';' && text[i] != ':')
            continue;
        span_t e = {text + start, i - start};
        start = i + 1;
        if (e.len == 0)
            continue; /* an empty container, or the end of a card */
        gpa_usage_desc_t u = *base;
        if (read_entry(a, e, entries++, &u, why) != 0)
            return -1;
        u.memory = u.memory < max->memory ? u.memory : max->memory; /* never more than one of its vGPUs */
        u.core = u.core < max->core ? u.core : max->core;
        if ((int64_t)held->len < max->entries) /* beyond what its request counts: not held */
            *gpa_vec_push(a, held) = u;
    }
    return 0;
}

int gpa_hami_pod(gpa_arena_t *a, const gpa_object_t *obj, const char *source, unsigned line, const gpa_inventory_sink_t *sink,
                 gpa_error_t *why)
{
    const char *text = gpa_pairs_get(obj->annotations, obj->nannotations, GPA_HAMI_ANNOTATION_ALLOCATED);
    if (text == NULL)
        return 0;
    if (obj->npods != 1 || (obj->phase != NULL && (strcmp(obj->phase, "Succeeded") == 0 || strcmp(obj->phase, "Failed") == 0)))
        return 1; /* finished: holds nothing */
    const char *node = gpa_pairs_get(obj->annotations, obj->nannotations, GPA_HAMI_ANNOTATION_NODE);
    if (node == NULL || node[0] == '\0')
        node = obj->pods[0].node_name;
    if (node == NULL || node[0] == '\0')
        return 1; /* not placed: holds nothing */
    gpa_usage_desc_t base = {.node = node, .pod = gpa_arena_printf(a, "%s/%s", obj->ns, obj->name), .source = source, .line = line};
    usage_vec_t held = {0};
    entry_bound_t max;
    if (entry_bound(a, &obj->pods[0], &max) != 0) {
        gpa_error_set(why, 0, 0, "spec", "%s", "its request is not one gpuadmit can read");
        return -1;
    }
    if (read_allocated(a, text, &max, &base, &held, why) != 0) {
        snprintf(why->path, sizeof(why->path), "%s", "metadata.annotations[\"" GPA_HAMI_ANNOTATION_ALLOCATED "\"]");
        return -1;
    }
    for (size_t i = 0; i < held.len; i++)
        sink->usage(sink->ctx, &held.items[i]);
    return 1;
}
