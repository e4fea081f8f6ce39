/*
 * Wording findings for the rule families (rule_ctx.h).
 */
#include "policy/rule_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kube/quantity.h"

/* The message of the finding just pushed on `out`: the previous finding's own string when the words are the same
 * (thousands of containers breaking one rule alike hold one copy), else a new arena-owned string. */
static const char *message(gpa_arena_t *a, const gpa_violations_t *out, const char *fmt, va_list ap)
{
    char line[256];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(line, sizeof(line), fmt, again);
    va_end(again);
    if (n < 0 || (size_t)n >= sizeof(line))
        return gpa_arena_vprintf(a, fmt, ap);
    const char *prev = out->len >= 2 ? out->items[out->len - 2].message : NULL;
    if (prev != NULL && strcmp(prev, line) == 0)
        return prev;
    return gpa_arena_strndup(a, line, (size_t)n);
}

gpa_violation_t *gpa_rule_ctx_report(gpa_rule_ctx_t *ctx, const char *container, const char *path, const char *res0,
                                     const char *res1, const char *fmt, ...)
{
    ctx->count++;
    if (ctx->out == NULL || !gpa_violations_hold(ctx->a, ctx->out, ctx->rule, ctx->action))
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
    v->message = message(ctx->a, ctx->out, fmt, ap);
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
