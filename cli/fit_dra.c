/* fit for DRA claims (fit_dra.h). */
#include "fit_dra.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "alloc/dra_fit.h"
#include "alloc/placement.h"
#include "inventory/inventory.h"
#include "report/report.h"

/* One claim's placement as an element of fit's JSON array. */
static json_t *placement_json(const char *source, const gpa_object_t *obj, const char *claim, const char *template,
                              const gpa_dra_placement_t *p)
{
    json_t *o = json_object(), *reqs = json_array(), *reasons = json_array();
    json_object_set_new(o, "source", json_string(source));
    json_object_set_new(o, "kind", json_string(obj->kind));
    json_object_set_new(o, "namespace", json_string(obj->ns));
    json_object_set_new(o, "name", json_string(obj->name));
    json_object_set_new(o, "claim", claim != NULL ? json_string(claim) : json_null());
    json_object_set_new(o, "template", template != NULL ? json_string(template) : json_null());
    json_object_set_new(o, "feasible", p->fit == GPA_DRA_NEVER ? json_false() : p->fit == GPA_DRA_FITS ? json_true() : json_null());
    json_object_set_new(o, "node", p->node != NULL ? json_string(p->node) : json_null());
    json_object_set_new(o, "noRoomNow", json_boolean(p->no_room_now));
    for (size_t i = 0; i < p->npicks; i++) {
        json_t *devs = json_array();
        for (size_t k = 0; k < p->picks[i].ndevices; k++) {
            const gpa_dra_placed_t *d = p->picks[i].devices[k];
            json_array_append_new(devs, json_pack("{s:s, s:s, s:s, s:s?}", "driver", d->pool->driver, "pool", d->pool->name,
                                                  "device", d->device->name, "consumed", p->picks[i].consumed[k]));
        }
        json_array_append_new(reqs, json_pack("{s:s, s:o}", "request", p->picks[i].request, "devices", devs));
    }
    if (p->reason != NULL)
        json_array_append_new(reasons, json_pack("{s:s}", "reason", p->reason));
    json_object_set_new(o, "requests", reqs);
    json_object_set_new(o, "reasons", reasons);
    return o;
}

static void print_text(gpa_fit_dra_t *f, const char *who, const gpa_dra_placement_t *p)
{
    gpa_arena_t *a = &f->vb->scratch;
    if (p->fit == GPA_DRA_UNKNOWN) {
        gpa_report_line(stdout, "%s: cannot say (no published device, a class not known, or a request gpuadmit cannot judge)", who);
        if (p->reason != NULL)
            gpa_report_line(stdout, "  %s", p->reason);
        return;
    }
    if (p->fit == GPA_DRA_NEVER) {
        gpa_report_line(stdout, "%s: %s", who,
                        p->no_room_now ? "no room now (it fits once allocated claims free devices)"
                                       : "does not fit, even with every device free");
        gpa_report_line(stdout, "  %s", p->reason);
        return;
    }
    if (p->npicks == 0) {
        gpa_report_line(stdout, "%s: fits", who);
        gpa_report_line(stdout, "  %s", p->reason);
        return;
    }
    gpa_report_line(stdout, "%s: fits on %s", who, p->node != NULL ? p->node : "any node (devices offered to every node)");
    for (size_t i = 0; i < p->npicks; i++) {
        const char *list = "";
        for (size_t k = 0; k < p->picks[i].ndevices; k++) {
            const gpa_dra_placed_t *d = p->picks[i].devices[k];
            const char *used = p->picks[i].consumed[k];
            list = gpa_arena_printf(a, "%s%s%s/%s/%s%s%s%s", list, k != 0 ? ", " : "", d->pool->driver, d->pool->name,
                                    d->device->name, used != NULL ? " (" : "", used != NULL ? used : "", used != NULL ? ")" : "");
        }
        gpa_report_line(stdout, "  request %s: %s", p->picks[i].request, list);
    }
}

/* One claim's placement, printed and counted. */
static void report(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj, const char *claim, const char *template,
                   const gpa_dra_placement_t *p)
{
    gpa_arena_t *a = &f->vb->scratch;
    f->claims++;
    f->misfits += p->fit == GPA_DRA_NEVER;
    if (f->vb->json) {
        gpa_verb_print_json(f->vb, placement_json(source, obj, claim, template, p), source, "placement", obj->name);
        return;
    }
    const char *who = gpa_arena_printf(a, "%s %s/%s%s%s", source, obj->kind, obj->ns, obj->ns[0] != '\0' ? "/" : "", obj->name);
    if (claim != NULL)
        who = gpa_arena_printf(a, "%s claim %s (ResourceClaimTemplate %s)", who, claim, template);
    print_text(f, who, p);
}

static void place(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj, const char *claim, const char *template,
                  const gpa_dra_devices_t *devices)
{
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    gpa_dra_placement_t p;
    gpa_dra_place(&f->vb->scratch, gpa_inventory_dra_pools(f->vb->inv), &f->vb->known, devices, f->now, &budget, &p);
    report(f, source, obj, claim, template, &p);
}

/* Claim i's share of a placement of the Pod's claims together: its requests' picks, their names without "<claim>/". */
static gpa_dra_placement_t share_of(gpa_arena_t *a, const gpa_dra_placement_t *together, const char *claim)
{
    gpa_dra_placement_t p = *together;
    size_t prefix = strlen(claim) + 1;
    p.picks = gpa_arena_calloc(a, together->npicks + 1, sizeof(*p.picks));
    p.npicks = 0;
    for (size_t i = 0; i < together->npicks; i++)
        if (strncmp(together->picks[i].request, claim, prefix - 1) == 0 && together->picks[i].request[prefix - 1] == '/') {
            p.picks[p.npicks] = together->picks[i];
            p.picks[p.npicks++].request += prefix;
        }
    return p;
}

/* The Pod's n claims from templates (n >= 2) placed together, as the scheduler allocates them on its node: 1 when
 * each was reported with its share; 0 when they are to be placed each alone (*never: not even together, said). */
static int place_together(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj, const char **names, const char **templates,
                          const gpa_dra_devices_t **claims, size_t n, int *never)
{
    gpa_arena_t *a = &f->vb->scratch;
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    gpa_dra_placement_t p;
    *never = 0;
    if (!gpa_dra_place_together(a, gpa_inventory_dra_pools(f->vb->inv), &f->vb->known, names, claims, n, f->now, &budget, &p))
        return 0;
    if (p.fit == GPA_DRA_FITS) {
        for (size_t i = 0; i < n; i++) {
            gpa_dra_placement_t share = share_of(a, &p, names[i]);
            report(f, source, obj, names[i], templates[i], &share);
        }
        return 1;
    }
    *never = 1;
    f->claims++; /* an entry of its own, counted as a claim that does not fit */
    if (f->vb->json) {
        json_t *el = placement_json(source, obj, NULL, NULL, &p);
        json_t *together = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(together, json_string(names[i]));
        json_object_set_new(el, "together", together);
        gpa_verb_print_json(f->vb, el, source, "placement", obj->name);
    } else {
        const char *who = gpa_arena_printf(a, "%s %s/%s%s%s its %zu claims from templates together", source, obj->kind, obj->ns,
                                           obj->ns[0] != '\0' ? "/" : "", obj->name, n);
        print_text(f, who, &p);
    }
    return 0;
}

void gpa_fit_dra_object(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj)
{
    const gpa_dra_object_t *o = obj->dra;
    if (o == NULL || (o->kind != GPA_DRA_CLAIM && o->kind != GPA_DRA_TEMPLATE) || o->generated)
        return;
    gpa_arena_clear(&f->vb->scratch);
    place(f, source, obj, NULL, NULL, &o->devices);
}

void gpa_fit_dra_pod(gpa_fit_dra_t *f, const char *source, const gpa_object_t *obj, const gpa_podspec_t *pod)
{
    gpa_arena_t *a = &f->vb->scratch;
    const char **names = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*names));
    const char **templates = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*templates));
    const gpa_dra_devices_t **claims = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*claims));
    size_t n = 0;
    for (size_t i = 0; i < pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &pod->claims[i];
        const gpa_dra_object_t *t =
            pc->template != NULL ? gpa_dra_known_find(&f->vb->known, GPA_DRA_TEMPLATE, obj->ns, pc->template) : NULL;
        if (t == NULL)
            continue; /* a named claim, or a template not known: dra-unknown-claim's to say */
        names[n] = pc->name != NULL ? pc->name : "", templates[n] = pc->template, claims[n++] = &t->devices;
    }
    int never = 0;
    if (n >= 2 && place_together(f, source, obj, names, templates, claims, n, &never))
        return;
    f->misfits += never; /* not together, though perhaps each alone: the Pod waits */
    for (size_t i = 0; i < n; i++)
        place(f, source, obj, names[i], templates[i], claims[i]);
}
