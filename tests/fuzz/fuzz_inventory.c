/*
 * libFuzzer driver for the inventory loaders (rules/inventory/inventory_load.c, gpa_inventory_parse): Node, Device
 * (Koordinator) and Pod objects, bare or in a List, and the compact GPUInventory form (nodes and templates), JSON or
 * YAML.
 * Invariants: nothing crashes, hangs or leaks; a refused text says what and where and leaves the inventory it
 * was added to as it was (nothing half-loaded: the same nodes, devices and usage as before); an accepted one
 * places every fixed Pod (fuzz_workload.h) without failing.
 * Pods (docs/allocator.md, "Usage"): the same bytes are also a tenant's Pod annotations (Koordinator's
 * device-allocated, an mGPU card list, HAMi's vgpu-devices-allocated) on a Pod asking two devices, read as the live
 * view reads one object: the Pod never fails, holds at most two devices, and holds nothing when named in a warning.
 * And a Node's HAMi register annotation: the Node never fails, has at most 1,024 cards of distinct minors, and none
 * when named in a warning. An accepted text reads the
 * same object by object (the live view's reading) as whole (a file's).
 * Seeds: tests/fuzz/seeds/inventory/ (one file of each form, from examples/, DRA slices and allocated claims, a poisoned kubectl
 * dump, annotation values, and the regressions found).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "fuzz_workload.h"
#include "document/docs.h"

static gpa_config_t *config;

/* What the resolved nodes (or templates) say, as text. */
static void describe_nodes(const gpa_node_t *nodes, size_t n, gpa_buf_t *out)
{
    for (size_t i = 0; i < n; i++) {
        gpa_buf_printf(out, "%s %u %d %s:", nodes[i].name, nodes[i].dialects, nodes[i].koordinator, nodes[i].model);
        for (size_t j = 0; j < nodes[i].nlabels; j++)
            gpa_buf_printf(out, " %s=%s", nodes[i].labels[j].key, nodes[i].labels[j].value);
        for (size_t j = 0; j < nodes[i].ngpus; j++) {
            const gpa_gpu_t *g = &nodes[i].gpus[j];
            gpa_buf_printf(out, " [%d %d %lld/%lld %lld/%lld %lld %d %s %s %s %d %lld/%lld]", (int)g->minor, g->healthy,
                           (long long)g->core_used, (long long)g->core, (long long)g->memory_used, (long long)g->memory,
                           (long long)g->pods, g->whole_used, g->uuid, g->type, g->mode, (int)g->numa, (long long)g->slots_used,
                           (long long)g->slots);
        }
        gpa_buf_putc(out, '\n');
    }
}

/* What the resolved view says, nodes then templates, as text: compared before and after a refused load. */
static void describe(const gpa_inventory_t *inv, gpa_buf_t *out)
{
    size_t n;
    const gpa_node_t *nodes = gpa_inventory_nodes(inv, &n);
    describe_nodes(nodes, n, out);
    gpa_buf_printf(out, "templates:\n");
    nodes = gpa_inventory_templates(inv, &n);
    describe_nodes(nodes, n, out);
}

/* ---- one object at a time (gpa_inventory_read_object), as the live view reads them ---- */

typedef struct st_reading_t {
    gpa_inventory_t *inv; /* NULL: only count */
    size_t usages, warnings, nodes, gpus;
    int32_t minors[1025];
    int bad_usage;
} reading_t;

static void on_node(void *ctx, const gpa_node_desc_t *d)
{
    reading_t *r = ctx;
    r->nodes++;
    if (r->inv != NULL)
        gpa_inventory_add_node(r->inv, d);
}

static void on_gpu(void *ctx, const gpa_gpu_desc_t *d)
{
    reading_t *r = ctx;
    if (r->inv == NULL) { /* one Node's cards: distinct minors, at most 1,024 */
        for (size_t i = 0; i < r->gpus && i < 1025; i++)
            if (r->minors[i] == d->minor)
                abort();
        if (r->gpus < 1025)
            r->minors[r->gpus] = d->minor;
    }
    r->gpus++;
    if (r->inv != NULL)
        gpa_inventory_add_gpu(r->inv, d);
}

static void on_usage(void *ctx, const gpa_usage_desc_t *d)
{
    reading_t *r = ctx;
    r->usages++;
    r->bad_usage |= d->core < 0 || d->core > 100 || d->ratio < 0 || d->ratio > 100 || (d->whole_count == 0 && d->minor < 0);
    if (r->inv != NULL)
        gpa_inventory_add_usage(r->inv, d);
}

static void on_warn(void *ctx, const gpa_error_t *why)
{
    reading_t *r = ctx;
    r->warnings++;
    if (strncmp(why->message, "Pod ", 4) != 0 && strncmp(why->message, "Node ", 5) != 0)
        abort(); /* a warning names the Pod or the Node */
    if (r->inv != NULL)
        gpa_inventory_add_warning(r->inv, why);
}

/* The bytes as a JSON string literal (control and non-ASCII bytes escaped). */
static void put_string(gpa_buf_t *b, const uint8_t *data, size_t size)
{
    gpa_buf_putc(b, '"');
    for (size_t i = 0; i < size; i++) {
        if (data[i] == '"' || data[i] == '\\')
            gpa_buf_printf(b, "\\%c", data[i]);
        else if (data[i] < 0x20 || data[i] >= 0x7f)
            gpa_buf_printf(b, "\\u%04x", data[i]);
        else
            gpa_buf_putc(b, (char)data[i]);
    }
    gpa_buf_putc(b, '"');
}

/* The bytes as each annotation a tenant may write on a Pod asking two devices. */
static void as_annotations(const uint8_t *data, size_t size)
{
    static const char *const forms[][2] = {
        {"scheduling.koordinator.sh/device-allocated",
         "\"koordinator.sh/gpu-core\":\"200\",\"koordinator.sh/gpu-memory-ratio\":\"200\""},
        {"vke.volcengine.com/gpu-index-container-c", "\"vke.volcengine.com/mgpu-core\":\"200\""},
        {"hami.io/vgpu-devices-allocated", "\"nvidia.com/gpu\":\"2\""},
    };
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        gpa_buf_t b = GPA_BUF_INIT;
        gpa_buf_printf(&b,
                       "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"t\",\"annotations\":{\"%s\":", forms[f][0]);
        put_string(&b, data, size);
        gpa_buf_printf(&b, "}},\"spec\":{\"nodeName\":\"n\",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{%s}}}]}}",
                       forms[f][1]);
        gpa_arena_t a = {0};
        gpa_value_t *pod;
        gpa_error_t err = {0};
        gpa_error_init(&err, NULL);
        if (gpa_json_parse(&a, b.base, b.len, &pod, &err) != 0)
            fuzz_fail("the Pod around the annotation is not JSON", &b);
        reading_t r = {0};
        gpa_inventory_sink_t sink = {on_node, on_gpu, on_usage, &r, on_warn};
        if (gpa_inventory_read_object(&a, GPA_INVENTORY_POD, pod, "fuzz", &sink, &err) != 0)
            fuzz_fail("a Pod's annotation failed the reading", &b);
        if (r.usages > 2 || r.bad_usage || r.warnings > 1 || (r.warnings == 1 && r.usages != 0))
            fuzz_fail("a Pod holds more than its request, or holds something while named unreadable", &b);
        gpa_arena_dispose(&a);
        gpa_buf_dispose(&b);
    }
}

/* The bytes as a Node's HAMi register annotation, read as the live view reads one object. */
static void as_register(const uint8_t *data, size_t size)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"annotations\":{\"hami.io/node-nvidia-register\":");
    put_string(&b, data, size);
    gpa_buf_puts(&b, "}},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"20\"}}}");
    gpa_arena_t a = {0};
    gpa_value_t *node;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    if (gpa_json_parse(&a, b.base, b.len, &node, &err) != 0)
        fuzz_fail("the Node around the annotation is not JSON", &b);
    reading_t *r = calloc(1, sizeof(*r));
    gpa_inventory_sink_t sink = {on_node, on_gpu, on_usage, r, on_warn};
    if (gpa_inventory_read_object(&a, GPA_INVENTORY_NODE, node, "fuzz", &sink, &err) != 0)
        fuzz_fail("a Node's register annotation failed the reading", &b);
    if (r->nodes != 1 || r->gpus > 1024 || r->warnings > 1 || (r->warnings == 1 && r->gpus != 0))
        fuzz_fail("a Node has more than 1,024 cards, or cards while named unreadable", &b);
    free(r);
    gpa_arena_dispose(&a);
    gpa_buf_dispose(&b);
}

/* Reads every Node, Device, Pod and DRA object of a document one by one into r; 0, or -1 when the text is not only those. */
static int read_objects(gpa_arena_t *a, gpa_value_t *doc, reading_t *r)
{
    const char *kind = gpa_value_string(gpa_value_get(doc, "kind"));
    size_t klen = kind != NULL ? strlen(kind) : 0;
    gpa_error_t err = {0};
    if (kind != NULL && klen >= 4 && strcmp(kind + klen - 4, "List") == 0) {
        gpa_value_t *items = (gpa_value_t *)gpa_value_get(doc, "items");
        for (size_t i = 0; items != NULL && items->type == GPA_VARRAY && i < items->u.array.len; i++)
            if (items->u.array.items[i]->type != GPA_VOBJECT || read_objects(a, items->u.array.items[i], r) != 0)
                return -1;
        return 0;
    }
    gpa_inventory_kind_t k;
    if (kind == NULL || strcmp(kind, "GPUInventory") == 0)
        return kind == NULL ? 0 : -1;
    if (gpa_dra_kind_of(gpa_value_string(gpa_value_get(doc, "apiVersion")), kind) != GPA_DRA_NONE)
        return gpa_inventory_add_dra(r->inv, doc, "", &err); /* as the live view adds its DRA objects */
    if (strcmp(kind, "Node") == 0)
        k = GPA_INVENTORY_NODE;
    else if (strcmp(kind, "Device") == 0)
        k = GPA_INVENTORY_DEVICE;
    else if (strcmp(kind, "Pod") == 0)
        k = GPA_INVENTORY_POD;
    else
        return 0;
    gpa_inventory_sink_t sink = {on_node, on_gpu, on_usage, r, on_warn};
    return gpa_inventory_read_object(a, k, doc, "fuzz.yaml", &sink, &err);
}

/* An accepted text, object by object: the same inventory, the same number of Pods named. */
static void same_reading(const uint8_t *data, size_t size, const gpa_inventory_t *whole)
{
    gpa_arena_t a = {0};
    gpa_docs_t docs;
    gpa_error_t err = {0};
    reading_t r = {.inv = gpa_inventory_new()};
    int rc = gpa_docs_parse(&a, (const char *)data, size, &docs, &err);
    for (size_t i = 0; rc == 0 && i < docs.len; i++)
        rc = read_objects(&a, docs.docs[i], &r);
    if (rc == 0 && gpa_inventory_commit(r.inv, &err) == 0) {
        gpa_buf_t x = GPA_BUF_INIT, y = GPA_BUF_INIT;
        size_t nx, ny, tx, ty;
        describe(whole, &x);
        describe(r.inv, &y);
        gpa_inventory_warnings(whole, &nx, &tx);
        gpa_inventory_warnings(r.inv, &ny, &ty);
        if (x.len != y.len || (x.len != 0 && memcmp(x.base, y.base, x.len) != 0) || tx != ty)
            fuzz_fail("object by object, the text reads otherwise than whole", &x);
        gpa_buf_dispose(&x);
        gpa_buf_dispose(&y);
    }
    gpa_inventory_release(r.inv);
    gpa_arena_dispose(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    as_annotations(data, size);
    as_register(data, size);
    if (config == NULL)
        config = gpa_config_default();
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    /* alone */
    gpa_inventory_t *inv = gpa_inventory_new();
    if (gpa_inventory_parse(inv, (const char *)data, size, "fuzz.yaml", &err) == 0) {
        fuzz_check_workloads(config, inv);
        same_reading(data, size, inv);
    } else if (err.message[0] == '\0')
        abort();
    gpa_inventory_release(inv);
    /* added to an inventory that already holds nodes and usage */
    inv = fuzz_inventory_new();
    gpa_buf_t before = GPA_BUF_INIT, after = GPA_BUF_INIT;
    describe(inv, &before);
    gpa_error_init(&err, NULL);
    if (gpa_inventory_parse(inv, (const char *)data, size, "fuzz.yaml", &err) == 0) {
        fuzz_check_workloads(config, inv);
    } else {
        describe(inv, &after);
        if (after.len != before.len || (after.len != 0 && memcmp(after.base, before.base, after.len) != 0))
            fuzz_fail("a refused inventory changed the one it was added to", &after);
    }
    gpa_buf_dispose(&before);
    gpa_buf_dispose(&after);
    gpa_inventory_release(inv);
    return 0;
}
