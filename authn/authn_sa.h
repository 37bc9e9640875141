#ifndef AUTHN_AUTHN_SA_H
#define AUTHN_AUTHN_SA_H

/*
 * Service account tokens as the gateway needs them beyond authentication: issuing them for
 * TokenRequest (kube's JWTTokenGenerator and serviceaccount.Claims), and the OpenID discovery
 * document and key set kube-apiserver serves for its issuer. Verifying them is part of
 * authn_authenticate (the bearer-token union). Everything here reads the immutable
 * configuration authn_new built, so any thread may call it.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "authn.h"

/** A token to issue, from a TokenRequest the caller has validated and resolved. Borrowed. */
typedef struct {
    const char *namespace, *name, *uid; /* the ServiceAccount */
    const char *const *audiences;       /* at least one (the caller defaults to the API's) */
    size_t n_audiences;
    long long expiration_seconds; /* as requested, after defaulting and the maximum's cap */
    const char *bound_kind;       /* NULL, "Pod", "Secret" or "Node" */
    const char *bound_name, *bound_uid;
    const char *node_name, *node_uid; /* a bound Pod's node when it has one (else NULL) */
    long long now;                    /* seconds since the epoch */
} authn_sa_request_t;

/** Whether tokens can be issued (--service-account-issuer and a signing key). Thread: any. */
bool authn_sa_can_issue(const authn_t *a);

/**
 * The API audiences (--api-audiences, else every --service-account-issuer): *auds gets an
 * array owned by a, of the returned length. Thread: any.
 */
size_t authn_sa_api_audiences(const authn_t *a, const char *const **auds);

/** --service-account-max-token-expiration in seconds (0: no maximum). Thread: any. */
long long authn_sa_max_expiration(const authn_t *a);

/**
 * Sign a token for q: iss (the first issuer), sub, aud, iat, nbf, exp, jti and the
 * kubernetes.io claims; as kube, a Pod-bound token asking for 3607 seconds with only API
 * audiences lives a year with warnafter at the requested time when
 * --service-account-extend-token-expiration is on. Returns a new string (caller frees), or
 * NULL when a cannot issue. Thread: any.
 */
char *authn_sa_issue(const authn_t *a, const authn_sa_request_t *q);

/**
 * The document kube-apiserver serves at /.well-known/openid-configuration for its issuer:
 * issuer, jwks_uri (<issuer>/openid/v1/jwks), response_types_supported,
 * subject_types_supported, id_token_signing_alg_values_supported. A new object (caller
 * decrefs), or NULL when there is no issuer or no verifying key. Thread: any.
 */
json_t *authn_sa_openid_configuration(const authn_t *a);

/** The key set served at /openid/v1/jwks ({"keys":[...]}: every verifying key's public JWK),
 *  new (caller decrefs), or NULL as for the configuration. Thread: any. */
json_t *authn_sa_jwks(const authn_t *a);

#endif
