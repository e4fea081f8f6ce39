/*
 * Evaluation of a parsed expression over CEL's values, with CEL's rules where the subset reaches: strict calls
 * (an unknown argument makes the call unknown, else an error argument makes it that error), the commutative `&&` and
 * `||` (false, resp. true, absorbs both), heterogeneous `==` (different types are unequal), and run-time errors for
 * what the API server's type checker lets through on dynamic values (an absent key, a function on the wrong type).
 * The functions of the libraries are in library.c.
 */
#include <string.h>

#include "cel/cel_ast.h"
#include "cel/library.h"
#include "cel/value.h"

/* The order of two values for < <= > >=: -1, 0, 1, or 2 when CEL has no such overload. */
static int compare(const gpa_cel_value_t *x, const gpa_cel_value_t *y)
{
    if (gpa_cel_is_number_(x) && gpa_cel_is_number_(y))
        return gpa_cel_compare_numbers_(x, y);
    if (x->kind != y->kind)
        return 2;
    if (x->kind == GPA_CEL_STRING)
        return gpa_cel_compare_bytes_(x->u.str.ptr, x->u.str.len, y->u.str.ptr, y->u.str.len);
    if (x->kind == GPA_CEL_BOOL)
        return x->u.boolean - y->u.boolean;
    return 2;
}

/* ---- the walk ---- */

static gpa_cel_value_t eval(gpa_cel_eval_t *e, const gpa_cel_node_t *n);

static gpa_cel_value_t ident(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    for (size_t i = 0; i < e->nvars; i++)
        if (strlen(e->vars[i].name) == n->name_len && memcmp(e->vars[i].name, n->name, n->name_len) == 0)
            return e->vars[i].value;
    return gpa_cel_error_(e->a, "undeclared reference to '%s'", n->name);
}

/* m[key] for a map: *out and 1, or 0 when absent, or -1 when it cannot be told (unknown). */
static int map_get(gpa_cel_eval_t *e, const gpa_cel_value_t *m, const gpa_cel_value_t *key, gpa_cel_value_t *out)
{
    if (m->u.map.lookup != NULL)
        return m->u.map.lookup(m->u.map.ctx, e->a, key, out) != 0;
    int maybe = 0;
    for (size_t i = 0; i < m->u.map.len; i++) {
        int eq = gpa_cel_equal_(&m->u.map.keys[i], key);
        if (eq == 1) {
            *out = m->u.map.values[i];
            return 1;
        }
        maybe |= eq < 0;
    }
    return maybe ? -1 : 0;
}

static gpa_cel_value_t select_field(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t m = eval(e, n->args[0]);
    if (gpa_cel_pending_(&m))
        return m;
    if (n->optional)
        return gpa_cel_unknown_(); /* optionals are outside the subset */
    if (m.kind != GPA_CEL_MAP)
        return gpa_cel_error_(e->a, "type '%s' does not support field selection", gpa_cel_type_name_(&m));
    gpa_cel_value_t key = gpa_cel_string(n->name, n->name_len), out;
    int got = map_get(e, &m, &key, &out);
    if (got < 0)
        return gpa_cel_unknown_();
    if (n->test)
        return gpa_cel_bool(got);
    return got ? out : gpa_cel_error_(e->a, "no such key: %s", n->name);
}

static gpa_cel_value_t index_value(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t args[2] = {eval(e, n->args[0]), eval(e, n->args[1])}, out;
    gpa_cel_value_t pending = gpa_cel_strict_(args, 2);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    if (n->optional)
        return gpa_cel_unknown_();
    if (args[0].kind == GPA_CEL_LIST) {
        if (!gpa_cel_is_number_(&args[1]))
            return gpa_cel_error_(e->a, "no such overload: list[%s]", gpa_cel_type_name_(&args[1]));
        gpa_cel_value_t len = {.kind = GPA_CEL_UINT, .u.u = args[0].u.list.len}, zero = gpa_cel_int(0);
        if (gpa_cel_compare_numbers_(&args[1], &zero) < 0 || gpa_cel_compare_numbers_(&args[1], &len) >= 0)
            return gpa_cel_error_(e->a, "index out of range: %s", args[1].kind == GPA_CEL_INT ? "int" : "uint");
        return args[0].u.list.items[args[1].kind == GPA_CEL_INT ? (size_t)args[1].u.i : (size_t)args[1].u.u];
    }
    if (args[0].kind != GPA_CEL_MAP)
        return gpa_cel_error_(e->a, "no such overload: %s[%s]", gpa_cel_type_name_(&args[0]), gpa_cel_type_name_(&args[1]));
    int got = map_get(e, &args[0], &args[1], &out);
    if (got < 0)
        return gpa_cel_unknown_();
    if (got)
        return out;
    if (args[1].kind == GPA_CEL_STRING)
        return gpa_cel_error_(e->a, "no such key: %s", args[1].u.str.ptr);
    return gpa_cel_error_(e->a, "no such key");
}

/* && and ||: `absorbing` (false for &&, true for ||) on either side decides, whatever the other is. */
static gpa_cel_value_t logic(gpa_cel_eval_t *e, const gpa_cel_node_t *n, int absorbing)
{
    gpa_cel_value_t v[2];
    v[0] = eval(e, n->args[0]);
    if (v[0].kind == GPA_CEL_BOOL && v[0].u.boolean == absorbing)
        return v[0];
    v[1] = eval(e, n->args[1]);
    if (v[1].kind == GPA_CEL_BOOL && v[1].u.boolean == absorbing)
        return v[1];
    if (v[0].kind == GPA_CEL_BOOL && v[1].kind == GPA_CEL_BOOL)
        return v[0];
    gpa_cel_value_t pending = gpa_cel_strict_(v, 2);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    return gpa_cel_error_(e->a, "no matching overload for '%s' applied to (%s, %s)", absorbing ? "_||_" : "_&&_",
                          gpa_cel_type_name_(&v[0]), gpa_cel_type_name_(&v[1]));
}

static gpa_cel_value_t membership(gpa_cel_eval_t *e, const gpa_cel_value_t *x, const gpa_cel_value_t *in)
{
    if (in->kind == GPA_CEL_MAP) {
        gpa_cel_value_t unused;
        int got = map_get(e, in, x, &unused);
        return got < 0 ? gpa_cel_unknown_() : gpa_cel_bool(got);
    }
    if (in->kind != GPA_CEL_LIST)
        return gpa_cel_error_(e->a, "no matching overload for '@in' applied to (%s, %s)", gpa_cel_type_name_(x),
                              gpa_cel_type_name_(in));
    int maybe = 0;
    for (size_t i = 0; i < in->u.list.len; i++) {
        int eq = gpa_cel_equal_(x, &in->u.list.items[i]);
        if (eq == 1)
            return gpa_cel_bool(1);
        maybe |= eq < 0;
    }
    return maybe ? gpa_cel_unknown_() : gpa_cel_bool(0);
}

static gpa_cel_value_t arithmetic(gpa_cel_eval_t *e, gpa_cel_op_t op, const gpa_cel_value_t *x, const gpa_cel_value_t *y)
{
    if (op == GPA_CEL_OP_ADD && x->kind == GPA_CEL_STRING && y->kind == GPA_CEL_STRING) {
        if (gpa_cel_pay_(e, x->u.str.len + y->u.str.len) != 0)
            return gpa_cel_unknown_();
        char *s = gpa_arena_alloc(e->a, x->u.str.len + y->u.str.len + 1);
        memcpy(s, x->u.str.ptr, x->u.str.len);
        memcpy(s + x->u.str.len, y->u.str.ptr, y->u.str.len);
        s[x->u.str.len + y->u.str.len] = '\0';
        return gpa_cel_string(s, x->u.str.len + y->u.str.len);
    }
    if (x->kind != GPA_CEL_INT || y->kind != GPA_CEL_INT)
        return gpa_cel_unknown_(); /* uint, double, list, duration arithmetic: outside the subset */
    int64_t a = x->u.i, b = y->u.i, r = 0;
    int overflow = 0;
    switch (op) {
    case GPA_CEL_OP_ADD:
        overflow = __builtin_add_overflow(a, b, &r);
        break;
    case GPA_CEL_OP_SUB:
        overflow = __builtin_sub_overflow(a, b, &r);
        break;
    case GPA_CEL_OP_MUL:
        overflow = __builtin_mul_overflow(a, b, &r);
        break;
    default: /* / and % */
        if (b == 0)
            return gpa_cel_error_(e->a, op == GPA_CEL_OP_DIV ? "division by zero" : "modulus by zero");
        overflow = a == INT64_MIN && b == -1;
        r = overflow ? 0 : op == GPA_CEL_OP_DIV ? a / b : a % b;
        break;
    }
    return overflow ? gpa_cel_error_(e->a, "integer overflow") : gpa_cel_int(r);
}

static gpa_cel_value_t binary(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t v[2] = {eval(e, n->args[0]), eval(e, n->args[1])};
    gpa_cel_value_t pending = gpa_cel_strict_(v, 2);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    switch (n->op) {
    case GPA_CEL_OP_EQ:
    case GPA_CEL_OP_NE: {
        int eq = gpa_cel_equal_(&v[0], &v[1]);
        return eq < 0 ? gpa_cel_unknown_() : gpa_cel_bool(eq == (n->op == GPA_CEL_OP_EQ));
    }
    case GPA_CEL_OP_IN:
        return membership(e, &v[0], &v[1]);
    case GPA_CEL_OP_LT:
    case GPA_CEL_OP_LE:
    case GPA_CEL_OP_GT:
    case GPA_CEL_OP_GE: {
        int c = compare(&v[0], &v[1]);
        if (c == 2)
            return gpa_cel_error_(e->a, "no matching overload for '%s' applied to (%s, %s)",
                                  n->op == GPA_CEL_OP_LT   ? "_<_"
                                  : n->op == GPA_CEL_OP_LE ? "_<=_"
                                  : n->op == GPA_CEL_OP_GT ? "_>_"
                                                           : "_>=_",
                                  gpa_cel_type_name_(&v[0]), gpa_cel_type_name_(&v[1]));
        int r = n->op == GPA_CEL_OP_LT ? c < 0 : n->op == GPA_CEL_OP_LE ? c <= 0 : n->op == GPA_CEL_OP_GT ? c > 0 : c >= 0;
        return gpa_cel_bool(r);
    }
    default:
        return arithmetic(e, n->op, &v[0], &v[1]);
    }
}

static gpa_cel_value_t unary(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t x = eval(e, n->args[0]);
    if (gpa_cel_pending_(&x))
        return x;
    if (n->op == GPA_CEL_OP_NOT)
        return x.kind == GPA_CEL_BOOL
                   ? gpa_cel_bool(!x.u.boolean)
                   : gpa_cel_error_(e->a, "no matching overload for '!_' applied to (%s)", gpa_cel_type_name_(&x));
    if (x.kind != GPA_CEL_INT)
        return gpa_cel_unknown_();
    return x.u.i == INT64_MIN ? gpa_cel_error_(e->a, "integer overflow") : gpa_cel_int(-x.u.i);
}

static gpa_cel_value_t conditional(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t c = eval(e, n->args[0]);
    if (gpa_cel_pending_(&c))
        return c;
    if (c.kind != GPA_CEL_BOOL)
        return gpa_cel_error_(e->a, "no matching overload for '_?_:_' applied to (%s, ...)", gpa_cel_type_name_(&c));
    return eval(e, n->args[c.u.boolean ? 1 : 2]);
}

static gpa_cel_value_t list_literal(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    gpa_cel_value_t *items = gpa_arena_calloc(e->a, n->nargs + 1, sizeof(*items));
    for (size_t i = 0; i < n->nargs; i++)
        items[i] = eval(e, n->args[i]);
    gpa_cel_value_t pending = gpa_cel_strict_(items, n->nargs);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    return (gpa_cel_value_t){.kind = GPA_CEL_LIST, .u.list = {items, n->nargs}};
}

static gpa_cel_value_t map_literal(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    size_t len = n->nargs / 2;
    gpa_cel_value_t *kv = gpa_arena_calloc(e->a, 2 * len + 1, sizeof(*kv));
    for (size_t i = 0; i < 2 * len; i++)
        kv[i] = eval(e, n->args[i]);
    gpa_cel_value_t pending = gpa_cel_strict_(kv, 2 * len);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    gpa_cel_value_t *keys = gpa_arena_calloc(e->a, len + 1, sizeof(*keys)),
                    *values = gpa_arena_calloc(e->a, len + 1, sizeof(*values));
    for (size_t i = 0; i < len; i++) {
        const gpa_cel_value_t *k = &kv[2 * i];
        if (k->kind != GPA_CEL_STRING && k->kind != GPA_CEL_BOOL && !gpa_cel_is_number_(k))
            return gpa_cel_error_(e->a, "unsupported key type: %s", gpa_cel_type_name_(k));
        for (size_t j = 0; j < i; j++)
            if (gpa_cel_equal_(&keys[j], k) == 1)
                return gpa_cel_error_(e->a, "Failed with repeated key");
        keys[i] = *k, values[i] = kv[2 * i + 1];
    }
    return (gpa_cel_value_t){.kind = GPA_CEL_MAP, .u.map = {keys, values, len, NULL, NULL}};
}

/* A named function: strict in its arguments, which are evaluated only for a function the subset holds (so that
 * `cel.bind` and the comprehension macros, whose arguments bind variables, are unknown as a whole). */
static gpa_cel_value_t call(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    const char *name;
    gpa_cel_fn_t fn = gpa_cel_function_(n->name, n->name_len, n->receiver, n->nargs, &name);
    if (fn == NULL || n->nargs > 2)
        return gpa_cel_unknown_();
    gpa_cel_value_t args[2];
    for (size_t i = 0; i < n->nargs; i++)
        args[i] = eval(e, n->args[i]);
    gpa_cel_value_t pending = gpa_cel_strict_(args, n->nargs);
    if (pending.kind != GPA_CEL_NULL)
        return pending;
    return fn(e, name, args);
}

static gpa_cel_value_t eval(gpa_cel_eval_t *e, const gpa_cel_node_t *n)
{
    if (gpa_cel_pay_(e, 1) != 0)
        return gpa_cel_unknown_();
    switch (n->kind) {
    case GPA_CEL_N_LITERAL:
        return n->value;
    case GPA_CEL_N_IDENT:
        return ident(e, n);
    case GPA_CEL_N_SELECT:
        return select_field(e, n);
    case GPA_CEL_N_INDEX:
        return index_value(e, n);
    case GPA_CEL_N_LIST:
        return list_literal(e, n);
    case GPA_CEL_N_MAP:
        return map_literal(e, n);
    case GPA_CEL_N_STRUCT:
        return gpa_cel_unknown_();
    case GPA_CEL_N_CALL:
        break;
    }
    switch (n->op) {
    case GPA_CEL_OP_AND:
        return logic(e, n, 0);
    case GPA_CEL_OP_OR:
        return logic(e, n, 1);
    case GPA_CEL_OP_NOT:
    case GPA_CEL_OP_NEG:
        return unary(e, n);
    case GPA_CEL_OP_COND:
        return conditional(e, n);
    case GPA_CEL_OP_CALL:
        return call(e, n);
    default:
        return binary(e, n);
    }
}

gpa_cel_value_t gpa_cel_eval(gpa_arena_t *a, const gpa_cel_node_t *expr, const gpa_cel_binding_t *vars, size_t nvars,
                             uint64_t *cost)
{
    gpa_cel_eval_t e = {a, vars, nvars, cost};
    return eval(&e, expr);
}
