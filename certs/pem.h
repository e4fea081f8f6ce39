/*
 * The one PEM reader: certificates and private keys as OpenSSL reads them, never prompting. OpenSSL asks for an
 * encrypted key's passphrase on the terminal when no callback says otherwise; a server or a CLI in a pipeline must
 * never wait on that, so an encrypted key here is simply no key (the caller says "not a PEM private key").
 *
 * Ownership: what is returned is the caller's (X509_free, EVP_PKEY_free); the BIO stays the caller's.
 */
#ifndef GPA_CERTS_PEM_H
#define GPA_CERTS_PEM_H

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/* The next certificate of b, or NULL (none left, or not PEM). */
X509 *gpa_pem_cert(BIO *b);
/* The next private key of b, or NULL (none, not PEM, or encrypted: never a prompt). */
EVP_PKEY *gpa_pem_key(BIO *b);

#endif
