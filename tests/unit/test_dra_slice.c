/* Check tests for kube/dra_slice.c: ResourceSlices as the NVIDIA driver (GPUs; MIG devices and their counters in the
 * 1.35 split layout), HAMi-DRA (consumable capacity with request policies), a v1beta1 driver (`basic`) and a
 * network-attached driver (a node selector) publish them (tests/data/dra/slices.json); shapes and the API's limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document/json.h"
#include "fixture.h"
#include "kube/dra_slice.h"
#include "run.h"

/* The slices of tests/data/dra/slices.json, decoded as the front ends decode a List's items. */
static gpa_objects_t slices(void)
{
    const char *text = fixture_file("tests/data/dra/slices.json", NULL);
    gpa_objects_t out = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "slices.json");
    ck_assert_msg(gpa_decode_document_with(&arena, &cfg->decode, json(text), &out, &err) == 0, "%s: %s", err.path, err.message);
    return out;
}

static const gpa_dra_slice_t *slice_named(const gpa_objects_t *objs, const char *name)
{
    for (size_t i = 0; i < objs->len; i++)
        if (strcmp(objs->items[i]->name, name) == 0) {
            ck_assert_ptr_nonnull(objs->items[i]->dra);
            ck_assert_int_eq(objs->items[i]->dra->kind, GPA_DRA_SLICE);
            return objs->items[i]->dra->slice;
        }
    ck_abort_msg("no slice %s", name);
    return NULL;
}

START_TEST(nvidia_gpus)
{
    gpa_objects_t objs = slices();
    const gpa_dra_slice_t *s = slice_named(&objs, "gpu-node-1-gpu.nvidia.com-abcde");
    ck_assert_str_eq(s->driver, "gpu.nvidia.com");
    ck_assert_str_eq(s->pool, "gpu-node-1");
    ck_assert_int_eq(s->generation, 1);
    ck_assert_int_eq(s->slice_count, 1);
    ck_assert_str_eq(s->nodes.node_name, "gpu-node-1");
    ck_assert_uint_eq(s->ndevices, 2);
    const gpa_dra_device_t *d = &s->devices[1];
    ck_assert_str_eq(d->name, "gpu-1");
    /* unqualified names are the driver's; qualified ones keep their own domain */
    const gpa_dra_attribute_t *type = gpa_dra_device_attribute(d, "gpu.nvidia.com", "type");
    ck_assert_int_eq(type->type, GPA_DRA_ATTR_STRING);
    ck_assert_str_eq(type->s, "gpu");
    ck_assert_int_eq(gpa_dra_device_attribute(d, "gpu.nvidia.com", "driverVersion")->type, GPA_DRA_ATTR_VERSION);
    const gpa_dra_attribute_t *numa = gpa_dra_device_attribute(d, "resource.kubernetes.io", "numaNode");
    ck_assert_int_eq(numa->type, GPA_DRA_ATTR_INT);
    ck_assert_int_eq(numa->i, 0);
    ck_assert_ptr_null(gpa_dra_device_attribute(d, "gpu.nvidia.com", "index")); /* the driver no longer publishes it */
    ck_assert_ptr_null(gpa_dra_device_attribute(d, "gpu.nvidia.com", "numaNode"));
    const gpa_dra_device_capacity_t *mem = gpa_dra_device_capacity(d, "gpu.nvidia.com", "memory");
    ck_assert_int_eq(mem->value.status, GPA_Q_OK);
    ck_assert_int_eq(mem->value.value, 80ll << 30);
    ck_assert(mem->policy == NULL && !d->allow_multiple);
    ck_assert_uint_eq(d->ntaints, 0);
}
END_TEST

START_TEST(mig_split_layout_and_generations)
{
    gpa_objects_t objs = slices();
    const gpa_dra_slice_t *counters = slice_named(&objs, "mig-node-counters"), *devices = slice_named(&objs, "mig-node-devices");
    ck_assert_int_eq(counters->generation, 3);
    ck_assert_int_eq(counters->slice_count, 2);
    ck_assert_uint_eq(counters->ndevices, 0);
    ck_assert_uint_eq(counters->ncounter_sets, 1);
    ck_assert_str_eq(counters->counter_sets[0].name, "gpu-0-counter-set");
    ck_assert_uint_eq(counters->counter_sets[0].ncounters, 10);
    ck_assert_str_eq(counters->counter_sets[0].counters[0].name, "multiprocessors");
    ck_assert_int_eq(counters->counter_sets[0].counters[0].value.value, 98);
    ck_assert_uint_eq(devices->ndevices, 2);
    const gpa_dra_device_t *big = &devices->devices[1];
    ck_assert_uint_eq(big->nconsumes, 1);
    ck_assert_str_eq(big->consumes[0].name, "gpu-0-counter-set");
    ck_assert_uint_eq(big->consumes[0].ncounters, 6); /* multiprocessors, memory, four memory slices */
    ck_assert_int_eq(gpa_dra_device_capacity(big, "gpu.nvidia.com", "memory")->value.value, 39424ll << 20);
    ck_assert_int_eq(slice_named(&objs, "mig-node-old")->generation, 2);
}
END_TEST

START_TEST(hami_policies_taints_and_beta1)
{
    gpa_objects_t objs = slices();
    const gpa_dra_device_t *d = &slice_named(&objs, "hami-node")->devices[0];
    ck_assert(d->allow_multiple);
    const gpa_dra_device_capacity_t *mem = gpa_dra_device_capacity(d, "hami-core-gpu.project-hami.io", "memory");
    ck_assert(mem->policy != NULL && mem->policy->has_default && mem->policy->has_range && mem->policy->has_max &&
              mem->policy->has_step);
    ck_assert_int_eq(mem->policy->def.value, 24ll << 30);
    ck_assert_int_eq(mem->policy->min.value, 1 << 20);
    ck_assert_int_eq(mem->policy->step.value, 1 << 20);
    ck_assert_uint_eq(d->ntaints, 1);
    ck_assert_str_eq(d->taints[0].effect, "NoSchedule");

    const gpa_dra_slice_t *beta = slice_named(&objs, "beta-node-slice");
    ck_assert_uint_eq(beta->ndevices, 1);
    ck_assert_int_eq(gpa_dra_device_attribute(&beta->devices[0], "gpu.nvidia.com", "index")->i, 0);
    ck_assert_int_eq(gpa_dra_device_capacity(&beta->devices[0], "gpu.nvidia.com", "memory")->value.value, 24ll << 30);

    const gpa_dra_slice_t *fabric = slice_named(&objs, "fabric");
    ck_assert_ptr_null(fabric->nodes.node_name);
    ck_assert(fabric->nodes.selector != NULL && !fabric->nodes.all_nodes);
    ck_assert_str_eq(fabric->nodes.selector_path, "spec.nodeSelector");
    gpa_node_term_t *terms;
    size_t nterms;
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_decode_node_selector(&arena, fabric->nodes.selector, fabric->nodes.selector_path, &terms, &nterms, &err),
                     0);
    ck_assert_uint_eq(nterms, 1);
    ck_assert_str_eq(terms[0].requirements[0].key, "rack");
    ck_assert_uint_eq(terms[0].requirements[0].nvalues, 2);
}
END_TEST

/* The decode error's "path: message" for one slice. */
static const char *slice_error(const char *text)
{
    gpa_object_t *obj = NULL;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_decode_object_with(&arena, &cfg->decode, json(text), &obj, &err), -1);
    return gpa_arena_printf(&arena, "%s: %s", err.path, err.message);
}

#define SLICE(spec)                                                                                                                \
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},\"spec\":" spec "}"

START_TEST(bad_shapes_and_limits)
{
    ck_assert_str_eq(slice_error(SLICE("{\"devices\":{}}")), "spec.devices: must be a list, not a mapping");
    ck_assert_str_eq(slice_error(SLICE("{\"devices\":[{\"name\":\"d\",\"capacity\":{\"memory\":{\"value\":true}}}]}")),
                     "spec.devices[0].capacity.memory.value: must be a string, not a boolean");
    ck_assert_str_eq(slice_error(SLICE("{\"pool\":{\"name\":\"p\",\"generation\":-1}}")),
                     "spec.pool.generation: a whole number >= 0");
    /* 129 devices: one more than the API lets a slice hold */
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(
        &b,
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[");
    for (int i = 0; i < GPA_DRA_MAX_SLICE_DEVICES + 1; i++)
        gpa_buf_printf(&b, "%s{\"name\":\"d%d\"}", i ? "," : "", i);
    gpa_buf_puts(&b, "]}}");
    ck_assert_str_eq(slice_error(b.base), "spec.devices: at most 128 items (the API's limit), not 129");
    gpa_buf_dispose(&b);
    /* a fractional capacity is kept with its status: the allocator reads it as unknown */
    gpa_object_t *obj = object(SLICE("{\"devices\":[{\"name\":\"d\",\"capacity\":{\"cores\":{\"value\":\"0.5\"}}}]}"));
    ck_assert_int_eq(obj->dra->slice->devices[0].capacity[0]->value.status, GPA_Q_FRACTION);
}
END_TEST

/* ---- the copy an inventory keeps ---- */

static void same_quantity(const gpa_quantity_t *a, const gpa_quantity_t *b)
{
    ck_assert(a->status == b->status && a->value == b->value && a->suffix == b->suffix);
}

static void same_string(const char *a, const char *b)
{
    ck_assert((a == NULL) == (b == NULL));
    if (a != NULL)
        ck_assert_str_eq(a, b);
}

static void same_sets(const gpa_dra_counter_set_t *a, const gpa_dra_counter_set_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        same_string(a[i].name, b[i].name);
        ck_assert_uint_eq(a[i].ncounters, b[i].ncounters);
        for (size_t k = 0; k < a[i].ncounters; k++) {
            same_string(a[i].counters[k].name, b[i].counters[k].name);
            same_quantity(&a[i].counters[k].value, &b[i].counters[k].value);
        }
    }
}

static void same_policy(const gpa_dra_policy_t *a, const gpa_dra_policy_t *b)
{
    ck_assert((a == NULL) == (b == NULL));
    if (a == NULL)
        return;
    ck_assert(a->has_default == b->has_default && a->has_range == b->has_range && a->has_max == b->has_max &&
              a->has_step == b->has_step && a->nvalid_values == b->nvalid_values);
    same_quantity(&a->def, &b->def), same_quantity(&a->min, &b->min), same_quantity(&a->max, &b->max);
    same_quantity(&a->step, &b->step);
    for (size_t i = 0; i < a->nvalid_values; i++)
        same_quantity(&a->valid_values[i], &b->valid_values[i]);
}

static void same_device(const gpa_dra_device_t *a, const gpa_dra_device_t *b)
{
    same_string(a->name, b->name), same_string(a->path, b->path);
    ck_assert(a->nattributes == b->nattributes && a->ncapacity == b->ncapacity && a->nconsumes == b->nconsumes &&
              a->ntaints == b->ntaints && a->allow_multiple == b->allow_multiple);
    for (size_t i = 0; i < a->nattributes; i++) {
        const gpa_dra_attribute_t *x = a->attributes[i], *y = b->attributes[i];
        same_string(x->domain, y->domain), same_string(x->id, y->id), same_string(x->s, y->s);
        ck_assert(x->type == y->type && x->i == y->i && x->b == y->b);
    }
    for (size_t i = 0; i < a->ncapacity; i++) {
        same_string(a->capacity[i]->domain, b->capacity[i]->domain), same_string(a->capacity[i]->id, b->capacity[i]->id);
        same_quantity(&a->capacity[i]->value, &b->capacity[i]->value);
        same_policy(a->capacity[i]->policy, b->capacity[i]->policy);
    }
    same_sets(a->consumes, b->consumes, a->nconsumes);
    for (size_t i = 0; i < a->ntaints; i++) {
        same_string(a->taints[i].key, b->taints[i].key), same_string(a->taints[i].value, b->taints[i].value);
        same_string(a->taints[i].effect, b->taints[i].effect);
    }
    same_string(a->nodes.node_name, b->nodes.node_name);
    ck_assert(a->nodes.all_nodes == b->nodes.all_nodes && (a->nodes.selector == NULL) == (b->nodes.selector == NULL));
}

/* gpa_dra_slice_copy: equal to what was read, field by field, once the document and everything read from it are gone
 * (ASan reads freed memory as a fault); and what is equal across devices is stored once. */
START_TEST(copy_shares_and_borrows_nothing)
{
    gpa_arena_t kept, doc;
    gpa_arena_init(&kept);
    gpa_arena_init(&doc);
    gpa_intern_t in;
    gpa_intern_init(&in, &kept);
    gpa_objects_t read = slices(), again = {0};
    gpa_error_t err = {0};
    gpa_error_init(&err, "slices.json");
    const char *text = fixture_file("tests/data/dra/slices.json", NULL);
    gpa_value_t *v;
    ck_assert_int_eq(gpa_json_parse(&doc, text, strlen(text), &v, &err), 0);
    ck_assert_int_eq(gpa_decode_document_with(&doc, &cfg->decode, v, &again, &err), 0);
    gpa_dra_slice_t *copies = gpa_arena_calloc(&kept, again.len, sizeof(*copies));
    for (size_t i = 0; i < again.len; i++)
        gpa_dra_slice_copy(&in, again.items[i]->dra->slice, &copies[i]);
    gpa_intern_dispose(&in);
    gpa_arena_dispose(&doc);
    ck_assert_uint_eq(read.len, again.len);
    for (size_t i = 0; i < read.len; i++) {
        const gpa_dra_slice_t *a = read.items[i]->dra->slice, *b = &copies[i];
        same_string(a->driver, b->driver), same_string(a->pool, b->pool);
        ck_assert(a->generation == b->generation && a->slice_count == b->slice_count && a->per_device == b->per_device);
        ck_assert(a->ndevices == b->ndevices && a->ncounter_sets == b->ncounter_sets);
        same_string(a->nodes.node_name, b->nodes.node_name), same_string(a->nodes.selector_path, b->nodes.selector_path);
        ck_assert((a->nodes.selector == NULL) == (b->nodes.selector == NULL));
        same_sets(a->counter_sets, b->counter_sets, a->ncounter_sets);
        for (size_t k = 0; k < a->ndevices; k++)
            same_device(&a->devices[k], &b->devices[k]);
    }
    /* the NVIDIA node's two GPUs: one "type: gpu" attribute record, one driver name */
    const gpa_dra_slice_t *gpus = NULL;
    for (size_t i = 0; i < read.len; i++)
        if (strcmp(read.items[i]->name, "gpu-node-1-gpu.nvidia.com-abcde") == 0)
            gpus = &copies[i];
    ck_assert_ptr_nonnull(gpus);
    ck_assert_ptr_eq(gpa_dra_device_attribute(&gpus->devices[0], "gpu.nvidia.com", "type"),
                     gpa_dra_device_attribute(&gpus->devices[1], "gpu.nvidia.com", "type"));
    ck_assert_ptr_ne(gpa_dra_device_attribute(&gpus->devices[0], "gpu.nvidia.com", "uuid"),
                     gpa_dra_device_attribute(&gpus->devices[1], "gpu.nvidia.com", "uuid"));
    ck_assert_ptr_eq(gpus->devices[0].attributes[0]->domain, gpus->devices[1].attributes[0]->domain);
    /* copied again into one chunk reserved at the size the copies took (the live view's records): it holds them all */
    gpa_arena_t exact;
    gpa_arena_init(&exact);
    gpa_arena_reserve(&exact, gpa_arena_used(&kept));
    gpa_intern_init(&in, &exact);
    gpa_dra_slice_t *twice = gpa_arena_calloc(&exact, again.len, sizeof(*twice));
    for (size_t i = 0; i < again.len; i++)
        gpa_dra_slice_copy(&in, &copies[i], &twice[i]);
    gpa_intern_dispose(&in);
    ck_assert_uint_eq(gpa_arena_used(&exact), gpa_arena_used(&kept));
    ck_assert_uint_eq(gpa_arena_held(&exact), gpa_arena_used(&kept)); /* one chunk, nothing left over */
    ck_assert_uint_lt(gpa_arena_held(&exact), gpa_arena_held(&kept));
    for (size_t i = 0; i < again.len; i++)
        ck_assert(twice[i].ndevices == copies[i].ndevices && strcmp(twice[i].pool, copies[i].pool) == 0);
    gpa_arena_dispose(&exact);
    gpa_arena_dispose(&kept);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dra_slice");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, nvidia_gpus);
    tcase_add_test(tc, mig_split_layout_and_generations);
    tcase_add_test(tc, hami_policies_taints_and_beta1);
    tcase_add_test(tc, bad_shapes_and_limits);
    tcase_add_test(tc, copy_shares_and_borrows_nothing);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
