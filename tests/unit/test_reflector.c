/*
 * cluster/reflector against the fake API server: paged lists, watch events in order, 410 Gone as a status and
 * as an ERROR event, expired continue tokens, streams cut mid-event, 5xx, 401 until the token file changes, an
 * absent CRD, slow answers, a prompt stop; and the property that after any random sequence of events and faults
 * the view equals a fresh list.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeapi.h"
#include "reflector.h"
#include "run.h"

#define MAX_OBJECTS 256

/* "namespace/name" at resourceVersion. */
typedef struct st_entry_t {
    char key[128];
    char rv[32];
} entry_t;

/* What a consumer keeps: the live view, and the list being gathered (replacing the view at end_list). */
typedef struct st_view_t {
    pthread_mutex_t lock;
    entry_t live[MAX_OBJECTS], next[MAX_OBJECTS];
    size_t nlive, nnext;
    int listing;
    int lists, begun, broken, events;
    char last_broken[1024];
    int last_not_served; /* the last break was a 404 */
} view_t;

static fakeapi_t fake;

static void setup(void)
{
    fakeapi_start(&fake, (const char *const[]){"-bookmark-ms", "100", NULL});
}

static void setup_quiet(void)
{
    fakeapi_start(&fake, (const char *const[]){"-bookmark-ms", "600000", NULL});
}

static void setup_no_crd(void)
{
    fakeapi_start(&fake, (const char *const[]){"-no-crd", NULL});
}

static void teardown(void)
{
    fakeapi_stop(&fake);
}

static void view_init(view_t *v)
{
    memset(v, 0, sizeof(*v));
    pthread_mutex_init(&v->lock, NULL);
}

static size_t find(const entry_t *set, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i].key, key) == 0)
            return i;
    return n;
}

static void on_begin(void *ctx)
{
    view_t *v = ctx;
    pthread_mutex_lock(&v->lock);
    v->listing = 1;
    v->nnext = 0;
    v->begun++;
    pthread_mutex_unlock(&v->lock);
}

static void on_apply(void *ctx, gpa_watch_event_t event, const gpa_value_t *object)
{
    view_t *v = ctx;
    const gpa_value_t *meta = gpa_value_get(object, "metadata");
    const char *ns = gpa_value_string(gpa_value_get(meta, "namespace"));
    const char *name = gpa_value_string(gpa_value_get(meta, "name"));
    const char *rv = gpa_value_string(gpa_value_get(meta, "resourceVersion"));
    ck_assert_ptr_nonnull(name);
    ck_assert_ptr_nonnull(rv);
    entry_t e;
    snprintf(e.key, sizeof(e.key), "%s/%s", ns != NULL ? ns : "", name);
    snprintf(e.rv, sizeof(e.rv), "%s", rv);
    pthread_mutex_lock(&v->lock);
    entry_t *set = v->listing ? v->next : v->live;
    size_t *n = v->listing ? &v->nnext : &v->nlive;
    size_t at = find(set, *n, e.key);
    if (event == GPA_WATCH_DELETED) {
        ck_assert_msg(at < *n, "DELETED %s, which the view does not hold", e.key);
        set[at] = set[--*n];
    } else {
        ck_assert_msg(event == GPA_WATCH_MODIFIED || v->listing || at == *n, "ADDED %s twice", e.key);
        ck_assert_uint_lt(at, MAX_OBJECTS);
        set[at] = e;
        if (at == *n)
            ++*n;
    }
    v->events++;
    pthread_mutex_unlock(&v->lock);
}

static void on_end(void *ctx)
{
    view_t *v = ctx;
    pthread_mutex_lock(&v->lock);
    memcpy(v->live, v->next, sizeof(v->live));
    v->nlive = v->nnext;
    v->listing = 0;
    v->lists++;
    pthread_mutex_unlock(&v->lock);
}

static void on_broken(void *ctx, int not_served, const char *why)
{
    view_t *v = ctx;
    pthread_mutex_lock(&v->lock);
    v->broken++;
    v->last_not_served = not_served;
    snprintf(v->last_broken, sizeof(v->last_broken), "%s", why);
    pthread_mutex_unlock(&v->lock);
}

static gpa_reflector_sink_t sink_of(view_t *v)
{
    return (gpa_reflector_sink_t){on_begin, on_apply, on_end, on_broken, v};
}

static gpa_reflector_t *start(view_t *v, const char *path, const char *token, unsigned page_limit)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, token);
    gpa_reflector_options_t opts = {.backoff_min_ms = 20, .backoff_max_ms = 200, .page_limit = page_limit, .watch_timeout_s = 2};
    gpa_reflector_sink_t sink = sink_of(v);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_reflector_t *r = gpa_reflector_start_with(&t, path, &sink, &opts, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    gpa_kube_target_dispose(&t);
    return r;
}

/* The view a fresh list gives: 0, or -1 when the list failed (a fault the test injected). */
static int try_fresh_list(view_t *fresh, const char *path)
{
    view_init(fresh);
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_reflector_sink_t sink = sink_of(fresh);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    int rc = gpa_kube_list(&t, path, &sink, &err);
    gpa_kube_target_dispose(&t);
    return rc;
}

static void fresh_list(view_t *fresh, const char *path)
{
    ck_assert_int_eq(try_fresh_list(fresh, path), 0);
}

static int same_view(view_t *v, const view_t *fresh)
{
    pthread_mutex_lock(&v->lock);
    int same = v->lists > 0 && v->nlive == fresh->nlive;
    for (size_t i = 0; same && i < v->nlive; i++) {
        size_t at = find(fresh->live, fresh->nlive, v->live[i].key);
        same = at < fresh->nlive && strcmp(fresh->live[at].rv, v->live[i].rv) == 0;
    }
    pthread_mutex_unlock(&v->lock);
    return same;
}

/* Waits (20 s at most, so a broken reflector fails rather than hangs) until the view equals a fresh list. */
static void assert_converges(view_t *v, const char *path)
{
    view_t fresh;
    for (int i = 0; i < 1000; i++) {
        if (try_fresh_list(&fresh, path) == 0 && same_view(v, &fresh))
            return;
        fakeapi_sleep_ms(20);
    }
    ck_abort_msg("the view (%zu objects, %d lists) never equalled a fresh list (%zu objects); last broken: %s", v->nlive, v->lists,
                 fresh.nlive, v->last_broken);
}

static int count_of(view_t *v, const int *field)
{
    pthread_mutex_lock(&v->lock);
    int n = *field;
    pthread_mutex_unlock(&v->lock);
    return n;
}

static void wait_for(view_t *v, const int *field, int at_least)
{
    for (int i = 0; i < 1000 && count_of(v, field) < at_least; i++)
        fakeapi_sleep_ms(20);
    ck_assert_int_ge(count_of(v, field), at_least);
}

static void add_node(const char *name, const char *label)
{
    char op[512];
    snprintf(op, sizeof(op),
             "{\"resource\": \"nodes\", \"object\": {\"metadata\": {\"name\": \"%s\", \"labels\": {\"v\": \"%s\"}}}}", name, label);
    fakeapi_control(&fake, "apply", op);
}

static void delete_node(const char *name)
{
    char op[256];
    snprintf(op, sizeof(op), "{\"resource\": \"nodes\", \"type\": \"DELETED\", \"object\": {\"metadata\": {\"name\": \"%s\"}}}",
             name);
    fakeapi_control(&fake, "apply", op);
}

static void add_nodes(int n)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "node-%02d", i);
        add_node(name, "a");
    }
}

START_TEST(paged_list_then_events_in_order)
{
    add_nodes(7);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 3);
    wait_for(&v, &v.lists, 1);
    ck_assert_uint_eq(v.nlive, 7);
    ck_assert_int_ge(fakeapi_count(&fake, "list"), 3); /* 3 + 3 + 1 */
    add_node("node-07", "a");
    add_node("node-00", "b");
    delete_node("node-03");
    assert_converges(&v, "/api/v1/nodes");
    ck_assert_int_eq(v.lists, 1); /* events, no relist */
    ck_assert_uint_eq(v.nlive, 7);
    gpa_reflector_stop(r);
}
END_TEST

/* The reflector's resourceVersion falls behind the compacted history: every other change goes to pods. */
static void compact_behind(view_t *v)
{
    wait_for(v, &v->lists, 1);
    add_node("node-new", "a");
    assert_converges(v, "/api/v1/nodes");
    fakeapi_control(&fake, "apply",
                    "{\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"p\", \"namespace\": \"d\"}}}");
    fakeapi_control(&fake, "fault", "{\"compact\": true}"); /* forgets the history and drops the watch */
    delete_node("node-01");
}

START_TEST(gone_as_status_relists)
{
    add_nodes(3);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 2);
    compact_behind(&v);
    wait_for(&v, &v.lists, 2);
    assert_converges(&v, "/api/v1/nodes");
    ck_assert_int_ge(fakeapi_count(&fake, "gone"), 1);
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(gone_as_error_event_relists)
{
    fakeapi_control(&fake, "fault", "{\"gone\": \"event\"}");
    add_nodes(3);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 2);
    compact_behind(&v);
    wait_for(&v, &v.lists, 2);
    assert_converges(&v, "/api/v1/nodes");
    ck_assert_int_ge(fakeapi_count(&fake, "gone"), 1);
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(namespaced_collection_with_a_query)
{
    fakeapi_control(&fake, "apply",
                    "[{\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"p1\", \"namespace\": \"a\"}}},"
                    " {\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"p2\", \"namespace\": \"b\"}}}]");
    const char *path = "/api/v1/namespaces/a/pods?fieldSelector=spec.nodeName%21%3D";
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, path, "test-token", 1);
    wait_for(&v, &v.lists, 1);
    fakeapi_control(&fake, "apply",
                    "[{\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"p3\", \"namespace\": \"a\"}}},"
                    " {\"resource\": \"pods\", \"object\": {\"metadata\": {\"name\": \"p4\", \"namespace\": \"b\"}}}]");
    assert_converges(&v, path);
    ck_assert_uint_eq(v.nlive, 2);
    ck_assert_uint_lt(find(v.live, v.nlive, "a/p3"), v.nlive);
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(cut_mid_event_resumes)
{
    add_nodes(2);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 0);
    wait_for(&v, &v.lists, 1);
    fakeapi_control(&fake, "fault", "{\"cutMidEvent\": 2}");
    add_node("node-00", "b");
    add_node("node-05", "a");
    assert_converges(&v, "/api/v1/nodes");
    ck_assert_int_eq(fakeapi_count(&fake, "cutMidEvent"), 2);
    ck_assert_int_ge(count_of(&v, &v.broken), 1);
    ck_assert_int_eq(v.lists, 1); /* resumed from the last resourceVersion, not relisted */
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(server_errors_back_off_and_recover)
{
    add_nodes(2);
    fakeapi_control(&fake, "fault", "{\"fail\": 3, \"retryAfter\": 1}");
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 0);
    wait_for(&v, &v.lists, 1);
    ck_assert_int_ge(count_of(&v, &v.broken), 3);
    ck_assert_ptr_nonnull(strstr(v.last_broken, "HTTP 503: injected failure (retry after 1 s)"));
    ck_assert_int_eq(v.last_not_served, 0);
    fakeapi_control(&fake, "fault", "{\"fail\": 2, \"cut\": true}");
    add_node("node-09", "a");
    assert_converges(&v, "/api/v1/nodes");
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(unauthorized_until_the_token_file_changes)
{
    add_nodes(2);
    const char *file = fakeapi_file(&fake, "token");
    fakeapi_write(file, "old-token\n");
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "old-token");
    t.token_file = strdup(file);
    view_t v;
    view_init(&v);
    gpa_reflector_options_t opts = {.backoff_min_ms = 20, .backoff_max_ms = 100};
    gpa_reflector_sink_t sink = sink_of(&v);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_reflector_t *r = gpa_reflector_start_with(&t, "/api/v1/nodes", &sink, &opts, &err);
    gpa_kube_target_dispose(&t);
    wait_for(&v, &v.broken, 2);
    ck_assert_int_eq(count_of(&v, &v.lists), 0);
    pthread_mutex_lock(&v.lock);
    ck_assert_msg(strstr(v.last_broken, "401") != NULL, "%s", v.last_broken);
    pthread_mutex_unlock(&v.lock);
    fakeapi_write(file, "test-token\n");
    assert_converges(&v, "/api/v1/nodes");
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(absent_crd_is_an_empty_view_until_installed)
{
    const char *devices = "/apis/scheduling.koordinator.sh/v1alpha1/devices";
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, devices, "test-token", 0);
    wait_for(&v, &v.lists, 1);
    wait_for(&v, &v.broken, 1);
    pthread_mutex_lock(&v.lock);
    ck_assert_uint_eq(v.nlive, 0);
    ck_assert_msg(strstr(v.last_broken, "not served") != NULL, "%s", v.last_broken);
    ck_assert_int_eq(v.last_not_served, 1);
    pthread_mutex_unlock(&v.lock);
    view_t once;
    fresh_list(&once, devices); /* gpa_kube_list: 404 is an empty list */
    ck_assert_int_eq(once.lists, 1);
    ck_assert_uint_eq(once.nlive, 0);
    fakeapi_control(&fake, "fault", "{\"crd\": true}");
    fakeapi_control(&fake, "apply", "{\"resource\": \"devices\", \"object\": {\"metadata\": {\"name\": \"node-0\"}}}");
    assert_converges(&v, devices);
    ck_assert_uint_eq(v.nlive, 1);
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(expired_continue_starts_the_list_over)
{
    add_nodes(6);
    fakeapi_control(&fake, "fault", "{\"slowMs\": 100}");
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 1);
    /* Expire continue tokens until one list was caught part-way (each list takes 6 slow pages). */
    for (int i = 0; i < 200 && fakeapi_count(&fake, "expired") == 0; i++) {
        fakeapi_sleep_ms(50);
        fakeapi_control(&fake, "fault", "{\"slowMs\": 100, \"expireContinue\": true}");
    }
    ck_assert_int_ge(fakeapi_count(&fake, "expired"), 1);
    fakeapi_control(&fake, "fault", "{\"slowMs\": 0}");
    assert_converges(&v, "/api/v1/nodes");
    ck_assert_int_ge(v.begun, 2); /* the abandoned list and the one that completed */
    gpa_reflector_stop(r);
}
END_TEST

START_TEST(stop_interrupts_a_quiet_watch)
{
    add_nodes(1);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 0);
    wait_for(&v, &v.lists, 1);
    long watches = fakeapi_count(&fake, "watch");
    for (int i = 0; i < 100 && watches == 0; i++, fakeapi_sleep_ms(10))
        watches = fakeapi_count(&fake, "watch");
    ck_assert_int_ge(watches, 1);
    gpa_reflector_stop(r); /* returns although the server sends nothing (the test's timeout catches a hang) */
}
END_TEST

START_TEST(random_events_and_faults_equal_a_fresh_list)
{
    unsigned seed = (unsigned)time(NULL);
    const char *env = getenv("GPA_TEST_SEED");
    if (env != NULL)
        seed = (unsigned)strtoul(env, NULL, 10);
    printf("random_events_and_faults: GPA_TEST_SEED=%u\n", seed);
    srand(seed);
    view_t v;
    view_init(&v);
    gpa_reflector_t *r = start(&v, "/api/v1/nodes", "test-token", 4);
    for (int step = 0; step < 150; step++) {
        char name[32];
        snprintf(name, sizeof(name), "node-%02d", rand() % 20);
        int dice = rand() % 100;
        if (dice < 45) {
            char label[16];
            snprintf(label, sizeof(label), "l%d", rand() % 1000);
            add_node(name, label);
        } else if (dice < 65) {
            delete_node(name);
        } else if (dice < 72) {
            fakeapi_control(&fake, "fault", "{\"cut\": true}");
        } else if (dice < 78) {
            fakeapi_control(&fake, "fault", "{\"cutMidEvent\": 1}");
        } else if (dice < 84) {
            fakeapi_control(&fake, "fault", "{\"fail\": 2}");
        } else if (dice < 90) {
            fakeapi_control(&fake, "fault", rand() % 2 ? "{\"compact\": true}" : "{\"compact\": true, \"gone\": \"event\"}");
        } else if (dice < 94) {
            fakeapi_control(&fake, "fault", "{\"expireContinue\": true}");
        } else {
            fakeapi_sleep_ms(rand() % 50);
        }
        if (rand() % 4 == 0)
            fakeapi_sleep_ms(rand() % 10);
    }
    fakeapi_control(&fake, "fault", "{\"fail\": 0, \"cutMidEvent\": 0}");
    assert_converges(&v, "/api/v1/nodes");
    printf("random_events_and_faults: %d lists, %d events, %d breaks, %zu objects\n", v.lists, v.events, v.broken, v.nlive);
    gpa_reflector_stop(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reflector");
    TCase *tc = tcase_create("fake");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, paged_list_then_events_in_order);
    tcase_add_test(tc, namespaced_collection_with_a_query);
    tcase_add_test(tc, cut_mid_event_resumes);
    tcase_add_test(tc, server_errors_back_off_and_recover);
    tcase_add_test(tc, unauthorized_until_the_token_file_changes);
    tcase_add_test(tc, expired_continue_starts_the_list_over);
    tcase_add_test(tc, random_events_and_faults_equal_a_fresh_list);
    suite_add_tcase(s, tc);
    /* Without bookmarks the reflector's resourceVersion stays behind the other kinds' changes. */
    TCase *quiet = tcase_create("quiet");
    tcase_set_timeout(quiet, 120);
    tcase_add_checked_fixture(quiet, setup_quiet, teardown);
    tcase_add_test(quiet, gone_as_status_relists);
    tcase_add_test(quiet, gone_as_error_event_relists);
    tcase_add_test(quiet, stop_interrupts_a_quiet_watch);
    suite_add_tcase(s, quiet);
    TCase *crd = tcase_create("no_crd");
    tcase_set_timeout(crd, 120);
    tcase_add_checked_fixture(crd, setup_no_crd, teardown);
    tcase_add_test(crd, absent_crd_is_an_empty_view_until_installed);
    suite_add_tcase(s, crd);
    return s;
}

int main(void)
{
    if (!fakeapi_available()) {
        printf("skipped: $GPA_FAKEAPI is not set (the fake API server needs Go: tests/cluster.cmake)\n");
        return 77;
    }
    return gpa_test_run(suite());
}
