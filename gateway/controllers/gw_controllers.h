#ifndef GATEWAY_CONTROLLERS_GW_CONTROLLERS_H
#define GATEWAY_CONTROLLERS_GW_CONTROLLERS_H

/*
 * The controllers an instance runs, started once per process on one worker (main.c starts
 * them on worker 0):
 *  - on every instance: the initial namespaces are created if absent, at start and then every
 *    minute (kube-apiserver's system namespaces controller re-creates them likewise);
 *  - on the leader of the "namespace-controller" election only: the namespace deletion
 *    controller (gw_nsctl.h);
 *  - when started (kgate issues service account tokens), on the leader of the
 *    "serviceaccount-controller" election only: the serviceaccount and root-ca-cert-publisher
 *    controllers (gw_sactl.h).
 *  - on every instance: the process's RBAC snapshot, from watches of the RBAC kinds
 *    (gw_rbac_cache.h);
 *  - on the leader of the "rbac-controllers" election only: ClusterRole aggregation
 *    (gw_rbac_ctl.h; the bootstrap policy is every instance's, gw_poststart.h);
 *  - on every instance: the admission policy snapshot (gw_vap_cache.h) and the admission
 *    webhook snapshot (gw_webhook_cache.h);
 *  - on the leader of the "validatingadmissionpolicy-status-controller" election only: the
 *    policies' type checking written to their status (gw_vap_status.h);
 *  - on the leader of the "crd-naming-controller" election only: CRDs' accepted names,
 *    NamesAccepted, Established and NonStructuralSchema (gw_crd_naming.h);
 *  - on the leader of the "crd-finalizer-controller" election only: the custom objects of a
 *    deleted CRD, then its cleanup finalizer (gw_crd_finalizer.h).
 *  - with API Priority and Fairness (gw_controllers_start_apf): on every instance, the
 *    dispatcher fed from the stored FlowSchemas and priority levels; on the leader of the
 *    "priority-and-fairness-config-producer" election only, kube's bootstrap objects and the
 *    FlowSchemas' Dangling condition (gw_apf_ctl.h).
 * The elections start once the start-up state is confirmed (gw_controllers_on_synced), so
 * that what leaders run does not delay readiness. Elections and handovers are logged
 * ("<election>: leading as <identity>" / "no longer leading").
 */

#include <stdbool.h>
#include <stddef.h>

#include "etcd.h"
#include "gw_apf_ctl.h"
#include "gw_transformer.h"
#include "gw_catalog.h"
#include "gw_nsctl.h"

struct event_base;
struct gw_apf;

typedef struct gw_controllers gw_controllers_t;

/**
 * Start them on `base` (the calling worker's event_base; it must keep running). `client`,
 * `values` (every controller store's value transformer) and `catalog` (whose namespaced, stored
 * resources the namespace controller empties) must outlive the controllers. Thread: base's.
 */
gw_controllers_t *gw_controllers_start(etcd_client_t *client, struct event_base *base,
                                       const char *etcd_prefix,
                                       const gw_value_transformer_t *values,
                                       const gw_catalog_t *catalog);

/**
 * Call cb(arg) once, on c's thread, when the start-up state every request relies on (the
 * initial namespaces, the first RBAC snapshot and the first admission policy snapshot) has
 * been confirmed in etcd for the first time; at once if it already was. The readiness check
 * informer-sync waits for it. Thread: c's.
 */
void gw_controllers_on_synced(gw_controllers_t *c, void (*cb)(void *arg), void *arg);

/**
 * The --controllers list (names, n; borrowed for the call): "tokencleaner" and
 * "bootstrapsigner" (off by default, as in kube-controller-manager; "-name" keeps one off)
 * then run on the leader of the "bootstrap-token-controllers" election (gw_tokencleaner.h,
 * gw_bootstrapsigner.h); "garbage-collector-controller" (alias "garbagecollector"; on by
 * default) runs on the leader of its own election (gw_gc.h). Call once, right after
 * gw_controllers_start. Thread: c's.
 */
void gw_controllers_enable(gw_controllers_t *c, const char *const *names, size_t n);

/** Whether the --controllers list (names, n) runs controller `name`, as
 *  kube-controller-manager reads it: the first mention decides, "-name" turns it off, "*"
 *  runs those on `by_default`. Thread: any. */
bool gw_controllers_wanted(const char *const *names, size_t n, const char *name, bool by_default);

/**
 * Campaign for the "serviceaccount-controller" election too, whose leader runs the
 * serviceaccount and root-ca-cert-publisher controllers (gw_sactl.h); the latter publishes
 * root_ca_pem (copied; NULL: no kube-root-ca.crt). Both are on by default, as in
 * kube-controller-manager. A second call does nothing. Thread: c's.
 */
void gw_controllers_start_service_accounts(gw_controllers_t *c, const char *root_ca_pem);

/** Keep the Node authorizer's graph current on this instance (gw_node_graph.h), for
 *  --authorization-mode with Node. A second call does nothing. Thread: c's. */
void gw_controllers_start_node_graph(gw_controllers_t *c);

/** Whether this instance leads the namespace-controller election now, i.e. runs the namespace
 *  controller (tests, metrics). Thread: c's. */
bool gw_controllers_leading(const gw_controllers_t *c);

/**
 * Every namespaced, stored resource of `catalog` (what the namespace controller empties), one
 * per storage path, in catalog order: a new array (caller frees it) whose strings the catalog
 * owns; *n gets its length. Thread: any.
 */
gw_nsctl_resource_t *gw_controllers_namespaced(const gw_catalog_t *catalog, size_t *n);

/**
 * Stop and free, releasing leadership at once so that another instance takes over without
 * waiting for the lease to expire (this blocks for up to 3 s: meant for shutdown). NULL is
 * fine. Thread: the one that started them.
 */
void gw_controllers_stop(gw_controllers_t *c);

/**
 * Feed API Priority and Fairness' dispatcher `apf` (borrowed; it outlives c) from the stored
 * FlowSchemas and PriorityLevelConfigurations, and campaign for the
 * "priority-and-fairness-config-producer" election, whose leader keeps kube's bootstrap
 * objects and the FlowSchemas' status (gw_apf_ctl.h); `hooks` (copied, NULL: none) are told
 * when the configuration is first in force and the bootstrap objects are in place. A second
 * call does nothing.
 * Thread: c's.
 */
void gw_controllers_start_apf(gw_controllers_t *c, struct gw_apf *apf,
                              const gw_apf_ctl_hooks_t *hooks);

#endif
