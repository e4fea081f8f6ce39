/*
 * Check tests for rules/kube/gpu_request.c: one reading of a Koordinator request, whether built from a container
 * or from values (a mutation's plan): forms, devices and per-device shares; names that are no GPU resource
 * (strays) and which of them are near misses (kube/resource.c); one reading of an mGPU container (cards, whole
 * cards, what each card gets, why it does not split), and normalization's groups built from it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/normalize.h"
#include "fixture.h"
#include "kube/gpu_request.h"
#include "run.h"

#define POD1(limits)                                                                                                               \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","             \
    "\"resources\":{\"limits\":" limits "}}]}}"

static gpa_koord_view_t view_of(const char *limits_pod)
{
    gpa_object_t *obj = object(limits_pod);
    gpa_koord_view_t kv;
    gpa_koord_view_container(GPA_DIALECT_ALL, &obj->pods[0].containers[0], &kv);
    return kv;
}

START_TEST(values_and_container_read_alike)
{
    gpa_koord_view_t from_c = view_of(POD1("{\"koordinator.sh/gpu-memory-ratio\":\"200\",\"koordinator.sh/gpu-core\":\"0\"}"));
    gpa_gpu_value_t values[GPA_R__COUNT] = {0};
    values[GPA_R_GPU_MEMORY_RATIO] = (gpa_gpu_value_t){1, 1, 200};
    values[GPA_R_GPU_CORE] = (gpa_gpu_value_t){1, 1, 0};
    gpa_koord_view_t from_v;
    gpa_koord_view_values(GPA_DIALECT_ALL, values, &from_v);
    ck_assert_uint_eq(from_c.present, from_v.present);
    ck_assert_uint_eq(from_c.declared, from_v.declared);
    ck_assert_mem_eq(from_c.v, from_v.v, sizeof(from_c.v));
    ck_assert(gpa_koord_view_present(&from_v, GPA_R_GPU_CORE) && !gpa_koord_view_declared(&from_v, GPA_R_GPU_CORE));
    ck_assert(gpa_koord_view_needs_shared(&from_v));
    ck_assert_int_eq(gpa_koord_view_devices(&from_v), 2);
    ck_assert(gpa_koord_view_well_formed(&from_v));
    /* a dialect that is off is not seen */
    gpa_koord_view_values(GPA_DIALECT_VENDOR, values, &from_v);
    ck_assert_uint_eq(from_v.present, 0);
}
END_TEST

START_TEST(forms)
{
    gpa_koord_view_t kv = view_of(POD1("{\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-memory-ratio\":\"50\"}"));
    ck_assert_uint_eq(gpa_koord_view_faults(&kv), GPA_KOORD_MEMORY_AND_RATIO);
    kv = view_of(POD1("{\"koordinator.sh/gpu-core\":\"50\",\"koordinator.sh/gpu.shared\":\"1\"}"));
    ck_assert_uint_eq(gpa_koord_view_faults(&kv), GPA_KOORD_CORE_WITHOUT_MEMORY | GPA_KOORD_SHARED_WITHOUT_MEMORY);
    kv = view_of(POD1("{\"koordinator.sh/gpu\":\"50\",\"koordinator.sh/gpu-core\":\"50\"}"));
    ck_assert(gpa_koord_view_faults(&kv) & GPA_KOORD_DEPRECATED_MIXED);
    ck_assert_int_eq(gpa_koord_view_mixed_with(&kv), GPA_R_GPU_CORE);
    ck_assert(!gpa_koord_view_deprecated_alone(&kv));
    kv = view_of(POD1("{\"koordinator.sh/gpu\":\"50\",\"koordinator.sh/gpu-core\":\"0\"}"));
    ck_assert_uint_eq(gpa_koord_view_faults(&kv), 0);
    ck_assert(gpa_koord_view_deprecated_alone(&kv)); /* a share resource declared as 0 counts as not declared */
    kv = view_of(POD1("{\"koordinator.sh/gpu\":\"50\",\"koordinator.sh/gpu.shared\":\"0\"}"));
    ck_assert_uint_eq(gpa_koord_view_faults(&kv), GPA_KOORD_ZERO_COUNT);
    ck_assert(!gpa_koord_view_deprecated_alone(&kv)); /* gpu.shared: 0 is non-positive's */
    ck_assert(!gpa_koord_view_well_formed(&kv));
}
END_TEST

START_TEST(shares)
{
    gpa_koord_share_t sh;
    gpa_koord_view_t kv = view_of(POD1("{\"koordinator.sh/gpu-memory\":\"9\",\"koordinator.sh/gpu-core\":\"100\","
                                       "\"koordinator.sh/gpu.shared\":\"2\"}"));
    ck_assert_int_eq(gpa_koord_view_share(&kv, &sh), 0);
    ck_assert_int_eq(sh.devices, 2);
    ck_assert_int_eq(sh.core, 50);
    ck_assert_int_eq(sh.memory, 5); /* ceil(9 / 2): never less than asked */
    ck_assert_int_eq(sh.ratio, 0);
    kv = view_of(POD1("{\"koordinator.sh/gpu-memory-ratio\":\"150\"}"));
    ck_assert_int_eq(gpa_koord_view_share(&kv, &sh), -1); /* above one device, not whole devices */
    kv = view_of(POD1("{\"koordinator.sh/gpu-memory-ratio\":\"300\",\"koordinator.sh/gpu.shared\":\"2\"}"));
    ck_assert_int_eq(gpa_koord_view_share(&kv, &sh), -1); /* 150 per device */
    kv = view_of(POD1("{\"koordinator.sh/gpu\":\"200\"}"));
    ck_assert_int_eq(gpa_koord_view_share(&kv, &sh), 0);
    ck_assert_int_eq(sh.devices, 2);
    ck_assert_int_eq(sh.core, 100);
    ck_assert_int_eq(sh.ratio, 100);
}
END_TEST

#define POD_RES(requests, limits)                                                                                                  \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","             \
    "\"resources\":{\"requests\":" requests ",\"limits\":" limits "}}]}}"

START_TEST(strays)
{
    gpa_object_t *obj =
        object(POD_RES("{\"cpu\":\"1\",\"koordinator.sh/gpu-shared\":\"1\",\"koordinator.sh/gpu-core\":\"50\"}",
                       "{\"koordinator.sh/gpu-shared\":\"1\",\"nvidia.com/mig-1g.5gb\":\"1\",\"example.com/gpu\":\"1\","
                       "\"vke.volcengine.com/mgpu-mem\":\"1\"}"));
    const gpa_container_t *c = &obj->pods[0].containers[0];
    gpa_stray_t *s;
    /* each name once (the request's), known names and other domains left out, in document order */
    ck_assert_uint_eq(gpa_gpu_strays(&arena, GPA_DIALECT_ALL, c, &s), 3);
    ck_assert_str_eq(s[0].name, "koordinator.sh/gpu-shared");
    ck_assert_str_eq(gpa_gpu_stray_path(&arena, c, &s[0]), "spec.containers[0].resources.requests[\"koordinator.sh/gpu-shared\"]");
    ck_assert_str_eq(s[1].name, "nvidia.com/mig-1g.5gb");
    ck_assert_str_eq(gpa_gpu_stray_path(&arena, c, &s[1]), "spec.containers[0].resources.limits[\"nvidia.com/mig-1g.5gb\"]");
    ck_assert_str_eq(s[2].name, "vke.volcengine.com/mgpu-mem");
    /* only the domains of enabled dialects */
    ck_assert_uint_eq(gpa_gpu_strays(&arena, GPA_DIALECT_VENDOR, c, &s), 1);
    /* a container without resources has none */
    obj = object(
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
    ck_assert_uint_eq(gpa_gpu_strays(&arena, GPA_DIALECT_ALL, &obj->pods[0].containers[0], &s), 0);
    /* a stray makes its dialect appear in the Pod's facts (the rules that read the dialect run on the container) */
    obj = object(POD1("{\"koordinator.sh/gpu-shared\":\"1\"}"));
    gpa_pod_facts_t facts;
    gpa_pod_facts_init(&arena, GPA_DIALECT_ALL, &obj->pods[0], &facts);
    ck_assert_uint_eq(facts.dialects, GPA_DIALECT_KOORDINATOR);
    ck_assert_uint_eq(facts.app_dialects[0], GPA_DIALECT_KOORDINATOR);
}
END_TEST

static gpa_resource_t near(const char *name)
{
    return gpa_resource_near_miss(NULL, GPA_DIALECT_ALL, name, strlen(name));
}

START_TEST(near_misses)
{
    ck_assert_int_eq(near("koordinator.sh/gpu-shared"), GPA_R_GPU_SHARED);
    ck_assert_int_eq(near("Koordinator.SH/gpu.shared"), GPA_R_GPU_SHARED); /* the domain ignores case */
    ck_assert_int_eq(near("koordinator.sh/gpu_memory_ratio"), GPA_R_GPU_MEMORY_RATIO);
    ck_assert_int_eq(near("koordinator.sh/gpumemoryratio"), GPA_R_GPU_MEMORY_RATIO);
    ck_assert_int_eq(near("koordinator.sh/gpu-memry"), GPA_R_GPU_MEMORY);
    ck_assert_int_eq(near("koordinator.sh/gpu-mem"), GPA_R_GPU_MEMORY); /* by prefix; closest by letters */
    ck_assert_int_eq(near("koordinator.sh/gpu"), GPA_R_UNKNOWN);        /* a known name is no near miss */
    ck_assert_int_eq(near("koordinator.sh/cpu"), GPA_R_GPU);            /* one edit */
    ck_assert_int_eq(near("koordinator.sh/batch-cpu"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("koordinator.sh/rdma"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("vke.volcengine.com/mgpu"), GPA_R_MGPU_CORE);
    ck_assert_int_eq(near("vke.volcengine.com/gpu-core"), GPA_R_MGPU_CORE); /* one edit */
    ck_assert_int_eq(near("amd.com/gpu "), GPA_R_AMD_GPU);
    ck_assert_int_eq(near("dcu.com/gpus"), GPA_R_DCU_GPU);
    ck_assert_int_eq(near("nvidia.com/gpu.shared"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com/mig-7g.80gb"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com/mig"), GPA_R_UNKNOWN); /* three edits from gpu */
    ck_assert_int_eq(near("nvidia.com/gp"), GPA_R_NVIDIA_GPU);
    ck_assert_int_eq(near("nvidia.com/gpumem"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com/gpucores"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com/gpumem-percentage"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com/priority"), GPA_R_UNKNOWN); /* HAMi's priority */
    /* near misses of HAMi's names, as configured; none with the HAMi dialect off */
    ck_assert_int_eq(near("nvidia.com/gpucore"), GPA_R_HAMI_NV_CORES);
    ck_assert_int_eq(near("nvidia.com/gpu_mem"), GPA_R_HAMI_NV_MEMORY);
    ck_assert_int_eq(near("nvidia.com/gpumem_percentage"), GPA_R_HAMI_NV_PERCENT);
    ck_assert_int_eq(near("nvidia.com/gpus"), GPA_R_NVIDIA_GPU);
    ck_assert_int_eq(gpa_resource_near_miss(NULL, GPA_DIALECT_VENDOR, "nvidia.com/gpucore", 18), GPA_R_UNKNOWN);
    gpa_hami_names_t renamed = gpa_hami_names_default;
    gpa_hami_names_set(&renamed, GPA_HAMI_NVIDIA, GPA_HAMI_CORES, "nvidia.com/vgpu-cores");
    ck_assert_int_eq(gpa_resource_near_miss(&renamed, GPA_DIALECT_ALL, "nvidia.com/vgpu-core", 20), GPA_R_HAMI_NV_CORES);
    ck_assert_int_eq(gpa_resource_near_miss(&renamed, GPA_DIALECT_ALL, "nvidia.com/gpucore", 18), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.co/gpu"), GPA_R_UNKNOWN); /* another domain */
    ck_assert_int_eq(near("x/cdefghij/gpu"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near("nvidia.com"), GPA_R_UNKNOWN);
    ck_assert_int_eq(near(""), GPA_R_UNKNOWN);
    /* names longer than the comparison window: the prefix still counts, the distance never */
    char long_name[400];
    snprintf(long_name, sizeof(long_name), "koordinator.sh/gpu-%0300d", 0);
    ck_assert_int_ne(near(long_name), GPA_R_UNKNOWN);
    snprintf(long_name, sizeof(long_name), "nvidia.com/g%0300d", 0);
    ck_assert_int_eq(near(long_name), GPA_R_UNKNOWN);
    /* a dialect that is off has no near misses */
    ck_assert_int_eq(gpa_resource_near_miss(NULL, GPA_DIALECT_VENDOR, "koordinator.sh/gpu-shared", 25), GPA_R_UNKNOWN);
    ck_assert_int_eq(gpa_resource_domain("VKE.volcengine.com/x", 20), GPA_DIALECT_MGPU);
    ck_assert_int_eq(gpa_resource_domain("cpu", 3), 0);
}
END_TEST

/* ---- Volcano mGPU ---- */

/* A Pod of app containers `containers` (a JSON list), with the multiple-gpu annotation when `annotation` is set. */
static const gpa_podspec_t *mgpu_pod(const char *annotation, const char *containers)
{
    const char *meta = annotation != NULL ? gpa_arena_printf(&arena,
                                                             "{\"name\":\"p\",\"annotations\":"
                                                             "{\"vke.volcengine.com/container-multiple-gpu\":\"%s\"}}",
                                                             annotation)
                                          : "{\"name\":\"p\"}";
    gpa_object_t *obj = object(gpa_arena_printf(
        &arena, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":%s,\"spec\":{\"containers\":%s}}", meta, containers));
    return &obj->pods[0];
}

#define MGPU_C(name, limits) "{\"name\":\"" name "\",\"resources\":{\"limits\":" limits "}}"
#define CORE_MEM(core, mem) "{\"vke.volcengine.com/mgpu-core\":\"" core "\",\"vke.volcengine.com/mgpu-memory\":\"" mem "\"}"
#define CORE_ONLY(core) "{\"vke.volcengine.com/mgpu-core\":\"" core "\"}"

/* gpa_mgpu_share of container i of pod, the annotation parsed as the rules and normalization parse it. */
static int share_of(unsigned dialects, const gpa_podspec_t *pod, size_t i, gpa_mgpu_share_t *m)
{
    gpa_cards_t cards;
    gpa_cards_parse(&arena, dialects, pod, &cards);
    return gpa_mgpu_share(dialects, &cards, &pod->containers[i], m);
}

/* The share of container i of the Pod (annotation, containers), all dialects on; it must read. */
static gpa_mgpu_share_t share_in(const char *annotation, const char *containers, size_t i)
{
    gpa_mgpu_share_t m;
    ck_assert_int_eq(share_of(GPA_DIALECT_ALL, mgpu_pod(annotation, containers), i, &m), 0);
    return m;
}

static void assert_share(gpa_mgpu_share_t m, int64_t k, int64_t cards, int64_t card_core, int64_t card_memory, int whole,
                         unsigned faults)
{
    ck_assert_int_eq(m.k, k);
    ck_assert_int_eq(m.cards, cards);
    ck_assert_int_eq(m.card_core, card_core);
    ck_assert_int_eq(m.card_memory, card_memory);
    ck_assert_int_eq(m.whole, whole);
    ck_assert_uint_eq(m.faults, faults);
}

#define ONE(limits) "[" MGPU_C("a", limits) "]"

START_TEST(mgpu_without_annotation)
{
    /* one card, shared */
    gpa_mgpu_share_t m = share_in(NULL, ONE(CORE_MEM("30", "1024")), 0);
    assert_share(m, 0, 1, 30, 1024, 0, 0);
    ck_assert_int_eq(m.core, 30);
    ck_assert_int_eq(m.memory, 1024);
    /* one whole card; core above 100 in whole hundreds is that many whole cards */
    assert_share(share_in(NULL, ONE(CORE_ONLY("100")), 0), 0, 1, 100, 0, 1, 0);
    assert_share(share_in(NULL, ONE(CORE_ONLY("300")), 0), 0, 3, 100, 0, 1, 0);
    /* whole cards get all memory: asking for some as well is full-card-memory's */
    assert_share(share_in(NULL, ONE(CORE_MEM("200", "4096")), 0), 0, 2, 100, 2048, 1, GPA_MGPU_WHOLE_WITH_MEMORY);
    /* above one card but not whole cards: one card, and multi-card-divisibility's */
    assert_share(share_in(NULL, ONE(CORE_MEM("150", "1024")), 0), 0, 1, 150, 1024, 0, GPA_MGPU_PARTIAL_CARDS);
    /* mgpu-memory: 0 is not declared: whole cards without memory */
    assert_share(share_in(NULL, ONE(CORE_MEM("100", "0")), 0), 0, 1, 100, 0, 1, 0);
    /* MiB with a binary suffix */
    ck_assert_uint_eq(share_in(NULL, ONE(CORE_MEM("30", "1Gi")), 0).faults, GPA_MGPU_AMBIGUOUS_MEMORY);
}
END_TEST

START_TEST(mgpu_annotation_splits)
{
    const char *two = "[" MGPU_C("a", CORE_MEM("120", "2048")) "," MGPU_C("b", CORE_MEM("30", "512")) "]";
    assert_share(share_in(" 2, 1 ", two, 0), 2, 2, 60, 1024, 0, 0);
    assert_share(share_in(" 2, 1 ", two, 1), 1, 1, 30, 512, 0, 0);
    /* k = 3: 130 and 1000 do not split evenly; 330 is 110 per card */
    assert_share(share_in("3", ONE(CORE_MEM("130", "1000")), 0), 3, 3, 43, 333, 0, GPA_MGPU_CORE_UNEVEN | GPA_MGPU_MEMORY_UNEVEN);
    assert_share(share_in("3", ONE(CORE_MEM("330", "3000")), 0), 3, 3, 110, 1000, 0, GPA_MGPU_OVER_100);
    /* k = 2 of 100 each: whole cards */
    assert_share(share_in("2", ONE(CORE_ONLY("200")), 0), 2, 2, 100, 0, 1, 0);
    /* the annotation's k wins over core/100: 200 over 4 cards is 50 each */
    assert_share(share_in("4", ONE(CORE_MEM("200", "4096")), 0), 4, 4, 50, 1024, 0, 0);
}
END_TEST

START_TEST(mgpu_annotation_unusable)
{
    /* one entry for two containers (card-count-mismatch): every container is a one-card request */
    const char *two = "[" MGPU_C("a", CORE_MEM("60", "2048")) "," MGPU_C("b", CORE_ONLY("200")) "]";
    assert_share(share_in("2", two, 0), 0, 1, 60, 2048, 0, 0);
    assert_share(share_in("2", two, 1), 0, 2, 100, 0, 1, 0);
    /* an entry that is not a number, or 0 for an mGPU container (invalid-card-count) */
    assert_share(share_in("x", ONE(CORE_MEM("60", "2048")), 0), 0, 1, 60, 2048, 0, 0);
    assert_share(share_in("0", ONE(CORE_MEM("60", "2048")), 0), 0, 1, 60, 2048, 0, 0);
    /* the mgpu dialect off: the annotation is not read, and no container is mGPU */
    gpa_mgpu_share_t m;
    ck_assert_int_eq(share_of(GPA_DIALECT_VENDOR | GPA_DIALECT_KOORDINATOR, mgpu_pod("2", ONE(CORE_ONLY("200"))), 0, &m), -1);
}
END_TEST

START_TEST(mgpu_not_read)
{
    gpa_mgpu_share_t m;
    /* no mGPU resource; mgpu-memory without a core; a core of 0; a core that does not parse */
    ck_assert_int_eq(share_of(GPA_DIALECT_ALL, mgpu_pod(NULL, ONE("{\"nvidia.com/gpu\":\"1\"}")), 0, &m), -1);
    ck_assert_int_eq(share_of(GPA_DIALECT_ALL, mgpu_pod(NULL, ONE("{\"vke.volcengine.com/mgpu-memory\":\"1024\"}")), 0, &m), -1);
    ck_assert_int_eq(share_of(GPA_DIALECT_ALL, mgpu_pod(NULL, ONE(CORE_ONLY("0"))), 0, &m), -1);
    ck_assert_int_eq(share_of(GPA_DIALECT_ALL, mgpu_pod(NULL, ONE(CORE_ONLY("1.5"))), 0, &m), -1);
}
END_TEST

/* Normalization reads the same share: a group of `cards` cards of card_core and card_memory MiB each, exactly when
 * the request splits; nothing when it does not. */
START_TEST(mgpu_normalizes_as_read)
{
    static const struct {
        const char *annotation, *limits;
    } cases[] = {
        {NULL, CORE_MEM("30", "1024")}, {NULL, CORE_ONLY("300")},     {"3", CORE_MEM("120", "3072")},
        {"2", CORE_ONLY("200")},        {NULL, CORE_MEM("150", "1")}, {"3", CORE_MEM("130", "10")},
        {"3", CORE_ONLY("330")},        {NULL, CORE_MEM("200", "4")}, {NULL, CORE_MEM("30", "1Gi")},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const gpa_podspec_t *pod = mgpu_pod(
            cases[i].annotation, gpa_arena_printf(&arena, "[{\"name\":\"a\",\"resources\":{\"limits\":%s}}]", cases[i].limits));
        gpa_mgpu_share_t m;
        gpa_request_t req;
        ck_assert_int_eq(share_of(GPA_DIALECT_ALL, pod, 0, &m), 0);
        int rc = gpa_normalize(&arena, GPA_DIALECT_ALL, pod, &req);
        ck_assert_msg(rc == (m.faults == 0 ? 0 : -1), "case %zu: normalize %d, faults %u", i, rc, m.faults);
        if (rc != 0)
            continue;
        ck_assert_uint_eq(req.ngroups, 1);
        ck_assert_int_eq(req.groups[0].count, m.cards);
        ck_assert_int_eq(req.groups[0].core, m.card_core);
        ck_assert_int_eq(req.groups[0].whole, m.whole);
        ck_assert_int_eq(req.groups[0].memory_bytes, m.whole ? 0 : m.card_memory * GPA_MIB);
    }
}
END_TEST

/* ---- HAMi ---- */

static gpa_hami_view_t hami_of(const char *limits_pod, int *is_hami)
{
    gpa_object_t *obj = object(limits_pod);
    gpa_hami_view_t hv;
    *is_hami = gpa_hami_view_container(GPA_DIALECT_ALL, &obj->pods[0].containers[0], &hv) == 0;
    return hv;
}

START_TEST(hami_reading)
{
    int is;
    /* count-only: not HAMi's (the vendor reading: whole devices) */
    hami_of(POD1("{\"nvidia.com/gpu\":\"2\"}"), &is);
    ck_assert(!is);
    /* gpumem x memoryFactor MiB; cores given */
    gpa_hami_view_t hv =
        hami_of(POD1("{\"nvidia.com/gpu\":\"2\",\"nvidia.com/gpumem\":\"3000\",\"nvidia.com/gpucores\":\"30\"}"), &is);
    ck_assert(is);
    ck_assert_int_eq(hv.count, 2);
    ck_assert_int_eq(hv.memory, GPA_HAMI_MEM_MIB);
    ck_assert_int_eq(hv.memory_mib, 3000);
    ck_assert_int_eq(hv.cores, 30);
    ck_assert_int_eq(hv.token[GPA_HAMI_COUNT], GPA_R_NVIDIA_GPU); /* one resource with the vendor's */
    /* the count defaults to defaultGPUNum; gpumem wins over the percentage; cores default to defaultCores (0) */
    hv = hami_of(POD1("{\"nvidia.com/gpumem\":\"4096\",\"nvidia.com/gpumem-percentage\":\"50\"}"), &is);
    ck_assert(is);
    ck_assert_int_eq(hv.count, 1);
    ck_assert_int_eq(hv.memory, GPA_HAMI_MEM_MIB);
    ck_assert_int_eq(hv.cores, 0);
    /* gpumem 0 is unset: the percentage counts; cores not 100 (a present gpumem is not exclusive) */
    hv = hami_of(POD1("{\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpumem\":\"0\",\"nvidia.com/gpumem-percentage\":\"40\"}"), &is);
    ck_assert_int_eq(hv.memory, GPA_HAMI_MEM_PERCENT);
    ck_assert_int_eq(hv.percent, 40);
    ck_assert_int_eq(hv.cores, 0);
    /* percentage 100 and no gpumem: the whole card's compute */
    hv = hami_of(POD1("{\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpumem-percentage\":\"100\"}"), &is);
    ck_assert_int_eq(hv.cores, 100);
    /* cores only: the whole card, cores as given */
    hv = hami_of(POD1("{\"nvidia.com/gpucores\":\"20\"}"), &is);
    ck_assert(is);
    ck_assert_int_eq(hv.memory, GPA_HAMI_MEM_WHOLE);
    ck_assert_int_eq(hv.cores, 20);
    /* the count given as 0 reads as 0 vGPUs, not as the default */
    hv = hami_of(POD1("{\"nvidia.com/gpu\":\"0\",\"nvidia.com/gpumem\":\"1000\"}"), &is);
    ck_assert_int_eq(hv.count, 0);
    /* above HAMi's 32-bit MiB */
    hv = hami_of(POD1("{\"nvidia.com/gpumem\":\"16Gi\"}"), &is);
    ck_assert(hv.memory_overflow);
    /* HAMi off: nothing is HAMi's */
    gpa_object_t *obj = object(POD1("{\"nvidia.com/gpumem\":\"1000\"}"));
    ck_assert_int_eq(gpa_hami_vendor(GPA_DIALECT_ALL & ~(unsigned)GPA_DIALECT_HAMI, &obj->pods[0].containers[0]), -1);
}
END_TEST

START_TEST(hami_configured_names)
{
    gpa_hami_names_t names = gpa_hami_names_default;
    gpa_hami_names_set(&names, GPA_HAMI_NVIDIA, GPA_HAMI_COUNT, "example.com/vgpu");
    gpa_hami_names_set(&names, GPA_HAMI_NVIDIA, GPA_HAMI_MEMORY, "example.com/vgpu-memory");
    names.device[GPA_HAMI_NVIDIA].memory_factor = 1024;
    names.device[GPA_HAMI_NVIDIA].default_memory = 2048;
    ck_assert_int_eq(gpa_resource_intern(&names, "example.com/vgpu-memory", 23), GPA_R_HAMI_NV_MEMORY);
    ck_assert_int_eq(gpa_resource_intern(&names, "example.com/vgpu", 16), GPA_R_HAMI_NV_COUNT);
    ck_assert_int_eq(gpa_resource_intern(&names, "nvidia.com/gpumem", 17), GPA_R_UNKNOWN); /* renamed away */
    ck_assert_int_eq(gpa_resource_intern(NULL, "nvidia.com/gpumem", 17), GPA_R_HAMI_NV_MEMORY);
    ck_assert_int_eq(gpa_resource_lookup("nvidia.com/gpumem", 17), GPA_R_UNKNOWN); /* no literal HAMi name */
    ck_assert_str_eq(gpa_resource_name_in(&names, GPA_R_HAMI_NV_MEMORY), "example.com/vgpu-memory");
    ck_assert(gpa_hami_names_has(&names, "nvidia.com/priority", 19));
    /* decode interns the configured names; the reading uses the configured defaults */
    gpa_decode_opts_t extra = {.hami = &names, .dialects = GPA_DIALECT_ALL};
    gpa_arena_t a;
    gpa_arena_init(&a);
    const char *text = POD1("{\"example.com/vgpu\":\"2\",\"example.com/vgpu-memory\":\"4\",\"nvidia.com/gpucores\":\"10\"}");
    gpa_value_t *doc;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    ck_assert_int_eq(gpa_json_parse(&a, text, strlen(text), &doc, &err), 0);
    ck_assert_int_eq(gpa_decode_object_with(&a, &extra, doc, &obj, &err), 0);
    gpa_hami_view_t hv;
    ck_assert_int_eq(gpa_hami_view_container(GPA_DIALECT_ALL, &obj->pods[0].containers[0], &hv), 0);
    ck_assert_int_eq(hv.count, 2);
    ck_assert_int_eq(hv.memory_mib, 4096);
    ck_assert_int_eq(hv.cores, 10);
    gpa_stray_t *strays;
    ck_assert_uint_eq(gpa_gpu_strays(&a, GPA_DIALECT_ALL, &obj->pods[0].containers[0], &strays), 0);
    /* defaultMemory when no memory is asked */
    text = POD1("{\"nvidia.com/gpucores\":\"10\"}");
    ck_assert_int_eq(gpa_json_parse(&a, text, strlen(text), &doc, &err), 0);
    ck_assert_int_eq(gpa_decode_object_with(&a, &extra, doc, &obj, &err), 0);
    ck_assert_int_eq(gpa_hami_view_container(GPA_DIALECT_ALL, &obj->pods[0].containers[0], &hv), 0);
    ck_assert_int_eq(hv.memory, GPA_HAMI_MEM_DEFAULT);
    ck_assert_int_eq(hv.memory_mib, 2048);
    gpa_arena_dispose(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_request");
    TCase *tc = tcase_create("koordinator");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, values_and_container_read_alike);
    tcase_add_test(tc, forms);
    tcase_add_test(tc, shares);
    tcase_add_test(tc, strays);
    tcase_add_test(tc, near_misses);
    tcase_add_test(tc, hami_reading);
    tcase_add_test(tc, hami_configured_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("mgpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, mgpu_without_annotation);
    tcase_add_test(tc, mgpu_annotation_splits);
    tcase_add_test(tc, mgpu_annotation_unusable);
    tcase_add_test(tc, mgpu_not_read);
    tcase_add_test(tc, mgpu_normalizes_as_read);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
