#ifndef GATEWAY_CONTROLLERS_GW_NAMESPACE_H
#define GATEWAY_CONTROLLERS_GW_NAMESPACE_H

/*
 * Namespace lifecycle, for the registry: what kube-apiserver does around namespaces outside
 * the generic store.
 *
 *  - NamespaceLifecycle admission (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle):
 *    creates into a missing or terminating namespace are refused; the namespaces default,
 *    kube-system and kube-public may not be deleted.
 *  - The initial namespaces (default, kube-system, kube-public, kube-node-lease).
 *
 * The namespace strategy and the namespace registry's Delete are the registry's
 * (gateway/registry/gw_strategy_namespace.h).
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

#include "gw_namespace_names.h"
#include "gw_store.h"

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

/* ---- admission -------------------------------------------------------------------------- */

/**
 * Whether a create of (group, resource) is subject to the namespace check: namespaced
 * resources except Namespace itself and authorization.k8s.io localsubjectaccessreviews
 * (kube admits those so that a review cannot probe which namespaces exist). Thread: any.
 */
bool gw_namespace_admission_applies(const char *group, const char *resource, bool namespaced);

/**
 * NamespaceLifecycle for a create in namespace `ns`: reads the namespace (a linearizable get,
 * so a namespace created just before is always seen). cb gets:
 *  - 0: the namespace exists and is not terminating;
 *  - GW_ENOTFOUND: it does not exist; kube answers 404 NotFound `namespaces "<ns>" not found`
 *    (details {name: ns, kind: "namespaces"});
 *  - GW_ECONFLICT: it is terminating (deletionTimestamp set or phase Terminating); kube answers
 *    403 Forbidden `<resource>[.<group>] "<name>" is forbidden: unable to create new content in
 *    namespace <ns> because it is being terminated`, with the cause {reason:
 *    "NamespaceTerminating", message: "namespace <ns> is being terminated", field:
 *    "metadata.namespace"};
 *  - a transport error (500/503/504 as usual).
 * GW_EINVAL (no callback) when ns is empty or cannot be a name (contains '/', "." or "..").
 * Thread: s's.
 */
int gw_namespace_admit_create(gw_store_t *s, const char *ns, gw_namespace_cb cb, void *ctx);

/**
 * NamespaceLifecycle for a DELETE of namespace `name`: 0 when it may be deleted, GW_EINVAL for
 * default, kube-system and kube-public, which kube answers with 403 Forbidden
 * `namespaces "<name>" is forbidden: this namespace may not be deleted`. Thread: any.
 */
int gw_namespace_check_delete(const char *name);

#endif
