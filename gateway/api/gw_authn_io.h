#ifndef GATEWAY_API_GW_AUTHN_IO_H
#define GATEWAY_API_GW_AUTHN_IO_H

/*
 * The I/O a pending authentication asks for (authn.h's needs): objects read from storage on
 * the request's worker, HTTPS exchanges on its event loop. Used by the authentication filter
 * and by the TokenReview endpoint.
 */

#include "authn.h"
#include "gw_req.h"

/** Called once with the outcome: AUTHN_OK with a user owned by r's arena, or
 *  AUTHN_UNAUTHORIZED (the reason already logged). Thread: r's worker. */
typedef void (*gw_authn_done_fn)(gw_req_t *r, authn_result_t result, const authn_user_t *user,
                                 void *arg);

/**
 * Answer p's needs (concurrently), finish it with `a`, and repeat while it asks again; then
 * call done. p is consumed. Thread: r's worker.
 */
void gw_authn_resolve(gw_req_t *r, const authn_t *a, authn_pending_t *p, gw_authn_done_fn done,
                      void *arg);

#endif
