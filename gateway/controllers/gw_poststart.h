#ifndef GATEWAY_CONTROLLERS_GW_POSTSTART_H
#define GATEWAY_CONTROLLERS_GW_POSTSTART_H

/*
 * The once-per-start work kube-apiserver's post-start hooks do on every instance (not
 * elected: each reconciles idempotently), each reporting when it is done so that readiness
 * can wait for it:
 *  - rbac/bootstrap-roles: the default RBAC policy reconciled (gw_rbac_bootstrap.h);
 *  - scheduling/bootstrap-system-priority-classes: the PriorityClasses system-node-critical
 *    (2000001000) and system-cluster-critical (2000000000) created when missing.
 * Each is retried (every second, as kube's hooks poll) until it succeeds.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_poststart gw_poststart_t;

/** A hook's work is done: called once, on the controller's thread. */
typedef void (*gw_poststart_fn)(void *arg);

typedef struct {
    const char *etcd_prefix;              /* copied by the store */
    const gw_value_transformer_t *values; /* must outlive the hooks */
    gw_poststart_fn rbac_done;            /* rbac/bootstrap-roles; may be NULL */
    void *rbac_arg;
    gw_poststart_fn priority_done; /* scheduling/bootstrap-system-priority-classes; may be NULL */
    void *priority_arg;
} gw_poststart_opts_t;

/** Start the hooks' work on `base` (the calling worker's; it must keep running); client must
 *  outlive them. Thread: base's. */
gw_poststart_t *gw_poststart_start(etcd_client_t *client, struct event_base *base,
                                   const gw_poststart_opts_t *opts);

/** Stop (work in flight is canceled) and free. NULL is fine. Thread: base's. */
void gw_poststart_stop(gw_poststart_t *p);

#endif
