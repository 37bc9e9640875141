/* The root CA bundle kube-root-ca.crt publishes: the client CA file's certificates, else the
 * serving certificate's chain, else a self-signed serving certificate itself. */
#include "gw_sactl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "bio_text.h"
#include "tap.h"

/* A certificate for key named cn, signed by (issuer, issuer_key) or self-signed. */
static X509 *
make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key)
{
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(issuer != NULL ? issuer : x));
    X509_sign(x, issuer_key != NULL ? issuer_key : key, EVP_sha256());
    return x;
}

static char *
pem_of(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, x);
    return bio_text(b);
}

int
main(void)
{
    EVP_PKEY *ca_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    X509 *ca = make_cert("ca", ca_key, NULL, NULL);
    X509 *leaf = make_cert("kgate", key, ca, ca_key);
    X509 *self = make_cert("self", key, NULL, NULL);
    char *ca_pem = pem_of(ca), *self_pem = pem_of(self);

    /* the client CA file wins; what is not a certificate in it is left out */
    char path[] = "/tmp/sactl-test.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "comment\n%s", ca_pem);
    fclose(f);
    SSL_CTX *tls = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(tls, leaf);
    SSL_CTX_use_PrivateKey(tls, key);
    char *got = gw_sactl_root_ca(path, tls);
    tap_is_str(got, ca_pem, "the client CA bundle");
    free(got);
    got = gw_sactl_root_ca("/nonexistent", tls);
    tap_ok(got == NULL, "an unreadable client CA file and no chain: nothing");
    free(got);

    /* the serving chain */
    SSL_CTX_add1_chain_cert(tls, ca);
    got = gw_sactl_root_ca(NULL, tls);
    tap_is_str(got, ca_pem, "the serving certificate's chain");
    free(got);
    SSL_CTX_free(tls);

    /* a self-signed serving certificate */
    tls = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(tls, self);
    SSL_CTX_use_PrivateKey(tls, key);
    got = gw_sactl_root_ca(NULL, tls);
    tap_is_str(got, self_pem, "a self-signed serving certificate is its own root");
    free(got);
    SSL_CTX_free(tls);
    tap_ok(gw_sactl_root_ca(NULL, NULL) == NULL, "no TLS context: nothing");

    unlink(path);
    free(ca_pem);
    free(self_pem);
    X509_free(ca);
    X509_free(leaf);
    X509_free(self);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    return tap_done();
}
