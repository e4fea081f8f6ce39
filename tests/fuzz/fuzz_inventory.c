/*
 * libFuzzer driver for the inventory loaders (rules/alloc/inventory_load.c, gpa_inventory_parse): Node, Device
 * (Koordinator) and Pod objects, bare or in a List, and the compact GPUInventory form (nodes and templates), JSON or
 * YAML.
 * Invariants: nothing crashes, hangs or leaks; a refused text says what and where and leaves the inventory it
 * was added to as it was (nothing half-loaded: the same nodes, devices and usage as before); an accepted one
 * places every fixed Pod (fuzz_workload.h) without failing.
 * Seeds: tests/fuzz/seeds/inventory/ (one file of each form, from examples/, and the regressions found).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "fuzz_workload.h"

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
            gpa_buf_printf(out, " [%d %d %lld/%lld %lld/%lld %lld %d]", (int)g->minor, g->healthy, (long long)g->core_used,
                           (long long)g->core, (long long)g->memory_used, (long long)g->memory, (long long)g->pods, g->whole_used);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (config == NULL)
        config = gpa_config_default();
    gpa_error_t err;
    gpa_error_init(&err, NULL);
    /* alone */
    gpa_inventory_t *inv = gpa_inventory_new();
    if (gpa_inventory_parse(inv, (const char *)data, size, "fuzz.yaml", &err) == 0)
        fuzz_check_workloads(config, inv);
    else if (err.message[0] == '\0')
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
