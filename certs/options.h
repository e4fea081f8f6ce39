/*
 * What `gpuadmit certs` is asked to make (certs.h): the Service's names, lifetimes, key type and extra names,
 * their checks, and the serving certificate's subject alternative names that follow from them.
 */
#ifndef GPA_CERTS_OPTIONS_H
#define GPA_CERTS_OPTIONS_H

#include <stddef.h>

#include "base/error.h"

/* OpenSSL's GENERAL_NAMES (STACK_OF(GENERAL_NAME)), declared here so this header does not pull in OpenSSL's. */
struct stack_st_GENERAL_NAME;

typedef enum en_gpa_certs_key_t {
    GPA_CERTS_KEY_ECDSA_P256, /* default */
    GPA_CERTS_KEY_RSA_2048,
} gpa_certs_key_t;

#define GPA_CERTS_DEFAULT_DAYS 365
#define GPA_CERTS_DEFAULT_CA_DAYS 3650
#define GPA_CERTS_MAX_DAYS 36500 /* 100 years; also keeps every time computation far from overflow */
#define GPA_CERTS_MAX_EXTRA_SANS 64

typedef struct st_gpa_certs_options_t {
    const char *service;           /* Kubernetes Service name (DNS-1035 label), required */
    const char *ns;                /* its namespace (DNS-1123 label), required */
    const char *out_dir;           /* created (mode 0755) when missing; its parent must exist */
    int days;                      /* serving certificate lifetime, 1..GPA_CERTS_MAX_DAYS */
    int ca_days;                   /* lifetime of a new CA, days..GPA_CERTS_MAX_DAYS (raised to `days` if lower) */
    const char *const *extra_sans; /* more names: an IPv4/IPv6 address becomes an IP SAN, anything else must
                                      be a DNS name (a leading "*." wildcard is allowed) */
    size_t nextra_sans;
    gpa_certs_key_t key_type; /* of the serving key, and of the CA key when a new CA is made */
} gpa_certs_options_t;

/* Fills opts with the defaults: no service/namespace/dir, 365 days, CA 3650 days, ECDSA P-256. */
void gpa_certs_options_init(gpa_certs_options_t *opts);

/*
 * Checks the options without touching the file system: names, day counts, each extra SAN. On error the message
 * says which option is wrong and why (the CLI turns that into exit 2).
 */
int gpa_certs_check_options(const gpa_certs_options_t *opts, gpa_error_t *err);

/*
 * The serving certificate's names: S, S.NS, S.NS.svc, S.NS.svc.cluster.local, then the extra names in order,
 * duplicates (compared without case) dropped. Returns new GENERAL_NAMES (caller frees with
 * GENERAL_NAMES_free) and, in *joined, a new comma-separated list (caller frees). Options must have passed
 * gpa_certs_check_options().
 */
struct stack_st_GENERAL_NAME *gpa_certs_sans_build(const gpa_certs_options_t *opts, char **joined, gpa_error_t *err);

#endif
