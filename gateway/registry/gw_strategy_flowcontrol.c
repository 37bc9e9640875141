/*
 * The strategies of FlowSchema and PriorityLevelConfiguration (pkg/registry/flowcontrol):
 * generation 1 on create and moved when the spec changes (the catalog marks both kinds as
 * keeping one), kube's validation on create and update (gw_flowcontrol_valid.h).
 */
#include "gw_flowcontrol_valid.h"
#include "gw_registry_int.h"

static void
validate_fs(const gw_resource_t *res, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)res, (void)old;
    gw_flowschema_validate(obj, errs);
}

static void
validate_pl(const gw_resource_t *res, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)res, (void)old;
    gw_prioritylevel_validate(obj, errs);
}

const gw_strategy_t gw_strategy_flowschema = {
    .name = "flowschema",
    .own_required = true,
    .validate = validate_fs,
    .validate_update = validate_fs,
};

const gw_strategy_t gw_strategy_prioritylevel = {
    .name = "prioritylevelconfiguration",
    .own_required = true,
    .validate = validate_pl,
    .validate_update = validate_pl,
};
