/*
 * Self-managed webhook certificates: the Secret, the caBundle, the files (certsync.h says what and why).
 */
#include "certsync.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/arena.h"
#include "base/buf.h"
#include "certs.h"
#include "pem.h"
#include "document/emit.h"
#include "document/json.h"
#include "expiry.h"
#include "files.h"

#define MAX_ATTEMPTS 5 /* conflicts in a row before a sync gives up (the next sync starts over) */
#define MAX_BUNDLE 4   /* CAs kept in the bundle: the signing CA and the most recent previous ones */

static const char *const KEYS[] = {"ca.crt", "ca.key", "tls.crt", "tls.key", "ca-bundle.crt", "ca-switch-after"};
enum { K_CA_CRT, K_CA_KEY, K_TLS_CRT, K_TLS_KEY, K_BUNDLE, K_SWITCH, K_COUNT };

/* The Secret's contents: PEM text per key (new, NUL-terminated; NULL when absent). */
typedef struct st_material_t {
    char *v[K_COUNT];
} material_t;

static void material_dispose(material_t *m)
{
    for (int i = 0; i < K_COUNT; i++)
        free(m->v[i]);
    memset(m, 0, sizeof(*m));
}

void gpa_certsync_opts_init(gpa_certsync_opts_t *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->days = 365;
    opts->ca_days = 3650;
    opts->renew_before = 30 * 86400;
    opts->switch_delay = 300;
}

/* A new formatted string (caller frees): paths and API paths of any length, never truncated. */
static char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *out = gpa_xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(out, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    return out;
}

/* ---- PEM and base64 ------------------------------------------------------------------------------------- */

/* base64 into a new NUL-terminated string, or NULL when it is not base64. */
static char *b64_decode(const char *s, size_t n)
{
    if (n % 4 != 0)
        return NULL;
    char *out = gpa_xmalloc(n / 4 * 3 + 1);
    int len = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)s, (int)n);
    if (len < 0) {
        free(out);
        return NULL;
    }
    for (size_t i = n; i > 0 && s[i - 1] == '='; i--)
        len--; /* EVP_DecodeBlock counts the padding's zero bytes */
    out[len] = '\0';
    return out;
}

static X509 *pem_cert(const char *pem)
{
    if (pem == NULL)
        return NULL;
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = b != NULL ? gpa_pem_cert(b) : NULL;
    BIO_free(b);
    return x;
}

static EVP_PKEY *pem_key(const char *pem)
{
    if (pem == NULL)
        return NULL;
    BIO *b = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *k = b != NULL ? gpa_pem_key(b) : NULL;
    BIO_free(b);
    return k;
}

/* Every certificate in a PEM text, into certs[] (at most max); returns how many. */
static size_t pem_certs(const char *pem, X509 **certs, size_t max)
{
    size_t n = 0;
    BIO *b = pem != NULL ? BIO_new_mem_buf(pem, -1) : NULL;
    X509 *x;
    while (b != NULL && n < max && (x = gpa_pem_cert(b)) != NULL)
        certs[n++] = x;
    BIO_free(b);
    ERR_clear_error();
    return n;
}

static char *cert_pem(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *data, *out = NULL;
    if (b != NULL && PEM_write_bio_X509(b, x) == 1) {
        long n = BIO_get_mem_data(b, &data);
        out = gpa_xmalloc((size_t)n + 1);
        memcpy(out, data, (size_t)n);
        out[n] = '\0';
    }
    BIO_free(b);
    return out;
}

static int64_t expiry(X509 *x)
{
    int64_t t = 0;
    return gpa_certs_not_after_x509(x, &t, NULL) == 0 ? t : 0;
}

/* ---- judging what the Secret holds ---------------------------------------------------------------------- */

typedef enum en_verdict_t {
    V_GOOD,       /* nothing to do */
    V_RENEW,      /* a new serving certificate from the signing CA */
    V_NEW_CA,     /* first step of a CA change: a new CA joins the bundle */
    V_SWITCH,     /* second step: a serving certificate from the new CA */
    V_REGENERATE, /* unusable: a new CA and serving certificate at once */
} verdict_t;

typedef struct st_parsed_t {
    X509 *ca, *leaf;
    EVP_PKEY *ca_key, *leaf_key;
} parsed_t;

static void parsed_dispose(parsed_t *p)
{
    X509_free(p->ca);
    X509_free(p->leaf);
    EVP_PKEY_free(p->ca_key);
    EVP_PKEY_free(p->leaf_key);
    ERR_clear_error();
}

/* Whether the bundle holds this certificate. */
static int bundle_has(const char *bundle, X509 *x)
{
    X509 *certs[16];
    size_t n = pem_certs(bundle, certs, 16);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        found = found || X509_cmp(certs[i], x) == 0;
        X509_free(certs[i]);
    }
    return found;
}

/* Whether some CA of the bundle issued the serving certificate (and its signature checks out). */
static int bundle_issued(const char *bundle, X509 *leaf)
{
    X509 *certs[16];
    size_t n = pem_certs(bundle, certs, 16);
    int ok = 0;
    for (size_t i = 0; i < n; i++) {
        EVP_PKEY *pub = X509_get0_pubkey(certs[i]);
        ok = ok || (X509_check_issued(certs[i], leaf) == X509_V_OK && pub != NULL && X509_verify(leaf, pub) == 1);
        X509_free(certs[i]);
    }
    ERR_clear_error();
    return ok;
}

static verdict_t judge(const material_t *m, const gpa_certsync_opts_t *o, int64_t now)
{
    parsed_t p = {pem_cert(m->v[K_CA_CRT]), pem_cert(m->v[K_TLS_CRT]), pem_key(m->v[K_CA_KEY]), pem_key(m->v[K_TLS_KEY])};
    char *host = strf("%s.%s.svc", o->service, o->ns);
    verdict_t v = V_GOOD;
    if (p.ca == NULL || p.leaf == NULL || p.ca_key == NULL || p.leaf_key == NULL || X509_check_ca(p.ca) == 0 ||
        X509_check_private_key(p.ca, p.ca_key) != 1 || X509_check_private_key(p.leaf, p.leaf_key) != 1 ||
        X509_check_host(p.leaf, host, 0, 0, NULL) != 1 || !bundle_has(m->v[K_BUNDLE], p.ca) ||
        !bundle_issued(m->v[K_BUNDLE], p.leaf) || expiry(p.leaf) <= now || expiry(p.ca) <= now)
        v = V_REGENERATE;
    else if (X509_check_issued(p.ca, p.leaf) != X509_V_OK) /* a CA change under way */
        v = m->v[K_SWITCH] == NULL || now >= strtoll(m->v[K_SWITCH], NULL, 10) ? V_SWITCH : V_GOOD;
    else if (expiry(p.ca) - now < (int64_t)o->days * 86400 + o->renew_before)
        v = V_NEW_CA;
    else if (expiry(p.leaf) - now < o->renew_before)
        v = V_RENEW;
    parsed_dispose(&p);
    free(host);
    return v;
}

/* ---- making certificates (certs.h, in a scratch directory under opts->dir) ------------------------------ */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    gpa_buf_t b = GPA_BUF_INIT;
    char chunk[4096];
    size_t n;
    while (f != NULL && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gpa_buf_append(&b, chunk, n);
    if (f != NULL)
        fclose(f);
    gpa_buf_putc(&b, '\0');
    return gpa_buf_steal(&b);
}

/* dir/name replaced by a rename (a reader sees the old file or the new one), mode 0600: keys among them. */
static int write_text(const char *dir, const char *name, const char *text, gpa_error_t *err)
{
    char *path = strf("%s/%s", dir, name), *tmp = strf("%s/.%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), rc = 0;
    size_t len = strlen(text);
    int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
    ok = (fd >= 0 && close(fd) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        rc = gpa_error_set(err, 0, 0, "", "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(path);
    free(tmp);
    return rc;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char *path = strf("%s/%s", dir, e->d_name);
            unlink(path);
            free(path);
        }
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

/*
 * A serving certificate (and key) into m, issued by the CA in ca_crt/ca_key, or by a new CA when they are NULL
 * (then m's CA is the new one). The other keys of m are left alone.
 */
static int issue(const gpa_certsync_opts_t *o, const char *ca_crt, const char *ca_key, material_t *m, gpa_error_t *err)
{
    char *scratch = strf("%s/.certsync-XXXXXX", o->dir);
    if (mkdtemp(scratch) == NULL) {
        free(scratch);
        return gpa_error_set(err, 0, 0, "", "%s: cannot make a scratch directory: %s", o->dir, strerror(errno));
    }
    gpa_certs_options_t co;
    gpa_certs_options_init(&co);
    co.service = o->service;
    co.ns = o->ns;
    co.out_dir = scratch;
    co.days = o->days;
    /* A new CA outlives a serving certificate by the renewal margin, or it would be due again at once. */
    int64_t min_ca = (int64_t)o->days + (o->renew_before + 86399) / 86400 + 1;
    co.ca_days = o->ca_days >= min_ca ? o->ca_days : (int)(min_ca < GPA_CERTS_MAX_DAYS ? min_ca : GPA_CERTS_MAX_DAYS);
    gpa_certs_result_t res = {0};
    int rc = -1;
    if ((ca_crt == NULL || (write_text(scratch, "ca.crt", ca_crt, err) == 0 && write_text(scratch, "ca.key", ca_key, err) == 0)) &&
        gpa_certs_generate(&co, &res, err) == 0) {
        const char *names[] = {"ca.crt", "ca.key", "tls.crt", "tls.key"};
        for (int i = 0; i < 4; i++) {
            char *path = strf("%s/%s", scratch, names[i]);
            free(m->v[i]);
            m->v[i] = read_text(path);
            free(path);
        }
        rc = 0;
    }
    gpa_certs_result_dispose(&res);
    remove_dir(scratch);
    free(scratch);
    return rc;
}

/* The bundle: first, then the CAs of old that parse, have not expired and are not first; at most MAX_BUNDLE. */
static char *bundle_with(const char *first, const char *old, int64_t now)
{
    X509 *head = pem_cert(first), *certs[16];
    size_t n = pem_certs(old, certs, 16), kept = 1;
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, first);
    for (size_t i = 0; i < n; i++) {
        if (kept < MAX_BUNDLE && X509_check_ca(certs[i]) != 0 && expiry(certs[i]) > now &&
            (head == NULL || X509_cmp(head, certs[i]) != 0)) {
            char *pem = cert_pem(certs[i]);
            if (pem != NULL) {
                gpa_buf_puts(&b, pem);
                kept++;
            }
            free(pem);
        }
        X509_free(certs[i]);
    }
    X509_free(head);
    gpa_buf_putc(&b, '\0');
    return gpa_buf_steal(&b);
}

static void set_text(material_t *m, int key, char *text)
{
    free(m->v[key]);
    m->v[key] = text;
}

/* What the Secret should hold after the verdict; res says what was done. */
static int apply_verdict(verdict_t v, const gpa_certsync_opts_t *o, int64_t now, material_t *m, gpa_certsync_result_t *res,
                         gpa_error_t *err)
{
    material_t next = {{0}};
    char when[32];
    switch (v) {
    case V_GOOD:
        return 0;
    case V_RENEW:
    case V_SWITCH:
        if (issue(o, m->v[K_CA_CRT], m->v[K_CA_KEY], m, err) != 0)
            return -1;
        set_text(m, K_SWITCH, NULL);
        res->renewed = 1;
        return 0;
    case V_NEW_CA: /* the new CA signs from now on; the serving certificate stays until the switch */
        if (issue(o, NULL, NULL, &next, err) != 0)
            return -1;
        set_text(m, K_BUNDLE, bundle_with(next.v[K_CA_CRT], m->v[K_BUNDLE], now));
        set_text(m, K_CA_CRT, next.v[K_CA_CRT]);
        set_text(m, K_CA_KEY, next.v[K_CA_KEY]);
        next.v[K_CA_CRT] = next.v[K_CA_KEY] = NULL;
        snprintf(when, sizeof(when), "%lld", (long long)(now + o->switch_delay));
        set_text(m, K_SWITCH, gpa_xstrdup(when));
        material_dispose(&next);
        res->ca_added = 1;
        return 0;
    case V_REGENERATE:
        if (issue(o, NULL, NULL, m, err) != 0)
            return -1;
        set_text(m, K_BUNDLE, bundle_with(m->v[K_CA_CRT], m->v[K_BUNDLE], now));
        set_text(m, K_SWITCH, NULL);
        res->regenerated = 1;
        return 0;
    }
    return 0;
}

/* ---- the API -------------------------------------------------------------------------------------------- */

static int call(gpa_kube_client_t *c, const char *method, const char *path, const char *body, gpa_kube_reply_t *reply,
                gpa_error_t *err)
{
    memset(reply, 0, sizeof(*reply));
    return gpa_kube_call(c, method, path, body != NULL ? "application/json" : NULL, body, body != NULL ? strlen(body) : 0, reply,
                         err);
}

static int api_fail(const char *method, const char *path, const gpa_kube_reply_t *r, gpa_error_t *err)
{
    int n = r->body.len > 300 ? 300 : (int)r->body.len;
    return gpa_error_set(err, 0, 0, "", "%s %s: HTTP %ld: %.*s", method, path, r->status, n,
                         r->body.base != NULL ? r->body.base : "");
}

/* The Secret's data, decoded, and its resourceVersion and type (arena strings); 0, or -1 when it is not JSON. */
static int read_secret(const gpa_kube_reply_t *r, gpa_arena_t *a, material_t *m, const char **rv, const char **type)
{
    gpa_value_t *root;
    if (gpa_json_parse(a, r->body.base, r->body.len, &root, NULL) != 0)
        return -1;
    *rv = gpa_value_string(gpa_value_get(gpa_value_get(root, "metadata"), "resourceVersion"));
    *type = gpa_value_string(gpa_value_get(root, "type"));
    gpa_value_t *data = gpa_value_get(root, "data");
    for (int i = 0; i < K_COUNT; i++) {
        const char *b64 = gpa_value_string(gpa_value_get(data, KEYS[i]));
        m->v[i] = b64 != NULL ? b64_decode(b64, strlen(b64)) : NULL;
    }
    return 0;
}

static char *secret_json(const gpa_certsync_opts_t *o, const material_t *m, const char *rv, const char *type)
{
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":");
    gpa_buf_json_string(&b, o->secret, strlen(o->secret));
    gpa_buf_puts(&b, ",\"namespace\":");
    gpa_buf_json_string(&b, o->ns, strlen(o->ns));
    gpa_buf_puts(&b, ",\"labels\":{\"app.kubernetes.io/managed-by\":\"gpuadmit\"}");
    if (rv != NULL) {
        gpa_buf_puts(&b, ",\"resourceVersion\":");
        gpa_buf_json_string(&b, rv, strlen(rv));
    }
    gpa_buf_puts(&b, "},\"type\":");
    type = type != NULL ? type : "kubernetes.io/tls";
    gpa_buf_json_string(&b, type, strlen(type));
    gpa_buf_puts(&b, ",\"data\":{");
    int first = 1;
    for (int i = 0; i < K_COUNT; i++) {
        if (m->v[i] == NULL)
            continue;
        char *enc = gpa_certs_base64(m->v[i], strlen(m->v[i]));
        gpa_buf_printf(&b, "%s\"%s\":\"%s\"", first ? "" : ",", KEYS[i], enc);
        free(enc);
        first = 0;
    }
    gpa_buf_puts(&b, "}}");
    gpa_buf_putc(&b, '\0');
    return gpa_buf_steal(&b);
}

/* POST (create) or PUT (replace, carrying rv) of the Secret holding m; *status is the answer's (201/200/409). */
static int write_secret(gpa_kube_client_t *c, const gpa_certsync_opts_t *o, const material_t *m, const char *rv, const char *type,
                        long *status, gpa_error_t *err)
{
    char *body = secret_json(o, m, rv, type);
    char *path =
        rv == NULL ? strf("/api/v1/namespaces/%s/secrets", o->ns) : strf("/api/v1/namespaces/%s/secrets/%s", o->ns, o->secret);
    const char *method = rv == NULL ? "POST" : "PUT";
    gpa_kube_reply_t r;
    int rc = call(c, method, path, body, &r, err);
    *status = r.status;
    if (rc == 0 && *status != 200 && *status != 201 && *status != 409)
        rc = api_fail(method, path, &r, err);
    gpa_kube_reply_dispose(&r);
    free(body);
    free(path);
    return rc;
}

/*
 * One look at the Secret: read it, judge it, and write what it should hold (created when missing). *status is
 * the write's answer (0 when nothing had to be written); *m what the Secret holds if the write landed.
 */
static int settle_once(gpa_kube_client_t *c, const gpa_certsync_opts_t *o, material_t *m, gpa_certsync_result_t *res, long *status,
                       gpa_error_t *err)
{
    char *path = strf("/api/v1/namespaces/%s/secrets/%s", o->ns, o->secret);
    gpa_kube_reply_t r;
    gpa_arena_t a;
    gpa_arena_init(&a);
    int64_t now = (int64_t)time(NULL);
    const char *rv = NULL, *type = NULL;
    verdict_t v = V_GOOD;
    *status = 0;
    int rc = call(c, "GET", path, NULL, &r, err);
    if (rc == 0 && r.status == 200 && read_secret(&r, &a, m, &rv, &type) != 0)
        rc = gpa_error_set(err, 0, 0, "", "GET %s: the answer is not JSON", path);
    else if (rc == 0 && r.status == 200)
        v = judge(m, o, now);
    else if (rc == 0 && r.status == 404)
        v = V_REGENERATE; /* created: rv stays NULL */
    else if (rc == 0)
        rc = api_fail("GET", path, &r, err);
    gpa_kube_reply_dispose(&r);
    if (rc == 0 && v != V_GOOD && (rc = apply_verdict(v, o, now, m, res, err)) == 0) {
        rc = write_secret(c, o, m, rv, type, status, err);
        res->created = rv == NULL;
        res->regenerated = res->regenerated && rv != NULL;
    }
    gpa_arena_dispose(&a);
    free(path);
    return rc;
}

/* Settles the Secret; a conflict (another replica created or changed it first) reads it and judges again. */
static int sync_secret(gpa_kube_client_t *c, const gpa_certsync_opts_t *o, material_t *m, gpa_certsync_result_t *res,
                       gpa_error_t *err)
{
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        long status;
        material_dispose(m);
        if (settle_once(c, o, m, res, &status, err) != 0)
            return -1;
        if (status != 409)
            return 0;
        memset(res, 0, sizeof(*res)); /* another replica won: what we made was not written */
    }
    return gpa_error_set(err, 0, 0, "", "Secret %s/%s: still conflicting after %d attempts", o->ns, o->secret, MAX_ATTEMPTS);
}

/* Sets clientConfig.caBundle of every webhook in a configuration; returns how many changed. */
static int set_bundles(gpa_arena_t *a, gpa_value_t *root, const char *bundle)
{
    gpa_value_t *hooks = gpa_value_get(root, "webhooks");
    int changed = 0;
    for (size_t i = 0; hooks != NULL && i < (hooks->type == GPA_VARRAY ? hooks->u.array.len : 0); i++) {
        gpa_value_t *cc = gpa_value_get(hooks->u.array.items[i], "clientConfig");
        if (cc == NULL || cc->type != GPA_VOBJECT)
            continue;
        const char *have = gpa_value_string(gpa_value_get(cc, "caBundle"));
        if (have != NULL && strcmp(have, bundle) == 0)
            continue;
        gpa_value_t *v = gpa_value_new_string(a, bundle, strlen(bundle));
        size_t n = cc->u.object.len, at = n;
        for (size_t k = 0; k < n; k++)
            if (strcmp(cc->u.object.members[k].key, "caBundle") == 0)
                at = k;
        if (at == n) {
            cc->u.object.members = gpa_arena_grow(a, cc->u.object.members, n, n + 1, sizeof(gpa_member_t));
            cc->u.object.members[n].key = "caBundle";
            cc->u.object.members[n].key_len = strlen("caBundle");
            cc->u.object.len = n + 1;
        }
        cc->u.object.members[at].value = v;
        changed++;
    }
    return changed;
}

/* Writes a configuration back (its metadata.resourceVersion is the one read); *conflict on 409. */
static int put_config(gpa_kube_client_t *c, const char *path, const gpa_value_t *root, int *conflict, gpa_error_t *err)
{
    gpa_buf_t body = GPA_BUF_INIT;
    gpa_kube_reply_t r;
    gpa_value_emit_json(&body, root, 0);
    gpa_buf_putc(&body, '\0');
    int rc = call(c, "PUT", path, body.base, &r, err);
    *conflict = rc == 0 && r.status == 409;
    if (rc == 0 && r.status != 200 && !*conflict)
        rc = api_fail("PUT", path, &r, err);
    gpa_kube_reply_dispose(&r);
    gpa_buf_dispose(&body);
    return rc;
}

/* One look at a configuration: read it and set the bundle; *conflict when it changed under us. */
static int config_once(gpa_kube_client_t *c, const char *path, const char *bundle, gpa_certsync_result_t *res, int *conflict,
                       gpa_error_t *err)
{
    gpa_kube_reply_t r;
    gpa_arena_t a;
    gpa_value_t *root = NULL;
    gpa_arena_init(&a);
    *conflict = 0;
    int rc = call(c, "GET", path, NULL, &r, err);
    if (rc == 0 && r.status == 200 && gpa_json_parse(&a, r.body.base, r.body.len, &root, NULL) != 0)
        rc = gpa_error_set(err, 0, 0, "", "GET %s: the answer is not JSON", path);
    else if (rc == 0 && r.status != 200 && r.status != 404)
        rc = api_fail("GET", path, &r, err);
    gpa_kube_reply_dispose(&r);
    if (rc == 0 && root != NULL && set_bundles(&a, root, bundle) > 0 && (rc = put_config(c, path, root, conflict, err)) == 0)
        res->bundle_written = res->bundle_written || !*conflict;
    if (rc == 0 && root != NULL && !*conflict)
        res->configs_found++;
    gpa_arena_dispose(&a);
    return rc;
}

/* One webhook configuration (a missing one is skipped); a conflict reads it again. */
static int sync_config(gpa_kube_client_t *c, const char *kind, const char *name, const char *bundle, gpa_certsync_result_t *res,
                       gpa_error_t *err)
{
    char *path = strf("/apis/admissionregistration.k8s.io/v1/%s/%s", kind, name);
    int rc = -1, conflict = 1;
    for (int attempt = 0; attempt < MAX_ATTEMPTS && conflict; attempt++)
        if ((rc = config_once(c, path, bundle, res, &conflict, err)) != 0)
            break;
    if (rc == 0 && conflict)
        rc = gpa_error_set(err, 0, 0, "", "%s: still conflicting after %d attempts", path, MAX_ATTEMPTS);
    free(path);
    return rc;
}

/* Points dir/name at target (a symlink), replacing whatever is there by a rename. */
static int swap_link(const char *dir, const char *name, const char *target, gpa_error_t *err)
{
    char *path = strf("%s/%s", dir, name), *tmp = strf("%s/.%s.link", dir, name);
    unlink(tmp);
    int rc = symlink(target, tmp) == 0 && rename(tmp, path) == 0 ? 0 : -1;
    if (rc != 0) {
        gpa_error_set(err, 0, 0, "", "%s: cannot point it at %s: %s", path, target, strerror(errno));
        unlink(tmp);
    }
    free(path);
    free(tmp);
    return rc;
}

/*
 * tls.crt and tls.key into dir when they differ from what is there, as the kubelet updates a mounted Secret:
 * both files go into a new directory, then one rename of the `..data` symlink switches them together
 * (tls.crt -> ..data/tls.crt), so the webhook's reloader never sees a key beside the wrong certificate.
 */
static int sync_files(const gpa_certsync_opts_t *o, const material_t *m, int *written, gpa_error_t *err)
{
    char *crt_path = strf("%s/tls.crt", o->dir), *key_path = strf("%s/tls.key", o->dir), *data = strf("%s/..data", o->dir);
    char *have_crt = read_text(crt_path), *have_key = read_text(key_path), old[4096] = "";
    char *version = strf("%s/.v-XXXXXX", o->dir);
    int rc = 0;
    if (strcmp(have_crt, m->v[K_TLS_CRT]) != 0 || strcmp(have_key, m->v[K_TLS_KEY]) != 0) {
        ssize_t n = readlink(data, old, sizeof(old) - 1);
        old[n > 0 ? n : 0] = '\0';
        const char *base = strrchr(version, '/') + 1;
        if (mkdtemp(version) == NULL)
            rc = gpa_error_set(err, 0, 0, "", "%s: cannot make a directory: %s", o->dir, strerror(errno));
        else if (write_text(version, "tls.key", m->v[K_TLS_KEY], err) != 0 ||
                 write_text(version, "tls.crt", m->v[K_TLS_CRT], err) != 0 || swap_link(o->dir, "..data", base, err) != 0 ||
                 swap_link(o->dir, "tls.crt", "..data/tls.crt", err) != 0 ||
                 swap_link(o->dir, "tls.key", "..data/tls.key", err) != 0)
            rc = -1;
        if (rc != 0 && strstr(version, "XXXXXX") == NULL)
            remove_dir(version); /* made, but not switched to */
        if (rc == 0 && old[0] == '.' && strchr(old, '/') == NULL) {
            char *previous = strf("%s/%s", o->dir, old);
            remove_dir(previous);
            free(previous);
        }
        *written = rc == 0;
    }
    free(crt_path);
    free(key_path);
    free(data);
    free(have_crt);
    free(have_key);
    free(version);
    return rc;
}

/* ca-bundle.crt in dir: every CA to trust (PEM), for what registers the webhook configurations (register.h). */
static int sync_bundle_file(const gpa_certsync_opts_t *o, const material_t *m, gpa_error_t *err)
{
    char *path = strf("%s/ca-bundle.crt", o->dir), *have = read_text(path);
    int rc = strcmp(have, m->v[K_BUNDLE]) == 0 ? 0 : write_text(o->dir, "ca-bundle.crt", m->v[K_BUNDLE], err);
    free(path);
    free(have);
    return rc;
}

int gpa_certsync_once(gpa_kube_client_t *c, const gpa_certsync_opts_t *opts, gpa_certsync_result_t *res, gpa_error_t *err)
{
    material_t m = {{0}};
    memset(res, 0, sizeof(*res));
    /* The directory may be new (a subdirectory of the Pod's emptyDir): made here, its parent must exist. */
    int rc = gpa_certs_ensure_dir(opts->dir, err) == 0 ? sync_secret(c, opts, &m, res, err) : -1;
    char *bundle = rc == 0 ? gpa_certs_base64(m.v[K_BUNDLE], strlen(m.v[K_BUNDLE])) : NULL;
    if (rc == 0)
        rc = sync_config(c, "validatingwebhookconfigurations", opts->webhook_config, bundle, res, err);
    if (rc == 0)
        rc = sync_config(c, "mutatingwebhookconfigurations", opts->webhook_config, bundle, res, err);
    if (rc == 0)
        rc = sync_files(opts, &m, &res->files_written, err);
    if (rc == 0)
        rc = sync_bundle_file(opts, &m, err);
    if (rc == 0) {
        X509 *leaf = pem_cert(m.v[K_TLS_CRT]);
        res->not_after = leaf != NULL ? expiry(leaf) : 0;
        X509_free(leaf);
    }
    free(bundle);
    material_dispose(&m);
    ERR_clear_error();
    return rc;
}
