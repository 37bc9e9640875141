/* The node graph from etcd: informers on pods and claims, a new graph after changes. */
#include "gw_node_graph.h"

#include <stdlib.h>

#include "authz_node.h"
#include "gw_alloc.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_workqueue.h"

/* In the order authz_node_graph_new takes them. */
static const char *const paths[] = {"pods/", "persistentvolumeclaims/"};
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

struct gw_node_graph {
    gw_informer_t *informers[N_PATHS];
    gw_workqueue_t *queue; /* one key: a change to publish */
    bool synced;
};

/* A graph of the caches, once both hold their collection; changes that come in while the
 * loop is busy are published together. */
static void
publish(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_node_graph_t *n = ctx;

    if (!gw_informer_synced(n->informers[0]) || !gw_informer_synced(n->informers[1])) {
        gw_workqueue_done(q, key); /* the first lists queue the key again */
        return;
    }
    json_t *pods = gw_informer_list(n->informers[0]);
    json_t *claims = gw_informer_list(n->informers[1]);
    authz_node_publish(authz_node_graph_new(pods, claims));
    json_decref(pods);
    json_decref(claims);
    gw_workqueue_done(q, key);
    if (!n->synced) {
        n->synced = true;
        gw_log_info(NULL, "node graph: first graph at revision %lld",
                    (long long)gw_informer_revision(n->informers[0]));
    }
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_node_graph_t *n = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(n->queue, "graph");
}

gw_node_graph_t *
gw_node_graph_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values)
{
    gw_node_graph_t *n = gw_calloc(1, sizeof(*n));

    n->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = publish, .ctx = n});
    for (size_t i = 0; i < N_PATHS; i++)
        n->informers[i] = gw_informer_start(client, base,
                                            &(gw_informer_opts_t){.name = "node graph",
                                                                  .etcd_prefix = etcd_prefix,
                                                                  .values = values,
                                                                  .prefix = paths[i],
                                                                  .cache = GW_INFORMER_JSON,
                                                                  .handler = changed,
                                                                  .ctx = n});
    return n;
}

void
gw_node_graph_stop(gw_node_graph_t *n)
{
    if (n == NULL)
        return;
    gw_workqueue_shutdown(n->queue);
    for (size_t i = 0; i < N_PATHS; i++)
        gw_informer_stop(n->informers[i]);
    gw_workqueue_free(n->queue);
    free(n);
}
