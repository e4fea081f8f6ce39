#include "kube/ray.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "document/json.h"
#include "kube/quantity.h"

/* ---- groups ------------------------------------------------------------------------------------------------------ */

/* Where a kind keeps its RayClusterSpec (docs/rules.md#objects): NULL for a kind that is not KubeRay's. */
static const char *cluster_spec_pointer(const gpa_object_t *obj)
{
    static const struct {
        const char *kind, *pointer;
    } kinds[] = {{"RayCluster", "/spec"}, {"RayJob", "/spec/rayClusterSpec"}, {"RayService", "/spec/rayClusterConfig"}};
    const char *slash = strchr(obj->api_version, '/');
    if (slash == NULL || (size_t)(slash - obj->api_version) != strlen("ray.io") || memcmp(obj->api_version, "ray.io", 6) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(obj->kind, kinds[i].kind) == 0)
            return kinds[i].pointer;
    return NULL;
}

void gpa_ray_filter(gpa_arena_t *a, gpa_json_filter_t *object)
{
    static const char *const clusters[] = {"spec", "spec.rayClusterSpec", "spec.rayClusterConfig"};
    static const char *const groups[] = {"headGroupSpec", "workerGroupSpecs[*]"};
    static const char *const read[] = {"groupName", "rayStartParams", "resources"};
    for (size_t c = 0; c < sizeof(clusters) / sizeof(clusters[0]); c++)
        for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
            gpa_json_filter_t *group = gpa_json_filter_path(a, object, gpa_arena_printf(a, "%s.%s", clusters[c], groups[g]));
            gpa_json_filter_keep(a, group, read, sizeof(read) / sizeof(read[0]));
        }
}

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The value at JSON pointer `pointer` (no escapes: KubeRay's paths have none), or NULL. */
static const gpa_value_t *resolve(const gpa_value_t *root, const char *pointer)
{
    const gpa_value_t *v = root;
    for (const char *p = pointer; v != NULL && *p == '/';) {
        const char *end = strchr(p + 1, '/');
        size_t len = end != NULL ? (size_t)(end - p - 1) : strlen(p + 1);
        char step[64];
        if (len >= sizeof(step))
            return NULL;
        memcpy(step, p + 1, len);
        step[len] = '\0';
        v = v->type == GPA_VARRAY ? gpa_value_at(v, strtoul(step, NULL, 10)) : gpa_value_get(v, step);
        p += len + 1;
    }
    return v;
}

static const gpa_value_t *mapping(const gpa_value_t *v)
{
    return v != NULL && v->type == GPA_VOBJECT ? v : NULL;
}

int gpa_ray_group(gpa_arena_t *a, const gpa_object_t *obj, const gpa_podspec_t *pod, gpa_ray_group_t *out)
{
    static const char head[] = "/headGroupSpec/template/spec", workers[] = "/workerGroupSpecs/", tail[] = "/template/spec";
    memset(out, 0, sizeof(*out));
    const char *spec = cluster_spec_pointer(obj);
    if (spec == NULL || obj->root == NULL || !has_prefix(pod->pointer, spec))
        return 0;
    const char *rest = pod->pointer + strlen(spec);
    size_t path_cut = strlen(".template.spec"); /* the group's path is the template's without this tail */
    if (strcmp(rest, head) == 0) {
        out->name = "head";
    } else if (has_prefix(rest, workers)) {
        char *end;
        unsigned long index = strtoul(rest + strlen(workers), &end, 10);
        if (end == rest + strlen(workers) || strcmp(end, tail) != 0)
            return 0;
        out->name = gpa_arena_printf(a, "workerGroupSpecs[%lu]", index);
    } else {
        return 0;
    }
    size_t plen = strlen(pod->pointer) - strlen(tail), hlen = strlen(pod->path);
    out->pointer = gpa_arena_strndup(a, pod->pointer, plen);
    out->path = gpa_arena_strndup(a, pod->path, hlen > path_cut ? hlen - path_cut : hlen);
    const gpa_value_t *group = mapping(resolve(obj->root, out->pointer));
    if (group == NULL)
        return 0;
    const char *group_name = gpa_value_string(gpa_value_get(group, "groupName"));
    if (strcmp(out->name, "head") != 0 && group_name != NULL && group_name[0] != '\0')
        out->name = group_name;
    out->start_params = mapping(gpa_value_get(group, "rayStartParams"));
    out->resources = mapping(gpa_value_get(group, "resources"));
    if (out->resources != NULL && out->resources->u.object.len == 0)
        out->resources = NULL;
    out->ray = pod->ncontainers > 0 ? &pod->containers[0] : NULL;
    return 1;
}

/* ---- what Ray advertises ----------------------------------------------------------------------------------------- */

/* The text of a string or number node (rayStartParams values are strings; a number is read as its literal). */
static const char *scalar_text(const gpa_value_t *v)
{
    return v != NULL && (v->type == GPA_VSTRING || v->type == GPA_VNUMBER) ? v->u.str.ptr : NULL;
}

/* A name KubeRay counts as GPUs (utils.IsGPUResourceKey): it ends in "gpu", or is an NVIDIA MIG name. */
static int gpu_key(const char *name, size_t len)
{
    return (len >= 3 && memcmp(name + len - 3, "gpu", 3) == 0) || (len > 15 && memcmp(name, "nvidia.com/mig-", 15) == 0);
}

/* A GPU key of the group's resources field, compared as KubeRay does: lower-cased. */
static int group_gpu_key(const char *name, size_t len)
{
    char low[256];
    if (len >= sizeof(low))
        return 0;
    for (size_t i = 0; i < len; i++)
        low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    return gpu_key(low, len);
}

/* [*s, *e) of text[0..len) with the bytes of `cut` taken off both ends. */
static void trim(const char *text, size_t len, const char *cut, size_t *s, size_t *e)
{
    size_t n = strlen(cut);
    *s = 0;
    *e = len;
    while (*s < *e && memchr(cut, text[*s], n) != NULL)
        ++*s;
    while (*e > *s && memchr(cut, text[*e - 1], n) != NULL)
        --*e;
}

#define JSON_SPACE " \t\r\n"

/* text[0..len) as one JSON object of numbers (JSON whitespace around it allowed), or NULL. */
static const gpa_value_t *object_of_numbers(gpa_arena_t *a, const char *text, size_t len)
{
    gpa_value_t *v;
    gpa_error_t err = {0};
    if (gpa_json_parse(a, text, len, &v, &err) != 0 || v->type != GPA_VOBJECT)
        return NULL;
    for (size_t i = 0; i < v->u.object.len; i++)
        if (v->u.object.members[i].value->type != GPA_VNUMBER)
            return NULL;
    return v;
}

/* rayStartParams.resources, read. */
typedef struct st_resources_t {
    const gpa_value_t *obj; /* the JSON object of numbers */
    const char *json;       /* its text, from '{' to '}' (inside the decoded string for the escaped form) */
    size_t len;
    size_t pre, post; /* the value's bytes [0, pre) and [post, end) around the object (or the JSON string) */
    int escaped;      /* KubeRay's escaped form: a JSON string whose content is the object */
} resources_t;

/*
 * Reads rayStartParams.resources (text, len bytes): 1 when it is exactly one JSON object of numbers, either as
 * KubeRay reads it (the quotes, backticks and spaces it trims around it, then JSON whitespace), or in the escaped
 * form of KubeRay's ray-job.resources.yaml sample ('"{\"resource1\": 2}"': a JSON string holding the object, as
 * the `ray start` command line takes it). A NUL anywhere: 0 (it would cut the value short on its way to Ray).
 */
static int read_resources(gpa_arena_t *a, const char *text, size_t len, resources_t *out)
{
    size_t s, e;
    memset(out, 0, sizeof(*out));
    if (memchr(text, '\0', len) != NULL)
        return 0;
    trim(text, len, "'` " JSON_SPACE, &s, &e);
    gpa_value_t *str;
    gpa_error_t err = {0};
    if (e - s >= 2 && text[s] == '"' && gpa_json_parse(a, text + s, e - s, &str, &err) == 0 && str->type == GPA_VSTRING) {
        size_t is, ie;
        trim(str->u.str.ptr, str->u.str.len, JSON_SPACE, &is, &ie);
        if (memchr(str->u.str.ptr, '\0', str->u.str.len) != NULL ||
            (out->obj = object_of_numbers(a, str->u.str.ptr + is, ie - is)) == NULL)
            return 0;
        *out = (resources_t){out->obj, str->u.str.ptr + is, ie - is, s, e, 1};
        return 1;
    }
    trim(text, len, "'\"` ", &s, &e); /* strings.Trim(resourcesStr, "'\"` "), then what json.Unmarshal skips */
    size_t js, je;
    trim(text + s, e - s, JSON_SPACE, &js, &je);
    if ((out->obj = object_of_numbers(a, text + s + js, je - js)) == NULL)
        return 0;
    *out = (resources_t){out->obj, text + s + js, je - js, s + js, s + je, 0};
    return 1;
}

static void own_count(const char *text, const char *where, gpa_ray_count_t *out)
{
    gpa_quantity_t q = gpa_quantity_parse(text, strlen(text));
    out->source = GPA_RAY_COUNT_OWN;
    out->text = text;
    out->where = where;
    out->usable = q.status == GPA_Q_OK && q.value >= 0;
    out->count = out->usable ? q.value : 0;
}

/* The group's own count: rayStartParams.num-gpus, else a GPU key of its resources field. 1 when found. */
static int group_count(gpa_arena_t *a, const gpa_ray_group_t *g, gpa_ray_count_t *out)
{
    const char *text = scalar_text(gpa_value_get(g->start_params, "num-gpus"));
    if (text != NULL) {
        own_count(text, "rayStartParams.num-gpus", out);
        return 1;
    }
    for (size_t i = 0; g->resources != NULL && i < g->resources->u.object.len; i++) {
        const gpa_member_t *m = &g->resources->u.object.members[i];
        if (group_gpu_key(m->key, m->key_len) && scalar_text(m->value) != NULL) {
            own_count(scalar_text(m->value), gpa_arena_printf(a, "resources.%s", m->key), out);
            return 1;
        }
    }
    return 0;
}

/* The first non-zero GPU limit of c in name order (what KubeRay derives the count from). */
static void limit_count(const gpa_container_t *c, gpa_ray_count_t *out)
{
    const gpa_value_t *limits = mapping(gpa_value_get(c->resources, "limits"));
    const gpa_member_t *best = NULL;
    gpa_quantity_t best_q = {0};
    for (size_t i = 0; limits != NULL && i < limits->u.object.len; i++) {
        const gpa_member_t *m = &limits->u.object.members[i];
        const char *text = scalar_text(m->value);
        if (!gpu_key(m->key, m->key_len) || text == NULL)
            continue;
        gpa_quantity_t q = gpa_quantity_parse(text, strlen(text));
        if (q.status == GPA_Q_OK && q.value == 0)
            continue; /* KubeRay skips a zero */
        if (best == NULL || strcmp(m->key, best->key) < 0) {
            best = m;
            best_q = q;
        }
    }
    if (best == NULL)
        return;
    out->source = GPA_RAY_COUNT_LIMIT;
    out->where = best->key;
    out->text = scalar_text(best->value);
    /* A value that is no whole number is malformed-quantity's to report (KubeRay would round it up). */
    out->usable = best_q.status == GPA_Q_OK && best_q.value > 0;
    out->count = out->usable ? best_q.value : 0;
}

void gpa_ray_advertised(gpa_arena_t *a, const gpa_ray_group_t *g, gpa_ray_count_t *out)
{
    memset(out, 0, sizeof(*out));
    out->usable = 1;
    if (group_count(a, g, out))
        return;
    const gpa_value_t *res = gpa_value_get(g->start_params, "resources");
    resources_t r;
    if (scalar_text(res) != NULL && (!read_resources(a, res->u.str.ptr, res->u.str.len, &r) || r.escaped)) {
        /* KubeRay's json.Unmarshal fails on the escaped form too (a backslash after its trim): no count derived */
        out->resources_unparsed = 1;
        out->resources_escaped = r.escaped;
        return;
    }
    if (g->ray != NULL)
        limit_count(g->ray, out);
}

/* ---- what Kubernetes gives ------------------------------------------------------------------------------------- */

static void koord_devices(unsigned dialects, const gpa_container_t *c, gpa_ray_devices_t *out)
{
    gpa_koord_view_t kv;
    gpa_koord_share_t share;
    gpa_koord_view_container(dialects, c, &kv);
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_KOORDINATOR) || !gpa_koord_view_well_formed(&kv) ||
        gpa_koord_view_share(&kv, &share) != 0 || share.devices <= 0)
        return;
    out->devices = share.devices;
    out->share = 1;
    if (share.memory > 0 && gpa_mul_i64(share.memory, share.devices, &out->memory) != 0)
        out->memory = 0;
    if (share.memory == 0)
        out->ratio = share.ratio;
}

/* Cards of an mGPU container as the allocator reads them (gpa_mgpu_share): the annotation's entry, else whole cards
 * of an mgpu-core above 100, else one; counted even when the request does not split (the rules say so). */
static void mgpu_devices(unsigned dialects, const gpa_pod_facts_t *facts, const gpa_container_t *c, gpa_ray_devices_t *out)
{
    gpa_mgpu_share_t m;
    if (!gpa_gpu_sound(dialects, c, GPA_DIALECT_MGPU) || gpa_mgpu_share(dialects, &facts->cards, c, &m) != 0)
        return;
    out->devices = m.cards;
    out->share = 1;
    if (m.whole && m.memory == 0)
        out->ratio = 100; /* whole cards: all of each card's memory */
    if (!(m.faults & GPA_MGPU_AMBIGUOUS_MEMORY) && gpa_mul_i64(m.memory, GPA_MIB, &out->memory) != 0)
        out->memory = 0;
}

/* A HAMi container's vGPUs (gpa_hami_view_container): its count, else defaultGPUNum; per vGPU gpumem x memoryFactor
 * MiB, else the percentage of the card, else defaultMemory MiB, else the whole card. */
static void hami_devices(unsigned dialects, const gpa_hami_view_t *hv, gpa_ray_devices_t *out)
{
    if (!gpa_gpu_sound(dialects, hv->c, GPA_DIALECT_HAMI) || !gpa_gpu_sound(dialects, hv->c, GPA_DIALECT_VENDOR) || hv->count <= 0)
        return;
    out->devices = hv->count;
    out->share = 1;
    out->count_name = hv->device->name[GPA_HAMI_COUNT];
    out->count_default = hv->am[GPA_HAMI_COUNT] == NULL;
    switch (hv->memory) {
    case GPA_HAMI_MEM_MIB:
    case GPA_HAMI_MEM_DEFAULT:
        /* Above HAMi's 32-bit MiB nothing is booked (ambiguous-unit says so): no memory known. */
        if (hv->memory_mib > GPA_HAMI_MIB_MAX || gpa_mul_i64(hv->memory_mib, GPA_MIB, &out->memory) != 0 ||
            gpa_mul_i64(out->memory, hv->count, &out->memory) != 0)
            out->memory = 0;
        break;
    case GPA_HAMI_MEM_PERCENT:
        out->ratio = hv->percent <= 100 ? hv->percent : 0; /* above 100 nothing fits (per-device-over-100) */
        out->ratio_mib = 1;
        break;
    case GPA_HAMI_MEM_WHOLE:
        out->ratio = 100;
        out->ratio_mib = 1;
        break;
    }
}

void gpa_ray_devices(unsigned dialects, const gpa_pod_facts_t *facts, const gpa_container_t *c, gpa_ray_devices_t *out)
{
    memset(out, 0, sizeof(*out));
    gpa_hami_view_t hv;
    if (gpa_hami_view_container(dialects, c, &hv) == 0) {
        hami_devices(dialects, &hv, out);
        return;
    }
    static const gpa_resource_t vendor[] = {GPA_R_NVIDIA_GPU, GPA_R_AMD_GPU, GPA_R_DCU_GPU};
    for (size_t i = 0; i < sizeof(vendor) / sizeof(vendor[0]); i++) {
        int64_t n;
        if (gpa_gpu_value(dialects, c, vendor[i], &n))
            out->devices = gpa_sat_add_i64(out->devices, n);
    }
    if (out->devices > 0)
        return; /* vendor counts: KubeRay's derivation counts them already (vendor-vs-share reports a mix) */
    if (gpa_gpu_any(dialects, c, GPA_DIALECT_KOORDINATOR))
        koord_devices(dialects, c, out);
    else if (gpa_gpu_is_mgpu(dialects, c))
        mgpu_devices(dialects, facts, c, out);
}

/* ---- rayStartParams.resources --------------------------------------------------------------------------------- */

int gpa_ray_resources_is_object(gpa_arena_t *a, const char *text, size_t len)
{
    resources_t r;
    return read_resources(a, text, len, &r);
}

const char *gpa_ray_resources_add_memory(gpa_arena_t *a, const char *text, size_t len, int64_t bytes)
{
    if (text == NULL)
        return gpa_arena_printf(a, "'{\"%s\":%lld}'", GPA_RAY_GPU_MEMORY, (long long)bytes); /* as KubeRay writes it */
    resources_t r;
    if (!read_resources(a, text, len, &r) || gpa_value_get(r.obj, GPA_RAY_GPU_MEMORY) != NULL)
        return NULL;
    /* Insert after the last member's text, before the closing brace (the object's last byte). */
    size_t at = r.len - 1;
    while (at > 0 && memchr(JSON_SPACE, r.json[at - 1], 4) != NULL)
        at--;
    /* No space: KubeRay puts the value on the `ray start` command line, where a space would split it. */
    const char *sep = r.obj->u.object.len != 0 ? "," : "";
    const char *merged = gpa_arena_printf(a, "%.*s%s\"%s\":%lld%.*s", (int)at, r.json, sep, GPA_RAY_GPU_MEMORY, (long long)bytes,
                                          (int)(r.len - at), r.json + at);
    if (!r.escaped) /* the object's text in place, the bytes around it kept */
        return gpa_arena_printf(a, "%.*s%s%.*s", (int)r.pre, text, merged, (int)(len - r.post), text + r.post);
    /* The escaped form: the merged object written back as a JSON string, where the old one was. */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_json_string(&b, merged, strlen(merged));
    const char *out = gpa_arena_printf(a, "%.*s%.*s%.*s", (int)r.pre, text, (int)b.len, b.base, (int)(len - r.post), text + r.post);
    gpa_buf_dispose(&b);
    return out;
}
