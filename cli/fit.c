/*
 * gpuadmit fit (README.md#the-cli): where each Pod would go. Every Pod spec read (a Pod's own, or each template of a
 * workload) is normalized and placed on the inventory: the node, each device share, the score and the
 * annotation the scheduler would write; or, when nothing fits, each node's first reason. Nodes are taken
 * empty ("could it ever fit") unless --now counts what scheduled Pods hold.
 * Exit 0 when every Pod fits, 1 when one does not, 2 on a usage error or unreadable input.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "kube/quantity.h"
#include "cli.h"
#include "policy/engine.h"
#include "inventory/inventory.h"
#include "kube/normalize.h"
#include "alloc/strategy.h"
#include "report/report.h"
#include "fit_dra.h"
#include "verb.h"
#include "view.h"

typedef struct st_fit_cmd_t {
    gpa_verb_t vb; /* vb.scratch: per Pod spec */
    int now;
    size_t pods, misfits, no_gpu;
    gpa_fit_dra_t dra; /* DRA claims (fit_dra.h) */
} fit_cmd_t;

/* What one Pod spec came to: a placement, or the reasons it is not even a valid request. */
typedef struct st_fit_result_t {
    const char *source, *kind, *ns, *name;
    gpa_placement_t p;
    const char **invalid; /* deny findings when the spec does not normalize */
    size_t ninvalid;
    const char *pod_reason; /* not feasible and no node has a reason (no GPU node at all): why, for the Pod */
    int no_gpu;             /* the spec asks for no GPU: no placement to make */
    int searched;           /* a placement was searched: p.strategy and p.core_weight say how it was scored */
    int excluded;           /* its namespace is excluded (namespaces.exclude): admitted unchecked */
} fit_result_t;

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit fit --inventory F [--inventory F]... [--now] [--config F] [-o text|json] PATH...\n"
                 "       gpuadmit fit --cluster [--inventory F]... [--kubeconfig F] [--context C] [--now] [--config F]\n"
                 "                    [-o text|json] PATH...\n"
                 "\n"
                 "Places each Pod (or workload template) on the inventory's GPUs, as the scheduler would:\n"
                 "the node, each device share (core %%, bytes, fraction of the device), the score, and the\n"
                 "annotation the scheduler writes; when nothing fits, each node's first reason. DRA claims (a\n"
                 "ResourceClaim, a ResourceClaimTemplate, the claims a Pod's templates make): the node and each\n"
                 "request's devices on the inventory's ResourceSlices, or why none could.\n"
                 "\n"
                 "  --inventory F     Nodes, Device objects, Pods (kubectl get -o json) or the compact form\n"
                 "                    (with --cluster: node templates of autoscaled pools, in the compact form)\n"
                 "  --cluster         the inventory of the live cluster: one list of Nodes, Devices and Pods\n"
                 "  with --cluster, where the API server is:\n" GPA_HELP_KUBECONFIG
                 "  --now             count what scheduled Pods and allocated claims hold (default: taken empty)\n"
                 "  --config F        configuration (placement strategy, coreWeight: unset, each dialect's scheduler\n"
                 "                    default; maxPodsPerDevice)\n"
                 "  -o, --output FMT  text (default) or json\n"
                 "\n"
                 "exit: 0 every Pod fits, 1 one does not, 2 usage error or unreadable input\n");
}

static const char *fraction_text(gpa_arena_t *a, int64_t f)
{
    return gpa_arena_printf(a, "%" PRId64 ".%04" PRId64, f / 10000, f % 10000);
}

/* ---- output ---- */

static json_t *result_json(gpa_arena_t *a, const fit_result_t *r)
{
    json_t *o = json_object(), *devs = json_array(), *ann = json_object(), *reasons = json_array();
    json_object_set_new(o, "source", json_string(r->source));
    json_object_set_new(o, "kind", json_string(r->kind));
    json_object_set_new(o, "namespace", json_string(r->ns));
    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "feasible", json_boolean(r->p.feasible));
    json_object_set_new(o, "node", r->p.node != NULL ? json_string(r->p.node) : json_null());
    json_object_set_new(o, "template", r->p.template_name != NULL ? json_string(r->p.template_name) : json_null());
    json_object_set_new(o, "score", json_integer(r->p.score));
    json_object_set_new(o, "strategy", r->searched ? json_string(gpa_strategy_name(r->p.strategy)) : json_null());
    json_object_set_new(o, "coreWeight", r->searched ? json_integer(r->p.core_weight) : json_null());
    for (size_t i = 0; i < r->p.nshares; i++) {
        const gpa_share_t *s = &r->p.shares[i];
        json_array_append_new(devs, json_pack("{s:s, s:I, s:I, s:I, s:s}", "container", s->containers ? s->containers : "", "minor",
                                              (json_int_t)s->minor, "core", (json_int_t)s->core, "memoryBytes",
                                              (json_int_t)s->memory_bytes, "fraction", fraction_text(a, s->fraction)));
    }
    for (size_t i = 0; i < r->p.nannotations; i++)
        json_object_set_new(ann, r->p.annotations[i].key, json_string(r->p.annotations[i].value));
    for (size_t i = 0; i < r->ninvalid; i++)
        json_array_append_new(reasons, json_pack("{s:n, s:n, s:s}", "node", "template", "reason", r->invalid[i]));
    if (r->pod_reason != NULL) /* the Pod's own: "node": null, "template": null */
        json_array_append_new(reasons, json_pack("{s:n, s:n, s:s}", "node", "template", "reason", r->pod_reason));
    for (size_t i = 0; i < r->p.nreasons; i++) {
        const gpa_node_reason_t *why = &r->p.reasons[i];
        if (why->reason != NULL) /* a template's: "node": null, "template": its name */
            json_array_append_new(reasons, json_pack("{s:s?, s:s?, s:s}", "node", why->is_template ? NULL : why->node, "template",
                                                     why->is_template ? why->node : NULL, "reason", why->reason));
    }
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "annotations", ann);
    json_object_set_new(o, "reasons", reasons);
    json_object_set_new(o, "bounded", json_boolean(r->p.bounded));
    json_object_set_new(o, "asksForGPU", json_boolean(!r->no_gpu));
    json_object_set_new(o, "excluded", json_boolean(r->excluded));
    return o;
}

/* Each node's reason, one line each ("template T: ..." for a template's); how many were printed. */
static size_t print_reasons(const gpa_placement_t *p, const char *prefix)
{
    size_t shown = 0;
    for (size_t i = 0; i < p->nreasons; i++) {
        const gpa_node_reason_t *why = &p->reasons[i];
        if (why->reason == NULL)
            continue;
        gpa_report_line(stdout, "  %s%s%s: %s", prefix, why->is_template ? "template " : "", why->node, why->reason);
        shown++;
    }
    return shown;
}

static void print_text(fit_cmd_t *f, const fit_result_t *r)
{
    const char *who =
        gpa_arena_printf(&f->vb.scratch, "%s %s/%s%s%s", r->source, r->kind, r->ns, r->ns[0] != '\0' ? "/" : "", r->name);
    if (r->ninvalid > 0) {
        gpa_report_line(stdout, "%s: not a valid GPU request", who);
        for (size_t i = 0; i < r->ninvalid; i++)
            gpa_report_line(stdout, "  %s", r->invalid[i]);
        return;
    }
    if (!r->p.feasible) {
        gpa_report_line(stdout, "%s: does not fit%s", who, r->p.bounded ? " (search bounded)" : "");
        print_reasons(&r->p, "");
        if (r->pod_reason != NULL)
            gpa_report_line(stdout, "  %s", r->pod_reason);
        return;
    }
    if (r->no_gpu) {
        gpa_report_line(stdout, "%s: asks for no GPU: no GPU placement to make", who);
        return;
    }
    const char *how = gpa_arena_printf(&f->vb.scratch, "score %" PRId64 ", %s, coreWeight %" PRId64, r->p.score,
                                       gpa_strategy_name(r->p.strategy), r->p.core_weight);
    if (r->p.template_name != NULL)
        gpa_report_line(stdout, "%s: fits a new node of template %s (%s)%s", who, r->p.template_name, how,
                        r->p.bounded ? " (search bounded)" : "");
    else
        gpa_report_line(stdout, "%s: fits on %s (%s)%s", who, r->p.node, how, r->p.bounded ? " (search bounded)" : "");
    if (r->excluded)
        gpa_report_line(stdout, "  namespace %s is excluded by the configuration's namespaces.exclude: admitted unchecked", r->ns);
    for (size_t i = 0; i < r->p.nshares; i++) {
        const gpa_share_t *s = &r->p.shares[i];
        char mem[32];
        gpa_bytes_format(s->memory_bytes, 1, mem);
        gpa_report_line(stdout, "  %s: device %d: core %" PRId64 "%%, memory %s (%" PRId64 " bytes), fraction %s",
                        s->containers ? s->containers : "", (int)s->minor, s->core, mem, s->memory_bytes,
                        fraction_text(&f->vb.scratch, s->fraction));
    }
    for (size_t i = 0; i < r->p.nannotations; i++)
        gpa_report_line(stdout, "  annotation %s: %s", r->p.annotations[i].key, r->p.annotations[i].value);
    print_reasons(&r->p, "not on "); /* on a template: why no existing node would do */
}

/* ---- placing ---- */

/* Why a spec does not normalize: the validation rules' deny findings (gpa_check says it once, for all). */
static void explain_invalid(fit_cmd_t *f, gpa_object_t *obj, fit_result_t *r)
{
    if (gpa_config_excludes(f->vb.cfg, obj->ns)) { /* nothing checked it, and nothing mutated it */
        r->invalid = gpa_arena_calloc(&f->vb.scratch, 1, sizeof(*r->invalid));
        r->invalid[0] = gpa_arena_printf(&f->vb.scratch,
                                         "namespace %s is excluded by the configuration's namespaces.exclude: gpuadmit neither "
                                         "mutates nor checks it, and the GPU request as written does not normalize",
                                         obj->ns);
        r->ninvalid = 1;
        return;
    }
    /* With the inventory: a request too large to count (2^32 devices) normalizes to nothing, and infeasible says so. */
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 1, .inventory = f->vb.inv};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_error_init(&err, r->source);
    r->invalid = gpa_arena_calloc(&f->vb.scratch, 2, sizeof(*r->invalid));
    r->invalid[0] = "the GPU request does not normalize (see gpuadmit validate)";
    r->ninvalid = 1;
    if (gpa_check(&f->vb.scratch, f->vb.cfg, obj, &opts, &v, &err) != 0 || v.violations.len == 0)
        return;
    r->invalid = gpa_arena_calloc(&f->vb.scratch, v.violations.len + 1, sizeof(*r->invalid));
    r->ninvalid = 0;
    for (size_t i = 0; i < v.violations.len; i++)
        if (v.violations.items[i].action == GPA_ACTION_DENY)
            r->invalid[r->ninvalid++] = gpa_violation_line(&f->vb.scratch, &v.violations.items[i]);
    if (r->ninvalid == 0)
        r->invalid[r->ninvalid++] = "the GPU request does not normalize (see gpuadmit validate)";
}

/* Why a Pod that does not fit does not, when no node (or template) says why: the inventory has no GPU node to ask. */
static const char *pod_reason(fit_cmd_t *f, const gpa_placement_t *p)
{
    size_t nnodes, ntemplates;
    for (size_t i = 0; i < p->nreasons; i++)
        if (p->reasons[i].reason != NULL)
            return NULL;
    if (p->feasible)
        return NULL;
    if (p->bounded)
        return "the search budget ran out before any node was ruled out";
    gpa_inventory_nodes(f->vb.inv, &nnodes);
    gpa_inventory_templates(f->vb.inv, &ntemplates);
    if (nnodes == 0 && ntemplates > 0 && f->now)
        return "the inventory has no GPU nodes (node templates count only without --now)";
    return nnodes == 0 ? "the inventory has no GPU nodes" : "no node has the devices it asks for";
}

static void fit_podspec(fit_cmd_t *f, const char *source, gpa_object_t *obj, size_t k)
{
    const gpa_podspec_t *pod = &obj->pods[k];
    fit_result_t r = {.source = source, .kind = obj->kind, .ns = obj->ns, .name = obj->name};
    gpa_request_t req;
    gpa_arena_clear(&f->vb.scratch);
    if (obj->npods > 1) /* a workload with several templates: say which */
        r.name = gpa_arena_printf(&f->vb.scratch, "%s[%s]", obj->name, pod->path);
    r.excluded = gpa_config_excludes(f->vb.cfg, obj->ns);
    if (gpa_normalize(&f->vb.scratch, f->vb.cfg->dialects, pod, &req) != 0) {
        explain_invalid(f, obj, &r);
    } else if (req.ngroups == 0) {
        r.p.feasible = 1; /* nothing to place: any node the scheduler picks will do */
        r.no_gpu = 1;
    } else {
        gpa_alloc_opts_t opts = {.now = f->now};
        gpa_alloc_place(&f->vb.scratch, f->vb.inv, &f->vb.cfg->placement, pod, &req, &opts, &r.p);
        r.pod_reason = pod_reason(f, &r.p);
        r.searched = 1;
    }
    if (r.no_gpu && pod->nclaims != 0) { /* its devices come from claims: they are what fit places */
        gpa_fit_dra_pod(&f->dra, source, obj, pod);
        return;
    }
    f->pods++;
    f->no_gpu += r.no_gpu;
    if (!r.p.feasible)
        f->misfits++;
    if (f->vb.json)
        gpa_verb_print_json(&f->vb, result_json(&f->vb.scratch, &r), r.source, "placement", r.name);
    else
        print_text(f, &r);
}

static void on_object(gpa_verb_t *vb, const char *source, gpa_object_t *obj)
{
    fit_cmd_t *f = vb->ctx;
    gpa_fit_dra_object(&f->dra, source, obj);
    for (size_t k = 0; k < obj->npods; k++)
        fit_podspec(f, source, obj, k);
}

/* ---- command line ---- */

typedef struct st_options_t {
    gpa_verb_opts_t common;
    int now;
    int cluster; /* --cluster: the inventory from the cluster (docs/cluster.md) */
} options_t;

/* ---- --cluster: one list of each inventory kind ---- */

static void on_rejected(void *ctx, const gpa_error_t *why, int kept)
{
    char text[1024];
    (void)ctx, (void)kept;
    gpa_error_format(why, text, sizeof(text));
    gpa_report_line(stderr, "fit: left out of the cluster inventory: %s", text);
}

/* The cluster's inventory (one reference), or NULL after saying why on stderr. */
static gpa_inventory_t *cluster_inventory(const gpa_kube_options_t *kube)
{
    gpa_kube_target_t target;
    gpa_error_t err = {0};
    gpa_inventory_t *inv = NULL;
    if (gpa_kube_target_load(kube, &target, &err) == 0) {
        gpa_view_t *v = gpa_view_new();
        gpa_view_listener_t listener = {on_rejected, NULL, NULL};
        if (gpa_view_list_all(v, &target, &listener, &err) == 0)
            inv = gpa_view_snapshot(v, &err);
        gpa_view_free(v);
        gpa_kube_target_dispose(&target);
    }
    if (inv == NULL) {
        char text[1024];
        gpa_error_format(&err, text, sizeof(text));
        fprintf(stderr, "fit: cannot read the cluster's inventory: %s\n", text);
    }
    return inv;
}

/* --cluster with --inventory F: the files' node templates join the cluster's nodes (the files may hold nothing
 * else: the cluster has the nodes and the usage). One reference, or NULL after saying why on stderr. */
static gpa_inventory_t *cluster_with_templates(const gpa_kube_options_t *kube, gpa_inventory_t *files)
{
    if (gpa_verb_templates_only("fit", files) != 0)
        return NULL;
    gpa_inventory_t *inv = cluster_inventory(kube);
    if (inv != NULL && files != NULL)
        gpa_inventory_set_templates(inv, files);
    return inv;
}

enum { OPT_NOW = GPA_OPT_OWN, OPT_CLUSTER };
static const char *const formats[] = {"text", "json", NULL};

/* -1 after a message on a bad command line, 1 for --help, 0 otherwise; paths start at optind. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option own[] = {
        {"now", no_argument, NULL, OPT_NOW}, {"cluster", no_argument, NULL, OPT_CLUSTER}, {NULL, 0, NULL, 0}};
    gpa_verb_opts_init(&o->common, GPA_OPT_CONFIG | GPA_OPT_INVENTORY | GPA_OPT_OUTPUT | GPA_OPT_CLUSTER, own, "text");
    int c;
    while ((c = gpa_verb_getopt(argc, argv, &o->common)) != -1) {
        if (c == OPT_NOW)
            o->now = 1;
        else if (c == OPT_CLUSTER)
            o->cluster = 1;
        else
            return c == 'h' ? 1 : -1;
    }
    if (!o->cluster && (o->common.kube.kubeconfig != NULL || o->common.kube.context != NULL)) {
        fprintf(stderr, "fit: --kubeconfig and --context need --cluster\n");
        return -1;
    }
    return gpa_verb_opts_check("fit", &o->common, formats, o->cluster ? GPA_NEED_PATH : GPA_NEED_PATH | GPA_NEED_INVENTORY, argc);
}

int gpa_cmd_fit(int argc, char **argv)
{
    options_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        gpa_verb_opts_dispose(&o.common);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    fit_cmd_t f = {.vb.json = strcmp(o.common.output, "json") == 0, .now = o.now};
    f.dra = (gpa_fit_dra_t){.vb = &f.vb, .now = o.now};
    rc = GPA_EXIT_USAGE;
    int ready = gpa_verb_init(&f.vb, &o.common, on_object, &f) == 0;
    if (ready && o.cluster) {
        gpa_inventory_t *cluster = cluster_with_templates(&o.common.kube, f.vb.inv);
        ready = cluster != NULL;
        gpa_verb_set_inventory(&f.vb, cluster);
    }
    if (ready) {
        gpa_verb_walk(&f.vb, argv + optind, (size_t)(argc - optind));
        size_t fits = f.pods - f.misfits - f.no_gpu, cfits = f.dra.claims - f.dra.misfits;
        const char *summary =
            gpa_arena_printf(&f.vb.scratch, "%zu Pod spec%s: %zu fit%s, %zu do%s not", f.pods, f.pods == 1 ? "" : "s", fits,
                             fits == 1 ? "s" : "", f.misfits, f.misfits == 1 ? "es" : "");
        if (f.no_gpu > 0)
            summary = gpa_arena_printf(&f.vb.scratch, "%s, %zu ask%s for no GPU", summary, f.no_gpu, f.no_gpu == 1 ? "s" : "");
        const char *claims = gpa_arena_printf(&f.vb.scratch, "%zu DRA claim%s: %zu fit%s or cannot be judged, %zu do%s not",
                                              f.dra.claims, f.dra.claims == 1 ? "" : "s", cfits, cfits == 1 ? "s" : "",
                                              f.dra.misfits, f.dra.misfits == 1 ? "es" : "");
        if (f.dra.claims > 0)
            summary = f.pods == 0 && f.no_gpu == 0 ? claims : gpa_arena_printf(&f.vb.scratch, "%s; %s", summary, claims);
        rc = gpa_verb_finish(&f.vb, f.misfits + f.dra.misfits, summary);
    }
    gpa_verb_dispose(&f.vb);
    gpa_verb_opts_dispose(&o.common);
    return rc;
}
