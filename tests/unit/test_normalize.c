/*
 * Check tests for rules/normalize.c: the canonical request of docs/allocator.md for every dialect, and the specs that do
 * not normalize because a rule denies them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/config.h"
#include "kube/decode.h"
#include "kube/normalize.h"
#include "document/value.h"
#include "document/json.h"
#include "run.h"

static gpa_arena_t A;
static gpa_config_t *CFG;
static gpa_request_t R;
static const gpa_hami_names_t *NAMES; /* HAMi's names and defaults the containers are read with (NULL: HAMi's own) */

static void setup(void)
{
    gpa_arena_init(&A);
    CFG = gpa_config_default();
    memset(&R, 0, sizeof(R));
}

static void teardown(void)
{
    gpa_config_release(CFG);
    gpa_arena_dispose(&A);
}

/* Normalizes a Pod (JSON with single quotes) with annotations `ann`, containers and init containers. */
static int norm(const char *ann, const char *containers, const char *init)
{
    char buf[8192];
    snprintf(
        buf, sizeof(buf),
        "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':%s},'spec':{'containers':%s,'initContainers':%s}}",
        ann != NULL ? ann : "{}", containers, init != NULL ? init : "[]");
    for (char *p = buf; *p != '\0'; p++)
        if (*p == '\'')
            *p = '"';
    gpa_value_t *doc;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    if (gpa_json_parse(&A, buf, strlen(buf), &doc, &err) != 0 || gpa_decode_object(&A, doc, &obj, &err) != 0)
        ck_abort_msg("cannot read test object: %s: %s", err.message, buf);
    gpa_podspec_t *pod = &obj->pods[0];
    for (size_t i = 0; NAMES != NULL && i < pod->ncontainers + pod->ninit_containers; i++)
        (i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers])->hami = NAMES;
    return gpa_normalize(&A, CFG->dialects, &obj->pods[0], &R);
}

/* One container with requests == limits == res. */
static int norm1(const char *res)
{
    char c[2048];
    snprintf(c, sizeof(c), "[{'name':'c0','resources':{'requests':%s,'limits':%s}}]", res, res);
    return norm(NULL, c, NULL);
}

static void group(size_t i, gpa_dialect_t d, unsigned count, int whole, int64_t core, gpa_memory_kind_t kind, int64_t mem)
{
    ck_assert_uint_lt(i, R.ngroups);
    const gpa_device_group_t *g = &R.groups[i];
    ck_assert_int_eq(g->dialect, d);
    ck_assert_uint_eq(g->count, count);
    ck_assert_int_eq(g->whole, whole);
    ck_assert_int_eq(g->core, core);
    ck_assert_int_eq(g->memory_kind, kind);
    if (kind == GPA_MEMORY_BYTES)
        ck_assert_int_eq(g->memory_bytes, mem);
    if (kind == GPA_MEMORY_RATIO)
        ck_assert_int_eq(g->memory_ratio, mem);
}

START_TEST(vendor_whole_devices)
{
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'4'}"), 0);
    ck_assert_uint_eq(R.ngroups, 1);
    group(0, GPA_DIALECT_VENDOR, 4, 1, 100, GPA_MEMORY_NONE, 0);
    ck_assert_str_eq(R.groups[0].container->name, "c0");
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'0','cpu':'2'}"), 0);
    ck_assert_uint_eq(R.ngroups, 0);
}
END_TEST

START_TEST(koordinator_shared)
{
    /* Koordinator: 4Gi, core 100, gpu.shared 2 -> two devices of 2Gi and core 50 */
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'4Gi','koordinator.sh/gpu-core':'100','koordinator.sh/gpu.shared':'2'}"),
                     0);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 0, 50, GPA_MEMORY_BYTES, 2LL << 30);
    /* bytes split as ceil(memory / n): never less than asked */
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'1000000001','koordinator.sh/gpu.shared':'3'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 3, 0, 0, GPA_MEMORY_BYTES, 333333334);
    /* ratio per device */
    ck_assert_int_eq(
        norm1("{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 1, 0, 50, GPA_MEMORY_RATIO, 50);
    ck_assert_int_eq(
        norm1("{'koordinator.sh/gpu-memory-ratio':'200','koordinator.sh/gpu-core':'200','koordinator.sh/gpu.shared':'2'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 1, 100, GPA_MEMORY_RATIO, 100);
}
END_TEST

START_TEST(koordinator_derived_devices)
{
    /* no gpu.shared: the derivation inject-gpu-shared writes */
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory-ratio':'300'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 3, 0, 0, GPA_MEMORY_RATIO, 100);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-core':'200'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 0, 100, GPA_MEMORY_BYTES, 4LL << 30);
    /* the deprecated gpu is core and ratio alike */
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu':'200'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 1, 100, GPA_MEMORY_RATIO, 100);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu':'30'}"), 0);
    group(0, GPA_DIALECT_KOORDINATOR, 1, 0, 30, GPA_MEMORY_RATIO, 30);
}
END_TEST

START_TEST(mgpu_cards)
{
    /* one shared card: core, memory MiB -> bytes */
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1024'}"), 0);
    group(0, GPA_DIALECT_MGPU, 1, 0, 30, GPA_MEMORY_BYTES, 1LL << 30);
    /* core/100 whole cards */
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'300'}"), 0);
    group(0, GPA_DIALECT_MGPU, 3, 1, 100, GPA_MEMORY_NONE, 0);
    /* the annotation: k cards, each core/k and memory/k (the the annotation "2,1,3") */
    ck_assert_int_eq(
        norm("{'vke.volcengine.com/container-multiple-gpu':'2, 1 ,3'}",
             "[{'name':'a','resources':{'limits':{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'2048'}}},"
             "{'name':'b','resources':{'limits':{'vke.volcengine.com/mgpu-core':'100'}}},"
             "{'name':'c','resources':{'limits':{'vke.volcengine.com/mgpu-core':'150','vke.volcengine.com/mgpu-memory':'3072'}}}]",
             NULL),
        0);
    ck_assert_uint_eq(R.ngroups, 3);
    group(0, GPA_DIALECT_MGPU, 2, 0, 50, GPA_MEMORY_BYTES, 1LL << 30);
    group(1, GPA_DIALECT_MGPU, 1, 1, 100, GPA_MEMORY_NONE, 0);
    group(2, GPA_DIALECT_MGPU, 3, 0, 50, GPA_MEMORY_BYTES, 1LL << 30);
    ck_assert_str_eq(R.groups[2].container->name, "c");
}
END_TEST

START_TEST(init_containers_after_app)
{
    ck_assert_int_eq(norm(NULL, "[{'name':'a','resources':{'limits':{'nvidia.com/gpu':'1'}}},{'name':'b'}]",
                          "[{'name':'i','resources':{'limits':{'nvidia.com/gpu':'2'}}}]"),
                     0);
    ck_assert_uint_eq(R.ngroups, 2);
    ck_assert_uint_eq(R.napp_groups, 1);
    ck_assert_str_eq(R.groups[1].container->name, "i");
    ck_assert_uint_eq(R.groups[1].count, 2);
}
END_TEST

/* 2^32 devices or more: sound, but beyond what a group counts. Said so (never cut: 2^32 + 1 is not 1), and which. */
START_TEST(too_many_devices)
{
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'4294967295'}"), 0);
    group(0, GPA_DIALECT_VENDOR, 4294967295u, 1, 100, GPA_MEMORY_NONE, 0);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'4294967296'}"), GPA_NORMALIZE_TOO_MANY);
    ck_assert_int_eq(R.too_many, 4294967296LL);
    ck_assert_str_eq(R.too_many_container->name, "c0");
    ck_assert_str_eq(R.too_many_asks, "container c0 asks");
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'1Ei','koordinator.sh/gpu.shared':'4294967297'}"), GPA_NORMALIZE_TOO_MANY);
    ck_assert_int_eq(R.too_many, 4294967297LL);
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'429496729700'}"), GPA_NORMALIZE_TOO_MANY);
    ck_assert_int_eq(R.too_many, 4294967297LL);
    /* A spec a rule denies stays -1, however large its counts (an annotation entry that large is invalid-card-count). */
    ck_assert_int_eq(norm("{'vke.volcengine.com/container-multiple-gpu':'4294967296'}",
                          "[{'name':'c0','resources':{'limits':{'vke.volcengine.com/mgpu-core':'429496729600'}}}]", NULL),
                     -1);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'4294967296','koordinator.sh/gpu-core':'50'}"), -1);
}
END_TEST

/* Koordinator at Pod level: one group, the Pod's totals (PodRequests) over total gpu.shared distinct devices. */
#define HALF "{'limits':{'koordinator.sh/gpu-memory-ratio':'50','koordinator.sh/gpu-core':'50','koordinator.sh/gpu.shared':'1'}}"
START_TEST(koordinator_pod_level)
{
    /* two containers of 50/50 with gpu.shared 1 each: two distinct devices of 50/50, never one device */
    ck_assert_int_eq(norm(NULL, "[{'name':'a','resources':" HALF "},{'name':'b','resources':" HALF "}]", NULL), 0);
    ck_assert_uint_eq(R.ngroups, 1);
    ck_assert_uint_eq(R.napp_groups, 1);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 0, 50, GPA_MEMORY_RATIO, 50);
    ck_assert_uint_eq(R.groups[0].ncontainers, 2);
    ck_assert_str_eq(R.groups[0].containers, "a,b");
    ck_assert_str_eq(R.groups[0].container->name, "a");
    ck_assert_str_eq(gpa_normalize_asks(&A, &R.groups[0]), "the Pod's 2 containers ask");
    /* a container without GPU is not part of it; one container keeps its own name */
    ck_assert_int_eq(norm(NULL, "[{'name':'x'},{'name':'a','resources':" HALF "}]", NULL), 0);
    ck_assert_uint_eq(R.groups[0].ncontainers, 1);
    ck_assert_str_eq(R.groups[0].containers, "a");
    ck_assert_str_eq(gpa_normalize_asks(&A, &R.groups[0]), "container a asks");
    /* bytes: total over n, rounded up; gpu.shared 1 + 2 = 3 devices */
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory':'1000000000','koordinator.sh/gpu.shared':'1'}}},"
             "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory':'1000000001','koordinator.sh/gpu.shared':'2'}}}]",
             NULL),
        0);
    group(0, GPA_DIALECT_KOORDINATOR, 3, 0, 0, GPA_MEMORY_BYTES, 666666667);
    /* not mutated (no gpu.shared): total ratio 200 is 2 devices; the deprecated gpu counts as compute and ratio */
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu':'100'}}},"
             "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'100','koordinator.sh/gpu-core':'100'}}}]",
             NULL),
        0);
    group(0, GPA_DIALECT_KOORDINATOR, 2, 1, 100, GPA_MEMORY_RATIO, 100);
    /* not mutated, total ratio 100: one device of 100 */
    ck_assert_int_eq(norm(NULL,
                          "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'50'}}},"
                          "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'50'}}}]",
                          NULL),
                     0);
    group(0, GPA_DIALECT_KOORDINATOR, 1, 0, 0, GPA_MEMORY_RATIO, 100);
}
END_TEST

/* PodRequests: per resource, the larger of the app sum and the largest init container. */
START_TEST(koordinator_pod_level_init)
{
    ck_assert_int_eq(
        norm(NULL, "[{'name':'a','resources':" HALF "}]",
             "[{'name':'i','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'80','koordinator.sh/gpu-core':'20',"
             "'koordinator.sh/gpu.shared':'1'}}}]"),
        0);
    ck_assert_uint_eq(R.ngroups, 1);
    ck_assert_uint_eq(R.napp_groups, 1);
    group(0, GPA_DIALECT_KOORDINATOR, 1, 0, 50, GPA_MEMORY_RATIO, 80);
    ck_assert_str_eq(R.groups[0].containers, "a,i");
    /* only an init container asks: the Pod's group is its */
    ck_assert_int_eq(norm(NULL, "[{'name':'a'}]", "[{'name':'i','resources':" HALF "}]"), 0);
    ck_assert_uint_eq(R.napp_groups, 1);
    group(0, GPA_DIALECT_KOORDINATOR, 1, 0, 50, GPA_MEMORY_RATIO, 50);
    ck_assert_str_eq(gpa_normalize_asks(&A, &R.groups[0]), "init container i asks");
}
END_TEST

/* Totals that do not split, or mix memory forms: the Pod-level rules deny them, so they do not normalize. */
START_TEST(koordinator_pod_level_not_normalizable)
{
    /* ratio 30 + 45 over 2 devices */
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'30','koordinator.sh/gpu.shared':'1'}}},"
             "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'45','koordinator.sh/gpu.shared':'1'}}}]",
             NULL),
        -1);
    /* bytes beside a ratio */
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory':'1Gi','koordinator.sh/gpu.shared':'1'}}},"
             "{'name':'b','resources':" HALF "}]",
             NULL),
        -1);
    /* not mutated: total ratio 120 is no whole number of devices */
    ck_assert_int_eq(norm(NULL,
                          "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'60'}}},"
                          "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory-ratio':'60'}}}]",
                          NULL),
                     -1);
}
END_TEST

/* The Pod's total gpu.shared beyond what a group counts: who asks is the Pod. */
START_TEST(koordinator_pod_level_too_many)
{
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory':'1Ei','koordinator.sh/gpu.shared':'2147483648'}}},"
             "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory':'1Ei','koordinator.sh/gpu.shared':'2147483648'}}}]",
             NULL),
        GPA_NORMALIZE_TOO_MANY);
    ck_assert_int_eq(R.too_many, 4294967296LL);
    ck_assert_str_eq(R.too_many_asks, "the Pod's 2 containers ask");
}
END_TEST

START_TEST(not_normalizable)
{
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu-memory-ratio':'50'}"), -1);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-core':'50'}"), -1);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory-ratio':'150','koordinator.sh/gpu.shared':'1'}"), -1);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory-ratio':'75','koordinator.sh/gpu.shared':'2'}"), -1);
    ck_assert_int_eq(norm1("{'koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'0'}"), -1);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','koordinator.sh/gpu-memory':'8Gi','koordinator.sh/gpu.shared':'1'}"), -1);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1.5'}"), -1);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'-1'}"), -1);
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'150'}"), -1);
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-memory':'1024'}"), -1);
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'100','vke.volcengine.com/mgpu-memory':'1024'}"), -1);
    ck_assert_int_eq(norm1("{'vke.volcengine.com/mgpu-core':'30','vke.volcengine.com/mgpu-memory':'1Gi'}"), -1);
    ck_assert_int_eq(norm("{'vke.volcengine.com/container-multiple-gpu':'2,2'}",
                          "[{'name':'a','resources':{'limits':{'vke.volcengine.com/mgpu-core':'100'}}}]", NULL),
                     -1);
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'koordinator.sh/gpu-memory':'1Gi','koordinator.sh/gpu.shared':'1'}}},"
             "{'name':'b','resources':{'limits':{'vke.volcengine.com/mgpu-core':'100'}}}]",
             NULL),
        -1);
    ck_assert_uint_eq(R.ngroups, 0);
}
END_TEST

START_TEST(disabled_dialects_ignored)
{
    CFG->dialects = GPA_DIALECT_VENDOR;
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','koordinator.sh/gpu-core':'50'}"), 0);
    ck_assert_uint_eq(R.ngroups, 1);
    group(0, GPA_DIALECT_VENDOR, 1, 1, 100, GPA_MEMORY_NONE, 0);
}
END_TEST

/* HAMi: per container, `count` vGPUs on different cards, each its memory (MiB, percentage, default, whole card),
 * cores and one slot; count-only containers stay whole cards; the card selection is read into the group. */
START_TEST(hami_vgpus)
{
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'2','nvidia.com/gpumem':'8000','nvidia.com/gpucores':'30'}"), 0);
    ck_assert_uint_eq(R.ngroups, 1);
    group(0, GPA_DIALECT_HAMI, 2, 0, 30, GPA_MEMORY_BYTES, 8000LL << 20);
    ck_assert_ptr_nonnull(R.groups[0].hami);
    ck_assert_int_eq(R.groups[0].hami->split_count, 10);
    ck_assert_ptr_null(R.groups[0].hami->use_type);
    /* percentage: converted on each card (floor, in MiB); cores default to defaultCores (0) */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'25'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 0, GPA_MEMORY_PERCENT_MIB, 0);
    ck_assert_int_eq(R.groups[0].memory_ratio, 25);
    /* the count absent: defaultGPUNum (1) vGPU */
    ck_assert_int_eq(norm1("{'nvidia.com/gpumem':'4000'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 0, GPA_MEMORY_BYTES, 4000LL << 20);
    /* cores only: the whole card's memory, and cores as asked */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpucores':'40'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 40, GPA_MEMORY_CARD, 0);
    /* percentage 100 and no cores: the card alone (cores 100, as HAMi's webhook writes) */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'100'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 100, GPA_MEMORY_PERCENT_MIB, 0);
    /* gpumem with a percentage: gpumem wins; cores above 100 clamped as HAMi's Fit does */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'3000','nvidia.com/gpumem-percentage':'50'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 0, GPA_MEMORY_BYTES, 3000LL << 20);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'3000','nvidia.com/gpucores':'150'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 100, GPA_MEMORY_BYTES, 3000LL << 20);
    /* count 0: HAMi books nothing */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'0','nvidia.com/gpumem':'3000'}"), 0);
    ck_assert_uint_eq(R.ngroups, 0);
    /* count-only: whole cards, the vendor reading */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'2'}"), 0);
    group(0, GPA_DIALECT_VENDOR, 2, 1, 100, GPA_MEMORY_NONE, 0);
}
END_TEST

START_TEST(hami_defaults_and_selection)
{
    CFG->hami.device[GPA_HAMI_NVIDIA].default_memory = 2048;
    CFG->hami.device[GPA_HAMI_NVIDIA].memory_factor = 2;
    CFG->hami.device[GPA_HAMI_NVIDIA].device_split_count = 4;
    NAMES = &CFG->hami;
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpucores':'20'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 20, GPA_MEMORY_BYTES, 2048LL << 20); /* defaultMemory, not x memoryFactor */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'1000'}"), 0);
    group(0, GPA_DIALECT_HAMI, 1, 0, 0, GPA_MEMORY_BYTES, 2000LL << 20); /* gpumem x memoryFactor */
    ck_assert_int_eq(R.groups[0].hami->split_count, 4);
    NAMES = NULL;
    ck_assert_int_eq(norm("{'nvidia.com/use-gputype':'A100, H100','nvidia.com/nouse-gpuuuid':'GPU-1'}",
                          "[{'name':'a','resources':{'limits':{'nvidia.com/gpu':'1','nvidia.com/gpumem':'1000'}}},"
                          "{'name':'b','resources':{'limits':{'nvidia.com/gpu':'1'}}}]",
                          "[{'name':'i','resources':{'limits':{'nvidia.com/gpucores':'10'}}}]"),
                     0);
    /* HAMi beside plain nvidia.com/gpu is one Pod (one resource); init containers' groups after the app ones */
    ck_assert_uint_eq(R.ngroups, 3);
    ck_assert_uint_eq(R.napp_groups, 2);
    ck_assert_str_eq(R.groups[0].hami->use_type, "A100, H100");
    ck_assert_str_eq(R.groups[0].hami->nouse_uuid, "GPU-1");
    ck_assert_int_eq(R.groups[1].dialect, GPA_DIALECT_VENDOR);
    group(2, GPA_DIALECT_HAMI, 1, 0, 10, GPA_MEMORY_CARD, 0);
}
END_TEST

/* What a HAMi rule denies does not normalize (the rule says why), and neither does HAMi beside another share API. */
START_TEST(hami_not_normalizable)
{
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'16Gi'}"), -1); /* beyond HAMi's 32-bit MiB */
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem-percentage':'150'}"), -1);
    ck_assert_int_eq(norm1("{'nvidia.com/gpu':'1','nvidia.com/gpumem':'-5'}"), -1);
    ck_assert_int_eq(
        norm(NULL,
             "[{'name':'a','resources':{'limits':{'nvidia.com/gpumem':'1000'}}},"
             "{'name':'b','resources':{'limits':{'koordinator.sh/gpu-memory':'1Gi','koordinator.sh/gpu.shared':'1'}}}]",
             NULL),
        -1);
}
END_TEST

static Suite *normalize_suite(void)
{
    Suite *s = suite_create("normalize");
    TCase *tc = tcase_create("normalize");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, vendor_whole_devices);
    tcase_add_test(tc, koordinator_shared);
    tcase_add_test(tc, koordinator_derived_devices);
    tcase_add_test(tc, mgpu_cards);
    tcase_add_test(tc, init_containers_after_app);
    tcase_add_test(tc, not_normalizable);
    tcase_add_test(tc, too_many_devices);
    tcase_add_test(tc, disabled_dialects_ignored);
    tcase_add_test(tc, koordinator_pod_level);
    tcase_add_test(tc, koordinator_pod_level_init);
    tcase_add_test(tc, koordinator_pod_level_not_normalizable);
    tcase_add_test(tc, koordinator_pod_level_too_many);
    tcase_add_test(tc, hami_vgpus);
    tcase_add_test(tc, hami_defaults_and_selection);
    tcase_add_test(tc, hami_not_normalizable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(normalize_suite());
}
