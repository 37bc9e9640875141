#ifndef GATEWAY_REGISTRY_GW_MAP_POLICY_VALID_H
#define GATEWAY_REGISTRY_GW_MAP_POLICY_VALID_H

/*
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io
 * v1alpha1) validation as pkg/apis/admissionregistration/validation does it
 * (validateMutatingAdmissionPolicySpec, validateMutation, validateApplyConfiguration,
 * validateJSONPatch, validateMutatingAdmissionPolicyBindingSpec), with kube's field paths and
 * messages; the rules shared with ValidatingAdmissionPolicy are gw_admission_policy_valid.c's.
 * Every expression is compiled by the admission plugin's compiler (gw_map_compile.h) in the
 * mode kube's validation compiles it (mutations trimmed, with the mutation library and kube's
 * return types). Pure; thread: any.
 */

#include <jansson.h>

#include "gw_objmeta.h"

/** ValidateMutatingAdmissionPolicy past the metadata: the spec of a created policy. */
void gw_map_validate(const json_t *obj, gw_field_errors_t *errs);

/** ValidateMutatingAdmissionPolicyUpdate past the metadata: as a create, but the match
 *  conditions are not checked when they and paramKind did not change, and an expression the
 *  old object holds is accepted even when it no longer compiles. */
void gw_map_validate_update(const json_t *obj, const json_t *old, gw_field_errors_t *errs);

/** ValidateMutatingAdmissionPolicyBinding (create and update alike) past the metadata. */
void gw_mapb_validate(const json_t *obj, gw_field_errors_t *errs);

#endif
