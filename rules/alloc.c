/* Placeholder until the allocator lands: every Pod fits. Replaced by the allocator's implementation. */
#include "alloc.h"

gpa_fit_t gpa_alloc_feasible(gpa_arena_t *a, const gpa_inventory_t *inv, const gpa_config_t *cfg, const gpa_podspec_t *pod,
                             const gpa_request_t *req, const char **reason)
{
    (void)a, (void)inv, (void)cfg, (void)pod, (void)req;
    *reason = "";
    return GPA_FIT_OK;
}
