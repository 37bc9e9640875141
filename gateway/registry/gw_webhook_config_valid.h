#ifndef GATEWAY_REGISTRY_GW_WEBHOOK_CONFIG_VALID_H
#define GATEWAY_REGISTRY_GW_WEBHOOK_CONFIG_VALID_H

/*
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration validation as
 * pkg/apis/admissionregistration/validation does it for admissionregistration.k8s.io/v1 (the
 * documents as decoded and defaulted), with kube's field paths, messages and order: each
 * webhook's name, rules, policies, sideEffects, timeout, selectors, client config and match
 * conditions (compiled in kube's webhook match-condition environment), then its
 * admissionReviewVersions and the names' uniqueness. On update, kube's validationOptions relax
 * what the stored object already broke (side effects, review versions, unique names, selector
 * label values), match conditions are not checked when none changed, and an expression the
 * stored object holds is accepted even when it no longer compiles. Pure; thread: any.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_objmeta.h"

/** Validate{Mutating,Validating}WebhookConfiguration past the metadata when `old` is NULL,
 *  else the Update form against the stored `old`; `mutating`: the mutating kind (its
 *  reinvocationPolicy). Errors appended to errs. */
void gw_webhook_config_validate(const json_t *obj, const json_t *old, bool mutating,
                                gw_field_errors_t *errs);

#endif
