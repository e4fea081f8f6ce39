/*
 * The CA (made or reused) and the serving certificate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "base/arena.h"
#include "certs.h"
#include "expiry.h"
#include "files.h"

/* Certificates start a little in the past so a client whose clock lags ours still accepts them. */
#define BACKDATE_SECONDS 300

typedef struct st_ca_t {
    X509 *cert;
    EVP_PKEY *key;
    int reused;
} ca_t;

static void ca_dispose(ca_t *ca)
{
    X509_free(ca->cert);
    EVP_PKEY_free(ca->key);
    memset(ca, 0, sizeof(*ca));
}

static int ssl_fail(gpa_error_t *err, const char *what)
{
    char why[256];
    return gpa_error_set(err, 0, 0, "", "%s: %s", what, gpa_certs_ssl_reason(why, sizeof(why)));
}

static EVP_PKEY *new_key(gpa_certs_key_t type, gpa_error_t *err)
{
    EVP_PKEY *key = type == GPA_CERTS_KEY_RSA_2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    if (key == NULL)
        ssl_fail(err, "cannot generate a key");
    return key;
}

/* A random positive 159-bit serial (RFC 5280 allows 20 octets; the top bit clear keeps it positive). */
static int set_serial(X509 *x, gpa_error_t *err)
{
    BIGNUM *bn = BN_new();
    int ok = bn != NULL;
    do
        ok = ok && BN_rand(bn, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1;
    while (ok && BN_is_zero(bn));
    ok = ok && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
    BN_free(bn);
    return ok ? 0 : ssl_fail(err, "cannot make a serial number");
}

static int set_validity(X509 *x, int days, gpa_error_t *err)
{
    if (X509_gmtime_adj(X509_getm_notBefore(x), -BACKDATE_SECONDS) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(x), days, 0, NULL) == NULL)
        return ssl_fail(err, "cannot set the validity period");
    return 0;
}

static int set_cn(X509_NAME *name, const char *cn, gpa_error_t *err)
{
    if (X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0) != 1)
        return ssl_fail(err, "cannot set the subject name");
    return 0;
}

/* One extension in OpenSSL's configuration syntax; `issuer` is the signing certificate (x itself for a CA). */
static int add_ext(X509 *x, X509 *issuer, int nid, const char *value, gpa_error_t *err)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    int ok = ext != NULL && X509_add_ext(x, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    if (!ok) {
        char what[128];
        snprintf(what, sizeof(what), "cannot add the %s extension", OBJ_nid2sn(nid));
        return ssl_fail(err, what);
    }
    return 0;
}

/* SHA-256 for RSA and ECDSA; EdDSA keys sign without a separate digest. */
static const EVP_MD *digest_for(EVP_PKEY *key)
{
    int id = EVP_PKEY_get_base_id(key);
    return id == EVP_PKEY_ED25519 || id == EVP_PKEY_ED448 ? NULL : EVP_sha256();
}

static int sign(X509 *x, EVP_PKEY *key, gpa_error_t *err)
{
    if (X509_sign(x, key, digest_for(key)) <= 0)
        return ssl_fail(err, "cannot sign the certificate");
    return 0;
}

/* A certificate shell: v3, random serial, validity, subject `cn`, public key. */
static X509 *new_cert(const char *cn, int days, EVP_PKEY *key, gpa_error_t *err)
{
    X509 *x = X509_new();
    if (x == NULL) {
        ssl_fail(err, "cannot make a certificate");
        return NULL;
    }
    if (X509_set_version(x, X509_VERSION_3) != 1 || X509_set_pubkey(x, key) != 1) {
        ssl_fail(err, "cannot make a certificate");
        goto Error;
    }
    if (set_serial(x, err) != 0 || set_validity(x, days, err) != 0 || set_cn(X509_get_subject_name(x), cn, err) != 0)
        goto Error;
    return x;
Error:
    X509_free(x);
    return NULL;
}

static int make_ca(const gpa_certs_options_t *opts, ca_t *ca, gpa_error_t *err)
{
    /* A time-stamped name (as Kubernetes' own self-signed CAs) so two generations never share a subject. */
    char cn[64];
    snprintf(cn, sizeof(cn), "gpuadmit-ca@%lld", (long long)time(NULL));
    int days = opts->ca_days >= opts->days ? opts->ca_days : opts->days;
    if ((ca->key = new_key(opts->key_type, err)) == NULL || (ca->cert = new_cert(cn, days, ca->key, err)) == NULL)
        return -1;
    X509 *x = ca->cert;
    if (X509_set_issuer_name(x, X509_get_subject_name(x)) != 1)
        return ssl_fail(err, "cannot set the issuer name");
    if (add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0", err) != 0 ||
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature", err) != 0 ||
        add_ext(x, x, NID_subject_key_identifier, "hash", err) != 0 ||
        add_ext(x, x, NID_authority_key_identifier, "keyid:always", err) != 0)
        return -1;
    return sign(x, ca->key, err);
}

/* Why an existing CA cannot sign the new certificate, or NULL when it can. */
static const char *ca_problem(X509 *cert, EVP_PKEY *key, const ASN1_TIME *leaf_not_after)
{
    if (X509_check_ca(cert) == 0)
        return "is not a CA certificate (no basicConstraints CA:TRUE)";
    if ((X509_get_key_usage(cert) & KU_KEY_CERT_SIGN) == 0)
        return "may not sign certificates (keyUsage lacks keyCertSign)";
    if (X509_cmp_current_time(X509_get0_notBefore(cert)) > 0)
        return "is not valid yet";
    if (X509_cmp_current_time(X509_get0_notAfter(cert)) < 0)
        return "has expired";
    if (ASN1_TIME_compare(X509_get0_notAfter(cert), leaf_not_after) < 0)
        return "expires before the new serving certificate would (lower --days, or make a new CA)";
    if (X509_check_private_key(cert, key) != 1)
        return "does not match the key in ca.key";
    return NULL;
}

static int load_ca(const char *crt_path, const char *key_path, const ASN1_TIME *leaf_not_after, ca_t *ca, gpa_error_t *err)
{
    if ((ca->cert = gpa_certs_read_cert(crt_path, err)) == NULL || (ca->key = gpa_certs_read_key(key_path, err)) == NULL)
        return -1;
    const char *why = ca_problem(ca->cert, ca->key, leaf_not_after);
    ERR_clear_error();
    if (why != NULL)
        return gpa_error_set(err, 0, 0, "",
                             "%s: the existing CA %s; to start over with a new CA remove %s and %s "
                             "(clients must then be given the new caBundle)",
                             crt_path, why, crt_path, key_path);
    ca->reused = 1;
    return 0;
}

/*
 * The CA for this run: reused when ca.crt and ca.key both exist, new when neither does. One without the other
 * is an error: replacing half a CA would silently break the trust of every client.
 */
static int get_ca(const gpa_certs_options_t *opts, const ASN1_TIME *leaf_not_after, ca_t *ca, gpa_error_t *err)
{
    char *crt = gpa_certs_path(opts->out_dir, "ca.crt"), *key = gpa_certs_path(opts->out_dir, "ca.key");
    int rc = -1, has_crt = gpa_certs_exists(crt, err), has_key = has_crt < 0 ? -1 : gpa_certs_exists(key, err);
    if (has_crt < 0 || has_key < 0)
        goto Exit;
    if (has_crt && has_key)
        rc = load_ca(crt, key, leaf_not_after, ca, err);
    else if (has_crt || has_key)
        gpa_error_set(err, 0, 0, "", "%s exists but %s does not: cannot reuse half a CA; remove %s to make a new CA",
                      has_crt ? crt : key, has_crt ? key : crt, has_crt ? crt : key);
    else
        rc = make_ca(opts, ca, err);
Exit:
    free(crt);
    free(key);
    return rc;
}

/* The serving certificate's extensions, its names and its issuer. */
static int leaf_extensions(X509 *x, const ca_t *ca, gpa_certs_key_t type, GENERAL_NAMES *sans, gpa_error_t *err)
{
    /* RSA key exchange (TLS 1.2 without ECDHE) encrypts with the key; ECDSA keys only sign. */
    const char *usage = type == GPA_CERTS_KEY_RSA_2048 ? "critical,digitalSignature,keyEncipherment" : "critical,digitalSignature";
    if (add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE", err) != 0 ||
        add_ext(x, ca->cert, NID_key_usage, usage, err) != 0 || add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth", err) != 0 ||
        add_ext(x, ca->cert, NID_subject_key_identifier, "hash", err) != 0 ||
        add_ext(x, ca->cert, NID_authority_key_identifier, "keyid,issuer", err) != 0)
        return -1;
    if (X509_add1_ext_i2d(x, NID_subject_alt_name, sans, 0, X509V3_ADD_DEFAULT) != 1)
        return ssl_fail(err, "cannot add the subjectAltName extension");
    return 0;
}

/* The serving certificate's common name: S.NS.svc when it fits X.509's 64 characters, else S. */
static void leaf_cn(const gpa_certs_options_t *opts, char *cn, size_t size)
{
    int n = snprintf(cn, size, "%s.%s.svc", opts->service, opts->ns);
    if (n < 0 || (size_t)n >= size)
        snprintf(cn, size, "%s", opts->service);
}

char *gpa_certs_base64(const void *data, size_t len)
{
    char *out = gpa_xmalloc(4 * ((len + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    return out;
}

/* base64 of the whole ca.crt file (every certificate in it), one line: the webhook configurations' caBundle. */
static char *read_bundle(const char *dir, gpa_error_t *err)
{
    char *path = gpa_certs_path(dir, "ca.crt"), *out = NULL;
    FILE *f = fopen(path, "rb");
    unsigned char buf[65536];
    size_t n = f != NULL ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f == NULL || ferror(f) || !feof(f) || n == 0)
        gpa_error_set(err, 0, 0, "", "%s: cannot read back (or larger than %zu bytes)", path, sizeof(buf) - 1);
    else
        out = gpa_certs_base64(buf, n);
    if (f != NULL)
        fclose(f);
    free(path);
    return out;
}

static int write_all(const gpa_certs_options_t *opts, const ca_t *ca, X509 *leaf, EVP_PKEY *leaf_key, gpa_error_t *err)
{
    const char *dir = opts->out_dir;
    /* The CA is written only when new; key before certificate, so a certificate never lacks its key. */
    if (!ca->reused &&
        (gpa_certs_write_key(dir, "ca.key", ca->key, err) != 0 || gpa_certs_write_cert(dir, "ca.crt", ca->cert, err) != 0))
        return -1;
    if (gpa_certs_write_key(dir, "tls.key", leaf_key, err) != 0 || gpa_certs_write_cert(dir, "tls.crt", leaf, err) != 0)
        return -1;
    return 0;
}

int gpa_certs_generate(const gpa_certs_options_t *opts, gpa_certs_result_t *res, gpa_error_t *err)
{
    char cn[65];
    ca_t ca = {0};
    X509 *leaf = NULL;
    EVP_PKEY *leaf_key = NULL;
    GENERAL_NAMES *sans = NULL;
    char *joined = NULL;
    int rc = -1;
    memset(res, 0, sizeof(*res));
    ERR_clear_error();
    if (gpa_certs_check_options(opts, err) != 0 || gpa_certs_ensure_dir(opts->out_dir, err) != 0)
        goto Exit;
    if ((sans = gpa_certs_sans_build(opts, &joined, err)) == NULL)
        goto Exit;
    leaf_cn(opts, cn, sizeof(cn));
    /* The serving certificate's validity comes first: a reused CA must outlive it. */
    if ((leaf_key = new_key(opts->key_type, err)) == NULL || (leaf = new_cert(cn, opts->days, leaf_key, err)) == NULL)
        goto Exit;
    if (get_ca(opts, X509_get0_notAfter(leaf), &ca, err) != 0)
        goto Exit;
    if (X509_set_issuer_name(leaf, X509_get_subject_name(ca.cert)) != 1) {
        ssl_fail(err, "cannot set the issuer name");
        goto Exit;
    }
    if (leaf_extensions(leaf, &ca, opts->key_type, sans, err) != 0 || sign(leaf, ca.key, err) != 0 ||
        write_all(opts, &ca, leaf, leaf_key, err) != 0 || gpa_certs_not_after_x509(leaf, &res->not_after, err) != 0)
        goto Exit;
    if ((res->ca_bundle = read_bundle(opts->out_dir, err)) == NULL)
        goto Exit;
    res->ca_reused = ca.reused;
    res->sans = joined;
    joined = NULL;
    rc = 0;
Exit:
    if (rc != 0)
        gpa_certs_result_dispose(res);
    free(joined);
    GENERAL_NAMES_free(sans);
    X509_free(leaf);
    EVP_PKEY_free(leaf_key);
    ca_dispose(&ca);
    ERR_clear_error();
    return rc;
}

void gpa_certs_result_dispose(gpa_certs_result_t *res)
{
    if (res == NULL)
        return;
    free(res->ca_bundle);
    free(res->sans);
    memset(res, 0, sizeof(*res));
}
