#ifndef GATEWAY_ADMISSION_GW_VAP_TYPECHECK_H
#define GATEWAY_ADMISSION_GW_VAP_TYPECHECK_H

/*
 * kube-apiserver 1.32's type check of a ValidatingAdmissionPolicy (policy/validating
 * typechecking.go), which the status controller writes to status.typeChecking: the kinds the
 * policy's matchConstraints name exactly (no `*` in groups or versions; resources without `*`
 * or a subresource; at most 10, sorted by group, version and kind) are resolved in the served
 * catalog, and each validation's expression and messageExpression is compiled against each
 * kind's schema (`object` and `oldObject` typed; `params` typed by the paramKind's schema, and
 * undeclared when the served catalog lacks that kind), with no return type enforced. Variables
 * take part but are not reported, as in kube.
 */

#include <jansson.h>

#include "gw_catalog.h"

/**
 * The policy's expressionWarnings: a new JSON array of {"fieldRef", "warning"} (e.g.
 * "spec.validations[0].expression", "apps/v1, Kind=Deployment: ERROR: <input>:1:8: undefined
 * field 'x'\n | ...\n | .......^\n"; one paragraph per kind, joined by a blank line), empty when
 * nothing is wrong or no kind could be resolved. `policy` is a stored v1 policy (read only);
 * `served` resolves the matched resources and the param kind. Caller owns the result.
 * Thread: any.
 */
json_t *gw_vap_typecheck(const json_t *policy, const gw_catalog_t *served);

#endif
