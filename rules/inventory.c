/* Placeholder until the inventory loader lands. */
#include "inventory.h"
#include "arena.h"

#include <stdlib.h>

struct st_gpa_inventory_t {
    int refcnt;
};

gpa_inventory_t *gpa_inventory_new(void)
{
    gpa_inventory_t *inv = gpa_xcalloc(1, sizeof(*inv));
    inv->refcnt = 1;
    return inv;
}

int gpa_inventory_parse(gpa_inventory_t *inv, const char *text, size_t len, const char *source, gpa_error_t *err)
{
    (void)inv, (void)text, (void)len, (void)source;
    return gpa_error_set(err, 0, 0, NULL, "inventories are not supported yet");
}

gpa_inventory_t *gpa_inventory_retain(gpa_inventory_t *inv)
{
    inv->refcnt++;
    return inv;
}

void gpa_inventory_release(gpa_inventory_t *inv)
{
    if (inv != NULL && --inv->refcnt == 0)
        free(inv);
}
