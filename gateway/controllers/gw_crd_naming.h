#ifndef GATEWAY_CONTROLLERS_GW_CRD_NAMING_H
#define GATEWAY_CONTROLLERS_GW_CRD_NAMING_H

/*
 * The status kube-apiextensions-apiserver's naming, establishing and non-structural schema
 * controllers write into CustomResourceDefinitions, as one controller the leader of its
 * election runs. For each CRD, in one status write:
 *  - names (kube's NamingConditionController): status.acceptedNames takes each name of
 *    spec.names that is already accepted or that no other CRD of the group has accepted, and
 *    (beyond kube, whose built-in resources are served by another server in the chain) that no
 *    built-in resource of the group serves; NamesAccepted says which conflict was left (kube's
 *    reasons and `"<name>" is already in use`). When a write may have released names, and when a
 *    CRD is deleted, the group's other CRDs are looked at again;
 *  - establishing (kube's EstablishingController): Established=True, InitialNamesAccepted, once
 *    NamesAccepted is true, at once: kube waits 5 s so that every server of an HA cluster serves
 *    the names first, while every kgate instance serves a CRD from etcd as soon as it is there
 *    (Established=False InvalidCABundle instead while a conversion webhook's caBundle holds no
 *    certificate);
 *  - NonStructuralSchema (kube's ConditionController): set for a schema node without a type
 *    (gw_crd_int.h's check), removed once the schema is structural again.
 * Writes are status writes: only the status changes, under the resourceVersion precondition,
 * again on a conflict; a failure is retried with backoff.
 */

#include <stdbool.h>

#include <jansson.h>

#include "etcd.h"
#include "gw_catalog.h"
#include "gw_transformer.h"

struct event_base;

typedef struct gw_crd_naming gw_crd_naming_t;

/** What the naming step decides for one CRD (kube's calculateNamesAndConditions). */
typedef struct {
    json_t *names;       /* the new status.acceptedNames */
    json_t *accepted;    /* the NamesAccepted condition: type, status, reason, message */
    json_t *established; /* the Established condition: as it was, or Installing / NotAccepted */
} gw_crd_names_t;

/** Add the names the status.acceptedNames `names` (may be NULL) holds to the sets (JSON
 *  objects whose keys are the names): plural, singular and short names to `resources`, kind
 *  and listKind to `kinds`; an empty name counts, as kube's sets insert it. Thread: any. */
void gw_crd_naming_hold(const json_t *names, json_t *resources, json_t *kinds);

/** Add the names of every built-in resource of `group` that `catalog` serves to the sets: its
 *  plural, singular and short names, and its kind and list kind. Thread: any. */
void gw_crd_naming_builtin(const gw_catalog_t *catalog, const char *group, json_t *resources,
                           json_t *kinds);

/** The names and conditions `crd` gets when the names in the sets are taken (the CRD's own
 *  accepted names may be among them). Free with gw_crd_names_clear. Thread: any. */
void gw_crd_naming_compute(const json_t *crd, const json_t *resources, const json_t *kinds,
                           gw_crd_names_t *out);

/** Release what gw_crd_naming_compute filled in. */
void gw_crd_names_clear(gw_crd_names_t *n);

/** Whether spec.names and status.acceptedNames say the same (an absent member and an empty
 *  one do, as kube's semantic equality). Thread: any. */
bool gw_crd_naming_settled(const json_t *crd);

/** Start on `base` (the calling worker's; it must keep running); client and catalog (the
 *  served one) must outlive it. Thread: base's. */
gw_crd_naming_t *gw_crd_naming_start(etcd_client_t *client, struct event_base *base,
                                     const char *etcd_prefix, const gw_value_transformer_t *values,
                                     const gw_catalog_t *catalog);

/** Stop and free (outstanding etcd calls are canceled). NULL is fine. Thread: base's. */
void gw_crd_naming_stop(gw_crd_naming_t *c);

#endif
