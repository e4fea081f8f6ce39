/*
 * cluster/kubeconfig: every form of a kubeconfig field, the service account, $KUBECONFIG and ~/.kube/config,
 * and the errors (unsupported fields named with file:line).
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubeconfig.h"
#include "run.h"

static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/gpa-test-kubeconfig-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    unsetenv("KUBECONFIG");
}

static void teardown(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *path_of(const char *name)
{
    static char buf[4][256];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
    return p;
}

static const char *write_file(const char *name, const char *text)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==" is "-----BEGIN CERTIFICATE-----\n". */
#define PEM_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="
#define PEM_TEXT "-----BEGIN CERTIFICATE-----\n"

static const char *config_with(const char *cluster, const char *user)
{
    static char text[4096];
    snprintf(text, sizeof(text),
             "apiVersion: v1\n"
             "kind: Config\n"
             "current-context: main\n"
             "contexts:\n"
             "- name: main\n"
             "  context: {cluster: c1, user: u1, namespace: team-a}\n"
             "- name: other\n"
             "  context: {cluster: c2, user: u1}\n"
             "clusters:\n"
             "- name: c1\n"
             "  cluster:\n"
             "%s"
             "- name: c2\n"
             "  cluster:\n"
             "    server: https://other.example:6443/\n"
             "    insecure-skip-tls-verify: true\n"
             "users:\n"
             "- name: u1\n"
             "  user:\n"
             "%s",
             cluster, user);
    return text;
}

static int load(const char *file, const char *context, gpa_kube_target_t *t, gpa_error_t *err)
{
    gpa_kube_options_t opts = {file, context};
    gpa_error_init(err, NULL);
    return gpa_kube_target_load(&opts, t, err);
}

static void assert_fails(const char *cluster, const char *user, unsigned line, const char *want)
{
    const char *file = write_file("config", config_with(cluster, user));
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(file, NULL, &t, &err), -1);
    char msg[1024];
    gpa_error_format(&err, msg, sizeof(msg));
    ck_assert_msg(strstr(msg, want) != NULL, "%s: wanted \"%s\"", msg, want);
    ck_assert_str_eq(err.source, file);
    if (line != 0)
        ck_assert_uint_eq(err.line, line);
}

START_TEST(inline_data_and_token)
{
    const char *file = write_file("config", config_with("    server: https://api.example:6443\n"
                                                        "    certificate-authority-data: " PEM_B64 "\n",
                                                        "    token: abc\n"
                                                        "    client-certificate-data: " PEM_B64 "\n"
                                                        "    client-key-data: " PEM_B64 "\n"));
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(file, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://api.example:6443");
    ck_assert_str_eq(t.ca_pem, PEM_TEXT);
    ck_assert_uint_eq(t.ca_pem_len, strlen(PEM_TEXT));
    ck_assert_str_eq(t.token, "abc");
    ck_assert_ptr_null(t.token_file);
    ck_assert_str_eq(t.client_cert_pem, PEM_TEXT);
    ck_assert_str_eq(t.client_key_pem, PEM_TEXT);
    ck_assert_str_eq(t.ns, "team-a");
    ck_assert_int_eq(t.insecure_skip_verify, 0);
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(files_relative_to_the_kubeconfig)
{
    write_file("ca.pem", "CA PEM\n");
    write_file("cert.pem", "CERT PEM\n");
    write_file("key.pem", "KEY PEM\n");
    write_file("token", "rotating-token\n");
    const char *file = write_file("config", config_with("    server: https://api.example\n"
                                                        "    certificate-authority: ca.pem\n",
                                                        "    tokenFile: token\n"
                                                        "    client-certificate: cert.pem\n"
                                                        "    client-key: key.pem\n"));
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(file, NULL, &t, &err), 0);
    ck_assert_str_eq(t.ca_pem, "CA PEM\n");
    ck_assert_str_eq(t.client_cert_pem, "CERT PEM\n");
    ck_assert_str_eq(t.client_key_pem, "KEY PEM\n");
    ck_assert_str_eq(t.token, "rotating-token");
    ck_assert_str_eq(t.token_file, path_of("token"));
    gpa_kube_target_dispose(&t);
}
END_TEST

START_TEST(context_flag_and_insecure)
{
    const char *file = write_file("config", config_with("    server: https://api.example\n", "    token: abc\n"));
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(file, "other", &t, &err), 0);
    ck_assert_str_eq(t.server, "https://other.example:6443");
    ck_assert_int_eq(t.insecure_skip_verify, 1);
    ck_assert_ptr_null(t.ca_pem);
    ck_assert_ptr_null(t.ns);
    gpa_kube_target_dispose(&t);
    ck_assert_int_eq(load(file, "missing", &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "no context named \"missing\""));
}
END_TEST

START_TEST(plugins_and_passwords_are_named)
{
    const char *server = "    server: https://api.example\n";
    assert_fails(server, "    exec:\n      command: aws\n", 21, "user.exec: not supported by gpuadmit (credential plugins");
    assert_fails(server, "    auth-provider:\n      name: gcp\n", 21, "user.auth-provider: not supported");
    assert_fails(server, "    username: admin\n    password: secret\n", 20, "user.username: not supported");
    assert_fails(server, "    as: someone\n", 20, "user.as: not supported");
    assert_fails(server, "    tokne: abc\n", 20, "user: unknown field \"tokne\"");
    assert_fails("    server: https://api.example\n    proxy-url: http://proxy\n", "    token: abc\n", 13,
                 "cluster.proxy-url: not supported");
}
END_TEST

START_TEST(bad_values_are_errors)
{
    assert_fails("    server: http://api.example\n", "    token: abc\n", 12, "cluster.server: must be an https:// URL");
    assert_fails("    certificate-authority-data: abc\n", "    token: abc\n", 0, "cluster: has no server");
    assert_fails("    server: https://api.example\n    certificate-authority-data: '!!'\n", "    token: abc\n", 13,
                 "cluster.certificate-authority-data: not valid base64");
    assert_fails("    server: https://api.example\n    certificate-authority: nowhere.pem\n", "    token: abc\n", 13,
                 "nowhere.pem");
    assert_fails("    server: https://api.example\n    insecure-skip-tls-verify: true\n"
                 "    certificate-authority-data: " PEM_B64 "\n",
                 "    token: abc\n", 13, "cannot be true together with a certificate-authority");
    assert_fails("    server: https://api.example\n", "    client-certificate-data: " PEM_B64 "\n", 0, "needs its key");
    assert_fails("    server: https://api.example\n", "    tokenFile: gone\n", 20, "user.tokenFile: cannot read");
    assert_fails("    server: https://api.example\n", "    token: \"a\\nX-Injected: 1\"\n", 20, "user.token: must be one line");
}
END_TEST

START_TEST(no_current_context)
{
    const char *file = write_file("config", "apiVersion: v1\nkind: Config\nclusters: []\n");
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(file, NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "no --context"));
    file = write_file("empty", "");
    ck_assert_int_eq(load(file, NULL, &t, &err), -1);
    ck_assert_int_eq(load(path_of("absent"), NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot read"));
}
END_TEST

static void write_service_account(void)
{
    write_file("ca.crt", "SA CA\n");
    write_file("token", "sa-token\n");
    write_file("namespace", "gpuadmit-system");
    setenv("GPA_SERVICEACCOUNT_DIR", dir, 1);
}

START_TEST(service_account)
{
    write_service_account();
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(NULL, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://10.0.0.1:443");
    ck_assert_str_eq(t.ca_pem, "SA CA\n");
    ck_assert_str_eq(t.token, "sa-token");
    ck_assert_str_eq(t.token_file, path_of("token"));
    ck_assert_str_eq(t.ns, "gpuadmit-system");
    gpa_kube_target_dispose(&t);
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    ck_assert_int_eq(load(NULL, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://[fd00::1]:443");
    gpa_kube_target_dispose(&t);
    /* An explicit --kubeconfig comes first, even in a Pod. */
    const char *file = write_file("config", config_with("    server: https://explicit\n", "    token: a\n"));
    ck_assert_int_eq(load(file, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://explicit");
    gpa_kube_target_dispose(&t);
    unlink(path_of("token"));
    ck_assert_int_eq(load(NULL, NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "token"));
}
END_TEST

START_TEST(kubeconfig_env_and_home)
{
    write_file("config", config_with("    server: https://from-env\n", "    token: a\n"));
    char list[512];
    snprintf(list, sizeof(list), "%s:/nonexistent/second", path_of("config"));
    setenv("KUBECONFIG", list, 1);
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    ck_assert_int_eq(load(NULL, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://from-env");
    gpa_kube_target_dispose(&t);
    unsetenv("KUBECONFIG");
    ck_assert_int_eq(mkdir(path_of(".kube"), 0700), 0);
    write_file(".kube/config", config_with("    server: https://from-home\n", "    token: a\n"));
    setenv("HOME", dir, 1);
    ck_assert_int_eq(load(NULL, NULL, &t, &err), 0);
    ck_assert_str_eq(t.server, "https://from-home");
    gpa_kube_target_dispose(&t);
}
END_TEST

static int read_nothing(void *ctx, const char *path, char **data, size_t *len, gpa_error_t *err)
{
    (void)ctx, (void)data, (void)len;
    return gpa_error_set(err, 0, 0, NULL, "no file %s here", path);
}

START_TEST(parse_without_files)
{
    const char *text = config_with("    server: https://api\n    certificate-authority: ca.pem\n", "    token: a\n");
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    gpa_error_init(&err, "mem");
    ck_assert_int_eq(gpa_kubeconfig_parse(text, strlen(text), "/etc/k", NULL, read_nothing, NULL, &t, &err), -1);
    ck_assert_str_eq(err.message, "no file /etc/k/ca.pem here");
    ck_assert_str_eq(err.path, "cluster.certificate-authority");
}
END_TEST

/* A kubeconfig that is a FIFO or a device is refused at once (never waited on), one over the cap by its size. */
START_TEST(only_regular_files_capped)
{
    gpa_kube_target_t t;
    gpa_error_t err = {0};
    const char *fifo = path_of("fifo");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(load(fifo, NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(load("/dev/zero", NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
    const char *big = write_file("big", "");
    ck_assert_int_eq(truncate(big, ((off_t)16 << 20) + 1), 0);
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(load(big, NULL, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 16777216 bytes"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kubeconfig");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, inline_data_and_token);
    tcase_add_test(tc, files_relative_to_the_kubeconfig);
    tcase_add_test(tc, context_flag_and_insecure);
    tcase_add_test(tc, only_regular_files_capped);
    tcase_add_test(tc, plugins_and_passwords_are_named);
    tcase_add_test(tc, bad_values_are_errors);
    tcase_add_test(tc, no_current_context);
    tcase_add_test(tc, service_account);
    tcase_add_test(tc, kubeconfig_env_and_home);
    tcase_add_test(tc, parse_without_files);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpa_test_run(suite());
}
