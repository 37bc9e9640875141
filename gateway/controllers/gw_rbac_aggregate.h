#ifndef GATEWAY_CONTROLLERS_GW_RBAC_AGGREGATE_H
#define GATEWAY_CONTROLLERS_GW_RBAC_AGGREGATE_H

/*
 * ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller:
 * a ClusterRole with aggregationRule.clusterRoleSelectors gets as rules the rules of every
 * other ClusterRole its selectors match (in name order, without repeats). One pass looks at
 * all ClusterRoles (an informer's cache) and rewrites those whose rules differ; the writes
 * start the next pass, so that roles aggregated from aggregated roles (edit into admin) settle.
 */

#include <jansson.h>

#include "gw_store.h"

/** The rules aggregation gives `role` among `all` (an array of ClusterRoles): a new array, or
 *  NULL when role has no aggregationRule. Thread: any. */
json_t *gw_rbac_aggregate_rules(const json_t *role, const json_t *all);

/** Called once when a pass is over: 0 or the first error. */
typedef void (*gw_rbac_aggregate_done_fn)(int err, void *arg);

/** One pass over `all` (the ClusterRoles in name order; borrowed for the call), writing through
 *  `store`. done fires once: from a later event, or at once when nothing is stale. Thread: the
 *  store's. */
void gw_rbac_aggregate(gw_store_t *store, const json_t *all, gw_rbac_aggregate_done_fn done,
                       void *arg);

#endif
