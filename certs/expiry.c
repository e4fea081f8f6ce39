/*
 * A certificate's notAfter as seconds since the epoch (expiry.h).
 */
#include <string.h>
#include <time.h>

#include <openssl/x509.h>

#include "expiry.h"

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
