/*
 * Configuration (README.md#configuration): thresholds, enabled dialects, per-rule actions, excluded namespaces, placement,
 * the kinds to read besides the built-in ones (`workloads`; pass &cfg->decode to gpa_decode_*_with),
 * the resource names known beyond gpuadmit's own (`knownResources`), and which mutations run (`mutations`).
 *
 * The values and what the rules ask of them live here; reading a document into them is config_load.c's (the
 * reader knows the rule table's ids and defaults, the values do not: the rule families read this header, and the
 * table names the families, so nothing here may point back at the table; docs/decisions.md).
 *
 * Ownership: a configuration is immutable once loaded and reference-counted, so the webhook can swap in a
 * reloaded one while requests in flight still hold the old one. gpa_config_load() returns a new configuration
 * with one reference; gpa_config_release() drops one and frees on the last.
 */
#ifndef GPA_CONFIG_H
#define GPA_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "alloc/alloc.h"
#include "document/value.h"
#include "kube/decode.h"
#include "kube/resource.h"
#include "kube/workloads.h"
#include "policy/mutations.h"
#include "policy/verdict.h"

/* At least the number of rows of the rule table (rules.h; rules.c asserts it): configurations size their per-rule
 * actions by it. */
#define GPA_RULE_MAX 48

/* The NVIDIA DRA driver's feature gates that decide what its opaque configuration may ask (dra.nvidia.featureGates;
 * docs/rules.md#dra-opaque-config). */
typedef enum en_gpa_nvidia_gate_t {
    GPA_NVIDIA_GATE_TIME_SLICING, /* TimeSlicingSettings */
    GPA_NVIDIA_GATE_MPS,          /* MPSSupport */
    GPA_NVIDIA_GATE_CONSUMABLE,   /* ConsumableShares */
    GPA_NVIDIA_GATE_DYNAMIC_MIG,  /* DynamicMIG */
    GPA_NVIDIA__GATES,
} gpa_nvidia_gate_t;

/* The gate's name as the driver's chart spells it ("TimeSlicingSettings"; static). */
const char *gpa_nvidia_gate_name(gpa_nvidia_gate_t g);

/* The `dra` block (README.md#configuration). */
typedef struct st_gpa_config_dra_t {
    /* dra.kubernetesVersion as "1.<minor>": which resource.k8s.io versions the cluster serves (dra-api-version).
     * kube_minor 0: unset (the live cluster's where a front end knows it, else GPA_DRA_DEFAULT_MINOR). */
    unsigned kube_minor;
    int64_t rounding_warn_percent; /* dra.roundingWarnPercent, default 10 (dra-capacity-rounding, part 2) */
    /* dra.nvidia.featureGates: gates_set 0 when the block is absent (then nothing is known, no gate finding);
     * else gate g is on when bit (1u << g) of gates_on is set (a gate the block does not name: the driver's default,
     * off for all four). Gates the driver has that are not listed above are accepted and ignored. */
    int nvidia_gates_set;
    unsigned nvidia_gates_on;
} gpa_config_dra_t;

#define GPA_DRA_DEFAULT_MINOR 36

/* Whether NVIDIA gate g is known to be on (1), known to be off (0), or not known (-1: no featureGates configured). */
static inline int gpa_config_nvidia_gate(const gpa_config_dra_t *dra, gpa_nvidia_gate_t g)
{
    return dra->nvidia_gates_set ? (int)((dra->nvidia_gates_on >> g) & 1u) : -1;
}

typedef struct st_gpa_config_t {
    int64_t min_device_memory;          /* bytes; default 256Mi */
    unsigned dialects;                  /* GPA_DIALECT_* bits; default all */
    gpa_action_t actions[GPA_RULE_MAX]; /* indexed like the rule table (rules.h); default from the table */
    const char **exclude_namespaces;    /* default {"kube-system"} */
    size_t nexclude_namespaces;
    gpa_alloc_policy_t placement; /* strategy, coreWeight (default unset: per dialect), maxPodsPerDevice */
    const char **known_resources; /* knownResources: names unknown-resource never flags; default none */
    size_t nknown_resources;
    unsigned mutations;        /* `mutations`: bit 1u << i set when gpa_mutations[i] is on; default from the table */
    gpa_workloads_t workloads; /* `workloads`: kinds read besides the built-in table (kube/workloads.h); none by default */
    gpa_hami_names_t hami;     /* `hami`: HAMi's names and defaults (kube/resource.h); default HAMi's own */
    gpa_config_dra_t dra;      /* `dra`: the cluster's version, the NVIDIA driver's gates */
    /* What decoding needs of this configuration (kube/decode.h): &workloads, &hami, dialects; `known` NULL. Pass
     * &cfg->decode to gpa_decode_*_with, or a copy with `known` set where DeviceClasses are known. */
    gpa_decode_opts_t decode;
    /* What loading noticed without refusing the configuration (HAMi keys accepted and ignored): set_ when there
     * is something to tell; the front end that loads the file prints it once, as a warning. */
    gpa_error_t warning;
    const char *source; /* file it was read from, or NULL for the defaults */
    int refcnt_;
    gpa_arena_t arena_;
} gpa_config_t;

/* ---- config_load.c: the reader ---- */

/* The defaults, new (one reference). */
gpa_config_t *gpa_config_default(void);
/*
 * Reads a configuration document. Unknown keys, unknown rule ids, bad actions, bad quantities and wrong types
 * are errors with the node's line and column: a bad config is never half-applied. `source` is copied.
 */
int gpa_config_load(const gpa_value_t *doc, const char *source, gpa_config_t **out, gpa_error_t *err);
/* Parses text (YAML or JSON) and loads it: the one call the front ends use after reading a file. */
int gpa_config_parse(const char *text, size_t len, const char *source, gpa_config_t **out, gpa_error_t *err);
gpa_config_t *gpa_config_retain(gpa_config_t *cfg);
void gpa_config_release(gpa_config_t *cfg); /* NULL is fine */

/* ---- what the rules and the drivers ask ---- */

/* Whether `name` (len bytes) is listed under knownResources. */
static inline int gpa_config_knows_resource(const gpa_config_t *cfg, const char *name, size_t len)
{
    for (size_t i = 0; i < cfg->nknown_resources; i++)
        if (strlen(cfg->known_resources[i]) == len && memcmp(cfg->known_resources[i], name, len) == 0)
            return 1;
    return 0;
}
/* Whether mutation m is switched on (`mutations: {id: on|off}`). */
static inline int gpa_config_mutation_on(const gpa_config_t *cfg, size_t m)
{
    return (cfg->mutations & (1u << m)) != 0;
}
/* Whether objects of this namespace are never checked or mutated. */
static inline int gpa_config_excludes(const gpa_config_t *cfg, const char *ns)
{
    if (ns == NULL)
        return 0;
    for (size_t i = 0; i < cfg->nexclude_namespaces; i++)
        if (strcmp(cfg->exclude_namespaces[i], ns) == 0)
            return 1;
    return 0;
}

#endif
