/*
 * Check tests for rules/cel/: the grammar (what parses, what does not and where), CEL's semantics on the subset
 * (the cel-spec conformance cases of `simple` for logic, comparisons, `in` and strings), the Kubernetes libraries,
 * and the selectors real DRA users write (docs/cel.md) against a device bound as lookup maps.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "run.h"

static gpa_arena_t arena;

static void setup(void)
{
    gpa_arena_init(&arena);
}

static void teardown(void)
{
    gpa_arena_dispose(&arena);
}

/* ---- a device, as the DRA code will bind it: maps served by lookups ---- */

typedef struct st_attr_t {
    const char *domain, *name;
    gpa_cel_value_t value;
} attr_t;

typedef struct st_device_t {
    const char *driver;
    const attr_t *attrs, *caps;
    size_t nattrs, ncaps;
} device_t;

typedef struct st_domain_ctx_t {
    const attr_t *items;
    size_t n;
    const char *domain;
} domain_ctx_t;

static int key_is(const gpa_cel_value_t *key, const char *s)
{
    return key->kind == GPA_CEL_STRING && key->u.str.len == strlen(s) && memcmp(key->u.str.ptr, s, key->u.str.len) == 0;
}

static int in_domain(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out)
{
    (void)a;
    const domain_ctx_t *d = ctx;
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->items[i].domain, d->domain) == 0 && key_is(key, d->items[i].name)) {
            *out = d->items[i].value;
            return 1;
        }
    return 0;
}

/* attributes[domain] / capacity[domain]: a map of that domain's names (present when any device name uses it). */
static int domains(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out)
{
    const domain_ctx_t *all = ctx;
    for (size_t i = 0; i < all->n; i++)
        if (key_is(key, all->items[i].domain)) {
            domain_ctx_t *d = gpa_arena_calloc(a, 1, sizeof(*d));
            *d = (domain_ctx_t){all->items, all->n, all->items[i].domain};
            *out = gpa_cel_lookup_map(in_domain, d);
            return 1;
        }
    return 0;
}

typedef struct st_device_ctx_t {
    const device_t *dev;
    domain_ctx_t attrs, caps;
} device_ctx_t;

static int device_field(void *ctx, gpa_arena_t *a, const gpa_cel_value_t *key, gpa_cel_value_t *out)
{
    (void)a;
    device_ctx_t *d = ctx;
    if (key_is(key, "driver"))
        *out = gpa_cel_string(d->dev->driver, strlen(d->dev->driver));
    else if (key_is(key, "attributes"))
        *out = gpa_cel_lookup_map(domains, &d->attrs);
    else if (key_is(key, "capacity"))
        *out = gpa_cel_lookup_map(domains, &d->caps);
    else if (key_is(key, "allowMultipleAllocations"))
        *out = gpa_cel_bool(0);
    else
        return 0;
    return 1;
}

static const attr_t a100_attrs[] = {
    {"gpu.nvidia.com", "type", {.kind = GPA_CEL_STRING, .u.str = {"gpu", 3}}},
    {"gpu.nvidia.com", "productName", {.kind = GPA_CEL_STRING, .u.str = {"NVIDIA A100-SXM4-40GB", 21}}},
    {"gpu.nvidia.com", "architecture", {.kind = GPA_CEL_STRING, .u.str = {"Ampere", 6}}},
    {"gpu.nvidia.com", "driverVersion", {.kind = GPA_CEL_SEMVER, .u.semver = {550, 54, 15, ""}}},
    {"gpu.nvidia.com", "cudaComputeCapability", {.kind = GPA_CEL_SEMVER, .u.semver = {8, 0, 0, ""}}},
};
static const attr_t a100_caps[] = {
    {"gpu.nvidia.com", "memory", {.kind = GPA_CEL_QUANTITY, .u.quantity = 40LL << 30}},
    {"gpu.nvidia.com", "multiprocessors", {.kind = GPA_CEL_QUANTITY, .u.quantity = 108}},
};
static const device_t a100 = {"gpu.nvidia.com", a100_attrs, a100_caps, 5, 2};

/* Parses and evaluates `src` on the A100 above with a generous budget. */
static gpa_cel_value_t run_on(const device_t *dev, const char *src)
{
    const gpa_cel_node_t *expr;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_cel_parse(&arena, src, strlen(src), "expr", &expr, &err) == 0, "%s: %s", src, err.message);
    device_ctx_t *d = gpa_arena_calloc(&arena, 1, sizeof(*d));
    *d = (device_ctx_t){dev, {dev->attrs, dev->nattrs, NULL}, {dev->caps, dev->ncaps, NULL}};
    gpa_cel_binding_t vars[] = {{"device", gpa_cel_lookup_map(device_field, d)}};
    uint64_t cost = 1000000;
    return gpa_cel_eval(&arena, expr, vars, 1, &cost);
}

static gpa_cel_value_t run(const char *src)
{
    return run_on(&a100, src);
}

static gpa_cel_outcome_t outcome(const char *src)
{
    gpa_cel_value_t v = run(src);
    return gpa_cel_outcome(&v, NULL);
}

#define ASSERT_OUTCOME(src, want) ck_assert_msg(outcome(src) == (want), "%s: outcome %d, want %d", (src), outcome(src), (want))

static void assert_error(const char *src, const char *fragment)
{
    gpa_cel_value_t v = run(src);
    ck_assert_msg(v.kind == GPA_CEL_ERROR, "%s: kind %d, want an error", src, v.kind);
    ck_assert_msg(strstr(v.u.str.ptr, fragment) != NULL, "%s: %s", src, v.u.str.ptr);
}

static void assert_syntax(const char *src, unsigned column)
{
    const gpa_cel_node_t *expr;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_msg(gpa_cel_parse(&arena, src, strlen(src), "spec.selectors[0].cel.expression", &expr, &err) == -1, "%s parsed", src);
    ck_assert_msg(err.column == column, "%s: column %u, want %u (%s)", src, err.column, column, err.message);
    ck_assert_str_eq(err.path, "spec.selectors[0].cel.expression");
}

/* ---- the grammar ---- */

START_TEST(parses_the_whole_grammar)
{
    static const char *const ok[] = {
        "a ? b : c ? d : e",
        "x.y.z(1, 2u, 3.5, -4, 0x1F, 1e3, .5)",
        "{'a': 1, 2: [3, 4,], true: null}",
        "m[?'k'].?f.orValue(1)",
        "[?x, y]",
        "google.protobuf.Int64Value{value: 1}",
        ".root.name",
        "r'\\d+' + b'\\x00' + '''multi\nline''' + \"\\u00e9\\U0001F600\\101\"",
        "list.all(x, x > 0) && list.exists(y, y == 1) && cel.bind(z, 1, z + 1)",
        "a in [1, 2] || !(b) || -(-c) > 0 // trailing comment",
        "1 < 2 < 3", /* the grammar allows it; the type checker would not */
        "has(device.attributes['d'].x)",
        "-9223372036854775808 == x && 18446744073709551615u == y",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        const gpa_cel_node_t *expr;
        gpa_error_t err = {0};
        gpa_error_init(&err, "test");
        ck_assert_msg(gpa_cel_parse(&arena, ok[i], strlen(ok[i]), "", &expr, &err) == 0, "%s: %s", ok[i], err.message);
    }
}
END_TEST

START_TEST(syntax_errors_say_where)
{
    assert_syntax("device.driver == ", 18);
    assert_syntax("device.attributes[\"memory\"] >= 80g", 34); /* kueue's pseudo-CEL: 80g is no literal */
    assert_syntax("50g < x", 3);
    assert_syntax("a && (b", 8);
    assert_syntax("'unterminated", 1);
    assert_syntax("var == 1", 1); /* reserved */
    assert_syntax("9223372036854775808", 1);
    assert_syntax("has(x)", 1);  /* has() takes a field selection */
    assert_syntax("'a\\qb'", 4); /* unknown escape */
    assert_syntax("a b", 3);
    assert_syntax("f(1,)", 5);
    assert_syntax("'line\nbreak'", 6);
    assert_syntax("#", 1);
}
END_TEST

START_TEST(depth_and_size_bounded)
{
    /* 100,000 opening parentheses, or as many '!', parse to an error, never a stack overflow */
    size_t n = 100000;
    char *deep = malloc(n + 2);
    memset(deep, '(', n);
    deep[n] = '1', deep[n + 1] = '\0';
    const gpa_cel_node_t *expr;
    gpa_error_t err = {0};
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_cel_parse(&arena, deep, n + 1, "", &expr, &err), -1);
    memset(deep, '!', n);
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_cel_parse(&arena, deep, n + 1, "", &expr, &err), -1);
    ck_assert_msg(strstr(err.message, "too large") != NULL || strstr(err.message, "deeply") != NULL ||
                      strstr(err.message, "longer") != NULL,
                  "%s", err.message);
    memset(deep, '-', 50);
    deep[50] = '1', deep[51] = '\0';
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_cel_parse(&arena, deep, 51, "", &expr, &err), 0); /* shallow nesting is fine */
    free(deep);
    /* a long flat expression is fine below the size cap, and its evaluation pays: a small budget ends in unknown */
    size_t terms = 2000;
    char *flat = malloc(terms * 8 + 1), *p = flat;
    for (size_t i = 0; i < terms; i++)
        p += sprintf(p, "%s1 == 1", i ? "&&" : "");
    gpa_error_init(&err, "test");
    ck_assert_int_eq(gpa_cel_parse(&arena, flat, strlen(flat), "", &expr, &err), 0);
    uint64_t cost = 100;
    gpa_cel_value_t v = gpa_cel_eval(&arena, expr, NULL, 0, &cost);
    ck_assert_int_eq(v.kind, GPA_CEL_UNKNOWN);
    ck_assert_uint_eq(cost, 0);
    cost = 1000000;
    v = gpa_cel_eval(&arena, expr, NULL, 0, &cost);
    ck_assert_int_eq(v.kind, GPA_CEL_BOOL);
    ck_assert(v.u.boolean);
    free(flat);
}
END_TEST

/* ---- cel-spec `simple` conformance: logic, comparisons, in, strings (the cases the subset covers) ---- */

START_TEST(conformance_logic)
{
    /* logic.textproto: and, or, not, with errors absorbed commutatively */
    ASSERT_OUTCOME("true && true", GPA_CEL_MATCH);
    ASSERT_OUTCOME("true && false", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("false && 1/0 == 0", GPA_CEL_NO_MATCH); /* short_circuit_error */
    ASSERT_OUTCOME("1/0 == 0 && false", GPA_CEL_NO_MATCH); /* error_left, commutative */
    ASSERT_OUTCOME("true || 1/0 == 0", GPA_CEL_MATCH);
    ASSERT_OUTCOME("1/0 == 0 || true", GPA_CEL_MATCH);
    ASSERT_OUTCOME("1/0 == 0 && true", GPA_CEL_FAILS);
    ASSERT_OUTCOME("!true", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("!!false", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("true ? false : 1/0 == 0", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("1 && true", GPA_CEL_FAILS); /* no_overload */
    /* an unknown beside an error: unknown (never a failure that might not be one) */
    ASSERT_OUTCOME("1.5 == x && 1/0 == 0", GPA_CEL_MAYBE);
    ASSERT_OUTCOME("false && 1.5 == 1.5", GPA_CEL_NO_MATCH);
}
END_TEST

START_TEST(conformance_comparisons)
{
    ASSERT_OUTCOME("1 == 1", GPA_CEL_MATCH);
    ASSERT_OUTCOME("-1 < 1", GPA_CEL_MATCH);
    ASSERT_OUTCOME("1u == 1", GPA_CEL_MATCH); /* cross-type numeric equality */
    ASSERT_OUTCOME("2u > 1", GPA_CEL_MATCH);
    ASSERT_OUTCOME("-1 < 0u", GPA_CEL_MATCH);
    ASSERT_OUTCOME("18446744073709551615u > 9223372036854775807", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'a' < 'b'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'abc' >= 'abc'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'' < 'a'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'\\u00e9' > 'z'", GPA_CEL_MATCH); /* code point order is UTF-8 byte order */
    ASSERT_OUTCOME("false < true", GPA_CEL_MATCH);
    ASSERT_OUTCOME("1 == '1'", GPA_CEL_NO_MATCH); /* heterogeneous equality: false, not an error */
    ASSERT_OUTCOME("1 != '1'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("null == null", GPA_CEL_MATCH);
    ASSERT_OUTCOME("[1, 2] == [1, 2]", GPA_CEL_MATCH);
    ASSERT_OUTCOME("[1, 2] == [2, 1]", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("{'a': 1} == {'a': 1}", GPA_CEL_MAYBE); /* maps: not modelled */
    assert_error("1 < '1'", "no matching overload for '_<_' applied to (int, string)");
    assert_error("true < 1", "no matching overload");
    ASSERT_OUTCOME("1.0 < 2.0", GPA_CEL_MAYBE); /* doubles: outside the subset */
}
END_TEST

START_TEST(conformance_in_and_strings)
{
    ASSERT_OUTCOME("1 in [1, 2, 3]", GPA_CEL_MATCH);
    ASSERT_OUTCOME("4 in [1, 2, 3]", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("1u in [1, 2]", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'a' in ['a']", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'a' in {'a': 1}", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'b' in {'a': 1}", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("1 in []", GPA_CEL_NO_MATCH);
    assert_error("1 in 1", "no matching overload for '@in'");
    ASSERT_OUTCOME("'foobar'.startsWith('foo')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'foobar'.endsWith('bar')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'foobar'.contains('oba')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'foobar'.contains('')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'FooBar'.lowerAscii() == 'foobar'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'\\u00c9t\\u00e9'.upperAscii() == '\\u00c9T\\u00e9'", GPA_CEL_MATCH); /* ASCII only */
    ASSERT_OUTCOME("size('\\u00e9t\\u00e9') == 3", GPA_CEL_MATCH);                        /* code points */
    ASSERT_OUTCOME("'ab' + 'cd' == 'abcd'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'hubba'.matches('ubb')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("matches('hubba', '^ubb')", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("'abc'.matches('^[a-c]+$')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("'a1'.matches('\\\\d')", GPA_CEL_MAYBE);    /* RE2 only */
    ASSERT_OUTCOME("'ab'.matches('(?i)AB')", GPA_CEL_MAYBE);   /* RE2 flags */
    ASSERT_OUTCOME("'aaa'.matches('a+?')", GPA_CEL_MAYBE);     /* lazy */
    ASSERT_OUTCOME("'a'.matches('a{1001}')", GPA_CEL_MAYBE);   /* counted */
    ASSERT_OUTCOME("'\\u00e9'.matches('^.$')", GPA_CEL_MAYBE); /* a code point to RE2, two bytes to POSIX */
    assert_error("1.startsWith('a')", "no matching overload for 'startsWith' applied to (int, string)");
    assert_error("[1][1]", "index out of range");
    assert_error("{'a': 1}['b']", "no such key: b");
    ASSERT_OUTCOME("[1, 2][1] == 2", GPA_CEL_MATCH);
    ASSERT_OUTCOME("x == 1", GPA_CEL_FAILS); /* undeclared */
    assert_error("9223372036854775807 + 1 == 0", "integer overflow");
    ASSERT_OUTCOME("7 / 2 == 3 && 7 % 2 == 1 && 2 * 3 - 1 == 5", GPA_CEL_MATCH);
    ASSERT_OUTCOME("{'a': 1, 'a': 2}['a'] == 1", GPA_CEL_FAILS); /* repeated key */
}
END_TEST

START_TEST(quantities_and_semvers)
{
    ASSERT_OUTCOME("quantity('1Gi') == quantity('1024Mi')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("quantity('1Gi').isGreaterThan(quantity('1G'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("quantity('1k').isLessThan(quantity('1Ki'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("quantity('2').compareTo(quantity('2')) == 0", GPA_CEL_MATCH);
    ASSERT_OUTCOME("quantity('5Gi').asInteger() == 5368709120", GPA_CEL_MATCH);
    ASSERT_OUTCOME("quantity('500m').isGreaterThan(quantity('0'))", GPA_CEL_MAYBE); /* fractional: not modelled */
    ASSERT_OUTCOME("isQuantity('1Gi') && !isQuantity('one')", GPA_CEL_MATCH);
    assert_error("quantity('1 Gi') == quantity('1Gi')", "quantities must match");
    assert_error("quantity('1Gi').isGreaterThan(semver('1.0.0'))", "no matching overload for 'isGreaterThan'");
    assert_error("quantity('1Gi') < quantity('2Gi')", "no matching overload for '_<_'");
    ASSERT_OUTCOME("semver('1.2.3').compareTo(semver('1.2.4')) < 0", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('1.0.0-2').isLessThan(semver('1.0.0-10'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('1.0.0+build.5') == semver('1.0.0+other')", GPA_CEL_MATCH);
    ASSERT_OUTCOME("semver('10.2.3').major() == 10 && semver('10.2.3').minor() == 2 && semver('10.2.3').patch() == 3",
                   GPA_CEL_MATCH);
    assert_error("semver('v1.2.3') == semver('1.2.3')", "invalid semver");
    assert_error("semver('1.02.3') == semver('1.2.3')", "invalid semver");
    assert_error("semver('1.2') == semver('1.2.0')", "invalid semver");
    ASSERT_OUTCOME("isSemver('1.2.3-rc.1+b') && !isSemver('1.2.3-01')", GPA_CEL_MATCH);
}
END_TEST

/* ---- the selectors real users write (docs/cel.md lists them with their sources) ---- */

START_TEST(real_selectors)
{
    ASSERT_OUTCOME("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'", GPA_CEL_MATCH);
    ASSERT_OUTCOME("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"40Gi\"))", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('4Gi')) >= 0", GPA_CEL_MATCH);
    ASSERT_OUTCOME("device.attributes['gpu.nvidia.com'].architecture == 'Hopper' && "
                   "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"80Gi\"))",
                   GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"10\")) && "
                   "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"10Gi\"))",
                   GPA_CEL_MATCH);
    ASSERT_OUTCOME("device.attributes[\"gpu.nvidia.com\"].driverVersion.compareTo(semver(\"550.0.0\")) >= 0", GPA_CEL_MATCH);
    ASSERT_OUTCOME("device.attributes['gpu.nvidia.com'].type in ['gpu', 'mig']", GPA_CEL_MATCH);
    ASSERT_OUTCOME("!(device.attributes['gpu.nvidia.com'].productName in ['NVIDIA H100'])", GPA_CEL_MATCH);
    ASSERT_OUTCOME("device.allowMultipleAllocations == true", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("has(device.attributes['gpu.nvidia.com'].index)", GPA_CEL_NO_MATCH);
    ASSERT_OUTCOME("has(device.attributes['gpu.nvidia.com'].type) && device.attributes['gpu.nvidia.com'].type == 'gpu'",
                   GPA_CEL_MATCH);
    /* NVIDIA's gpu-test6: `index` is no longer published, so on an A100 the run-time error is the outcome */
    static const char gpu_test6[] =
        "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$') && "
        "(device.attributes['gpu.nvidia.com'].index == 0 || device.attributes['gpu.nvidia.com'].index == 2)";
    assert_error(gpu_test6, "no such key: index");
    /* ... and on an H100 the left side is false and absorbs the error */
    static const attr_t h100_attrs[] = {
        {"gpu.nvidia.com", "productName", {.kind = GPA_CEL_STRING, .u.str = {"NVIDIA H100 80GB HBM3", 21}}},
    };
    static const device_t h100 = {"gpu.nvidia.com", h100_attrs, NULL, 1, 0};
    gpa_cel_value_t v = run_on(&h100, gpu_test6);
    ck_assert_int_eq(gpa_cel_outcome(&v, NULL), GPA_CEL_NO_MATCH);
    /* a domain no attribute uses; a string method on a semver; a version compared with a string */
    assert_error("device.attributes['dra.example.com'].model == 'x'", "no such key: dra.example.com");
    assert_error("device.attributes['gpu.nvidia.com'].driverVersion.startsWith('550')", "no matching overload");
    ASSERT_OUTCOME("device.attributes['gpu.nvidia.com'].driverVersion == '550.54.15'", GPA_CEL_NO_MATCH);
    assert_error("device.attributes['gpu.nvidia.com'].driverVersion > '550'", "no matching overload for '_>_'");
    /* what the subset does not evaluate counts as may-match */
    ASSERT_OUTCOME("device.attributes['gpu.nvidia.com'].productName.split(' ')[0] == 'NVIDIA'", GPA_CEL_MAYBE);
    ASSERT_OUTCOME("cel.bind(a, device.attributes['gpu.nvidia.com'], a.type == 'gpu')", GPA_CEL_MAYBE);
    const char *why;
    v = run("device.driver");
    ck_assert_int_eq(gpa_cel_outcome(&v, &why), GPA_CEL_FAILS); /* a string is no selector */
    ck_assert_ptr_nonnull(why);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cel");
    TCase *tc = tcase_create("cel");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, parses_the_whole_grammar);
    tcase_add_test(tc, syntax_errors_say_where);
    tcase_add_test(tc, depth_and_size_bounded);
    tcase_add_test(tc, conformance_logic);
    tcase_add_test(tc, conformance_comparisons);
    tcase_add_test(tc, conformance_in_and_strings);
    tcase_add_test(tc, quantities_and_semvers);
    tcase_add_test(tc, real_selectors);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
