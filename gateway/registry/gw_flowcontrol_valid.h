#ifndef GATEWAY_REGISTRY_GW_FLOWCONTROL_VALID_H
#define GATEWAY_REGISTRY_GW_FLOWCONTROL_VALID_H

/*
 * kube's validation and defaulting of FlowSchema and PriorityLevelConfiguration
 * (pkg/apis/flowcontrol/validation, flowcontrol/v1 defaults): field paths and words as kube's.
 * Pure; thread: any.
 */

#include <jansson.h>

#include "gw_objmeta.h"

/** Validate a FlowSchema's spec into errs. */
void gw_flowschema_validate(const json_t *fs, gw_field_errors_t *errs);

/** Validate a PriorityLevelConfiguration's spec into errs. */
void gw_prioritylevel_validate(const json_t *pl, gw_field_errors_t *errs);

/** flowcontrol/v1's defaults: matchingPrecedence 1000; nominalConcurrencyShares 30 (0 for
 *  exempt), lendablePercent 0, queuing 64 queues, hand 8, 50 long. In place. */
void gw_flowschema_defaults(json_t *fs);
void gw_prioritylevel_defaults(json_t *pl);

#endif
