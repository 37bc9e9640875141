#ifndef GATEWAY_REGISTRY_GW_ADMISSION_POLICY_INT_H
#define GATEWAY_REGISTRY_GW_ADMISSION_POLICY_INT_H

/*
 * The rules ValidatingAdmissionPolicy and MutatingAdmissionPolicy (and their bindings) share in
 * kube's validation.go, from gw_admission_policy_valid.c, for gw_map_policy_valid.c.
 * Folder-internal. Paths are kube's; errors are appended to `errs`.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "gw_objmeta.h"
#include "gw_vap_compile.h"

/** What one policy's checks share: its variables' and matchConditions' compile errors (compiled
 *  as kube's validation compiles them), and what the stored object held (NULL: a create). */
typedef struct {
    const gw_vap_compiled_t *compiled;
    const json_t *old_spec;
} gw_policy__ctx_t;

/** validateParamKind at `path`. */
void gw_policy__param_kind(const json_t *pk, const char *path, gw_field_errors_t *errs);

/** spec.matchConstraints: required, validateMatchResources, at least one resourceRule. */
void gw_policy__match_constraints(const json_t *spec, gw_field_errors_t *errs);

/** validateMatchConditions of `list` at `path` (names, duplicates, compile errors). */
void gw_policy__match_conditions(const gw_policy__ctx_t *c, const json_t *list, const char *path,
                                 gw_field_errors_t *errs);

/** validateVariable of variable `i`, `v`, at `path`. */
void gw_policy__variable(const gw_policy__ctx_t *c, const json_t *v, size_t i, const char *path,
                         gw_field_errors_t *errs);

/** validateParamRef at spec.paramRef (NULL: nothing to check). */
void gw_policy__param_ref(const json_t *pr, gw_field_errors_t *errs);

/** JSON equality with absent and null equal (Go's nil pointer or slice). */
bool gw_policy__same(const json_t *a, const json_t *b);

#endif
