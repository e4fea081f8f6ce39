/*
 * What a GPU request means, per dialect: the one reading of a container's GPU amounts that the rules, the
 * mutations and the allocator's normalization all share (docs/rules.md, "Reading amounts" and "Dialects").
 *
 * Reading amounts (one convention for every reader):
 *   - an amount is the request, else the limit (gpa_container_amount, model.h);
 *   - resources of dialects that are not enabled (`dialects`, GPA_DIALECT_* bits) are not seen at all;
 *   - "declared" means present and not an exact 0: a resource declared as 0 counts as not declared (only the
 *     non-positive rule looks at raw amounts itself);
 *   - arithmetic only ever uses values that parsed (GPA_Q_OK) and are > 0; malformed-quantity and non-positive
 *     report the others, so the arithmetic skips them instead of reporting them twice.
 *
 * Ownership: everything returned lives in the arena passed in, or borrows from the model.
 */
#ifndef GPA_GPU_REQUEST_H
#define GPA_GPU_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "kube/model.h"
#include "kube/resource.h"

#define GPA_MIB ((int64_t)1 << 20)
#define GPA_GIB ((int64_t)1 << 30)

/* ---- reading amounts ---- */

/* The amount (request, else limit) of r in c, or NULL when absent or r's dialect is not enabled. */
static inline const gpa_amount_t *gpa_gpu_amount(unsigned dialects, const gpa_container_t *c, gpa_resource_t r)
{
    if ((dialects & (unsigned)gpa_resource_dialect(r)) == 0)
        return NULL;
    return gpa_container_amount(c, r);
}

/* Declared: present, and not an exact 0. */
static inline int gpa_gpu_declared(unsigned dialects, const gpa_container_t *c, gpa_resource_t r)
{
    const gpa_amount_t *am = gpa_gpu_amount(dialects, c, r);
    return am != NULL && !(am->status == GPA_Q_OK && am->value == 0);
}

/* The value of a declared amount that parsed and is positive (1, *v set), else 0 (*v = 0). */
static inline int gpa_gpu_value(unsigned dialects, const gpa_container_t *c, gpa_resource_t r, int64_t *v)
{
    const gpa_amount_t *am = gpa_gpu_amount(dialects, c, r);
    *v = 0;
    if (am == NULL || am->status != GPA_Q_OK || am->value <= 0)
        return 0;
    *v = am->value;
    return 1;
}

/* Any resource of dialect d declared in c. */
int gpa_gpu_any(unsigned dialects, const gpa_container_t *c, gpa_dialect_t d);
/* mGPU container: mgpu-core or mgpu-memory appears in its requests or limits (even as 0), dialect enabled. */
int gpa_gpu_is_mgpu(unsigned dialects, const gpa_container_t *c);
/* Every amount of dialect d in c parses, is not negative, and where request and limit are both given they are
 * equal: what malformed-quantity, non-positive (negatives) and request-limit-mismatch ask. 1 when d is off. */
int gpa_gpu_sound(unsigned dialects, const gpa_container_t *c, gpa_dialect_t d);

/* ---- names that are no GPU resource ---- */

/* A name in a container's requests or limits that is in the domain of an enabled dialect (nvidia.com,
 * koordinator.sh, ...: gpa_resource_domain) and is no resource gpuadmit knows: what unknown-resource examines. */
typedef struct st_gpa_stray_t {
    const char *name; /* as written, NUL-terminated (borrowed from the document) */
    size_t len;
    const char *map;       /* "requests" or "limits": where it was read */
    unsigned line, column; /* of its value */
} gpa_stray_t;

/* The strays of c, each name once: those of requests, then those only in limits. Returns how many; *out is
 * arena-owned (NULL when none). */
size_t gpa_gpu_strays(gpa_arena_t *a, unsigned dialects, const gpa_container_t *c, gpa_stray_t **out);
/* "spec.containers[0].resources.requests[\"koordinator.sh/gpu-shared\"]": where stray s of c is (arena-owned).
 * Formatted on demand: most strays are names other systems define, never reported. */
const char *gpa_gpu_stray_path(gpa_arena_t *a, const gpa_container_t *c, const gpa_stray_t *s);

/* ---- Koordinator ---- */

/*
 * One resource's amount as a view reads it, whatever it was read from: a container's request (else limit), or
 * a mutation's plan of what the container will hold once patched.
 */
typedef struct st_gpa_gpu_value_t {
    int present;   /* given (request or limit), even as 0 or unparsable */
    int ok;        /* parsed to a whole number: `value` counts */
    int64_t value; /* when ok */
} gpa_gpu_value_t;

/*
 * One Koordinator request as every reader sees it: one container's values (or a plan's), or a Pod's totals (the
 * scheduler sums a Pod's containers, Kubernetes' PodRequests rule). Build it with gpa_koord_view_container or
 * gpa_koord_view_values (never by hand, except a Pod's totals: v only).
 */
typedef struct st_gpa_koord_view_t {
    int64_t v[GPA_R__COUNT];  /* declared, parsed, positive values; 0 otherwise */
    unsigned present;         /* bit 1u << r: r is given at all (even as 0 or malformed) */
    unsigned declared;        /* bit 1u << r: given and not an exact 0 ("declared", above) */
    int shared_unusable;      /* gpu.shared declared but negative, 0 or malformed: non-positive says so */
    const gpa_container_t *c; /* the container read; NULL for a Pod's totals or a plan */
} gpa_koord_view_t;

void gpa_koord_view_container(unsigned dialects, const gpa_container_t *c, gpa_koord_view_t *out);
/* The view of values indexed by resource (a mutation's plan); resources of dialects not enabled are not seen. */
void gpa_koord_view_values(unsigned dialects, const gpa_gpu_value_t values[GPA_R__COUNT], gpa_koord_view_t *out);

static inline int gpa_koord_view_declared(const gpa_koord_view_t *kv, gpa_resource_t r)
{
    return (kv->declared & (1u << r)) != 0;
}
static inline int gpa_koord_view_present(const gpa_koord_view_t *kv, gpa_resource_t r)
{
    return (kv->present & (1u << r)) != 0;
}
/* A memory form (gpu-memory or gpu-memory-ratio) is declared. */
static inline int gpa_koord_view_has_memory(const gpa_koord_view_t *kv)
{
    return gpa_koord_view_declared(kv, GPA_R_GPU_MEMORY) || gpa_koord_view_declared(kv, GPA_R_GPU_MEMORY_RATIO);
}

/*
 * The forms: which combinations of Koordinator resources one container may declare. Each fault is a rule's
 * (docs/rules.md#rules); a container with none of them and something to ask for (gpa_koord_view_well_formed) has a meaning.
 */
enum {
    GPA_KOORD_MEMORY_AND_RATIO = 1 << 0,      /* gpu-memory and gpu-memory-ratio (memory-ratio-exclusive) */
    GPA_KOORD_CORE_WITHOUT_MEMORY = 1 << 1,   /* gpu-core and no memory form (core-without-memory) */
    GPA_KOORD_SHARED_WITHOUT_MEMORY = 1 << 2, /* gpu.shared and no memory form (shared-without-memory) */
    GPA_KOORD_DEPRECATED_MIXED = 1 << 3,      /* koordinator.sh/gpu with another share resource (deprecated-gpu-mixed) */
    GPA_KOORD_ZERO_COUNT = 1 << 4,            /* gpu.shared or koordinator.sh/gpu given as 0 (non-positive) */
};
/* The GPA_KOORD_* faults of a container's (or a plan's) view; 0 when its form is sound. */
unsigned gpa_koord_view_faults(const gpa_koord_view_t *kv);
/* The other share resource koordinator.sh/gpu is declared beside (GPA_KOORD_DEPRECATED_MIXED), first of gpu-memory,
 * gpu-memory-ratio, gpu-core, gpu.shared; GPA_R_UNKNOWN when none. */
gpa_resource_t gpa_koord_view_mixed_with(const gpa_koord_view_t *kv);
/* No fault, and something to ask for: koordinator.sh/gpu, or a memory form. */
int gpa_koord_view_well_formed(const gpa_koord_view_t *kv);
/* koordinator.sh/gpu: N (N > 0) with no other share resource declared and no gpu.shared given at all: the form
 * expand-gpu rewrites (a share resource declared as 0 counts as not declared; gpu.shared: 0 is non-positive's). */
int gpa_koord_view_deprecated_alone(const gpa_koord_view_t *kv);
/* A memory form with a positive value and no gpu.shared given: the form inject-gpu-shared completes with
 * gpa_koord_view_devices (and shared-required asks the user to). */
int gpa_koord_view_needs_shared(const gpa_koord_view_t *kv);

/* Compute percent (gpu-core, else the deprecated gpu) and memory ratio (gpu-memory-ratio, else gpu). */
int64_t gpa_koord_view_core(const gpa_koord_view_t *kv);
int64_t gpa_koord_view_ratio(const gpa_koord_view_t *kv);
/*
 * Devices a Koordinator request spreads over: gpu.shared when declared (0 when declared but unusable: negative
 * or malformed), else the derivation inject-gpu-shared writes: ratio/100 when ratio is a multiple of 100
 * (>= 100); else, with no ratio, core/100 when core is a multiple of 100 (>= 100); else 1.
 */
int64_t gpa_koord_view_devices(const gpa_koord_view_t *kv);

/*
 * Amounts that read like the wrong unit (docs/rules.md#unit-hint): koordinator.sh/gpu up to 9 reads like a count
 * of devices, but is a percent of one; a vendor count above 16 reads like a percent, but counts whole devices.
 */
#define GPA_UNIT_HINT_GPU_MAX 9
#define GPA_UNIT_HINT_VENDOR_MAX 16
/* What koordinator.sh/gpu: n means when n reads like a count (1..GPA_UNIT_HINT_GPU_MAX): "2% of one device; 2
 * devices are 200" (arena-owned); NULL for any other n. */
const char *gpa_koord_gpu_percent_note(gpa_arena_t *a, int64_t n);

/* Per-device share above 100 percent: x / n > 100, exactly. */
static inline int gpa_over_100(int64_t x, int64_t n)
{
    return x / n > 100 || (x / n == 100 && x % n != 0);
}

/* What each device of a Koordinator request gets. */
typedef struct st_gpa_koord_share_t {
    int64_t devices; /* n: gpu.shared, or its derivation */
    int64_t core;    /* percent of one device's compute: core / n */
    int64_t ratio;   /* percent of one device's memory: ratio / n (0 when memory is asked in bytes) */
    int64_t memory;  /* bytes: ceil(gpu-memory / n), never less than asked (0 when asked as a ratio) */
} gpa_koord_share_t;

/*
 * The per-device share of a view: 0 with *out set when the request splits evenly over its devices
 * (multi-card-divisibility: with gpu.shared, core and ratio are multiples of n; without it, values above 100
 * are whole devices) and no device gets more than 100 (per-device-over-100); -1 otherwise (the rules say why).
 * Forms are not checked here: see gpa_koord_view_well_formed.
 */
int gpa_koord_view_share(const gpa_koord_view_t *kv, gpa_koord_share_t *out);

/* ---- Volcano mGPU ---- */

/*
 * The mGPU annotation vke.volcengine.com/container-multiple-gpu, parsed once per Pod spec. Entries follow the
 * app containers in order; init containers are always one-card requests.
 */
typedef struct st_gpa_cards_t {
    const char *text;     /* the annotation's value; NULL when absent or the mgpu dialect is not enabled */
    size_t len;           /* entries ("2, 1,3" has 3) */
    const char **entries; /* each entry as written, spaces trimmed (arena-owned) */
    int64_t *k;           /* each entry's value, -1 when it is not a whole number >= 0 */
    int count_ok;         /* len equals the number of app containers */
    int entries_ok;       /* every entry is a whole number, and none is 0 for a container that requests mGPU */
    int usable;           /* present, count_ok and entries_ok: only then do entries count */
} gpa_cards_t;

/* Parses the annotation of `pod` (arena-owned results). Never fails: what is wrong shows in the flags. */
void gpa_cards_parse(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_cards_t *out);
/* Cards the annotation gives container c: k > 0 when the annotation is usable and c is an app container with a
 * positive entry, else 0 (a one-card request). */
int64_t gpa_cards_for(const gpa_cards_t *cards, const gpa_container_t *c);

/*
 * What one mGPU container asks for (docs/rules.md, "Volcano mGPU"): k cards when the annotation gives it an entry
 * k > 0, each core/k and memory/k; else one card, where a core above 100 means core/100 whole cards. The one
 * reading the rules (divisibility, per-card limits, full-card-memory, min-memory), normalization and KubeRay's
 * device count share.
 */
typedef struct st_gpa_mgpu_share_t {
    int64_t core;        /* mgpu-core: parsed and positive */
    int64_t memory;      /* mgpu-memory in MiB, the whole request: parsed and positive, else 0 */
    int64_t k;           /* cards the annotation gives (gpa_cards_for); 0: a one-card request */
    int64_t cards;       /* cards the request spans: k; else core/100 when that is a whole number above 1; else 1 */
    int64_t card_core;   /* core per card: core / cards */
    int64_t card_memory; /* MiB per card: memory / cards */
    int whole;           /* whole cards: core per card exactly 100 (core == 100 * cards) */
    unsigned faults;     /* GPA_MGPU_* bits; 0 when the request splits over its cards as asked */
} gpa_mgpu_share_t;

/* Why an mGPU request does not split over its cards; each is a rule's (docs/rules.md#rules). */
enum {
    GPA_MGPU_PARTIAL_CARDS = 1 << 0,     /* no annotation entry, core above 100 and no multiple of 100 (multi-card-divisibility) */
    GPA_MGPU_CORE_UNEVEN = 1 << 1,       /* core is no multiple of k (multi-card-divisibility) */
    GPA_MGPU_MEMORY_UNEVEN = 1 << 2,     /* memory is no multiple of k (multi-card-divisibility) */
    GPA_MGPU_OVER_100 = 1 << 3,          /* core / k above 100 (per-device-over-100) */
    GPA_MGPU_WHOLE_WITH_MEMORY = 1 << 4, /* whole cards with mgpu-memory declared as well (full-card-memory) */
    GPA_MGPU_AMBIGUOUS_MEMORY = 1 << 5,  /* mgpu-memory written with a binary suffix (ambiguous-unit) */
};

/* mgpu-memory read as written: the amount `am` (may be NULL) parsed and has a binary suffix, so "1Gi" would mean
 * 1073741824 MiB (ambiguous-unit). */
static inline int gpa_mgpu_memory_ambiguous(const gpa_amount_t *am)
{
    return am != NULL && am->status == GPA_Q_OK && am->suffix == GPA_QS_BINARY;
}

/*
 * Reads mGPU container c of a Pod whose annotation is `cards`: 0 with *out set when c is an mGPU container
 * (gpa_gpu_is_mgpu) with a parsed, positive mgpu-core; -1 otherwise (not mGPU, or a core that is absent, 0 or
 * malformed: non-positive and malformed-quantity say why). Amounts that are malformed or negative count as
 * absent here (the rules report them); out->faults says whether the request splits.
 */
int gpa_mgpu_share(unsigned dialects, const gpa_cards_t *cards, const gpa_container_t *c, gpa_mgpu_share_t *out);

/* ---- HAMi (docs/rules.md#hami) ---- */

/*
 * A container is HAMi's when it names a HAMi memory or core resource of a row (the row's memory, percentage or
 * cores token, in requests or limits, even as 0), the HAMi dialect enabled. Returns the row, or -1. Count-only
 * containers are not HAMi's: their count reads as the vendor's whole devices (which is what HAMi gives them).
 */
int gpa_hami_vendor(unsigned dialects, const gpa_container_t *c);

typedef enum en_gpa_hami_memory_t {
    GPA_HAMI_MEM_MIB,     /* the memory resource: memory_mib = value x unit x memoryFactor */
    GPA_HAMI_MEM_PERCENT, /* the percentage: percent of each card (floor, as HAMi computes) */
    GPA_HAMI_MEM_DEFAULT, /* defaultMemory MiB (not x memoryFactor) */
    GPA_HAMI_MEM_WHOLE,   /* the whole card */
} gpa_hami_memory_t;

/* What one HAMi container asks for, per vGPU: the one reading of its amounts. */
typedef struct st_gpa_hami_view_t {
    const gpa_container_t *c;
    gpa_hami_vendor_t vendor;
    const gpa_hami_device_t *device;         /* the row as configured (borrowed from the container's names) */
    gpa_resource_t token[GPA_HAMI__NAMES];   /* count (maybe the vendor's token), memory, percent, cores; priority none */
    const gpa_amount_t *am[GPA_HAMI__NAMES]; /* each amount read (request, else limit), NULL when absent */
    int64_t count;                           /* vGPUs: the count when it parsed, else defaultGPUNum when absent */
    gpa_hami_memory_t memory;
    int64_t memory_mib;  /* MIB and DEFAULT */
    int64_t percent;     /* PERCENT */
    int64_t cores;       /* gpucores, else 100 when the memory is the whole card, else defaultCores */
    int memory_overflow; /* the memory resource x unit x memoryFactor is above 2^31-1, HAMi's 32-bit MiB */
} gpa_hami_view_t;

/* Reads HAMi container c (gpa_hami_vendor >= 0) with the names it was decoded with: 0 with *out set, -1 when c is
 * not HAMi's. Amounts that did not parse or are negative read as absent (malformed-quantity, non-positive say why). */
int gpa_hami_view_container(unsigned dialects, const gpa_container_t *c, gpa_hami_view_t *out);
/* Whether a value of amount `am` is present and parsed to exactly 0. */
static inline int gpa_amount_zero(const gpa_amount_t *am)
{
    return am != NULL && am->status == GPA_Q_OK && am->value == 0;
}
/* Whether a value is present, parsed and positive (*v set), else 0. */
static inline int gpa_amount_positive(const gpa_amount_t *am, int64_t *v)
{
    *v = am != NULL && am->status == GPA_Q_OK && am->value > 0 ? am->value : 0;
    return *v > 0;
}

/* ---- a Pod spec's GPU facts ---- */

/* Facts about one Pod spec that several readers need, computed once per spec. */
typedef struct st_gpa_pod_facts_t {
    gpa_cards_t cards;
    /* Kubernetes PodRequests totals of declared, parsed, positive values: per resource, the larger of the sum
     * over app containers and the largest init container; -1 when a sum overflows. */
    int64_t total[GPA_R__COUNT];
    size_t koord_containers; /* containers (app and init) declaring any Koordinator resource */
    size_t hami_containers;  /* HAMi's containers (gpa_hami_vendor), app and init */
    /* Enabled dialects whose resources appear (even as 0 or malformed) in the Pod, the annotation counting as
     * mGPU, and so does a stray name in a dialect's domain (gpa_gpu_strays); per container likewise. A rule
     * skips Pods and containers none of its dialects appear in. */
    unsigned dialects;
    unsigned *app_dialects, *init_dialects;
} gpa_pod_facts_t;

void gpa_pod_facts_init(gpa_arena_t *a, unsigned dialects, const gpa_podspec_t *pod, gpa_pod_facts_t *out);

#endif
