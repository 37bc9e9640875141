#ifndef GATEWAY_CONTROLLERS_GW_RBAC_CACHE_H
#define GATEWAY_CONTROLLERS_GW_RBAC_CACHE_H

/*
 * The process's RBAC snapshot (authz_rbac.h), kept current from etcd: an informer per RBAC
 * collection (gw_informer.h) caches its objects, and once all four are listed, and after any
 * change, a new snapshot of the caches is published, so that a change is in force on every
 * instance about as soon as etcd reports it. Runs on every instance, on one worker's loop.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_rbac_cache gw_rbac_cache_t;

/** Called once, on the cache's thread, when the first snapshot is published. */
typedef void (*gw_rbac_cache_synced_fn)(void *arg);

/**
 * Start on `base` (the calling worker's; it must keep running); client must outlive the
 * cache. synced(arg) fires after the first snapshot (may be NULL). Thread: base's.
 */
gw_rbac_cache_t *gw_rbac_cache_start(etcd_client_t *client, struct event_base *base,
                                     const char *etcd_prefix, const gw_value_transformer_t *values,
                                     gw_rbac_cache_synced_fn synced, void *arg);

/** Stop and free; the published snapshot stays in force. NULL is fine. Thread: base's. */
void gw_rbac_cache_stop(gw_rbac_cache_t *c);

#endif
