/* The REST layer's entry: its shared state, the per-worker stores, and the server handler. */
#include "gw_api.h"

#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_api_int.h"
#include "gw_store.h"

gw_api_t *
gw_api_new(const gw_api_config_t *cfg)
{
    gw_api_t *api = gw_calloc(1, sizeof(*api));
    api->cfg = *cfg;
    api->etcd_prefix = gw_strdup(cfg->etcd_prefix);
    api->cfg.etcd_prefix = api->etcd_prefix;
    api->stores = gw_calloc((size_t)cfg->workers, sizeof(*api->stores));
    api->metrics = gw_metrics_new((size_t)cfg->workers);
    api->streams = gw_calloc((size_t)cfg->workers, sizeof(*api->streams));
    api->wakes = gw_calloc((size_t)cfg->workers, sizeof(*api->wakes));
    atomic_init(&api->open_streams, 0);
    if (cfg->etcd != NULL) {
        gw_watch_config_t wc = {.etcd = cfg->etcd,
                                .etcd_prefix = cfg->etcd_prefix,
                                .values = cfg->values,
                                .workers = cfg->workers,
                                .read_cache = cfg->watch_cache,
                                .cache_limits = cfg->cache_limits,
                                .n_cache_limits = cfg->n_cache_limits};
        api->watch = gw_watch_new(&wc);
        api->watch_locals = gw_calloc((size_t)cfg->workers, sizeof(*api->watch_locals));
    }
    atomic_init(&api->inflight_readonly, 0);
    atomic_init(&api->inflight_mutating, 0);
    pthread_mutex_init(&api->docs_lock, NULL);
    return api;
}

void
gw_api_free(gw_api_t *api)
{
    if (api == NULL)
        return;
    gw_api__docs_release(api);
    pthread_mutex_destroy(&api->docs_lock);
    gw_metrics_free(api->metrics);
    gw_watch_free(api->watch);
    free(api->watch_locals);
    free(api->streams);
    free(api->wakes);
    free(api->stores);
    free(api->etcd_prefix);
    free(api);
}

void
gw_api_worker_start(gw_api_t *api, gw_worker_t *w)
{
    int i = gw_worker_index(w);
    gw_api__wakes_start(api, i, gw_worker_base(w));
    api->stores[i] = gw_store_new(gw_worker_etcd(w), api->etcd_prefix, api->cfg.values);
    if (api->watch == NULL)
        return;
    api->watch_locals[i] = gw_watch_local_new(api->watch, i, gw_worker_base(w), api->stores[i]);
    gw_store_set_read_cache(api->stores[i], gw_watch_local_read_cache(api->watch_locals[i]),
                            api->watch_locals[i]);
}

void
gw_api_worker_drain(gw_api_t *api, gw_worker_t *w)
{
    gw_api__streams_stop(api, gw_worker_index(w));
}

void
gw_api_worker_exit(gw_api_t *api, gw_worker_t *w)
{
    int i = gw_worker_index(w);
    if (api->watch_locals != NULL) {
        gw_watch_local_free(api->watch_locals[i]);
        api->watch_locals[i] = NULL;
    }
    gw_store_free(api->stores[i]);
    api->stores[i] = NULL;
    gw_api__wakes_exit(api, i);
}

void
gw_api_handle(gw_exchange_t *x, const char *audit_id, gw_worker_t *w, void *data)
{
    gw_api__chain_run(gw_api__req_new(data, w, x, audit_id));
}
