#ifndef GATEWAY_CONTROLLERS_GW_RBAC_CTL_H
#define GATEWAY_CONTROLLERS_GW_RBAC_CTL_H

/*
 * The RBAC controller the leader of the "rbac-controllers" election runs: ClusterRole
 * aggregation (gw_rbac_aggregate.h) over a ClusterRole informer's cache after every change to
 * a ClusterRole and every minute. The bootstrap policy is not the leader's: every instance
 * reconciles it at start, as kube's rbac/bootstrap-roles post-start hook (gw_poststart.h).
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
