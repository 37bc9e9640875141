#ifndef GATEWAY_CONTROLLERS_GW_NAMESPACE_H
#define GATEWAY_CONTROLLERS_GW_NAMESPACE_H

/*
 * Namespace lifecycle, for the registry: what kube-apiserver does around namespaces outside
 * the generic store.
 *
 *  - The namespace strategy (pkg/registry/core/namespace/strategy.go): status and
 *    spec.finalizers on create and update, and the kubernetes.io/metadata.name label.
 *  - The namespace registry's Delete (pkg/registry/core/namespace/storage/storage.go): the
 *    first DELETE only marks the namespace (deletionTimestamp, phase Terminating) and the
 *    namespace controller (gw_nsctl.h) empties and removes it.
 *  - The initial namespaces (default, kube-system, kube-public, kube-node-lease).
 *
 * Storage layout as kube-apiserver's: "<--etcd-prefix>/namespaces/<name>", the object's JSON
 * without metadata.resourceVersion (that is the key's mod_revision).
 *
 * Asynchronous functions follow gw_store.h: they return 0 when started (the callback then
 * fires exactly once, on the store's worker thread, never from inside the call) or GW_EINVAL
 * for malformed input (no callback).
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_store.h"

/** The spec.finalizers entry the namespace controller owns (FinalizerKubernetes). */
#define GW_NAMESPACE_FINALIZER "kubernetes"
/** The label kube puts on every namespace: its own name (v1.LabelMetadataName). */
#define GW_NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"
/** The resource path of namespaces in etcd ("<prefix>/namespaces/<name>"). */
#define GW_NAMESPACE_RESOURCE "namespaces"

/** Callback of the checks below: 0 or a gw_err code. */
typedef void (*gw_namespace_cb)(int err, void *ctx);

/* ---- initial namespaces ----------------------------------------------------------------- */

/** The namespaces that exist from the start: default, kube-system, kube-public,
 *  kube-node-lease (NULL-terminated). */
extern const char *const gw_namespace_initial[];

/**
 * Create each initial namespace that does not exist, as kube-apiserver creates them:
 * {"apiVersion":"v1","kind":"Namespace","metadata":{"name","uid","creationTimestamp",
 * "labels":{"kubernetes.io/metadata.name":name}},"spec":{"finalizers":["kubernetes"]},
 * "status":{"phase":"Active"}}. Create-if-absent is one etcd transaction per namespace, so any
 * number of instances may run this at once: each namespace is created exactly once. cb gets 0
 * when all exist, else the first error. Thread: s's.
 */
int gw_namespace_ensure_initial(gw_store_t *s, gw_namespace_cb cb, void *ctx);

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
 *    the controller does the rest. deleted = false; kube answers 200 with the object.
 *  - Already terminating with spec.finalizers left: nothing changes; deleted = false.
 *  - Already terminating, spec.finalizers empty: the generic delete: with metadata.finalizers
 *    left the object stays (deleted = false), otherwise it is removed (deleted = true).
 * The caller checks gw_namespace_check_delete first and replies (kube: 200, or 202 when
 * orphanDependents is false and the namespace was not removed). Thread: s's.
 */
int gw_namespace_begin_delete(gw_store_t *s, const char *name, const json_t *options,
                              gw_namespace_delete_cb cb, void *ctx);

#endif
