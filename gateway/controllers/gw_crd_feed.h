#ifndef GATEWAY_CONTROLLERS_GW_CRD_FEED_H
#define GATEWAY_CONTROLLERS_GW_CRD_FEED_H

/*
 * The process's catalog of custom resources, kept current from etcd: an informer on
 * CustomResourceDefinitions, and on any change one rebuild (a burst of changes is one
 * rebuild) that compiles the CRDs whose stored revision changed (the others are reused),
 * extends the served catalog with their resources and publishes the snapshot
 * (gw_catalog_publish). Runs on every instance, on one worker's loop: a CRD is served by
 * every instance about as soon as etcd reports it, with no state beyond etcd.
 */

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_crd_feed gw_crd_feed_t;

/**
 * Start on `base` (the calling worker's); client, values and catalog (the configured one, which
 * every snapshot extends) must outlive the feed. published(arg) fires after each snapshot is
 * published, the first time once the CRDs were listed (may be NULL). Thread: base's.
 */
gw_crd_feed_t *gw_crd_feed_start(etcd_client_t *client, struct event_base *base,
                                 const char *etcd_prefix, const gw_value_transformer_t *values,
                                 const gw_catalog_t *catalog, void (*published)(void *arg),
                                 void *arg);

/** Stop and free; the published snapshot stays in force. NULL is fine. Thread: base's. */
void gw_crd_feed_stop(gw_crd_feed_t *f);

#endif
