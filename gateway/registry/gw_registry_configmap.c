/*
 * ConfigMaps: pkg/apis/core/validation's ValidateConfigMap and ValidateConfigMapUpdate past the
 * metadata: keys of data and binaryData, a key in both, the 1 MiB total of the two, and what an
 * `immutable: true` ConfigMap keeps.
 */
#include "gw_registry_int.h"

#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"

/* Both maps empty or absent, or equal (absent and empty as in gw_registry__bytes_maps_equal). */
static bool
strings_maps_equal(const json_t *a, const json_t *b)
{
    if (json_object_size(a) == 0 && json_object_size(b) == 0)
        return true;
    return a != NULL && b != NULL && json_equal(a, b);
}

/* IsConfigMapKey's findings on one key, at <member>[<key>]. */
static void
validate_key(const char *member, const char *key, gw_field_errors_t *errs)
{
    const char *msgs[3];
    size_t n = gw_valid_config_map_key(key, msgs);
    char *field;

    if (n == 0)
        return;
    field = gw_sprintf("%s[%s]", member, key);
    for (size_t i = 0; i < n; i++)
        gw_ferr_invalid_str(errs, field, key, msgs[i]);
    free(field);
}

static void
validate(const json_t *obj, gw_field_errors_t *errs)
{
    const json_t *data = json_object_get(obj, "data");
    const json_t *binary = json_object_get(obj, "binaryData");
    size_t total = 0;
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)data, k, v)
    {
        validate_key("data", k, errs);
        if (json_object_get(binary, k) != NULL) {
            char *field = gw_sprintf("data[%s]", k);
            gw_ferr_invalid_str(errs, field, k, "duplicate of key present in binaryData");
            free(field);
        }
        total += json_string_length(v);
    }
    json_object_foreach((json_t *)binary, k, v)
    {
        validate_key("binaryData", k, errs);
        total += gw_registry__bytes_len(v);
    }
    /* kube names the whole object: field.NewPath("") prints as "[]" */
    if (total > GW_MAX_SECRET_SIZE)
        gw_ferr_too_long(errs, "[]", GW_MAX_SECRET_SIZE);
}

void
gw_registry__configmap_validate(const json_t *obj, const json_t *old, gw_field_errors_t *errs)
{
    if (old != NULL && gw_registry__immutable_kept(obj, old, errs)) {
        if (!strings_maps_equal(json_object_get(obj, "data"), json_object_get(old, "data")))
            gw_ferr_forbidden(errs, "data", GW_IMMUTABLE_WHEN_SET);
        if (!gw_registry__bytes_maps_equal(json_object_get(obj, "binaryData"),
                                           json_object_get(old, "binaryData")))
            gw_ferr_forbidden(errs, "binaryData", GW_IMMUTABLE_WHEN_SET);
    }
    validate(obj, errs);
}

/* ---- the strategy ------------------------------------------------------------------------- */

static void
strategy_validate(const gw_resource_t *res, const json_t *obj, const json_t *old,
                  gw_field_errors_t *errs)
{
    (void)res;
    gw_registry__configmap_validate(obj, old, errs);
}

const gw_strategy_t gw_strategy_configmap = {.name = "configmap", .validate = strategy_validate};
