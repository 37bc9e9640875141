/* The node graph from etcd, as rounds: each reads pods and claims at one revision. */
#include "gw_node_graph.h"

#include <stdlib.h>

#include "authz_node.h"
#include "gw_alloc.h"
#include "gw_ctl_int.h"
#include "gw_ctl_rounds.h"
#include "gw_err.h"
#include "gw_log.h"

#define RESYNC_MS 60000
#define RETRY_MS 1000
#define N_KINDS 2

/* In the order authz_node_graph_new takes them. */
static const char *const paths[N_KINDS + 1] = {"pods/", "persistentvolumeclaims/", NULL};

struct gw_node_graph {
    gw_ctl_rounds_t *rounds;
    gw_store_t *store; /* the rounds', during a round */
    json_t *lists[N_KINDS];
    size_t at;        /* the collection being read */
    int64_t revision; /* the first list's, which the other is read at */
    bool synced;
};

static void read_next(gw_node_graph_t *n);

static void
clear_lists(gw_node_graph_t *n)
{
    for (size_t i = 0; i < N_KINDS; i++) {
        json_decref(n->lists[i]);
        n->lists[i] = NULL;
    }
}

static void
publish(gw_node_graph_t *n)
{
    authz_node_publish(authz_node_graph_new(n->lists[0], n->lists[1]));
    clear_lists(n);
    if (!n->synced) {
        n->synced = true;
        gw_log_info(NULL, "node graph: first graph at revision %lld", (long long)n->revision);
    }
}

static void
listed(int err, const gw_list_page_t *page, void *arg)
{
    gw_node_graph_t *n = arg;

    if (gw_ctl_rounds_stopping(n->rounds)) {
        clear_lists(n);
        return;
    }
    if (err != 0) {
        gw_log_warn(NULL, "node graph: reading %s failed: %s", paths[n->at], gw_strerror(err));
        clear_lists(n);
        gw_ctl_rounds_done(n->rounds, RETRY_MS);
        return;
    }
    json_t *items = json_array();
    for (size_t i = 0; i < page->n_items; i++) {
        json_t *o = gw_ctl__parse(&page->items[i]);
        if (o != NULL)
            json_array_append_new(items, o);
    }
    n->lists[n->at++] = items;
    n->revision = page->revision;
    read_next(n);
}

static void
read_next(gw_node_graph_t *n)
{
    if (n->at == N_KINDS) {
        publish(n);
        gw_ctl_rounds_done(n->rounds, RESYNC_MS);
        return;
    }
    gw_list_req_t req = {.prefix = paths[n->at], .revision = n->at > 0 ? n->revision : 0};
    if (gw_store_list(n->store, &req, listed, n) != 0) {
        clear_lists(n);
        gw_ctl_rounds_done(n->rounds, RETRY_MS);
    }
}

static void
round_fn(gw_ctl_rounds_t *rr, gw_store_t *store, void *ctx)
{
    gw_node_graph_t *n = ctx;

    n->rounds = rr;
    n->store = store;
    n->at = 0;
    read_next(n);
}

gw_node_graph_t *
gw_node_graph_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix)
{
    gw_node_graph_t *n = gw_calloc(1, sizeof(*n));

    n->rounds = gw_ctl_rounds_start(client, base,
                                    &(gw_ctl_rounds_opts_t){.name = "node graph",
                                                            .etcd_prefix = etcd_prefix,
                                                            .watch = paths,
                                                            .round = round_fn,
                                                            .ctx = n});
    return n;
}

void
gw_node_graph_stop(gw_node_graph_t *n)
{
    if (n == NULL)
        return;
    gw_ctl_rounds_stop(n->rounds);
    clear_lists(n);
    free(n);
}
