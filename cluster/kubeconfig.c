/*
 * Where the API server is: the service account inside a Pod, or a kubeconfig (docs/cluster.md, "The client").
 */
#include "kubeconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "document/docs.h"
#include "document/schema.h"

#define SERVICE_ACCOUNT_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* The file an error names: it must outlive the call (gpa_error_t borrows its source). */
static _Thread_local char error_source[4096];

/* What the reader needs while it walks one kubeconfig. */
typedef struct st_reader_t {
    gpa_arena_t *arena;
    const char *dir;
    gpa_kube_read_fn read;
    void *read_ctx;
    gpa_error_t *err;
} reader_t;

/* A kubeconfig, or a file it names (certificates, keys, a token), larger than this is refused: real ones are a few KiB. */
#define MAX_KUBECONFIG_FILE_BYTES ((size_t)16 << 20)

/* Opens path when it is a regular file (never waiting on a FIFO: O_NONBLOCK until fstat says what it is). */
static FILE *open_regular(const char *path, gpa_error_t *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        gpa_error_set(err, 0, 0, NULL, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    int fl = -1;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        gpa_error_set(err, 0, 0, NULL, "cannot read %s: not a regular file", path);
    else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || (f = fdopen(fd, "rb")) == NULL)
        gpa_error_set(err, 0, 0, NULL, "cannot read %s: %s", path, strerror(errno));
    if (f == NULL)
        close(fd);
    return f;
}

static int read_whole_file(void *ctx, const char *path, char **data, size_t *len, gpa_error_t *err)
{
    (void)ctx;
    FILE *f = open_regular(path, err);
    if (f == NULL)
        return -1;
    gpa_buf_t b = GPA_BUF_INIT;
    char chunk[8192];
    size_t n;
    while (b.len <= MAX_KUBECONFIG_FILE_BYTES && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gpa_buf_append(&b, chunk, n);
    int failed = ferror(f);
    fclose(f);
    if (failed || b.len > MAX_KUBECONFIG_FILE_BYTES) {
        gpa_buf_dispose(&b);
        return failed ? gpa_error_set(err, 0, 0, NULL, "cannot read %s", path)
                      : gpa_error_set(err, 0, 0, NULL, "cannot read %s: more than %zu bytes: refused", path,
                                      MAX_KUBECONFIG_FILE_BYTES);
    }
    gpa_buf_append(&b, "", 0);
    if (b.base == NULL)
        b.base = gpa_xstrdup("");
    *len = b.len;
    *data = b.base;
    return 0;
}

/* A token file holds the token and perhaps a newline. */
static void trim_right(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

static int base64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Standard base64 (padding optional, whitespace ignored) into a new NUL-terminated string; -1 when malformed. */
static int base64_decode(const char *s, size_t n, char **out, size_t *out_len)
{
    char *dst = gpa_xmalloc(n / 4 * 3 + 4);
    size_t len = 0, pad = 0;
    unsigned acc = 0, bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int d = base64_digit(c);
        if (d < 0 || pad > 0)
            goto bad;
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[len++] = (char)((acc >> bits) & 0xff);
        }
    }
    if (pad > 2 || bits >= 6)
        goto bad;
    dst[len] = '\0';
    *out = dst;
    *out_len = len;
    return 0;
bad:
    free(dst);
    return -1;
}

static int is_absolute(const char *path)
{
    return path[0] == '/';
}

/* A file a kubeconfig names, read (relative names from the kubeconfig's directory). */
static int read_named_file(reader_t *r, const gpa_value_t *v, const char *path, char **data, size_t *len)
{
    const char *name = gpa_value_string(v);
    if (name == NULL || name[0] == '\0')
        return gpa_schema_wrong_type(r->err, v, "a file name", path);
    const char *full = name;
    if (!is_absolute(name) && r->dir != NULL && r->dir[0] != '\0')
        full = gpa_arena_printf(r->arena, "%s/%s", r->dir, name);
    gpa_error_t why = {0};
    gpa_error_init(&why, NULL);
    if (r->read(r->read_ctx, full, data, len, &why) != 0)
        return gpa_schema_fail(r->err, v, path, "%s", why.message);
    return 0;
}

/* A PEM blob from FIELD-data (base64) or FIELD (a file), whichever is there (the data wins, as in kubectl). */
static int read_pem(reader_t *r, const gpa_value_t *obj, const char *parent, const char *field, char **pem, size_t *len)
{
    char *data_key = gpa_arena_printf(r->arena, "%s-data", field);
    const gpa_value_t *data = gpa_value_get(obj, data_key);
    if (data != NULL) {
        const char *path = gpa_schema_path(r->arena, parent, data_key);
        if (gpa_schema_want(r->err, data, GPA_VSTRING, path) != 0)
            return -1;
        if (base64_decode(data->u.str.ptr, data->u.str.len, pem, len) != 0)
            return gpa_schema_fail(r->err, data, path, "not valid base64");
        return 0;
    }
    const gpa_value_t *file = gpa_value_get(obj, field);
    if (file != NULL)
        return read_named_file(r, file, gpa_schema_path(r->arena, parent, field), pem, len);
    return 0;
}

/* The entry of list `key` (clusters, contexts, users) whose name is `name`. */
static const gpa_value_t *find_named(reader_t *r, const gpa_value_t *root, const char *key, const char *name,
                                     const gpa_value_t *where, const char *what)
{
    const gpa_value_t *list = gpa_value_get(root, key);
    if (list != NULL && gpa_schema_want(r->err, list, GPA_VARRAY, key) != 0)
        return NULL;
    for (size_t i = 0; list != NULL && i < list->u.array.len; i++) {
        const gpa_value_t *entry = list->u.array.items[i];
        const char *entry_name = gpa_value_string(gpa_value_get(entry, "name"));
        if (entry_name != NULL && strcmp(entry_name, name) == 0) {
            char *path = gpa_arena_printf(r->arena, "%s[%zu]", key, i);
            const char *inner = gpa_schema_path(r->arena, path, what);
            const gpa_value_t *body = gpa_value_get(entry, what);
            if (body == NULL)
                return gpa_schema_fail(r->err, entry, path, "has no %s", what), NULL;
            if (gpa_schema_want(r->err, body, GPA_VOBJECT, inner) != 0)
                return NULL;
            return body;
        }
    }
    gpa_schema_fail(r->err, where, key, "no %s named \"%s\"", what, name);
    return NULL;
}

/*
 * Every field of a mapping is one gpuadmit honours, one it knowingly ignores, or a fault: an unsupported one
 * (an auth plugin, a password, impersonation: never a silent anonymous request) or an unknown one.
 */
static int check_fields(reader_t *r, const gpa_value_t *obj, const char *path, const char *const *known,
                        const char *const *unsupported)
{
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const gpa_member_t *m = &obj->u.object.members[i];
        for (const char *const *u = unsupported; *u != NULL; u++)
            if (strcmp(m->key, *u) == 0)
                return gpa_schema_fail(r->err, m->value, gpa_schema_path(r->arena, path, m->key), "not supported by gpuadmit (%s)",
                                       strcmp(*u, "exec") == 0 || strcmp(*u, "auth-provider") == 0
                                           ? "credential plugins are not run; use a token, tokenFile or client certificate"
                                           : "use a token, tokenFile or client certificate");
    }
    return gpa_schema_fields(r->err, obj, path, known);
}

static char *copy_string(const gpa_value_t *v)
{
    return v != NULL ? gpa_xstrdup(gpa_value_string(v)) : NULL;
}

static int want_string(reader_t *r, const gpa_value_t *obj, const char *parent, const char *key, const gpa_value_t **out)
{
    *out = gpa_value_get(obj, key);
    if (*out == NULL)
        return 0;
    return gpa_schema_want(r->err, *out, GPA_VSTRING, gpa_schema_path(r->arena, parent, key));
}

static int read_cluster(reader_t *r, const gpa_value_t *cluster, const char *path, gpa_kube_target_t *out)
{
    static const char *const known[] = {"server",
                                        "certificate-authority",
                                        "certificate-authority-data",
                                        "insecure-skip-tls-verify",
                                        "disable-compression",
                                        "extensions",
                                        NULL};
    static const char *const unsupported[] = {"tls-server-name", "proxy-url", NULL};
    if (check_fields(r, cluster, path, known, unsupported) != 0)
        return -1;
    const gpa_value_t *server;
    if (want_string(r, cluster, path, "server", &server) != 0)
        return -1;
    if (server == NULL)
        return gpa_schema_fail(r->err, cluster, path, "has no server");
    const char *url = gpa_value_string(server);
    if (strncmp(url, "https://", 8) != 0 || url[8] == '\0')
        return gpa_schema_fail(r->err, server, gpa_schema_path(r->arena, path, "server"), "must be an https:// URL, not \"%s\"",
                               url);
    out->server = gpa_xstrdup(url);
    for (size_t n = strlen(out->server); n > 8 && out->server[n - 1] == '/'; n--)
        out->server[n - 1] = '\0';
    const gpa_value_t *insecure = gpa_value_get(cluster, "insecure-skip-tls-verify");
    if (insecure != NULL) {
        if (gpa_schema_want(r->err, insecure, GPA_VBOOL, gpa_schema_path(r->arena, path, "insecure-skip-tls-verify")) != 0)
            return -1;
        out->insecure_skip_verify = insecure->u.boolean;
    }
    if (read_pem(r, cluster, path, "certificate-authority", &out->ca_pem, &out->ca_pem_len) != 0)
        return -1;
    if (out->insecure_skip_verify && out->ca_pem != NULL)
        return gpa_schema_fail(r->err, insecure, gpa_schema_path(r->arena, path, "insecure-skip-tls-verify"),
                               "cannot be true together with a certificate-authority (kubectl refuses it too)");
    return 0;
}

static int read_user(reader_t *r, const gpa_value_t *user, const char *path, gpa_kube_target_t *out)
{
    static const char *const known[] = {"token",      "tokenFile",       "client-certificate", "client-certificate-data",
                                        "client-key", "client-key-data", "extensions",         NULL};
    static const char *const unsupported[] = {"exec",   "auth-provider", "username",      "password", "as",
                                              "as-uid", "as-groups",     "as-user-extra", NULL};
    if (check_fields(r, user, path, known, unsupported) != 0)
        return -1;
    const gpa_value_t *token, *token_file;
    if (want_string(r, user, path, "token", &token) != 0 || want_string(r, user, path, "tokenFile", &token_file) != 0)
        return -1;
    if (token != NULL && strpbrk(gpa_value_string(token), "\r\n") != NULL)
        return gpa_schema_fail(r->err, token, gpa_schema_path(r->arena, path, "token"), "must be one line");
    out->token = copy_string(token);
    if (token_file != NULL) {
        /* The file is re-read as it rotates (client.c); read it now too, so a missing one is an error here. */
        char *text;
        size_t len;
        if (read_named_file(r, token_file, gpa_schema_path(r->arena, path, "tokenFile"), &text, &len) != 0)
            return -1;
        trim_right(text);
        free(out->token);
        out->token = text;
        const char *name = gpa_value_string(token_file);
        out->token_file = is_absolute(name) || r->dir == NULL || r->dir[0] == '\0'
                              ? gpa_xstrdup(name)
                              : gpa_xstrdup(gpa_arena_printf(r->arena, "%s/%s", r->dir, name));
    }
    size_t cert_len = 0, key_len = 0;
    if (read_pem(r, user, path, "client-certificate", &out->client_cert_pem, &cert_len) != 0 ||
        read_pem(r, user, path, "client-key", &out->client_key_pem, &key_len) != 0)
        return -1;
    if ((out->client_cert_pem == NULL) != (out->client_key_pem == NULL))
        return gpa_schema_fail(r->err, user, path, "a client certificate needs its key (client-certificate and client-key)");
    return 0;
}

static int read_kubeconfig(reader_t *r, const gpa_value_t *root, const char *context, gpa_kube_target_t *out)
{
    if (gpa_schema_want(r->err, root, GPA_VOBJECT, "") != 0)
        return -1;
    const gpa_value_t *current = NULL;
    if (context == NULL) {
        if (want_string(r, root, "", "current-context", &current) != 0)
            return -1;
        if (current == NULL || gpa_value_string(current)[0] == '\0')
            return gpa_schema_fail(r->err, root, "current-context", "is not set and no --context was given");
        context = gpa_value_string(current);
    }
    const gpa_value_t *ctx = find_named(r, root, "contexts", context, current != NULL ? current : root, "context");
    if (ctx == NULL)
        return -1;
    static const char *const ctx_known[] = {"cluster", "user", "namespace", "extensions", NULL};
    if (gpa_schema_fields(r->err, ctx, "context", ctx_known) != 0)
        return -1;
    const gpa_value_t *cluster_name, *user_name, *ns;
    if (want_string(r, ctx, "context", "cluster", &cluster_name) != 0 || want_string(r, ctx, "context", "user", &user_name) != 0 ||
        want_string(r, ctx, "context", "namespace", &ns) != 0)
        return -1;
    if (cluster_name == NULL)
        return gpa_schema_fail(r->err, ctx, "context", "context \"%s\" names no cluster", context);
    const gpa_value_t *cluster = find_named(r, root, "clusters", gpa_value_string(cluster_name), cluster_name, "cluster");
    if (cluster == NULL || read_cluster(r, cluster, "cluster", out) != 0)
        return -1;
    out->ns = copy_string(ns);
    if (user_name == NULL)
        return 0;
    const gpa_value_t *user = find_named(r, root, "users", gpa_value_string(user_name), user_name, "user");
    if (user == NULL)
        return -1;
    return read_user(r, user, "user", out);
}

int gpa_kubeconfig_parse(const char *text, size_t len, const char *dir, const char *context, gpa_kube_read_fn read, void *read_ctx,
                         gpa_kube_target_t *out, gpa_error_t *err)
{
    memset(out, 0, sizeof(*out));
    gpa_arena_t arena;
    gpa_arena_init(&arena);
    reader_t r = {&arena, dir, read, read_ctx, err};
    gpa_docs_t docs;
    int rc = gpa_docs_parse(&arena, text, len, &docs, err);
    if (rc == 0 && docs.len == 0)
        rc = gpa_error_set(err, 0, 0, NULL, "empty kubeconfig");
    if (rc == 0)
        rc = read_kubeconfig(&r, docs.docs[0], context, out);
    gpa_arena_dispose(&arena);
    if (rc != 0)
        gpa_kube_target_dispose(out);
    return rc;
}

/* Runs `load` with an error whose source is `file` (kept in error_source), and hands its error to err. */
static int fail_from(const gpa_error_t *local, gpa_error_t *err)
{
    if (err != NULL && !err->set_)
        *err = *local;
    return -1;
}

static int load_kubeconfig_file(const char *file, const char *context, gpa_kube_target_t *out, gpa_error_t *err)
{
    snprintf(error_source, sizeof(error_source), "%s", file);
    gpa_error_t local = {0};
    gpa_error_init(&local, error_source);
    char *text;
    size_t len;
    if (read_whole_file(NULL, file, &text, &len, &local) != 0)
        return fail_from(&local, err);
    char *dir = gpa_xstrdup(file);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        dir[0] = '\0';
    int rc = gpa_kubeconfig_parse(text, len, dir, context, read_whole_file, NULL, out, &local);
    free(dir);
    free(text);
    return rc == 0 ? 0 : fail_from(&local, err);
}

static int load_service_account(const char *host, const char *port, gpa_kube_target_t *out, gpa_error_t *err)
{
    const char *dir = getenv("GPA_SERVICEACCOUNT_DIR");
    if (dir == NULL || dir[0] == '\0')
        dir = SERVICE_ACCOUNT_DIR;
    memset(out, 0, sizeof(*out));
    gpa_buf_t b = GPA_BUF_INIT;
    /* An IPv6 service address is bracketed in the URL. */
    gpa_buf_printf(&b, strchr(host, ':') != NULL ? "https://[%s]:%s" : "https://%s:%s", host, port);
    out->server = gpa_buf_steal(&b);
    gpa_error_t local = {0};
    gpa_error_init(&local, NULL);
    char path[4096];
    snprintf(path, sizeof(path), "%s/ca.crt", dir);
    if (read_whole_file(NULL, path, &out->ca_pem, &out->ca_pem_len, &local) != 0)
        goto fail;
    snprintf(path, sizeof(path), "%s/token", dir);
    size_t len;
    if (read_whole_file(NULL, path, &out->token, &len, &local) != 0)
        goto fail;
    trim_right(out->token);
    out->token_file = gpa_xstrdup(path);
    snprintf(path, sizeof(path), "%s/namespace", dir);
    if (read_whole_file(NULL, path, &out->ns, &len, &local) == 0)
        trim_right(out->ns);
    return 0;
fail:
    gpa_kube_target_dispose(out);
    snprintf(error_source, sizeof(error_source), "service account (KUBERNETES_SERVICE_HOST is set)");
    local.source = error_source;
    return fail_from(&local, err);
}

int gpa_kube_target_load(const gpa_kube_options_t *opts, gpa_kube_target_t *out, gpa_error_t *err)
{
    memset(out, 0, sizeof(*out));
    const char *context = opts != NULL ? opts->context : NULL;
    if (opts != NULL && opts->kubeconfig != NULL)
        return load_kubeconfig_file(opts->kubeconfig, context, out, err);
    const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
    if (host != NULL && host[0] != '\0' && port != NULL && port[0] != '\0')
        return load_service_account(host, port, out, err);
    const char *list = getenv("KUBECONFIG");
    char file[4096];
    if (list != NULL && list[0] != '\0') {
        size_t n = strcspn(list, ":");
        snprintf(file, sizeof(file), "%.*s", (int)n, list);
    } else {
        const char *home = getenv("HOME");
        if (home == NULL || home[0] == '\0') {
            snprintf(error_source, sizeof(error_source), "kubeconfig");
            gpa_error_t local = {0};
            gpa_error_init(&local, error_source);
            gpa_error_set(&local, 0, 0, NULL, "no cluster to talk to: not in a Pod, no --kubeconfig, $KUBECONFIG and $HOME unset");
            return fail_from(&local, err);
        }
        snprintf(file, sizeof(file), "%s/.kube/config", home);
    }
    return load_kubeconfig_file(file, context, out, err);
}

void gpa_kube_target_dispose(gpa_kube_target_t *t)
{
    free(t->server);
    free(t->ca_pem);
    free(t->token);
    free(t->token_file);
    free(t->client_cert_pem);
    free(t->client_key_pem);
    free(t->ns);
    memset(t, 0, sizeof(*t));
}
