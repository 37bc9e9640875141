#ifndef GATEWAY_REGISTRY_GW_STRATEGY_NAMESPACE_H
#define GATEWAY_REGISTRY_GW_STRATEGY_NAMESPACE_H

/*
 * The namespace registry: what kube-apiserver's namespace strategy
 * (pkg/registry/core/namespace/strategy.go) and its registry's Delete
 * (pkg/registry/core/namespace/storage/storage.go) do. gw_strategy_namespace (gw_strategy.h)
 * puts these behind the strategy vtable; they are exported for the tests. Storage layout as
 * kube-apiserver's: "<--etcd-prefix>/namespaces/<name>", the object's JSON without
 * metadata.resourceVersion (that is the key's mod_revision).
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_namespace_names.h"
#include "gw_store.h"

/* ---- strategy --------------------------------------------------------------------------- */

/**
 * Set metadata.labels["kubernetes.io/metadata.name"] to metadata.name (creating labels when
 * absent), as kube does on every create (after generateName has produced the name) and update
 * of a namespace. Does nothing without a string metadata.name. Thread: any.
 */
void gw_namespace_prepare(json_t *ns);

/**
 * Namespace create strategy: status becomes {"phase":"Active"}, "kubernetes" is appended to
 * spec.finalizers when missing, then gw_namespace_prepare. Call after generateName.
 * Thread: any.
 */
void gw_namespace_prepare_create(json_t *ns);

/**
 * Namespace update strategy (PUT/PATCH on the main resource): spec.finalizers and status are
 * taken from the stored object `old` (they change only through /finalize and /status), then
 * gw_namespace_prepare. Thread: any.
 */
void gw_namespace_prepare_update(json_t *ns, const json_t *old);

/**
 * Whether an update that leaves `ns` with no spec.finalizers should delete it: kube's
 * ShouldDeleteNamespaceDuringUpdate, i.e. the stored object `old` has a deletionTimestamp
 * (and no deletionGracePeriodSeconds other than 0), and `ns` has neither spec.finalizers nor
 * metadata.finalizers. Thread: any.
 */
bool gw_namespace_should_delete_on_update(const json_t *ns, const json_t *old);

/* ---- delete ----------------------------------------------------------------------------- */

/**
 * Result of gw_namespace_begin_delete. err == 0: obj is the namespace as it is now (as stored,
 * or for a dry run as it would be), `deleted` tells whether it is gone from storage (then obj
 * is its last value, mod_revision = the deletion's revision). Errors: GW_ENOTFOUND;
 * GW_ECONFLICT when a precondition failed (obj = the current object, so the caller can word
 * kube's 409 `Precondition failed: UID in precondition: <p>, UID in object meta: <uid>` or the
 * resourceVersion variant); transport errors (obj NULL).
 */
typedef void (*gw_namespace_delete_cb)(int err, const gw_obj_t *obj, bool deleted, void *ctx);

/**
 * DELETE of namespace `name`, as kube's namespace registry does it. `options` is the request's
 * DeleteOptions (NULL = none): preconditions.uid / preconditions.resourceVersion (checked on
 * every attempt), orphanDependents / propagationPolicy (adding or removing the "orphan" and
 * "foregroundDeletion" metadata.finalizers), dryRun ["All"] (nothing is written).
 *  - Not terminating yet: sets metadata.deletionTimestamp (now) and status.phase Terminating;
 *    the namespace controller (gw_nsctl.h) does the rest. deleted = false; kube answers 200
 *    with the object.
 *  - Already terminating with spec.finalizers left: nothing changes; deleted = false.
 *  - Already terminating, spec.finalizers empty: the generic delete: with metadata.finalizers
 *    left the object stays (deleted = false), otherwise it is removed (deleted = true).
 * Returns 0 when started (cb then fires exactly once, on the store's worker thread, never from
 * inside the call) or GW_EINVAL for malformed input (no callback). The caller checks
 * NamespaceLifecycle (gw_namespace_check_delete) first and replies (kube: 200, or 202 when
 * orphanDependents is false and the namespace was not removed). Thread: s's.
 */
int gw_namespace_begin_delete(gw_store_t *s, const char *name, const json_t *options,
                              gw_namespace_delete_cb cb, void *ctx);

#endif
