/*
 * The certificate files: paths, atomic writes, PEM in and out, OpenSSL's error text (used by certs.c; not
 * part of the public interface in certs.h).
 */
#ifndef GPA_CERTS_FILES_H
#define GPA_CERTS_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include <openssl/x509.h>

#include "base/error.h"

/* "dir/name", new (caller frees). */
char *gpa_certs_path(const char *dir, const char *name);
/* Creates dir (mode 0755) unless it exists; an existing non-directory is an error. */
int gpa_certs_ensure_dir(const char *dir, gpa_error_t *err);
/* Whether path exists (any type); -1 with an error when it cannot be checked (e.g. permission). */
int gpa_certs_exists(const char *path, gpa_error_t *err);
/* The first certificate in a PEM file, new (X509_free); the error names the file and the reason. */
X509 *gpa_certs_read_cert(const char *path, gpa_error_t *err);
/* The private key in a PEM file, new (EVP_PKEY_free). */
EVP_PKEY *gpa_certs_read_key(const char *path, gpa_error_t *err);
/* PEM of a certificate or private key written to dir/name through a temporary file in dir that is flushed to
 * disk and renamed over the old file, so a reader sees the old file or the new one, never a mix. */
int gpa_certs_write_cert(const char *dir, const char *name, X509 *cert, gpa_error_t *err);
int gpa_certs_write_key(const char *dir, const char *name, EVP_PKEY *key, gpa_error_t *err);

/* The reason of OpenSSL's most recent error ("unknown error" when none), into buf; clears the error queue. */
const char *gpa_certs_ssl_reason(char *buf, size_t size);

#endif
