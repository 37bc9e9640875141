#include "gw_selfsign.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gw_alloc.h"
#include "gw_err.h"

#define VALID_DAYS 365

static int
mkdir_p(const char *dir)
{
    char *path = gw_strdup(dir);
    int rc = 0;
    for (char *p = path + 1; rc == 0; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end)
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            rc = -1;
        if (end)
            break;
        *p = '/';
    }
    free(path);
    return rc;
}

/* Only a plain DNS name may go into the SAN list; anything else is left out. */
static bool
dns_name_ok(const char *h)
{
    return h[0] != '\0' && strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789.-") == strlen(h);
}

static int
add_ext(X509 *x, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL)
        return -1;
    int ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* Self-signed with CA:TRUE so that clients can trust it directly with --cacert. */
static int
add_extensions(X509 *x, const char *host)
{
    char san[320] = "DNS:localhost,IP:127.0.0.1";
    if (dns_name_ok(host) && strcmp(host, "localhost") != 0)
        snprintf(san, sizeof(san), "DNS:localhost,IP:127.0.0.1,DNS:%s", host);
    if (add_ext(x, NID_basic_constraints, "critical,CA:TRUE") != 0 ||
        add_ext(x, NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign") != 0 ||
        add_ext(x, NID_ext_key_usage, "serverAuth") != 0 ||
        add_ext(x, NID_subject_alt_name, san) != 0)
        return -1;
    return 0;
}

static X509 *
make_cert(EVP_PKEY *key, const char *host)
{
    X509 *x = X509_new();
    if (x == NULL)
        return NULL;
    char cn[300];
    snprintf(cn, sizeof(cn), "%s@%ld", dns_name_ok(host) ? host : "localhost", (long)time(NULL));
    X509_NAME *name = X509_get_subject_name(x);
    BIGNUM *serial = BN_new();
    int ok = serial != NULL && X509_set_version(x, 2) &&
             BN_rand(serial, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) != NULL &&
             X509_gmtime_adj(X509_getm_notBefore(x), -3600) != NULL &&
             X509_gmtime_adj(X509_getm_notAfter(x), 86400L * VALID_DAYS) != NULL &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
                                        0) &&
             X509_set_issuer_name(x, name) && X509_set_pubkey(x, key) &&
             add_extensions(x, host) == 0 && X509_sign(x, key, EVP_sha256()) > 0;
    BN_free(serial);
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* Write through a temporary file and rename, so a crash never leaves half a PEM behind. */
static int
write_pem(const char *path, mode_t mode, EVP_PKEY *key, X509 *cert)
{
    char *tmp = gw_sprintf("%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int ok = f != NULL && (key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL)
                               : PEM_write_X509(f, cert));
    if (f != NULL)
        ok = fclose(f) == 0 && ok;
    else if (fd >= 0)
        close(fd);
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    free(tmp);
    return ok ? 0 : -1;
}

static int
generate(const char *cert_path, const char *key_path, char *err, size_t err_len)
{
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = key != NULL ? make_cert(key, host) : NULL;
    int rc = 0;
    if (cert == NULL) {
        snprintf(err, err_len, "cannot create a self-signed certificate: %s",
                 ERR_reason_error_string(ERR_peek_last_error()));
        rc = GW_EINVAL;
    } else if (write_pem(key_path, 0600, key, NULL) != 0 ||
               write_pem(cert_path, 0644, NULL, cert) != 0) {
        snprintf(err, err_len, "cannot write \"%s\": %s", cert_path, strerror(errno));
        rc = GW_EINVAL;
    }
    ERR_clear_error();
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}

int
gw_selfsign_ensure(const char *dir, char **cert_path, char **key_path, char *err, size_t err_len)
{
    char *cert = gw_sprintf("%s/apiserver.crt", dir);
    char *key = gw_sprintf("%s/apiserver.key", dir);
    int rc = 0;
    if (access(cert, R_OK) == 0 && access(key, R_OK) == 0)
        goto out;
    if (mkdir_p(dir) != 0) {
        snprintf(err, err_len, "cannot create --cert-dir \"%s\": %s", dir, strerror(errno));
        rc = GW_EINVAL;
        goto out;
    }
    rc = generate(cert, key, err, err_len);
out:
    if (rc != 0) {
        free(cert);
        free(key);
        cert = key = NULL;
    }
    *cert_path = cert;
    *key_path = key;
    return rc;
}
