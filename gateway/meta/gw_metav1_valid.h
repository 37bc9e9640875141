#ifndef GATEWAY_META_GW_METAV1_VALID_H
#define GATEWAY_META_GW_METAV1_VALID_H

/*
 * k8s.io/apimachinery's metav1 validation of shared API types on Jansson documents: LabelSelector
 * objects (ValidateLabelSelector) and metav1.Condition lists (ValidateConditions), with kube's
 * field paths and messages. Pure; thread: any.
 */

#include <stdbool.h>

#include <jansson.h>

#include "gw_objmeta.h"

/**
 * ValidateLabelSelector of `sel` (a LabelSelector object; NULL or JSON null: nothing to check)
 * at field path `path`: matchLabels keys and values, each matchExpressions requirement's
 * operator, values and key. `allow_invalid_values` is kube's AllowInvalidLabelValueInSelector
 * (the values of In and NotIn are not checked). Errors are appended to errs.
 */
void gw_label_selector_validate(const json_t *sel, bool allow_invalid_values, const char *path,
                                gw_field_errors_t *errs);

/**
 * ValidateConditions of `conds` (an array of metav1.Condition; NULL: none) at `path`: duplicate
 * types, and each condition's type, status, observedGeneration, lastTransitionTime, reason and
 * message. Errors are appended to errs.
 */
void gw_conditions_validate(const json_t *conds, const char *path, gw_field_errors_t *errs);

#endif
