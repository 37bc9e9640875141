#ifndef AUTHZ_AUTHZ_NODE_INT_H
#define AUTHZ_AUTHZ_NODE_INT_H

/* Inside the Node authorizer: the graph's file hands the current graph to the deciding one. */

#include "authz_node.h"

/** A new reference to the current graph, or NULL before the first publish; the caller unrefs
 *  it. Thread: any. */
authz_node_graph_t *authz_node__current(void);

#endif
