#ifndef GATEWAY_REGISTRY_GW_CRD_VALID_H
#define GATEWAY_REGISTRY_GW_CRD_VALID_H

/*
 * kube-apiserver's validation of apiextensions.k8s.io/v1 CustomResourceDefinitions
 * (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go), with kube's field
 * paths and messages. kube validates the internal form a v1 object converts to: versions[0]'s
 * name is also spec.version, per-version schemas, subresources, printer columns and
 * selectable fields that are the same in every version are moved to spec.validation,
 * spec.subresources, spec.additionalPrinterColumns and spec.selectableFields, and
 * spec.conversion.webhook's fields are spec.conversion.webhookClientConfig and
 * spec.conversion.conversionReviewVersions; the errors name those paths as kube's do.
 * ObjectMeta's own rules are the engine's (gw_objmeta.h); these add the CRD's. Pure; thread:
 * any. Not checked: that schema defaults validate against their schema, the compilation and
 * cost of x-kubernetes-validations rules, a pattern's regular expression, a caBundle's PEM.
 */

#include <jansson.h>

#include "gw_objmeta.h"

/** The finalizer a CRD keeps until its custom resources are gone, and the annotation that
 *  approves a CRD of a protected (*.k8s.io, *.kubernetes.io) group. */
#define GW_CRD_CLEANUP_FINALIZER "customresourcecleanup.apiextensions.k8s.io"
#define GW_CRD_APPROVAL_ANNOTATION "api-approved.kubernetes.io"

/**
 * ValidateCustomResourceDefinition of a prepared create (status reset, storedVersions set):
 * the name `<plural>.<group>`, spec, status.acceptedNames, status.storedVersions, API approval
 * and spec.preserveUnknownFields. Errors are added to errs, which may hold ObjectMeta's: the
 * name errors join them where kube's nameFn puts them (after that field's own errors).
 */
void gw_crd_definition_validate(const json_t *crd, gw_field_errors_t *errs);

/**
 * ValidateCustomResourceDefinitionUpdate of `crd` replacing the stored `old`: the spec as on
 * create with what `old` relaxes (schemas it already had that break newer rules), the names an
 * established CRD keeps (scope, kind), the group and plural, status, storedVersions, API
 * approval and preserveUnknownFields as their old values allow.
 */
void gw_crd_definition_validate_update(const json_t *crd, const json_t *old,
                                       gw_field_errors_t *errs);

/** ValidateUpdateCustomResourceDefinitionStatus's own part: status.acceptedNames. */
void gw_crd_definition_validate_status(const json_t *crd, gw_field_errors_t *errs);

#endif
