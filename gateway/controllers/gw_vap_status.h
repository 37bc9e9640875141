#ifndef GATEWAY_CONTROLLERS_GW_VAP_STATUS_H
#define GATEWAY_CONTROLLERS_GW_VAP_STATUS_H

/*
 * kube-controller-manager's validatingadmissionpolicy-status-controller, which the leader of
 * the election of that name runs: for every ValidatingAdmissionPolicy whose
 * metadata.generation is newer than its status.observedGeneration, it type-checks the
 * policy's validations against the kinds it matches (gateway/admission/gw_vap_typecheck.h)
 * and writes status.observedGeneration and status.typeChecking (expressionWarnings when there
 * are any), owned in managedFields by the controller's name through an Apply on the status
 * subresource, as kube's controller applies it. A failed write is retried with backoff.
 */

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_vap_status gw_vap_status_t;

/** Start on `base` (the calling worker's; it must keep running); client and catalog (the
 *  served one) must outlive it. Thread: base's. */
gw_vap_status_t *gw_vap_status_start(etcd_client_t *client, struct event_base *base,
                                     const char *etcd_prefix, const gw_value_transformer_t *values,
                                     const gw_catalog_t *catalog);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_vap_status_stop(gw_vap_status_t *c);

#endif
