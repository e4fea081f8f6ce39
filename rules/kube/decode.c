#include "kube/decode.h"
#include "kube/workloads.h"
#include "base/buf.h"
#include "document/schema.h"

#include <stdio.h>
#include <string.h>

/*
 * Where a node is, in the two forms the engine needs: a human path for messages and a JSON pointer for
 * patches. Built once per container or template, never per lookup.
 */
typedef struct st_where_t {
    const char *path;
    const char *pointer;
} where_t;

typedef struct st_decoder_t {
    gpa_arena_t *a;
    gpa_error_t *err;
    gpa_object_t *obj;            /* the object being decoded: where Pod specs go */
    const gpa_hami_names_t *hami; /* HAMi's names to intern (NULL: its defaults) */
    const gpa_decode_opts_t *opts;
    int dra; /* the dra dialect is on */
} decoder_t;

const gpa_decode_opts_t gpa_decode_opts_default = {.dialects = GPA_DIALECT_ALL};

/* s1 s2 s3 as one arena string: paths are built for every container and amount, so no printf here. */
static char *concat(gpa_arena_t *a, const char *s1, const char *s2, const char *s3)
{
    size_t n1 = strlen(s1), n2 = strlen(s2), n3 = strlen(s3);
    char *p = gpa_arena_alloc(a, n1 + n2 + n3 + 1);
    memcpy(p, s1, n1);
    memcpy(p + n1, s2, n2);
    memcpy(p + n1 + n2, s3, n3 + 1);
    return p;
}

/* parent's path + sep + tail and parent's pointer + "/" + tail, in one arena block (every container builds some). */
static where_t where_join(decoder_t *d, where_t parent, const char *path_sep, const char *tail)
{
    size_t np = strlen(parent.path), ns = strlen(path_sep), nq = strlen(parent.pointer), nt = strlen(tail);
    char *p = gpa_arena_alloc(d->a, np + ns + nt + 1 + nq + 1 + nt + 1);
    where_t w = {p, p + np + ns + nt + 1};
    memcpy(p, parent.path, np);
    memcpy(p + np, path_sep, ns);
    memcpy(p + np + ns, tail, nt + 1);
    char *q = p + np + ns + nt + 1;
    memcpy(q, parent.pointer, nq);
    q[nq] = '/';
    memcpy(q + nq + 1, tail, nt + 1);
    return w;
}

static where_t where_key(decoder_t *d, where_t parent, const char *key)
{
    return where_join(d, parent, parent.path[0] != '\0' ? "." : "", key); /* our keys need no escaping */
}

/* where_key into buf when it fits (a place read now and kept by nobody: what is kept is copied), else the arena's. */
static where_t where_key_in(decoder_t *d, char *buf, size_t cap, where_t parent, const char *key)
{
    int np = snprintf(buf, cap, "%s%s%s", parent.path, parent.path[0] != '\0' ? "." : "", key);
    if (np < 0 || (size_t)np >= cap)
        return where_key(d, parent, key);
    int nq = snprintf(buf + np + 1, cap - (size_t)np - 1, "%s/%s", parent.pointer, key);
    if (nq < 0 || (size_t)nq >= cap - (size_t)np - 1)
        return where_key(d, parent, key);
    return (where_t){buf, buf + np + 1};
}

static where_t where_index(decoder_t *d, where_t parent, size_t i)
{
    char digits[24], *p = digits + sizeof(digits) - 2;
    p[0] = ']';
    p[1] = '\0';
    do
        *--p = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    *--p = '[';
    where_t w = where_join(d, parent, "", p); /* the pointer's "[i]" is cut to "i" below */
    char *index = (char *)w.pointer + strlen(parent.pointer) + 1;
    size_t n = strlen(p) - 2;
    memmove(index, index + 1, n);
    index[n] = '\0';
    return w;
}

/* Worded as every schema fault is (document/schema.h); the caller checked the type, so the path is built only here. */
static int wrong_type(decoder_t *d, const gpa_value_t *v, const char *path, gpa_vtype_t want)
{
    return gpa_schema_want(d->err, v, want, path);
}

/*
 * Looks up `key` in obj and checks its type. A missing key and an explicit null both read as absent (what
 * Kubernetes' decoder does with omitempty fields). Returns 0 with *out (NULL when absent), -1 on a wrong type.
 */
static int member(decoder_t *d, const gpa_value_t *obj, const char *key, gpa_vtype_t type, where_t parent, gpa_value_t **out)
{
    gpa_value_t *v = gpa_value_get(obj, key);
    *out = NULL;
    if (v == NULL || v->type == GPA_VNULL)
        return 0;
    if (v->type != type)
        return wrong_type(d, v, gpa_schema_path(d->a, parent.path, key), type);
    *out = v;
    return 0;
}

/*
 * A tenant's string as the engine compares it: itself, or, when it holds a NUL (JSON's \u0000; Go compares the whole
 * value), the text with each NUL written as the six characters \u0000, so that a C comparison never stops at it:
 * "binpack\0x" is no policy, "<uuid>\0x" no card's UUID, and messages show the NUL (docs/decisions.md).
 */
static const char *exact(decoder_t *d, const char *s, size_t len)
{
    if (s == NULL || memchr(s, '\0', len) == NULL)
        return s;
    gpa_buf_t b = GPA_BUF_INIT;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\0')
            gpa_buf_puts(&b, "\\u0000");
        else
            gpa_buf_putc(&b, s[i]);
    const char *out = gpa_arena_strndup(d->a, b.base, b.len);
    gpa_buf_dispose(&b);
    return out;
}

/* A string node's text (exact), or NULL for no node or another type. */
static const char *string_text(decoder_t *d, const gpa_value_t *v)
{
    return v != NULL && v->type == GPA_VSTRING ? exact(d, v->u.str.ptr, v->u.str.len) : NULL;
}

static int string_member(decoder_t *d, const gpa_value_t *obj, const char *key, where_t parent, const char **out)
{
    gpa_value_t *v;
    if (member(d, obj, key, GPA_VSTRING, parent, &v) != 0)
        return -1;
    *out = v != NULL ? exact(d, v->u.str.ptr, v->u.str.len) : NULL;
    return 0;
}

/* A string or a number's text (YAML reads `name: 2024` as a number), else NULL: for what only names an object. */
static const char *scalar_text(const gpa_value_t *v)
{
    return v != NULL && (v->type == GPA_VSTRING || v->type == GPA_VNUMBER) ? v->u.str.ptr : NULL;
}

/*
 * The string pairs of a map nothing decides on (labels, a workload's own annotations): a value that is not a
 * string, or a map that is not a mapping, is left out, never an input error (docs/rules.md#objects).
 */
static void lenient_pairs(decoder_t *d, const gpa_value_t *obj, gpa_pair_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (obj == NULL || obj->type != GPA_VOBJECT)
        return;
    gpa_pair_t *pairs = gpa_arena_alloc(d->a, (obj->u.object.len + 1) * sizeof(*pairs));
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const gpa_member_t *m = &obj->u.object.members[i];
        if (m->value->type == GPA_VSTRING)
            pairs[(*n)++] = (gpa_pair_t){exact(d, m->key, m->key_len), exact(d, m->value->u.str.ptr, m->value->u.str.len),
                                         m->value->line, m->value->column};
    }
    *out = pairs;
}

/* A Pod's annotations: a mapping; of its values only the mGPU annotation's is read, so only it must be a string. */
static int decode_annotations(decoder_t *d, const gpa_value_t *meta, where_t meta_where, gpa_podspec_t *pod)
{
    gpa_value_t *annotations = NULL;
    if (meta != NULL && member(d, meta, "annotations", GPA_VOBJECT, meta_where, &annotations) != 0)
        return -1;
    gpa_value_t *mgpu = annotations != NULL ? gpa_value_get(annotations, GPA_ANNOTATION_MULTIPLE_GPU) : NULL;
    if (mgpu != NULL && mgpu->type != GPA_VSTRING)
        return wrong_type(d, mgpu, gpa_arena_printf(d->a, "%s[\"%s\"]", pod->annotations_path, GPA_ANNOTATION_MULTIPLE_GPU),
                          GPA_VSTRING);
    lenient_pairs(d, annotations, &pod->annotations, &pod->nannotations);
    return 0;
}

/*
 * nodeSelector: a mapping the infeasible rule matches against node labels. A value that is not a string (the API
 * server refuses it) is kept as text no label value can equal, so the Pod matches no node rather than being
 * unreadable (docs/decisions.md).
 */
static int decode_node_selector(decoder_t *d, const gpa_value_t *spec, where_t spec_where, gpa_podspec_t *pod)
{
    gpa_value_t *selector;
    if (member(d, spec, "nodeSelector", GPA_VOBJECT, spec_where, &selector) != 0)
        return -1;
    if (selector == NULL)
        return 0;
    pod->node_selector = gpa_arena_alloc(d->a, (selector->u.object.len + 1) * sizeof(*pod->node_selector));
    for (size_t i = 0; i < selector->u.object.len; i++) {
        const gpa_member_t *m = &selector->u.object.members[i];
        const gpa_value_t *v = m->value;
        const char *value = v->type == GPA_VSTRING   ? exact(d, v->u.str.ptr, v->u.str.len)
                            : v->type == GPA_VNUMBER ? gpa_arena_printf(d->a, "%s (not a string)", v->u.str.ptr)
                            : v->type == GPA_VBOOL   ? (v->u.boolean ? "true (not a string)" : "false (not a string)")
                                                     : gpa_arena_printf(d->a, "(%s, not a string)", gpa_vtype_name(v->type));
        pod->node_selector[i] = (gpa_pair_t){exact(d, m->key, m->key_len), value, v->line, v->column};
    }
    pod->nnode_selector = selector->u.object.len;
    return 0;
}

/* Bytes of the white space (Go's unicode.IsSpace) that starts s[0..n), or 0: ASCII \t \n \v \f \r and space,
 * U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. */
static size_t space_at(const unsigned char *s, size_t n)
{
    if (n >= 1 && (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r')))
        return 1;
    if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
        return 2;
    if (n < 3)
        return 0;
    unsigned cp = ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
    if ((s[0] & 0xf0) != 0xe0 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
        return 0;
    return cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
                   cp == 0x3000
               ? 3
               : 0;
}

/* Bytes of white space that end s[0..n) (n > 0): the last character, found by stepping back over up to two
 * UTF-8 continuation bytes, when it is white space; else 0. */
static size_t space_before(const unsigned char *s, size_t n)
{
    size_t start = n - 1;
    while (start > 0 && n - start < 3 && (s[start] & 0xc0) == 0x80)
        start--;
    return space_at(s + start, n - start) == n - start ? n - start : 0;
}

/*
 * A quantity as Kubernetes reads it from JSON (Quantity.UnmarshalJSON): the text with white space trimmed at
 * both ends (strings.TrimSpace), so "nvidia.com/gpu": " 2" is 2 in the cluster and here.
 */
static gpa_quantity_t parse_amount(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t k;
    while (len > 0 && (k = space_at(s, len)) != 0)
        s += k, len -= k;
    while (len > 0 && (k = space_before(s, len)) != 0)
        len -= k;
    return gpa_quantity_parse((const char *)s, len);
}

static void decode_amount(decoder_t *d, const gpa_member_t *m, where_t w, const char *map, gpa_amount_t *amount)
{
    const gpa_value_t *v = m->value;
    amount->present = 1;
    amount->line = v->line;
    amount->column = v->column;
    amount->path = gpa_arena_printf(d->a, "%s.%s[\"%s\"]", w.path, map, m->key);
    if (v->type == GPA_VSTRING || v->type == GPA_VNUMBER) {
        gpa_quantity_t q = parse_amount(v->u.str.ptr, v->u.str.len);
        amount->text = v->u.str.ptr;
        amount->status = q.status;
        amount->suffix = q.suffix;
        amount->value = q.value;
    } else {
        amount->text = "";
        amount->status = GPA_Q_SYNTAX;
    }
}

/* The class serving extended resource `name`, when the dra dialect is on: a known class mapping it, or the class an
 * implicit name spells (kube/dra.h); NULL when the name is no DRA use (then it may be a vendor or HAMi amount). */
static const char *extended_class(decoder_t *d, const char *name, size_t len)
{
    size_t np = strlen(GPA_DRA_IMPLICIT_PREFIX);
    if (!d->dra)
        return NULL;
    if (len > np && memcmp(name, GPA_DRA_IMPLICIT_PREFIX, np) == 0)
        return name + np;
    const gpa_dra_object_t *cls = gpa_dra_known_extended(d->opts->known, name, len);
    return cls != NULL ? cls->name : NULL;
}

/* The token decoding gives a name: none for one a DeviceClass serves (read by decode_extended instead). */
static gpa_resource_t intern(decoder_t *d, const gpa_member_t *m)
{
    if (extended_class(d, m->key, m->key_len) != NULL)
        return GPA_R_UNKNOWN;
    return gpa_resource_intern(d->hami, m->key, m->key_len);
}

/* The GPU entries of a requests or limits map, into an array of just those (at[r]: 1 + the index of r's); other
 * names (cpu, memory, ...) are not ours to read. */
static int decode_amounts(decoder_t *d, const gpa_value_t *resources, const char *key, where_t w, int *has_map, gpa_amount_t **out,
                          unsigned char *at)
{
    gpa_value_t *map;
    if (member(d, resources, key, GPA_VOBJECT, w, &map) != 0)
        return -1;
    *has_map = map != NULL;
    if (map == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < map->u.object.len; i++)
        n += intern(d, &map->u.object.members[i]) != GPA_R_UNKNOWN;
    if (n == 0)
        return 0;
    gpa_amount_t *amounts = gpa_arena_calloc(d->a, n, sizeof(*amounts));
    size_t used = 0;
    for (size_t i = 0; i < map->u.object.len; i++) {
        const gpa_member_t *m = &map->u.object.members[i];
        gpa_resource_t r = intern(d, m);
        if (r == GPA_R_UNKNOWN)
            continue;
        if (at[r] == 0)
            at[r] = (unsigned char)++used; /* a token written twice (no two keys are one name) keeps its slot */
        decode_amount(d, m, w, key, &amounts[at[r] - 1]);
    }
    *out = amounts;
    return 0;
}

/* The extended resources of c that DeviceClasses serve: each name once, its request, or its limit where no request
 * is given (the maps were checked to be mappings by decode_amounts). */
static void decode_extended(decoder_t *d, const gpa_value_t *resources, where_t w, gpa_container_t *c)
{
    const gpa_value_t *requests = gpa_value_get(resources, "requests");
    for (int limits = 0; limits < 2; limits++) {
        const char *key = limits ? "limits" : "requests";
        const gpa_value_t *map = gpa_value_get(resources, key);
        for (size_t i = 0; map != NULL && map->type == GPA_VOBJECT && i < map->u.object.len; i++) {
            const gpa_member_t *m = &map->u.object.members[i];
            const char *cls = extended_class(d, m->key, m->key_len);
            if (cls == NULL ||
                (limits && requests != NULL && requests->type == GPA_VOBJECT && gpa_value_get(requests, m->key) != NULL))
                continue;
            c->extended = gpa_arena_grow(d->a, c->extended, c->nextended, c->nextended + 1, sizeof(*c->extended));
            gpa_dra_extended_use_t *u = &c->extended[c->nextended++];
            int scalar = m->value->type == GPA_VSTRING || m->value->type == GPA_VNUMBER;
            u->resource = m->key;
            u->class = cls;
            u->text = scalar ? m->value->u.str.ptr : "";
            u->amount = scalar ? gpa_quantity_parse(u->text, m->value->u.str.len) : (gpa_quantity_t){.status = GPA_Q_SYNTAX};
            u->path = gpa_arena_printf(d->a, "%s.%s[\"%s\"]", w.path, key, m->key);
        }
    }
}

/* A ResourceRequirements (a mapping, checked by the caller) at `w`: a container's resources, or one read as a container. */
static int decode_resources(decoder_t *d, const gpa_value_t *resources, where_t w, gpa_container_t *c)
{
    c->has_resources = 1;
    c->resources = resources;
    if (decode_amounts(d, resources, "requests", w, &c->has_requests, &c->requests_, c->request_at_) != 0 ||
        decode_amounts(d, resources, "limits", w, &c->has_limits, &c->limits_, c->limit_at_) != 0)
        return -1;
    if (!d->dra)
        return 0;
    decode_extended(d, resources, w, c);
    return gpa_dra_decode_container_claims(d->a, resources, w.path, &c->claims, &c->nclaims, d->err);
}

static int decode_container(decoder_t *d, const gpa_value_t *v, where_t w, int is_init, size_t index, gpa_container_t *c)
{
    memset(c, 0, sizeof(*c));
    c->is_init = is_init;
    c->index = index;
    c->path = w.path;
    c->pointer = w.pointer;
    c->line = v->line;
    c->column = v->column;
    if (v->type != GPA_VOBJECT)
        return wrong_type(d, v, w.path, GPA_VOBJECT);
    if (string_member(d, v, "name", w, &c->name) != 0)
        return -1;
    if (c->name == NULL)
        c->name = "";
    c->hami = d->hami;
    /* Read leniently: a securityContext of the wrong shape is the API server's to refuse, not a decision input. */
    const gpa_value_t *sc = gpa_value_get(v, "securityContext");
    const gpa_value_t *priv = sc != NULL && sc->type == GPA_VOBJECT ? gpa_value_get(sc, "privileged") : NULL;
    c->privileged = priv != NULL && priv->type == GPA_VBOOL && priv->u.boolean;
    gpa_value_t *resources;
    if (member(d, v, "resources", GPA_VOBJECT, w, &resources) != 0)
        return -1;
    if (resources == NULL)
        return 0;
    /* Its paths are the container's + "resources" (gpa_container_resources_path): not kept per container. */
    char buf[512];
    return decode_resources(d, resources, where_key_in(d, buf, sizeof(buf), w, "resources"), c);
}

static const char no_containers[] = "missing: a Pod needs its list of containers here (is the manifest indented right?)";

/* containers or initContainers; `required` (containers): a Pod without them is not a Pod gpuadmit can judge. */
static int decode_containers(decoder_t *d, const gpa_value_t *spec, const char *key, where_t spec_where, int is_init, int required,
                             gpa_container_t **out, size_t *n)
{
    gpa_value_t *list;
    *out = NULL;
    *n = 0;
    if (member(d, spec, key, GPA_VARRAY, spec_where, &list) != 0)
        return -1;
    where_t lw = where_key(d, spec_where, key);
    if (list == NULL && required)
        return gpa_schema_fail(d->err, spec, lw.path,
                               "missing: a Pod needs its list of containers here (is the manifest indented right?)");
    if (list == NULL)
        return 0;
    gpa_container_t *containers = gpa_arena_alloc(d->a, list->u.array.len * sizeof(*containers));
    for (size_t i = 0; i < list->u.array.len; i++)
        if (decode_container(d, list->u.array.items[i], where_index(d, lw, i), is_init, i, &containers[i]) != 0)
            return -1;
    *out = containers;
    *n = list->u.array.len;
    return 0;
}

static int parse_operator(const char *s, gpa_match_op_t *op)
{
    static const struct {
        const char *name;
        gpa_match_op_t op;
    } ops[] = {{"In", GPA_MATCH_IN},         {"NotIn", GPA_MATCH_NOT_IN},
               {"Exists", GPA_MATCH_EXISTS}, {"DoesNotExist", GPA_MATCH_DOES_NOT_EXIST},
               {"Gt", GPA_MATCH_GT},         {"Lt", GPA_MATCH_LT}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(s, ops[i].name) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

static int decode_requirement(decoder_t *d, const gpa_value_t *v, where_t w, gpa_node_requirement_t *req)
{
    const char *op = NULL;
    gpa_value_t *values;
    memset(req, 0, sizeof(*req));
    if (v->type != GPA_VOBJECT)
        return wrong_type(d, v, w.path, GPA_VOBJECT);
    if (string_member(d, v, "key", w, &req->key) != 0 || string_member(d, v, "operator", w, &op) != 0 ||
        member(d, v, "values", GPA_VARRAY, w, &values) != 0)
        return -1;
    if (req->key == NULL)
        return gpa_error_set(d->err, v->line, v->column, w.path, "a node selector requirement needs a key");
    if (op == NULL || parse_operator(op, &req->op) != 0)
        return gpa_error_set(d->err, v->line, v->column, w.path,
                             "operator must be In, NotIn, Exists, DoesNotExist, Gt or Lt, not \"%s\"", op ? op : "");
    if (values == NULL)
        return 0;
    req->values = gpa_arena_alloc(d->a, values->u.array.len * sizeof(*req->values));
    for (size_t i = 0; i < values->u.array.len; i++) {
        const gpa_value_t *s = values->u.array.items[i];
        if (s->type != GPA_VSTRING)
            return wrong_type(d, s, gpa_arena_printf(d->a, "%s.values[%zu]", w.path, i), GPA_VSTRING);
        req->values[i] = exact(d, s->u.str.ptr, s->u.str.len);
    }
    req->nvalues = values->u.array.len;
    return 0;
}

static int decode_term(decoder_t *d, const gpa_value_t *v, where_t w, gpa_node_term_t *term)
{
    gpa_value_t *exprs;
    memset(term, 0, sizeof(*term));
    if (v->type != GPA_VOBJECT)
        return wrong_type(d, v, w.path, GPA_VOBJECT);
    if (member(d, v, "matchExpressions", GPA_VARRAY, w, &exprs) != 0)
        return -1;
    if (exprs == NULL)
        return 0;
    where_t ew = where_key(d, w, "matchExpressions");
    term->requirements = gpa_arena_alloc(d->a, exprs->u.array.len * sizeof(*term->requirements));
    for (size_t i = 0; i < exprs->u.array.len; i++)
        if (decode_requirement(d, exprs->u.array.items[i], where_index(d, ew, i), &term->requirements[i]) != 0)
            return -1;
    term->len = exprs->u.array.len;
    return 0;
}

/* A NodeSelector's nodeSelectorTerms (v a mapping at w): *out and *n, none when absent. */
static int decode_selector_terms(decoder_t *d, const gpa_value_t *v, where_t w, gpa_node_term_t **out, size_t *n)
{
    gpa_value_t *terms;
    if (member(d, v, "nodeSelectorTerms", GPA_VARRAY, w, &terms) != 0)
        return -1;
    if (terms == NULL)
        return 0;
    where_t tw = where_key(d, w, "nodeSelectorTerms");
    *out = gpa_arena_alloc(d->a, terms->u.array.len * sizeof(**out));
    for (size_t i = 0; i < terms->u.array.len; i++)
        if (decode_term(d, terms->u.array.items[i], where_index(d, tw, i), &(*out)[i]) != 0)
            return -1;
    *n = terms->u.array.len;
    return 0;
}

/* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms */
static int decode_node_affinity(decoder_t *d, const gpa_value_t *spec, where_t w, gpa_podspec_t *pod)
{
    static const char *const steps[] = {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"};
    const gpa_value_t *v = spec;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        gpa_value_t *next;
        if (member(d, v, steps[i], GPA_VOBJECT, w, &next) != 0)
            return -1;
        if (next == NULL)
            return 0;
        w = where_key(d, w, steps[i]);
        v = next;
    }
    return decode_selector_terms(d, v, w, &pod->node_terms, &pod->nnode_terms);
}

int gpa_decode_node_selector(gpa_arena_t *a, const gpa_value_t *selector, const char *path, gpa_node_term_t **out, size_t *n,
                             gpa_error_t *err)
{
    decoder_t d = {.a = a, .err = err};
    where_t w = {path, ""};
    *out = NULL;
    *n = 0;
    if (selector->type != GPA_VOBJECT)
        return wrong_type(&d, selector, path, GPA_VOBJECT);
    return decode_selector_terms(&d, selector, w, out, n);
}

/* A Pod spec and, when it has any (templates, a Pod), the metadata that goes with it; meta NULL: none. */
static int decode_podspec(decoder_t *d, const gpa_value_t *meta, where_t meta_where, const gpa_value_t *spec, where_t spec_where,
                          gpa_podspec_t *pod)
{
    memset(pod, 0, sizeof(*pod));
    pod->path = spec_where.path;
    pod->pointer = spec_where.pointer;
    pod->annotations_path = where_key(d, meta_where, "annotations").path;
    if (decode_annotations(d, meta, meta_where, pod) != 0)
        return -1;
    if (decode_containers(d, spec, "containers", spec_where, 0, 1, &pod->containers, &pod->ncontainers) != 0 ||
        decode_containers(d, spec, "initContainers", spec_where, 1, 0, &pod->init_containers, &pod->ninit_containers) != 0)
        return -1;
    if (decode_node_selector(d, spec, spec_where, pod) != 0 || decode_node_affinity(d, spec, spec_where, pod) != 0)
        return -1;
    if (d->dra && gpa_dra_decode_pod_claims(d->a, spec, spec_where.path, &pod->claims, &pod->nclaims, d->err) != 0)
        return -1;
    return string_member(d, spec, "nodeName", spec_where, &pod->node_name);
}

static void push_pod(decoder_t *d, const gpa_podspec_t *pod)
{
    gpa_object_t *obj = d->obj;
    obj->pods = gpa_arena_grow(d->a, obj->pods, obj->npods, obj->npods + 1, sizeof(*obj->pods));
    obj->pods[obj->npods] = *pod;
    obj->pods[obj->npods++].hami = d->hami;
}

static where_t where_of(const gpa_workload_node_t *node)
{
    return (where_t){node->path, node->pointer};
}

/* A Pod template ({metadata, spec}), or a Pod itself: the walker's visit for podTemplates paths. */
static int visit_template(void *ctx, const gpa_workload_node_t *node)
{
    decoder_t *d = ctx;
    where_t w = where_of(node);
    gpa_value_t *meta, *spec;
    if (node->value->type != GPA_VOBJECT)
        return wrong_type(d, node->value, w.path, GPA_VOBJECT);
    if (member(d, node->value, "metadata", GPA_VOBJECT, w, &meta) != 0 ||
        member(d, node->value, "spec", GPA_VOBJECT, w, &spec) != 0)
        return -1;
    where_t spec_where = where_key(d, w, "spec");
    const gpa_value_t *stray = gpa_value_get(node->value, "containers");
    if (stray != NULL && (spec == NULL || gpa_value_get(spec, "containers") == NULL)) /* the mis-indented Pod */
        return gpa_schema_fail(d->err, stray, where_key(d, spec_where, "containers").path,
                               "missing: a Pod needs its list of containers here; this one is beside spec (indent it under spec)");
    if (spec == NULL)
        return gpa_schema_fail(d->err, node->value, where_key(d, spec_where, "containers").path, "%s", no_containers);
    gpa_podspec_t pod;
    if (decode_podspec(d, meta, where_key(d, w, "metadata"), spec, spec_where, &pod) != 0)
        return -1;
    push_pod(d, &pod);
    return 0;
}

/* A PodSpec with no metadata of its own: the visit for podSpecs paths. */
static int visit_podspec(void *ctx, const gpa_workload_node_t *node)
{
    decoder_t *d = ctx;
    where_t w = where_of(node);
    if (node->value->type != GPA_VOBJECT)
        return wrong_type(d, node->value, w.path, GPA_VOBJECT);
    gpa_podspec_t pod;
    if (decode_podspec(d, NULL, where_key(d, w, "metadata"), node->value, w, &pod) != 0)
        return -1;
    pod.annotations_path = NULL;
    push_pod(d, &pod);
    return 0;
}

/* A ResourceRequirements read as one container named after its owner (TrainJob: `trainer`): the visit for resources paths. */
static int visit_resources(void *ctx, const gpa_workload_node_t *node)
{
    decoder_t *d = ctx;
    where_t w = where_of(node);
    if (node->value->type != GPA_VOBJECT)
        return wrong_type(d, node->value, w.path, GPA_VOBJECT);
    gpa_container_t *c = gpa_arena_calloc(d->a, 1, sizeof(*c));
    c->name = node->owner;
    c->hami = d->hami;
    c->path = w.path;
    c->pointer = w.pointer;
    c->resources_path_ = w.path; /* the node itself */
    c->resources_pointer_ = w.pointer;
    c->line = node->value->line;
    c->column = node->value->column;
    if (decode_resources(d, node->value, w, c) != 0)
        return -1;
    gpa_podspec_t pod = {.path = w.path, .pointer = w.pointer, .containers = c, .ncontainers = 1};
    push_pod(d, &pod);
    return 0;
}

static int walk_paths(decoder_t *d, gpa_value_t *root, const char *const *paths, gpa_workload_visit_cb visit)
{
    for (size_t i = 0; paths != NULL && paths[i] != NULL; i++)
        if (gpa_workload_walk(d->a, root, paths[i], visit, d, d->err) != 0)
            return -1;
    return 0;
}

static int decode_pods(decoder_t *d, const gpa_workload_t *w, gpa_value_t *root)
{
    if (walk_paths(d, root, w->pod_templates, visit_template) != 0 || walk_paths(d, root, w->pod_specs, visit_podspec) != 0)
        return -1;
    return walk_paths(d, root, w->resources, visit_resources);
}

/*
 * Who the object is. The namespace decides exclusion, so in a kind gpuadmit reads (`read`) metadata must be a
 * mapping and namespace a string; names only name the object in reports, and in any other kind nothing is
 * checked at all: whatever it holds is the API server's to refuse (docs/rules.md#objects).
 */
static int decode_metadata(decoder_t *d, const gpa_value_t *root, int read)
{
    const where_t top = {"", ""};
    where_t mw = where_key(d, top, "metadata");
    gpa_object_t *obj = d->obj;
    gpa_value_t *meta = gpa_value_get(root, "metadata");
    if (meta != NULL && meta->type != GPA_VOBJECT) {
        if (read && meta->type != GPA_VNULL)
            return wrong_type(d, meta, mw.path, GPA_VOBJECT);
        meta = NULL;
    }
    if (meta != NULL && read && string_member(d, meta, "namespace", mw, &obj->ns) != 0)
        return -1;
    /* The namespace is compared as a C string (excluded namespaces): one holding a NUL would be cut short there. */
    const gpa_value_t *ns = obj->ns != NULL ? gpa_value_get(meta, "namespace") : NULL;
    if (ns != NULL && memchr(ns->u.str.ptr, '\0', ns->u.str.len) != NULL)
        return gpa_schema_fail(d->err, ns, gpa_schema_path(d->a, mw.path, "namespace"), "must not contain a NUL character");
    if (meta != NULL && !read)
        obj->ns = scalar_text(gpa_value_get(meta, "namespace"));
    if (obj->ns == NULL)
        obj->ns = "";
    const char *name = meta != NULL ? scalar_text(gpa_value_get(meta, "name")) : NULL;
    const char *generate = meta != NULL ? scalar_text(gpa_value_get(meta, "generateName")) : NULL;
    obj->generated_name = name == NULL && generate != NULL;
    obj->name = name != NULL ? name : generate != NULL ? concat(d->a, generate, "*", "") : "";
    if (meta != NULL) {
        lenient_pairs(d, gpa_value_get(meta, "labels"), &obj->labels, &obj->nlabels);
        lenient_pairs(d, gpa_value_get(meta, "annotations"), &obj->annotations, &obj->nannotations);
    }
    const gpa_value_t *status = gpa_value_get(root, "status");
    obj->phase = status != NULL && status->type == GPA_VOBJECT ? gpa_value_string(gpa_value_get(status, "phase")) : NULL;
    return 0;
}

/* A resource.k8s.io object (the dra dialect on): a claim a controller made is read no further. */
static int decode_dra(decoder_t *d, gpa_value_t *doc, gpa_dra_kind_t kind)
{
    gpa_object_t *obj = d->obj;
    int generated = gpa_pairs_get(obj->annotations, obj->nannotations, GPA_DRA_ANNOTATION_POD_CLAIM) != NULL ||
                    gpa_pairs_get(obj->annotations, obj->nannotations, GPA_DRA_ANNOTATION_EXTENDED_CLAIM) != NULL;
    gpa_dra_object_t *dra;
    if (gpa_dra_decode(d->a, doc, kind, obj->api_version, obj->ns, obj->name, generated, &dra, d->err) != 0)
        return -1;
    obj->dra = dra;
    return 0;
}

/* An integer at `path` (steps joined by dots) of root, `dflt` when absent or not a whole number (the API server
 * refuses those): how many Pods a workload makes at once. */
static int64_t count_at(const gpa_value_t *root, const char *const *steps, size_t n, int64_t dflt)
{
    const gpa_value_t *v = root;
    for (size_t i = 0; i < n && v != NULL; i++)
        v = v->type == GPA_VOBJECT ? gpa_value_get(v, steps[i]) : NULL;
    if (v == NULL || v->type != GPA_VNUMBER)
        return dflt;
    gpa_quantity_t q = gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
    return q.status == GPA_Q_OK && q.suffix == GPA_QS_NONE && q.value >= 0 ? q.value : dflt;
}

/* gpa_object_t.replicas for the kinds whose replica count Kubernetes defines. */
static int64_t replicas_of(const gpa_object_t *obj, const gpa_value_t *root)
{
    static const char *const replicas[] = {"spec", "replicas"}, *const parallelism[] = {"spec", "parallelism"},
                             *const cron[] = {"spec", "jobTemplate", "spec", "parallelism"};
    const char *group = strchr(obj->api_version, '/') != NULL ? obj->api_version : "";
    if (strcmp(obj->api_version, "v1") == 0 && strcmp(obj->kind, "Pod") == 0)
        return 1;
    if (strncmp(group, "apps/", 5) == 0) {
        if (strcmp(obj->kind, "DaemonSet") == 0)
            return GPA_REPLICAS_MANY;
        if (strcmp(obj->kind, "Deployment") == 0 || strcmp(obj->kind, "ReplicaSet") == 0 || strcmp(obj->kind, "StatefulSet") == 0)
            return count_at(root, replicas, 2, 1);
    }
    if (strncmp(group, "batch/", 6) == 0 && strcmp(obj->kind, "Job") == 0)
        return count_at(root, parallelism, 2, 1);
    if (strncmp(group, "batch/", 6) == 0 && strcmp(obj->kind, "CronJob") == 0)
        return count_at(root, cron, 4, 1);
    return GPA_REPLICAS_UNKNOWN;
}

int gpa_decode_object_with(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_value_t *doc, gpa_object_t **out, gpa_error_t *err)
{
    if (doc->type != GPA_VOBJECT)
        return gpa_schema_want(err, doc, GPA_VOBJECT, "");
    if (opts == NULL)
        opts = &gpa_decode_opts_default;
    const gpa_workloads_t *extra = opts->workloads;
    gpa_object_t *obj = gpa_arena_calloc(a, 1, sizeof(*obj));
    decoder_t d = {a, err, obj, opts->hami, opts, (opts->dialects & GPA_DIALECT_DRA) != 0};
    obj->root = doc;
    obj->line = doc->line;
    obj->column = doc->column;
    /* Not strings: then not a kind gpuadmit reads (the API server refuses it). */
    obj->api_version = string_text(&d, gpa_value_get(doc, "apiVersion"));
    obj->kind = string_text(&d, gpa_value_get(doc, "kind"));
    if (obj->api_version == NULL)
        obj->api_version = "";
    if (obj->kind == NULL)
        obj->kind = "";
    const gpa_workload_t *w = gpa_workload_find(extra, obj->api_version, obj->kind);
    gpa_dra_kind_t dk = d.dra ? gpa_dra_kind_of(obj->api_version, obj->kind) : GPA_DRA_NONE;
    if (decode_metadata(&d, doc, w != NULL || dk != GPA_DRA_NONE) != 0 || (w != NULL && decode_pods(&d, w, doc) != 0) ||
        (dk != GPA_DRA_NONE && decode_dra(&d, doc, dk) != 0))
        return -1;
    obj->replicas = replicas_of(obj, doc);
    *out = obj;
    return 0;
}

/* ---- what decoding reads (gpa_decode_filter) ---------------------------------------------------------------------- */

/* A container: its name and its resources (whose every name is read: strays, unknown resources). */
static void filter_containers(gpa_arena_t *a, gpa_json_filter_t *spec, const char *key)
{
    static const char *const read[] = {"name", "resources", "securityContext.privileged"};
    gpa_json_filter_keep(a, gpa_json_filter_path(a, spec, key), read, 3);
}

/* What decode_podspec reads. */
static void filter_podspec(gpa_arena_t *a, gpa_json_filter_t *spec)
{
    static const char *const read[] = {"nodeSelector", "nodeName",
                                       "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", "resourceClaims"};
    filter_containers(a, spec, "containers");
    filter_containers(a, spec, "initContainers");
    gpa_json_filter_keep(a, spec, read, sizeof(read) / sizeof(read[0]));
}

/* What visit_template reads: the annotations, the spec, and whether containers stray beside it. */
static void filter_template(gpa_arena_t *a, gpa_json_filter_t *t)
{
    static const char *const read[] = {"metadata.annotations"};
    gpa_json_filter_keep(a, t, read, 1);
    filter_podspec(a, gpa_json_filter_path(a, t, "spec"));
    gpa_json_filter_path(a, t, "containers"); /* only whether it is there */
}

static void filter_paths(gpa_arena_t *a, gpa_json_filter_t *object, const char *const *paths,
                         void (*add)(gpa_arena_t *, gpa_json_filter_t *))
{
    for (size_t i = 0; paths != NULL && paths[i] != NULL; i++) {
        gpa_json_filter_t *node = gpa_json_filter_path(a, object, paths[i]);
        if (add != NULL)
            add(a, node);
        else
            gpa_json_filter_whole(node);
    }
}

static void filter_table(gpa_arena_t *a, const gpa_workloads_t *table, gpa_json_filter_t *object)
{
    for (size_t i = 0; table != NULL && i < table->len; i++) {
        const gpa_workload_t *w = &table->items[i];
        filter_paths(a, object, w->pod_templates, filter_template);
        filter_paths(a, object, w->pod_specs, filter_podspec);
        filter_paths(a, object, w->resources, NULL);
    }
}

void gpa_decode_filter(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_json_filter_t *object)
{
    /* What decode_metadata, gpa_decode_object_with and replicas_of read. */
    static const char *const read[] = {"apiVersion",
                                       "kind",
                                       "metadata.namespace",
                                       "metadata.name",
                                       "metadata.generateName",
                                       "metadata.labels",
                                       "metadata.annotations",
                                       "status.phase",
                                       "spec.replicas",
                                       "spec.parallelism",
                                       "spec.jobTemplate.spec.parallelism"};
    gpa_json_filter_keep(a, object, read, sizeof(read) / sizeof(read[0]));
    filter_table(a, &gpa_workloads_builtin, object);
    filter_table(a, opts != NULL ? opts->workloads : NULL, object);
    /* What gpa_dra_decode reads: the devices of a claim (spec) or template (spec.spec), a class's spec fields. */
    static const char *const dra[] = {"spec.devices", "spec.spec.devices", "spec.selectors", "spec.config",
                                      "spec.extendedResourceName"};
    if (opts == NULL || (opts->dialects & GPA_DIALECT_DRA) != 0)
        gpa_json_filter_keep(a, object, dra, sizeof(dra) / sizeof(dra[0]));
}

int gpa_decode_object(gpa_arena_t *a, gpa_value_t *doc, gpa_object_t **out, gpa_error_t *err)
{
    return gpa_decode_object_with(a, NULL, doc, out, err);
}

static int is_list(const gpa_value_t *doc)
{
    const char *kind = gpa_value_string(gpa_value_get(doc, "kind"));
    size_t n = kind != NULL ? strlen(kind) : 0;
    /* `kubectl get -o json` prints kind List; typed lists (PodList, DeploymentList) have the same shape. */
    return n >= 4 && strcmp(kind + n - 4, "List") == 0;
}

void gpa_decode_error_within(gpa_error_t *err, const char *where)
{
    size_t n = strlen(where), len = strlen(err->path), dot = len != 0 && err->path[0] != '[';
    if (n + dot + len >= sizeof(err->path))
        return; /* too deep to name whole: the line and column still say where */
    memmove(err->path + n + dot, err->path, len + 1);
    memcpy(err->path, where, n);
    if (dot)
        err->path[n] = '.';
}

int gpa_decode_document_with(gpa_arena_t *a, const gpa_decode_opts_t *extra, gpa_value_t *doc, gpa_objects_t *out, gpa_error_t *err)
{
    if (doc->type == GPA_VOBJECT && is_list(doc)) {
        gpa_value_t *items = gpa_value_get(doc, "items");
        if (items == NULL || items->type == GPA_VNULL)
            return 0;
        if (items->type != GPA_VARRAY)
            return gpa_schema_want(err, items, GPA_VARRAY, "items");
        for (size_t i = 0; i < items->u.array.len; i++)
            if (gpa_decode_item(a, extra, items->u.array.items[i], i, out, err) != 0)
                return -1;
        return 0;
    }
    gpa_object_t *obj;
    if (gpa_decode_object_with(a, extra, doc, &obj, err) != 0)
        return -1;
    *gpa_vec_push(a, out) = obj;
    return 0;
}

int gpa_decode_document(gpa_arena_t *a, gpa_value_t *doc, gpa_objects_t *out, gpa_error_t *err)
{
    return gpa_decode_document_with(a, NULL, doc, out, err);
}

int gpa_decode_item(gpa_arena_t *a, const gpa_decode_opts_t *extra, gpa_value_t *item, size_t index, gpa_objects_t *out,
                    gpa_error_t *err)
{
    if (gpa_decode_document_with(a, extra, item, out, err) == 0)
        return 0;
    char where[32]; /* an error inside a List item names the item: items[3].spec.containers[0] */
    snprintf(where, sizeof(where), "items[%zu]", index);
    gpa_decode_error_within(err, where);
    return -1;
}
