#ifndef GATEWAY_CONTROLLERS_GW_RBAC_CTL_H
#define GATEWAY_CONTROLLERS_GW_RBAC_CTL_H

/*
 * The RBAC controllers the leader of the "rbac-controllers" election runs: first the bootstrap
 * policy's reconciliation (gw_rbac_bootstrap.h, once per leadership, retried until it
 * succeeds), then ClusterRole aggregation (gw_rbac_aggregate.h) over a ClusterRole informer's
 * cache after every change to a ClusterRole and every minute.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_rbac_ctl gw_rbac_ctl_t;

/** Start on `base` (the calling worker's; it must keep running); client must outlive it.
 *  Thread: base's. */
gw_rbac_ctl_t *gw_rbac_ctl_start(etcd_client_t *client, struct event_base *base,
                                 const char *etcd_prefix, const gw_value_transformer_t *values);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_rbac_ctl_stop(gw_rbac_ctl_t *c);

#endif
