/*
 * gpuadmit serve: parses the webhook's flags into gpa_server_opts_t and runs the server (webhook/server.h).
 * Flags and their defaults are documented in docs/webhook.md and in --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "certsync.h"
#include "daemon/registrar.h"
#include "daemon/certrun.h"
#include "cli.h"
#include "daemon/live.h"
#include "input/load.h"
#include "log.h"
#include "server.h"

static const char usage_text[] =
    "usage: gpuadmit serve --cert FILE --key FILE [options]\n"
    "\n"
    "The TLS admission webhook: POST /validate and /mutate (AdmissionReview v1 and v1beta1), GET /healthz, /readyz.\n"
    "\n"
    "  --listen [HOST]:PORT          HTTPS address (default :9443; port 0 picks a free port, logged at start-up)\n"
    "  --metrics-listen [HOST]:PORT  plain-HTTP /metrics, /healthz, /readyz (default :8080; \"\" disables)\n"
    "  --cert FILE, --key FILE       serving certificate (with intermediates) and key, PEM; reloaded on change\n"
    "  --client-ca FILE              require client certificates signed by this CA bundle (mTLS)\n"
    "  --config FILE                 configuration (README.md#configuration); reloaded on change\n"
    "  --inventory PATH              inventory for the infeasible rule: a file or a directory (its .yaml, .yml,\n"
    "                                .json files, recursively); repeatable; reloaded on change\n"
    "  --threads N                   worker threads (default: number of CPUs)\n"
    "  --tls-min-version 1.2|1.3     lowest TLS version accepted (default 1.2)\n"
    "  --http2                       refused (exit 2): HTTP/2 bodies escape the byte budget (kube-apiserver speaks HTTP/1.1)\n"
    "  --max-body-bytes N            request body cap, bytes; Ki/Mi suffixes allowed (default 4Mi; 413 above)\n"
    "  --request-timeout DURATION    a request must arrive, and an answer be taken, within this; idle keep-alive\n"
    "                                timeout (default 30s)\n"
    "  --handshake-timeout DURATION  TLS handshake deadline (default 10s)\n"
    "  --shutdown-grace DURATION     longest drain after SIGTERM/SIGINT (default 10s)\n"
    "  --reload-interval DURATION    how often watched files are checked (default 1s)\n"
    "  --log-level LEVEL             debug | info | warn | error (default info)\n"
    "\n"
    "Limits under attack (docs/webhook.md#limits); above either, new connections are closed at once:\n"
    "  --max-connections N           open webhook connections, TLS handshakes included (default 128)\n"
    "  --max-inflight-bytes N        bytes buffered for requests on all connections; Ki/Mi (default 16Mi)\n"
    "  --judge-threads N             threads judging reviews too heavy for a worker's loop (default: --threads)\n"
    "  --search-deadline DURATION    a review's placement search stops then, and warns (default 2s)\n"
    "\n"
    "Self-managed certificates (instead of --cert/--key; docs/deploy.md#certificates), from the API server:\n"
    "  --cert-secret NAME            the Secret holding the CA and serving certificate (created when missing)\n"
    "  --cert-namespace NS           its namespace, and the Service's\n"
    "  --cert-service NAME           the Service kube-apiserver calls (the certificate's names)\n"
    "  --webhook-config-name NAME    the Validating/MutatingWebhookConfiguration whose caBundle is kept current\n"
    "  --cert-dir DIR                writable directory the serving certificate and key are written to\n"
    "  --cert-days N, --cert-ca-days N   lifetimes (default 365 and 3650)\n"
    "  --cert-renew-before DURATION  renew what has less than this left (default 30d)\n"
    "  --cert-switch-delay DURATION  between trusting a new CA and serving from it (default 5m)\n"
    "  --cert-sync-interval DURATION how often the Secret and caBundle are checked (default 1m)\n"
    "Inventory from the cluster instead of files (docs/cluster.md):\n"
    "  --cluster-inventory           watch Nodes, Koordinator Devices and Pods; /readyz waits for the first sync\n"
    "                                (with --inventory: node templates of autoscaled pools; reloaded on change)\n"
    "  --kubeconfig FILE             (default: the service account in a Pod, else $KUBECONFIG, ~/.kube/config)\n"
    "  --context NAME                kubeconfig context (default: current-context)\n"
    "  --inventory-stale-after DURATION  watches broken this long: infeasible warns, denies nothing (default 5m)\n"
    "  --serve-before-sync           ready at once; infeasible is silent until the first sync\n"
    "Webhook configurations registered by the server once it is ready (docs/deploy.md#registration):\n"
    "  --register-webhooks DIR       the configurations to create or update, one per file (.json, .yaml)\n"
    "  --register-owner NAME         the ClusterRole that owns them (deleting it deletes them)\n"
    "  --register-service NS/NAME    the Service they call: nothing is registered before it has a ready endpoint\n"
    "  --register-ca-file FILE       PEM caBundle for webhooks that have none yet (neither in the file nor live)\n"
    "  --register-interval DURATION  how often they are checked once registered (default 1m)\n"
    "\n"
    "DURATION (every duration flag): an integer with ms, s, m, h or d (\"500ms\", \"10s\", \"5m\", \"12h\", \"30d\");\n"
    "a bare integer counts seconds. Server timeouts and intervals: 1ms to 1d; certificate times: whole seconds.\n";

#define DEFAULT_STALE_AFTER_MS (5 * 60 * 1000u)

enum {
    OPT_LISTEN = 256,
    OPT_METRICS,
    OPT_CERT,
    OPT_KEY,
    OPT_CLIENT_CA,
    OPT_CONFIG,
    OPT_INVENTORY,
    OPT_THREADS,
    OPT_TLS_MIN,
    OPT_HTTP2,
    OPT_MAX_BODY,
    OPT_REQ_TIMEOUT,
    OPT_HS_TIMEOUT,
    OPT_GRACE,
    OPT_RELOAD,
    OPT_LOG_LEVEL,
    OPT_HELP,
    /* limits under attack */
    OPT_MAX_CONNECTIONS,
    OPT_MAX_INFLIGHT,
    OPT_JUDGE_THREADS,
    OPT_SEARCH_DEADLINE,
    /* self-managed certificates */
    OPT_CERT_SECRET,
    OPT_CERT_NAMESPACE,
    OPT_CERT_SERVICE,
    OPT_CERT_WEBHOOK_CONFIG,
    OPT_CERT_DIR,
    OPT_CERT_DAYS,
    OPT_CERT_CA_DAYS,
    OPT_CERT_RENEW,
    OPT_CERT_SWITCH,
    OPT_CERT_INTERVAL,
    /* the cluster inventory (cli/daemon/live.h) */
    OPT_CLUSTER_INVENTORY,
    OPT_KUBECONFIG,
    OPT_CONTEXT,
    OPT_STALE_AFTER,
    OPT_SERVE_BEFORE_SYNC,
    /* webhook registration (cli/daemon/registrar.h) */
    OPT_REGISTER_WEBHOOKS,
    OPT_REGISTER_OWNER,
    OPT_REGISTER_SERVICE,
    OPT_REGISTER_CA_FILE,
    OPT_REGISTER_INTERVAL,
};

static const struct option long_opts[] = {
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"metrics-listen", required_argument, NULL, OPT_METRICS},
    {"cert", required_argument, NULL, OPT_CERT},
    {"key", required_argument, NULL, OPT_KEY},
    {"client-ca", required_argument, NULL, OPT_CLIENT_CA},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"inventory", required_argument, NULL, OPT_INVENTORY},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"tls-min-version", required_argument, NULL, OPT_TLS_MIN},
    {"http2", no_argument, NULL, OPT_HTTP2},
    {"max-body-bytes", required_argument, NULL, OPT_MAX_BODY},
    {"request-timeout", required_argument, NULL, OPT_REQ_TIMEOUT},
    {"handshake-timeout", required_argument, NULL, OPT_HS_TIMEOUT},
    {"shutdown-grace", required_argument, NULL, OPT_GRACE},
    {"reload-interval", required_argument, NULL, OPT_RELOAD},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"help", no_argument, NULL, OPT_HELP},
    {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
    {"max-inflight-bytes", required_argument, NULL, OPT_MAX_INFLIGHT},
    {"judge-threads", required_argument, NULL, OPT_JUDGE_THREADS},
    {"search-deadline", required_argument, NULL, OPT_SEARCH_DEADLINE},
    {"cert-secret", required_argument, NULL, OPT_CERT_SECRET},
    {"cert-namespace", required_argument, NULL, OPT_CERT_NAMESPACE},
    {"cert-service", required_argument, NULL, OPT_CERT_SERVICE},
    {"webhook-config-name", required_argument, NULL, OPT_CERT_WEBHOOK_CONFIG},
    {"cert-dir", required_argument, NULL, OPT_CERT_DIR},
    {"cert-days", required_argument, NULL, OPT_CERT_DAYS},
    {"cert-ca-days", required_argument, NULL, OPT_CERT_CA_DAYS},
    {"cert-renew-before", required_argument, NULL, OPT_CERT_RENEW},
    {"cert-switch-delay", required_argument, NULL, OPT_CERT_SWITCH},
    {"cert-sync-interval", required_argument, NULL, OPT_CERT_INTERVAL},
    {"cluster-inventory", no_argument, NULL, OPT_CLUSTER_INVENTORY},
    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
    {"context", required_argument, NULL, OPT_CONTEXT},
    {"inventory-stale-after", required_argument, NULL, OPT_STALE_AFTER},
    {"serve-before-sync", no_argument, NULL, OPT_SERVE_BEFORE_SYNC},
    {"register-webhooks", required_argument, NULL, OPT_REGISTER_WEBHOOKS},
    {"register-owner", required_argument, NULL, OPT_REGISTER_OWNER},
    {"register-service", required_argument, NULL, OPT_REGISTER_SERVICE},
    {"register-ca-file", required_argument, NULL, OPT_REGISTER_CA_FILE},
    {"register-interval", required_argument, NULL, OPT_REGISTER_INTERVAL},
    {NULL, 0, NULL, 0},
};

/* A whole number with an optional unit from units[] (multipliers alongside), within [min, max]. */
static int parse_scaled(const char *s, const char *const *units, const uint64_t *mult, uint64_t min, uint64_t max,
                        uint64_t dflt_mult, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    uint64_t m = 0;
    if (*end == '\0')
        m = dflt_mult;
    for (size_t i = 0; units[i] != NULL && m == 0; i++)
        if (strcmp(end, units[i]) == 0)
            m = mult[i];
    if (m == 0 || (v != 0 && v > UINT64_MAX / m))
        return -1;
    uint64_t r = (uint64_t)v * m;
    if (r < min || r > max)
        return -1;
    *out = r;
    return 0;
}

/* The one syntax of every DURATION flag (documented once, at the end of --help): an integer with ms, s, m, h
 * or d; a bare integer counts seconds. Milliseconds, within [min_ms, max_ms]. */
static int parse_duration(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *ms)
{
    static const char *const units[] = {"ms", "s", "m", "h", "d", NULL};
    static const uint64_t mult[] = {1, 1000, 60000, 3600000, 86400000};
    return parse_scaled(s, units, mult, min_ms, max_ms, 1000, ms);
}

/* Bytes from "4194304", "512Ki", "4Mi"; 1 KiB to 1 GiB. */
static int parse_bytes(const char *s, uint64_t *bytes)
{
    static const char *const units[] = {"Ki", "Mi", NULL};
    static const uint64_t mult[] = {1024, 1024 * 1024};
    return parse_scaled(s, units, mult, 1024, 1u << 30, 1, bytes);
}

static int bad(const char *flag, const char *value, const char *what)
{
    fprintf(stderr, "gpuadmit serve: %s %s: %s\n", flag, value, what);
    return -1;
}

#define MS_PER_DAY 86400000ull

/* Each duration flag's range. Timeouts and intervals of the server: 1ms to 1d; certificate times are kept
 * in seconds (cluster/certsync.h): whole seconds, 1s to 100 years. */
static int duration_flag(int opt, const char *v, uint64_t *ms)
{
    int certs = opt == OPT_CERT_RENEW || opt == OPT_CERT_SWITCH || opt == OPT_CERT_INTERVAL || opt == OPT_REGISTER_INTERVAL;
    uint64_t min = certs ? 1000 : 1, max = certs ? 36500 * MS_PER_DAY : MS_PER_DAY;
    if (parse_duration(v, min, max, ms) == 0 && (!certs || *ms % 1000 == 0))
        return 0;
    char flag[64];
    snprintf(flag, sizeof(flag), "--%s", long_opts[opt - OPT_LISTEN].name);
    return bad(flag, v,
               certs ? "expected a DURATION in whole seconds from 1s to 36500d (an integer with s, m, h or d, such as 90s, "
                       "5m, 12h, 30d)"
                     : "expected a DURATION from 1ms to 1d (an integer with ms, s, m, h or d, such as 500ms, 10s, 5m, 1h)");
}

/* --max-connections, --max-inflight-bytes, --judge-threads, --search-deadline; 1 when opt is none of them. */
static int apply_limit(gpa_server_opts_t *o, int opt, const char *v)
{
    static const char *const none[] = {NULL};
    uint64_t n;
    switch (opt) {
    case OPT_MAX_CONNECTIONS:
        if (parse_scaled(v, none, NULL, 1, 1000000, 1, &n) != 0)
            return bad("--max-connections", v, "expected a whole number from 1 to 1000000");
        o->max_connections = (unsigned)n;
        return 0;
    case OPT_MAX_INFLIGHT:
        if (parse_bytes(v, &n) != 0)
            return bad("--max-inflight-bytes", v, "expected bytes from 1Ki to 1024Mi (e.g. 16Mi)");
        o->max_inflight_bytes = (size_t)n;
        return 0;
    case OPT_JUDGE_THREADS:
        if (parse_scaled(v, none, NULL, 1, 64, 1, &n) != 0)
            return bad("--judge-threads", v, "expected a whole number from 1 to 64");
        o->judge_threads = (unsigned)n;
        return 0;
    case OPT_SEARCH_DEADLINE:
        if (duration_flag(opt, v, &n) != 0)
            return -1;
        o->search_deadline_ms = n;
        return 0;
    default:
        return 1;
    }
}

typedef struct st_serve_args_t {
    gpa_server_opts_t opts;
    const char **inventory;
    size_t ninventory;
    gpa_certsync_opts_t certsync; /* used when certsync.secret is set */
    int64_t certsync_interval;    /* seconds */
    int certsync_given;           /* the first self-managed-certificate flag given (OPT_CERT_*), 0 when none */
    int cluster_inventory;
    gpa_live_opts_t live;
    gpa_registrar_opts_t registrar; /* used when registrar.reg.dir is set */
    char *register_ns;              /* owned: the namespace of --register-service */
} serve_args_t;

/* ---- self-managed certificates (cluster/certsync.h, daemon/certrun.h): flags, then the run ---------------- */

static int apply_certsync(serve_args_t *a, int opt, const char *v)
{
    gpa_certsync_opts_t *c = &a->certsync;
    static const char *const none[] = {NULL};
    uint64_t n;
    if (opt >= OPT_CERT_SECRET && opt <= OPT_CERT_INTERVAL && a->certsync_given == 0)
        a->certsync_given = opt;
    switch (opt) {
    case OPT_CERT_SECRET:
        c->secret = v;
        return 0;
    case OPT_CERT_NAMESPACE:
        c->ns = v;
        return 0;
    case OPT_CERT_SERVICE:
        c->service = v;
        return 0;
    case OPT_CERT_WEBHOOK_CONFIG:
        c->webhook_config = v;
        return 0;
    case OPT_CERT_DIR:
        c->dir = v;
        return 0;
    case OPT_CERT_DAYS:
    case OPT_CERT_CA_DAYS:
        if (parse_scaled(v, none, NULL, 1, 36500, 1, &n) != 0)
            return bad(opt == OPT_CERT_DAYS ? "--cert-days" : "--cert-ca-days", v,
                       "expected a whole number of days from 1 to 36500");
        *(opt == OPT_CERT_DAYS ? &c->days : &c->ca_days) = (int)n;
        return 0;
    case OPT_CERT_RENEW:
    case OPT_CERT_SWITCH:
    case OPT_CERT_INTERVAL: {
        int64_t *dst = opt == OPT_CERT_RENEW ? &c->renew_before : opt == OPT_CERT_SWITCH ? &c->switch_delay : &a->certsync_interval;
        if (duration_flag(opt, v, &n) != 0)
            return -1;
        *dst = (int64_t)(n / 1000);
        return 0;
    }
    default:
        return -1;
    }
}

/* Whether the self-managed flags are complete (all or none); prints what is missing. */
static int certsync_flags_ok(const serve_args_t *a)
{
    const gpa_certsync_opts_t *c = &a->certsync;
    if (c->secret == NULL && a->certsync_given != 0) { /* it would be ignored: say so rather than serve without it */
        fprintf(stderr,
                "gpuadmit serve: --%s is a self-managed-certificate flag: it needs --cert-secret (and, with it, "
                "replaces --cert/--key)\n",
                long_opts[a->certsync_given - OPT_LISTEN].name);
        return 0;
    }
    if (c->secret == NULL)
        return 1;
    if (c->ns != NULL && c->service != NULL && c->webhook_config != NULL && c->dir != NULL && a->opts.cert == NULL &&
        a->opts.key == NULL)
        return 1;
    fputs("gpuadmit serve: --cert-secret needs --cert-namespace, --cert-service, --webhook-config-name and --cert-dir, "
          "and replaces --cert/--key\n",
          stderr);
    return 0;
}

/* Self-managed certificates (daemon/certrun.h) with --kubeconfig and --context; the server then serves the files
 * the first sync wrote. */
static int certsync_start(serve_args_t *a, gpa_certrun_t *run, char *cert, char *key, size_t size)
{
    if (gpa_certrun_start(run, &a->live.kube, &a->certsync, a->certsync_interval > 0 ? a->certsync_interval : 60) != 0)
        return -1;
    if (snprintf(cert, size, "%s/tls.crt", a->certsync.dir) >= (int)size ||
        snprintf(key, size, "%s/tls.key", a->certsync.dir) >= (int)size)
        return -1;
    a->opts.cert = cert;
    a->opts.key = key;
    return 0;
}

/* ---- webhook registration (cli/daemon/registrar.h) ---- */

static int apply_register(serve_args_t *a, int opt, const char *v)
{
    gpa_register_opts_t *r = &a->registrar.reg;
    const char *slash = strchr(v, '/');
    switch (opt) {
    case OPT_REGISTER_WEBHOOKS:
        r->dir = v;
        return 0;
    case OPT_REGISTER_OWNER:
        r->owner = v;
        return 0;
    case OPT_REGISTER_SERVICE:
        if (slash == NULL || slash == v || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
            return bad("--register-service", v, "expected NAMESPACE/NAME");
        free(a->register_ns);
        a->register_ns = gpa_xstrdup(v);
        a->register_ns[slash - v] = '\0';
        r->ns = a->register_ns;
        r->service = slash + 1;
        return 0;
    case OPT_REGISTER_CA_FILE:
        r->ca_file = v;
        return 0;
    case OPT_REGISTER_INTERVAL: {
        uint64_t ms;
        if (duration_flag(opt, v, &ms) != 0)
            return -1;
        a->registrar.interval = (int64_t)(ms / 1000);
        return 0;
    }
    }
    return -1;
}

/* The registration flags: --register-webhooks with its owner and Service, or none of them. */
static int register_flags_ok(const serve_args_t *a)
{
    const gpa_register_opts_t *r = &a->registrar.reg;
    if (r->dir != NULL ? r->owner != NULL && r->service != NULL
                       : r->owner == NULL && r->service == NULL && r->ca_file == NULL && a->registrar.interval == 0)
        return 1;
    fputs("gpuadmit serve: --register-webhooks needs --register-owner and --register-service, and the other "
          "--register-* flags need it\n",
          stderr);
    return 0;
}

static gpa_registrar_t *start_registrar(serve_args_t *a, gpa_error_t *err)
{
    a->registrar.kube = a->live.kube; /* --kubeconfig and --context, shared */
    return gpa_registrar_start(&a->registrar, err);
}

/* ---- the cluster inventory's flags (cli/daemon/live.h) ---- */

static int apply_cluster(serve_args_t *a, int opt, const char *v)
{
    switch (opt) {
    case OPT_CLUSTER_INVENTORY:
        a->cluster_inventory = 1;
        return 0;
    case OPT_KUBECONFIG:
        a->live.kube.kubeconfig = v;
        return 0;
    case OPT_CONTEXT:
        a->live.kube.context = v;
        return 0;
    case OPT_STALE_AFTER:
        return duration_flag(opt, v, &a->live.stale_after_ms);
    case OPT_SERVE_BEFORE_SYNC:
        a->live.serve_before_sync = 1;
        return 0;
    }
    return -1;
}

/* The cluster flags make sense together only; 0, or -1 after saying why. */
static int check_cluster(const serve_args_t *a)
{
    if (!a->cluster_inventory && a->certsync.secret == NULL && a->registrar.reg.dir == NULL &&
        (a->live.kube.kubeconfig != NULL || a->live.kube.context != NULL))
        fprintf(stderr, "gpuadmit serve: --kubeconfig and --context need --cluster-inventory, --cert-secret or "
                        "--register-webhooks\n");
    else if (!a->cluster_inventory && (a->live.serve_before_sync || a->live.stale_after_ms != DEFAULT_STALE_AFTER_MS))
        fprintf(stderr, "gpuadmit serve: --inventory-stale-after and --serve-before-sync need --cluster-inventory\n");
    else
        return 0;
    return -1;
}

static int apply(serve_args_t *a, int opt, const char *v)
{
    gpa_server_opts_t *o = &a->opts;
    uint64_t n;
    int limit = apply_limit(o, opt, v);
    if (limit != 1)
        return limit;
    switch (opt) {
    case OPT_LISTEN:
        o->listen = v;
        break;
    case OPT_METRICS:
        o->metrics_listen = v;
        break;
    case OPT_CERT:
        o->cert = v;
        break;
    case OPT_KEY:
        o->key = v;
        break;
    case OPT_CLIENT_CA:
        o->client_ca = v;
        break;
    case OPT_CONFIG:
        o->config = v;
        break;
    case OPT_INVENTORY:
        a->inventory = gpa_xrealloc(a->inventory, (a->ninventory + 1) * sizeof(*a->inventory));
        a->inventory[a->ninventory++] = v;
        break;
    case OPT_THREADS: {
        static const char *const none[] = {NULL};
        if (parse_scaled(v, none, NULL, 1, 256, 1, &n) != 0)
            return bad("--threads", v, "expected a whole number from 1 to 256");
        o->threads = (unsigned)n;
        break;
    }
    case OPT_TLS_MIN:
        if (strcmp(v, "1.2") != 0 && strcmp(v, "1.3") != 0)
            return bad("--tls-min-version", v, "expected 1.2 or 1.3");
        o->tls13_only = strcmp(v, "1.3") == 0;
        break;
    case OPT_HTTP2:
        o->http2 = 1;
        break;
    case OPT_MAX_BODY:
        if (parse_bytes(v, &n) != 0)
            return bad("--max-body-bytes", v, "expected bytes from 1Ki to 1024Mi (e.g. 4Mi)");
        o->max_body = (size_t)n;
        break;
    case OPT_REQ_TIMEOUT:
    case OPT_HS_TIMEOUT:
    case OPT_GRACE:
    case OPT_RELOAD:
        if (duration_flag(opt, v, &n) != 0)
            return -1;
        *(opt == OPT_REQ_TIMEOUT  ? &o->request_timeout_ms
          : opt == OPT_HS_TIMEOUT ? &o->handshake_timeout_ms
          : opt == OPT_GRACE      ? &o->shutdown_grace_ms
                                  : &o->reload_interval_ms) = n;
        break;
    case OPT_LOG_LEVEL: {
        gpa_log_level_t level;
        if (gpa_log_parse_level(v, &level) != 0)
            return bad("--log-level", v, "expected debug, info, warn or error");
        gpa_log_set_level(level);
        break;
    }
    default:
        return opt >= OPT_REGISTER_WEBHOOKS   ? apply_register(a, opt, v)
               : opt >= OPT_CLUSTER_INVENTORY ? apply_cluster(a, opt, v)
                                              : apply_certsync(a, opt, v);
    }
    return 0;
}

/* 0 to serve, or the exit code (help: 0, usage error: 2). */
static int parse(serve_args_t *a, int argc, char **argv, int *exit_code)
{
    int opt;
    optind = 1;
    opterr = 1;
    while ((opt = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            fputs(usage_text, stdout);
            *exit_code = GPA_EXIT_OK;
            return -1;
        }
        if (opt == '?' || opt == ':' || apply(a, opt, optarg) != 0) {
            if (opt == '?' || opt == ':')
                fprintf(stderr, "gpuadmit serve: unknown option or missing value: %s\n", argv[optind - 1]);
            fputs("try: gpuadmit serve --help\n", stderr);
            *exit_code = GPA_EXIT_USAGE;
            return -1;
        }
    }
    if (!certsync_flags_ok(a) || !register_flags_ok(a) || check_cluster(a) != 0) {
        fputs("try: gpuadmit serve --help\n", stderr);
        *exit_code = GPA_EXIT_USAGE;
        return -1;
    }
    if (optind < argc || (a->certsync.secret == NULL && (a->opts.cert == NULL || a->opts.key == NULL))) {
        fprintf(stderr,
                optind < argc ? "gpuadmit serve: unexpected argument: %s\n" : "gpuadmit serve: --cert and --key are required%s\n",
                optind < argc ? argv[optind] : "");
        fputs("try: gpuadmit serve --help\n", stderr);
        *exit_code = GPA_EXIT_USAGE;
        return -1;
    }
    return 0;
}

/* ---- the webhook's loader: cli/input/load.h, its first error kept as the one-line reason the webhook logs ---- */

static int load_files(void *ctx, const char *const *paths, size_t npaths, char ***files, size_t *nfiles, char *err, size_t errsize)
{
    (void)ctx;
    gpa_load_first_t f = {err, errsize, 0};
    gpa_load_report_t rep = {gpa_load_keep_first, &f, NULL};
    gpa_load_files_t list = {0};
    if (gpa_load_files(paths, npaths, &list, &rep) != 0) {
        gpa_load_files_dispose(&list);
        return -1;
    }
    *files = list.items;
    *nfiles = list.len;
    return 0;
}

static gpa_config_t *load_config(void *ctx, const char *path, char *err, size_t errsize)
{
    (void)ctx;
    gpa_load_first_t f = {err, errsize, 0};
    gpa_load_report_t rep = {gpa_load_keep_first, &f, NULL};
    gpa_config_t *cfg = NULL;
    return gpa_load_config(path, &cfg, &rep) == 0 ? cfg : NULL;
}

/* An object the inventory read in part (a Pod that holds nothing, a Node without its HAMi cards): logged at every load
 * and reload; the error names it and says why. */
static void log_warning(void *ctx, const gpa_error_t *why)
{
    char line[1024];
    (void)ctx;
    gpa_error_format(why, line, sizeof(line));
    gpa_log_msg(GPA_LOG_WARN, "inventory: an object is read in part: an annotation or spec cannot be read", line);
}

static gpa_inventory_t *load_inventory(void *ctx, const gpa_config_t *cfg, const char *const *files, size_t nfiles, char *err,
                                       size_t errsize)
{
    (void)ctx;
    gpa_load_first_t f = {err, errsize, 0};
    gpa_load_report_t rep = {gpa_load_keep_first, &f, log_warning};
    gpa_inventory_t *inv = NULL;
    return gpa_load_inventory_files_with(cfg, files, nfiles, &inv, &rep) == 0 ? inv : NULL;
}

static const gpa_reload_loader_t loader = {load_files, load_config, load_inventory, NULL};

/* --inventory beside --cluster-inventory: node templates only (the cluster has the nodes and the usage), read at start
 * into a.live.templates, then watched by the live view (cli/daemon/live.h). 0, or -1 after logging why. */
static int load_templates(serve_args_t *a)
{
    char why[768] = "";
    gpa_load_first_t f = {why, sizeof(why), 0};
    gpa_load_report_t rep = {gpa_load_keep_first, &f, NULL};
    gpa_error_t err = {0};
    if (a->ninventory == 0)
        return 0;
    a->live.template_paths = a->inventory;
    a->live.ntemplate_paths = a->ninventory;
    a->live.reload_every_ms = a->opts.reload_interval_ms;
    if (gpa_load_inventory(a->inventory, a->ninventory, &a->live.templates, &rep) == 0 &&
        gpa_inventory_templates_only(a->live.templates, &err) == 0)
        return 0;
    if (!f.set)
        gpa_error_format(&err, why, sizeof(why));
    gpa_log_msg(GPA_LOG_ERROR, "cannot read the node templates given beside --cluster-inventory", why);
    return -1;
}

int gpa_cmd_serve(int argc, char **argv)
{
    serve_args_t a;
    memset(&a, 0, sizeof(a));
    gpa_server_opts_init(&a.opts);
    gpa_certsync_opts_init(&a.certsync);
    a.live.stale_after_ms = DEFAULT_STALE_AFTER_MS;
    int code = GPA_EXIT_USAGE;
    gpa_certrun_t run = {0};
    char cert[4096], key[4096];
    if (parse(&a, argc, argv, &code) == 0) {
        gpa_live_t *live = NULL;
        gpa_registrar_t *registrar = NULL;
        gpa_error_t err = {0};
        char why[768];
        gpa_error_init(&err, NULL);
        if (a.certsync.secret != NULL && certsync_start(&a, &run, cert, key, sizeof(cert)) != 0) {
            code = GPA_EXIT_USAGE; /* a start-up failure, as an unreadable certificate (docs/webhook.md) */
        } else if (a.cluster_inventory && load_templates(&a) != 0) {
            code = GPA_EXIT_USAGE;
        } else if (a.cluster_inventory && (live = gpa_live_start(&a.live, &err)) == NULL) {
            gpa_error_format(&err, why, sizeof(why));
            gpa_log_msg(GPA_LOG_ERROR, "cannot watch the cluster", why);
            code = GPA_EXIT_USAGE;
        } else if (a.registrar.reg.dir != NULL && (registrar = start_registrar(&a, &err)) == NULL) {
            gpa_error_format(&err, why, sizeof(why));
            gpa_log_msg(GPA_LOG_ERROR, "cannot register the webhooks", why);
            code = GPA_EXIT_USAGE;
        } else {
            a.opts.loader = &loader;
            a.opts.inventory = a.inventory;
            a.opts.ninventory = a.cluster_inventory ? 0 : a.ninventory; /* beside the cluster: its templates, above */
            code = gpa_server_run(&a.opts);
        }
        gpa_registrar_stop(registrar); /* first: it reads the server's readiness */
        gpa_live_stop(live);
        gpa_inventory_release(a.live.templates);
        gpa_certrun_stop(&run);
    }
    free(a.inventory);
    free(a.register_ns);
    return code;
}
