#ifndef GATEWAY_API_GW_API_H
#define GATEWAY_API_GW_API_H

/*
 * The REST layer as the server sees it: one handler that turns every HTTP request into a
 * gw_req_t and runs it through the filter chain (gw_req.h), the per-worker state it needs, and
 * the documents it serves from memory (discovery, OpenAPI, /version), built once from the
 * catalog at start-up.
 */

#include <stdbool.h>

#include "authn.h"
#include "authz.h"
#include "etcd.h"
#include "gw_catalog.h"
#include "gw_health.h"
#include "gw_server.h"
#include "gw_transformer.h"
#include "gw_watch.h"

struct gw_req;
struct gw_audit;
struct gw_apf;

typedef struct {
    /* The chain's last step for resource requests whose resource the catalog resolved (the
     * registry's gw_registry_handle): handed in, so that the api includes nothing from above. */
    void (*handle_resource)(struct gw_req *r);
    const authn_t *authn;                 /* borrowed; outlives the api */
    const authz_t *authz;                 /* borrowed */
    const gw_catalog_t *catalog;          /* the configured catalog */
    gw_health_t *health;                  /* borrowed */
    etcd_client_t *etcd;                  /* borrowed; the shared watches' (NULL: no watches) */
    const char *etcd_prefix;              /* --etcd-prefix */
    const gw_value_transformer_t *values; /* borrowed: every store's (--storage-media-type) */
    struct gw_audit *audit;               /* borrowed (gw_audit.h); NULL: no auditing */
    int workers;                          /* the server's worker count */
    int max_requests_inflight;            /* 0: unlimited */
    int max_mutating_requests_inflight;
    struct gw_apf *apf;                   /* borrowed: API Priority and Fairness (gw_apf.h);
                                             NULL with --enable-priority-and-fairness=false,
                                             where the in-flight limits above apply */
    double goaway_chance;                 /* --goaway-chance */
    bool compression;                     /* feature gate APIResponseCompression */
    bool unsafe_delete;                   /* feature gate AllowUnsafeMalformedObjectDeletion */
    bool cbor;                            /* feature gate CBORServingAndStorage */
    bool watch_cache;                     /* --watch-cache: reads served from watch-fed caches */
    const gw_cache_limit_t *cache_limits; /* --watch-cache-sizes, by collection (copied) */
    size_t n_cache_limits;
} gw_api_config_t;

typedef struct gw_api gw_api_t;

/** Build the api and its documents. Strings in cfg are copied. Thread: main, at start-up. */
gw_api_t *gw_api_new(const gw_api_config_t *cfg);

/** Free it after the server stopped. NULL is fine. Thread: main. */
void gw_api_free(gw_api_t *api);

/** Per-worker set-up, from the server's on_start hook. Thread: w's. */
void gw_api_worker_start(gw_api_t *api, gw_worker_t *w);

/** The server is draining: ask the worker's streams (watches) to end now, as kube-apiserver
 *  ends its watches when it shuts down. From the server's on_drain hook. Thread: w's. */
void gw_api_worker_drain(gw_api_t *api, gw_worker_t *w);

/** Per-worker tear-down, from the server's on_exit hook (after w's etcd conn is freed, so
 *  that no storage callback is left). Thread: w's. */
void gw_api_worker_exit(gw_api_t *api, gw_worker_t *w);

/** The server's handler (gw_handler_fn); data is the gw_api_t. Thread: w's. */
void gw_api_handle(gw_exchange_t *x, const char *audit_id, gw_worker_t *w, void *data);

#endif
