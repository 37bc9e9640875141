#ifndef GATEWAY_API_GW_AUTHZ_IO_H
#define GATEWAY_API_GW_AUTHZ_IO_H

/*
 * The I/O the Webhook authorizers borrow (authz.h's authz_https_fn): a SubjectAccessReview
 * POSTed through gw_fetch on the request's event loop, tried again as kube's webhook client
 * does.
 */

#include "authz.h"

/**
 * authz_https_fn over gw_fetch: `io` is the request's worker's event_base. An attempt answered
 * 429, 500 or 504, or whose connection was refused or broken, is tried again, up to 5
 * attempts, after 500 ms x 1.5^n with +-20 % jitter; a timeout is not. cb gets the last
 * attempt's outcome, later, on io's thread. Thread: io's.
 */
void gw_authz_https(void *io, const char *url, const char *body, const authn_tls_t *tls,
                    authz_https_cb cb, void *ctx);

#endif
