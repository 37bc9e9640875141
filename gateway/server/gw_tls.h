#ifndef GATEWAY_SERVER_GW_TLS_H
#define GATEWAY_SERVER_GW_TLS_H

/*
 * The one TLS context every worker's connections are made from: TLS 1.2 and newer, the
 * serving pair from --tls-cert-file/--tls-private-key-file (or a self-signed pair kept in
 * --cert-dir), and, with --client-ca-file and/or --requestheader-client-ca-file, client
 * certificates asked for but optional, as kube-apiserver does (a presented certificate must
 * verify against one of those bundles; which one is told apart per connection).
 */

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

#include "gw_config.h"

/**
 * Build the server's SSL_CTX from the configuration. On success returns 0 and the context in
 * *out (free with SSL_CTX_free after every connection is gone); it may then be shared by all
 * threads. On error (unreadable or malformed PEM, key not matching the certificate, empty CA
 * bundle, unwritable --cert-dir) returns GW_EINVAL with a one-line reason in err.
 * Thread: any, at startup (gw_tls_ctx_start runs it on a thread of its own).
 */
int gw_tls_ctx_new(const gw_config_t *cfg, SSL_CTX **out, char *err, size_t err_len);

/** gw_tls_ctx_new run on a thread of its own (gw_tls_ctx_start). */
typedef struct gw_tls_build gw_tls_build_t;

/**
 * Start gw_tls_ctx_new(cfg) on a thread of its own, so that loading the pairs and bundles (or
 * generating the self-signed pair) overlaps the rest of start-up; cfg must live until
 * gw_tls_ctx_wait returns. Never NULL. Thread: any; the caller owns the result.
 */
gw_tls_build_t *gw_tls_ctx_start(const gw_config_t *cfg);

/**
 * Wait for b and free it: gw_tls_ctx_new's return, context (*out, the caller's) and message.
 * NULL b is a no-op returning 0 with *out NULL. Thread: b's owner.
 */
int gw_tls_ctx_wait(gw_tls_build_t *b, SSL_CTX **out, char *err, size_t err_len);

/**
 * The certificate the peer of a finished handshake presented, when it verified against one of
 * the client CAs (borrowed from ssl), else NULL; *client_ca tells whether it chains to
 * --client-ca-file (the x509 authenticator's CA) rather than only to the request-header CA
 * (decided once per connection). ssl may be NULL. Thread: ssl's connection's.
 */
X509 *gw_tls_peer_cert(SSL *ssl, bool *client_ca);

#endif
