#include "kube/model.h"

#include <string.h>

const char *gpa_pairs_get(const gpa_pair_t *pairs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(pairs[i].key, key) == 0)
            return pairs[i].value;
    return NULL;
}

const gpa_amount_t gpa_amount_absent;

const char *gpa_container_resources_path(gpa_arena_t *a, const gpa_container_t *c)
{
    return c->resources_path_ != NULL ? c->resources_path_ : gpa_arena_printf(a, "%s.resources", c->path);
}

const char *gpa_container_resources_pointer(gpa_arena_t *a, const gpa_container_t *c)
{
    return c->resources_pointer_ != NULL ? c->resources_pointer_ : gpa_arena_printf(a, "%s/resources", c->pointer);
}

const gpa_amount_t *gpa_container_amount(const gpa_container_t *c, gpa_resource_t r)
{
    if (r >= GPA_R__COUNT)
        return NULL;
    if (c->request_at_[r] != 0)
        return gpa_container_request(c, r);
    if (c->limit_at_[r] != 0)
        return gpa_container_limit(c, r);
    return NULL;
}

void gpa_object_set_request(gpa_object_t *obj, const char *ns, const char *name)
{
    if (ns != NULL && ns[0] != '\0')
        obj->ns = ns;
    if ((obj->name[0] == '\0' || obj->generated_name) && name != NULL && name[0] != '\0') {
        obj->name = name;
        obj->generated_name = 0;
    }
}
