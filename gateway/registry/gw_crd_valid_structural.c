/*
 * What a CustomResourceDefinition's schemas must be beyond their OpenAPI shape, as
 * apiextensions-apiserver's pkg/apiserver/schema has it: ValidateStructural (its invariants, the
 * completeness of the root's junctors) with NewStructural's refusals, the SchemaHas predicates
 * validation.go relaxes updates with, cel.ValidFieldPath, and the selectable fields. Over the v1
 * JSON; the structural errors are sorted by their text as kube sorts them.
 */
#include "gw_crd_valid_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_json_strings.h"

/* ---- JSON helpers ------------------------------------------------------------------------- */

const json_t *
gw_crd__get(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return v != NULL && !json_is_null(v) ? v : NULL;
}

const char *
gw_crd__str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s != NULL ? s : "";
}

static bool
is_true(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

char *
gw_crd__go_strings(const json_t *arr)
{
    char *out, *q, *next;
    size_t i;
    json_t *v;

    if (json_array_size(arr) == 0)
        return gw_strdup("[]string(nil)");
    out = gw_strdup("[]string{");
    json_array_foreach(arr, i, v)
    {
        q = gw_ferr_quote(json_is_string(v) ? json_string_value(v) : "");
        next = gw_sprintf("%s%s%s", out, i > 0 ? ", " : "", q);
        free(q);
        free(out);
        out = next;
    }
    next = gw_sprintf("%s}", out);
    free(out);
    return next;
}

static bool
in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

void
gw_crd__invalid_strings(gw_field_errors_t *e, const char *field, const json_t *arr,
                        const char *detail)
{
    char *v = gw_crd__go_strings(arr), *m = gw_sprintf("Invalid value: %s: %s", v, detail);

    gw_ferr_add(e, "FieldValueInvalid", field, m);
    free(v);
    free(m);
}

/* ---- SchemaHas ---------------------------------------------------------------------------- */

static bool schema_has(const json_t *s, bool (*pred)(const json_t *s));

static bool
each_has(const json_t *arr, bool (*pred)(const json_t *s))
{
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
    {
        if (json_is_object(v) && schema_has(v, pred))
            return true;
    }
    return false;
}

static bool
values_have(const json_t *obj, bool (*pred)(const json_t *s))
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)obj, k, v)
    {
        if (json_is_object(v) && schema_has(v, pred))
            return true;
    }
    return false;
}

/* SchemaHas: pred on s and every schema nested in it. */
static bool
schema_has(const json_t *s, bool (*pred)(const json_t *s))
{
    const json_t *items = gw_crd__get(s, "items");

    if (!json_is_object(s))
        return false;
    if (pred(s))
        return true;
    if ((json_is_object(items) && schema_has(items, pred)) || each_has(items, pred))
        return true;
    if (each_has(gw_crd__get(s, "allOf"), pred) || each_has(gw_crd__get(s, "anyOf"), pred) ||
        each_has(gw_crd__get(s, "oneOf"), pred) || schema_has(gw_crd__get(s, "not"), pred))
        return true;
    if (values_have(gw_crd__get(s, "properties"), pred) ||
        schema_has(gw_crd__get(s, "additionalProperties"), pred) ||
        values_have(gw_crd__get(s, "patternProperties"), pred) ||
        schema_has(gw_crd__get(s, "additionalItems"), pred))
        return true;
    return values_have(gw_crd__get(s, "definitions"), pred) ||
           values_have(gw_crd__get(s, "dependencies"), pred);
}

static bool
node_has_default(const json_t *s)
{
    return gw_crd__get(s, "default") != NULL;
}

bool
gw_crd__has_defaults(const json_t *schema)
{
    return schema_has(schema, node_has_default);
}

static bool
node_has_extensions(const json_t *s)
{
    return is_true(s, "x-kubernetes-embedded-resource") ||
           gw_crd__get(s, "x-kubernetes-preserve-unknown-fields") != NULL ||
           is_true(s, "x-kubernetes-int-or-string") ||
           json_array_size(json_object_get(s, "x-kubernetes-list-map-keys")) > 0 ||
           gw_crd__get(s, "x-kubernetes-list-type") != NULL ||
           json_array_size(json_object_get(s, "x-kubernetes-validations")) > 0;
}

bool
gw_crd__has_extensions(const json_t *schema)
{
    return schema_has(schema, node_has_extensions);
}

static const char *const openapi_types[] = {"array",  "boolean", "integer", "number",
                                            "object", "string",  NULL};

static bool
node_has_invalid_type(const json_t *s)
{
    const char *t = gw_crd__str(s, "type");

    return t[0] != '\0' && !in_list(t, openapi_types);
}

bool
gw_crd__has_invalid_types(const json_t *schema)
{
    return schema_has(schema, node_has_invalid_type);
}

static bool
node_non_atomic_set(const json_t *s)
{
    const json_t *is = gw_crd__get(s, "items");
    const char *t;

    if (strcmp(gw_crd__str(s, "x-kubernetes-list-type"), "set") != 0 || !json_is_object(is))
        return false;
    t = gw_crd__str(is, "type");
    if (strcmp(t, "array") == 0)
        return gw_crd__get(is, "x-kubernetes-list-type") != NULL &&
               strcmp(gw_crd__str(is, "x-kubernetes-list-type"), "atomic") != 0;
    if (strcmp(t, "object") == 0)
        return strcmp(gw_crd__str(is, "x-kubernetes-map-type"), "atomic") != 0;
    return false;
}

bool
gw_crd__has_non_atomic_set(const json_t *schema)
{
    return schema_has(schema, node_non_atomic_set);
}

/* validateMapListKeysMapSet: the items of map and set lists are not nullable; a map list's keys
 * are required or defaulted, and not nullable. */
void
gw_crd__map_list_checks(const json_t *s, const char *path, gw_field_errors_t *errs)
{
    const json_t *is = gw_crd__get(s, "items"), *props = gw_crd__get(is, "properties");
    const char *lt = gw_crd__str(s, "x-kubernetes-list-type");
    size_t i;
    json_t *k;
    char *p, *d;

    if (!json_is_object(is) || (strcmp(lt, "set") != 0 && strcmp(lt, "map") != 0))
        return;
    if (is_true(is, "nullable")) {
        p = gw_sprintf("%s.items.nullable", path);
        d = gw_sprintf("cannot be nullable when x-kubernetes-list-type is %s", lt);
        gw_ferr_forbidden(errs, p, d);
        free(p);
        free(d);
    }
    if (strcmp(lt, "map") != 0)
        return;
    json_array_foreach(gw_crd__get(s, "x-kubernetes-list-map-keys"), i, k)
    {
        const char *key = json_is_string(k) ? json_string_value(k) : "";
        const json_t *prop = json_object_get(props, key);
        if (prop == NULL)
            continue;
        if (!gw_json_strings_has(gw_crd__get(is, "required"), key) &&
            gw_crd__get(prop, "default") == NULL) {
            p = gw_sprintf("%s.items.properties[%s].default", path, key);
            gw_ferr_required(errs, p,
                             "this property is in x-kubernetes-list-map-keys, so it must have a "
                             "default or be a required property");
            free(p);
        }
        if (is_true(prop, "nullable")) {
            p = gw_sprintf("%s.items.properties[%s].nullable", path, key);
            gw_ferr_forbidden(errs, p,
                              "this property is in x-kubernetes-list-map-keys, so it cannot be "
                              "nullable");
            free(p);
        }
    }
}

static bool
node_invalid_map_list(const json_t *s)
{
    gw_field_errors_t e = {0};
    bool bad;

    gw_crd__map_list_checks(s, "", &e);
    bad = gw_ferr_count(&e) > 0;
    gw_ferr_clear(&e);
    return bad;
}

bool
gw_crd__has_invalid_map_list(const json_t *schema)
{
    return schema_has(schema, node_invalid_map_list);
}

/* ---- NewStructural's refusals ------------------------------------------------------------- */

/* validateUnsupportedFields of one node: kube's error, or NULL. */
static const char *
unsupported_field(const json_t *s)
{
    const json_t *items = gw_crd__get(s, "items");

    if (gw_crd__str(s, "id")[0] != '\0')
        return "OpenAPIV3Schema 'id' is not supported";
    if (gw_crd__str(s, "$schema")[0] != '\0')
        return "OpenAPIV3Schema 'schema' is not supported";
    if (gw_crd__str(s, "$ref")[0] != '\0')
        return "OpenAPIV3Schema '$ref' is not supported";
    if (json_object_size(gw_crd__get(s, "patternProperties")) > 0)
        return "OpenAPIV3Schema 'patternProperties' is not supported";
    if (json_object_size(gw_crd__get(s, "dependencies")) > 0)
        return "OpenAPIV3Schema 'dependencies' is not supported";
    if (gw_crd__get(s, "additionalItems") != NULL)
        return "OpenAPIV3Schema 'additionalItems' is not supported";
    if (json_object_size(gw_crd__get(s, "definitions")) > 0)
        return "OpenAPIV3Schema 'definitions' is not supported";
    if (json_is_array(items))
        return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    if (json_is_false(json_object_get(s, "x-kubernetes-preserve-unknown-fields")))
        return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
    return NULL;
}

static const char *
first_unsupported_in(const json_t *container, bool array)
{
    const char *msg = NULL, *k;
    size_t i;
    json_t *v;

    if (array) {
        json_array_foreach(container, i, v)
        {
            if (msg == NULL)
                msg = gw_crd__unsupported(v);
        }
        return msg;
    }
    json_object_foreach((json_t *)container, k, v)
    {
        if (msg == NULL)
            msg = gw_crd__unsupported(v);
    }
    return msg;
}

const char *
gw_crd__unsupported(const json_t *s)
{
    const char *msg;

    if (!json_is_object(s))
        return NULL;
    if ((msg = unsupported_field(s)) != NULL)
        return msg;
    if ((msg = gw_crd__unsupported(gw_crd__get(s, "items"))) != NULL ||
        (msg = gw_crd__unsupported(gw_crd__get(s, "additionalProperties"))) != NULL ||
        (msg = gw_crd__unsupported(gw_crd__get(s, "not"))) != NULL)
        return msg;
    if ((msg = first_unsupported_in(gw_crd__get(s, "properties"), false)) != NULL)
        return msg;
    if ((msg = first_unsupported_in(gw_crd__get(s, "allOf"), true)) != NULL ||
        (msg = first_unsupported_in(gw_crd__get(s, "anyOf"), true)) != NULL)
        return msg;
    return first_unsupported_in(gw_crd__get(s, "oneOf"), true);
}

/* ---- ValidateStructural ------------------------------------------------------------------- */

typedef enum { LVL_ROOT, LVL_ITEM, LVL_FIELD } level_t;

static void nested_value_validation(const json_t *v, bool skip_any_of, bool skip_all_of_any_of,
                                    const char *path, gw_field_errors_t *e);

/* Whether arr is exactly [{type: integer}, {type: string}] (IntOrString's anyOf). */
static bool
int_or_string_any_of(const json_t *arr)
{
    const json_t *a = json_array_get(arr, 0), *b = json_array_get(arr, 1);

    return json_array_size(arr) == 2 && json_object_size(a) == 1 && json_object_size(b) == 1 &&
           strcmp(gw_crd__str(a, "type"), "integer") == 0 &&
           strcmp(gw_crd__str(b, "type"), "string") == 0;
}

static void
nested_each(const json_t *arr, const char *path, const char *what, bool skip_first_any_of,
            gw_field_errors_t *e)
{
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
    {
        char *p = gw_sprintf("%s.%s[%zu]", path, what, i);
        nested_value_validation(v, skip_first_any_of && i == 0, false, p, e);
        free(p);
    }
}

/* validateValueValidation: the junctors of one schema or nested value validation. */
static void
value_validation(const json_t *s, bool skip_any_of, bool skip_all_of_any_of, const char *path,
                 gw_field_errors_t *e)
{
    char *p;

    if (!skip_any_of)
        nested_each(gw_crd__get(s, "anyOf"), path, "anyOf", false, e);
    nested_each(gw_crd__get(s, "allOf"), path, "allOf", skip_all_of_any_of, e);
    nested_each(gw_crd__get(s, "oneOf"), path, "oneOf", false, e);
    p = gw_sprintf("%s.not", path);
    nested_value_validation(gw_crd__get(s, "not"), false, false, p, e);
    free(p);
}

typedef enum { F_STR, F_PRESENT, F_TRUE, F_LIST } fkind_t;

/* What a value validation under a junctor may not have (kube's ForbiddenGenerics and
 * ForbiddenExtensions). */
static void
forbid_in_nested(const json_t *v, const char *path, gw_field_errors_t *e)
{
    static const struct {
        const char *key, *detail;
        fkind_t kind;
    } rules[] = {
        {"type", "must be empty to be structural", F_STR},
        {"additionalProperties", "must be undefined to be structural", F_PRESENT},
        {"default", "must be undefined to be structural", F_PRESENT},
        {"title", "must be empty to be structural", F_STR},
        {"description", "must be empty to be structural", F_STR},
        {"nullable", "must be false to be structural", F_TRUE},
        {"x-kubernetes-preserve-unknown-fields", "must be false to be structural", F_TRUE},
        {"x-kubernetes-embedded-resource", "must be false to be structural", F_TRUE},
        {"x-kubernetes-int-or-string", "must be false to be structural", F_TRUE},
        {"x-kubernetes-list-map-keys", "must be empty to be structural", F_LIST},
        {"x-kubernetes-list-type", "must be undefined to be structural", F_PRESENT},
    };

    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        const json_t *x = gw_crd__get(v, rules[i].key);
        bool set = rules[i].kind == F_STR    ? json_string_length(x) > 0
                   : rules[i].kind == F_TRUE ? json_is_true(x)
                   : rules[i].kind == F_LIST ? json_array_size(x) > 0
                                             : x != NULL;
        if (set) {
            char *p = gw_sprintf("%s.%s", path, rules[i].key);
            gw_ferr_forbidden(e, p, rules[i].detail);
            free(p);
        }
    }
}

/* validateNestedValueValidation: a schema under allOf, anyOf, oneOf or not. */
static void
nested_value_validation(const json_t *v, bool skip_any_of, bool skip_all_of_any_of,
                        const char *path, gw_field_errors_t *e)
{
    const json_t *props = gw_crd__get(v, "properties");
    const char *k;
    json_t *sub;
    char *p;

    if (!json_is_object(v))
        return;
    value_validation(v, skip_any_of, skip_all_of_any_of, path, e);
    if (json_is_object(gw_crd__get(v, "items"))) {
        p = gw_sprintf("%s.items", path);
        nested_value_validation(gw_crd__get(v, "items"), false, false, p, e);
        free(p);
    }
    json_object_foreach((json_t *)props, k, sub)
    {
        p = gw_sprintf("%s.properties[%s]", path, k);
        nested_value_validation(sub, false, false, p, e);
        free(p);
    }
    forbid_in_nested(v, path, e);
    if (json_object_get(props, "metadata") != NULL) {
        p = gw_sprintf("%s.properties[metadata]", path);
        gw_ferr_forbidden(e, p, "must not be specified in a nested context");
        free(p);
    }
}

/* A type rule's error: Required when the type is empty, else Invalid. */
static void
type_error(const json_t *s, const char *path, const char *detail, gw_field_errors_t *e)
{
    char *p = gw_sprintf("%s.type", path);
    const char *t = gw_crd__str(s, "type");

    if (t[0] == '\0')
        gw_ferr_required(e, p, detail);
    else
        gw_ferr_invalid_str(e, p, t, detail);
    free(p);
}

/* Whether the root's metadata schema says more than `type: object` and name/generateName. */
static bool
metadata_restricted(const json_t *m)
{
    static const char *const allowed[] = {"type", "properties", "default", NULL};
    const json_t *props = gw_crd__get(m, "properties");
    size_t n = json_object_size(props);
    bool name = json_object_get(props, "name") != NULL;
    bool gen = json_object_get(props, "generateName") != NULL;
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)m, k, v)
    {
        if (json_is_null(v) || in_list(k, allowed))
            continue;
        if (json_is_false(v) || (json_is_string(v) && json_string_length(v) == 0) ||
            (json_is_array(v) && json_array_size(v) == 0))
            continue; /* Go's zero values */
        return true;
    }
    return n > 0 && !((name && gen && n == 2) || ((name || gen) && n == 1));
}

static void invariants(const json_t *s, level_t lvl, const char *path, gw_field_errors_t *e);

static void
meta_field_types(const json_t *s, const char *path, gw_field_errors_t *e)
{
    static const struct {
        const char *name, *type, *detail;
    } fields[] = {{"kind", "string", "must be string"},
                  {"apiVersion", "string", "must be string"},
                  {"metadata", "object", "must be object"}};
    const json_t *props = gw_crd__get(s, "properties");

    for (size_t i = 0; i < 3; i++) {
        const json_t *f = json_object_get(props, fields[i].name);
        if (f != NULL && strcmp(gw_crd__str(f, "type"), fields[i].type) != 0) {
            char *p = gw_sprintf("%s.properties[%s].type", path, fields[i].name);
            gw_ferr_invalid_str(e, p, gw_crd__str(f, "type"), fields[i].detail);
            free(p);
        }
    }
}

static void
invariant_children(const json_t *s, level_t lvl, const char *path, gw_field_errors_t *e)
{
    const json_t *items = gw_crd__get(s, "items"), *ap = gw_crd__get(s, "additionalProperties");
    const char *k;
    json_t *v;
    char *p;

    if (strcmp(gw_crd__str(s, "type"), "array") == 0 && items == NULL) {
        p = gw_sprintf("%s.items", path);
        gw_ferr_required(e, p, "must be specified");
        free(p);
    }
    p = gw_sprintf("%s.items", path);
    invariants(items, LVL_ITEM, p, e);
    free(p);
    json_object_foreach((json_t *)gw_crd__get(s, "properties"), k, v)
    {
        p = gw_sprintf("%s.properties[%s]", path, k);
        invariants(v, LVL_FIELD, p, e);
        free(p);
    }
    if (ap != NULL && lvl == LVL_ROOT) {
        p = gw_sprintf("%s.additionalProperties", path);
        gw_ferr_forbidden(e, p, "must not be used at the root");
        free(p);
    }
    if (json_is_object(ap)) {
        p = gw_sprintf("%s.additionalProperties", path);
        invariants(ap, LVL_FIELD, p, e);
        free(p);
    }
}

static void
invariant_extensions(const json_t *s, const char *path, gw_field_errors_t *e)
{
    char *p;

    if (!is_true(s, "x-kubernetes-int-or-string"))
        return;
    if (is_true(s, "x-kubernetes-preserve-unknown-fields")) {
        p = gw_sprintf("%s.x-kubernetes-preserve-unknown-fields", path);
        gw_ferr_invalid(e, p, json_true(), "must be false if x-kubernetes-int-or-string is true");
        free(p);
    }
    if (is_true(s, "x-kubernetes-embedded-resource")) {
        p = gw_sprintf("%s.x-kubernetes-embedded-resource", path);
        gw_ferr_invalid(e, p, json_true(), "must be false if x-kubernetes-int-or-string is true");
        free(p);
    }
}

static void
invariant_type(const json_t *s, level_t lvl, const char *path, gw_field_errors_t *e)
{
    static const char *const empty[] = {"must not be empty at the root",
                                        "must not be empty for specified array items",
                                        "must not be empty for specified object fields"};
    bool embedded = is_true(s, "x-kubernetes-embedded-resource");
    const char *t = gw_crd__str(s, "type");
    char *p;

    if (embedded && strcmp(t, "object") != 0)
        type_error(s, path, "must be object if x-kubernetes-embedded-resource is true", e);
    else if (t[0] == '\0' && !is_true(s, "x-kubernetes-int-or-string") &&
             !is_true(s, "x-kubernetes-preserve-unknown-fields"))
        type_error(s, path, empty[lvl], e);
    if (embedded && gw_crd__get(s, "additionalProperties") != NULL) {
        p = gw_sprintf("%s.additionalProperties", path);
        gw_ferr_forbidden(e, p, "must not be used if x-kubernetes-embedded-resource is set");
        free(p);
    }
    if (lvl == LVL_ROOT && t[0] != '\0' && strcmp(t, "object") != 0) {
        p = gw_sprintf("%s.type", path);
        gw_ferr_invalid_str(e, p, t, "must be object at the root");
        free(p);
    }
}

/* validateStructuralInvariants. */
static void
invariants(const json_t *s, level_t lvl, const char *path, gw_field_errors_t *e)
{
    const json_t *meta;
    bool embedded = is_true(s, "x-kubernetes-embedded-resource");
    char *p;

    if (!json_is_object(s))
        return;
    invariant_children(s, lvl, path, e);
    invariant_extensions(s, path, e);
    value_validation(
        s, int_or_string_any_of(gw_crd__get(s, "anyOf")),
        int_or_string_any_of(gw_crd__get(json_array_get(gw_crd__get(s, "allOf"), 0), "anyOf")),
        path, e);
    invariant_type(s, lvl, path, e);
    if (lvl == LVL_ROOT || embedded)
        meta_field_types(s, path, e);
    meta = json_object_get(gw_crd__get(s, "properties"), "metadata");
    if (meta != NULL && lvl == LVL_ROOT && metadata_restricted(meta)) {
        p = gw_sprintf("%s.properties[metadata]", path);
        gw_ferr_forbidden(e, p,
                          "must not specify anything other than name and generateName, but "
                          "metadata is implicitly specified");
        free(p);
    }
    if (embedded && !is_true(s, "x-kubernetes-preserve-unknown-fields") &&
        json_object_size(gw_crd__get(s, "properties")) == 0) {
        p = gw_sprintf("%s.properties", path);
        gw_ferr_required(e, p,
                         "must not be empty if x-kubernetes-embedded-resource is true without "
                         "x-kubernetes-preserve-unknown-fields");
        free(p);
    }
}

static void complete_nested(const json_t *v, const json_t *s, const char *spath, const char *vpath,
                            gw_field_errors_t *e);

static void
complete_junctors(const json_t *v, const json_t *s, const char *spath, const char *vpath,
                  gw_field_errors_t *e)
{
    static const char *const junctors[] = {"allOf", "anyOf", "oneOf"};
    char *p = gw_sprintf("%s.not", vpath);

    complete_nested(gw_crd__get(v, "not"), s, spath, p, e);
    free(p);
    for (size_t j = 0; j < 3; j++) {
        size_t i;
        json_t *x;
        json_array_foreach(gw_crd__get(v, junctors[j]), i, x)
        {
            p = gw_sprintf("%s.%s[%zu]", vpath, junctors[j], i);
            complete_nested(x, s, spath, p, e);
            free(p);
        }
    }
}

/* validateNestedValueValidationCompleteness: what v specifies must be in the schema s. */
static void
complete_nested(const json_t *v, const json_t *s, const char *spath, const char *vpath,
                gw_field_errors_t *e)
{
    const json_t *sprops = gw_crd__get(s, "properties");
    const char *k;
    json_t *x;
    char *sp, *vp, *d;

    if (!json_is_object(v))
        return;
    if (!json_is_object(s)) {
        d = gw_sprintf("because it is defined in %s", vpath);
        gw_ferr_required(e, spath, d);
        free(d);
        return;
    }
    complete_junctors(v, s, spath, vpath, e);
    if (json_is_object(gw_crd__get(v, "items"))) {
        sp = gw_sprintf("%s.items", spath);
        vp = gw_sprintf("%s.items", vpath);
        complete_nested(gw_crd__get(v, "items"), gw_crd__get(s, "items"), sp, vp, e);
        free(sp);
        free(vp);
    }
    json_object_foreach((json_t *)gw_crd__get(v, "properties"), k, x)
    {
        sp = gw_sprintf("%s.properties[%s]", spath, k);
        vp = gw_sprintf("%s.properties[%s]", vpath, k);
        if (json_object_get(sprops, k) != NULL) {
            complete_nested(x, json_object_get(sprops, k), sp, vp, e);
        } else {
            d = gw_sprintf("because it is defined in %s", vp);
            gw_ferr_required(e, sp, d);
            free(d);
        }
        free(sp);
        free(vp);
    }
}

static int
cmp_cause(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(gw_crd__str(x, "field"), gw_crd__str(y, "field"));

    return c != 0 ? c : strcmp(gw_crd__str(x, "message"), gw_crd__str(y, "message"));
}

void
gw_crd__validate_structural(const json_t *schema, const char *path, gw_field_errors_t *errs)
{
    gw_field_errors_t e = {0};
    size_t n, i;
    json_t **v;

    invariants(schema, LVL_ROOT, path, &e);
    complete_junctors(schema, schema, path, path, &e);
    n = gw_ferr_count(&e);
    v = gw_calloc(n + 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_array_get(e.causes, i);
    qsort(v, n, sizeof(*v), cmp_cause);
    for (i = 0; i < n; i++)
        gw_ferr_add(errs, gw_crd__str(v[i], "reason"), gw_crd__str(v[i], "field"),
                    gw_crd__str(v[i], "message"));
    free(v);
    gw_ferr_clear(&e);
}

bool
gw_crd__non_structural(const json_t *schema)
{
    gw_field_errors_t e = {0};
    bool bad;

    if (schema == NULL)
        return false;
    if (gw_crd__unsupported(schema) != NULL)
        return true;
    gw_crd__validate_structural(schema, "", &e);
    bad = gw_ferr_count(&e) > 0;
    gw_ferr_clear(&e);
    return bad;
}

/* ---- field paths (cel.ValidFieldPath) ----------------------------------------------------- */

/* The next token of a JSON path at *pos: '.', '[' or ']' alone, a quoted string with its quotes,
 * or the text up to the next delimiter. NULL at the end. Caller frees. */
static char *
next_token(const char *s, size_t *pos)
{
    size_t i = *pos, j;

    if (s[i] == '\0')
        return NULL;
    if (strchr(".[]", s[i]) != NULL) {
        *pos = i + 1;
        return gw_strndup(s + i, 1);
    }
    if (s[i] == '\'') {
        for (j = i + 1; s[j] != '\0' && s[j] != '\''; j++)
            if (s[j] == '\\' && s[j + 1] != '\0')
                j++;
        j += s[j] == '\'' ? 1 : 0;
    } else {
        for (j = i; s[j] != '\0' && strchr(".[]", s[j]) == NULL; j++)
            ;
    }
    *pos = j;
    return gw_strndup(s + i, j - i);
}

/* unescapeSingleQuote: \' and \\ and the usual escapes; NULL for an unknown escape. */
static char *
unquote(const char *tok)
{
    size_t n = strlen(tok);
    char *out = gw_malloc(n + 1), *w = out;

    for (size_t i = 1; i + 1 < n; i++) {
        if (tok[i] != '\\') {
            *w++ = tok[i];
            continue;
        }
        const char *esc = strchr("a\ab\bf\fn\nr\rt\tv\v''\\\\", tok[++i]);
        if (esc == NULL || ((esc - "a\ab\bf\fn\nr\rt\tv\v''\\\\") % 2) != 0) {
            free(out);
            return NULL;
        }
        *w++ = esc[1];
    }
    *w = '\0';
    return out;
}

typedef struct {
    const json_t *schema;
    char *path;
} fp_t;

/* appendToPath: a named field through properties, a key through additionalProperties. */
static char *
fp_append(fp_t *f, const char *name)
{
    const json_t *props = gw_crd__get(f->schema, "properties");
    const json_t *ap = gw_crd__get(f->schema, "additionalProperties");
    char *next;

    if (props != NULL) {
        next = f->path ? gw_sprintf("%s.%s", f->path, name) : gw_strdup(name);
        f->schema = json_object_get(props, name);
        free(f->path);
        f->path = next;
        return f->schema == NULL ? gw_strdup("does not refer to a valid field") : NULL;
    }
    if (ap == NULL)
        return gw_strdup("does not refer to a valid field");
    next = gw_sprintf("%s[%s]", f->path ? f->path : "", name);
    free(f->path);
    f->path = next;
    f->schema = json_is_object(ap) ? ap : NULL;
    return NULL;
}

static char *
fp_bracket(fp_t *f, const char *s, size_t *pos, bool allow_array)
{
    char *tok, *name, *err;

    if (!allow_array)
        return gw_strdup("array notation is not allowed");
    if ((tok = next_token(s, pos)) == NULL)
        return gw_strdup("unexpected end of JSON path");
    if (strlen(tok) < 2 || tok[0] != '\'' || tok[strlen(tok) - 1] != '\'') {
        err = gw_sprintf("expected single quoted string but got %s", tok);
        free(tok);
        return err;
    }
    name = unquote(tok);
    free(tok);
    if (name == NULL)
        return gw_strdup("invalid string literal: invalid escape char");
    err = fp_append(f, name);
    free(name);
    if (err != NULL)
        return err;
    if ((tok = next_token(s, pos)) == NULL)
        return gw_strdup("unexpected end of JSON path");
    err = strcmp(tok, "]") != 0 ? gw_sprintf("expected ] but got %s", tok) : NULL;
    free(tok);
    return err;
}

char *
gw_crd__field_path(const char *json_path, const json_t *schema, bool allow_array,
                   const json_t **found, char **field)
{
    fp_t f = {.schema = schema, .path = NULL};
    size_t pos = 0;
    char *tok, *err = NULL;

    while (err == NULL && (tok = next_token(json_path, &pos)) != NULL) {
        if (strcmp(tok, "[") == 0) {
            err = fp_bracket(&f, json_path, &pos, allow_array);
        } else if (strcmp(tok, ".") == 0) {
            char *name = next_token(json_path, &pos);
            err = name == NULL ? gw_strdup("unexpected end of JSON path") : fp_append(&f, name);
            free(name);
        } else {
            err = gw_sprintf("expected [ or . but got: %s", tok);
        }
        free(tok);
    }
    if (err != NULL) {
        free(f.path);
        *field = NULL;
        return err;
    }
    *found = f.schema;
    *field = f.path != NULL ? f.path : gw_strdup("");
    return NULL;
}

/* ---- selectable fields -------------------------------------------------------------------- */

#define MAX_SELECTABLE_FIELDS 8

static bool
selectable_type(const json_t *s)
{
    static const char *const ok[] = {"string", "boolean", "integer", NULL};

    return s != NULL && in_list(gw_crd__str(s, "type"), ok);
}

/* One selectable field; its path (as kube prints it) is added to seen when valid. */
static void
selectable_one(const json_t *sf, const json_t *schema, const char *p, json_t *seen,
               gw_field_errors_t *errs)
{
    const char *jp = gw_crd__str(sf, "jsonPath");
    const json_t *found = NULL;
    char *field = NULL, *err, *d;

    if (jp[0] == '\0') {
        gw_ferr_required(errs, p, NULL);
        return;
    }
    err = gw_crd__field_path(jp, schema, false, &found, &field);
    if (err != NULL) {
        d = gw_sprintf("is an invalid path: %s", err);
        gw_ferr_invalid_str(errs, p, jp, d);
        free(d);
        free(err);
        return;
    }
    if (strcmp(field, "metadata") == 0 || strncmp(field, "metadata.", 9) == 0 ||
        strncmp(field, "metadata[", 9) == 0)
        gw_ferr_invalid_str(errs, p, jp, "must not point to fields in metadata");
    if (!selectable_type(found))
        gw_ferr_invalid_str(errs, p, jp,
                            "must point to a field of type string, boolean or integer. Enum "
                            "string fields and strings with formats are allowed.");
    if (json_object_get(seen, field) != NULL)
        gw_ferr_duplicate(errs, p, jp);
    else
        json_object_set_new(seen, field, json_true());
    free(field);
}

void
gw_crd__validate_selectable(const json_t *fields, const json_t *schema, const char *path,
                            gw_field_errors_t *errs)
{
    json_t *seen = json_object(), *sf;
    size_t i;

    json_array_foreach(fields, i, sf)
    {
        char *p = gw_sprintf("%s[%zu].jsonPath", path, i);
        selectable_one(sf, schema, p, seen, errs);
        free(p);
    }
    if (json_object_size(seen) > MAX_SELECTABLE_FIELDS)
        gw_ferr_too_many(errs, path, json_object_size(seen), MAX_SELECTABLE_FIELDS);
    json_decref(seen);
}
