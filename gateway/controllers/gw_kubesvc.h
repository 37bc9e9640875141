#ifndef GATEWAY_CONTROLLERS_GW_KUBESVC_H
#define GATEWAY_CONTROLLERS_GW_KUBESVC_H

/*
 * kube-apiserver's bootstrap controller (pkg/controlplane/controller/kubernetesservice) with
 * the lease endpoint reconciler (--endpoint-reconciler-type=lease,
 * pkg/controlplane/reconcilers/lease.go), run by every instance, not elected, as in kube:
 *
 *  - the Service default/kubernetes: ClusterIP the first address of
 *    --service-cluster-ip-range, port "https" 443/TCP to --secure-port, labels
 *    component=apiserver and provider=kubernetes; created when missing, its ports and type
 *    put back on the first pass (kgate allocates no cluster IPs, gw_defaults_core.c: a Service
 *    created with that address is not refused, where kube's allocator would);
 *  - a TTL record of this instance's --advertise-address under
 *    "<etcd prefix>/masterleases/<ip>" (an Endpoints value on an etcd lease of 15 s, renewed
 *    every 10 s);
 *  - the Endpoints default/kubernetes (label endpointslice.kubernetes.io/skip-mirror=true)
 *    and the EndpointSlice default/kubernetes (discovery.k8s.io/v1, label
 *    kubernetes.io/service-name=kubernetes) listing exactly the addresses with a live record,
 *    in lexicographic order, and the secure port.
 *
 * At start the instance's own record, if a previous run left one, is removed and the
 * endpoints reconciled without it; the first pass waits until the instance is ready (kube
 * polls its /readyz) and then runs every 10 s. gw_kubesvc_pre_shutdown (kube's pre-shutdown
 * hook) stops the passes, removes the record and reconciles, so the others see the instance
 * gone at once; an instance that dies leaves when its record expires. The last record is
 * never taken out of the Endpoints (kube refuses to erase every address). With
 * --endpoint-reconciler-type=none only the Service is kept.
 */

#include <stdbool.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;

/** kube's DefaultEndpointReconcilerInterval and DefaultEndpointReconcilerTTL. */
#define GW_KUBESVC_INTERVAL_MS 10000
#define GW_KUBESVC_LEASE_TTL_S 15

typedef struct gw_kubesvc gw_kubesvc_t;

typedef struct {
    const char *etcd_prefix;              /* copied */
    const gw_value_transformer_t *values; /* must outlive the controller */
    const char *service_ip;               /* the Service's ClusterIP; copied */
    const char *public_ip;                /* --advertise-address; copied */
    int public_port;                      /* --secure-port */
    bool no_endpoints;        /* --endpoint-reconciler-type=none: the Service only, as kube */
    bool (*ready)(void *arg); /* whether this instance is ready (its /readyz) */
    void *ready_arg;
} gw_kubesvc_opts_t;

/**
 * The first address of a service CIDR ("10.0.0.0/24" -> "10.0.0.1", "fd00::/108" ->
 * "fd00::1"), as kube's ServiceIPRange picks the kubernetes Service's IP, into out (at least
 * 46 bytes). Returns false for a malformed CIDR or one with no room for it. Thread: any.
 */
bool gw_kubesvc_first_ip(const char *cidr, char *out, size_t out_len);

/** Start on `base` (the calling worker's; it must keep running); client must outlive it.
 *  Thread: base's. */
gw_kubesvc_t *gw_kubesvc_start(etcd_client_t *client, struct event_base *base,
                               const gw_kubesvc_opts_t *opts);

/**
 * kube's pre-shutdown hook: no more passes; this instance's record is removed and the
 * Endpoints and EndpointSlice reconciled without it. Blocks, for at most twice the interval,
 * through a private event_base and etcd conn. NULL is fine. Thread: any but k's (the main
 * thread on SIGTERM), while k's loop runs.
 */
void gw_kubesvc_pre_shutdown(gw_kubesvc_t *k);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: k's. */
void gw_kubesvc_stop(gw_kubesvc_t *k);

#endif
