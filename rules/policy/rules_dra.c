/*
 * The DRA rules (docs/rules.md#dra): on claims, templates and classes (their on_dra checks), and on the Pods and
 * workloads that use them. What the cluster holds comes from ctx->known; where it is not known, the rules that need
 * to know something is absent stay silent.
 */
#include <string.h>

#include "document/schema.h"
#include "kube/dra.h"
#include "kube/dra_nvidia.h"
#include "kube/dra_share.h"
#include "policy/rule_checks.h"
#include "policy/rule_ctx.h"

/* ---- helpers ---------------------------------------------------------------------------------------------------- */

/* Calls fn for every ExactDeviceRequest of the claim or template ctx judges (a request's, and each alternative). */
static void each_exact(gpa_rule_ctx_t *ctx, void (*fn)(gpa_rule_ctx_t *ctx, const gpa_dra_request_t *req, const gpa_dra_exact_t *e))
{
    const gpa_dra_devices_t *devices = &ctx->obj->dra->devices;
    for (size_t i = 0; i < devices->nrequests; i++) {
        const gpa_dra_request_t *req = &devices->requests[i];
        for (size_t k = 0; k < gpa_dra_request_nexact(req); k++)
            fn(ctx, req, gpa_dra_request_exact(req, k));
    }
}

/* "gpu" or "gpu/a100" (a firstAvailable alternative): how a request is named in messages. */
static const char *request_name(gpa_rule_ctx_t *ctx, const gpa_dra_request_t *req, const gpa_dra_exact_t *e)
{
    const char *name = req->name != NULL ? req->name : "";
    if (e == &req->exact || e->name == NULL)
        return name;
    return gpa_arena_printf(ctx->a, "%s/%s", name, e->name);
}

/* The claim or template a Pod claim names (resourceClaimName or resourceClaimTemplateName, the `source:` wrapper's
 * too), with its kind; NULL name when it names neither. */
static const char *pod_claim_target(const gpa_dra_pod_claim_t *pc, gpa_dra_kind_t *kind)
{
    const char *claim = pc->claim != NULL ? pc->claim : pc->source_claim;
    const char *template = pc->template != NULL ? pc->template : pc->source_template;
    *kind = claim != NULL ? GPA_DRA_CLAIM : GPA_DRA_TEMPLATE;
    return claim != NULL ? claim : template;
}

static const gpa_dra_pod_claim_t *find_pod_claim(const gpa_podspec_t *pod, const char *name)
{
    for (size_t i = 0; name != NULL && i < pod->nclaims; i++)
        if (pod->claims[i].name != NULL && strcmp(pod->claims[i].name, name) == 0)
            return &pod->claims[i];
    return NULL;
}

/* How many Pods the object makes at once, for messages ("4", "one per node"). */
static const char *replicas_text(gpa_rule_ctx_t *ctx)
{
    if (ctx->obj->replicas == GPA_REPLICAS_MANY)
        return "one per node";
    return gpa_arena_printf(ctx->a, "%lld", (long long)ctx->obj->replicas);
}

static int several_replicas(const gpa_rule_ctx_t *ctx)
{
    return ctx->obj != NULL && ctx->obj->replicas > 1;
}

/* ---- dra-unknown-class ------------------------------------------------------------------------------------------ */

static void unknown_class(gpa_rule_ctx_t *ctx, const gpa_dra_request_t *req, const gpa_dra_exact_t *e)
{
    if (e->class == NULL || gpa_dra_known_find(ctx->known, GPA_DRA_CLASS, "", e->class) != NULL)
        return;
    gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, e->path, "deviceClassName"), e->class, NULL,
                        "request \"%s\": DeviceClass %s does not exist in the cluster, so the claim would wait Pending "
                        "(\"device class %s does not exist\"); create the class first or name one that exists",
                        request_name(ctx, req, e), e->class, e->class);
}

/* The container half: the implicit deviceclass.resource.kubernetes.io/<class> of a class the cluster does not have
 * (a mapped name always has its class: decode found it there). */
void gpa_rule_dra_unknown_class_container(gpa_rule_ctx_t *ctx)
{
    if (ctx->c == NULL || !gpa_dra_known_complete(ctx->known, GPA_DRA_CLASS))
        return;
    for (size_t i = 0; i < ctx->c->nextended; i++) {
        const gpa_dra_extended_use_t *u = &ctx->c->extended[i];
        if (gpa_dra_known_find(ctx->known, GPA_DRA_CLASS, "", u->class) == NULL)
            gpa_rule_ctx_report(ctx, ctx->c->name, u->path, u->resource, NULL,
                                "%s: DeviceClass %s does not exist in the cluster, so the Pod would wait Pending; create the "
                                "class first or name one that exists",
                                u->resource, u->class);
    }
}

void gpa_rule_dra_unknown_class(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    if ((o->kind == GPA_DRA_CLAIM || o->kind == GPA_DRA_TEMPLATE) && gpa_dra_known_complete(ctx->known, GPA_DRA_CLASS))
        each_exact(ctx, unknown_class);
}

/* ---- dra-api-version -------------------------------------------------------------------------------------------- */

/* The first minor release that no longer serves version v of resource.k8s.io's claims, templates, classes and slices
 * (0: never served by a release gpuadmit judges), and the first that serves it. */
static void version_window(gpa_dra_version_t v, unsigned *from, unsigned *until)
{
    static const unsigned window[][2] = {
        [GPA_DRA_V1] = {34, 0},      [GPA_DRA_V1BETA2] = {33, 39}, [GPA_DRA_V1BETA1] = {32, 38},
        [GPA_DRA_V1ALPHA3] = {0, 0}, [GPA_DRA_V1ALPHA2] = {0, 0},  [GPA_DRA_VOTHER] = {0, 0},
    };
    *from = window[v][0];
    *until = window[v][1];
}

void gpa_rule_dra_api_version(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    unsigned minor = ctx->cfg->dra.kube_minor != 0 ? ctx->cfg->dra.kube_minor : GPA_DRA_DEFAULT_MINOR, from, until;
    version_window(o->version, &from, &until);
    if (from != 0 && minor >= from && (until == 0 || minor < until))
        return;
    const char *why = from == 0      ? "no Kubernetes release gpuadmit knows serves it"
                      : minor < from ? gpa_arena_printf(ctx->a, "it is served from 1.%u", from)
                                     : gpa_arena_printf(ctx->a, "it was removed in 1.%u", until);
    gpa_rule_ctx_report(ctx, NULL, "apiVersion", ctx->obj->api_version, NULL,
                        "%s %s: the cluster (Kubernetes 1.%u) does not serve %s (%s); write resource.k8s.io/v1%s",
                        gpa_dra_kind_name(o->kind), ctx->obj->api_version, minor, ctx->obj->api_version, why,
                        o->version == GPA_DRA_V1ALPHA2 ? " (classic DRA's resourceClassName and parametersRef are gone: "
                                                         "a request names a deviceClassName)"
                                                       : "");
}

/* ---- non-positive (DRA) ----------------------------------------------------------------------------------------- */

static void negative_capacity(gpa_rule_ctx_t *ctx, const gpa_dra_request_t *req, const gpa_dra_exact_t *e)
{
    for (size_t i = 0; i < e->ncapacity; i++) {
        const gpa_dra_capacity_t *c = &e->capacity[i];
        if (c->amount.status == GPA_Q_OK && c->amount.value < 0)
            gpa_rule_ctx_report(ctx, NULL, c->path, c->name, NULL,
                                "request \"%s\": capacity %s: %s is negative; a capacity request is an amount >= 0",
                                request_name(ctx, req, e), c->name, c->text);
    }
}

void gpa_rule_non_positive_dra(gpa_rule_ctx_t *ctx)
{
    if (ctx->obj->dra->kind == GPA_DRA_CLAIM || ctx->obj->dra->kind == GPA_DRA_TEMPLATE)
        each_exact(ctx, negative_capacity);
}

/* The container half: an extended resource a DeviceClass serves, asked as a negative count. */
void gpa_rule_non_positive_dra_container(gpa_rule_ctx_t *ctx)
{
    for (size_t i = 0; ctx->c != NULL && i < ctx->c->nextended; i++) {
        const gpa_dra_extended_use_t *u = &ctx->c->extended[i];
        if (u->amount.status == GPA_Q_OK && u->amount.value < 0)
            gpa_rule_ctx_report(ctx, ctx->c->name, u->path, u->resource, NULL,
                                "%s: %s is negative; DeviceClass %s serves it as a count of devices >= 0", u->resource, u->text,
                                u->class);
    }
}

/* ---- dra-claim-source ------------------------------------------------------------------------------------------- */

void gpa_rule_dra_claim_source(gpa_rule_ctx_t *ctx)
{
    for (size_t i = 0; i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        if (!pc->has_source)
            continue;
        const char *key = pc->source_claim != NULL ? "resourceClaimName" : "resourceClaimTemplateName";
        const char *value = pc->source_claim != NULL ? pc->source_claim : pc->source_template != NULL ? pc->source_template : "...";
        gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, pc->path, "source"), NULL, NULL,
                            "resourceClaims \"%s\": the source: wrapper was removed in Kubernetes 1.31; kubectl apply prunes it "
                            "and the API server answers \"must specify one of: resourceClaimName, resourceClaimTemplateName\"; "
                            "write {name: %s, %s: %s}",
                            pc->name != NULL ? pc->name : "", pc->name != NULL ? pc->name : "...", key, value);
    }
}

/* ---- dra-unknown-claim ------------------------------------------------------------------------------------------ */

void gpa_rule_dra_unknown_claim(gpa_rule_ctx_t *ctx)
{
    for (size_t i = 0; i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        gpa_dra_kind_t kind;
        const char *target = pod_claim_target(pc, &kind);
        if (target == NULL || !gpa_dra_known_complete(ctx->known, kind) ||
            gpa_dra_known_find(ctx->known, kind, ctx->obj->ns, target) != NULL)
            continue;
        const char *field = kind == GPA_DRA_CLAIM ? "resourceClaimName" : "resourceClaimTemplateName";
        gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, pc->path, field), target, NULL,
                            "resourceClaims \"%s\": %s %s does not exist in namespace %s, so the Pod would wait Pending; "
                            "create it first or fix %s",
                            pc->name != NULL ? pc->name : "", gpa_dra_kind_name(kind), target,
                            ctx->obj->ns[0] != '\0' ? ctx->obj->ns : "default", field);
    }
}

/* ---- dra-unknown-request ---------------------------------------------------------------------------------------- */

static void unknown_requests_of(gpa_rule_ctx_t *ctx, const gpa_container_t *c)
{
    for (size_t i = 0; i < c->nclaims; i++) {
        const gpa_dra_container_claim_t *cc = &c->claims[i];
        const gpa_dra_pod_claim_t *pc = find_pod_claim(ctx->pod, cc->name);
        gpa_dra_kind_t kind;
        const char *target = pc != NULL ? pod_claim_target(pc, &kind) : NULL;
        const gpa_dra_object_t *o = target != NULL ? gpa_dra_known_find(ctx->known, kind, ctx->obj->ns, target) : NULL;
        const gpa_dra_exact_t *alt;
        if (cc->request == NULL || o == NULL || o->generated || gpa_dra_devices_request(&o->devices, cc->request, &alt) != NULL)
            continue;
        gpa_rule_ctx_report(ctx, c->name, gpa_schema_path(ctx->a, cc->path, "request"), cc->request, NULL,
                            "claims \"%s\": %s %s has no request \"%s\" (nor request/subrequest), so the container cannot start; "
                            "name one of its requests",
                            cc->name, gpa_dra_kind_name(kind), target, cc->request);
    }
}

void gpa_rule_dra_unknown_request(gpa_rule_ctx_t *ctx)
{
    for (size_t i = 0; i < ctx->pod->ncontainers; i++)
        unknown_requests_of(ctx, &ctx->pod->containers[i]);
    for (size_t i = 0; i < ctx->pod->ninit_containers; i++)
        unknown_requests_of(ctx, &ctx->pod->init_containers[i]);
}

/* ---- dra-shared-claim ------------------------------------------------------------------------------------------- */

void gpa_rule_dra_shared_claim(gpa_rule_ctx_t *ctx)
{
    if (!several_replicas(ctx))
        return;
    for (size_t i = 0; i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        gpa_dra_kind_t kind;
        const char *target = pod_claim_target(pc, &kind);
        if (target == NULL || kind != GPA_DRA_CLAIM)
            continue;
        int over = ctx->obj->replicas != GPA_REPLICAS_MANY && ctx->obj->replicas > GPA_DRA_MAX_CONSUMERS;
        gpa_action_t configured = ctx->action;
        if (over)
            ctx->action = GPA_ACTION_DENY; /* beyond the API's limit: replicas can never start, whatever the rollout */
        gpa_rule_ctx_report(
            ctx, NULL, gpa_schema_path(ctx->a, pc->path, "resourceClaimName"), target, NULL,
            "resourceClaims \"%s\": %s replicas (%s) all name ResourceClaim %s: every replica is pinned to the same devices on "
            "one node%s; use resourceClaimTemplateName for a device per replica",
            pc->name != NULL ? pc->name : "", ctx->obj->kind, replicas_text(ctx), target,
            over ? ", and a claim takes at most 256 consumers, so the replicas beyond 256 never start" : "");
        ctx->action = configured;
    }
}

/* ---- dra-template-sharing --------------------------------------------------------------------------------------- */

/* The sharing strategy a template's configuration sets, or NULL. */
static const char *template_shares(const gpa_dra_object_t *t)
{
    for (size_t i = 0; i < t->devices.nconfigs; i++) {
        const char *s = gpa_dra_sharing_strategy(&t->devices.configs[i]);
        if (s != NULL)
            return s;
    }
    return NULL;
}

void gpa_rule_dra_template_sharing(gpa_rule_ctx_t *ctx)
{
    if (!several_replicas(ctx))
        return;
    for (size_t i = 0; i < ctx->pod->nclaims; i++) {
        const gpa_dra_pod_claim_t *pc = &ctx->pod->claims[i];
        gpa_dra_kind_t kind;
        const char *target = pod_claim_target(pc, &kind);
        const gpa_dra_object_t *t = target != NULL && kind == GPA_DRA_TEMPLATE
                                        ? gpa_dra_known_find(ctx->known, GPA_DRA_TEMPLATE, ctx->obj->ns, target)
                                        : NULL;
        const char *strategy = t != NULL ? template_shares(t) : NULL;
        if (strategy == NULL)
            continue;
        gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, pc->path, "resourceClaimTemplateName"), target, NULL,
                            "resourceClaims \"%s\": ResourceClaimTemplate %s shares its device (%s), but each of the %s replicas "
                            "gets its own claim from it and so its own device, shared with nobody; to share one device, "
                            "create one ResourceClaim and name it with resourceClaimName",
                            pc->name != NULL ? pc->name : "", target, strategy, replicas_text(ctx));
    }
}

/* ---- dra-opaque-config ------------------------------------------------------------------------------------------ */

/* The driver's gates as dra.nvidia.featureGates gives them (-1 each when the block is absent). */
static gpa_nvidia_gates_t nvidia_gates(const gpa_config_t *cfg)
{
    return (gpa_nvidia_gates_t){
        .time_slicing = (signed char)gpa_config_nvidia_gate(&cfg->dra, GPA_NVIDIA_GATE_TIME_SLICING),
        .mps = (signed char)gpa_config_nvidia_gate(&cfg->dra, GPA_NVIDIA_GATE_MPS),
        .consumable = (signed char)gpa_config_nvidia_gate(&cfg->dra, GPA_NVIDIA_GATE_CONSUMABLE),
        .dynamic_mig = (signed char)gpa_config_nvidia_gate(&cfg->dra, GPA_NVIDIA_GATE_DYNAMIC_MIG),
    };
}

static void opaque_configs(gpa_rule_ctx_t *ctx, const gpa_dra_opaque_t *configs, size_t n)
{
    gpa_nvidia_gates_t gates = nvidia_gates(ctx->cfg);
    for (size_t i = 0; i < n; i++) {
        const gpa_dra_opaque_t *c = &configs[i];
        if (c->driver == NULL || strcmp(c->driver, GPA_NVIDIA_GPU_DRIVER) != 0)
            continue; /* a driver gpuadmit does not know is left alone */
        gpa_nvidia_fault_t faults[GPA_NVIDIA_MAX_FAULTS];
        size_t nf = gpa_nvidia_check(ctx->a, c->parameters, &gates, faults, GPA_NVIDIA_MAX_FAULTS);
        const char *base = gpa_schema_path(ctx->a, c->path, "parameters");
        for (size_t k = 0; k < nf; k++)
            gpa_rule_ctx_report(ctx, NULL, faults[k].path[0] != '\0' ? gpa_schema_path(ctx->a, base, faults[k].path) : base, NULL,
                                NULL,
                                "%s; driver %s refuses it when the node prepares the device, and the Pod stays "
                                "in ContainerCreating",
                                faults[k].message, GPA_NVIDIA_GPU_DRIVER);
    }
}

/* The request or alternative a config's `requests` entry names ("req", "req/sub"); NULL when there is none, or when
 * "req" is a firstAvailable request (the driver matches a config against the alternative allocated, "req/sub"). */
static const gpa_dra_exact_t *named_exact(const gpa_dra_devices_t *devices, const char *name)
{
    const gpa_dra_exact_t *alt;
    const gpa_dra_request_t *req = name != NULL ? gpa_dra_devices_request(devices, name, &alt) : NULL;
    if (req == NULL)
        return NULL;
    return alt != NULL ? alt : req->nalternatives == 0 && req->has_exact ? &req->exact : NULL;
}

/* A config of NVIDIA's that names a request of a chart class selecting another kind of device than the config's:
 * a GpuConfig on a mig.nvidia.com request, a MigDeviceConfig on a gpu.nvidia.com one. The driver refuses it when it
 * prepares the device. A config naming no request applies to the devices of its own kind only: never refused. */
static void config_device_kinds(gpa_rule_ctx_t *ctx, const gpa_dra_devices_t *devices, const gpa_dra_opaque_t *c)
{
    gpa_nvidia_device_t want = gpa_nvidia_config_device(c->parameters);
    if (want == GPA_NVIDIA_DEVICE_UNKNOWN)
        return;
    for (size_t k = 0; k < c->nrequests; k++) {
        const gpa_dra_exact_t *e = named_exact(devices, c->requests[k]);
        gpa_nvidia_device_t got = e != NULL ? gpa_nvidia_class_device(e->class) : GPA_NVIDIA_DEVICE_UNKNOWN;
        if (got == GPA_NVIDIA_DEVICE_UNKNOWN || got == want)
            continue;
        gpa_rule_ctx_report(
            ctx, NULL, gpa_schema_path(ctx->a, gpa_schema_path(ctx->a, c->path, "parameters"), "kind"), NULL, NULL,
            "%s is for requests of class %s, but it names request \"%s\" of class %s: driver %s refuses to apply it "
            "when the node prepares the device, and the Pod stays in ContainerCreating; for that request "
            "write %s",
            gpa_nvidia_device_config_kind(want), gpa_nvidia_device_class(want), c->requests[k], e->class, GPA_NVIDIA_GPU_DRIVER,
            gpa_nvidia_device_config_kind(got));
    }
}

void gpa_rule_dra_opaque_config(gpa_rule_ctx_t *ctx)
{
    const gpa_dra_object_t *o = ctx->obj->dra;
    if (o->kind == GPA_DRA_CLASS) {
        opaque_configs(ctx, o->cls.configs, o->cls.nconfigs);
    } else if (o->kind == GPA_DRA_CLAIM || o->kind == GPA_DRA_TEMPLATE) {
        opaque_configs(ctx, o->devices.configs, o->devices.nconfigs);
        for (size_t i = 0; i < o->devices.nconfigs; i++)
            if (o->devices.configs[i].driver != NULL && strcmp(o->devices.configs[i].driver, GPA_NVIDIA_GPU_DRIVER) == 0)
                config_device_kinds(ctx, &o->devices, &o->devices.configs[i]);
    }
}

/* ---- node-name-set (DRA) ---------------------------------------------------------------------------------------- */

/* status.conditions has PodScheduled True: the scheduler bound the Pod (read from a cluster). */
static int scheduled(const gpa_object_t *obj)
{
    const gpa_value_t *conds = gpa_value_get(gpa_value_get(obj->root, "status"), "conditions");
    for (size_t i = 0; conds != NULL && conds->type == GPA_VARRAY && i < conds->u.array.len; i++) {
        const char *type = gpa_value_string(gpa_value_get(conds->u.array.items[i], "type"));
        const char *status = gpa_value_string(gpa_value_get(conds->u.array.items[i], "status"));
        if (type != NULL && status != NULL && strcmp(type, "PodScheduled") == 0 && strcmp(status, "True") == 0)
            return 1;
    }
    return 0;
}

void gpa_rule_node_name_set_dra(gpa_rule_ctx_t *ctx)
{
    const char *phase = ctx->obj != NULL ? ctx->obj->phase : NULL;
    if (ctx->c != NULL || ctx->pod->nclaims == 0 || ctx->pod->node_name == NULL || ctx->pod->node_name[0] == '\0' ||
        (ctx->facts->dialects & (GPA_DIALECT_KOORDINATOR | GPA_DIALECT_MGPU | GPA_DIALECT_HAMI)) != 0 ||
        (phase != NULL && phase[0] != '\0' && strcmp(phase, "Pending") != 0) || scheduled(ctx->obj))
        return; /* a share in the Pod: the common half reports it; placed by the scheduler: its nodeName */
    gpa_rule_ctx_report(ctx, NULL, gpa_schema_path(ctx->a, ctx->pod->path, "nodeName"), NULL, NULL,
                        "spec.nodeName: %s skips the scheduler, which alone allocates the Pod's ResourceClaims, and the kubelet "
                        "will not start a Pod whose claims are not allocated for it; select the node with nodeSelector "
                        "kubernetes.io/hostname: %s instead",
                        ctx->pod->node_name, ctx->pod->node_name);
}
