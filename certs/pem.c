#include "pem.h"

#include <openssl/pem.h>

/* No passphrase, ever: OpenSSL then fails to decrypt instead of asking on the terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return 0;
}

X509 *gpa_pem_cert(BIO *b)
{
    return b != NULL ? PEM_read_bio_X509(b, NULL, no_passphrase, NULL) : NULL;
}

EVP_PKEY *gpa_pem_key(BIO *b)
{
    return b != NULL ? PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL) : NULL;
}
