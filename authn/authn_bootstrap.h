#ifndef AUTHN_AUTHN_BOOTSTRAP_H
#define AUTHN_AUTHN_BOOTSTRAP_H

/*
 * Bootstrap token Secrets (type bootstrap.kubernetes.io/token, kube-system/bootstrap-token-<id>)
 * read as kube's bootstrap token helpers read them: shared by the authenticator and the
 * controllers that clean expired tokens and sign cluster-info with the others. Everything here
 * is pure (no I/O) and safe on any thread.
 */

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

/** Split "<id>.<secret>" (id [a-z0-9]{6}, secret [a-z0-9]{16}) into NUL-terminated parts;
 *  false when token is not of that form. */
bool authn_bootstrap_token_split(const char *token, char id[7], char secret[17]);

/** Whether g is a valid auth-extra-groups entry: system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]. */
bool authn_bootstrap_group_valid(const char *g);

/** The Secret's data[key] decoded from base64 as a new string (caller frees), or NULL when
 *  missing, malformed or not text. */
char *authn_bootstrap_data(const json_t *secret, const char *key);

/** The Secret's expiration into *when; false when it has none or it is unreadable. */
bool authn_bootstrap_expiration(const json_t *secret, time_t *when);

/** Whether the Secret's expiration is at or before `now` (an unreadable expiration counts
 *  as passed, as kube's; none never expires). */
bool authn_bootstrap_expired(const json_t *secret, time_t now);

/** Whether data["usage-bootstrap-<usage>"] is "true" (usage "authentication" or "signing"). */
bool authn_bootstrap_usage(const json_t *secret, const char *usage);

/**
 * Whether the Secret (may be NULL) holds this token, usable at `now`: not being deleted, of
 * the bootstrap type, token-secret equal to `secret` (compared in constant time), token-id
 * equal to `id`, not expired. On false *why says which (a static string).
 */
bool authn_bootstrap_secret_ok(const json_t *secret, const char *id, const char *token_secret,
                               time_t now, const char **why);

#endif
