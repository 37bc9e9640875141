/* The RBAC controller on a ClusterRole informer: aggregation passes, one at a time, after
 * changes (every instance reconciles the bootstrap policy at start, gw_poststart.h). */
#include "gw_rbac_ctl.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_err.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_rbac_aggregate.h"
#include "gw_store.h"
#include "gw_workqueue.h"

#define RESYNC_MS 60000
#define RETRY_MS 2000
#define QUEUE_KEY "clusterroles" /* the only key: a pass looks at every ClusterRole */

struct gw_rbac_ctl {
    etcd_conn_t *conn; /* ours: freeing it cancels the writes in flight */
    gw_store_t *store;
    gw_informer_t *roles;
    gw_workqueue_t *queue;
    bool stopping;
};

/* The pass is over: the next after a change, after a retry delay, or after a minute. */
static void
pass_done(gw_rbac_ctl_t *c, int64_t next_ms)
{
    gw_workqueue_add_after(c->queue, QUEUE_KEY, next_ms);
    gw_workqueue_done(c->queue, QUEUE_KEY);
}

static void
aggregated(int err, void *arg)
{
    gw_rbac_ctl_t *c = arg;

    if (c->stopping)
        return;
    if (err != 0)
        gw_log_warn(NULL, "clusterrole aggregation: %s; retrying", gw_strerror(err));
    pass_done(c, err != 0 ? RETRY_MS : RESYNC_MS);
}

static void
aggregate(gw_rbac_ctl_t *c)
{
    json_t *all = gw_informer_list(c->roles);

    gw_rbac_aggregate(c->store, all, aggregated, c);
    json_decref(all);
}

static void
process(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_rbac_ctl_t *c = ctx;
    (void)q, (void)key;

    if (gw_informer_synced(c->roles))
        aggregate(c);
    else
        pass_done(c, RESYNC_MS);
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_rbac_ctl_t *c = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(c->queue, QUEUE_KEY);
}

gw_rbac_ctl_t *
gw_rbac_ctl_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                  const gw_value_transformer_t *values)
{
    gw_rbac_ctl_t *c = gw_calloc(1, sizeof(*c));

    c->conn = etcd_conn_new(client, base);
    c->store = gw_store_new(c->conn, etcd_prefix, values);
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = process, .ctx = c});
    c->roles = gw_informer_start(client, base,
                                 &(gw_informer_opts_t){.name = "rbac-controllers",
                                                       .etcd_prefix = etcd_prefix,
                                                       .values = values,
                                                       .prefix = "clusterroles/",
                                                       .cache = GW_INFORMER_JSON,
                                                       .handler = changed,
                                                       .ctx = c});
    return c;
}

void
gw_rbac_ctl_stop(gw_rbac_ctl_t *c)
{
    if (c == NULL)
        return;
    c->stopping = true;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->roles);
    etcd_conn_free(c->conn); /* every write's callback fires now, and sees `stopping` */
    gw_store_free(c->store);
    gw_workqueue_free(c->queue);
    free(c);
}
