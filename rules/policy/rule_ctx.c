/*
 * Wording findings for the rule families (rule_ctx.h).
 */
#include "policy/rule_ctx.h"

#include <stdarg.h>
#include <string.h>

#include "kube/quantity.h"

gpa_violation_t *gpa_rule_ctx_report(gpa_rule_ctx_t *ctx, const char *container, const char *path, const char *res0,
                                     const char *res1, const char *fmt, ...)
{
    ctx->count++;
    if (ctx->out == NULL)
        return NULL;
    gpa_violation_t *v = gpa_vec_push(ctx->a, ctx->out);
    memset(v, 0, sizeof(*v));
    v->rule = ctx->rule;
    v->action = ctx->action;
    v->container = container;
    v->pod = ctx->pod != NULL ? ctx->pod->path : ""; /* a resource.k8s.io object: no Pod spec */
    v->path = path != NULL ? path : "";
    if (res0 != NULL)
        v->resources[v->nresources++] = res0;
    if (res1 != NULL)
        v->resources[v->nresources++] = res1;
    va_list ap;
    va_start(ap, fmt);
    v->message = gpa_arena_vprintf(ctx->a, fmt, ap);
    va_end(ap);
    return v;
}

size_t gpa_rule_ctx_container_findings(gpa_rule_ctx_t *ctx, const gpa_container_t *c, gpa_violations_t *out)
{
    return ctx->container_findings(ctx->a, ctx->cfg, ctx->pod, ctx->facts, c, out);
}

const char *gpa_rule_ctx_bytes(gpa_arena_t *a, int64_t bytes)
{
    char buf[32];
    gpa_quantity_format(bytes, 1, buf);
    return gpa_arena_strdup(a, buf);
}

const char *gpa_rule_ctx_resources_path(gpa_arena_t *a, const gpa_container_t *c)
{
    (void)a;
    return c->resources_path;
}
