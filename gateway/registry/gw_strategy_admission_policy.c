/*
 * The strategies of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/strategy.go):
 * conditional updates, the policy's status reset on create and kept on main-resource updates
 * (the generic store's, through the status subresource the catalog serves), Validate on create,
 * ValidateUpdate on main-resource updates, the status subresource's own ValidateUpdate. The
 * rules themselves are gw_admission_policy_valid.h's.
 */
#include "gw_admission_policy_valid.h"
#include "gw_strategy.h"

/* Validate: a create only; an update of the main resource is ValidateUpdate's and one of the
 * status the subresource's. */
static void
policy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                gw_field_errors_t *errs)
{
    (void)res;
    if (old == NULL)
        gw_vap_validate(obj, errs);
}

static void
policy_validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                       gw_field_errors_t *errs)
{
    (void)res;
    gw_vap_validate_update(obj, old, errs);
}

static void
status_validate_update(gw_upd_t *u, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)u;
    (void)old;
    gw_vap_validate_status(obj, errs);
}

static const gw_subres_strategy_t policy_subresources[] = {
    {.name = "status",
     .form = GW_SUBRES_STATUS,
     .status_write = true,
     .validate_update = status_validate_update},
};

const gw_strategy_t gw_strategy_validating_admission_policy = {
    .name = "validatingadmissionpolicy",
    .conditional_update = true,
    .validate = policy_validate,
    .validate_update = policy_validate_update,
    .subresources = policy_subresources,
    .n_subresources = sizeof(policy_subresources) / sizeof(policy_subresources[0]),
};

/* A binding validates alike on create and update. */
static void
binding_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                 gw_field_errors_t *errs)
{
    (void)res;
    (void)old;
    gw_vapb_validate(obj, errs);
}

const gw_strategy_t gw_strategy_validating_admission_policy_binding = {
    .name = "validatingadmissionpolicybinding",
    .conditional_update = true,
    .validate = binding_validate,
};
