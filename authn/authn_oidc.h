#ifndef AUTHN_AUTHN_OIDC_H
#define AUTHN_AUTHN_OIDC_H

/*
 * JWT authenticators: identity providers' ID tokens, configured by the --oidc-* flags (one
 * authenticator) or by an AuthenticationConfiguration file (up to 64, reloaded when the file
 * changes). Each has an issuer, the audiences it accepts, claim validation rules, claim
 * mappings (a claim with a prefix, or a CEL expression over `claims`) and user validation
 * rules (CEL over `user`). Keys come from the issuer's discovery document and JWKS, fetched
 * through pending HTTPS needs and cached; an unknown key id fetches the keys again (at most
 * once per REFETCH interval).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "authn_int.h"
#include "cel.h"

/** A claim with a prefix (prefix NULL: not set), or a CEL expression. */
typedef struct {
    char *claim;
    char *prefix;
    cel_program_t *expr;
} authn__mapping_t;

/** A claim validation rule (claim and required value, or expression and message), or a user
 *  validation rule (expression and message). */
typedef struct {
    char *claim;
    char *value;
    cel_program_t *expr;
    char *message;
} authn__rule_t;

/** One extra mapping: a key and the expression of its values. */
typedef struct {
    char *key;
    cel_program_t *expr;
} authn__extra_map_t;

/** A key from the issuer's JWKS. */
typedef struct {
    char *kid; /* may be NULL */
    EVP_PKEY *key;
} authn__jwk_t;

/** One JWT authenticator. Configuration is immutable once built; keys change under mu. */
typedef struct {
    char *issuer;        /* iss must equal it */
    char *discovery_url; /* the discovery document's URL */
    authn_tls_t tls;     /* ca_pem: the certificateAuthority (NULL: the system's) */
    char **audiences;
    size_t n_audiences;
    char **algs; /* accepted signing algorithms */
    size_t n_algs;
    authn__mapping_t username, groups, uid;
    authn__extra_map_t *extra;
    size_t n_extra;
    authn__rule_t *claim_rules;
    size_t n_claim_rules;
    authn__rule_t *user_rules;
    size_t n_user_rules;
    pthread_mutex_t mu; /* guards what follows */
    char *jwks_uri;     /* NULL until discovery */
    authn__jwk_t *keys;
    size_t n_keys;
    int64_t fetched_ms; /* when the keys were last fetched (monotonic; 0: never) */
} authn__jwt_auth_t;

/** A set of authenticators, shared by reference by the pending authentications using it. */
typedef struct {
    authn__jwt_auth_t **auths;
    size_t n;
    int refs; /* guarded by the owning authn__oidc_t's lock */
} authn__jwt_set_t;

/** A new authenticator with no keys and nothing configured (its mutex initialised). */
authn__jwt_auth_t *authn__jwt_auth_new(void);

/** Free an authenticator and everything it owns. */
void authn__jwt_auth_free(authn__jwt_auth_t *j);

/** Free a set and its authenticators (whatever its reference count). */
void authn__jwt_set_free(authn__jwt_set_t *s);

/**
 * The CEL environment claim and user expressions compile in (variables `claims` and `user`,
 * dynamic). Owned by the caller (cel_env_free). Thread: any.
 */
cel_env_t *authn__jwt_cel_env(void);

/**
 * The user a verified token's claims name under j's rules, at `now` (seconds since the epoch):
 * exp (required) and nbf (a minute's leeway), the audiences, claim validation rules, the
 * mappings and user validation rules. FOUND with *user new, or REFUSED with a static *why.
 * Thread: any.
 */
authn__verdict_t authn__jwt_claims_user(const authn__jwt_auth_t *j, const json_t *claims,
                                        long long now, authn_user_t **user, const char **why);

/**
 * The one authenticator the --oidc-* flags describe into *out (NULL when --oidc-issuer-url is
 * not given); GW_EINVAL with kube's reason in err. Thread: main, at start-up.
 */
int authn__oidc_flags(const authn_config_t *cfg, authn__jwt_set_t **out, char *err, size_t err_len);

/**
 * An AuthenticationConfiguration (apiserver.config.k8s.io/v1beta1, YAML or JSON text) into a
 * new set in *out (its jwt authenticators; other sections are not read). GW_EINVAL with kube's
 * validation errors ("jwt[0].issuer.url: Invalid value: ...") in err. Thread: any.
 */
int authn__config_parse(const char *text, size_t len, authn__jwt_set_t **out, char *err,
                        size_t err_len);

/* ---- the authenticator in the chain (authn_oidc.c) ---------------------------------------- */

typedef struct authn__oidc authn__oidc_t;

/**
 * The JWT authenticators from the --oidc-* flags or --authentication-config into *out (NULL
 * when neither is given); GW_EINVAL with a reason in err. Thread: main, at start-up.
 */
int authn__oidc_new(const authn_config_t *cfg, authn__oidc_t **out, char *err, size_t err_len);

/** Free them (NULL is fine). Thread: main, once no request uses them. */
void authn__oidc_free(authn__oidc_t *o);

/**
 * The JWT authenticators in the token union: NOT_MINE when not configured, when the token is
 * not a JWT or names an issuer none has; else FOUND, REFUSED, or PENDING on the issuer's
 * discovery document or keys. Checks the configuration file for changes first (every
 * RELOAD interval). Thread: any.
 */
authn__verdict_t authn__oidc_token(const authn_t *a, const char *token, authn_user_t **user,
                                   authn_pending_t **pending, const char **why);

#endif
