#ifndef GATEWAY_CONTROLLERS_GW_BOOTSTRAPSIGNER_H
#define GATEWAY_CONTROLLERS_GW_BOOTSTRAPSIGNER_H

/*
 * kube-controller-manager's bootstrapsigner: the ConfigMap kube-public/cluster-info carries,
 * beside its "kubeconfig" entry, one "jws-kubeconfig-<token id>" entry per usable signing
 * bootstrap token (type bootstrap.kubernetes.io/token in kube-system, named
 * bootstrap-token-<id>, token-id matching, a token-secret, not expired,
 * usage-bootstrap-signing "true"): a detached JWS (HS256 keyed with "<id>.<secret>", header
 * {"alg":"HS256","kid":"<id>"}) of the kubeconfig. Entries of other tokens are removed. It
 * signs again after every change to those Secrets or to cluster-info, when a signing token
 * expires, and at least once a minute; it writes only when a signature changed.
 */

#include <stddef.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_bootstrapsigner gw_bootstrapsigner_t;

/** The detached JWS of content for token "<id>.<secret>": "<header>..<signature>" (base64url
 *  without padding), a new string (caller frees). Thread: any. */
char *gw_bootstrapsigner_sign(const char *content, size_t len, const char *id, const char *secret);

/** Start on base (whose loop must keep running) with the store under etcd_prefix (copied).
 *  Thread: base's. */
gw_bootstrapsigner_t *gw_bootstrapsigner_start(etcd_client_t *client, struct event_base *base,
                                               const char *etcd_prefix,
                                               const gw_value_transformer_t *values);

/** Stop and free (NULL is fine); nothing runs afterwards. Thread: base's. */
void gw_bootstrapsigner_stop(gw_bootstrapsigner_t *s);

#endif
