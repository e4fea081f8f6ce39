#include "policy/engine.h"

#include <string.h>

#include "kube/decode.h"
#include "policy/mutate.h"
#include "policy/validate.h"

/*
 * Whether the old object already had this finding, as a violation at least as strong: then it does not count on
 * UPDATE. Only a violation excuses a violation: an old warning (a rule at warn, "no room now", an advisory
 * inventory) never lets a new denial through, or a verdict would flip between CREATE and UPDATE.
 */
static int already_had(const gpa_violations_t *old, const gpa_violation_t *v)
{
    for (size_t i = 0; i < old->len; i++)
        if (gpa_violation_same(&old->items[i], v) && (gpa_violation_denies(&old->items[i]) || !gpa_violation_denies(v)))
            return 1;
    return 0;
}

/* Mutates: sets out->patch, out->mutations, out->mutated and, when `reread`, *target to the mutated object decoded
 * again (validation must read what the API server will store, not what was sent). *target is left alone when the
 * mutations change nothing. */
static int run_mutations(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_check_opts_t *opts, gpa_object_t *obj, int reread,
                         gpa_verdict_t *out, gpa_object_t **target, gpa_error_t *err)
{
    /* The inventory reaches the mutations as it reaches the infeasible rule (ray-gpu-memory reads card memory). */
    gpa_mutate_env_t env = {.inventory = opts->inventory, .budget = opts->budget};
    gpa_mutate(a, cfg, &env, obj, &out->patch, &out->warnings, &out->mutations);
    if (out->patch.len == 0)
        return 0;
    gpa_value_t *root = obj->root;
    if (gpa_patch_apply(a, &root, &out->patch, err) != 0)
        return -1;
    out->mutated = root;
    if (!reread)
        return 0; /* nothing validates the result (the mutating webhook): skip the second decode */
    gpa_object_t *mutated;
    gpa_decode_opts_t decode = cfg->decode; /* read as the object was: the same classes known */
    decode.known = opts->known;
    if (gpa_decode_object_with(a, &decode, root, &mutated, err) != 0)
        return -1;
    /* Where the caller placed the object (an AdmissionReview's request.namespace, which wins) carries over. */
    gpa_object_set_request(mutated, obj->ns, obj->name);
    *target = mutated;
    return 0;
}

/*
 * An UPDATE is judged as the mutations would leave the object (docs/rules.md#actions-and-operations): the mutating
 * webhook rewrites each Pod when it is created, so a stored template need not carry what its Pods will get. Nothing
 * is patched on UPDATE: the mutations' patch, ids and warnings are dropped; the switches of `mutations` hold.
 */
static int as_mutated(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_check_opts_t *opts, gpa_object_t *obj, gpa_object_t **out,
                      gpa_error_t *err)
{
    gpa_verdict_t unused;
    memset(&unused, 0, sizeof(unused));
    *out = obj;
    return run_mutations(a, cfg, opts, obj, 1, &unused, out, err);
}

static int run_validation(gpa_arena_t *a, const gpa_config_t *cfg, const gpa_check_opts_t *opts, const gpa_object_t *target,
                          gpa_verdict_t *out, gpa_error_t *err)
{
    gpa_violations_t found = {0}, old = {0};
    gpa_alloc_budget_t own = gpa_alloc_budget(0), *budget = opts->budget != NULL ? opts->budget : &own;
    /* The engine's memory bound, for every path that pays into the budget: what this check allocates from here on. */
    budget->arena = a;
    budget->memory_limit = gpa_arena_held(a) + (opts->memory_bytes != 0 ? opts->memory_bytes : GPA_CHECK_MEMORY_BYTES);
    int update = opts->operation == GPA_OP_UPDATE && opts->old_object != NULL;
    found.keep = update ? 0 : opts->keep_findings;
    gpa_validate_object_known(a, cfg, opts->inventory, opts->known, budget, target, &found);
    if (update && found.len != 0) {
        gpa_object_t *old_target;
        if (as_mutated(a, cfg, opts, opts->old_object, &old_target, err) != 0) {
            budget->arena = NULL;
            return -1;
        }
        gpa_validate_object_known(a, cfg, opts->inventory, opts->known, budget, old_target, &old);
    }
    /* With nothing to leave out (CREATE, or an UPDATE that found nothing), the findings become the verdict's as they
     * are: one vector of thousands of findings, not a second copy of it. */
    int adopt = !update && out->violations.len == 0;
    if (adopt) {
        out->violations = found; /* kept in place: entry `at` is written only after entries 0..at were read */
        out->violations.len = 0;
    }
    for (size_t i = 0; i < found.len; i++) {
        const gpa_violation_t *v = &found.items[i];
        if (v->action == GPA_ACTION_OFF || (update && already_had(&old, v)))
            continue;
        size_t at = out->violations.len;
        if (adopt)
            out->violations.items[out->violations.len++] = *v;
        else
            *gpa_vec_push(a, &out->violations) = *v;
        if (v->action == GPA_ACTION_DENY)
            out->allowed = 0;
        else
            gpa_warnings_add(a, &out->warnings, v->not_now ? GPA_WARNING_NOT_NOW : GPA_WARNING_RULE, gpa_violation_line(a, v), NULL,
                             at);
    }
    if (!adopt)
        out->violations.omitted = found.omitted;
    if (gpa_violations_omitted(&found, GPA_ACTION_DENY) != 0)
        out->allowed = 0; /* counted, not held: it denies all the same */
    budget->arena = NULL; /* the arena is the caller's, and outlives nothing here: never left behind in its budget */
    return 0;
}

int gpa_check(gpa_arena_t *a, const gpa_config_t *cfg, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *out,
              gpa_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->allowed = 1;
    out->mutated = obj->root;
    if (opts->operation == GPA_OP_DELETE || opts->operation == GPA_OP_CONNECT)
        return 0;
    if (gpa_config_excludes(cfg, obj->ns) || (obj->npods == 0 && obj->dra == NULL))
        return 0;
    gpa_object_t *target = obj;
    /* Mutation warnings come first: they say what happened to the object before validation read it. */
    if (opts->mutate && opts->operation == GPA_OP_CREATE &&
        run_mutations(a, cfg, opts, obj, opts->validate, out, &target, err) != 0)
        return -1;
    if (opts->validate && opts->operation == GPA_OP_UPDATE && as_mutated(a, cfg, opts, obj, &target, err) != 0)
        return -1;
    gpa_config_t written; /* as written: no mutation is on, so no rule counts on one (a shallow copy: borrowed) */
    if (opts->as_written) {
        written = *cfg;
        written.mutations = 0;
        cfg = &written;
    }
    if (opts->validate && run_validation(a, cfg, opts, target, out, err) != 0)
        return -1;
    return 0;
}
