#include "gw_tls.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/err.h>
#include <openssl/x509.h>

#include "gw_err.h"
#include "gw_selfsign.h"

/* Forward-secret AEAD suites only for TLS 1.2 (TLS 1.3 suites are all of that kind). */
#define TLS12_CIPHERS "ECDHE+AESGCM:ECDHE+CHACHA20"

static int
fail(char *err, size_t err_len, const char *what, const char *flag, const char *path)
{
    unsigned long e = ERR_peek_last_error();
    const char *why = e != 0 ? ERR_reason_error_string(e) : NULL;
    snprintf(err, err_len, "%s --%s \"%s\": %s", what, flag, path, why ? why : "unusable");
    ERR_clear_error();
    return GW_EINVAL;
}

static int
load_pair(SSL_CTX *ctx, const char *cert, const char *key, const char *cert_flag,
          const char *key_flag, char *err, size_t err_len)
{
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
        return fail(err, err_len, "cannot load", cert_flag, cert);
    bool loaded = SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1;
    if (!loaded && ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH)
        return fail(err, err_len, "cannot load", key_flag, key);
    if (!loaded || SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        snprintf(err, err_len, "--%s \"%s\" does not match --%s \"%s\"", key_flag, key, cert_flag,
                 cert);
        return GW_EINVAL;
    }
    return 0;
}

static int
load_serving_pair(SSL_CTX *ctx, const gw_config_t *cfg, char *err, size_t err_len)
{
    if (cfg->tls_cert_file != NULL)
        return load_pair(ctx, cfg->tls_cert_file, cfg->tls_private_key_file, "tls-cert-file",
                         "tls-private-key-file", err, err_len);
    char *cert, *key;
    int rc = gw_selfsign_ensure(cfg->cert_dir, &cert, &key, err, err_len);
    if (rc == 0)
        rc = load_pair(ctx, cert, key, "cert-dir", "cert-dir", err, err_len);
    free(cert);
    free(key);
    return rc;
}

/* Ask for a client certificate, verify it when one is sent, accept its absence. */
static int
load_client_ca(SSL_CTX *ctx, const char *ca, char *err, size_t err_len)
{
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca);
    if (names == NULL || SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        return fail(err, err_len, "no usable CA certificate in", "client-ca-file", ca);
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    return 0;
}

int
gw_tls_ctx_new(const gw_config_t *cfg, SSL_CTX **out, char *err, size_t err_len)
{
    static const unsigned char sid_ctx[] = "kgate";
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int rc = GW_EINVAL;
    *out = NULL;
    if (ctx == NULL || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_set_cipher_list(ctx, TLS12_CIPHERS) != 1 ||
        /* Session resumption with client verification needs a session id context. */
        SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof(sid_ctx) - 1) != 1) {
        snprintf(err, err_len, "cannot set up TLS: %s",
                 ERR_reason_error_string(ERR_peek_last_error()));
        ERR_clear_error();
        goto out;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    rc = load_serving_pair(ctx, cfg, err, err_len);
    if (rc == 0 && cfg->client_ca_file != NULL)
        rc = load_client_ca(ctx, cfg->client_ca_file, err, err_len);
out:
    if (rc != 0)
        SSL_CTX_free(ctx);
    else
        *out = ctx;
    return rc;
}
