/*
 * The webhook registration's decisions (cluster/register.h), without an API server: which files are read, when an
 * endpoint counts as ready, where each webhook's caBundle comes from, what tells an unchanged configuration.
 * test_certsync.py (chart_certsync) runs the whole registration against a fake API server.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cluster/register.c"
#include "run.h"

static gpa_value_t *parse(gpa_arena_t *a, const char *json)
{
    gpa_value_t *v = NULL;
    ck_assert_int_eq(gpa_json_parse(a, json, strlen(json), &v, NULL), 0);
    return v;
}

static const char *bundle_of(const gpa_value_t *config, size_t i)
{
    return gpa_value_string(
        gpa_value_get(gpa_value_get(gpa_value_at(gpa_value_get(config, "webhooks"), i), "clientConfig"), "caBundle"));
}

START_TEST(files_read)
{
    ck_assert(wanted_file("validating.json"));
    ck_assert(wanted_file("mutating.yaml"));
    ck_assert(wanted_file("x.yml"));
    ck_assert(!wanted_file("..data")); /* a ConfigMap volume's bookkeeping */
    ck_assert(!wanted_file(".hidden.json"));
    ck_assert(!wanted_file("README"));
    ck_assert(!wanted_file(".json"));
}
END_TEST

START_TEST(ready_endpoints)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    ck_assert(endpoint_ready(parse(&a, "{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":true}}")));
    ck_assert(endpoint_ready(parse(&a, "{\"addresses\":[\"10.0.0.1\"]}"))); /* no condition: ready, as the API says */
    ck_assert(!endpoint_ready(parse(&a, "{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":false}}")));
    ck_assert(!endpoint_ready(parse(&a, "{\"addresses\":[],\"conditions\":{\"ready\":true}}")));
    ck_assert(!endpoint_ready(parse(&a, "{\"conditions\":{\"ready\":true}}")));
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(bundles_file_then_live_then_ca)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    const char *want_json = "{\"webhooks\":[{\"name\":\"a\",\"clientConfig\":{\"caBundle\":\"RklMRQ==\"}},"
                            "{\"name\":\"b\",\"clientConfig\":{}},{\"name\":\"c\",\"clientConfig\":{}}]}";
    gpa_value_t *want = parse(&a, want_json);
    const gpa_value_t *live = parse(&a, "{\"webhooks\":[{\"name\":\"b\",\"clientConfig\":{\"caBundle\":\"TElWRQ==\"}},"
                                        "{\"name\":\"c\",\"clientConfig\":{\"caBundle\":\"\"}}]}");
    ck_assert_int_eq(fill_bundles(&a, want, live, "Q0E="), 1); /* only c lacked one live */
    ck_assert_str_eq(bundle_of(want, 0), "RklMRQ==");          /* the file's own */
    ck_assert_str_eq(bundle_of(want, 1), "TElWRQ==");          /* kept from the live object */
    ck_assert_str_eq(bundle_of(want, 2), "Q0E=");              /* the CA file's */
    /* Nothing to give: nothing set, nothing missing. */
    want = parse(&a, "{\"webhooks\":[{\"name\":\"b\",\"clientConfig\":{}}]}");
    ck_assert_int_eq(fill_bundles(&a, want, NULL, NULL), 0);
    ck_assert_ptr_null(bundle_of(want, 0));
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(digest_names_file_and_owner)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_buf_t one = GPA_BUF_INIT, two = GPA_BUF_INIT;
    gpa_buf_puts(&one, "{\"kind\":\"ValidatingWebhookConfiguration\"}");
    gpa_buf_puts(&two, "{\"kind\":\"ValidatingWebhookConfiguration\",\"x\":1}");
    const char *d = digest(&a, &one, "uid-1");
    ck_assert_uint_eq(strlen(d), 64);
    ck_assert_str_eq(d, digest(&a, &one, "uid-1"));
    ck_assert_str_ne(d, digest(&a, &one, "uid-2")); /* a new owner (a reinstall): written again */
    ck_assert_str_ne(d, digest(&a, &two, "uid-1")); /* a changed file */
    gpa_buf_dispose(&one);
    gpa_buf_dispose(&two);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(members_replaced_or_added)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    gpa_value_t *obj = parse(&a, "{\"metadata\":{\"name\":\"n\"}}");
    gpa_value_t *meta = gpa_value_get(obj, "metadata");
    set_member(&a, meta, "name", str(&a, "m"));
    set_member(&a, object_at(&a, meta, "annotations"), "k", str(&a, "v"));
    gpa_buf_t out = GPA_BUF_INIT;
    gpa_value_emit_json(&out, obj, 0);
    gpa_buf_putc(&out, '\0');
    ck_assert_str_eq(out.base, "{\"metadata\":{\"name\":\"m\",\"annotations\":{\"k\":\"v\"}}}");
    gpa_buf_dispose(&out);
    gpa_arena_dispose(&a);
}
END_TEST

START_TEST(files_are_checked)
{
    gpa_arena_t a;
    gpa_arena_init(&a);
    char dir[] = "/tmp/gpa-register-XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/bad.json", dir);
    const char *texts[] = {"{\"kind\": ", "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}",
                           "{\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{}}", "[1]"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(texts[i], f);
        fclose(f);
        gpa_error_t err = {0};
        gpa_error_init(&err, NULL);
        wanted_t w;
        ck_assert_int_eq(load_wanted(&a, path, "uid", NULL, &w, &err), -1);
        ck_assert_msg(strstr(err.message, "bad.json") != NULL, "%s", err.message);
    }
    unlink(path);
    rmdir(dir);
    gpa_arena_dispose(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("register");
    TCase *tc = tcase_create("register");
    tcase_add_test(tc, files_read);
    tcase_add_test(tc, ready_endpoints);
    tcase_add_test(tc, bundles_file_then_live_then_ca);
    tcase_add_test(tc, digest_names_file_and_owner);
    tcase_add_test(tc, members_replaced_or_added);
    tcase_add_test(tc, files_are_checked);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
