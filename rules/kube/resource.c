#include "kube/resource.h"
#include "base/distance.h"

#include <stdint.h>
#include <string.h>

/* NAME(s): the name and its length, so that a lookup compares lengths before bytes. */
#define NAME(s) s, sizeof(s) - 1
#define NAME_LEN(s) (sizeof(s) - 1)
static const struct {
    const char *name;
    size_t len;
    const char *pointer_name;
    gpa_dialect_t dialect;
} table[GPA_R__COUNT] = {
    [GPA_R_NVIDIA_GPU] = {NAME("nvidia.com/gpu"), "nvidia.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_AMD_GPU] = {NAME("amd.com/gpu"), "amd.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_DCU_GPU] = {NAME("dcu.com/gpu"), "dcu.com~1gpu", GPA_DIALECT_VENDOR},
    [GPA_R_GPU_MEMORY] = {NAME("koordinator.sh/gpu-memory"), "koordinator.sh~1gpu-memory", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_MEMORY_RATIO] = {NAME("koordinator.sh/gpu-memory-ratio"), "koordinator.sh~1gpu-memory-ratio",
                                GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_CORE] = {NAME("koordinator.sh/gpu-core"), "koordinator.sh~1gpu-core", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU_SHARED] = {NAME("koordinator.sh/gpu.shared"), "koordinator.sh~1gpu.shared", GPA_DIALECT_KOORDINATOR},
    [GPA_R_GPU] = {NAME("koordinator.sh/gpu"), "koordinator.sh~1gpu", GPA_DIALECT_KOORDINATOR},
    [GPA_R_MGPU_CORE] = {NAME("vke.volcengine.com/mgpu-core"), "vke.volcengine.com~1mgpu-core", GPA_DIALECT_MGPU},
    [GPA_R_MGPU_MEMORY] = {NAME("vke.volcengine.com/mgpu-memory"), "vke.volcengine.com~1mgpu-memory", GPA_DIALECT_MGPU},
    /* HAMi's tokens have no fixed name: gpa_resource_intern and gpa_resource_name_in read the configured ones. */
    [GPA_R_HAMI_NV_COUNT] = {NULL, 0, NULL, GPA_DIALECT_HAMI},
    [GPA_R_HAMI_NV_MEMORY] = {NULL, 0, NULL, GPA_DIALECT_HAMI},
    [GPA_R_HAMI_NV_PERCENT] = {NULL, 0, NULL, GPA_DIALECT_HAMI},
    [GPA_R_HAMI_NV_CORES] = {NULL, 0, NULL, GPA_DIALECT_HAMI},
};

/* ---- HAMi: the one table of its names (docs/rules.md#hami) ---- */

/* One vendor HAMi shares: its tokens (the count's own token, used when the count is renamed away from
 * `vendor_count`), its memory unit, its default names and its Pod annotations. */
static const struct {
    gpa_resource_t token[GPA_HAMI__NAMES]; /* GPA_R_UNKNOWN: no token (the priority) */
    gpa_resource_t vendor_count;           /* the vendor resource HAMi's count is when named alike */
    int64_t memory_unit_mib;
    const char *annotation[GPA_HAMI__ANNOTATIONS];
} hami_rows[GPA_HAMI__VENDORS] = {
    [GPA_HAMI_NVIDIA] = {{GPA_R_HAMI_NV_COUNT, GPA_R_HAMI_NV_MEMORY, GPA_R_HAMI_NV_PERCENT, GPA_R_HAMI_NV_CORES, GPA_R_UNKNOWN},
                         GPA_R_NVIDIA_GPU,
                         1,
                         {"nvidia.com/use-gputype", "nvidia.com/nouse-gputype", "nvidia.com/use-gpuuuid",
                          "nvidia.com/nouse-gpuuuid", "nvidia.com/vgpu-mode", "nvidia.com/numa-bind"}},
};

const gpa_hami_names_t gpa_hami_names_default = {
    .device = {[GPA_HAMI_NVIDIA] = {.name = {"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
                                             "nvidia.com/gpucores", "nvidia.com/priority"},
                                    .len = {NAME_LEN("nvidia.com/gpu"), NAME_LEN("nvidia.com/gpumem"),
                                            NAME_LEN("nvidia.com/gpumem-percentage"), NAME_LEN("nvidia.com/gpucores"),
                                            NAME_LEN("nvidia.com/priority")},
                                    .memory_factor = 1,
                                    .default_memory = 0,
                                    .default_cores = 0,
                                    .default_gpu_num = 1,
                                    .device_split_count = 10}},
};
#undef NAME
#undef NAME_LEN

static const gpa_hami_names_t *hami_or_default(const gpa_hami_names_t *names)
{
    return names != NULL ? names : &gpa_hami_names_default;
}

gpa_resource_t gpa_hami_token(const gpa_hami_names_t *names, gpa_hami_vendor_t v, gpa_hami_name_t name)
{
    const gpa_hami_device_t *d = &hami_or_default(names)->device[v];
    if (name == GPA_HAMI_COUNT) {
        gpa_resource_t vendor = gpa_resource_lookup(d->name[name], d->len[name]);
        if (vendor != GPA_R_UNKNOWN)
            return vendor;
    }
    return hami_rows[v].token[name];
}

int gpa_hami_vendor_of(gpa_resource_t r)
{
    for (int v = 0; v < GPA_HAMI__VENDORS; v++)
        for (int n = 0; n < GPA_HAMI__NAMES; n++)
            if (hami_rows[v].token[n] == r && r != GPA_R_UNKNOWN)
                return v;
    return -1;
}

int64_t gpa_hami_memory_unit_mib(gpa_hami_vendor_t v)
{
    return hami_rows[v].memory_unit_mib;
}

int gpa_hami_names_has(const gpa_hami_names_t *names, const char *name, size_t len)
{
    names = hami_or_default(names);
    for (int v = 0; v < GPA_HAMI__VENDORS; v++)
        for (int n = 0; n < GPA_HAMI__NAMES; n++)
            if (names->device[v].len[n] == len && memcmp(names->device[v].name[n], name, len) == 0)
                return 1;
    return 0;
}

void gpa_hami_names_set(gpa_hami_names_t *names, gpa_hami_vendor_t v, gpa_hami_name_t n, const char *name)
{
    names->device[v].name[n] = name;
    names->device[v].len[n] = strlen(name);
}

const char *gpa_hami_annotation(gpa_hami_vendor_t v, gpa_hami_annotation_t which)
{
    return hami_rows[v].annotation[which];
}

int gpa_hami_annotation_known(const char *key)
{
    if (strcmp(key, GPA_ANNOTATION_HAMI_GPU_POLICY) == 0 || strcmp(key, GPA_ANNOTATION_HAMI_NODE_POLICY) == 0)
        return 1;
    for (int v = 0; v < GPA_HAMI__VENDORS; v++)
        for (int k = 0; k < GPA_HAMI__ANNOTATIONS; k++)
            if (strcmp(key, hami_rows[v].annotation[k]) == 0)
                return 1;
    return 0;
}

const char *gpa_resource_name_in(const gpa_hami_names_t *names, gpa_resource_t r)
{
    int v = gpa_hami_vendor_of(r);
    if (v < 0)
        return gpa_resource_name(r);
    for (int n = 0; n < GPA_HAMI__NAMES; n++)
        if (hami_rows[v].token[n] == r)
            return hami_or_default(names)->device[v].name[n];
    return "";
}

gpa_resource_t gpa_resource_intern(const gpa_hami_names_t *names, const char *name, size_t len)
{
    gpa_resource_t r = gpa_resource_lookup(name, len);
    if (r != GPA_R_UNKNOWN)
        return r;
    names = hami_or_default(names);
    for (int v = 0; v < GPA_HAMI__VENDORS; v++)
        for (int n = 0; n < GPA_HAMI__NAMES; n++)
            if (hami_rows[v].token[n] != GPA_R_UNKNOWN && names->device[v].len[n] == len &&
                memcmp(names->device[v].name[n], name, len) == 0)
                return hami_rows[v].token[n];
    return GPA_R_UNKNOWN;
}

const char *gpa_resource_name(gpa_resource_t r)
{
    return gpa_hami_vendor_of(r) >= 0 ? gpa_resource_name_in(NULL, r) : r < GPA_R__COUNT ? table[r].name : "";
}

const char *gpa_resource_pointer_name(gpa_resource_t r)
{
    return r < GPA_R__COUNT && table[r].pointer_name != NULL ? table[r].pointer_name : "";
}

gpa_resource_t gpa_resource_lookup(const char *name, size_t len)
{
    /* Every known name is longer than 10 bytes and has a '/' among its first 20; most keys (cpu, memory) are
     * rejected by the length test alone. */
    if (len < 11 || len > 31)
        return GPA_R_UNKNOWN;
    for (int r = 0; r < GPA_R__COUNT; r++)
        if (table[r].len == len && table[r].name != NULL && memcmp(table[r].name, name, len) == 0)
            return (gpa_resource_t)r;
    return GPA_R_UNKNOWN;
}

gpa_dialect_t gpa_resource_dialect(gpa_resource_t r)
{
    return r < GPA_R__COUNT ? table[r].dialect : 0;
}

/* ---- near misses (docs/rules.md#unknown-resource) ---- */

/* The domains gpuadmit reads; `prefix` is the dialect's own start of a resource name (none for vendors). */
#define DOMAIN(name) name, sizeof(name) - 1
static const struct {
    const char *name;
    size_t len;
    gpa_dialect_t dialect;
    const char *prefix;
} domains[] = {
    {DOMAIN("nvidia.com"), GPA_DIALECT_VENDOR, NULL},
    {DOMAIN("amd.com"), GPA_DIALECT_VENDOR, NULL},
    {DOMAIN("dcu.com"), GPA_DIALECT_VENDOR, NULL},
    {DOMAIN("koordinator.sh"), GPA_DIALECT_KOORDINATOR, "gpu"},
    {DOMAIN("vke.volcengine.com"), GPA_DIALECT_MGPU, "mgpu"},
};
#undef DOMAIN

/* Names other systems define in those domains (NVIDIA's renamed shared GPUs and MIG slices, Koordinator's other
 * devices): never near misses. A trailing '*' matches any rest. HAMi's names are its configured ones, tokens of
 * the HAMi dialect (gpa_resource_intern), never strays. */
static const char *const foreign[] = {
    "nvidia.com/gpu.shared",
    "nvidia.com/mig-*",
    "koordinator.sh/rdma",
    "koordinator.sh/fpga",
};

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Index in domains[] of the domain a name is in (compared ignoring case), or -1. Runs on every name of every
 * requests and limits map (cpu, memory, ...): a name too short for any domain, or without a '/' where one of
 * them would end, is rejected before any comparison. */
static int domain_index(const char *name, size_t len)
{
    if (len < 8)
        return -1;
    const char *slash = memchr(name + 7, '/', len - 7 < 12 ? len - 7 : 12);
    if (slash == NULL)
        return -1;
    size_t dlen = (size_t)(slash - name);
    for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
        if (domains[i].len != dlen)
            continue;
        size_t k = 0;
        while (k < dlen && lower(name[k]) == domains[i].name[k])
            k++;
        if (k == dlen)
            return (int)i;
    }
    return -1;
}

gpa_dialect_t gpa_resource_domain(const char *name, size_t len)
{
    int d = domain_index(name, len);
    return d < 0 ? 0 : domains[d].dialect;
}

static int is_foreign(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
        size_t flen = strlen(foreign[i]);
        if (foreign[i][flen - 1] == '*' ? len >= flen - 1 && memcmp(name, foreign[i], flen - 1) == 0
                                        : len == flen && memcmp(name, foreign[i], len) == 0)
            return 1;
    }
    return 0;
}

/* Names are compared on at most this many bytes of their part after the domain: every known one is far
 * shorter, so a longer name is never within edit distance 2 of one, whatever follows. */
#define FOLD_MAX 64

typedef struct st_folded_t {
    char s[FOLD_MAX];
    size_t len;
} folded_t;

/* The name lowercased; with `bare`, the separators - . _ dropped as well. */
static void fold(const char *s, size_t len, int bare, folded_t *out)
{
    out->len = 0;
    for (size_t i = 0; i < len && out->len < FOLD_MAX; i++)
        if (!(bare && (s[i] == '-' || s[i] == '.' || s[i] == '_')))
            out->s[out->len++] = lower(s[i]);
}

static size_t edit_distance(const folded_t *x, const folded_t *y)
{
    return gpa_edit_distance(x->s, x->len, y->s, y->len, 0);
}

/* The name of token r a near miss is measured against: the fixed name, HAMi's as `names` configure it when the HAMi
 * dialect is enabled; NULL when r has none to offer. */
static const char *known_name(const gpa_hami_names_t *names, unsigned dialects, gpa_resource_t r)
{
    if (gpa_hami_vendor_of(r) < 0)
        return table[r].name;
    return (dialects & GPA_DIALECT_HAMI) != 0 ? gpa_resource_name_in(names, r) : NULL;
}

gpa_resource_t gpa_resource_near_miss(const gpa_hami_names_t *names, unsigned dialects, const char *name, size_t len)
{
    int d = domain_index(name, len);
    if (d < 0 || (dialects & (unsigned)domains[d].dialect) == 0 || gpa_resource_intern(names, name, len) != GPA_R_UNKNOWN ||
        gpa_hami_names_has(names, name, len) || is_foreign(name, len))
        return GPA_R_UNKNOWN;
    size_t dlen = domains[d].len + 1;
    folded_t low, bare;
    fold(name + dlen, len - dlen, 0, &low);
    fold(name + dlen, len - dlen, 1, &bare);
    const char *prefix = domains[d].prefix;
    int near = prefix != NULL && low.len >= strlen(prefix) && memcmp(low.s, prefix, strlen(prefix)) == 0;
    gpa_resource_t closest = GPA_R_UNKNOWN;
    size_t closest_key = SIZE_MAX;
    for (int r = 0; r < GPA_R__COUNT; r++) {
        const char *known = known_name(names, dialects, (gpa_resource_t)r);
        if (known == NULL || strncmp(known, domains[d].name, dlen - 1) != 0 || known[dlen - 1] != '/')
            continue;
        folded_t klow, kbare;
        fold(known + dlen, strlen(known) - dlen, 0, &klow);
        fold(known + dlen, strlen(known) - dlen, 1, &kbare);
        size_t by_letters = edit_distance(&bare, &kbare), by_text = edit_distance(&low, &klow);
        near |= by_letters == 0 || by_text <= 2;
        /* Closest: fewest letters apart, then fewest edits of the text as written; ties go to table order. */
        size_t key = by_letters * (FOLD_MAX + 1) + by_text;
        if (key < closest_key) {
            closest_key = key;
            closest = (gpa_resource_t)r;
        }
    }
    return near ? closest : GPA_R_UNKNOWN;
}

static const struct {
    const char *name;
    gpa_dialect_t dialect;
} dialect_names[] = {{"vendor", GPA_DIALECT_VENDOR},
                     {"koordinator", GPA_DIALECT_KOORDINATOR},
                     {"mgpu", GPA_DIALECT_MGPU},
                     {"hami", GPA_DIALECT_HAMI},
                     {"dra", GPA_DIALECT_DRA}};

gpa_dialect_t gpa_dialect_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(dialect_names) / sizeof(dialect_names[0]); i++)
        if (strcmp(name, dialect_names[i].name) == 0)
            return dialect_names[i].dialect;
    return 0;
}

const char *gpa_dialect_name(unsigned dialect)
{
    for (size_t i = 0; i < sizeof(dialect_names) / sizeof(dialect_names[0]); i++)
        if (dialect == (unsigned)dialect_names[i].dialect)
            return dialect_names[i].name;
    return NULL;
}
