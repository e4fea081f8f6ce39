/*
 * Option checks and the serving certificate's subject alternative names.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/x509v3.h>

#include "base/arena.h"
#include "base/buf.h"
#include "options.h"

void gpa_certs_options_init(gpa_certs_options_t *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->days = GPA_CERTS_DEFAULT_DAYS;
    opts->ca_days = GPA_CERTS_DEFAULT_CA_DAYS;
    opts->key_type = GPA_CERTS_KEY_ECDSA_P256;
}

static int is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* A Kubernetes DNS label: lower-case letters, digits and '-', alphanumeric at both ends, 1..63 characters;
 * `letter_first` adds DNS-1035's rule (Service names) that it starts with a letter. */
static const char *label_problem(const char *s, int letter_first)
{
    size_t n = strlen(s);
    if (n == 0)
        return "is empty";
    if (n > 63)
        return "is longer than 63 characters";
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return "may hold only lower-case letters, digits and '-'";
    if (letter_first && !(s[0] >= 'a' && s[0] <= 'z'))
        return "must start with a letter";
    if (!is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return "must start and end with a letter or digit";
    return NULL;
}

static int is_ip(const char *s, unsigned char *bin, int *len)
{
    if (inet_pton(AF_INET, s, bin) == 1) {
        *len = 4;
        return 1;
    }
    if (inet_pton(AF_INET6, s, bin) == 1) {
        *len = 16;
        return 1;
    }
    return 0;
}

static int dns_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* One label of a DNS name: 1..63 letters, digits, '-', not starting or ending with '-'. */
static const char *dns_label_problem(const char *s, size_t n)
{
    if (n == 0)
        return "has an empty label";
    if (n > 63)
        return "has a label longer than 63 characters";
    for (size_t i = 0; i < n; i++)
        if (!dns_char_ok(s[i]))
            return "may hold only letters, digits, '-' and '.' (and a leading \"*.\")";
    if (s[0] == '-' || s[n - 1] == '-')
        return "has a label that starts or ends with '-'";
    return NULL;
}

/* Whether a name is usable as a DNS SAN; a leading "*." wildcard is allowed when more than one label follows. */
static const char *dns_problem(const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return "is empty";
    if (n > 253)
        return "is longer than 253 characters";
    const char *p = name, *last = name;
    if (strncmp(p, "*.", 2) == 0) {
        p += 2;
        if (strchr(p, '.') == NULL)
            return "is a wildcard over a single label";
    }
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        const char *why = dns_label_problem(p, len);
        if (why != NULL)
            return why;
        last = p;
        if (dot == NULL)
            break;
        p = dot + 1;
    }
    if (strspn(last, "0123456789") == strlen(last))
        return "looks like an IP address but does not parse as one";
    return NULL;
}

static int check_days(const char *opt, int days, gpa_error_t *err)
{
    if (days < 1 || days > GPA_CERTS_MAX_DAYS)
        return gpa_error_set(err, 0, 0, "", "%s %d: must be a whole number of days from 1 to %d", opt, days, GPA_CERTS_MAX_DAYS);
    return 0;
}

int gpa_certs_check_options(const gpa_certs_options_t *opts, gpa_error_t *err)
{
    const char *why;
    if (opts->service == NULL)
        return gpa_error_set(err, 0, 0, "", "--service is required");
    if ((why = label_problem(opts->service, 1)) != NULL)
        return gpa_error_set(err, 0, 0, "", "--service \"%s\": a Service name %s", opts->service, why);
    if (opts->ns == NULL)
        return gpa_error_set(err, 0, 0, "", "--namespace is required");
    if ((why = label_problem(opts->ns, 0)) != NULL)
        return gpa_error_set(err, 0, 0, "", "--namespace \"%s\": a namespace name %s", opts->ns, why);
    if (opts->out_dir == NULL || opts->out_dir[0] == '\0')
        return gpa_error_set(err, 0, 0, "", "--out is required");
    if (check_days("--days", opts->days, err) != 0 || check_days("--ca-days", opts->ca_days, err) != 0)
        return -1;
    if (opts->nextra_sans > GPA_CERTS_MAX_EXTRA_SANS)
        return gpa_error_set(err, 0, 0, "", "--extra-san: at most %d names", GPA_CERTS_MAX_EXTRA_SANS);
    for (size_t i = 0; i < opts->nextra_sans; i++) {
        unsigned char bin[16];
        int len;
        const char *name = opts->extra_sans[i];
        if (name == NULL)
            return gpa_error_set(err, 0, 0, "", "--extra-san: a name is missing");
        if (is_ip(name, bin, &len))
            continue;
        if ((why = dns_problem(name)) != NULL)
            return gpa_error_set(err, 0, 0, "", "--extra-san \"%s\": not an IP address, and as a DNS name it %s", name, why);
    }
    if (opts->key_type != GPA_CERTS_KEY_ECDSA_P256 && opts->key_type != GPA_CERTS_KEY_RSA_2048)
        return gpa_error_set(err, 0, 0, "", "unknown key type %d", (int)opts->key_type);
    return 0;
}

/* Appends one name unless an equal one (ignoring case) is already in `seen`. */
static int add_name(GENERAL_NAMES *gens, gpa_buf_t *seen, const char *name, gpa_error_t *err)
{
    /* `seen` is ",a,b,c," so a lookup of ",name," finds whole entries only. */
    size_t n = strlen(name);
    char *needle = gpa_xmalloc(n + 3);
    snprintf(needle, n + 3, ",%s,", name);
    int dup = seen->base != NULL && strcasestr(seen->base, needle) != NULL;
    free(needle);
    if (dup)
        return 0;
    unsigned char bin[16];
    int len;
    GENERAL_NAME *gen = GENERAL_NAME_new();
    if (gen == NULL)
        return gpa_error_set(err, 0, 0, "", "out of memory building the certificate's names");
    int ok;
    if (is_ip(name, bin, &len)) {
        ASN1_OCTET_STRING *ip = ASN1_OCTET_STRING_new();
        ok = ip != NULL && ASN1_OCTET_STRING_set(ip, bin, len) == 1;
        GENERAL_NAME_set0_value(gen, GEN_IPADD, ip);
    } else {
        ASN1_IA5STRING *dns = ASN1_IA5STRING_new();
        ok = dns != NULL && ASN1_STRING_set(dns, name, (int)n) == 1;
        GENERAL_NAME_set0_value(gen, GEN_DNS, dns);
    }
    if (!ok || sk_GENERAL_NAME_push(gens, gen) == 0) {
        GENERAL_NAME_free(gen);
        return gpa_error_set(err, 0, 0, "", "out of memory building the certificate's names");
    }
    gpa_buf_puts(seen, name);
    gpa_buf_putc(seen, ',');
    return 0;
}

GENERAL_NAMES *gpa_certs_sans_build(const gpa_certs_options_t *opts, char **joined, gpa_error_t *err)
{
    const char *s = opts->service, *ns = opts->ns;
    char *fixed[4] = {
        gpa_xstrdup(s),
        gpa_xmalloc(strlen(s) + strlen(ns) + 2),
        gpa_xmalloc(strlen(s) + strlen(ns) + 6),
        gpa_xmalloc(strlen(s) + strlen(ns) + 22),
    };
    sprintf(fixed[1], "%s.%s", s, ns);
    sprintf(fixed[2], "%s.%s.svc", s, ns);
    sprintf(fixed[3], "%s.%s.svc.cluster.local", s, ns);
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    gpa_buf_t seen = GPA_BUF_INIT;
    gpa_buf_putc(&seen, ',');
    int rc = gens == NULL ? gpa_error_set(err, 0, 0, "", "out of memory building the certificate's names") : 0;
    for (size_t i = 0; rc == 0 && i < 4; i++)
        rc = add_name(gens, &seen, fixed[i], err);
    for (size_t i = 0; rc == 0 && i < opts->nextra_sans; i++)
        rc = add_name(gens, &seen, opts->extra_sans[i], err);
    for (size_t i = 0; i < 4; i++)
        free(fixed[i]);
    if (rc != 0) {
        GENERAL_NAMES_free(gens);
        gpa_buf_dispose(&seen);
        return NULL;
    }
    /* ",a,b," -> "a,b" */
    seen.base[seen.len - 1] = '\0';
    *joined = gpa_xstrdup(seen.base + 1);
    gpa_buf_dispose(&seen);
    return gens;
}
