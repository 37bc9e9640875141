#ifndef GATEWAY_API_GW_IMPERSONATE_H
#define GATEWAY_API_GW_IMPERSONATE_H

/*
 * User impersonation, as kube-apiserver's impersonation filter: the Impersonate-User,
 * Impersonate-Group (repeatable), Impersonate-Uid and Impersonate-Extra-<key> headers ask to
 * act as another user; each asked-for part is authorized for the authenticated user with the
 * verb "impersonate" (users, serviceaccounts and groups in the core group, uids and
 * userextras/<key> in authentication.k8s.io) through the authorizer chain, and the request
 * then goes on as the impersonated user.
 */

#include "gw_req.h"

/**
 * The impersonation filter (after authentication, before authorization): GW_NEXT with r->user
 * replaced (owned by r's arena) or untouched when no impersonation header is present;
 * GW_DONE after a 403 (a part refused, in kube's words) or a 500 (groups, extra or uid
 * without a user, as kube answers); GW_SUSPEND while an authorizer answers asynchronously
 * (the chain resumes by itself). Thread: r's worker.
 */
gw_verdict_t gw_impersonate_filter(gw_req_t *r);

#endif
