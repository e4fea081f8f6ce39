/*
 * gpuadmit certs: a CA and a serving certificate for the webhook's Service (README.md#the-cli). The work is in certs/;
 * this file reads the options and reports. stdout carries only the caBundle, so `$(gpuadmit certs ...)` can be
 * passed straight to Helm; everything for people goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "certs.h"
#include "cli.h"

static void usage(FILE *out, const char *verb)
{
    fprintf(out,
            "usage: gpuadmit %s --service S --namespace NS --out DIR [--days N] [--ca-days N]\n"
            "                     [--extra-san NAME]... [--rsa]\n\n"
            "Makes a self-signed CA and a serving certificate for the webhook's Service, valid for S, S.NS,\n"
            "S.NS.svc, S.NS.svc.cluster.local and every --extra-san NAME (an IP address, or a DNS name).\n"
            "Writes DIR/ca.crt, DIR/ca.key, DIR/tls.crt and DIR/tls.key (keys mode 0600, each file replaced\n"
            "atomically) and prints the base64 caBundle for the webhook configurations on stdout.\n"
            "A CA already in DIR (ca.crt + ca.key) is reused, so rotating the serving certificate keeps trust.\n\n"
            "options:\n"
            "  --service S        the webhook's Service name (required)\n"
            "  --namespace NS     its namespace (required)\n"
            "  --out DIR          output directory, created when missing (required)\n"
            "  --days N           serving certificate lifetime in days (default %d, at most %d)\n"
            "  --ca-days N        lifetime of a new CA in days (default %d; never less than --days)\n"
            "  --extra-san NAME   one more name; repeat it, or separate names with commas\n"
            "  --rsa              RSA 2048 keys instead of ECDSA P-256\n"
            "  -h, --help         this text\n"
            "exit codes: 0 written, 2 usage error or a certificate could not be made (the reason is printed)\n",
            verb, GPA_CERTS_DEFAULT_DAYS, GPA_CERTS_MAX_DAYS, GPA_CERTS_DEFAULT_CA_DAYS);
}

/* A whole number of days: decimal digits only, no sign, at most GPA_CERTS_MAX_DAYS (range checked later). */
static int parse_days(const char *s, int *out)
{
    long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > GPA_CERTS_MAX_DAYS)
            return -1;
    }
    *out = (int)v;
    return 0;
}

typedef struct st_args_t {
    gpa_certs_options_t opts;
    GPA_VEC(const char *) sans;
    gpa_arena_t arena;
    int help;
} args_t;

/* Splits a comma-separated --extra-san value into names (empty entries are kept, so they are reported). */
static void add_sans(args_t *args, const char *value)
{
    for (;;) {
        const char *comma = strchr(value, ',');
        size_t n = comma != NULL ? (size_t)(comma - value) : strlen(value);
        *gpa_vec_push(&args->arena, &args->sans) = gpa_arena_strndup(&args->arena, value, n);
        if (comma == NULL)
            return;
        value = comma + 1;
    }
}

/* Applies one option that takes a value; 0, or -1 with a message on stderr. */
static int apply(args_t *args, const char *verb, const char *name, const char *value)
{
    gpa_certs_options_t *o = &args->opts;
    if (strcmp(name, "--service") == 0)
        o->service = value;
    else if (strcmp(name, "--namespace") == 0 || strcmp(name, "-n") == 0)
        o->ns = value;
    else if (strcmp(name, "--out") == 0)
        o->out_dir = value;
    else if (strcmp(name, "--extra-san") == 0)
        add_sans(args, value);
    else if (strcmp(name, "--days") == 0 || strcmp(name, "--ca-days") == 0) {
        int *dst = name[2] == 'd' ? &o->days : &o->ca_days;
        if (parse_days(value, dst) != 0) {
            fprintf(stderr, "gpuadmit %s: %s \"%s\": must be a whole number of days from 1 to %d\n", verb, name, value,
                    GPA_CERTS_MAX_DAYS);
            return -1;
        }
    } else {
        fprintf(stderr, "gpuadmit %s: unknown option %s (see --help)\n", verb, name);
        return -1;
    }
    return 0;
}

static int takes_value(const char *name)
{
    static const char *const names[] = {"--service", "--namespace", "-n", "--out", "--extra-san", "--days", "--ca-days"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static int is_flag(const char *name)
{
    return strcmp(name, "--rsa") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0;
}

/* Reads argv into args; accepts "--opt value" and "--opt=value". */
static int parse(args_t *args, int argc, char **argv)
{
    const char *verb = argv[0];
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *arg = argv[i], *eq = strchr(arg, '='), *value;
        if (is_flag(arg)) {
            if (strcmp(arg, "--rsa") == 0)
                args->opts.key_type = GPA_CERTS_KEY_RSA_2048;
            else
                args->help = 1;
            continue;
        }
        if (arg[0] != '-') {
            fprintf(stderr, "gpuadmit %s: unexpected argument \"%s\" (see --help)\n", verb, arg);
            return -1;
        }
        snprintf(name, sizeof(name), "%.*s", eq != NULL ? (int)(eq - arg) : (int)strlen(arg), arg);
        if (eq != NULL && is_flag(name)) {
            fprintf(stderr, "gpuadmit %s: %s takes no value\n", verb, name);
            return -1;
        }
        if (!takes_value(name)) {
            fprintf(stderr, "gpuadmit %s: unknown option %s (see --help)\n", verb, name);
            return -1;
        }
        if (eq != NULL)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else {
            fprintf(stderr, "gpuadmit %s: %s needs a value (see --help)\n", verb, arg);
            return -1;
        }
        if (apply(args, verb, name, value) != 0)
            return -1;
    }
    return 0;
}

static void report(const char *verb, const gpa_certs_options_t *o, const gpa_certs_result_t *res)
{
    char when[32] = "?";
    time_t t = (time_t)res->not_after;
    struct tm tm;
    if (gmtime_r(&t, &tm) != NULL)
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(stderr, "gpuadmit %s: %s CA %s/ca.crt; serving certificate %s/tls.crt for %s, valid until %s\n", verb,
            res->ca_reused ? "reused the" : "made a new", o->out_dir, o->out_dir, res->sans, when);
}

int gpa_cmd_certs(int argc, char **argv)
{
    const char *verb = argv[0];
    args_t args;
    memset(&args, 0, sizeof(args));
    gpa_certs_options_init(&args.opts);
    int rc = GPA_EXIT_USAGE;
    if (parse(&args, argc, argv) != 0)
        goto Exit;
    if (args.help) {
        usage(stdout, verb);
        rc = GPA_EXIT_OK;
        goto Exit;
    }
    args.opts.extra_sans = args.sans.items;
    args.opts.nextra_sans = args.sans.len;
    gpa_error_t err = {0};
    gpa_error_init(&err, NULL);
    gpa_certs_result_t res;
    if (gpa_certs_generate(&args.opts, &res, &err) != 0) {
        fprintf(stderr, "gpuadmit %s: %s\n", verb, err.message);
        goto Exit;
    }
    printf("%s\n", res.ca_bundle);
    fflush(stdout);
    report(verb, &args.opts, &res);
    gpa_certs_result_dispose(&res);
    rc = GPA_EXIT_OK;
Exit:
    gpa_arena_dispose(&args.arena);
    return rc;
}
