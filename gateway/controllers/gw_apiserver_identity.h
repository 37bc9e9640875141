#ifndef GATEWAY_CONTROLLERS_GW_APISERVER_IDENTITY_H
#define GATEWAY_CONTROLLERS_GW_APISERVER_IDENTITY_H

/*
 * kube-apiserver's identity (the APIServerIdentity feature, on by default), on every instance:
 *  - the Lease kube-system/apiserver-<id>, <id> kube's hash of the hostname and
 *    "kube-apiserver" (gw_apiserver_identity_name), labelled
 *    apiserver.kubernetes.io/identity=kube-apiserver and kubernetes.io/hostname=<hostname>,
 *    holderIdentity "<name>_<uuid>" (new every start), leaseDurationSeconds 3600, its
 *    renewTime renewed every 10 s (kube's lease controller);
 *  - kube's identity lease garbage collector: at start and then every hour, the Leases of
 *    kube-system labelled apiserver.kubernetes.io/identity=kube-apiserver whose renewTime plus
 *    leaseDurationSeconds has passed are deleted.
 * Instances on one host share its Lease, as kube-apiservers of one hostname do.
 */

#include <stddef.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

/** kube's IdentityLeaseDurationSeconds, IdentityLeaseRenewIntervalPeriod and
 *  IdentityLeaseGCPeriod. */
#define GW_IDENTITY_LEASE_DURATION_S 3600
#define GW_IDENTITY_RENEW_MS 10000
#define GW_IDENTITY_GC_MS 3600000

typedef struct gw_apiserver_identity gw_apiserver_identity_t;

/**
 * kube's apiserver identity for `hostname`: "apiserver-" and the lower-case unpadded base32 of
 * the first 16 bytes of SHA-256 over the hostname and "kube-apiserver", each prefixed with its
 * length as two big-endian bytes. Writes it into out (at least 40 bytes). Thread: any.
 */
void gw_apiserver_identity_name(const char *hostname, char *out, size_t out_len);

/** Start on `base` (the calling worker's; it must keep running); client and values must
 *  outlive it. `renewed(arg)`, when not NULL, is called after the first successful renewal.
 *  Thread: base's. */
gw_apiserver_identity_t *gw_apiserver_identity_start(etcd_client_t *client, struct event_base *base,
                                                     const char *etcd_prefix,
                                                     const gw_value_transformer_t *values,
                                                     void (*renewed)(void *arg), void *arg);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_apiserver_identity_stop(gw_apiserver_identity_t *a);

#endif
