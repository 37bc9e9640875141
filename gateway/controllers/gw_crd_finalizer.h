#ifndef GATEWAY_CONTROLLERS_GW_CRD_FINALIZER_H
#define GATEWAY_CONTROLLERS_GW_CRD_FINALIZER_H

/*
 * kube-apiextensions-apiserver's CRDFinalizer, which the leader of its election runs: a CRD
 * with a deletionTimestamp and the finalizer customresourcecleanup.apiextensions.k8s.io loses
 * its custom objects first, then the finalizer (and with the last finalizer, the CRD itself,
 * as the generic store removes an object being deleted that no finalizer holds any more).
 *
 * One round per CRD, as kube's sync: Terminating=True InstanceDeletionInProgress is written;
 * unless its group/plural is one of kube's two built-in resources whose storage overlaps CRD
 * storage (OverlappingBuiltInResource) or the CRD never was Established (NeverEstablished),
 * every object under <etcd-prefix>/<group>/<plural>/ is deleted as kube's DeleteCollection
 * does (an object with finalizers gets a deletionTimestamp, deletionGracePeriodSeconds 0 and
 * the next generation instead, and stays for its finalizers' owners); then the prefix is
 * looked at every second until it is empty (Terminating=False InstanceDeletionCompleted, the
 * finalizer removed). After kube's minute of waiting, Terminating says InstanceDeletionCheck
 * (kube's "could not confirm zero CustomResources remaining: context deadline exceeded") and
 * the round starts again with backoff. Status writes are kube's UpdateStatus: resourceVersion
 * precondition, again on a conflict.
 */

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

/** The finalizer the CRD registry adds on the first DELETE of a CRD. */
#define GW_CRD_CLEANUP_FINALIZER "customresourcecleanup.apiextensions.k8s.io"

typedef struct gw_crd_finalizer gw_crd_finalizer_t;

/** Start on `base` (the calling worker's; it must keep running); client must outlive it.
 *  Thread: base's. */
gw_crd_finalizer_t *gw_crd_finalizer_start(etcd_client_t *client, struct event_base *base,
                                           const char *etcd_prefix,
                                           const gw_value_transformer_t *values);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_crd_finalizer_stop(gw_crd_finalizer_t *c);

#endif
