/* kube's validation of embedded resources (schema/objectmeta/validation.go): each object marked
 * x-kubernetes-embedded-resource needs a string apiVersion (a group/version) and kind, and its
 * metadata must decode as ObjectMeta and pass ObjectMeta's validation. */
#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_schema_int.h"
#include "gw_crd_schema.h"
#include "gw_fieldval.h"

static void embedded_node(const json_t *v, const gw_schema_t *s, const char *path,
                          gw_field_errors_t *errs);

static char *
member_path(const char *path, const char *key)
{
    return path[0] != '\0' ? gw_sprintf("%s.%s", path, key) : gw_strdup(key);
}

/* apiVersion or kind: a non-empty string; apiVersion parses as a group/version. */
static void
check_type_member(const char *path, const char *key, const json_t *v, gw_field_errors_t *errs)
{
    char *p = member_path(path, key);
    const char *s = json_string_value(v);
    if (s == NULL) {
        gw_ferr_invalid(errs, p, v, "must be a string");
    } else if (s[0] == '\0') {
        gw_ferr_invalid(errs, p, v, "must not be empty");
    } else if (strcmp(key, "apiVersion") == 0 && strcmp(s, "/") != 0 && strchr(s, '/') != NULL &&
               strchr(strchr(s, '/') + 1, '/') != NULL) {
        char *msg = gw_sprintf("unexpected GroupVersion string: %s", s);
        gw_ferr_invalid(errs, p, v, msg);
        free(msg);
    }
    free(p);
}

/* encoding/json's first complaint about metadata as an ObjectMeta, or NULL (caller frees). */
static char *
decode_error(const json_t *meta, const gw_schema_t *objmeta)
{
    static const char *const names[] = {
        [JSON_ARRAY] = "array", [JSON_STRING] = "string", [JSON_INTEGER] = "number",
        [JSON_REAL] = "number", [JSON_TRUE] = "bool",     [JSON_FALSE] = "bool",
    };
    if (!json_is_object(meta))
        return gw_sprintf("json: cannot unmarshal %s into Go value of type v1.ObjectMeta",
                          names[json_typeof(meta)]);
    gw_field_issues_t is = {0};
    json_t *copy = json_deep_copy(meta);
    char *msg = NULL;
    gw_fieldval_check(copy, objmeta, &is);
    for (size_t i = 0; i < is.n && msg == NULL; i++)
        if (is.items[i].kind == GW_FIELD_DECODE)
            msg = gw_strdup(is.items[i].message);
    gw_field_issues_clear(&is);
    json_decref(copy);
    return msg;
}

/* ValidateObjectMeta of the embedded metadata (a missing name reads as "fakename"), its paths
   under the resource's. */
static void
check_metadata(const char *path, const json_t *meta, const gw_schema_t *objmeta,
               gw_field_errors_t *errs)
{
    char *p = member_path(path, "metadata"), *bad = decode_error(meta, objmeta);
    if (bad != NULL) {
        gw_ferr_invalid(errs, p, meta, bad);
        free(bad);
        free(p);
        return;
    }
    json_t *obj = json_object(), *m = json_is_object(meta) ? json_deep_copy(meta) : json_object();
    if (json_string_length(json_object_get(m, "name")) == 0)
        json_object_set_new(m, "name", json_string("fakename"));
    json_object_set_new(obj, "metadata", m);
    gw_field_errors_t found = {0};
    gw_objmeta_validate(obj, json_string_length(json_object_get(m, "namespace")) > 0,
                        GW_NAME_PATH_SEGMENT, &found);
    size_t i;
    json_t *c;
    json_array_foreach(found.causes, i, c)
    {
        char *field = gw_sprintf("%s%s%s", path, path[0] != '\0' ? "." : "",
                                 json_string_value(json_object_get(c, "field")));
        gw_ferr_add(errs, json_string_value(json_object_get(c, "reason")), field,
                    json_string_value(json_object_get(c, "message")));
        free(field);
    }
    gw_ferr_clear(&found);
    json_decref(obj);
    free(p);
}

static void
check_resource(const json_t *x, const gw_schema_t *s, const char *path, gw_field_errors_t *errs)
{
    static const char *const required[] = {"apiVersion", "kind"};
    const gw_schema_field_t *meta = gw_schema_field(s, "metadata");
    const char *key;
    const json_t *v;
    for (size_t i = 0; i < 2; i++) {
        if (json_object_get(x, required[i]) != NULL)
            continue;
        char *p = member_path(path, required[i]);
        gw_ferr_required(errs, p, "must not be empty");
        free(p);
    }
    json_object_foreach((json_t *)x, key, v)
    {
        if (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0)
            check_type_member(path, key, v, errs);
        else if (strcmp(key, "metadata") == 0 && !json_is_null(v))
            check_metadata(path, v, meta != NULL ? meta->schema : NULL, errs);
    }
}

static void
embedded_node(const json_t *v, const gw_schema_t *s, const char *path, gw_field_errors_t *errs)
{
    const char *key;
    const json_t *val;
    size_t i;
    if (s == NULL || s->rules == NULL)
        return;
    if (json_is_array(v)) {
        json_array_foreach(v, i, val)
        {
            char *p = gw_sprintf("%s[%zu]", path, i);
            embedded_node(val, s->items, p, errs);
            free(p);
        }
        return;
    }
    if (!json_is_object(v))
        return;
    if (s->embedded_resource)
        check_resource(v, s, path, errs);
    json_object_foreach((json_t *)v, key, val)
    {
        const gw_schema_field_t *f = gw_schema_field(s, key);
        char *p = member_path(path, key);
        embedded_node(val, f != NULL ? f->schema : s->values, p, errs);
        free(p);
    }
}

void
gw_crd__validate_embedded(const gw_schema_t *root, const json_t *obj, gw_field_errors_t *errs)
{
    embedded_node(obj, root, "", errs);
}
