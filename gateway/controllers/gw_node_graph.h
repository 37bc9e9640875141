#ifndef GATEWAY_CONTROLLERS_GW_NODE_GRAPH_H
#define GATEWAY_CONTROLLERS_GW_NODE_GRAPH_H

/*
 * The process's node graph (authz_node.h), kept current from etcd as the RBAC snapshot is
 * (gw_rbac_cache.h): informers cache pods and persistentvolumeclaims, and once both are
 * listed, and after any change, a new graph of the caches is published. Runs on every
 * instance whose --authorization-mode holds Node, on one worker's loop.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_node_graph gw_node_graph_t;

/** Start on `base` (the calling worker's; it must keep running); client must outlive the
 *  feeder. Thread: base's. */
gw_node_graph_t *gw_node_graph_start(etcd_client_t *client, struct event_base *base,
                                     const char *etcd_prefix, const gw_value_transformer_t *values);

/** Stop and free; the published graph stays in force. NULL is fine. Thread: base's. */
void gw_node_graph_stop(gw_node_graph_t *n);

#endif
