/*
 * cluster/client against the fake API server: TLS verified (or not, when told), token and client certificate,
 * a rotating token file (changed, and changed behind an unchanged stat), slow answers and timeouts, 5xx, the
 * writes the chart's certificate keeper makes (create, conflict on a stale resourceVersion, merge patch), and a
 * stream cut part-way.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "fakeapi.h"
#include "run.h"

static fakeapi_t fake;

static void setup(void)
{
    fakeapi_start(&fake, NULL);
}

static void teardown(void)
{
    fakeapi_stop(&fake);
}

static gpa_kube_client_t *client_for(const gpa_kube_target_t *t)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_kube_client_t *c = gpa_kube_client_new(t, &err);
    ck_assert_msg(c != NULL, "%s", err.message);
    return c;
}

/* GET path: the status (or -1 when the call failed, its error in *msg). */
static long get(gpa_kube_client_t *c, const char *path, char *msg, size_t size)
{
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    long status = -1;
    if (gpa_kube_call(c, "GET", path, NULL, NULL, 0, &reply, &err) == 0)
        status = reply.status;
    else if (msg != NULL)
        snprintf(msg, size, "%s", err.message);
    gpa_kube_reply_dispose(&reply);
    return status;
}

START_TEST(token_and_verified_tls)
{
    fakeapi_control(&fake, "apply", "{\"resource\": \"nodes\", \"object\": {\"metadata\": {\"name\": \"n1\"}}}");
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_kube_call(c, "GET", "/api/v1/nodes", NULL, NULL, 0, &reply, &err), 0);
    ck_assert_int_eq(reply.status, 200);
    ck_assert_ptr_nonnull(strstr(reply.body.base, "\"NodeList\""));
    ck_assert_ptr_nonnull(strstr(reply.body.base, "\"n1\""));
    gpa_kube_reply_dispose(&reply);
    /* The same handle keeps its connection for the next calls (each count asks on a connection of its own). */
    long connections = fakeapi_count(&fake, "connections");
    ck_assert_int_eq(get(c, "/api/v1/nodes/n1", NULL, 0), 200);
    ck_assert_int_eq(get(c, "/api/v1/nodes/absent", NULL, 0), 404);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    ck_assert_int_eq(fakeapi_count(&fake, "connections"), connections + 1);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

/* The whole way: a kubeconfig naming the fake's CA and client certificate by file, loaded, then used. */
START_TEST(kubeconfig_to_request)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "current-context: fake\n"
             "contexts: [{name: fake, context: {cluster: fake, user: me}}]\n"
             "clusters: [{name: fake, cluster: {server: \"%s/\", certificate-authority: ca.crt}}]\n"
             "users: [{name: me, user: {client-certificate: client.crt, client-key: client.key}}]\n",
             fake.url);
    const char *file = fakeapi_file(&fake, "kubeconfig");
    fakeapi_write(file, text);
    gpa_kube_options_t opts = {file, NULL};
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_msg(gpa_kube_target_load(&opts, &t, &err) == 0, "%s", err.message);
    gpa_kube_client_t *c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(loopback_skips_the_proxy)
{
    setenv("https_proxy", "http://127.0.0.1:9", 1); /* nothing listens there */
    setenv("HTTPS_PROXY", "http://127.0.0.1:9", 1);
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(tls_is_verified_unless_insecure)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    free(t.ca_pem);
    t.ca_pem = NULL; /* the system's roots do not know the fake's CA */
    t.ca_pem_len = 0;
    gpa_kube_client_t *c = client_for(&t);
    char msg[512] = "";
    ck_assert_int_eq(get(c, "/api/v1/nodes", msg, sizeof(msg)), -1);
    ck_assert_msg(strstr(msg, "certificate") != NULL, "%s", msg);
    gpa_kube_client_free(c);
    t.insecure_skip_verify = 1;
    c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(client_certificate)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, NULL);
    gpa_kube_client_t *c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 401); /* anonymous */
    gpa_kube_client_free(c);
    t.client_cert_pem = strdup(fakeapi_read(fakeapi_file(&fake, "client.crt")));
    t.client_key_pem = strdup(fakeapi_read(fakeapi_file(&fake, "client.key")));
    c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(token_file_rotates)
{
    const char *file = fakeapi_file(&fake, "token");
    fakeapi_write(file, "stale-token\n");
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "stale-token");
    t.token_file = strdup(file);
    gpa_kube_client_t *c = client_for(&t);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 401);
    /* kubelet writes the new token: the next call reads it. */
    fakeapi_write(file, "test-token\n");
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    /* The server moves on to a token of the same length, written in place with the old times kept: only the
     * 401 tells the client to read the file again. */
    struct stat before;
    ck_assert_int_eq(stat(file, &before), 0);
    fakeapi_control(&fake, "fault", "{\"token\": \"next-token\"}");
    FILE *f = fopen(file, "r+");
    fputs("next-token\n", f);
    fclose(f);
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    ck_assert_int_eq(utimensat(AT_FDCWD, file, times, 0), 0);
    long unauthorized = fakeapi_count(&fake, "unauthorized");
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    ck_assert_int_eq(fakeapi_count(&fake, "unauthorized"), unauthorized + 1);
    /* A token still refused after the re-read is the caller's 401, asked once. */
    fakeapi_control(&fake, "fault", "{\"token\": \"other-token\"}");
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 401);
    ck_assert_int_eq(fakeapi_count(&fake, "unauthorized"), unauthorized + 2);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(slow_answers_and_timeouts)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    fakeapi_control(&fake, "fault", "{\"slowMs\": 700}");
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200); /* slow is fine within the limit */
    gpa_kube_client_set_timeout(c, 200);
    char msg[512] = "";
    ck_assert_int_eq(get(c, "/api/v1/nodes", msg, sizeof(msg)), -1);
    ck_assert_msg(strstr(msg, "imed out") != NULL, "%s", msg);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(server_errors_are_statuses)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    fakeapi_control(&fake, "fault", "{\"fail\": 1}");
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 503);
    ck_assert_int_eq(get(c, "/api/v1/nodes", NULL, 0), 200);
    ck_assert_int_eq(get(c, "/apis/scheduling.koordinator.sh/v1alpha1/devices", NULL, 0), 200);
    fakeapi_control(&fake, "fault", "{\"crd\": false}");
    ck_assert_int_eq(get(c, "/apis/scheduling.koordinator.sh/v1alpha1/devices", NULL, 0), 404);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

static long send(gpa_kube_client_t *c, const char *method, const char *path, const char *type, const char *body, char *out,
                 size_t size)
{
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_kube_call(c, method, path, type, body, body != NULL ? strlen(body) : 0, &reply, &err), 0);
    if (out != NULL)
        snprintf(out, size, "%s", reply.body.base != NULL ? reply.body.base : "");
    long status = reply.status;
    gpa_kube_reply_dispose(&reply);
    return status;
}

START_TEST(writes_with_optimistic_concurrency)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    const char *secrets = "/api/v1/namespaces/gpuadmit-system/secrets";
    const char *secret = "/api/v1/namespaces/gpuadmit-system/secrets/gpuadmit-tls";
    char body[4096];
    ck_assert_int_eq(send(c, "GET", secret, NULL, NULL, NULL, 0), 404);
    const char *create = "{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"gpuadmit-tls\"}, "
                         "\"data\": {\"tls.crt\": \"YQ==\"}}";
    ck_assert_int_eq(send(c, "POST", secrets, "application/json", create, body, sizeof(body)), 201);
    ck_assert_ptr_nonnull(strstr(body, "\"resourceVersion\""));
    ck_assert_int_eq(send(c, "POST", secrets, "application/json", create, body, sizeof(body)), 409);
    ck_assert_ptr_nonnull(strstr(body, "AlreadyExists"));
    const char *stale = "{\"metadata\": {\"name\": \"gpuadmit-tls\", \"resourceVersion\": \"1\"}, \"data\": {}}";
    ck_assert_int_eq(send(c, "PUT", secret, "application/json", stale, body, sizeof(body)), 409);
    ck_assert_ptr_nonnull(strstr(body, "Conflict"));
    ck_assert_int_eq(
        send(c, "PATCH", secret, "application/merge-patch+json", "{\"data\": {\"tls.key\": \"Yg==\"}}", body, sizeof(body)), 200);
    ck_assert_ptr_nonnull(strstr(body, "\"tls.crt\":\"YQ==\""));
    ck_assert_ptr_nonnull(strstr(body, "\"tls.key\":\"Yg==\""));
    const char *hook = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    ck_assert_int_eq(
        send(c, "POST", hook, "application/json", "{\"metadata\": {\"name\": \"gpuadmit\"}, \"webhooks\": []}", NULL, 0), 201);
    ck_assert_int_eq(send(c, "PATCH", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gpuadmit",
                          "application/merge-patch+json", "{\"metadata\": {\"resourceVersion\": \"999\"}}", NULL, 0),
                     409);
    ck_assert_int_eq(send(c, "DELETE", secret, NULL, NULL, NULL, 0), 200);
    ck_assert_int_eq(send(c, "GET", secret, NULL, NULL, NULL, 0), 404);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

static int keep(void *ctx, const char *data, size_t len)
{
    gpa_buf_append(ctx, data, len);
    return 0;
}

START_TEST(stream_cut_part_way)
{
    gpa_kube_target_t t;
    fakeapi_target(&fake, &t, "test-token");
    gpa_kube_client_t *c = client_for(&t);
    fakeapi_control(&fake, "apply", "{\"resource\": \"nodes\", \"object\": {\"metadata\": {\"name\": \"n1\"}}}");
    fakeapi_control(&fake, "fault", "{\"cutMidEvent\": 1}");
    gpa_buf_t got = GPA_BUF_INIT;
    gpa_kube_stream_t stream = {keep, NULL, &got, 10000};
    gpa_kube_reply_t reply;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_kube_stream(c, "/api/v1/nodes?watch=1&resourceVersion=1", &stream, &reply, &err), -1);
    ck_assert_int_eq(reply.status, 200);
    ck_assert_uint_gt(got.len, 0);
    ck_assert_ptr_null(memchr(got.base, '\n', got.len)); /* half an event, never its end */
    gpa_kube_reply_dispose(&reply);
    gpa_buf_dispose(&got);
    gpa_kube_client_free(c);
    gpa_kube_target_dispose(&t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kube_client");
    TCase *tc = tcase_create("fake");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, token_and_verified_tls);
    tcase_add_test(tc, tls_is_verified_unless_insecure);
    tcase_add_test(tc, loopback_skips_the_proxy);
    tcase_add_test(tc, kubeconfig_to_request);
    tcase_add_test(tc, client_certificate);
    tcase_add_test(tc, token_file_rotates);
    tcase_add_test(tc, slow_answers_and_timeouts);
    tcase_add_test(tc, server_errors_are_statuses);
    tcase_add_test(tc, writes_with_optimistic_concurrency);
    tcase_add_test(tc, stream_cut_part_way);
    suite_add_tcase(s, tc);
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
