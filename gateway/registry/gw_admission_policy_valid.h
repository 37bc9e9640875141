#ifndef GATEWAY_REGISTRY_GW_ADMISSION_POLICY_VALID_H
#define GATEWAY_REGISTRY_GW_ADMISSION_POLICY_VALID_H

/*
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation as
 * pkg/apis/admissionregistration/validation does it (v1 and v1beta1 documents alike: their
 * fields are the same), with kube's field paths, messages and order, including the compilation
 * of every CEL expression in kube's admission-policy environment (object, oldObject, request,
 * params, namespaceObject, authorizer, variables): a syntax error, an undeclared reference or a
 * wrong result type is a field error; a misspelt field of `object` (dyn) is not. Pure; thread:
 * any.
 */

#include <jansson.h>

#include "gw_objmeta.h"

/** ValidateValidatingAdmissionPolicy past the metadata: the spec of a created policy. */
void gw_vap_validate(const json_t *obj, gw_field_errors_t *errs);

/** ValidateValidatingAdmissionPolicyUpdate past the metadata: as a create, but the match
 *  conditions are not checked when they and paramKind did not change, and an expression the
 *  old object holds is accepted even when it no longer compiles. */
void gw_vap_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** ValidateValidatingAdmissionPolicyStatusUpdate: status.typeChecking and status.conditions. */
void gw_vap_validate_status(const json_t *obj, gw_field_errors_t *errs);

/** ValidateValidatingAdmissionPolicyBinding (create and update alike) past the metadata. */
void gw_vapb_validate(const json_t *obj, gw_field_errors_t *errs);

#endif
