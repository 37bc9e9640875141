/*
 * The CA bundle the root-ca-cert-publisher writes: kube-controller-manager publishes its
 * --root-ca-file, else the CA it trusts the apiserver with. kgate's nearest equivalents are
 * the client CA bundle, else the issuers of its own serving certificate.
 */
#include "gw_sactl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gw_alloc.h"

/* Every certificate of a PEM file, re-encoded (what is not a certificate is left out). */
static char *
file_certs(const char *path)
{
    FILE *f = fopen(path, "r");
    BIO *out = BIO_new(BIO_s_mem());
    X509 *x;
    char *pem = NULL, *data;
    long len;

    if (f == NULL) {
        BIO_free(out);
        return NULL;
    }
    while ((x = PEM_read_X509(f, NULL, NULL, NULL)) != NULL) {
        PEM_write_bio_X509(out, x);
        X509_free(x);
    }
    ERR_clear_error();
    fclose(f);
    len = BIO_get_mem_data(out, &data);
    if (len > 0)
        pem = gw_strndup(data, (size_t)len);
    BIO_free(out);
    return pem;
}

/* The serving certificate's chain as the TLS context holds it; a self-signed certificate
 * stands for its own root. */
static char *
serving_issuers(SSL_CTX *tls)
{
    X509 *leaf = tls != NULL ? SSL_CTX_get0_certificate(tls) : NULL;
    STACK_OF(X509) *chain = NULL;
    BIO *out;
    char *pem = NULL, *data;
    long len;

    if (leaf == NULL)
        return NULL;
    out = BIO_new(BIO_s_mem());
    if (SSL_CTX_get0_chain_certs(tls, &chain) == 1 && sk_X509_num(chain) > 0) {
        for (int i = 0; i < sk_X509_num(chain); i++)
            PEM_write_bio_X509(out, sk_X509_value(chain, i));
    } else if (X509_check_issued(leaf, leaf) == X509_V_OK) {
        PEM_write_bio_X509(out, leaf);
    }
    len = BIO_get_mem_data(out, &data);
    if (len > 0)
        pem = gw_strndup(data, (size_t)len);
    BIO_free(out);
    return pem;
}

char *
gw_sactl_root_ca(const char *client_ca_file, SSL_CTX *tls)
{
    char *pem =
        client_ca_file != NULL && client_ca_file[0] != '\0' ? file_certs(client_ca_file) : NULL;

    return pem != NULL ? pem : serving_issuers(tls);
}
