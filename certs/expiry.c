/*
 * A certificate's notAfter as seconds since the epoch, for the webhook's expiry metric. Exact integer
 * arithmetic: no time_t conversions that depend on the local time zone, no floating point.
 */
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "certs_int.h"

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int gpa_certs_not_after_x509(const struct x509_st *cert, int64_t *out, gpa_error_t *err)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const ASN1_TIME *t = cert != NULL ? X509_get0_notAfter(cert) : NULL;
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1)
        return gpa_error_set(err, 0, 0, "", "the certificate has no readable notAfter time");
    /* ASN1_TIME_to_tm fills tm as UTC; tm_year counts from 1900 and tm_mon from 0, both bounded by ASN.1. */
    int64_t days = days_from_civil((int64_t)tm.tm_year + 1900, (int64_t)tm.tm_mon + 1, tm.tm_mday);
    *out = days * 86400 + (int64_t)tm.tm_hour * 3600 + (int64_t)tm.tm_min * 60 + tm.tm_sec;
    return 0;
}

int gpa_certs_not_after_file(const char *path, int64_t *out, gpa_error_t *err)
{
    X509 *cert = gpa_certs_read_cert(path, err);
    if (cert == NULL)
        return -1;
    int rc = gpa_certs_not_after_x509(cert, out, err);
    X509_free(cert);
    return rc;
}

int gpa_certs_not_after_pem(const char *pem, size_t len, int64_t *out, gpa_error_t *err)
{
    char why[256];
    if (len > 0x7fffffff)
        return gpa_error_set(err, 0, 0, "", "certificate PEM too large (%zu bytes)", len);
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL)
        return gpa_error_set(err, 0, 0, "", "out of memory reading a certificate");
    ERR_clear_error();
    X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (cert == NULL)
        return gpa_error_set(err, 0, 0, "", "not a PEM certificate (%s)", gpa_certs_ssl_reason(why, sizeof(why)));
    int rc = gpa_certs_not_after_x509(cert, out, err);
    X509_free(cert);
    return rc;
}
