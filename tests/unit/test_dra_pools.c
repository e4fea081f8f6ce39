/* Check tests for inventory/dra_pools.c (pools at their highest generation and complete, counter sets joined across
 * the split layout, devices placed) and inventory/dra_device.c (selectors on a published device as the scheduler
 * evaluates them), on tests/data/dra/slices.json through the inventory loader. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "alloc/dra_fit.h"
#include "inventory/inventory.h"
#include "cel/cel.h"
#include "inventory/dra_device.h"
#include "inventory/dra_pools.h"
#include "run.h"

static gpa_inventory_t *inv;

static void load(void)
{
    size_t n;
    const char *text = fixture_file("tests/data/dra/slices.json", &n);
    inv = gpa_inventory_new();
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    ck_assert_msg(gpa_inventory_parse(inv, text, n, "slices.json", &err) == 0, "%s: %s", err.path, err.message);
}

static void unload(void)
{
    gpa_inventory_release(inv);
}

static const gpa_dra_pool_t *pool_named(const gpa_dra_pools_t *p, const char *driver, const char *name)
{
    for (size_t i = 0; i < p->npools; i++)
        if (strcmp(p->pools[i].driver, driver) == 0 && strcmp(p->pools[i].name, name) == 0)
            return &p->pools[i];
    ck_abort_msg("no pool %s/%s", driver, name);
    return NULL;
}

static const gpa_dra_placed_t *device_named(const gpa_dra_pools_t *p, const char *pool, const char *name)
{
    for (size_t i = 0; i < p->ndevices; i++)
        if (strcmp(p->devices[i].pool->name, pool) == 0 && strcmp(p->devices[i].device->name, name) == 0)
            return &p->devices[i];
    return NULL;
}

START_TEST(pools_generations_and_counters)
{
    const gpa_dra_pools_t *p = gpa_inventory_dra_pools(inv);
    const gpa_dra_pool_t *mig = pool_named(p, "gpu.nvidia.com", "mig-node");
    ck_assert_int_eq(mig->generation, 3); /* generation 2's slice is stale */
    ck_assert(mig->complete);
    ck_assert_uint_eq(mig->nslices, 2);
    ck_assert_ptr_nonnull(gpa_dra_pool_counter_set(mig, "gpu-0-counter-set")); /* joined from the counters-only slice */
    ck_assert_ptr_nonnull(device_named(p, "mig-node", "gpu-0-mig-3g40gb-1"));
    ck_assert_ptr_null(device_named(p, "mig-node", "gpu-0")); /* the old generation's device */
    ck_assert_str_eq(device_named(p, "mig-node", "gpu-0-mig-1g10gb-0")->nodes->node_name, "mig-node");

    const gpa_dra_pool_t *lonely = pool_named(p, "gpu.nvidia.com", "lonely");
    ck_assert(!lonely->complete);
    ck_assert_ptr_null(device_named(p, "lonely", "gpu-0")); /* one slice of two: nothing counts yet */
    size_t n, total;
    const gpa_error_t *w = gpa_inventory_warnings(inv, &n, &total);
    int named = 0;
    for (size_t i = 0; i < n; i++)
        named |= strstr(w[i].message, "pool gpu.nvidia.com/lonely generation 1: 1 of 2 slices") != NULL;
    ck_assert_msg(named, "no warning names the incomplete pool");

    ck_assert(gpa_dra_pools_driver_known(p, "gpu.nvidia.com"));
    ck_assert(gpa_dra_pools_driver_known(p, "hami-core-gpu.project-hami.io"));
    ck_assert(!gpa_dra_pools_driver_known(p, "gpu.example.com"));
    ck_assert_uint_eq(p->ndevices, 2 + 2 + 1 + 1 + 1); /* gpu-node-1, mig-node, beta-node, hami-node, fabric */
    /* ResourceSlices alone say nothing of the nodes device plugins serve (a Koordinator Pod is not "on no GPU node") */
    ck_assert(!gpa_inventory_has_nodes(inv));
}
END_TEST

/* The outcome of `exprs` on one device, as gpa_dra_select gives it; *which the selector it stopped at. */
static gpa_cel_outcome_t select_on(const gpa_dra_placed_t *p, const char *const *exprs, size_t n, size_t *which, const char **why)
{
    const gpa_cel_node_t *sel[8];
    for (size_t i = 0; i < n; i++) {
        gpa_error_t err;
        gpa_error_init(&err, NULL);
        ck_assert_msg(gpa_cel_parse(&arena, exprs[i], strlen(exprs[i]), "test", &sel[i], &err) == 0, "%s", err.message);
    }
    uint64_t cost = 100000;
    return gpa_dra_select(&arena, sel, n, p->pool->driver, p->device, &cost, which, why);
}

START_TEST(selectors_on_devices)
{
    const gpa_dra_pools_t *p = gpa_inventory_dra_pools(inv);
    const gpa_dra_placed_t *gpu = device_named(p, "gpu-node-1", "gpu-1"), *hami = device_named(p, "hami-node", "hami-gpu-0");
    size_t which;
    const char *why;
    const char *match[] = {"device.driver == 'gpu.nvidia.com'", "device.attributes['gpu.nvidia.com'].type == 'gpu'",
                           "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0",
                           "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))",
                           "device.attributes['resource.kubernetes.io'].numaNode == 0 && !device.allowMultipleAllocations"};
    ck_assert_int_eq(select_on(gpu, match, 5, &which, &why), GPA_CEL_MATCH);
    /* an attribute the device does not publish fails; has() of it is false; an unknown domain is an empty map */
    const char *index[] = {"device.attributes['gpu.nvidia.com'].index == 0"};
    ck_assert_int_eq(select_on(gpu, index, 1, &which, &why), GPA_CEL_FAILS);
    ck_assert_str_eq(why, "no such key: index");
    const char *guarded[] = {"has(device.attributes['gpu.nvidia.com'].index)"};
    ck_assert_int_eq(select_on(gpu, guarded, 1, &which, &why), GPA_CEL_NO_MATCH);
    const char *domain[] = {"device.attributes['gpu.example.com'].type == 'gpu'"};
    ck_assert_int_eq(select_on(gpu, domain, 1, &which, &why), GPA_CEL_FAILS);
    /* in order: a false selector ends it before a failing one; an unknown one too (MAYBE: what follows may not run) */
    const char *ordered[] = {"device.driver == 'other'", "device.attributes['gpu.nvidia.com'].index == 0"};
    ck_assert_int_eq(select_on(gpu, ordered, 2, &which, &why), GPA_CEL_NO_MATCH);
    ck_assert_uint_eq(which, 0);
    const char *unknown[] = {"device.attributes['gpu.nvidia.com'].productName.split(' ').size() > 1",
                             "device.attributes['gpu.nvidia.com'].index == 0"};
    ck_assert_int_eq(select_on(gpu, unknown, 2, &which, &why), GPA_CEL_MAYBE);
    ck_assert_uint_eq(which, 0);
    /* consumable capacity: HAMi-DRA's shared device */
    const char *shared[] = {"device.allowMultipleAllocations",
                            "device.capacity['hami-core-gpu.project-hami.io'].cores.compareTo(quantity('100')) == 0"};
    ck_assert_int_eq(select_on(hami, shared, 2, &which, &why), GPA_CEL_MATCH);
}
END_TEST

static gpa_dra_device_capacity_t capacity(int64_t value, const char *policy_yaml)
{
    gpa_dra_device_capacity_t c = {.domain = "d", .id = "memory", .value = {.status = GPA_Q_OK, .value = value}};
    if (policy_yaml == NULL)
        return c;
    /* a one-device slice read by the decoder: the policy as a driver writes it */
    const char *text =
        gpa_arena_printf(&arena,
                         "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},"
                         "\"spec\":{\"driver\":\"d\",\"devices\":[{\"name\":\"x\",\"capacity\":{\"memory\":"
                         "{\"value\":\"%lld\",\"requestPolicy\":%s}}}]}}",
                         (long long)value, policy_yaml);
    return *object(text)->dra->slice->devices[0].capacity[0];
}

static int64_t consumed_of(const gpa_dra_device_capacity_t *c, int shared, const char *asked, int *rc)
{
    gpa_quantity_t q = asked != NULL ? gpa_quantity_parse(asked, strlen(asked)) : (gpa_quantity_t){0};
    int64_t out = -1;
    const char *why;
    *rc = gpa_dra_consumed(&arena, c, shared, asked != NULL ? &q : NULL, &out, &why);
    return out;
}

START_TEST(capacity_rounding)
{
    int rc;
    gpa_dra_device_capacity_t none = capacity(80ll << 30, NULL);
    ck_assert_int_eq(consumed_of(&none, 1, "4Gi", &rc), 4ll << 30);
    ck_assert_int_eq(consumed_of(&none, 1, NULL, &rc), 80ll << 30);  /* nothing asked: the whole capacity */
    ck_assert_int_eq(consumed_of(&none, 0, "4Gi", &rc), 80ll << 30); /* not shared: the request only filters */
    consumed_of(&none, 0, "81Gi", &rc);
    ck_assert_int_eq(rc, 1);
    gpa_dra_device_capacity_t values = capacity(80ll << 30, "{\"default\":\"8Gi\",\"validValues\":[\"8Gi\",\"16Gi\",\"80Gi\"]}");
    ck_assert_int_eq(consumed_of(&values, 1, "10Gi", &rc), 16ll << 30);
    ck_assert_int_eq(consumed_of(&values, 1, "16Gi", &rc), 16ll << 30);
    ck_assert_int_eq(consumed_of(&values, 1, NULL, &rc), 8ll << 30);
    gpa_dra_device_capacity_t range =
        capacity(24ll << 30, "{\"default\":\"24Gi\",\"validRange\":{\"min\":\"1Gi\",\"max\":\"20Gi\",\"step\":\"2Gi\"}}");
    ck_assert_int_eq(consumed_of(&range, 1, "100Mi", &rc), 1ll << 30); /* below min: min */
    ck_assert_int_eq(consumed_of(&range, 1, "4Gi", &rc), 5ll << 30);   /* min + 2 steps */
    ck_assert_int_eq(consumed_of(&range, 1, "19Gi", &rc), 19ll << 30);
    consumed_of(&range, 1, "20Gi", &rc); /* 21Gi after rounding: above max */
    ck_assert_int_eq(rc, 1);
    consumed_of(&range, 1, "9223372036854775807", &rc); /* rounding past int64: never, not a wrap */
    ck_assert_int_eq(rc, 1);
}
END_TEST

/* The claim spec of `yaml` (a ResourceClaim) against the slices of the fixture and a class per driver. */
static gpa_dra_fit_t fits_with(const char *spec, int now, const char **reason)
{
    static gpa_dra_known_t known;
    gpa_dra_known_init(&known, gpa_inventory_dra(inv));
    const char *classes[] = {
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu\"},"
        "\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.nvidia.com' && "
        "device.attributes['gpu.nvidia.com'].type == 'gpu'\"}}]}}",
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"future\"},"
        "\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'future.example.com'\"}}]}}",
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"hami\"},"
        "\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'hami-core-gpu.project-hami.io'\"}}]}}",
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"mig\"},"
        "\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.nvidia.com' && "
        "device.attributes['gpu.nvidia.com'].type == 'mig'\"}}]}}"};
    for (size_t i = 0; i < 4; i++)
        gpa_dra_known_add(&arena, &known, object(classes[i])->dra);
    gpa_object_t *claim = object(gpa_arena_printf(
        &arena,
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"n\"},"
        "\"spec\":{\"devices\":{\"requests\":%s}}}",
        spec));
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    *reason = "";
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(inv);
    return now ? gpa_dra_fits_now(&arena, pools, &known, &claim->dra->devices, &budget, reason)
               : gpa_dra_ever_fits(&arena, pools, &known, &claim->dra->devices, &budget, reason);
}

static gpa_dra_fit_t fits(const char *spec, const char **reason)
{
    return fits_with(spec, 0, reason);
}

START_TEST(claims_ever_fit)
{
    const char *why;
    /* gpu-node-1 has two GPUs, beta-node one (its 24Gi GPU has no productName) */
    ck_assert_int_eq(fits("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":2}}]", &why), GPA_DRA_FITS);
    ck_assert_int_eq(fits("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":3}}]", &why), GPA_DRA_NEVER);
    ck_assert_str_eq(why, "request g: 3 devices on one node asked, at most 2 on any node");
    /* two requests: each met on its own node only */
    ck_assert_int_eq(
        fits("[{\"name\":\"a\",\"exactly\":{\"deviceClassName\":\"gpu\",\"capacity\":{\"requests\":{\"memory\":\"70Gi\"}}}},"
             "{\"name\":\"b\",\"exactly\":{\"deviceClassName\":\"gpu\",\"selectors\":[{\"cel\":{\"expression\":"
             "\"has(device.attributes['gpu.nvidia.com'].index)\"}}]}}]",
             &why),
        GPA_DRA_NEVER);
    /* a firstAvailable alternative that fits */
    ck_assert_int_eq(fits("[{\"name\":\"g\",\"firstAvailable\":[{\"name\":\"big\",\"deviceClassName\":\"gpu\",\"count\":4},"
                          "{\"name\":\"small\",\"deviceClassName\":\"gpu\",\"count\":1}]}]",
                          &why),
                     GPA_DRA_FITS);
    ck_assert_int_eq(
        fits("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\",\"capacity\":{\"requests\":{\"memory\":\"100Gi\"}}}}]",
             &why),
        GPA_DRA_NEVER);
    /* nothing to say (never a denial): a class no published device matches (its driver may not run yet), a class not known */
    ck_assert_int_eq(fits("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"future\",\"count\":9}}]", &why), GPA_DRA_FITS);
    ck_assert_int_eq(fits("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"nope\",\"count\":9}}]", &why), GPA_DRA_FITS);
}
END_TEST

/* An allocated claim as the scheduler writes its status: one result per device, a shared device's consumedCapacity. */
static const char *allocated(const char *name, const char *results)
{
    return gpa_arena_printf(&arena,
                            "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"%s\","
                            "\"namespace\":\"ml\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":"
                            "{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":{\"results\":%s}}}}",
                            name, results);
}

/* What allocated claims hold (status.allocation): no room now where an empty cluster has room; never a change to "ever". */
START_TEST(claims_room_now)
{
    const char *list = gpa_arena_printf(
        &arena, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[%s,%s,%s,%s,%s]}",
        allocated("train", "[{\"request\":\"r\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"gpu-node-1\",\"device\":\"gpu-0\"}]"),
        allocated("share", "[{\"request\":\"r\",\"driver\":\"hami-core-gpu.project-hami.io\",\"pool\":\"hami-node\","
                           "\"device\":\"hami-gpu-0\",\"consumedCapacity\":{\"memory\":\"20Gi\",\"cores\":\"50\"}}]"),
        /* a pool since replaced: holds nothing; a status of a shape the API server never writes: not read */
        allocated("stale", "[{\"request\":\"r\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"gone\",\"device\":\"gpu-0\"}]"),
        allocated("odd", "[{\"request\":\"r\",\"driver\":7,\"pool\":\"beta-node\",\"device\":\"gpu-0\"}]"),
        /* a 3g.40gb MIG device: its memory slices 0-3 are consumed from the GPU's counter set */
        allocated("mig",
                  "[{\"request\":\"r\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"mig-node\",\"device\":\"gpu-0-mig-3g40gb-1\"}]"));
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    ck_assert_msg(gpa_inventory_parse(inv, list, strlen(list), "claims.json", &err) == 0, "%s", err.message);
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(inv);
    ck_assert_ptr_nonnull(pools->use);
    const gpa_dra_placed_t *held = device_named(pools, "gpu-node-1", "gpu-0");
    ck_assert_uint_eq(pools->use[held - pools->devices].allocations, 1);
    ck_assert_str_eq(pools->use[held - pools->devices].by, "ml/train");
    ck_assert_uint_eq(pools->use[device_named(pools, "beta-node", "gpu-0") - pools->devices].allocations, 0);
    const char *why, *two = "[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":2}}]";
    ck_assert_int_eq(fits_with(two, 0, &why), GPA_DRA_FITS);
    ck_assert_int_eq(fits_with(two, 1, &why), GPA_DRA_NEVER);
    ck_assert_str_eq(why, "request g: 2 devices on one node asked, at most 1 on any node");
    ck_assert_int_eq(fits_with("[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]", 1, &why), GPA_DRA_FITS);
    /* the 1g.10gb device overlaps it on memorySlice0: free, but its counters are taken */
    const char *small = "[{\"name\":\"m\",\"exactly\":{\"deviceClassName\":\"mig\",\"selectors\":[{\"cel\":{\"expression\":"
                        "\"device.attributes['gpu.nvidia.com'].profile == '1g.10gb'\"}}]}}]";
    ck_assert_int_eq(fits_with(small, 0, &why), GPA_DRA_FITS);
    ck_assert_int_eq(fits_with(small, 1, &why), GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "device mig-node/gpu-0-mig-1g10gb-0 consumes 1 of memorySlice0 from counter set gpu-0-counter-set, "
                              "which allocated devices leave at 0") != NULL,
                  "%s", why);
    /* the shared device: 24Gi and 100 cores, 20Gi and 50 consumed (and tainted: the requests tolerate it) */
    ck_assert_int_eq(fits_with("[{\"name\":\"h\",\"exactly\":{\"deviceClassName\":\"hami\",\"capacity\":{\"requests\":"
                               "{\"memory\":\"8Gi\",\"cores\":\"10\"}},\"tolerations\":[{\"key\":\"maintenance\",\"operator\":"
                               "\"Exists\"}]}}]",
                               1, &why),
                     GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "capacity memory of device hami-node/hami-gpu-0: 8Gi asked, 4Gi left by 1 allocated claim(s)") !=
                      NULL,
                  "%s", why);
    ck_assert_int_eq(fits_with("[{\"name\":\"h\",\"exactly\":{\"deviceClassName\":\"hami\",\"capacity\":{\"requests\":"
                               "{\"memory\":\"2Gi\",\"cores\":\"10\"}},\"tolerations\":[{\"key\":\"maintenance\",\"operator\":"
                               "\"Exists\"}]}}]",
                               1, &why),
                     GPA_DRA_FITS);
    /* cores not named: the policy's default (100) is consumed, as the scheduler lists every capacity */
    ck_assert_int_eq(fits_with("[{\"name\":\"h\",\"exactly\":{\"deviceClassName\":\"hami\",\"capacity\":{\"requests\":"
                               "{\"memory\":\"2Gi\"}},\"tolerations\":[{\"key\":\"maintenance\",\"operator\":\"Exists\"}]}}]",
                               1, &why),
                     GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "capacity cores of device hami-node/hami-gpu-0: 100 consumed (the request names none), 50 left by 1 "
                              "allocated claim(s)") != NULL,
                  "%s", why);
}
END_TEST

/* A MIG node as NVIDIA's driver publishes it: two GPUs, each with two 1g.10gb MIG devices under its parentUUID; and a
 * shared device (HAMi-DRA's) on another node. */
static const char *const constraint_slices =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"m\"},\"spec\":{\"driver\":"
    "\"gpu.nvidia.com\",\"nodeName\":\"mig-1\",\"pool\":{\"name\":\"mig-1\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":"
    "["
    "{\"name\":\"a0\",\"attributes\":{\"type\":{\"string\":\"mig\"},\"parentUUID\":{\"string\":\"GPU-a\"}}},"
    "{\"name\":\"a1\",\"attributes\":{\"type\":{\"string\":\"mig\"},\"parentUUID\":{\"string\":\"GPU-a\"}}},"
    "{\"name\":\"b0\",\"attributes\":{\"type\":{\"string\":\"mig\"},\"parentUUID\":{\"string\":\"GPU-b\"}}},"
    "{\"name\":\"b1\",\"attributes\":{\"type\":{\"string\":\"mig\"},\"parentUUID\":{\"string\":\"GPU-b\"}}}]}},"
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":"
    "\"gpu.nvidia.com\",\"nodeName\":\"shared-1\",\"pool\":{\"name\":\"shared-1\",\"generation\":1,\"resourceSliceCount\":1},"
    "\"devices\":[{\"name\":\"g0\",\"allowMultipleAllocations\":true,\"attributes\":{\"type\":{\"string\":\"shared\"},"
    "\"uuid\":{\"string\":\"GPU-s\"}}}]}},"
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"mig\"},\"spec\":{\"selectors\":"
    "[{\"cel\":{\"expression\":\"device.attributes['gpu.nvidia.com'].type == 'mig'\"}}]}},"
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"shared\"},\"spec\":{\"selectors\":"
    "[{\"cel\":{\"expression\":\"device.attributes['gpu.nvidia.com'].type == 'shared'\"}}]}}]}";

/* constraint_slices as an inventory (*mig, the caller's to release), and a claim of `requests` and `constraints`. */
static const gpa_dra_devices_t *constrained_claim(const char *requests, const char *constraints, gpa_inventory_t **mig)
{
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    *mig = gpa_inventory_new();
    ck_assert_msg(gpa_inventory_parse(*mig, constraint_slices, strlen(constraint_slices), "m.json", &err) == 0, "%s", err.message);
    return &object(
                gpa_arena_printf(&arena,
                                 "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\","
                                 "\"namespace\":\"n\"},\"spec\":{\"devices\":{\"requests\":%s,\"constraints\":%s}}}",
                                 requests, constraints))
                ->dra->devices;
}

static gpa_dra_fit_t constrained(const char *requests, const char *constraints, const char **why)
{
    gpa_inventory_t *mig;
    const gpa_dra_devices_t *devices = constrained_claim(requests, constraints, &mig);
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    *why = "";
    gpa_dra_fit_t f = gpa_dra_ever_fits(&arena, gpa_inventory_dra_pools(mig), gpa_inventory_dra(mig), devices, &budget, why);
    *why = gpa_arena_strdup(&arena, *why);
    gpa_inventory_release(mig);
    return f;
}

/* matchAttribute and distinctAttribute (gpu-test4's MIG devices under one parentUUID): met by some set of devices, or
 * never, with the constraint named. */
START_TEST(claims_constraints)
{
    const char *why, *parent = "[{\"matchAttribute\":\"gpu.nvidia.com/parentUUID\"}]";
    const char *two =
        "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\"}},{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"mig\"}}]";
    ck_assert_int_eq(constrained(two, parent, &why), GPA_DRA_FITS);
    const char *three = "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\",\"count\":2}},"
                        "{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"mig\"}}]";
    ck_assert_int_eq(constrained(three, "[]", &why), GPA_DRA_FITS);
    ck_assert_int_eq(constrained(three, parent, &why), GPA_DRA_NEVER);
    ck_assert_str_eq(why,
                     "its requests are met on 1 node(s), on none by devices that meet matchAttribute gpu.nvidia.com/parentUUID "
                     "(spec.devices.constraints[0])");
    /* only the requests named: y alone is free to take the other GPU's */
    ck_assert_int_eq(constrained(three, "[{\"requests\":[\"x\"],\"matchAttribute\":\"gpu.nvidia.com/parentUUID\"}]", &why),
                     GPA_DRA_FITS);
    /* an attribute no device has: never */
    ck_assert_int_eq(constrained(two, "[{\"matchAttribute\":\"gpu.nvidia.com/index\"}]", &why), GPA_DRA_NEVER);
    /* two requests on a shared device, kept apart by distinctAttribute: one device, one uuid */
    const char *shared = "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"shared\"}},{\"name\":\"y\",\"exactly\":{"
                         "\"deviceClassName\":\"shared\"}}]";
    ck_assert_int_eq(constrained(shared, "[]", &why), GPA_DRA_FITS);
    ck_assert_int_eq(constrained(shared, "[{\"distinctAttribute\":\"gpu.nvidia.com/uuid\"}]", &why), GPA_DRA_NEVER);
    ck_assert_int_eq(constrained(two, "[{\"distinctAttribute\":\"gpu.nvidia.com/parentUUID\"}]", &why), GPA_DRA_FITS);
}
END_TEST

static void on_node(void *ctx, const char *node, const char *reason)
{
    const char **text = ctx;
    *text = gpa_arena_printf(&arena, "%s[%s] %s\n", *text, node, reason);
}

/* explain's node by node: every request a node does not meet is named, not only the first. */
START_TEST(claims_why_not_each_request)
{
    const char *why;
    const char *spec = "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":3}},"
                       "{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"gpu\",\"capacity\":{\"requests\":{\"memory\":"
                       "\"100Gi\"}}}}]";
    ck_assert_int_eq(fits(spec, &why), GPA_DRA_NEVER);
    gpa_object_t *claim = object(gpa_arena_printf(
        &arena,
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"n\"},"
        "\"spec\":{\"devices\":{\"requests\":%s}}}",
        spec));
    static gpa_dra_known_t known; /* fits() added the classes to the inventory's known objects */
    gpa_dra_known_init(&known, gpa_inventory_dra(inv));
    gpa_dra_known_add(&arena, &known,
                      object("{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu\"},"
                             "\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.nvidia.com' && "
                             "device.attributes['gpu.nvidia.com'].type == 'gpu'\"}}]}}")
                          ->dra);
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    const char *text = "";
    gpa_dra_why_not(&arena, gpa_inventory_dra_pools(inv), &known, &claim->dra->devices, 0, &budget, on_node, &text);
    ck_assert_msg(strstr(text, "[gpu-node-1] request x: 3 device(s) asked, 2 here; request y: 1 device(s) asked, 0 here; for one "
                               "left out, capacity memory of device gpu-node-1/gpu-0: 100Gi asked, the device has ") != NULL,
                  "%s", text);
}
END_TEST

/* A Pod's claims together (gpa_dra_devices_merge): each claim's constraint binds its own requests only, and devices
 * are each one claim's. */
START_TEST(claims_of_a_pod_together)
{
    const char *pair = "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\"}},{\"name\":\"y\",\"exactly\":{"
                       "\"deviceClassName\":\"mig\"}}]";
    gpa_inventory_t *mig, *unused[2];
    const gpa_dra_devices_t *a = constrained_claim(pair, "[{\"matchAttribute\":\"gpu.nvidia.com/parentUUID\"}]", &mig);
    const gpa_dra_devices_t *b = constrained_claim(pair, "[]", &unused[0]);
    const gpa_dra_devices_t *c =
        constrained_claim("[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\"}}]", "[]", &unused[1]);
    const char *names[] = {"a", "b", "c"};
    const gpa_dra_devices_t *claims[] = {a, b, c};
    const gpa_dra_devices_t *ab = gpa_dra_devices_merge(&arena, names, claims, 2);
    ck_assert_uint_eq(ab->nrequests, 4);
    ck_assert_str_eq(ab->requests[2].name, "b/x");
    ck_assert_uint_eq(ab->constraints[0].nrequests, 2); /* a's constraint, on a's requests */
    ck_assert_str_eq(ab->constraints[0].requests[1], "a/y");
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    const char *why = "";
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(mig);
    /* four MIG devices, two under each parent: a's two under one parent, b's two anywhere */
    ck_assert_int_eq(gpa_dra_ever_fits(&arena, pools, gpa_inventory_dra(mig), ab, &budget, &why), GPA_DRA_FITS);
    /* a fifth device for c: never, though each claim fits alone */
    const gpa_dra_devices_t *abc = gpa_dra_devices_merge(&arena, names, claims, 3);
    ck_assert_int_eq(gpa_dra_ever_fits(&arena, pools, gpa_inventory_dra(mig), abc, &budget, &why), GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "on none all together") != NULL, "%s", why);
    gpa_inventory_release(mig);
    gpa_inventory_release(unused[0]);
    gpa_inventory_release(unused[1]);
}
END_TEST

/* Where gpa_dra_place puts the claim on constraint_slices: "node: request=device,device; ...", or "never: why". */
static const char *placed(const char *requests, const char *constraints)
{
    gpa_inventory_t *mig;
    const gpa_dra_devices_t *devices = constrained_claim(requests, constraints, &mig);
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    gpa_dra_placement_t p;
    gpa_dra_place(&arena, gpa_inventory_dra_pools(mig), gpa_inventory_dra(mig), devices, 0, &budget, &p);
    const char *text = p.fit == GPA_DRA_NEVER ? gpa_arena_printf(&arena, "never: %s", p.reason)
                                              : gpa_arena_printf(&arena, "%s:", p.node != NULL ? p.node : "(none)");
    for (size_t i = 0; i < p.npicks; i++) {
        text = gpa_arena_printf(&arena, "%s%s %s=", text, i > 0 ? ";" : "", p.picks[i].request);
        for (size_t k = 0; k < p.picks[i].ndevices; k++)
            text = gpa_arena_printf(&arena, "%s%s%s", text, k > 0 ? "," : "", p.picks[i].devices[k]->device->name);
    }
    gpa_inventory_release(mig);
    return text;
}

/* The search (dra.md §5.2): requests compete for a node's devices and counter sets, and a first choice that breaks a
 * constraint is taken back. */
START_TEST(claims_searched)
{
    const char *why;
    /* gpu-node-1's two GPUs: each request is met there, not both at once */
    ck_assert_int_eq(fits("[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":2}},"
                          "{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]",
                          &why),
                     GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "on none all together") != NULL, "%s", why);
    /* mig-node's two MIG devices overlap on memorySlice0 of one counter set: never both */
    ck_assert_int_eq(fits("[{\"name\":\"m\",\"exactly\":{\"deviceClassName\":\"mig\",\"count\":2}}]", &why), GPA_DRA_NEVER);
    ck_assert_msg(strstr(why, "a counter set") != NULL, "%s", why);
    ck_assert_int_eq(fits("[{\"name\":\"m\",\"exactly\":{\"deviceClassName\":\"mig\"}}]", &why), GPA_DRA_FITS);

    const char *two =
        "[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\"}},{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"mig\"}}]";
    ck_assert_str_eq(placed(two, "[]"), "mig-1: x=a0; y=a1");
    /* first fit gives y a1, under x's parent: the search takes it back and gives it b0 */
    ck_assert_str_eq(placed(two, "[{\"distinctAttribute\":\"gpu.nvidia.com/parentUUID\"}]"), "mig-1: x=a0; y=b0");
    ck_assert_str_eq(placed("[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"mig\",\"count\":3}},"
                            "{\"name\":\"y\",\"exactly\":{\"deviceClassName\":\"mig\",\"count\":2}}]",
                            "[]"),
                     "never: its requests are each met on 1 node(s), on none all together: they compete for the same devices, a "
                     "shared device's capacity or a counter set");
    /* a shared device serves two requests */
    ck_assert_str_eq(placed("[{\"name\":\"x\",\"exactly\":{\"deviceClassName\":\"shared\"}},{\"name\":\"y\",\"exactly\":{"
                            "\"deviceClassName\":\"shared\"}}]",
                            "[]"),
                     "shared-1: x=g0; y=g0");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dra_pools");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_checked_fixture(tc, load, unload);
    tcase_add_test(tc, pools_generations_and_counters);
    tcase_add_test(tc, selectors_on_devices);
    tcase_add_test(tc, capacity_rounding);
    tcase_add_test(tc, claims_ever_fit);
    tcase_add_test(tc, claims_room_now);
    tcase_add_test(tc, claims_constraints);
    tcase_add_test(tc, claims_searched);
    tcase_add_test(tc, claims_of_a_pod_together);
    tcase_add_test(tc, claims_why_not_each_request);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
