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
#include "gw_registry_int.h"
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

/** kube's authorizeCreate / authorizeUpdate of a policy (gw_strategy_t.check_write): a new or
 *  changed paramKind needs `get` on every object of the kind (gw_strategy_admission_policy.c;
 *  validating and mutating policies alike). */
void gw_policy__check_param_kind(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                                 gw_strategy_done_fn done, void *arg);

/** The same for a binding: a new or changed paramRef needs `get` on the object it names, of
 *  its policy's paramKind (the policy of the binding's own kind, read from etcd). */
void gw_policy__check_param_ref(gw_req_t *r, const json_t *obj, const json_t *old, gw_fail_t *f,
                                gw_strategy_done_fn done, void *arg);

/** Whether an update keeps the spec's paramKind and matchConditions (absent and null equal):
 *  kube then does not compile the stored matchConditions again. Thread: any. */
bool gw_policy__conditions_kept(const json_t *obj, const json_t *old);

#endif
