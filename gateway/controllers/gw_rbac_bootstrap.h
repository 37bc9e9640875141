#ifndef GATEWAY_CONTROLLERS_GW_RBAC_BOOTSTRAP_H
#define GATEWAY_CONTROLLERS_GW_RBAC_BOOTSTRAP_H

/*
 * The default RBAC policy kube-apiserver v1.32 installs (bootstrappolicy: cluster-admin,
 * admin/edit/view and the roles aggregated into them, the system: roles, the controllers'
 * roles, their ClusterRoleBindings, and the Roles and RoleBindings of kube-system and
 * kube-public), kept as data in rbac_bootstrap.json and embedded in
 * the binary. Every object is labelled kubernetes.io/bootstrapping=rbac-defaults and annotated
 * rbac.authorization.kubernetes.io/autoupdate=true.
 *
 * Reconciliation, as kube's rbac/bootstrap-roles post-start hook: a missing object is created;
 * an existing one gets back missing labels, annotations, rules (aggregation selectors for the
 * aggregated roles) and subjects, unless it is annotated autoupdate=false. Nothing is removed.
 */

#include <jansson.h>

#include "gw_store.h"

/** The policy as objects to store: a new array of the ClusterRoles, ClusterRoleBindings, then
 *  the Roles and RoleBindings of kube-system and kube-public, with apiVersion, kind and
 *  metadata (no uid or timestamps). Caller decrefs. Thread: any. */
json_t *gw_rbac_bootstrap_objects(void);

/** Called once when a reconciliation is over: 0, or the first error met (the others were still
 *  tried), or GW_ECANCELED when the store's conn was freed meanwhile. */
typedef void (*gw_rbac_bootstrap_done_fn)(int err, void *arg);

/** Reconcile every default object through `store`, one after another. done fires once, never
 *  from inside this call's own stack before the first etcd answer. Thread: the store's. */
void gw_rbac_bootstrap_reconcile(gw_store_t *store, gw_rbac_bootstrap_done_fn done, void *arg);

#endif
