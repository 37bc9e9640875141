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
    atomic_init(&api->inflight_readonly, 0);
    atomic_init(&api->inflight_mutating, 0);
    gw_api__docs_build(&api->docs, cfg->catalog);
    return api;
}

void
gw_api_free(gw_api_t *api)
{
    if (api == NULL)
        return;
    gw_api__docs_free(&api->docs);
    gw_metrics_free(api->metrics);
    free(api->stores);
    free(api->etcd_prefix);
    free(api);
}

void
gw_api_worker_start(gw_api_t *api, gw_worker_t *w)
{
    api->stores[gw_worker_index(w)] = gw_store_new(gw_worker_etcd(w), api->etcd_prefix);
}

void
gw_api_worker_exit(gw_api_t *api, gw_worker_t *w)
{
    gw_store_free(api->stores[gw_worker_index(w)]);
    api->stores[gw_worker_index(w)] = NULL;
}

void
gw_api_handle(struct evhttp_request *req, const char *audit_id, gw_worker_t *w, void *data)
{
    gw_api__chain_run(gw_api__req_new(data, w, req, audit_id));
}
