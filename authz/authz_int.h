#ifndef AUTHZ_AUTHZ_INT_H
#define AUTHZ_AUTHZ_INT_H

/*
 * Internals shared by the files of authz/: the refcounted chain that authz_t publishes, and
 * the Webhook authorizer's full settings (one instance per --authorization-mode Webhook or per
 * Webhook entry of an AuthorizationConfiguration).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "authz.h"
#include "cel.h"

/** The authorizers in order, immutable once published; freed with its last reference. */
typedef struct {
    authz_authorizer_t **items;
    size_t n;
    int refs; /* guarded by the owning authz_t's mutex */
} authz__chain_t;

/** A new empty chain with no reference yet. Thread: any. */
authz__chain_t *authz__chain_new(void);

/** Append a (owned from now on). Thread: the builder's. */
void authz__chain_add(authz__chain_t *c, authz_authorizer_t *a);

/** Free c and its authorizers (no reference may be left). NULL is a no-op. */
void authz__chain_free(authz__chain_t *c);

/** The bit of the non-Webhook type `name` ("RBAC", ...) in a set of types; 0 for others. */
unsigned authz__type_bit(const char *name);

/** The non-Webhook types c holds, one bit per type (authz__type_bit). */
unsigned authz__chain_types(const authz__chain_t *c);

/** The built-in (non-Webhook) authorizer of type `name` ("RBAC", ...), or NULL. */
authz_authorizer_t *authz__builtin(const char *name);

/** One Webhook authorizer's settings. Borrowed by authz__webhook_new for the call, except
 *  `conditions`, whose programs it takes over (the array stays the caller's). */
typedef struct {
    const char *name;            /* its name in metrics: "webhook", or the entry's name */
    const char *kubeconfig;      /* read now */
    const char *kubeconfig_flag; /* how errors name it: "--authorization-webhook-config-file" */
    const char *version;         /* SubjectAccessReview version: "v1beta1" or "v1" */
    int64_t authorized_ttl_ms;   /* how long an allow is cached */
    int64_t unauthorized_ttl_ms; /* how long a denial or no opinion is cached */
    int timeout_ms;              /* per exchange; 0: the kubeconfig's default */
    bool deny_on_error;          /* failurePolicy Deny (else NoOpinion) */
    cel_program_t **conditions;  /* matchConditions over the v1 SubjectAccessReviewSpec */
    const char *const *condition_src; /* their source text, for error messages */
    size_t n_conditions;
    authz_https_fn https;
} authz__webhook_opts_t;

/** A Webhook authorizer from o into *out (freed through its own free()); GW_EINVAL with a
 *  one-line reason. The condition programs are taken over, also on failure. Thread: any. */
int authz__webhook_new(const authz__webhook_opts_t *o, authz_authorizer_t **out, char *err,
                       size_t err_len);

/** Count a's decision in apiserver_authorization_decisions_total (no opinion is not counted).
 *  Thread: any. */
void authz__count_decision(const authz_authorizer_t *a, authz_decision_t decision);

/** Count one round trip to the Webhook authorizer `name`: result "success", "timeout" or
 *  "error" (kube's words), its duration, and whether its failure gave no opinion (the
 *  NoOpinion failure policy). Thread: any. */
void authz__count_webhook(const char *name, const char *result, double seconds, bool fail_open);

/** What an authorizer's match conditions decided. */
typedef enum {
    AUTHZ__CONDITIONS_ERROR,    /* one failed to evaluate (and none was false) */
    AUTHZ__CONDITIONS_EXCLUDED, /* one was false: the authorizer is not asked */
    AUTHZ__CONDITIONS_HOLD,     /* all true */
} authz__conditions_t;

/** Count one evaluation of a's match conditions and the seconds it took. Thread: any. */
void authz__count_conditions(const authz_authorizer_t *a, authz__conditions_t outcome,
                             double seconds);

/** Parse and validate an AuthorizationConfiguration (YAML or JSON, `len` bytes) as
 *  kube-apiserver does, and build its chain into *out (no reference yet). `require`, when not
 *  NULL, is the set of non-Webhook types the chain must hold (a reload keeps those of
 *  start-up). GW_EINVAL with kube's one-line aggregate in err. Thread: any (reads the
 *  webhooks' kubeconfigs). */
int authz__config_build(const char *text, size_t len, const unsigned *require, authz_https_fn https,
                        authz__chain_t **out, char *err, size_t err_len);

#endif
