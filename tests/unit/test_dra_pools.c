/* Check tests for inventory/dra_pools.c (pools at their highest generation and complete, counter sets joined across
 * the split layout, devices placed) and inventory/dra_device.c (selectors on a published device as the scheduler
 * evaluates them), on tests/data/dra/slices.json through the inventory loader. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "alloc/inventory.h"
#include "cel/cel.h"
#include "inventory/dra_device.h"
#include "inventory/dra_pools.h"
#include "run.h"

static gpa_inventory_t *inv;

static void load(void)
{
    FILE *f = fopen("tests/data/dra/slices.json", "rb");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
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

int main(void)
{
    Suite *s = suite_create("dra_pools");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_checked_fixture(tc, load, unload);
    tcase_add_test(tc, pools_generations_and_counters);
    tcase_add_test(tc, selectors_on_devices);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
