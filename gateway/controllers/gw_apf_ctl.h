#ifndef GATEWAY_CONTROLLERS_GW_APF_CTL_H
#define GATEWAY_CONTROLLERS_GW_APF_CTL_H

/*
 * API Priority and Fairness' configuration, as kube-apiserver's config consumer and producer:
 *  - on every instance: informers on flowschemas and prioritylevelconfigurations; any change
 *    puts the stored objects in force in the process's dispatcher (gw_apf_configure), and a
 *    timer moves seats between its levels every 10 s (gw_apf_adjust, kube's borrowing);
 *  - on the leader of its election only (gw_apf_ctl_lead): kube's ensurer of the mandatory and
 *    suggested objects (gw_apf_bootstrap_*), then every FlowSchema's Dangling condition.
 * The ensurer creates every missing object with `apf.kubernetes.io/autoupdate-spec: "true"`;
 * a mandatory object's spec is restored whenever it differs (the exempt level keeps its
 * nominalConcurrencyShares and lendablePercent, which users may change); a suggested one's only
 * while its annotation says "true", or is absent on an object of generation 1.
 * Runs on one worker's loop.
 */

#include <stdbool.h>

#include "etcd.h"
#include "gw_transformer.h"

struct event_base;
struct gw_apf;

typedef struct gw_apf_ctl gw_apf_ctl_t;

/** What kube's post-start hooks wait for, each called once (NULL: not told). */
typedef struct {
    /* the stored configuration was first put in force (priority-and-fairness-config-consumer) */
    void (*configured)(void *arg);
    void *configured_arg;
    /* kube's mandatory and suggested objects are in place: this instance's ensurer finished a
     * pass, or, on an instance that does not lead, its caches hold every one of them
     * (priority-and-fairness-config-producer) */
    void (*ensured)(void *arg);
    void *ensured_arg;
} gw_apf_ctl_hooks_t;

/** Start on `base` (it must keep running); client, values and apf must outlive it; hooks is
 *  copied (NULL: none). Thread: base's. */
gw_apf_ctl_t *gw_apf_ctl_start(etcd_client_t *client, struct event_base *base,
                               const char *etcd_prefix, const gw_value_transformer_t *values,
                               struct gw_apf *apf, const gw_apf_ctl_hooks_t *hooks);

/** This instance leads (or no longer leads) the configuration producer's election: the
 *  ensurer and status writes run while it does, at once and then every minute and after
 *  every change. Thread: c's. */
void gw_apf_ctl_lead(gw_apf_ctl_t *c, bool leading);

/** Stop and free; the configuration in force stays. NULL is fine. Thread: c's. */
void gw_apf_ctl_stop(gw_apf_ctl_t *c);

#endif
