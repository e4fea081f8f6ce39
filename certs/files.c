/*
 * Files of certs/: atomic writes (temporary file + fsync + rename), PEM reads with errors that name the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "base/arena.h"
#include "files.h"
#include "pem.h"

const char *gpa_certs_ssl_reason(char *buf, size_t size)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e != 0 ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, size, "%s", reason != NULL ? reason : "unknown error");
    ERR_clear_error();
    return buf;
}

char *gpa_certs_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = gpa_xmalloc(n);
    size_t dl = strlen(dir);
    snprintf(p, n, "%s%s%s", dir, dl > 0 && dir[dl - 1] == '/' ? "" : "/", name);
    return p;
}

int gpa_certs_ensure_dir(const char *dir, gpa_error_t *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return gpa_error_set(err, 0, 0, "", "%s: exists and is not a directory", dir);
        return 0;
    }
    if (errno != ENOENT)
        return gpa_error_set(err, 0, 0, "", "%s: %s", dir, strerror(errno));
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return gpa_error_set(err, 0, 0, "", "%s: cannot create the directory: %s", dir, strerror(errno));
    return 0;
}

int gpa_certs_exists(const char *path, gpa_error_t *err)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    return gpa_error_set(err, 0, 0, "", "%s: %s", path, strerror(errno));
}

/* Writes all of data to fd, retrying short writes and EINTR. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/*
 * Writes data to dir/name with `mode`, through a temporary file in dir that is flushed to disk and renamed
 * over the old file, so a reader sees the old file or the new one, never a mix.
 */
static int write_atomic(const char *dir, const char *name, const void *data, size_t len, mode_t mode, gpa_error_t *err)
{
    char *target = gpa_certs_path(dir, name);
    size_t tn = strlen(target) + 16;
    char *tmp = gpa_xmalloc(tn);
    /* A dot name in the same directory: rename() is atomic only within one file system. */
    snprintf(tmp, tn, "%s/.%s.XXXXXX", dir, name);
    int rc = -1, fd = mkstemp(tmp); /* mkstemp creates the file 0600: a key is never readable by others */
    if (fd < 0) {
        gpa_error_set(err, 0, 0, "", "%s: cannot create a temporary file in %s: %s", target, dir, strerror(errno));
        goto Exit;
    }
    if (fchmod(fd, mode) != 0 || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        gpa_error_set(err, 0, 0, "", "%s: cannot write: %s", target, strerror(errno));
        close(fd);
        unlink(tmp);
        goto Exit;
    }
    if (close(fd) != 0 || rename(tmp, target) != 0) {
        gpa_error_set(err, 0, 0, "", "%s: cannot replace the file: %s", target, strerror(errno));
        unlink(tmp);
        goto Exit;
    }
    rc = 0;
Exit:
    free(tmp);
    free(target);
    return rc;
}

/* Opens a PEM file for reading; the error distinguishes a missing file from other failures. */
static BIO *open_pem(const char *path, gpa_error_t *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        gpa_error_set(err, 0, 0, "", "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    BIO *bio = BIO_new_fp(f, BIO_CLOSE);
    if (bio == NULL) {
        fclose(f);
        gpa_error_set(err, 0, 0, "", "%s: out of memory", path);
    }
    return bio;
}

X509 *gpa_certs_read_cert(const char *path, gpa_error_t *err)
{
    char why[256];
    BIO *bio = open_pem(path, err);
    if (bio == NULL)
        return NULL;
    ERR_clear_error();
    X509 *cert = gpa_pem_cert(bio);
    BIO_free(bio);
    if (cert == NULL)
        gpa_error_set(err, 0, 0, "", "%s: not a PEM certificate (%s)", path, gpa_certs_ssl_reason(why, sizeof(why)));
    return cert;
}

EVP_PKEY *gpa_certs_read_key(const char *path, gpa_error_t *err)
{
    char why[256];
    BIO *bio = open_pem(path, err);
    if (bio == NULL)
        return NULL;
    ERR_clear_error();
    /* An empty passphrase callback result: an encrypted key fails instead of prompting on the terminal. */
    EVP_PKEY *key = gpa_pem_key(bio);
    BIO_free(bio);
    if (key == NULL)
        gpa_error_set(err, 0, 0, "", "%s: not an unencrypted PEM private key (%s)", path, gpa_certs_ssl_reason(why, sizeof(why)));
    return key;
}

/* Writes the contents of a memory BIO to dir/name and frees the BIO (a secure-heap one is cleansed). */
static int write_bio(const char *dir, const char *name, BIO *bio, mode_t mode, gpa_error_t *err)
{
    char *data;
    long len = BIO_get_mem_data(bio, &data);
    int rc = len > 0 ? write_atomic(dir, name, data, (size_t)len, mode, err)
                     : gpa_error_set(err, 0, 0, "", "%s/%s: nothing to write", dir, name);
    BIO_free(bio);
    return rc;
}

int gpa_certs_write_cert(const char *dir, const char *name, X509 *cert, gpa_error_t *err)
{
    char why[256];
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL || PEM_write_bio_X509(bio, cert) != 1) {
        BIO_free(bio);
        return gpa_error_set(err, 0, 0, "", "%s/%s: cannot encode the certificate (%s)", dir, name,
                             gpa_certs_ssl_reason(why, sizeof(why)));
    }
    return write_bio(dir, name, bio, 0644, err);
}

int gpa_certs_write_key(const char *dir, const char *name, EVP_PKEY *key, gpa_error_t *err)
{
    char why[256];
    BIO *bio = BIO_new(BIO_s_secmem());
    if (bio == NULL || PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) != 1) {
        BIO_free(bio);
        return gpa_error_set(err, 0, 0, "", "%s/%s: cannot encode the key (%s)", dir, name, gpa_certs_ssl_reason(why, sizeof(why)));
    }
    return write_bio(dir, name, bio, 0600, err);
}
