/*
 * The strategies of MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * (pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration/strategy.go):
 * conditional updates, generation 1 on create and moved when the webhooks change (the generic
 * store's, the catalog marks both kinds as keeping a generation), Validate on create and
 * ValidateUpdate on updates. The rules are gw_webhook_config_valid.h's; what a webhook must
 * have is theirs too (kube does not enforce the OpenAPI schema's required members).
 */
#include "gw_registry_int.h"
#include "gw_webhook_config_valid.h"

#include <string.h>

/* Validate: a create only; an update is ValidateUpdate's. */
static void
validate(const gw_resource_t *res, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    if (old == NULL)
        gw_webhook_config_validate(obj, NULL,
                                   strcmp(res->name, "mutatingwebhookconfigurations") == 0, errs);
}

static void
validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                gw_field_errors_t *errs)
{
    gw_webhook_config_validate(obj, old, strcmp(res->name, "mutatingwebhookconfigurations") == 0,
                               errs);
}

const gw_strategy_t gw_strategy_mutating_webhook_configuration = {
    .name = "mutatingwebhookconfiguration",
    .conditional_update = true,
    .own_required = true,
    .validate = validate,
    .validate_update = validate_update,
};

const gw_strategy_t gw_strategy_validating_webhook_configuration = {
    .name = "validatingwebhookconfiguration",
    .conditional_update = true,
    .own_required = true,
    .validate = validate,
    .validate_update = validate_update,
};
