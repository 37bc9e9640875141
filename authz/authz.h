#ifndef AUTHZ_AUTHZ_H
#define AUTHZ_AUTHZ_H

/*
 * Authorization: may this user do this verb on this resource or path? A library of its own
 * (no libevent, no gRPC). Authorizers are consulted in --authorization-mode order (or in the
 * order of an --authorization-config file, re-read when it changes); the first
 * Allow or Deny decides; when all have no opinion the request is denied. An authorizer that
 * failed (a webhook unreachable) reports an error beside its decision. Members of
 * system:masters are allowed before any authorizer is asked, as kube-apiserver does.
 * Authorizers may answer asynchronously (the webhook): decisions come through a callback,
 * which may also fire before authz_authorize returns.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "authn.h"

typedef struct {
    const authn_user_t *user;
    const char *verb; /* kube verb: get, list, watch, create, ... or the lowercase method */
    bool resource_request;
    const char *path; /* non-resource requests */
    const char *api_group;
    const char *api_version;
    const char *resource;
    const char *subresource;
    const char *namespace_;
    const char *name;
    const char *field_selector; /* a list, watch or deletecollection's fieldSelector and */
    const char
        *label_selector; /* labelSelector as sent (gw_selector.h parses them); NULL for none */
    void *io; /* the caller's event loop, lent to the HTTPS exchange of the Webhook authorizer
               * (authz_config_t.https); NULL when the caller cannot wait: the webhook then
               * has no opinion at once */
} authz_attrs_t;

typedef enum {
    AUTHZ_ALLOW,
    AUTHZ_DENY,
    AUTHZ_NO_OPINION,
} authz_decision_t;

/** reason may be ""; error, NULL when none, says why an authorizer could not decide (a
 *  webhook that failed): kube answers such a request with a 500 unless it is allowed. Both
 *  are valid during the callback only. */
typedef void (*authz_done_cb)(authz_decision_t decision, const char *reason, const char *error,
                              void *ctx);

/** One authorizer (a const vtable plus its state). */
typedef struct authz_authorizer authz_authorizer_t;
struct authz_authorizer {
    const char *name;  /* its type: "AlwaysAllow", "RBAC", ... */
    const char *label; /* its name in kube's metrics: the type lowercased, or a Webhook's name */
    void (*authorize)(const authz_authorizer_t *self, const authz_attrs_t *attrs, authz_done_cb cb,
                      void *ctx);
    void (*free)(authz_authorizer_t *self);
};

typedef struct authz authz_t;

/** The end of an HTTPS exchange: err 0 with the HTTP status and the body (borrowed for the
 *  call), or a gw_err code. */
typedef void (*authz_https_cb)(int err, int status, const char *body, size_t len, void *ctx);

/** An HTTPS POST of a JSON body, lent by the caller (authz does no I/O): started on the
 *  thread running `io`, cb fires exactly once, later, on that thread. `body` is borrowed for
 *  the call; `url` and `tls` stay valid until cb fires. The lender retries as kube's webhook
 *  client does: an attempt answered 429, 500 or 504, or whose connection was refused or
 *  broken, is tried again, up to 5 attempts in all, after 500 ms x 1.5^n (+-20 % jitter); a
 *  timeout is not retried. cb gets the last attempt's outcome. tls->timeout_ms bounds each
 *  attempt. */
typedef void (*authz_https_fn)(void *io, const char *url, const char *body, const authn_tls_t *tls,
                               authz_https_cb cb, void *ctx);

/** What the modes need beyond their names. Borrowed by authz_new_config for the call. */
typedef struct {
    const char *webhook_config_file;     /* the Webhook mode's kubeconfig */
    const char *webhook_version;         /* SubjectAccessReview version: "v1beta1" (NULL) or "v1" */
    int64_t webhook_authorized_ttl_ms;   /* how long an allow is cached */
    int64_t webhook_unauthorized_ttl_ms; /* how long a deny or no opinion is cached */
    authz_https_fn https;                /* the Webhook mode's exchanges */
} authz_config_t;

/**
 * Build the chain from --authorization-mode (comma-separated: AlwaysAllow, AlwaysDeny, RBAC
 * (authz_rbac.h), Webhook (needs authz_new_config), ABAC (authz_abac.h), Node (authz_node.h)).
 * Unknown or repeated mode -> GW_EINVAL with a one-line reason. Thread: main, at start-up.
 */
int authz_new(const char *modes, authz_t **out, char *err, size_t err_len);

/**
 * authz_new with the settings some modes need (cfg may be NULL): Webhook reads its kubeconfig
 * now (authz_webhook.h). GW_EINVAL with a one-line reason. Thread: main, at start-up.
 */
int authz_new_config(const char *modes, const authz_config_t *cfg, authz_t **out, char *err,
                     size_t err_len);
void authz_free(authz_t *z);

/**
 * The chain from an AuthorizationConfiguration file (--authorization-config; kube's
 * apiserver.config.k8s.io v1, v1beta1 or v1alpha1, YAML or JSON) instead of a mode list;
 * cfg->https serves its Webhook entries (the webhook_* fields are not used). The file is
 * validated as kube-apiserver does; GW_EINVAL with kube's one-line message. Thread: main, at
 * start-up.
 */
int authz_new_file(const char *path, const authz_config_t *cfg, authz_t **out, char *err,
                   size_t err_len);

/**
 * For a chain from a file: re-read it when its stat (inode, size, mtime) changed, or when its
 * content was last compared a minute ago or more. A valid new file replaces the chain at once
 * (decisions in progress finish with the chain they started with) and is logged; an invalid
 * one, or one that drops or adds a non-Webhook type, is logged as a warning and the chain in
 * use stays. A no-op for a chain from modes. Blocking file reads: call it about once a second
 * from one thread at a time.
 */
void authz_reload_check(authz_t *z);

/** Whether the chain holds the mode `name` ("RBAC", "AlwaysAllow", ...): the rules reviews
 *  ask the modes that can list rules. Thread: any. */
bool authz_has_mode(const authz_t *z, const char *name);

/** Decide; cb fires exactly once with ALLOW, DENY (an authorizer denied) or NO_OPINION (none
 *  had one: a denial too, without status.denied), the reasons of those without an opinion
 *  joined by newlines, and the errors of all asked joined by ", " (kube's aggregate).
 *  Thread: the caller's; cb runs on the thread that completes the decision (the
 *  caller's for the synchronous authorizers). */
void authz_authorize(const authz_t *z, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx);

#endif
