/* The RBAC snapshot from etcd: informers on the four collections, a new snapshot after changes. */
#include "gw_rbac_cache.h"

#include <stdlib.h>

#include "authz_rbac.h"
#include "gw_alloc.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_workqueue.h"

/* In the order authz_rbac_snap_new takes them. */
static const char *const paths[] = {"roles/", "clusterroles/", "rolebindings/",
                                    "clusterrolebindings/"};
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

struct gw_rbac_cache {
    gw_informer_t *informers[N_PATHS];
    gw_workqueue_t *queue; /* one key: a change to publish */
    bool synced;
    gw_rbac_cache_synced_fn on_synced;
    void *arg;
};

/* A snapshot of the caches, once every one holds its collection; changes that come in
 * while the loop is busy are published together. */
static void
publish(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_rbac_cache_t *c = ctx;
    json_t *lists[N_PATHS];
    int64_t revision = 0;

    for (size_t i = 0; i < N_PATHS; i++) {
        if (!gw_informer_synced(c->informers[i])) {
            gw_workqueue_done(q, key); /* its first list queues the key again */
            return;
        }
        if (gw_informer_revision(c->informers[i]) > revision)
            revision = gw_informer_revision(c->informers[i]);
    }
    for (size_t i = 0; i < N_PATHS; i++)
        lists[i] = gw_informer_list(c->informers[i]);
    authz_rbac_publish(authz_rbac_snap_new(lists[0], lists[1], lists[2], lists[3]));
    for (size_t i = 0; i < N_PATHS; i++)
        json_decref(lists[i]);
    gw_workqueue_done(q, key);
    if (!c->synced) {
        c->synced = true;
        gw_log_info(NULL, "rbac: first snapshot at revision %lld", (long long)revision);
        if (c->on_synced != NULL)
            c->on_synced(c->arg);
    }
}

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_rbac_cache_t *c = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(c->queue, "snapshot");
}

gw_rbac_cache_t *
gw_rbac_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                    const gw_value_transformer_t *values, gw_rbac_cache_synced_fn synced, void *arg)
{
    gw_rbac_cache_t *c = gw_calloc(1, sizeof(*c));

    c->on_synced = synced;
    c->arg = arg;
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = publish, .ctx = c});
    for (size_t i = 0; i < N_PATHS; i++)
        c->informers[i] = gw_informer_start(client, base,
                                            &(gw_informer_opts_t){.name = "rbac",
                                                                  .etcd_prefix = etcd_prefix,
                                                                  .values = values,
                                                                  .prefix = paths[i],
                                                                  .cache = GW_INFORMER_JSON,
                                                                  .handler = changed,
                                                                  .ctx = c});
    return c;
}

void
gw_rbac_cache_stop(gw_rbac_cache_t *c)
{
    if (c == NULL)
        return;
    gw_workqueue_shutdown(c->queue);
    for (size_t i = 0; i < N_PATHS; i++)
        gw_informer_stop(c->informers[i]);
    gw_workqueue_free(c->queue);
    free(c);
}
