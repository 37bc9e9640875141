#ifndef GATEWAY_CONTROLLERS_GW_GC_H
#define GATEWAY_CONTROLLERS_GW_GC_H

/*
 * kube-controller-manager's garbage collector, which the leader of the
 * "garbage-collector-controller" election runs: objects whose owners are gone are deleted,
 * owners deleted in the foreground wait for their blocking dependents, owners deleted with
 * orphaning lose their place in their dependents' ownerReferences first.
 *
 * The graph (gw_gc_graph.h) is fed by one list and watch of the whole store
 * (gw_gc_builder.c), reduced to identity, ownerReferences, finalizers and deletionTimestamp;
 * Events of both groups are skipped, as kube's ignoredResources. Two keyed work queues of
 * node uids, kube's attemptToDelete (gw_gc_delete.c) and attemptToOrphan (gw_gc_orphan.c),
 * check owners against etcd and write straight to etcd (gw_gc_write.c) the way the generic
 * store's delete and update would. Owner kinds resolve against the current catalog snapshot,
 * custom resources included.
 */

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_gc gw_gc_t;

/** Start on `base` (the calling worker's; it must keep running): the graph is built from a
 *  fresh list. client must outlive it; catalog (the configured one) serves until a snapshot
 *  is published. Thread: base's. */
gw_gc_t *gw_gc_start(etcd_client_t *client, struct event_base *base, const char *etcd_prefix,
                     const gw_value_transformer_t *values, const gw_catalog_t *catalog);

/** Stop and free (outstanding etcd calls are canceled, the graph dropped). NULL is fine.
 *  Thread: base's. */
void gw_gc_stop(gw_gc_t *c);

#endif
