#ifndef GATEWAY_CONTROLLERS_GW_WEBHOOK_CACHE_H
#define GATEWAY_CONTROLLERS_GW_WEBHOOK_CACHE_H

/*
 * The process's admission webhook snapshot (gw_webhook_snapshot.h), kept current from etcd:
 * informers on mutatingwebhookconfigurations and validatingwebhookconfigurations. Any change
 * schedules one rebuild (a burst of changes is one rebuild), which compiles the stored
 * configurations and publishes the new snapshot, so a webhook is called on every instance
 * about as soon as etcd reports its configuration. Runs on every instance, on one worker's
 * loop.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_webhook_cache gw_webhook_cache_t;

/** Called once, on the cache's thread, when the first snapshot is published. */
typedef void (*gw_webhook_cache_synced_fn)(void *arg);

/**
 * Start on `base` (the calling worker's; it must keep running); client must outlive the
 * cache. synced(arg) fires after the first snapshot (may be NULL). Thread: base's.
 */
gw_webhook_cache_t *gw_webhook_cache_start(etcd_client_t *client, struct event_base *base,
                                           const char *etcd_prefix,
                                           const gw_value_transformer_t *values,
                                           gw_webhook_cache_synced_fn synced, void *arg);

/** Stop and free; the published snapshot stays in force. NULL is fine. Thread: base's. */
void gw_webhook_cache_stop(gw_webhook_cache_t *c);

#endif
