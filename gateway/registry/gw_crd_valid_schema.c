/*
 * A CustomResourceDefinition's OpenAPI v3 schemas as kube-apiserver checks them
 * (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go:
 * validateCustomResourceDefinitionValidation, ValidateCustomResourceDefinitionOpenAPISchema and
 * specStandardValidatorV3): the root under a status subresource, the features kube does not
 * support, the x-kubernetes-* extensions' consistency, and the static shape of
 * x-kubernetes-validations rules; the structural rules are gw_crd_valid_structural.c's. Over the
 * v1 JSON; properties are visited in sorted order (kube ranges over a Go map, so any order is
 * its order); the defaults and the rules' CEL are checked by gateway/apiext
 * (gw_crd_defaults_check, gw_crd_rules_check).
 */
#include "gw_crd_valid_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_crd_rules.h"
#include "gw_crd_schema.h"

/* specStandardValidatorV3's state along the walk. */
typedef struct {
    bool allow_defaults;
    const char *no_defaults_reason; /* NULL or kube's reason */
    bool inside_meta;               /* under a resource's apiVersion, kind or metadata */
} ssv_t;

typedef struct {
    const gw_crd__opts_t *o;
    gw_field_errors_t *errs;
} walk_t;

static const char *const openapi_types[] = {"array",  "boolean", "integer", "number",
                                            "object", "string",  NULL};

static bool
is_true(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

static bool
in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool
blank(const char *s)
{
    for (; *s != '\0'; s++)
        if (strchr(" \t\n\v\f\r", *s) == NULL)
            return false;
    return true;
}

static bool
has_newlines(const char *s)
{
    return strpbrk(s, "\n\r") != NULL;
}

static void
forbid(walk_t *w, const char *path, const char *child, const char *detail)
{
    char *p = gw_sprintf("%s.%s", path, child);

    gw_ferr_forbidden(w->errs, p, detail);
    free(p);
}

/* ---- specStandardValidatorV3.validate ------------------------------------------------------ */

static void
ssv_types(walk_t *w, const json_t *s, const char *path, const ssv_t *v)
{
    const char *t = gw_crd__str(s, "type");
    char *p, *d;

    if (w->o->require_valid_type && t[0] != '\0' && !in_list(t, openapi_types)) {
        p = gw_sprintf("%s.type", path);
        gw_ferr_not_supported(w->errs, p, t, openapi_types);
        free(p);
    }
    if (gw_crd__get(s, "default") != NULL && !v->allow_defaults) {
        d = v->no_defaults_reason != NULL ? gw_sprintf("must not be set %s", v->no_defaults_reason)
                                          : gw_strdup("must not be set");
        forbid(w, path, "default", d);
        free(d);
    }
}

static void
ssv_validate(walk_t *w, const json_t *s, const char *path, const ssv_t *v)
{
    const json_t *items = gw_crd__get(s, "items");

    ssv_types(w, s, path, v);
    if (gw_crd__str(s, "id")[0] != '\0')
        forbid(w, path, "id", "id is not supported");
    if (gw_crd__get(s, "additionalItems") != NULL)
        forbid(w, path, "additionalItems", "additionalItems is not supported");
    if (json_object_size(gw_crd__get(s, "patternProperties")) > 0)
        forbid(w, path, "patternProperties", "patternProperties is not supported");
    if (json_object_size(gw_crd__get(s, "definitions")) > 0)
        forbid(w, path, "definitions", "definitions is not supported");
    if (gw_crd__get(s, "dependencies") != NULL)
        forbid(w, path, "dependencies", "dependencies is not supported");
    if (gw_crd__get(s, "$ref") != NULL)
        forbid(w, path, "$ref", "$ref is not supported");
    if (strcmp(gw_crd__str(s, "type"), "null") == 0)
        forbid(w, path, "type", "type cannot be set to null, use nullable as an alternative");
    if (json_array_size(items) > 0)
        forbid(w, path, "items", "items must be a schema object and not an array");
    if (v->inside_meta && is_true(s, "x-kubernetes-embedded-resource"))
        forbid(w, path, "x-kubernetes-embedded-resource",
               "must not be used inside of resource meta");
}

/* ---- the walk ----------------------------------------------------------------------------- */

static void walk(walk_t *w, const json_t *s, const char *path, const ssv_t *v, bool root);

static void
walk_child(walk_t *w, const json_t *s, const char *path, const char *child, const ssv_t *v)
{
    char *p = gw_sprintf("%s.%s", path, child);

    walk(w, s, p, v, false);
    free(p);
}

static void
walk_array(walk_t *w, const json_t *arr, const char *path, const char *child, const ssv_t *v)
{
    size_t i;
    json_t *x;

    json_array_foreach(arr, i, x)
    {
        char *p = gw_sprintf("%s.%s[%zu]", path, child, i);
        walk(w, x, p, v, false);
        free(p);
    }
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each schema of the object `map` (sorted by key), at path.<child>[key]; `meta` applies
 * resource-meta rules to apiVersion, kind and metadata (at a root or an embedded resource). */
static void
walk_map(walk_t *w, const json_t *map, const char *path, const char *child, const ssv_t *v,
         bool meta, bool root)
{
    static const char *const meta_fields[] = {"metadata", "kind", "apiVersion", NULL};
    const char **keys = gw_calloc(json_object_size(map) + 1, sizeof(*keys)), *k;
    size_t n = 0;
    json_t *x;

    json_object_foreach((json_t *)map, k, x)
    {
        keys[n++] = k;
    }
    qsort(keys, n, sizeof(*keys), cmp_str);
    for (size_t i = 0; i < n; i++) {
        ssv_t sub = *v;
        char *reason = NULL, *p = gw_sprintf("%s.%s[%s]", path, child, keys[i]);
        if (meta && in_list(keys[i], meta_fields)) {
            sub.inside_meta = true;
            if (root) {
                reason = gw_sprintf("in top-level %s", keys[i]);
                sub.allow_defaults = false;
                sub.no_defaults_reason = reason;
            }
        }
        walk(w, json_object_get(map, keys[i]), p, &sub, false);
        free(reason);
        free(p);
    }
    free(keys);
}

static void
walk_additional_properties(walk_t *w, const json_t *s, const char *path, const ssv_t *v)
{
    const json_t *ap = gw_crd__get(s, "additionalProperties");
    ssv_t sub = *v;

    if (ap == NULL)
        return;
    if (json_object_size(gw_crd__get(s, "properties")) > 0 &&
        (json_is_false(ap) || json_is_object(ap)))
        forbid(w, path, "additionalProperties",
               "additionalProperties and properties are mutual exclusive");
    if (v->inside_meta) {
        /* pruning without a value is ambiguous there */
        sub.allow_defaults = false;
        sub.no_defaults_reason = "inside additionalProperties applying to object metadata";
    }
    if (json_is_object(ap))
        walk_child(w, ap, path, "additionalProperties", &sub);
}

/* The schemas nested in s, in kube's order. */
static void
walk_children(walk_t *w, const json_t *s, const char *path, const ssv_t *v, bool root)
{
    const json_t *items = gw_crd__get(s, "items"), *deps = gw_crd__get(s, "dependencies");
    const char *k;
    json_t *x;

    walk_additional_properties(w, s, path, v);
    walk_map(w, gw_crd__get(s, "properties"), path, "properties", v,
             root || is_true(s, "x-kubernetes-embedded-resource"), root);
    walk_child(w, gw_crd__get(s, "not"), path, "not", v);
    walk_array(w, gw_crd__get(s, "allOf"), path, "allOf", v);
    walk_array(w, gw_crd__get(s, "oneOf"), path, "oneOf", v);
    walk_array(w, gw_crd__get(s, "anyOf"), path, "anyOf", v);
    walk_map(w, gw_crd__get(s, "definitions"), path, "definitions", v, false, false);
    if (json_is_object(items))
        walk_child(w, items, path, "items", v);
    else
        walk_array(w, items, path, "items", v);
    json_object_foreach((json_t *)deps, k, x)
    {
        if (json_is_object(x)) {
            char *p = gw_sprintf("%s.dependencies[%s]", path, k);
            walk(w, x, p, v, false);
            free(p);
        }
    }
}

/* A type rule of an extension: Required when the type is empty, else Invalid. */
static void
type_must_be(walk_t *w, const json_t *s, const char *path, const char *detail)
{
    char *p = gw_sprintf("%s.type", path);
    const char *t = gw_crd__str(s, "type");

    if (t[0] == '\0')
        gw_ferr_required(w->errs, p, detail);
    else
        gw_ferr_invalid_str(w->errs, p, t, detail);
    free(p);
}

static void
map_type_rules(walk_t *w, const json_t *s, const char *path)
{
    static const char *const map_types[] = {"atomic", "granular", NULL};
    const json_t *mt = gw_crd__get(s, "x-kubernetes-map-type");
    char *p;

    if (gw_crd__get(s, "x-kubernetes-preserve-unknown-fields") != NULL &&
        !is_true(s, "x-kubernetes-preserve-unknown-fields")) {
        p = gw_sprintf("%s.x-kubernetes-preserve-unknown-fields", path);
        gw_ferr_invalid(w->errs, p, json_false(), "must be true or undefined");
        free(p);
    }
    if (mt == NULL)
        return;
    if (strcmp(gw_crd__str(s, "type"), "object") != 0)
        type_must_be(w, s, path, "must be object if x-kubernetes-map-type is specified");
    if (!in_list(gw_crd__str(s, "x-kubernetes-map-type"), map_types)) {
        p = gw_sprintf("%s.x-kubernetes-map-type", path);
        gw_ferr_not_supported(w->errs, p, gw_crd__str(s, "x-kubernetes-map-type"), map_types);
        free(p);
    }
}

/* The items of a set list are atomic. kube shows the items' list type as the value in both
 * errors (null when unset). */
static void
atomic_set_items(walk_t *w, const json_t *s, const char *path)
{
    const json_t *is = gw_crd__get(s, "items"), *lt = gw_crd__get(is, "x-kubernetes-list-type");
    const char *t = gw_crd__str(is, "type");
    const char *detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
    char *p;

    if (strcmp(t, "array") == 0 && lt != NULL &&
        strcmp(gw_crd__str(is, "x-kubernetes-list-type"), "atomic") != 0) {
        p = gw_sprintf("%s.items.x-kubernetes-list-type", path);
        gw_ferr_invalid(w->errs, p, lt, detail);
        free(p);
    } else if (strcmp(t, "object") == 0 &&
               strcmp(gw_crd__str(is, "x-kubernetes-map-type"), "atomic") != 0) {
        p = gw_sprintf("%s.items.x-kubernetes-map-type", path);
        gw_ferr_invalid(w->errs, p, lt, detail);
        free(p);
    }
}

static void
list_type_rules(walk_t *w, const json_t *s, const char *path)
{
    static const char *const list_types[] = {"atomic", "set", "map", NULL};
    const json_t *lt = gw_crd__get(s, "x-kubernetes-list-type");
    const char *lts = gw_crd__str(s, "x-kubernetes-list-type");
    char *p;

    if (lt != NULL && strcmp(gw_crd__str(s, "type"), "array") != 0)
        type_must_be(w, s, path, "must be array if x-kubernetes-list-type is specified");
    else if (w->o->require_atomic_set && strcmp(lts, "set") == 0 &&
             json_is_object(gw_crd__get(s, "items")))
        atomic_set_items(w, s, path);
    if (lt != NULL && !in_list(lts, list_types)) {
        p = gw_sprintf("%s.x-kubernetes-list-type", path);
        gw_ferr_not_supported(w->errs, p, lts, list_types);
        free(p);
    }
    if (json_array_size(gw_crd__get(s, "x-kubernetes-list-map-keys")) == 0)
        return;
    p = gw_sprintf("%s.x-kubernetes-list-type", path);
    if (lt == NULL)
        gw_ferr_required(w->errs, p, "must be map if x-kubernetes-list-map-keys is non-empty");
    else if (strcmp(lts, "map") != 0)
        gw_ferr_invalid_str(w->errs, p, lts,
                            "must be map if x-kubernetes-list-map-keys is non-empty");
    free(p);
}

static void
list_keys_invalid(walk_t *w, const json_t *keys, const char *path, const char *detail)
{
    char *p = gw_sprintf("%s.x-kubernetes-list-map-keys", path);

    gw_crd__invalid_strings(w->errs, p, keys, detail);
    free(p);
}

/* The keys of a map list name scalar properties of its items, once each. */
static void
map_list_keys(walk_t *w, const json_t *s, const json_t *is, const char *path)
{
    const json_t *keys = gw_crd__get(s, "x-kubernetes-list-map-keys");
    const json_t *props = gw_crd__get(is, "properties");
    json_t *seen = json_object(), *k;
    size_t i;

    json_array_foreach(keys, i, k)
    {
        const char *key = json_is_string(k) ? json_string_value(k) : "";
        const json_t *prop = json_object_get(props, key);
        const char *t = gw_crd__str(prop, "type");
        if (prop != NULL && (strcmp(t, "array") == 0 || strcmp(t, "object") == 0)) {
            /* kube shows the items' type here */
            char *p = gw_sprintf("%s.items.properties[%s].type", path, key);
            gw_ferr_invalid_str(w->errs, p, gw_crd__str(is, "type"),
                                "must be a scalar type if parent array's x-kubernetes-list-type "
                                "is map");
            free(p);
        } else if (prop == NULL) {
            list_keys_invalid(w, keys, path, "entries must all be names of item properties");
        }
        if (json_object_get(seen, key) != NULL)
            list_keys_invalid(w, keys, path, "must not contain duplicate entries");
        json_object_set_new(seen, key, json_true());
    }
    json_decref(seen);
}

static void
map_list_rules(walk_t *w, const json_t *s, const char *path)
{
    const json_t *is = gw_crd__get(s, "items");
    char *p;

    if (strcmp(gw_crd__str(s, "x-kubernetes-list-type"), "map") != 0)
        return;
    if (json_array_size(gw_crd__get(s, "x-kubernetes-list-map-keys")) == 0) {
        p = gw_sprintf("%s.x-kubernetes-list-map-keys", path);
        gw_ferr_required(w->errs, p, "must not be empty if x-kubernetes-list-type is map");
        free(p);
    }
    p = gw_sprintf("%s.items", path);
    if (is == NULL)
        gw_ferr_required(w->errs, p, "must have a schema if x-kubernetes-list-type is map");
    else if (!json_is_object(is))
        gw_ferr_invalid(w->errs, p, is,
                        "must only have a single schema if x-kubernetes-list-type is map");
    free(p);
    if (!json_is_object(is))
        return;
    if (strcmp(gw_crd__str(is, "type"), "object") != 0) {
        p = gw_sprintf("%s.items.type", path);
        gw_ferr_invalid_str(w->errs, p, gw_crd__str(is, "type"),
                            "must be object if parent array's x-kubernetes-list-type is map");
        free(p);
        return;
    }
    map_list_keys(w, s, is, path);
}

/* pathValid: a rule's fieldPath resolves in the rule's schema (when that one is structural). */
static bool
path_valid(const json_t *s, const char *field_path)
{
    const json_t *found;
    char *field = NULL, *err;

    if (gw_crd__unsupported(s) != NULL)
        return true;
    err = gw_crd__field_path(field_path, s, true, &found, &field);
    free(field);
    free(err);
    return err == NULL;
}

/* hasNewlines(strings.TrimSpace(s)): a line break with something else around it. */
static bool
inner_newlines(const char *s)
{
    size_t a = strspn(s, " \t\n\v\f\r"), b = strlen(s);

    while (b > a && strchr(" \t\n\v\f\r", s[b - 1]) != NULL)
        b--;
    return memchr(s + a, '\n', b - a) != NULL || memchr(s + a, '\r', b - a) != NULL;
}

static void
rule_message(walk_t *w, const json_t *r, const char *p)
{
    const char *rule = gw_crd__str(r, "rule"), *msg = gw_crd__str(r, "message");
    char *f = gw_sprintf("%s.message", p), *rp = gw_sprintf("%s.rule", p);

    if (blank(rule))
        gw_ferr_required(w->errs, rp, "rule is not specified");
    else if (msg[0] != '\0' && blank(msg))
        gw_ferr_invalid_str(w->errs, f, msg, "message must be non-empty if specified");
    else if (inner_newlines(msg))
        gw_ferr_invalid_str(w->errs, f, msg, "message must not contain line breaks");
    else if (inner_newlines(rule) && blank(msg))
        gw_ferr_required(w->errs, f, "message must be specified if rule contains line breaks");
    free(f);
    free(rp);
}

/* The static shape of one x-kubernetes-validations rule (its CEL is not compiled here). */
static void
rule_shape(walk_t *w, const json_t *s, const json_t *r, const char *p)
{
    static const char *const reasons[] = {"FieldValueDuplicate", "FieldValueForbidden",
                                          "FieldValueInvalid", "FieldValueRequired", NULL};
    const char *me = gw_crd__str(r, "messageExpression"), *fp = gw_crd__str(r, "fieldPath");
    char *f;

    rule_message(w, r, p);
    if (me[0] != '\0' && blank(me)) {
        f = gw_sprintf("%s.messageExpression", p);
        gw_ferr_required(w->errs, f, "messageExpression must be non-empty if specified");
        free(f);
    }
    if (gw_crd__get(r, "reason") != NULL && !in_list(gw_crd__str(r, "reason"), reasons)) {
        f = gw_sprintf("%s.reason", p);
        gw_ferr_not_supported(w->errs, f, gw_crd__str(r, "reason"), reasons);
        free(f);
    }
    f = gw_sprintf("%s.fieldPath", p);
    if (fp[0] != '\0' && blank(fp))
        gw_ferr_invalid_str(w->errs, f, fp, "fieldPath must be non-empty if specified");
    if (has_newlines(fp))
        gw_ferr_invalid_str(w->errs, f, fp, "fieldPath must not contain line breaks");
    if (fp[0] != '\0' && !path_valid(s, fp))
        gw_ferr_invalid_str(w->errs, f, fp, "fieldPath must be a valid path");
    free(f);
}

static void
validation_rules(walk_t *w, const json_t *s, const char *path)
{
    size_t i;
    json_t *r;

    json_array_foreach(gw_crd__get(s, "x-kubernetes-validations"), i, r)
    {
        char *p = gw_sprintf("%s.x-kubernetes-validations[%zu]", path, i);
        rule_shape(w, s, r, p);
        free(p);
    }
}

/* ValidateCustomResourceDefinitionOpenAPISchema of one schema node and what it nests. */
static void
walk(walk_t *w, const json_t *s, const char *path, const ssv_t *v, bool root)
{
    if (!json_is_object(s))
        return;
    ssv_validate(w, s, path, v);
    if (is_true(s, "uniqueItems"))
        forbid(w, path, "uniqueItems",
               "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
    walk_children(w, s, path, v, root);
    map_type_rules(w, s, path);
    list_type_rules(w, s, path);
    map_list_rules(w, s, path);
    if (w->o->require_map_list_checks)
        gw_crd__map_list_checks(s, path, w->errs);
    validation_rules(w, s, path);
}

/* ---- the validation of one version (or of all) -------------------------------------------- */

/* The root's members a status subresource allows (kube's allowedFieldsAtRootSchema), and every
 * member in the order of Go's JSONSchemaProps, which decides the one kube reports. */
static const char *const root_allowed[] = {"description",
                                           "type",
                                           "format",
                                           "title",
                                           "maximum",
                                           "exclusiveMaximum",
                                           "minimum",
                                           "exclusiveMinimum",
                                           "maxLength",
                                           "minLength",
                                           "pattern",
                                           "maxItems",
                                           "minItems",
                                           "uniqueItems",
                                           "multipleOf",
                                           "required",
                                           "items",
                                           "properties",
                                           "externalDocs",
                                           "example",
                                           "x-kubernetes-preserve-unknown-fields",
                                           "x-kubernetes-validations",
                                           NULL};

static const char *const schema_fields[] = {"id",
                                            "$schema",
                                            "$ref",
                                            "description",
                                            "type",
                                            "nullable",
                                            "format",
                                            "title",
                                            "default",
                                            "maximum",
                                            "exclusiveMaximum",
                                            "minimum",
                                            "exclusiveMinimum",
                                            "maxLength",
                                            "minLength",
                                            "pattern",
                                            "maxItems",
                                            "minItems",
                                            "uniqueItems",
                                            "multipleOf",
                                            "enum",
                                            "maxProperties",
                                            "minProperties",
                                            "required",
                                            "items",
                                            "allOf",
                                            "oneOf",
                                            "anyOf",
                                            "not",
                                            "properties",
                                            "additionalProperties",
                                            "patternProperties",
                                            "dependencies",
                                            "additionalItems",
                                            "definitions",
                                            "externalDocs",
                                            "example",
                                            "x-kubernetes-preserve-unknown-fields",
                                            "x-kubernetes-embedded-resource",
                                            "x-kubernetes-int-or-string",
                                            "x-kubernetes-list-map-keys",
                                            "x-kubernetes-list-type",
                                            "x-kubernetes-map-type",
                                            "x-kubernetes-validations",
                                            NULL};

#define ROOT_ALLOWED_TEXT                                                                          \
    "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum "       \
    "MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items "         \
    "Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at "  \
    "the root of the schema if the status subresource is enabled"

/* Whether member `key` holds Go's zero value in JSONSchemaProps: absent, null, false or "" for
 * plain fields; pointers (numbers, $ref, default, example, the list and map types,
 * x-kubernetes-preserve-unknown-fields) are set whatever they hold, and so are empty lists and
 * maps (non-nil in Go). */
static bool
zero(const char *key, const json_t *v)
{
    static const char *const pointers[] = {"$ref",
                                           "default",
                                           "example",
                                           "x-kubernetes-preserve-unknown-fields",
                                           "x-kubernetes-list-type",
                                           "x-kubernetes-map-type",
                                           NULL};

    if (v == NULL || json_is_null(v))
        return true;
    if (!json_is_false(v) && !(json_is_string(v) && json_string_length(v) == 0))
        return false;
    return !in_list(key, pointers);
}

/* With a status subresource, the root keeps to what survives extracting properties[status]. */
static void
status_root(walk_t *w, const json_t *schema, const char *path)
{
    for (size_t i = 0; schema_fields[i] != NULL; i++) {
        const json_t *v = json_object_get(schema, schema_fields[i]);
        char *p;
        if (zero(schema_fields[i], v))
            continue;
        if (strcmp(schema_fields[i], "type") == 0) {
            if (strcmp(gw_crd__str(schema, "type"), "object") == 0)
                continue;
            p = gw_sprintf("%s.openAPIV3Schema.type", path);
            gw_ferr_invalid_str(w->errs, p, gw_crd__str(schema, "type"),
                                "only \"object\" is allowed as the type at the root of the schema "
                                "if the status subresource is enabled");
            free(p);
            return;
        }
        if (!in_list(schema_fields[i], root_allowed)) {
            p = gw_sprintf("%s.openAPIV3Schema", path);
            gw_ferr_invalid(w->errs, p, schema, ROOT_ALLOWED_TEXT);
            free(p);
            return;
        }
    }
}

void
gw_crd__validate_validation(const json_t *validation, bool status_enabled, const gw_crd__opts_t *o,
                            const char *path, gw_field_errors_t *errs)
{
    const json_t *schema = gw_crd__get(validation, "openAPIV3Schema");
    walk_t w = {.o = o, .errs = errs};
    ssv_t v = {.allow_defaults = true};
    size_t before = gw_ferr_count(errs);
    const char *init_err = NULL;
    char *p;

    if (!json_is_object(schema))
        return;
    if (status_enabled)
        status_root(&w, schema, path);
    if (is_true(schema, "nullable")) {
        p = gw_sprintf("%s.openAPIV3Schema.nullable", path);
        gw_ferr_forbidden(errs, p, "nullable cannot be true at the root");
        free(p);
    }
    p = gw_sprintf("%s.openAPIV3Schema", path);
    if (o->require_structural) {
        /* NewStructural's refusals overlap the walk's errors: shown only without them */
        init_err = gw_crd__unsupported(schema);
        if (init_err == NULL)
            gw_crd__validate_structural(schema, p, errs);
    }
    walk(&w, schema, p, &v, true);
    /* the rules' CEL only over a structural schema without errors (kube's CELSchemaContext) */
    if (o->require_structural && init_err == NULL && gw_ferr_count(errs) == before) {
        gw_crd_defaults_check(schema, p, errs);
        gw_crd_rules_check(schema, p, errs);
    }
    if (init_err != NULL && gw_ferr_count(errs) == before) {
        char *m = gw_sprintf("Invalid value: \"\": %s", init_err);
        gw_ferr_add(errs, "FieldValueInvalid", p, m);
        free(m);
    }
    free(p);
}
