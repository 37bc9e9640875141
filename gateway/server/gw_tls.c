#include "gw_tls.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gw_alloc.h"
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

/* The SSL_CTX's store of --client-ca-file alone, kept when the request-header CA is trusted
 * too (absent otherwise: every verified certificate is then a client CA's). */
static int ctx_client_store = -1;
/* Per connection: whether its certificate chains to --client-ca-file (1 yes, 2 no). */
static int ssl_client_ca = -1;
static pthread_once_t ex_once = PTHREAD_ONCE_INIT;

static void
store_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    X509_STORE_free(ptr);
}

static void
ex_indexes(void)
{
    ctx_client_store = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, store_free);
    ssl_client_ca = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* Add the certificates of a CA bundle to the names asked for and the trusted store. */
static int
add_ca(SSL_CTX *ctx, STACK_OF(X509_NAME) * names, const char *ca, const char *flag, char *err,
       size_t err_len)
{
    if (SSL_add_file_cert_subjects_to_stack(names, ca) != 1 ||
        SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
        return fail(err, err_len, "no usable CA certificate in", flag, ca);
    return 0;
}

/* A store of --client-ca-file alone, for telling its certificates from the proxy's. */
static int
keep_client_store(SSL_CTX *ctx, const char *ca, char *err, size_t err_len)
{
    X509_STORE *store = X509_STORE_new();
    if (store == NULL || (ca != NULL && X509_STORE_load_file(store, ca) != 1)) {
        X509_STORE_free(store);
        return fail(err, err_len, "no usable CA certificate in", "client-ca-file", ca);
    }
    X509_STORE_set_purpose(store, X509_PURPOSE_SSL_CLIENT);
    SSL_CTX_set_ex_data(ctx, ctx_client_store, store);
    return 0;
}

/* Ask for a client certificate, verify it when one is sent (against --client-ca-file and
 * --requestheader-client-ca-file), accept its absence. */
static int
load_client_cas(SSL_CTX *ctx, const gw_config_t *cfg, char *err, size_t err_len)
{
    STACK_OF(X509_NAME) *names = sk_X509_NAME_new_null();
    int rc = names == NULL ? GW_EINVAL : 0;

    if (rc == 0 && cfg->client_ca_file != NULL)
        rc = add_ca(ctx, names, cfg->client_ca_file, "client-ca-file", err, err_len);
    if (rc == 0 && cfg->requestheader_client_ca_file != NULL)
        rc = add_ca(ctx, names, cfg->requestheader_client_ca_file, "requestheader-client-ca-file",
                    err, err_len);
    if (rc == 0 && cfg->requestheader_client_ca_file != NULL)
        rc = keep_client_store(ctx, cfg->client_ca_file, err, err_len);
    if (rc != 0) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        return rc;
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    return 0;
}

/* Whether cert (already verified against one of the client CAs) chains to --client-ca-file:
 * checked once per connection against that bundle alone. */
static bool
client_ca_signed(SSL *ssl, X509 *cert)
{
    X509_STORE *store = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_client_store);
    if (store == NULL)
        return true;
    uintptr_t known = (uintptr_t)SSL_get_ex_data(ssl, ssl_client_ca);
    if (known != 0)
        return known == 1;
    X509_STORE_CTX *vctx = X509_STORE_CTX_new();
    bool ok = vctx != NULL &&
              X509_STORE_CTX_init(vctx, store, cert, SSL_get_peer_cert_chain(ssl)) == 1 &&
              X509_verify_cert(vctx) == 1;
    X509_STORE_CTX_free(vctx);
    ERR_clear_error();
    SSL_set_ex_data(ssl, ssl_client_ca, (void *)(uintptr_t)(ok ? 1 : 2));
    return ok;
}

X509 *
gw_tls_peer_cert(SSL *ssl, bool *client_ca)
{
    X509 *cert = ssl != NULL ? SSL_get0_peer_certificate(ssl) : NULL;

    *client_ca = false;
    /* X509_V_OK is also the answer when no certificate was presented: check both. */
    if (cert == NULL || SSL_get_verify_result(ssl) != X509_V_OK)
        return NULL;
    *client_ca = client_ca_signed(ssl, cert);
    return cert;
}

int
gw_tls_ctx_new(const gw_config_t *cfg, SSL_CTX **out, char *err, size_t err_len)
{
    static const unsigned char sid_ctx[] = "kgate";
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int rc = GW_EINVAL;
    *out = NULL;
    pthread_once(&ex_once, ex_indexes);
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
    /* Idle connections (watches, keep-alive clients) give their read and write buffers back:
     * about 12 KiB less per connection. */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    rc = load_serving_pair(ctx, cfg, err, err_len);
    if (rc == 0 && (cfg->client_ca_file != NULL || cfg->requestheader_client_ca_file != NULL))
        rc = load_client_cas(ctx, cfg, err, err_len);
out:
    if (rc != 0)
        SSL_CTX_free(ctx);
    else
        *out = ctx;
    return rc;
}

/* ---- built on a thread of its own ------------------------------------------------------- */

struct gw_tls_build {
    const gw_config_t *cfg;
    pthread_t thread;
    SSL_CTX *ctx;
    int rc;
    char err[512];
};

static void *
build_main(void *arg)
{
    gw_tls_build_t *b = arg;

    b->rc = gw_tls_ctx_new(b->cfg, &b->ctx, b->err, sizeof(b->err));
    return NULL;
}

gw_tls_build_t *
gw_tls_ctx_start(const gw_config_t *cfg)
{
    gw_tls_build_t *b = gw_calloc(1, sizeof(*b));

    b->cfg = cfg;
    if (pthread_create(&b->thread, NULL, build_main, b) != 0)
        abort();
    return b;
}

int
gw_tls_ctx_wait(gw_tls_build_t *b, SSL_CTX **out, char *err, size_t err_len)
{
    int rc;

    *out = NULL;
    if (b == NULL)
        return 0;
    pthread_join(b->thread, NULL);
    rc = b->rc;
    *out = b->ctx;
    if (rc != 0)
        snprintf(err, err_len, "%s", b->err);
    free(b);
    return rc;
}
