/*
 * A certificate's expiry (notAfter) as seconds since the epoch (UTC): the one computation, used by `gpuadmit
 * certs` for its result and by the webhook for gpuadmit_certificate_expiry_seconds. Exact integer arithmetic:
 * no time_t conversion that depends on the local time zone or on the width of time_t, no floating point.
 */
#ifndef GPA_CERTS_EXPIRY_H
#define GPA_CERTS_EXPIRY_H

#include <stdint.h>

#include "base/error.h"

/* OpenSSL's X509 (struct x509_st), declared here so this header does not pull in OpenSSL's. */
struct x509_st;

/* The notAfter of a parsed certificate (borrowed). Returns 0, or -1 with err when it has none readable. */
int gpa_certs_not_after_x509(const struct x509_st *cert, int64_t *out, gpa_error_t *err);

#endif
