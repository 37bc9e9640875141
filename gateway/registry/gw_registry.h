#ifndef GATEWAY_REGISTRY_GW_REGISTRY_H
#define GATEWAY_REGISTRY_GW_REGISTRY_H

/*
 * The registry: the endpoint handlers for resource requests (get, list, watch, create, update,
 * patch, delete, deletecollection and the subresources), the generic store logic around the
 * storage layer, and the per-kind strategies (defaulting, validation, status/spec split,
 * generation, namespace lifecycle). The chain calls it last, for resource requests whose
 * resource the catalog resolved.
 */

#include "gw_admission.h"
#include "gw_req.h"

/** Handle r (r->info, r->resource, r->subresource set; the verb allowed by authorization).
 *  Replies exactly once, now or later on r's worker. */
void gw_registry_handle(gw_req_t *r);

/** Start-up work on the main thread before workers serve (the resources' strategies, the
 *  shared watches' field values); 0 or a gw_err code. Thread: main. */
int gw_registry_init(etcd_client_t *etcd, const char *etcd_prefix);

/** The admission chain every write goes through (gw_admission_new's; NULL: none). It must
 *  outlive the workers. Thread: main, before workers serve. */
void gw_registry_set_admission(const gw_admission_t *chain);

#endif
