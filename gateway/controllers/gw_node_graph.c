/* The node graph from etcd: pods and claims mirrored, each round a new graph. */
#include "gw_node_graph.h"

#include <stdlib.h>

#include "authz_node.h"
#include "gw_alloc.h"
#include "gw_ctl_mirror.h"
#include "gw_log.h"

/* In the order authz_node_graph_new takes them. */
static const char *const paths[] = {"pods/", "persistentvolumeclaims/", NULL};

struct gw_node_graph {
    gw_ctl_mirror_t *mirror;
    bool synced;
};

static void
publish(json_t *const *lists, int64_t revision, void *arg)
{
    gw_node_graph_t *n = arg;

    authz_node_publish(authz_node_graph_new(lists[0], lists[1]));
    if (!n->synced) {
        n->synced = true;
        gw_log_info(NULL, "node graph: first graph at revision %lld", (long long)revision);
    }
}

gw_node_graph_t *
gw_node_graph_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values)
{
    gw_node_graph_t *n = gw_calloc(1, sizeof(*n));

    n->mirror =
        gw_ctl_mirror_start(client, base, "node graph", etcd_prefix, values, paths, publish, n);
    return n;
}

void
gw_node_graph_stop(gw_node_graph_t *n)
{
    if (n == NULL)
        return;
    gw_ctl_mirror_stop(n->mirror);
    free(n);
}
