#ifndef GATEWAY_CONTROLLERS_GW_NAMESPACE_H
#define GATEWAY_CONTROLLERS_GW_NAMESPACE_H

/*
 * The initial namespaces (default, kube-system, kube-public, kube-node-lease), as kube-apiserver
 * creates them. NamespaceLifecycle admission is an admission plugin (gateway/admission/); the
 * namespace strategy and the namespace registry's Delete are the registry's
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

#endif
