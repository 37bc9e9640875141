/*
 * The strategies of MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding
 * (pkg/registry/admissionregistration/mutatingadmissionpolicy{,binding}/strategy.go):
 * conditional updates, Validate on create and ValidateUpdate on updates (a v1alpha1 policy has
 * no status), and the authorization of what they refer to, as validating policies'
 * (gw_strategy_admission_policy.c). The rules themselves are gw_map_policy_valid.h's.
 */
#include "gw_admission_policy_int.h"
#include "gw_map_policy_valid.h"
#include "gw_registry_int.h"

static void
policy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                gw_field_errors_t *errs)
{
    (void)res;
    if (old == NULL)
        gw_map_validate(obj, errs);
}

static void
policy_validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                       gw_field_errors_t *errs)
{
    (void)res;
    gw_map_validate_update(obj, old, errs);
}

const gw_strategy_t gw_strategy_mutating_admission_policy = {
    .name = "mutatingadmissionpolicy",
    .conditional_update = true,
    .validate = policy_validate,
    .validate_update = policy_validate_update,
    .check_write = gw_policy__check_param_kind,
};

/* A binding validates alike on create and update. */
static void
binding_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                 gw_field_errors_t *errs)
{
    (void)res;
    (void)old;
    gw_mapb_validate(obj, errs);
}

const gw_strategy_t gw_strategy_mutating_admission_policy_binding = {
    .name = "mutatingadmissionpolicybinding",
    .conditional_update = true,
    .validate = binding_validate,
    .check_write = gw_policy__check_param_ref,
};
