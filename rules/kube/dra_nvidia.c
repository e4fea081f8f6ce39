/*
 * NVIDIA's DRA driver configuration, decoded as the driver decodes it (dra_nvidia.h).
 */
#include "kube/dra_nvidia.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kube/quantity.h"

#define MIB ((int64_t)1 << 20)

typedef struct st_faults_t {
    gpa_arena_t *a;
    gpa_nvidia_fault_t *out;
    size_t max, n;
} faults_t;

__attribute__((format(printf, 3, 4))) static void fault(faults_t *f, const char *path, const char *fmt, ...)
{
    if (f->n >= f->max)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    f->out[f->n].path = path;
    f->out[f->n].message = gpa_arena_printf(f->a, "%s", buf);
    f->n++;
}

static const char *join(faults_t *f, const char *parent, const char *key)
{
    return parent[0] == '\0' ? key : gpa_arena_printf(f->a, "%s.%s", parent, key);
}

static int one_of(const char *s, const char *const *set)
{
    for (size_t i = 0; s != NULL && set[i] != NULL; i++)
        if (strcmp(s, set[i]) == 0)
            return 1;
    return 0;
}

/* Every member of obj is one of `known` (the strict decoder's "unknown field"). Returns 0 unless obj is not a
 * mapping (then one fault, and the caller reads nothing of it). */
static int fields(faults_t *f, const gpa_value_t *obj, const char *path, const char *type, const char *const *known,
                  const char *names)
{
    if (obj->type != GPA_VOBJECT) {
        fault(f, path, "%s: %s is a %s, not a mapping; write {%s}", path[0] ? path : "parameters", type, gpa_vtype_name(obj->type),
              names);
        return -1;
    }
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *key = obj->u.object.members[i].key;
        if (!one_of(key, known))
            fault(f, join(f, path, key), "unknown field \"%s\" in %s (the driver decodes strictly); its fields are %s; remove it",
                  key, type, names);
    }
    return 0;
}

/* An optional string field: NULL when absent or null; a fault when another type. */
static const char *string_field(faults_t *f, const gpa_value_t *obj, const char *path, const char *key)
{
    const gpa_value_t *v = gpa_value_get(obj, key);
    if (v == NULL || v->type == GPA_VNULL)
        return NULL;
    if (v->type != GPA_VSTRING) {
        fault(f, join(f, path, key), "%s is a %s; write a string", key, gpa_vtype_name(v->type));
        return NULL;
    }
    return v->u.str.ptr;
}

/* A resource.Quantity of at least 1Mi (the driver keeps whole MiB and refuses 0: "value set too low"). */
static void pinned_limit(faults_t *f, const gpa_value_t *v, const char *path, const char *what)
{
    if (v->type == GPA_VNULL)
        return;
    if (v->type != GPA_VSTRING && v->type != GPA_VNUMBER) {
        fault(f, path, "%s is a %s; write a quantity such as 1Gi", what, gpa_vtype_name(v->type));
        return;
    }
    gpa_quantity_t q = gpa_quantity_parse(v->u.str.ptr, v->u.str.len);
    if (q.status == GPA_Q_SYNTAX)
        fault(f, path, "%s: \"%s\" is not a quantity; write one such as 1Gi", what, v->u.str.ptr);
    else if (q.status == GPA_Q_OK && q.value < MIB)
        fault(f, path,
              "%s: %s is below 1Mi; the driver passes whole MiB to MPS and refuses 0 (\"value set too low\"); write at "
              "least 1Mi",
              what, v->u.str.ptr);
}

/* A per-device key the driver resolves: a device index (a decimal integer >= 0) or a device UUID (GPU-..., MIG-...). */
static int device_key(const char *k)
{
    if (strncmp(k, "GPU-", 4) == 0 || strncmp(k, "MIG-", 4) == 0)
        return k[4] != '\0';
    size_t i = k[0] == '+' ? 1 : 0;
    if (k[i] == '\0')
        return 0;
    for (; k[i] != '\0'; i++)
        if (k[i] < '0' || k[i] > '9')
            return 0;
    return 1;
}

static void per_device(faults_t *f, const gpa_value_t *v, const char *path)
{
    if (v->type == GPA_VNULL)
        return;
    if (v->type != GPA_VOBJECT) {
        fault(f, path, "defaultPerDevicePinnedMemoryLimit is a %s; write {<index or UUID>: <quantity>}", gpa_vtype_name(v->type));
        return;
    }
    for (size_t i = 0; i < v->u.object.len; i++) {
        const gpa_member_t *m = &v->u.object.members[i];
        const char *p = join(f, path, m->key);
        if (!device_key(m->key))
            fault(f, p,
                  "defaultPerDevicePinnedMemoryLimit key \"%s\" is neither a device index nor a device UUID (GPU-..., "
                  "MIG-...); the driver refuses it (\"invalid device\"); key by index (\"0\") or UUID",
                  m->key);
        pinned_limit(f, m->value, p, "defaultPerDevicePinnedMemoryLimit");
    }
}

static void mps_config(faults_t *f, const gpa_value_t *v, const char *path)
{
    static const char *const known[] = {"defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit",
                                        "defaultPerDevicePinnedMemoryLimit", "multiUser", NULL};
    if (v->type == GPA_VNULL ||
        fields(f, v, path, "mpsConfig", known,
               "defaultActiveThreadPercentage, defaultPinnedDeviceMemoryLimit, defaultPerDevicePinnedMemoryLimit, multiUser") != 0)
        return;
    const gpa_value_t *pct = gpa_value_get(v, "defaultActiveThreadPercentage");
    if (pct != NULL && pct->type != GPA_VNULL) {
        gpa_quantity_t q = pct->type == GPA_VNUMBER ? gpa_quantity_parse(pct->u.str.ptr, pct->u.str.len) : (gpa_quantity_t){0};
        const char *p = join(f, path, "defaultActiveThreadPercentage");
        if (pct->type != GPA_VNUMBER || q.status != GPA_Q_OK || strpbrk(pct->u.str.ptr, ".eE") != NULL)
            fault(f, p, "defaultActiveThreadPercentage must be a whole number from 0 to 100");
        else if (q.value < 0 || q.value > 100)
            fault(f, p,
                  "defaultActiveThreadPercentage %s is outside 0-100; the driver refuses it (\"active thread percentage\"); "
                  "write a percent from 0 to 100",
                  pct->u.str.ptr);
    }
    const gpa_value_t *pinned = gpa_value_get(v, "defaultPinnedDeviceMemoryLimit");
    if (pinned != NULL)
        pinned_limit(f, pinned, join(f, path, "defaultPinnedDeviceMemoryLimit"), "defaultPinnedDeviceMemoryLimit");
    const gpa_value_t *per = gpa_value_get(v, "defaultPerDevicePinnedMemoryLimit");
    if (per != NULL)
        per_device(f, per, join(f, path, "defaultPerDevicePinnedMemoryLimit"));
    const gpa_value_t *mu = gpa_value_get(v, "multiUser");
    if (mu != NULL && mu->type != GPA_VNULL && mu->type != GPA_VBOOL)
        fault(f, join(f, path, "multiUser"), "multiUser is a %s; write true or false", gpa_vtype_name(mu->type));
}

static void time_slicing_config(faults_t *f, const gpa_value_t *v, const char *path)
{
    static const char *const known[] = {"interval", NULL};
    static const char *const intervals[] = {"Default", "Short", "Medium", "Long", NULL};
    if (v->type == GPA_VNULL || fields(f, v, path, "timeSlicingConfig", known, "interval") != 0)
        return;
    const char *interval = string_field(f, v, path, "interval");
    if (interval == NULL && gpa_value_get(v, "interval") == NULL)
        fault(f, join(f, path, "interval"),
              "timeSlicingConfig without an interval: the driver validates a missing interval and "
              "fails; write interval: Default (or Short, Medium, Long)");
    else if (interval != NULL && !one_of(interval, intervals))
        fault(f, join(f, path, "interval"), "interval \"%s\" is not one the driver knows; write Default, Short, Medium or Long",
              interval);
}

/* The strategy against the driver's gates (validate.go, device_state.go). */
static void gates_allow(faults_t *f, const char *path, const char *strategy, const gpa_nvidia_gates_t *g)
{
    if (g == NULL)
        return;
    if (strcmp(strategy, "TimeSlicing") == 0 && g->time_slicing == 0)
        fault(f, path,
              "strategy TimeSlicing needs the driver's TimeSlicingSettings feature gate, which is off "
              "(dra.nvidia.featureGates); turn it on in the driver's chart, or drop the sharing block");
    if (strcmp(strategy, "MPS") != 0)
        return;
    if (g->mps == 0)
        fault(f, path,
              "strategy MPS needs the driver's MPSSupport feature gate, which is off (dra.nvidia.featureGates); turn "
              "it on in the driver's chart, or drop the sharing block");
    if (g->consumable == 1)
        fault(f, path,
              "strategy MPS is refused while the driver's ConsumableShares gate is on (\"MPS sharing is not "
              "supported when consumable shares is enabled\"); use TimeSlicing or capacity requests");
    if (g->dynamic_mig == 1)
        fault(f, path,
              "strategy MPS is refused while the driver's DynamicMIG gate is on (\"MPS is not yet supported when "
              "using featureGates.DynamicMIG=true\"); use TimeSlicing");
}

static void sharing(faults_t *f, const gpa_value_t *v, const char *path, int mig, const gpa_nvidia_gates_t *gates)
{
    static const char *const gpu_known[] = {"strategy", "timeSlicingConfig", "mpsConfig", NULL};
    static const char *const mig_known[] = {"strategy", "mpsConfig", NULL};
    if (v->type == GPA_VNULL || fields(f, v, path, mig ? "MigDeviceSharing" : "GpuSharing", mig ? mig_known : gpu_known,
                                       mig ? "strategy, mpsConfig" : "strategy, timeSlicingConfig, mpsConfig") != 0)
        return;
    const char *strategy = string_field(f, v, path, "strategy");
    const char *spath = join(f, path, "strategy");
    if (strategy == NULL || (strcmp(strategy, "TimeSlicing") != 0 && strcmp(strategy, "MPS") != 0)) {
        fault(f, spath,
              "sharing strategy \"%s\" is not one the driver knows (\"unknown GPU sharing strategy\"); write "
              "TimeSlicing or MPS",
              strategy != NULL ? strategy : "");
        return;
    }
    gates_allow(f, spath, strategy, gates);
    const gpa_value_t *ts = gpa_value_get(v, "timeSlicingConfig"), *mps = gpa_value_get(v, "mpsConfig");
    int is_mps = strcmp(strategy, "MPS") == 0;
    if (!is_mps && mps != NULL && mps->type != GPA_VNULL)
        fault(f, join(f, path, "mpsConfig"),
              "mpsConfig with strategy TimeSlicing: the driver refuses it (\"cannot use "
              "MpsConfig with the 'TimeSlicing' strategy\"); remove mpsConfig or set strategy: MPS");
    if (is_mps && !mig && ts != NULL && ts->type != GPA_VNULL)
        fault(f, join(f, path, "timeSlicingConfig"),
              "timeSlicingConfig with strategy MPS: the driver refuses it (\"cannot "
              "use TimeSlicingConfig with the 'MPS' strategy\"); remove timeSlicingConfig or set strategy: TimeSlicing");
    if (ts != NULL && !mig)
        time_slicing_config(f, ts, join(f, path, "timeSlicingConfig"));
    if (mps != NULL)
        mps_config(f, mps, join(f, path, "mpsConfig"));
}

static void vfio_iommu(faults_t *f, const gpa_value_t *v, const char *path)
{
    static const char *const known[] = {"backendPolicy", "enableAPIDevice", NULL};
    static const char *const policies[] = {"LegacyOnly", "PreferIommuFD", NULL};
    if (v->type == GPA_VNULL || fields(f, v, path, "iommu", known, "backendPolicy, enableAPIDevice") != 0)
        return;
    const char *policy = string_field(f, v, path, "backendPolicy");
    if (policy != NULL && policy[0] != '\0' && !one_of(policy, policies))
        fault(f, join(f, path, "backendPolicy"),
              "backendPolicy \"%s\" is not one the driver knows; write LegacyOnly or "
              "PreferIommuFD",
              policy);
    const gpa_value_t *api = gpa_value_get(v, "enableAPIDevice");
    if (api != NULL && api->type != GPA_VNULL && api->type != GPA_VBOOL)
        fault(f, join(f, path, "enableAPIDevice"), "enableAPIDevice is a %s; write true or false", gpa_vtype_name(api->type));
}

size_t gpa_nvidia_check(gpa_arena_t *a, const gpa_value_t *p, const gpa_nvidia_gates_t *gates, gpa_nvidia_fault_t *out, size_t max)
{
    static const char *const kinds[] = {"GpuConfig", "MigDeviceConfig", "VfioDeviceConfig", NULL};
    static const char *const sharing_known[] = {"apiVersion", "kind", "sharing", NULL};
    static const char *const vfio_known[] = {"apiVersion", "kind", "iommu", NULL};
    faults_t f = {a, out, max, 0};
    if (p == NULL)
        return 0;
    if (p->type != GPA_VOBJECT) {
        fault(&f, "", "the parameters are a %s, not a mapping; write {apiVersion: %s, kind: GpuConfig, ...}",
              gpa_vtype_name(p->type), GPA_NVIDIA_PARAMETERS_API);
        return f.n;
    }
    const char *api = string_field(&f, p, "", "apiVersion"), *kind = string_field(&f, p, "", "kind");
    if (api == NULL || strcmp(api, GPA_NVIDIA_PARAMETERS_API) != 0) {
        fault(&f, "apiVersion", "apiVersion \"%s\" is not one driver gpu.nvidia.com decodes; write %s", api != NULL ? api : "",
              GPA_NVIDIA_PARAMETERS_API);
        return f.n;
    }
    if (!one_of(kind, kinds)) {
        fault(&f, "kind",
              "kind \"%s\" is not a configuration driver gpu.nvidia.com applies; write GpuConfig, MigDeviceConfig "
              "or VfioDeviceConfig",
              kind != NULL ? kind : "");
        return f.n;
    }
    int vfio = strcmp(kind, "VfioDeviceConfig") == 0, mig = strcmp(kind, "MigDeviceConfig") == 0;
    fields(&f, p, "", kind, vfio ? vfio_known : sharing_known, vfio ? "apiVersion, kind, iommu" : "apiVersion, kind, sharing");
    const gpa_value_t *body = gpa_value_get(p, vfio ? "iommu" : "sharing");
    if (body != NULL && vfio)
        vfio_iommu(&f, body, "iommu");
    else if (body != NULL)
        sharing(&f, body, "sharing", mig, gates);
    return f.n;
}

gpa_nvidia_sharing_t gpa_nvidia_sharing(const gpa_value_t *p)
{
    const char *api = gpa_value_string(gpa_value_get(p, "apiVersion")), *kind = gpa_value_string(gpa_value_get(p, "kind"));
    if (api == NULL || kind == NULL || strcmp(api, GPA_NVIDIA_PARAMETERS_API) != 0 ||
        (strcmp(kind, "GpuConfig") != 0 && strcmp(kind, "MigDeviceConfig") != 0))
        return GPA_NVIDIA_SHARE_NONE;
    const char *strategy = gpa_value_string(gpa_value_get(gpa_value_get(p, "sharing"), "strategy"));
    if (strategy != NULL && strcmp(strategy, "TimeSlicing") == 0)
        return GPA_NVIDIA_SHARE_TIME_SLICING;
    if (strategy != NULL && strcmp(strategy, "MPS") == 0)
        return GPA_NVIDIA_SHARE_MPS;
    return GPA_NVIDIA_SHARE_NONE;
}

const char *gpa_nvidia_sharing_name(gpa_nvidia_sharing_t s)
{
    return s == GPA_NVIDIA_SHARE_TIME_SLICING ? "TimeSlicing" : s == GPA_NVIDIA_SHARE_MPS ? "MPS" : NULL;
}

/* Indexed by gpa_nvidia_device_t: the configuration kind and the chart's class of each device. */
static const char *const device_kinds[] = {NULL, "GpuConfig", "MigDeviceConfig", "VfioDeviceConfig"};
static const char *const device_classes[] = {NULL, "gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com"};

/* The device whose entry in names is s; UNKNOWN when s is NULL or none is. */
static gpa_nvidia_device_t device_named(const char *const names[], const char *s)
{
    for (int d = GPA_NVIDIA_DEVICE_GPU; s != NULL && d <= GPA_NVIDIA_DEVICE_VFIO; d++)
        if (strcmp(names[d], s) == 0)
            return (gpa_nvidia_device_t)d;
    return GPA_NVIDIA_DEVICE_UNKNOWN;
}

gpa_nvidia_device_t gpa_nvidia_config_device(const gpa_value_t *p)
{
    const char *api = gpa_value_string(gpa_value_get(p, "apiVersion"));
    if (api == NULL || strcmp(api, GPA_NVIDIA_PARAMETERS_API) != 0)
        return GPA_NVIDIA_DEVICE_UNKNOWN;
    return device_named(device_kinds, gpa_value_string(gpa_value_get(p, "kind")));
}

gpa_nvidia_device_t gpa_nvidia_class_device(const char *class)
{
    return device_named(device_classes, class);
}

const char *gpa_nvidia_device_config_kind(gpa_nvidia_device_t d)
{
    return device_kinds[d];
}

const char *gpa_nvidia_device_class(gpa_nvidia_device_t d)
{
    return device_classes[d];
}
