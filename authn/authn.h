#ifndef AUTHN_AUTHN_H
#define AUTHN_AUTHN_H

/*
 * Authentication: credentials in, a user out. A library of its own (no libevent, no gRPC):
 * the gateway hands it what it needs of the request. Authenticators are tried in
 * kube-apiserver's order (x509 client certificate, bearer token: static token file; later
 * service account, bootstrap and OIDC tokens, webhook; then anonymous); the first that
 * recognises the credential decides.
 */

#include <stdbool.h>
#include <stddef.h>

#include <openssl/x509.h>

typedef struct {
    char *key;
    char **values;
    size_t n_values;
} authn_extra_t;

/** An authenticated user. Immutable once returned; free with authn_user_free. */
typedef struct {
    char *name;
    char *uid; /* may be "" */
    char **groups;
    size_t n_groups;
    authn_extra_t *extra;
    size_t n_extra;
} authn_user_t;

/** Free a user (NULL is fine). Thread: any. */
void authn_user_free(authn_user_t *u);

/** What the authenticators look at. Borrowed for the duration of the call. */
typedef struct {
    const char *authorization; /* the Authorization header, or NULL */
    X509 *client_cert;         /* the verified peer certificate, or NULL when none was
                                  presented (the TLS layer has verified it against
                                  --client-ca-file) */
    /* other headers (front proxy, impersonation) through a lookup, may be NULL */
    const char *(*header)(void *ctx, const char *name);
    void *header_ctx;
} authn_request_t;

typedef struct {
    const char *token_auth_file; /* --token-auth-file, or NULL */
    bool anonymous;              /* --anonymous-auth */
} authn_config_t;

typedef struct authn authn_t;

/**
 * Build the authenticators. Reads and validates files now (the token file: CSV lines
 * `token,user,uid,"group1,group2"`, at least three columns; as kube-apiserver does, a line
 * with an empty token is skipped and a repeated token replaces the earlier line, each with a
 * warning in the log). On error returns GW_EINVAL with a one-line reason in err and *out
 * NULL. Thread: main, at start-up.
 */
int authn_new(const authn_config_t *cfg, authn_t **out, char *err, size_t err_len);
void authn_free(authn_t *a);

typedef enum {
    AUTHN_OK,           /* *user set */
    AUTHN_UNAUTHORIZED, /* a credential was presented and refused, or none and no anonymous:
                           401 (the reason goes to the log only) */
} authn_result_t;

/**
 * Authenticate synchronously (every authenticator so far decides from memory). Every
 * authenticated user also gets the group system:authenticated; anonymous is user
 * system:anonymous in group system:unauthenticated. On AUTHN_OK *user is new (caller frees);
 * on failure `why` (may be NULL) gets a reason for the log. Thread: any.
 */
authn_result_t authn_authenticate(const authn_t *a, const authn_request_t *req, authn_user_t **user,
                                  char *why, size_t why_len);

#endif
