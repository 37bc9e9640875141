#ifndef AUTHZ_AUTHZ_NODE_H
#define AUTHZ_AUTHZ_NODE_H

/*
 * The Node authorizer, as kube's (plugin/pkg/auth/authorizer/node): a kubelet, the user
 * system:node:<name> in group system:nodes, may read what the pods bound to its node need
 * (the pods, listed or watched through a spec.nodeName=<name> field selector, their secrets,
 * configmaps, claims and volumes, tokens of their service accounts), read and keep its own
 * Node and Lease, update its pods' status, and do what kube's static NodeRules grant every
 * node (authz_node_use_rules). Anything else, and any other user, gets no opinion, so that a
 * later mode (RBAC) decides.
 *
 * Which objects a node may reach comes from an immutable graph built from the stored pods and
 * persistentvolumeclaims. As with RBAC snapshots, the process holds one current graph: the
 * gateway rebuilds it from etcd and publishes it; the authorizer takes a reference while
 * deciding, so a request never waits for an update.
 */

#include <stdbool.h>

#include <jansson.h>

#include "authz.h"

typedef struct authz_node_graph authz_node_graph_t;

/**
 * A graph from JSON arrays of Pod and PersistentVolumeClaim objects (borrowed, not kept;
 * NULL counts as empty). Only pods with spec.nodeName add edges. The new graph has one
 * reference, the caller's. Thread: any.
 */
authz_node_graph_t *authz_node_graph_new(const json_t *pods, const json_t *claims);

/** Drop a reference; the last frees g. NULL is fine. Thread: any. */
void authz_node_graph_unref(authz_node_graph_t *g);

/**
 * Whether node may reach the object: kind is "pod", "secret", "configmap", "pvc",
 * "serviceaccount" (ns and name) or "pv" (ns ignored). Thread: any.
 */
bool authz_node_graph_has(const authz_node_graph_t *g, const char *node, const char *kind,
                          const char *ns, const char *name);

/** Make g the process's current graph, taking the caller's reference; the one it replaces is
 *  dropped. NULL clears it (shutdown). Thread: any. */
void authz_node_publish(authz_node_graph_t *g);

/**
 * The rules every node holds beyond what the graph decides: kube's NodeRules, which are also
 * the bootstrap policy's system:node ClusterRole (services, registering its Node, events,
 * mirror pods, certificate requests, the reviews, ...). Copied; NULL clears them. Thread: main,
 * at start-up, before any decision, and at exit.
 */
void authz_node_use_rules(const json_t *rules);

/** The Node authorizer: decides from the current graph (before the first publish, nodes reach
 *  no object). Static; free() does nothing. */
extern authz_authorizer_t authz_node_authorizer;

#endif
