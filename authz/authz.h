#ifndef AUTHZ_AUTHZ_H
#define AUTHZ_AUTHZ_H

/*
 * Authorization: may this user do this verb on this resource or path? A library of its own
 * (no libevent, no gRPC). Authorizers are consulted in --authorization-mode order; the first
 * Allow or Deny decides; when all have no opinion the request is denied. Members of
 * system:masters are allowed before any authorizer is asked, as kube-apiserver does.
 * Authorizers may answer asynchronously (webhook, later): decisions come through a callback,
 * which may also fire before authz_authorize returns.
 */

#include <stdbool.h>
#include <stddef.h>

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
} authz_attrs_t;

typedef enum {
    AUTHZ_ALLOW,
    AUTHZ_DENY,
    AUTHZ_NO_OPINION,
} authz_decision_t;

/** reason may be "" and is valid during the callback only. */
typedef void (*authz_done_cb)(authz_decision_t decision, const char *reason, void *ctx);

/** One authorizer (a const vtable plus its state). */
typedef struct authz_authorizer authz_authorizer_t;
struct authz_authorizer {
    const char *name; /* "AlwaysAllow", "RBAC", ... */
    void (*authorize)(const authz_authorizer_t *self, const authz_attrs_t *attrs,
                      authz_done_cb cb, void *ctx);
    void (*free)(authz_authorizer_t *self);
};

typedef struct authz authz_t;

/**
 * Build the chain from --authorization-mode (comma-separated: AlwaysAllow, AlwaysDeny, RBAC
 * (authz_rbac.h); Node, ABAC and Webhook later). Unknown or repeated mode -> GW_EINVAL with a one-line reason.
 * Thread: main, at start-up.
 */
int authz_new(const char *modes, authz_t **out, char *err, size_t err_len);
void authz_free(authz_t *z);

/** Whether the chain holds the mode `name` ("RBAC", "AlwaysAllow", ...): the rules reviews
 *  ask the modes that can list rules. Thread: any. */
bool authz_has_mode(const authz_t *z, const char *name);

/** Decide; cb fires exactly once with ALLOW or DENY (never NO_OPINION: the chain's end
 *  denies). Thread: the caller's; cb runs on the thread that completes the decision (the
 *  caller's for the synchronous authorizers). */
void authz_authorize(const authz_t *z, const authz_attrs_t *attrs, authz_done_cb cb, void *ctx);

#endif
