/*
 * gpuadmit audit (README.md#the-cli, docs/cluster.md): every object of the kinds gpuadmit reads (the workloads
 * table, kube/workloads.h, with the configuration's additions) that the cluster holds, judged as validate judges it: would it be
 * admitted if it were created now (as CREATE, mutations first; --no-mutate: as stored), with validate's reports and exit codes:
 * what an operator runs before switching a rule from warn to deny. A kind the cluster does not serve (its CRD is not installed:
 * 404) is skipped with a note on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "cli.h"
#include "client.h"
#include "kinds.h"
#include "kube/decode.h"
#include "daemon/live.h"
#include "report/policyreport.h"
#include "reflector.h"
#include "report/report.h"
#include "verb.h"

typedef struct st_audit_t {
    gpa_verb_t vb;
    gpa_arena_t obj; /* per object: its kind stamped, decoded */
    const gpa_kube_kind_t *kind;
    const char *source;
    int mutate;         /* mutations first (the default), or judged as stored (--no-mutate) */
    gpa_buf_t unserved; /* "Kind (apiVersion), ..." of the kinds the cluster does not serve */
    size_t objects, denied;
    int policyreport; /* -o policyreport: report_api's reports instead of validate's */
    gpa_report_api_t report_api;
    /* With the dra dialect: the devices the cluster's DRA drivers publish and what its allocated claims hold, the
     * inventory claims, templates and Pods' template claims are placed on (no Nodes, no Pods: audit judges no
     * device-plugin placement, running Pods being that inventory). NULL until read, or when it cannot be. */
    gpa_inventory_t *dra;
} audit_t;

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit audit [--kubeconfig F] [--context C] [-n NS | -A] [--no-mutate] [--config F] [-o text|json]\n"
                 "       gpuadmit audit [...] -o policyreport [--report-api wgpolicyk8s|openreports]\n"
                 "\n"
                 "Lists every Pod and workload the cluster holds (the kinds of docs/rules.md#objects) and, with the dra\n"
                 "dialect, its DeviceClasses, ResourceClaimTemplates and ResourceClaims (known first: what the DRA\n"
                 "rules look up), and judges each as validate does: would it be admitted if it were created now\n"
                 "(mutation first, then validation, as CREATE). Findings of rules set to warn show what switching\n"
                 "them to deny would refuse. DRA claims and templates (and the claims Pods not yet scheduled would\n"
                 "make) are also placed on the cluster's ResourceSlices: never, or no room now (infeasible).\n"
                 "\n" GPA_HELP_KUBECONFIG
                 "  -n, --namespace NS    only this namespace (default: the context's namespace, else default)\n"
                 "  -A, --all-namespaces  every namespace\n"
                 "  --no-mutate           judge each object as stored, without the mutations\n"
                 "  --config F            configuration (rule actions, thresholds, namespaces)\n"
                 "  -o, --output FMT      text (default), json, or policyreport: one PolicyReport per object with a\n"
                 "                        finding, YAML for kubectl apply -f - (docs/cluster.md#policy-reports)\n"
                 "  --report-api API      with -o policyreport: wgpolicyk8s (wgpolicyk8s.io/v1alpha2, default) or\n"
                 "                        openreports (openreports.io/v1alpha1)\n"
                 "\n"
                 "exit: 0 nothing would be denied, 1 something would, 2 usage error or a list that failed\n");
}

/* ---- judging each listed object ---- */

static void on_item(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    audit_t *au = ctx;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    (void)event;
    gpa_arena_clear(&au->obj);
    gpa_error_init(&err, au->source);
    gpa_value_t *doc = gpa_kube_kind_stamp(&au->obj, object, au->kind);
    if (gpa_decode_object_with(&au->obj, &au->vb.decode, doc, &obj, &err) != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        gpa_report_line(stderr, "%s %s/%s: %s", au->source, au->kind->kind,
                        gpa_value_string(gpa_value_get(gpa_value_get(object, "metadata"), "name")), line);
        au->vb.unreadable++;
        return;
    }
    gpa_check_opts_t opts = gpa_audit_check_opts(au->mutate);
    /* A scheduled Pod's claims are allocated where it runs: placing them again would only find its own devices taken. */
    if (obj->npods != 1 || obj->pods[0].node_name == NULL)
        opts.inventory = au->dra;
    gpa_verdict_t verdict;
    if (gpa_verb_check(&au->vb, au->source, obj, &opts, &verdict) != 0)
        return;
    au->objects++;
    au->denied += !verdict.allowed;
    if (au->policyreport)
        gpa_policyreport_print(stdout, &au->vb.scratch, au->report_api, obj, &verdict, (int64_t)time(NULL));
    else if (au->vb.json)
        gpa_verb_print_json(&au->vb, gpa_report_json(au->source, obj, &verdict), au->source, "report", obj->name);
    else
        gpa_report_text(stdout, &au->vb.scratch, au->source, obj, &verdict);
}

static void on_nothing(void *ctx)
{
    (void)ctx;
}

/* The first pass: a DRA object the cluster holds becomes known (an unreadable one is the judging pass's to report). */
static void on_known(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    audit_t *au = ctx;
    gpa_object_t *obj;
    gpa_error_t err = {0};
    (void)event;
    gpa_arena_clear(&au->obj);
    gpa_error_init(&err, au->source);
    gpa_value_t *doc = gpa_kube_kind_stamp(&au->obj, object, au->kind);
    if (gpa_decode_object_with(&au->obj, &au->vb.decode, doc, &obj, &err) != 0)
        return;
    gpa_verb_know(&au->vb, obj);
    if (obj->dra != NULL && obj->dra->kind == GPA_DRA_CLAIM && obj->dra->nallocated != 0)
        gpa_inventory_add_dra(au->dra, doc, au->source, &err); /* what it holds: room now */
}

/* A ResourceSlice joins the DRA inventory; one that cannot be read is left out and said (its pool is then incomplete,
 * its devices not counted, as in the live view). */
static void on_slice(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    audit_t *au = ctx;
    gpa_error_t err = {0};
    (void)event;
    gpa_arena_clear(&au->obj);
    gpa_error_init(&err, au->source);
    if (gpa_inventory_add_dra(au->dra, gpa_kube_kind_stamp(&au->obj, object, au->kind), au->source, &err) != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        gpa_report_line(stderr, "audit: ResourceSlice %s left out: %s",
                        gpa_value_string(gpa_value_get(gpa_value_get(object, "metadata"), "name")), line);
    }
}

/* 404 → 1 (not served), 200 → 0, else -1 after saying why. Asked once with limit=1 before the real list. */
static int probe(gpa_kube_client_t *c, const char *path, const gpa_kube_kind_t *k)
{
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    char *url = gpa_xmalloc(strlen(path) + 16);
    sprintf(url, "%s?limit=1", path);
    gpa_error_init(&err, NULL);
    int rc = gpa_kube_call(c, "GET", url, NULL, NULL, 0, &reply, &err);
    free(url);
    if (rc != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "audit: %s (%s): %s\n", k->kind, k->api_version, line);
        return -1;
    }
    long status = reply.status;
    gpa_kube_reply_dispose(&reply);
    if (status == 200 || status == 404)
        return status == 404;
    fprintf(stderr, "audit: listing %s (%s) failed: HTTP %ld%s\n", k->kind, k->api_version, status,
            status == 403 ? " (forbidden: docs/cluster.md lists the RBAC audit needs)" : "");
    return -1;
}

/*
 * Lists one kind (in namespace ns; NULL: all) where discovery says it is served, each object to `item`. Returns 0
 * when the whole list was read, 1 when the cluster does not serve the kind, -1 when a list failed (said on stderr).
 * `judged`: a kind not served is noted and a failure counted as unreadable (the known pass leaves that to the
 * judging pass).
 */
static int list_kind(audit_t *au, const gpa_kube_target_t *t, gpa_kube_client_t *c, const gpa_kube_kind_t *guess, const char *ns,
                     void (*item)(void *, gpa_watch_event_t, const gpa_value_t *), int judged)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_kube_kind_t where = *guess;
    const char *version = gpa_kube_preferred_version(c, &a, guess->group);
    if (version != NULL)
        where.api_version = version;
    const gpa_kube_kind_t *k = &where;
    const char *path = gpa_kube_kind_path(&a, k, ns);
    int served = probe(c, path, k);
    if (served == 1 && judged)
        gpa_buf_printf(&au->unserved, "%s%s (%s)", au->unserved.len > 0 ? ", " : "", k->kind, k->api_version);
    if (served != 0) {
        au->vb.unreadable += served < 0 && judged;
        gpa_arena_dispose(&a);
        return served;
    }
    gpa_reflector_sink_t sink = {on_nothing, item, on_nothing, NULL, au};
    gpa_error_t err = {0};
    au->kind = k;
    int rc = gpa_kube_list(t, path, &sink, &err);
    if (rc != 0) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "audit: listing %s (%s) failed: %s\n", k->kind, k->api_version, line);
        au->vb.unreadable += judged;
    }
    gpa_arena_dispose(&a);
    return rc;
}

/* DRA's kinds (resource.k8s.io, the version discovery prefers: v1, or v1beta2/v1beta1 where only those are served). */
static const gpa_kube_kind_t *const dra_kinds[] = {&gpa_kube_kind_device_class, &gpa_kube_kind_claim_template,
                                                   &gpa_kube_kind_claim};
static const gpa_dra_kind_t dra_known_kinds[] = {GPA_DRA_CLASS, GPA_DRA_TEMPLATE, GPA_DRA_CLAIM};

/*
 * What the cluster holds, known before anything is judged: its DeviceClasses (cluster-wide) and the claims and
 * templates of ns (NULL: all). A kind read whole is complete (a missing one is known absent); one not served or
 * whose list failed is not (the rules that need it stay silent).
 */
static void know_dra(audit_t *au, const gpa_kube_target_t *t, gpa_kube_client_t *c, const char *ns)
{
    gpa_error_t err = {0};
    au->dra = gpa_inventory_new();
    for (size_t i = 0; i < sizeof(dra_kinds) / sizeof(dra_kinds[0]); i++)
        if (list_kind(au, t, c, dra_kinds[i], dra_kinds[i]->cluster_scoped ? NULL : ns, on_known, 0) == 0)
            gpa_dra_known_set_complete(&au->vb.known, dra_known_kinds[i]);
    gpa_verb_seal_known(&au->vb);
    /* The devices, cluster-wide whatever -n says (a claim may be allocated on any node); a list that fails or finds
     * no device leaves no inventory, and the placement says nothing. */
    if (list_kind(au, t, c, &gpa_kube_kind_slice, NULL, on_slice, 0) != 0 || gpa_inventory_commit(au->dra, &err) != 0 ||
        gpa_inventory_dra_pools(au->dra) == NULL) {
        gpa_inventory_release(au->dra);
        au->dra = NULL;
    }
}

/* ---- command line ---- */

typedef struct st_options_t {
    gpa_verb_opts_t common;
    int no_mutate;
    const char *report_api; /* --report-api */
} options_t;

enum { OPT_NO_MUTATE = GPA_OPT_OWN, OPT_REPORT_API };
static const char *const formats[] = {"text", "json", "policyreport", NULL};

/* -1 after a message on a bad command line, 1 for --help, 0 otherwise. */
static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option own[] = {{"no-mutate", no_argument, NULL, OPT_NO_MUTATE},
                                        {"report-api", required_argument, NULL, OPT_REPORT_API},
                                        {NULL, 0, NULL, 0}};
    gpa_verb_opts_init(&o->common, GPA_OPT_CLUSTER | GPA_OPT_NAMESPACE | GPA_OPT_CONFIG | GPA_OPT_OUTPUT, own, "text");
    int c;
    while ((c = gpa_verb_getopt(argc, argv, &o->common)) != -1) {
        if (c == OPT_NO_MUTATE)
            o->no_mutate = 1;
        else if (c == OPT_REPORT_API)
            o->report_api = optarg;
        else
            return c == 'h' ? 1 : -1;
    }
    if (gpa_verb_opts_check("audit", &o->common, formats, 0, argc) != 0)
        return -1;
    gpa_report_api_t api;
    if (o->report_api != NULL &&
        (strcmp(o->common.output, "policyreport") != 0 || gpa_report_api_parse(o->report_api, &api) != 0)) {
        fprintf(stderr, "audit: --report-api needs -o policyreport and is wgpolicyk8s or openreports, not %s\n", o->report_api);
        return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "audit: unexpected argument: %s\n", argv[optind]);
        return -1;
    }
    return 0;
}

/* Every audit kind in the namespace (NULL: all). */
static void audit_all(audit_t *au, const gpa_kube_target_t *t, const char *ns)
{
    gpa_error_t err = {0};
    gpa_kube_client_t *c = gpa_kube_client_new(t, &err);
    if (c == NULL) {
        char line[1024];
        gpa_error_format(&err, line, sizeof(line));
        fprintf(stderr, "audit: %s\n", line);
        au->vb.unreadable++;
        return;
    }
    gpa_arena_t a;
    gpa_kube_kind_t *kinds;
    gpa_arena_init(&a);
    size_t n = gpa_kube_audit_kinds(&a, &au->vb.cfg->workloads, &kinds);
    int dra = (au->vb.cfg->dialects & GPA_DIALECT_DRA) != 0;
    if (dra)
        know_dra(au, t, c, ns);
    for (size_t i = 0; i < n; i++)
        if (ns == NULL || !kinds[i].cluster_scoped) /* -n: objects in that namespace only */
            list_kind(au, t, c, &kinds[i], ns, on_item, 1);
    for (size_t i = 0; dra && i < sizeof(dra_kinds) / sizeof(dra_kinds[0]); i++)
        if (ns == NULL || !dra_kinds[i]->cluster_scoped)
            list_kind(au, t, c, dra_kinds[i], ns, on_item, 1);
    gpa_arena_dispose(&a);
    gpa_kube_client_free(c);
    if (au->unserved.len > 0)
        fprintf(stderr, "audit: note: not served by this cluster (their CRDs are not installed), skipped: %.*s\n",
                (int)au->unserved.len, au->unserved.base);
}

int gpa_cmd_audit(int argc, char **argv)
{
    options_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? GPA_EXIT_OK : GPA_EXIT_USAGE;
    }
    audit_t au = {.vb.json = strcmp(o.common.output, "json") == 0,
                  .source = "cluster",
                  .mutate = !o.no_mutate,
                  .policyreport = strcmp(o.common.output, "policyreport") == 0};
    if (o.report_api != NULL)
        gpa_report_api_parse(o.report_api, &au.report_api);
    gpa_kube_target_t t;
    const char *ns;
    if (gpa_verb_target("audit", &o.common, &t, &ns) != 0)
        return GPA_EXIT_USAGE;
    rc = GPA_EXIT_USAGE;
    if (gpa_verb_init(&au.vb, &o.common, NULL, &au) == 0) {
        if (au.vb.json)
            fputs("[", stdout); /* gpa_verb_finish closes it */
        audit_all(&au, &t, ns);
        const char *summary = gpa_arena_printf(&au.vb.scratch, "%zu object%s: %zu allowed, %zu would be denied", au.objects,
                                               au.objects == 1 ? "" : "s", au.objects - au.denied, au.denied);
        rc = gpa_verb_finish(&au.vb, au.denied, au.policyreport ? NULL : summary); /* YAML only on stdout */
    }
    gpa_verb_dispose(&au.vb);
    gpa_inventory_release(au.dra);
    gpa_arena_dispose(&au.obj);
    gpa_buf_dispose(&au.unserved);
    gpa_kube_target_dispose(&t);
    return rc;
}
