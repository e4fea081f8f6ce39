/*
 * certs/: the generated chain verifies for every name, files and modes, CA reuse, RSA, broken CAs, options,
 * notAfter; and the `gpuadmit certs` verb's exit codes.
 */
#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "certs.h"
#include "cli.h"
#include "expiry.h"
#include "pem.h"
#include "tls.h"
#include "run.h"

static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/gpa-test-certs-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *path_of(const char *name)
{
    static char buf[4][128];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
    return p;
}

static X509 *load_cert(const char *name)
{
    FILE *f = fopen(path_of(name), "r");
    ck_assert_msg(f != NULL, "%s missing", name);
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(x);
    return x;
}

static EVP_PKEY *load_key(const char *name)
{
    FILE *f = fopen(path_of(name), "r");
    ck_assert_msg(f != NULL, "%s missing", name);
    EVP_PKEY *k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(k);
    return k;
}

static char *slurp(const char *name, size_t *len)
{
    FILE *f = fopen(path_of(name), "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = calloc(1, 1 << 16);
    *len = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

static const char *extra[] = {"webhook.example.com", "10.96.0.10", "::1", "*.gpu.example.org"};

static void opts_for(gpa_certs_options_t *o)
{
    gpa_certs_options_init(o);
    o->service = "gpuadmit";
    o->ns = "gpu-system";
    o->out_dir = dir;
    o->extra_sans = extra;
    o->nextra_sans = sizeof(extra) / sizeof(extra[0]);
}

static void generate(const gpa_certs_options_t *o, gpa_certs_result_t *res)
{
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    int rc = gpa_certs_generate(o, res, &err);
    ck_assert_msg(rc == 0, "generate failed: %s", err.message);
}

static int generate_fails(const gpa_certs_options_t *o, const char *needle)
{
    gpa_error_t err = {0};
    gpa_certs_result_t res;
    gpa_error_init(&err, NULL);
    if (gpa_certs_generate(o, &res, &err) == 0) {
        gpa_certs_result_dispose(&res);
        return 0;
    }
    ck_assert_msg(strstr(err.message, needle) != NULL, "error \"%s\" lacks \"%s\"", err.message, needle);
    ck_assert_ptr_null(res.ca_bundle);
    return 1;
}

/* X509_verify_cert of tls.crt against ca.crt, as a TLS client checking `name` (a host or an IP address). */
static int verifies_for(const char *name, int is_ip)
{
    X509 *ca = load_cert("ca.crt"), *leaf = load_cert("tls.crt");
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, leaf, NULL);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    if (is_ip)
        X509_VERIFY_PARAM_set1_ip_asc(param, name);
    else
        X509_VERIFY_PARAM_set1_host(param, name, 0);
    int ok = X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(ca);
    X509_free(leaf);
    return ok;
}

START_TEST(chain_verifies_for_every_name)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    ck_assert_int_eq(res.ca_reused, 0);
    const char *hosts[] = {"gpuadmit",
                           "gpuadmit.gpu-system",
                           "gpuadmit.gpu-system.svc",
                           "gpuadmit.gpu-system.svc.cluster.local",
                           "webhook.example.com",
                           "a.gpu.example.org"};
    for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
        ck_assert_msg(verifies_for(hosts[i], 0), "does not verify for %s", hosts[i]);
    ck_assert(verifies_for("10.96.0.10", 1));
    ck_assert(verifies_for("::1", 1));
    ck_assert(!verifies_for("other.gpu-system.svc", 0));
    ck_assert(!verifies_for("gpuadmit.default.svc", 0));
    ck_assert(!verifies_for("10.96.0.11", 1));
    ck_assert_str_eq(res.sans, "gpuadmit,gpuadmit.gpu-system,gpuadmit.gpu-system.svc,gpuadmit.gpu-system.svc.cluster.local,"
                               "webhook.example.com,10.96.0.10,::1,*.gpu.example.org");
    gpa_certs_result_dispose(&res);
}
END_TEST

START_TEST(extensions)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    X509 *ca = load_cert("ca.crt"), *leaf = load_cert("tls.crt");
    ck_assert_int_ne(X509_check_ca(ca), 0);
    ck_assert_int_eq(X509_check_ca(leaf), 0);
    ck_assert(X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
    ck_assert(X509_get_key_usage(leaf) & KU_DIGITAL_SIGNATURE);
    ck_assert(!(X509_get_key_usage(leaf) & KU_KEY_CERT_SIGN));
    ck_assert(X509_get_extended_key_usage(leaf) & XKU_SSL_SERVER);
    const ASN1_OCTET_STRING *ca_ski = X509_get0_subject_key_id(ca), *leaf_aki = X509_get0_authority_key_id(leaf);
    ck_assert_ptr_nonnull(ca_ski);
    ck_assert_ptr_nonnull(X509_get0_subject_key_id(leaf));
    ck_assert_ptr_nonnull(leaf_aki);
    ck_assert_int_eq(ASN1_OCTET_STRING_cmp(ca_ski, leaf_aki), 0);
    ck_assert_int_eq(X509_check_issued(ca, leaf), X509_V_OK);
    /* Random serials: positive, and not the same twice. */
    ck_assert_int_eq(ASN1_INTEGER_cmp(X509_get0_serialNumber(ca), X509_get0_serialNumber(leaf)) != 0, 1);
    ck_assert_int_eq(X509_get_version(leaf), X509_VERSION_3);
    EVP_PKEY *k = load_key("tls.key");
    ck_assert_int_eq(EVP_PKEY_get_base_id(k), EVP_PKEY_EC);
    ck_assert_int_eq(EVP_PKEY_get_bits(k), 256);
    ck_assert_int_eq(X509_check_private_key(leaf, k), 1);
    EVP_PKEY_free(k);
    X509_free(ca);
    X509_free(leaf);
    gpa_certs_result_dispose(&res);
}
END_TEST

static mode_t mode_of(const char *name)
{
    struct stat st;
    ck_assert_int_eq(stat(path_of(name), &st), 0);
    return st.st_mode & 07777;
}

START_TEST(files_and_modes)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    umask(0); /* the modes must not depend on the caller's umask */
    generate(&o, &res);
    ck_assert_int_eq(mode_of("tls.key"), 0600);
    ck_assert_int_eq(mode_of("ca.key"), 0600);
    ck_assert_int_eq(mode_of("tls.crt"), 0644);
    ck_assert_int_eq(mode_of("ca.crt"), 0644);
    /* Nothing else left behind (no temporary files). */
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
        else
            ck_assert_msg(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0, "left %s", e->d_name);
    closedir(d);
    ck_assert_int_eq(n, 4);
    /* The caBundle is the base64 of ca.crt. */
    size_t len;
    char *pem = slurp("ca.crt", &len);
    unsigned char *dec = calloc(1, strlen(res.ca_bundle));
    int declen = EVP_DecodeBlock(dec, (const unsigned char *)res.ca_bundle, (int)strlen(res.ca_bundle));
    ck_assert_int_ge(declen, (int)len);
    ck_assert_int_eq(memcmp(dec, pem, len), 0);
    ck_assert_ptr_null(strchr(res.ca_bundle, '\n'));
    free(dec);
    free(pem);
    gpa_certs_result_dispose(&res);
}
END_TEST

START_TEST(out_dir_is_created)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    char sub[96];
    opts_for(&o);
    snprintf(sub, sizeof(sub), "%s/new", dir);
    o.out_dir = sub;
    generate(&o, &res);
    ck_assert_int_eq(access(path_of("new/tls.crt"), R_OK), 0);
    gpa_certs_result_dispose(&res);
}
END_TEST

START_TEST(ca_reuse_keeps_the_ca)
{
    gpa_certs_options_t o;
    gpa_certs_result_t r1, r2;
    opts_for(&o);
    generate(&o, &r1);
    size_t l1, l2, k1, k2;
    char *ca1 = slurp("ca.crt", &l1), *key1 = slurp("ca.key", &k1);
    X509 *leaf1 = load_cert("tls.crt");
    generate(&o, &r2);
    char *ca2 = slurp("ca.crt", &l2), *key2 = slurp("ca.key", &k2);
    X509 *leaf2 = load_cert("tls.crt");
    ck_assert_int_eq(r2.ca_reused, 1);
    ck_assert_str_eq(r1.ca_bundle, r2.ca_bundle);
    ck_assert(l1 == l2 && memcmp(ca1, ca2, l1) == 0);
    ck_assert(k1 == k2 && memcmp(key1, key2, k1) == 0);
    ck_assert_int_ne(ASN1_INTEGER_cmp(X509_get0_serialNumber(leaf1), X509_get0_serialNumber(leaf2)), 0);
    ck_assert(verifies_for("gpuadmit.gpu-system.svc", 0));
    free(ca1), free(ca2), free(key1), free(key2);
    X509_free(leaf1);
    X509_free(leaf2);
    gpa_certs_result_dispose(&r1);
    gpa_certs_result_dispose(&r2);
}
END_TEST

START_TEST(rsa_option)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    o.key_type = GPA_CERTS_KEY_RSA_2048;
    generate(&o, &res);
    EVP_PKEY *k = load_key("tls.key"), *ck = load_key("ca.key");
    ck_assert_int_eq(EVP_PKEY_get_base_id(k), EVP_PKEY_RSA);
    ck_assert_int_eq(EVP_PKEY_get_bits(k), 2048);
    ck_assert_int_eq(EVP_PKEY_get_base_id(ck), EVP_PKEY_RSA);
    X509 *leaf = load_cert("tls.crt");
    ck_assert(X509_get_key_usage(leaf) & KU_KEY_ENCIPHERMENT);
    ck_assert(verifies_for("gpuadmit.gpu-system.svc.cluster.local", 0));
    X509_free(leaf);
    EVP_PKEY_free(k);
    EVP_PKEY_free(ck);
    gpa_certs_result_dispose(&res);
}
END_TEST

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(corrupt_ca_is_an_error)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    unlink(path_of("tls.crt"));
    write_file("ca.crt", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
    ck_assert(generate_fails(&o, "ca.crt: not a PEM certificate"));
    /* Nothing was replaced: the broken CA stays for a person to look at, no serving certificate appeared. */
    ck_assert_int_ne(access(path_of("tls.crt"), F_OK), 0);
    write_file("ca.crt", "");
    ck_assert(generate_fails(&o, "ca.crt"));
}
END_TEST

START_TEST(corrupt_ca_key_is_an_error)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    write_file("ca.key", "garbage\n");
    ck_assert(generate_fails(&o, "ca.key: not an unencrypted PEM private key"));
}
END_TEST

START_TEST(half_a_ca_is_an_error)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    unlink(path_of("ca.key"));
    ck_assert(generate_fails(&o, "ca.key does not"));
}
END_TEST

START_TEST(mismatched_ca_key_is_an_error)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    /* Swap in the serving key as the CA key. */
    size_t n;
    char *key = slurp("tls.key", &n);
    write_file("ca.key", key);
    free(key);
    ck_assert(generate_fails(&o, "does not match the key"));
}
END_TEST

START_TEST(leaf_cert_as_ca_is_an_error)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    size_t n, m;
    char *crt = slurp("tls.crt", &n), *key = slurp("tls.key", &m);
    write_file("ca.crt", crt);
    write_file("ca.key", key);
    free(crt), free(key);
    ck_assert(generate_fails(&o, "is not a CA certificate"));
}
END_TEST

/* Writes a self-signed CA (CA:TRUE) whose validity ended `ago` seconds ago, with its key, as ca.crt/ca.key. */
static void write_expired_ca(long ago)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    X509_set_version(x, X509_VERSION_3);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
    X509_gmtime_adj(X509_getm_notBefore(x), -10 * 86400);
    X509_gmtime_adj(X509_getm_notAfter(x), -ago);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)"old-ca", -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_set_pubkey(x, key);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_basic_constraints, "critical,CA:TRUE");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    ck_assert_int_gt(X509_sign(x, key, EVP_sha256()), 0);
    FILE *f = fopen(path_of("ca.crt"), "w");
    PEM_write_X509(f, x);
    fclose(f);
    f = fopen(path_of("ca.key"), "w");
    PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
    fclose(f);
    X509_free(x);
    EVP_PKEY_free(key);
}

/* The one PEM reader never prompts: an encrypted key is no key (OpenSSL would otherwise ask on the terminal). */
START_TEST(encrypted_key_is_no_key_and_no_prompt)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    BIO *b = BIO_new(BIO_s_mem());
    ck_assert_int_eq(PEM_write_bio_PrivateKey(b, key, EVP_aes_256_cbc(), NULL, 0, NULL, (void *)"secret"), 1);
    ck_assert_ptr_null(gpa_pem_key(b)); /* with a terminal and stdin this would have waited for a passphrase */
    BIO_free(b);
    b = BIO_new(BIO_s_mem());
    ck_assert_int_eq(PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL), 1);
    EVP_PKEY *back = gpa_pem_key(b);
    ck_assert_ptr_nonnull(back);
    EVP_PKEY_free(back);
    BIO_free(b);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(expired_ca_is_an_error)
{
    gpa_certs_options_t o;
    opts_for(&o);
    write_expired_ca(86400);
    ck_assert(generate_fails(&o, "ca.crt: the existing CA has expired"));
    ck_assert_int_ne(access(path_of("tls.crt"), F_OK), 0);
}
END_TEST

START_TEST(out_dir_that_is_a_file_is_an_error)
{
    gpa_certs_options_t o;
    opts_for(&o);
    write_file("plain", "x");
    o.out_dir = path_of("plain");
    ck_assert(generate_fails(&o, "plain: exists and is not a directory"));
}
END_TEST

START_TEST(ca_must_outlive_the_serving_certificate)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    o.days = 10;
    o.ca_days = 20;
    generate(&o, &res);
    gpa_certs_result_dispose(&res);
    o.days = 30;
    ck_assert(generate_fails(&o, "expires before the new serving certificate"));
    o.days = 15;
    generate(&o, &res);
    ck_assert_int_eq(res.ca_reused, 1);
    gpa_certs_result_dispose(&res);
}
END_TEST

START_TEST(bad_options)
{
    gpa_certs_options_t o;
    gpa_error_t err = {0};
    struct {
        const char *service, *ns, *san;
        int days;
        const char *needle;
    } cases[] = {
        {NULL, "ns", NULL, 1, "--service is required"},
        {"Web", "ns", NULL, 1, "--service \"Web\""},
        {"1web", "ns", NULL, 1, "must start with a letter"},
        {"web-", "ns", NULL, 1, "must start and end"},
        {"web", NULL, NULL, 1, "--namespace is required"},
        {"web", "my_ns", NULL, 1, "--namespace \"my_ns\""},
        {"web", "ns", NULL, 0, "--days 0"},
        {"web", "ns", NULL, GPA_CERTS_MAX_DAYS + 1, "--days"},
        {"web", "ns", "bad name", 1, "--extra-san \"bad name\""},
        {"web", "ns", "", 1, "is empty"},
        {"web", "ns", "1.2.3", 1, "does not parse"},
        {"web", "ns", "a..b", 1, "empty label"},
        {"web", "ns", "-a.b", 1, "starts or ends with '-'"},
        {"web", "ns", "*.com", 1, "wildcard over a single label"},
        {"web", "ns", "256.1.1.1", 1, "does not parse"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        opts_for(&o);
        o.service = cases[i].service;
        o.ns = cases[i].ns;
        o.days = cases[i].days;
        o.extra_sans = &cases[i].san;
        o.nextra_sans = cases[i].san != NULL;
        gpa_error_init(&err, NULL);
        ck_assert_int_eq(gpa_certs_check_options(&o, &err), -1);
        ck_assert_msg(strstr(err.message, cases[i].needle) != NULL, "case %zu: \"%s\" lacks \"%s\"", i, err.message,
                      cases[i].needle);
    }
    opts_for(&o);
    o.out_dir = NULL;
    gpa_error_init(&err, NULL);
    ck_assert_int_eq(gpa_certs_check_options(&o, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "--out"));
    opts_for(&o);
    o.out_dir = "/nonexistent-gpa-parent/out";
    ck_assert(generate_fails(&o, "/nonexistent-gpa-parent/out: cannot create"));
}
END_TEST

START_TEST(not_after)
{
    gpa_certs_options_t o;
    gpa_certs_result_t res;
    opts_for(&o);
    o.days = 30;
    int64_t before = (int64_t)time(NULL);
    generate(&o, &res);
    int64_t after = (int64_t)time(NULL), from_cert;
    ck_assert_int_ge(res.not_after, before + 30 * 86400);
    ck_assert_int_le(res.not_after, after + 30 * 86400);
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    X509 *leaf = load_cert("tls.crt");
    ck_assert_int_eq(gpa_certs_not_after_x509(leaf, &from_cert, &err), 0);
    ck_assert_int_eq(from_cert, res.not_after);
    X509_free(leaf);
    ck_assert_int_eq(gpa_certs_not_after_x509(NULL, &from_cert, &err), -1);
    /* The webhook's expiry metric comes from the same function: the same second. */
    gpa_tls_opts_t to = {path_of("tls.crt"), path_of("tls.key"), NULL, TLS1_2_VERSION, 0};
    char why[256];
    gpa_tls_t *tls = gpa_tls_new(&to, why, sizeof(why));
    ck_assert_msg(tls != NULL, "%s", why);
    ck_assert_int_eq(gpa_tls_not_after(tls), res.not_after);
    gpa_tls_free(tls);
    gpa_certs_result_dispose(&res);
}
END_TEST

/* Fixed dates through the calendar arithmetic: leap years, the year 2038 and 2050's GeneralizedTime. */
START_TEST(not_after_calendar)
{
    static const struct {
        const char *asn1;
        int64_t epoch;
    } cases[] = {
        {"700101000000Z", 0},
        {"000229120000Z", 951825600},
        {"380119031408Z", 2147483648LL},
        {"20501231235959Z", 2556143999LL},
        {"21000301000000Z", 4107542400LL},
    };
    X509 *x = X509_new();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(ASN1_TIME_set_string(X509_getm_notAfter(x), cases[i].asn1), 1);
        int64_t got;
        gpa_error_t err = {0};
        gpa_error_init(&err, NULL);
        ck_assert_int_eq(gpa_certs_not_after_x509(x, &got, &err), 0);
        ck_assert_msg(got == cases[i].epoch, "%s: %lld != %lld", cases[i].asn1, (long long)got, (long long)cases[i].epoch);
    }
    X509_free(x);
}
END_TEST

static int run_cli(const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "certs";
    for (; *args != NULL; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    return gpa_cmd_certs(argc, argv);
}

START_TEST(cli_exit_codes)
{
    char out[96];
    snprintf(out, sizeof(out), "%s/cli", dir);
    const char *ok[] = {"--service", "gpuadmit",    "--namespace=gpu-system",  "--out", out, "--days",
                        "7",         "--extra-san", "a.example.com,127.0.0.1", "--rsa", NULL};
    ck_assert_int_eq(run_cli(ok), GPA_EXIT_OK);
    ck_assert_int_eq(access(path_of("cli/tls.key"), R_OK), 0);
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(run_cli(help), GPA_EXIT_OK);
    const char *const bad[][12] = {
        {NULL},
        {"--service", "gpuadmit", "--namespace", "ns", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--days", "0", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--days", "-5", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--days", "99999999999999999999", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--days", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--bogus", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "stray", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--extra-san", "a,,b", NULL},
        {"--service", "gpuadmit", "--namespace", "ns", "--out", out, "--rsa=yes", NULL},
        {"--service", "Bad", "--namespace", "ns", "--out", out, NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(run_cli(bad[i]) == GPA_EXIT_USAGE, "case %zu", i);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("certs");
    TCase *tc = tcase_create("certs");
    tcase_add_checked_fixture(tc, setup, teardown);
    /* Key generation under the sanitizers on a busy 2-core machine: generous, and not a timing assertion. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, chain_verifies_for_every_name);
    tcase_add_test(tc, extensions);
    tcase_add_test(tc, files_and_modes);
    tcase_add_test(tc, out_dir_is_created);
    tcase_add_test(tc, ca_reuse_keeps_the_ca);
    tcase_add_test(tc, rsa_option);
    tcase_add_test(tc, corrupt_ca_is_an_error);
    tcase_add_test(tc, corrupt_ca_key_is_an_error);
    tcase_add_test(tc, half_a_ca_is_an_error);
    tcase_add_test(tc, mismatched_ca_key_is_an_error);
    tcase_add_test(tc, leaf_cert_as_ca_is_an_error);
    tcase_add_test(tc, ca_must_outlive_the_serving_certificate);
    tcase_add_test(tc, encrypted_key_is_no_key_and_no_prompt);
    tcase_add_test(tc, expired_ca_is_an_error);
    tcase_add_test(tc, out_dir_that_is_a_file_is_an_error);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, not_after);
    tcase_add_test(tc, not_after_calendar);
    tcase_add_test(tc, cli_exit_codes);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}
