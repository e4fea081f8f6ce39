/*
 * gpuadmit explain (README.md#the-cli, docs/cluster.md#explain): why GPU Pods are Pending. The cluster is read once
 * (Nodes, Koordinator Devices, Pods, into the live view as `fit --cluster` reads it); the named Pods, or every
 * unscheduled Pending Pod of the namespace (or of all namespaces), are kept aside while the Pods are listed. A Pod asks
 * for a GPU when its request normalizes into devices (a HAMi vGPU count, written or defaulted, is a group of them); a
 * Pod on which HAMi's scheduler wrote hami.io/vgpu-node is scheduled there. Each
 * one's Pod spec is normalized and placed twice: on the empty inventory (could it ever be placed?) and with current
 * usage (does it fit now, and where?); when it does not, every node's reason, in the allocator's one vocabulary
 * whatever the dialect. With --inventory F, the files' node templates (templates only, as `fit --cluster` takes
 * them) count for "ever": a Pod that no node but a template could hold "fits a new node of template T", and is not
 * "never". Exit 1 when some Pod can never be placed, 0 otherwise, 2 on a usage error, a cluster that cannot be read
 * (or template files that cannot, or hold more than templates) or a named Pod that does not exist.
 */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/dra_fit.h"
#include "kube/normalize.h"
#include "base/buf.h"
#include "cli.h"
#include "document/emit.h"
#include "document/json.h"
#include "kinds.h"
#include "kube/decode.h"
#include "kube/gpu_request.h"
#include "report/report.h"
#include "verb.h"
#include "view.h"

typedef struct st_explain_t {
    gpa_verb_t vb;
    gpa_view_t *view;
    const char *ns; /* the namespace asked, NULL for all */
    char **names;   /* the Pods named (argv), none: every unscheduled Pending Pod */
    size_t nnames;
    int *found;       /* per name: seen in the list */
    gpa_arena_t keep; /* the kept Pods' JSON texts */
    GPA_VEC(const char *) pods;
    size_t explained, never;
} explain_t;

/* What one Pod came to. */
typedef struct st_verdict_t {
    const char *ns, *name, *dialect; /* dialect NULL: no GPU asked */
    const char *scheduled;           /* spec.nodeName, else the node HAMi's scheduler chose, or NULL */
    int asks_gpu, ever, now, bounded;
    const char *node;     /* where it would go now */
    const char *template; /* no node could ever hold it, a new node of this template could; else NULL */
    const char **reasons_node, **reasons;
    int *reasons_template; /* per reason: reasons_node names a node template */
    size_t nreasons;
} verdict_t;

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit explain [--kubeconfig F] [--context C] [-n NS | -A] [--inventory F]... [--config F]\n"
                 "                       [-o text|json] [POD...]\n"
                 "\n"
                 "Why GPU Pods are Pending. Reads the cluster once (Nodes, HAMi's cards, Koordinator Devices, Pods) and, for\n"
                 "each named Pod or every unscheduled Pending Pod that asks for a GPU (HAMi's by the names of --config's hami\n"
                 "block), says whether it could ever be placed (on the empty nodes) and, node by node, why it does not fit\n"
                 "now: which device lacks which resource, which selector or affinity excludes the node, which slots are taken.\n"
                 "A Pod with DRA claims: each claim on the cluster's ResourceSlices, never or no room now, and why.\n"
                 "\n" GPA_HELP_KUBECONFIG
                 "  -n, --namespace NS    the Pods of this namespace (default: the context's namespace, else default)\n"
                 "  -A, --all-namespaces  every namespace\n"
                 "  --inventory F         node templates of autoscaled pools, in the compact form (repeatable; files of\n"
                 "                        templates only: the cluster has the nodes): a Pod that no node could hold but a\n"
                 "                        template could \"fits a new node of template T\" and is not \"never\"\n"
                 "  --config F            configuration (dialects, placement strategy, maxPodsPerDevice)\n"
                 "  -o, --output FMT      text (default) or json\n"
                 "\n"
                 "exit: 0 every Pod could be placed, 1 some Pod never can, 2 usage error, unreadable cluster or no such Pod\n");
}

/* ---- text escaping (report.h): names and reasons come from the cluster, and must not forge a line or reach the terminal ---- */

static const char *esc(gpa_arena_t *a, const char *s)
{
    if (s == NULL)
        return "";
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_report_escape(&b, s);
    const char *out = gpa_arena_strndup(a, b.base != NULL ? b.base : "", b.len);
    gpa_buf_dispose(&b);
    return out;
}

/* ---- reading the cluster: the view as `fit --cluster` fills it, the Pods to explain kept aside ---- */

static const char *str_at(const gpa_value_t *v, const char *a, const char *b)
{
    return gpa_value_string(gpa_value_get(gpa_value_get(v, a), b));
}

/* Whether the listed Pod is one to explain: in the namespace asked, and named, or unscheduled and Pending. */
static int wanted(explain_t *ex, const gpa_value_t *pod)
{
    const char *ns = str_at(pod, "metadata", "namespace"), *name = str_at(pod, "metadata", "name");
    if (name == NULL || (ex->ns != NULL && (ns == NULL || strcmp(ns, ex->ns) != 0)))
        return 0;
    if (ex->nnames == 0) {
        const char *node = str_at(pod, "spec", "nodeName"), *phase = str_at(pod, "status", "phase");
        return (node == NULL || node[0] == '\0') && (phase == NULL || strcmp(phase, "Pending") == 0);
    }
    int hit = 0;
    for (size_t i = 0; i < ex->nnames; i++)
        if (strcmp(ex->names[i], name) == 0)
            ex->found[i] = hit = 1;
    return hit;
}

/* An object the view left out, or a Pod it keeps with a warning (gpa_view_listener_t). */
static void on_problem(void *ctx, const gpa_error_t *why, int kept)
{
    explain_t *ex = ctx;
    gpa_error_t named = *why;
    named.source = "cluster";
    char text[1024];
    gpa_error_format(&named, text, sizeof(text));
    fprintf(stderr, "explain: %s%s\n", kept ? "" : "left out of the cluster inventory: ", esc(&ex->vb.scratch, text));
}

/* Every object listed: the Pods to explain are kept aside, as JSON text. */
static void on_object(void *ctx, gpa_view_kind_t kind, const gpa_value_t *object)
{
    explain_t *ex = ctx;
    if (kind != GPA_VIEW_PODS || !wanted(ex, object))
        return;
    gpa_buf_t b = {0};
    gpa_value_emit_json(&b, object, 0);
    gpa_buf_putc(&b, '\0');
    *gpa_vec_push(&ex->keep, &ex->pods) = gpa_arena_strdup(&ex->keep, b.base);
    gpa_buf_dispose(&b);
}

/* One list of each inventory kind (gpa_view_list_all, as fit --cluster reads it); returns 0, or -1 after saying why
 * on stderr. */
static int read_cluster(explain_t *ex, const gpa_kube_target_t *t)
{
    gpa_error_t err = {0};
    gpa_view_listener_t listener = {on_problem, on_object, ex};
    gpa_inventory_t *inv = NULL;
    if (gpa_view_list_all(ex->view, t, &listener, &err) == 0 && (inv = gpa_view_snapshot(ex->view, &err)) != NULL) {
        gpa_verb_set_inventory(&ex->vb, inv);
        return 0;
    }
    char text[1024];
    gpa_error_format(&err, text, sizeof(text));
    fprintf(stderr, "explain: cannot read the cluster: %s\n", esc(&ex->vb.scratch, text));
    return -1;
}

/* ---- explaining one Pod ---- */

/* Whether the Pod asks HAMi for vGPUs: a HAMi container (a memory or core name of the configured ones) whose count, as
 * written or HAMi's defaultGPUNum when absent, is positive (with defaultGPUNum 0 HAMi takes no such request). */
static int asks_hami(unsigned dialects, const gpa_podspec_t *pod)
{
    for (size_t i = 0; i < pod->ncontainers + pod->ninit_containers; i++) {
        const gpa_container_t *c = i < pod->ncontainers ? &pod->containers[i] : &pod->init_containers[i - pod->ncontainers];
        gpa_hami_view_t hv;
        if (gpa_hami_view_container(dialects, c, &hv) == 0 && hv.count > 0)
            return 1;
    }
    return 0;
}

/* The Pod's dialect: HAMi when it asks HAMi for vGPUs (whose count also reads as the vendor's), else its groups'. */
static const char *dialect_name(const gpa_request_t *req, int hami)
{
    if (hami)
        return gpa_dialect_name(GPA_DIALECT_HAMI);
    return req->ngroups == 0 ? NULL : gpa_dialect_name(req->groups[0].dialect);
}

/* A single reason that names no node ("node": null). */
static void pod_reason(gpa_arena_t *a, verdict_t *r, const char *reason)
{
    r->reasons = gpa_arena_calloc(a, 1, sizeof(*r->reasons));
    r->reasons_node = gpa_arena_calloc(a, 1, sizeof(*r->reasons_node));
    r->reasons[r->nreasons++] = reason;
}

static void take_reasons(gpa_arena_t *a, verdict_t *r, const gpa_placement_t *p)
{
    r->reasons_node = gpa_arena_calloc(a, p->nreasons + 1, sizeof(*r->reasons_node));
    r->reasons = gpa_arena_calloc(a, p->nreasons + 1, sizeof(*r->reasons));
    r->reasons_template = gpa_arena_calloc(a, p->nreasons + 1, sizeof(*r->reasons_template));
    for (size_t i = 0; i < p->nreasons; i++)
        if (p->reasons[i].reason != NULL) {
            r->reasons_node[r->nreasons] = p->reasons[i].node;
            r->reasons_template[r->nreasons] = p->reasons[i].is_template;
            r->reasons[r->nreasons++] = p->reasons[i].reason;
        }
}

/* A request that does not normalize: the validation rules' deny findings say why (no node is even asked). */
static void invalid_reasons(explain_t *ex, gpa_object_t *obj, verdict_t *r)
{
    gpa_check_opts_t opts = {.operation = GPA_OP_CREATE, .mutate = 1, .validate = 1, .inventory = ex->vb.inv};
    gpa_verdict_t v;
    gpa_error_t err = {0};
    gpa_error_init(&err, "cluster");
    size_t n = gpa_check(&ex->vb.scratch, ex->vb.cfg, obj, &opts, &v, &err) == 0 ? v.violations.len : 0;
    r->reasons_node = gpa_arena_calloc(&ex->vb.scratch, n + 1, sizeof(*r->reasons_node));
    r->reasons = gpa_arena_calloc(&ex->vb.scratch, n + 1, sizeof(*r->reasons));
    for (size_t i = 0; i < n; i++)
        if (v.violations.items[i].action == GPA_ACTION_DENY)
            r->reasons[r->nreasons++] = gpa_violation_line(&ex->vb.scratch, &v.violations.items[i]);
    if (r->nreasons == 0)
        r->reasons[r->nreasons++] = "the GPU request is not valid (see gpuadmit validate)";
}

/* The claim a Pod claim stands for: its template's spec (what the claim made of it holds), or the named claim's. */
static const gpa_dra_object_t *claim_of(explain_t *ex, const gpa_object_t *obj, const gpa_dra_pod_claim_t *pc)
{
    if (pc->template != NULL)
        return gpa_dra_known_find(&ex->vb.known, GPA_DRA_TEMPLATE, obj->ns, pc->template);
    return pc->claim != NULL ? gpa_dra_known_find(&ex->vb.known, GPA_DRA_CLAIM, obj->ns, pc->claim) : NULL;
}

/* The reasons of a Pod with claims, as they come: one per claim, then one per node. */
typedef struct st_claim_reasons_t {
    gpa_arena_t *a;
    GPA_VEC(const char *) nodes, reasons;
    const char *claim; /* "claim gpus (ResourceClaimTemplate two)" while its nodes are named */
} claim_reasons_t;

static void add_reason(claim_reasons_t *cr, const char *node, const char *reason)
{
    *gpa_vec_push(cr->a, &cr->nodes) = node;
    *gpa_vec_push(cr->a, &cr->reasons) = reason;
}

static void on_node(void *ctx, const char *node, const char *reason)
{
    claim_reasons_t *cr = ctx;
    add_reason(cr, node, gpa_arena_printf(cr->a, "%s: %s", cr->claim, reason));
}

/* The claims from templates that each fit now (n of them), together on one node as the scheduler allocates them
 * (gpa_dra_devices_merge): never together, or not now, says why. */
static void together(explain_t *ex, const char **names, const gpa_dra_devices_t **claims, size_t n, verdict_t *r,
                     claim_reasons_t *cr)
{
    gpa_arena_t *a = &ex->vb.scratch;
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ex->vb.inv);
    const gpa_dra_devices_t *all = n >= 2 ? gpa_dra_devices_merge(a, names, claims, n) : NULL;
    gpa_alloc_budget_t budget = gpa_alloc_budget(0);
    const char *reason = NULL;
    if (all == NULL)
        return;
    if (gpa_dra_ever_fits(a, pools, &ex->vb.known, all, &budget, &reason) == GPA_DRA_NEVER)
        r->ever = 0;
    else if (gpa_dra_fits_now(a, pools, &ex->vb.known, all, &budget, &reason) != GPA_DRA_NEVER)
        return;
    r->now = 0;
    add_reason(
        cr, NULL,
        gpa_arena_printf(a, "its %zu claims from templates together: %s%s", n, r->ever ? "no room now: " : "never: ", reason));
}

/*
 * A Pod whose devices come from DRA claims (docs/allocator.md#dra): each claim placed on the cluster's ResourceSlices,
 * empty and with what allocated claims hold. Ever: every claim could be allocated; now: every one could be now. A
 * claim already allocated has its devices; one gpuadmit cannot judge (no published device, a class not known) says
 * nothing.
 */
static void place_claims(explain_t *ex, gpa_object_t *obj, const gpa_podspec_t *pod, verdict_t *r)
{
    gpa_arena_t *a = &ex->vb.scratch;
    const gpa_dra_pools_t *pools = gpa_inventory_dra_pools(ex->vb.inv);
    r->asks_gpu = 1;
    r->dialect = gpa_dialect_name(GPA_DIALECT_DRA);
    r->ever = r->now = 1;
    if (r->scheduled != NULL) { /* its claims are allocated where it runs */
        r->node = r->scheduled;
        return;
    }
    claim_reasons_t cr = {.a = a};
    const char **names = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*names));
    const gpa_dra_devices_t **fitting = gpa_arena_calloc(a, pod->nclaims + 1, sizeof(*fitting));
    size_t nfitting = 0;
    for (size_t i = 0; i < pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &pod->claims[i];
        const gpa_dra_object_t *c = claim_of(ex, obj, pc);
        const char *who = gpa_arena_printf(a, "claim %s (%s %s)", pc->name != NULL ? pc->name : "",
                                           pc->template != NULL ? "ResourceClaimTemplate" : "ResourceClaim",
                                           pc->template != NULL ? pc->template
                                           : pc->claim != NULL  ? pc->claim
                                                                : "");
        if (c == NULL || c->nallocated != 0)
            continue;
        gpa_alloc_budget_t budget = gpa_alloc_budget(0);
        gpa_dra_placement_t p;
        gpa_dra_place(a, pools, &ex->vb.known, &c->devices, 1, &budget, &p);
        if (p.fit == GPA_DRA_FITS && pc->template != NULL)
            names[nfitting] = pc->name != NULL ? pc->name : "", fitting[nfitting++] = &c->devices;
        if (p.fit != GPA_DRA_NEVER) {
            if (r->node == NULL && p.node != NULL)
                r->node = p.node;
            continue;
        }
        r->now = 0;
        r->ever &= p.no_room_now;
        add_reason(&cr, NULL, gpa_arena_printf(a, "%s: %s%s", who, p.no_room_now ? "no room now: " : "never: ", p.reason));
        cr.claim = who; /* and node by node: with what allocated claims hold where it could be placed empty */
        gpa_alloc_budget_t nodes_budget = gpa_alloc_budget(0);
        gpa_dra_why_not(a, pools, &ex->vb.known, &c->devices, p.no_room_now, &nodes_budget, on_node, &cr);
    }
    together(ex, names, fitting, r->now ? nfitting : 0, r, &cr);
    r->reasons = cr.reasons.items;
    r->reasons_node = cr.nodes.items;
    r->nreasons = cr.reasons.len;
    if (!r->now)
        r->node = NULL;
}

static void place(explain_t *ex, gpa_object_t *obj, verdict_t *r)
{
    const gpa_podspec_t *pod = &obj->pods[0];
    gpa_request_t req;
    int hami = asks_hami(ex->vb.cfg->dialects, pod);
    int rc = gpa_normalize(&ex->vb.scratch, ex->vb.cfg->dialects, pod, &req);
    if (rc == -1) {
        r->asks_gpu = 1;
        r->dialect = dialect_name(&req, hami);
        invalid_reasons(ex, obj, r);
        return;
    }
    r->dialect = dialect_name(&req, hami);
    r->asks_gpu = req.ngroups > 0 || rc == GPA_NORMALIZE_TOO_MANY; /* a HAMi vGPU count is a group */
    if (!r->asks_gpu && pod->nclaims != 0) {
        place_claims(ex, obj, pod, r);
        return;
    }
    if (rc == GPA_NORMALIZE_TOO_MANY) {
        pod_reason(&ex->vb.scratch, r,
                   gpa_arena_printf(&ex->vb.scratch, "%s for %lld devices: no node has as many", req.too_many_asks,
                                    (long long)req.too_many));
        return;
    }
    if (!r->asks_gpu || r->scheduled != NULL) {
        r->ever = r->now = 1;
        r->node = r->scheduled;
        return;
    }
    gpa_placement_t empty, now;
    gpa_alloc_opts_t o_empty = {.now = 0}, o_now = {.now = 1};
    gpa_alloc_place(&ex->vb.scratch, ex->vb.inv, &ex->vb.cfg->placement, pod, &req, &o_empty, &empty);
    gpa_alloc_place(&ex->vb.scratch, ex->vb.inv, &ex->vb.cfg->placement, pod, &req, &o_now, &now);
    r->ever = empty.feasible || empty.bounded;                 /* a search cut short proves nothing */
    r->template = empty.feasible ? empty.template_name : NULL; /* on no node, on a template: never room now */
    r->now = now.feasible;
    r->node = now.feasible ? now.node : NULL;
    r->bounded = empty.bounded || now.bounded;
    take_reasons(&ex->vb.scratch, r,
                 r->template == NULL && empty.feasible ? &now : &empty); /* on a template: why no node could, even empty */
    if (!r->ever && r->nreasons == 0) /* no node to give a reason: the Pod's own ("node": null) */
        r->reasons[r->nreasons++] = "the cluster has no GPU nodes";
}

static json_t *verdict_json(const verdict_t *r)
{
    json_t *reasons = json_array();
    for (size_t i = 0; i < r->nreasons; i++) { /* a template's: "node": null, "template": its name (as fit -o json) */
        int t = r->reasons_template != NULL && r->reasons_template[i];
        json_array_append_new(reasons, json_pack("{s:s?, s:s?, s:s}", "node", t ? NULL : r->reasons_node[i], "template",
                                                 t ? r->reasons_node[i] : NULL, "reason", r->reasons[i]));
    }
    return json_pack("{s:s, s:s, s:s?, s:b, s:b, s:s?, s:s?, s:o, s:b, s:b, s:b}", "namespace", r->ns, "name", r->name, "dialect",
                     r->dialect, "everFits", r->ever, "fitsNow", r->now, "node", r->node, "template", r->template, "reasons",
                     reasons, "scheduled", r->scheduled != NULL, "asksForGPU", r->asks_gpu, "bounded", r->bounded);
}

static void verdict_text(gpa_arena_t *a, const verdict_t *r)
{
    const char *who = gpa_arena_printf(a, "Pod %s/%s", esc(a, r->ns), esc(a, r->name));
    const char *dialect = r->dialect != NULL ? gpa_arena_printf(a, " (%s)", r->dialect) : "";
    if (!r->asks_gpu)
        printf("%s: asks for no GPU: nothing for gpuadmit to explain\n", who);
    else if (r->scheduled != NULL)
        printf("%s%s: already scheduled on node %s\n", who, dialect, esc(a, r->scheduled));
    else if (!r->ever)
        printf("%s%s: can never be placed: no node could hold it even empty\n", who, dialect);
    else if (r->now && r->node == NULL) /* DRA: claims gpuadmit could not judge, or devices offered to every node */
        printf("%s%s: nothing gpuadmit can see keeps it Pending\n", who, dialect);
    else if (r->now)
        printf("%s%s: fits now on node %s (not placed yet)\n", who, dialect, esc(a, r->node));
    else if (r->template != NULL)
        printf("%s%s: fits a new node of template %s: no node could hold it, an autoscaler can add one%s\n", who, dialect,
               esc(a, r->template), r->bounded ? " (search bounded)" : "");
    else
        printf("%s%s: could be placed on an empty node, but no node has room now%s\n", who, dialect,
               r->bounded ? " (search bounded)" : "");
    for (size_t i = 0; i < r->nreasons; i++)
        if (r->reasons_node[i] != NULL)
            printf("  %s%s: %s\n", r->reasons_template != NULL && r->reasons_template[i] ? "template " : "",
                   esc(a, r->reasons_node[i]), esc(a, r->reasons[i]));
        else
            printf("  %s\n", esc(a, r->reasons[i]));
}

static void explain_pod(explain_t *ex, const char *text)
{
    gpa_value_t *doc = NULL;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    gpa_arena_clear(&ex->vb.scratch);
    gpa_error_init(&err, "cluster");
    if (gpa_json_parse(&ex->vb.scratch, text, strlen(text), &doc, &err) != 0 ||
        gpa_decode_object_with(&ex->vb.scratch, &ex->vb.cfg->decode, gpa_kube_kind_stamp(&ex->vb.scratch, doc, &gpa_kube_kind_pod),
                               &obj, &err) != 0 ||
        obj->npods == 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "explain: Pod %s/%s: %s\n", esc(&ex->vb.scratch, str_at(doc, "metadata", "namespace")),
                esc(&ex->vb.scratch, str_at(doc, "metadata", "name")), esc(&ex->vb.scratch, line));
        ex->vb.unreadable++;
        return;
    }
    verdict_t r = {.ns = obj->ns, .name = obj->name, .scheduled = str_at(doc, "spec", "nodeName")};
    if (r.scheduled == NULL || r.scheduled[0] == '\0') /* HAMi's scheduler chose a node, the Pod holds its devices there */
        r.scheduled = gpa_pairs_get(obj->annotations, obj->nannotations, GPA_ANNOTATION_HAMI_VGPU_NODE);
    if (r.scheduled != NULL && r.scheduled[0] == '\0')
        r.scheduled = NULL;
    place(ex, obj, &r);
    if (!r.asks_gpu && ex->nnames == 0)
        return; /* every Pending Pod: only those that ask for a GPU */
    ex->explained++;
    ex->never += !r.ever;
    if (ex->vb.json)
        gpa_verb_print_json(&ex->vb, verdict_json(&r), "cluster", "explanation", obj->name);
    else
        verdict_text(&ex->vb.scratch, &r);
}

/* ---- command line ---- */

static const char *const formats[] = {"text", "json", NULL};

/* -1 after a message on a bad command line, 1 for --help, 0 otherwise; Pod names start at optind. */
static int parse_args(int argc, char **argv, gpa_verb_opts_t *o)
{
    gpa_verb_opts_init(o, GPA_OPT_CLUSTER | GPA_OPT_NAMESPACE | GPA_OPT_INVENTORY | GPA_OPT_CONFIG | GPA_OPT_OUTPUT, NULL, "text");
    int c;
    if ((c = gpa_verb_getopt(argc, argv, o)) != -1)
        return c == 'h' ? 1 : -1;
    return gpa_verb_opts_check("explain", o, formats, 0, argc);
}

static void run(explain_t *ex, const gpa_kube_target_t *t)
{
    /* --inventory F: node templates only, joined to the cluster's nodes */
    gpa_inventory_t *files = ex->vb.inv != NULL ? gpa_inventory_retain(ex->vb.inv) : NULL;
    gpa_verb_set_inventory(&ex->vb, NULL);
    if (ex->vb.json)
        fputs("[", stdout); /* gpa_verb_finish closes it */
    int rc = gpa_verb_templates_only("explain", files) != 0 ? -1 : read_cluster(ex, t);
    if (rc == 0 && files != NULL)
        gpa_inventory_set_templates(ex->vb.inv, files);
    gpa_inventory_release(files);
    if (rc != 0) {
        ex->vb.unreadable++;
        return;
    }
    for (size_t i = 0; i < ex->pods.len; i++)
        explain_pod(ex, ex->pods.items[i]);
    for (size_t i = 0; i < ex->nnames; i++)
        if (!ex->found[i]) {
            fprintf(stderr, "explain: no Pod %s in %s\n", esc(&ex->vb.scratch, ex->names[i]),
                    ex->ns != NULL ? esc(&ex->vb.scratch, ex->ns) : "any namespace");
            ex->vb.unreadable++;
        }
}

int gpa_cmd_explain(int argc, char **argv)
{
    gpa_verb_opts_t o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        gpa_verb_opts_dispose(&o);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    explain_t ex = {.vb.json = strcmp(o.output, "json") == 0, .names = argv + optind, .nnames = (size_t)(argc - optind)};
    gpa_kube_target_t t;
    if (gpa_verb_target("explain", &o, &t, &ex.ns) != 0) {
        gpa_verb_opts_dispose(&o);
        return GPA_EXIT_USAGE;
    }
    ex.found = gpa_arena_calloc(&ex.keep, ex.nnames + 1, sizeof(*ex.found));
    ex.view = gpa_view_new();
    rc = GPA_EXIT_USAGE;
    if (gpa_verb_init(&ex.vb, &o, NULL, &ex) == 0) {
        run(&ex, &t);
        size_t could = ex.explained - ex.never;
        const char *summary = gpa_arena_printf(&ex.vb.scratch, "%zu Pod%s explained: %zu could be placed, %zu can never be",
                                               ex.explained, ex.explained == 1 ? "" : "s", could, ex.never);
        rc = gpa_verb_finish(&ex.vb, ex.never, summary);
    }
    gpa_view_free(ex.view);
    gpa_verb_dispose(&ex.vb);
    gpa_arena_dispose(&ex.keep);
    gpa_kube_target_dispose(&t);
    gpa_verb_opts_dispose(&o);
    return rc;
}
