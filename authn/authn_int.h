#ifndef AUTHN_AUTHN_INT_H
#define AUTHN_AUTHN_INT_H

/* Internals shared by the files of authn/. */

#include <stddef.h>

#include <openssl/evp.h>

#include "authn.h"
#include "authn_token_cache.h"

/** One line of the static token file. */
typedef struct {
    char *token;
    char *name;
    char *uid;
    char **groups;
    size_t n_groups;
} authn__token_t;

/** The static token file, parsed. */
typedef struct {
    authn__token_t *tokens;
    size_t n;
} authn__tokens_t;

/**
 * Parse the contents of a token file (CSV as Go's encoding/csv reads it: quoted fields with
 * "" escapes, CRLF or LF) into *out. Returns 0, or GW_EINVAL with a one-line reason (naming
 * `path` and the line) in err. Thread: any.
 */
int authn__tokens_parse(const char *path, const char *text, size_t len, authn__tokens_t *out,
                        char *err, size_t err_len);

/** The entry for `token`, or NULL. Thread: any. */
const authn__token_t *authn__tokens_find(const authn__tokens_t *t, const char *token);

void authn__tokens_free(authn__tokens_t *t);

/**
 * The user a verified client certificate names (kube's CommonNameUserConversion: the subject's
 * CN is the name, each O a group), or NULL when the subject has no CN (the certificate then
 * does not authenticate anyone). Caller frees. Thread: any.
 */
authn_user_t *authn__x509_user(X509 *cert);

/* ---- pending authentications (authn_pending.c) ------------------------------------------ */

/** What one authenticator says of a credential. */
typedef enum {
    AUTHN__NOT_MINE, /* not a credential it reads: the next authenticator tries */
    AUTHN__FOUND,    /* *user set */
    AUTHN__REFUSED,  /* *why set */
    AUTHN__PENDING,  /* *pending set */
} authn__verdict_t;

/** How the authenticator that asked decides once the needs are answered (one answer per need,
 *  in order); the same verdicts, AUTHN__NOT_MINE excepted. */
typedef authn__verdict_t (*authn__finish_fn)(const authn_t *a, void *state,
                                             const authn_answer_t *answers, authn_user_t **user,
                                             authn_pending_t **pending, const char **why);

/** A pending authentication. The chain (authn.c) resumes after the authenticator that asked
 *  (`next`, with the bearer `token`) when it refuses, and remembers an accepted token under
 *  `key` when `keyed` (the union's answers are cached). */
struct authn_pending {
    authn_need_t *needs;
    size_t n;
    authn__finish_fn finish;
    void *state;
    void (*free_state)(void *state);
    char *token;
    size_t next;
    bool keyed;
    authn__token_key_t key;
};

/** A new pending authentication that `finish` decides with `state` (freed by free_state, which
 *  may be NULL, when the pending authentication goes). */
authn_pending_t *authn__pending_new(authn__finish_fn finish, void *state,
                                    void (*free_state)(void *state));

/** Ask for an object: resource, namespace ("" when cluster-scoped) and name are copied. */
void authn__need_object(authn_pending_t *p, const char *resource, const char *namespace,
                        const char *name);

/** Ask for an HTTPS exchange: method, url and body (may be NULL) are copied; tls is borrowed
 *  and must outlive p (it belongs to the authenticator's configuration). */
void authn__need_https(authn_pending_t *p, const char *method, const char *url, const char *body,
                       const authn_tls_t *tls);

/** Run p's finish (p is consumed). */
authn__verdict_t authn__pending_run(const authn_t *a, authn_pending_t *p,
                                    const authn_answer_t *answers, authn_user_t **user,
                                    authn_pending_t **pending, const char **why);

/* ---- the chain (authn.c) ------------------------------------------------------------------- */

/** A bearer-token authenticator: NOT_MINE when it is not configured or the token is not of
 *  its kind. */
typedef authn__verdict_t (*authn__token_fn)(const authn_t *a, const char *token,
                                            authn_user_t **user, authn_pending_t **pending,
                                            const char **why);

/** Bootstrap tokens (authn_bootstrap.c): asks for the token's Secret. */
authn__verdict_t authn__bootstrap_token(const authn_t *a, const char *token, authn_user_t **user,
                                        authn_pending_t **pending, const char **why);

/** The authenticating proxy (authn_proxy.c). */
typedef struct authn__proxy authn__proxy_t;

/** The proxy's configuration from the --requestheader-* flags into *out (NULL when
 *  --requestheader-client-ca-file is not given). GW_EINVAL with a reason when the CA file holds
 *  no certificate. */
int authn__proxy_new(const authn_config_t *cfg, authn__proxy_t **out, char *err, size_t err_len);
void authn__proxy_free(authn__proxy_t *p);

/** A request from the front proxy: FOUND with the user its headers name; REFUSED when the
 *  peer certificate is not the proxy's; NOT_MINE when unconfigured, without a certificate, or
 *  without a user header. */
authn__verdict_t authn__proxy_authenticate(const authn_t *a, const authn_request_t *req,
                                           authn_user_t **user, const char **why);

/** Service accounts (authn_sa.c, authn_sa_token.c): issuers, API audiences, keys. */
typedef struct {
    char **issuers; /* the first signs */
    size_t n_issuers;
    char **audiences; /* --api-audiences, else the issuers */
    size_t n_audiences;
    EVP_PKEY **keys; /* verifying keys */
    char **kids;     /* their key ids */
    size_t n_keys;
    EVP_PKEY *signing_key; /* NULL: no TokenRequest */
    char *signing_kid;
    const char *signing_alg;
    long long max_expiration; /* seconds; 0: none */
    bool extend;              /* --service-account-extend-token-expiration */
    bool lookup;              /* --service-account-lookup (legacy tokens) */
} authn__sa_t;

/** The service account configuration into *out (NULL when no --service-account-issuer is
 *  given); GW_EINVAL with a reason when a key file cannot be read or holds no key. */
int authn__sa_new(const authn_config_t *cfg, authn__sa_t **out, char *err, size_t err_len);
void authn__sa_free(authn__sa_t *sa);

/** Service account JWTs of a configured issuer, or legacy Secret-based ones: verified, then
 *  the account and the bound object (or the token's Secret) asked for; kube's bound-token
 *  validator always looks them up, legacy tokens only with --service-account-lookup. */
authn__verdict_t authn__sa_token(const authn_t *a, const char *token, authn_user_t **user,
                                 authn_pending_t **pending, const char **why);

/** Every authenticator's configuration; each method's file reads its own part. */
struct authn {
    bool anonymous;
    bool have_tokens;
    authn__tokens_t tokens;
    authn__sa_t *sa;
    bool bootstrap; /* --enable-bootstrap-token-auth */
    authn__proxy_t *proxy;
    struct authn__oidc *oidc;       /* authn_oidc.c */
    struct authn__webhook *webhook; /* authn_webhook.c */
    /* the union's accepted tokens (authn_token_cache.c; NULL: not cached) and the audiences
       their keys are made with */
    struct authn__token_cache *token_cache;
    char **audiences;
    size_t n_audiences;
};

/* ---- users ------------------------------------------------------------------------------- */

/** A new user with a copy of name and uid and no groups. */
authn_user_t *authn__user_new(const char *name, const char *uid);

/** A deep copy of u. */
authn_user_t *authn__user_copy(const authn_user_t *u);

/** u with one more holder (each lets go with authn_user_free); u must not change from then
 *  on. Thread: any. */
authn_user_t *authn__user_share(authn_user_t *u);

/** Append a copy of group to u's groups. */
void authn__user_add_group(authn_user_t *u, const char *group);

#endif
