/*
 * libFuzzer driver for the configuration reader (rules/policy/config_load.c, gpa_config_parse), what --config and
 * serve's reloads read.
 * Invariants: nothing crashes, hangs or leaks; a refused configuration says what and where and hands nothing
 * back; an accepted one checks every fixed Pod (fuzz_workload.h: each dialect, an excluded namespace, an
 * inventory to place on) without failing, whatever thresholds, actions and placement it sets.
 * Seeds: tests/fuzz/seeds/config/ (the configurations of examples/ and tests/, and the regressions found).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_workload.h"
#include "policy/config.h"

static gpa_inventory_t *inventory;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (inventory == NULL)
        inventory = fuzz_inventory_new();
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_config_t *cfg = NULL;
    if (gpa_config_parse((const char *)data, size, "fuzz.yaml", &cfg, &err) != 0) {
        if (err.message[0] == '\0' || cfg != NULL)
            abort();
        return 0;
    }
    fuzz_check_workloads(cfg, inventory);
    fuzz_check_workloads(cfg, NULL);
    gpa_config_release(cfg);
    return 0;
}
