/* Check tests for the memory bounds' measure: the arena's exact byte accounting (held now, peak since init),
 * through small and large blocks, grown vectors, clear and dispose. The per-review ceilings are asserted on
 * these counters (bytes, never time); cases for further surfaces go here. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "admission/review.h"
#include "inventory/inventory.h"
#include "alloc/placement.h"
#include "base/arena.h"
#include "document/json.h"
#include "kube/decode.h"
#include "policy/engine.h"
#include "adversary.h"
#include "fixture.h"
#include "run.h"

START_TEST(empty_arena_holds_nothing)
{
    gpa_arena_t a = {0};
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 0);
    gpa_arena_clear(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
}
END_TEST

START_TEST(small_blocks_share_one_chunk)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 1);
    size_t chunk = gpa_arena_held(&a);
    ck_assert_uint_gt(chunk, 1000);
    for (int i = 0; i < 50; i++)
        gpa_arena_alloc(&a, 16);
    ck_assert_uint_eq(gpa_arena_held(&a), chunk);
    ck_assert_uint_eq(gpa_arena_peak(&a), chunk);
    gpa_arena_dispose(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 0);
}
END_TEST

START_TEST(large_block_counted_exactly)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 1);
    size_t chunk = gpa_arena_held(&a);
    gpa_arena_alloc(&a, 1000000);
    ck_assert_uint_eq(gpa_arena_held(&a), chunk + 1000000);
    gpa_arena_alloc(&a, 1000001); /* rounded to the alignment, 16 */
    ck_assert_uint_eq(gpa_arena_held(&a), chunk + 1000000 + 1000016);
    gpa_arena_clear(&a); /* keeps at most one standard chunk, never a large block */
    ck_assert_uint_le(gpa_arena_held(&a), chunk);
    ck_assert_uint_eq(gpa_arena_peak(&a), chunk + 1000000 + 1000016);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(grown_vector_held_once)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    GPA_VEC(int) v = {0};
    for (int i = 0; i < 1 << 20; i++)
        *gpa_vec_push(&a, &v) = i;
    ck_assert_int_eq(v.items[12345], 12345);
    /* The last doubling reallocates its own block: held is that block plus what the small sizes left behind,
     * far below the sum of every size the vector went through. */
    size_t final = v.cap * sizeof(int);
    ck_assert_uint_ge(gpa_arena_held(&a), final);
    ck_assert_uint_lt(gpa_arena_held(&a), final + final / 8);
    ck_assert_uint_ge(gpa_arena_peak(&a), gpa_arena_held(&a));
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(clear_of_a_lone_large_block_holds_nothing)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_arena_alloc(&a, 100000);
    ck_assert_uint_eq(gpa_arena_held(&a), 100000);
    gpa_arena_clear(&a);
    ck_assert_uint_eq(gpa_arena_held(&a), 0);
    ck_assert_uint_eq(gpa_arena_peak(&a), 100000);
    char *s = gpa_arena_strdup(&a, "reused");
    ck_assert_str_eq(s, "reused");
    gpa_arena_dispose(&a);
}
END_TEST

/*
 * The guard for the next surface: generated attacks (adversary.h) through the webhook's entry and the engine.
 * Each case asserts, in bytes the arena counts and steps the budget counts (never time):
 * - the review's arena peaks at most GUARD_SLACK past what the decoded object alone costs (`decoded`), plus
 *   GPA_CHECK_MEMORY_BYTES, plus decoded / 4: what each template still costs once the allowance is spent (its
 *   normalized request and its "could not prove" warning: proportional to the object, not to the nodes).
 *   GUARD_SLACK: the envelope, the answer's text, and the one template's allocation that crosses the allowance
 *   before the budget notices;
 * - gpa_check with a small allowance spends its budget by memory once past it, and denies nothing more;
 * - the steps spent never pass the budget, and the answer is allowed, or denied with a reason;
 * - a search cut short (a budget of one step) never denies what the full budget admits.
 * A new surface adds a generator to adversary.h and a line to guarded_attacks.
 */
#define GUARD_SLACK ((size_t)1 << 20)
#define GUARD_STEPS GPA_ALLOC_BUDGET_STEPS
#define GUARD_SMALL_MEMORY ((size_t)256 << 10)

/* What parsing the body and decoding request.object alone holds: the part of a review's peak that is the object. */
static size_t decoded_cost(const gpa_buf_t *body)
{
    gpa_arena_t d;
    gpa_arena_init(&d);
    gpa_error_t err = {0};
    gpa_error_init(&err, "guard");
    gpa_value_t *doc, *o;
    gpa_object_t *obj;
    ck_assert_msg(gpa_json_parse(&d, body->base, body->len, &doc, &err) == 0, "%s", err.message);
    o = gpa_value_get(gpa_value_get(doc, "request"), "object");
    ck_assert_ptr_nonnull(o);
    (void)gpa_decode_object(&d, o, &obj, &err); /* a bad shape is the review's to answer (400) */
    size_t peak = gpa_arena_peak(&d);
    gpa_arena_dispose(&d);
    return peak;
}

/* One review of `body` on `inv` with a budget of `steps`; its arena's peak in *peak; returns whether it admitted. */
static int guarded_review(const char *name, const gpa_buf_t *body, const gpa_inventory_t *inv, uint64_t steps, size_t *peak)
{
    gpa_arena_t r;
    gpa_arena_init(&r);
    gpa_alloc_budget_t b = gpa_alloc_budget(steps);
    gpa_review_t out;
    gpa_review_with(&r, cfg, inv, &b, NULL, GPA_WEBHOOK_VALIDATE, body->base, body->len, &out);
    ck_assert_msg(out.http_status == 200, "%s: HTTP %d", name, out.http_status);
    ck_assert_msg(steps - b.steps <= steps, "%s: %llu steps of %llu", name, (unsigned long long)(steps - b.steps),
                  (unsigned long long)steps);
    if (!out.allowed) /* denied: with a reason the answer spells out */
        ck_assert_msg(strstr(out.body, "\"message\":\"") != NULL, "%s: a denial without a message: %.200s", name, out.body);
    *peak = gpa_arena_peak(&r);
    int allowed = out.allowed;
    gpa_arena_dispose(&r);
    return allowed;
}

/* The engine alone on the decoded object, with an allowance of GUARD_SMALL_MEMORY: once past it the budget is spent
 * by memory, and the answer is allowed or denied with a violation, never a denial the full allowance would not
 * make (`allowed`: the review's answer). What a check allocates outside the steps (each template's candidates,
 * sized by node shapes) is not stopped by the allowance: its bytes are held by the review's ceiling above. */
static void guarded_check(const char *name, const gpa_buf_t *body, int allowed, const gpa_inventory_t *inv)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, "guard");
    gpa_value_t *doc;
    ck_assert(gpa_json_parse(&arena, body->base, body->len, &doc, &err) == 0);
    gpa_object_t *obj;
    if (gpa_decode_object(&arena, gpa_value_get(gpa_value_get(doc, "request"), "object"), &obj, &err) != 0)
        return; /* unreadable: the review answered 400, asserted above */
    gpa_arena_t c;
    gpa_arena_init(&c);
    gpa_alloc_budget_t b = gpa_alloc_budget(GUARD_STEPS);
    gpa_check_opts_t opts = {
        .operation = GPA_OP_CREATE, .validate = 1, .inventory = inv, .budget = &b, .memory_bytes = GUARD_SMALL_MEMORY};
    gpa_verdict_t v;
    ck_assert_msg(gpa_check(&c, cfg, obj, &opts, &v, &err) == 0, "%s: %s", name, err.message);
    if (gpa_arena_peak(&c) > GUARD_SMALL_MEMORY + GUARD_SLACK)
        ck_assert_msg(b.over_memory, "%s: %zu bytes held and the budget not spent by memory", name, gpa_arena_peak(&c));
    ck_assert_msg(v.allowed || !allowed, "%s: a check cut by memory denied what the review admits", name);
    ck_assert_msg(v.allowed || v.violations.len > 0, "%s: denied without a violation", name);
    gpa_arena_dispose(&c);
}

/* Every ceiling on one generated attack. */
static void guard(const char *name, const gpa_buf_t *body, const gpa_inventory_t *inv)
{
    size_t decoded = decoded_cost(body), peak, cut_peak;
    int allowed = guarded_review(name, body, inv, GUARD_STEPS, &peak);
    ck_assert_msg(peak <= decoded + decoded / 4 + GPA_CHECK_MEMORY_BYTES + GUARD_SLACK,
                  "%s: the review held %zu bytes, the object %zu", name, peak, decoded);
    int cut_allowed = guarded_review(name, body, inv, 1, &cut_peak);
    ck_assert_msg(cut_allowed || !allowed, "%s: a search cut short denied what the full budget admits", name);
    guarded_check(name, body, allowed, inv);
}

static gpa_inventory_t *generated_nodes(gpa_adv_t *g, size_t nodes, size_t hami_every, size_t cards, uint64_t slots)
{
    gpa_buf_t text = GPA_BUF_INIT;
    gpa_adv_nodes(g, &text, nodes, hami_every, cards, slots);
    gpa_inventory_t *inv = gpa_inventory_new();
    gpa_error_t err = {0};
    gpa_error_init(&err, "guard");
    ck_assert_msg(gpa_inventory_parse(inv, text.base, text.len, "nodes", &err) == 0, "%s", err.message);
    gpa_buf_dispose(&text);
    return inv;
}

/* The attacks, scaled to run in a few seconds but shaped like the full ones (issue 25). Every node registers HAMi
 * cards of its own memory size, so every node is a shape of its own: a RayCluster of 2,000 groups pinned by
 * hostname on them held 64 MB of candidate arrays (2,000 x 2,000) before a spent budget stopped allocating them. */
START_TEST(guarded_attacks)
{
    gpa_adv_t g = {.state = 25};
    gpa_inventory_t *inv = generated_nodes(&g, 2000, 1, 8, 1ull << 31);
    gpa_buf_t body = GPA_BUF_INIT;
    gpa_adv_volcano_job(&g, &body, 400, 8);
    guard("a Volcano Job of 400 tasks pinned by hostname", &body, inv);
    gpa_buf_reset(&body);
    gpa_adv_ray_cluster(&g, &body, 2000, "2");
    guard("a RayCluster of 2,000 groups pinned by hostname", &body, inv);
    gpa_buf_reset(&body);
    gpa_adv_hami_pod(&g, &body, 250 << 10, 8, 64);
    guard("a 250 KB use-gpuuuid list, deep nesting", &body, inv);
    gpa_buf_reset(&body);
    gpa_adv_huge_pod(&body, 200);
    guard("200 containers of 2^31 GPUs and 2^40 gpu.shared", &body, inv);
    gpa_buf_reset(&body);
    gpa_adv_hami_pod(&g, &body, 64, 300, 0);
    guard("300 HAMi containers on 2^31-slot cards", &body, inv);
    gpa_buf_dispose(&body);
    gpa_inventory_release(inv);
}
END_TEST

/* The generator is a function of its seed: the same seed, the same bytes; another seed, other bytes. */
START_TEST(generator_is_seeded)
{
    gpa_adv_t x = {.state = 7}, y = {.state = 7}, z = {.state = 8};
    gpa_buf_t a = GPA_BUF_INIT, b = GPA_BUF_INIT, c = GPA_BUF_INIT;
    gpa_adv_volcano_job(&x, &a, 20, 3);
    gpa_adv_volcano_job(&y, &b, 20, 3);
    gpa_adv_volcano_job(&z, &c, 20, 3);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(memcmp(a.base, b.base, a.len) == 0);
    ck_assert(a.len != c.len || memcmp(a.base, c.base, a.len) != 0);
    gpa_buf_dispose(&a);
    gpa_buf_dispose(&b);
    gpa_buf_dispose(&c);
}
END_TEST

static Suite *bounds_suite(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("arena accounting");
    tcase_add_test(tc, empty_arena_holds_nothing);
    tcase_add_test(tc, small_blocks_share_one_chunk);
    tcase_add_test(tc, large_block_counted_exactly);
    tcase_add_test(tc, grown_vector_held_once);
    tcase_add_test(tc, clear_of_a_lone_large_block_holds_nothing);
    suite_add_tcase(s, tc);
    TCase *guard_tc = tcase_create("guard");
    tcase_add_checked_fixture(guard_tc, setup, teardown);
    tcase_set_timeout(guard_tc, 60);
    tcase_add_test(guard_tc, generator_is_seeded);
    tcase_add_test(guard_tc, guarded_attacks);
    suite_add_tcase(s, guard_tc);
    return s;
}

int main(void)
{
    return gpa_test_run(bounds_suite());
}
