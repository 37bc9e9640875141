#ifndef AUTHZ_AUTHZ_WEBHOOK_H
#define AUTHZ_AUTHZ_WEBHOOK_H

/*
 * The Webhook authorizer (--authorization-mode=...,Webhook): each decision is a
 * SubjectAccessReview POSTed to the service a kubeconfig names, through the HTTPS function
 * the caller lends (authz_config_t.https) on the request's loop (authz_attrs_t.io). The
 * review's status.allowed allows, status.denied denies, anything else has no opinion; answers
 * are cached under the SHA-256 of the review's spec, allows for the authorized TTL, the rest
 * for the unauthorized TTL. A failed exchange (after the lender's retries) or an unreadable
 * answer has no opinion and an error (a 500 unless a later authorizer allows), is logged and
 * is not cached, as kube's webhook authorizer by default. The Webhook entries of an
 * --authorization-config are built through authz_int.h with their own timeout, failure
 * policy and match conditions.
 */

#include <stddef.h>

#include "authz.h"

/**
 * The Webhook authorizer from cfg (its kubeconfig is read now) into *out, freed through its
 * own free(). GW_EINVAL with a one-line reason in err when the kubeconfig cannot be read or
 * names no https server, or cfg lends no HTTPS function. Thread: main, at start-up; the
 * authorizer is then used from any thread.
 */
int authz_webhook_new(const authz_config_t *cfg, authz_authorizer_t **out, char *err,
                      size_t err_len);

#endif
