/*
 * Custom resources' strategy (kube's apiextensions-apiserver pkg/registry/customresource/
 * strategy.go and validator.go): the CRD's compiled schema validates and defaults the
 * object, a status subresource keeps creates and main-resource updates away from status, and
 * the generation moves with everything but metadata (and status, where a status subresource
 * owns it). Pruning of unknown fields happens where every body is checked against its schema
 * (gw_fieldval_check, as the resource's schema is the CRD's).
 */
#include "gw_registry_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd.h"
#include "gw_crd_rules.h"
#include "gw_crd_schema.h"

/* A create cannot set status when a status subresource owns it. */
static void
prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)user;
    if (gw_registry__has_status(res))
        json_object_del(obj, "status");
}

/* apiVersion and kind must name the resource's, as kube's validator words it. */
static void
validate_type(const gw_resource_t *res, const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *av = json_object_get(obj, "apiVersion");
    const json_t *kind = json_object_get(obj, "kind");
    char *must;

    if (!json_is_string(kind) || strcmp(json_string_value(kind), res->kind) != 0) {
        must = gw_sprintf("must be %s", res->kind);
        gw_ferr_invalid(errs, "kind", kind, must);
        free(must);
    }
    if (!json_is_string(av) || strcmp(json_string_value(av), res->api_version) != 0) {
        must = gw_sprintf("must be %s", res->api_version);
        gw_ferr_invalid(errs, "apiVersion", av, must);
        free(must);
    }
}

/* A scale subresource's replica fields, where present, are integers >= 0 (kube's
 * validateScaleSpec / validateScaleStatus). */
static void
validate_scale(const gw_resource_t *res, const json_t *obj, gw_field_errors_t *errs)
{
    const gw_crd_version_t *cv = gw_crd_version_of(res);
    const char *paths[2];

    if (cv == NULL || !cv->has_scale)
        return;
    paths[0] = cv->spec_replicas;
    paths[1] = cv->status_replicas;
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = gw_registry__custom_path(obj, paths[i]);
        if (v == NULL)
            continue;
        if (!json_is_integer(v))
            gw_ferr_invalid(errs, paths[i] + 1, v, "should be an integer");
        else if (json_integer_value(v) < 0)
            gw_ferr_invalid(errs, paths[i] + 1, v, "should be a non-negative integer");
    }
}

static void
validate(const gw_resource_t *res, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    gw_field_errors_t schema_errs = {0};

    validate_type(res, obj, errs);
    /* what an update leaves as it was may stay invalid (kube's ratcheting) */
    gw_crd_validate(res->schema, obj, &schema_errs);
    gw_crd_ratchet(obj, old, &schema_errs);
    if (schema_errs.causes != NULL) {
        if (errs->causes == NULL)
            errs->causes = json_array();
        json_array_extend(errs->causes, schema_errs.causes);
        gw_ferr_clear(&schema_errs);
    }
    validate_scale(res, obj, errs);
    gw_crd_rules_validate(gw_crd_version_of(res), obj, old, errs);
}

const gw_strategy_t gw_strategy_custom = {
    .name = "custom",
    .name_rule = GW_NAME_SUBDOMAIN,
    .prepare_create = prepare_create,
    .validate = validate,
    .generation_on_status = true,
};
