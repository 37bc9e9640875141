#ifndef GATEWAY_CONTROLLERS_GW_NSCTL_H
#define GATEWAY_CONTROLLERS_GW_NSCTL_H

/*
 * The namespace deletion controller (kube-controller-manager's namespace controller, inside
 * kgate). Run by one instance at a time: the leader of the "namespace-controller" election
 * (gw_controllers.h starts and stops it).
 *
 * A namespace informer (gw_informer.h) queues every namespace with a deletionTimestamp
 * (gw_workqueue.h); each gets a pass, one at a time:
 *  1. status.phase becomes Terminating if it is not yet;
 *  2. every object in the namespace, for every namespaced resource it was given, is
 *     deleted; an object with metadata.finalizers gets a deletionTimestamp instead and is
 *     waited for (as the generic store's graceful deletion leaves it to its finalizers' owners);
 *  3. the status gets kube's five deletion conditions (NamespaceContentRemaining and
 *     NamespaceFinalizersRemaining tell what is left and which finalizers hold it), and while
 *     anything is left the pass is repeated every recheck interval;
 *  4. once the namespace is empty, "kubernetes" is removed from spec.finalizers (what kube does
 *     through /finalize) and, when neither spec.finalizers nor metadata.finalizers has anything
 *     left, the namespace object is deleted. Other finalizers are left to their owners: a
 *     change to the namespace starts a new pass.
 * Objects are deleted straight in etcd, each with a precondition on the revision it was seen
 * at, so a concurrent update is never lost (the object is looked at again in the next pass).
 * A new leader picks every terminating namespace up from its first list.
 *
 * Everything runs on one event_base thread and never blocks; the controller has an etcd conn
 * of its own there.
 */

#include <stddef.h>
#include <stdint.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

/** How often a namespace with content left is looked at again. */
#define GW_NSCTL_RECHECK_MS 3000

typedef struct gw_nsctl gw_nsctl_t;

/** A namespaced resource to empty. The strings are borrowed: they must outlive the
 *  controller. */
typedef struct {
    const char *path;     /* relative storage path, as gw_store_resource_path gives it
                             ("configmaps", "services/specs", "<group>/<resource>") */
    const char *group;    /* API group, "" for core (for the status conditions' messages) */
    const char *resource; /* plural name */
} gw_nsctl_resource_t;

typedef struct {
    const char *etcd_prefix;              /* --etcd-prefix; copied */
    const gw_value_transformer_t *values; /* the store's (borrowed; NULL: values as stored) */
    const gw_nsctl_resource_t *resources; /* copied; entries with a path seen before skipped */
    size_t n_resources;
    int64_t recheck_ms; /* 0 = GW_NSCTL_RECHECK_MS */
} gw_nsctl_opts_t;

/**
 * Start the controller on `base` (the calling thread's event_base, which must keep running).
 * `client` must outlive it. Returns NULL for malformed options. Thread: base's.
 */
gw_nsctl_t *gw_nsctl_start(etcd_client_t *client, struct event_base *base,
                           const gw_nsctl_opts_t *opts);

/** Namespaces this controller has removed from storage so far (tests, logs). Thread: its own. */
uint64_t gw_nsctl_removed(const gw_nsctl_t *c);

/**
 * Stop and free: every call in flight is cancelled before this returns (a pass cut short is
 * taken up again by the next leader). NULL is fine. Thread: c's, not from inside its callbacks.
 */
void gw_nsctl_stop(gw_nsctl_t *c);

#endif
