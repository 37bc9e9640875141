#ifndef GATEWAY_CONTROLLERS_GW_VAP_CACHE_H
#define GATEWAY_CONTROLLERS_GW_VAP_CACHE_H

/*
 * The process's ValidatingAdmissionPolicy snapshot (gw_vap_snapshot.h), kept current from
 * etcd: informers on validatingadmissionpolicies and validatingadmissionpolicybindings, and
 * one on the resource of each param kind the policies name (started and stopped as the
 * policies change). Any change schedules one rebuild (a burst of changes is one rebuild),
 * which reuses the compiled form of unchanged policies and publishes the new snapshot, so a
 * policy is enforced on every instance about as soon as etcd reports it. Runs on every
 * instance, on one worker's loop.
 */

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_vap_cache gw_vap_cache_t;

/** Called once, on the cache's thread, when the first snapshot is published. */
typedef void (*gw_vap_cache_synced_fn)(void *arg);

/**
 * Start on `base` (the calling worker's; it must keep running); client and catalog (the
 * served one, which param kinds are resolved in) must outlive the cache. synced(arg) fires
 * after the first snapshot (may be NULL). Thread: base's.
 */
gw_vap_cache_t *gw_vap_cache_start(etcd_client_t *client, struct event_base *base,
                                   const char *etcd_prefix, const gw_value_transformer_t *values,
                                   const gw_catalog_t *catalog, gw_vap_cache_synced_fn synced,
                                   void *arg);

/** gw_vap_cache_start() for MutatingAdmissionPolicies: informers on mutatingadmissionpolicies
 *  and mutatingadmissionpolicybindings (v1alpha1), publishing gw_map_snap_new() snapshots.
 *  Start it only when the catalog serves them (the feature gate). Thread: base's. */
gw_vap_cache_t *gw_map_cache_start(etcd_client_t *client, struct event_base *base,
                                   const char *etcd_prefix, const gw_value_transformer_t *values,
                                   const gw_catalog_t *catalog, gw_vap_cache_synced_fn synced,
                                   void *arg);

/** Rebuild soon: the catalog changed (a param kind may have come or gone). NULL is fine.
 *  Thread: the cache's. */
void gw_vap_cache_resync(gw_vap_cache_t *c);

/** Stop and free; the published snapshot stays in force. NULL is fine. Thread: base's. */
void gw_vap_cache_stop(gw_vap_cache_t *c);

#endif
