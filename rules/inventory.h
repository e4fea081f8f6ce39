/*
 * The cluster's GPU inventory (SPEC §5): nodes, their labels and devices (health, core, memory), and what
 * scheduled Pods already use. Loaded from any mix of documents; reference-counted so the webhook can swap a
 * reloaded inventory in under traffic.
 */
#ifndef GPA_INVENTORY_H
#define GPA_INVENTORY_H

#include <stddef.h>

#include "error.h"
#include "value.h"

typedef struct st_gpa_inventory_t gpa_inventory_t;

/* An empty inventory, new (one reference). */
gpa_inventory_t *gpa_inventory_new(void);
/*
 * Adds every node, device and usage a text (JSON or YAML, any number of documents) describes. On error the
 * inventory is unchanged (nothing half-loaded) and err says file, line and what.
 */
int gpa_inventory_parse(gpa_inventory_t *inv, const char *text, size_t len, const char *source, gpa_error_t *err);
gpa_inventory_t *gpa_inventory_retain(gpa_inventory_t *inv);
void gpa_inventory_release(gpa_inventory_t *inv); /* NULL is fine */

#endif
