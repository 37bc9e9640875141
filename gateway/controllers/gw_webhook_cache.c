/* The admission webhook snapshot from etcd: informers on both webhook configuration kinds. */
#include "gw_webhook_cache.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_informer.h"
#include "gw_log.h"
#include "gw_webhook_snapshot.h"
#include "gw_workqueue.h"

#define SNAPSHOT_KEY "snapshot"

struct gw_webhook_cache {
    etcd_client_t *client;
    struct event_base *base;
    char *prefix;
    const gw_value_transformer_t *values;
    gw_informer_t *mutating, *validating;
    gw_workqueue_t *queue;
    gw_webhook_snap_t *last;              /* published last: the next rebuild reuses it */
    gw_webhook_cache_synced_fn on_synced; /* until the first publish */
    void *arg;
};

static void
changed(gw_informer_t *inf, const gw_informer_event_t *ev, void *ctx)
{
    gw_webhook_cache_t *c = ctx;
    (void)inf, (void)ev;

    gw_workqueue_add(c->queue, SNAPSHOT_KEY);
}

static gw_informer_t *
start_informer(gw_webhook_cache_t *c, const char *prefix)
{
    return gw_informer_start(c->client, c->base,
                             &(gw_informer_opts_t){.name = "admission webhooks",
                                                   .etcd_prefix = c->prefix,
                                                   .values = c->values,
                                                   .prefix = prefix,
                                                   .cache = GW_INFORMER_JSON,
                                                   .handler = changed,
                                                   .ctx = c});
}

static void
rebuild(gw_workqueue_t *q, const char *key, void *ctx)
{
    gw_webhook_cache_t *c = ctx;
    json_t *mutating, *validating;
    gw_webhook_snap_t *s;

    if (!gw_informer_synced(c->mutating) || !gw_informer_synced(c->validating)) {
        gw_workqueue_done(q, key);
        return;
    }
    mutating = gw_informer_list(c->mutating);
    validating = gw_informer_list(c->validating);
    s = gw_webhook_snap_new(mutating, validating, c->last);
    json_decref(mutating);
    json_decref(validating);
    gw_log_debug(NULL,
                 "admission webhooks: %zu mutating, %zu validating published, %zu "
                 "configurations reused compiled",
                 gw_webhook_snap_count(s, true), gw_webhook_snap_count(s, false),
                 gw_webhook_snap_reused(s));
    gw_webhook_snap_unref(c->last);
    c->last = gw_webhook_snap_ref(s);
    gw_webhook_snap_publish(s);
    gw_workqueue_done(q, key);
    if (c->on_synced != NULL) {
        gw_webhook_cache_synced_fn fn = c->on_synced;
        c->on_synced = NULL;
        fn(c->arg);
    }
}

gw_webhook_cache_t *
gw_webhook_cache_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                       const gw_value_transformer_t *values, gw_webhook_cache_synced_fn synced,
                       void *arg)
{
    gw_webhook_cache_t *c = gw_calloc(1, sizeof(*c));

    c->client = client;
    c->base = base;
    c->prefix = gw_strdup(etcd_prefix);
    c->values = values;
    c->on_synced = synced;
    c->arg = arg;
    c->queue = gw_workqueue_new(base, &(gw_workqueue_opts_t){.process = rebuild, .ctx = c});
    c->mutating = start_informer(c, "mutatingwebhookconfigurations/");
    c->validating = start_informer(c, "validatingwebhookconfigurations/");
    return c;
}

void
gw_webhook_cache_stop(gw_webhook_cache_t *c)
{
    if (c == NULL)
        return;
    gw_workqueue_shutdown(c->queue);
    gw_informer_stop(c->mutating);
    gw_informer_stop(c->validating);
    gw_workqueue_free(c->queue);
    gw_webhook_snap_unref(c->last);
    free(c->prefix);
    free(c);
}
