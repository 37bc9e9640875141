#ifndef GATEWAY_CONTROLLERS_GW_SACTL_H
#define GATEWAY_CONTROLLERS_GW_SACTL_H

/*
 * Two of kube-controller-manager's controllers inside kgate, run by the leader of the
 * "serviceaccount-controller" election (gw_controllers.h starts and stops them):
 *  - serviceaccount: every namespace that is not being deleted has a ServiceAccount
 *    "default" (created again when it is deleted);
 *  - root-ca-cert-publisher: every such namespace has a ConfigMap "kube-root-ca.crt" whose
 *    data is exactly {"ca.crt": <the root CA bundle>}, with kube's description annotation
 *    (put back when changed or deleted).
 * Informers (gw_informer.h) follow namespaces, ServiceAccounts and ConfigMaps; a namespace
 * that appears or changes, or whose default account or CA ConfigMap changes or goes, is
 * queued, and every namespace is queued once a minute (the namespaces' resync). One namespace
 * is handled at a time (gw_workqueue.h), through the controller's own etcd conn on one
 * event_base thread; objects are written straight to etcd (create-if-absent, or updated with
 * a revision precondition).
 */

#include <stdint.h>

#include <openssl/ssl.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_sactl gw_sactl_t;

typedef struct {
    const char *etcd_prefix;              /* --etcd-prefix; copied */
    const gw_value_transformer_t *values; /* the store's (borrowed; NULL: values as stored) */
    const char *root_ca_pem; /* the CA bundle to publish (copied); NULL or "": no ConfigMaps */
    int64_t resync_ms;       /* how often every namespace is looked at; 0: a minute */
} gw_sactl_opts_t;

/** Start on `base` (the calling thread's event_base, which must keep running); `client` must
 *  outlive it. Thread: base's. */
gw_sactl_t *gw_sactl_start(etcd_client_t *client, struct event_base *base,
                           const gw_sactl_opts_t *opts);

/** Stop and free (work in flight is cancelled with the conn). NULL is fine. Thread: c's. */
void gw_sactl_stop(gw_sactl_t *c);

/**
 * The root CA bundle kube-controller-manager would publish: the --client-ca-file's contents
 * when given (client_ca_file, may be NULL), else the serving certificate's issuers as the TLS
 * context holds them (its chain; a self-signed serving certificate is its own root). Returns
 * a new PEM string (caller frees), or NULL when none can be told. Thread: any, at start-up.
 */
char *gw_sactl_root_ca(const char *client_ca_file, SSL_CTX *tls);

#endif
