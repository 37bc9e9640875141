/*
 * TLS material for https endpoints. gRPC takes PEM contents, not file names, and only finds
 * out at the first handshake that a certificate and key do not belong together; reading and
 * checking the files here turns both into a clear start-up error.
 */
#include "etcd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc_security.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "etcd_int.h"
#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_file.h"

#define MAX_PEM_BYTES (1 << 20) /* a CA bundle is tens of KiB; refuse anything absurd */

static int
read_pem(const char *flag, const char *path, char **out, char *err, size_t err_len)
{
    size_t n = 0;
    char *buf = gw_file_read(path, MAX_PEM_BYTES, &n);

    if (buf == NULL && errno == EFBIG) {
        snprintf(err, err_len, "%s %s: file is too large", flag, path);
        return GW_EINVAL;
    }
    if (buf == NULL) {
        snprintf(err, err_len, "%s %s: cannot read: %s", flag, path, strerror(errno));
        return GW_EINVAL;
    }
    if (n == 0) {
        snprintf(err, err_len, "%s %s: file is empty", flag, path);
        free(buf);
        return GW_EINVAL;
    }
    *out = buf;
    return 0;
}

/* Parse the first certificate and the key, and check that they belong together. */
static int
check_pair(const etcd__tls_t *t, const char *cert_file, const char *key_file, char *err,
           size_t err_len)
{
    BIO *cb = BIO_new_mem_buf(t->cert, -1), *kb = BIO_new_mem_buf(t->key, -1);
    X509 *x = PEM_read_bio_X509(cb, NULL, NULL, NULL);
    EVP_PKEY *k = PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL);
    int rc = GW_EINVAL;
    if (x == NULL)
        snprintf(err, err_len, "--etcd-certfile %s: no PEM certificate in it", cert_file);
    else if (k == NULL)
        snprintf(err, err_len, "--etcd-keyfile %s: no unencrypted PEM private key in it", key_file);
    else if (X509_check_private_key(x, k) != 1)
        snprintf(err, err_len, "--etcd-certfile %s does not match --etcd-keyfile %s", cert_file,
                 key_file);
    else
        rc = 0;
    ERR_clear_error(); /* failures above leave entries on this thread's OpenSSL error queue */
    X509_free(x);
    EVP_PKEY_free(k);
    BIO_free(cb);
    BIO_free(kb);
    return rc;
}

static int
check_ca(const char *ca, const char *ca_file, char *err, size_t err_len)
{
    BIO *b = BIO_new_mem_buf(ca, -1);
    X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    int rc = 0;
    if (x == NULL) {
        snprintf(err, err_len, "--etcd-cafile %s: no PEM certificate in it", ca_file);
        rc = GW_EINVAL;
    }
    ERR_clear_error();
    X509_free(x);
    BIO_free(b);
    return rc;
}

static int
check_flags(const char *ca_file, const char *cert_file, const char *key_file, bool need_ca,
            char *err, size_t err_len)
{
    if ((cert_file == NULL) != (key_file == NULL)) {
        snprintf(err, err_len, "--etcd-certfile and --etcd-keyfile must be given together");
        return GW_EINVAL;
    }
    if (need_ca && ca_file == NULL) {
        snprintf(err, err_len, "https etcd endpoints need --etcd-cafile");
        return GW_EINVAL;
    }
    return 0;
}

int
etcd__tls_load(const char *ca_file, const char *cert_file, const char *key_file, bool need_ca,
               etcd__tls_t *out, char *err, size_t err_len)
{
    etcd__tls_t t = {0};
    int rc = check_flags(ca_file, cert_file, key_file, need_ca, err, err_len);
    if (rc == 0 && ca_file != NULL)
        rc = read_pem("--etcd-cafile", ca_file, &t.ca, err, err_len);
    if (rc == 0 && ca_file != NULL)
        rc = check_ca(t.ca, ca_file, err, err_len);
    if (rc == 0 && cert_file != NULL)
        rc = read_pem("--etcd-certfile", cert_file, &t.cert, err, err_len);
    if (rc == 0 && key_file != NULL)
        rc = read_pem("--etcd-keyfile", key_file, &t.key, err, err_len);
    if (rc == 0 && cert_file != NULL)
        rc = check_pair(&t, cert_file, key_file, err, err_len);
    if (rc != 0) {
        etcd__tls_free(&t);
        return rc;
    }
    *out = t;
    return 0;
}

grpc_channel_credentials *
etcd__tls_credentials(const etcd__tls_t *tls)
{
    grpc_ssl_pem_key_cert_pair pair = {tls->key, tls->cert};
    return grpc_ssl_credentials_create(tls->ca, tls->cert != NULL ? &pair : NULL, NULL, NULL);
}

void
etcd__tls_free(etcd__tls_t *tls)
{
    if (tls->key != NULL)
        explicit_bzero(tls->key, strlen(tls->key));
    free(tls->ca);
    free(tls->cert);
    free(tls->key);
    tls->ca = tls->cert = tls->key = NULL;
}
