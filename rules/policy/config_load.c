/*
 * The configuration's reader (config.h; README.md#configuration): a strict reader. Every key is known, every value has the type and
 * range README.md#configuration gives it, and the first fault is an error at its node (line:column from the parser), so a bad
 * config is never half-applied. Strings the configuration keeps live in its own arena. The reader knows the rule table (rule ids,
 * default actions); the configuration it fills does not, so the rules can read it (docs/decisions.md).
 */
#include "policy/config.h"
#include "alloc/strategy.h"
#include "kube/quantity.h"
#include "kube/resource.h"
#include "policy/mutations.h"
#include "policy/rules.h"
#include "document/docs.h"
#include "document/schema.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIN_DEVICE_MEMORY ((int64_t)256 << 20)
#define MAX_PODS_PER_DEVICE_LIMIT 1000000

static gpa_config_t *config_new(void)
{
    gpa_config_t *cfg = gpa_xcalloc(1, sizeof(*cfg));
    gpa_arena_init(&cfg->arena_);
    cfg->refcnt_ = 1;
    cfg->min_device_memory = DEFAULT_MIN_DEVICE_MEMORY;
    cfg->placement.max_pods_per_device = 16;
    cfg->dialects = GPA_DIALECT_ALL;
    for (size_t i = 0; i < gpa_nrules; i++)
        cfg->actions[i] = gpa_rules[i].action;
    cfg->mutations = gpa_mutations_default();
    cfg->exclude_namespaces = gpa_arena_alloc(&cfg->arena_, sizeof(*cfg->exclude_namespaces));
    cfg->exclude_namespaces[0] = gpa_arena_strdup(&cfg->arena_, "kube-system");
    cfg->nexclude_namespaces = 1;
    cfg->placement.strategy = GPA_STRATEGY_SCHEDULER; /* unset: each dialect's scheduler default (alloc/strategy.h) */
    cfg->placement.core_weight = GPA_CORE_WEIGHT_SCHEDULER;
    cfg->hami = gpa_hami_names_default;
    cfg->dra.rounding_warn_percent = 10;
    return cfg;
}

gpa_config_t *gpa_config_default(void)
{
    gpa_config_t *cfg = config_new();
    cfg->decode = (gpa_decode_opts_t){.workloads = &cfg->workloads, .hami = &cfg->hami, .dialects = cfg->dialects};
    return cfg;
}

gpa_config_t *gpa_config_retain(gpa_config_t *cfg)
{
    __atomic_add_fetch(&cfg->refcnt_, 1, __ATOMIC_RELAXED);
    return cfg;
}

void gpa_config_release(gpa_config_t *cfg)
{
    if (cfg == NULL || __atomic_sub_fetch(&cfg->refcnt_, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    gpa_arena_dispose(&cfg->arena_);
    free(cfg);
}

/* ---- reading ---- */

/* A quantity given as a string or a number (YAML reads `1e9` as a number). */
static int read_quantity(gpa_error_t *err, const gpa_value_t *v, const char *path, int64_t min, int64_t max, int64_t *out)
{
    if (v->type != GPA_VSTRING && v->type != GPA_VNUMBER)
        return gpa_schema_wrong_type(err, v, "a quantity such as 256Mi", path);
    gpa_quantity_t q = gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
    if (q.status != GPA_Q_OK)
        return gpa_schema_fail(err, v, path, "\"%s\" is %s", v->u.str.ptr, gpa_quantity_status_text(q.status));
    if (q.value < min || q.value > max)
        return gpa_schema_fail(err, v, path, "%s is out of range (%lld to %lld)", v->u.str.ptr, (long long)min, (long long)max);
    *out = q.value;
    return 0;
}

/* A whole number written as a number, with no unit. */
static int read_integer(gpa_error_t *err, const gpa_value_t *v, const char *path, int64_t min, int64_t max, int64_t *out)
{
    if (gpa_schema_want(err, v, GPA_VNUMBER, path) != 0)
        return -1;
    return read_quantity(err, v, path, min, max, out);
}

static int read_dialects(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VARRAY, "dialects") != 0)
        return -1;
    unsigned d = 0;
    for (size_t i = 0; i < v->u.array.len; i++) {
        const gpa_value_t *item = v->u.array.items[i];
        char path[64];
        snprintf(path, sizeof(path), "dialects[%zu]", i);
        if (gpa_schema_want(err, item, GPA_VSTRING, path) != 0)
            return -1;
        gpa_dialect_t one = gpa_dialect_parse(item->u.str.ptr);
        if (one == 0)
            return gpa_schema_fail(err, item, path, "unknown dialect \"%s\" (vendor, koordinator, mgpu, hami, dra)",
                                   item->u.str.ptr);
        d |= (unsigned)one;
    }
    cfg->dialects = d;
    return 0;
}

/* deny | warn | off. YAML 1.1 readers turn a bare `off` into false, so false is accepted as off. */
static int read_action(const gpa_value_t *v, const char *path, gpa_action_t *out, gpa_error_t *err)
{
    if (v->type == GPA_VBOOL && !v->u.boolean) {
        *out = GPA_ACTION_OFF;
        return 0;
    }
    if (v->type != GPA_VSTRING)
        return gpa_schema_wrong_type(err, v, "an action (deny, warn, off)", path);
    const char *s = v->u.str.ptr;
    if (strcmp(s, "deny") == 0)
        *out = GPA_ACTION_DENY;
    else if (strcmp(s, "warn") == 0)
        *out = GPA_ACTION_WARN;
    else if (strcmp(s, "off") == 0)
        *out = GPA_ACTION_OFF;
    else
        return gpa_schema_fail(err, v, path, "unknown action \"%s\" (deny, warn, off)", s);
    return 0;
}

static int read_rules(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VOBJECT, "rules") != 0)
        return -1;
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        char path[160];
        snprintf(path, sizeof(path), "rules.%s", m->key);
        int idx = gpa_rule_index(m->key);
        if (idx < 0 || strlen(m->key) != m->key_len)
            return gpa_schema_fail(err, m->value, path, "unknown rule \"%s\"", m->key);
        if (read_action(m->value, path, &cfg->actions[idx], err) != 0)
            return -1;
    }
    return 0;
}

/* mutations: {id: on | off}; YAML 1.1 readers turn a bare on/off into a boolean, so booleans are accepted. */
static int read_mutations(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VOBJECT, "mutations") != 0)
        return -1;
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        char path[160];
        snprintf(path, sizeof(path), "mutations.%s", m->key);
        int idx = gpa_mutation_index(m->key);
        if (idx < 0 || strlen(m->key) != m->key_len) {
            const char *known[GPA_MUTATION_MAX + 1] = {NULL};
            for (size_t k = 0; k < gpa_nmutations; k++)
                known[k] = gpa_mutations[k].id;
            return gpa_schema_unknown_field(err, m, "mutations", known);
        }
        const gpa_value_t *x = m->value;
        int on;
        if (x->type == GPA_VBOOL)
            on = x->u.boolean;
        else if (x->type == GPA_VSTRING && (strcmp(x->u.str.ptr, "on") == 0 || strcmp(x->u.str.ptr, "off") == 0))
            on = strcmp(x->u.str.ptr, "on") == 0;
        else
            return gpa_schema_wrong_type(err, x, "on or off", path);
        cfg->mutations = on ? cfg->mutations | 1u << idx : cfg->mutations & ~(1u << idx);
    }
    return 0;
}

static int read_namespaces(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VOBJECT, "namespaces") != 0)
        return -1;
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        if (strcmp(m->key, "exclude") != 0)
            return gpa_schema_unknown_field(err, m, "namespaces", (const char *const[]){"exclude", NULL});
        const gpa_value_t *list = m->value;
        if (gpa_schema_want(err, list, GPA_VARRAY, "namespaces.exclude") != 0)
            return -1;
        const char **names = gpa_arena_calloc(&cfg->arena_, list->u.array.len + 1, sizeof(*names));
        for (size_t j = 0; j < list->u.array.len; j++) {
            char path[64];
            snprintf(path, sizeof(path), "namespaces.exclude[%zu]", j);
            if (gpa_schema_want(err, list->u.array.items[j], GPA_VSTRING, path) != 0)
                return -1;
            names[j] = gpa_arena_strdup(&cfg->arena_, list->u.array.items[j]->u.str.ptr);
        }
        cfg->exclude_namespaces = names;
        cfg->nexclude_namespaces = list->u.array.len;
    }
    return 0;
}

/* knownResources: a list of resource names (docs/rules.md#unknown-resource). */
static int read_known_resources(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VARRAY, "knownResources") != 0)
        return -1;
    const char **names = gpa_arena_calloc(&cfg->arena_, v->u.array.len + 1, sizeof(*names));
    for (size_t i = 0; i < v->u.array.len; i++) {
        const gpa_value_t *item = v->u.array.items[i];
        char path[64];
        snprintf(path, sizeof(path), "knownResources[%zu]", i);
        if (gpa_schema_want(err, item, GPA_VSTRING, path) != 0)
            return -1;
        if (item->u.str.len == 0 || memchr(item->u.str.ptr, '/', item->u.str.len) == NULL)
            return gpa_schema_fail(err, item, path, "\"%s\" is not a resource name such as example.com/gpu", item->u.str.ptr);
        names[i] = gpa_arena_strdup(&cfg->arena_, item->u.str.ptr);
    }
    cfg->known_resources = names;
    cfg->nknown_resources = v->u.array.len;
    return 0;
}

static int read_strategy(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    const char *path = "placement.strategy";
    if (v->type == GPA_VNULL) { /* `strategy:` with no value: unset, as if not given */
        cfg->placement.strategy = GPA_STRATEGY_SCHEDULER;
        return 0;
    }
    if (v->type != GPA_VSTRING)
        return gpa_schema_wrong_type(err, v, "binpack or spread", path);
    if (gpa_strategy_parse(v->u.str.ptr, &cfg->placement.strategy) != 0)
        return gpa_schema_fail(err, v, path, "unknown strategy \"%s\" (binpack, spread)", v->u.str.ptr);
    return 0;
}

static int read_core_weight(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (v->type == GPA_VNULL) { /* unset, as if not given */
        cfg->placement.core_weight = GPA_CORE_WEIGHT_SCHEDULER;
        return 0;
    }
    return read_integer(err, v, "placement.coreWeight", 0, 100, &cfg->placement.core_weight);
}

static int read_placement(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VOBJECT, "placement") != 0)
        return -1;
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        int rc;
        if (strcmp(m->key, "strategy") == 0)
            rc = read_strategy(cfg, m->value, err);
        else if (strcmp(m->key, "coreWeight") == 0)
            rc = read_core_weight(cfg, m->value, err);
        else
            rc = gpa_schema_unknown_field(err, m, "placement", (const char *const[]){"strategy", "coreWeight", NULL});
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* ---- workloads: more kinds to read (kube/workloads.h) ---- */

/* One list of paths (`podTemplates`, `podSpecs` or `resources`), each well formed; NULL-terminated, in cfg's arena. */
static int read_workload_paths(gpa_config_t *cfg, const gpa_value_t *v, const char *path, const char *const **out, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VARRAY, path) != 0)
        return -1;
    const char **paths = gpa_arena_calloc(&cfg->arena_, v->u.array.len + 1, sizeof(*paths));
    for (size_t i = 0; i < v->u.array.len; i++) {
        const gpa_value_t *item = v->u.array.items[i];
        const char *item_path = gpa_arena_printf(&cfg->arena_, "%s[%zu]", path, i), *why;
        if (gpa_schema_want(err, item, GPA_VSTRING, item_path) != 0)
            return -1;
        if (gpa_workload_path_check(item->u.str.ptr, &why) != 0)
            return gpa_schema_fail(err, item, item_path, "\"%s\" %s", item->u.str.ptr, why);
        paths[i] = gpa_arena_strdup(&cfg->arena_, item->u.str.ptr);
    }
    *out = paths;
    return 0;
}

/* group and kind: the group alone ("" for core), never an apiVersion; a kind is a non-empty name. */
static int read_workload_name(gpa_config_t *cfg, const gpa_member_t *m, const char *path, const char **out, gpa_error_t *err)
{
    if (gpa_schema_want(err, m->value, GPA_VSTRING, path) != 0)
        return -1;
    const char *s = m->value->u.str.ptr;
    if (strcmp(m->key, "group") == 0 && strchr(s, '/') != NULL)
        return gpa_schema_fail(err, m->value, path,
                               "\"%s\" is an apiVersion; give the group alone (example.com), every version is read", s);
    if (strcmp(m->key, "kind") == 0 && s[0] == '\0')
        return gpa_schema_fail(err, m->value, path, "must not be empty");
    *out = gpa_arena_strdup(&cfg->arena_, s);
    return 0;
}

static int read_workload_field(gpa_config_t *cfg, const gpa_member_t *m, const char *path, gpa_workload_t *w, gpa_error_t *err)
{
    static const char *const fields[] = {"group", "kind", "podTemplates", "podSpecs", "resources", NULL};
    const char *at = gpa_schema_path(&cfg->arena_, path, m->key);
    if (strcmp(m->key, "group") == 0)
        return read_workload_name(cfg, m, at, &w->group, err);
    if (strcmp(m->key, "kind") == 0)
        return read_workload_name(cfg, m, at, &w->kind, err);
    if (strcmp(m->key, "podTemplates") == 0)
        return read_workload_paths(cfg, m->value, at, &w->pod_templates, err);
    if (strcmp(m->key, "podSpecs") == 0)
        return read_workload_paths(cfg, m->value, at, &w->pod_specs, err);
    if (strcmp(m->key, "resources") == 0)
        return read_workload_paths(cfg, m->value, at, &w->resources, err);
    return gpa_schema_unknown_field(err, m, path, fields);
}

static int has_paths(const char *const *paths)
{
    return paths != NULL && paths[0] != NULL;
}

static int read_workload(gpa_config_t *cfg, const gpa_value_t *v, const char *path, gpa_workload_t *w, gpa_error_t *err)
{
    memset(w, 0, sizeof(*w));
    if (gpa_schema_want(err, v, GPA_VOBJECT, path) != 0)
        return -1;
    for (size_t i = 0; i < v->u.object.len; i++)
        if (read_workload_field(cfg, &v->u.object.members[i], path, w, err) != 0)
            return -1;
    if (w->group == NULL || w->kind == NULL)
        return gpa_schema_fail(err, v, path, "needs group and kind (group \"\" is the core group)");
    if (!has_paths(w->pod_templates) && !has_paths(w->pod_specs) && !has_paths(w->resources))
        return gpa_schema_fail(err, v, path, "names no path: give podTemplates, podSpecs or resources");
    return 0;
}

/* Entries replace built-in ones of the same group and kind (a CRD's new version); two entries for one kind are an error. */
static int read_workloads(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VARRAY, "workloads") != 0)
        return -1;
    gpa_workload_t *items = gpa_arena_calloc(&cfg->arena_, v->u.array.len + 1, sizeof(*items));
    for (size_t i = 0; i < v->u.array.len; i++) {
        const char *path = gpa_arena_printf(&cfg->arena_, "workloads[%zu]", i);
        if (read_workload(cfg, v->u.array.items[i], path, &items[i], err) != 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(items[j].group, items[i].group) == 0 && strcmp(items[j].kind, items[i].kind) == 0)
                return gpa_schema_fail(err, v->u.array.items[i], path, "%s of group \"%s\" is already workloads[%zu]",
                                       items[i].kind, items[i].group, j);
    }
    cfg->workloads = (gpa_workloads_t){items, v->u.array.len};
    return 0;
}

/* ---- hami: HAMi's names and defaults, the keys of its device configuration's `nvidia` section ---- */

static const char *const hami_names[GPA_HAMI__NAMES] = {
    [GPA_HAMI_COUNT] = "resourceCountName",
    [GPA_HAMI_MEMORY] = "resourceMemoryName",
    [GPA_HAMI_PERCENT] = "resourceMemoryPercentageName",
    [GPA_HAMI_CORES] = "resourceCoreName",
    [GPA_HAMI_PRIORITY] = "resourcePriorityName",
};

/* A resource name: "domain/name", no spaces. */
static int read_hami_name(gpa_config_t *cfg, const gpa_member_t *m, gpa_hami_name_t n, gpa_error_t *err)
{
    const char *path = gpa_schema_path(&cfg->arena_, "hami", m->key);
    if (gpa_schema_want(err, m->value, GPA_VSTRING, path) != 0)
        return -1;
    const char *s = m->value->u.str.ptr;
    if (strchr(s, '/') == NULL || strpbrk(s, " \t") != NULL)
        return gpa_schema_fail(err, m->value, path, "\"%s\" is not a resource name such as nvidia.com/gpumem", s);
    gpa_hami_names_set(&cfg->hami, GPA_HAMI_NVIDIA, n, gpa_arena_strdup(&cfg->arena_, s));
    return 0;
}

/* One key of the block: 1 when it is one of ours (read into cfg, or -1 on a fault), 0 when it is not. */
static int read_hami_key(gpa_config_t *cfg, const gpa_member_t *m, gpa_error_t *err)
{
    static const struct {
        const char *key;
        int64_t min, max;
        size_t offset;
    } numbers[] = {
        {"memoryFactor", 1, 1 << 20, offsetof(gpa_hami_device_t, memory_factor)},
        {"defaultMemory", 0, GPA_HAMI_MIB_MAX, offsetof(gpa_hami_device_t, default_memory)},
        {"defaultCores", 0, 100, offsetof(gpa_hami_device_t, default_cores)},
        {"defaultGPUNum", 0, 1024, offsetof(gpa_hami_device_t, default_gpu_num)},
        {"deviceSplitCount", 1, 1024, offsetof(gpa_hami_device_t, device_split_count)},
    };
    for (int n = 0; n < GPA_HAMI__NAMES; n++)
        if (strcmp(m->key, hami_names[n]) == 0)
            return read_hami_name(cfg, m, (gpa_hami_name_t)n, err) != 0 ? -1 : 1;
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        if (strcmp(m->key, numbers[i].key) != 0)
            continue;
        int64_t *field = (int64_t *)((char *)&cfg->hami.device[GPA_HAMI_NVIDIA] + numbers[i].offset);
        const char *path = gpa_schema_path(&cfg->arena_, "hami", m->key);
        return read_integer(err, m->value, path, numbers[i].min, numbers[i].max, field) != 0 ? -1 : 1;
    }
    return 0;
}

/* The block an admin pastes from HAMi's device configuration: the keys gpuadmit reads are checked; HAMi's other
 * keys (deviceMemoryScaling, gpuCorePolicy, migProfileAllowlist, ...) are accepted and named in one warning. */
static int read_hami(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    if (gpa_schema_want(err, v, GPA_VOBJECT, "hami") != 0)
        return -1;
    const char *ignored = NULL;
    const gpa_value_t *first_ignored = NULL;
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        int rc = read_hami_key(cfg, m, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            ignored = ignored == NULL ? m->key : gpa_arena_printf(&cfg->arena_, "%s, %s", ignored, m->key);
            first_ignored = first_ignored != NULL ? first_ignored : m->value;
        }
    }
    /* Two names for one thing would make one token mean two things: each name is HAMi's alone (the count may be a
     * vendor's: HAMi's nvidia.com/gpu and the vendor's are one resource). */
    const gpa_hami_device_t *d = &cfg->hami.device[GPA_HAMI_NVIDIA];
    for (int n = 0; n < GPA_HAMI__NAMES; n++) {
        gpa_resource_t fixed = gpa_resource_lookup(d->name[n], d->len[n]);
        if (fixed != GPA_R_UNKNOWN && (n != GPA_HAMI_COUNT || gpa_resource_dialect(fixed) != GPA_DIALECT_VENDOR))
            return gpa_schema_fail(err, v, "hami", "%s: %s is a resource of another dialect", hami_names[n], d->name[n]);
        for (int k = 0; k < n; k++)
            if (strcmp(d->name[k], d->name[n]) == 0)
                return gpa_schema_fail(err, v, "hami", "%s and %s are both %s", hami_names[k], hami_names[n], d->name[n]);
    }
    if (ignored != NULL) {
        gpa_error_init(&cfg->warning, cfg->source);
        gpa_schema_fail(&cfg->warning, first_ignored, "hami", "ignored (gpuadmit does not read them): %s", ignored);
    }
    return 0;
}

/* ---- dra ---- */

static const char *const nvidia_gates[GPA_NVIDIA__GATES] = {
    [GPA_NVIDIA_GATE_TIME_SLICING] = "TimeSlicingSettings",
    [GPA_NVIDIA_GATE_MPS] = "MPSSupport",
    [GPA_NVIDIA_GATE_CONSUMABLE] = "ConsumableShares",
    [GPA_NVIDIA_GATE_DYNAMIC_MIG] = "DynamicMIG",
};

const char *gpa_nvidia_gate_name(gpa_nvidia_gate_t g)
{
    return g < GPA_NVIDIA__GATES ? nvidia_gates[g] : "";
}

/* dra.kubernetesVersion: "1.<minor>" (a patch or a leading v accepted: "v1.36.2"), minor 20 to 99. */
static int read_kube_version(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    static const char path[] = "dra.kubernetesVersion";
    if (gpa_schema_want(err, v, GPA_VSTRING, path) != 0)
        return -1;
    const char *s = v->u.str.ptr + (v->u.str.ptr[0] == 'v');
    unsigned minor = 0;
    size_t i = 2, digits = 0;
    if (strncmp(s, "1.", 2) == 0)
        for (; s[i] >= '0' && s[i] <= '9' && digits < 3; i++, digits++)
            minor = minor * 10 + (unsigned)(s[i] - '0');
    int tail_ok = s[i] == '\0' || (s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9');
    if (digits == 0 || !tail_ok || minor < 20 || minor > 99)
        return gpa_schema_fail(err, v, path, "\"%s\" is not a Kubernetes version such as \"1.36\"", v->u.str.ptr);
    cfg->dra.kube_minor = minor;
    return 0;
}

/* dra.nvidia.featureGates: {Gate: true|false}; the driver's gates gpuadmit does not read are accepted. */
static int read_nvidia(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    static const char *const known[] = {"featureGates", NULL};
    const gpa_value_t *gates = gpa_value_get(v, "featureGates");
    if (gpa_schema_want(err, v, GPA_VOBJECT, "dra.nvidia") != 0 || gpa_schema_fields(err, v, "dra.nvidia", known) != 0)
        return -1;
    if (gates == NULL)
        return 0;
    if (gpa_schema_want(err, gates, GPA_VOBJECT, "dra.nvidia.featureGates") != 0)
        return -1;
    cfg->dra.nvidia_gates_set = 1;
    for (size_t i = 0; i < gates->u.object.len; i++) {
        const gpa_member_t *m = &gates->u.object.members[i];
        const char *path = gpa_schema_path(&cfg->arena_, "dra.nvidia.featureGates", m->key);
        if (m->value->type != GPA_VBOOL)
            return gpa_schema_wrong_type(err, m->value, "true or false", path);
        for (int g = 0; g < GPA_NVIDIA__GATES; g++)
            if (strcmp(m->key, nvidia_gates[g]) == 0 && m->value->u.boolean)
                cfg->dra.nvidia_gates_on |= 1u << g;
    }
    return 0;
}

static int read_dra(gpa_config_t *cfg, const gpa_value_t *v, gpa_error_t *err)
{
    static const char *const known[] = {"kubernetesVersion", "roundingWarnPercent", "nvidia", NULL};
    if (gpa_schema_want(err, v, GPA_VOBJECT, "dra") != 0 || gpa_schema_fields(err, v, "dra", known) != 0)
        return -1;
    const gpa_value_t *version = gpa_value_get(v, "kubernetesVersion"), *rounding = gpa_value_get(v, "roundingWarnPercent"),
                      *nvidia = gpa_value_get(v, "nvidia");
    if (version != NULL && version->type != GPA_VNULL && read_kube_version(cfg, version, err) != 0)
        return -1;
    if (rounding != NULL && read_integer(err, rounding, "dra.roundingWarnPercent", 0, 1000, &cfg->dra.rounding_warn_percent) != 0)
        return -1;
    return nvidia != NULL ? read_nvidia(cfg, nvidia, err) : 0;
}

static int read_top(gpa_config_t *cfg, const gpa_member_t *m, gpa_error_t *err)
{
    const gpa_value_t *v = m->value;
    if (strcmp(m->key, "minDeviceMemory") == 0)
        return read_quantity(err, v, "minDeviceMemory", 0, INT64_MAX, &cfg->min_device_memory);
    if (strcmp(m->key, "maxPodsPerDevice") == 0)
        return read_integer(err, v, "maxPodsPerDevice", 1, MAX_PODS_PER_DEVICE_LIMIT, &cfg->placement.max_pods_per_device);
    if (strcmp(m->key, "dialects") == 0)
        return read_dialects(cfg, v, err);
    if (strcmp(m->key, "rules") == 0)
        return read_rules(cfg, v, err);
    if (strcmp(m->key, "namespaces") == 0)
        return read_namespaces(cfg, v, err);
    if (strcmp(m->key, "placement") == 0)
        return read_placement(cfg, v, err);
    if (strcmp(m->key, "workloads") == 0)
        return read_workloads(cfg, v, err);
    if (strcmp(m->key, "mutations") == 0)
        return read_mutations(cfg, v, err);
    if (strcmp(m->key, "knownResources") == 0)
        return read_known_resources(cfg, v, err);
    if (strcmp(m->key, "hami") == 0)
        return read_hami(cfg, v, err);
    if (strcmp(m->key, "dra") == 0)
        return read_dra(cfg, v, err);
    static const char *const top[] = {"minDeviceMemory", "maxPodsPerDevice", "dialects",  "rules", "namespaces", "placement",
                                      "knownResources",  "mutations",        "workloads", "hami",  "dra",        NULL};
    return gpa_schema_unknown_field(err, m, "", top);
}

int gpa_config_load(const gpa_value_t *doc, const char *source, gpa_config_t **out, gpa_error_t *err)
{
    gpa_config_t *cfg = config_new();
    if (source != NULL)
        cfg->source = gpa_arena_strdup(&cfg->arena_, source);
    if (doc != NULL && doc->type != GPA_VNULL) {
        if (gpa_schema_want(err, doc, GPA_VOBJECT, "") != 0)
            goto Error;
        for (size_t i = 0; i < doc->u.object.len; i++)
            if (read_top(cfg, &doc->u.object.members[i], err) != 0)
                goto Error;
    }
    cfg->decode = (gpa_decode_opts_t){.workloads = &cfg->workloads, .hami = &cfg->hami, .dialects = cfg->dialects};
    *out = cfg;
    return 0;
Error:
    gpa_config_release(cfg);
    return -1;
}

int gpa_config_parse(const char *text, size_t len, const char *source, gpa_config_t **out, gpa_error_t *err)
{
    if (err != NULL && !err->set_ && err->source == NULL)
        err->source = source;
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_docs_t docs = {0};
    int rc = gpa_docs_parse(&a, text, len, &docs, err);
    if (rc == 0 && docs.len > 1)
        rc = gpa_schema_fail(err, docs.docs[1], "", "a configuration is one document; this file holds %zu", docs.len);
    if (rc == 0)
        rc = gpa_config_load(docs.len == 1 ? docs.docs[0] : NULL, source, out, err);
    gpa_arena_dispose(&a);
    return rc;
}
