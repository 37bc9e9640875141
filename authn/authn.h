#ifndef AUTHN_AUTHN_H
#define AUTHN_AUTHN_H

/*
 * Authentication: credentials in, a user out. A library of its own (no libevent, no gRPC):
 * the gateway hands it what it needs of the request. Authenticators are tried in
 * kube-apiserver's order (request header (front proxy) and x509 client certificates; bearer
 * tokens: static token file, service account JWTs, bootstrap tokens, OIDC / JWT
 * authenticators, the token webhook; then anonymous); the first that recognises the
 * credential decides.
 *
 * What cannot be decided from memory is asked of the caller: an authentication may end
 * AUTHN_PENDING with a list of needs (objects to read from storage: a service account, the
 * pod or secret a token is bound to, a bootstrap token's secret; HTTPS exchanges: a
 * TokenReview for the webhook, an identity provider's discovery document or keys). The
 * caller performs them, in any order and concurrently, and hands the answers back to
 * authn_pending_finish, which decides or asks again. A bearer token the union accepted is
 * remembered for 10 s (kube's cached token authenticator), so it is accepted again then without
 * any check or lookup; refusals are not remembered. Caches (accepted tokens, webhook verdicts,
 * key sets) live inside authn_t behind their own locks, so one authn_t serves every worker.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <openssl/x509.h>

typedef struct {
    char *key;
    char **values;
    size_t n_values;
} authn_extra_t;

/** An authenticated user. Immutable once returned, and it may be shared: the cache of accepted
 *  tokens hands one user to every request that presents the same token. Each holder lets go of
 *  it with authn_user_free. */
typedef struct {
    char *name;
    char *uid; /* may be "" */
    char **groups;
    size_t n_groups;
    authn_extra_t *extra;
    size_t n_extra;
    /* holders besides the first: authn's own business (0 for a user built field by field) */
    atomic_uint more_holders;
} authn_user_t;

/** Let go of a user (NULL is fine): it is freed with its last holder. Thread: any. */
void authn_user_free(authn_user_t *u);

/** Add a copy of value to u's extra attribute `key` (a new key goes last). Thread: u's
 *  builder; a user is immutable once handed out. */
void authn_user_add_extra(authn_user_t *u, const char *key, const char *value);

/** The extra-attribute key a header suffix names, as kube reads Impersonate-Extra- and
 *  X-Remote-Extra- headers: lowercased, then percent-decoded (Go's url.PathUnescape); the
 *  lowercased text as it is when an escape is malformed or decodes to NUL. Caller frees.
 *  Thread: any. */
char *authn_extra_key(const char *header_suffix);

/** What the authenticators look at. Borrowed for the duration of the call. */
typedef struct {
    const char *authorization; /* the Authorization header, or NULL */
    X509 *client_cert;         /* the verified peer certificate, or NULL when none was
                                  presented (the TLS layer has verified it against
                                  --client-ca-file) */
    /* other headers (front proxy, impersonation) through a lookup, may be NULL */
    const char *(*header)(void *ctx, const char *name);
    void *header_ctx;
    /* the front proxy: the presented certificate whichever client CA the TLS layer verified
       it against (the proxy authenticator verifies it against the request-header CA itself),
       the intermediates the peer sent, and every header line in order (false past the last;
       header_ctx is its context); each may be NULL */
    X509 *peer_cert;
    STACK_OF(X509) * peer_chain;
    bool (*header_at)(void *ctx, size_t i, const char **name, const char **value);
} authn_request_t;

/** kube-apiserver's authentication flags (NULL / 0 / false: not given). Borrowed by authn_new
 *  for the call. */
typedef struct {
    const char *token_auth_file; /* --token-auth-file */
    bool anonymous;              /* --anonymous-auth */
    /* service accounts */
    const char *const *sa_key_files;  /* --service-account-key-file (repeatable), NULL-ended */
    const char *sa_signing_key_file;  /* --service-account-signing-key-file */
    const char *const *sa_issuers;    /* --service-account-issuer (repeatable; the first signs) */
    const char *const *api_audiences; /* --api-audiences; none: the first issuer */
    bool sa_lookup;                   /* --service-account-lookup (default true) */
    long long sa_max_expiration;      /* --service-account-max-token-expiration, seconds; 0 */
    bool sa_extend_expiration;        /* --service-account-extend-token-expiration (true) */
    const char *tls_key_file;         /* --tls-private-key-file: the key of last resort */
    /* bootstrap tokens */
    bool bootstrap_tokens; /* --enable-bootstrap-token-auth */
    /* OIDC (the flags) or JWT authenticators (--authentication-config); not both */
    const char *oidc_issuer_url, *oidc_client_id, *oidc_username_claim, *oidc_username_prefix;
    const char *oidc_groups_claim, *oidc_groups_prefix, *oidc_ca_file;
    const char *const *oidc_required_claims; /* "claim=value", NULL-ended */
    const char *const *oidc_signing_algs;    /* NULL: RS256 */
    const char *authentication_config;       /* --authentication-config file */
    /* the token webhook */
    const char *webhook_config_file; /* --authentication-token-webhook-config-file */
    long long webhook_cache_ttl;     /* seconds (default 120) */
    const char *webhook_version;     /* "v1beta1" (default) or "v1" */
    /* the authenticating proxy */
    const char *requestheader_client_ca_file;
    const char *const *requestheader_allowed_names;
    const char *const *requestheader_username_headers;
    const char *const *requestheader_group_headers;
    const char *const *requestheader_extra_headers_prefix;
    /* kube-apiserver's TokenSuccessCacheTTL, which it sets to 10 s without a flag: 0 is that;
       negative turns the cache of accepted bearer tokens off (tests that need every token
       checked afresh, as kube's own integration tests set -1) */
    long long token_cache_ttl_ms;
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
    AUTHN_PENDING,      /* *pending set: answer its needs, then authn_pending_finish */
} authn_result_t;

/* ---- needs: what a pending authentication asks of the caller ----------------------------- */

typedef enum {
    AUTHN_NEED_OBJECT, /* read a core/v1 object from storage */
    AUTHN_NEED_HTTPS,  /* one HTTPS exchange */
} authn_need_kind_t;

/** How to reach an HTTPS endpoint (a webhook's kubeconfig, an identity provider). */
typedef struct {
    const char *ca_pem;   /* PEM of the CAs to trust; NULL: the system's */
    const char *cert_pem; /* client certificate and key (PEM), or NULL */
    const char *key_pem;
    const char *bearer_token; /* Authorization: Bearer, or NULL */
    int timeout_ms;
} authn_tls_t;

/**
 * Read a webhook's kubeconfig file (YAML or JSON): the server URL and TLS settings of its
 * current-context (or its first cluster and user), relative file names resolved against the
 * file's folder. 0 with *server and tls's strings new (free with authn_kubeconfig_clear), or
 * GW_EINVAL with a one-line reason in err (the path is the caller's to name). Thread: any
 * (blocking reads: start-up).
 */
int authn_kubeconfig_read(const char *path, char **server, authn_tls_t *tls, char *err,
                          size_t err_len);

/** Free what authn_kubeconfig_read filled (strings of tls and *server). Thread: any. */
void authn_kubeconfig_clear(char **server, authn_tls_t *tls);

/** One need. Owned by its pending authentication. */
typedef struct {
    authn_need_kind_t kind;
    /* AUTHN_NEED_OBJECT */
    const char *resource;  /* "serviceaccounts", "secrets", "pods", "nodes" */
    const char *namespace; /* "" for a cluster-scoped resource */
    const char *name;
    /* AUTHN_NEED_HTTPS */
    const char *method; /* "GET" or "POST" */
    const char *url;    /* https://... */
    const char *body;   /* JSON for a POST, or NULL */
    const authn_tls_t *tls;
} authn_need_t;

/** The answer to one need. Borrowed by authn_pending_finish for the call. */
typedef struct {
    int err; /* 0, or a gw_err code: storage or the exchange failed */
    /* AUTHN_NEED_OBJECT: the stored object as JSON text (with metadata.uid), or NULL when it
     * does not exist */
    const char *object;
    size_t object_len;
    /* AUTHN_NEED_HTTPS: the status (0 when there was no answer) and the body */
    int status;
    const char *body;
    size_t body_len;
} authn_answer_t;

typedef struct authn_pending authn_pending_t;

/**
 * Authenticate. Every authenticated user also gets the group system:authenticated; anonymous
 * is user system:anonymous in group system:unauthenticated. On AUTHN_OK *user is new (caller
 * frees); on AUTHN_PENDING *pending is new (caller finishes or frees it); on failure `why`
 * (may be NULL) gets a reason for the log. `pending` may be NULL when the caller cannot wait
 * (the request is then refused as if the need failed). Thread: any.
 */
authn_result_t authn_authenticate(const authn_t *a, const authn_request_t *req, authn_user_t **user,
                                  authn_pending_t **pending, char *why, size_t why_len);

/** The needs of p: *needs gets an array of the returned length, owned by p. Thread: any. */
size_t authn_pending_needs(const authn_pending_t *p, const authn_need_t **needs);

/**
 * Decide p with `answers` (one per need, in order). p is consumed (freed) whatever the
 * result; the results are those of authn_authenticate (AUTHN_PENDING again with a new
 * *pending when an answer leads to another need, e.g. an identity provider's keys after its
 * discovery document). Thread: any.
 */
authn_result_t authn_pending_finish(const authn_t *a, authn_pending_t *p,
                                    const authn_answer_t *answers, authn_user_t **user,
                                    authn_pending_t **pending, char *why, size_t why_len);

/** Free a pending authentication that will not be finished (NULL is fine). Thread: any. */
void authn_pending_free(authn_pending_t *p);

#endif
