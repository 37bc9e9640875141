#ifndef AUTHN_AUTHN_WEBHOOK_H
#define AUTHN_AUTHN_WEBHOOK_H

/*
 * The token webhook (--authentication-token-webhook-config-file): bearer tokens no other
 * authenticator took are POSTed as a TokenReview to a remote service named by a kubeconfig;
 * its verdicts (accepted and refused alike, as kube's) are cached for
 * --authentication-token-webhook-cache-ttl under the SHA-256 of the token.
 */

#include <stddef.h>

#include "authn_int.h"

typedef struct authn__webhook authn__webhook_t;

/**
 * The webhook from cfg's webhook flags into *out (NULL when no config file is given). Reads
 * the kubeconfig now (clusters[0] and users[0], or those of its current-context; file paths
 * relative to the kubeconfig's folder). GW_EINVAL with a one-line reason in err when it cannot
 * be read or names no https server. Thread: main, at start-up.
 */
int authn__webhook_new(const authn_config_t *cfg, authn__webhook_t **out, char *err,
                       size_t err_len);

/** Free the webhook (NULL is fine). Thread: main, once no request uses it. */
void authn__webhook_free(authn__webhook_t *w);

/**
 * The webhook in the token union: NOT_MINE when not configured; a cached verdict; or PENDING
 * on the TokenReview exchange. Thread: any.
 */
authn__verdict_t authn__webhook_token(const authn_t *a, const char *token, authn_user_t **user,
                                      authn_pending_t **pending, const char **why);

/**
 * Parse a kubeconfig (YAML or JSON text) into the server URL and the TLS settings of its
 * current-context (or its first cluster and user); `dir` resolves relative file names. On
 * success 0 with *server and tls's strings new (free with authn__kubeconfig_clear); GW_EINVAL
 * with a reason in err. Thread: any.
 */
int authn__kubeconfig_parse(const char *text, size_t len, const char *dir, char **server,
                            authn_tls_t *tls, char *err, size_t err_len);

/** Free what authn__kubeconfig_parse filled (strings of tls and *server). */
void authn__kubeconfig_clear(char **server, authn_tls_t *tls);

#endif
