/*
 * Check tests for rules/kube/gpu_request.c: one reading of a Koordinator request, whether built from a container
 * or from values (a mutation's plan): forms, devices and per-device shares.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    Suite *s = suite_create("gpu_request");
    TCase *tc = tcase_create("koordinator");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, values_and_container_read_alike);
    tcase_add_test(tc, forms);
    tcase_add_test(tc, shares);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
