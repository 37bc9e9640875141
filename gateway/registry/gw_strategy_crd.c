/*
 * The CustomResourceDefinition strategy, as apiextensions-apiserver's
 * pkg/registry/customresourcedefinition has it (strategy.go and etcd.go): conditional updates;
 * on create the status reset (the generic store's), generation 1 and the storage version in
 * status.storedVersions; on update the status kept, generation moved by spec changes (both the
 * generic store's) and the storage version added to storedVersions; Validate and ValidateUpdate
 * (gw_crd_valid.h); the status subresource's own ValidateUpdate; and the registry's Delete,
 * whose first request only marks the CRD (deletionTimestamp, the cleanup finalizer, the
 * Terminating condition) for the finalizer's controller to empty and release.
 */
#include "gw_crd_valid.h"
#include "gw_registry_int.h"

#include <string.h>

#include "gw_json_strings.h"

/* The name of the version marked as storage, or NULL. */
static const char *
storage_version(const json_t *crd)
{
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(json_object_get(crd, "spec"), "versions"), i, v)
    {
        if (json_is_true(json_object_get(v, "storage")))
            return json_string_value(json_object_get(v, "name"));
    }
    return NULL;
}

/* The storage version joins status.storedVersions (it may hold data from now on). */
static void
add_storage_version(json_t *crd)
{
    const char *v = storage_version(crd);
    json_t *status = gw_json_child(crd, "status");
    json_t *stored = json_object_get(status, "storedVersions");

    if (v == NULL)
        return;
    if (!json_is_array(stored)) {
        stored = json_array();
        json_object_set_new(status, "storedVersions", stored);
    }
    if (!gw_json_strings_has(stored, v))
        json_array_append_new(stored, json_string(v));
}

static void
prepare_create(const gw_resource_t *res, const authn_user_t *user, json_t *obj)
{
    (void)res;
    (void)user;
    add_storage_version(obj);
}

static void
prepare_update_status(const gw_resource_t *res, json_t *obj, const json_t *old)
{
    (void)res;
    (void)old;
    add_storage_version(obj);
}

/* Validate: a create only; a main-resource update is ValidateUpdate's, a status one the
 * subresource's. */
static void
validate(const gw_resource_t *res, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)res;
    if (old == NULL)
        gw_crd_definition_validate(obj, errs);
}

static void
validate_update(const gw_resource_t *res, const json_t *obj, const json_t *old,
                gw_field_errors_t *errs)
{
    (void)res;
    gw_crd_definition_validate_update(obj, old, errs);
}

static void
status_validate_update(gw_upd_t *u, const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    (void)u;
    (void)old;
    gw_crd_definition_validate_status(obj, errs);
}

/* ---- delete ------------------------------------------------------------------------------- */

/* SetCRDCondition: the condition of its type replaced (its transition time kept when the status
 * stays), or appended. */
static void
set_condition(json_t *crd, const char *type, const char *status, const char *reason,
              const char *message, const char *now)
{
    json_t *st = gw_json_child(crd, "status"), *conds = json_object_get(st, "conditions");
    json_t *c = NULL, *x;
    size_t i;

    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    json_array_foreach(conds, i, x)
    {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (c == NULL && t != NULL && strcmp(t, type) == 0)
            c = x;
    }
    if (c == NULL) {
        c = json_pack("{s:s}", "type", type);
        json_array_append_new(conds, c);
    }
    const char *was = json_string_value(json_object_get(c, "status"));
    const char *since = json_string_value(json_object_get(c, "lastTransitionTime"));
    if (was == NULL || strcmp(was, status) != 0 || since == NULL || since[0] == '\0')
        json_object_set_new(c, "lastTransitionTime", json_string(now));
    json_object_set_new(c, "status", json_string(status));
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(message));
}

/* etcd.go's Delete on a CRD not yet being deleted: the cleanup finalizer keeps it until the
 * controller has deleted its custom resources. */
static void
mark_on_first_delete(json_t *crd)
{
    char now[GW_TIME_LEN + 1];

    gw_time_now(now);
    json_object_set_new(gw_objmeta_get(crd), "deletionTimestamp", json_string(now));
    gw_json_strings_add_at(crd, "metadata", "finalizers", GW_CRD_CLEANUP_FINALIZER);
    set_condition(crd, "Terminating", "True", "InstanceDeletionPending",
                  "CustomResourceDefinition marked for deletion; CustomResource deletion will "
                  "begin soon",
                  now);
}

static const gw_subres_strategy_t crd_subresources[] = {
    {.name = "status",
     .form = GW_SUBRES_STATUS,
     .status_write = true,
     .validate_update = status_validate_update},
};

const gw_strategy_t gw_strategy_crd = {
    .name = "customresourcedefinition",
    .conditional_update = true,
    .own_required = true,
    .prepare_create = prepare_create,
    .prepare_update_status = prepare_update_status,
    .validate = validate,
    .validate_update = validate_update,
    .mark_on_first_delete = mark_on_first_delete,
    .subresources = crd_subresources,
    .n_subresources = sizeof(crd_subresources) / sizeof(crd_subresources[0]),
};
